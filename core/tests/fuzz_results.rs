//! Fuzzing the results-file reader (issue #15 §1, `herdlab_core::results::parse_bytes`): results
//! files (`herdlab bench <mechanism> … --json`) come from strangers (the site's `#/results` page
//! opens any file it is given). Over arbitrary bytes and over mutations of real outputs
//! (truncation, duplicated keys, huge numbers, NaN, -0, non-UTF-8 bytes, 1 MB values, dropped
//! columns, wrong types) it asserts: no panic; every refusal names a place (`file`, `JSON`,
//! `columns`, `row N` or `row N, <column>` with a column the charts read) with a short message
//! that says what is allowed or expected; the messages stay short whatever the input's size (a
//! bound on the work, not a timing: the slowest input's time is printed, never asserted); a file
//! it accepts draws its mechanism's charts from finite numbers.
//!
//! The corpus `core/tests/data/fuzz-results/` holds real outputs, recorded with
//! `herdlab bench <mechanism> --quick --json > <mechanism>.json`: each must read as its
//! mechanism, and each is the seed of the mutations. `HERDLAB_FUZZ_SCALE=<n>` multiplies the number
//! of cases (`cargo xtask fuzz --minutes N` sets it). Native only (proptest, and the corpus is
//! read from files).
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use herdlab_core::chart::{ChartSpec, XAxis};
use herdlab_core::results::{overlay, parse_bytes, ResultsError, MAX_BYTES};
use herdlab_core::scenario::{bench_charts_of, MECHANISMS};
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
        failure_persistence: None,
        // fixed cases under `cargo test`, new ones under `cargo xtask fuzz`
        rng_seed: if std::env::var_os("HERDLAB_FUZZ_SCALE").is_some() {
            proptest::test_runner::RngSeed::Random
        } else {
            proptest::test_runner::RngSeed::Fixed(0x7265_7375)
        },
        ..ProptestConfig::default()
    }
}

/// The longest a message may be, whatever the input.
const MAX_MESSAGE: usize = 1024;

/// The slowest input so far (reported by the corpus test, never asserted).
static SLOWEST: Mutex<Duration> = Mutex::new(Duration::ZERO);

/// The corpus: (mechanism, text) of every file in `core/tests/data/fuzz-results/`.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-results");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The columns the charts of any mechanism read.
fn chart_columns() -> Vec<&'static str> {
    let mut out = Vec::new();
    for m in MECHANISMS {
        for s in bench_charts_of(m).unwrap() {
            out.extend(columns(&s));
        }
    }
    out
}

fn columns(s: &ChartSpec) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = match s.x {
        XAxis::Column { key, .. } => vec![key, s.y],
        XAxis::Columns { columns, .. } => columns.iter().map(|c| c.1).collect(),
    };
    v.extend(s.series.iter().copied());
    v
}

/// A refusal names a place and says what is allowed, briefly.
fn check_error(e: &ResultsError) -> Result<(), TestCaseError> {
    let place_ok = match e.field.as_str() {
        "file" | "JSON" | "columns" => true,
        f => match f.strip_prefix("row ") {
            Some(rest) => {
                let (n, col) = rest.split_once(", ").unwrap_or((rest, ""));
                n.parse::<usize>().is_ok_and(|n| n >= 1)
                    && (col.is_empty() || chart_columns().contains(&col))
            }
            None => false,
        },
    };
    prop_assert!(place_ok, "the refusal names no place: {e:?}");
    prop_assert!(!e.message.is_empty());
    prop_assert!(
        e.message.len() <= MAX_MESSAGE,
        "a {} byte message: {}",
        e.message.len(),
        e.message.chars().take(200).collect::<String>()
    );
    let says = [
        "allowed",
        "expected",
        "at most",
        "has it",
        "each column",
        "have:",
    ];
    prop_assert!(
        says.iter().any(|w| e.message.contains(w)),
        "the message says nothing of what is allowed: {e}"
    );
    Ok(())
}

/// What every input must give: rows of a known mechanism that draw its charts, or a refusal
/// that [`check_error`] accepts.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let t0 = Instant::now();
    let got = parse_bytes(bytes);
    let took = t0.elapsed();
    {
        let mut s = SLOWEST.lock().unwrap_or_else(|e| e.into_inner());
        *s = (*s).max(took);
    }
    match got {
        Ok(r) => {
            prop_assert!(MECHANISMS.contains(&r.mechanism));
            prop_assert!(!r.rows.is_empty());
            let charts = overlay(r.mechanism, &[("a", &r.rows)]);
            prop_assert_eq!(charts.len(), bench_charts_of(r.mechanism).unwrap().len());
            for c in &charts {
                for s in &c.series {
                    for &(x, y) in &s.points {
                        prop_assert!(x.is_finite() && y.is_finite());
                    }
                }
            }
        }
        Err(e) => check_error(&e)?,
    }
    Ok(())
}

