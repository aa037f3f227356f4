//! The kernel model: what each [`Op`] does to the simulated world, one step at a time.
//!
//! One file per part of the kernel: [`mem`] (words of memory, the one semantics of the memory
//! operations), [`futex`], [`sem`], [`mutex`] (sleeping mutexes and condition variables),
//! [`accept`] (the blocking accept path and the arrivals it serves), [`net`] (the event-driven
//! network) and [`timer`] (timed sleeps). This file holds the kernel's state, the wait-queue plumbing they share and the
//! dispatch of a thread's step.

pub mod accept;
pub mod futex;
pub mod mem;
pub mod mutex;
pub mod net;
#[cfg(all(
    test,
    any(feature = "coherence", feature = "mutex-spin", feature = "futex-entry")
))]
mod script;
pub mod sem;
pub mod timer;

use super::{Actor, KPath, Note, Role, Sched, Simulation, SleepKind, StepRecord, TaskState};
use crate::machine::Machine;
use crate::op::{AcceptPhase, Op, OpResult, Syscall, WakeCount};
use crate::waitqueue::WaitQueue;
use mem::Words;

/// The kernel's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(in crate::sim) struct Kernel {
    /// Words of memory (also futex words).
    pub(in crate::sim) mem: Words<Vec<u32>>,
    /// One futex queue per word.
    pub(in crate::sim) futex_q: Vec<WaitQueue>,
    /// Each sleeping mutex's owner.
    pub(in crate::sim) mutex_owner: Vec<Option<u16>>,
    /// Each mutex's sleepers.
    pub(in crate::sim) mutex_q: Vec<WaitQueue>,
    /// How a contended `lock` waits before it sleeps (the same for every mutex of the world).
    #[cfg(feature = "mutex-spin")]
    pub(in crate::sim) mutex_spin: mutex::MutexSpin,
    /// `futex_wait` reads its word a step after entering the kernel (`futex.rs`).
    #[cfg(feature = "futex-entry")]
    pub(in crate::sim) futex_entry: bool,
    /// Each condition variable's sleepers.
    pub(in crate::sim) cond_q: Vec<WaitQueue>,
    /// Each semaphore's count.
    pub(in crate::sim) sem_count: Vec<u32>,
    /// Each semaphore's sleepers.
    pub(in crate::sim) sem_q: Vec<WaitQueue>,
    /// Listening sockets (at least one): each with its wait queue and accept queue.
    pub(in crate::sim) listeners: Vec<net::Listener>,
}

impl<M: Machine> Simulation<M> {
    /// `try_to_wake_up` for a wait-queue entry: 1 if the sleeper was going to sleep or asleep, 0 if it
    /// was already running.
    pub(in crate::sim) fn ttwu(&mut self, tid: u16, at: u64, counted: bool) -> i32 {
        let t = &mut self.threads[tid as usize];
        if t.task != TaskState::Interruptible {
            return 0;
        }
        t.task = TaskState::Running;
        if t.sched == Sched::Asleep {
            let kind = t.sleep;
            self.wake_thread(tid, at, counted && kind == SleepKind::Work);
            self.after_wake(tid);
        }
        1
    }

    /// Advance a woken thread's kernel path or machine past its sleep.
    pub(in crate::sim) fn after_wake(&mut self, tid: u16) {
        let t = &mut self.threads[tid as usize];
        match t.kpath {
            KPath::Accept(AcceptPhase::SleepIfEmpty | AcceptPhase::Schedule, c) => {
                t.kpath = KPath::Accept(AcceptPhase::Take, c)
            }
            KPath::CondRelock(_) | KPath::Accept(..) => {}
            KPath::None => {
                match t.machine.next_op() {
                    Op::FutexWait { .. } => t.machine.complete(OpResult::Woken),
                    // the woken caller goes on inside the same call
                    Op::EpollWait { .. } | Op::Recv(_) => t.resumed = true,
                    _ => {}
                }
                // a mutex sleeper simply retries its MutexLock
            }
        }
    }

    /// Wake up to `count` sleepers of a wait queue, recording the walk.
    pub(in crate::sim) fn wake_queue(
        &mut self,
        which: QueueRef,
        count: WakeCount,
        at: u64,
        counted: bool,
    ) -> u16 {
        let mut q = std::mem::take(self.queue_mut(which));
        let mut visits = std::mem::take(&mut self.last_walk);
        let mut woken = 0u16;
        let end = q.wake(count.nr_exclusive(), true, &mut visits, |tid| {
            let r = self.ttwu(tid, at, counted);
            if r > 0 {
                woken += 1;
            }
            r
        });
        *self.queue_mut(which) = q;
        self.last_walk = visits;
        self.last_walk_budget = count.nr_exclusive();
        self.last_walk_end = Some(end);
        woken
    }

