//! Scenarios: a mechanism, its parameters and a seed, as one serde value that round-trips through
//! JSON and through a URL query string, and that rejects bad values with a message naming the field
//! and the allowed values.
//!
//! # The herd's parameters
//! | key (URL and CLI) | field | allowed | default |
//! |---|---|---|---|
//! | `workers` | `workers` | 1-64 | 8 |
//! | `cpus` | `cpus` | 1-16 | 2 |
//! | `mode` | `mode` | `wake-all`, `exclusive`, `lifo-exclusive` (the last with `primitive=accept` only) | `wake-all` |
//! | `arrival` | `arrival` | `on-demand`, `burst`, `poisson` | `on-demand` |
//! | `burst` | `burst` | 1-1024 | 4 |
//! | `rate` | `rate` | 1-10000000 (per second) | 10000 |
//! | `connections` | `connections` | 1-1000000 | 1000 |
//! | `service` | `service_ns` | 0-100000000 (ns) | 5000 |
//! | `variant` | `variant` | `correct`, `broken-sleeper` (the latter with `primitive=accept` only) | `correct` |
//! | `primitive` | `primitive` | `accept`, `futex`, `condvar` | `accept` |
//! | `seed` | `seed` | 0-18446744073709551615 | 1 |
//!
//! # The accept strategies' parameters (`mechanism=accept`)
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
//! strategy, so one query can describe a comparison of strategies; the others ignore them.
//!
//! ```
//! use herdlab_core::scenario::Scenario;
//! let s = Scenario::from_query("mechanism=herd&workers=4&mode=exclusive&seed=9").unwrap();
//! assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s);
//! let err = Scenario::from_query("workers=999").unwrap_err();
//! assert_eq!(err[0].field, "workers");
//! assert!(err[0].to_string().contains("1-64"));
//! ```

use serde::{Deserialize, Serialize};

use crate::accept::{AcceptParams, MutexVariant, Strategy};
use crate::herd::{HerdParams, Primitive, Variant, WakeMode};
use crate::locks::shmtx::ShmtxVariant;
use crate::locks::{LockKind, LockParams};
use crate::sim::arrivals::ArrivalPattern;

/// A refused value: which field, and why, with the allowed values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamError {
    /// The field (URL/CLI key).
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl core::fmt::Display for ParamError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl ParamError {
    fn new(field: &str, message: String) -> Self {
        ParamError {
            field: field.to_string(),
            message,
        }
    }
}

/// The mechanisms a scenario can describe.
pub const MECHANISMS: [&str; 3] = ["herd", "locks", "accept"];

/// A scenario: a mechanism with its parameters (the seed is one of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "mechanism", rename_all = "kebab-case")]
pub enum Scenario {
    /// The thundering herd.
    Herd(HerdParams),
    /// A lock: nginx's `ngx_shmtx` or a rival.
    Locks(LockParams),
    /// Event-loop workers sharing a listening socket: the epoll herd, `EPOLLEXCLUSIVE`,
    /// `SO_REUSEPORT`, nginx's accept mutex.
    Accept(AcceptParams),
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::Herd(HerdParams::default())
    }
}

/// Keys that belong to the page or the widget, not to the scenario; the query parser skips them.
pub const UI_KEYS: [&str; 12] = [
    "step",
    "picks",
    "id",
    "main",
    "controls",
    "stop",
    "caption",
    "left",
    "right",
    "lesson",
    "schedule",
    "strategies",
];

fn range_u64(field: &str, v: &str, lo: u64, hi: u64) -> Result<u64, ParamError> {
    match v.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(n) => Err(ParamError::new(
            field,
            format!("{n} is out of range; allowed {lo}-{hi}"),
        )),
        Err(_) => Err(ParamError::new(
            field,
            format!("'{v}' is not a whole number; allowed {lo}-{hi}"),
        )),
    }
}

