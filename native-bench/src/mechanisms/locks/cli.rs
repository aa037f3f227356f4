//! The locks' subcommands: `sim locks`, `bench locks`, and `check <lock>` for each lock.

use std::process::ExitCode;

use clap::{Arg, ArgMatches};
use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
use herdlab_core::mechanisms::locks::{LockKind, LockParams};

use super::native::{self, BenchLock, Form};
use super::{bench, check, sim, Locks};
use crate::check::progress_wanted;
use crate::cli::{
    self, flag, json, key_args, list, ranged, refused, subcommand, switch, CliError, KeyFlag,
};
use crate::mechanisms::NativeMechanism;
use crate::output::print_json;

/// The scenario flags of `sim locks`.
const SIM_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("lock"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("threads"),
    KeyFlag::Key("rounds"),
    KeyFlag::Key("cpus"),
    KeyFlag::Key("spin"),
    KeyFlag::Sets("semaphore", "no-semaphore", "off"),
    KeyFlag::Sets("crash", "crash", "on"),
    KeyFlag::Sets("master", "no-master", "off"),
    KeyFlag::Key("yield"),
    KeyFlag::Key("cs"),
    KeyFlag::Key("seed"),
];

/// The scenario flags of `check <lock>` (those only shmtx or spin-yield has are refused for the
/// other locks).
const CHECK_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("variant"),
    KeyFlag::Key("threads"),
    KeyFlag::Key("rounds"),
    KeyFlag::Key("spin"),
    KeyFlag::Key("cpus"),
    KeyFlag::Sets("semaphore", "no-semaphore", "off"),
    KeyFlag::Sets("crash", "crash", "on"),
    KeyFlag::Sets("master", "no-master", "off"),
    KeyFlag::Key("yield"),
];

const SIM_ABOUT: &str = "\
Run a lock scenario headless on the simulated platform to the end: steps, acquisitions,
failed CAS, pauses, semaphore sleeps and posts, yields, context switches, simulated and
CPU time, acquisitions per thread with the least and most served shares, and the first
lock invariant broken, if any. Defaults: shmtx, correct, 4 threads x 20 rounds, 2 cpus,
spin 2048 (nginx), semaphore on, yield after 64, cs 100 ns, seed 1.
--crash (shmtx): thread 0 dies holding the lock in its first round; a master process reaps
it and runs ngx_shmtx_force_unlock with its pid (--no-master: nobody does, and the others
wait forever).";

const CHECK_ABOUT: &str = "\
Model-check a lock: every interleaving of its threads, each shared-memory operation one
atomic step, with mutual exclusion, wakeup accounting (wait + semaphore + posting
unlockers == announced sleepers; shmtx with a semaphore), semaphore overflow, and no lost
wakeup or deadlock where nothing can run. Exit 0: every invariant holds and the search was
complete; 1: an invariant broke (the shortest schedule is printed step by step, with a
link to the lesson at that schedule), or the state limit was reached first (incomplete);
2: bad arguments.
Defaults: 3 threads x 2 rounds, --spin 2048 (nginx's), --cpus 2 (1 disables the spin
phase), semaphore on, --yield 4, no preemption bound, --max-states 20000000. A probe that
fails changes no shared word, so the checker runs the rest of a failed spin as one step:
every --spin of 2 or more has the same states (336,237 for 3 threads x 2 rounds), and a
counterexample step on the spin line stands for all its probes.
Variants of shmtx (--list-variants): correct, no-wait-decrement, announce-after-check,
unlock-reads-wait-first, plain-load-store, seed-listing. The other locks have only correct.";

const BENCH_ABOUT: &str = "\
Run core's lock machines (shmtx, ttas, spin-yield, ticket, futex) on real threads through
the native platform, beside std::sync::Mutex and parking_lot::Mutex, in one run. Threads:
1, 2, the cores and 4x the cores (oversubscribed); critical sections of 0, 100 and
1000 ns of busy work; each row runs for 300 ms (--quick: 100 ms, or --ms N) and every
thread stops at its next round after the deadline. Every critical section also increments
a protected counter with a plain load and store; it must equal the acquisitions (no lost
update), or the run fails. Layouts: padded (the lock's words and the counter each on their
own 128-byte line) and packed (all on one line: the false-sharing demonstration, each
holder's counter write invalidates the line the waiters spin on). shmtx runs as nginx
configures it: spin 2048, ngx_ncpu = the cores, the semaphore on.
Forms: core's machines run as their step table's straight-line form (default: the
state in a local, the primitives inlined); --form stepped runs them one operation at a
time, as the simulator steps them (what stepping costs); --form both gives both rows side
by side, the stepped ones named shmtx (stepped) (JSON key form: straight, stepped, or
library for std and parking_lot).
Columns: ops/s, min/max share of acquisitions, sleeps (sem_wait/futex_wait sleeps; for
std and parking_lot their voluntary context switches), spins (pauses), yields, nvcsw,
wait p50/p99 (ns from starting to lock to holding it, one acquisition in 16 timed).";

/// `sim locks`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimArgs {
    /// The scenario.
    pub params: LockParams,
    /// The step bound.
    pub max_steps: u64,
    /// Print JSON instead of a table.
    pub json: bool,
}

