//! Futexes: `futex_wait` sleeps on a word's queue while the word holds the expected value,
//! `futex_wake` walks that queue.

use super::QueueRef;
use crate::machine::Machine;
use crate::op::{OpResult, WakeCount, Word};
use crate::sim::{Note, Simulation, SleepKind};

impl<M: Machine> Simulation<M> {
    /// `futex_wait(word, expected)`: `EAGAIN` when the word differs, else sleep on its queue (the
    /// waker completes the wait with `Woken`).
    pub(super) fn step_futex_wait(&mut self, tid: u16, cpu: u8, word: Word, expected: u32) -> Note {
        let c = self.jittered(self.cost.syscall_ns);
        self.charge(cpu, c);
        if self.k.mem.load(word) != expected {
            self.complete(tid, OpResult::Mismatch);
            Note::FutexMismatch
        } else {
            self.sleep_on(tid, QueueRef::Futex(word.0), SleepKind::Work);
            Note::FutexSlept
        }
    }

    /// `futex_wake(word, count)`: walk the word's queue (its cost grows with the queue's length);
    /// the machine gets the number woken.
    pub(super) fn step_futex_wake(
        &mut self,
        tid: u16,
        cpu: u8,
        word: Word,
        count: WakeCount,
    ) -> Note {
        let n = self.k.futex_q[word.0 as usize].len().max(1) as u64;
        let c = self.jittered(self.cost.syscall_ns + self.cost.wake_entry_ns * n);
        self.charge(cpu, c);
        let at = self.cpus[cpu as usize].clock;
        let woken = self.wake_queue(QueueRef::Futex(word.0), count, at, true);
        self.complete(tid, OpResult::Value(woken as u32));
        Note::Woke { woken }
    }
}
