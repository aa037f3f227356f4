//! The result of one accept run, the same object for the simulation and the native benchmark.
//!
//! Definitions (both platforms):
//! - `wakeups`: a worker asleep (in `epoll_wait` or a blocking `accept`/`read`) was made runnable, by an
//!   event or by its timer. Natively: the thread's voluntary context switches.
//! - `wasted_wakeups`: wakeups for the listening socket that found nothing to accept: the woken
//!   `epoll_wait` re-polled the socket, found it drained and slept again inside the kernel, or it
//!   returned to user space and `accept4` gave `EAGAIN`.
//! - `timer_wakeups`: wakeups by an `epoll_wait` timeout (the accept mutex's delay); neither useful nor
//!   wasted for the listening socket.
//! - `eagain`: `accept4` calls that returned `EAGAIN`, on their own.
//! - `jain_index`: Jain's fairness index over connections per worker, `(Σx)² / (n·Σx²)`: 1 when every
//!   worker took the same number, `1/n` when one took all.

use serde::{Deserialize, Serialize};

use super::{AcceptParams, AcceptSim};
use crate::op::Word;

/// One worker's share of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerReport {
    /// Times it was made runnable.
    pub wakeups: u64,
    /// Of those, wakeups for the listener that found nothing.
    pub wasted_wakeups: u64,
    /// Timer wakeups.
    pub timer_wakeups: u64,
    /// `EAGAIN` from `accept4`.
    pub eagain: u64,
    /// Connections it accepted.
    pub connections: u64,
    /// Requests it served.
    pub requests: u64,
    /// CPU time it used, ns.
    pub busy_ns: u64,
    /// Accept-mutex trylocks it won.
    pub mutex_acquired: u64,
    /// Accept-mutex trylocks it lost.
    pub mutex_failed: u64,
}

/// The result of one run of one strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AcceptReport {
    /// `sim` or `native`.
    pub platform: String,
    /// The strategy's name.
    pub strategy: String,
    /// Workers.
    pub workers: u32,
    /// CPUs (simulated, or this machine's).
    pub cpus: u32,
    /// Connections the run sent.
    pub connections: u32,
    /// New connections per second asked for.
    pub rate: u32,
    /// Requests per connection.
    pub requests_per_connection: u32,
    /// `--reorder-every` (exclusive only).
    pub reorder_every: u32,
    /// Wakeups, all workers.
    pub wakeups: u64,
    /// Wasted wakeups, all workers.
    pub wasted_wakeups: u64,
    /// Timer wakeups, all workers.
    pub timer_wakeups: u64,
    /// `EAGAIN` returns from `accept4`.
    pub eagain: u64,
    /// Connections accepted.
    pub connections_accepted: u64,
    /// Requests served.
    pub requests_served: u64,
    /// Connections per worker.
    pub per_worker_connections: Vec<u64>,
    /// Jain's fairness index over `per_worker_connections`.
    pub jain_index: f64,
    /// The busiest worker's share of the connections (0-1).
    pub busiest_share: f64,
    /// `wakeups / connections_accepted`.
    pub wakeups_per_connection: f64,
    /// `wasted_wakeups / connections_accepted`.
    pub wasted_per_connection: f64,
    /// `eagain / connections_accepted`.
    pub eagain_per_connection: f64,
    /// Median time from a connection's arrival in the accept queue to its `accept`, ns.
    pub accept_p50_ns: u64,
    /// 99th percentile of the same.
    pub accept_p99_ns: u64,
    /// Accept-mutex trylocks won.
    pub mutex_acquisitions: u64,
    /// Accept-mutex trylocks lost.
    pub mutex_failures: u64,
    /// Total time the accept mutex was held, ns.
    pub mutex_hold_ns: u64,
    /// Wall (or simulated) time of the run, ns.
    pub elapsed_ns: u64,
    /// CPU time no worker used: `cpus × elapsed − busy`, ns.
    pub idle_cpu_ns: u64,
    /// Connections per second over the run.
    pub connections_per_sec: f64,
    /// Per-worker details.
    pub per_worker: Vec<WorkerReport>,
}

