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
//!
//! With the `timer-slack` feature the deadline is `ns` plus the cost model's `timer_slack_ns`
//! after the call: Linux fires a normal thread's timer up to its slack (50 µs by default) late,
//! and a CPU with nothing else due fires it at the end of that range.

use super::super::{Note, Simulation, SleepKind, StepRecord, TaskState};
use crate::machine::Machine;
use crate::op::OpResult;
use crate::sim::Actor;

impl<M: Machine> Simulation<M> {
    /// `nanosleep(ns)`: the entry costs a system call, then the thread sleeps until its deadline.
    pub(in crate::sim) fn step_sleep(&mut self, tid: u16, cpu: u8, ns: u64) -> Note {
        let c = self.jittered(self.cost.syscall_ns);
        self.charge(cpu, c);
        #[cfg(feature = "timer-slack")]
        let ns = ns.saturating_add(self.cost.timer_slack_ns);
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

#[cfg(all(test, feature = "timer-slack"))]
mod timer_slack_tests {
    use crate::cost::CostModel;
    use crate::op::Op;
    use crate::sim::kernel::script::{world, Script};
    use crate::sim::{Actor, Note, Role, Simulation};

    /// One thread sleeps `ns` with the cost model's `timer_slack_ns` at `slack`, no jitter:
    /// when its timer fires, and when it runs again on its CPU (idle meanwhile), which
    /// [`CostModel::timed_sleep_ns`] says.
    fn fires_at(ns: u64, slack: u64) -> u64 {
        let cost = CostModel {
            timer_slack_ns: slack,
            ..CostModel::default()
        };
        let sleeper = Script(vec![Op::Sleep(ns)], 0);
        let mut s = Simulation::new(world(1, 0, 1, cost), vec![(sleeper, Role::Peer)]);
        let went = s.step_actor(Actor::Thread(0)).expect("runnable");
        assert_eq!(went.note, Note::Slept { wasted: false });
        let fired = s.step().expect("the timer fires");
        assert_eq!(fired.note, Note::TimerFired { thread: 0 });
        assert_eq!(
            s.cpus()[0].clock,
            cost.timed_sleep_ns(ns),
            "the thread runs again"
        );
        fired.time_ns
    }

    /// Go's `usleep(3)` with Linux's default 50 µs of slack: the timer fires 53 µs after the
    /// call's entry, where without slack it fires 3 µs after.
    #[test]
    fn a_sleep_ends_its_timer_slack_after_its_deadline() {
        let entry = CostModel::default().syscall_ns;
        assert_eq!(fires_at(3_000, 0), entry + 3_000);
        assert_eq!(fires_at(3_000, 50_000), entry + 53_000);
    }
}