/// `check <lock>`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckArgs {
    /// Check the scenario.
    Check {
        /// The scenario.
        params: LockParams,
        /// The search's bounds.
        config: CheckConfig,
        /// Print JSON instead of text.
        json: bool,
    },
    /// `--list-variants`: print the lock's variants.
    ListVariants {
        /// The lock.
        lock: LockKind,
    },
}

/// Parse `sim locks`'s flags.
pub fn sim_args(m: &ArgMatches) -> Result<SimArgs, CliError> {
    let mut params = LockParams::default();
    cli::apply_keys::<Locks>(&mut params, SIM_KEYS, m)?;
    cli::validated::<Locks>(&params, SIM_KEYS)?;
    Ok(SimArgs {
        params,
        max_steps: cli::value(m, "max-steps").unwrap_or(sim::DEFAULT_MAX_STEPS),
        json: cli::on(m, "json"),
    })
}

/// Parse `check <lock>`'s flags.
pub fn check_args(lock: LockKind, m: &ArgMatches) -> Result<CheckArgs, CliError> {
    let mut params = check::default_params(lock);
    let keys: Vec<KeyFlag> = CHECK_KEYS
        .iter()
        .copied()
        .filter(|f| takes(lock, f.key()))
        .collect();
    cli::apply_keys::<Locks>(&mut params, &keys, m)?;
    cli::validated::<Locks>(&params, &keys)?;
    if cli::on(m, "list-variants") {
        return Ok(CheckArgs::ListVariants { lock });
    }
    Ok(CheckArgs::Check {
        params,
        config: cli::check_config(m),
        json: cli::on(m, "json"),
    })
}

/// Parse `bench locks`'s flags.
pub fn bench_args(m: &ArgMatches) -> (bench::LockBenchConfig, bool) {
    let mut config = bench::LockBenchConfig::new(cli::on(m, "quick"));
    if let Some(t) = cli::value(m, "threads") {
        config.threads = t;
    }
    if let Some(l) = cli::value(m, "locks") {
        config.locks = l;
    }
    if let Some(c) = cli::value(m, "cs") {
        config.cs_ns = c;
    }
    if let Some(l) = cli::value(m, "layout") {
        config.padded = l;
    }
    if let Some(ms) = cli::value(m, "ms") {
        config.row_ms = ms;
    }
    if let Some(f) = cli::value(m, "form") {
        config.forms = f;
    }
    (config, cli::on(m, "json"))
}

/// Whether `check <lock>` takes the key: the spin, the semaphore and the crash are shmtx's, the
/// yield threshold spin-yield's.
fn takes(lock: LockKind, key: &str) -> bool {
    match key {
        "spin" | "semaphore" | "crash" | "master" => lock == LockKind::Shmtx,
        "yield" => lock == LockKind::SpinYield,
        _ => true,
    }
}

/// What only one lock has, as the refusal says it.
fn only(key: &str) -> (&'static str, &'static str) {
    match key {
        "spin" => ("a spin count", "shmtx"),
        "semaphore" => ("a semaphore", "shmtx"),
        "yield" => ("a yield threshold", "spin-yield"),
        _ => ("a crash scenario (force_unlock)", "shmtx"),
    }
}

