//! The thundering herd on real threads: `herdlab_core`'s herd machines driven by the native platform.
//!
//! - [`Variant::FutexWakeAll`] … [`Variant::CondvarNotifyOne`]: the `N` workers and the producer of
//!   `HerdParams { primitive, mode, workers: N, service_ns: 0, .. }.threads()` each on its own thread.
//!   The producer's `AwaitEvent` is a [`HerdGate`]: it waits until every worker is asleep (all `N`
//!   have announced, `WAITERS == N`, every worker is inside its wait and its
//!   `/proc/self/task/<tid>/stat` state is `S`, on two consecutive polls with no worker having
//!   re-entered a wait in between), then stamps the event and returns `Done`; after `E` events it
//!   returns `Closed`, and the producer's machine stops the workers.
//! - [`Variant::Accept`]: `N` threads running `AcceptWorker` on one loopback listener, and a load
//!   generator that waits until all `N` are asleep in `accept`, stamps the time, connects to the
//!   listener's `127.0.0.1` address and closes; after `E` connections it shuts the listener down
//!   (`shutdown(fd, SHUT_RDWR)`), so every blocked `accept` returns and the workers exit.
//!
//! Counters are taken between two snapshots, the first when every worker is asleep before the first
//! event, the last when every worker is asleep after the last one, so the start-up and the final
//! STOP (or shutdown) wake are not in the per-event figures. The time of an event runs from its
//! stamp to the moment a worker starts the `Work` of that job.
//!
//! Everything is bounded: each wait for "all asleep" by [`GATE_TIMEOUT`](crate::platform::native::GATE_TIMEOUT), each futex or condition
//! wait by [`crate::platform::WAIT_TIMEOUT`], each run by [`RUN_TIMEOUT`], connections by
//! [`MAX_EVENTS`]; an error fails the world, which releases every thread.

use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::herd::futex_herd::WAITERS;
use herdlab_core::mechanisms::herd::{HerdParams, HerdThread, Primitive, WakeMode};
use herdlab_core::op::{OpResult, Word};
use herdlab_core::sim::Role;

use crate::platform::{
    drive, supported, thread_nvcsw, EventGate, NativeError, NativeWorld, ThreadReport, WorldSpec,
};

/// The longest one run may take.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// The most events (jobs, connections) in one run.
pub const MAX_EVENTS: u32 = 10_000;
/// The most worker threads in one run.
pub const MAX_THREADS: u32 = 1024;
/// How long the load generator's `connect` may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What the workers sleep on, and how the producer wakes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `futex_wait`; the producer wakes all (`FUTEX_WAKE`, `INT_MAX`).
    FutexWakeAll,
    /// `futex_wait`; the producer wakes one.
    FutexWakeOne,
    /// `cv.wait`; the producer calls `notify_all`.
    CondvarNotifyAll,
    /// `cv.wait`; the producer calls `notify_one`.
    CondvarNotifyOne,
    /// A blocking `accept` on one loopback listener; the kernel decides who wakes.
    Accept,
}

impl Variant {
    /// Every variant, in the order the benchmark reports them.
    pub const ALL: [Variant; 5] = [
        Variant::FutexWakeAll,
        Variant::FutexWakeOne,
        Variant::CondvarNotifyAll,
        Variant::CondvarNotifyOne,
        Variant::Accept,
    ];

    /// The row label.
    pub fn label(self) -> &'static str {
        match self {
            Variant::FutexWakeAll => "futex wake-all",
            Variant::FutexWakeOne => "futex wake-one",
            Variant::CondvarNotifyAll => "condvar notify_all",
            Variant::CondvarNotifyOne => "condvar notify_one",
            Variant::Accept => "accept",
        }
    }

    /// The herd parameters whose machines this variant runs (no service time).
    pub fn params(self, workers: u32) -> HerdParams {
        let (primitive, mode) = match self {
            Variant::FutexWakeAll => (Primitive::Futex, WakeMode::WakeAll),
            Variant::FutexWakeOne => (Primitive::Futex, WakeMode::Exclusive),
            Variant::CondvarNotifyAll => (Primitive::Condvar, WakeMode::WakeAll),
            Variant::CondvarNotifyOne => (Primitive::Condvar, WakeMode::Exclusive),
            Variant::Accept => (Primitive::Accept, WakeMode::Exclusive),
        };
        HerdParams {
            primitive,
            mode,
            workers,
            service_ns: 0,
            ..HerdParams::default()
        }
    }
}

