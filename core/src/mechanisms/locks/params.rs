//! The locks as a [`Mechanism`]: their key table, setter, reader and validation.
//!
//! | key | field | allowed | default |
//! |---|---|---|---|
//! | `lock` | `lock` | `shmtx`, `ttas`, `spin-yield`, `ticket`, `futex` | `shmtx` |
//! | `variant` | `variant` | `correct`, `no-wait-decrement`, `announce-after-check`, `unlock-reads-wait-first`, `plain-load-store`, `seed-listing` (with `lock=shmtx`) | `correct` |
//! | `threads` | `threads` | 1-16 | 4 |
//! | `rounds` | `rounds` | 1-1000000 | 20 |
//! | `cpus` | `cpus` | 1-16 | 2 |
//! | `spin` | `spin` | 1-65536 | 2048 |
//! | `semaphore` | `semaphore` | `on`, `off` | `on` |
//! | `yield` | `yield_after` | 1-65536 (spin-yield's tests before a yield) | 64 |
//! | `cs` | `cs_ns` | 0-10000000 (ns in the critical section) | 100 |
//! | `crash` | `crash` | `on`, `off`: thread 0 dies holding the lock in its first round (with `lock=shmtx`) | `off` |
//! | `master` | `master` | `on`, `off`: with `crash`, a master process force-unlocks the dead pid | `on` |
//! | `seed` | `seed` | 0-18446744073709551615 | 1 |
//!
//! The switches are written `on`/`off` only ([`KeyKind::Switch`]).
//!
//! ```
//! use herdlab_core::mechanisms::locks::{LockKind, LockParams, Locks};
//! use herdlab_core::mechanism::Mechanism;
//! let mut p = LockParams::default();
//! Locks::set(&mut p, "lock", "ticket").unwrap();
//! assert_eq!(p.lock, LockKind::Ticket);
//! assert_eq!(Locks::get(&p, "semaphore").as_deref(), Some("on"));
//! let e = Locks::set(&mut p, "semaphore", "true").unwrap_err();
//! assert_eq!(e.to_string(), "semaphore: 'true' is not allowed; allowed: on, off");
//! ```

use super::shmtx::ShmtxVariant;
use super::{LockKind, LockParams, LockWorker};
use crate::cost::CostModel;
use crate::mechanism::{unknown_key, Key, KeyKind, Mechanism};
use crate::scenario::ParamError;
use crate::sim::Simulation;

/// nginx's `ngx_shmtx` and its rivals (TTAS, spin-then-yield, ticket, futex mutex): threads
/// taking one lock in rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Locks;

/// The `lock` names, in the order of [`LockKind::ALL`] (a test holds them equal).
pub const LOCK_NAMES: [&str; 5] = ["shmtx", "ttas", "spin-yield", "ticket", "futex"];

/// The `variant` names, in the order of [`ShmtxVariant::ALL`] (a test holds them equal).
pub const SHMTX_VARIANT_NAMES: [&str; 6] = [
    "correct",
    "no-wait-decrement",
    "announce-after-check",
    "unlock-reads-wait-first",
    "plain-load-store",
    "seed-listing",
];

