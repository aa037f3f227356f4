//! The accept strategies' subcommands: `sim accept`, `bench accept`, `check accept-mutex` and
//! `check accept`.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Arg, ArgMatches};
use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::accept::{AcceptParams, MutexVariant, Strategy};
use herdlab_core::sim::arrivals::ArrivalPattern;

use super::cmd::{self, AcceptBenchConfig};
use super::{check, native, Accept};
use crate::check::progress_wanted;
use crate::cli::{
    self, flag, json, key_args, ranged, refused, subcommand, switch, CliError, KeyFlag,
};
use crate::mechanisms::NativeMechanism;
use crate::output::print_json;

const WORKERS: KeyFlag = KeyFlag::Key("workers");
const CPUS: KeyFlag = KeyFlag::Key("cpus");
const CONNECTIONS: KeyFlag = KeyFlag::Key("connections");
const RATE: KeyFlag = KeyFlag::Key("rate");
const ARRIVAL: KeyFlag = KeyFlag::Key("arrival");
const BURST: KeyFlag = KeyFlag::Key("burst");
const REQUESTS: KeyFlag = KeyFlag::Key("requests");
const SERVICE: KeyFlag = KeyFlag::As("service", "service-ns");
const THINK: KeyFlag = KeyFlag::As("think", "think-ns");
const MULTI_ACCEPT: KeyFlag = KeyFlag::Sets("multi_accept", "multi-accept", "on");
const REORDER_EVERY: KeyFlag = KeyFlag::Key("reorder_every");
const DELAY: KeyFlag = KeyFlag::As("delay", "mutex-delay-ms");
const WORKER_CONNECTIONS: KeyFlag = KeyFlag::Key("worker_connections");
const VARIANT: KeyFlag = KeyFlag::Key("variant");
const LOCAL_CLIENTS: KeyFlag = KeyFlag::Sets("local_clients", "local-clients", "on");
const SEED: KeyFlag = KeyFlag::Key("seed");
const STRATEGY: KeyFlag = KeyFlag::Key("strategy");

/// The scenario flags of `sim accept` (besides `--strategy`, a list).
const SIM_KEYS: &[KeyFlag] = &[
    WORKERS,
    CPUS,
    CONNECTIONS,
    RATE,
    ARRIVAL,
    BURST,
    REQUESTS,
    SERVICE,
    THINK,
    MULTI_ACCEPT,
    REORDER_EVERY,
    DELAY,
    WORKER_CONNECTIONS,
    VARIANT,
    LOCAL_CLIENTS,
    SEED,
];

/// The scenario flags of `bench accept` that are core's keys.
const BENCH_KEYS: &[KeyFlag] = &[
    WORKERS,
    RATE,
    REQUESTS,
    SERVICE,
    THINK,
    REORDER_EVERY,
    MULTI_ACCEPT,
    DELAY,
    SEED,
];

/// The scenario flags of `check accept` that are core's keys.
const CHECK_KEYS: &[KeyFlag] = &[
    STRATEGY,
    VARIANT,
    MULTI_ACCEPT,
    WORKER_CONNECTIONS,
    REORDER_EVERY,
];

