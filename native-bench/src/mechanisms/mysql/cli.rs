//! MySQL's subcommands: `sim mysql`, `check mysql`, `bench mysql`.

use std::process::ExitCode;

use clap::{Arg, ArgMatches};
use herdlab_core::mechanisms::mysql::{
    sched_from_name, Mode, MysqlParams, MysqlVariant, MAX_CONNECTIONS, MAX_GROUPS, SCHEDS,
};

#[cfg(target_os = "linux")]
use super::bench;
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
    KeyFlag::Key("logins"),
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
    KeyFlag::Key("logins"),
];

const SIM_ABOUT: &str = "\
Run MySQL's connection handling headless on the simulated platform to the end: clients send
--queries queries (Poisson at --rate per second, each --cpu-us of CPU, --lock-pct of them
taking a hot row lock) over --connections connections, served one thread per connection
with the thread cache (--mode per-connection) or by Percona's pool of threads (--mode pool:
--groups thread groups, listener, two queues, stall timer). Prints throughput, latency
p50/p95/p99, threads created, the most OS threads at once, context switches per query, the
modelled resident memory (1 MiB of stack per thread), and the first invariant broken.
--think-us T makes the clients a closed loop, as bench mysql's load generator: each
connection sends a query, waits for its answer, thinks an exponential time of mean T us and
sends the next (--rate unused).
Defaults: pool, 64 connections, 2 groups, 2 cpus, 400 queries at 20000/s of 50 us, seed 1.";

const CHECK_ABOUT: &str = "\
Model-check MySQL's connection handling: every interleaving of the clients, the timer and
the threads, each operation one atomic step, against one-listener, no-lost-event,
active-count, thread-bound, idle-with-work, cache-count, one-connection and all-served.
Exit 0: every invariant holds and the search was complete; 1: an invariant broke (the
shortest schedule is printed step by step) or the state limit came first; 2: bad arguments.
Defaults (core's presets): the pool preset (1 group of at most 2 threads, 2 connections, 2
queries that take the row lock, 1 cpu, 10 ms stall limit); with --logins 1, or --variant
no-listener-wake, the login preset (1 connection that logs in through queue_put, 1 query);
with --mode per-connection, or
--variant cache-any-blocked, the thread-cache preset (2 clients reconnecting after every
query, a cache of 1, 4 queries, seed 4; about 150,000 states). --list-variants prints the
variants, correct first.";

const BENCH_ABOUT: &str = "\
A loopback query server on 127.0.0.1 whose threads run core's mysql tables on real threads:
one thread per connection with the thread cache (--mode per-connection) or Percona's pool of
threads (--mode pool: --groups thread groups, each with a real epoll set, one-shot re-armed
after every query, a listener, two queues, LIFO waiters, the stall timer), under --connections
client connections (a list, 1-4096 each) from a load generator of two client threads: each
connection sends a query, waits for its response, thinks --think-us (exponential mean) and
sends the next, until --queries are answered or --time-limit seconds pass. A query is --cpu-us
of CPU, --lock-pct of them taking a hot row lock (a blocking wait); --long-ms makes group 0's
first query that long (pool: the stall timer's case; core's per-connection model has none);
--max-connections (default 151, or the row's connections if more) sizes the thread cache
(8 + max/100; --cache-size to set it) and bounds the connections (+1); --queries-per-conn K:
per-connection rows' clients reconnect after every K answers (churn: a cached thread takes
the new connection, or a new thread is created); --variant runs a broken variant of the tables
(check mysql --list-variants). One row per mode and count:
qps, latency p50/p95/p99 at the client, threads created, the most server threads at once,
the server's context switches per query (getrusage), the process's peak resident memory.
Defaults: both modes, 16,256,1024,4096 connections, 20000 queries or 32 per connection if
more (a shorter row is mostly its start), 50 us queries, 1000 us
think time, groups = the server's CPUs (at most 7), oversubscribe 3, stall limit 500 ms,
20 s per row, the load generator on CPUs of its own (--client-cpus: the last 1 of 2-3 CPUs,
the last 2 of 4 or more; Linux shares a CPU per thread, so clients beside 1,024 server threads
would get almost none of it and send late); --compare-sim's simulator runs the scheduler of
this machine's kernel (--sched: eevdf from Linux 6.6 on, fair before);
--quick: 16,256 connections, 2000 queries. Each connection takes a descriptor on both sides:
the open-file limit (ulimit -n) must hold twice the largest count.";

