//! Sleeping mutexes and condition variables (the model of `std::sync::Mutex` and `Condvar`).
//!
//! A contended `lock` sleeps on the mutex's queue and retries when woken; `unlock` wakes the front
//! sleeper. `cond_wait` releases the mutex and queues the sleeper in one atomic step; once woken,
//! the thread takes the mutex back (`KPath::CondRelock`) before its `CondWait` completes.
//!
//! ## Spinning before sleeping ([`MutexSpin`])
//!
//! By default a contended `lock` sleeps at once. A world may instead give its mutexes a spin
//! phase ([`Simulation::set_mutex_spin`]), as Go's runtime lock does (`lock2`: 4 rounds of 30
//! `PAUSE`s, one `osyield`, then sleep). Each contended attempt of one `lock` call is one step:
//!
//! | attempt (`SimThread::lock_tries`) | the step (each also costs the attempt's `atomic_ns`) |
//! |---|---|
//! | `0 .. rounds` | `pauses` pauses: `pauses × pause_ns`, the thread keeps its CPU |
//! | `rounds .. rounds + yields` | `sched_yield`: `yield_ns`, then to the back of its run queue when another thread waits there |
//! | after | sleep on the mutex's queue, as without a spin phase; woken, it sleeps again if the lock is taken (no new spin) |
//!
//! Invariant: `lock_tries` is 0 for every thread not inside a contended `lock`; taking the lock
//! resets it. A spinning thread is runnable and holds no queue entry, so the mutex's queue and
//! owner are exactly as without the spin phase.

use super::QueueRef;
use crate::machine::Machine;
use crate::op::{CondId, MutexId, Op, OpResult, WakeCount};
use crate::sim::{KPath, Note, Simulation, SleepKind, TaskState};
use crate::waitqueue::Enqueue;

/// How a contended `lock` waits before it sleeps (module docs, "Spinning before sleeping").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MutexSpin {
    /// Rounds of busy waiting, each `pauses` pauses and one look at the lock.
    pub rounds: u8,
    /// Pause instructions in a round.
    pub pauses: u8,
    /// `sched_yield` calls after the rounds, before the thread sleeps.
    pub yields: u8,
}

impl MutexSpin {
    /// No spin phase: a contended `lock` sleeps at once (`std::sync::Mutex`'s model here).
    pub const NONE: MutexSpin = MutexSpin {
        rounds: 0,
        pauses: 0,
        yields: 0,
    };
}

impl<M: Machine> Simulation<M> {
    /// `lock`: take the mutex if free, else sleep on it (a system call only then).
    pub(super) fn step_mutex_lock(&mut self, tid: u16, cpu: u8, m: MutexId) -> Note {
        let c = self.jittered(self.cost.atomic_ns);
        self.charge(cpu, c);
        let slot = &mut self.k.mutex_owner[m.0 as usize];
        if slot.is_none() {
            *slot = Some(tid);
            #[cfg(feature = "mutex-spin")]
            {
                self.threads[tid as usize].lock_tries = 0;
            }
            self.complete(tid, OpResult::Done);
            return Note::LockTaken;
        }
        #[cfg(feature = "mutex-spin")]
        if let Some(note) = self.lock_spin(tid, cpu) {
            return note;
        }
        self.count_sleeping_syscall(Op::MutexLock(m));
        self.sleep_on(tid, QueueRef::Mutex(m.0), SleepKind::Lock);
        Note::LockSlept
    }

    /// A contended `lock`'s attempt in the spin phase (module docs): a round of busy waiting
    /// or a `sched_yield`, or `None` when the phase is over and the thread sleeps.
    #[cfg(feature = "mutex-spin")]
    fn lock_spin(&mut self, tid: u16, cpu: u8) -> Option<Note> {
        let spin = self.k.mutex_spin;
        let tries = self.threads[tid as usize].lock_tries;
        if tries < spin.rounds {
            // a round of busy waiting, then the next attempt
            self.threads[tid as usize].lock_tries = tries + 1;
            let c = self.jittered(self.cost.pause_ns * u64::from(spin.pauses));
            self.charge(cpu, c);
            self.metrics.spins += 1;
            Some(Note::Other)
        } else if tries < spin.rounds.saturating_add(spin.yields) {
            // `osyield`: the CPU to whoever waits for it, then the next attempt
            self.threads[tid as usize].lock_tries = tries + 1;
            self.metrics.yields += 1;
            let c = self.jittered(self.cost.yield_ns);
            self.charge(cpu, c);
            if !self.cpus[cpu as usize].runq.is_empty() {
                self.enqueue_back(cpu, tid);
                self.threads[tid as usize].sched = crate::sim::Sched::Queued;
                self.leave_cpu(cpu);
            }
            Some(Note::Other)
        } else {
            None
        }
    }

