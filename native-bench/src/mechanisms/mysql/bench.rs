//! `herdlab bench mysql`: one row per mode and connection count: the loopback query server
//! ([`super::native`]) under the load generator ([`super::load`]), with the kernel's counters.
//!
//! Per row: connect the N clients to a listener on 127.0.0.1:0 and accept them; start the server
//! (pool: the groups' first threads and the timer; per-connection: `add_connection` of each
//! client, which creates its thread); run the clients; when they are done, take the counters,
//! stop the server and join every thread. A sampler thread reads `/proc/self/status` (`Threads`)
//! and `/proc/self/statm` (resident pages) every millisecond.
//!
//! - `os_threads_max`: the most threads of the process at once, less the harness's own (the main
//!   thread, the client threads, the sampler): the server's threads (pool: workers + the timer).
//! - `ctx_switches_per_query`: `getrusage(RUSAGE_SELF)`'s voluntary + involuntary switches over
//!   the row, less the harness threads' own (`RUSAGE_THREAD`: the main thread, the client
//!   threads, the sampler and the failure watcher), per answered query.
//! - `rss_bytes`: the most resident memory of the whole process during the row.

use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::SeqCst};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

use herdlab_core::mechanisms::mysql::{
    ClientCpus, Clients, Mode, MysqlActor, MysqlParams, MysqlReport,
};
use herdlab_core::trace::Kind;

use super::load::{self, ClientOut, Shared};
use super::native::{Server, Spawner, STOP};
use crate::platform::affinity::{Pinned, Split};
use crate::platform::NativeError;

/// Most client threads (the load generator's).
pub const CLIENT_THREADS: usize = 2;

/// What one row is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowConfig {
    /// The scenario (mode, connections, pool parameters, the query's CPU time, lock, seed).
    pub params: MysqlParams,
    /// Queries in the row (over all connections).
    pub queries: u64,
    /// Mean think time between a response and the connection's next query, ns.
    pub think_ns: u64,
    /// The row's time limit.
    pub time_limit: Duration,
    /// The CPUs set apart for the load generator and the harness, the server on the rest
    /// (`--client-cpus`); `None`: all of them share every CPU.
    pub split: Option<Split>,
}