/// The most µs a simulated query gets on top of its own CPU time (`--sim-io-us`, and the
/// measured overhead `--compare-sim` gives it).
pub const MAX_SIM_IO_US: u32 = 10_000;

/// Without `--queries`, a row sends at least this many queries per connection (4,096
/// connections: 131,072 queries); at 20,000 queries a 4,096-connection row's p95 and switches
/// were mostly its start.
pub const MIN_QUERIES_PER_CONNECTION: u64 = 32;

/// `bench mysql`'s default connection counts.
pub const BENCH_CONNECTIONS: [u32; 4] = [16, 256, 1024, 4096];
/// `--quick`'s connection counts.
pub const QUICK_CONNECTIONS: [u32; 2] = [16, 256];
/// Most seconds a row may run: an idle pool thread's wait is bounded by the platform's
/// `WAIT_TIMEOUT` (30 s).
pub const MAX_TIME_LIMIT_S: u64 = 25;

/// The scenario flags of `bench mysql` (core's keys; the rest are the bench's own).
const BENCH_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("groups"),
    KeyFlag::Key("stall_ms"),
    KeyFlag::Key("oversubscribe"),
    KeyFlag::Key("tickets"),
    KeyFlag::Key("max_threads"),
    KeyFlag::Key("group_threads"),
    KeyFlag::Key("txn_statements"),
    KeyFlag::Key("cpu_us"),
    KeyFlag::Key("lock_pct"),
    KeyFlag::Key("long_ms"),
    KeyFlag::Key("max_connections"),
    KeyFlag::Key("cache_size"),
    KeyFlag::Key("queries_per_conn"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("seed"),
];

/// `--sched`: the simulated kernel's scheduler (not one of core's scenario keys).
fn sched_arg(default: &str) -> Arg {
    let allowed = SCHEDS.join(", ");
    cli::flag(
        "sched",
        format!(
            "the simulated kernel's scheduler: fair (the CPU time each thread used decides) or \
             eevdf (Linux 6.6 and later: lag, virtual deadlines) [{allowed}] (default {default})"
        ),
        format!("allowed: {allowed}"),
        move |v| {
            sched_from_name(v).ok_or_else(|| format!("'{v}' is not allowed; allowed: {allowed}"))
        },
    )
    .value_name("POLICY")
}

/// `bench mysql`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchArgs {
    /// The modes, in order.
    pub modes: Vec<Mode>,
    /// The connection counts, in order.
    pub connections: Vec<u32>,
    /// The scenario (its mode and connections are set per row; without `--max-connections`,
    /// its `max_connections` too: MySQL's default 151, or the row's connections if more).
    pub params: MysqlParams,
    /// `--max-connections` was given (every count is at most it + 1).
    pub max_connections_given: bool,
    /// `--cache-size` was given (else autosized from max_connections).
    pub cache_size_given: bool,
    /// `--queries`: queries per row; `None`: [`BenchArgs::queries_for`]'s default.
    pub queries: Option<u64>,
    /// `--quick`.
    pub quick: bool,
    /// Mean think time, µs.
    pub think_us: u64,
    /// Seconds per row at most.
    pub time_limit_s: u64,
    /// Print JSON.
    pub json: bool,
    /// The simulator's row under each measured one.
    pub compare_sim: bool,
    /// `--sim-io-us`: the simulated query's cost on top of its CPU time, µs; `None`: the
    /// server's measured overhead per query.
    pub sim_io_us: Option<u32>,
    /// The CPUs set apart for the load generator (`--client-cpus`), the server on the rest;
    /// `None`: they share every CPU.
    #[cfg(target_os = "linux")]
    pub split: Option<crate::platform::affinity::Split>,
}