/// A change to a valid file.
#[derive(Clone, Debug)]
enum Mutation {
    /// Cut at this fraction of the length.
    Truncate(f64),
    /// Repeat the key/value pair starting at the n-th `"` (a duplicated key).
    DuplicateKey(usize),
    /// Replace the n-th number with this text.
    Number(usize, &'static str),
    /// Put a non-UTF-8 byte at this fraction of the length.
    NotUtf8(f64, u8),
    /// Replace the n-th string value with a value of this many bytes.
    Huge(usize, usize),
    /// Drop the n-th line.
    DropLine(usize),
    /// Replace the n-th string value with a number, or a number with a string.
    Retype(usize),
    /// Wrap the whole text (an object, another array).
    Wrap(&'static str, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64).prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::DuplicateKey),
        (
            any::<usize>(),
            prop::sample::select(vec![
                "1e400",
                "-1e400",
                "18446744073709551616",
                "-0",
                "-0.0",
                "NaN",
                "Infinity",
                "-Infinity",
                "0x10",
                "1e-400",
                "99999999999999999999999999999999999999999",
                "null",
                "\"12\"",
                "[1]",
                "{}",
            ])
        )
            .prop_map(|(n, t)| Mutation::Number(n, t)),
        (0.0..1.0f64, 0x80u8..=0xff).prop_map(|(f, b)| Mutation::NotUtf8(f, b)),
        (
            any::<usize>(),
            prop::sample::select(vec![1usize << 20, 70_000, 3])
        )
            .prop_map(|(n, l)| Mutation::Huge(n, l)),
        any::<usize>().prop_map(Mutation::DropLine),
        any::<usize>().prop_map(Mutation::Retype),
        prop::sample::select(vec![
            ("{\"rows\": ", "}"),
            ("[", "]"),
            ("", ","),
            ("\u{feff}", ""),
            ("", "\n[]"),
        ])
        .prop_map(|(a, b)| Mutation::Wrap(a, b)),
    ]
}

/// Byte offsets of the starts of number tokens outside strings.
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut in_str = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if c == b'-' || c.is_ascii_digit() {
            let s = i;
            while i < text.len() && (text[i].is_ascii_digit() || b"-+.eE".contains(&text[i])) {
                i += 1;
            }
            out.push((s, i));
            continue;
        }
        i += 1;
    }
    out
}

/// Byte ranges of string values (`: "…"`), quotes included.
fn string_values(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < text.len() {
        if text[i] == b':' {
            let mut j = i + 1;
            while j < text.len() && text[j] == b' ' {
                j += 1;
            }
            if j < text.len() && text[j] == b'"' {
                let s = j;
                j += 1;
                while j < text.len() && text[j] != b'"' {
                    j += 1;
                }
                out.push((s, (j + 1).min(text.len())));
                i = j;
            }
        }
        i += 1;
    }
    out
}

fn splice(text: &[u8], (a, b): (usize, usize), with: &[u8]) -> Vec<u8> {
    let mut out = text[..a].to_vec();
    out.extend_from_slice(with);
    out.extend_from_slice(&text[b..]);
    out
}