/// One measured row (the first ten fields are the contract's keys, as `sim mysql`'s).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// `per-connection` or `pool`.
    pub mode: String,
    /// Client connections.
    pub connections: u32,
    /// Queries answered per second (first send to last response).
    pub qps: f64,
    /// Median latency (the client's send to its response), ns.
    pub p50_ns: u64,
    /// 95th percentile latency, ns.
    pub p95_ns: u64,
    /// 99th percentile latency, ns.
    pub p99_ns: u64,
    /// `Threads_created`: threads `create_worker` / `mysql_thread_create` started.
    pub threads_created: u32,
    /// The most server threads alive at once (the process's `Threads` less the harness's).
    pub os_threads_max: u32,
    /// Context switches (voluntary + involuntary) of the server's threads per answered query.
    pub ctx_switches_per_query: f64,
    /// The most resident memory of the process during the row, bytes.
    pub rss_bytes: u64,
    /// Of `ctx_switches_per_query`, the voluntary ones (`ru_nvcsw`: a server thread blocked);
    /// the rest are preemptions (by the server's threads, the load generator's and any other
    /// process on the machine).
    pub ctx_switches_voluntary_per_query: f64,
    /// Queries the clients sent.
    pub queries_sent: u64,
    /// Responses the clients received that answered their outstanding query.
    pub queries_answered: u64,
    /// Queries the server's tables answered (a response written).
    pub queries_served: u64,
    /// Responses that answered nothing outstanding (0).
    pub bad_responses: u64,
    /// The most threads of the process at once, the harness's included.
    pub process_threads_max: u32,
    /// The harness's threads (those the process had before the row, the client threads, the
    /// sampler and the failure watcher).
    pub harness_threads: u32,
    /// First send to last response, ns.
    pub wall_ns: u64,
    /// The CPUs the whole process (server, load generator, harness) used over the row on
    /// average: its CPU time (`getrusage`, user + system) over the row's time. Less than the
    /// machine's CPUs on a machine other processes load; the simulator's row has its CPUs to
    /// itself.
    pub process_cpus: f64,
    /// Whether the time limit came before the query budget was spent.
    pub timed_out: bool,
    /// The server's CPU time per answered query, ns: the process's CPU time over the row
    /// (`getrusage`, user + system) less the load generator's and the harness's threads' own
    /// (`RUSAGE_THREAD`). The query's `cpu_us` and what serving it costs besides: the socket's
    /// read and write, `epoll`, the wakeups and switches.
    pub server_cpu_ns_per_query: f64,
    /// `--compare-sim`: what each simulated query costs on top of `cpu_us`, µs: the server's
    /// measured CPU per query beyond the query's own and beyond the costs the simulator already
    /// charges (its switches, wakeups and system calls), rounded to the µs (`--sim-io-us` sets
    /// it instead); null without `--compare-sim`.
    pub sim_io_us: Option<u32>,
    /// The simulated kernel's scheduler for `--compare-sim` (`sched`: `eevdf` from Linux 6.6
    /// on, `fair` before, or as `--sched` chose).
    pub sim_sched: &'static str,
    /// The CPUs the server's threads may run on (`--client-cpus`: the process's CPUs less the
    /// load generator's); the simulator's row has as many.
    pub server_cpus: u32,
    /// The CPUs set apart for the load generator's threads and the harness's (0: they share
    /// the server's).
    pub client_cpus: u32,
    /// The server's CPUs, as `taskset -c` lists them.
    pub server_cpu_list: String,
    /// The load generator's CPUs, as `taskset -c` lists them (empty: none set apart).
    pub client_cpu_list: String,
    /// `thread_pool_size`.
    pub groups: u32,
    /// `thread_pool_oversubscribe`.
    pub oversubscribe: u32,
    /// `thread_pool_stall_limit`, ms.
    pub stall_ms: u32,
    /// The query's CPU time, µs.
    pub cpu_us: u32,
    /// Mean think time, µs.
    pub think_us: u64,
    /// Percent of queries that take the hot row lock.
    pub lock_pct: u32,
    /// The long query's CPU time, ms (pool: group 0's first query; 0: none).
    pub long_ms: u32,
    /// `max_connections` (`--max-connections`, else 151 or the row's connections if more).
    pub max_connections: u32,
    /// `thread_cache_size` (autosized from `max_connections`).
    pub cache_size: u32,
    /// The variant of core's tables the server ran (`correct`: as MySQL and Percona).
    pub variant: &'static str,
    /// Connection churn: queries a connection answers before its client reconnects
    /// (per-connection rows; null: none).
    pub queries_per_conn: Option<u32>,
    /// Reconnections the clients made.
    pub reconnects: u64,
    /// Reconnections the server's acceptor handed to `add_connection` (equal to `reconnects`).
    pub reconnects_accepted: u64,
    /// `--compare-sim`: the simulator's row for the same scenario (its clients open loop at the
    /// measured rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim: Option<MysqlReport>,
    /// `--compare-sim`: the figures issue #13 holds the simulator to, the simulator's value
    /// against the native one and whether it is within [`WITHIN`] of it ([`compare`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<Compared>,
}

/// How close the simulator's figure must come to the native one: within 25% of it.
pub const WITHIN: f64 = 0.25;

/// The figures `--compare-sim` compares, by name: a row's `os_threads_max`, `threads_created`,
/// `ctx_switches_per_query` and its voluntary part, and (on a pool row whose per-connection row of the same connections
/// was measured too) [`P95_RATIO`].
pub const COMPARED: [&str; 5] = [
    "os_threads_max",
    "threads_created",
    "ctx_switches_per_query",
    "ctx_switches_voluntary_per_query",
    P95_RATIO,
];

/// The pool's p95 latency over thread-per-connection's, at the same connections.
pub const P95_RATIO: &str = "p95_pool_over_per_connection";

/// One figure of `--compare-sim`: the simulator's value against the native one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Compared {
    /// Which figure (one of [`COMPARED`]).
    pub metric: &'static str,
    /// The native value.
    pub native: f64,
    /// The simulator's value.
    pub sim: f64,
    /// sim / native (null when the native value is 0).
    pub sim_over_native: Option<f64>,
    /// |sim − native| ≤ 25% of native.
    pub within_25pct: bool,
    /// A switches-per-query figure both of whose values are below [`SWITCH_FLOOR`]: too few
    /// switches for their ratio to mean anything (a pool whose worker is never preempted
    /// switches once per hundreds of queries natively, to the timer or at a tick, and the
    /// simulator may count none).
    pub both_below_floor: bool,
    /// Whether the two agree: `within_25pct`, or `both_below_floor`.
    pub agrees: bool,
}