fn connections_list() -> clap::Arg {
    let allowed = format!(
        "allowed: a comma-separated list of up to 16 counts, each 1-{MAX_CONNECTIONS} (e.g. 16,256,1024)"
    );
    cli::flag(
        "connections",
        "client connections per row, a list (default 16,256,1024,4096)",
        allowed.clone(),
        move |v| {
            let mut out = Vec::new();
            for part in v.split(',') {
                match part.trim().parse::<u32>() {
                    Ok(n) if (1..=MAX_CONNECTIONS).contains(&n) => out.push(n),
                    Ok(n) => return Err(format!("{n} is out of range; {allowed}")),
                    Err(_) => {
                        return Err(format!(
                            "'{}' is not a list of counts; {allowed}",
                            herdlab_core::mechanism::shown(v)
                        ))
                    }
                }
            }
            if out.len() > 16 {
                return Err(format!("{} counts is too many; {allowed}", out.len()));
            }
            Ok(out)
        },
    )
    .value_name("LIST")
}

/// Parse `bench mysql`'s flags.
pub fn bench_args(m: &ArgMatches) -> Result<BenchArgs, CliError> {
    let quick = cli::on(m, "quick");
    #[cfg(target_os = "linux")]
    let split = {
        use crate::platform::affinity::{self, Split};
        let allowed = affinity::allowed().map_err(|e| CliError(format!("--client-cpus: {e}")))?;
        let n = cli::value::<u64>(m, "client-cpus").map_or_else(
            || Split::default_clients(allowed.len(), bench::CLIENT_THREADS),
            |n| n as usize,
        );
        Split::of(&allowed, n).map_err(|e| CliError(format!("--client-cpus: {e}")))?
    };
    // `thread_pool_size` defaults to the CPUs the server may run on
    #[cfg(target_os = "linux")]
    let server_cpus = split.as_ref().map_or(cli::cpus(), |sp| sp.server.len());
    #[cfg(not(target_os = "linux"))]
    let server_cpus = cli::cpus();
    let mut params = MysqlParams {
        groups: (server_cpus as u32).clamp(1, MAX_GROUPS),
        // the simulator's side models this machine's kernel (--sched to choose)
        sched: cli::value(m, "sched").unwrap_or_else(|| {
            crate::platform::kernel::policy_for(crate::platform::kernel::release())
        }),
        ..MysqlParams::default()
    };
    cli::apply_keys::<Mysql>(&mut params, BENCH_KEYS, m)?;
    // the counts are checked against max_connections below, one by one
    params.connections = 1;
    cli::validated::<Mysql>(&params, BENCH_KEYS)?;
    let connections: Vec<u32> = cli::value(m, "connections").unwrap_or_else(|| {
        if quick {
            QUICK_CONNECTIONS.to_vec()
        } else {
            BENCH_CONNECTIONS.to_vec()
        }
    });
    let max_connections_given = m.get_one::<String>("max-connections").is_some();
    if max_connections_given {
        let most = params.max_connections.saturating_add(1);
        if let Some(&n) = connections.iter().find(|&&n| n > most) {
            return cli::err(format!(
                "--connections: {n} exceeds --max-connections + 1 ({most}): MySQL would refuse the \
                 rest with ER_CON_COUNT_ERROR; allowed: counts up to {most}, or a larger \
                 --max-connections"
            ));
        }
    }
    if cli::value::<u64>(m, "sim-io-us").is_some() && !cli::on(m, "compare-sim") {
        return cli::err(
            "--sim-io-us: sets the cost of the simulator's query; allowed: with --compare-sim",
        );
    }
    let time_limit_s = cli::value(m, "time-limit").unwrap_or(20);
    if u64::from(params.long_ms) >= time_limit_s * 1000 {
        return cli::err(format!(
            "--long-ms: {} ms would outlast the row's --time-limit of {time_limit_s} s; allowed: \
             0-{}, or a longer --time-limit",
            params.long_ms,
            time_limit_s * 1000 - 1
        ));
    }
    Ok(BenchArgs {
        modes: cli::value(m, "mode").unwrap_or_else(|| vec![Mode::PerConnection, Mode::Pool]),
        connections,
        params,
        max_connections_given,
        cache_size_given: m.get_one::<String>("cache-size").is_some(),
        queries: cli::value(m, "queries"),
        quick,
        think_us: cli::value(m, "think-us").unwrap_or(1_000),
        time_limit_s,
        json: cli::on(m, "json"),
        compare_sim: cli::on(m, "compare-sim"),
        sim_io_us: cli::value::<u64>(m, "sim-io-us").map(|v| v as u32),
        #[cfg(target_os = "linux")]
        split,
    })
}

