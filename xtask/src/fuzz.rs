//! `cargo xtask fuzz [--minutes N] [--scale S]`: the fuzz properties of issue #15 with many more
//! cases, round after round (each round with fresh random inputs), until N minutes are spent or a
//! property fails.
//!
//! The properties are the ones `cargo test` runs at a small size: `core/tests/fuzz_scenario.rs`
//! (the URL query and the scenario JSON), `core/tests/fuzz_trace.rs` (trace files), `core/tests/fuzz_results.rs`
//! (results files: `herdlab bench … --json` read back), `native-bench/tests/fuzz_cli.rs` (the `herdlab` command
//! line) and `web/src/fuzz.rs` (the hash route, the blocks, the lesson files and pages). Each round
//! runs them in release mode with `HERDLAB_FUZZ_SCALE=S` (default 50: fifty times the cases). A
//! failure prints proptest's smallest failing input; keep it in the corpus (`core/tests/data/fuzz/`, `core/tests/data/fuzz-trace/`, `core/tests/data/fuzz-results/`,
//! `native-bench/tests/data/fuzz/`), named after the bug, once it is fixed.

use std::time::{Duration, Instant};

use crate::{run, secs, Ctx};

/// The most minutes `--minutes` takes (a day).
const MAX_MINUTES: u64 = 24 * 60;
/// The largest `--scale`.
const MAX_SCALE: u64 = 100_000;

/// The fuzz targets: `cargo test` arguments (package, test target or filter).
const TARGETS: &[(&str, &[&str])] = &[
    (
        "scenario query and JSON",
        &["-p", "herdlab-core", "--test", "fuzz_scenario"],
    ),
    (
        "trace files",
        &["-p", "herdlab-core", "--test", "fuzz_trace"],
    ),
    (
        "results files",
        &["-p", "herdlab-core", "--test", "fuzz_results"],
    ),
    (
        "herdlab command line",
        &["-p", "herdlab-bench", "--test", "fuzz_cli"],
    ),
    (
        "site: route, blocks, lesson files",
        &["-p", "herdlab-web", "--bin", "herdlab-web", "fuzz::"],
    ),
];

/// `--minutes N` and `--scale S`, each at most once; the message names the flag and the allowed
/// values.
pub fn parse_args(args: &[String]) -> Result<(u64, u64), String> {
    let mut minutes = 10;
    let mut scale = 50;
    let mut i = 0;
    while i < args.len() {
        let (flag, lo, hi, slot) = match args[i].as_str() {
            "--minutes" => ("--minutes", 1, MAX_MINUTES, &mut minutes),
            "--scale" => ("--scale", 1, MAX_SCALE, &mut scale),
            other => {
                return Err(format!(
                    "fuzz: unknown argument '{other}'; allowed: --minutes N (1-{MAX_MINUTES}), \
                     --scale S (1-{MAX_SCALE})"
                ))
            }
        };
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("{flag}: missing value; allowed {lo}-{hi}"))?;
        *slot = match v.parse::<u64>() {
            Ok(n) if (lo..=hi).contains(&n) => n,
            _ => return Err(format!("{flag}: '{v}' is not allowed; allowed {lo}-{hi}")),
        };
        i += 2;
    }
    Ok((minutes, scale))
}

/// Build the fuzz tests once, then run rounds until `minutes` are spent (a round that starts
/// in time finishes) or one fails.
pub fn fuzz(ctx: &Ctx, minutes: u64, scale: u64) -> Result<(), String> {
    let budget = Duration::from_secs(minutes * 60);
    let started = Instant::now();
    println!("fuzzing for {minutes} min at {scale}x the cases `cargo test` runs");
    for (_, args) in TARGETS {
        let mut cmd = ctx.cargo();
        cmd.args(["test", "--release", "--no-run"]).args(&args[..4]);
        run(&mut cmd)?;
    }
    let mut round = 0u64;
    while started.elapsed() < budget {
        round += 1;
        let t = Instant::now();
        for (name, args) in TARGETS {
            println!("\n=== round {round}: {name}");
            let mut cmd = ctx.cargo();
            cmd.args(["test", "--release"])
                .args(*args)
                .env("HERDLAB_FUZZ_SCALE", scale.to_string());
            run(&mut cmd).map_err(|e| {
                format!(
                    "round {round}, {name}: {e}\nthe smallest failing input is above; once \
                     fixed, keep it in the corpus (core/tests/data/fuzz/, \
                     native-bench/tests/data/fuzz/) named after the bug"
                )
            })?;
        }
        println!("=== round {round} passed in {}", secs(t.elapsed()));
    }
    println!(
        "\nfuzz: {round} rounds at {scale}x passed in {}",
        secs(started.elapsed())
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn flags_are_read_and_bad_ones_refused_with_the_allowed_values() {
        assert_eq!(parse_args(&[]), Ok((10, 50)));
        assert_eq!(parse_args(&args("--minutes 3 --scale 7")), Ok((3, 7)));
        assert_eq!(
            parse_args(&args("--minutes 0")),
            Err("--minutes: '0' is not allowed; allowed 1-1440".into())
        );
        assert_eq!(
            parse_args(&args("--minutes")),
            Err("--minutes: missing value; allowed 1-1440".into())
        );
        assert_eq!(
            parse_args(&args("--scale NaN")),
            Err("--scale: 'NaN' is not allowed; allowed 1-100000".into())
        );
        assert!(parse_args(&args("--hours 1"))
            .unwrap_err()
            .starts_with("fuzz: unknown argument '--hours'; allowed: --minutes N"));
    }
}
