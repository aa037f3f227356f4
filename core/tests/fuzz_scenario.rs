//! Fuzzing the scenario parsers (issue #15): the URL query (`Scenario::from_query`, every
//! mechanism's `Mechanism::parse_pairs` through the registry) and the scenario JSON
//! (`Scenario::from_json`), over arbitrary text and over mutations of valid inputs (truncation,
//! duplicated keys, huge numbers, NaN, negative zero, bytes that are not UTF-8 once decoded, 1 MB
//! values). Every property walks `MECHANISMS`, so a mechanism added to the registry is fuzzed
//! without a line here.
//!
//! Asserted for every input: no panic; the lenient parse's scenario is valid; every rejection names
//! its field and says what is allowed; the messages stay short whatever the input's size (a bound on
//! the work, not a timing); a strict parse fails exactly when the lenient one reports. Round trips:
//! every valid scenario → query → scenario and → JSON → scenario is the identity.
//!
//! `HERDLAB_FUZZ_SCALE=<n>` multiplies the number of cases (`cargo xtask fuzz --minutes N` sets it);
//! the inputs that once broke something are kept in `core/tests/data/fuzz/` and run every time.
//! Native only (proptest, and the corpus is read from files).
#![cfg(not(target_arch = "wasm32"))]

use herdlab_core::mechanism::{Key, KeyKind};
use herdlab_core::scenario::{ParamError, Scenario, MECHANISMS, UI_KEYS};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// The cases of a property: `base` times `HERDLAB_FUZZ_SCALE` (default 1).
fn cases(base: u32) -> u32 {
    let scale = std::env::var("HERDLAB_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(1)
        .max(1);
    base.saturating_mul(scale)
}

fn config(base: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(base),
        // a failure is kept in the corpus by hand, named after its bug
        failure_persistence: None,
        // `cargo test` (and so CI) draws the same cases every run; `cargo xtask fuzz` (which sets
        // HERDLAB_FUZZ_SCALE) draws new ones each round
        rng_seed: if std::env::var_os("HERDLAB_FUZZ_SCALE").is_some() {
            proptest::test_runner::RngSeed::Random
        } else {
            proptest::test_runner::RngSeed::Fixed(0x6865_7264)
        },
        ..ProptestConfig::default()
    }
}

/// The longest a message may be, whatever the input: the longest list of allowed values with room
/// for a shortened echo of the bad value.
const MAX_MESSAGE: usize = 1024;

/// Every key of every registered mechanism, `mechanism` and the page's keys: what a query's keys
/// are mostly drawn from.
fn all_keys() -> Vec<String> {
    let mut v: Vec<String> = vec!["mechanism".into()];
    for m in MECHANISMS {
        for k in Scenario::default_of(m).unwrap().keys() {
            if !v.contains(&k.name.to_string()) {
                v.push(k.name.to_string());
            }
        }
    }
    v.extend(UI_KEYS.iter().map(|k| k.to_string()));
    v
}

/// Values a stranger might write: edge numbers, NaN, negative zero, escapes that decode to bytes
/// that are not UTF-8, markup, and every key's allowed values.
fn hostile_values() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "0",
        "-0",
        "+0",
        "-1",
        "+1",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "1e3",
        "1.5",
        "-0.0",
        "0x10",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999999999999",
        " 1",
        "1 ",
        "%00",
        "%FF",
        "%C3%28",
        "%ED%A0%80",
        "%",
        "%%",
        "%2",
        "%zz",
        "+",
        "&",
        "=",
        "==",
        "\u{0}",
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "ü",
        "🦀",
        "on",
        "off",
        "true",
        "false",
        "ON",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for m in MECHANISMS {
        for k in Scenario::default_of(m).unwrap().keys() {
            v.extend(k.examples());
            if let KeyKind::Range { lo, hi, .. } = k.kind {
                v.push(lo.saturating_sub(1).to_string());
                v.push(hi.saturating_add(1).to_string());
            }
        }
    }
    v.extend(MECHANISMS.iter().map(|m| m.to_string()));
    v
}

/// A value of `k` its table allows, picked by `r`.
fn allowed_value(k: &Key, r: u64) -> String {
    match k.kind {
        KeyKind::Range { lo, hi, .. } => match (hi - lo).checked_add(1) {
            Some(n) => (lo + r % n).to_string(),
            None => r.to_string(),
        },
        KeyKind::OneOf(names) => names[r as usize % names.len()].to_string(),
        KeyKind::Switch => ["on", "off"][r as usize % 2].to_string(),
        KeyKind::Bool => ["true", "false", "on", "off"][r as usize % 4].to_string(),
    }
}

