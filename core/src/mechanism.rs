//! The one trait through which generic code knows a mechanism.
//!
//! A mechanism (the herd, the locks, the accept strategies, and those to come) lives in its own folder
//! (today `core/src/mechanisms/herd/`, `locks/`, `accept/`, the implementation in each one's `params.rs`) and
//! implements [`Mechanism`]: its name as the `mechanism=` key says it,
//! its parameters with their key table, the setter and validator whose messages the site and the CLI
//! both show, and the simulation it starts. Generic code (the scenario registry, the simulator, the
//! checker, the site's shells, the CLI's plumbing) names no mechanism: it goes through this trait and
//! the one registry list in [`crate::scenario`].
//!
//! The key table ([`Key`]) is declarative, so the CLI builds its flags from it, the site its form
//! fields, and [`Mechanism::parse_pairs`] / [`Mechanism::to_query`] the URL round trip, each with the
//! same ranges and the same messages.
//!
//! ```
//! use herdlab_core::mechanism::{Key, KeyKind};
//! let k = Key { name: "workers", kind: KeyKind::Range { lo: 1, hi: 64, unit: "" }, help: "worker threads" };
//! assert_eq!(k.allowed(), "1-64");
//! assert_eq!(k.parse_u64("65").unwrap_err().to_string(), "workers: 65 is out of range; allowed 1-64");
//! let k = Key { name: "mode", kind: KeyKind::OneOf(&["wake-all", "exclusive"]), help: "" };
//! assert_eq!(k.allowed(), "wake-all, exclusive");
//! ```

use crate::cost::CostModel;
use crate::machine::Machine;
use crate::scenario::ParamError;
use crate::sim::Simulation;
use serde::{de::DeserializeOwned, Serialize};

/// What values a key takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A whole number in `lo..=hi`; `unit` is shown after the range ("ns", "ms", "per second", or "").
    Range {
        /// The smallest allowed value.
        lo: u64,
        /// The largest allowed value.
        hi: u64,
        /// The unit, for help texts ("" for a plain count).
        unit: &'static str,
    },
    /// One of these names.
    OneOf(&'static [&'static str]),
    /// A switch written `on`/`off` (the locks' `semaphore`, `crash`, `master`); nothing else is
    /// accepted.
    Switch,
    /// A switch written `true`/`false`, also read as nginx's `on`/`off` (the accept strategies'
    /// `multi_accept`, `local_clients`).
    Bool,
}

impl KeyKind {
    /// A [`KeyKind::Range`] (for the key tables, which are constants).
    pub const fn range(lo: u64, hi: u64, unit: &'static str) -> KeyKind {
        KeyKind::Range { lo, hi, unit }
    }
}

/// One parameter key, as the URL, the lesson blocks, the site's form and the CLI all name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key (`workers`, `strategy`); the CLI flag is `--` followed by it, with `_` as `-`.
    pub name: &'static str,
    /// What values it takes.
    pub kind: KeyKind,
    /// One line of help for the CLI and the site's form.
    pub help: &'static str,
}

impl Key {
    /// The allowed values, as the messages show them: `1-64`, `wake-all, exclusive`, `on, off`,
    /// `true, false, on, off`.
    pub fn allowed(&self) -> String {
        match self.kind {
            KeyKind::Range { lo, hi, .. } => format!("{lo}-{hi}"),
            KeyKind::OneOf(names) => names.join(", "),
            KeyKind::Switch => "on, off".to_string(),
            KeyKind::Bool => "true, false, on, off".to_string(),
        }
    }

    /// The values a form or a test may offer: every name of a [`KeyKind::OneOf`] key, both
    /// spellings of a switch, and the two ends of a range.
    pub fn examples(&self) -> Vec<String> {
        match self.kind {
            KeyKind::Range { lo, hi, .. } => vec![lo.to_string(), hi.to_string()],
            KeyKind::OneOf(names) => names.iter().map(|n| n.to_string()).collect(),
            KeyKind::Switch => vec!["on".into(), "off".into()],
            KeyKind::Bool => vec!["true".into(), "false".into()],
        }
    }

    /// The text of a switch's value as the key writes it: `on`/`off` for a [`KeyKind::Switch`],
    /// `true`/`false` otherwise.
    pub fn show_switch(&self, on: bool) -> String {
        match (self.kind, on) {
            (KeyKind::Switch, true) => "on".into(),
            (KeyKind::Switch, false) => "off".into(),
            (_, on) => on.to_string(),
        }
    }

    /// The error for a value outside the key's range that did not come through
    /// [`Key::parse_u64`] (built in code, or read from JSON): `out of range; allowed 1-64`.
    pub fn out_of_range(&self) -> ParamError {
        ParamError {
            field: self.name.to_string(),
            message: format!("out of range; allowed {}", self.allowed()),
        }
    }

