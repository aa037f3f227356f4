//! `herdlab sim locks`: a lock scenario run headless on core's simulated platform.

use std::time::Instant;

use serde::Serialize;

use herdlab_core::check::Violation;
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal};
use herdlab_core::mechanisms::locks::LockParams;
use herdlab_core::scenario::Scenario;

pub use crate::mechanisms::herd::sim::DEFAULT_MAX_STEPS;
use crate::output::{list, per_sec, status_fields, table, wall_ns_since};

/// The first broken lock invariant of a simulation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SimViolation {
    /// The step after which it was seen.
    pub step: u64,
    /// The invariant's name.
    pub invariant: String,
    /// What was seen.
    pub message: String,
}

impl SimViolation {
    /// `v`, seen after step `step`.
    fn at(step: u64, v: Violation) -> Self {
        SimViolation {
            step,
            invariant: v.invariant,
            message: v.message,
        }
    }
}

/// What one headless lock simulation reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimLocksReport {
    /// The scenario as a query string (every key present).
    pub scenario: String,
    /// `finished`, `stuck` or `running` (the step bound was reached).
    pub status: String,
    /// What is stuck, when `status` is `stuck`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck: Option<String>,
    /// Steps executed.
    pub steps: u64,
    /// Critical sections run (acquisitions).
    pub work_items: u64,
    /// Failed compare-and-exchange operations.
    pub cas_failures: u64,
    /// `pause` instructions.
    pub spins: u64,
    /// `sem_wait` calls that slept.
    pub sem_sleeps: u64,
    /// `sem_post` calls.
    pub sem_posts: u64,
    /// `sched_yield` calls.
    pub yields: u64,
    /// Sleeps on a contended lock (futex waits, semaphore waits).
    pub lock_sleeps: u64,
    /// System calls.
    pub syscalls: u64,
    /// CPU switches between threads.
    pub context_switches: u64,
    /// Simulated time, nanoseconds.
    pub sim_time_ns: u64,
    /// Busy CPU time summed over CPUs.
    pub cpu_time_ns: u64,
    /// Of that, time in critical sections.
    pub work_time_ns: u64,
    /// Per thread: acquisitions.
    pub acquisitions: Vec<u64>,
    /// The least served thread's fraction of the acquisitions.
    pub min_share: f64,
    /// The most served thread's fraction.
    pub max_share: f64,
    /// The semaphore's count at the end.
    pub sem_value: u32,
    /// The first lock invariant broken (checked after every step, and at the end).
    pub violation: Option<SimViolation>,
    /// Wall-clock time of the run, nanoseconds.
    pub wall_ns: u64,
    /// Steps per wall-clock second.
    pub steps_per_sec: f64,
}

/// Simulate a lock scenario to the end (or `max_steps`), checking the lock invariants after every
/// step.
pub fn run_locks(p: &LockParams, max_steps: u64) -> SimLocksReport {
    let mut sim = p.simulate();
    let t0 = Instant::now();
    let mut violation = None;
    let mut n = 0;
    while n < max_steps && sim.step().is_some() {
        n += 1;
        if violation.is_none() {
            violation = check_state(p, &sim).map(|v| SimViolation::at(sim.metrics().steps, v));
        }
    }
    if violation.is_none() && sim.runnable().is_empty() {
        violation = check_terminal(p, &sim).map(|v| SimViolation::at(sim.metrics().steps, v));
    }
    let wall_ns = wall_ns_since(t0);
    let m = *sim.metrics();
    let (status, stuck) = status_fields(sim.status());
    let acquisitions: Vec<u64> = sim
        .threads()
        .iter()
        .map(|t| t.machine().acquired() as u64)
        .collect();
    let total: u64 = acquisitions.iter().sum();
    let share = |x: Option<&u64>| match (x, total) {
        (Some(&x), t) if t > 0 => x as f64 / t as f64,
        _ => 0.0,
    };
    SimLocksReport {
        scenario: Scenario::Locks(*p).to_query(),
        status,
        stuck,
        steps: m.steps,
        work_items: m.work_items,
        cas_failures: m.cas_failures,
        spins: m.spins,
        sem_sleeps: m.sem_sleeps,
        sem_posts: m.sem_posts,
        yields: m.yields,
        lock_sleeps: m.lock_sleeps,
        syscalls: m.syscalls,
        context_switches: m.context_switches,
        sim_time_ns: m.sim_time_ns,
        cpu_time_ns: m.cpu_time_ns,
        work_time_ns: m.work_time_ns,
        min_share: share(acquisitions.iter().min()),
        max_share: share(acquisitions.iter().max()),
        acquisitions,
        sem_value: sim.sem_count(0),
        violation,
        wall_ns,
        steps_per_sec: per_sec(m.steps, wall_ns),
    }
}

/// The lock report as an aligned, readable table.
pub fn render_locks(r: &SimLocksReport) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("steps", r.steps.to_string()),
        ("work_items", r.work_items.to_string()),
        ("cas_failures", r.cas_failures.to_string()),
        ("spins", r.spins.to_string()),
        ("sem_sleeps", r.sem_sleeps.to_string()),
        ("sem_posts", r.sem_posts.to_string()),
        ("yields", r.yields.to_string()),
        ("lock_sleeps", r.lock_sleeps.to_string()),
        ("syscalls", r.syscalls.to_string()),
        ("context_switches", r.context_switches.to_string()),
        ("sim_time_ns", r.sim_time_ns.to_string()),
        ("cpu_time_ns", r.cpu_time_ns.to_string()),
        ("work_time_ns", r.work_time_ns.to_string()),
        ("acquisitions/thread", list(&r.acquisitions)),
        ("min_share", format!("{:.3}", r.min_share)),
        ("max_share", format!("{:.3}", r.max_share)),
        ("sem_value", r.sem_value.to_string()),
    ];
    match &r.violation {
        Some(v) => rows.push((
            "violation",
            format!("{} after step {}: {}", v.invariant, v.step, v.message),
        )),
        None => rows.push(("violation", "none".to_string())),
    }
    table(
        &r.scenario,
        &r.status,
        r.stuck.as_ref(),
        rows,
        r.wall_ns,
        r.steps_per_sec,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_run_to_the_end_and_count_every_acquisition() {
        let p = LockParams {
            threads: 3,
            rounds: 5,
            ..LockParams::default()
        };
        let r = run_locks(&p, DEFAULT_MAX_STEPS);
        assert_eq!(r.status, "finished", "{r:?}");
        assert_eq!(r.acquisitions, vec![5, 5, 5]);
        assert_eq!(r.work_items, 15);
        assert!(r.violation.is_none());
        assert!((r.min_share - 1.0 / 3.0).abs() < 1e-9);
        assert!(render_locks(&r).contains("violation            none"));
    }

    #[test]
    fn seed_listing_deadlocks_in_the_simulator() {
        use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
        let p = LockParams {
            threads: 4,
            rounds: 50,
            spin: 4,
            variant: ShmtxVariant::SeedListing,
            ..LockParams::default()
        };
        let r = run_locks(&p, DEFAULT_MAX_STEPS);
        let v = r.violation.expect("a broken invariant");
        assert!(
            ["deadlock", "wakeup-accounting"].contains(&v.invariant.as_str()),
            "{v:?}"
        );
    }
}
