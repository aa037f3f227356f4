//! `herdlab sim herd`: a herd scenario run headless on core's simulated platform.

use std::time::Instant;

use serde::Serialize;

use herdlab_core::mechanisms::herd::HerdParams;
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::Role;

use crate::output::{list, per_sec, status_fields, table, wall_ns_since};

/// The default bound on the steps of one `sim` run.
pub const DEFAULT_MAX_STEPS: u64 = 2_000_000_000;

/// What one headless simulation reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    /// The scenario as a query string (every key present).
    pub scenario: String,
    /// `finished`, `stuck` or `running` (the step bound was reached).
    pub status: String,
    /// What is stuck, when `status` is `stuck`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck: Option<String>,
    /// Steps executed.
    pub steps: u64,
    /// Sleepers made runnable.
    pub wakeups: u64,
    /// Wakeups that found nothing to do.
    pub wasted_wakeups: u64,
    /// CPU switches between threads.
    pub context_switches: u64,
    /// Connections or jobs taken by a worker.
    pub connections_accepted: u64,
    /// Connections or jobs delivered.
    pub connections_arrived: u64,
    /// Simulated time, nanoseconds.
    pub sim_time_ns: u64,
    /// Busy CPU time summed over CPUs.
    pub cpu_time_ns: u64,
    /// Of that, time in useful work.
    pub work_time_ns: u64,
    /// System calls.
    pub syscalls: u64,
    /// `pause` instructions.
    pub spins: u64,
    /// Sleeps on a contended mutex.
    pub lock_sleeps: u64,
    /// Times the no-lost-wakeup invariant broke.
    pub lost_wakeups: u64,
    /// The first broken invariant: `[step, connection]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_violation: Option<(u64, u32)>,
    /// Per worker: connections or jobs handled.
    pub worker_accepted: Vec<u64>,
    /// Per worker: wakeups.
    pub worker_wakeups: Vec<u64>,
    /// Per worker: wasted wakeups.
    pub worker_wasted_wakeups: Vec<u64>,
    /// Wall-clock time of the run, nanoseconds.
    pub wall_ns: u64,
    /// Steps per wall-clock second.
    pub steps_per_sec: f64,
}

/// Simulate `params` to the end (or `max_steps`), headless.
pub fn run(params: &HerdParams, max_steps: u64) -> SimReport {
    let mut sim = params.simulate();
    // the report has no trace hash: the steps need not be hashed
    sim.set_trace(false);
    let t0 = Instant::now();
    sim.run(max_steps);
    let wall_ns = wall_ns_since(t0);
    let m = *sim.metrics();
    let (status, stuck) = status_fields(sim.status());
    let workers: Vec<_> = sim
        .threads()
        .iter()
        .filter(|t| t.role() == Role::Worker)
        .map(|t| *t.metrics())
        .collect();
    SimReport {
        scenario: Scenario::Herd(*params).to_query(),
        status,
        stuck,
        steps: m.steps,
        wakeups: m.wakeups,
        wasted_wakeups: m.wasted_wakeups,
        context_switches: m.context_switches,
        connections_accepted: m.connections_accepted,
        connections_arrived: m.connections_arrived,
        sim_time_ns: m.sim_time_ns,
        cpu_time_ns: m.cpu_time_ns,
        work_time_ns: m.work_time_ns,
        syscalls: m.syscalls,
        spins: m.spins,
        lock_sleeps: m.lock_sleeps,
        lost_wakeups: m.lost_wakeups,
        first_violation: sim.first_violation(),
        worker_accepted: workers.iter().map(|w| w.accepted).collect(),
        worker_wakeups: workers.iter().map(|w| w.wakeups).collect(),
        worker_wasted_wakeups: workers.iter().map(|w| w.wasted_wakeups).collect(),
        wall_ns,
        steps_per_sec: per_sec(m.steps, wall_ns),
    }
}

/// The report as an aligned, readable table.
pub fn render(r: &SimReport) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("steps", r.steps.to_string()),
        ("wakeups", r.wakeups.to_string()),
        ("wasted_wakeups", r.wasted_wakeups.to_string()),
        ("context_switches", r.context_switches.to_string()),
        ("connections_accepted", r.connections_accepted.to_string()),
        ("connections_arrived", r.connections_arrived.to_string()),
        ("sim_time_ns", r.sim_time_ns.to_string()),
        ("cpu_time_ns", r.cpu_time_ns.to_string()),
        ("work_time_ns", r.work_time_ns.to_string()),
        ("syscalls", r.syscalls.to_string()),
        ("spins", r.spins.to_string()),
        ("lock_sleeps", r.lock_sleeps.to_string()),
        ("lost_wakeups", r.lost_wakeups.to_string()),
    ];
    if let Some((step, conn)) = r.first_violation {
        rows.push(("first_violation", format!("step {step}, connection {conn}")));
    }
    rows.extend([
        ("accepted/worker", list(&r.worker_accepted)),
        ("wakeups/worker", list(&r.worker_wakeups)),
        ("wasted/worker", list(&r.worker_wasted_wakeups)),
    ]);
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
    use herdlab_core::mechanisms::herd::WakeMode;

    #[test]
    fn wake_all_wastes_seven_of_eight() {
        let p = HerdParams {
            workers: 8,
            cpus: 2,
            connections: 10,
            ..HerdParams::default()
        };
        let r = run(&p, DEFAULT_MAX_STEPS);
        assert_eq!(r.status, "finished");
        assert_eq!(r.wasted_wakeups, 70);
        assert_eq!(r.worker_accepted.len(), 8);
        assert_eq!(r.worker_accepted.iter().sum::<u64>(), 10);
        let r = run(
            &HerdParams {
                mode: WakeMode::Exclusive,
                ..p
            },
            DEFAULT_MAX_STEPS,
        );
        assert_eq!(r.wasted_wakeups, 0);
        assert!(render(&r).contains("wasted_wakeups        0"));
    }

    #[test]
    fn max_steps_bounds_the_run() {
        let r = run(&HerdParams::default(), 10);
        assert_eq!(r.steps, 10);
        assert_eq!(r.status, "running");
    }
}