    /// Give every mutex of this world the spin phase `spin` (module docs, "Spinning before
    /// sleeping"). Call it before the first step. [`MutexSpin::NONE`] (the default) sleeps at
    /// once. Without core's `mutex-spin` feature it does nothing (the site's main wasm, whose
    /// mechanisms never ask for one).
    pub fn set_mutex_spin(&mut self, spin: MutexSpin) {
        #[cfg(feature = "mutex-spin")]
        {
            self.k.mutex_spin = spin;
        }
        #[cfg(not(feature = "mutex-spin"))]
        let _ = spin;
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

#[cfg(all(test, feature = "mutex-spin"))]
mod tests {
    use super::MutexSpin;
    use crate::cost::CostModel;
    use crate::op::{MutexId, Op};
    use crate::sim::{Note, Role, Sched, Simulation};

    use crate::sim::kernel::script::{step, world, Script};

    const M: MutexId = MutexId(0);
    const SPIN: MutexSpin = MutexSpin {
        rounds: 2,
        pauses: 3,
        yields: 1,
    };

    /// Thread 0 takes the mutex, then yields (a holder that lost its CPU) or computes; thread 1
    /// wants the mutex. No jitter.
    fn sim(cpus: u8, holder_yields: bool, spin: MutexSpin) -> Simulation<Script> {
        let hold = if holder_yields {
            Op::Yield
        } else {
            Op::Work(100_000)
        };
        let t0 = Script(vec![Op::MutexLock(M), hold, Op::MutexUnlock(M)], 0);
        let t1 = Script(vec![Op::MutexLock(M), Op::MutexUnlock(M)], 0);
        let w = world(1, 1, cpus, CostModel::default());
        let mut s = Simulation::new(w, vec![(t0, Role::Peer), (t1, Role::Peer)]);
        s.set_mutex_spin(spin);
        s
    }

    /// Two CPUs, the holder computing: the waiter spins `rounds` times on its CPU (each
    /// attempt `atomic_ns + pauses × pause_ns`), yields once (nobody waits for its CPU: it keeps it),
    /// then sleeps; the holder's unlock wakes it and it takes the mutex.
    #[test]
    fn a_contended_lock_spins_its_rounds_yields_then_sleeps() {
        let mut s = sim(2, false, SPIN);
        assert_eq!(step(&mut s, 0), Note::LockTaken);
        let cost = CostModel::default();
        let t0 = s.cpus()[1].clock;
        assert_eq!(step(&mut s, 1), Note::Other);
        assert_eq!(step(&mut s, 1), Note::Other);
        assert_eq!(
            s.cpus()[1].clock - t0,
            2 * (cost.atomic_ns + 3 * cost.pause_ns)
        );
        assert_eq!(s.metrics().spins, 2);
        assert_eq!(step(&mut s, 1), Note::Other);
        assert_eq!(s.metrics().yields, 1);
        assert_eq!(s.threads()[1].sched, Sched::OnCpu);
        assert_eq!(step(&mut s, 1), Note::LockSlept);
        assert_eq!(s.threads()[1].sched, Sched::Asleep);
        // the holder computes and unlocks: the sleeper wakes, takes it, and its tries are reset
        assert!(matches!(step(&mut s, 0), Note::Worked { .. }));
        assert_eq!(step(&mut s, 0), Note::Unlocked);
        while s.threads()[1].sched != Sched::OnCpu {
            s.step().expect("the waiter runs again");
        }
        assert_eq!(step(&mut s, 1), Note::LockTaken);
        assert_eq!(s.threads()[1].lock_tries, 0);
        assert_eq!(s.mutex_owner(0), Some(1));
    }

    /// One CPU, the holder off it (it yielded): the waiter's spin rounds cannot end the wait,
    /// its `sched_yield` gives the holder the CPU, the holder unlocks, and the waiter takes the
    /// mutex without ever sleeping. Without a spin phase it sleeps at its first attempt.
    #[test]
    fn a_waiters_yield_runs_the_holder_that_lost_its_cpu() {
        let mut s = sim(1, true, SPIN);
        assert_eq!(step(&mut s, 0), Note::LockTaken);
        step(&mut s, 0); // the holder yields: the waiter has the CPU
        assert_eq!(s.threads()[1].sched, Sched::OnCpu);
        assert_eq!(step(&mut s, 1), Note::Other);
        assert_eq!(step(&mut s, 1), Note::Other);
        assert_eq!(step(&mut s, 1), Note::Other); // the yield
        assert_eq!(s.threads()[1].sched, Sched::Queued);
        assert_eq!(s.threads()[0].sched, Sched::OnCpu);
        assert_eq!(step(&mut s, 0), Note::Unlocked);
        step(&mut s, 0); // the holder exits
        assert_eq!(step(&mut s, 1), Note::LockTaken);
        assert_eq!(s.metrics().context_switches, 3);

        let mut plain = sim(1, true, MutexSpin::NONE);
        step(&mut plain, 0);
        step(&mut plain, 0);
        assert_eq!(step(&mut plain, 1), Note::LockSlept);
    }
}
