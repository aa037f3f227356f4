//! The accept strategies as a [`Mechanism`]: their key table, setter, reader and validation.
//!
//! | key | field | allowed | default |
//! |---|---|---|---|
//! | `strategy` | `strategy` | `herd`, `shared-epoll`, `exclusive`, `accept-mutex`, `reuseport`, `blocking` | `herd` |
//! | `workers` | `workers` | 1-64 | 8 |
//! | `cpus` | `cpus` | 1-16 | 2 |
//! | `connections` | `connections` | 1-1000000 | 1000 |
//! | `rate` | `rate` | 1-10000000 (per second) | 200 |
//! | `arrival` | `arrival` | `on-demand`, `burst`, `poisson`, `steady` | `poisson` |
//! | `burst` | `burst` | 1-1024 | 4 |
//! | `requests` | `requests` | 1-1000 (per connection) | 1 |
//! | `service` | `service_ns` | 0-100000000 (ns) | 20000 |
//! | `think` | `think_ns` | 0-1000000000 (ns, on top of the client's turnaround) | 0 |
//! | `multi_accept` | `multi_accept` | `true`, `false` (or nginx's `on`, `off`) | `false` |
//! | `reorder_every` | `reorder_every` | 0-65536 (exclusive only; 0: never) | 16 |
//! | `delay` | `mutex_delay_ms` | 1-60000 (ms, `accept_mutex_delay`; accept-mutex only) | 500 |
//! | `worker_connections` | `worker_connections` | 1-65536 | 512 |
//! | `variant` | `variant` | `correct`, `unlock-before-accept`, `no-disable`, `no-timer` (accept-mutex only) | `correct` |
//! | `local_clients` | `local_clients` | `true`, `false` (or `on`, `off`): the clients run on the server's CPUs | `false` |
//! | `seed` | `seed` | 0-18446744073709551615 | 1 |
//!
//! Keys that only one strategy reads (`reorder_every`, `delay`, `variant`) are accepted with every
//! strategy, so one query can describe a comparison of strategies; the others ignore them. Every
//! combination of in-range values is valid.
//!
//! ```
//! use herdlab_core::mechanisms::accept::{Accept, AcceptParams};
//! use herdlab_core::mechanism::Mechanism;
//! let mut p = AcceptParams::default();
//! Accept::set(&mut p, "multi_accept", "on").unwrap();
//! assert_eq!(Accept::get(&p, "multi_accept").as_deref(), Some("true"));
//! let e = Accept::set(&mut p, "delay", "0").unwrap_err();
//! assert_eq!(e.to_string(), "delay: 0 is out of range; allowed 1-60000");
//! ```

use super::{AcceptParams, AcceptThread, MutexVariant, Strategy};
use crate::cost::CostModel;
use crate::mechanism::{unknown_key, Key, KeyKind, Mechanism};
use crate::scenario::ParamError;
use crate::sim::arrivals::ArrivalPattern;
use crate::sim::Simulation;

/// Event-loop workers sharing a listening socket: the epoll herd, `EPOLLEXCLUSIVE`,
/// `SO_REUSEPORT`, nginx's accept mutex, and blocking `accept`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Accept;