impl Mechanism for Locks {
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        use crate::chart::{ChartSpec, XAxis};
        const THREADS: XAxis = XAxis::Column {
            key: "threads",
            label: "threads",
            log: true,
        };
        vec![
            ChartSpec {
                title: "Throughput vs threads",
                x: THREADS,
                y: "ops_per_sec",
                y_label: "acquisitions per second",
                series: &["lock", "form", "cs_ns", "padded"],
            },
            ChartSpec {
                title: "Wait for the lock, 99th percentile, vs threads",
                x: THREADS,
                y: "wait_p99_ns",
                y_label: "p99 wait (ns)",
                series: &["lock", "form", "cs_ns", "padded"],
            },
        ]
    }

    const NAME: &'static str = "locks";
    const TITLE: &'static str = "Locks: ngx_shmtx and its rivals";
    type Params = LockParams;
    type Thread = LockWorker;
    const KEYS: &'static [Key] = &[
        Key {
            name: "lock",
            kind: KeyKind::OneOf(&LOCK_NAMES),
            help: "which lock",
        },
        Key {
            name: "variant",
            kind: KeyKind::OneOf(&SHMTX_VARIANT_NAMES),
            help: "which ngx_shmtx code (lock=shmtx only)",
        },
        Key {
            name: "threads",
            kind: KeyKind::range(1, 16, ""),
            help: "threads taking the lock",
        },
        Key {
            name: "rounds",
            kind: KeyKind::range(1, 1_000_000, ""),
            help: "lock/unlock rounds per thread",
        },
        Key {
            name: "cpus",
            kind: KeyKind::range(1, 16, ""),
            help: "CPUs (also ngx_ncpu)",
        },
        Key {
            name: "spin",
            kind: KeyKind::range(1, 65_536, ""),
            help: "mtx->spin, the spin budget (nginx: 2048)",
        },
        Key {
            name: "semaphore",
            kind: KeyKind::Switch,
            help: "whether shmtx sleeps on a semaphore (else sched_yield)",
        },
        Key {
            name: "yield",
            kind: KeyKind::range(1, 65_536, ""),
            help: "spin-yield's failed tests before each sched_yield",
        },
        Key {
            name: "cs",
            kind: KeyKind::range(0, 10_000_000, "ns"),
            help: "work inside the critical section",
        },
        Key {
            name: "crash",
            kind: KeyKind::Switch,
            help: "thread 0 dies holding the lock in its first round (lock=shmtx)",
        },
        Key {
            name: "master",
            kind: KeyKind::Switch,
            help: "with crash: a master process force-unlocks the dead pid",
        },
        Key {
            name: "seed",
            kind: KeyKind::range(0, u64::MAX, ""),
            help: "the seed of every random choice",
        },
    ];

    fn set(p: &mut LockParams, key: &str, value: &str) -> Result<(), ParamError> {
        let Some(k) = Self::key(key) else {
            return Err(unknown_key(Self::KEYS, key));
        };
        match k.name {
            "lock" => p.lock = k.parse_name(value, LockKind::from_name)?,
            "variant" => p.variant = k.parse_name(value, ShmtxVariant::from_name)?,
            "threads" => p.threads = k.parse_u64(value)? as u32,
            "rounds" => p.rounds = k.parse_u64(value)? as u32,
            "cpus" => p.cpus = k.parse_u64(value)? as u32,
            "spin" => p.spin = k.parse_u64(value)? as u32,
            "semaphore" => p.semaphore = k.parse_switch(value)?,
            "yield" => p.yield_after = k.parse_u64(value)? as u32,
            "cs" => p.cs_ns = k.parse_u64(value)?,
            "crash" => p.crash = k.parse_switch(value)?,
            "master" => p.master = k.parse_switch(value)?,
            "seed" => p.seed = k.parse_u64(value)?,
            _ => return Err(unknown_key(Self::KEYS, key)),
        }
        Ok(())
    }

    fn get(p: &LockParams, key: &str) -> Option<String> {
        let k = Self::key(key)?;
        Some(match key {
            "lock" => p.lock.name().to_string(),
            "variant" => p.variant.name().to_string(),
            "threads" => p.threads.to_string(),
            "rounds" => p.rounds.to_string(),
            "cpus" => p.cpus.to_string(),
            "spin" => p.spin.to_string(),
            "semaphore" => k.show_switch(p.semaphore),
            "yield" => p.yield_after.to_string(),
            "cs" => p.cs_ns.to_string(),
            "crash" => k.show_switch(p.crash),
            "master" => k.show_switch(p.master),
            "seed" => p.seed.to_string(),
            _ => return None,
        })
    }

    /// The combinations first (a variant of shmtx with another lock, a crash without shmtx, a
    /// crash with a master and 16 threads), then the ranges of `threads` and `cpus` (the others
    /// are not checked here: the simulator clamps them).
    fn validate(p: &LockParams) -> Vec<ParamError> {
        let mut errs = Vec::new();
        if p.variant != ShmtxVariant::Correct && p.lock != LockKind::Shmtx {
            errs.push(ParamError::new(
                "variant",
                format!(
                    "{} is a variant of shmtx; {} takes correct",
                    p.variant.name(),
                    p.lock.name()
                ),
            ));
        }
        if p.crash && p.lock != LockKind::Shmtx {
            errs.push(ParamError::new(
                "crash",
                format!(
                    "a crash scenario needs lock=shmtx (force_unlock); {} takes off",
                    p.lock.name()
                ),
            ));
        }
        if p.crash && p.master && p.threads > 15 {
            errs.push(ParamError::new(
                "threads",
                "out of range with crash=on and master=on; allowed 1-15 (the master is the 16th)"
                    .into(),
            ));
        }
        for key in ["threads", "cpus"] {
            let n = if key == "threads" { p.threads } else { p.cpus };
            if let Some(k) = Self::key(key).filter(|k| !k.in_range(u64::from(n))) {
                errs.push(k.out_of_range());
            }
        }
        errs
    }

    /// The default value of `variant` and `crash`; nothing for `threads`, whose only error a
    /// parsed address can have (16 threads with a crash and a master) the page shows beside the
    /// value it keeps, as it always has.
    fn reset(p: &mut LockParams, field: &str) {
        let d = LockParams::default();
        match field {
            "variant" => p.variant = d.variant,
            "crash" => p.crash = d.crash,
            _ => {}
        }
    }

    fn simulate_with(p: &LockParams, cost: CostModel) -> Simulation<LockWorker> {
        p.simulate_with(cost)
    }
}
