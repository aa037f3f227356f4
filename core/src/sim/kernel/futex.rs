//! Futexes: `futex_wait` sleeps on a word's queue while the word holds the expected value,
//! `futex_wake` walks that queue.
//!
//! # When `futex_wait` reads its word
//! Linux reads the word inside the call, after the system call's entry and the hash bucket's
//! lock (`futex_wait_setup` in `kernel/futex/waitwake.c`), not as the call starts. A store and a
//! `futex_wake` that land in between make the call return `EAGAIN` at once, with no sleep and no
//! wake latency. By default one step does it all: it costs `syscall_ns` and reads the word as
//! it starts, so that window has no width. A world that asks for the entry
//! ([`Simulation::set_futex_entry`], with core's `futex-entry` feature) splits the call in two:
//!
//! | step | what it does |
//! |---|---|
//! | 1 (`SimThread::futex_entered` false) | enter the kernel: `syscall_ns`, nothing read; `futex_entered` set |
//! | 2 (`futex_entered` true) | read the word: `EAGAIN`, or sleep on its queue; `futex_entered` cleared, nothing more charged |
//!
//! Invariant: `futex_entered` is true only between those two steps of one `futex_wait`, so a
//! thread asleep, queued for a lock or in any other call has it false. Go's `stopm` is where it
//! shows: an M that put itself on `midle` and unlocked `sched.lock` is found and woken by another
//! M's `startm` while it is still entering `futex_wait`, and does not sleep.

use super::QueueRef;
use crate::machine::Machine;
use crate::op::{OpResult, WakeCount, Word};
use crate::sim::{Note, Simulation, SleepKind};

impl<M: Machine> Simulation<M> {
    /// `futex_wait(word, expected)`: `EAGAIN` when the word differs, else sleep on its queue (the
    /// waker completes the wait with `Woken`).
    pub(super) fn step_futex_wait(&mut self, tid: u16, cpu: u8, word: Word, expected: u32) -> Note {
        #[cfg(feature = "futex-entry")]
        let entered = core::mem::take(&mut self.threads[tid as usize].futex_entered);
        #[cfg(not(feature = "futex-entry"))]
        let entered = false;
        if !entered {
            let c = self.jittered(self.cost.syscall_ns);
            self.charge(cpu, c);
            // (the world's entry: step 1 of two, the word read at the next; module docs)
            #[cfg(feature = "futex-entry")]
            if self.k.futex_entry {
                self.threads[tid as usize].futex_entered = true;
                return Note::Other;
            }
        }
        if self.k.mem.load(word) != expected {
            self.complete(tid, OpResult::Mismatch);
            Note::FutexMismatch
        } else {
            self.sleep_on(tid, QueueRef::Futex(word.0), SleepKind::Work);
            Note::FutexSlept
        }
    }

