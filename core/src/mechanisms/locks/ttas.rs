//! A test-and-test-and-set spinlock, optionally yielding after a number of failed tests.
//!
//! One word, [`super::shmtx::LOCK`] (0 free, 1 held). The lock is the step table [`Lock`], the unlock
//! the one-row table [`Unlock`]; each state names its line ([`Ln`]).
//!
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Test{spins}` | Test | load `lock` | `Set` if 0; else `Pause{spins+1}`, or `Yield` once `spins` reaches the yield threshold |
//! | `Pause{spins}` | Spin | `pause` | `Test{spins}` |
//! | `Yield` | Spin | `sched_yield` | `Test{0}` |
//! | `Set` | Set | CAS 0 → 1 | acquired, or `Test{0}` |
//! | `Release` | Release | store 0 (the unlock) | released |
//!
//! Mutual exclusion holds because only a successful CAS from 0 takes the lock. It is neither fair
//! nor kind to oversubscribed machines: a waiter spins on its CPU while the holder may be
//! preempted, and nothing orders the waiters.

use super::shmtx::{Progress, LOCK};
use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Stopped};
use crate::op::{Op, OpResult};

crate::line_names! {
    /// The named lines of the TTAS listings.
    pub enum Ln {
        /// The listing's first line.
        Entry,
        /// `while lock != 0`: the test.
        Test,
        /// The spin's `pause()` (or, spin-then-yield, its `sched_yield()`).
        Spin,
        /// `if cas(lock, 0, 1): break`.
        Set,
        /// The critical section.
        Critical,
        /// `lock = 0`.
        Release,
    }
}

crate::steps! {
    /// Where a thread is in the TTAS lock.
    pub enum Lock(m: Ttas) -> (), line Ln {
        /// Test the word (read only: the cache line stays shared).
        Test {
            /// Failed tests since the last yield (always 0 for a plain spinlock).
            spins: u32,
        } @ Ln::Test => load(LOCK) => |v|
            if v == 0 { Go(Lock::Set) } else { Go(m.after_test(spins)) };
        /// One spin-loop hint.
        Pause {
            /// Failed tests since the last yield.
            spins: u32,
        } @ Ln::Spin => pause() => |()| Go(Lock::Test { spins });
        /// Spin-then-yield: give the CPU away.
        Yield @ Ln::Spin => sched_yield() => |()| Go(Lock::Test { spins: 0 });
        /// Test-and-set.
        Set @ Ln::Set => cas(LOCK, 0, 1) => |ok|
            if ok { Done(()) } else { Go(Lock::Test { spins: 0 }) };
    }
}

crate::steps! {
    /// The TTAS unlock: one store.
    pub enum Unlock(m: Ttas) -> (), line Ln {
        /// `lock = 0`.
        Release @ Ln::Release => store(LOCK, 0) => |()| Done(());
    }
}

/// A TTAS spinlock (`yield_after == 0`: never yields) or spin-then-yield lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ttas {
    lock: Lock,
    yield_after: u32,
}

const TTAS: Listing<Ln> = crate::listing![Ln;
    ([Ln::Entry], "for each round {                             // worker"),
    ([], "  loop {"),
    ([Ln::Test, Ln::Spin], "    while lock != 0: pause()                 // test (read only: the line stays shared)"),
    ([Ln::Set], "    if cas(lock, 0, 1): break                // test-and-set"),
    ([], "  }"),
    ([Ln::Critical], "  critical_section()"),
    ([Ln::Release], "  lock = 0                                   // release"),
    ([], "}"),
];

const SPIN_YIELD: Listing<Ln> = crate::listing![Ln;
    ([Ln::Entry], "for each round {                             // worker"),
    ([], "  loop {"),
    ([Ln::Test], "    while lock != 0:                         // test"),
    ([Ln::Spin], "      if ++spins < 64: pause() else: sched_yield(); spins = 0"),
    ([Ln::Set], "    if cas(lock, 0, 1): break                // test-and-set"),
    ([], "  }"),
    ([Ln::Critical], "  critical_section()"),
    ([Ln::Release], "  lock = 0                                   // release"),
    ([], "}"),
];

impl Ttas {
    /// A plain TTAS spinlock.
    pub fn spin() -> Self {
        Ttas {
            lock: Lock::Test { spins: 0 },
            yield_after: 0,
        }
    }

    /// Spin `yield_after` times, then `sched_yield`.
    pub fn spin_then_yield(yield_after: u32) -> Self {
        Ttas {
            lock: Lock::Test { spins: 0 },
            yield_after: yield_after.max(1),
        }
    }

    /// After a failed test: pause (counting, when it yields), or yield at the threshold.
    #[inline(always)]
    fn after_test(&self, spins: u32) -> Lock {
        if self.yield_after == 0 {
            // a plain spinlock keeps no count (and so no extra states)
            Lock::Pause { spins: 0 }
        } else if spins + 1 >= self.yield_after {
            Lock::Yield
        } else {
            Lock::Pause { spins: spins + 1 }
        }
    }

    /// Begin locking.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.lock = Lock::Test { spins: 0 };
    }

    /// The state of the lock table (stepped form).
    pub fn lock_state(&self) -> Lock {
        self.lock
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

    /// The unlock: one store.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        Unlock::Release.op(self)
    }

    /// Deliver the unlock's result (it always finishes).
    #[inline(always)]
    pub fn unlock_complete(&mut self, r: OpResult) -> Progress {
        match Unlock::Release.complete(self, r) {
            Next::Go(_) => Progress::Pending,
            Next::Done(()) => Progress::Finished,
        }
    }

    /// Straight-line form of the unlock.
    #[inline(always)]
    pub fn unlock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        Unlock::Release
            .run(self, p)
            .map(|_| ())
            .map_err(|s| s.error)
    }

    /// This lock's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<Ln> {
        if self.yield_after > 0 {
            &SPIN_YIELD
        } else {
            &TTAS
        }
    }

    /// The name of the line the next lock step executes.
    pub fn lock_line_name(&self) -> Ln {
        self.lock.line(self)
    }

    /// The line the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        self.named_listing().of(self.lock.line(self))
    }

    /// The line of the unlock.
    pub fn unlock_line(&self) -> u16 {
        self.named_listing().of(Unlock::Release.line(self))
    }

    /// The line of the critical section.
    pub fn critical_line(&self) -> u16 {
        self.named_listing().of(Ln::Critical)
    }

    /// The pseudocode.
    pub fn listing(&self) -> &'static [&'static str] {
        self.named_listing().text
    }
}