    /// Whether `n` is in the key's range (always, for a key that is not a [`KeyKind::Range`]).
    pub fn in_range(&self, n: u64) -> bool {
        match self.kind {
            KeyKind::Range { lo, hi, .. } => (lo..=hi).contains(&n),
            _ => true,
        }
    }

    /// Parse a whole number in the key's range (for a [`KeyKind::Range`] key), with the message
    /// every mechanism gives for a bad one.
    pub fn parse_u64(&self, v: &str) -> Result<u64, ParamError> {
        let (lo, hi) = match self.kind {
            KeyKind::Range { lo, hi, .. } => (lo, hi),
            _ => (0, u64::MAX),
        };
        match v.parse::<u64>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            Ok(n) => Err(ParamError {
                field: self.name.to_string(),
                message: format!("{n} is out of range; allowed {lo}-{hi}"),
            }),
            Err(_) => Err(ParamError {
                field: self.name.to_string(),
                message: format!("'{}' is not a whole number; allowed {lo}-{hi}", shown(v)),
            }),
        }
    }

    /// Parse one of the key's names (for a [`KeyKind::OneOf`] key) with `from_name`.
    pub fn parse_name<T>(
        &self,
        v: &str,
        from_name: impl Fn(&str) -> Option<T>,
    ) -> Result<T, ParamError> {
        from_name(v).ok_or_else(|| ParamError {
            field: self.name.to_string(),
            message: format!("'{}' is not allowed; allowed: {}", shown(v), self.allowed()),
        })
    }

    /// Parse a switch: for a [`KeyKind::Switch`] only `on` and `off`; for any other key also
    /// `true` and `false` (the [`KeyKind::Bool`] spellings). The message lists [`Key::allowed`].
    pub fn parse_switch(&self, v: &str) -> Result<bool, ParamError> {
        let strict = matches!(self.kind, KeyKind::Switch);
        match v {
            "on" => Ok(true),
            "off" => Ok(false),
            "true" if !strict => Ok(true),
            "false" if !strict => Ok(false),
            _ => Err(ParamError {
                field: self.name.to_string(),
                message: format!("'{}' is not allowed; allowed: {}", shown(v), self.allowed()),
            }),
        }
    }
}

/// The longest text of a refused value or key a message repeats; a longer one is cut there (on
/// a character boundary) and its length given, so a 1 MB value gives a short message.
pub const SHOWN_MAX: usize = 64;

/// A refused value or key as a message repeats it: as written up to [`SHOWN_MAX`] bytes, else its
/// start, `…` and its length.
///
/// ```
/// use herdlab_core::mechanism::shown;
/// assert_eq!(shown("bogus"), "bogus");
/// assert_eq!(shown(&"9".repeat(100)), format!("{}… (100 bytes)", "9".repeat(64)));
/// ```
pub fn shown(v: &str) -> String {
    if v.len() <= SHOWN_MAX {
        return v.to_string();
    }
    let mut end = SHOWN_MAX;
    while !v.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &v[..end], v.len())
}