fn one_of<T>(
    field: &str,
    v: &str,
    names: &[&str],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, ParamError> {
    parse(v).ok_or_else(|| {
        ParamError::new(
            field,
            format!("'{v}' is not allowed; allowed: {}", names.join(", ")),
        )
    })
}

/// Set one herd parameter from its URL/CLI key and text value.
pub fn set_herd_param(p: &mut HerdParams, key: &str, value: &str) -> Result<(), ParamError> {
    match key {
        "workers" => p.workers = range_u64(key, value, 1, 64)? as u32,
        "cpus" => p.cpus = range_u64(key, value, 1, 16)? as u32,
        "mode" => p.mode = one_of(key, value, &WakeMode::NAMES, WakeMode::from_name)?,
        "arrival" => {
            p.arrival = one_of(
                key,
                value,
                &ArrivalPattern::NAMES,
                ArrivalPattern::from_name,
            )?
        }
        "burst" => p.burst = range_u64(key, value, 1, 1024)? as u32,
        "rate" => p.rate = range_u64(key, value, 1, 10_000_000)? as u32,
        "connections" => p.connections = range_u64(key, value, 1, 1_000_000)? as u32,
        "service" => p.service_ns = range_u64(key, value, 0, 100_000_000)?,
        "variant" => p.variant = one_of(key, value, &Variant::NAMES, Variant::from_name)?,
        "primitive" => p.primitive = one_of(key, value, &Primitive::NAMES, Primitive::from_name)?,
        "seed" => p.seed = range_u64(key, value, 0, u64::MAX)?,
        _ => {
            return Err(ParamError::new(
                key,
                format!("unknown parameter; allowed: {}", HERD_KEYS.join(", ")),
            ))
        }
    }
    Ok(())
}

/// The lock scenario's parameter keys, in display order.
pub const LOCK_KEYS: [&str; 12] = [
    "lock",
    "variant",
    "threads",
    "rounds",
    "cpus",
    "spin",
    "semaphore",
    "yield",
    "cs",
    "crash",
    "master",
    "seed",
];

fn names_of<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&x| name(x)).collect()
}

fn on_off(key: &str, value: &str) -> Result<bool, ParamError> {
    one_of(key, value, &["on", "off"], |v| match v {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    })
}

/// An accept switch: `true`/`false`, or nginx's `on`/`off`.
fn switch(key: &str, value: &str) -> Result<bool, ParamError> {
    one_of(key, value, &["true", "false", "on", "off"], |v| match v {
        "true" | "on" => Some(true),
        "false" | "off" => Some(false),
        _ => None,
    })
}

/// Set one lock parameter from its URL/CLI key and text value.
///
/// | key | allowed | default |
/// |---|---|---|
/// | `lock` | `shmtx`, `ttas`, `spin-yield`, `ticket`, `futex` | `shmtx` |
/// | `variant` | `correct`, `no-wait-decrement`, `announce-after-check`, `unlock-reads-wait-first`, `plain-load-store`, `seed-listing` (with `lock=shmtx`) | `correct` |
/// | `threads` | 1-16 | 4 |
/// | `rounds` | 1-1000000 | 20 |
/// | `cpus` | 1-16 | 2 |
/// | `spin` | 1-65536 | 2048 |
/// | `semaphore` | `on`, `off` | `on` |
/// | `yield` | 1-65536 (spin-yield's tests before a yield) | 64 |
/// | `cs` | 0-10000000 (ns in the critical section) | 100 |
/// | `crash` | `on`, `off`: thread 0 dies holding the lock in its first round (with `lock=shmtx`) | `off` |
/// | `master` | `on`, `off`: with `crash`, a master process force-unlocks the dead pid | `on` |
/// | `seed` | 0-18446744073709551615 | 1 |
pub fn set_lock_param(p: &mut LockParams, key: &str, value: &str) -> Result<(), ParamError> {
    match key {
        "lock" => {
            p.lock = one_of(
                key,
                value,
                &names_of(&LockKind::ALL, LockKind::name),
                LockKind::from_name,
            )?
        }
        "variant" => {
            p.variant = one_of(
                key,
                value,
                &names_of(&ShmtxVariant::ALL, ShmtxVariant::name),
                ShmtxVariant::from_name,
            )?
        }
        "threads" => p.threads = range_u64(key, value, 1, 16)? as u32,
        "rounds" => p.rounds = range_u64(key, value, 1, 1_000_000)? as u32,
        "cpus" => p.cpus = range_u64(key, value, 1, 16)? as u32,
        "spin" => p.spin = range_u64(key, value, 1, 65_536)? as u32,
        "semaphore" => p.semaphore = on_off(key, value)?,
        "yield" => p.yield_after = range_u64(key, value, 1, 65_536)? as u32,
        "crash" => p.crash = on_off(key, value)?,
        "master" => p.master = on_off(key, value)?,
        "cs" => p.cs_ns = range_u64(key, value, 0, 10_000_000)?,
        "seed" => p.seed = range_u64(key, value, 0, u64::MAX)?,
        _ => {
            return Err(ParamError::new(
                key,
                format!("unknown parameter; allowed: {}", LOCK_KEYS.join(", ")),
            ))
        }
    }
    Ok(())
}

