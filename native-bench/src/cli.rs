//! The `herdlab` command line, parsed by hand.
//!
//! Every refusal names the problem and the allowed values; the herd's flags go through
//! `herdlab_core::scenario::set_herd_param` and `validate_herd`, and the locks' flags through
//! `set_lock_param` and `validate_locks`, so their messages are the ones the web page shows for the
//! same keys.

use herdlab_core::accept::{AcceptParams, MutexVariant, Strategy};
use herdlab_core::check::CheckConfig;
use herdlab_core::herd::HerdParams;
use herdlab_core::locks::shmtx::ShmtxVariant;
use herdlab_core::locks::{LockKind, LockParams};
use herdlab_core::scenario::{
    set_accept_param, set_herd_param, set_lock_param, validate_herd, validate_locks, ParamError,
    HERD_KEYS,
};

use crate::mechanisms::accept::check as check_accept;
use crate::mechanisms::accept::cmd::{self as accept_cmd, AcceptBenchConfig};
use crate::mechanisms::accept::native::{
    MAX_CONCURRENCY, MAX_CONNECTIONS as MAX_NATIVE_CONNECTIONS, MAX_REQUEST_SIZE, MAX_TIME_LIMIT_S,
};
use crate::mechanisms::herd::bench::{
    DEFAULT_EVENTS, DEFAULT_THREADS, QUICK_EVENTS, QUICK_THREADS,
};
use crate::mechanisms::herd::check as check_herd;
use crate::mechanisms::herd::native::{MAX_EVENTS, MAX_THREADS};
use crate::mechanisms::herd::sim::DEFAULT_MAX_STEPS;
use crate::mechanisms::locks::bench::LockBenchConfig;
use crate::mechanisms::locks::check::default_params;
use crate::mechanisms::locks::native::{self as native_locks, BenchLock, Form};
use herdlab_core::sim::arrivals::ArrivalPattern;

/// The usage text (`herdlab --help`).
pub const USAGE: &str = "\
herdlab: the thundering herd, nginx's ngx_shmtx and accept strategies, simulated, model-checked and
on real threads

