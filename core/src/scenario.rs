//! Scenarios: a mechanism, its parameters and a seed, as one serde value that round-trips through
//! JSON and through a URL query string, and that rejects bad values with a message naming the field
//! and the allowed values.
//!
//! This module is the registry: the one list of the mechanisms (`registry!` below). From it come
//! the [`Scenario`] enum (its JSON carries the `mechanism` tag), [`MECHANISMS`], the query and JSON
//! parsers and the dispatch to each mechanism's [`Mechanism`] implementation. Everything else here
//! is generic: a mechanism's keys, ranges, messages and defaults live in its own folder
//! (`herd/params.rs`, `locks/params.rs`, `accept/params.rs`), each with its key table.
//!
//! Adding a mechanism: implement [`Mechanism`] in its folder and add one line to the registry.
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

use crate::mechanism::{key_names, Key, Mechanism};
use crate::mechanisms::{accept, gmp, herd, locks, mysql, pool};

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
    /// An error for `field`; `message` says what is wrong and what is allowed.
    pub fn new(field: &str, message: String) -> Self {
        ParamError {
            field: field.to_string(),
            message,
        }
    }
}

/// A mechanism of the registry: its parameters go into a [`Scenario`] and come out of one.
/// Implemented by `registry!` for each mechanism it lists.
pub trait Registered: Mechanism {
    /// A scenario of this mechanism with these parameters.
    fn wrap(p: Self::Params) -> Scenario;
    /// The parameters, if `s` is a scenario of this mechanism.
    fn unwrap(s: &Scenario) -> Option<&Self::Params>;
    /// The parameters, mutably, if `s` is a scenario of this mechanism.
    fn unwrap_mut(s: &mut Scenario) -> Option<&mut Self::Params>;
}

/// Code that works on any mechanism's parameters: [`Scenario::visit`] calls
/// [`Visit::visit`] with the scenario's mechanism as `M`. This is how generic code (the CLI's
/// plumbing, the site's shells) runs a scenario without naming its mechanism.
///
/// ```
/// use herdlab_core::mechanism::Mechanism;
/// use herdlab_core::scenario::{Registered, Scenario, Visit};
/// struct Workers;
/// impl Visit for Workers {
///     type Output = Option<String>;
///     fn visit<M: Registered>(self, p: &M::Params) -> Option<String> {
///         M::get(p, "workers")
///     }
/// }
/// let s = Scenario::from_query("mechanism=accept&workers=5").unwrap();
/// assert_eq!(s.visit(Workers).as_deref(), Some("5"));
/// ```
pub trait Visit {
    /// What the visit returns.
    type Output;
    /// Do the work for mechanism `M` with its parameters.
    fn visit<M: Registered>(self, p: &M::Params) -> Self::Output;
}