/// The error for a key no mechanism's table has: `unknown parameter; allowed: workers, cpus, …`.
/// The field is the key as written (shortened by [`shown`]), `(empty key)` for an empty one.
pub fn unknown_key(keys: &[Key], key: &str) -> ParamError {
    ParamError {
        field: if key.is_empty() {
            "(empty key)".to_string()
        } else {
            shown(key)
        },
        message: format!(
            "unknown parameter; allowed: {}",
            keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The names of a key table, as a fixed-size array (for the `*_KEYS` constants).
///
/// ```
/// use herdlab_core::mechanism::{key_names, Key, KeyKind};
/// const KEYS: &[Key] = &[
///     Key { name: "a", kind: KeyKind::Switch, help: "" },
///     Key { name: "b", kind: KeyKind::Bool, help: "" },
/// ];
/// const NAMES: [&str; 2] = key_names(KEYS);
/// assert_eq!(NAMES, ["a", "b"]);
/// ```
///
/// # Panics
/// When `N` is not the table's length (at compile time, in a constant).
pub const fn key_names<const N: usize>(keys: &[Key]) -> [&'static str; N] {
    assert!(keys.len() == N, "key_names: wrong length");
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = keys[i].name;
        i += 1;
    }
    out
}

/// How many times [`Mechanism::parse_pairs`] validates and resets before it gives up: each pass
/// resets every key a rule named, and a reset key is at its default or its smallest value, so a
/// mechanism's rules settle in a pass or two (four is a bound, not a figure any mechanism needs).
pub const MAX_RESET_PASSES: usize = 4;

/// A mechanism herdlab simulates, checks, benchmarks and teaches.
///
/// Implemented once per mechanism, in its folder; the registry in [`crate::scenario`] lists the
/// implementations. The web and native crates extend it with their own traits (`SiteMechanism`,
/// `NativeMechanism`), so a new mechanism is one folder in each crate plus one registry line.
pub trait Mechanism: 'static {
    /// The `mechanism=` value (`herd`, `locks`, `accept`).
    const NAME: &'static str;
    /// A title for people ("The thundering herd").
    const TITLE: &'static str;
    /// The parameters (the seed is one of them); serde gives the scenario JSON.
    type Params: Clone + core::fmt::Debug + Default + PartialEq + Serialize + DeserializeOwned;
    /// The parameter keys, in display order (also the order of [`Mechanism::to_query`]).
    const KEYS: &'static [Key];
    /// The thread machine its simulations step.
    type Thread: Machine;

    /// A fresh simulation of these parameters with an explicit cost model. The parameters should
    /// be valid ([`Mechanism::validate`]).
    fn simulate_with(p: &Self::Params, cost: CostModel) -> Simulation<Self::Thread>;

    /// The charts of this mechanism's `herdlab bench` rows: what `herdlab bench … --svg FILE`
    /// draws and what the site's results page (`#/results`) draws from a `--json` file; the
    /// columns they name are also how [`crate::results::parse`] tells whose rows a file holds.
    /// None (the default): the command draws a generic chart and the results page refuses the
    /// file.
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        Vec::new()
    }

    /// A fresh simulation of these parameters with the default cost model.
    fn simulate(p: &Self::Params) -> Simulation<Self::Thread> {
        Self::simulate_with(p, CostModel::default())
    }

    /// Set one parameter from its key and text value; the error names the key and the allowed
    /// values (an unknown key lists the known ones).
    fn set(p: &mut Self::Params, key: &str, value: &str) -> Result<(), ParamError>;
    /// The text of one parameter's value, as [`Mechanism::set`] reads it back (`None` for an unknown
    /// key).
    fn get(p: &Self::Params, key: &str) -> Option<String>;
    /// What is wrong with a whole parameter set: ranges (a value built in code or read from JSON may
    /// be out of them) and combinations that single keys cannot express. Empty when valid.
    fn validate(p: &Self::Params) -> Vec<ParamError>;
    /// Put the field a [`Mechanism::validate`] error names back to a value that makes the set valid
    /// (its default), so a page can run the rest of a half-bad address. By default: the default
    /// parameters' value of that key, through [`Mechanism::get`] and [`Mechanism::set`].
    fn reset(p: &mut Self::Params, field: &str) {
        if let Some(v) = Self::get(&Self::Params::default(), field) {
            // the default's own text always parses
            let _ = Self::set(p, field, &v);
        }
    }

    /// The range errors of a parameter set, one per [`KeyKind::Range`] key whose value (read
    /// with [`Mechanism::get`]) is outside its range, in [`Mechanism::KEYS`] order; the message is
    /// [`Key::out_of_range`]'s.
    fn range_errors(p: &Self::Params) -> Vec<ParamError> {
        Self::KEYS
            .iter()
            .filter(|k| matches!(k.kind, KeyKind::Range { .. }))
            .filter(|k| {
                Self::get(p, k.name)
                    .and_then(|v| v.parse::<u64>().ok())
                    .is_some_and(|n| !k.in_range(n))
            })
            .map(|k| k.out_of_range())
            .collect()
    }

    /// The key named `key`, if this mechanism has it.
    fn key(key: &str) -> Option<&'static Key> {
        Self::KEYS.iter().find(|k| k.name == key)
    }

    /// Parse key/value pairs leniently: every good value is kept, every bad one is left at its
    /// default and reported (the caller has removed the keys that are not the scenario's).
    fn parse_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> (Self::Params, Vec<ParamError>) {
        let mut p = Self::Params::default();
        let mut errs = Vec::new();
        for (k, v) in pairs {
            if let Err(e) = Self::set(&mut p, k, v) {
                errs.push(e);
            }
        }
        // A reset can break a rule between keys that held before (gmp: more Ms for more Ps, then
        // more words than the simulator has), so validate again until nothing new is found (a
        // rule whose reset keeps the value, as locks' threads with crash and master, is reported
        // once and kept).
        for _ in 0..MAX_RESET_PASSES {
            let found: Vec<ParamError> = Self::validate(&p)
                .into_iter()
                .filter(|e| !errs.contains(e))
                .collect();
            if found.is_empty() {
                break;
            }
            for e in found {
                Self::reset(&mut p, &e.field);
                errs.push(e);
            }
        }
        (p, errs)
    }

    /// The parameters as `key=value` pairs joined by `&`, every key present, in [`Mechanism::KEYS`]
    /// order (without `mechanism=`).
    fn to_query(p: &Self::Params) -> String {
        let mut out = String::new();
        for k in Self::KEYS {
            if let Some(v) = Self::get(p, k.name) {
                if !out.is_empty() {
                    out.push('&');
                }
                out.push_str(k.name);
                out.push('=');
                out.push_str(&crate::scenario::url_encode(&v));
            }
        }
        out
    }
}
