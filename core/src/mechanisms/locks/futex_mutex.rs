//! A futex mutex with three states, in the style of `std::sync::Mutex` on Linux and of the second
//! mutex in Ulrich Drepper's "Futexes Are Tricky" (2011): 0 unlocked, 1 locked, 2 locked and maybe
//! contended. (std also spins briefly on the word before it sleeps; this model leaves that out.)
//!
//! # Lock states ([`Lock`])
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Fast` | Fast | CAS `state` 0 → 1 | acquired, else `Mark` |
//! | `Mark` | Mark | `old = swap(state, 2)` | acquired if `old == 0`, else `Sleep` |
//! | `Sleep` | Sleep | `futex_wait(&state, 2)` | `Mark` |
//!
//! # Unlock states ([`Unlock`])
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Swap` | Release | `old = swap(state, 0)` | `Wake` if `old == 2`, else released |
//! | `Wake` | Wake | `futex_wake(&state, 1)` | released |
//!
//! A thread that took the lock through `Mark` leaves the state at 2, so its unlock wakes one sleeper
//! even if none is left; that costs a spare system call, never a lost wakeup. No wakeup is lost
//! because a sleeper only sleeps while the word is 2, and whoever sets it from 2 to 0 wakes one.

use super::shmtx::{Progress, LOCK};
use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Stopped};
use crate::op::{Op, OpResult, WakeCount};

crate::line_names! {
    /// The named lines of the futex mutex's listing.
    pub enum Ln {
        /// The listing's first line.
        Entry,
        /// `if cas(state, 0, 1): goto locked`.
        Fast,
        /// `while swap(state, 2) != 0`.
        Mark,
        /// `futex_wait(&state, 2)`.
        Sleep,
        /// The critical section.
        Critical,
        /// `if swap(state, 0) == 2`.
        Release,
        /// `futex_wake(&state, 1)`.
        Wake,
    }
}

crate::steps! {
    /// Where a thread is in the futex mutex's lock.
    pub enum Lock(m: FutexMutex) -> (), line Ln {
        /// The uncontended fast path.
        Fast @ Ln::Fast => cas(LOCK, 0, 1) => |ok| if ok { Done(()) } else { Go(Lock::Mark) };
        /// Mark the word contended; took the lock if it was 0.
        Mark @ Ln::Mark => swap(LOCK, 2) => |old| if old == 0 { Done(()) } else { Go(Lock::Sleep) };
        /// Sleep while the word is still 2.
        Sleep @ Ln::Sleep => futex_wait(LOCK, 2) => |_| Go(Lock::Mark);
    }
}

crate::steps! {
    /// Where a thread is in the futex mutex's unlock.
    pub enum Unlock(m: FutexMutex) -> (), line Ln {
        /// Release; someone may sleep if the word was 2.
        Swap @ Ln::Release => swap(LOCK, 0) => |old| if old == 2 { Go(Unlock::Wake) } else { Done(()) };
        /// Wake one sleeper.
        Wake @ Ln::Wake => futex_wake(LOCK, WakeCount::Up(1)) => |_| Done(());
    }
}

/// A three-state futex mutex as one thread uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FutexMutex {
    lock: Lock,
    unlock: Unlock,
}

const LISTING: Listing<Ln> = crate::listing![Ln;
    ([Ln::Entry], "for each round {                             // worker"),
    ([Ln::Fast], "  if cas(state, 0, 1): goto locked           // fast path: uncontended"),
    ([Ln::Mark], "  while swap(state, 2) != 0:                 // mark contended; took it if it was 0"),
    ([Ln::Sleep], "    futex_wait(&state, 2)                    // sleep while the word is still 2"),
    ([Ln::Critical], "  critical_section()                         // locked"),
    ([Ln::Release], "  if swap(state, 0) == 2:                    // release"),
    ([Ln::Wake], "    futex_wake(&state, 1)                    // someone may sleep: wake one"),
    ([], "}"),
];

impl Default for FutexMutex {
    fn default() -> Self {
        FutexMutex {
            lock: Lock::Fast,
            unlock: Unlock::Swap,
        }
    }
}

impl FutexMutex {
    /// Begin locking.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.lock = Lock::Fast;
    }

    /// Begin unlocking.
    #[inline(always)]
    pub fn start_unlock(&mut self) {
        self.unlock = Unlock::Swap;
    }

    /// The state of the lock table (stepped form).
    pub fn lock_state(&self) -> Lock {
        self.lock
    }

    /// The state of the unlock table (stepped form).
    pub fn unlock_state(&self) -> Unlock {
        self.unlock
    }

    /// The next lock step.
    #[inline(always)]
    pub fn lock_op(&self) -> Op {
        self.lock.op(self)
    }

    /// Deliver a lock step's result.
    #[inline(always)]
    pub fn lock_complete(&mut self, r: OpResult) -> Progress {
        let st = self.lock;
        match st.complete(self, r) {
            Next::Go(s) => {
                self.lock = s;
                Progress::Pending
            }
            Next::Done(()) => Progress::Finished,
        }
    }

    /// Straight-line form of the lock: run the lock table from its start to the lock held.
    #[inline(always)]
    pub fn lock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        self.start_lock();
        match self.lock.run(self, p) {
            Ok((last, ())) => {
                self.lock = last;
                Ok(())
            }
            Err(Stopped { state, error }) => {
                self.lock = state;
                Err(error)
            }
        }
    }

    /// The next unlock step.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        self.unlock.op(self)
    }

    /// Deliver an unlock step's result.
    #[inline(always)]
    pub fn unlock_complete(&mut self, r: OpResult) -> Progress {
        let st = self.unlock;
        match st.complete(self, r) {
            Next::Go(s) => {
                self.unlock = s;
                Progress::Pending
            }
            Next::Done(()) => Progress::Finished,
        }
    }

    /// Straight-line form of the unlock: run the unlock table from its start to the end.
    #[inline(always)]
    pub fn unlock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        self.start_unlock();
        match self.unlock.run(self, p) {
            Ok((last, ())) => {
                self.unlock = last;
                Ok(())
            }
            Err(Stopped { state, error }) => {
                self.unlock = state;
                Err(error)
            }
        }
    }

    /// This lock's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<Ln> {
        &LISTING
    }

    /// The name of the line the next lock step executes.
    pub fn lock_line_name(&self) -> Ln {
        self.lock.line(self)
    }

    /// The name of the line the next unlock step executes.
    pub fn unlock_line_name(&self) -> Ln {
        self.unlock.line(self)
    }

    /// The line the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        LISTING.of(self.lock.line(self))
    }

    /// The line the next unlock step executes.
    pub fn unlock_line(&self) -> u16 {
        LISTING.of(self.unlock.line(self))
    }

    /// The line of the critical section.
    pub fn critical_line(&self) -> u16 {
        LISTING.of(Ln::Critical)
    }

    /// The pseudocode.
    pub fn listing(&self) -> &'static [&'static str] {
        LISTING.text
    }
}
