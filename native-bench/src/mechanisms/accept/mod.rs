//! The accept strategies (the epoll herd, `EPOLLEXCLUSIVE`, `SO_REUSEPORT`, nginx's accept mutex):
//! `sim accept`, `check accept-mutex`/`check accept`, `bench accept`, and core's accept workers on
//! real threads.

pub mod check;
pub mod cli;
pub mod cmd;
pub mod native;

use herdlab_core::accept::{AcceptParams, MutexVariant, Strategy};
use herdlab_core::mechanism::{Key, KeyKind, Mechanism};
use herdlab_core::scenario::{set_accept_param, validate_accept, ParamError};
use herdlab_core::sim::arrivals::ArrivalPattern;

/// The accept strategies, as the registry names them.
///
/// Interim: core's `accept::Accept` (branch wt-registry) replaces this type and its `Mechanism`
/// implementation, which forwards to core's `set_accept_param` and `validate_accept`.
#[derive(Clone, Copy, Debug)]
pub struct Accept;

impl Mechanism for Accept {
    const NAME: &'static str = "accept";
    const TITLE: &'static str = "Accept strategies";
    type Params = AcceptParams;
    const KEYS: &'static [Key] = &[
        Key {
            name: "strategy",
            kind: KeyKind::OneOf(&Strategy::NAMES),
            help: "the accept strategy",
        },
        Key {
            name: "workers",
            kind: KeyKind::Range {
                lo: 1,
                hi: 64,
                unit: "",
            },
            help: "worker threads",
        },
        Key {
            name: "cpus",
            kind: KeyKind::Range {
                lo: 1,
                hi: 16,
                unit: "",
            },
            help: "simulated CPUs",
        },
        Key {
            name: "connections",
            kind: KeyKind::Range {
                lo: 1,
                hi: 1_000_000,
                unit: "",
            },
            help: "connections in all",
        },
        Key {
            name: "rate",
            kind: KeyKind::Range {
                lo: 1,
                hi: 10_000_000,
                unit: "per second",
            },
            help: "arrival rate",
        },
        Key {
            name: "arrival",
            kind: KeyKind::OneOf(&ArrivalPattern::NAMES),
            help: "when connections arrive",
        },
        Key {
            name: "burst",
            kind: KeyKind::Range {
                lo: 1,
                hi: 1024,
                unit: "",
            },
            help: "connections per burst",
        },
        Key {
            name: "requests",
            kind: KeyKind::Range {
                lo: 1,
                hi: 1000,
                unit: "",
            },
            help: "requests per connection",
        },
        Key {
            name: "service",
            kind: KeyKind::Range {
                lo: 0,
                hi: 100_000_000,
                unit: "ns",
            },
            help: "work per request",
        },
        Key {
            name: "think",
            kind: KeyKind::Range {
                lo: 0,
                hi: 1_000_000_000,
                unit: "ns",
            },
            help: "the client's pause after each response",
        },
        Key {
            name: "multi_accept",
            kind: KeyKind::Switch,
            help: "nginx's multi_accept on",
        },
        Key {
            name: "reorder_every",
            kind: KeyKind::Range {
                lo: 0,
                hi: 65_536,
                unit: "",
            },
            help: "EPOLLEXCLUSIVE's wait-queue reorder period (0: never)",
        },
        Key {
            name: "delay",
            kind: KeyKind::Range {
                lo: 1,
                hi: 60_000,
                unit: "ms",
            },
            help: "accept_mutex_delay",
        },
        Key {
            name: "worker_connections",
            kind: KeyKind::Range {
                lo: 1,
                hi: 65_536,
                unit: "",
            },
            help: "nginx's worker_connections",
        },
        Key {
            name: "variant",
            kind: KeyKind::OneOf(&MutexVariant::NAMES),
            help: "the accept mutex: correct, or a broken one",
        },
        Key {
            name: "local_clients",
            kind: KeyKind::Switch,
            help: "the clients run on the server's CPUs",
        },
        Key {
            name: "seed",
            kind: KeyKind::Range {
                lo: 0,
                hi: u64::MAX,
                unit: "",
            },
            help: "the random seed",
        },
    ];

    fn set(p: &mut AcceptParams, key: &str, value: &str) -> Result<(), ParamError> {
        set_accept_param(p, key, value)
    }

    fn get(_p: &AcceptParams, _key: &str) -> Option<String> {
        None
    }

    fn validate(p: &AcceptParams) -> Vec<ParamError> {
        validate_accept(p)
    }

    fn reset(_p: &mut AcceptParams, _field: &str) {}
}