/// What one native run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Worker threads.
    pub threads: u32,
    /// Events delivered (jobs published, connections made).
    pub events: u32,
    /// Wakeups between the two snapshots (accept: the workers' voluntary context switches).
    pub wakeups: u64,
    /// Wasted wakeups between the snapshots (accept: wakeups − connections, at least 0).
    pub wasted_wakeups: u64,
    /// The workers' voluntary context switches between the snapshots.
    pub nvcsw: u64,
    /// `Work` operations in the whole run (one per job handled).
    pub work_items: u64,
    /// Connections accepted in the whole run (accept only).
    pub connections: u32,
    /// The time of each event, sorted, in nanoseconds.
    pub latencies_ns: Vec<u64>,
    /// Every thread's own report (the workers first).
    pub thread_reports: Vec<ThreadReport>,
}

impl RunReport {
    /// `x / events`.
    pub fn per_event(&self, x: u64) -> f64 {
        if self.events == 0 {
            0.0
        } else {
            x as f64 / self.events as f64
        }
    }

    /// The `p`-quantile (0 < p ≤ 1, nearest rank) of the event times; 0 with no samples.
    pub fn latency_quantile(&self, p: f64) -> u64 {
        quantile(&self.latencies_ns, p)
    }
}

/// The nearest-rank `p`-quantile of sorted samples (0 when empty).
pub fn quantile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Run one variant with `threads` workers for `events` events.
pub fn run(variant: Variant, threads: u32, events: u32) -> Result<RunReport, NativeError> {
    supported()?;
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(NativeError(format!(
            "threads: {threads} is out of range; allowed 1-{MAX_THREADS}"
        )));
    }
    if !(1..=MAX_EVENTS).contains(&events) {
        return Err(NativeError(format!(
            "events: {events} is out of range; allowed 1-{MAX_EVENTS}"
        )));
    }
    match variant {
        Variant::Accept => run_accept(threads, events),
        _ => run_wait_herd(variant, threads, events),
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Snap {
    wakeups: u64,
    wasted: u64,
    nvcsw: u64,
}

fn snap(world: &NativeWorld, workers: usize) -> Result<Snap, NativeError> {
    let mut s = Snap::default();
    for i in 0..workers {
        let slot = world.slot(i);
        s.wakeups += slot.wakeups();
        s.wasted += slot.wasted();
        s.nvcsw += thread_nvcsw(slot.tid()).ok_or_else(|| {
            NativeError(format!(
                "cannot read /proc/self/task/{}/status of worker {i}",
                slot.tid()
            ))
        })?;
    }
    Ok(s)
}

/// Wait until every worker is asleep in its wait for work ([`NativeWorld::wait_asleep`]), and
/// `WAITERS == workers` when a word is given; the error says what `WAITERS` held.
fn wait_all_asleep(
    world: &NativeWorld,
    workers: usize,
    waiters: Option<Word>,
    deadline: Instant,
) -> Result<(), NativeError> {
    let all: Vec<usize> = (0..workers).collect();
    let extra = || waiters.is_none_or(|w| world.load(w) == Some(workers as u32));
    world.wait_asleep(&all, &extra, deadline).map_err(|e| {
        match waiters.and_then(|w| world.load(w)) {
            Some(v) => NativeError(format!("{}, waiters = {v}", e.0)),
            None => e,
        }
    })
}

/// The producer's event source for the futex and condition-variable herds.
pub struct HerdGate {
    workers: usize,
    events: u32,
    delivered: AtomicU32,
    deadline: Instant,
    baseline: Mutex<Option<Snap>>,
    last: Mutex<Option<Snap>>,
}

impl HerdGate {
    fn new(workers: usize, events: u32, deadline: Instant) -> Self {
        HerdGate {
            workers,
            events,
            delivered: AtomicU32::new(0),
            deadline,
            baseline: Mutex::new(None),
            last: Mutex::new(None),
        }
    }
}

impl EventGate for HerdGate {
    fn await_event(&self, world: &NativeWorld, _thread: usize) -> Result<OpResult, NativeError> {
        wait_all_asleep(world, self.workers, Some(WAITERS), self.deadline)?;
        let k = self.delivered.load(SeqCst);
        if k == 0 {
            *self.baseline.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(snap(world, self.workers)?);
        }
        if k >= self.events {
            *self.last.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(snap(world, self.workers)?);
            return Ok(OpResult::Closed);
        }
        self.delivered.store(k + 1, SeqCst);
        world.stamp_event();
        Ok(OpResult::Done)
    }
}

/// Run `machines` (thread `i` in slot `i`) and `side` on scoped threads; collect the reports.
fn run_threads<M, R, F>(
    world: &NativeWorld,
    machines: Vec<M>,
    gate: Option<&dyn EventGate>,
    side: F,
) -> (Vec<Result<ThreadReport, NativeError>>, Option<R>)
where
    M: Machine + Send,
    R: Send,
    F: FnOnce() -> R + Send,
{
    thread::scope(|s| {
        let mut handles = Vec::with_capacity(machines.len());
        for (i, mut m) in machines.into_iter().enumerate() {
            let spawned = thread::Builder::new()
                .name(format!("herd-{i}"))
                .stack_size(256 * 1024)
                .spawn_scoped(s, move || drive(world, i, &mut m, gate));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    world.fail(&format!("cannot start thread {i}: {e}"));
                    break;
                }
            }
        }
        let side = match thread::Builder::new()
            .name("herd-load".into())
            .spawn_scoped(s, side)
        {
            Ok(h) => Some(h),
            Err(e) => {
                world.fail(&format!("cannot start the load thread: {e}"));
                None
            }
        };
        let reports = handles
            .into_iter()
            .enumerate()
            .map(|(i, h)| {
                h.join().unwrap_or_else(|_| {
                    world.fail(&format!("thread {i} panicked"));
                    Err(NativeError(format!("thread {i} panicked")))
                })
            })
            .collect();
        let side = side.and_then(|h| h.join().ok());
        (reports, side)
    })
}