/// Switches per query below which two switch figures are not compared as a ratio: one switch
/// per 20 queries.
pub const SWITCH_FLOOR: f64 = 0.05;

impl Compared {
    fn new(metric: &'static str, native: f64, sim: f64) -> Self {
        let ratio = (native != 0.0).then(|| sim / native);
        let within_25pct = (sim - native).abs() <= WITHIN * native.abs();
        let both_below_floor =
            metric.starts_with("ctx_switches") && native < SWITCH_FLOOR && sim < SWITCH_FLOOR;
        Compared {
            metric,
            native,
            sim,
            sim_over_native: ratio,
            within_25pct,
            both_below_floor,
            agrees: within_25pct || both_below_floor,
        }
    }
}

/// Fill every row's `compare` from its `sim` row: its threads, threads created and switches per
/// query, and on pool rows the p95 ratio pool / per-connection at the same connections (when
/// both modes were measured, each with its simulator row).
pub fn compare(rows: &mut [BenchRow]) {
    let p95 = |rows: &[BenchRow], mode: &str, n: u32| {
        rows.iter()
            .find(|r| r.mode == mode && r.connections == n)
            .and_then(|r| r.sim.as_ref().map(|s| (r.p95_ns as f64, s.p95_ns as f64)))
    };
    let ratios: Vec<Option<Compared>> = rows
        .iter()
        .map(|r| {
            if r.mode != Mode::Pool.name() {
                return None;
            }
            let (np, sp) = p95(rows, Mode::Pool.name(), r.connections)?;
            let (nc, sc) = p95(rows, Mode::PerConnection.name(), r.connections)?;
            (nc > 0.0 && sc > 0.0).then(|| Compared::new(P95_RATIO, np / nc, sp / sc))
        })
        .collect();
    for (r, ratio) in rows.iter_mut().zip(ratios) {
        let Some(s) = &r.sim else { continue };
        r.compare = vec![
            Compared::new(
                "os_threads_max",
                r.os_threads_max as f64,
                s.os_threads_max as f64,
            ),
            Compared::new(
                "threads_created",
                r.threads_created as f64,
                s.threads_created as f64,
            ),
            Compared::new(
                "ctx_switches_per_query",
                r.ctx_switches_per_query,
                s.ctx_switches_per_query,
            ),
            Compared::new(
                "ctx_switches_voluntary_per_query",
                r.ctx_switches_voluntary_per_query,
                s.ctx_switches_voluntary_per_query,
            ),
        ];
        r.compare.extend(ratio);
    }
}

/// Context switches as the kernel counts them (`getrusage`): voluntary (`ru_nvcsw`: the thread
/// blocked) and involuntary (`ru_nivcsw`: it was preempted while runnable, by the server's other
/// threads, the load generator's or any other process on the machine); and the CPU time of the
/// same threads (`ru_utime + ru_stime`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    /// `ru_nvcsw`.
    pub voluntary: u64,
    /// `ru_nivcsw`.
    pub involuntary: u64,
    /// `ru_utime + ru_stime`, ns.
    pub cpu_ns: u64,
}

impl Switches {
    /// Both kinds.
    pub fn total(self) -> u64 {
        self.voluntary + self.involuntary
    }
    /// `self - o`, each kind at least 0.
    pub fn minus(self, o: Switches) -> Switches {
        Switches {
            voluntary: self.voluntary.saturating_sub(o.voluntary),
            involuntary: self.involuntary.saturating_sub(o.involuntary),
            cpu_ns: self.cpu_ns.saturating_sub(o.cpu_ns),
        }
    }
    /// `self + o`.
    pub fn plus(self, o: Switches) -> Switches {
        Switches {
            voluntary: self.voluntary + o.voluntary,
            involuntary: self.involuntary + o.involuntary,
            cpu_ns: self.cpu_ns + o.cpu_ns,
        }
    }
}

fn rusage(who: i32) -> Switches {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is a writable rusage-sized buffer for the call.
    let r = unsafe { libc::getrusage(who, ru.as_mut_ptr()) };
    if r != 0 {
        return Switches::default();
    }
    // SAFETY: getrusage returned 0 and filled the zeroed, plain-integer struct.
    let ru = unsafe { ru.assume_init() };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    Switches {
        voluntary: ru.ru_nvcsw as u64,
        involuntary: ru.ru_nivcsw as u64,
        cpu_ns: ns(ru.ru_utime) + ns(ru.ru_stime),
    }
}

