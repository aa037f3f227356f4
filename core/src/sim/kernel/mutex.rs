//! Sleeping mutexes and condition variables (the model of `std::sync::Mutex` and `Condvar`).
//!
//! A contended `lock` sleeps on the mutex's queue and retries when woken; `unlock` wakes the front
//! sleeper. `cond_wait` releases the mutex and queues the sleeper in one atomic step; once woken,
//! the thread takes the mutex back (`KPath::CondRelock`) before its `CondWait` completes.

use super::QueueRef;
use crate::machine::Machine;
use crate::op::{CondId, MutexId, Op, OpResult, WakeCount};
use crate::sim::{KPath, Note, Simulation, SleepKind, TaskState};
use crate::waitqueue::Enqueue;

impl<M: Machine> Simulation<M> {
    /// `lock`: take the mutex if free, else sleep on it (a system call only then).
    pub(super) fn step_mutex_lock(&mut self, tid: u16, cpu: u8, m: MutexId) -> Note {
        let c = self.jittered(self.cost.atomic_ns);
        self.charge(cpu, c);
        let slot = &mut self.k.mutex_owner[m.0 as usize];
        if slot.is_none() {
            *slot = Some(tid);
            self.complete(tid, OpResult::Done);
            Note::LockTaken
        } else {
            self.count_sleeping_syscall(Op::MutexLock(m));
            self.sleep_on(tid, QueueRef::Mutex(m.0), SleepKind::Lock);
            Note::LockSlept
        }
    }

    /// `unlock`.
    pub(super) fn step_mutex_unlock(&mut self, tid: u16, cpu: u8, m: MutexId) -> Note {
        let c = self.jittered(self.cost.atomic_ns);
        self.charge(cpu, c);
        self.unlock(m.0, cpu);
        self.complete(tid, OpResult::Done);
        Note::Unlocked
    }

    /// `cond_wait(cv, m)`: queue on the condition variable, release the mutex, sleep.
    pub(super) fn step_cond_wait(&mut self, tid: u16, cpu: u8, cv: CondId, m: MutexId) -> Note {
        let c = self.jittered(self.cost.syscall_ns);
        self.charge(cpu, c);
        self.k.cond_q[cv.0 as usize].add(tid, Enqueue::ExclusiveTail);
        self.threads[tid as usize].task = TaskState::Interruptible;
        self.threads[tid as usize].kpath = KPath::CondRelock(m.0);
        // cv.wait releases the mutex and queues the sleeper in one atomic step
        self.unlock(m.0, cpu);
        self.block(tid, SleepKind::Work);
        Note::CondSlept
    }

    /// `notify_one` / `notify_all`: walk the condition variable's queue.
    pub(super) fn step_cond_notify(
        &mut self,
        tid: u16,
        cpu: u8,
        cv: CondId,
        count: WakeCount,
    ) -> Note {
        let n = self.k.cond_q[cv.0 as usize].len().max(1) as u64;
        let c = self.jittered(self.cost.syscall_ns + self.cost.wake_entry_ns * n);
        self.charge(cpu, c);
        let at = self.cpus[cpu as usize].clock;
        let woken = self.wake_queue(QueueRef::Cond(cv.0), count, at, true);
        self.complete(tid, OpResult::Done);
        Note::Woke { woken }
    }

    /// Release mutex `m` and wake its front sleeper, leaving the step's recorded walk as it was
    /// (the mutex's walk is not the one the learner is shown).
    fn unlock(&mut self, m: u8, cpu: u8) {
        self.k.mutex_owner[m as usize] = None;
        if !self.k.mutex_q[m as usize].is_empty() {
            let at = self.cpus[cpu as usize].clock;
            let keep = std::mem::take(&mut self.last_walk);
            let (budget, end) = (self.last_walk_budget, self.last_walk_end);
            self.wake_queue(QueueRef::Mutex(m), WakeCount::Up(1), at, false);
            self.last_walk = keep;
            self.last_walk_budget = budget;
            self.last_walk_end = end;
        }
    }

    /// The step after a condition-variable wakeup: take the mutex back, or sleep on it.
    pub(in crate::sim) fn step_relock(&mut self, tid: u16, cpu: u8, m: u8) -> Note {
        let c = self.jittered(self.cost.atomic_ns);
        self.charge(cpu, c);
        if self.k.mutex_owner[m as usize].is_none() {
            self.k.mutex_owner[m as usize] = Some(tid);
            self.threads[tid as usize].kpath = KPath::None;
            self.complete(tid, OpResult::Woken);
            Note::Relocked
        } else {
            self.count_sleeping_syscall(Op::MutexLock(MutexId(m)));
            self.sleep_on(tid, QueueRef::Mutex(m), SleepKind::Lock);
            Note::LockSlept
        }
    }
}