fn collect(
    world: &NativeWorld,
    results: Vec<Result<ThreadReport, NativeError>>,
) -> Result<Vec<ThreadReport>, NativeError> {
    if let Some(f) = world.failure() {
        return Err(NativeError(f));
    }
    results.into_iter().collect()
}

fn run_wait_herd(variant: Variant, threads: u32, events: u32) -> Result<RunReport, NativeError> {
    let deadline = Instant::now() + RUN_TIMEOUT;
    let machines = variant.params(threads).threads();
    let n = threads as usize;
    debug_assert_eq!(machines.len(), n + 1);
    debug_assert!(machines[..n].iter().all(|(_, r)| *r == Role::Worker));
    let world = NativeWorld::new(WorldSpec {
        words: 2,
        mutexes: 1,
        condvars: 1,
        listener: false,
        sems: 0,
        packed: false,
        threads: machines.len(),
    })?;
    let gate = HerdGate::new(n, events, deadline);
    let machines: Vec<HerdThread> = machines.into_iter().map(|(m, _)| m).collect();
    let (results, _) = run_threads(&world, machines, Some(&gate), || ());
    let reports = collect(&world, results)?;
    let base = gate
        .baseline
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .ok_or_else(|| NativeError("the run ended before its first event".into()))?;
    let last = gate
        .last
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .ok_or_else(|| NativeError("the run ended before its last event".into()))?;
    let workers = &reports[..n];
    let mut latencies: Vec<u64> = workers
        .iter()
        .flat_map(|r| r.latencies_ns.iter().copied())
        .collect();
    latencies.sort_unstable();
    Ok(RunReport {
        threads,
        events: gate.delivered.load(SeqCst),
        wakeups: last.wakeups - base.wakeups,
        wasted_wakeups: last.wasted - base.wasted,
        nvcsw: last.nvcsw.saturating_sub(base.nvcsw),
        work_items: workers.iter().map(|r| r.work_items).sum(),
        connections: 0,
        latencies_ns: latencies,
        thread_reports: reports,
    })
}

