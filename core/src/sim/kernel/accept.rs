//! The kernel model of a blocking `accept()`: `inet_csk_accept` and `inet_csk_wait_for_connect`.
//!
//! On the simulated platform an [`crate::op::Op::Accept`] runs this path one line per step, so the
//! learner sees every step of the sleeper protocol. On the native platform the same operation is a
//! real `accept(2)` and the real kernel runs the real path.
//!
//! # States ([`AcceptPhase`]), correct order ([`SleeperOrder::EnqueueThenTest`])
//! | phase | does | next |
//! |---|---|---|
//! | `Fast` | if the accept queue has a connection, take it and return (no wait entry at all) | done, or `Prepare` |
//! | `Prepare` | queue the wait entry as the [`Enqueue`] kind says; state = TASK_INTERRUPTIBLE | `SleepIfEmpty` |
//! | `SleepIfEmpty` | if the queue is empty and no wakeup came yet, `schedule()`: sleep | `Take` (after waking, or at once) |
//! | `Take` | under `lock_sock`: if the queue has a connection, take it | `Finish`, or back to `Prepare` |
//! | `Finish` | `finish_wait`: state = TASK_RUNNING, unlink the entry if still queued | done |
//!
//! # The broken order ([`SleeperOrder::TestThenEnqueue`])
//! `TestFirst` (if the queue is empty go on, else `Take`) → `Prepare` → `Schedule` (sleep unless already
//! woken) → `Take`. A connection whose wake walk runs between `TestFirst` and `Prepare` finds no entry
//! for this sleeper, and the sleeper then sleeps with a connection waiting: the lost wakeup.
//!
//! # Invariant (no lost wakeup)
//! With the correct order, a connection that arrives after `Prepare` either finds the entry (the walk
//! sets the task running, so `SleepIfEmpty` does not sleep, or wakes it if it already slept) or arrived
//! before the test, which then sees it. `linux-wakeups.md` §3 C and §5 invariant 2.
//!
//! Taking the connection and testing the queue are one step because the kernel does both under
//! `lock_sock` (`inet_csk_accept` holds it around `reqsk_queue_remove`).

use serde::{Deserialize, Serialize};

use super::QueueRef;
use crate::machine::Machine;
use crate::op::{OpResult, WakeCount};
use crate::sim::{Actor, KPath, Note, Simulation, SleepKind, StepRecord, TaskState};
use crate::waitqueue::Enqueue;

pub use crate::op::AcceptPhase;

/// The order of the sleeper protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SleeperOrder {
    /// Queue the entry and set the task state, then test, then sleep: lost-wakeup safe.
    EnqueueThenTest,
    /// Test, then queue and sleep: a wakeup in the gap is lost.
    TestThenEnqueue,
}

/// How the modelled kernel's accept path waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AcceptModel {
    /// How the wait entry is queued on the socket's wait queue.
    pub enqueue: Enqueue,
    /// The sleeper protocol's order.
    pub order: SleeperOrder,
}

impl Default for AcceptModel {
    fn default() -> Self {
        AcceptModel {
            enqueue: Enqueue::ExclusiveTail,
            order: SleeperOrder::EnqueueThenTest,
        }
    }
}

// ----- the kernel's side of the blocking accept path -----

