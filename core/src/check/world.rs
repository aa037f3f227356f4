//! The checking platform: machines stepped atomically, without time.
//!
//! State: the machines, a blocked and a done bit per thread, [`WORDS`] words of memory, one FIFO
//! sleeper queue per futex word, and [`SEMS`] counting semaphores with their FIFO sleeper queues. Its
//! semantics match [`crate::sim`] for the operations below, so a schedule found here replays there:
//! - `Load`, `Store`, `Cas`, `FetchAdd`, `Swap`: [`Words::exec`], the one meaning the simulator
//!   runs too.
//! - `FutexWait`: returns `Mismatch` if the word differs; otherwise the thread sleeps, and the `Woken`
//!   result is delivered when a `FutexWake` takes it off the queue (front first).
//! - `SemWait`: takes a unit if the count is positive; otherwise sleeps. `SemPost` adds a unit and
//!   wakes the front sleeper, which runs its `SemWait` again (a newcomer may take the unit first).
//! - `Pause`, `Yield`, `Work`, `Now`: one step that changes nothing shared.
//!
//!
//! # One checker step
//! A checker step of thread `t` is its pending `pause`s and then its next visible operation, and,
//! with [`SpinSteps::Merged`] (the default), when that operation failed a spin probe
//! ([`Machine::in_failed_spin`] afterwards), the rest of the spin too: the probes left, up to the
//! step that leaves the spin (for a spinning lock, to the step after its spin). Nothing else runs
//! meanwhile.
//!
//! Why merging loses nothing (for invariants over shared state and the threads' positions, which
//! is what every invariant here reads): a failed probe is a load that found the lock taken, or a CAS
//! that found it taken and wrote nothing. It changes no shared word and no other thread; only the
//! spinning thread's own probe counter. So
//! 1. every schedule of the unmerged world maps onto a merged one with the same sequence of shared
//!    states: drop the failed probes (they change nothing others see) except those of a spin that
//!    fails all the way, which run together where its last one ran (the lock was taken then, so they
//!    all fail again); a later probe that wins becomes the first probe winning at that moment (the
//!    first probe, right after L1, is never merged, so it may run at any later time);
//! 2. every merged schedule is an unmerged one, with the merged probes run back to back.
//!
//! So a spin of 2048 (11 probes, 2047 pauses) reaches exactly the states of a spin of 2 once
//! merged, and is checked at that cost. [`SpinSteps::OneByOne`] turns merging off (the tests check
//! that both find the same verdicts).
//!
//! Bounds: at most [`MAX_THREADS`] threads. Operations this platform does not model (`Accept`,
//! `MutexLock`, `CondWait`, `CondNotify`, `AwaitEvent`) make the thread stop with
//! [`CheckWorld::unsupported`] set.

use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::op::{Op, OpResult};
use crate::sim::Words;

/// Words of memory.
pub const WORDS: usize = 4;
/// Semaphores.
pub const SEMS: usize = 1;
/// The most threads a world may have (the bit masks and queues are sized for it).
pub const MAX_THREADS: usize = 16;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Queue {
    len: u8,
    ids: [u8; MAX_THREADS],
}

impl Queue {
    fn push(&mut self, t: usize) {
        self.ids[self.len as usize] = t as u8;
        self.len += 1;
    }
    fn pop(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let t = self.ids[0] as usize;
        self.ids.copy_within(1..self.len as usize, 0);
        self.len -= 1;
        self.ids[self.len as usize] = 0;
        Some(t)
    }
}

/// Whether a checker step runs the rest of a failed spin (see the module docs).
///
/// Merged, a spin of 2048 explores exactly the states of a spin of 2; probe by probe, every
/// probe is a state of its own (`core/tests/check_spins.rs` holds a spinning lock to both).
///
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SpinSteps {
    /// A failed probe and the rest of its spin are one step (the default).
    #[default]
    Merged,
    /// Every probe is a step of its own.
    OneByOne,
}

impl SpinSteps {
    /// Whether a checker step that just ran `ran` goes on with machine `m` (as it is now): through a
    /// `pause`, and, merging, through the rest of a failed spin. [`replay`] and every other expansion
    /// of a schedule into simulator steps follow this rule.
    pub fn goes_on<M: Machine>(self, ran: Op, m: &M) -> bool {
        ran == Op::Pause || (self == SpinSteps::Merged && m.in_failed_spin())
    }
}

