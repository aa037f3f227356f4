//! One simulated thread: its machine, its scheduling and task state, what it sleeps on, and the
//! kernel path it is in.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::accept::AcceptPhase;
use crate::machine::Machine;
use crate::metrics::ThreadMetrics;

/// A thread's scheduling state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sched {
    /// Running on its CPU.
    OnCpu,
    /// Runnable, waiting in its CPU's run queue.
    Queued,
    /// Off every CPU until something wakes it.
    Asleep,
    /// Exited.
    Done,
}

/// Linux's task state, as `prepare_to_wait` and `try_to_wake_up` see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskState {
    /// `TASK_RUNNING`.
    Running,
    /// `TASK_INTERRUPTIBLE`: marked as going to sleep; a wakeup sets it back to running.
    Interruptible,
}

/// What an asleep thread is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SleepKind {
    /// Not asleep.
    None,
    /// Work: a connection, a job (counted in `wakeups` when woken).
    Work,
    /// A contended mutex (counted in `lock_sleeps`).
    Lock,
    /// The arrival pattern's next event (the producer's harness wait; not counted as a wakeup).
    Event,
    /// A timed sleep ([`crate::op::Op::Sleep`]) until its timer fires (not counted as a wakeup).
    Timer,
}

/// A thread's role, which decides whether it counts as a worker for idleness and the invariants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// A worker: waits for work.
    Worker,
    /// A producer: creates work.
    Producer,
    /// A peer in a mechanism with no producer and no workers (every thread of a lock scenario):
    /// not counted for idleness, arrivals or the no-lost-wakeup check on the accept queue.
    Peer,
}

/// The multi-step kernel path a thread is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum KPath {
    /// None: its next step is its machine's next operation.
    None,
    /// Inside the modelled `accept()`, in this phase, with the connection it took.
    Accept(AcceptPhase, u32),
    /// Woken from a condition variable: taking this mutex back.
    CondRelock(u8),
}

/// One thread of the simulation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SimThread<M> {
    pub(super) machine: M,
    pub(super) role: Role,
    pub(super) sched: Sched,
    pub(super) task: TaskState,
    pub(super) sleep: SleepKind,
    pub(super) cpu: u8,
    pub(super) kpath: KPath,
    pub(super) woken_since_work: bool,
    pub(super) empty_handed: bool,
    pub(super) metrics: ThreadMetrics,
    /// Connections its last `epoll_wait` reported and it has not read yet.
    pub(super) harvest: VecDeque<u32>,
    /// Its `epoll_wait` timeout, while it waits with one.
    pub(super) deadline: Option<u64>,
    /// The timeout expired while it slept.
    pub(super) timed_out: bool,
    /// It was woken inside a blocking call that it now resumes (not a new system call).
    pub(super) resumed: bool,
    /// The deadline of its timed sleep ([`crate::op::Op::Sleep`]), while it sleeps in one.
    pub(super) timer: Option<u64>,
    /// The contended attempts of its current `lock` call (0 outside one): where it is in the
    /// mutexes' spin phase ([`super::MutexSpin`]).
    #[cfg(feature = "mutex-spin")]
    pub(super) lock_tries: u8,
    /// Inside a `futex_wait` that has entered the kernel and reads its word at its next step
    /// (false outside one; [`super::Simulation::set_futex_entry`]).
    #[cfg(feature = "futex-entry")]
    pub(super) futex_entered: bool,
}

impl<M> SimThread<M> {
    /// The same thread with its machine replaced by `f` of it ([`super::Simulation::map_machines`]).
    pub(super) fn map_machine<N>(self, f: impl FnOnce(M) -> N) -> SimThread<N> {
        SimThread {
            machine: f(self.machine),
            role: self.role,
            sched: self.sched,
            task: self.task,
            sleep: self.sleep,
            cpu: self.cpu,
            kpath: self.kpath,
            woken_since_work: self.woken_since_work,
            empty_handed: self.empty_handed,
            metrics: self.metrics,
            harvest: self.harvest,
            deadline: self.deadline,
            timed_out: self.timed_out,
            resumed: self.resumed,
            timer: self.timer,
            #[cfg(feature = "mutex-spin")]
            lock_tries: self.lock_tries,
            #[cfg(feature = "futex-entry")]
            futex_entered: self.futex_entered,
        }
    }
}

impl<M: Machine> SimThread<M> {
    /// The thread's state machine.
    pub fn machine(&self) -> &M {
        &self.machine
    }
    /// Its role.
    pub fn role(&self) -> Role {
        self.role
    }
    /// Its scheduling state.
    pub fn sched(&self) -> Sched {
        self.sched
    }
    /// Its task state.
    pub fn task_state(&self) -> TaskState {
        self.task
    }
    /// What it sleeps on, when asleep.
    pub fn sleep_kind(&self) -> SleepKind {
        self.sleep
    }
    /// The CPU it last ran on (or is queued on).
    pub fn cpu(&self) -> u8 {
        self.cpu
    }
    /// True from the moment a woken thread finds nothing (or goes back to sleep without working)
    /// until it is woken again or does work: the "woken, found nothing" lane state.
    pub fn is_empty_handed(&self) -> bool {
        self.empty_handed
    }
    /// Its counters.
    pub fn metrics(&self) -> &ThreadMetrics {
        &self.metrics
    }
    /// The pseudocode line its next step executes.
    pub fn line(&self) -> u16 {
        match self.kpath {
            KPath::Accept(phase, _) => self.machine.kernel_line(phase),
            _ => self.machine.line(),
        }
    }
    /// Connections its last `epoll_wait` reported that it has not read yet.
    pub fn harvest(&self) -> impl Iterator<Item = u32> + '_ {
        self.harvest.iter().copied()
    }
    /// Its pending `epoll_wait` timeout, if it sleeps with one.
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }
    /// The deadline of its timed sleep ([`crate::op::Op::Sleep`]), while it sleeps in one.
    pub fn timer(&self) -> Option<u64> {
        self.timer
    }
    /// Whether it is inside the modelled kernel's accept path, and where.
    pub fn accept_phase(&self) -> Option<AcceptPhase> {
        match self.kpath {
            KPath::Accept(p, _) => Some(p),
            _ => None,
        }
    }
}
