//! The accept strategies on real threads: core's [`AcceptThread`](herdlab_core::mechanisms::accept::AcceptThread) machines
//! (`AcceptParams::threads()`, nginx-style event loops or blocking-accept threads) driven by the
//! event world ([`crate::platform::net`]), against a bounded load generator on loopback.
//!
//! One run, one strategy:
//! 1. The world: the listener(s) on `127.0.0.1:<port>` (0 by default: a free port the kernel
//!    picks; a taken one is refused), with the configured listen backlog, the epoll instances (see
//!    [`crate::platform::net`]).
//! 2. The workers start in turn: worker `i` runs its machine until its first blocking call before
//!    worker `i + 1` starts, so the listener is registered in index order, as in the simulator
//!    (where it matters: `exclusive` without reordering gives the first registered idle worker every
//!    connection; the accept mutex goes to worker 0 first).
//! 3. When every worker is asleep (each inside a blocking call and in state `S` in
//!    `/proc/self/task/<tid>/stat`, on two polls in a row), the load generator starts: `concurrency`
//!    client threads (at most), each taking the next connection number `i` and starting it at
//!    `t0 + arrival(i)`, or as soon as it can when it is late. The arrival times are core's own
//!    [`Arrivals`] stream for the scenario (steady: every `1 / rate`; Poisson: its seeded
//!    exponential gaps), the very times the simulator uses for the same parameters.
//!    A connection: `connect`, then `requests` times: write a request (its first bytes carry the
//!    connect time), read the response, sleep `think_ns`; then close. Everything on the client has a
//!    timeout; an error is counted and reported, never a panic.
//! 4. The generator stops after the last connection, or at the time limit (it says so in
//!    [`LoadReport::stopped_by_time_limit`]). The run waits (bounded) until the server has closed
//!    every connection the generator made, then stops the world; the workers leave their loops.
//!
//! The report is [`AcceptReport::from_parts`]`("native", …)`: per worker the machine's own counters
//! (connections, `EAGAIN`, requests, trylocks won and lost) and the platform's measurements (wakeups
//! from `ru_nvcsw`, CPU time from `CLOCK_THREAD_CPUTIME_ID`), the accept latencies from the client's
//! `connect` returning to the server's `accept4` returning, the accept mutex's hold time, and the time
//! from the generator's start to the last close.

use std::time::Duration;

use serde::Serialize;

use herdlab_core::mechanisms::accept::{AcceptParams, AcceptReport};
use herdlab_core::sim::arrivals::{ArrivalPattern, Arrivals};

use crate::platform::NativeError;

/// Client threads at most (connections open at once), by default.
pub const DEFAULT_CONCURRENCY: u32 = 64;
/// The most client threads.
pub const MAX_CONCURRENCY: u32 = 256;
/// Request bytes, by default.
pub const DEFAULT_REQUEST_SIZE: u32 = 64;
/// The largest request.
pub const MAX_REQUEST_SIZE: u32 = 65_536;
/// Response bytes.
pub const RESPONSE_SIZE: usize = 64;
/// The load generator stops starting connections after this long, by default.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);
/// The longest time limit.
pub const MAX_TIME_LIMIT_S: u64 = 600;
/// The most connections in one native run.
pub const MAX_CONNECTIONS: u32 = 200_000;
/// The client's `connect` timeout.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The client's read and write timeout.
pub const CLIENT_IO_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the run waits for the server to close the last connections.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// The listen backlog, by default (nginx's on Linux is 511; this is the kernel's default cap,
/// `net.core.somaxconn`, since Linux 5.4).
pub const DEFAULT_BACKLOG: u32 = 4096;
/// The largest listen backlog one may ask for.
pub const MAX_BACKLOG: u32 = 65_535;
/// How long the workers may take to start and fall asleep.
pub const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// One native run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NativeAcceptConfig {
    /// The scenario: strategy, workers, connections, rate, requests, service and think time,
    /// `multi_accept`, reordering, accept-mutex delay (`cpus`, `arrival`, `burst`, `seed` and
    /// `variant` are the simulator's; arrivals here are steady).
    pub params: AcceptParams,
    /// Client threads (connections open at once) at most.
    pub concurrency: u32,
    /// Request bytes, at least 12.
    pub request_size: u32,
    /// The load generator's time limit.
    pub time_limit: Duration,
    /// The port on 127.0.0.1; 0: a free one the kernel picks.
    pub port: u16,
    /// The listen backlog asked for (the kernel caps it at `net.core.somaxconn`).
    pub backlog: u32,
}