/// What every parse of `q` must do: no panic, a valid scenario, well-formed messages, the strict
/// parse failing exactly when the lenient one reports, and the scenario's own query parsing back
/// to it.
fn check_query(q: &str) -> Result<(), TestCaseError> {
    let (s, errs) = Scenario::from_query_lenient(q);
    // what the lenient parse keeps is valid, or each of its problems was reported (a mechanism
    // may keep a value and show the problem beside it, as the locks keep 16 threads)
    for e in s.validate() {
        prop_assert!(
            errs.contains(&e),
            "the lenient parse of {:.200?} kept an unreported problem: {}",
            q,
            e
        );
    }
    let keys = s.keys();
    for e in &errs {
        check_error(e, keys)?;
    }
    match Scenario::from_query(q) {
        Ok(t) => {
            prop_assert!(errs.is_empty(), "strict accepted what lenient refused");
            prop_assert_eq!(t, s);
        }
        Err(e) => prop_assert_eq!(&e, &errs),
    }
    let back = s.to_query();
    let (again, _) = Scenario::from_query_lenient(&back);
    prop_assert_eq!(again, s, "query {}", back);
    if s.validate().is_empty() {
        prop_assert_eq!(Scenario::from_query(&back), Ok(s), "query {}", back);
    }
    Ok(())
}

/// A rejection names its field and what is allowed, in a message of bounded size.
fn check_error(e: &ParamError, keys: &[Key]) -> Result<(), TestCaseError> {
    prop_assert!(!e.field.is_empty(), "no field: {e:?}");
    prop_assert!(
        e.message.len() <= MAX_MESSAGE && e.field.len() <= MAX_MESSAGE,
        "a message of {} bytes (field {} bytes): {:.200}",
        e.message.len(),
        e.field.len(),
        e.message
    );
    let known = keys.iter().find(|k| k.name == e.field);
    if e.message.contains("allowed") {
        // a single value refused: the allowed values follow (a range or a list)
        if let Some(k) = known {
            prop_assert!(
                e.message.contains(&k.allowed()) || e.message.contains("out of range"),
                "{e} does not list {}",
                k.allowed()
            );
        }
    } else {
        // a combination single keys cannot express: it names a key of the mechanism
        prop_assert!(known.is_some(), "{e}: neither a key nor the allowed values");
    }
    Ok(())
}

/// A valid scenario of any registered mechanism: random allowed values of random keys, in random
/// order, through the lenient parse (which puts back a default where a combination is refused).
fn valid_scenario() -> impl Strategy<Value = Scenario> {
    (
        0..MECHANISMS.len(),
        prop::collection::vec((any::<u16>(), any::<u64>()), 0..24),
    )
        .prop_map(|(m, picks)| {
            let d = Scenario::default_of(MECHANISMS[m]).unwrap();
            let keys = d.keys();
            let mut q = format!("mechanism={}", MECHANISMS[m]);
            for (k, r) in picks {
                let k = &keys[k as usize % keys.len()];
                q.push_str(&format!("&{}={}", k.name, allowed_value(k, r)));
            }
            Scenario::from_query_lenient(&q).0
        })
        .prop_filter("a valid scenario", |s| s.validate().is_empty())
}

/// One change a stranger (or a truncating mail client) makes to a valid query.
#[derive(Clone, Debug)]
enum Mutation {
    /// Cut at this byte.
    Truncate(usize),
    /// Repeat the pair at this index, with a new value.
    Duplicate(usize, String),
    /// Replace the value of the pair at this index.
    Value(usize, String),
    /// Replace the key of the pair at this index.
    Key(usize, String),
    /// Put this pair at this index.
    Insert(usize, String, String),
    /// Percent-encode every byte.
    EncodeAll,
    /// Give this pair a 1 MB value made of this text repeated.
    Huge(usize, String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let values = hostile_values();
    let keys = all_keys();
    let value = prop_oneof![
        3 => prop::sample::select(values),
        1 => ".{0,12}",
    ];
    let key = prop_oneof![
        3 => prop::sample::select(keys),
        1 => ".{0,8}",
    ];
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), value.clone()).prop_map(|(i, v)| Mutation::Duplicate(i, v)),
        (any::<usize>(), value.clone()).prop_map(|(i, v)| Mutation::Value(i, v)),
        (any::<usize>(), key.clone()).prop_map(|(i, k)| Mutation::Key(i, k)),
        (any::<usize>(), key, value).prop_map(|(i, k, v)| Mutation::Insert(i, k, v)),
        Just(Mutation::EncodeAll),
    ]
}