const SIM_ABOUT: &str = "\
Simulate event-loop workers sharing a listening socket (nginx's epoll loop, or threads
blocked in accept) and print, per strategy: wakeups, wasted wakeups and EAGAIN per
connection, the busiest worker's share, Jain's index, connections per second, accept
latency p50/p99 and connections per worker. Without --strategy every strategy runs (JSON:
an array; one strategy: one object; --strategy also takes a comma-separated list).
Defaults: 8 workers, 2 cpus, 1000 connections at 200/s, poisson arrivals, 1 request each,
service 20000 ns, think 0, reorder every 16 (exclusive only; 0 = never), accept_mutex_delay
500 ms, worker_connections 512, correct, seed 1. Ranges (the site's): workers 1-64, cpus
1-16, connections 1-1000000, rate 1-10000000, burst 1-1024, requests 1-1000, service-ns
0-100000000, think-ns 0-1000000000, reorder-every 0-65536, mutex-delay-ms 1-60000,
worker-connections 1-65536. --variant (a broken accept mutex) needs
--strategy accept-mutex. --local-clients: the clients run on the server's CPUs, as the
load generator of bench accept does (a response wakes the client onto the worker's CPU,
which it takes for 5 us, so its next request or close lands before the worker sleeps).";

const CHECK_ABOUT: &str = "\
Model-check nginx's accept mutex (or another accept strategy) on the simulator: every
interleaving of the workers' steps and of the network (arrivals, the clients' requests
and closes, epoll_wait timeouts), states compared without their time. Invariants (accept
mutex): mutual-exclusion (one holder, the lock word is its pid), accept-under-lock (accept
handlers run only under the lock, or after skipping the trylock while overloaded),
registration-follows-held (the listener is in a worker's epoll exactly when its held flag
is set), retry-bound (a loser never sleeps without the accept_mutex_delay timeout); every
strategy: lost-connection (a connection waits and nothing can wake a worker) and
conservation (every connection accepted once and closed). Exit 0: every invariant holds
and the search was complete; 1: one broke (the shortest schedule, each step with its
line, and a link to the lesson at that schedule) or the state limit came first; 2: bad
arguments. Defaults: 2 workers, 2 connections, 1 request, correct. Ranges: workers 1-4,
connections 1-6, requests 1-4. Sizes: 2 x 2 ~13000 states; 3 workers x 2 ~220000 states
(about a second).";

const BENCH_ABOUT: &str = "\
Run core's accept workers on real threads (Linux): real epoll instances (EPOLLEXCLUSIVE,
a shared epoll, SO_REUSEPORT listeners, a blocking accept) on 127.0.0.1, against a load
generator on its own threads that opens --connections connections at --rate per second
(core's arrival times for the scenario), at most --concurrency open at once, each sending
--requests requests of --request-size bytes (keep-alive) and reading a 64-byte response,
waiting --think-ns after each, then closing. The generator stops after the last
connection or after --time-limit seconds (default 60; it says so: a slow server), and a
run whose arrivals alone take longer is refused before it starts; errors are reported.
Wakeups are the workers' voluntary context switches around each blocking call (getrusage
RUSAGE_THREAD), split into useful, wasted and timer wakeups as the simulator counts them;
accept latency runs from the client's connect() returning to the server's accept4()
returning (0 when the server accepted first: woken workers preempted the client on its
CPU). Columns as sim accept. --compare-sim: under each measured row the simulator's
prediction for the same parameters (cpus = this machine's, --local-clients), with its difference from the
measurement; in JSON a `sim` field. Default: every strategy, 8 workers, 600 connections
each at 200/s (3 s), poisson arrivals, 1 request; --quick: 200 connections. Ranges:
workers 1-64, connections 1-200000, rate 1-10000000, requests 1-1000, concurrency 1-256
(default 64), request-size 12-65536 (default 64), time-limit 1-600, backlog 1-65535 (default 4096, capped by
net.core.somaxconn: the effective value is printed when capped), port 0-65535 (default 0:
a free port the kernel picks; a taken port is refused, exit 1). The overflows column: the
connections the kernel dropped on a full accept queue during the row (TcpExt
ListenOverflows in /proc/net/netstat, system-wide; unknown when it cannot be read).";

/// `sim accept`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct SimArgs {
    /// The scenario (its strategy is each row's).
    pub params: AcceptParams,
    /// The strategies to simulate, in order.
    pub strategies: Vec<Strategy>,
    /// Whether the strategies were named (one named strategy prints one JSON object).
    pub named: bool,
    /// The step bound.
    pub max_steps: u64,
    /// Print JSON instead of a table.
    pub json: bool,
}

/// `bench accept`, parsed.
#[derive(Clone, Debug)]
pub struct BenchArgs {
    /// What to run.
    pub config: AcceptBenchConfig,
    /// Whether the strategies were named (one named strategy prints one JSON object).
    pub named: bool,
    /// Print JSON instead of a table.
    pub json: bool,
}