/// Machines on the checking platform.
///
/// The machines live inline (no allocation per copy: the search copies a world on every transition);
/// only the first `n` slots are real, and only they take part in equality and hashing.
#[derive(Clone, Copy, Debug)]
pub struct CheckWorld<M> {
    n: u8,
    threads: [M; MAX_THREADS],
    blocked: u32,
    done: u32,
    mem: Words<[u32; WORDS]>,
    futex_q: [Queue; WORDS],
    sem: [u32; SEMS],
    sem_q: [Queue; SEMS],
    unsupported: Option<(u8, Op)>,
    spins: SpinSteps,
}

impl<M: Machine + Copy> PartialEq for CheckWorld<M> {
    fn eq(&self, o: &Self) -> bool {
        self.n == o.n
            && self.threads() == o.threads()
            && self.blocked == o.blocked
            && self.done == o.done
            && self.mem == o.mem
            && self.futex_q == o.futex_q
            && self.sem == o.sem
            && self.sem_q == o.sem_q
            && self.unsupported == o.unsupported
    }
}

impl<M: Machine + Copy> Eq for CheckWorld<M> {}

impl<M: Machine + Copy> core::hash::Hash for CheckWorld<M> {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.threads().hash(h);
        self.blocked.hash(h);
        self.done.hash(h);
        self.mem.hash(h);
        self.futex_q.hash(h);
        self.sem.hash(h);
        self.sem_q.hash(h);
        self.unsupported.hash(h);
    }
}

impl<M: Machine + Copy> CheckWorld<M> {
    /// A world of these machines, all runnable, memory zeroed, semaphores at 0. At most
    /// [`MAX_THREADS`] machines are kept; there must be at least one.
    pub fn new(machines: Vec<M>) -> Self {
        let n = machines.len().clamp(1, MAX_THREADS);
        let mut threads = [machines[0]; MAX_THREADS];
        let mut done = 0;
        for (i, m) in machines.into_iter().take(n).enumerate() {
            if m.is_done() {
                done |= 1 << i;
            }
            threads[i] = m;
        }
        CheckWorld {
            n: n as u8,
            threads,
            blocked: 0,
            done,
            mem: Words::new([0; WORDS]),
            futex_q: [Queue::default(); WORDS],
            sem: [0; SEMS],
            sem_q: [Queue::default(); SEMS],
            unsupported: None,
            spins: SpinSteps::Merged,
        }
    }

    /// The same world, with failed spins merged into one step or not.
    pub fn with_spin_steps(mut self, spins: SpinSteps) -> Self {
        self.spins = spins;
        self
    }

    /// Whether failed spins are merged.
    pub fn spin_steps(&self) -> SpinSteps {
        self.spins
    }

    /// The machines.
    pub fn threads(&self) -> &[M] {
        &self.threads[..self.n as usize]
    }
    /// A word of memory.
    pub fn word(&self, w: usize) -> u32 {
        self.mem.as_slice()[w]
    }
    /// A semaphore's count.
    pub fn sem_count(&self, s: usize) -> u32 {
        self.sem[s]
    }
    /// Whether thread `t` sleeps.
    pub fn is_blocked(&self, t: usize) -> bool {
        self.blocked & (1 << t) != 0
    }
    /// Whether thread `t` has exited.
    pub fn is_done(&self, t: usize) -> bool {
        self.done & (1 << t) != 0
    }
    /// Whether thread `t` may step.
    pub fn is_runnable(&self, t: usize) -> bool {
        t < self.n as usize
            && (self.blocked | self.done) & (1 << t) == 0
            && self.unsupported.is_none()
    }
    /// Set when a thread asked for an operation this platform does not model.
    pub fn unsupported(&self) -> Option<(u8, Op)> {
        self.unsupported
    }

    fn wake(&mut self, t: usize) {
        self.blocked &= !(1 << t);
    }

    /// Run one step of thread `t` (which must be runnable). A run of `pause`s followed by the next
    /// operation counts as one step: a `pause` touches nothing shared, so merging it into the next
    /// visible operation loses no interleaving (and keeps a spin's 2047 pauses per round from
    /// multiplying the state space); so does the rest of a failed spin, when merged (module docs).
    /// [`replay`] expands the step again for the simulator.
    pub fn step(&mut self, t: usize) {
        loop {
            self.threads[t].skip_pauses();
            self.step_visible(t);
            let merge = self.spins == SpinSteps::Merged && self.threads[t].in_failed_spin();
            if !(merge && self.is_runnable(t)) {
                return;
            }
        }
    }