impl<M: Machine> Simulation<M> {
    /// The network actor without the event-driven network: deliver the next connection to the
    /// listening socket and run its wake walk (`sock_def_readable`).
    pub(in crate::sim) fn step_network(&mut self) -> StepRecord {
        // The present is the earliest running CPU's clock (every CPU idle: the latest instant
        // reached). Chosen by the default scheduler, the arrival is due no later than that; forced
        // early by the learner, it happens now.
        // every CPU idle: nothing happens before the due time, so the clock jumps to it
        let present = self.present_ns().unwrap_or(u64::MAX);
        let at = match self.arrivals.due(self.idle_since) {
            Some(t) => t.min(present),
            None if present == u64::MAX => self.metrics.sim_time_ns,
            None => present,
        };
        self.arrivals.take(at);
        let conn = self.next_conn;
        self.next_conn += 1;
        self.metrics.connections_arrived += 1;
        if at > self.metrics.sim_time_ns {
            self.metrics.sim_time_ns = at;
        }
        self.k.listeners[0].queue.push_back(conn);
        // sock_def_readable: wake_up_interruptible_sync_poll, nr_exclusive = 1
        let walk_cost = self.cost.wake_entry_ns * self.k.listeners[0].wq.len().max(1) as u64;
        let woken = self.wake_queue(QueueRef::Listen, WakeCount::Up(1), at + walk_cost, true);
        StepRecord {
            step: 0,
            actor: Actor::Network,
            line: 0,
            time_ns: at,
            cpu: None,
            note: Note::Arrived { conn, woken },
        }
    }
    /// One step of the modelled `accept()` path, in `phase` (see the module docs).
    pub(in crate::sim) fn step_accept(
        &mut self,
        tid: u16,
        cpu: u8,
        phase: AcceptPhase,
        conn: u32,
    ) -> Note {
        let mut cost = self.cost.kernel_step_ns;
        if phase == AcceptPhase::Fast {
            cost += self.cost.syscall_ns;
        }
        let c = self.jittered(cost);
        self.charge(cpu, c);
        let set = |s: &mut Self, p: AcceptPhase, conn: u32| {
            s.threads[tid as usize].kpath = KPath::Accept(p, conn)
        };
        match phase {
            AcceptPhase::Fast => {
                if let Some(c) = self.k.listeners[0].queue.pop_front() {
                    self.took(tid, c);
                    self.threads[tid as usize].kpath = KPath::None;
                    self.complete(tid, OpResult::Conn(c));
                    Note::FastPathTook { conn: c }
                } else {
                    let next = match self.accept.order {
                        SleeperOrder::EnqueueThenTest => AcceptPhase::Prepare,
                        SleeperOrder::TestThenEnqueue => AcceptPhase::TestFirst,
                    };
                    set(self, next, conn);
                    Note::FastPathEmpty
                }
            }
            AcceptPhase::TestFirst => {
                let empty = self.k.listeners[0].queue.is_empty();
                set(
                    self,
                    if empty {
                        AcceptPhase::Prepare
                    } else {
                        AcceptPhase::Take
                    },
                    conn,
                );
                Note::TestedFirst { empty }
            }
            AcceptPhase::Prepare => {
                let how = self.accept.enqueue;
                let added = self.k.listeners[0].wq.add(tid, how);
                self.threads[tid as usize].task = TaskState::Interruptible;
                let next = match self.accept.order {
                    SleeperOrder::EnqueueThenTest => AcceptPhase::SleepIfEmpty,
                    SleeperOrder::TestThenEnqueue => AcceptPhase::Schedule,
                };
                set(self, next, conn);
                Note::Enqueued {
                    exclusive: how.is_exclusive(),
                    added,
                }
            }
            AcceptPhase::SleepIfEmpty | AcceptPhase::Schedule => {
                let must_test = phase == AcceptPhase::SleepIfEmpty;
                let queue_empty = self.k.listeners[0].queue.is_empty();
                let t = &self.threads[tid as usize];
                if t.task == TaskState::Interruptible && (!must_test || queue_empty) {
                    // schedule(): give up the CPU; the wake walk moves us on to Take
                    let wasted = t.woken_since_work;
                    self.block(tid, SleepKind::Work);
                    Note::Slept { wasted }
                } else {
                    set(self, AcceptPhase::Take, conn);
                    Note::DidNotSleep
                }
            }
            AcceptPhase::Take => {
                if let Some(c) = self.k.listeners[0].queue.pop_front() {
                    self.took(tid, c);
                    set(self, AcceptPhase::Finish, c);
                    Note::Took { conn: c }
                } else {
                    if self.threads[tid as usize].woken_since_work {
                        self.threads[tid as usize].empty_handed = true;
                    }
                    let next = match self.accept.order {
                        SleeperOrder::EnqueueThenTest => AcceptPhase::Prepare,
                        SleeperOrder::TestThenEnqueue => AcceptPhase::TestFirst,
                    };
                    set(self, next, conn);
                    Note::FoundEmpty
                }
            }
            AcceptPhase::Finish => {
                self.k.listeners[0].wq.remove(tid);
                let t = &mut self.threads[tid as usize];
                t.task = TaskState::Running;
                t.kpath = KPath::None;
                self.complete(tid, OpResult::Conn(conn));
                Note::FinishedWait
            }
        }
    }

    /// Thread `tid` took connection `conn` from an accept queue (both accept paths).
    pub(in crate::sim) fn took(&mut self, tid: u16, conn: u32) {
        if self.net.is_some() {
            let now = self.cpus[self.threads[tid as usize].cpu as usize].clock;
            self.net_accepted(conn, now);
        }
        self.metrics.connections_accepted += 1;
        let t = &mut self.threads[tid as usize];
        t.metrics.accepted += 1;
        t.empty_handed = false;
        t.woken_since_work = false;
    }
}
