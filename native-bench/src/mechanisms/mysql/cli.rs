//! MySQL's subcommands: `sim mysql`, `check mysql`, `bench mysql`.

use std::process::ExitCode;

use clap::ArgMatches;
use herdlab_core::mechanisms::mysql::{Mode, MysqlParams, MysqlVariant};

use super::{check, sim, Mysql};
use crate::check::progress_wanted;
use crate::cli::{self, json, key_args, subcommand, switch, CliError, KeyFlag};
use crate::mechanisms::NativeMechanism;
use crate::output::print_json;

/// The scenario flags of `sim mysql`: every key of core's table.
const SIM_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("mode"),
    KeyFlag::Key("connections"),
    KeyFlag::Key("groups"),
    KeyFlag::Key("cpus"),
    KeyFlag::Key("stall_ms"),
    KeyFlag::Key("oversubscribe"),
    KeyFlag::Key("tickets"),
    KeyFlag::Key("max_threads"),
    KeyFlag::Key("group_threads"),
    KeyFlag::Key("max_connections"),
    KeyFlag::Key("cache_size"),
    KeyFlag::Key("queries_per_conn"),
    KeyFlag::Key("txn_statements"),
    KeyFlag::Key("queries"),
    KeyFlag::Key("rate"),
    KeyFlag::Key("cpu_us"),
    KeyFlag::Key("lock_pct"),
    KeyFlag::Key("long_ms"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("seed"),
];

/// The scenario flags of `check mysql` (over core's checker presets).
const CHECK_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("variant"),
    KeyFlag::Key("mode"),
    KeyFlag::Key("connections"),
    KeyFlag::Key("queries"),
    KeyFlag::Key("group_threads"),
    KeyFlag::Key("oversubscribe"),
    KeyFlag::Key("lock_pct"),
    KeyFlag::Key("cache_size"),
    KeyFlag::Key("queries_per_conn"),
    KeyFlag::Key("txn_statements"),
];

const SIM_ABOUT: &str = "\
Run MySQL's connection handling headless on the simulated platform to the end: clients send
--queries queries (Poisson at --rate per second, each --cpu-us of CPU, --lock-pct of them
taking a hot row lock) over --connections connections, served one thread per connection
with the thread cache (--mode per-connection) or by Percona's pool of threads (--mode pool:
--groups thread groups, listener, two queues, stall timer). Prints throughput, latency
p50/p95/p99, threads created, the most OS threads at once, context switches per query, the
modelled resident memory (1 MiB of stack per thread), and the first invariant broken.
Defaults: pool, 64 connections, 2 groups, 2 cpus, 400 queries at 20000/s of 50 us, seed 1.";

const CHECK_ABOUT: &str = "\
Model-check MySQL's connection handling: every interleaving of the clients, the timer and
the threads, each operation one atomic step, against one-listener, no-lost-event,
active-count, thread-bound, idle-with-work, cache-count and all-served.
Exit 0: every invariant holds and the search was complete; 1: an invariant broke (the
shortest schedule is printed step by step) or the state limit came first; 2: bad arguments.
Defaults (core's presets): the pool preset (1 group of at most 2 threads, 2 connections, 2
queries that take the row lock, 1 cpu, 10 ms stall limit); with --mode per-connection, or
--variant cache-any-blocked, the thread-cache preset (2 clients reconnecting after every
query, a cache of 1, 3 queries; about 2.5 million states). --list-variants prints the
variants, correct first.";

const BENCH_ABOUT: &str = "\
Not written yet: the loopback query server (thread-per-connection against the pool on real
threads with real epoll) is unfinished. Use `herdlab sim mysql` for the model's figures.";

/// `sim mysql`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimArgs {
    /// The scenario.
    pub params: MysqlParams,
    /// The step bound.
    pub max_steps: u64,
    /// Print JSON.
    pub json: bool,
}

/// The step bound of `sim mysql`.
pub const DEFAULT_MAX_STEPS: u64 = 200_000_000;