/// `check <lock>`.
fn check_command(lock: LockKind) -> clap::Command {
    let keys: Vec<KeyFlag> = CHECK_KEYS
        .iter()
        .copied()
        .filter(|f| takes(lock, f.key()))
        .collect();
    let visible: Vec<Arg> = key_args::<Locks>(&keys)
        .into_iter()
        .chain(cli::bounds())
        .chain([
            json(),
            switch(
                "list-variants",
                "print the lock's variants and what each breaks",
            ),
        ])
        .collect();
    let allowed = visible
        .iter()
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect::<Vec<_>>()
        .join(", ");
    let refusals = CHECK_KEYS
        .iter()
        .filter(|f| !takes(lock, f.key()))
        .map(|f| {
            let (what, who) = only(f.key());
            refused(
                Box::leak(f.long().into_boxed_str()),
                format!(
                    "only {who} has {what}; {} does not (allowed flags: {allowed})",
                    lock.name()
                ),
            )
        });
    let (about, example) = match lock {
        LockKind::Shmtx => (
            "Model-check nginx's ngx_shmtx",
            "herdlab check shmtx --variant announce-after-check --threads 2",
        ),
        LockKind::Ttas => ("Model-check test-and-test-and-set", "herdlab check ttas"),
        LockKind::SpinYield => (
            "Model-check the spin-then-yield lock",
            "herdlab check spin-yield --yield 2",
        ),
        LockKind::Ticket => ("Model-check the ticket lock", "herdlab check ticket"),
        LockKind::Futex => (
            "Model-check the futex mutex",
            "herdlab check futex --threads 2",
        ),
    };
    subcommand(
        lock.name(),
        about,
        CHECK_ABOUT,
        example,
        visible.into_iter().chain(refusals),
    )
    .display_order(0)
}

/// The lines of `check <lock> --list-variants`: each variant's name, then its story.
pub fn variant_lines(lock: LockKind) -> Vec<String> {
    if lock != LockKind::Shmtx {
        return vec![format!(
            "correct  {} has no broken variants here (they belong to shmtx)",
            lock.name()
        )];
    }
    let w = ShmtxVariant::ALL
        .iter()
        .map(|v| v.name().len())
        .max()
        .unwrap_or(0);
    ShmtxVariant::ALL
        .iter()
        .map(|v| format!("{:<w$}  {}", v.name(), v.story()))
        .collect()
}

/// `--layout`, `--form`: one name of `names`, each naming a list of values.
fn named_list<T: Clone + Send + Sync + 'static>(
    long: &'static str,
    help: &str,
    names: &'static str,
    one: impl Fn(&str) -> Option<Vec<T>> + Send + Sync + 'static,
) -> Arg {
    flag(long, help, format!("allowed: {names}"), move |v| {
        one(v).ok_or_else(|| {
            format!(
                "'{}' is not allowed; allowed: {names}",
                herdlab_core::mechanism::shown(v)
            )
        })
    })
}

