//! The futex herd: worker threads sleep on one futex word; a producer publishes jobs and wakes all of
//! them (`FUTEX_WAKE` with `INT_MAX`) or one.
//!
//! Shared words: [`TICKETS`] (jobs published and not yet claimed, plus the [`STOP`] bit) and
//! [`WAITERS`] (threads that announced they are about to sleep).
//!
//! # Worker states
//! | state | op | then |
//! |---|---|---|
//! | `Load` | load `tickets` | `Claim(t)` if jobs, `Exit` if STOP and no job, else `Announce` |
//! | `Claim(t)` | CAS `tickets` t → t−1 | `Handle` on success, `Load` on failure |
//! | `Handle` | work (service time) | `Load` |
//! | `Announce` | `waiters += 1` | `Wait` |
//! | `Wait` | `futex_wait(tickets, 0)` | `Unannounce` |
//! | `Unannounce` | `waiters −= 1` | `Load` |
//!
//! # Producer states
//! `Await` (next event) → `Publish` (`tickets += 1`) → `Check` (load `waiters`) → `Wake` (only if
//! `waiters > 0`) → `Await`; when events run out, `Stop` (`tickets += STOP`) → `StopWake` (wake all) →
//! exit.
//!
//! # Why no wakeup is lost
//! The worker increments `waiters` *before* `futex_wait`, and the producer increments `tickets`
//! *before* reading `waiters` (all operations sequentially consistent). If the producer reads
//! `waiters == 0` and skips the wake, the worker's increment came later, so its `futex_wait` finds
//! `tickets != 0` and returns at once. Otherwise the producer wakes. The kernel checks the futex word
//! and queues the sleeper atomically, so a wake cannot slip between the two.

use crate::machine::Machine;
use crate::op::{Op, OpResult, WakeCount, Word};

/// Jobs published and not claimed, plus [`STOP`].
pub const TICKETS: Word = Word(0);
/// Threads about to sleep or asleep.
pub const WAITERS: Word = Word(1);
/// Set in [`TICKETS`] when no more jobs will come.
pub const STOP: u32 = 0x8000_0000;

const WORKER_LISTING: &[&str] = &[
    "loop {                                      // worker thread",
    "  t = tickets.load()                        // STOP and no job left: return",
    "  if t > 0 && tickets.cas(t, t - 1):        // claim one job (on failure, look again)",
    "    handle(job)                             // service time",
    "    continue",
    "  waiters.fetch_add(1)",
    "  futex_wait(&tickets, 0)                   // sleeps only while tickets == 0",
    "  waiters.fetch_sub(1)",
    "}",
];

const PRODUCER_ALL: &[&str] = &[
    "for each event {                            // producer thread",
    "  await_event()                             // the arrival pattern",
    "  tickets.fetch_add(1)                      // publish the job",
    "  if waiters.load() > 0:",
    "    futex_wake(&tickets, ALL)               // wake-all: every sleeper",
    "}",
    "tickets.fetch_add(STOP); futex_wake(&tickets, ALL)",
];

const PRODUCER_ONE: &[&str] = &[
    "for each event {                            // producer thread",
    "  await_event()                             // the arrival pattern",
    "  tickets.fetch_add(1)                      // publish the job",
    "  if waiters.load() > 0:",
    "    futex_wake(&tickets, 1)                 // wake-one",
    "}",
    "tickets.fetch_add(STOP); futex_wake(&tickets, ALL)",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum W {
    Load,
    Claim(u32),
    Handle,
    Announce,
    Wait,
    Unannounce,
    Exit,
}

/// A worker sleeping on the [`TICKETS`] futex.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FutexWorker {
    state: W,
    service_ns: u64,
}

impl FutexWorker {
    /// A worker that handles each job for `service_ns`.
    pub fn new(service_ns: u64) -> Self {
        FutexWorker {
            state: W::Load,
            service_ns,
        }
    }
}

impl Machine for FutexWorker {
    fn next_op(&self) -> Op {
        match self.state {
            W::Load => Op::Load(TICKETS),
            W::Claim(t) => Op::Cas {
                word: TICKETS,
                expected: t,
                new: t - 1,
            },
            W::Handle => Op::Work(self.service_ns),
            W::Announce => Op::FetchAdd(WAITERS, 1),
            W::Wait => Op::FutexWait {
                word: TICKETS,
                expected: 0,
            },
            W::Unannounce => Op::FetchAdd(WAITERS, u32::MAX),
            W::Exit => Op::Exit,
        }
    }

    fn complete(&mut self, r: OpResult) {
        self.state = match (self.state, r) {
            (W::Load, OpResult::Value(v)) => {
                if v & !STOP > 0 {
                    W::Claim(v)
                } else if v & STOP != 0 {
                    W::Exit
                } else {
                    W::Announce
                }
            }
            (W::Claim(_), OpResult::Cas { ok: true, .. }) => W::Handle,
            (W::Claim(_), _) => W::Load,
            (W::Handle, _) => W::Load,
            (W::Announce, _) => W::Wait,
            (W::Wait, _) => W::Unannounce,
            (W::Unannounce, _) => W::Load,
            (s, _) => s,
        };
    }

    fn line(&self) -> u16 {
        match self.state {
            W::Load => 2,
            W::Claim(_) => 3,
            W::Handle => 4,
            W::Announce => 6,
            W::Wait => 7,
            W::Unannounce => 8,
            W::Exit => 9,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        WORKER_LISTING
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum P {
    Await,
    Publish,
    Check,
    Wake,
    Stop,
    StopWake,
    Exit,
}

/// The producer of the futex herd.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FutexProducer {
    state: P,
    wake: WakeCount,
}

impl FutexProducer {
    /// A producer that wakes `wake` sleepers per job.
    pub fn new(wake: WakeCount) -> Self {
        FutexProducer {
            state: P::Await,
            wake,
        }
    }
}

impl Machine for FutexProducer {
    fn next_op(&self) -> Op {
        match self.state {
            P::Await => Op::AwaitEvent,
            P::Publish => Op::FetchAdd(TICKETS, 1),
            P::Check => Op::Load(WAITERS),
            P::Wake => Op::FutexWake(TICKETS, self.wake),
            P::Stop => Op::FetchAdd(TICKETS, STOP),
            P::StopWake => Op::FutexWake(TICKETS, WakeCount::All),
            P::Exit => Op::Exit,
        }
    }

    fn complete(&mut self, r: OpResult) {
        self.state = match (self.state, r) {
            (P::Await, OpResult::Closed) => P::Stop,
            (P::Await, _) => P::Publish,
            (P::Publish, _) => P::Check,
            (P::Check, OpResult::Value(0)) => P::Await,
            (P::Check, _) => P::Wake,
            (P::Wake, _) => P::Await,
            (P::Stop, _) => P::StopWake,
            (P::StopWake, _) => P::Exit,
            (P::Exit, _) => P::Exit,
        };
    }

    fn line(&self) -> u16 {
        match self.state {
            P::Await => 2,
            P::Publish => 3,
            P::Check => 4,
            P::Wake => 5,
            P::Stop | P::StopWake | P::Exit => 7,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        match self.wake {
            WakeCount::All => PRODUCER_ALL,
            WakeCount::Up(_) => PRODUCER_ONE,
        }
    }
}
