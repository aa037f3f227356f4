//! Counting semaphores (`sem_wait`, `sem_post`), all starting at 0 as `sem_init(&sem, 1, 0)`.

use super::QueueRef;
use crate::machine::Machine;
use crate::op::{Op, OpResult, SemId, WakeCount};
use crate::sim::{Note, Simulation, SleepKind};

impl<M: Machine> Simulation<M> {
    /// `sem_wait`: take a unit, or sleep (glibc's `sem_wait` sleeps in `futex_wait`; the woken
    /// thread retries its `SemWait`, so a newcomer may take the unit first).
    pub(super) fn step_sem_wait(&mut self, tid: u16, cpu: u8, sem: SemId) -> Note {
        let c = self.jittered(self.cost.atomic_ns);
        self.charge(cpu, c);
        let i = sem.0 as usize;
        if self.k.sem_count[i] > 0 {
            self.k.sem_count[i] -= 1;
            self.complete(tid, OpResult::Done);
            Note::SemTook
        } else {
            self.count_sleeping_syscall(Op::SemWait(sem));
            self.metrics.sem_sleeps += 1;
            self.sleep_on(tid, QueueRef::Sem(sem.0), SleepKind::Lock);
            Note::SemSlept
        }
    }

    /// `sem_post`: add a unit and wake the front sleeper (a system call's cost when there is one).
    pub(super) fn step_sem_post(&mut self, tid: u16, cpu: u8, sem: SemId) -> Note {
        let i = sem.0 as usize;
        let n = self.k.sem_q[i].len() as u64;
        let c = self.jittered(self.cost.atomic_ns + if n > 0 { self.cost.syscall_ns } else { 0 });
        self.charge(cpu, c);
        self.metrics.sem_posts += 1;
        self.k.sem_count[i] = self.k.sem_count[i].saturating_add(1);
        let at = self.cpus[cpu as usize].clock;
        let woken = self.wake_queue(QueueRef::Sem(sem.0), WakeCount::Up(1), at, false);
        self.complete(tid, OpResult::Done);
        Note::Woke { woken }
    }
}