/// The process's CPU time so far (user + system, every thread, the exited ones included), ns.
pub fn process_cpu_ns() -> u64 {
    rusage(libc::RUSAGE_SELF).cpu_ns
}

/// The calling thread's context switches so far (`RUSAGE_THREAD`).
pub fn own_switches() -> Switches {
    rusage(libc::RUSAGE_THREAD)
}

/// The process's context switches so far (every thread, the exited ones included).
pub fn process_switches() -> Switches {
    rusage(libc::RUSAGE_SELF)
}

fn proc_threads() -> Option<u32> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
}

/// The process's threads once the count holds still: a joined thread leaves `/proc` a little
/// after `join` returns (the kernel clears its tid before it is reaped), so the previous row's
/// threads may still be counted for a few milliseconds.
fn settled_threads() -> u32 {
    let mut last = proc_threads().unwrap_or(1);
    let mut still = 0;
    for _ in 0..1000 {
        std::thread::sleep(Duration::from_millis(1));
        let now = proc_threads().unwrap_or(last);
        if now == last {
            still += 1;
            if still >= 10 {
                break;
            }
        } else {
            still = 0;
            last = now;
        }
    }
    last
}

fn proc_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf takes no pointers.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * page.max(1) as u64)
}

/// The sampler's maxima and its own switches.
#[derive(Default)]
struct Sampled {
    threads: AtomicU64,
    rss: AtomicU64,
    switches_v: AtomicU64,
    switches_i: AtomicU64,
    /// The sampler's own CPU time, ns.
    cpu_ns: AtomicU64,
    stop: AtomicBool,
}

impl Sampled {
    fn sample_now(&self) {
        if let Some(t) = proc_threads() {
            self.threads.fetch_max(t as u64, SeqCst);
        }
        if let Some(r) = proc_rss() {
            self.rss.fetch_max(r, SeqCst);
        }
    }
}

fn sample(s: &Sampled) {
    let sw0 = own_switches();
    while !s.stop.load(SeqCst) {
        s.sample_now();
        let sw = own_switches().minus(sw0);
        s.switches_v.store(sw.voluntary, SeqCst);
        s.switches_i.store(sw.involuntary, SeqCst);
        s.cpu_ns.store(sw.cpu_ns, SeqCst);
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn percentile(sorted: &[u64], pct: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as u64 * pct).div_ceil(100)).max(1) - 1;
    sorted[(i as usize).min(sorted.len() - 1)]
}

/// Connect `n` clients to a fresh listener on 127.0.0.1 and accept each: (client ends, server
/// ends), index `i` the same connection on both sides. With `--trace`, each accept is an `accept`
/// event of thread 0 (this thread: the server's main thread, the acceptor) of a run of `threads`.
#[allow(clippy::type_complexity)]
fn connect(
    n: u32,
    threads: usize,
) -> Result<(TcpListener, Vec<TcpStream>, Vec<TcpStream>), NativeError> {
    let mut rec = crate::trace::Recorder::start(0, threads);
    // a backlog for every client at once (reconnections under churn come in bursts; the
    // kernel caps it at net.core.somaxconn)
    let l = crate::platform::net::listen_loopback(0, n.max(128))?;
    let addr = l
        .local_addr()
        .map_err(|e| NativeError(format!("the listener's address: {e}")))?;
    let mut cs = Vec::with_capacity(n as usize);
    let mut ss = Vec::with_capacity(n as usize);
    for i in 0..n {
        let c = TcpStream::connect(addr)
            .map_err(|e| NativeError(format!("client {i}: connect to {addr}: {e}")))?;
        let (s, _) = l
            .accept()
            .map_err(|e| NativeError(format!("accept of client {i}: {e}")))?;
        crate::trace::record(&mut rec, Kind::Accept, Some(i));
        cs.push(c);
        ss.push(s);
    }
    Ok((l, cs, ss))
}