/// `q` with `m` applied (pairs are `&`-separated, kept as written).
fn mutate(q: &str, m: &Mutation) -> String {
    let mut pairs: Vec<String> = q.split('&').map(str::to_string).collect();
    let n = pairs.len();
    let key_of = |p: &str| p.split_once('=').map_or(p, |(k, _)| k).to_string();
    match m {
        Mutation::Truncate(i) => {
            let mut at = i % (q.len() + 1);
            while !q.is_char_boundary(at) {
                at -= 1;
            }
            return q[..at].to_string();
        }
        Mutation::Duplicate(i, v) => {
            let k = key_of(&pairs[i % n]);
            pairs.insert(i % n + 1, format!("{k}={v}"));
        }
        Mutation::Value(i, v) => {
            let k = key_of(&pairs[i % n]);
            pairs[i % n] = format!("{k}={v}");
        }
        Mutation::Key(i, k) => {
            let p = &pairs[i % n];
            let v = p.split_once('=').map_or("", |(_, v)| v).to_string();
            pairs[i % n] = format!("{k}={v}");
        }
        Mutation::Insert(i, k, v) => pairs.insert(i % (n + 1), format!("{k}={v}")),
        Mutation::EncodeAll => {
            return q
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, v)) => format!("{}={}", enc_all(k), enc_all(v)),
                    None => enc_all(p),
                })
                .collect::<Vec<_>>()
                .join("&")
        }
        Mutation::Huge(i, v) => {
            let k = key_of(&pairs[i % n]);
            let big = v.repeat((1 << 20) / v.len().max(1));
            pairs[i % n] = format!("{k}={big}");
        }
    }
    pairs.join("&")
}