/// Check the lock combinations that single-field ranges cannot express.
pub fn validate_locks(p: &LockParams) -> Vec<ParamError> {
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
    if !(1..=16).contains(&p.threads) {
        errs.push(ParamError::new(
            "threads",
            "out of range; allowed 1-16".into(),
        ));
    }
    if !(1..=16).contains(&p.cpus) {
        errs.push(ParamError::new("cpus", "out of range; allowed 1-16".into()));
    }
    errs
}

/// The accept scenario's parameter keys, in display order.
pub const ACCEPT_KEYS: [&str; 17] = [
    "strategy",
    "workers",
    "cpus",
    "connections",
    "rate",
    "arrival",
    "burst",
    "requests",
    "service",
    "think",
    "multi_accept",
    "reorder_every",
    "delay",
    "worker_connections",
    "variant",
    "local_clients",
    "seed",
];

/// Set one accept parameter from its URL/CLI key and text value (the table in the module docs).
pub fn set_accept_param(p: &mut AcceptParams, key: &str, value: &str) -> Result<(), ParamError> {
    match key {
        "strategy" => p.strategy = one_of(key, value, &Strategy::NAMES, Strategy::from_name)?,
        "workers" => p.workers = range_u64(key, value, 1, 64)? as u32,
        "cpus" => p.cpus = range_u64(key, value, 1, 16)? as u32,
        "connections" => p.connections = range_u64(key, value, 1, 1_000_000)? as u32,
        "rate" => p.rate = range_u64(key, value, 1, 10_000_000)? as u32,
        "arrival" => {
            p.arrival = one_of(
                key,
                value,
                &ArrivalPattern::NAMES,
                ArrivalPattern::from_name,
            )?
        }
        "burst" => p.burst = range_u64(key, value, 1, 1024)? as u32,
        "requests" => p.requests = range_u64(key, value, 1, 1000)? as u32,
        "service" => p.service_ns = range_u64(key, value, 0, 100_000_000)?,
        "think" => p.think_ns = range_u64(key, value, 0, 1_000_000_000)?,
        "multi_accept" => p.multi_accept = switch(key, value)?,
        "reorder_every" => p.reorder_every = range_u64(key, value, 0, 65_536)? as u32,
        "delay" => p.mutex_delay_ms = range_u64(key, value, 1, 60_000)? as u32,
        "worker_connections" => p.worker_connections = range_u64(key, value, 1, 65_536)? as u32,
        "variant" => {
            p.variant = one_of(
                key,
                value,
                &names_of(&MutexVariant::ALL, MutexVariant::name),
                MutexVariant::from_name,
            )?
        }
        "local_clients" => p.local_clients = switch(key, value)?,
        "seed" => p.seed = range_u64(key, value, 0, u64::MAX)?,
        _ => {
            return Err(ParamError::new(
                key,
                format!("unknown parameter; allowed: {}", ACCEPT_KEYS.join(", ")),
            ))
        }
    }
    Ok(())
}

/// Check an accept scenario's ranges (a value built in code, or read from JSON, may be out of
/// them). Every combination of in-range values is valid.
pub fn validate_accept(p: &AcceptParams) -> Vec<ParamError> {
    let mut errs = Vec::new();
    let mut check = |field: &str, ok: bool, range: &str| {
        if !ok {
            errs.push(ParamError::new(
                field,
                format!("out of range; allowed {range}"),
            ));
        }
    };
    check("workers", (1..=64).contains(&p.workers), "1-64");
    check("cpus", (1..=16).contains(&p.cpus), "1-16");
    check(
        "connections",
        (1..=1_000_000).contains(&p.connections),
        "1-1000000",
    );
    check("rate", (1..=10_000_000).contains(&p.rate), "1-10000000");
    check("burst", (1..=1024).contains(&p.burst), "1-1024");
    check("requests", (1..=1000).contains(&p.requests), "1-1000");
    check("service", p.service_ns <= 100_000_000, "0-100000000");
    check("think", p.think_ns <= 1_000_000_000, "0-1000000000");
    check("reorder_every", p.reorder_every <= 65_536, "0-65536");
    check("delay", (1..=60_000).contains(&p.mutex_delay_ms), "1-60000");
    check(
        "worker_connections",
        (1..=65_536).contains(&p.worker_connections),
        "1-65536",
    );
    errs
}

