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
//! ```
//! use herdlab_core::scenario::Scenario;
//! let s = Scenario::from_query("mechanism=herd&workers=4&mode=exclusive&seed=9").unwrap();
//! assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s);
//! let err = Scenario::from_query("workers=999").unwrap_err();
//! assert_eq!(err[0].field, "workers");
//! assert!(err[0].to_string().contains("1-64"));
//! ```

use serde::{Deserialize, Serialize};

use crate::herd::{HerdParams, Primitive, Variant, WakeMode};
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
pub const MECHANISMS: [&str; 1] = ["herd"];

/// A scenario: a mechanism with its parameters (the seed is one of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "mechanism", rename_all = "kebab-case")]
pub enum Scenario {
    /// The thundering herd.
    Herd(HerdParams),
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::Herd(HerdParams::default())
    }
}

/// Keys that belong to the page or the widget, not to the scenario; the query parser skips them.
pub const UI_KEYS: [&str; 10] = [
    "step", "picks", "id", "main", "controls", "stop", "caption", "left", "right", "lesson",
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
    /// returning the errors next to the result (the page shows them and runs the rest).
    pub fn from_query_lenient(q: &str) -> (Scenario, Vec<ParamError>) {
        let mut p = HerdParams::default();
        let mut errs = Vec::new();
        for (k, v) in query_pairs(q) {
            if UI_KEYS.contains(&k.as_str()) {
                continue;
            }
            if k == "mechanism" {
                if !MECHANISMS.contains(&v.as_str()) {
                    errs.push(ParamError::new(
                        "mechanism",
                        format!("'{v}' is not allowed; allowed: {}", MECHANISMS.join(", ")),
                    ));
                }
                continue;
            }
            if let Err(e) = set_herd_param(&mut p, &k, &v) {
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
        }
    }

    /// The herd parameters.
    pub fn herd(&self) -> &HerdParams {
        match self {
            Scenario::Herd(p) => p,
        }
    }
}
