//! The herd as a [`Mechanism`]: its key table, setter, reader and validation.
//!
//! | key (URL and CLI) | field | allowed | default |
//! |---|---|---|---|
//! | `workers` | `workers` | 1-64 | 8 |
//! | `cpus` | `cpus` | 1-16 | 2 |
//! | `mode` | `mode` | `wake-all`, `exclusive`, `lifo-exclusive` (the last with `primitive=accept` only) | `wake-all` |
//! | `arrival` | `arrival` | `on-demand`, `burst`, `poisson`, `steady` | `on-demand` |
//! | `burst` | `burst` | 1-1024 | 4 |
//! | `rate` | `rate` | 1-10000000 (per second) | 10000 |
//! | `connections` | `connections` | 1-1000000 | 1000 |
//! | `service` | `service_ns` | 0-100000000 (ns) | 5000 |
//! | `variant` | `variant` | `correct`, `broken-sleeper` (the latter with `primitive=accept` only) | `correct` |
//! | `primitive` | `primitive` | `accept`, `futex`, `condvar` | `accept` |
//! | `seed` | `seed` | 0-18446744073709551615 | 1 |
//!
//! ```
//! use herdlab_core::mechanisms::herd::{Herd, HerdParams, WakeMode};
//! use herdlab_core::mechanism::Mechanism;
//! let mut p = HerdParams::default();
//! Herd::set(&mut p, "mode", "exclusive").unwrap();
//! assert_eq!(p.mode, WakeMode::Exclusive);
//! assert_eq!(Herd::get(&p, "mode").as_deref(), Some("exclusive"));
//! let e = Herd::set(&mut p, "workers", "0").unwrap_err();
//! assert_eq!(e.to_string(), "workers: 0 is out of range; allowed 1-64");
//! ```

use super::{HerdParams, HerdThread, Primitive, Variant, WakeMode};
use crate::cost::CostModel;
use crate::mechanism::{unknown_key, Key, KeyKind, Mechanism};
use crate::scenario::ParamError;
use crate::sim::arrivals::ArrivalPattern;
use crate::sim::Simulation;

/// The thundering herd: workers asleep on one wait queue (accept), futex or condition variable,
/// woken all at once or one at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Herd;

impl Mechanism for Herd {
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        use crate::chart::{ChartSpec, XAxis};
        const THREADS: XAxis = XAxis::Column {
            key: "threads",
            label: "worker threads",
            log: true,
        };
        vec![
            ChartSpec {
                title: "Wasted wakeups per event vs threads",
                x: THREADS,
                y: "wasted_per_event",
                y_label: "wasted wakeups per event",
                series: &["variant"],
            },
            ChartSpec {
                title: "Event to work, 99th percentile, vs threads",
                x: THREADS,
                y: "event_p99_ns",
                y_label: "p99 latency (ns)",
                series: &["variant"],
            },
        ]
    }

    const NAME: &'static str = "herd";
    const TITLE: &'static str = "The thundering herd";
    type Params = HerdParams;
    type Thread = HerdThread;
    const KEYS: &'static [Key] = &[
        Key {
            name: "workers",
            kind: KeyKind::range(1, 64, ""),
            help: "worker threads asleep on the queue",
        },
        Key {
            name: "cpus",
            kind: KeyKind::range(1, 16, ""),
            help: "CPUs",
        },
        Key {
            name: "mode",
            kind: KeyKind::OneOf(&WakeMode::NAMES),
            help: "how sleepers are queued and woken (lifo-exclusive with primitive=accept only)",
        },
        Key {
            name: "arrival",
            kind: KeyKind::OneOf(&ArrivalPattern::NAMES),
            help: "how connections arrive",
        },
        Key {
            name: "burst",
            kind: KeyKind::range(1, 1024, ""),
            help: "connections per burst (arrival=burst)",
        },
        Key {
            name: "rate",
            kind: KeyKind::range(1, 10_000_000, "per second"),
            help: "arrival rate (arrival=poisson)",
        },
        Key {
            name: "connections",
            kind: KeyKind::range(1, 1_000_000, ""),
            help: "connections in the whole run",
        },
        Key {
            name: "service",
            kind: KeyKind::range(0, 100_000_000, "ns"),
            help: "work per connection",
        },
        Key {
            name: "variant",
            kind: KeyKind::OneOf(&Variant::NAMES),
            help: "correct or broken sleeper (broken-sleeper with primitive=accept only)",
        },
        Key {
            name: "primitive",
            kind: KeyKind::OneOf(&Primitive::NAMES),
            help: "what the workers sleep on",
        },
        Key {
            name: "seed",
            kind: KeyKind::range(0, u64::MAX, ""),
            help: "the seed of every random choice",
        },
    ];

    fn set(p: &mut HerdParams, key: &str, value: &str) -> Result<(), ParamError> {
        let Some(k) = Self::key(key) else {
            return Err(unknown_key(Self::KEYS, key));
        };
        match k.name {
            "workers" => p.workers = k.parse_u64(value)? as u32,
            "cpus" => p.cpus = k.parse_u64(value)? as u32,
            "mode" => p.mode = k.parse_name(value, WakeMode::from_name)?,
            "arrival" => p.arrival = k.parse_name(value, ArrivalPattern::from_name)?,
            "burst" => p.burst = k.parse_u64(value)? as u32,
            "rate" => p.rate = k.parse_u64(value)? as u32,
            "connections" => p.connections = k.parse_u64(value)? as u32,
            "service" => p.service_ns = k.parse_u64(value)?,
            "variant" => p.variant = k.parse_name(value, Variant::from_name)?,
            "primitive" => p.primitive = k.parse_name(value, Primitive::from_name)?,
            "seed" => p.seed = k.parse_u64(value)?,
            _ => return Err(unknown_key(Self::KEYS, key)),
        }
        Ok(())
    }

    fn get(p: &HerdParams, key: &str) -> Option<String> {
        Some(match key {
            "workers" => p.workers.to_string(),
            "cpus" => p.cpus.to_string(),
            "mode" => p.mode.name().to_string(),
            "arrival" => p.arrival.name().to_string(),
            "burst" => p.burst.to_string(),
            "rate" => p.rate.to_string(),
            "connections" => p.connections.to_string(),
            "service" => p.service_ns.to_string(),
            "variant" => p.variant.name().to_string(),
            "primitive" => p.primitive.name().to_string(),
            "seed" => p.seed.to_string(),
            _ => return None,
        })
    }

    /// The ranges, then the combinations that single keys cannot express: `lifo-exclusive` and
    /// `broken-sleeper` exist for the accept queue only.
    fn validate(p: &HerdParams) -> Vec<ParamError> {
        let mut errs = Self::range_errors(p);
        if p.mode == WakeMode::LifoExclusive && p.primitive != Primitive::Accept {
            errs.push(ParamError::new(
                "mode",
                "lifo-exclusive needs primitive=accept; futex and condvar take wake-all or exclusive"
                    .into(),
            ));
        }
        if p.variant == Variant::BrokenSleeper && p.primitive != Primitive::Accept {
            errs.push(ParamError::new(
                "variant",
                "broken-sleeper needs primitive=accept; futex and condvar take correct".into(),
            ));
        }
        errs
    }

    fn simulate_with(p: &HerdParams, cost: CostModel) -> Simulation<HerdThread> {
        p.simulate_with(cost)
    }
}
