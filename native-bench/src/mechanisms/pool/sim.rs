//! `herdlab sim pool`: a pool scenario run headless on core's simulated platform.

use serde::Serialize;

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::params::all_exited;
use herdlab_core::mechanisms::pool::{Pool, PoolParams, PoolReport};

/// What one headless pool simulation reports: core's [`PoolReport`] first (its first seven
/// fields, `tasks_posted` … `sim_time_ns`, are the contract's keys), then the run's shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SimPoolReport {
    /// Core's report of the run.
    #[serde(flatten)]
    pub report: PoolReport,
    /// Steps executed.
    pub steps: u64,
    /// `finished` (every thread exited) or `running` (the step bound came first, or the run
    /// stopped with threads left: see `violation`).
    pub status: &'static str,
    /// The scenario as a query string (every key present).
    pub scenario: String,
}

/// Run `p` to the end (at most `max_steps` steps), checking core's invariants after every step.
pub fn run_pool(p: &PoolParams, max_steps: u64) -> SimPoolReport {
    let (sim, report) = p.run(max_steps);
    SimPoolReport {
        report,
        steps: sim.metrics().steps,
        status: if all_exited(&sim) {
            "finished"
        } else {
            "running"
        },
        scenario: Pool::to_query(p),
    }
}

/// The report as text.
pub fn render_pool(r: &SimPoolReport) -> String {
    let p = &r.report;
    let mut out = format!("herdlab sim pool {}\n", r.scenario);
    out.push_str(&format!(
        "status {}, {} steps, simulated {:.3} ms\n",
        r.status,
        r.steps,
        p.sim_time_ns as f64 / 1e6
    ));
    out.push_str(&format!(
        "requests {}: cached {}, read inline {}, tasks posted {} (exit tasks included), done {}\n",
        p.requests, p.cached, p.inline_reads, p.tasks_posted, p.tasks_done
    ));
    out.push_str(&format!(
        "refused: queue overflow {}, task already active {}\n",
        p.overflows, p.already_active
    ));
    out.push_str(&format!(
        "pool thread wakeups {} (wasted {}), completion handler calls {} (largest batch {})\n",
        p.wakeups, p.wasted_wakeups, p.notify_wakes, p.max_batch
    ));
    if p.cached > 0 {
        out.push_str(&format!(
            "cache hits {}: latency p50 {:.1} µs, p99 {:.1} µs (simulated, arrival to served)\n",
            p.cached,
            p.cache_p50_ns as f64 / 1e3,
            p.cache_p99_ns as f64 / 1e3
        ));
    }
    match &p.violation {
        None => out.push_str("invariants: all held\n"),
        Some(v) => out.push_str(&format!("VIOLATION of {}: {}\n", v.invariant, v.message)),
    }
    out
}
