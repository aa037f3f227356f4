//! A ticket lock: FIFO by construction.
//!
//! Words: [`NEXT`] (the next ticket to hand out) and [`SERVING`] (the ticket whose holder may enter).
//! The lock is the step table [`Lock`], the unlock the one-row table [`Unlock`]; the context keeps
//! the thread's ticket (`my`).
//!
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Take` | Take | `my = fetch_add(next, 1)` | `Wait` |
//! | `Wait` | Wait | load `serving` | acquired if it equals `my`, else `Pause` |
//! | `Pause` | Wait | `pause` | `Wait` |
//! | `Handover` | Handover | store `my + 1` into `serving` (the unlock) | released |
//!
//! Only the holder writes `serving`. Mutual exclusion: tickets are unique, and `serving` names
//! exactly one of them. Fairness: threads enter in ticket order, which also means a preempted waiter
//! holds up everyone behind it.

use super::shmtx::Progress;
use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Stopped};
use crate::op::{Op, OpResult, Word};

/// The next ticket.
pub const NEXT: Word = Word(0);
/// The ticket being served.
pub const SERVING: Word = Word(1);

crate::line_names! {
    /// The named lines of the ticket lock's listing.
    pub enum Ln {
        /// The listing's first line.
        Entry,
        /// `my = fetch_add(next, 1)`.
        Take,
        /// `while serving != my: pause()`.
        Wait,
        /// The critical section.
        Critical,
        /// `serving = my + 1`.
        Handover,
    }
}

crate::steps! {
    /// Where a thread is in the ticket lock.
    pub enum Lock(m: Ticket) -> (), line Ln {
        /// Take a ticket.
        Take @ Ln::Take => fetch_add(NEXT, 1) => |t| {
            m.my = t;
            Go(Lock::Wait)
        };
        /// Is it my turn?
        Wait @ Ln::Wait => load(SERVING) => |v|
            if v == m.my { Done(()) } else { Go(Lock::Pause) };
        /// One spin-loop hint.
        Pause @ Ln::Wait => pause() => |()| Go(Lock::Wait);
    }
}

crate::steps! {
    /// The ticket lock's unlock: hand over to the next ticket.
    pub enum Unlock(m: Ticket) -> (), line Ln {
        /// `serving = my + 1`.
        Handover @ Ln::Handover => store(SERVING, m.my.wrapping_add(1)) => |()| Done(());
    }
}

/// A ticket lock as one thread uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket {
    lock: Lock,
    /// My ticket (0 before `Take` answers: reset at every lock, so states differ only in what
    /// the thread knows).
    my: u32,
}

const LISTING: Listing<Ln> = crate::listing![Ln;
    ([Ln::Entry], "for each round {                             // worker"),
    ([Ln::Take], "  my = fetch_add(next, 1)                    // take a ticket"),
    ([Ln::Wait], "  while serving != my: pause()               // wait for my turn"),
    ([Ln::Critical], "  critical_section()"),
    ([Ln::Handover], "  serving = my + 1                           // hand over to the next ticket"),
    ([], "}"),
];

impl Default for Ticket {
    fn default() -> Self {
        Ticket {
            lock: Lock::Take,
            my: 0,
        }
    }
}

impl Ticket {
    /// Begin locking.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.lock = Lock::Take;
        self.my = 0;
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

    /// The unlock: hand over to the next ticket.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        Unlock::Handover.op(self)
    }

    /// Deliver the unlock's result (it always finishes).
    #[inline(always)]
    pub fn unlock_complete(&mut self, r: OpResult) -> Progress {
        match Unlock::Handover.complete(self, r) {
            Next::Go(_) => Progress::Pending,
            Next::Done(()) => Progress::Finished,
        }
    }

    /// Straight-line form of the unlock.
    #[inline(always)]
    pub fn unlock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        Unlock::Handover
            .run(self, p)
            .map(|_| ())
            .map_err(|s| s.error)
    }

    /// This lock's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<Ln> {
        &LISTING
    }

    /// The name of the line the next lock step executes.
    pub fn lock_line_name(&self) -> Ln {
        self.lock.line(self)
    }

    /// The line the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        LISTING.of(self.lock.line(self))
    }

    /// The line of the unlock.
    pub fn unlock_line(&self) -> u16 {
        LISTING.of(Unlock::Handover.line(self))
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
