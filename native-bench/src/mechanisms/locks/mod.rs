//! The locks (nginx's `ngx_shmtx` and its rivals): `sim locks`, `check <lock>`, `bench locks`,
//! and core's lock machines on real threads.

pub mod bench;
pub mod check;
pub mod cli;
pub mod native;
pub mod sim;

use herdlab_core::locks::LockParams;
use herdlab_core::mechanism::{Key, KeyKind, Mechanism};
use herdlab_core::scenario::{set_lock_param, validate_locks, ParamError};

/// The locks, as the registry names them.
///
/// Interim: core's `locks::Locks` (branch wt-registry) replaces this type and its `Mechanism`
/// implementation, which forwards to core's `set_lock_param` and `validate_locks`.
#[derive(Clone, Copy, Debug)]
pub struct Locks;

impl Mechanism for Locks {
    const NAME: &'static str = "locks";
    const TITLE: &'static str = "nginx's ngx_shmtx and its rivals";
    type Params = LockParams;
    const KEYS: &'static [Key] = &[
        Key {
            name: "lock",
            kind: KeyKind::OneOf(&["shmtx", "ttas", "spin-yield", "ticket", "futex"]),
            help: "the lock",
        },
        Key {
            name: "variant",
            kind: KeyKind::OneOf(&[
                "correct",
                "no-wait-decrement",
                "announce-after-check",
                "unlock-reads-wait-first",
                "plain-load-store",
                "seed-listing",
            ]),
            help: "shmtx's variant: correct, or a broken one",
        },
        Key {
            name: "threads",
            kind: KeyKind::Range {
                lo: 1,
                hi: 16,
                unit: "",
            },
            help: "threads",
        },
        Key {
            name: "rounds",
            kind: KeyKind::Range {
                lo: 1,
                hi: 1_000_000,
                unit: "",
            },
            help: "acquisitions per thread",
        },
        Key {
            name: "cpus",
            kind: KeyKind::Range {
                lo: 1,
                hi: 16,
                unit: "",
            },
            help: "CPUs (ngx_ncpu)",
        },
        Key {
            name: "spin",
            kind: KeyKind::Range {
                lo: 1,
                hi: 65_536,
                unit: "",
            },
            help: "shmtx's spin count",
        },
        Key {
            name: "semaphore",
            kind: KeyKind::Switch,
            help: "turn shmtx's semaphore off",
        },
        Key {
            name: "yield",
            kind: KeyKind::Range {
                lo: 1,
                hi: 65_536,
                unit: "",
            },
            help: "spin-yield's tests before a yield",
        },
        Key {
            name: "cs",
            kind: KeyKind::Range {
                lo: 0,
                hi: 10_000_000,
                unit: "ns",
            },
            help: "the critical section",
        },
        Key {
            name: "crash",
            kind: KeyKind::Switch,
            help: "thread 0 dies holding the lock (shmtx)",
        },
        Key {
            name: "master",
            kind: KeyKind::Switch,
            help: "no master process force-unlocks the dead pid",
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

    fn set(p: &mut LockParams, key: &str, value: &str) -> Result<(), ParamError> {
        set_lock_param(p, key, value)
    }

    fn get(_p: &LockParams, _key: &str) -> Option<String> {
        None
    }

    fn validate(p: &LockParams) -> Vec<ParamError> {
        validate_locks(p)
    }

    fn reset(_p: &mut LockParams, _field: &str) {}
}