    /// Queue the running thread `tid` at the tail of a kernel queue, mark it TASK_INTERRUPTIBLE and
    /// take it off its CPU (the shape of every blocking kernel call in the model).
    pub(in crate::sim) fn sleep_on(&mut self, tid: u16, q: QueueRef, kind: SleepKind) {
        self.queue_mut(q)
            .add(tid, crate::waitqueue::Enqueue::ExclusiveTail);
        self.threads[tid as usize].task = TaskState::Interruptible;
        self.block(tid, kind);
    }

    pub(in crate::sim) fn queue_mut(&mut self, which: QueueRef) -> &mut WaitQueue {
        match which {
            QueueRef::Listen => &mut self.k.listeners[0].wq,
            QueueRef::Sem(i) => &mut self.k.sem_q[i as usize],
            QueueRef::Futex(w) => &mut self.k.futex_q[w as usize],
            QueueRef::Mutex(m) => &mut self.k.mutex_q[m as usize],
            QueueRef::Cond(c) => &mut self.k.cond_q[c as usize],
        }
    }

    // ----- a thread's step -----

    pub(in crate::sim) fn step_thread(&mut self, tid: u16) -> StepRecord {
        let cpu = self.threads[tid as usize].cpu;
        let start = self.cpus[cpu as usize].clock;
        let line = self.threads[tid as usize].line();
        self.threads[tid as usize].metrics.steps += 1;
        #[cfg(feature = "wake-ipi")]
        {
            self.idle_wakes = 0;
        }
        let note = match self.threads[tid as usize].kpath {
            KPath::Accept(phase, conn) => self.step_accept(tid, cpu, phase, conn),
            KPath::CondRelock(m) => self.step_relock(tid, cpu, m),
            KPath::None => {
                let op = self.threads[tid as usize].machine.next_op();
                self.step_op(tid, cpu, op)
            }
        };
        #[cfg(feature = "wake-ipi")]
        self.charge_wake_ipis(tid, cpu);
        if self.threads[tid as usize].sched == Sched::OnCpu {
            self.maybe_preempt(cpu);
        }
        StepRecord {
            step: 0,
            actor: Actor::Thread(tid),
            line,
            time_ns: start,
            cpu: Some(cpu),
            note,
        }
    }

    /// The IPIs of the wakes onto idle CPUs that `tid`'s step just made, `wake_ipi_ns` each,
    /// paid by `tid` inside its call (when it is still on `cpu`: a step that woke others and
    /// then slept pays nothing more).
    #[cfg(feature = "wake-ipi")]
    fn charge_wake_ipis(&mut self, tid: u16, cpu: u8) {
        let n = std::mem::take(&mut self.idle_wakes);
        if n == 0 || self.cost.wake_ipi_ns == 0 {
            return;
        }
        if self.threads[tid as usize].sched != Sched::OnCpu
            || self.cpus[cpu as usize].current != Some(tid)
        {
            return;
        }
        let c = self.jittered(self.cost.wake_ipi_ns * u64::from(n));
        self.charge(cpu, c);
    }

    pub(in crate::sim) fn complete(&mut self, tid: u16, r: OpResult) {
        self.threads[tid as usize].machine.complete(r);
    }

    /// Count `op` in `syscalls` as it sleeps, when it is a system call only then
    /// ([`Syscall::WhenItSleeps`]); the one place besides the issue of an operation where the count
    /// moves.
    fn count_sleeping_syscall(&mut self, op: Op) {
        if op.syscall() == Syscall::WhenItSleeps {
            self.metrics.syscalls += 1;
        }
    }