impl NativeMechanism for Locks {
    fn sim_command() -> clap::Command {
        subcommand(
            "locks",
            "Run a lock scenario headless on the simulated platform",
            SIM_ABOUT,
            "herdlab sim locks --lock ticket --threads 8 --rounds 50 --cs 0",
            key_args::<Locks>(SIM_KEYS)
                .into_iter()
                .chain([cli::max_steps(), json()]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let report = sim::run_locks(&a.params, a.max_steps);
        Ok(if a.json {
            print_json(&report, false)
        } else {
            print!("{}", sim::render_locks(&report));
            ExitCode::SUCCESS
        })
    }

    fn bench_command() -> clap::Command {
        subcommand(
            "locks",
            "Run core's lock machines on real threads beside std and parking_lot",
            BENCH_ABOUT,
            "herdlab bench locks --quick --locks shmtx,std --threads 8 --cs 0",
            [
                switch("quick", "100 ms per row"),
                json(),
                cli::threads_list(
                    "thread counts, comma-separated (default 1, 2, the cores, 4x the cores)",
                    native::MAX_THREADS,
                    "1,2,8",
                ),
                list(
                    "locks",
                    "the locks, comma-separated (default all)",
                    format!("a comma-separated list of {}", BenchLock::names()),
                    BenchLock::from_name,
                ),
                list(
                    "cs",
                    "critical sections, ns of busy work, comma-separated (default 0,100,1000)",
                    "a comma-separated list of nanoseconds, each 0-10000000".to_string(),
                    |s| s.parse::<u64>().ok().filter(|&n| n <= 10_000_000),
                ),
                named_list(
                    "layout",
                    "padded, packed or both (default both)",
                    "padded, packed, both",
                    |v| match v {
                        "padded" => Some(vec![true]),
                        "packed" => Some(vec![false]),
                        "both" => Some(vec![true, false]),
                        _ => None,
                    },
                ),
                ranged(
                    "ms",
                    "milliseconds per row (default 300; --quick 100)",
                    1,
                    60_000,
                ),
                named_list(
                    "form",
                    "straight, stepped or both (default straight)",
                    "straight, stepped, both",
                    |v| match v {
                        "both" => Some(Form::ALL.to_vec()),
                        name => Form::from_name(name).map(|f| vec![f]),
                    },
                ),
            ],
        )
    }

    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let (config, json) = bench_args(m);
        Ok(match bench::run_locks(&config, true) {
            Ok(rows) => {
                if json {
                    print_json(&rows, true)
                } else {
                    print!("{}", bench::render_locks(&rows));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("herdlab: bench locks: {e}");
                ExitCode::FAILURE
            }
        })
    }

    fn check_commands() -> Vec<clap::Command> {
        LockKind::ALL.into_iter().map(check_command).collect()
    }

    fn check(name: &str, m: &ArgMatches) -> Result<ExitCode, CliError> {
        let lock = LockKind::from_name(name).expect("a lock's subcommand");
        match check_args(lock, m)? {
            CheckArgs::ListVariants { lock } => {
                for l in variant_lines(lock) {
                    println!("{l}");
                }
                Ok(ExitCode::SUCCESS)
            }
            CheckArgs::Check {
                params,
                config,
                json,
            } => {
                let out = check::run(&params, &config, progress_wanted());
                let code = ExitCode::from(out.exit_code());
                if json {
                    if print_json(&out, false) != ExitCode::SUCCESS {
                        return Ok(ExitCode::FAILURE);
                    }
                } else {
                    print!("{}", check::render(&params, &config, &out));
                }
                Ok(code)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::tests::{matches, msg};

    fn sim(s: &str) -> Result<SimArgs, CliError> {
        sim_args(&matches(s)?)
    }

    fn check(s: &str) -> Result<CheckArgs, CliError> {
        let lock = LockKind::from_name(s.split_whitespace().nth(1).unwrap()).unwrap();
        check_args(lock, &matches(s)?)
    }

    fn bench(s: &str) -> (bench::LockBenchConfig, bool) {
        bench_args(&matches(s).unwrap())
    }

    #[test]
    fn sim_locks_flags_reach_the_params() {
        let SimArgs {
            params,
            max_steps,
            json,
        } = sim("sim locks --lock ticket --threads 8 --rounds 7 --cpus 3 --cs 0 --seed 9 --json")
            .unwrap();
        assert_eq!(params.lock, LockKind::Ticket);
        assert_eq!((params.threads, params.rounds, params.cpus), (8, 7, 3));
        assert_eq!((params.cs_ns, params.seed), (0, 9));
        assert_eq!(max_steps, sim::DEFAULT_MAX_STEPS);
        assert!(json);
        let SimArgs { params, .. } =
            sim("sim locks --variant seed-listing --spin 16 --no-semaphore --yield 3").unwrap();
        assert_eq!(params.variant, ShmtxVariant::SeedListing);
        assert_eq!(
            (params.spin, params.semaphore, params.yield_after),
            (16, false, 3)
        );
        let SimArgs { params, .. } = sim("sim locks --crash --no-master").unwrap();
        assert!(params.crash && !params.master);
        assert_eq!(
            sim("sim locks"),
            Ok(SimArgs {
                params: LockParams::default(),
                max_steps: sim::DEFAULT_MAX_STEPS,
                json: false
            })
        );
    }

    #[test]
    fn sim_locks_refusals_name_the_allowed_values() {
        assert_eq!(
            msg("sim locks --lock mcs"),
            "--lock: 'mcs' is not allowed; allowed: shmtx, ttas, spin-yield, ticket, futex"
        );
        assert!(msg("sim locks --threads 17").contains("allowed 1-16"));
        assert!(sim("sim locks --lock ttas --variant plain-load-store")
            .unwrap_err()
            .0
            .starts_with("--variant: plain-load-store is a variant of shmtx"));
        assert!(
            msg("sim locks --variant").starts_with("--variant: missing value; allowed: correct")
        );
        assert!(msg("sim locks --bogus").contains("unknown flag '--bogus'"));
        assert_eq!(
            msg("sim locks --no-semaphore=1"),
            "--no-semaphore: takes no value"
        );
    }

    #[test]
    fn check_defaults_and_flags() {
        let CheckArgs::Check {
            params,
            config,
            json,
        } = check("check shmtx").unwrap()
        else {
            panic!()
        };
        assert_eq!(params, check::default_params(LockKind::Shmtx));
        assert_eq!(
            (params.threads, params.rounds, params.spin, params.cpus),
            (3, 2, 2048, 2)
        );
        assert_eq!(config, CheckConfig::default());
        assert!(!json);
        let CheckArgs::Check {
            params,
            config,
            json,
        } = check(
            "check shmtx --threads 2 --rounds 3 --variant no-wait-decrement --spin 2048 --cpus 1 \
             --no-semaphore --preemption-bound 2 --max-states 5000 --json",
        )
        .unwrap()
        else {
            panic!()
        };
        assert_eq!(params.variant, ShmtxVariant::NoWaitDecrement);
        assert_eq!(
            (params.threads, params.rounds, params.spin, params.cpus),
            (2, 3, 2048, 1)
        );
        assert!(!params.semaphore);
        assert_eq!(config.preemption_bound, Some(2));
        assert_eq!(config.max_states, 5000);
        assert!(json);
        let CheckArgs::Check { params, .. } = check("check spin-yield --yield 9").unwrap() else {
            panic!()
        };
        assert_eq!((params.lock, params.yield_after), (LockKind::SpinYield, 9));
        assert_eq!(
            check("check shmtx --list-variants"),
            Ok(CheckArgs::ListVariants {
                lock: LockKind::Shmtx
            })
        );
    }

    #[test]
    fn check_refusals() {
        assert_eq!(
            msg("check"),
            "check: missing lock; allowed: shmtx, ttas, spin-yield, ticket, futex, herd, accept-mutex, accept, pool, gmp, mysql"
        );
        assert_eq!(
            msg("check mcs"),
            "check: 'mcs' is not a lock or mechanism; allowed: shmtx, ttas, spin-yield, ticket, futex, herd, accept-mutex, accept, pool, gmp, mysql"
        );
        assert!(msg("check shmtx --variant nope").contains("allowed: correct, no-wait-decrement"));
        assert!(check("check ttas --variant seed-listing")
            .unwrap_err()
            .0
            .contains("ttas takes correct"));
        assert!(msg("check shmtx --threads 0").contains("allowed 1-16"));
        assert!(msg("check shmtx --spin 0").contains("allowed 1-65536"));
        assert!(msg("check shmtx --max-states 0").contains("allowed 1-1000000000"));
        assert!(msg("check shmtx --preemption-bound x").contains("not a whole number"));
        assert!(msg("check ticket --spin 4").starts_with("--spin: only shmtx has a spin count"));
        assert!(msg("check futex --no-semaphore").contains("only shmtx has a semaphore"));
        assert!(msg("check shmtx --yield 2").contains("only spin-yield"));
        assert_eq!(
            msg("check ttas --crash"),
            "--crash: only shmtx has a crash scenario (force_unlock); ttas does not (allowed \
             flags: --variant, --threads, --rounds, --cpus, --preemption-bound, --max-states, \
             --json, --list-variants)"
        );
        let m = msg("check shmtx --cs 5");
        assert!(
            m.contains("unknown flag '--cs'") && m.contains("--preemption-bound"),
            "{m}"
        );
    }

    #[test]
    fn variant_lines_start_with_correct() {
        let v = variant_lines(LockKind::Shmtx);
        assert_eq!(v.len(), 6);
        assert!(v[0].starts_with("correct "));
        for (line, var) in v.iter().zip(ShmtxVariant::ALL) {
            assert!(line.starts_with(var.name()), "{line}");
            assert!(line.ends_with(var.story()), "{line}");
        }
        assert_eq!(variant_lines(LockKind::Ttas).len(), 1);
    }

    #[test]
    fn bench_locks_defaults_and_lists() {
        let (config, json) = bench("bench locks");
        assert!(!json);
        assert_eq!(config.row_ms, 300);
        assert_eq!(config.locks.len(), 7);
        assert_eq!(config.cs_ns, vec![0, 100, 1000]);
        assert_eq!(config.padded, vec![true, false]);
        let c = native::cores() as u32;
        assert!(config.threads.contains(&1) && config.threads.contains(&(4 * c)));
        let (config, json) = bench(
            "bench locks --quick --json --threads 3,5 --locks shmtx,std --cs 0,50 --layout packed",
        );
        assert!(json);
        assert_eq!(config.row_ms, 100);
        assert_eq!(config.threads, vec![3, 5]);
        assert_eq!(
            config.locks,
            vec![BenchLock::Core(LockKind::Shmtx), BenchLock::Std]
        );
        assert_eq!(config.cs_ns, vec![0, 50]);
        assert_eq!(config.padded, vec![false]);
        assert_eq!(config.runs().len(), 8);
        let (config, _) = bench("bench locks --form both --ms 7");
        assert_eq!((config.forms, config.row_ms), (Form::ALL.to_vec(), 7));
        assert!(msg("bench locks --locks shmtx,mcs").contains("'mcs' is not allowed"));
        assert!(msg("bench locks --threads 0").contains("out of range"));
        assert!(msg("bench locks --layout diagonal").contains("allowed: padded, packed, both"));
        assert_eq!(
            msg("bench locks --form"),
            "--form: missing value; allowed: straight, stepped, both"
        );
        assert!(msg("bench locks --events 3").contains("unknown flag '--events'"));
    }
}