/// Parse `sim mysql`'s flags.
pub fn sim_args(m: &ArgMatches) -> Result<SimArgs, CliError> {
    let mut params = MysqlParams::default();
    cli::apply_keys::<Mysql>(&mut params, SIM_KEYS, m)?;
    cli::validated::<Mysql>(&params, SIM_KEYS)?;
    Ok(SimArgs {
        params,
        max_steps: cli::value(m, "max-steps").unwrap_or(DEFAULT_MAX_STEPS),
        json: cli::on(m, "json"),
    })
}

/// Parse `check mysql`'s scenario: the thread-cache preset for `--mode per-connection` (or,
/// without `--mode`, for the thread cache's variant), else the pool preset; then the flags.
pub fn check_params(m: &ArgMatches) -> Result<MysqlParams, CliError> {
    let mut probe = MysqlParams::check_preset();
    cli::apply_keys::<Mysql>(&mut probe, CHECK_KEYS, m)?;
    let explicit_mode = m.get_one::<String>("mode").is_some();
    let per_conn = if explicit_mode {
        probe.mode == Mode::PerConnection
    } else {
        probe.variant == MysqlVariant::CacheAnyBlocked
    };
    let mut params = if per_conn {
        MysqlParams::check_preset_cache()
    } else {
        MysqlParams::check_preset()
    };
    cli::apply_keys::<Mysql>(&mut params, CHECK_KEYS, m)?;
    params.mode = if per_conn {
        Mode::PerConnection
    } else {
        Mode::Pool
    };
    cli::validated::<Mysql>(&params, CHECK_KEYS)?;
    Ok(params)
}

/// What each variant breaks (`check mysql --list-variants`), correct first.
pub fn variant_lines() -> Vec<String> {
    let story = |v: MysqlVariant| match v {
        MysqlVariant::Correct => {
            "Percona's threadpool_unix.cc and MySQL's thread cache as they are"
        }
        MysqlVariant::NoListenerWake => {
            "the listener never wakes a worker when active == 0 (no effect found in this model)"
        }
        MysqlVariant::FifoWaiters => {
            "waiting_threads as a queue: the coldest sleeper is woken (sim)"
        }
        MysqlVariant::NoStallTimer => "no stall check: one long query blocks its group (sim)",
        MysqlVariant::NoWaitBegin => "no thd_wait_begin: a blocked thread holds its group (sim)",
        MysqlVariant::NoThrottle => "no creation throttle: a thread every stall tick (sim)",
        MysqlVariant::NoHighPrio => {
            "no high-priority queue: transactions' statements wait behind all (sim)"
        }
        MysqlVariant::CacheAnyBlocked => {
            "hand-off on blocked_pthread_count > 0 -> cache-count (per-connection)"
        }
    };
    let w = MysqlVariant::NAMES
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    MysqlVariant::ALL
        .iter()
        .map(|&v| format!("{:<w$}  {}", v.name(), story(v)))
        .collect()
}

impl NativeMechanism for Mysql {
    fn sim_command() -> clap::Command {
        subcommand(
            "mysql",
            "Run MySQL's connection handling headless on the simulated platform",
            SIM_ABOUT,
            "herdlab sim mysql --mode per-connection --connections 1024 --max-connections 2000 --json",
            key_args::<Mysql>(SIM_KEYS)
                .into_iter()
                .chain([cli::max_steps(), json()]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let r = sim::run_mysql(&a.params, a.max_steps);
        Ok(if a.json {
            print_json(&r, false)
        } else {
            print!("{}", sim::render_mysql(&r));
            ExitCode::SUCCESS
        })
    }

    fn bench_command() -> clap::Command {
        subcommand(
            "mysql",
            "Not written yet: the loopback query server (use sim mysql)",
            BENCH_ABOUT,
            "herdlab sim mysql --json",
            [switch("quick", "small"), json()],
        )
    }

    fn bench(_m: &ArgMatches) -> Result<ExitCode, CliError> {
        eprintln!(
            "herdlab: bench mysql: not written yet (the loopback query server is unfinished); \
             `herdlab sim mysql --json` gives the model's figures"
        );
        Ok(ExitCode::FAILURE)
    }

    fn check_commands() -> Vec<clap::Command> {
        vec![subcommand(
            "mysql",
            "Model-check MySQL's connection handling",
            CHECK_ABOUT,
            "herdlab check mysql --variant cache-any-blocked",
            key_args::<Mysql>(CHECK_KEYS)
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