impl NativeAcceptConfig {
    /// A run of `params` with the default load generator.
    pub fn new(params: AcceptParams) -> Self {
        NativeAcceptConfig {
            params,
            concurrency: DEFAULT_CONCURRENCY,
            request_size: DEFAULT_REQUEST_SIZE,
            time_limit: DEFAULT_TIME_LIMIT,
            port: 0,
            backlog: DEFAULT_BACKLOG,
        }
    }
}

/// What the load generator did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LoadReport {
    /// Connections whose `connect` succeeded.
    pub connections_made: u32,
    /// Responses read.
    pub responses: u64,
    /// `connect` failures.
    pub connect_errors: u32,
    /// Read or write failures after the connect.
    pub io_errors: u32,
    /// The first error, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// The time limit stopped the generator before its last connection.
    pub stopped_by_time_limit: bool,
    /// The time limit, seconds.
    pub time_limit_s: u64,
    /// Connections the server closed after the client's EOF.
    pub server_closed: u32,
    /// The server closed every connection the generator made before the run stopped.
    pub drained: bool,
}

impl LoadReport {
    /// Warnings worth printing beside a table (empty when all went well).
    pub fn warnings(&self, strategy: &str, wanted: u32) -> Vec<String> {
        let mut w = Vec::new();
        if self.stopped_by_time_limit {
            w.push(format!(
                "{strategy}: the load generator stopped at its {} s time limit after {} of {wanted} connections",
                self.time_limit_s, self.connections_made
            ));
        }
        if self.connect_errors + self.io_errors > 0 {
            w.push(format!(
                "{strategy}: {} connect errors, {} read/write errors (first: {})",
                self.connect_errors,
                self.io_errors,
                self.first_error.as_deref().unwrap_or("?")
            ));
        }
        if !self.drained {
            w.push(format!(
                "{strategy}: the server closed {} of {} connections within {} s",
                self.server_closed,
                self.connections_made,
                DRAIN_TIMEOUT.as_secs()
            ));
        }
        w
    }
}

/// One native run's result.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeAcceptRun {
    /// The report, built like the simulator's.
    pub report: AcceptReport,
    /// The load generator's side.
    pub load: LoadReport,
    /// The workers' involuntary context switches (preemptions), all of them.
    pub preemptions: u64,
    /// The workers' voluntary context switches over the whole run (start-up and stop included).
    pub voluntary_switches: u64,
    /// Connections the kernel could not queue because an accept queue was full, from the load
    /// generator's start to the last close (`TcpExt: ListenOverflows`, system-wide: every
    /// listening socket of this network namespace); `None`: `/proc/net/netstat` cannot be read.
    pub listen_overflows: Option<u64>,
    /// Every drop at a listening socket over the same time (`TcpExt: ListenDrops`, the overflows
    /// included, system-wide); `None`: unknown.
    pub listen_drops: Option<u64>,
}

/// When each connection starts, ns after the generator's start: core's arrival stream for the
/// scenario (steady or Poisson; the other patterns wait for idle workers and are the simulator's).
pub fn arrival_times(p: &AcceptParams) -> Result<Vec<u64>, NativeError> {
    if !matches!(p.arrival, ArrivalPattern::Steady | ArrivalPattern::Poisson) {
        return Err(NativeError(format!(
            "arrival: {} is not allowed natively; allowed: steady, poisson (on-demand and burst wait for \
             every worker to be asleep, which only the simulator sees)",
            p.arrival.name()
        )));
    }
    let mut a = Arrivals::new(p.arrival, p.connections, p.burst, p.rate, p.seed);
    let mut v = Vec::with_capacity(p.connections as usize);
    while let Some(t) = a.due(None) {
        a.take(t);
        v.push(t);
    }
    Ok(v)
}

/// Whether this build can run the native accept benchmark; the error says why not.
pub fn supported() -> Result<(), NativeError> {
    imp::supported()
}