impl BenchArgs {
    /// The queries of a row with `connections` connections: `--queries`, else 2,000 with
    /// `--quick`, else 20,000 or [`MIN_QUERIES_PER_CONNECTION`] per connection, whichever is
    /// more (from 1,024 connections up the latter: with fewer, a row is mostly its start, every
    /// connection's thread created and put to sleep once before its first query).
    pub fn queries_for(&self, connections: u32) -> u64 {
        self.queries.unwrap_or(if self.quick {
            2_000
        } else {
            (MIN_QUERIES_PER_CONNECTION * u64::from(connections)).max(20_000)
        })
    }

    /// The scenario of the row of `mode` and `connections`: `max_connections` as given, else
    /// MySQL's default or the connections if more; `thread_cache_size` autosized from it (8 +
    /// max_connections/100, as MySQL does).
    pub fn row_params(&self, mode: Mode, connections: u32) -> MysqlParams {
        let max_connections = if self.max_connections_given {
            self.params.max_connections
        } else {
            self.params.max_connections.max(connections)
        };
        MysqlParams {
            mode,
            connections,
            max_connections,
            cache_size: if self.cache_size_given {
                self.params.cache_size
            } else {
                MysqlParams::autosized_cache(max_connections)
            },
            ..self.params
        }
    }
}

/// The open-file limit a row of `n` connections needs (both ends of each, the epoll sets, the
/// listener, stdio and a margin); raised to it up to the hard limit if the soft one is lower, else
/// the refusal names the limit and how to raise it.
pub fn files_for(n: u32) -> Result<(), CliError> {
    let want = 2 * n as u64 + MAX_GROUPS as u64 + 32;
    let (soft, hard) = crate::platform::limits::open_files();
    let Some(soft) = soft else { return Ok(()) };
    if soft >= want {
        return Ok(());
    }
    if hard.is_none_or(|h| h >= want) {
        let r = libc::rlimit {
            rlim_cur: want as libc::rlim_t,
            rlim_max: hard.map_or(libc::RLIM_INFINITY, |h| h as libc::rlim_t),
        };
        // SAFETY: `r` is a valid rlimit for the call; raising the soft limit up to the hard one
        // needs no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) } == 0 {
            return Ok(());
        }
    }
    cli::err(format!(
        "--connections: {n} connections need {want} open files, and {}",
        crate::platform::limits::open_files_advice(soft, hard, want)
    ))
}

