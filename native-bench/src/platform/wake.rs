//! How long a thread asleep on a futex takes to run once woken, when its CPU had gone idle:
//! what the simulator's `cross_cpu_wake_ns` stands for (an IPI, the idle CPU leaving its idle
//! state, the switch into the thread), measured on this machine.
//!
//! On the 2-vCPU KVM guest the benches ran on (AMD EPYC, Linux 6.18, 2026-12-05) the median
//! was about 21 µs after 100 µs idle, 15 µs after 20 µs and 2 µs after 5 µs: a virtual CPU that
//! idles past the host's halt-polling window has to be scheduled again by the host. Bare metal
//! with shallow C-states answers in a few µs, as the simulator's default (5 µs) assumes.
//!
//! The same wakes say what the wake costs the waker ([`IdleWake::waker_ns`], the simulator's
//! `wake_ipi_ns`): its `futex(FUTEX_WAKE)` call against one just before on a word nobody waits
//! on. On that guest, 6.5 to 8 µs more (medians, 2026-12-06): the IPI to the idle virtual CPU
//! exits to the host. On bare metal it is a few hundred ns.
//!
//! Generic: names no mechanism.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use super::futex::{futex_wait, futex_wake};
use super::NativeError;

/// Wakes measured; their median is the figure.
pub const WAKE_SAMPLES: u32 = 200;
/// How long the sleeper's CPU idles before each wake, ns: past a halt-polling window, as a
/// parked thread's CPU usually is when work comes for it.
pub const WAKE_IDLE_NS: u64 = 100_000;
/// The most the whole measurement may take.
const WAKE_LIMIT: Duration = Duration::from_secs(2);

/// What [`idle_cpu_wake`] measured: both sides of a wake onto an idle CPU, medians in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleWake {
    /// From the `futex(FUTEX_WAKE)` call to the woken thread running: the simulator's
    /// `cross_cpu_wake_ns` and the switch into the thread (`CostModel::idle_wake_ns`).
    pub latency_ns: u64,
    /// What that call cost its caller beyond a `futex(FUTEX_WAKE)` that finds nobody (the IPI
    /// that gets the sleeper's CPU out of idle; 0 when it cost no more): the simulator's
    /// `wake_ipi_ns`. On the 2-vCPU guest, 6.5 to 8 µs: the IPI exits to the host.
    pub waker_ns: u64,
}

/// The median time from a `futex(FUTEX_WAKE)` to the woken thread running, ns, over
/// [`WAKE_SAMPLES`] wakes of a thread whose CPU idled [`WAKE_IDLE_NS`] before each. `None` on a
/// machine with one CPU (no CPU is idle while the waker runs). About 25 ms.
pub fn idle_cpu_wake_ns() -> Result<Option<u64>, NativeError> {
    Ok(idle_cpu_wake()?.map(|w| w.latency_ns))
}

/// Both sides of a wake onto an idle CPU ([`IdleWake`]), over [`WAKE_SAMPLES`] wakes of a
/// thread whose CPU idled [`WAKE_IDLE_NS`] before each: the time to the woken thread running,
/// and what the waker's call cost it, against a call just before it on a word nobody waits on.
/// `None` on a machine with one CPU. About 25 ms.
pub fn idle_cpu_wake() -> Result<Option<IdleWake>, NativeError> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return Ok(None);
    }
    let epoch = Instant::now();
    let now = || epoch.elapsed().as_nanos() as u64;
    // 1: the sleeper may run (set by the waker, cleared by the sleeper); `stamp`: the wake's time
    let (word, stamp, acks) = (AtomicU32::new(0), AtomicU64::new(0), AtomicU32::new(0));
    // a word nobody waits on: the call that wakes nobody
    let nobody = AtomicU32::new(0);
    let failed = AtomicU32::new(0);
    let over = || epoch.elapsed() > WAKE_LIMIT || failed.load(SeqCst) != 0;
    let (lat, calls) = std::thread::scope(|s| {
        let sleeper = s.spawn(|| -> Result<Vec<u64>, NativeError> {
            let mut lat = Vec::with_capacity(WAKE_SAMPLES as usize);
            for _ in 0..WAKE_SAMPLES {
                while word.load(SeqCst) == 0 {
                    if over() {
                        return Err(NativeError::new("the wake measurement ran past 2 s"));
                    }
                    futex_wait(&word, 0, Duration::from_millis(100))?;
                }
                lat.push(now().saturating_sub(stamp.load(SeqCst)));
                word.store(0, SeqCst);
                acks.fetch_add(1, SeqCst);
            }
            Ok(lat)
        });
        // (the call that woke the sleeper, the call that woke nobody), each wake
        let waker = || -> Result<(Vec<u64>, Vec<u64>), NativeError> {
            let (mut woke, mut idle) = (Vec::new(), Vec::new());
            for i in 0..WAKE_SAMPLES {
                // the sleeper has taken the last wake and is going back to sleep
                while acks.load(SeqCst) != i {
                    if over() {
                        return Err(NativeError::new("the wake measurement ran past 2 s"));
                    }
                    std::hint::spin_loop();
                }
                let t0 = now();
                while now() - t0 < WAKE_IDLE_NS {
                    std::hint::spin_loop();
                }
                let a = now();
                futex_wake(&nobody, 1)?;
                let b = now();
                stamp.store(b, SeqCst);
                word.store(1, SeqCst);
                let c = now();
                futex_wake(&word, 1)?;
                let d = now();
                idle.push(b - a);
                woke.push(d - c);
            }
            Ok((woke, idle))
        };
        let w = waker();
        if w.is_err() {
            failed.store(1, SeqCst);
            word.store(1, SeqCst);
            let _ = futex_wake(&word, 1);
        }
        let l = sleeper
            .join()
            .unwrap_or_else(|_| Err(NativeError::new("the wake measurement's sleeper panicked")));
        match (w, l) {
            (Ok(w), Ok(l)) => Ok((l, w)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    })?;
    let med = |mut v: Vec<u64>| {
        v.sort_unstable();
        v[v.len() / 2]
    };
    let (woke, idle) = calls;
    Ok(Some(IdleWake {
        latency_ns: med(lat),
        waker_ns: med(woke).saturating_sub(med(idle)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wake is measured and the figure is a time a wake can take: more than nothing, far
    /// less than the idle gap's multiple (not a timing assertion: a sanity bound of 1 s).
    #[test]
    fn the_median_wake_of_an_idle_cpus_sleeper_is_measured() {
        // both sides: the waker's extra is a time a call can take (the same sanity bound)
        match idle_cpu_wake().expect("measured") {
            None => assert!(std::thread::available_parallelism().map_or(1, |n| n.get()) < 2),
            Some(w) => assert!(w.latency_ns > 0 && w.waker_ns < 1_000_000_000, "{w:?}"),
        }
        match idle_cpu_wake_ns().expect("measured") {
            None => assert!(std::thread::available_parallelism().map_or(1, |n| n.get()) < 2),
            Some(ns) => assert!(ns > 0 && ns < 1_000_000_000, "{ns}"),
        }
    }
}
