//! The herd's invariants for the model checker, over the simulator ([`SimModel`]):
//! - `lost-wakeup`: a connection waits in the accept queue while every worker sleeps (the simulator's
//!   own no-lost-wakeup check, [`crate::metrics::Metrics::lost_wakeups`]).
//! - `conservation`: no more connections or jobs are taken than arrived.
//! - where nothing can run: `lost-wakeup` or `deadlock` from the simulator's stuck status.

use super::{HerdParams, HerdSim, HerdThread};
use crate::check::{CheckConfig, CheckReport, SimModel, Violation};
use crate::sim::Status;

/// The invariants checked on every state.
pub fn check_state(s: &SimModel<HerdThread>) -> Option<Violation> {
    let m = s.sim.metrics();
    if m.lost_wakeups > 0 {
        let (step, conn) = s.sim.first_violation().unwrap_or((0, 0));
        return Some(Violation {
            invariant: "lost-wakeup".into(),
            message: format!(
                "connection {conn} waits in the accept queue while every worker sleeps (step {step})"
            ),
        });
    }
    if m.connections_accepted > m.connections_arrived && s.sim.has_network() {
        return Some(Violation {
            invariant: "conservation".into(),
            message: format!(
                "{} connections taken but only {} arrived",
                m.connections_accepted, m.connections_arrived
            ),
        });
    }
    None
}

/// The invariants checked where nothing can run.
pub fn check_terminal(s: &SimModel<HerdThread>) -> Option<Violation> {
    let sim = s.settled();
    match sim.status() {
        Status::Stuck(msg) => Some(Violation {
            invariant: if msg.contains("lost wakeup") {
                "lost-wakeup"
            } else {
                "deadlock"
            }
            .into(),
            message: msg.clone(),
        }),
        _ => None,
    }
}

/// Model-check a herd scenario: every interleaving of its workers and of the arrivals.
pub fn check(
    p: &HerdParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    let init = SimModel { sim: p.simulate() };
    crate::check::explore(init, cfg, &check_state, &check_terminal, progress)
}

/// Replay a herd counterexample (checker indices: threads, then the network) in a fresh simulation.
pub fn replay(p: &HerdParams, schedule: &[u16]) -> HerdSim {
    SimModel::replay(p.simulate(), schedule)
}