fn enc_all(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// A scenario's JSON changed as a stranger might: a field's value replaced by hostile JSON, a field
/// removed, a field added, duplicated, or the text cut short.
fn mutate_json(json: &str, pick: u64, hostile: &str, at: usize) -> String {
    let serde_json::Value::Object(mut obj) =
        serde_json::from_str::<serde_json::Value>(json).unwrap()
    else {
        unreachable!("a scenario's JSON is an object")
    };
    let fields: Vec<String> = obj.keys().cloned().collect();
    let f = fields[pick as usize % fields.len()].clone();
    match pick % 5 {
        0 => {
            obj.remove(&f);
        }
        1 => {
            obj.insert(f.clone(), serde_json::Value::Null);
        }
        2 => {
            // a duplicated key, written by hand (serde_json's maps cannot hold one)
            let text = serde_json::Value::Object(obj).to_string();
            return format!("{}, \"{f}\": {hostile}}}", &text[..text.len() - 1]);
        }
        3 => {
            let text = serde_json::Value::Object(obj).to_string();
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            return text[..at].to_string();
        }
        _ => {
            // hostile raw JSON as the value
            let text = serde_json::Value::Object(obj).to_string();
            let needle = format!("\"{f}\":");
            let start = text.find(&needle).unwrap() + needle.len();
            let end = text[start..]
                .find([',', '}'])
                .map_or(text.len(), |e| start + e);
            return format!("{}{hostile}{}", &text[..start], &text[end..]);
        }
    }
    serde_json::Value::Object(obj).to_string()
}

/// Raw JSON values a stranger might write where a number or a name is expected.
const HOSTILE_JSON: &[&str] = &[
    "NaN",
    "-0",
    "-0.0",
    "0.5",
    "1e400",
    "-1",
    "4294967296",
    "18446744073709551616",
    "1e19",
    "\"1\"",
    "\"\"",
    "null",
    "true",
    "[]",
    "{}",
    "\"<script>alert(1)</script>\"",
    "\"\\ud800\"",
    "99999999999999999999999999999999999999999",
];

/// What every JSON parse must do: no panic, and on a refusal a message that is not empty and of
/// bounded size; on success a valid scenario whose JSON parses back to it.
fn check_json(j: &str) -> Result<(), TestCaseError> {
    match Scenario::from_json(j) {
        Ok(s) => {
            prop_assert!(s.validate().is_empty(), "{:.200}", j);
            let back = serde_json::to_string(&s).unwrap();
            prop_assert_eq!(Scenario::from_json(&back), Ok(s));
        }
        Err(e) => {
            prop_assert!(!e.is_empty());
            prop_assert!(e.len() <= MAX_MESSAGE, "{} bytes: {:.200}", e.len(), e);
            // a refusal of an object with a known mechanism names a field (serde's `field \`x\``,
            // or the field first)
            if let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(j)
            {
                let known = obj
                    .get("mechanism")
                    .and_then(|m| m.as_str())
                    .is_some_and(|m| MECHANISMS.contains(&m));
                if known {
                    let names_one = e.contains("field `")
                        || e.contains("; ")
                        || obj.keys().any(|k| e.starts_with(&format!("{k}: ")));
                    prop_assert!(names_one, "{:.200} names no field: {}", j, e);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_text_as_a_query_is_parsed_or_refused_without_panicking(q in ".{0,200}") {
        check_query(&q)?;
    }

    #[test]
    fn any_pairs_of_known_keys_and_hostile_values_are_parsed_or_refused(
        pairs in prop::collection::vec(
            (prop::sample::select(all_keys()), prop::sample::select(hostile_values())),
            0..20,
        )
    ) {
        let q = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        check_query(&q)?;
    }

    #[test]
    fn valid_scenarios_round_trip_through_the_query_and_json(s in valid_scenario()) {
        prop_assert!(s.validate().is_empty());
        let q = s.to_query();
        prop_assert_eq!(Scenario::from_query(&q), Ok(s), "{}", q);
        prop_assert_eq!(Scenario::from_query(&q).unwrap().to_query(), q.clone());
        let j = serde_json::to_string(&s).unwrap();
        prop_assert_eq!(Scenario::from_json(&j), Ok(s), "{}", j);
        // a key given twice: the last one counts
        for k in s.keys() {
            let v = s.get(k.name).unwrap();
            let first = Scenario::default_of(s.mechanism()).unwrap().get(k.name).unwrap();
            let q2 = format!("{q}&{}={}", k.name, herdlab_core::scenario::url_encode(&first));
            let (t, _) = Scenario::from_query_lenient(&format!("{q2}&{}={}", k.name, herdlab_core::scenario::url_encode(&v)));
            prop_assert_eq!(t, s);
        }
    }

    #[test]
    fn mutated_valid_queries_are_parsed_or_refused(
        s in valid_scenario(),
        ms in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut q = s.to_query();
        for m in &ms {
            q = mutate(&q, m);
        }
        check_query(&q)?;
    }

    #[test]
    fn any_text_and_mutated_valid_json_are_parsed_or_refused(
        s in valid_scenario(),
        text in ".{0,120}",
        pick in any::<u64>(),
        hostile in prop::sample::select(HOSTILE_JSON),
        at in any::<usize>(),
    ) {
        check_json(&text)?;
        let j = serde_json::to_string(&s).unwrap();
        check_json(&mutate_json(&j, pick, hostile, at))?;
    }
}

proptest! {
    // each case parses about a megabyte
    #![proptest_config(config(8))]

    #[test]
    fn one_megabyte_values_and_keys_are_refused_with_short_messages(
        s in valid_scenario(),
        i in any::<usize>(),
        unit in prop::sample::select(vec!["9", "a", "%FF", "-", "1.", "%", "&", "=", "on"]),
        as_key in any::<bool>(),
    ) {
        let q = s.to_query();
        let q = if as_key {
            format!("{q}&{}=1", unit.repeat(1 << 20))
        } else {
            mutate(&q, &Mutation::Huge(i, unit.to_string()))
        };
        check_query(&q)?;
        let j = serde_json::to_string(&s).unwrap();
        check_json(&mutate_json(&j, i as u64, &"9".repeat(1 << 20), 0))?;
        check_json(&mutate_json(&j, i as u64, &format!("\"{}\"", unit.repeat(1 << 20)), 0))?;
    }
}

/// A JSON value of the wrong type is refused naming its field (serde's own message does not).
#[test]
fn a_json_value_of_the_wrong_type_names_its_field() {
    let e = Scenario::from_json(r#"{"mechanism":"herd","cpus":2,"workers":"x"}"#).unwrap_err();
    assert_eq!(e, "workers: invalid type: string \"x\", expected u32");
    let e = Scenario::from_json(r#"{"mechanism":"herd","mode":"bogus"}"#).unwrap_err();
    assert!(
        e.starts_with("mode: unknown variant `bogus`, expected one of `wake-all`"),
        "{e}"
    );
}

/// The corpus: every file in `core/tests/data/fuzz/` is an input that once broke something (its
/// name says what); `*.query` files are queries, `*.json` files scenario JSON.
#[test]
fn the_corpus_of_inputs_that_once_broke_something_still_parses() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let r = match path.extension().and_then(|e| e.to_str()) {
            Some("query") => check_query(text),
            Some("json") => check_json(text),
            _ => continue,
        };
        r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n > 0, "no corpus in {}", dir.display());
}
