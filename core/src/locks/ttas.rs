//! A test-and-test-and-set spinlock, optionally yielding after a number of failed tests.
//!
//! One word, [`super::shmtx::LOCK`] (0 free, 1 held).
//!
//! | state | op | next |
//! |---|---|---|
//! | `Test{spins}` | load `lock` | `Set` if 0; else `Pause{spins+1}`, or `Yield` once `spins` reaches the yield threshold |
//! | `Pause{spins}` | `pause` | `Test{spins}` |
//! | `Yield` | `sched_yield` | `Test{0}` |
//! | `Set` | CAS 0 → 1 | acquired, or `Test{0}` |
//!
//! Unlock is one plain store of 0. Mutual exclusion holds because only a successful CAS from 0 takes
//! the lock. It is neither fair nor kind to oversubscribed machines: a waiter spins on its CPU while
//! the holder may be preempted, and nothing orders the waiters.

use super::shmtx::{Progress, LOCK};
use crate::op::{Op, OpResult};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum S {
    Test { spins: u32 },
    Pause { spins: u32 },
    Yield,
    Set,
}

/// A TTAS spinlock (`yield_after == 0`: never yields) or spin-then-yield lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ttas {
    s: S,
    yield_after: u32,
}

const TTAS: &[&str] = &[
    "for each round {                             // worker",
    "  loop {",
    "    while lock != 0: pause()                 // test (read only: the line stays shared)",
    "    if cas(lock, 0, 1): break                // test-and-set",
    "  }",
    "  critical_section()",
    "  lock = 0                                   // release",
    "}",
];

const SPIN_YIELD: &[&str] = &[
    "for each round {                             // worker",
    "  loop {",
    "    while lock != 0:                         // test",
    "      if ++spins < 64: pause() else: sched_yield(); spins = 0",
    "    if cas(lock, 0, 1): break                // test-and-set",
    "  }",
    "  critical_section()",
    "  lock = 0                                   // release",
    "}",
];

impl Ttas {
    /// A plain TTAS spinlock.
    pub fn spin() -> Self {
        Ttas {
            s: S::Test { spins: 0 },
            yield_after: 0,
        }
    }

    /// Spin `yield_after` times, then `sched_yield`.
    pub fn spin_then_yield(yield_after: u32) -> Self {
        Ttas {
            s: S::Test { spins: 0 },
            yield_after: yield_after.max(1),
        }
    }

    /// Begin locking.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.s = S::Test { spins: 0 };
    }

    /// The next lock step.
    #[inline(always)]
    pub fn lock_op(&self) -> Op {
        match self.s {
            S::Test { .. } => Op::Load(LOCK),
            S::Pause { .. } => Op::Pause,
            S::Yield => Op::Yield,
            S::Set => Op::Cas {
                word: LOCK,
                expected: 0,
                new: 1,
            },
        }
    }

    /// Deliver a lock step's result.
    #[inline(always)]
    pub fn lock_complete(&mut self, r: OpResult) -> Progress {
        self.s = match (self.s, r) {
            (S::Test { .. }, OpResult::Value(0)) => S::Set,
            (S::Test { spins }, _) => {
                if self.yield_after == 0 {
                    // a plain spinlock keeps no count (and so no extra states)
                    S::Pause { spins: 0 }
                } else if spins + 1 >= self.yield_after {
                    S::Yield
                } else {
                    S::Pause { spins: spins + 1 }
                }
            }
            (S::Pause { spins }, _) => S::Test { spins },
            (S::Yield, _) => S::Test { spins: 0 },
            (S::Set, OpResult::Cas { ok: true, .. }) => return Progress::Finished,
            (S::Set, _) => S::Test { spins: 0 },
        };
        Progress::Pending
    }

    /// The unlock: one store.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        Op::Store(LOCK, 0)
    }

    /// The line the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        let y = self.yield_after > 0;
        match self.s {
            S::Test { .. } => 3,
            S::Pause { .. } | S::Yield => 3 + y as u16,
            S::Set => 4 + y as u16,
        }
    }

    /// The line of the unlock.
    pub fn unlock_line(&self) -> u16 {
        7 + (self.yield_after > 0) as u16
    }

    /// The line of the critical section.
    pub fn critical_line(&self) -> u16 {
        6 + (self.yield_after > 0) as u16
    }

    /// The pseudocode.
    pub fn listing(&self) -> &'static [&'static str] {
        if self.yield_after > 0 {
            SPIN_YIELD
        } else {
            TTAS
        }
    }
}