/// The one list of the mechanisms: `Variant => path::To::Mechanism`, in display order, the
/// default first. The variant's kebab-case name is the JSON tag and must be the mechanism's
/// [`Mechanism::NAME`] (a test holds them equal).
macro_rules! registry {
    ($( $(#[$attr:meta])* $variant:ident => $ty:ty ),+ $(,)?) => {
        /// A scenario: a mechanism with its parameters (the seed is one of them). Its JSON is the
        /// parameters' fields with a `mechanism` tag.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(tag = "mechanism", rename_all = "kebab-case")]
        pub enum Scenario {
            $( $(#[$attr])* $variant(<$ty as Mechanism>::Params), )+
        }

        /// The mechanisms a scenario can describe (their `mechanism=` names), in display order.
        pub const MECHANISMS: [&str; [$(<$ty as Mechanism>::NAME),+].len()] =
            [$(<$ty as Mechanism>::NAME),+];

        /// The charts of the `herdlab bench` rows of the mechanism named `name`
        /// ([`Mechanism::bench_charts`]); `None` for an unknown name.
        pub fn bench_charts_of(name: &str) -> Option<Vec<crate::chart::ChartSpec>> {
            $(
                if name == <$ty as Mechanism>::NAME {
                    return Some(<$ty as Mechanism>::bench_charts());
                }
            )+
            None
        }

        $(
            impl Registered for $ty {
                fn wrap(p: Self::Params) -> Scenario {
                    Scenario::$variant(p)
                }
                #[allow(unreachable_patterns)]
                fn unwrap(s: &Scenario) -> Option<&Self::Params> {
                    match s {
                        Scenario::$variant(p) => Some(p),
                        _ => None,
                    }
                }
                #[allow(unreachable_patterns)]
                fn unwrap_mut(s: &mut Scenario) -> Option<&mut Self::Params> {
                    match s {
                        Scenario::$variant(p) => Some(p),
                        _ => None,
                    }
                }
            }

            impl From<<$ty as Mechanism>::Params> for Scenario {
                fn from(p: <$ty as Mechanism>::Params) -> Scenario {
                    Scenario::$variant(p)
                }
            }
        )+

        impl Scenario {
            /// Call `v` with this scenario's mechanism and parameters.
            pub fn visit<V: Visit>(&self, v: V) -> V::Output {
                match self {
                    $( Scenario::$variant(p) => v.visit::<$ty>(p), )+
                }
            }

            /// The default scenario of the mechanism named `name` (`None` for an unknown name).
            pub fn default_of(name: &str) -> Option<Scenario> {
                $(
                    if name == <$ty as Mechanism>::NAME {
                        return Some(Scenario::$variant(Default::default()));
                    }
                )+
                None
            }

            /// Set one parameter of this scenario from its key and text value (the mechanism's
            /// [`Mechanism::set`]).
            pub fn set(&mut self, key: &str, value: &str) -> Result<(), ParamError> {
                match self {
                    $( Scenario::$variant(p) => <$ty as Mechanism>::set(p, key, value), )+
                }
            }

            /// Parse key/value pairs leniently for the mechanism named `name`
            /// ([`Mechanism::parse_pairs`]); `None` for an unknown name.
            fn parse_pairs_of<'a>(
                name: &str,
                pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
            ) -> Option<(Scenario, Vec<ParamError>)> {
                $(
                    if name == <$ty as Mechanism>::NAME {
                        let (p, errs) = <$ty as Mechanism>::parse_pairs(pairs);
                        return Some((Scenario::$variant(p), errs));
                    }
                )+
                None
            }
        }

        impl Default for Scenario {
            /// The first mechanism's defaults.
            fn default() -> Self {
                [$( Scenario::$variant(Default::default()) ),+][0]
            }
        }
    };
}

registry! {
    /// The thundering herd.
    Herd => herd::Herd,
    /// A lock: nginx's `ngx_shmtx` or a rival.
    Locks => locks::Locks,
    /// Event-loop workers sharing a listening socket: the epoll herd, `EPOLLEXCLUSIVE`,
    /// `SO_REUSEPORT`, nginx's accept mutex.
    Accept => accept::Accept,
    /// nginx's thread pool: an event loop that hands blocking work to pool threads.
    Pool => pool::Pool,
    /// Go's G/M/P scheduler: goroutines on OS threads through processors, work stealing.
    Gmp => gmp::Gmp,
    /// MySQL's connection handling: a thread per connection with the thread cache, or Percona's
    /// pool of threads.
    Mysql => mysql::Mysql,
}

/// What [`Scenario`]'s generic accessors read from the scenario's mechanism.
struct Describe;

/// A scenario's mechanism, as [`Describe`] reads it.
struct Description {
    name: &'static str,
    title: &'static str,
    keys: &'static [Key],
}

impl Visit for Describe {
    type Output = Description;
    fn visit<M: Registered>(self, _: &M::Params) -> Description {
        Description {
            name: M::NAME,
            title: M::TITLE,
            keys: M::KEYS,
        }
    }
}

struct Get<'a>(&'a str);

impl Visit for Get<'_> {
    type Output = Option<String>;
    fn visit<M: Registered>(self, p: &M::Params) -> Option<String> {
        M::get(p, self.0)
    }
}

struct Validate;

impl Visit for Validate {
    type Output = Vec<ParamError>;
    fn visit<M: Registered>(self, p: &M::Params) -> Vec<ParamError> {
        M::validate(p)
    }
}

struct Query;

impl Visit for Query {
    type Output = String;
    fn visit<M: Registered>(self, p: &M::Params) -> String {
        M::to_query(p)
    }
}

/// Keys that belong to the page or the widget, not to the scenario; the query parser skips them.
pub const UI_KEYS: [&str; 13] = [
    "step",
    "picks",
    "follow",
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

/// serde's refusal of scenario JSON `s`, with the field it is about when serde does not name one:
/// each field is tried alone beside the `mechanism` tag, and the first one refused is named. A
/// message longer than 600 bytes (a huge value echoed) keeps its start and its end.
fn json_error(s: &str, e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let named = (|| {
        if msg.contains("field `") {
            return None;
        }
        let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(s)
        else {
            return None;
        };
        let tag = obj.get("mechanism")?;
        let alone = |k: &str, v: &serde_json::Value| {
            let mut one = serde_json::Map::new();
            one.insert("mechanism".into(), tag.clone());
            if k != "mechanism" {
                one.insert(k.into(), v.clone());
            }
            serde_json::from_value::<Scenario>(serde_json::Value::Object(one))
        };
        alone("mechanism", tag).ok()?;
        obj.iter().find_map(|(k, v)| {
            alone(k, v).err().map(|fe| {
                // (a tagged enum's field errors come without a position: line 0)
                let at = match e.line() {
                    0 => String::new(),
                    l => format!(" (at line {l} column {})", e.column()),
                };
                format!("{}: {fe}{at}", crate::mechanism::shown(k))
            })
        })
    })();
    let msg = named.unwrap_or(msg);
    if msg.len() <= 600 {
        return msg;
    }
    let mut head = 200;
    while !msg.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = msg.len() - 300;
    while !msg.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}…({} bytes)…{}",
        &msg[..head],
        msg.len() - head - (msg.len() - tail),
        &msg[tail..]
    )
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
    /// `mechanism` key picks the parameter set (default: the registry's first, `herd`).
    pub fn from_query_lenient(q: &str) -> (Scenario, Vec<ParamError>) {
        let pairs = query_pairs(q);
        let mut errs = Vec::new();
        let mut mechanism = MECHANISMS[0];
        for (k, v) in &pairs {
            if k == "mechanism" {
                if let Some(m) = MECHANISMS.iter().find(|m| **m == v.as_str()) {
                    mechanism = m;
                } else {
                    errs.push(ParamError::new(
                        "mechanism",
                        format!(
                            "'{}' is not allowed; allowed: {}",
                            crate::mechanism::shown(v),
                            MECHANISMS.join(", ")
                        ),
                    ));
                }
            }
        }
        let scenario_pairs = pairs
            .iter()
            .filter(|(k, _)| k != "mechanism" && !UI_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v.as_str()));
        match Scenario::parse_pairs_of(mechanism, scenario_pairs) {
            Some((s, more)) => {
                errs.extend(more);
                (s, errs)
            }
            // unreachable: `mechanism` is one of MECHANISMS
            None => (Scenario::default(), errs),
        }
    }

    /// The scenario as a query string (`mechanism=herd&workers=…`), every key present, in the
    /// mechanism's [`Mechanism::KEYS`] order.
    pub fn to_query(&self) -> String {
        let params = self.visit(Query);
        let mut q = format!("mechanism={}", self.mechanism());
        if !params.is_empty() {
            q.push('&');
            q.push_str(&params);
        }
        q
    }

    /// Parse and validate JSON. A refusal names the field when serde's own message does not (a
    /// value of the wrong type, or out of its type's range), and is short whatever the input's
    /// size.
    pub fn from_json(s: &str) -> Result<Scenario, String> {
        let sc: Scenario = serde_json::from_str(s).map_err(|e| json_error(s, &e))?;
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
        self.visit(Validate)
    }

    /// The `mechanism=` name of this scenario's mechanism ([`Mechanism::NAME`]).
    pub fn mechanism(&self) -> &'static str {
        self.visit(Describe).name
    }

    /// The title of this scenario's mechanism ([`Mechanism::TITLE`]).
    pub fn title(&self) -> &'static str {
        self.visit(Describe).title
    }

    /// The parameter keys of this scenario's mechanism ([`Mechanism::KEYS`]).
    pub fn keys(&self) -> &'static [Key] {
        self.visit(Describe).keys
    }

    /// The text of one parameter's value ([`Mechanism::get`]; `None` for a key the mechanism
    /// does not have).
    pub fn get(&self, key: &str) -> Option<String> {
        self.visit(Get(key))
    }

    /// The parameters, if this is a scenario of mechanism `M`.
    pub fn params<M: Registered>(&self) -> Option<&M::Params> {
        M::unwrap(self)
    }

    /// The parameters, mutably, if this is a scenario of mechanism `M`.
    pub fn params_mut<M: Registered>(&mut self) -> Option<&mut M::Params> {
        M::unwrap_mut(self)
    }
}

