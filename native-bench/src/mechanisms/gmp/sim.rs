//! `herdlab sim gmp`: a G/M/P scenario run headless on core's simulated platform.

use serde::Serialize;

use herdlab_core::cost::CostModel;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpReport, GmpSim};

/// What one headless G/M/P simulation reports: core's [`GmpReport`] first (its first eight
/// fields, `steps` … `sim_time_ns`, are the contract's keys), then the run's shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SimGmpReport {
    /// Core's report of the run.
    #[serde(flatten)]
    pub report: GmpReport,
    /// `finished` (every M exited) or `running` (the step bound came first, or the run stopped
    /// with Ms left: see `violation`).
    pub status: &'static str,
    /// The scenario as a query string (every key present).
    pub scenario: String,
}

/// Run `p` to the end (at most `max_steps` steps), checking core's invariants after every step.
pub fn run_gmp(p: &GmpParams, max_steps: u64) -> SimGmpReport {
    run_gmp_with(p, CostModel::default(), max_steps)
}

/// [`run_gmp`] under the cost model `cost` (`sim gmp --coherence-miss-ns`).
pub fn run_gmp_with(p: &GmpParams, cost: CostModel, max_steps: u64) -> SimGmpReport {
    let (sim, report) = p.run_with(cost, max_steps);
    sim_report(p, &sim, report)
}

/// [`run_gmp_with`] from the native runs' start (`sim gmp --gate`: `GmpParams::simulate_gated`).
pub fn run_gmp_gated(
    p: &GmpParams,
    cost: CostModel,
    max_steps: u64,
) -> Result<SimGmpReport, String> {
    let (sim, report) = p.run_gated_with(cost, max_steps)?;
    Ok(sim_report(p, &sim, report))
}

/// The report of `p`'s run that ended in `sim`.
fn sim_report(p: &GmpParams, sim: &GmpSim, report: GmpReport) -> SimGmpReport {
    SimGmpReport {
        report,
        status: if all_exited(sim) {
            "finished"
        } else {
            "running"
        },
        scenario: Gmp::to_query(p),
    }
}

/// The report as text.
pub fn render_gmp(r: &SimGmpReport) -> String {
    let p = &r.report;
    let mut out = format!("herdlab sim gmp {}\n", r.scenario);
    out.push_str(&format!(
        "status {}, {} steps, simulated {:.3} ms\n",
        r.status,
        p.steps,
        p.sim_time_ns as f64 / 1e6
    ));
    out.push_str(&format!(
        "goroutines finished {}, context switches {}, global queue gets {}\n",
        p.finished, p.context_switches, p.global_queue_gets
    ));
    out.push_str(&format!(
        "steals {}, spins {}, parks {}, M wakeups {}, startm without an M {}, handoffs {}\n",
        p.steals, p.spins, p.parks, p.futex_wakes, p.no_m, p.handoffs
    ));
    if p.max_wait_ns + p.syscalls + p.preempt_requests + p.retakes > 0 {
        out.push_str(&format!(
            "syscalls {} (took oldp back {}, no P: to the global queue {}), retakes {}, preemption requests {}, preemptions {}, longest wait of a runnable G {:.3} ms\n",
            p.syscalls, p.syscall_oldp, p.syscall_stops, p.retakes, p.preempt_requests, p.preemptions,
            p.max_wait_ns as f64 / 1e6
        ));
    }
    if p.locks > 0 {
        out.push_str(&format!(
            "LockOSThread calls {}, locked handoffs (startlockedm) {}, locked-M parks (stoplockedm) {}, thread exits of locked Gs {}, UnlockOSThread calls {}\n",
            p.locks, p.locked_handoffs, p.lockedm_parks, p.locked_exits, p.unlocks
        ));
    }
    if p.netpoll_polls + p.netpoll_parks > 0 {
        out.push_str(&format!(
            "netpoll: polls {}, Gs parked on the poller {}, made ready {}, blocking polls {}, breaks {}\n",
            p.netpoll_polls, p.netpoll_parks, p.netpoll_ready, p.netpoll_blocks, p.netpoll_breaks
        ));
    }
    if p.sysmon_netpolls > 0 {
        out.push_str(&format!(
            "sysmon's netpolls (nobody polled for 10 ms) {}, Gs it injected {}\n",
            p.sysmon_netpolls, p.sysmon_injected
        ));
    }
    if p.coherence_misses > 0 {
        out.push_str(&format!(
            "coherence misses {} (loads of a line another CPU wrote, writes to a shared one)\n",
            p.coherence_misses
        ));
    }
    if let Some(f) = &p.fatal {
        out.push_str(&format!("fatal error: {f}\n"));
    }
    match &p.violation {
        None => out.push_str("invariants: all held\n"),
        Some(v) => out.push_str(&format!("VIOLATION of {}: {}\n", v.invariant, v.message)),
    }
    out
}
