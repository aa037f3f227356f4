//! A ticket lock: FIFO by construction.
//!
//! Words: [`NEXT`] (the next ticket to hand out) and [`SERVING`] (the ticket whose holder may enter).
//!
//! | state | op | next |
//! |---|---|---|
//! | `Take` | `my = fetch_add(next, 1)` | `Wait{my}` |
//! | `Wait{my}` | load `serving` | acquired if it equals `my`, else `Pause{my}` |
//! | `Pause{my}` | `pause` | `Wait{my}` |
//!
//! Unlock stores `my + 1` into `serving` (only the holder writes it). Mutual exclusion: tickets are
//! unique, and `serving` names exactly one of them. Fairness: threads enter in ticket order, which
//! also means a preempted waiter holds up everyone behind it.

use super::shmtx::Progress;
use crate::op::{Op, OpResult, Word};

/// The next ticket.
pub const NEXT: Word = Word(0);
/// The ticket being served.
pub const SERVING: Word = Word(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum S {
    Take,
    Wait { my: u32 },
    Pause { my: u32 },
    Held { my: u32 },
}

/// A ticket lock as one thread uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket {
    s: S,
}

const LISTING: &[&str] = &[
    "for each round {                             // worker",
    "  my = fetch_add(next, 1)                    // take a ticket",
    "  while serving != my: pause()               // wait for my turn",
    "  critical_section()",
    "  serving = my + 1                           // hand over to the next ticket",
    "}",
];

impl Default for Ticket {
    fn default() -> Self {
        Ticket { s: S::Take }
    }
}

impl Ticket {
    /// Begin locking.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.s = S::Take;
    }

    /// The next lock step.
    #[inline(always)]
    pub fn lock_op(&self) -> Op {
        match self.s {
            S::Take => Op::FetchAdd(NEXT, 1),
            S::Wait { .. } => Op::Load(SERVING),
            S::Pause { .. } => Op::Pause,
            S::Held { .. } => Op::Pause,
        }
    }

    /// Deliver a lock step's result.
    #[inline(always)]
    pub fn lock_complete(&mut self, r: OpResult) -> Progress {
        self.s = match (self.s, r) {
            (S::Take, OpResult::Value(my)) => S::Wait { my },
            (S::Wait { my }, OpResult::Value(v)) if v == my => {
                self.s = S::Held { my };
                return Progress::Finished;
            }
            (S::Wait { my }, _) => S::Pause { my },
            (S::Pause { my }, _) => S::Wait { my },
            (s, _) => s,
        };
        Progress::Pending
    }

    /// The unlock: hand over to the next ticket.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        match self.s {
            S::Held { my } => Op::Store(SERVING, my.wrapping_add(1)),
            _ => Op::Pause,
        }
    }

    /// The line the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        match self.s {
            S::Take => 2,
            _ => 3,
        }
    }

    /// The pseudocode.
    pub fn listing(&self) -> &'static [&'static str] {
        LISTING
    }
}