// What the site and the CLI called before the registry: thin wrappers over the mechanisms'
// `Mechanism` implementations, kept while those crates move to the trait. New code should use
// the trait (`herd::Herd::set`, `locks::Locks::KEYS`, `Scenario::params::<accept::Accept>()`).

/// The herd's parameter keys, in display order ([`herd::Herd`]'s [`Mechanism::KEYS`]).
pub const HERD_KEYS: [&str; 11] = key_names(<herd::Herd as Mechanism>::KEYS);

/// The lock scenario's parameter keys, in display order ([`locks::Locks`]'s
/// [`Mechanism::KEYS`]).
pub const LOCK_KEYS: [&str; 12] = key_names(<locks::Locks as Mechanism>::KEYS);

/// The accept scenario's parameter keys, in display order ([`accept::Accept`]'s
/// [`Mechanism::KEYS`]).
pub const ACCEPT_KEYS: [&str; 17] = key_names(<accept::Accept as Mechanism>::KEYS);

/// Set one herd parameter from its URL/CLI key and text value ([`herd::Herd`]'s
/// [`Mechanism::set`]; the table is in [`herd::params`]).
pub fn set_herd_param(p: &mut herd::HerdParams, key: &str, value: &str) -> Result<(), ParamError> {
    <herd::Herd as Mechanism>::set(p, key, value)
}