/// Shuts the listener down when dropped, however the load generator ends.
struct ShutdownOnDrop<'a>(&'a NativeWorld);

impl Drop for ShutdownOnDrop<'_> {
    fn drop(&mut self) {
        self.0.shutdown_listener();
    }
}

fn load_generator(
    world: &NativeWorld,
    workers: usize,
    events: u32,
    addr: SocketAddr,
    deadline: Instant,
) -> Result<(Snap, Snap, u32), NativeError> {
    let _shut = ShutdownOnDrop(world);
    let go = || -> Result<(Snap, Snap, u32), NativeError> {
        wait_all_asleep(world, workers, None, deadline)?;
        let base = snap(world, workers)?;
        let mut made = 0;
        for _ in 0..events {
            wait_all_asleep(world, workers, None, deadline)?;
            world.stamp_event();
            let c = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
                .map_err(|e| NativeError(format!("connect to {addr} failed: {e}")))?;
            drop(c);
            made += 1;
        }
        wait_all_asleep(world, workers, None, deadline)?;
        let last = snap(world, workers)?;
        Ok((base, last, made))
    };
    let r = go();
    if let Err(e) = &r {
        world.fail(&e.0);
    }
    r
}

fn run_accept(threads: u32, events: u32) -> Result<RunReport, NativeError> {
    let deadline = Instant::now() + RUN_TIMEOUT;
    let n = threads as usize;
    let machines: Vec<HerdThread> = Variant::Accept
        .params(threads)
        .threads()
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    let world = NativeWorld::new(WorldSpec {
        words: 0,
        mutexes: 0,
        condvars: 0,
        listener: true,
        sems: 0,
        packed: false,
        threads: n,
    })?;
    let addr = world
        .listener_addr()
        .ok_or_else(|| NativeError("the listener has no address".into()))?;
    if !addr.ip().is_loopback() {
        return Err(NativeError(format!(
            "refusing a non-loopback listener {addr}"
        )));
    }
    let w = &world;
    let (results, side) = run_threads(w, machines, None, move || {
        load_generator(w, n, events, addr, deadline)
    });
    let reports = collect(&world, results)?;
    let (base, last, made) =
        side.ok_or_else(|| NativeError("the load generator panicked".into()))??;
    let mut latencies: Vec<u64> = reports
        .iter()
        .flat_map(|r| r.latencies_ns.iter().copied())
        .collect();
    latencies.sort_unstable();
    let wakeups = last.nvcsw.saturating_sub(base.nvcsw);
    Ok(RunReport {
        threads,
        events: made,
        wakeups,
        wasted_wakeups: wakeups.saturating_sub(made as u64),
        nvcsw: wakeups,
        work_items: reports.iter().map(|r| r.work_items).sum(),
        connections: world.connections_accepted(),
        latencies_ns: latencies,
        thread_reports: reports,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), 50);
        assert_eq!(quantile(&v, 0.99), 99);
        assert_eq!(quantile(&v, 1.0), 100);
        assert_eq!(quantile(&[7], 0.99), 7);
        assert_eq!(quantile(&[], 0.5), 0);
    }

    #[test]
    fn variants_build_core_machines() {
        let t = Variant::FutexWakeAll.params(3).threads();
        assert_eq!(t.len(), 4);
        assert!(matches!(t[3].0, HerdThread::FutexProducer(_)));
        let t = Variant::CondvarNotifyOne.params(2).threads();
        assert!(matches!(t[0].0, HerdThread::CondvarWorker(_)));
        let t = Variant::Accept.params(2).threads();
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(run(Variant::FutexWakeAll, 0, 5).is_err());
        assert!(run(Variant::FutexWakeAll, 2, MAX_EVENTS + 1).is_err());
    }
}