    /// Run thread `t`'s next operation, which is not a `pause`.
    fn step_visible(&mut self, t: usize) {
        let op = self.threads[t].next_op();
        let r = match op {
            Op::Load(_) | Op::Store(..) | Op::Cas { .. } | Op::FetchAdd(..) | Op::Swap(..) => {
                match self.mem.exec(op) {
                    Some(a) => a.result,
                    None => unreachable!("a memory operation"),
                }
            }
            Op::FutexWait { word, expected } => {
                if self.mem.load(word) != expected {
                    OpResult::Mismatch
                } else {
                    self.futex_q[word.0 as usize].push(t);
                    self.blocked |= 1 << t;
                    return;
                }
            }
            Op::FutexWake(word, count) => {
                let limit = match count.nr_exclusive() {
                    0 => u32::MAX,
                    n => n,
                };
                let mut woken = 0;
                while woken < limit {
                    match self.futex_q[word.0 as usize].pop() {
                        Some(s) => {
                            self.wake(s);
                            self.threads[s].complete(OpResult::Woken);
                            woken += 1;
                        }
                        None => break,
                    }
                }
                OpResult::Value(woken)
            }
            Op::SemWait(s) => {
                let i = s.0 as usize;
                if self.sem[i] > 0 {
                    self.sem[i] -= 1;
                    OpResult::Done
                } else {
                    self.sem_q[i].push(t);
                    self.blocked |= 1 << t;
                    return;
                }
            }
            Op::SemPost(s) => {
                let i = s.0 as usize;
                self.sem[i] = self.sem[i].saturating_add(1);
                if let Some(w) = self.sem_q[i].pop() {
                    // the sleeper runs its SemWait again
                    self.wake(w);
                }
                OpResult::Done
            }
            // a timed sleep is a yield point with no time: the checker has no clock, so it may end
            // at once (any interleaving a deadline allows is among those explored)
            Op::Yield | Op::Work(_) | Op::Sleep(_) => OpResult::Done,
            Op::Pause => unreachable!("pauses are skipped before"),
            Op::Now => OpResult::Time(0),
            Op::Exit => {
                self.done |= 1 << t;
                return;
            }
            Op::Accept(_)
            | Op::AcceptNb(_)
            | Op::EpollAdd { .. }
            | Op::EpollDel { .. }
            | Op::EpollWait { .. }
            | Op::ReadNext
            | Op::Recv(_)
            | Op::Respond(_)
            | Op::MutexLock(_)
            | Op::MutexUnlock(_)
            | Op::CondWait(..)
            | Op::CondNotify(..)
            | Op::AwaitEvent => {
                self.unsupported = Some((t as u8, op));
                return;
            }
        };
        self.threads[t].complete(r);
        if self.threads[t].is_done() {
            self.done |= 1 << t;
        }
    }
}

/// Replay a checker schedule (of a [`SpinSteps::Merged`] world) in the simulator: each entry steps
/// that thread as one checker step does (its pending `pause`s, its next visible operation, and the
/// rest of a spin that operation failed).
pub fn replay<M: Machine>(
    sim: &mut crate::sim::Simulation<M>,
    schedule: &[u16],
) -> Result<(), crate::sim::StepError> {
    replay_with(sim, schedule, SpinSteps::Merged)
}

/// [`replay`] for a schedule of a world with these [`SpinSteps`].
pub fn replay_with<M: Machine>(
    sim: &mut crate::sim::Simulation<M>,
    schedule: &[u16],
    spins: SpinSteps,
) -> Result<(), crate::sim::StepError> {
    use crate::sim::Actor;
    for &t in schedule {
        loop {
            let ran = match sim.threads().get(t as usize) {
                Some(th) => th.machine().next_op(),
                None => Op::Exit,
            };
            sim.step_actor(Actor::Thread(t))?;
            if !spins.goes_on(ran, sim.threads()[t as usize].machine()) {
                break;
            }
        }
    }
    // The checker retires a thread together with its last operation; the simulator takes one more
    // step to run its `Exit`. Take those steps, so that both end in the same state.
    for t in 0..sim.threads().len() {
        if sim.threads()[t].machine().next_op() == Op::Exit && sim.can_step(Actor::Thread(t as u16))
        {
            sim.step_actor(Actor::Thread(t as u16))?;
        }
    }
    Ok(())
}
