//! A futex mutex with three states, in the style of `std::sync::Mutex` on Linux and of the second
//! mutex in Ulrich Drepper's "Futexes Are Tricky" (2011): 0 unlocked, 1 locked, 2 locked and maybe
//! contended. (std also spins briefly on the word before it sleeps; this model leaves that out.)
//!
//! | state | op | next |
//! |---|---|---|
//! | `Fast` | CAS `state` 0 → 1 | acquired, else `Mark` |
//! | `Mark` | `old = swap(state, 2)` | acquired if `old == 0`, else `Sleep` |
//! | `Sleep` | `futex_wait(&state, 2)` | `Mark` |
//!
//! Unlock: `old = swap(state, 0)`; if `old == 2`, `futex_wake(&state, 1)`. A thread that took the lock
//! through `Mark` leaves the state at 2, so its unlock wakes one sleeper even if none is left; that
//! costs a spare system call, never a lost wakeup. No wakeup is lost because a sleeper only sleeps while
//! the word is 2, and whoever sets it from 2 to 0 wakes one.

use super::shmtx::{Progress, LOCK};
use crate::op::{Op, OpResult, WakeCount};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum S {
    Fast,
    Mark,
    Sleep,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum U {
    Swap,
    Wake,
}

/// A three-state futex mutex as one thread uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FutexMutex {
    s: S,
    u: U,
}

const LISTING: &[&str] = &[
    "for each round {                             // worker",
    "  if cas(state, 0, 1): goto locked           // fast path: uncontended",
    "  while swap(state, 2) != 0:                 // mark contended; took it if it was 0",
    "    futex_wait(&state, 2)                    // sleep while the word is still 2",
    "  critical_section()                         // locked",
    "  if swap(state, 0) == 2:                    // release",
    "    futex_wake(&state, 1)                    // someone may sleep: wake one",
    "}",
];

impl Default for FutexMutex {
    fn default() -> Self {
        FutexMutex {
            s: S::Fast,
            u: U::Swap,
        }
    }
}

impl FutexMutex {
    /// Begin locking.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.s = S::Fast;
    }

    /// Begin unlocking.
    #[inline(always)]
    pub fn start_unlock(&mut self) {
        self.u = U::Swap;
    }

    /// The next lock step.
    #[inline(always)]
    pub fn lock_op(&self) -> Op {
        match self.s {
            S::Fast => Op::Cas {
                word: LOCK,
                expected: 0,
                new: 1,
            },
            S::Mark => Op::Swap(LOCK, 2),
            S::Sleep => Op::FutexWait {
                word: LOCK,
                expected: 2,
            },
        }
    }

    /// Deliver a lock step's result.
    #[inline(always)]
    pub fn lock_complete(&mut self, r: OpResult) -> Progress {
        self.s = match (self.s, r) {
            (S::Fast, OpResult::Cas { ok: true, .. }) => return Progress::Finished,
            (S::Fast, _) => S::Mark,
            (S::Mark, OpResult::Value(0)) => return Progress::Finished,
            (S::Mark, _) => S::Sleep,
            (S::Sleep, _) => S::Mark,
        };
        Progress::Pending
    }

    /// The next unlock step.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        match self.u {
            U::Swap => Op::Swap(LOCK, 0),
            U::Wake => Op::FutexWake(LOCK, WakeCount::Up(1)),
        }
    }

    /// Deliver an unlock step's result.
    #[inline(always)]
    pub fn unlock_complete(&mut self, r: OpResult) -> Progress {
        match (self.u, r) {
            (U::Swap, OpResult::Value(2)) => {
                self.u = U::Wake;
                Progress::Pending
            }
            _ => Progress::Finished,
        }
    }

    /// The line the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        match self.s {
            S::Fast => 2,
            S::Mark => 3,
            S::Sleep => 4,
        }
    }

    /// The line the next unlock step executes.
    pub fn unlock_line(&self) -> u16 {
        match self.u {
            U::Swap => 6,
            U::Wake => 7,
        }
    }

    /// The pseudocode.
    pub fn listing(&self) -> &'static [&'static str] {
        LISTING
    }
}
