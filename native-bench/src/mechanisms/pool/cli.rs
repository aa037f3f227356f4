//! The pool's subcommands: `sim pool`, `check pool`, `bench pool`.

use std::process::ExitCode;

use clap::ArgMatches;
use herdlab_core::mechanisms::pool::{PoolParams, PoolVariant};

use super::bench::{self, BenchPool};
use super::{check, native, sim, Pool};
use crate::check::progress_wanted;
use crate::cli::{self, json, key_args, list, ranged, subcommand, switch, CliError, KeyFlag};
use crate::mechanisms::NativeMechanism;
use crate::output::print_json;

/// The scenario flags of `sim pool` (`--tasks` is core's `requests` key: each request is a task
/// for the pool when it is a blocking read, `--blocking-pct` of them).
const SIM_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("threads"),
    KeyFlag::As("requests", "tasks"),
    KeyFlag::Key("wake"),
    KeyFlag::Key("max_queue"),
    KeyFlag::Key("offload"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("seed"),
    KeyFlag::Key("task_us"),
    KeyFlag::Key("blocking_pct"),
    KeyFlag::Key("arrival"),
    KeyFlag::Key("rate"),
    KeyFlag::Key("burst"),
    KeyFlag::Key("slots"),
    KeyFlag::Key("cpus"),
    KeyFlag::Key("spin"),
    KeyFlag::Key("spurious"),
];

/// The scenario flags of `check pool` (over core's checker preset).
const CHECK_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("variant"),
    KeyFlag::Key("threads"),
    KeyFlag::As("requests", "tasks"),
    KeyFlag::Key("wake"),
    KeyFlag::Key("max_queue"),
    KeyFlag::Key("slots"),
    KeyFlag::Key("spurious"),
];

