//! Fuzzing the `herdlab` command line (issue #15): `herdlab_bench::cli::parse`, the parser every
//! subcommand goes through, over arbitrary arguments and over mutations of valid command lines
//! built from the command tree itself (every verb, every mechanism's subcommands and flags, so a
//! new mechanism is fuzzed without a line here). Nothing here runs a simulation or a benchmark.
//!
//! Asserted for every command line: no panic; a refusal has one line per problem, each naming the
//! command, flag or value and what is allowed (or that the flag takes no value, or how flags are
//! written), each short whatever the input's size; every allowed value of every scenario flag is
//! accepted. `HERDLAB_FUZZ_SCALE=<n>` multiplies the cases (`cargo xtask fuzz`); the inputs that
//! once broke something are in `native-bench/tests/data/fuzz/` (one argument a line) and run
//! every time.

use std::process::Command;

use herdlab_bench::cli::{command, parse, Parsed};
use herdlab_core::mechanism::KeyKind;
use herdlab_core::scenario::{Scenario, MECHANISMS};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

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

/// The longest line a refusal may have: the longest list of flags or values, with a shortened
/// echo of what was written.
const MAX_LINE: usize = 1024;

/// The command tree's words: verbs, subcommands (`sim herd`), their flags.
struct Tree {
    /// `(verb, subcommand, its flags)`.
    subs: Vec<(String, String, Vec<String>)>,
    /// The flags that take a value, per subcommand, hidden ones (refused here) left out.
    valued: Vec<Vec<String>>,
}

fn tree() -> Tree {
    let cmd = command();
    let mut subs = Vec::new();
    let mut valued = Vec::new();
    for verb in cmd.get_subcommands() {
        for sub in verb.get_subcommands() {
            valued.push(
                sub.get_arguments()
                    .filter(|a| !a.is_hide_set())
                    .filter(|a| a.get_num_args().is_some_and(|n| n.takes_values()))
                    .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
                    .collect(),
            );
            let flags = sub
                .get_arguments()
                .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
                .collect();
            subs.push((
                verb.get_name().to_string(),
                sub.get_name().to_string(),
                flags,
            ));
        }
    }
    Tree { subs, valued }
}

/// Values a user (or a stranger's script) might give a flag.
fn hostile_values() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "0",
        "-0",
        "-1",
        "+1",
        "NaN",
        "inf",
        "1e3",
        "1.5",
        "0x10",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999999",
        ",",
        "1,,2",
        "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
        " 1",
        "-",
        "--",
        "-h",
        "--help",
        "=",
        "\u{0}",
        "\u{FFFD}",
        "🦀",
        "<script>",
        "bash",
        "on",
        "true",
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
    v
}

/// What every parse must do: help, completions or a subcommand with its matches, or a refusal
/// whose every line names what is wrong and what is allowed, briefly.
fn check(args: &[String]) -> Result<(), TestCaseError> {
    match parse(args.iter().cloned()) {
        Ok(Parsed::Help(text)) => prop_assert!(!text.is_empty()),
        Ok(Parsed::Completions(_)) => {}
        Ok(Parsed::Run { name, .. }) => prop_assert!(!name.is_empty()),
        Err(e) => {
            prop_assert!(!e.0.trim().is_empty(), "an empty refusal of {:?}", args);
            for line in e.0.lines() {
                prop_assert!(
                    line.len() <= MAX_LINE,
                    "a line of {} bytes refusing {:.200?}: {:.200}",
                    line.len(),
                    args,
                    line
                );
                // the allowed values, or that the flag takes none here (`takes no value`,
                // `drop --x`), or how flags are written
                prop_assert!(
                    line.contains("allowed")
                        || line.contains("takes no")
                        || line.contains("drop --")
                        || line.contains("flags start with --"),
                    "{:?} refused without the allowed values: {}",
                    args,
                    line
                );
            }
        }
    }
    Ok(())
}