/// Run one strategy natively.
pub fn run(cfg: &NativeAcceptConfig) -> Result<NativeAcceptRun, NativeError> {
    imp::run(cfg)
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::*;

    pub fn supported() -> Result<(), NativeError> {
        Err(NativeError(format!(
            "bench accept needs Linux (epoll, EPOLLEXCLUSIVE, SO_REUSEPORT groups, RUSAGE_THREAD); this build is for {}",
            std::env::consts::OS
        )))
    }

    pub fn run(_: &NativeAcceptConfig) -> Result<NativeAcceptRun, NativeError> {
        supported().map(|_| unreachable!())
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
    use std::sync::{Mutex, PoisonError};
    use std::thread;
    use std::time::Instant;

    use herdlab_core::histogram::LogHistogram;
    use herdlab_core::machine::Machine;
    use herdlab_core::mechanisms::accept::event_worker::WorkerStats;
    use herdlab_core::mechanisms::accept::{AcceptThread, WorkerReport};
    use herdlab_core::op::Op;

    use super::*;
    use crate::platform::net::{
        self, Listen, ListenCounters, NetSpec, NetThread, NetThreadReport, NetWorld, Sockets,
    };
    use crate::platform::thread_state;
    use herdlab_core::mechanisms::accept::Strategy;

    pub fn supported() -> Result<(), NativeError> {
        net::supported()
    }

    fn check(cfg: &NativeAcceptConfig) -> Result<(), NativeError> {
        let p = &cfg.params;
        let bad = |what: &str, v: u64, lo: u64, hi: u64| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(NativeError(format!(
                    "{what}: {v} is out of range; allowed {lo}-{hi}"
                )))
            }
        };
        bad("workers", p.workers as u64, 1, 64)?;
        bad(
            "connections",
            p.connections as u64,
            1,
            MAX_CONNECTIONS as u64,
        )?;
        bad("rate", p.rate as u64, 1, 10_000_000)?;
        bad("requests", p.requests as u64, 1, 1000)?;
        bad("service-ns", p.service_ns, 0, 100_000_000)?;
        bad("think-ns", p.think_ns, 0, 1_000_000_000)?;
        bad(
            "concurrency",
            cfg.concurrency as u64,
            1,
            MAX_CONCURRENCY as u64,
        )?;
        bad(
            "request-size",
            cfg.request_size as u64,
            net::MIN_REQUEST as u64,
            MAX_REQUEST_SIZE as u64,
        )?;
        bad("time-limit", cfg.time_limit.as_secs(), 1, MAX_TIME_LIMIT_S)?;
        bad("backlog", cfg.backlog as u64, 1, MAX_BACKLOG as u64)
    }

    type WorkerOut = Result<(WorkerStats, NetThreadReport), NativeError>;

    /// One worker: wait for its turn, then drive its machine until the world stops.
    fn worker(world: &NetWorld, i: usize, mut m: AcceptThread) -> WorkerOut {
        let t0 = Instant::now();
        while world.started() < i as u32 {
            if world.stopped() {
                return Err(NativeError(format!(
                    "worker {i}: the run stopped before it started ({})",
                    world.failure().unwrap_or_default()
                )));
            }
            if t0.elapsed() > READY_TIMEOUT {
                return Err(NativeError(format!(
                    "worker {i}: worker {} did not reach its first wait within {} s",
                    world.started(),
                    READY_TIMEOUT.as_secs()
                )));
            }
            thread::sleep(Duration::from_micros(50));
        }
        let mut t = NetThread::new(world, i)?;
        loop {
            if world.stopped() {
                break;
            }
            let op = m.next_op();
            if op == Op::Exit {
                break;
            }
            match t.exec(op)? {
                Some(r) => m.complete(r),
                None => break,
            }
        }
        let r = t.report();
        let s = *m.stats();
        if s.accepted != r.accepted {
            return Err(NativeError(format!(
                "worker {i}: its machine counted {} connections, the platform accepted {}",
                s.accepted, r.accepted
            )));
        }
        Ok((s, r))
    }

    /// Every worker asleep in a blocking call, twice in a row with no wait entered between.
    fn wait_all_asleep(world: &NetWorld, n: usize) -> Result<(), NativeError> {
        let start = Instant::now();
        let mut prev: Option<Vec<u64>> = None;
        loop {
            if world.stopped() {
                return Err(NativeError(format!(
                    "the run stopped while the workers started: {}",
                    world.failure().unwrap_or_default()
                )));
            }
            let poll = (world.started() as usize >= n)
                .then(|| {
                    let gens: Vec<u64> = (0..n).map(|i| world.slot(i).waits()).collect();
                    let asleep = (0..n).all(|i| {
                        let s = world.slot(i);
                        s.in_wait() && thread_state(s.tid()) == Some('S')
                    });
                    asleep.then_some(gens)
                })
                .flatten();
            match poll {
                Some(g) if prev.as_ref() == Some(&g) => return Ok(()),
                p => prev = p,
            }
            if start.elapsed() > READY_TIMEOUT {
                return Err(NativeError(format!(
                    "the workers did not all fall asleep within {} s ({} of {n} started)",
                    READY_TIMEOUT.as_secs(),
                    world.started()
                )));
            }
            thread::sleep(Duration::from_micros(200));
        }
    }

    #[derive(Default)]
    struct LoadShared {
        next: AtomicU32,
        made: AtomicU32,
        responses: AtomicU64,
        connect_errors: AtomicU32,
        io_errors: AtomicU32,
        timed_out: AtomicBool,
        first_error: Mutex<Option<String>>,
    }

    impl LoadShared {
        fn error(&self, e: String) {
            let mut f = self
                .first_error
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if f.is_none() {
                *f = Some(e);
            }
        }
    }

    struct Client<'a> {
        world: &'a NetWorld,
        addr: SocketAddr,
        cfg: &'a NativeAcceptConfig,
        schedule: &'a [u64],
        shared: &'a LoadShared,
        t0: Instant,
        deadline: Instant,
    }

    impl Client<'_> {
        fn run(&self) {
            // precise pacing and think times (the default slack is 50 µs)
            net::set_timer_slack_ns(1_000);
            let mut req = vec![b'q'; self.cfg.request_size as usize];
            let mut resp = vec![0u8; RESPONSE_SIZE];
            loop {
                if self.world.stopped() {
                    return;
                }
                let i = self.shared.next.fetch_add(1, SeqCst) as usize;
                let Some(&at) = self.schedule.get(i) else {
                    return;
                };
                let due = self.t0 + Duration::from_nanos(at);
                if due > self.deadline || Instant::now() > self.deadline {
                    self.shared.timed_out.store(true, SeqCst);
                    return;
                }
                let now = Instant::now();
                if due > now {
                    thread::sleep(due - now);
                }
                self.connection(&mut req, &mut resp);
            }
        }

        fn connection(&self, req: &mut [u8], resp: &mut [u8]) {
            let s = &self.shared;
            let mut c = match TcpStream::connect_timeout(&self.addr, CONNECT_TIMEOUT) {
                Ok(c) => c,
                Err(e) => {
                    s.connect_errors.fetch_add(1, SeqCst);
                    s.error(format!("connect to {}: {e}", self.addr));
                    return;
                }
            };
            let connected = self.world.now_ns();
            s.made.fetch_add(1, SeqCst);
            let p = &self.cfg.params;
            let mut go = || -> std::io::Result<()> {
                c.set_nodelay(true)?;
                c.set_read_timeout(Some(CLIENT_IO_TIMEOUT))?;
                c.set_write_timeout(Some(CLIENT_IO_TIMEOUT))?;
                for k in 0..p.requests.max(1) {
                    req[0..8].copy_from_slice(&connected.to_le_bytes());
                    req[8..12].copy_from_slice(&k.to_le_bytes());
                    c.write_all(req)?;
                    c.read_exact(resp)?;
                    s.responses.fetch_add(1, SeqCst);
                    if p.think_ns > 0 {
                        thread::sleep(Duration::from_nanos(p.think_ns));
                    }
                }
                Ok(())
            };
            if let Err(e) = go() {
                s.io_errors.fetch_add(1, SeqCst);
                s.error(format!("connection to {}: {e}", self.addr));
            }
            // dropping the stream closes it: the server reads the EOF
        }
    }

    pub fn run(cfg: &NativeAcceptConfig) -> Result<NativeAcceptRun, NativeError> {
        supported()?;
        check(cfg)?;
        let p = cfg.params;
        let schedule = arrival_times(&p)?;
        let machines: Vec<AcceptThread> = p.threads().into_iter().map(|(m, _)| m).collect();
        let n = machines.len();
        let world = NetWorld::with_listen(
            NetSpec {
                sockets: Sockets {
                    listeners: p.strategy.listeners((n as u32).max(1)),
                    epolls: p.strategy.epolls((n as u32).max(1)),
                    reuseport: p.strategy == Strategy::Reuseport,
                    blocking: p.strategy == Strategy::Blocking,
                },
                workers: n as u32,
                max_conns: p.connections.saturating_add(16),
                request_size: cfg.request_size as usize,
                response_size: RESPONSE_SIZE,
            },
            Listen {
                port: cfg.port,
                backlog: cfg.backlog,
            },
        )?;
        let addr = world.addr();
        if !addr.ip().is_loopback() {
            return Err(NativeError(format!(
                "refusing a non-loopback listener {addr}"
            )));
        }
        let shared = LoadShared::default();
        let w = &world;
        let (outs, t0_ns, end_ns, listen) = thread::scope(|s| {
            let mut handles = Vec::with_capacity(n);
            for (i, m) in machines.into_iter().enumerate() {
                let h = thread::Builder::new()
                    .name(format!("accept-{i}"))
                    .stack_size(256 * 1024)
                    .spawn_scoped(s, move || {
                        let r = worker(w, i, m);
                        if let Err(e) = &r {
                            w.fail(&e.0);
                        }
                        r
                    });
                match h {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        // ("thread" in it: the limit's hint names the thread limit)
                        w.fail(&format!("cannot start worker thread {i}: {e}"));
                        break;
                    }
                }
            }
            let mut t0_ns = 0;
            let mut end_ns = 0;
            let mut listen = Err(String::new());
            match wait_all_asleep(w, n) {
                Err(e) => w.fail(&e.0),
                Ok(()) => {
                    let before = ListenCounters::read();
                    t0_ns = w.now_ns();
                    let t0 = Instant::now();
                    let client = Client {
                        world: w,
                        addr,
                        cfg,
                        schedule: &schedule,
                        shared: &shared,
                        t0,
                        deadline: t0 + cfg.time_limit,
                    };
                    let k = cfg.concurrency.min(p.connections).max(1);
                    thread::scope(|cs| {
                        for j in 0..k {
                            let c = &client;
                            if let Err(e) = thread::Builder::new()
                                .name(format!("client-{j}"))
                                .stack_size(128 * 1024)
                                .spawn_scoped(cs, move || c.run())
                            {
                                // fewer clients than asked for would change the load: the
                                // run fails (the started ones stop at their next connection)
                                w.fail(&format!("cannot start client thread {j} of {k}: {e}"));
                                break;
                            }
                        }
                    });
                    // the server closes what the clients closed
                    let made = shared.made.load(SeqCst);
                    let drain = Instant::now();
                    while w.closed() < made && drain.elapsed() < DRAIN_TIMEOUT && !w.stopped() {
                        thread::sleep(Duration::from_millis(1));
                    }
                    end_ns = w.last_close_ns().max(t0_ns + 1);
                    listen = before.and_then(|b| ListenCounters::read().map(|a| a.since(b)));
                }
            }
            w.stop();
            let outs: Vec<WorkerOut> = handles
                .into_iter()
                .enumerate()
                .map(|(i, h)| {
                    h.join()
                        .unwrap_or_else(|_| Err(NativeError(format!("worker {i} panicked"))))
                })
                .collect();
            (outs, t0_ns, end_ns, listen)
        });
        if let Some(f) = world.failure() {
            return Err(NativeError(f));
        }
        let outs: Vec<(WorkerStats, NetThreadReport)> =
            outs.into_iter().collect::<Result<_, _>>()?;
        let mut latency = LogHistogram::new();
        let mut hold = 0u64;
        let per_worker: Vec<WorkerReport> = outs
            .iter()
            .map(|(s, r)| {
                latency.merge(&r.latency);
                hold += r.mutex_hold_ns;
                WorkerReport {
                    wakeups: r.wakes.wakeups,
                    wasted_wakeups: r.wakes.wasted,
                    timer_wakeups: r.wakes.timer,
                    eagain: s.eagain,
                    connections: s.accepted,
                    requests: s.requests,
                    busy_ns: r.busy_ns,
                    mutex_acquired: s.lock_acquired,
                    mutex_failed: s.lock_failed,
                }
            })
            .collect();
        let made = shared.made.load(SeqCst);
        let load = LoadReport {
            connections_made: made,
            responses: shared.responses.load(SeqCst),
            connect_errors: shared.connect_errors.load(SeqCst),
            io_errors: shared.io_errors.load(SeqCst),
            first_error: shared
                .first_error
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            stopped_by_time_limit: shared.timed_out.load(SeqCst),
            time_limit_s: cfg.time_limit.as_secs(),
            server_closed: world.closed(),
            drained: world.closed() >= made,
        };
        let report = AcceptReport::from_parts(
            "native",
            &p,
            per_worker,
            latency.percentile(50.0).unwrap_or(0),
            latency.percentile(99.0).unwrap_or(0),
            hold,
            end_ns.saturating_sub(t0_ns),
            p.cpus,
        );
        Ok(NativeAcceptRun {
            report,
            load,
            preemptions: outs.iter().map(|(_, r)| r.nivcsw).sum(),
            voluntary_switches: outs.iter().map(|(_, r)| r.nvcsw).sum(),
            listen_overflows: listen.as_ref().ok().map(|l| l.overflows),
            listen_drops: listen.as_ref().ok().map(|l| l.drops),
        })
    }
}
