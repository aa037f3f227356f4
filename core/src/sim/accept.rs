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
