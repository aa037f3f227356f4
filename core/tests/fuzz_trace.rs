//! Fuzzing the trace reader (issue #15 §1, `herdlab_core::trace::parse`): trace files come from
//! strangers (the site opens any file it is given). Over arbitrary bytes and over mutations of
//! valid files (truncation, duplicated and dropped lines, huge numbers, non-UTF-8 bytes, 1 MB
//! lines, a newer version) it asserts: no panic; every refusal names its line (within the file)
//! and one of the format's fields, with a short message; the messages stay short whatever the
//! input's size (a bound on the work, not a timing); a file it accepts writes back to text it reads
//! the same. And the round trip: every generated trace → text → trace is the identity.
//!
//! `HERDLAB_FUZZ_SCALE=<n>` multiplies the number of cases (`cargo xtask fuzz --minutes N` sets it);
//! the inputs that once broke the reader are kept in `core/tests/data/fuzz-trace/` and run every
//! time. Native only (proptest, and the corpus is read from files).
#![cfg(not(target_arch = "wasm32"))]

use herdlab_core::trace::{
    parse, Event, Kind, MachineInfo, Run, Trace, TraceError, HEADER_FIELDS, MAX_LINE, MAX_THREADS,
};
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
            proptest::test_runner::RngSeed::Fixed(0x7472_6163)
        },
        ..ProptestConfig::default()
    }
}

/// The longest a message may be, whatever the input.
const MAX_MESSAGE: usize = 512;

/// The fields a refusal may name: the header's, the runs' and the events'.
fn known_field(f: &str) -> bool {
    HEADER_FIELDS.contains(&f)
        || [
            "file",
            "format",
            "version",
            "header",
            "line",
            "run",
            "scenario",
            "threads",
            "events",
            "truncated",
            "event",
            "thread",
            "delta",
            "kind",
            "arg",
            "end",
        ]
        .contains(&f)
}

/// What every input must give: a trace whose text reads back the same, or a refusal that names a
/// line of the input and a field, with a short message that says what is allowed or expected.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    match parse(bytes) {
        Ok(t) => {
            let text = t.to_text();
            let back = parse(text.as_bytes()).map_err(|e| {
                TestCaseError::fail(format!("accepted, but its own text is refused: {e}"))
            })?;
            prop_assert_eq!(back.to_text(), text);
        }
        Err(e) => check_error(&e, bytes)?,
    }
    Ok(())
}

fn check_error(e: &TraceError, bytes: &[u8]) -> Result<(), TestCaseError> {
    prop_assert!(known_field(e.field), "unknown field in {e:?}");
    let lines = bytes.split(|&b| b == b'\n').count();
    prop_assert!(e.line <= lines, "line {} of {lines}: {e}", e.line);
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
        "reads",
        "at most",
        "cut short",
        "found",
        "not",
    ];
    prop_assert!(
        says.iter().any(|w| e.message.contains(w)),
        "the message says nothing of what is allowed: {e}"
    );
    Ok(())
}

/// Text in the writer's normal form: no control characters, no outer spaces, not empty.
fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9._@()/µé-]{1,12}( [a-zA-Z0-9._=µ-]{1,10}){0,3}"
}

fn scenario() -> impl Strategy<Value = String> {
    "[a-z]{1,8}(&[a-z_]{1,10}=[a-z0-9-]{1,6}){0,4}".prop_map(|s| format!("mechanism={s}"))
}

fn kind() -> impl Strategy<Value = Kind> {
    (0..Kind::ALL.len()).prop_map(|i| Kind::ALL[i])
}

fn run() -> impl Strategy<Value = Run> {
    (
        text(),
        scenario(),
        1u32..=64,
        prop::collection::vec(
            (
                any::<u16>(),
                prop_oneof![0u64..1000, 0u64..10_000_000, Just(u64::MAX / 1024)],
                kind(),
                prop::option::of(any::<u32>()),
            ),
            0..40,
        ),
        prop::option::of(any::<u64>()),
    )
        .prop_map(|(label, scenario, threads, evs, truncated)| {
            let mut t = 0u64;
            let events = evs
                .into_iter()
                .map(|(th, d, kind, arg)| {
                    t = t.saturating_add(d);
                    Event {
                        thread: th % threads as u16,
                        t_ns: t,
                        kind,
                        arg,
                    }
                })
                .collect();
            Run {
                label,
                scenario,
                threads,
                events,
                truncated,
            }
        })
}

fn trace() -> impl Strategy<Value = Trace> {
    (
        text(),
        text(),
        any::<u32>(),
        text(),
        text(),
        text(),
        prop::option::of(text()),
        prop::collection::vec(run(), 0..5),
    )
        .prop_map(
            |(tool, cpu, cores, kernel, date, command, partial, runs)| Trace {
                tool,
                machine: MachineInfo { cpu, cores, kernel },
                date,
                command,
                partial,
                runs,
            },
        )
}