impl Mechanism for Accept {
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        use crate::chart::{ChartSpec, XAxis};
        vec![
            ChartSpec {
                title: "Wakeups per connection, per strategy",
                x: XAxis::Columns {
                    columns: &[
                        ("wakeups", "wakeups_per_connection"),
                        ("wasted", "wasted_per_connection"),
                        ("EAGAIN", "eagain_per_connection"),
                    ],
                    label: "what the workers did per connection",
                },
                y: "",
                y_label: "per connection",
                series: &["strategy", "workers"],
            },
            ChartSpec {
                title: "Accept latency percentiles, per strategy",
                x: XAxis::Columns {
                    columns: &[("p50", "accept_p50_ns"), ("p99", "accept_p99_ns")],
                    label: "percentile",
                },
                y: "",
                y_label: "connect to accept (ns)",
                series: &["strategy", "workers"],
            },
        ]
    }

    const NAME: &'static str = "accept";
    const TITLE: &'static str = "Sharing a listening socket";
    type Params = AcceptParams;
    type Thread = AcceptThread;
    const KEYS: &'static [Key] = &[
        Key {
            name: "strategy",
            kind: KeyKind::OneOf(&Strategy::NAMES),
            help: "how the listening socket is shared",
        },
        Key {
            name: "workers",
            kind: KeyKind::range(1, 64, ""),
            help: "worker processes",
        },
        Key {
            name: "cpus",
            kind: KeyKind::range(1, 16, ""),
            help: "CPUs",
        },
        Key {
            name: "connections",
            kind: KeyKind::range(1, 1_000_000, ""),
            help: "connections in the run",
        },
        Key {
            name: "rate",
            kind: KeyKind::range(1, 10_000_000, "per second"),
            help: "new connections (steady and poisson arrivals)",
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
            name: "requests",
            kind: KeyKind::range(1, 1000, "per connection"),
            help: "requests per connection (keep-alive)",
        },
        Key {
            name: "service",
            kind: KeyKind::range(0, 100_000_000, "ns"),
            help: "service time per request",
        },
        Key {
            name: "think",
            kind: KeyKind::range(0, 1_000_000_000, "ns"),
            help: "the client's gap before its next request, on top of its turnaround",
        },
        Key {
            name: "multi_accept",
            kind: KeyKind::Bool,
            help: "nginx's multi_accept: accept until EAGAIN",
        },
        Key {
            name: "reorder_every",
            kind: KeyKind::range(0, 65_536, ""),
            help: "re-register the listener every this many accepts (exclusive only; 0: never)",
        },
        Key {
            name: "delay",
            kind: KeyKind::range(1, 60_000, "ms"),
            help: "accept_mutex_delay (accept-mutex only)",
        },
        Key {
            name: "worker_connections",
            kind: KeyKind::range(1, 65_536, ""),
            help: "nginx's worker_connections",
        },
        Key {
            name: "variant",
            kind: KeyKind::OneOf(&MutexVariant::NAMES),
            help: "the accept mutex's code (accept-mutex only)",
        },
        Key {
            name: "local_clients",
            kind: KeyKind::Bool,
            help: "the clients run on the server's CPUs",
        },
        Key {
            name: "seed",
            kind: KeyKind::range(0, u64::MAX, ""),
            help: "the seed of every random choice",
        },
    ];

    fn set(p: &mut AcceptParams, key: &str, value: &str) -> Result<(), ParamError> {
        let Some(k) = Self::key(key) else {
            return Err(unknown_key(Self::KEYS, key));
        };
        match k.name {
            "strategy" => p.strategy = k.parse_name(value, Strategy::from_name)?,
            "workers" => p.workers = k.parse_u64(value)? as u32,
            "cpus" => p.cpus = k.parse_u64(value)? as u32,
            "connections" => p.connections = k.parse_u64(value)? as u32,
            "rate" => p.rate = k.parse_u64(value)? as u32,
            "arrival" => p.arrival = k.parse_name(value, ArrivalPattern::from_name)?,
            "burst" => p.burst = k.parse_u64(value)? as u32,
            "requests" => p.requests = k.parse_u64(value)? as u32,
            "service" => p.service_ns = k.parse_u64(value)?,
            "think" => p.think_ns = k.parse_u64(value)?,
            "multi_accept" => p.multi_accept = k.parse_switch(value)?,
            "reorder_every" => p.reorder_every = k.parse_u64(value)? as u32,
            "delay" => p.mutex_delay_ms = k.parse_u64(value)? as u32,
            "worker_connections" => p.worker_connections = k.parse_u64(value)? as u32,
            "variant" => p.variant = k.parse_name(value, MutexVariant::from_name)?,
            "local_clients" => p.local_clients = k.parse_switch(value)?,
            "seed" => p.seed = k.parse_u64(value)?,
            _ => return Err(unknown_key(Self::KEYS, key)),
        }
        Ok(())
    }

    fn get(p: &AcceptParams, key: &str) -> Option<String> {
        let k = Self::key(key)?;
        Some(match key {
            "strategy" => p.strategy.name().to_string(),
            "workers" => p.workers.to_string(),
            "cpus" => p.cpus.to_string(),
            "connections" => p.connections.to_string(),
            "rate" => p.rate.to_string(),
            "arrival" => p.arrival.name().to_string(),
            "burst" => p.burst.to_string(),
            "requests" => p.requests.to_string(),
            "service" => p.service_ns.to_string(),
            "think" => p.think_ns.to_string(),
            "multi_accept" => k.show_switch(p.multi_accept),
            "reorder_every" => p.reorder_every.to_string(),
            "delay" => p.mutex_delay_ms.to_string(),
            "worker_connections" => p.worker_connections.to_string(),
            "variant" => p.variant.name().to_string(),
            "local_clients" => k.show_switch(p.local_clients),
            "seed" => p.seed.to_string(),
            _ => return None,
        })
    }

    /// The ranges only: every combination of in-range values is valid.
    fn validate(p: &AcceptParams) -> Vec<ParamError> {
        Self::range_errors(p)
    }

    fn simulate_with(p: &AcceptParams, cost: CostModel) -> Simulation<AcceptThread> {
        p.simulate_with(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{validate_accept, Scenario, ACCEPT_KEYS};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn accept_round_trips_through_the_query_and_json() {
        let s = Scenario::Accept(AcceptParams {
            strategy: Strategy::AcceptMutex,
            workers: 4,
            cpus: 3,
            connections: 77,
            rate: 5000,
            arrival: ArrivalPattern::Poisson,
            burst: 9,
            requests: 3,
            service_ns: 1234,
            think_ns: 0,
            multi_accept: true,
            reorder_every: 0,
            mutex_delay_ms: 20,
            worker_connections: 64,
            variant: MutexVariant::NoTimer,
            local_clients: true,
            seed: u64::MAX,
        });
        let q = s.to_query();
        assert!(
            q.starts_with("mechanism=accept&strategy=accept-mutex&"),
            "{q}"
        );
        assert_eq!(Scenario::from_query(&q), Ok(s));
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains(r#""mechanism":"accept""#), "{json}");
        assert_eq!(Scenario::from_json(&json), Ok(s));
        assert_eq!(s.accept().map(|p| p.workers), Some(4));
        // every key of the table is read back, and the defaults round-trip too
        let d = Scenario::Accept(AcceptParams::default());
        assert_eq!(Scenario::from_query(&d.to_query()), Ok(d));
        for k in ACCEPT_KEYS {
            assert!(d.to_query().contains(&format!("&{k}=")), "{k}");
        }
        // the page's and the widget's own keys are skipped
        let (t, errs) = Scenario::from_query_lenient(&format!(
            "{q}&step=4&picks=1:n&strategies=herd,exclusive"
        ));
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(t, s);
    }

    #[test]
    fn accept_errors_name_the_field_and_the_allowed_values() {
        let errs = Scenario::from_query(
            "mechanism=accept&strategy=bogus&workers=0&delay=0&multi_accept=maybe&variant=x&think=-1&colour=red",
        )
        .unwrap_err();
        let all: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        let find = |f: &str| {
            all.iter()
                .find(|e| e.starts_with(&format!("{f}: ")))
                .cloned()
                .unwrap_or_else(|| panic!("no error for {f} in {all:?}"))
        };
        assert!(find("strategy")
            .contains("herd, shared-epoll, exclusive, accept-mutex, reuseport, blocking"));
        assert!(find("workers").contains("1-64"));
        assert!(find("delay").contains("1-60000"));
        assert!(find("multi_accept").contains("true, false, on, off"));
        let (t, errs) =
            Scenario::from_query_lenient("mechanism=accept&multi_accept=on&local_clients=true");
        assert!(errs.is_empty(), "{errs:?}");
        let t = t.accept().copied().unwrap_or_default();
        assert!(t.multi_accept && t.local_clients);
        assert!(Scenario::Accept(t)
            .to_query()
            .contains("&multi_accept=true&"));
        assert!(find("variant").contains("unlock-before-accept"));
        assert!(find("think").contains("0-1000000000"));
        assert!(find("colour").contains("worker_connections"));
        // lenient: the good values stay, each bad one takes its default
        let (s, errs) = Scenario::from_query_lenient(
            "mechanism=accept&strategy=exclusive&workers=999&connections=3",
        );
        assert_eq!(errs.len(), 1);
        let p = s.accept().copied().unwrap_or_default();
        assert_eq!(p.strategy, Strategy::Exclusive);
        assert_eq!(p.workers, AcceptParams::default().workers);
        assert_eq!(p.connections, 3);
        // out of range in JSON, or a misspelt key
        assert!(Scenario::from_json(r#"{"mechanism":"accept","workers":65}"#).is_err());
        assert!(Scenario::from_json(r#"{"mechanism":"accept","wrkers":6}"#).is_err());
        let e = Scenario::from_query("mechanism=bogus").unwrap_err();
        assert!(e[0].message.contains("herd, locks, accept"), "{e:?}");
    }

    #[test]
    fn accept_validation_covers_every_range() {
        let p = AcceptParams {
            workers: 0,
            cpus: 17,
            connections: 0,
            rate: 0,
            burst: 0,
            requests: 0,
            service_ns: 100_000_001,
            think_ns: 1_000_000_001,
            reorder_every: 65_537,
            mutex_delay_ms: 0,
            worker_connections: 0,
            ..AcceptParams::default()
        };
        let fields: Vec<String> = validate_accept(&p).into_iter().map(|e| e.field).collect();
        assert_eq!(fields.len(), 11, "{fields:?}");
        let mut q = p;
        for f in &fields {
            Accept::reset(&mut q, f);
        }
        assert!(validate_accept(&q).is_empty());
        assert!(validate_accept(&AcceptParams::default()).is_empty());
    }
}