/// `sim mysql`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimArgs {
    /// The scenario.
    pub params: MysqlParams,
    /// The step bound.
    pub max_steps: u64,
    /// `--think-us`: the clients as a closed loop of this mean think time, µs (as `bench
    /// mysql`'s); `None`: open loop at `--rate`.
    pub think_us: Option<u64>,
    /// `--clients-apart`: the closed loop's load generator on CPUs of its own (as `bench mysql`
    /// sets them apart with `--client-cpus`), not on the server's `--cpus`.
    pub clients_apart: bool,
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
    if let Some(s) = cli::value(m, "sched") {
        params.sched = s;
    }
    if cli::on(m, "clients-apart") && cli::value::<u64>(m, "think-us").is_none() {
        return cli::err(
            "--clients-apart: places a closed loop's load generator; allowed: with --think-us \
             (the open loop's clients are an arrival stream, already beside the machine)",
        );
    }
    Ok(SimArgs {
        params,
        max_steps: cli::value(m, "max-steps").unwrap_or(DEFAULT_MAX_STEPS),
        think_us: cli::value(m, "think-us"),
        clients_apart: cli::on(m, "clients-apart"),
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
    let logins = probe.logins > 0;
    let mut params = if per_conn {
        MysqlParams::check_preset_cache()
    } else if logins || probe.variant == MysqlVariant::NoListenerWake {
        MysqlParams::check_preset_login()
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
    let story = |v: MysqlVariant| {
        match v {
        MysqlVariant::Correct => {
            "Percona's threadpool_unix.cc and MySQL's thread cache as they are"
        }
        MysqlVariant::NoListenerWake => {
            "no wake when active == 0 in queue_put/listener: caught by idle-with-work (login preset)"
        }
        MysqlVariant::FifoWaiters => {
            "waiting_threads as a queue, coldest sleeper woken: shown by sim (workers_woken)"
        }
        MysqlVariant::NoStallTimer => {
            "no stall check, a long query blocks its group: shown by sim (p99, stalls)"
        }
        MysqlVariant::NoWaitBegin => {
            "no thd_wait_begin, a blocked thread holds its group: shown by sim (p50)"
        }
        MysqlVariant::NoThrottle => {
            "no creation throttle, a thread every tick: shown by sim (threads_created)"
        }
        MysqlVariant::NoHighPrio => {
            "no high-priority queue, statements wait behind all: shown by sim (txn_p99_ns)"
        }
        MysqlVariant::CacheAnyBlocked => {
            "hand-off on blocked_pthread_count > 0: caught by cache-count (per-connection)"
        }
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
            key_args::<Mysql>(SIM_KEYS).into_iter().chain([
                cli::ranged(
                    "think-us",
                    "clients as a closed loop (as bench mysql's): each connection waits for its \
                     answer, then thinks this mean time, us, before its next query (--rate is \
                     then unused; default: open loop at --rate)",
                    1,
                    1_000_000,
                ),
                switch(
                    "clients-apart",
                    "with --think-us: the load generator's threads on CPUs of their own, none of \
                     the server's --cpus (as bench mysql's with --client-cpus 1 or more); default: \
                     its receiving threads share the server's CPUs",
                ),
                sched_arg("fair"),
                cli::max_steps(),
                json(),
            ]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let r = sim::run_mysql(
            &a.params,
            a.think_us.map(|t| t * 1000),
            a.clients_apart,
            a.max_steps,
        );
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
            "A loopback query server: thread-per-connection against the pool, on real threads",
            BENCH_ABOUT,
            "herdlab bench mysql --connections 16,256,1024 --queries 20000 --json",
            [
                cli::list(
                    "mode",
                    "the modes, a list (default per-connection,pool)",
                    Mode::NAMES.join(", "),
                    Mode::from_name,
                )
                .value_name("LIST"),
                connections_list(),
                cli::ranged(
                    "queries",
                    "queries per row over all connections (default 20000, or 32 per connection if more)",
                    1,
                    1_000_000,
                ),
                cli::ranged(
                    "think-us",
                    "mean think time of a client between a response and its next query, us (default 1000)",
                    0,
                    1_000_000,
                ),
                cli::ranged(
                    "time-limit",
                    "seconds a row may run at most (default 20)",
                    1,
                    MAX_TIME_LIMIT_S,
                ),
                cli::ranged(
                    "client-cpus",
                    "CPUs set apart for the load generator (and the harness), the server pinned to \
                     the rest; 0: all share every CPU (default: 1 on 2-3 CPUs, 2 on 4 or more, 0 on 1)",
                    0,
                    1024,
                ),
            ]
            .into_iter()
            .chain(key_args::<Mysql>(BENCH_KEYS))
            .chain([
                switch("quick", "16,256 connections, 2000 queries per row"),
                cli::ranged(
                    "sim-io-us",
                    "with --compare-sim: what each simulated query costs on top of --cpu-us, us \
                     (default: the server's measured CPU per query less the query's own and less \
                     what the simulator charges by itself: the socket's reads and writes, epoll)",
                    0,
                    MAX_SIM_IO_US as u64,
                ),
                switch(
                    "compare-sim",
                    "the simulator's row (its clients a closed loop with the same think time) under \
                     each measured one, and the figures compared (within 25%?)",
                ),
                sched_arg("this kernel's: eevdf from Linux 6.6 on, else fair"),
                json(),
            ]),
        )
    }

    #[cfg(not(target_os = "linux"))]
    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        bench_args(m)?;
        eprintln!("herdlab: bench mysql: the loopback server needs Linux (epoll, /proc)");
        Ok(ExitCode::FAILURE)
    }

    #[cfg(target_os = "linux")]
    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = bench_args(m)?;
        if let Some(&most) = a.connections.iter().max() {
            // the machine's limit, not bad input: exit 1, as the other benchmarks
            if let Err(e) = files_for(most) {
                eprintln!("herdlab: bench mysql: {}", e.0);
                return Ok(ExitCode::FAILURE);
            }
        }
        let mut rows = Vec::new();
        for &connections in &a.connections {
            for &mode in &a.modes {
                let p = a.row_params(mode, connections);
                let rc = bench::RowConfig {
                    params: p,
                    queries: a.queries_for(connections),
                    think_ns: a.think_us * 1000,
                    time_limit: std::time::Duration::from_secs(a.time_limit_s),
                    split: a.split.clone(),
                };
                let mut row = match bench::run_row(&rc) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!(
                            "herdlab: bench mysql: {} with {connections} connections: {e}",
                            mode.name()
                        );
                        return Ok(ExitCode::FAILURE);
                    }
                };
                crate::trace::run_done(
                    &format!("{} connections={connections}", mode.name()),
                    &format!(
                        "mechanism=mysql&{}",
                        <Mysql as herdlab_core::mechanism::Mechanism>::to_query(&p)
                    ),
                );
                if a.compare_sim {
                    let q = row.queries_answered.clamp(1, 20_000) as u32;
                    let (sim, io) = bench::simulated(&p, &row, q, a.sim_io_us);
                    row.sim = Some(sim);
                    row.sim_io_us = Some(io);
                }
                #[cfg(unix)]
                crate::platform::interrupt::measured(&row);
                rows.push(row);
            }
        }
        if a.compare_sim {
            bench::compare(&mut rows);
        }
        Ok(if a.json {
            print_json(&rows, true)
        } else {
            print!("{}", bench::render(&rows));
            ExitCode::SUCCESS
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bench(extra: &[&str]) -> BenchArgs {
        let argv = ["herdlab", "bench", "mysql"].iter().chain(extra);
        let m = crate::cli::command()
            .try_get_matches_from(argv)
            .expect("the flags parse");
        let (_, b) = m.subcommand().expect("bench");
        let (_, mm) = b.subcommand().expect("mysql");
        bench_args(mm).expect("bench mysql's arguments")
    }

    /// Bug: at the default 20,000 queries a 4,096-connection row sent about 5 queries per
    /// connection, and its p95 and switches per query were mostly the start (each new thread's
    /// first sleep: 1.21 switches per query against 1.04 over 150,000 queries).
    #[test]
    fn a_row_sends_at_least_32_queries_per_connection_unless_told() {
        let a = bench(&[]);
        assert_eq!(a.queries_for(16), 20_000);
        assert_eq!(a.queries_for(625), 20_000);
        assert_eq!(a.queries_for(1024), 32_768);
        assert_eq!(a.queries_for(4096), 131_072);
        assert_eq!(bench(&["--queries", "5000"]).queries_for(4096), 5_000);
        assert_eq!(bench(&["--quick"]).queries_for(256), 2_000);
    }
}
