//! The herd's subcommands: `sim herd`, `bench herd`, `check herd`.

use std::process::ExitCode;

use clap::ArgMatches;
use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::herd::HerdParams;

use super::{bench, check, native, sim, Herd};
use crate::check::progress_wanted;
use crate::cli::{self, json, key_args, ranged, refused, subcommand, switch, CliError, KeyFlag};
use crate::mechanisms::NativeMechanism;
use crate::output::print_json;

/// The scenario flags of `sim herd`: every key.
const SIM_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("workers"),
    KeyFlag::Key("cpus"),
    KeyFlag::Key("mode"),
    KeyFlag::Key("arrival"),
    KeyFlag::Key("burst"),
    KeyFlag::Key("rate"),
    KeyFlag::Key("connections"),
    KeyFlag::Key("service"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("primitive"),
    KeyFlag::Key("seed"),
];

/// The scenario flags of `check herd`: every key but the arrival pattern's.
const CHECK_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("workers"),
    KeyFlag::Key("cpus"),
    KeyFlag::Key("mode"),
    KeyFlag::Key("connections"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("primitive"),
    KeyFlag::Key("service"),
    KeyFlag::Key("seed"),
];

const SIM_ABOUT: &str = "\
Run a herd scenario headless on the simulated platform and print its counters.
Defaults and ranges are those of the scenario table (workers 1-64, cpus 1-16, ...).";

const CHECK_ABOUT: &str = "\
Model-check a herd scenario on the simulator itself: every interleaving of the workers'
steps (user space and the modelled kernel's accept path, line by line) and of the
arrivals, states compared without their time, with no lost wakeup (a connection waits in
the accept queue while every worker sleeps, or nothing can run with work left),
conservation (no more connections taken than arrived; accept) and no deadlock.
The arrival pattern is irrelevant to the checker: the network may deliver each connection
at any point, so every arrival time is explored; --arrival, --burst and --rate are
refused (sim herd takes them). The futex and condvar producer publishes its next job once
every worker sleeps (on-demand), its other steps interleaved with the workers'. --cpus,
--service and --seed do not change the states explored, only the timing of the
simulation the link replays. Exit 0: every invariant holds and the search was complete;
1: an invariant broke (the shortest schedule is printed as `step k: worker t: <line>` and
`step k: network: connection c arrives; the wake walk wakes ...`, with a link to the
thundering-herd lesson at that schedule), or the state limit was reached first
(incomplete); 2: bad arguments.
Defaults: 2 workers, --cpus 2, --mode exclusive, 2 connections, correct, accept,
--service 5000, --seed 1, no preemption bound, --max-states 20000000. Sizes: 2 workers x
2 connections ~900 states; 3 x 3 ~70000 states, well under a second.";

const BENCH_ABOUT: &str = "\
Run core's herd machines on real threads (Linux): futex wake-all/wake-one,
condvar notify_all/notify_one, and a blocking accept on a loopback listener.
Default: 200 events per row; --quick: 50 events, threads 2,8,32.";

/// `sim herd`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimArgs {
    /// The scenario.
    pub params: HerdParams,
    /// The step bound.
    pub max_steps: u64,
    /// Print JSON instead of a table.
    pub json: bool,
}

/// `bench herd`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchArgs {
    /// Worker thread counts, one row set each.
    pub threads: Vec<u32>,
    /// Events per row.
    pub events: u32,
    /// Print JSON instead of a table.
    pub json: bool,
}

/// `check herd`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckArgs {
    /// The scenario (its arrival pattern is ignored: the checker explores every arrival time).
    pub params: HerdParams,
    /// The search's bounds.
    pub config: CheckConfig,
    /// Print JSON instead of text.
    pub json: bool,
}

/// Parse `sim herd`'s flags.
pub fn sim_args(m: &ArgMatches) -> Result<SimArgs, CliError> {
    let mut params = HerdParams::default();
    cli::apply_keys::<Herd>(&mut params, SIM_KEYS, m)?;
    cli::validated::<Herd>(&params, SIM_KEYS)?;
    Ok(SimArgs {
        params,
        max_steps: cli::value(m, "max-steps").unwrap_or(sim::DEFAULT_MAX_STEPS),
        json: cli::on(m, "json"),
    })
}

/// Parse `bench herd`'s flags.
pub fn bench_args(m: &ArgMatches) -> BenchArgs {
    let quick = cli::on(m, "quick");
    let (threads, events) = if quick {
        (bench::QUICK_THREADS.to_vec(), bench::QUICK_EVENTS)
    } else {
        (bench::DEFAULT_THREADS.to_vec(), bench::DEFAULT_EVENTS)
    };
    BenchArgs {
        threads: cli::value(m, "threads").unwrap_or(threads),
        events: cli::value::<u64>(m, "events").map_or(events, |e| e as u32),
        json: cli::on(m, "json"),
    }
}