usage:
  herdlab sim herd [--workers N] [--cpus C] [--mode wake-all|exclusive|lifo-exclusive]
                   [--arrival on-demand|burst|poisson] [--burst K] [--rate R]
                   [--connections C] [--service NS] [--variant correct|broken-sleeper]
                   [--primitive accept|futex|condvar] [--seed S] [--max-steps N] [--json]
      Run a herd scenario headless on the simulated platform and print its counters.
      Defaults and ranges are those of the scenario table (workers 1-64, cpus 1-16, ...).

  herdlab sim locks [--lock shmtx|ttas|spin-yield|ticket|futex] [--variant V] [--threads N]
                    [--rounds M] [--cpus C] [--spin S] [--no-semaphore] [--yield Y] [--cs NS]
                    [--crash [--no-master]] [--seed S] [--max-steps N] [--json]
      Run a lock scenario headless on the simulated platform to the end: steps, acquisitions,
      failed CAS, pauses, semaphore sleeps and posts, yields, context switches, simulated and
      CPU time, acquisitions per thread with the least and most served shares, and the first
      lock invariant broken, if any. Defaults: shmtx, correct, 4 threads x 20 rounds, 2 cpus,
      spin 2048 (nginx), semaphore on, yield after 64, cs 100 ns, seed 1.
      --crash (shmtx): thread 0 dies holding the lock in its first round; a master process reaps
      it and runs ngx_shmtx_force_unlock with its pid (--no-master: nobody does, and the others
      wait forever).

  herdlab sim accept [--strategy herd|shared-epoll|exclusive|accept-mutex|reuseport|blocking]
                     [--workers N] [--cpus C] [--connections C] [--rate PER_SECOND]
                     [--arrival steady|poisson|burst|on-demand] [--burst K] [--requests K]
                     [--service-ns NS] [--think-ns NS] [--multi-accept] [--reorder-every K]
                     [--mutex-delay-ms MS] [--worker-connections N]
                     [--variant correct|unlock-before-accept|no-disable|no-timer] [--seed S]
                     [--local-clients] [--max-steps N] [--json]
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
      which it takes for 5 us, so its next request or close lands before the worker sleeps).

  herdlab check shmtx [--variant NAME] [--threads N] [--rounds M] [--spin N] [--cpus C]
                      [--no-semaphore] [--crash [--no-master]] [--preemption-bound K]
                      [--max-states N] [--json]
  herdlab check shmtx --list-variants
  herdlab check ttas|spin-yield|ticket|futex [--threads N] [--rounds M] [--yield Y (spin-yield)]
                      [--preemption-bound K] [--max-states N] [--json]
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
      unlock-reads-wait-first, plain-load-store, seed-listing. The other locks have only correct.

  herdlab check herd [--workers N] [--cpus C] [--mode wake-all|exclusive|lifo-exclusive]
                     [--connections C] [--variant correct|broken-sleeper]
                     [--primitive accept|futex|condvar] [--service NS] [--seed S]
                     [--preemption-bound K] [--max-states N] [--json]
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
      2 connections ~900 states; 3 x 3 ~70000 states, well under a second.

  herdlab check accept-mutex [--workers N] [--connections C] [--requests K]
                             [--variant correct|unlock-before-accept|no-disable|no-timer]
                             [--multi-accept] [--worker-connections N]
                             [--preemption-bound K] [--max-states N] [--json]
  herdlab check accept --strategy herd|shared-epoll|exclusive|accept-mutex|reuseport|blocking
                       [the same flags]
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
      (about a second).

  herdlab bench herd [--threads 2,8,32,128] [--events E] [--quick] [--json]
      Run core's herd machines on real threads (Linux): futex wake-all/wake-one,
      condvar notify_all/notify_one, and a blocking accept on a loopback listener.
      Default: 200 events per row; --quick: 50 events, threads 2,8,32.

  herdlab bench locks [--quick] [--json] [--threads LIST] [--locks LIST] [--cs LIST]
                      [--layout padded|packed|both] [--ms N] [--form straight|stepped|both]
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
      wait p50/p99 (ns from starting to lock to holding it, one acquisition in 16 timed).

  herdlab bench accept [--strategy LIST] [--workers N] [--connections C] [--rate PER_SECOND]
                       [--arrival steady|poisson] [--requests K] [--service-ns NS]
                       [--think-ns NS] [--reorder-every K] [--multi-accept] [--mutex-delay-ms MS]
                       [--concurrency N] [--request-size BYTES] [--time-limit S] [--seed S]
                       [--json] [--quick] [--compare-sim]
      Run core's accept workers on real threads (Linux): real epoll instances (EPOLLEXCLUSIVE,
      a shared epoll, SO_REUSEPORT listeners, a blocking accept) on 127.0.0.1, against a load
      generator on its own threads that opens --connections connections at --rate per second
      (core's arrival times for the scenario), at most --concurrency open at once, each sending
      --requests requests of --request-size bytes (keep-alive) and reading a 64-byte response,
      waiting --think-ns after each, then closing. The generator stops after the last
      connection or after --time-limit seconds (default 60; it says so); errors are reported.
      Wakeups are the workers' voluntary context switches around each blocking call (getrusage
      RUSAGE_THREAD), split into useful, wasted and timer wakeups as the simulator counts them;
      accept latency runs from the client's connect() returning to the server's accept4()
      returning (0 when the server accepted first: woken workers preempted the client on its
      CPU). Columns as sim accept. --compare-sim: under each measured row the simulator's
      prediction for the same parameters (cpus = this machine's, --local-clients), with its difference from the
      measurement; in JSON a `sim` field. Default: every strategy, 8 workers, 600 connections
      each at 200/s (3 s), poisson arrivals, 1 request; --quick: 200 connections. Ranges:
      workers 1-64, connections 1-200000, rate 1-10000000, requests 1-1000, concurrency 1-256
      (default 64), request-size 12-65536 (default 64), time-limit 1-600.

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
    /// `sim locks`.
    SimLocks {
        /// The scenario.
        params: LockParams,
        /// The step bound.
        max_steps: u64,
        /// Print JSON instead of a table.
        json: bool,
    },
    /// `sim accept`.
    SimAccept {
        /// The scenario (its strategy is each row's).
        params: AcceptParams,
        /// The strategies to simulate, in order.
        strategies: Vec<Strategy>,
        /// Whether the strategies were named (one named strategy prints one JSON object).
        named: bool,
        /// The step bound.
        max_steps: u64,
        /// Print JSON instead of a table.
        json: bool,
    },
    /// `bench accept`.
    BenchAccept {
        /// What to run.
        config: AcceptBenchConfig,
        /// Whether the strategies were named (one named strategy prints one JSON object).
        named: bool,
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
    /// `bench locks`.
    BenchLocks {
        /// The rows to run.
        config: LockBenchConfig,
        /// Print JSON instead of a table.
        json: bool,
    },
    /// `check <lock>`.
    Check {
        /// The scenario.
        params: LockParams,
        /// The search's bounds.
        config: CheckConfig,
        /// Print JSON instead of text.
        json: bool,
    },
    /// `check <lock> --list-variants`.
    ListVariants {
        /// The lock.
        lock: LockKind,
    },
    /// `check accept-mutex` / `check accept`.
    CheckAccept {
        /// The scenario (its arrival pattern is ignored: the network may act at any point).
        params: AcceptParams,
        /// The search's bounds.
        config: CheckConfig,
        /// Print JSON instead of text.
        json: bool,
    },
    /// `check herd`.
    CheckHerd {
        /// The scenario (its arrival pattern is ignored: the checker explores every arrival time).
        params: HerdParams,
        /// The search's bounds.
        config: CheckConfig,
        /// Print JSON instead of text.
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

const COMMANDS: &str = "sim, bench, check, help";
const MECHANISMS: &str = "herd, locks, accept";
const BENCH_FLAGS: [&str; 4] = ["--threads", "--events", "--quick", "--json"];
const BENCH_LOCK_FLAGS: [&str; 8] = [
    "--quick",
    "--json",
    "--threads",
    "--locks",
    "--cs",
    "--layout",
    "--ms",
    "--form",
];
const SIM_ACCEPT_FLAGS: [&str; 19] = [
    "--strategy",
    "--workers",
    "--cpus",
    "--connections",
    "--rate",
    "--arrival",
    "--burst",
    "--requests",
    "--service-ns",
    "--think-ns",
    "--multi-accept",
    "--reorder-every",
    "--mutex-delay-ms",
    "--worker-connections",
    "--variant",
    "--local-clients",
    "--seed",
    "--max-steps",
    "--json",
];
const BENCH_ACCEPT_FLAGS: [&str; 18] = [
    "--strategy",
    "--workers",
    "--connections",
    "--rate",
    "--arrival",
    "--requests",
    "--service-ns",
    "--think-ns",
    "--reorder-every",
    "--multi-accept",
    "--mutex-delay-ms",
    "--concurrency",
    "--request-size",
    "--time-limit",
    "--seed",
    "--json",
    "--quick",
    "--compare-sim",
];
const SIM_LOCK_FLAGS: [&str; 14] = [
    "--lock",
    "--variant",
    "--threads",
    "--rounds",
    "--cpus",
    "--spin",
    "--no-semaphore",
    "--crash",
    "--no-master",
    "--yield",
    "--cs",
    "--seed",
    "--max-steps",
    "--json",
];
const CHECK_FLAGS: [&str; 13] = [
    "--variant",
    "--threads",
    "--rounds",
    "--spin",
    "--cpus",
    "--no-semaphore",
    "--crash",
    "--no-master",
    "--yield",
    "--preemption-bound",
    "--max-states",
    "--json",
    "--list-variants",
];
const CHECK_ACCEPT_FLAGS: [&str; 11] = [
    "--strategy",
    "--workers",
    "--connections",
    "--requests",
    "--variant",
    "--multi-accept",
    "--worker-connections",
    "--reorder-every",
    "--preemption-bound",
    "--max-states",
    "--json",
];
const CHECK_HERD_FLAGS: [&str; 11] = [
    "--workers",
    "--cpus",
    "--mode",
    "--connections",
    "--variant",
    "--primitive",
    "--service",
    "--seed",
    "--preemption-bound",
    "--max-states",
    "--json",
];
/// The most states `--max-states` accepts.
pub const MAX_CHECK_STATES: u64 = 1_000_000_000;
/// The largest `--preemption-bound`.
pub const MAX_PREEMPTION_BOUND: u64 = 10_000;

fn is_help(a: &str) -> bool {
    matches!(a, "help" | "--help" | "-h")
}

fn lock_names() -> String {
    LockKind::ALL.map(LockKind::name).join(", ")
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
        "check" => return parse_check_command(&args[1..]),
        other => return err(format!("'{other}' is not a command; allowed: {COMMANDS}")),
    }
    let mech = match args.get(1).map(String::as_str) {
        None => return err(format!("{cmd}: missing mechanism; allowed: {MECHANISMS}")),
        Some(h) if is_help(h) => return Ok(Command::Help),
        Some(m @ ("herd" | "locks" | "accept")) => m,
        Some(m) => {
            return err(format!(
                "{cmd}: '{m}' is not a mechanism; allowed: {MECHANISMS}"
            ))
        }
    };
    let flags = split_flags(&args[2..], &format!("{cmd} {mech}"))?;
    if flags.iter().any(|(f, _)| f == "--help") {
        return Ok(Command::Help);
    }
    match (cmd.as_str(), mech) {
        ("sim", "herd") => parse_sim(flags),
        ("sim", "accept") => parse_sim_accept(flags),
        ("sim", _) => parse_sim_locks(flags),
        (_, "herd") => parse_bench(flags),
        (_, "accept") => parse_bench_accept(flags),
        _ => parse_bench_locks(flags),
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
    !matches!(
        flag,
        "--json"
            | "--quick"
            | "--help"
            | "--no-semaphore"
            | "--crash"
            | "--no-master"
            | "--list-variants"
            | "--multi-accept"
            | "--compare-sim"
    )
}

/// Split `--flag value` / `--flag=value` / `--switch` into pairs (flag names are checked later).
fn split_flags(rest: &[String], what: &str) -> Result<Vec<(String, Option<String>)>, CliError> {
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
                "{what}: unexpected argument '{a}'; flags start with --"
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

/// The allowed values of a key, as core's own message for an empty value states them.
fn allowed_in(empty_value: Result<(), ParamError>) -> String {
    match empty_value {
        Err(e) => match e.message.rsplit_once("allowed") {
            Some((_, a)) => a.trim_start_matches(':').trim().to_string(),
            None => e.message,
        },
        Ok(()) => String::new(),
    }
}

/// A flag's value, or the refusal `<flag>: missing value; allowed: <allowed>`.
fn value_of(flag: &str, value: Option<String>, allowed: &str) -> Result<String, CliError> {
    value.ok_or_else(|| CliError(format!("{flag}: missing value; allowed: {allowed}")))
}

/// A whole-number flag in `lo..=hi` (a missing value is refused with the range).
fn ranged(flag: &str, value: Option<String>, lo: u64, hi: u64) -> Result<u64, CliError> {
    let v = value.ok_or_else(|| CliError(format!("{flag}: missing value; allowed {lo}-{hi}")))?;
    range_u64(flag, &v, lo, hi)
}

/// Core's refusal of a field, as a flag's.
fn param_error(e: &ParamError) -> String {
    format!("--{}: {}", e.field, e.message)
}

/// Core's validation: nothing, or every problem, one line each.
fn all_valid(errs: Vec<ParamError>) -> Result<(), CliError> {
    if errs.is_empty() {
        return Ok(());
    }
    err(errs.iter().map(param_error).collect::<Vec<_>>().join("\n"))
}

/// Set a herd field from `--key value` through core's `set_herd_param`.
fn set_herd_flag(p: &mut HerdParams, flag: &str, value: Option<String>) -> Result<(), CliError> {
    let key = flag.trim_start_matches("--");
    let v = value_of(
        flag,
        value,
        &allowed_in(set_herd_param(&mut HerdParams::default(), key, "")),
    )?;
    set_herd_param(p, key, &v).map_err(|e| CliError(param_error(&e)))
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
            "--max-steps" => max_steps = max_steps_of(value)?,
            f => {
                if !HERD_KEYS.contains(&f.trim_start_matches("--")) {
                    return err(format!(
                        "sim herd: unknown flag '{f}'; allowed: {}",
                        sim_flags().join(", ")
                    ));
                }
                set_herd_flag(&mut params, f, value)?;
            }
        }
    }
    all_valid(validate_herd(&params))?;
    Ok(Command::SimHerd {
        params,
        max_steps,
        json,
    })
}

/// `--threads LIST`, each count `1..=max` (`example` shows a list in the refusal of a missing
/// value).
fn threads_flag(value: Option<String>, max: u32, example: &str) -> Result<Vec<u32>, CliError> {
    let v = value_of(
        "--threads",
        value,
        &format!("a comma-separated list of counts, each 1-{max} (e.g. {example})"),
    )?;
    parse_threads_upto(&v, max)
}

fn parse_threads_upto(v: &str, max: u32) -> Result<Vec<u32>, CliError> {
    let allowed = format!(
        "allowed: a comma-separated list of up to 16 counts, each 1-{max} (e.g. 2,8,32,128)"
    );
    let mut out = Vec::new();
    for part in v.split(',') {
        match part.trim().parse::<u32>() {
            Ok(n) if (1..=max).contains(&n) => out.push(n),
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
            "--threads" => threads = Some(threads_flag(value, MAX_THREADS, "2,8,32,128")?),
            "--events" => events = Some(ranged("--events", value, 1, MAX_EVENTS as u64)? as u32),
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

/// Set a lock field from `--key value` through core's `set_lock_param`.
fn set_lock_flag(p: &mut LockParams, flag: &str, value: Option<String>) -> Result<(), CliError> {
    let key = flag.trim_start_matches("--");
    let v = value_of(
        flag,
        value,
        &allowed_in(set_lock_param(&mut LockParams::default(), key, "")),
    )?;
    set_lock_param(p, key, &v).map_err(|e| CliError(param_error(&e)))
}

fn validated(p: &LockParams) -> Result<(), CliError> {
    all_valid(validate_locks(p))
}

fn max_steps_of(value: Option<String>) -> Result<u64, CliError> {
    ranged("--max-steps", value, 1, u64::MAX)
}

fn parse_sim_locks(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut params = LockParams::default();
    let mut max_steps = DEFAULT_MAX_STEPS;
    let mut json = false;
    for (flag, value) in flags {
        match flag.as_str() {
            "--json" => json = true,
            "--no-semaphore" => params.semaphore = false,
            "--crash" => params.crash = true,
            "--no-master" => params.master = false,
            "--max-steps" => max_steps = max_steps_of(value)?,
            f if SIM_LOCK_FLAGS.contains(&f) => set_lock_flag(&mut params, f, value)?,
            f => {
                return err(format!(
                    "sim locks: unknown flag '{f}'; allowed: {}",
                    SIM_LOCK_FLAGS.join(", ")
                ))
            }
        }
    }
    validated(&params)?;
    Ok(Command::SimLocks {
        params,
        max_steps,
        json,
    })
}

fn parse_list<T>(
    flag: &str,
    v: Option<String>,
    allowed: &str,
    one: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, CliError> {
    let v = value_of(flag, v, allowed)?;
    let mut out = Vec::new();
    for part in v.split(',') {
        match one(part.trim()) {
            Some(x) => out.push(x),
            None => {
                return err(format!(
                    "{flag}: '{}' is not allowed; allowed: {allowed}",
                    part.trim()
                ))
            }
        }
    }
    Ok(out)
}

fn parse_bench_locks(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut quick = false;
    let mut json = false;
    let mut threads = None;
    let mut locks = None;
    let mut cs = None;
    let mut layout = None;
    let mut ms = None;
    let mut forms = None;
    let max = native_locks::MAX_THREADS;
    for (flag, value) in flags {
        match flag.as_str() {
            "--json" => json = true,
            "--quick" => quick = true,
            "--threads" => threads = Some(threads_flag(value, max, "1,2,8")?),
            "--locks" => {
                locks = Some(parse_list(
                    "--locks",
                    value,
                    &format!("a comma-separated list of {}", BenchLock::names()),
                    BenchLock::from_name,
                )?)
            }
            "--cs" => {
                cs = Some(parse_list(
                    "--cs",
                    value,
                    "a comma-separated list of nanoseconds, each 0-10000000",
                    |s| s.parse::<u64>().ok().filter(|&n| n <= 10_000_000),
                )?)
            }
            "--layout" => {
                let v = value_of("--layout", value, "padded, packed, both")?;
                layout = Some(match v.as_str() {
                    "padded" => vec![true],
                    "packed" => vec![false],
                    "both" => vec![true, false],
                    _ => {
                        return err(format!(
                            "--layout: '{v}' is not allowed; allowed: padded, packed, both"
                        ))
                    }
                });
            }
            "--ms" => ms = Some(ranged("--ms", value, 1, 60_000)?),
            "--form" => {
                let v = value_of("--form", value, "straight, stepped, both")?;
                forms = Some(match v.as_str() {
                    "both" => Form::ALL.to_vec(),
                    name => match Form::from_name(name) {
                        Some(f) => vec![f],
                        None => {
                            return err(format!(
                                "--form: '{v}' is not allowed; allowed: straight, stepped, both"
                            ))
                        }
                    },
                });
            }
            f => {
                return err(format!(
                    "bench locks: unknown flag '{f}'; allowed: {}",
                    BENCH_LOCK_FLAGS.join(", ")
                ))
            }
        }
    }
    let mut config = LockBenchConfig::new(quick);
    if let Some(t) = threads {
        config.threads = t;
    }
    if let Some(l) = locks {
        config.locks = l;
    }
    if let Some(c) = cs {
        config.cs_ns = c;
    }
    if let Some(l) = layout {
        config.padded = l;
    }
    if let Some(ms) = ms {
        config.row_ms = ms;
    }
    if let Some(f) = forms {
        config.forms = f;
    }
    Ok(Command::BenchLocks { config, json })
}

fn strategy_names() -> String {
    Strategy::NAMES.join(", ")
}

/// `--name value` for a field with named values.
fn named<T>(
    flag: &str,
    value: Option<String>,
    names: &[&str],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, CliError> {
    let allowed = names.join(", ");
    let v = value_of(flag, value, &allowed)?;
    parse(&v).ok_or_else(|| CliError(format!("{flag}: '{v}' is not allowed; allowed: {allowed}")))
}

/// Set one field of an accept scenario from its flag. `Ok(false)`: not a scenario flag.
fn set_accept_flag(
    p: &mut AcceptParams,
    flag: &str,
    value: Option<String>,
) -> Result<bool, CliError> {
    // each flag is one of core's scenario keys, so the ranges and messages are the site's
    let key = match flag {
        "--workers" => "workers",
        "--cpus" => "cpus",
        "--connections" => "connections",
        "--rate" => "rate",
        "--burst" => "burst",
        "--requests" => "requests",
        "--service-ns" => "service",
        "--think-ns" => "think",
        "--reorder-every" => "reorder_every",
        "--mutex-delay-ms" => "delay",
        "--worker-connections" => "worker_connections",
        "--seed" => "seed",
        "--arrival" => "arrival",
        "--variant" => "variant",
        "--multi-accept" => {
            p.multi_accept = true;
            return Ok(true);
        }
        "--local-clients" => {
            p.local_clients = true;
            return Ok(true);
        }
        _ => return Ok(false),
    };
    let v = value_of(
        flag,
        value,
        &allowed_in(set_accept_param(&mut AcceptParams::default(), key, "")),
    )?;
    set_accept_param(p, key, &v).map_err(|e| CliError(format!("{flag}: {}", e.message)))?;
    Ok(true)
}

fn strategies_flag(value: Option<String>) -> Result<Vec<Strategy>, CliError> {
    let allowed = format!("{} (or a comma-separated list)", strategy_names());
    let v = value_of("--strategy", value, &allowed)?;
    let mut out = Vec::new();
    for part in v.split(',') {
        match Strategy::from_name(part.trim()) {
            Some(s) => out.push(s),
            None => {
                return err(format!(
                    "--strategy: '{}' is not allowed; allowed: {}",
                    part.trim(),
                    strategy_names()
                ))
            }
        }
    }
    Ok(out)
}

fn parse_sim_accept(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut params = AcceptParams::default();
    let mut strategies = None;
    let mut max_steps = accept_cmd::DEFAULT_MAX_STEPS;
    let mut json = false;
    for (flag, value) in flags {
        match flag.as_str() {
            "--json" => json = true,
            "--max-steps" => max_steps = max_steps_of(value)?,
            "--strategy" => strategies = Some(strategies_flag(value)?),
            f => {
                if !set_accept_flag(&mut params, f, value)? {
                    return err(format!(
                        "sim accept: unknown flag '{f}'; allowed: {}",
                        SIM_ACCEPT_FLAGS.join(", ")
                    ));
                }
            }
        }
    }
    let named = strategies.is_some();
    let strategies = strategies.unwrap_or_else(|| Strategy::ALL.to_vec());
    if params.variant != MutexVariant::Correct
        && strategies.iter().any(|&s| s != Strategy::AcceptMutex)
    {
        return err(format!(
            "--variant: {} is a broken accept mutex; it needs --strategy accept-mutex (the other strategies take correct)",
            params.variant.name()
        ));
    }
    Ok(Command::SimAccept {
        params,
        strategies,
        named,
        max_steps,
        json,
    })
}

fn parse_bench_accept(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let quick = flags.iter().any(|(f, _)| f == "--quick");
    let mut config = AcceptBenchConfig::new(quick);
    let mut json = false;
    let mut named = false;
    for (flag, value) in flags {
        let f = flag.as_str();
        match f {
            "--json" => json = true,
            "--quick" => {}
            "--compare-sim" => config.compare_sim = true,
            "--strategy" => {
                config.strategies = strategies_flag(value)?;
                named = true;
            }
            "--connections" => {
                config.params.connections =
                    ranged(f, value, 1, MAX_NATIVE_CONNECTIONS as u64)? as u32
            }
            "--arrival" => {
                config.params.arrival = named_arrival(value)?;
            }
            "--concurrency" => {
                config.concurrency = ranged(f, value, 1, MAX_CONCURRENCY as u64)? as u32
            }
            "--request-size" => {
                config.request_size = ranged(f, value, 12, MAX_REQUEST_SIZE as u64)? as u32
            }
            "--time-limit" => {
                config.time_limit =
                    std::time::Duration::from_secs(ranged(f, value, 1, MAX_TIME_LIMIT_S)?)
            }
            "--cpus" | "--burst" | "--variant" | "--worker-connections" | "--max-steps" => {
                return err(format!(
                    "{f}: bench accept does not take it (sim accept does); allowed: {}",
                    BENCH_ACCEPT_FLAGS.join(", ")
                ))
            }
            _ => {
                if !set_accept_flag(&mut config.params, f, value)? {
                    return err(format!(
                        "bench accept: unknown flag '{f}'; allowed: {}",
                        BENCH_ACCEPT_FLAGS.join(", ")
                    ));
                }
            }
        }
    }
    Ok(Command::BenchAccept {
        config,
        named,
        json,
    })
}

/// `bench accept --arrival`: only the paced patterns.
fn named_arrival(value: Option<String>) -> Result<ArrivalPattern, CliError> {
    let paced = ["steady", "poisson"];
    let v = value_of("--arrival", value, &paced.join(", "))?;
    match ArrivalPattern::from_name(&v) {
        Some(a @ (ArrivalPattern::Steady | ArrivalPattern::Poisson)) => Ok(a),
        Some(_) => err(format!(
            "--arrival: {v} waits for every worker to be asleep, which only the simulator sees \
             (sim accept takes it); allowed: steady, poisson"
        )),
        None => err(format!(
            "--arrival: '{v}' is not allowed; allowed: steady, poisson"
        )),
    }
}

fn parse_check_command(rest: &[String]) -> Result<Command, CliError> {
    let allowed = format!("{}, herd, accept-mutex, accept", lock_names());
    let lock = match rest.first().map(String::as_str) {
        None => return err(format!("check: missing lock; allowed: {allowed}")),
        Some(h) if is_help(h) => return Ok(Command::Help),
        Some(m @ ("accept-mutex" | "accept")) => {
            let flags = split_flags(&rest[1..], &format!("check {m}"))?;
            if flags.iter().any(|(f, _)| f == "--help") {
                return Ok(Command::Help);
            }
            return parse_check_accept(m, flags);
        }
        Some("herd") => {
            let flags = split_flags(&rest[1..], "check herd")?;
            if flags.iter().any(|(f, _)| f == "--help") {
                return Ok(Command::Help);
            }
            return parse_check_herd(flags);
        }
        Some(l) => match LockKind::from_name(l) {
            Some(k) => k,
            None => {
                return err(format!(
                    "check: '{l}' is not a lock or mechanism; allowed: {allowed}"
                ))
            }
        },
    };
    let flags = split_flags(&rest[1..], &format!("check {}", lock.name()))?;
    if flags.iter().any(|(f, _)| f == "--help") {
        return Ok(Command::Help);
    }
    parse_check(lock, flags)
}

fn parse_check(lock: LockKind, flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut params = default_params(lock);
    let mut config = CheckConfig::default();
    let mut json = false;
    let mut list = false;
    for (flag, value) in flags {
        let f = flag.as_str();
        let only = |what: &str, who: &str| {
            err::<()>(format!(
                "{f}: only {who} has {what}; {} does not (allowed flags: {})",
                lock.name(),
                check_flags(lock).join(", ")
            ))
        };
        match f {
            "--json" => json = true,
            "--list-variants" => list = true,
            "--no-semaphore" if lock != LockKind::Shmtx => only("a semaphore", "shmtx")?,
            "--no-semaphore" => params.semaphore = false,
            "--crash" | "--no-master" if lock != LockKind::Shmtx => {
                only("a crash scenario (force_unlock)", "shmtx")?
            }
            "--crash" => params.crash = true,
            "--no-master" => params.master = false,
            "--spin" if lock != LockKind::Shmtx => only("a spin count", "shmtx")?,
            "--yield" if lock != LockKind::SpinYield => only("a yield threshold", "spin-yield")?,
            "--preemption-bound" | "--max-states" => set_bound(&mut config, f, value)?,
            "--variant" | "--threads" | "--rounds" | "--cpus" | "--spin" | "--yield" => {
                set_lock_flag(&mut params, f, value)?
            }
            _ => {
                return err(format!(
                    "check {}: unknown flag '{f}'; allowed: {}",
                    lock.name(),
                    check_flags(lock).join(", ")
                ))
            }
        }
    }
    validated(&params)?;
    if list {
        return Ok(Command::ListVariants { lock });
    }
    Ok(Command::Check {
        params,
        config,
        json,
    })
}

/// Set `--preemption-bound` or `--max-states`.
fn set_bound(config: &mut CheckConfig, f: &str, value: Option<String>) -> Result<(), CliError> {
    if f == "--preemption-bound" {
        config.preemption_bound = Some(ranged(f, value, 0, MAX_PREEMPTION_BOUND)? as u32);
    } else {
        config.max_states = ranged(f, value, 1, MAX_CHECK_STATES)?;
    }
    Ok(())
}

/// `check accept-mutex` (the accept mutex) and `check accept` (any strategy, `--strategy`): small
/// scenarios, every interleaving of the workers and the network.
fn parse_check_accept(
    name: &str,
    flags: Vec<(String, Option<String>)>,
) -> Result<Command, CliError> {
    let mut params = check_accept::default_params();
    let mut config = CheckConfig::default();
    let mut json = false;
    for (flag, value) in flags {
        let f = flag.as_str();
        match f {
            "--json" => json = true,
            "--preemption-bound" | "--max-states" => set_bound(&mut config, f, value)?,
            "--strategy" if name == "accept-mutex" => {
                return err(format!(
                    "--strategy: check accept-mutex checks the accept mutex; use check accept --strategy NAME for another strategy (allowed: {})",
                    Strategy::NAMES.join(", ")
                ))
            }
            "--strategy" => {
                params.strategy = named(f, value, &Strategy::NAMES, Strategy::from_name)?;
            }
            "--workers" => params.workers = ranged(f, value, 1, 4)? as u32,
            "--connections" => params.connections = ranged(f, value, 1, 6)? as u32,
            "--requests" => params.requests = ranged(f, value, 1, 4)? as u32,
            _ if CHECK_ACCEPT_FLAGS.contains(&f) => {
                set_accept_flag(&mut params, f, value)?;
            }
            _ => {
                return err(format!(
                    "check {name}: unknown flag '{f}'; allowed: {}",
                    CHECK_ACCEPT_FLAGS
                        .iter()
                        .filter(|x| name == "accept" || **x != "--strategy")
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    if params.variant != MutexVariant::Correct && params.strategy != Strategy::AcceptMutex {
        return err(format!(
            "--variant: {} is a broken accept mutex; it needs --strategy accept-mutex",
            params.variant.name()
        ));
    }
    Ok(Command::CheckAccept {
        params,
        config,
        json,
    })
}

/// `check herd`: the herd's flags through core's `set_herd_param` and `validate_herd`, without the
/// arrival pattern (the checker explores every arrival time).
fn parse_check_herd(flags: Vec<(String, Option<String>)>) -> Result<Command, CliError> {
    let mut params = check_herd::default_params();
    let mut config = CheckConfig::default();
    let mut json = false;
    for (flag, value) in flags {
        let f = flag.as_str();
        match f {
            "--json" => json = true,
            "--preemption-bound" | "--max-states" => set_bound(&mut config, f, value)?,
            "--arrival" | "--burst" | "--rate" => {
                return err(format!(
                    "{f}: check herd takes no arrival pattern: the checker lets the network \
                     deliver each connection at any point, so every arrival time is explored \
                     (the futex and condvar producer publishes its next job once every worker \
                     sleeps); drop {f} (sim herd takes --arrival, --burst and --rate)"
                ))
            }
            _ if CHECK_HERD_FLAGS.contains(&f) => set_herd_flag(&mut params, f, value)?,
            _ => {
                return err(format!(
                    "check herd: unknown flag '{f}'; allowed: {}",
                    CHECK_HERD_FLAGS.join(", ")
                ))
            }
        }
    }
    all_valid(validate_herd(&params))?;
    Ok(Command::CheckHerd {
        params,
        config,
        json,
    })
}

/// The flags `check <lock>` takes.
fn check_flags(lock: LockKind) -> Vec<&'static str> {
    CHECK_FLAGS
        .into_iter()
        .filter(|f| match *f {
            "--spin" | "--no-semaphore" | "--crash" | "--no-master" => lock == LockKind::Shmtx,
            "--yield" => lock == LockKind::SpinYield,
            _ => true,
        })
        .collect()
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
            "'bogus' is not a command; allowed: sim, bench, check, help"
        );
        assert!(msg("").contains("missing command"));
        assert_eq!(
            msg("sim"),
            "sim: missing mechanism; allowed: herd, locks, accept"
        );
        assert_eq!(
            msg("bench lock"),
            "bench: 'lock' is not a mechanism; allowed: herd, locks, accept"
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

    #[test]
    fn sim_locks_flags_reach_the_params() {
        let c = p("sim locks --lock ticket --threads 8 --rounds 7 --cpus 3 --cs 0 --seed 9 --json")
            .unwrap();
        let Command::SimLocks {
            params,
            max_steps,
            json,
        } = c
        else {
            panic!("{c:?}")
        };
        assert_eq!(params.lock, LockKind::Ticket);
        assert_eq!((params.threads, params.rounds, params.cpus), (8, 7, 3));
        assert_eq!((params.cs_ns, params.seed), (0, 9));
        assert_eq!(max_steps, DEFAULT_MAX_STEPS);
        assert!(json);
        let Command::SimLocks { params, .. } =
            p("sim locks --variant seed-listing --spin 16 --no-semaphore --yield 3").unwrap()
        else {
            panic!()
        };
        assert_eq!(params.variant, ShmtxVariant::SeedListing);
        assert_eq!(
            (params.spin, params.semaphore, params.yield_after),
            (16, false, 3)
        );
        assert_eq!(
            p("sim locks"),
            Ok(Command::SimLocks {
                params: LockParams::default(),
                max_steps: DEFAULT_MAX_STEPS,
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
        assert!(msg("sim locks --lock ttas --variant plain-load-store")
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
        let Command::Check {
            params,
            config,
            json,
        } = p("check shmtx").unwrap()
        else {
            panic!()
        };
        assert_eq!(params, default_params(LockKind::Shmtx));
        assert_eq!(
            (params.threads, params.rounds, params.spin, params.cpus),
            (3, 2, 2048, 2)
        );
        assert_eq!(config, CheckConfig::default());
        assert!(!json);
        let Command::Check {
            params,
            config,
            json,
        } = p(
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
        let Command::Check { params, .. } = p("check spin-yield --yield 9").unwrap() else {
            panic!()
        };
        assert_eq!((params.lock, params.yield_after), (LockKind::SpinYield, 9));
        assert_eq!(
            p("check shmtx --list-variants"),
            Ok(Command::ListVariants {
                lock: LockKind::Shmtx
            })
        );
        assert_eq!(p("check --help"), Ok(Command::Help));
    }

    #[test]
    fn check_herd_defaults_and_flags() {
        assert_eq!(
            p("check herd"),
            Ok(Command::CheckHerd {
                params: check_herd::default_params(),
                config: CheckConfig::default(),
                json: false
            })
        );
        let d = check_herd::default_params();
        assert_eq!(
            (d.workers, d.cpus, d.mode, d.connections),
            (2, 2, WakeMode::Exclusive, 2)
        );
        assert_eq!(d.primitive, Primitive::Accept);
        let Command::CheckHerd {
            params,
            config,
            json,
        } = p(
            "check herd --workers 3 --cpus 1 --mode wake-all --connections 4 \
             --variant broken-sleeper --service 0 --seed 7 --preemption-bound 2 \
             --max-states 5000 --json",
        )
        .unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (params.workers, params.cpus, params.mode, params.connections),
            (3, 1, WakeMode::WakeAll, 4)
        );
        assert_eq!(params.variant, herdlab_core::herd::Variant::BrokenSleeper);
        assert_eq!((params.service_ns, params.seed), (0, 7));
        assert_eq!(config.preemption_bound, Some(2));
        assert_eq!(config.max_states, 5000);
        assert!(json);
        let Command::CheckHerd { params, .. } = p("check herd --primitive condvar").unwrap() else {
            panic!()
        };
        assert_eq!(params.primitive, Primitive::Condvar);
        assert_eq!(p("check herd --help"), Ok(Command::Help));
    }

    #[test]
    fn check_herd_refusals() {
        for f in ["--arrival poisson", "--burst 4", "--rate 100"] {
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
        assert!(msg("check herd --workers 0").contains("allowed 1-64"));
        assert!(msg("check herd --mode bogus").contains("allowed: wake-all, exclusive"));
        assert!(msg("check herd --mode").contains("--mode: missing value; allowed: wake-all"));
        assert!(msg("check herd --primitive futex --mode lifo-exclusive")
            .starts_with("--mode: lifo-exclusive needs primitive=accept"));
        assert!(msg("check herd --primitive futex --variant broken-sleeper")
            .starts_with("--variant: broken-sleeper needs primitive=accept"));
        assert!(msg("check herd --max-states 0").contains("allowed 1-1000000000"));
        assert!(msg("check herd --preemption-bound x").contains("not a whole number"));
        assert_eq!(msg("check herd --json=1"), "--json: takes no value");
    }

    #[test]
    fn check_refusals() {
        assert_eq!(
            msg("check"),
            "check: missing lock; allowed: shmtx, ttas, spin-yield, ticket, futex, herd, accept-mutex, accept"
        );
        assert_eq!(
            msg("check mcs"),
            "check: 'mcs' is not a lock or mechanism; allowed: shmtx, ttas, spin-yield, ticket, futex, herd, accept-mutex, accept"
        );
        assert!(msg("check shmtx --variant nope").contains("allowed: correct, no-wait-decrement"));
        assert!(msg("check ttas --variant seed-listing").contains("ttas takes correct"));
        assert!(msg("check shmtx --threads 0").contains("allowed 1-16"));
        assert!(msg("check shmtx --spin 0").contains("allowed 1-65536"));
        assert!(msg("check shmtx --max-states 0").contains("allowed 1-1000000000"));
        assert!(msg("check shmtx --preemption-bound x").contains("not a whole number"));
        assert!(msg("check ticket --spin 4").starts_with("--spin: only shmtx has a spin count"));
        assert!(msg("check futex --no-semaphore").contains("only shmtx has a semaphore"));
        assert!(msg("check shmtx --yield 2").contains("only spin-yield"));
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
        let Command::BenchLocks { config, json } = p("bench locks").unwrap() else {
            panic!()
        };
        assert!(!json);
        assert_eq!(config.row_ms, 300);
        assert_eq!(config.locks.len(), 7);
        assert_eq!(config.cs_ns, vec![0, 100, 1000]);
        assert_eq!(config.padded, vec![true, false]);
        let c = native_locks::cores() as u32;
        assert!(config.threads.contains(&1) && config.threads.contains(&(4 * c)));
        let Command::BenchLocks { config, json } = p(
            "bench locks --quick --json --threads 3,5 --locks shmtx,std --cs 0,50 --layout packed",
        )
        .unwrap() else {
            panic!()
        };
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
        assert!(msg("bench locks --locks shmtx,mcs").contains("'mcs' is not allowed"));
        assert!(msg("bench locks --threads 0").contains("out of range"));
        assert!(msg("bench locks --layout diagonal").contains("allowed: padded, packed, both"));
        assert!(msg("bench locks --events 3").contains("unknown flag '--events'"));
    }
    #[test]
    fn sim_accept_defaults_flags_and_refusals() {
        let Command::SimAccept {
            params,
            strategies,
            named,
            max_steps,
            json,
        } = p("sim accept").unwrap()
        else {
            panic!()
        };
        assert_eq!(params, AcceptParams::default());
        assert_eq!(strategies, Strategy::ALL.to_vec());
        assert!(!named && !json);
        assert_eq!(max_steps, accept_cmd::DEFAULT_MAX_STEPS);
        let Command::SimAccept {
            params,
            strategies,
            named,
            json,
            ..
        } = p(
            "sim accept --strategy exclusive --workers 4 --cpus 3 --connections 50 --rate 900 \
             --arrival steady --burst 2 --requests 3 --service-ns 0 --think-ns 7 --multi-accept \
             --reorder-every 0 --mutex-delay-ms 20 --worker-connections 64 --seed 9 --json",
        )
        .unwrap()
        else {
            panic!()
        };
        assert_eq!(strategies, vec![Strategy::Exclusive]);
        assert!(named && json);
        assert_eq!(
            (params.workers, params.cpus, params.connections, params.rate),
            (4, 3, 50, 900)
        );
        assert_eq!(params.arrival, ArrivalPattern::Steady);
        assert_eq!((params.burst, params.requests), (2, 3));
        assert_eq!((params.service_ns, params.think_ns), (0, 7));
        assert!(params.multi_accept);
        assert_eq!((params.reorder_every, params.mutex_delay_ms), (0, 20));
        assert_eq!((params.worker_connections, params.seed), (64, 9));
        let Command::SimAccept { params, .. } =
            p("sim accept --strategy accept-mutex --variant no-timer").unwrap()
        else {
            panic!()
        };
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
        assert!(msg("sim accept --service-ns x").contains("not a whole number"));
        assert_eq!(
            msg("sim accept --arrival sometimes"),
            "--arrival: 'sometimes' is not allowed; allowed: on-demand, burst, poisson, steady"
        );
        assert!(msg("sim accept --variant no-timer").starts_with(
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
        assert_eq!(p("sim accept --help"), Ok(Command::Help));
    }

    #[test]
    fn bench_accept_defaults_quick_and_refusals() {
        let Command::BenchAccept {
            config,
            named,
            json,
        } = p("bench accept").unwrap()
        else {
            panic!()
        };
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
        assert_eq!(config.params.cpus, accept_cmd::machine_cpus());
        assert_eq!((config.concurrency, config.request_size), (64, 64));
        assert_eq!(config.time_limit.as_secs(), 60);
        let Command::BenchAccept {
            config,
            named,
            json,
        } = p(
            "bench accept --strategy herd,blocking --workers 4 --rate 300 --requests 2 \
             --service-ns 0 --think-ns 5 --reorder-every 0 --multi-accept --mutex-delay-ms 50 \
             --concurrency 8 --request-size 100 --time-limit 9 --seed 3 --arrival steady \
             --json --quick --compare-sim",
        )
        .unwrap()
        else {
            panic!()
        };
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
        assert!(msg("bench accept --strategy herd,nope").contains("'nope' is not allowed"));
        assert!(msg("bench accept --events 3").contains("bench accept: unknown flag '--events'"));
    }
}