/// A command line: a real subcommand with some of its flags, each with a hostile value (sometimes
/// as `--flag=value`, sometimes without one), and now and then a stray word.
fn command_line() -> impl Strategy<Value = Vec<String>> {
    let t = tree();
    let values = hostile_values();
    let n = t.subs.len();
    (
        0..n,
        prop::collection::vec(
            (any::<u16>(), prop::sample::select(values), 0u8..6, ".{0,6}"),
            0..6,
        ),
    )
        .prop_map(move |(i, flags)| {
            let (verb, sub, known) = &t.subs[i];
            let mut a = vec![verb.clone(), sub.clone()];
            for (f, v, how, stray) in flags {
                let flag = if known.is_empty() {
                    "--bogus".to_string()
                } else {
                    known[f as usize % known.len()].clone()
                };
                match how {
                    0 => a.push(flag),
                    1 => a.push(format!("{flag}={v}")),
                    2 => a.push(stray),
                    _ => {
                        a.push(flag);
                        a.push(v);
                    }
                }
            }
            a
        })
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn any_arguments_are_parsed_or_refused_without_panicking(
        args in prop::collection::vec(".{0,12}", 0..6)
    ) {
        check(&args)?;
    }

    #[test]
    fn real_subcommands_with_hostile_flags_are_parsed_or_refused(args in command_line()) {
        check(&args)?;
    }

    #[test]
    fn mutated_command_lines_are_parsed_or_refused(
        args in command_line(),
        cut in any::<usize>(),
        dup in any::<usize>(),
    ) {
        // cut short, and one argument given twice
        let mut a = args.clone();
        a.truncate(cut % (args.len() + 1));
        if !a.is_empty() {
            let x = a[dup % a.len()].clone();
            a.insert(dup % a.len(), x);
        }
        check(&a)?;
    }
}

/// The longest one argument can be on Linux (`MAX_ARG_STRLEN`, 32 pages, with its NUL).
const MAX_ARG: usize = 128 * 1024 - 1;

proptest! {
    #![proptest_config(config(4))]

    #[test]
    fn the_longest_arguments_are_refused_with_short_messages(
        args in command_line(),
        at in any::<usize>(),
        unit in prop::sample::select(vec!["9", "a", "-", "--", ",", "1,"]),
    ) {
        let mut a = args.clone();
        let at = at % (a.len() + 1);
        a.insert(at, unit.repeat(MAX_ARG / unit.len()));
        check(&a)?;
    }
}

/// Every allowed value of every scenario flag (each name, both ends of each range) is accepted:
/// `herdlab sim <mechanism> --<key> <value>` for every key the subcommand has as a flag.
#[test]
fn every_allowed_value_of_every_key_flag_is_accepted() {
    let t = tree();
    let mut tried = 0;
    // under `sim`: a benchmark may bound a key more tightly (`bench accept --connections`)
    for ((verb, sub, _), flags) in t
        .subs
        .iter()
        .zip(&t.valued)
        .filter(|((v, _, _), _)| v == "sim")
    {
        let Some(s) = Scenario::default_of(sub) else {
            continue;
        };
        for k in s.keys() {
            let flag = format!("--{}", k.name.replace('_', "-"));
            if !flags.contains(&flag) {
                continue;
            }
            for v in k.examples() {
                let args = vec![verb.clone(), sub.clone(), flag.clone(), v.clone()];
                match parse(args.clone()) {
                    Ok(Parsed::Run { .. }) => tried += 1,
                    other => panic!("{args:?}: {other:?}"),
                }
            }
        }
    }
    assert!(tried > 0);
}

/// The corpus: each file in `native-bench/tests/data/fuzz/` is a command line (one argument a
/// line) that once broke something; its name says what.
#[test]
fn the_corpus_of_command_lines_that_once_broke_something_still_parses() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let args: Vec<String> = text.lines().map(str::to_string).collect();
        check(&args).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n > 0, "no corpus in {}", dir.display());
}

/// An argument that is not UTF-8 (a shell passes any bytes) is refused with exit 2 and a message,
/// not a panic (`std::env::args` panicked on it: the binary now reads `args_os`).
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_refused_not_a_panic() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(["sim", "herd", "--workers"])
        .arg(OsStr::from_bytes(b"\xff\xfe"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--workers: '\u{FFFD}\u{FFFD}' is not a whole number; allowed 1-64"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
