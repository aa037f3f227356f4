//! The accept strategies' invariants, checked by the model checker over the simulator
//! ([`SimModel`]; `nginx-accept-mutex.md` §5 and `linux-wakeups.md` §5):
//!
//! | name | holds when |
//! |---|---|
//! | `mutual-exclusion` | at most one worker holds the accept mutex, and the lock word is its pid (0 when none) |
//! | `accept-under-lock` | with the accept mutex, a worker runs accept handlers only while it holds the lock (or after skipping the trylock because it is overloaded, `accept_disabled > 0`) |
//! | `registration-follows-held` | with the accept mutex, a worker's epoll has the listener exactly when its `held` flag is set, whenever it is not between a trylock and its `epoll_ctl` |
//! | `retry-bound` | a worker without the lock never sleeps in `epoll_wait` without the `accept_mutex_delay` timeout |
//! | `lost-connection` | never does a connection wait while every worker sleeps with nothing left that could wake one |
//! | `conservation` | no connection is accepted twice or more than arrived; at the end every one was accepted and closed |
//!
//! Bounds: time is not part of a state, so pending client actions and timers are explored in their
//! time order among themselves; arrivals may come at any point (the network is an actor).

use super::{AcceptParams, AcceptSim, AcceptThread, Strategy};
use crate::check::{CheckConfig, CheckReport, SimModel, Violation};
use crate::op::{Fd, ListenerId, Word};
use crate::sim::{Sched, Status};

fn v(invariant: &str, message: String) -> Option<Violation> {
    Some(Violation {
        invariant: invariant.into(),
        message,
    })
}

/// The invariants checked on every state.
pub fn check_state(s: &SimModel<AcceptThread>) -> Option<Violation> {
    let sim = &s.sim;
    let m = sim.metrics();
    if m.connections_accepted > m.connections_arrived {
        return v(
            "conservation",
            format!(
                "{} connections accepted but only {} arrived",
                m.connections_accepted, m.connections_arrived
            ),
        );
    }
    if m.lost_wakeups > 0 {
        let (step, conn) = sim.first_violation().unwrap_or((0, 0));
        return v(
            "lost-connection",
            format!("connection {conn} waits while every worker sleeps and nothing can wake one (step {step})"),
        );
    }
    let lock = sim.word(Word(0));
    let mut holders = Vec::new();
    for (i, t) in sim.threads().iter().enumerate() {
        let Some(w) = t.machine().event() else {
            continue;
        };
        if w.config().strategy != Strategy::AcceptMutex {
            continue;
        }
        if w.locked() {
            holders.push(i);
        }
        if w.is_accepting() && !w.locked() && !w.skipped_trylock() {
            return v(
                "accept-under-lock",
                format!("worker {i} accepts without holding the accept mutex"),
            );
        }
        if !w.is_switching() {
            let registered = sim.net().is_some_and(|n| {
                n.epolls
                    .get(w.config().ep.0 as usize)
                    .is_some_and(|e| e.interest_of(Fd::Listener(ListenerId(0))).is_some())
            });
            if registered != w.held() {
                return v(
                    "registration-follows-held",
                    format!(
                        "worker {i} has held = {} but its epoll {} the listener",
                        w.held(),
                        if registered { "has" } else { "does not have" }
                    ),
                );
            }
        }
        if t.sched() == Sched::Asleep && w.is_waiting() && !w.held() && t.deadline().is_none() {
            return v(
                "retry-bound",
                format!("worker {i} lost the lock and sleeps in epoll_wait with no timeout: it will never try again"),
            );
        }
    }
    if holders.len() > 1 {
        return v(
            "mutual-exclusion",
            format!("workers {holders:?} all hold the accept mutex"),
        );
    }
    let expected = holders.first().map_or(0, |&i| i as u32 + 1);
    if holders.len() == 1 && lock != expected {
        return v(
            "mutual-exclusion",
            format!(
                "worker {} holds the mutex but the lock word is {lock}",
                holders[0]
            ),
        );
    }
    None
}

/// The invariants checked where nothing can run.
pub fn check_terminal(s: &SimModel<AcceptThread>) -> Option<Violation> {
    let sim = s.settled();
    match sim.status() {
        Status::Stuck(msg) => v("lost-connection", msg.clone()),
        _ => {
            let m = sim.metrics();
            let closed = sim.net().map_or(0, |n| n.closed);
            if m.connections_accepted != m.connections_arrived || closed != m.connections_arrived {
                return v(
                    "conservation",
                    format!(
                        "the run ended with {} of {} connections accepted and {} closed",
                        m.connections_accepted, m.connections_arrived, closed
                    ),
                );
            }
            None
        }
    }
}

/// Model-check an accept scenario: every interleaving of its workers and of the network.
pub fn check(
    p: &AcceptParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    let init = SimModel { sim: p.simulate() };
    crate::check::explore(init, cfg, &check_state, &check_terminal, progress)
}

/// Replay a counterexample (checker indices: the workers, then the network) in a fresh simulation.
pub fn replay(p: &AcceptParams, schedule: &[u16]) -> AcceptSim {
    SimModel::replay(p.simulate(), schedule)
}
