//! The `herdlab` command line, parsed by hand.
//!
//! Every refusal names the problem and the allowed values; the herd's flags go through
//! `herdlab_core::scenario::set_herd_param` and `validate_herd`, so their messages are the ones the
//! web page shows for the same keys.

use herdlab_core::herd::HerdParams;
use herdlab_core::scenario::{set_herd_param, validate_herd, HERD_KEYS};

use crate::bench_cmd::{DEFAULT_EVENTS, DEFAULT_THREADS, QUICK_EVENTS, QUICK_THREADS};
use crate::native_herd::{MAX_EVENTS, MAX_THREADS};
use crate::sim_cmd::DEFAULT_MAX_STEPS;

/// The usage text (`herdlab --help`).
pub const USAGE: &str = "\
herdlab: the thundering herd, simulated and on real threads

usage:
  herdlab sim herd [--workers N] [--cpus C] [--mode wake-all|exclusive|lifo-exclusive]
                   [--arrival on-demand|burst|poisson] [--burst K] [--rate R]
                   [--connections C] [--service NS] [--variant correct|broken-sleeper]
                   [--primitive accept|futex|condvar] [--seed S] [--max-steps N] [--json]
      Run a herd scenario headless on the simulated platform and print its counters.
      Defaults and ranges are those of the scenario table (workers 1-64, cpus 1-16, ...).

  herdlab bench herd [--threads 2,8,32,128] [--events E] [--quick] [--json]
      Run core's herd machines on real threads (Linux): futex wake-all/wake-one,
      condvar notify_all/notify_one, and a blocking accept on a loopback listener.
      Default: 200 events per row; --quick: 50 events, threads 2,8,32.

  herdlab help | --help | -h
      This text.
";

/// The commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Print the usage.
    Help,
    /// `sim herd`.
    SimHerd {
        /// The scenario.
        params: HerdParams,
        /// The step bound.
        max_steps: u64,
        /// Print JSON instead of a table.
        json: bool,
    },
    /// `bench herd`.
    BenchHerd {
        /// Worker thread counts, one row set each.
        threads: Vec<u32>,
        /// Events per row.
        events: u32,
        /// Print JSON instead of a table.
        json: bool,
    },
}

/// A refused command line (exit status 2). The message has one line per problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl core::fmt::Display for CliError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, CliError> {
    Err(CliError(msg.into()))
}

const COMMANDS: &str = "sim, bench, help";
const MECHANISMS: &str = "herd";
const BENCH_FLAGS: [&str; 4] = ["--threads", "--events", "--quick", "--json"];

fn is_help(a: &str) -> bool {
    matches!(a, "help" | "--help" | "-h")
}

/// Parse the arguments after the program name.
pub fn parse<I, S>(args: I) -> Result<Command, CliError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let args: Vec<String> = args.into_iter().map(Into::into).collect();
    let Some(cmd) = args.first() else {
        return err(format!("missing command; allowed: {COMMANDS}"));
    };
    if is_help(cmd) {
        return Ok(Command::Help);
    }
    match cmd.as_str() {
        "sim" | "bench" => {}
        other => return err(format!("'{other}' is not a command; allowed: {COMMANDS}")),
    }
    match args.get(1).map(String::as_str) {
        None => return err(format!("{cmd}: missing mechanism; allowed: {MECHANISMS}")),
        Some(h) if is_help(h) => return Ok(Command::Help),
        Some("herd") => {}
        Some(m) => {
            return err(format!(
                "{cmd}: '{m}' is not a mechanism; allowed: {MECHANISMS}"
            ))
        }
    }
    let flags = split_flags(&args[2..], cmd)?;
    if flags.iter().any(|(f, _)| f == "--help") {
        return Ok(Command::Help);
    }
    if cmd == "sim" {
        parse_sim(flags)
    } else {
        parse_bench(flags)
    }
}

fn sim_flags() -> Vec<String> {
    HERD_KEYS
        .iter()
        .map(|k| format!("--{k}"))
        .chain(["--max-steps".to_string(), "--json".to_string()])
        .collect()
}

fn takes_value(flag: &str) -> bool {
    !matches!(flag, "--json" | "--quick" | "--help")
}

/// Split `--flag value` / `--flag=value` / `--switch` into pairs (flag names are checked later).
fn split_flags(rest: &[String], cmd: &str) -> Result<Vec<(String, Option<String>)>, CliError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let a = &rest[i];
        i += 1;
        if a == "-h" {
            out.push(("--help".to_string(), None));
            continue;
        }
        if !a.starts_with("--") || a.len() == 2 {
            return err(format!(
                "{cmd} herd: unexpected argument '{a}'; flags start with --"
            ));
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        if !takes_value(&flag) {
            if inline.is_some() {
                return err(format!("{flag}: takes no value"));
            }
            out.push((flag, None));
            continue;
        }
        let value = match inline {
            Some(v) => Some(v),
            None => match rest.get(i) {
                Some(v) if !v.starts_with("--") => {
                    i += 1;
                    Some(v.clone())
                }
                _ => None,
            },
        };
        out.push((flag, value));
    }
    Ok(out)
}