/// Run one row.
pub fn run_row(rc: &RowConfig) -> Result<BenchRow, NativeError> {
    let p = MysqlParams {
        // (the cli keeps the connections within max_connections + 1, CONNECTION_ADMIN's)
        max_connections: rc
            .params
            .max_connections
            .max(rc.params.connections.saturating_sub(1)),
        ..rc.params
    };
    let cfg = p.config();
    let n = cfg.connections;
    let world = Server::world_for(&cfg)?;
    let (listener, client_ends, server_ends) = connect(n, world.threads())?;
    // connection churn: per-connection only (core's pool model has none)
    let churn = (cfg.mode == Mode::PerConnection && u64::from(p.queries_per_conn) < rc.queries)
        .then(|| listener.local_addr().map(|a| (p.queries_per_conn, a)))
        .transpose()
        .map_err(|e| NativeError(format!("the listener's address: {e}")))?;
    let srv = Server::new(&world, cfg, server_ends)?;
    let clients_n = CLIENT_THREADS.min(n as usize).max(1);
    let mut parts: Vec<Vec<(u32, TcpStream)>> = (0..clients_n).map(|_| Vec::new()).collect();
    for (i, s) in client_ends.into_iter().enumerate() {
        parts[i % clients_n].push((i as u32, s));
    }
    // Each client thread takes its connections from its slot when it starts: a thread that cannot
    // start leaves them there, open until its error is the row's (were they in the closure, a
    // failed spawn would close them first, and the server's "closed by the client mid-run" would
    // hide the cause).
    let slots: Vec<Mutex<Vec<(u32, TcpStream)>>> = parts.into_iter().map(Mutex::new).collect();
    let sh = Shared {
        budget: AtomicI64::new(rc.queries as i64),
        epoch: Instant::now(),
        deadline_ns: rc.time_limit.as_nanos() as u64,
        stop: AtomicBool::new(false),
        think_ns: rc.think_ns,
        seed: p.seed,
        churn,
    };
    let sampled = Sampled::default();
    // the threads the process has before the row (main, the interrupt watcher, ...)
    let before = settled_threads();
    let main_sw0 = own_switches();
    let proc_sw0 = process_switches();
    let (cpu0, span0) = (process_cpu_ns(), Instant::now());
    let process_cpus = std::cell::Cell::new(0.0);
    // With CPUs set apart: the main thread moves to the clients' CPUs, so the sampler (spawned
    // first) starts there; to the server's while it starts the server's first threads (every
    // later server thread is spawned by one of them); back to the clients' for the client
    // threads and the watcher. Its own mask comes back when `pinned` drops.
    let server_cpus = match &rc.split {
        Some(sp) => sp.server.clone(),
        None => crate::platform::affinity::allowed()?,
    };
    let pinned = rc
        .split
        .as_ref()
        .map(|sp| Pinned::to(&sp.clients))
        .transpose()?;
    let repin = |to: fn(&Split) -> &[usize]| match (&pinned, &rc.split) {
        (Some(p), Some(sp)) => p.repin(to(sp)),
        _ => Ok(()),
    };
    let (outs, server_sw, server_err) = std::thread::scope(|s| {
        let mut clients = Clients::new(cfg);
        let sampler = match std::thread::Builder::new().spawn_scoped(s, || sample(&sampled)) {
            Ok(h) => h,
            Err(e) => {
                let e = NativeError(format!("cannot start the sampler thread: {e}"));
                return (Vec::new(), Switches::default(), Some(e));
            }
        };
        let sp = Spawner::new(s, &srv);
        let started = (|| {
            repin(|sp| &sp.server)?;
            if cfg.mode == Mode::Pool {
                sp.spawn_timer()?;
            }
            sp.start(&mut clients)
        })();
        // churn: the acceptor of reconnections, on its own thread until the stop
        let acceptor = match (&started, churn) {
            (Ok(()), Some(_)) => {
                let listener = &listener;
                let mut clients = clients;
                match std::thread::Builder::new()
                    .spawn_scoped(s, move || sp.accept_loop(listener, &mut clients))
                {
                    Ok(h) => Some(h),
                    Err(e) => {
                        let e = NativeError(format!("cannot start the acceptor thread: {e}"));
                        world.fail(&e.to_string());
                        None
                    }
                }
            }
            _ => None,
        };
        // the client threads and the watcher start on the clients' CPUs
        let started = started
            .and_then(|()| repin(|sp| &sp.clients).inspect_err(|e| world.fail(&e.to_string())));
        // the main thread samples too: once every first thread is started, and before the stop
        // (a short row may fall between the sampler's turns)
        sampled.sample_now();
        #[allow(clippy::type_complexity)]
        let (outs, watcher_sw): (
            Vec<Result<(ClientOut, Vec<TcpStream>), NativeError>>,
            Switches,
        ) = if started.is_ok() {
            let sh = &sh;
            let world = &world;
            // a client that cannot start fails the world (its error is the row's), and the
            // others stop
            let start_failed = |what: &str, e: std::io::Error| {
                let e = NativeError(format!("cannot start {what}: {e}"));
                world.fail(&e.to_string());
                sh.stop.store(true, SeqCst);
            };
            let hs: Vec<_> = slots
                .iter()
                .filter_map(|slot| {
                    // a client failure ends the server too
                    std::thread::Builder::new()
                        .spawn_scoped(s, move || {
                            let part = std::mem::take(
                                &mut *slot.lock().unwrap_or_else(PoisonError::into_inner),
                            );
                            load::run(sh, part, |e| world.fail(e))
                        })
                        .map_err(|e| {
                            start_failed("a client thread", e);
                            // its connections close now, after the row's error is set
                            drop(std::mem::take(
                                &mut *slot.lock().unwrap_or_else(PoisonError::into_inner),
                            ));
                        })
                        .ok()
                })
                .collect();
            // a server failure ends the clients
            let watch = std::thread::Builder::new()
                .spawn_scoped(s, || {
                    let sw0 = own_switches();
                    while !sh.stop.load(SeqCst) {
                        if world.aborted() {
                            sh.stop.store(true, SeqCst);
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    // its own switches (one per 5 ms sleep) are the harness's, not the server's
                    own_switches().minus(sw0)
                })
                .map_err(|e| start_failed("the failure watcher thread", e))
                .ok();
            let outs = hs
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(NativeError("a client thread panicked".to_string()))
                    })
                })
                .collect();
            sh.stop.store(true, SeqCst);
            let watcher_sw = watch.and_then(|w| w.join().ok()).unwrap_or_default();
            (outs, watcher_sw)
        } else {
            (Vec::new(), Switches::default())
        };
        // the server's switches: the process's, less the harness threads' own
        let clients_sw = outs
            .iter()
            .filter_map(|o| o.as_ref().ok())
            .fold(Switches::default(), |a, (o, _)| a.plus(o.switches));
        let sampler_sw = Switches {
            voluntary: sampled.switches_v.load(SeqCst),
            involuntary: sampled.switches_i.load(SeqCst),
            cpu_ns: sampled.cpu_ns.load(SeqCst),
        };
        let server_sw = process_switches()
            .minus(proc_sw0)
            .minus(clients_sw)
            .minus(own_switches().minus(main_sw0))
            .minus(sampler_sw)
            .minus(watcher_sw);
        process_cpus.set(
            process_cpu_ns().saturating_sub(cpu0) as f64 / span0.elapsed().as_nanos().max(1) as f64,
        );
        sampled.sample_now();
        // the first failure (a server thread's error, or the stop)
        let failed = world.failure();
        world.fail(STOP);
        srv.shut_sockets();
        sampled.stop.store(true, SeqCst);
        let _ = sampler.join();
        if let Some(a) = acceptor {
            let _ = a.join();
        }
        let server_err = started
            .err()
            .or_else(|| failed.filter(|f| f != STOP).map(NativeError));
        // the clients' sockets close after the stop
        let outs: Vec<Result<ClientOut, NativeError>> =
            outs.into_iter().map(|o| o.map(|(o, _)| o)).collect();
        (outs, server_sw, server_err)
        // the scope joins every server thread here
    });
    if let Some(e) = server_err {
        return Err(e);
    }
    let mut lat = Vec::new();
    let mut row_out = ClientOut {
        first_ns: u64::MAX,
        ..ClientOut::default()
    };
    for o in outs {
        let o = o?;
        row_out.sent += o.sent;
        row_out.answered += o.answered;
        row_out.bad += o.bad;
        row_out.first_ns = row_out.first_ns.min(o.first_ns);
        row_out.last_ns = row_out.last_ns.max(o.last_ns);
        row_out.timed_out |= o.timed_out;
        row_out.reconnects += o.reconnects;
        lat.extend(o.latencies_ns);
    }
    lat.sort_unstable();
    let wall_ns = row_out.last_ns.saturating_sub(row_out.first_ns).max(1);
    // and the row's own: the sampler, the watcher of failures, the client threads, the acceptor
    let harness = before + 2 + clients_n as u32 + u32::from(churn.is_some());
    let process_threads_max = sampled.threads.load(SeqCst) as u32;
    Ok(BenchRow {
        mode: cfg.mode.name().to_string(),
        connections: n,
        qps: row_out.answered as f64 * 1e9 / wall_ns as f64,
        p50_ns: percentile(&lat, 50),
        p95_ns: percentile(&lat, 95),
        p99_ns: percentile(&lat, 99),
        threads_created: srv.threads_created(),
        os_threads_max: process_threads_max.saturating_sub(harness),
        ctx_switches_per_query: if row_out.answered > 0 {
            server_sw.total() as f64 / row_out.answered as f64
        } else {
            0.0
        },
        rss_bytes: sampled.rss.load(SeqCst),
        ctx_switches_voluntary_per_query: if row_out.answered > 0 {
            server_sw.voluntary as f64 / row_out.answered as f64
        } else {
            0.0
        },
        queries_sent: row_out.sent,
        queries_answered: row_out.answered,
        queries_served: srv.answered(),
        bad_responses: row_out.bad,
        process_threads_max,
        harness_threads: harness,
        wall_ns,
        process_cpus: process_cpus.get(),
        timed_out: row_out.timed_out,
        server_cpu_ns_per_query: if row_out.answered > 0 {
            server_sw.cpu_ns as f64 / row_out.answered as f64
        } else {
            0.0
        },
        sim_io_us: None,
        sim_sched: p.sched.name(),
        server_cpus: server_cpus.len() as u32,
        client_cpus: rc.split.as_ref().map_or(0, |sp| sp.clients.len() as u32),
        server_cpu_list: crate::platform::affinity::shown(&server_cpus),
        client_cpu_list: rc.split.as_ref().map_or(String::new(), |sp| {
            crate::platform::affinity::shown(&sp.clients)
        }),
        groups: cfg.groups,
        oversubscribe: cfg.oversubscribe,
        stall_ms: (cfg.stall_ns / 1_000_000) as u32,
        cpu_us: (cfg.cpu_ns / 1000) as u32,
        think_us: rc.think_ns / 1000,
        lock_pct: cfg.lock_pct,
        long_ms: p.long_ms,
        max_connections: p.max_connections,
        cache_size: p.cache_size,
        variant: p.variant.name(),
        queries_per_conn: churn.map(|(k, _)| k),
        reconnects: row_out.reconnects,
        reconnects_accepted: srv.reconnects(),
        sim: None,
        compare: Vec::new(),
    })
}