/// Check the herd's ranges and the combinations that single-field ranges cannot express
/// ([`herd::Herd`]'s [`Mechanism::validate`]).
pub fn validate_herd(p: &herd::HerdParams) -> Vec<ParamError> {
    <herd::Herd as Mechanism>::validate(p)
}

/// Set one lock parameter from its URL/CLI key and text value ([`locks::Locks`]'s
/// [`Mechanism::set`]; the table is in [`locks::params`]).
pub fn set_lock_param(p: &mut locks::LockParams, key: &str, value: &str) -> Result<(), ParamError> {
    <locks::Locks as Mechanism>::set(p, key, value)
}

/// Check the lock combinations that single-field ranges cannot express ([`locks::Locks`]'s
/// [`Mechanism::validate`]).
pub fn validate_locks(p: &locks::LockParams) -> Vec<ParamError> {
    <locks::Locks as Mechanism>::validate(p)
}

/// Set one accept parameter from its URL/CLI key and text value ([`accept::Accept`]'s
/// [`Mechanism::set`]; the table is in [`accept::params`]).
pub fn set_accept_param(
    p: &mut accept::AcceptParams,
    key: &str,
    value: &str,
) -> Result<(), ParamError> {
    <accept::Accept as Mechanism>::set(p, key, value)
}

/// Check an accept scenario's ranges (a value built in code, or read from JSON, may be out of
/// them); every combination of in-range values is valid ([`accept::Accept`]'s
/// [`Mechanism::validate`]).
pub fn validate_accept(p: &accept::AcceptParams) -> Vec<ParamError> {
    <accept::Accept as Mechanism>::validate(p)
}

impl Scenario {
    /// The herd parameters (the defaults for a scenario of another mechanism).
    pub fn herd(&self) -> herd::HerdParams {
        self.params::<herd::Herd>().copied().unwrap_or_default()
    }

    /// The lock parameters, if this is a lock scenario.
    pub fn locks(&self) -> Option<&locks::LockParams> {
        self.params::<locks::Locks>()
    }

    /// The accept parameters, if this is an accept scenario.
    pub fn accept(&self) -> Option<&accept::AcceptParams> {
        self.params::<accept::Accept>()
    }
}