const SIM_ABOUT: &str = "\
Run nginx's thread pool headless on the simulated platform to the end: the event loop
takes --tasks requests (core's requests key); --blocking-pct of them are blocking reads of
--task-us that go to the pool (--offload on) or run on the loop (off), the rest are cache
hits. Prints tasks posted (the destroy's exit tasks included), done, queue overflows,
pool thread wakeups and wasted wakeups, completion handler calls, simulated time, the cache
hits' latency (cache_p50_ns, cache_p99_ns, cache_mean_ns: arrival to served, simulated ns)
and the first invariant broken. Defaults: 4 threads, 200 requests, 10% blocking, 1000 us, signal,
max_queue 65536, poisson at 5000/s, 4 cpus, seed 1.";

const CHECK_ABOUT: &str = "\
Model-check nginx's thread pool: every interleaving of the event loop, the pool threads
and the arrivals, each operation one atomic step, against null-deref, queue-shape,
waiting-count, bounded-queue, lost-wakeup, exactly-once, order and shutdown.
Exit 0: every invariant holds and the search was complete; 1: an invariant broke (the
shortest schedule is printed step by step, with the lesson link) or the state limit came
first; 2: bad arguments. Defaults (core's preset): 2 threads, 3 tasks over 2 task objects,
max_queue 1, signal, variant correct. --list-variants prints the variants, correct first.";

const BENCH_ABOUT: &str = "\
Run core's pool tables (nginx's event loop and pool threads, straight-line form) on real
threads beside threadpool, rayon (spawn) and a crossbeam-channel pool.
throughput rows: tasks of 0, 1 us and 100 us of spinning on T = 1, 2 and 4x the cores
threads (--quick: 1, 2), at most 64 outstanding; tasks/s, task wait (post to dequeue)
p50/p99, wakeups per task (nginx: cond_wait returns on its pool threads; rivals: the
process's voluntary context switches minus the submitter's), wasted per task (nginx: a
wakeup after which the thread waits again without a task), nvcsw per task.
idle rows: nginx, one task at a time with every pool thread asleep: signal wakes one,
broadcast all T. event-loop rows: nginx at 20000 requests/s on schedule, 0 (the baseline),
5, 10 and 20% of them 100 us blocking reads (a sleep), with the pool (offload on) and
without: the cache hits' latency p50/p99.
--task file: each throughput task and each blocking read is one real pread(2) of a 4 KiB
block of a scratch file (--file-mib, at most 64, in a fresh temp directory, out of the page
cache at each row's start, removed on exit, Ctrl-C included); --task-ns is then unused.
--compare-sim adds the simulator's wakeups and wasted wakeups per task beside nginx's.
Every row checks that each posted task ran and completed exactly once.";

/// `sim pool`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimArgs {
    /// The scenario.
    pub params: PoolParams,
    /// The step bound.
    pub max_steps: u64,
    /// Print JSON.
    pub json: bool,
}

/// Parse `sim pool`'s flags.
pub fn sim_args(m: &ArgMatches) -> Result<SimArgs, CliError> {
    let mut params = PoolParams::default();
    cli::apply_keys::<Pool>(&mut params, SIM_KEYS, m)?;
    cli::validated::<Pool>(&params, SIM_KEYS)?;
    Ok(SimArgs {
        params,
        max_steps: cli::value(m, "max-steps").unwrap_or(DEFAULT_MAX_STEPS),
        json: cli::on(m, "json"),
    })
}

/// The step bound of `sim pool`.
pub const DEFAULT_MAX_STEPS: u64 = 50_000_000;

/// Parse `check pool`'s scenario.
pub fn check_params(m: &ArgMatches) -> Result<PoolParams, CliError> {
    let mut params = PoolParams::check_preset();
    cli::apply_keys::<Pool>(&mut params, CHECK_KEYS, m)?;
    cli::validated::<Pool>(&params, CHECK_KEYS)?;
    Ok(params)
}

/// What each variant breaks (`check pool --list-variants`), correct first.
pub fn variant_lines() -> Vec<String> {
    let story = |v: PoolVariant| match v {
        PoolVariant::Correct => "ngx_thread_pool.c as it is (proven)",
        PoolVariant::IfNotWhile => "`if` for `while` around cond_wait -> null-deref",
        PoolVariant::SignalOutsideMutex => "unlock, signal, relink -> lost-wakeup",
        PoolVariant::NoSignal => "no cond_signal -> lost-wakeup",
        PoolVariant::ForgetLast => "no `last = &first` when the queue empties -> queue-shape",
        PoolVariant::WaitingAfterDequeue => {
            "waiting-- after the dequeue (before afe1fcffa) -> waiting-count / bounded-queue"
        }
        PoolVariant::OnePerNotify => "one task per eventfd wake -> exactly-once",
        PoolVariant::NoActiveCheck => "no event.active check -> queue-shape (a cycle)",
        PoolVariant::ShutdownFlag => "a flag and one signal instead of exit tasks -> shutdown",
    };
    let w = PoolVariant::NAMES
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    PoolVariant::ALL
        .iter()
        .map(|&v| format!("{:<w$}  {}", v.name(), story(v)))
        .collect()
}

/// Parse `bench pool`'s flags.
pub fn bench_args(m: &ArgMatches) -> (bench::PoolBenchConfig, bool) {
    let mut c = bench::PoolBenchConfig::new(cli::on(m, "quick"));
    if let Some(t) = cli::value(m, "threads") {
        c.threads = t;
    }
    if let Some(n) = cli::value::<u64>(m, "tasks") {
        c.tasks = n as u32;
    }
    if let Some(p) = cli::value(m, "pools") {
        c.pools = p;
    }
    if let Some(t) = cli::value(m, "task-ns") {
        c.task_ns = t;
    }
    c.compare_sim = cli::on(m, "compare-sim");
    if let Some(k) = cli::value(m, "task") {
        c.task = k;
    }
    if let Some(n) = cli::value::<u64>(m, "file-mib") {
        c.file_mib = n as u32;
    }
    (c, cli::on(m, "json"))
}

impl NativeMechanism for Pool {
    fn sim_command() -> clap::Command {
        subcommand(
            "pool",
            "Run nginx's thread pool headless on the simulated platform",
            SIM_ABOUT,
            "herdlab sim pool --threads 4 --tasks 8 --blocking-pct 100 --wake broadcast --json",
            key_args::<Pool>(SIM_KEYS)
                .into_iter()
                .chain([cli::max_steps(), json()]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let r = sim::run_pool(&a.params, a.max_steps);
        Ok(if a.json {
            print_json(&r, false)
        } else {
            print!("{}", sim::render_pool(&r));
            ExitCode::SUCCESS
        })
    }

    fn bench_command() -> clap::Command {
        subcommand(
            "pool",
            "Run core's pool tables on real threads beside threadpool, rayon and crossbeam",
            BENCH_ABOUT,
            "herdlab bench pool --quick --pools nginx,threadpool --task-ns 0",
            [
                switch("quick", "small: T = 1, 2; 2000 tasks per row"),
                json(),
                cli::threads_list(
                    "thread counts of the throughput rows (default 1, 2, 4x the cores)",
                    native::MAX_THREADS,
                    "1,2,8",
                ),
                ranged(
                    "tasks",
                    "tasks per throughput row (default 20000; --quick 2000)",
                    1,
                    bench::MAX_TASKS as u64,
                ),
                list(
                    "pools",
                    "the pools of the throughput rows, comma-separated (default all)",
                    format!("a comma-separated list of {}", BenchPool::names()),
                    BenchPool::from_name,
                ),
                list(
                    "task-ns",
                    "task times of the throughput rows, ns, comma-separated (default 0,1000,100000)",
                    "a comma-separated list of nanoseconds, each 0-1000000".to_string(),
                    |s| s.parse::<u64>().ok().filter(|&n| n <= 1_000_000),
                ),
                switch(
                    "compare-sim",
                    "add the simulator's wakeups and wasted wakeups per task beside nginx's rows",
                ),
                cli::flag(
                    "task",
                    "what a task does: spin (the default; the event loop's reads sleep) or file (one pread of a scratch file)",
                    format!("allowed: {}", bench::TaskKind::ALL.map(|k| k.name()).join(", ")),
                    |v| {
                        bench::TaskKind::from_name(v).ok_or_else(|| {
                            format!(
                                "'{v}' is not allowed; allowed: {}",
                                bench::TaskKind::ALL.map(|k| k.name()).join(", ")
                            )
                        })
                    },
                )
                .value_name("KIND"),
                ranged(
                    "file-mib",
                    "the scratch file's size for --task file, MiB (default 64)",
                    1,
                    64,
                ),
            ],
        )
    }

    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let (config, json) = bench_args(m);
        Ok(match bench::run_pool(&config, !json) {
            Ok(rows) => {
                if json {
                    print_json(&rows, true)
                } else {
                    print!("{}", bench::render_pool(&rows));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("herdlab: bench pool: {e}");
                ExitCode::FAILURE
            }
        })
    }

    fn check_commands() -> Vec<clap::Command> {
        vec![subcommand(
            "pool",
            "Model-check nginx's thread pool",
            CHECK_ABOUT,
            "herdlab check pool --variant signal-outside-mutex",
            key_args::<Pool>(CHECK_KEYS)
                .into_iter()
                .chain(cli::check_flags(
                    "print the variants (correct first) and what each breaks",
                )),
        )]
    }

    fn check(_name: &str, m: &ArgMatches) -> Result<ExitCode, CliError> {
        let params = check_params(m)?;
        cli::run_check(
            m,
            variant_lines,
            |config| check::run(&params, config, progress_wanted()),
            |out| out.exit_code(),
            |config, out| check::render(&params, config, out),
        )
    }
}