/// The simulator's row for `row`'s scenario: its clients a closed loop as the load generator's
/// (each connection one query at a time, the row's mean think time between an answer and the
/// next query; [`MysqlParams::run_closed_on`]), on as many CPUs as the row's server had, its
/// load generator where the row's was (on CPUs of its own, or sharing the server's), for
/// `queries` queries.
///
/// The simulated query costs `cpu_us` plus `io_us` µs of CPU: given, or (`None`) the server's
/// measured CPU per query ([`BenchRow::server_cpu_ns_per_query`]) less the query's own and less
/// what the simulator charges per query by itself, found by a first run without it. Returns the
/// report and the `io_us` it ran with.
pub fn simulated(
    p: &MysqlParams,
    row: &BenchRow,
    queries: u32,
    io_us: Option<u32>,
) -> (MysqlReport, u32) {
    let sp = MysqlParams {
        max_connections: p.max_connections.max(p.connections.saturating_sub(1)),
        queries,
        cpus: row.server_cpus.clamp(1, 64),
        ..*p
    };
    let clients = ClientCpus::apart_if(row.client_cpus > 0);
    let run = |io: u32| {
        let q = MysqlParams {
            cpu_us: sp.cpu_us.saturating_add(io),
            ..sp
        };
        q.run_closed_on(row.think_us * 1000, clients, super::cli::DEFAULT_MAX_STEPS)
    };
    let io = match io_us {
        Some(io) => io,
        None => {
            let (sim, r) = run(0);
            let own_ns = server_busy_ns(&sim) as f64 / r.queries_done.max(1) as f64;
            let io_ns = row.server_cpu_ns_per_query - own_ns;
            (io_ns / 1000.0)
                .round()
                .clamp(0.0, super::cli::MAX_SIM_IO_US as f64) as u32
        }
    };
    (run(io).1, io)
}