    /// Make every `futex_wait` of this world read its word a step after entering the kernel
    /// (module docs, "When `futex_wait` reads its word"). Call it before the first step. Off
    /// (the default), one step enters and reads. Without core's `futex-entry` feature it does
    /// nothing (the site's main wasm, whose mechanisms never ask for it).
    pub fn set_futex_entry(&mut self, on: bool) {
        #[cfg(feature = "futex-entry")]
        {
            self.k.futex_entry = on;
        }
        #[cfg(not(feature = "futex-entry"))]
        let _ = on;
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

#[cfg(all(test, feature = "futex-entry"))]
mod tests {
    use crate::cost::CostModel;
    use crate::op::{Op, WakeCount, Word};
    use crate::sim::{Note, Role, Sched, Simulation};

    use crate::sim::kernel::script::{step, world, Script};

    const W: Word = Word(0);

    /// Thread 0 waits on the word while it holds 0; thread 1 sets it to 1 and wakes it. Two CPUs,
    /// no jitter.
    fn sim(entry: bool) -> Simulation<Script> {
        let waiter = Script(
            vec![Op::FutexWait {
                word: W,
                expected: 0,
            }],
            0,
        );
        let waker = Script(vec![Op::Store(W, 1), Op::FutexWake(W, WakeCount::Up(1))], 0);
        let w = world(1, 0, 2, CostModel::default());
        let mut s = Simulation::new(w, vec![(waiter, Role::Peer), (waker, Role::Peer)]);
        s.set_futex_entry(entry);
        s
    }

    /// With the entry, a store and a wake between the call's two steps make it return `EAGAIN`
    /// without sleeping: the wake finds nobody, and the waiter's CPU never idles. The entry
    /// costs the call's `syscall_ns`; the read costs nothing more.
    #[test]
    fn a_wake_while_futex_wait_enters_the_kernel_makes_it_return_at_once() {
        let mut s = sim(true);
        let cost = CostModel::default();
        let t0 = s.cpus()[0].clock;
        assert_eq!(step(&mut s, 0), Note::Other);
        assert!(s.threads()[0].futex_entered);
        assert_eq!(s.cpus()[0].clock - t0, cost.syscall_ns);
        assert_eq!(s.threads()[0].sched, Sched::OnCpu);
        step(&mut s, 1); // the store
        assert_eq!(step(&mut s, 1), Note::Woke { woken: 0 });
        assert_eq!(step(&mut s, 0), Note::FutexMismatch);
        assert!(!s.threads()[0].futex_entered);
        assert_eq!(s.cpus()[0].clock - t0, cost.syscall_ns);
        assert_eq!(s.metrics().wakeups, 0);
    }

    /// Without it (the default), the call reads the word as it starts: the same order of steps
    /// puts the waiter to sleep first, and the wake has someone to wake.
    #[test]
    fn without_the_entry_the_same_order_sleeps_and_is_woken() {
        let mut s = sim(false);
        assert_eq!(step(&mut s, 0), Note::FutexSlept);
        assert_eq!(s.threads()[0].sched, Sched::Asleep);
        step(&mut s, 1);
        assert_eq!(step(&mut s, 1), Note::Woke { woken: 1 });
        assert_eq!(s.metrics().wakeups, 1);
        // with the entry, a word that still holds the value when it is read: it sleeps
        let mut late = sim(true);
        assert_eq!(step(&mut late, 0), Note::Other);
        assert_eq!(step(&mut late, 0), Note::FutexSlept);
        assert!(!late.threads()[0].futex_entered);
    }
}

#[cfg(all(test, feature = "wake-ipi", feature = "futex-entry"))]
mod wake_ipi_tests {
    use crate::cost::CostModel;
    use crate::op::{Op, WakeCount, Word};
    use crate::sim::{Note, Role, Sched, Simulation};

    use crate::sim::kernel::script::{step, world, Script};

    const W: Word = Word(0);
    const IPI: u64 = 7_000;

    /// Thread 0 waits on the word; thread 1 sets it and wakes it; on `cpus` CPUs (thread 0 on
    /// CPU 0, thread 1 on the last), with `wake_ipi_ns` at `ipi`, no jitter.
    fn sim(cpus: u8, ipi: u64) -> Simulation<Script> {
        let waiter = Script(
            vec![Op::FutexWait {
                word: W,
                expected: 0,
            }],
            0,
        );
        let waker = Script(vec![Op::Store(W, 1), Op::FutexWake(W, WakeCount::Up(1))], 0);
        let cost = CostModel {
            wake_ipi_ns: ipi,
            ..CostModel::default()
        };
        Simulation::new(
            world(1, 0, cpus, cost),
            vec![(waiter, Role::Peer), (waker, Role::Peer)],
        )
    }

    /// Thread 1's `futex_wake` onto the idle CPU 0 costs it the call, the walk's entry and the
    /// IPI; the woken thread starts when it would without the IPI.
    #[test]
    fn a_wake_onto_an_idle_cpu_costs_the_waker_its_ipi() {
        let run = |ipi: u64| {
            let mut s = sim(2, ipi);
            assert_eq!(step(&mut s, 0), Note::FutexSlept);
            step(&mut s, 1); // the store
            let t0 = s.cpus()[1].clock;
            assert_eq!(step(&mut s, 1), Note::Woke { woken: 1 });
            assert_eq!(s.threads()[0].sched, Sched::OnCpu);
            (s.cpus()[1].clock - t0, s.cpus()[0].clock)
        };
        let cost = CostModel::default();
        let (waker, woken_at) = run(IPI);
        assert_eq!(waker, cost.syscall_ns + cost.wake_entry_ns + IPI);
        let (waker0, woken_at0) = run(0);
        assert_eq!(waker0, cost.syscall_ns + cost.wake_entry_ns);
        assert_eq!(woken_at, woken_at0);
    }

    /// On one CPU the woken thread is queued behind its waker: no CPU leaves idle, no IPI.
    #[test]
    fn a_wake_onto_a_busy_cpu_costs_no_ipi() {
        let mut s = sim(1, IPI);
        assert_eq!(step(&mut s, 0), Note::FutexSlept);
        step(&mut s, 1);
        let t0 = s.cpus()[0].clock;
        assert_eq!(step(&mut s, 1), Note::Woke { woken: 1 });
        assert_eq!(s.threads()[0].sched, Sched::Queued);
        let cost = CostModel::default();
        assert_eq!(s.cpus()[0].clock - t0, cost.syscall_ns + cost.wake_entry_ns);
    }
}
