//! How long a thread asleep on a futex takes to run once woken, when its CPU had gone idle:
//! what the simulator's `cross_cpu_wake_ns` stands for (an IPI, the idle CPU leaving its idle
//! state, the switch into the thread), measured on this machine.
//!
//! On the 2-vCPU KVM guest the benches ran on (AMD EPYC, Linux 6.18, 2026-12-05) the median
//! was about 21 µs after 100 µs idle, 15 µs after 20 µs and 2 µs after 5 µs: a virtual CPU that
//! idles past the host's halt-polling window has to be scheduled again by the host. Bare metal
//! with shallow C-states answers in a few µs, as the simulator's default (5 µs) assumes.
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

/// The median time from a `futex(FUTEX_WAKE)` to the woken thread running, ns, over
/// [`WAKE_SAMPLES`] wakes of a thread whose CPU idled [`WAKE_IDLE_NS`] before each. `None` on a
/// machine with one CPU (no CPU is idle while the waker runs). About 25 ms.
pub fn idle_cpu_wake_ns() -> Result<Option<u64>, NativeError> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return Ok(None);
    }
    let epoch = Instant::now();
    let now = || epoch.elapsed().as_nanos() as u64;
    // 1: the sleeper may run (set by the waker, cleared by the sleeper); `stamp`: the wake's time
    let (word, stamp, acks) = (AtomicU32::new(0), AtomicU64::new(0), AtomicU32::new(0));
    let failed = AtomicU32::new(0);
    let over = || epoch.elapsed() > WAKE_LIMIT || failed.load(SeqCst) != 0;
    let lat = std::thread::scope(|s| {
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
        let waker = || -> Result<(), NativeError> {
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
                stamp.store(now(), SeqCst);
                word.store(1, SeqCst);
                futex_wake(&word, 1)?;
            }
            Ok(())
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
        w.and(l)
    })?;
    let mut lat = lat;
    lat.sort_unstable();
    Ok(Some(lat[lat.len() / 2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wake is measured and the figure is a time a wake can take: more than nothing, far
    /// less than the idle gap's multiple (not a timing assertion: a sanity bound of 1 s).
    #[test]
    fn the_median_wake_of_an_idle_cpus_sleeper_is_measured() {
        match idle_cpu_wake_ns().expect("measured") {
            None => assert!(std::thread::available_parallelism().map_or(1, |n| n.get()) < 2),
            Some(ns) => assert!(ns > 0 && ns < 1_000_000_000, "{ns}"),
        }
    }
}