/// `check accept-mutex` / `check accept`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckArgs {
    /// The scenario (its arrival pattern is ignored: the network may act at any point).
    pub params: AcceptParams,
    /// The search's bounds.
    pub config: CheckConfig,
    /// Print JSON instead of text.
    pub json: bool,
}

/// One key's flag.
fn key(f: KeyFlag) -> Arg {
    key_args::<Accept>(&[f]).remove(0)
}

/// `--strategy LIST`.
fn strategies() -> Arg {
    let names = Strategy::NAMES.join(", ");
    flag(
        "strategy",
        "the strategies, comma-separated (default: every one)",
        format!("allowed: {names} (or a comma-separated list)"),
        move |v| {
            v.split(',')
                .map(|part| {
                    Strategy::from_name(part.trim()).ok_or_else(|| {
                        format!("'{}' is not allowed; allowed: {names}", part.trim())
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        },
    )
    .value_name("LIST")
}

/// Parse `sim accept`'s flags.
pub fn sim_args(m: &ArgMatches) -> Result<SimArgs, CliError> {
    let mut params = AcceptParams::default();
    cli::apply_keys::<Accept>(&mut params, SIM_KEYS, m)?;
    let named: Option<Vec<Strategy>> = cli::value(m, "strategy");
    let is_named = named.is_some();
    let strategies = named.unwrap_or_else(|| Strategy::ALL.to_vec());
    if params.variant != MutexVariant::Correct
        && strategies.iter().any(|&s| s != Strategy::AcceptMutex)
    {
        return cli::err(format!(
            "--variant: {} is a broken accept mutex; it needs --strategy accept-mutex (the other strategies take correct)",
            params.variant.name()
        ));
    }
    Ok(SimArgs {
        params,
        strategies,
        named: is_named,
        max_steps: cli::value(m, "max-steps").unwrap_or(cmd::DEFAULT_MAX_STEPS),
        json: cli::on(m, "json"),
    })
}

/// Parse `bench accept`'s flags.
pub fn bench_args(m: &ArgMatches) -> Result<BenchArgs, CliError> {
    let mut config = AcceptBenchConfig::new(cli::on(m, "quick"));
    cli::apply_keys::<Accept>(&mut config.params, BENCH_KEYS, m)?;
    let named = match cli::value::<Vec<Strategy>>(m, "strategy") {
        Some(s) => {
            config.strategies = s;
            true
        }
        None => false,
    };
    if let Some(c) = cli::value::<u64>(m, "connections") {
        config.params.connections = c as u32;
    }
    if let Some(a) = cli::value(m, "arrival") {
        config.params.arrival = a;
    }
    if let Some(c) = cli::value::<u64>(m, "concurrency") {
        config.concurrency = c as u32;
    }
    if let Some(s) = cli::value::<u64>(m, "request-size") {
        config.request_size = s as u32;
    }
    if let Some(s) = cli::value(m, "time-limit") {
        config.time_limit = Duration::from_secs(s);
    }
    config.compare_sim = cli::on(m, "compare-sim");
    if let Some(p) = cli::value::<u64>(m, "port") {
        config.port = p as u16;
    }
    if let Some(b) = cli::value::<u64>(m, "backlog") {
        config.backlog = b as u32;
    }
    if let Some(why) = config.beyond_time_limit() {
        return cli::err(why);
    }
    Ok(BenchArgs {
        config,
        named,
        json: cli::on(m, "json"),
    })
}

/// Parse `check accept-mutex`'s or `check accept`'s flags.
pub fn check_args(m: &ArgMatches) -> Result<CheckArgs, CliError> {
    let mut params = check::default_params();
    cli::apply_keys::<Accept>(&mut params, CHECK_KEYS, m)?;
    if let Some(w) = cli::value::<u64>(m, "workers") {
        params.workers = w as u32;
    }
    if let Some(c) = cli::value::<u64>(m, "connections") {
        params.connections = c as u32;
    }
    if let Some(r) = cli::value::<u64>(m, "requests") {
        params.requests = r as u32;
    }
    if params.variant != MutexVariant::Correct && params.strategy != Strategy::AcceptMutex {
        return cli::err(format!(
            "--variant: {} is a broken accept mutex; it needs --strategy accept-mutex",
            params.variant.name()
        ));
    }
    Ok(CheckArgs {
        params,
        config: cli::check_config(m),
        json: cli::on(m, "json"),
    })
}

/// `check accept-mutex` (`strategy`: false) or `check accept` (true).
fn check_command(strategy: bool) -> clap::Command {
    let first = if strategy {
        key(STRATEGY)
    } else {
        refused(
            "strategy",
            format!(
                "check accept-mutex checks the accept mutex; use check accept --strategy NAME for another strategy (allowed: {})",
                Strategy::NAMES.join(", ")
            ),
        )
    };
    let (name, about, example) = if strategy {
        (
            "accept",
            "Model-check an accept strategy on the simulator",
            "herdlab check accept --strategy exclusive --workers 3",
        )
    } else {
        (
            "accept-mutex",
            "Model-check nginx's accept mutex on the simulator",
            "herdlab check accept-mutex --variant unlock-before-accept",
        )
    };
    subcommand(
        name,
        about,
        CHECK_ABOUT,
        example,
        [
            first,
            ranged("workers", "workers (default 2)", 1, 4),
            ranged("connections", "connections (default 2)", 1, 6),
            ranged("requests", "requests per connection (default 1)", 1, 4),
            key(VARIANT),
            key(MULTI_ACCEPT),
            key(WORKER_CONNECTIONS),
            key(REORDER_EVERY),
        ]
        .into_iter()
        .chain(cli::bounds())
        .chain([json()]),
    )
    .display_order(2)
}

impl NativeMechanism for Accept {
    fn sim_command() -> clap::Command {
        subcommand(
            "accept",
            "Simulate event-loop workers sharing a listening socket",
            SIM_ABOUT,
            "herdlab sim accept --strategy exclusive,reuseport --workers 8 --json",
            std::iter::once(strategies())
                .chain(key_args::<Accept>(SIM_KEYS))
                .chain([cli::max_steps(), json()]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let rows = cmd::run_sim(&a.params, &a.strategies, a.max_steps);
        Ok(if a.json {
            match (a.named, rows.as_slice()) {
                (true, [one]) => print_json(one, false),
                _ => print_json(&rows, false),
            }
        } else {
            print!("{}", cmd::render_sim(&rows));
            ExitCode::SUCCESS
        })
    }

    fn bench_command() -> clap::Command {
        let not_here = |f: &'static str| {
            refused(
                f,
                "bench accept does not take it (sim accept does); allowed: --strategy, \
                 --workers, --connections, --rate, --arrival, --requests, --service-ns, \
                 --think-ns, --reorder-every, --multi-accept, --mutex-delay-ms, --concurrency, \
                 --request-size, --time-limit, --port, --backlog, --seed, --json, --quick, \
                 --compare-sim"
                    .to_string(),
            )
        };
        subcommand(
            "accept",
            "Run core's accept workers on real threads and loopback sockets",
            BENCH_ABOUT,
            "herdlab bench accept --quick --strategy herd,exclusive --compare-sim",
            [
                strategies(),
                key(WORKERS),
                ranged(
                    "connections",
                    "connections per strategy (default 600; --quick 200)",
                    1,
                    native::MAX_CONNECTIONS as u64,
                ),
                key(RATE),
                flag(
                    "arrival",
                    "steady or poisson (default poisson)",
                    "allowed: steady, poisson",
                    |v| match ArrivalPattern::from_name(v) {
                        Some(a @ (ArrivalPattern::Steady | ArrivalPattern::Poisson)) => Ok(a),
                        Some(_) => Err(format!(
                            "{v} waits for every worker to be asleep, which only the simulator \
                             sees (sim accept takes it); allowed: steady, poisson"
                        )),
                        None => Err(format!(
                            "'{}' is not allowed; allowed: steady, poisson",
                            herdlab_core::mechanism::shown(v)
                        )),
                    },
                )
                .value_name("ARRIVAL"),
                key(REQUESTS),
                key(SERVICE),
                key(THINK),
                key(REORDER_EVERY),
                key(MULTI_ACCEPT),
                key(DELAY),
                ranged(
                    "concurrency",
                    "connections open at once at most (default 64)",
                    1,
                    native::MAX_CONCURRENCY as u64,
                ),
                ranged(
                    "request-size",
                    "request bytes (default 64)",
                    12,
                    native::MAX_REQUEST_SIZE as u64,
                ),
                ranged(
                    "time-limit",
                    "seconds the load generator may run per strategy (default 60)",
                    1,
                    native::MAX_TIME_LIMIT_S,
                ),
                ranged(
                    "port",
                    "the port on 127.0.0.1 (default 0: a free one the kernel picks)",
                    0,
                    u16::MAX as u64,
                ),
                ranged(
                    "backlog",
                    "the listen backlog (default 4096; capped by net.core.somaxconn)",
                    1,
                    native::MAX_BACKLOG as u64,
                ),
                key(SEED),
                json(),
                switch("quick", "200 connections per strategy"),
                switch(
                    "compare-sim",
                    "the simulator's prediction under each measured row",
                ),
                not_here("cpus"),
                not_here("burst"),
                not_here("variant"),
                not_here("worker-connections"),
                not_here("max-steps"),
            ],
        )
    }

    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = bench_args(m)?;
        if let Err(e) = native::supported() {
            eprintln!("herdlab: bench accept: {e}");
            return Ok(ExitCode::from(2));
        }
        if let (got, Some(_)) = cmd::effective_backlog(a.config.backlog) {
            eprintln!(
                "herdlab: note: --backlog {asked} is capped by net.core.somaxconn \
                 (/proc/sys/net/core/somaxconn): the listen backlog is {got}; `sysctl -w \
                 net.core.somaxconn={asked}` as root raises the cap",
                asked = a.config.backlog
            );
        }
        Ok(match cmd::run_bench(&a.config, true) {
            Ok(rows) => {
                for w in cmd::warnings(&rows) {
                    eprintln!("herdlab: warning: {w}");
                }
                if a.json {
                    match (a.named, rows.as_slice()) {
                        (true, [one]) => print_json(one, true),
                        _ => print_json(&rows, true),
                    }
                } else {
                    print!("{}", cmd::render_bench(&rows));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                // (on a line of its own, after the progress bar's)
                eprintln!("\nherdlab: bench accept: {e}");
                ExitCode::FAILURE
            }
        })
    }

    fn check_commands() -> Vec<clap::Command> {
        vec![check_command(false), check_command(true)]
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

    fn sim(s: &str) -> Result<SimArgs, CliError> {
        sim_args(&matches(s)?)
    }

    fn bench(s: &str) -> BenchArgs {
        bench_args(&matches(s).unwrap()).unwrap()
    }

    fn check(s: &str) -> Result<CheckArgs, CliError> {
        check_args(&matches(s)?)
    }

    #[test]
    fn sim_accept_defaults_flags_and_refusals() {
        let SimArgs {
            params,
            strategies,
            named,
            max_steps,
            json,
        } = sim("sim accept").unwrap();
        assert_eq!(params, AcceptParams::default());
        assert_eq!(strategies, Strategy::ALL.to_vec());
        assert!(!named && !json);
        assert_eq!(max_steps, cmd::DEFAULT_MAX_STEPS);
        let SimArgs {
            params,
            strategies,
            named,
            json,
            ..
        } = sim(
            "sim accept --strategy exclusive --workers 4 --cpus 3 --connections 50 --rate 900 \
             --arrival steady --burst 2 --requests 3 --service-ns 0 --think-ns 7 --multi-accept \
             --reorder-every 0 --mutex-delay-ms 20 --worker-connections 64 --seed 9 --json \
             --local-clients",
        )
        .unwrap();
        assert_eq!(strategies, vec![Strategy::Exclusive]);
        assert!(named && json);
        assert_eq!(
            (params.workers, params.cpus, params.connections, params.rate),
            (4, 3, 50, 900)
        );
        assert_eq!(params.arrival, ArrivalPattern::Steady);
        assert_eq!((params.burst, params.requests), (2, 3));
        assert_eq!((params.service_ns, params.think_ns), (0, 7));
        assert!(params.multi_accept && params.local_clients);
        assert_eq!((params.reorder_every, params.mutex_delay_ms), (0, 20));
        assert_eq!((params.worker_connections, params.seed), (64, 9));
        let SimArgs { params, .. } =
            sim("sim accept --strategy accept-mutex --variant no-timer").unwrap();
        assert_eq!(params.variant, MutexVariant::NoTimer);
        assert_eq!(
            msg("sim accept --strategy bogus"),
            "--strategy: 'bogus' is not allowed; allowed: herd, shared-epoll, exclusive, \
             accept-mutex, reuseport, blocking"
        );
        assert!(msg("sim accept --strategy")
            .starts_with("--strategy: missing value; allowed: herd, shared-epoll"));
        assert_eq!(
            msg("sim accept --workers 65"),
            "--workers: 65 is out of range; allowed 1-64"
        );
        assert!(msg("sim accept --cpus 17").contains("allowed 1-16"));
        assert!(msg("sim accept --connections 0").contains("allowed 1-1000000"));
        assert!(msg("sim accept --rate 10000001").contains("allowed 1-10000000"));
        assert!(msg("sim accept --requests 1001").contains("allowed 1-1000"));
        assert!(msg("sim accept --service-ns x").starts_with("--service-ns: 'x' is not a whole"));
        assert_eq!(
            msg("sim accept --arrival sometimes"),
            "--arrival: 'sometimes' is not allowed; allowed: on-demand, burst, poisson, steady"
        );
        assert!(sim("sim accept --variant no-timer")
            .unwrap_err()
            .0
            .starts_with(
                "--variant: no-timer is a broken accept mutex; it needs --strategy accept-mutex"
            ));
        assert!(msg("sim accept --variant nope")
            .contains("allowed: correct, unlock-before-accept, no-disable, no-timer"));
        let m = msg("sim accept --threads 2");
        assert!(
            m.starts_with("sim accept: unknown flag '--threads'") && m.contains("--mutex-delay-ms"),
            "{m}"
        );
        assert_eq!(
            msg("sim accept --multi-accept=1"),
            "--multi-accept: takes no value"
        );
    }

    #[test]
    fn bench_accept_defaults_quick_and_refusals() {
        let BenchArgs {
            config,
            named,
            json,
        } = bench("bench accept");
        assert!(!named && !json && !config.compare_sim);
        assert_eq!(config.strategies, Strategy::ALL.to_vec());
        assert_eq!(
            (
                config.params.workers,
                config.params.rate,
                config.params.connections
            ),
            (8, 200, 600)
        );
        assert_eq!(config.params.cpus, cmd::machine_cpus());
        assert_eq!((config.concurrency, config.request_size), (64, 64));
        assert_eq!(config.time_limit.as_secs(), 60);
        assert_eq!((config.port, config.backlog), (0, 4096));
        let c = bench("bench accept --port 65535 --backlog 1").config;
        assert_eq!((c.port, c.backlog), (65535, 1));
        assert_eq!(bench("bench accept --port 0").config.port, 0);
        assert_eq!(
            msg("bench accept --port 65536"),
            "--port: 65536 is out of range; allowed 0-65535"
        );
        assert_eq!(
            msg("bench accept --backlog 0"),
            "--backlog: 0 is out of range; allowed 1-65535"
        );
        assert!(msg("bench accept --port").contains("allowed 0-65535"));
        // a schedule longer than the time limit: refused before it starts
        let refused = |s: &str| bench_args(&matches(s).unwrap()).unwrap_err().0;
        let c = bench("bench accept --arrival steady --connections 600 --rate 10").config;
        assert_eq!(c.beyond_time_limit(), None);
        assert_eq!(
            refused("bench accept --arrival steady --connections 601 --rate 10"),
            "--time-limit: 601 connections at 10/s (steady arrivals) arrive over 60.1 s, more \
             than the time limit of 60 s; allowed: a schedule within it: about 600 connections \
             at this rate, a --rate of at least 11, or a --time-limit of at least 61"
        );
        assert!(
            refused("bench accept --connections 200000 --rate 1 --time-limit 600").contains(
                "about 600 connections at this rate, a --rate of at least 334 (the longest \
                 --time-limit, 600 s, is too short)"
            )
        );
        let BenchArgs {
            config,
            named,
            json,
        } = bench(
            "bench accept --strategy herd,blocking --workers 4 --rate 300 --requests 2 \
             --service-ns 0 --think-ns 5 --reorder-every 0 --multi-accept --mutex-delay-ms 50 \
             --concurrency 8 --request-size 100 --time-limit 9 --seed 3 --arrival steady \
             --json --quick --compare-sim",
        );
        assert!(named && json && config.compare_sim);
        assert_eq!(config.strategies, vec![Strategy::Herd, Strategy::Blocking]);
        let q = config.params;
        assert_eq!(
            (q.workers, q.rate, q.requests, q.connections),
            (4, 300, 2, 200)
        );
        assert_eq!((q.service_ns, q.think_ns, q.reorder_every), (0, 5, 0));
        assert!(q.multi_accept);
        assert_eq!((q.mutex_delay_ms, q.seed), (50, 3));
        assert_eq!(q.arrival, ArrivalPattern::Steady);
        assert_eq!((config.concurrency, config.request_size), (8, 100));
        assert_eq!(config.time_limit.as_secs(), 9);
        assert_eq!(
            bench("bench accept --connections 7")
                .config
                .params
                .connections,
            7
        );
        assert!(msg("bench accept --connections 200001").contains("allowed 1-200000"));
        assert!(msg("bench accept --concurrency 0").contains("allowed 1-256"));
        assert!(msg("bench accept --request-size 11").contains("allowed 12-65536"));
        assert!(msg("bench accept --time-limit 601").contains("allowed 1-600"));
        assert!(msg("bench accept --arrival burst")
            .starts_with("--arrival: burst waits for every worker to be asleep"));
        assert_eq!(
            msg("bench accept --arrival x"),
            "--arrival: 'x' is not allowed; allowed: steady, poisson"
        );
        assert!(msg("bench accept --cpus 2").starts_with("--cpus: bench accept does not take it"));
        assert!(msg("bench accept --max-steps").starts_with("--max-steps: bench accept does not"));
        assert!(msg("bench accept --strategy herd,nope").contains("'nope' is not allowed"));
        assert!(msg("bench accept --events 3").contains("bench accept: unknown flag '--events'"));
    }

    #[test]
    fn check_accept_flags_and_refusals() {
        let a = check("check accept-mutex").unwrap();
        assert_eq!(a.params, check::default_params());
        assert_eq!(a.config, CheckConfig::default());
        let a = check(
            "check accept --strategy exclusive --workers 3 --connections 6 --requests 4 \
             --multi-accept --worker-connections 9 --reorder-every 2 --max-states 9 --json",
        )
        .unwrap();
        let p = a.params;
        assert_eq!(p.strategy, Strategy::Exclusive);
        assert_eq!((p.workers, p.connections, p.requests), (3, 6, 4));
        assert!(p.multi_accept && a.json);
        assert_eq!((p.worker_connections, p.reorder_every), (9, 2));
        assert_eq!(a.config.max_states, 9);
        assert!(msg("check accept-mutex --strategy herd")
            .starts_with("--strategy: check accept-mutex checks the accept mutex"));
        assert!(msg("check accept-mutex --workers 5").contains("allowed 1-4"));
        assert!(msg("check accept --connections 7").contains("allowed 1-6"));
        assert!(check("check accept --strategy herd --variant no-timer")
            .unwrap_err()
            .0
            .starts_with("--variant: no-timer is a broken accept mutex"));
        let m = msg("check accept-mutex --bogus");
        assert!(
            m.starts_with("check accept-mutex: unknown flag '--bogus'; allowed: --workers"),
            "{m}"
        );
    }
}