/// The default of one accept field, for a refused value.
fn reset_accept_field(p: &mut AcceptParams, field: &str) {
    let d = AcceptParams::default();
    match field {
        "workers" => p.workers = d.workers,
        "cpus" => p.cpus = d.cpus,
        "connections" => p.connections = d.connections,
        "rate" => p.rate = d.rate,
        "burst" => p.burst = d.burst,
        "requests" => p.requests = d.requests,
        "service" => p.service_ns = d.service_ns,
        "think" => p.think_ns = d.think_ns,
        "reorder_every" => p.reorder_every = d.reorder_every,
        "delay" => p.mutex_delay_ms = d.mutex_delay_ms,
        "worker_connections" => p.worker_connections = d.worker_connections,
        _ => {}
    }
}

/// The herd's parameter keys, in display order.
pub const HERD_KEYS: [&str; 11] = [
    "workers",
    "cpus",
    "mode",
    "arrival",
    "burst",
    "rate",
    "connections",
    "service",
    "variant",
    "primitive",
    "seed",
];

/// Check the combinations that single-field ranges cannot express.
pub fn validate_herd(p: &HerdParams) -> Vec<ParamError> {
    let mut errs = Vec::new();
    let mut check = |field: &str, ok: bool, msg: &str| {
        if !ok {
            errs.push(ParamError::new(field, msg.to_string()));
        }
    };
    check(
        "workers",
        (1..=64).contains(&p.workers),
        "out of range; allowed 1-64",
    );
    check(
        "cpus",
        (1..=16).contains(&p.cpus),
        "out of range; allowed 1-16",
    );
    check(
        "burst",
        (1..=1024).contains(&p.burst),
        "out of range; allowed 1-1024",
    );
    check(
        "rate",
        (1..=10_000_000).contains(&p.rate),
        "out of range; allowed 1-10000000",
    );
    check(
        "connections",
        (1..=1_000_000).contains(&p.connections),
        "out of range; allowed 1-1000000",
    );
    check(
        "service",
        p.service_ns <= 100_000_000,
        "out of range; allowed 0-100000000",
    );
    check(
        "mode",
        !(p.mode == WakeMode::LifoExclusive && p.primitive != Primitive::Accept),
        "lifo-exclusive needs primitive=accept; futex and condvar take wake-all or exclusive",
    );
    check(
        "variant",
        !(p.variant == Variant::BrokenSleeper && p.primitive != Primitive::Accept),
        "broken-sleeper needs primitive=accept; futex and condvar take correct",
    );
    errs
}

/// Decode one `%XX`/`+` escaped query component.
pub fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let h = |c: u8| (c as char).to_digit(16);
                match (h(b[i + 1]), h(b[i + 2])) {
                    (Some(x), Some(y)) => {
                        out.push((x * 16 + y) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Encode a query component.
pub fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.bytes() {
        match c {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b',' | b':' => {
                out.push(c as char)
            }
            _ => out.push_str(&format!("%{c:02X}")),
        }
    }
    out
}

/// Split a query string (with or without a leading `?`) into decoded pairs.
pub fn query_pairs(q: &str) -> Vec<(String, String)> {
    q.trim_start_matches('?')
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (url_decode(k), url_decode(v)),
            None => (url_decode(kv), String::new()),
        })
        .collect()
}

impl Scenario {
    /// Parse a query string strictly: any bad value is an error (all errors are returned).
    pub fn from_query(q: &str) -> Result<Scenario, Vec<ParamError>> {
        let (s, errs) = Scenario::from_query_lenient(q);
        if errs.is_empty() {
            Ok(s)
        } else {
            Err(errs)
        }
    }

