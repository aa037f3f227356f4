//! The state-machine interface that every mechanism's thread implements.
//!
//! A [`Machine`] is a thread written as an explicit state machine: [`Machine::next_op`] names the one
//! primitive operation of its next step, and [`Machine::complete`] hands it that operation's result and
//! moves it to its next state. [`Machine::line`] is the line of the mechanism's pseudocode listing the
//! next step executes, so the code panel can highlight where each thread is.
//!
//! Both platforms drive the same value of the same type: the simulated platform one step at a time,
//! the native platform in a loop on a real OS thread.
//!
//! A machine is written once as a step table ([`steps`], the [`steps!`](crate::steps) macro), which
//! gives it both forms: the stepped one behind this trait, and a straight-line `run` over any
//! [`steps::Ops`] that the native platform calls when it does not need to stop between steps. Its
//! states name their pseudocode lines; a [`listing::Listing`] says where each name stands, so
//! [`Machine::line`] comes from the listing itself.

pub mod listing;
pub mod steps;

use crate::op::{AcceptPhase, Op, OpResult, Word};

/// A thread of a mechanism, as a step-able state machine.
pub trait Machine: Clone + core::fmt::Debug + PartialEq + Eq + core::hash::Hash {
    /// The operation of the next step. Must not change the machine.
    fn next_op(&self) -> Op;
    /// Deliver the result of [`Machine::next_op`] and advance.
    fn complete(&mut self, result: OpResult);
    /// The 1-based line of [`Machine::listing`] that the next step executes.
    fn line(&self) -> u16;
    /// The pseudocode this machine steps through, one entry per line.
    fn listing(&self) -> &'static [&'static str];
    /// The line shown while the simulated kernel runs the accept path on this thread's behalf
    /// (only machines that issue [`Op::Accept`] need to say; the default is [`Machine::line`]).
    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        let _ = phase;
        self.line()
    }
    /// True while the machine's next step is the `Work` that serves the event its latest
    /// [`Op::AwaitEvent`] delivered, and that event is of the kind whose latency the simulator
    /// records ([`crate::sim::Simulation::event_latency`]: the pool's cache hits). The default is
    /// false (nothing measured).
    fn serves_measured_event(&self) -> bool {
        false
    }
    /// True once the machine has exited.
    fn is_done(&self) -> bool {
        matches!(self.next_op(), Op::Exit)
    }
    /// True while the machine is inside a spin that has already failed a probe, before its next
    /// probe: the probes left are loads of the same word (and `pause`s), and a failed one changes
    /// nothing but this thread's own spin counter. The model checker runs the rest of such a spin as
    /// part of the step that failed it ([`crate::check::world`] gives the argument); the default is
    /// false (no spin to merge).
    fn in_failed_spin(&self) -> bool {
        false
    }
    /// Complete every `pause` due now at once and return how many there were (the checker folds
    /// pauses into the next visible operation). The default completes them one by one; a machine
    /// with long pause runs may jump over them, as long as it ends in the state that completing
    /// them one by one reaches.
    fn skip_pauses(&mut self) -> u32 {
        complete_pauses(self)
    }
    /// The lock built on an atomic word that this thread holds now, named by its word
    /// (`ngx_shmtx`, a spin or ticket lock, a futex mutex, the accept mutex: locks the simulator
    /// sees only as loads, CASes and futex calls, so only the machine knows when it is inside).
    /// The timeline draws these holds on the lock's lane ([`crate::timeline`]). A sleeping mutex
    /// ([`Op::MutexLock`]) needs no answer here: the simulator keeps its owner. The default: none.
    fn holds_word_lock(&self) -> Option<Word> {
        None
    }
}

/// Complete `m`'s pending `pause`s one by one and return how many there were (the default of
/// [`Machine::skip_pauses`], for overrides to fall back on).
pub fn complete_pauses<M: Machine>(m: &mut M) -> u32 {
    let mut n = 0;
    while m.next_op() == Op::Pause {
        m.complete(OpResult::Done);
        n += 1;
    }
    n
}