/// The allowed values of a herd key, as core's own message states them.
fn herd_allowed(key: &str) -> String {
    let mut p = HerdParams::default();
    match set_herd_param(&mut p, key, "") {
        Err(e) => match e.message.rsplit_once("allowed") {
            Some((_, a)) => a.trim_start_matches(':').trim().to_string(),
            None => e.message,
        },
        Ok(()) => String::new(),
    }
}

fn range_u64(flag: &str, v: &str, lo: u64, hi: u64) -> Result<u64, CliError> {
    match v.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(n) => err(format!("{flag}: {n} is out of range; allowed {lo}-{hi}")),
        Err(_) => err(format!(
            "{flag}: '{v}' is not a whole number; allowed {lo}-{hi}"
        )),
    }
}

fn parse_sim(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut params = HerdParams::default();
    let mut max_steps = DEFAULT_MAX_STEPS;
    let mut json = false;
    for (flag, value) in flags {
        match flag.as_str() {
            "--json" => json = true,
            "--max-steps" => {
                let lo_hi = format!("1-{}", u64::MAX);
                let v = value.ok_or_else(|| {
                    CliError(format!("--max-steps: missing value; allowed {lo_hi}"))
                })?;
                max_steps = range_u64("--max-steps", &v, 1, u64::MAX)?;
            }
            f => {
                let key = f.trim_start_matches("--");
                if !HERD_KEYS.contains(&key) {
                    return err(format!(
                        "sim herd: unknown flag '{f}'; allowed: {}",
                        sim_flags().join(", ")
                    ));
                }
                let v = value.ok_or_else(|| {
                    CliError(format!(
                        "{f}: missing value; allowed: {}",
                        herd_allowed(key)
                    ))
                })?;
                set_herd_param(&mut params, key, &v)
                    .map_err(|e| CliError(format!("--{}: {}", e.field, e.message)))?;
            }
        }
    }
    let errs = validate_herd(&params);
    if !errs.is_empty() {
        return err(errs
            .iter()
            .map(|e| format!("--{}: {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("\n"));
    }
    Ok(Command::SimHerd {
        params,
        max_steps,
        json,
    })
}

fn parse_threads(v: &str) -> Result<Vec<u32>, CliError> {
    let allowed =
        format!("allowed: a comma-separated list of up to 16 counts, each 1-{MAX_THREADS} (e.g. 2,8,32,128)");
    let mut out = Vec::new();
    for part in v.split(',') {
        match part.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_THREADS).contains(&n) => out.push(n),
            Ok(n) => return err(format!("--threads: {n} is out of range; {allowed}")),
            Err(_) => {
                return err(format!(
                    "--threads: '{v}' is not a list of counts; {allowed}"
                ))
            }
        }
    }
    if out.len() > 16 {
        return err(format!(
            "--threads: {} counts is too many; {allowed}",
            out.len()
        ));
    }
    Ok(out)
}

fn parse_bench(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut threads = None;
    let mut events = None;
    let mut quick = false;
    let mut json = false;
    for (flag, value) in flags {
        match flag.as_str() {
            "--json" => json = true,
            "--quick" => quick = true,
            "--threads" => {
                let v = value.ok_or_else(|| {
                    CliError(format!(
                        "--threads: missing value; allowed: a comma-separated list of counts, each 1-{MAX_THREADS} (e.g. 2,8,32,128)"
                    ))
                })?;
                threads = Some(parse_threads(&v)?);
            }
            "--events" => {
                let v = value.ok_or_else(|| {
                    CliError(format!("--events: missing value; allowed 1-{MAX_EVENTS}"))
                })?;
                events = Some(range_u64("--events", &v, 1, MAX_EVENTS as u64)? as u32);
            }
            f => {
                return err(format!(
                    "bench herd: unknown flag '{f}'; allowed: {}",
                    BENCH_FLAGS.join(", ")
                ))
            }
        }
    }
    let (dt, de) = if quick {
        (QUICK_THREADS.to_vec(), QUICK_EVENTS)
    } else {
        (DEFAULT_THREADS.to_vec(), DEFAULT_EVENTS)
    };
    Ok(Command::BenchHerd {
        threads: threads.unwrap_or(dt),
        events: events.unwrap_or(de),
        json,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::herd::{Primitive, WakeMode};
    use herdlab_core::sim::arrivals::ArrivalPattern;

    fn p(s: &str) -> Result<Command, CliError> {
        parse(s.split_whitespace())
    }

    fn msg(s: &str) -> String {
        p(s).unwrap_err().0
    }

    #[test]
    fn help_in_every_spelling() {
        for s in [
            "help",
            "--help",
            "-h",
            "sim --help",
            "sim herd --help",
            "bench herd -h",
        ] {
            assert_eq!(p(s), Ok(Command::Help), "{s}");
        }
    }

    #[test]
    fn sim_flags_reach_the_params() {
        let c = p(
            "sim herd --workers 16 --cpus=4 --mode exclusive --arrival poisson --rate 1000000 \
                   --connections 200 --service 0 --primitive futex --seed 7 --max-steps 99 --json",
        )
        .unwrap();
        let Command::SimHerd {
            params,
            max_steps,
            json,
        } = c
        else {
            panic!("{c:?}")
        };
        assert_eq!(params.workers, 16);
        assert_eq!(params.cpus, 4);
        assert_eq!(params.mode, WakeMode::Exclusive);
        assert_eq!(params.arrival, ArrivalPattern::Poisson);
        assert_eq!(params.rate, 1_000_000);
        assert_eq!(params.connections, 200);
        assert_eq!(params.service_ns, 0);
        assert_eq!(params.primitive, Primitive::Futex);
        assert_eq!(params.seed, 7);
        assert_eq!(max_steps, 99);
        assert!(json);
    }

    #[test]
    fn sim_defaults_are_cores() {
        assert_eq!(
            p("sim herd"),
            Ok(Command::SimHerd {
                params: HerdParams::default(),
                max_steps: DEFAULT_MAX_STEPS,
                json: false
            })
        );
    }

    #[test]
    fn bad_values_name_the_flag_and_the_allowed_values() {
        assert_eq!(
            msg("sim herd --mode bogus"),
            "--mode: 'bogus' is not allowed; allowed: wake-all, exclusive, lifo-exclusive"
        );
        assert!(
            msg("sim herd --workers 999").contains("--workers: 999 is out of range; allowed 1-64")
        );
        assert!(msg("sim herd --cpus x").contains("allowed 1-16"));
        let m = msg("sim herd --primitive futex --mode lifo-exclusive");
        assert!(
            m.starts_with("--mode: lifo-exclusive needs primitive=accept"),
            "{m}"
        );
    }

    #[test]
    fn missing_values_name_the_allowed_values() {
        assert_eq!(
            msg("sim herd --mode"),
            "--mode: missing value; allowed: wake-all, exclusive, lifo-exclusive"
        );
        assert_eq!(
            msg("sim herd --workers --json"),
            "--workers: missing value; allowed: 1-64"
        );
        assert!(msg("bench herd --events").contains("allowed 1-10000"));
        assert!(msg("sim herd --max-steps").contains("--max-steps: missing value"));
    }

    #[test]
    fn unknown_things_are_refused() {
        assert_eq!(
            msg("bogus"),
            "'bogus' is not a command; allowed: sim, bench, help"
        );
        assert!(msg("").contains("missing command"));
        assert_eq!(msg("sim"), "sim: missing mechanism; allowed: herd");
        assert_eq!(
            msg("bench lock"),
            "bench: 'lock' is not a mechanism; allowed: herd"
        );
        let m = msg("sim herd --bogus 1");
        assert!(
            m.contains("unknown flag '--bogus'") && m.contains("--workers"),
            "{m}"
        );
        assert!(
            msg("bench herd --workers 3").contains("allowed: --threads, --events, --quick, --json")
        );
        assert!(msg("sim herd workers").contains("unexpected argument 'workers'"));
        assert_eq!(msg("sim herd --json=yes"), "--json: takes no value");
    }

    #[test]
    fn bench_defaults_quick_and_lists() {
        assert_eq!(
            p("bench herd"),
            Ok(Command::BenchHerd {
                threads: vec![2, 8, 32, 128],
                events: 200,
                json: false
            })
        );
        assert_eq!(
            p("bench herd --quick --json"),
            Ok(Command::BenchHerd {
                threads: vec![2, 8, 32],
                events: 50,
                json: true
            })
        );
        assert_eq!(
            p("bench herd --quick --threads 4,16 --events 10"),
            Ok(Command::BenchHerd {
                threads: vec![4, 16],
                events: 10,
                json: false
            })
        );
        assert!(msg("bench herd --threads 2,x").contains("not a list of counts"));
        assert!(msg("bench herd --threads 0").contains("out of range"));
        assert!(msg("bench herd --events 10001").contains("allowed 1-10000"));
    }
}