fn mutate(text: &[u8], m: &Mutation) -> Vec<u8> {
    let at = |f: f64| ((text.len() as f64 * f) as usize).min(text.len());
    match *m {
        Mutation::Truncate(f) => text[..at(f)].to_vec(),
        Mutation::DuplicateKey(n) => {
            // a `"key": value,` line repeated
            let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
            let keyed: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].trim_ascii_start().starts_with(b"\""))
                .collect();
            let Some(&i) = keyed.get(n % keyed.len().max(1)) else {
                return text.to_vec();
            };
            let mut line = lines[i].to_vec();
            if !line.ends_with(b",") {
                line.push(b',');
            }
            let mut out: Vec<u8> = Vec::new();
            for (j, l) in lines.iter().enumerate() {
                if j == i {
                    out.extend_from_slice(&line);
                    out.push(b'\n');
                }
                out.extend_from_slice(l);
                out.push(b'\n');
            }
            out
        }
        Mutation::Number(n, t) => {
            let nums = numbers(text);
            match nums.get(n % nums.len().max(1)) {
                Some(&r) => splice(text, r, t.as_bytes()),
                None => text.to_vec(),
            }
        }
        Mutation::NotUtf8(f, b) => {
            let mut out = text.to_vec();
            out.insert(at(f), b);
            out
        }
        Mutation::Huge(n, len) => {
            let strs = string_values(text);
            match strs.get(n % strs.len().max(1)) {
                Some(&r) => {
                    let mut v = vec![b'"'];
                    v.extend(std::iter::repeat_n(b'x', len));
                    v.push(b'"');
                    splice(text, r, &v)
                }
                None => text.to_vec(),
            }
        }
        Mutation::DropLine(n) => {
            let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
            let k = n % lines.len().max(1);
            lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != k)
                .flat_map(|(_, l)| l.iter().copied().chain([b'\n']))
                .collect()
        }
        Mutation::Retype(n) => {
            let strs = string_values(text);
            let nums = numbers(text);
            if n % 2 == 0 && !strs.is_empty() {
                splice(text, strs[n / 2 % strs.len()], b"7")
            } else if let Some(&(a, b)) = nums.get(n / 2 % nums.len().max(1)) {
                let mut v = vec![b'"'];
                v.extend_from_slice(&text[a..b]);
                v.push(b'"');
                splice(text, (a, b), &v)
            } else {
                text.to_vec()
            }
        }
        Mutation::Wrap(a, b) => {
            let mut out = a.as_bytes().to_vec();
            out.extend_from_slice(text);
            out.extend_from_slice(b.as_bytes());
            out
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn mutated_real_outputs_are_read_or_refused(
        which in any::<usize>(),
        ms in prop::collection::vec(mutation(), 1..4),
    ) {
        let files = corpus();
        let (_, text) = &files[which % files.len()];
        let mut t = text.clone();
        for m in &ms {
            t = mutate(&t, m);
        }
        check(&t)?;
    }

    #[test]
    fn arbitrary_bytes_are_refused_without_panicking(b in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&b)?;
    }

    #[test]
    fn arbitrary_json_like_text_is_read_or_refused(
        s in r#"\[(\{("[a-z_0-9]{1,12}": ?(-?[0-9]{1,5}(\.[0-9]{1,3})?|"[ -~]{0,8}"|null|true|\[\]),? ?){0,6}\},?){0,4}\]?"#
    ) {
        check(s.as_bytes())?;
    }
}

/// Every real output reads as its own mechanism, with all its rows, and draws every chart.
#[test]
fn the_corpus_of_real_outputs_reads_as_their_mechanisms() {
    let files = corpus();
    let mut names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    let mut all: Vec<&str> = MECHANISMS.to_vec();
    all.sort();
    assert_eq!(names, all, "one recorded output per mechanism");
    for (name, text) in &files {
        let r = parse_bytes(text).unwrap_or_else(|e| panic!("{name}.json: {e}"));
        assert_eq!(r.mechanism, name);
        let v: serde_json::Value = serde_json::from_slice(text).unwrap();
        assert_eq!(r.rows.len(), v.as_array().unwrap().len(), "{name}");
        for c in overlay(r.mechanism, &[("a", &r.rows), ("b", &r.rows)]) {
            assert!(!c.series.is_empty(), "{name}: {} has no series", c.title);
            assert_eq!(c.series.len() % 2, 0);
            assert!(c.series.iter().all(|s| !s.points.is_empty()));
        }
    }
    println!(
        "slowest input read so far: {:?}",
        *SLOWEST.lock().unwrap_or_else(|e| e.into_inner())
    );
}

/// A 1 MB value and a file over the bound: refused or read with a short message.
#[test]
fn big_inputs_are_bounded() {
    let (_, herd) = corpus().into_iter().find(|(n, _)| n == "herd").unwrap();
    let huge = mutate(&herd, &Mutation::Huge(0, 1 << 20));
    let r = parse_bytes(&huge).unwrap();
    assert_eq!(r.mechanism, "herd");
    let over = vec![b' '; MAX_BYTES + 1];
    let e = parse_bytes(&over).unwrap_err();
    assert_eq!(e.field, "file");
    assert!(e.message.contains("at most"), "{e}");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let e = parse_bytes(deep.as_bytes()).unwrap_err();
    assert_eq!(e.field, "JSON");
    let dup = b"[{\"threads\": 1, \"threads\": 2}]";
    let e = parse_bytes(dup).unwrap_err();
    assert!(e.message.contains("appears twice"), "{e}");
}
