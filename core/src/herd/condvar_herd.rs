//! The condition-variable herd: workers wait on one condition variable under one mutex; the producer
//! publishes a job under the mutex and calls `notify_all` or `notify_one`.
//!
//! Shared words (read and written only with the mutex held): [`TICKETS`] (jobs, plus [`STOP`]) and
//! [`WAITERS`].
//!
//! # Worker states
//! `Lock` → `Load` (jobs? `Take`; STOP and none? `ExitUnlock`; else `Announce`) · `Take` (store t−1) →
//! `Unlock` → `Handle` (work) → `Relock` → `Load` · `Announce` (`waiters += 1`) → `Wait` (`cv.wait(m)`:
//! release, sleep, take the mutex back) → `Unannounce` → `Load`.
//!
//! # Producer states
//! `Await` → `Lock` → `Publish` (`tickets += 1`) → `Check` (load `waiters`) → `Notify` (if > 0) →
//! `Unlock` → `Await`; at the end `StopLock` → `StopPublish` → `StopNotify` (all) → `StopUnlock` → exit.
//!
//! # Why no wakeup is lost
//! Every read and write of the two words happens with the mutex held, and `cv.wait` releases the mutex
//! and queues the sleeper in one atomic step. A producer that sees `waiters > 0` therefore notifies a
//! thread that is already queued on the condition variable.

use crate::machine::Machine;
use crate::op::{CondId, MutexId, Op, OpResult, WakeCount};

pub use super::futex_herd::{STOP, TICKETS, WAITERS};

/// The mutex.
pub const M: MutexId = MutexId(0);
/// The condition variable.
pub const CV: CondId = CondId(0);

const WORKER_LISTING: &[&str] = &[
    "m.lock()                                    // worker thread",
    "loop {",
    "  t = tickets                               // STOP and no job: m.unlock(), return",
    "  if t > 0:",
    "    tickets = t - 1; m.unlock()             // claim one job",
    "    handle(job)                             // service time",
    "    m.lock(); continue",
    "  waiters += 1",
    "  cv.wait(&m)                               // release m, sleep, take m back",
    "  waiters -= 1",
    "}",
];

const PRODUCER_ALL: &[&str] = &[
    "for each event {                            // producer thread",
    "  await_event()                             // the arrival pattern",
    "  m.lock()",
    "  tickets += 1                              // publish the job",
    "  if waiters > 0: cv.notify_all()           // wake-all",
    "  m.unlock()",
    "}",
    "m.lock(); tickets += STOP; cv.notify_all(); m.unlock()",
];

const PRODUCER_ONE: &[&str] = &[
    "for each event {                            // producer thread",
    "  await_event()                             // the arrival pattern",
    "  m.lock()",
    "  tickets += 1                              // publish the job",
    "  if waiters > 0: cv.notify_one()           // wake-one",
    "  m.unlock()",
    "}",
    "m.lock(); tickets += STOP; cv.notify_all(); m.unlock()",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum W {
    Lock,
    Load,
    Take(u32),
    Unlock,
    Handle,
    Relock,
    Announce,
    Wait,
    Unannounce,
    ExitUnlock,
    Exit,
}

/// A worker waiting on the condition variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CondvarWorker {
    state: W,
    service_ns: u64,
}

impl CondvarWorker {
    /// A worker that handles each job for `service_ns`.
    pub fn new(service_ns: u64) -> Self {
        CondvarWorker {
            state: W::Lock,
            service_ns,
        }
    }
}

impl Machine for CondvarWorker {
    fn next_op(&self) -> Op {
        match self.state {
            W::Lock | W::Relock => Op::MutexLock(M),
            W::Load => Op::Load(TICKETS),
            W::Take(t) => Op::Store(TICKETS, t - 1),
            W::Unlock | W::ExitUnlock => Op::MutexUnlock(M),
            W::Handle => Op::Work(self.service_ns),
            W::Announce => Op::FetchAdd(WAITERS, 1),
            W::Wait => Op::CondWait(CV, M),
            W::Unannounce => Op::FetchAdd(WAITERS, u32::MAX),
            W::Exit => Op::Exit,
        }
    }

    fn complete(&mut self, r: OpResult) {
        self.state = match (self.state, r) {
            (W::Lock, _) | (W::Relock, _) => W::Load,
            (W::Load, OpResult::Value(v)) => {
                if v & !STOP > 0 {
                    W::Take(v)
                } else if v & STOP != 0 {
                    W::ExitUnlock
                } else {
                    W::Announce
                }
            }
            (W::Take(_), _) => W::Unlock,
            (W::Unlock, _) => W::Handle,
            (W::Handle, _) => W::Relock,
            (W::Announce, _) => W::Wait,
            (W::Wait, _) => W::Unannounce,
            (W::Unannounce, _) => W::Load,
            (W::ExitUnlock, _) => W::Exit,
            (s, _) => s,
        };
    }

    fn line(&self) -> u16 {
        match self.state {
            W::Lock => 1,
            W::Load | W::ExitUnlock => 3,
            W::Take(_) | W::Unlock => 5,
            W::Handle => 6,
            W::Relock => 7,
            W::Announce => 8,
            W::Wait => 9,
            W::Unannounce => 10,
            W::Exit => 11,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        WORKER_LISTING
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum P {
    Await,
    Lock,
    Publish,
    Check,
    Notify,
    Unlock,
    StopLock,
    StopPublish,
    StopNotify,
    StopUnlock,
    Exit,
}

/// The producer of the condition-variable herd.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CondvarProducer {
    state: P,
    wake: WakeCount,
}

impl CondvarProducer {
    /// A producer that notifies `wake` sleepers per job (`Up(1)` is `notify_one`).
    pub fn new(wake: WakeCount) -> Self {
        CondvarProducer {
            state: P::Await,
            wake,
        }
    }
}

impl Machine for CondvarProducer {
    fn next_op(&self) -> Op {
        match self.state {
            P::Await => Op::AwaitEvent,
            P::Lock | P::StopLock => Op::MutexLock(M),
            P::Publish => Op::FetchAdd(TICKETS, 1),
            P::Check => Op::Load(WAITERS),
            P::Notify => Op::CondNotify(CV, self.wake),
            P::Unlock | P::StopUnlock => Op::MutexUnlock(M),
            P::StopPublish => Op::FetchAdd(TICKETS, STOP),
            P::StopNotify => Op::CondNotify(CV, WakeCount::All),
            P::Exit => Op::Exit,
        }
    }

    fn complete(&mut self, r: OpResult) {
        self.state = match (self.state, r) {
            (P::Await, OpResult::Closed) => P::StopLock,
            (P::Await, _) => P::Lock,
            (P::Lock, _) => P::Publish,
            (P::Publish, _) => P::Check,
            (P::Check, OpResult::Value(0)) => P::Unlock,
            (P::Check, _) => P::Notify,
            (P::Notify, _) => P::Unlock,
            (P::Unlock, _) => P::Await,
            (P::StopLock, _) => P::StopPublish,
            (P::StopPublish, _) => P::StopNotify,
            (P::StopNotify, _) => P::StopUnlock,
            (P::StopUnlock, _) | (P::Exit, _) => P::Exit,
        };
    }

    fn line(&self) -> u16 {
        match self.state {
            P::Await => 2,
            P::Lock => 3,
            P::Publish => 4,
            P::Check | P::Notify => 5,
            P::Unlock => 6,
            _ => 8,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        match self.wake {
            WakeCount::All => PRODUCER_ALL,
            WakeCount::Up(_) => PRODUCER_ONE,
        }
    }
}