    /// Parse a query string, keeping every good value and the default for each bad one, and
    /// returning the errors next to the result (the page shows them and runs the rest). The
    /// `mechanism` key picks the parameter set (default `herd`).
    pub fn from_query_lenient(q: &str) -> (Scenario, Vec<ParamError>) {
        let pairs = query_pairs(q);
        let mut errs = Vec::new();
        let mut mechanism = "herd";
        for (k, v) in &pairs {
            if k == "mechanism" {
                if let Some(m) = MECHANISMS.iter().find(|m| **m == v.as_str()) {
                    mechanism = m;
                } else {
                    errs.push(ParamError::new(
                        "mechanism",
                        format!("'{v}' is not allowed; allowed: {}", MECHANISMS.join(", ")),
                    ));
                }
            }
        }
        let scenario_pairs = pairs
            .iter()
            .filter(|(k, _)| k != "mechanism" && !UI_KEYS.contains(&k.as_str()));
        if mechanism == "locks" {
            let mut p = LockParams::default();
            for (k, v) in scenario_pairs {
                if let Err(e) = set_lock_param(&mut p, k, v) {
                    errs.push(e);
                }
            }
            for e in validate_locks(&p) {
                if e.field == "variant" {
                    p.variant = ShmtxVariant::Correct;
                }
                if e.field == "crash" {
                    p.crash = false;
                }
                errs.push(e);
            }
            return (Scenario::Locks(p), errs);
        }
        if mechanism == "accept" {
            let mut p = AcceptParams::default();
            for (k, v) in scenario_pairs {
                if let Err(e) = set_accept_param(&mut p, k, v) {
                    errs.push(e);
                }
            }
            for e in validate_accept(&p) {
                reset_accept_field(&mut p, &e.field);
                errs.push(e);
            }
            return (Scenario::Accept(p), errs);
        }
        let mut p = HerdParams::default();
        for (k, v) in scenario_pairs {
            if let Err(e) = set_herd_param(&mut p, k, v) {
                errs.push(e);
            }
        }
        for e in validate_herd(&p) {
            // a bad combination: fall back on the field's default
            let d = HerdParams::default();
            match e.field.as_str() {
                "mode" => p.mode = d.mode,
                "variant" => p.variant = d.variant,
                _ => {}
            }
            errs.push(e);
        }
        (Scenario::Herd(p), errs)
    }

    /// The scenario as a query string (`mechanism=herd&workers=…`), every key present.
    pub fn to_query(&self) -> String {
        match self {
            Scenario::Herd(p) => format!(
                "mechanism=herd&workers={}&cpus={}&mode={}&arrival={}&burst={}&rate={}&connections={}&service={}&variant={}&primitive={}&seed={}",
                p.workers,
                p.cpus,
                p.mode.name(),
                p.arrival.name(),
                p.burst,
                p.rate,
                p.connections,
                p.service_ns,
                p.variant.name(),
                p.primitive.name(),
                p.seed
            ),
            Scenario::Locks(p) => format!(
                "mechanism=locks&lock={}&variant={}&threads={}&rounds={}&cpus={}&spin={}&semaphore={}&yield={}&cs={}&crash={}&master={}&seed={}",
                p.lock.name(),
                p.variant.name(),
                p.threads,
                p.rounds,
                p.cpus,
                p.spin,
                if p.semaphore { "on" } else { "off" },
                p.yield_after,
                p.cs_ns,
                if p.crash { "on" } else { "off" },
                if p.master { "on" } else { "off" },
                p.seed
            ),
            Scenario::Accept(p) => format!(
                "mechanism=accept&strategy={}&workers={}&cpus={}&connections={}&rate={}&arrival={}&burst={}&requests={}&service={}&think={}&multi_accept={}&reorder_every={}&delay={}&worker_connections={}&variant={}&local_clients={}&seed={}",
                p.strategy.name(),
                p.workers,
                p.cpus,
                p.connections,
                p.rate,
                p.arrival.name(),
                p.burst,
                p.requests,
                p.service_ns,
                p.think_ns,
                p.multi_accept,
                p.reorder_every,
                p.mutex_delay_ms,
                p.worker_connections,
                p.variant.name(),
                p.local_clients,
                p.seed
            ),
        }
    }

    /// Parse and validate JSON.
    pub fn from_json(s: &str) -> Result<Scenario, String> {
        let sc: Scenario = serde_json::from_str(s).map_err(|e| e.to_string())?;
        let errs = sc.validate();
        if errs.is_empty() {
            Ok(sc)
        } else {
            Err(errs
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("; "))
        }
    }

    /// The errors in this scenario (empty when valid).
    pub fn validate(&self) -> Vec<ParamError> {
        match self {
            Scenario::Herd(p) => validate_herd(p),
            Scenario::Locks(p) => validate_locks(p),
            Scenario::Accept(p) => validate_accept(p),
        }
    }

    /// The herd parameters (the defaults for a scenario of another mechanism).
    pub fn herd(&self) -> HerdParams {
        match self {
            Scenario::Herd(p) => *p,
            _ => HerdParams::default(),
        }
    }

    /// The lock parameters, if this is a lock scenario.
    pub fn locks(&self) -> Option<&LockParams> {
        match self {
            Scenario::Locks(p) => Some(p),
            _ => None,
        }
    }

    /// The accept parameters, if this is an accept scenario.
    pub fn accept(&self) -> Option<&AcceptParams> {
        match self {
            Scenario::Accept(p) => Some(p),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            reset_accept_field(&mut q, f);
        }
        assert!(validate_accept(&q).is_empty());
        assert!(validate_accept(&AcceptParams::default()).is_empty());
    }
}
