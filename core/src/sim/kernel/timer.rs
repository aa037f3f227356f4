//! Timed sleeps ([`Op::Sleep`](crate::op::Op::Sleep)): `nanosleep` arms a timer and takes the
//! thread off its CPU; when the simulated clock reaches the deadline the timer fires
//! (`hrtimer_wakeup` → `wake_up_process`) and the thread is runnable again, on an idle CPU or in
//! its previous CPU's run queue, like any woken thread.
//!
//! The firing is a step of its own, of the sleeping thread (its record's note is
//! [`Note::TimerFired`]), at the deadline: [`Simulation::next_actor`] runs it when the deadline is
//! earlier than every running CPU's clock. The learner (or the checker, which has no time) may
//! step a sleeping thread at any moment: its timer then fires at once. A fired sleep is not
//! counted in `wakeups` (nobody woke it); going to sleep is one system call and one voluntary
//! context switch.

use super::super::{Note, Simulation, SleepKind, StepRecord, TaskState};
use crate::machine::Machine;
use crate::op::OpResult;
use crate::sim::Actor;

impl<M: Machine> Simulation<M> {
    /// `nanosleep(ns)`: the entry costs a system call, then the thread sleeps until its deadline.
    pub(in crate::sim) fn step_sleep(&mut self, tid: u16, cpu: u8, ns: u64) -> Note {
        let c = self.jittered(self.cost.syscall_ns);
        self.charge(cpu, c);
        let due = self.cpus[cpu as usize].clock.saturating_add(ns);
        let t = &mut self.threads[tid as usize];
        debug_assert!(t.timer.is_none(), "a thread sleeps on one timer at a time");
        t.timer = Some(due);
        self.timers += 1;
        self.block(tid, SleepKind::Timer);
        Note::Slept { wasted: false }
    }

    /// The earliest armed timer: its deadline and thread (ties: the lowest thread).
    pub(in crate::sim) fn earliest_timer(&self) -> Option<(u64, u16)> {
        if self.timers == 0 {
            return None;
        }
        self.threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.timer.map(|d| (d, i as u16)))
            .min()
    }

    /// Thread `tid`'s timer fires: the sleep completes and the thread is runnable from its deadline.
    pub(in crate::sim) fn end_sleep(&mut self, tid: u16) -> StepRecord {
        let t = &mut self.threads[tid as usize];
        let at = t.timer.take().expect("end_sleep on a thread with no timer");
        self.timers -= 1;
        t.task = TaskState::Running;
        let line = t.line();
        self.wake_thread(tid, at, false);
        self.complete(tid, OpResult::Done);
        StepRecord {
            step: 0,
            actor: Actor::Thread(tid),
            line,
            time_ns: at,
            cpu: Some(self.threads[tid as usize].cpu),
            note: Note::TimerFired { thread: tid },
        }
    }
}