/// One way to break a valid file.
#[derive(Clone, Debug)]
enum Mutation {
    /// Keep the first `n` bytes (modulo the length).
    Truncate(usize),
    /// Write line `i` twice.
    Duplicate(usize),
    /// Drop line `i`.
    Drop(usize),
    /// Replace the `i`th number with this text.
    Number(usize, &'static str),
    /// Put these bytes at `i`.
    Insert(usize, Vec<u8>),
    /// Put a 1 MB line before line `i`.
    Huge(usize),
    /// Swap lines `i` and `i + 1`.
    Swap(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let huge_numbers = prop::sample::select(vec![
        "18446744073709551616",
        "99999999999999999999999999",
        "18446744073709551615",
        "4294967296",
        "4096",
        "-1",
        "+1",
        "1e9",
        "NaN",
        "0x10",
        "",
        " ",
        "٣",
    ]);
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::Duplicate),
        any::<usize>().prop_map(Mutation::Drop),
        (any::<usize>(), huge_numbers).prop_map(|(i, n)| Mutation::Number(i, n)),
        (
            any::<usize>(),
            prop_oneof![
                prop::collection::vec(any::<u8>(), 1..8),
                Just(vec![0xff, 0xfe]),
                Just(b"\nherdlab-trace 1\n".to_vec()),
                Just(b"\r\n\0".to_vec()),
            ]
        )
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Huge),
        any::<usize>().prop_map(Mutation::Swap),
    ]
}

fn mutate(text: &str, m: &Mutation) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
    let join = |lines: Vec<Vec<u8>>| {
        let mut out = lines.join(&b'\n');
        out.push(b'\n');
        out
    };
    let n = lines.len();
    match m {
        Mutation::Truncate(i) => text.as_bytes()[..i % (text.len() + 1)].to_vec(),
        Mutation::Duplicate(i) => {
            let l = lines[i % n].clone();
            lines.insert(i % n, l);
            join(lines)
        }
        Mutation::Drop(i) => {
            lines.remove(i % n);
            join(lines)
        }
        Mutation::Number(i, with) => {
            // the i-th run of digits
            let b = text.as_bytes();
            let starts: Vec<usize> = (0..b.len())
                .filter(|&j| b[j].is_ascii_digit() && (j == 0 || !b[j - 1].is_ascii_digit()))
                .collect();
            if starts.is_empty() {
                return b.to_vec();
            }
            let s = starts[i % starts.len()];
            let e = (s..b.len())
                .find(|&j| !b[j].is_ascii_digit())
                .unwrap_or(b.len());
            [&b[..s], with.as_bytes(), &b[e..]].concat()
        }
        Mutation::Insert(i, bytes) => {
            let b = text.as_bytes();
            let at = i % (b.len() + 1);
            [&b[..at], bytes, &b[at..]].concat()
        }
        Mutation::Huge(i) => {
            lines.insert(i % n, vec![b'7'; 1 << 20]);
            join(lines)
        }
        Mutation::Swap(i) => {
            if n > 1 {
                lines.swap(i % (n - 1), i % (n - 1) + 1);
            }
            join(lines)
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn every_trace_round_trips_through_its_text(t in trace()) {
        let text = t.to_text();
        let back = parse(text.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, t);
    }

    #[test]
    fn mutated_valid_files_are_read_or_refused(t in trace(), ms in prop::collection::vec(mutation(), 1..4)) {
        let mut bytes = t.to_text().into_bytes();
        for m in &ms {
            bytes = mutate(&String::from_utf8_lossy(&bytes), m);
        }
        check(&bytes)?;
    }

    #[test]
    fn arbitrary_bytes_are_refused_without_panicking(b in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&b)?;
        // and after a valid first line
        let mut v = b"herdlab-trace 1\n".to_vec();
        v.extend_from_slice(&b);
        check(&v)?;
    }

    #[test]
    fn arbitrary_text_after_a_valid_header_is_refused_or_read(s in "(tool|cpu|cores|kernel|date|command|partial|run|scenario|threads|events|truncated|end|[0-9]{1,3})( [ -~]{0,20})?(\n[ -~]{0,30}){0,12}") {
        let text = format!(
            "herdlab-trace 1\ntool herdlab 0.1.0\ncpu x\ncores 1\nkernel Linux\ndate d\ncommand c\n{s}\n"
        );
        check(text.as_bytes())?;
    }
}

/// A 1 MB line anywhere is refused at that line, naming its length.
#[test]
fn a_one_megabyte_line_is_refused_at_its_line() {
    let long = "x".repeat(1 << 20);
    let text = format!("herdlab-trace 1\ntool {long}\n");
    let e = parse(text.as_bytes()).unwrap_err();
    assert_eq!((e.line, e.field), (2, "line"));
    assert!(
        e.message.contains(&format!("at most {MAX_LINE} bytes")),
        "{e}"
    );
    let e = parse(long.as_bytes()).unwrap_err();
    assert_eq!((e.line, e.field), (1, "format"), "{e}");
}

/// An event naming a thread the run does not have, or more threads than allowed, is refused.
#[test]
fn threads_are_bounded() {
    let head = "herdlab-trace 1\ntool t\ncpu c\ncores 1\nkernel k\ndate d\ncommand c\nrun r\nscenario mechanism=x\n";
    let e = parse(format!("{head}threads {}\nevents 0\nend\n", MAX_THREADS + 1).as_bytes())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "line 10: threads: {} is out of range; allowed 0-{MAX_THREADS}",
            MAX_THREADS + 1
        )
    );
    let e = parse(format!("{head}threads 0\nevents 1\n0 0 work\nend\n").as_bytes()).unwrap_err();
    assert_eq!((e.line, e.field), (12, "thread"));
}

/// The corpus: every file in `core/tests/data/fuzz-trace/` is an input that once broke the reader
/// (its name says what); each is read or refused as [`check`] asks.
#[test]
fn the_corpus_of_inputs_that_once_broke_the_reader_still_passes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-trace");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        check(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n > 0, "no corpus in {}", dir.display());
}