/// Parse `check herd`'s flags.
pub fn check_args(m: &ArgMatches) -> Result<CheckArgs, CliError> {
    let mut params = check::default_params();
    cli::apply_keys::<Herd>(&mut params, CHECK_KEYS, m)?;
    cli::validated::<Herd>(&params, CHECK_KEYS)?;
    Ok(CheckArgs {
        params,
        config: cli::check_config(m),
        json: cli::on(m, "json"),
    })
}

impl NativeMechanism for Herd {
    fn sim_command() -> clap::Command {
        subcommand(
            "herd",
            "Run a herd scenario headless on the simulated platform",
            SIM_ABOUT,
            "herdlab sim herd --workers 8 --mode exclusive --connections 100",
            key_args::<Herd>(SIM_KEYS)
                .into_iter()
                .chain([cli::max_steps(), json()]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let report = sim::run(&a.params, a.max_steps);
        Ok(if a.json {
            print_json(&report, false)
        } else {
            print!("{}", sim::render(&report));
            ExitCode::SUCCESS
        })
    }

    fn bench_command() -> clap::Command {
        subcommand(
            "herd",
            "Run core's herd machines on real threads",
            BENCH_ABOUT,
            "herdlab bench herd --quick --json",
            [
                cli::threads_list(
                    "worker thread counts, comma-separated (default 2,8,32,128)",
                    native::MAX_THREADS,
                    "2,8,32,128",
                ),
                ranged(
                    "events",
                    "events per row (default 200)",
                    1,
                    native::MAX_EVENTS as u64,
                ),
                switch("quick", "50 events, threads 2,8,32"),
                json(),
            ],
        )
    }

    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = bench_args(m);
        Ok(match bench::run(&a.threads, a.events, true) {
            Ok(rows) => {
                if a.json {
                    print_json(&rows, true)
                } else {
                    print!("{}", bench::render(&rows));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("herdlab: bench herd: {e}");
                ExitCode::FAILURE
            }
        })
    }

    fn check_commands() -> Vec<clap::Command> {
        let no_arrival = |f: &'static str| {
            refused(
                f,
                format!(
                    "check herd takes no arrival pattern: the checker lets the network \
                     deliver each connection at any point, so every arrival time is explored \
                     (the futex and condvar producer publishes its next job once every worker \
                     sleeps); drop --{f} (sim herd takes --arrival, --burst and --rate)"
                ),
            )
        };
        vec![subcommand(
            "herd",
            "Model-check a herd scenario on the simulator itself",
            CHECK_ABOUT,
            "herdlab check herd --workers 3 --connections 3 --mode wake-all",
            key_args::<Herd>(CHECK_KEYS)
                .into_iter()
                .chain(cli::bounds())
                .chain([
                    json(),
                    no_arrival("arrival"),
                    no_arrival("burst"),
                    no_arrival("rate"),
                ]),
        )
        .display_order(1)]
    }

    fn check(_name: &str, m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = check_args(m)?;
        let out = check::run(&a.params, &a.config, progress_wanted());
        let code = ExitCode::from(out.exit_code());
        if a.json {
            if print_json(&out, false) != ExitCode::SUCCESS {
                return Ok(ExitCode::FAILURE);
            }
        } else {
            print!("{}", check::render(&a.params, &a.config, &out));
        }
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::tests::{matches, msg};
    use herdlab_core::mechanisms::herd::{Primitive, WakeMode};
    use herdlab_core::sim::arrivals::ArrivalPattern;

    fn sim(s: &str) -> Result<SimArgs, CliError> {
        sim_args(&matches(s)?)
    }

    fn bench(s: &str) -> BenchArgs {
        bench_args(&matches(s).unwrap())
    }

    fn check(s: &str) -> Result<CheckArgs, CliError> {
        check_args(&matches(s)?)
    }

    /// A refusal, whether clap's or the mechanism's.
    fn refusal(s: &str) -> String {
        match matches(s) {
            Err(e) => e.0,
            Ok(m) => match s.split_whitespace().next() {
                Some("sim") => sim_args(&m).unwrap_err().0,
                _ => check_args(&m).unwrap_err().0,
            },
        }
    }

    #[test]
    fn sim_flags_reach_the_params() {
        let SimArgs {
            params,
            max_steps,
            json,
        } = sim(
            "sim herd --workers 16 --cpus=4 --mode exclusive --arrival poisson --rate 1000000 \
                   --connections 200 --service 0 --primitive futex --seed 7 --max-steps 99 --json",
        )
        .unwrap();
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
    fn the_last_of_a_repeated_flag_counts() {
        assert_eq!(
            sim("sim herd --workers 3 --workers 5")
                .unwrap()
                .params
                .workers,
            5
        );
    }

    #[test]
    fn sim_defaults_are_cores() {
        assert_eq!(
            sim("sim herd"),
            Ok(SimArgs {
                params: HerdParams::default(),
                max_steps: sim::DEFAULT_MAX_STEPS,
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
        let m = refusal("sim herd --primitive futex --mode lifo-exclusive");
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
    fn bench_defaults_quick_and_lists() {
        assert_eq!(
            bench("bench herd"),
            BenchArgs {
                threads: vec![2, 8, 32, 128],
                events: 200,
                json: false
            }
        );
        assert_eq!(
            bench("bench herd --quick --json"),
            BenchArgs {
                threads: vec![2, 8, 32],
                events: 50,
                json: true
            }
        );
        assert_eq!(
            bench("bench herd --quick --threads 4,16 --events 10"),
            BenchArgs {
                threads: vec![4, 16],
                events: 10,
                json: false
            }
        );
        assert!(msg("bench herd --threads 2,x").contains("not a list of counts"));
        assert!(msg("bench herd --threads 0").contains("out of range"));
        assert!(msg("bench herd --events 10001").contains("allowed 1-10000"));
        assert!(msg("bench herd --threads").starts_with(
            "--threads: missing value; allowed: a comma-separated list of counts, each 1-1024"
        ));
    }

    #[test]
    fn check_herd_defaults_and_flags() {
        assert_eq!(
            check("check herd"),
            Ok(CheckArgs {
                params: check::default_params(),
                config: CheckConfig::default(),
                json: false
            })
        );
        let d = check::default_params();
        assert_eq!(
            (d.workers, d.cpus, d.mode, d.connections),
            (2, 2, WakeMode::Exclusive, 2)
        );
        assert_eq!(d.primitive, Primitive::Accept);
        let CheckArgs {
            params,
            config,
            json,
        } = check(
            "check herd --workers 3 --cpus 1 --mode wake-all --connections 4 \
             --variant broken-sleeper --service 0 --seed 7 --preemption-bound 2 \
             --max-states 5000 --json",
        )
        .unwrap();
        assert_eq!(
            (params.workers, params.cpus, params.mode, params.connections),
            (3, 1, WakeMode::WakeAll, 4)
        );
        assert_eq!(
            params.variant,
            herdlab_core::mechanisms::herd::Variant::BrokenSleeper
        );
        assert_eq!((params.service_ns, params.seed), (0, 7));
        assert_eq!(config.preemption_bound, Some(2));
        assert_eq!(config.max_states, 5000);
        assert!(json);
        let a = check("check herd --primitive condvar").unwrap();
        assert_eq!(a.params.primitive, Primitive::Condvar);
    }

    #[test]
    fn check_herd_refusals() {
        for f in ["--arrival poisson", "--burst 4", "--rate 100", "--rate"] {
            let m = msg(&format!("check herd {f}"));
            let flag = f.split_whitespace().next().unwrap();
            assert!(
                m.starts_with(&format!("{flag}: check herd takes no arrival pattern")),
                "{m}"
            );
            assert!(m.contains("every arrival time is explored"), "{m}");
        }
        let m = msg("check herd --threads 2");
        assert!(
            m.starts_with("check herd: unknown flag '--threads'") && m.contains("--workers"),
            "{m}"
        );
        assert!(!m.contains("--arrival"), "{m}");
        assert!(msg("check herd --workers 0").contains("allowed 1-64"));
        assert!(msg("check herd --mode bogus").contains("allowed: wake-all, exclusive"));
        assert!(msg("check herd --mode").contains("--mode: missing value; allowed: wake-all"));
        assert!(
            refusal("check herd --primitive futex --mode lifo-exclusive")
                .starts_with("--mode: lifo-exclusive needs primitive=accept")
        );
        assert!(
            refusal("check herd --primitive futex --variant broken-sleeper")
                .starts_with("--variant: broken-sleeper needs primitive=accept")
        );
        assert!(msg("check herd --max-states 0").contains("allowed 1-1000000000"));
        assert!(msg("check herd --preemption-bound x").contains("not a whole number"));
        assert_eq!(msg("check herd --json=1"), "--json: takes no value");
    }
}