/// The CPU time the simulated server's threads used (every thread but the load generator's).
fn server_busy_ns(sim: &herdlab_core::mechanisms::mysql::MysqlSim) -> u64 {
    sim.threads()
        .iter()
        .filter(|t| !matches!(t.machine(), MysqlActor::Clients(_)))
        .map(|t| t.metrics().busy_ns)
        .sum()
}

fn us(ns: u64) -> String {
    if ns >= 10_000_000 {
        format!("{:.0}ms", ns as f64 / 1e6)
    } else if ns >= 1_000_000 {
        format!("{:.1}ms", ns as f64 / 1e6)
    } else {
        format!("{:.0}us", ns as f64 / 1e3)
    }
}

/// The rows as a table.
pub fn render(rows: &[BenchRow]) -> String {
    let head = [
        "mode", "conns", "qps", "p50", "p95", "p99", "created", "threads", "switch/q", "RSS MiB",
        "CPUs", "answered",
    ];
    let mut cells: Vec<Vec<String>> = Vec::new();
    for r in rows {
        cells.push(vec![
            r.mode.clone(),
            r.connections.to_string(),
            format!("{:.0}", r.qps),
            us(r.p50_ns),
            us(r.p95_ns),
            us(r.p99_ns),
            r.threads_created.to_string(),
            r.os_threads_max.to_string(),
            format!("{:.2}", r.ctx_switches_per_query),
            format!("{:.1}", r.rss_bytes as f64 / (1 << 20) as f64),
            format!("{:.2}", r.process_cpus),
            format!(
                "{}/{}{}",
                r.queries_answered,
                r.queries_sent,
                if r.timed_out { " (time limit)" } else { "" }
            ),
        ]);
        if let Some(s) = &r.sim {
            cells.push(vec![
                match r.sim_io_us {
                    Some(io) => format!("  sim +{io}us"),
                    None => "  sim".to_string(),
                },
                s.connections.to_string(),
                format!("{:.0}", s.qps),
                us(s.p50_ns),
                us(s.p95_ns),
                us(s.p99_ns),
                s.threads_created.to_string(),
                s.os_threads_max.to_string(),
                format!("{:.2}", s.ctx_switches_per_query),
                format!("{:.1}", s.rss_bytes as f64 / (1 << 20) as f64),
                r.server_cpus.clamp(1, 64).to_string(),
                format!("{}/{}", s.queries_done, s.queries_sent),
            ]);
        }
    }
    let line = crate::output::table_lines(&head, &cells);
    let compared: Vec<Vec<String>> = rows
        .iter()
        .flat_map(|r| {
            r.compare.iter().map(move |c| {
                vec![
                    r.mode.clone(),
                    r.connections.to_string(),
                    c.metric.to_string(),
                    format!("{:.2}", c.native),
                    format!("{:.2}", c.sim),
                    c.sim_over_native
                        .map_or("-".to_string(), |x| format!("{x:.2}")),
                    if c.within_25pct {
                        "yes".to_string()
                    } else if c.both_below_floor {
                        format!("both < {SWITCH_FLOOR}/q")
                    } else {
                        "NO".to_string()
                    },
                ]
            })
        })
        .collect();
    let mut out = String::from(
        "herdlab bench mysql: a loopback query server, core's mysql tables on real threads \
         (threads: the server's at most at once; switch/q: the server's context switches per query; \
         CPUs: the CPUs the process used on average, the simulator's CPUs under it)\n",
    );
    if let Some(r) = rows.iter().find(|r| r.sim_io_us.is_some()) {
        out.push_str(&format!(
            "sim +N us: each simulated query costs --cpu-us + N us, N the server's measured CPU per \
             query beyond the query's own and beyond what the simulator charges by itself \
             (--sim-io-us to set it); the simulated kernel's scheduler: {} (--sched)\n",
            r.sim_sched
        ));
    }
    if let Some(r) = rows.first() {
        out.push_str(&if r.client_cpus > 0 {
            format!(
                "the server on CPUs {}; the load generator and the harness on CPUs {} \
                 (--client-cpus {}; the simulator's clients on CPUs of their own too)\n",
                r.server_cpu_list, r.client_cpu_list, r.client_cpus
            )
        } else {
            format!(
                "the server, the load generator and the harness share CPUs {} (--client-cpus 0)\n",
                r.server_cpu_list
            )
        });
    }
    out.push_str(&line(
        &head.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    ));
    for c in &cells {
        out.push_str(&line(c));
    }
    if !compared.is_empty() {
        let head = [
            "mode",
            "conns",
            "figure",
            "native",
            "sim",
            "sim/native",
            "within 25%",
        ];
        let line = crate::output::table_lines(&head, &compared);
        out.push_str(&format!(
            "\n--compare-sim: the simulator's figure against the native one (within 25% of it? \
             switch figures both under {SWITCH_FLOOR} per query are too few to compare as a ratio)\n"
        ));
        out.push_str(&line(
            &head.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ));
        for c in &compared {
            out.push_str(&line(c));
        }
    }
    out
}
