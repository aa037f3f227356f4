//! The thundering herd: `sim herd`, `check herd`, `bench herd`, and core's herd machines on real
//! threads.

pub mod bench;
pub mod check;
pub mod cli;
pub mod native;
pub mod sim;

use herdlab_core::herd::{HerdParams, Primitive, Variant, WakeMode};
use herdlab_core::mechanism::{Key, KeyKind, Mechanism};
use herdlab_core::scenario::{set_herd_param, validate_herd, ParamError};
use herdlab_core::sim::arrivals::ArrivalPattern;

/// The herd, as the registry names it.
///
/// Interim: core's `herd::Herd` (branch wt-registry) replaces this type and its `Mechanism`
/// implementation, which forwards to core's `set_herd_param` and `validate_herd`.
#[derive(Clone, Copy, Debug)]
pub struct Herd;

impl Mechanism for Herd {
    const NAME: &'static str = "herd";
    const TITLE: &'static str = "The thundering herd";
    type Params = HerdParams;
    const KEYS: &'static [Key] = &[
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
            name: "mode",
            kind: KeyKind::OneOf(&WakeMode::NAMES),
            help: "how the wait queue wakes its sleepers",
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
            name: "rate",
            kind: KeyKind::Range {
                lo: 1,
                hi: 10_000_000,
                unit: "per second",
            },
            help: "arrival rate",
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
            name: "service",
            kind: KeyKind::Range {
                lo: 0,
                hi: 100_000_000,
                unit: "ns",
            },
            help: "work per connection",
        },
        Key {
            name: "variant",
            kind: KeyKind::OneOf(&Variant::NAMES),
            help: "correct, or a broken sleeper",
        },
        Key {
            name: "primitive",
            kind: KeyKind::OneOf(&Primitive::NAMES),
            help: "what the workers sleep in",
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

    fn set(p: &mut HerdParams, key: &str, value: &str) -> Result<(), ParamError> {
        set_herd_param(p, key, value)
    }

    fn get(_p: &HerdParams, _key: &str) -> Option<String> {
        None
    }

    fn validate(p: &HerdParams) -> Vec<ParamError> {
        validate_herd(p)
    }

    fn reset(_p: &mut HerdParams, _field: &str) {}
}