    fn step_op(&mut self, tid: u16, cpu: u8, op: Op) -> Note {
        let resumed = std::mem::take(&mut self.threads[tid as usize].resumed);
        if op.syscall() == Syscall::Always && !resumed {
            self.metrics.syscalls += 1;
        }
        match op {
            Op::AcceptNb(l) => self.step_accept_nb(tid, cpu, l.0),
            Op::EpollAdd { ep, fd, interest } => self.step_epoll_add(tid, cpu, ep.0, fd, interest),
            Op::EpollDel { ep, fd } => self.step_epoll_del(tid, cpu, ep.0, fd),
            Op::EpollWait { ep, timeout_ns } => {
                self.step_epoll_wait(tid, cpu, ep.0, timeout_ns, resumed)
            }
            Op::ReadNext => self.step_read_next(tid, cpu),
            Op::Recv(c) => self.step_recv(tid, cpu, c, resumed),
            Op::Respond(c) => self.step_respond(tid, cpu, c),
            Op::Load(_) | Op::Store(..) | Op::Cas { .. } | Op::FetchAdd(..) | Op::Swap(..) => {
                self.step_mem(tid, cpu, op)
            }
            Op::SemWait(sem) => self.step_sem_wait(tid, cpu, sem),
            Op::SemPost(sem) => self.step_sem_post(tid, cpu, sem),
            Op::FutexWait { word, expected } => self.step_futex_wait(tid, cpu, word, expected),
            Op::FutexWake(word, count) => self.step_futex_wake(tid, cpu, word, count),
            Op::MutexLock(m) => self.step_mutex_lock(tid, cpu, m),
            Op::MutexUnlock(m) => self.step_mutex_unlock(tid, cpu, m),
            Op::CondWait(cv, m) => self.step_cond_wait(tid, cpu, cv, m),
            Op::CondNotify(cv, count) => self.step_cond_notify(tid, cpu, cv, count),
            Op::Accept(_) => {
                self.threads[tid as usize].kpath = KPath::Accept(AcceptPhase::Fast, 0);
                let phase = AcceptPhase::Fast;
                self.step_accept(tid, cpu, phase, 0)
            }
            Op::Work(ns) => {
                self.charge(cpu, ns);
                if self.threads[tid as usize].machine.serves_measured_event() {
                    let end = self.cpus[cpu as usize].clock;
                    let lat = end.saturating_sub(self.event_arrival_ns);
                    self.event_latency.record(lat);
                }
                self.metrics.work_time_ns += ns;
                self.metrics.work_items += 1;
                let network = self.network;
                let t = &mut self.threads[tid as usize];
                t.woken_since_work = false;
                t.empty_handed = false;
                if !network && t.role == Role::Worker {
                    // jobs that arrive through memory words are counted when handled
                    t.metrics.accepted += 1;
                    self.metrics.connections_accepted += 1;
                }
                self.complete(tid, OpResult::Done);
                Note::Worked { ns }
            }
            Op::AwaitEvent => {
                let c = self.jittered(self.cost.plain_ns);
                self.charge(cpu, c);
                let now = self.cpus[cpu as usize].clock;
                match self.event_due() {
                    Some(t) if t <= now && self.arrivals.remaining() == 0 => {
                        self.complete(tid, OpResult::Closed);
                        Note::NoMoreEvents
                    }
                    Some(t) if t <= now => {
                        self.arrivals.take(now);
                        self.event_arrival_ns = t;
                        self.metrics.connections_arrived += 1;
                        self.complete(tid, OpResult::Done);
                        Note::EventDelivered
                    }
                    _ => {
                        self.block(tid, SleepKind::Event);
                        Note::EventWait
                    }
                }
            }
            Op::Sleep(ns) => self.step_sleep(tid, cpu, ns),
            Op::Pause => {
                let c = self.jittered(self.cost.pause_ns);
                self.charge(cpu, c);
                self.metrics.spins += 1;
                self.complete(tid, OpResult::Done);
                Note::Other
            }
            Op::Yield => {
                self.metrics.yields += 1;
                let c = self.jittered(self.cost.yield_ns);
                self.charge(cpu, c);
                self.complete(tid, OpResult::Done);
                if !self.cpus[cpu as usize].runq.is_empty() {
                    self.enqueue_back(cpu, tid);
                    self.threads[tid as usize].sched = Sched::Queued;
                    self.leave_cpu(cpu);
                }
                Note::Other
            }
            Op::Now => {
                let c = self.jittered(self.cost.plain_ns);
                self.charge(cpu, c);
                let now = self.cpus[cpu as usize].clock;
                self.complete(tid, OpResult::Time(now));
                Note::Other
            }
            Op::Exit => {
                let t = &mut self.threads[tid as usize];
                t.sched = Sched::Done;
                if t.role == Role::Worker {
                    // an exited worker no longer counts for idleness
                    self.workers -= 1;
                    if self.asleep_workers == self.workers {
                        self.idle_since = Some(self.cpus[cpu as usize].clock);
                    }
                }
                self.cpus[cpu as usize].current = None;
                if let Some(next) = self.pop_next(cpu) {
                    self.cpus[cpu as usize].current = Some(next);
                    self.threads[next as usize].sched = Sched::OnCpu;
                    let cs = self.cost.context_switch_ns;
                    self.charge(cpu, cs);
                    self.metrics.context_switches += 1;
                }
                self.sync_cpu(cpu as usize);
                Note::Exited
            }
        }
    }
}

/// A kernel wait queue, by what it belongs to.
#[derive(Clone, Copy)]
pub(in crate::sim) enum QueueRef {
    Listen,
    Sem(u8),
    Futex(u16),
    Mutex(u8),
    Cond(u8),
}