/// Jain's fairness index of `xs`: `(Σx)² / (n·Σx²)`; 1 for an empty or all-zero list.
///
/// ```
/// use herdlab_core::mechanisms::accept::jain_index;
/// assert_eq!(jain_index(&[5, 5, 5, 5]), 1.0);
/// assert_eq!(jain_index(&[8, 0, 0, 0]), 0.25);
/// ```
pub fn jain_index(xs: &[u64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().map(|&x| x as f64).sum();
    let sq: f64 = xs.iter().map(|&x| (x as f64) * (x as f64)).sum();
    if n == 0.0 || sq == 0.0 {
        1.0
    } else {
        sum * sum / (n * sq)
    }
}

fn per(x: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        x as f64 / n as f64
    }
}

impl AcceptReport {
    /// Build the report from per-worker rows and run totals (both platforms use this, so the derived
    /// figures are computed one way).
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        platform: &str,
        p: &AcceptParams,
        per_worker: Vec<WorkerReport>,
        accept_p50_ns: u64,
        accept_p99_ns: u64,
        mutex_hold_ns: u64,
        elapsed_ns: u64,
        cpus: u32,
    ) -> Self {
        let sum = |f: fn(&WorkerReport) -> u64| per_worker.iter().map(f).sum::<u64>();
        let accepted = sum(|w| w.connections);
        let conns: Vec<u64> = per_worker.iter().map(|w| w.connections).collect();
        let busiest = conns.iter().copied().max().unwrap_or(0);
        let busy = sum(|w| w.busy_ns);
        let wakeups = sum(|w| w.wakeups);
        let wasted = sum(|w| w.wasted_wakeups);
        let eagain = sum(|w| w.eagain);
        AcceptReport {
            platform: platform.to_string(),
            strategy: p.strategy.name().to_string(),
            workers: p.workers,
            cpus,
            connections: p.connections,
            rate: p.rate,
            requests_per_connection: p.requests,
            reorder_every: p.reorder_every,
            wakeups,
            wasted_wakeups: wasted,
            timer_wakeups: sum(|w| w.timer_wakeups),
            eagain,
            connections_accepted: accepted,
            requests_served: sum(|w| w.requests),
            jain_index: jain_index(&conns),
            busiest_share: per(busiest, accepted),
            per_worker_connections: conns,
            wakeups_per_connection: per(wakeups, accepted),
            wasted_per_connection: per(wasted, accepted),
            eagain_per_connection: per(eagain, accepted),
            accept_p50_ns,
            accept_p99_ns,
            mutex_acquisitions: sum(|w| w.mutex_acquired),
            mutex_failures: sum(|w| w.mutex_failed),
            mutex_hold_ns,
            elapsed_ns,
            idle_cpu_ns: (cpus as u64 * elapsed_ns).saturating_sub(busy),
            connections_per_sec: if elapsed_ns == 0 {
                0.0
            } else {
                accepted as f64 * 1e9 / elapsed_ns as f64
            },
            per_worker,
        }
    }

    /// The report of a finished (or stopped) simulation.
    pub fn from_sim(p: &AcceptParams, sim: &AcceptSim) -> Self {
        let per_worker = sim
            .threads()
            .iter()
            .map(|t| {
                let m = t.metrics();
                let s = t.machine().stats();
                WorkerReport {
                    wakeups: m.wakeups,
                    wasted_wakeups: m.wasted_wakeups,
                    timer_wakeups: m.timer_wakeups,
                    eagain: s.eagain,
                    connections: m.accepted,
                    requests: s.requests,
                    busy_ns: m.busy_ns,
                    mutex_acquired: s.lock_acquired,
                    mutex_failed: s.lock_failed,
                }
            })
            .collect();
        let h = sim.accept_latency();
        AcceptReport::from_parts(
            "sim",
            p,
            per_worker,
            h.percentile(50.0).unwrap_or(0),
            h.percentile(99.0).unwrap_or(0),
            sim.word_busy_ns(Word(0)),
            sim.now_ns(),
            sim.cpus().len() as u32,
        )
    }
}
