//! The counters a simulation keeps, and their exact definitions.

use serde::{Deserialize, Serialize};

/// Counters for a whole run. Every field is updated on the step that causes it.
///
/// Definitions:
/// - `wakeups`: a thread asleep waiting for work (in `schedule()` inside accept, `futex_wait`,
///   `cond_wait`) was made runnable.
/// - `wasted_wakeups`: a woken thread went back to waiting for work without doing any (it found
///   nothing: the herd's cost).
/// - `context_switches`: a CPU switched from one thread to another or to idle (a thread blocked, or
///   was preempted).
/// - `lock_sleeps`: a thread slept on a contended sleeping mutex (not a wait for work).
/// - `syscalls`: operations that are system calls on a real kernel.
/// - `spins`: `pause` instructions executed.
/// - `lost_wakeups`: times the "no lost wakeup" invariant broke: work was waiting while every worker
///   slept and nothing was left to wake them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Metrics {
    /// Steps executed.
    pub steps: u64,
    /// Sleepers made runnable (see the type docs).
    pub wakeups: u64,
    /// Wakeups that found nothing to do.
    pub wasted_wakeups: u64,
    /// CPU switches between threads.
    pub context_switches: u64,
    /// Connections (or jobs) taken by a worker.
    pub connections_accepted: u64,
    /// Connections (or jobs) delivered by the arrival pattern.
    pub connections_arrived: u64,
    /// Simulated time: the latest instant any step reached.
    pub sim_time_ns: u64,
    /// Busy CPU time summed over CPUs (work, spinning, kernel paths and switching).
    pub cpu_time_ns: u64,
    /// Of `cpu_time_ns`, the part spent in `Work` (useful work).
    pub work_time_ns: u64,
    /// System calls.
    pub syscalls: u64,
    /// `pause` instructions.
    pub spins: u64,
    /// Sleeps on a contended mutex.
    pub lock_sleeps: u64,
    /// Times the no-lost-wakeup invariant broke.
    pub lost_wakeups: u64,
    /// `sem_wait` calls that slept.
    pub sem_sleeps: u64,
    /// `sem_post` calls.
    pub sem_posts: u64,
    /// `Work` steps (requests handled, critical sections run).
    pub work_items: u64,
    /// Compare-and-exchange operations that failed.
    pub cas_failures: u64,
    /// `sched_yield` calls.
    pub yields: u64,
    /// Non-blocking `accept4` calls that found the queue empty (`EAGAIN`).
    pub eagain: u64,
    /// Wakeups by an `epoll_wait` timeout (counted in `wakeups` too, never in `wasted_wakeups`).
    pub timer_wakeups: u64,
}

/// Counters for one thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ThreadMetrics {
    /// Times this thread was woken from a wait for work.
    pub wakeups: u64,
    /// Of those, the wakeups that found nothing.
    pub wasted_wakeups: u64,
    /// Connections or jobs this thread handled.
    pub accepted: u64,
    /// Steps this thread executed.
    pub steps: u64,
    /// `EAGAIN` returns from non-blocking `accept4`.
    pub eagain: u64,
    /// Wakeups by an `epoll_wait` timeout.
    pub timer_wakeups: u64,
    /// Simulated CPU time this thread used, ns (steps and work, not switching).
    pub busy_ns: u64,
    /// Times this thread left its CPU because it blocked (Linux's `nvcsw`, getrusage's
    /// `ru_nvcsw`): it went to sleep in a wait.
    pub voluntary_switches: u64,
    /// Times this thread left its CPU while still runnable (Linux's `nivcsw`, getrusage's
    /// `ru_nivcsw`): its time slice ran out, a woken thread preempted it, or it yielded with
    /// another thread queued. A switch from an idle CPU to a thread is no thread's switch, and an
    /// exiting thread's last switch is not counted (a thread's counts join its process's before
    /// that switch), as on Linux.
    pub involuntary_switches: u64,
}
