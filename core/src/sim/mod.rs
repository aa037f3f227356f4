//! The simulated platform: a deterministic, seeded machine with CPUs, an OS scheduler and a kernel
//! model, that runs a mechanism's [`Machine`]s one atomic step at a time and counts everything.
//!
//! # The machine
//! - **CPUs.** Each CPU has a clock (simulated nanoseconds), the thread it is running, and a run
//!   queue (FIFO, keyed by CPU time, or EEVDF's: `sched.rs`, `eevdf.rs`). A step of a thread advances its CPU's clock by the step's cost ([`CostModel`]).
//! - **Threads.** A thread is in one of the states of [`Sched`]: `OnCpu` (running), `Queued`
//!   (runnable, waiting in a run queue), `Asleep` or `Done`; separately its task state is `Running` or
//!   `Interruptible` (Linux's `TASK_INTERRUPTIBLE`, set by `prepare_to_wait` before the thread actually
//!   gives up its CPU).
//! - **Scheduler** (kept simple on purpose): a woken thread goes to its previous CPU if that CPU is
//!   idle, else to the first idle CPU (after `cross_cpu_wake_ns`), else to its previous CPU's run queue.
//!   With [`SchedPolicy::Fifo`] (the herd and the locks) there is no wakeup preemption and run queues
//!   are FIFO: a queued thread runs when the running one sleeps or has used its time slice
//!   (`time_slice_ns`) while others wait. With [`SchedPolicy::Fair`] (the accept strategies) a CPU
//!   picks the queued thread that has used the least CPU time, and a woken thread preempts the
//!   running one when it has used at least the wakeup granularity less (CFS's
//!   `check_preempt_wakeup`: 1 ms × (1 + log2 CPUs), at most 8 CPUs counted); that is what spreads a
//!   herd's wins over the workers on a real kernel. With [`SchedPolicy::Eevdf`] (mysql's
//!   `sched=eevdf`, and `bench mysql --compare-sim` on Linux 6.6 or later) the CPU runs Linux's
//!   EEVDF: the eligible thread with the earliest virtual deadline, a woken thread placed by the
//!   lag it slept with, delayed dequeue (`eevdf.rs`). A context switch costs `context_switch_ns`.
//! - **Kernel model.** Words of memory, a futex queue per word, sleeping mutexes, condition variables,
//!   one listening socket with its accept queue and its wait queue ([`WaitQueue`]), and the arrival
//!   stream ([`arrivals::Arrivals`]) whose connections the *network* actor delivers, and a timer per
//!   thread in a timed sleep ([`crate::op::Op::Sleep`], `kernel/timer.rs`). For the accept
//!   strategies, the event-driven network ([`net`]): several listeners (`SO_REUSEPORT`), epoll
//!   instances, connections and the clients that send requests on them; the network actor then also
//!   delivers the clients' requests and closes, and the `epoll_wait` timeouts.
//!
//! # Choosing the next step
//! [`Simulation::step`] runs the actor whose next action is earliest in simulated time: each CPU's
//! running thread at its CPU's clock, a sleeping thread's timer at its deadline (the firing is a
//! step of that thread: it becomes runnable), the network at its next arrival. Ties go to the
//! timer, then the lowest CPU, then the network. [`Simulation::step_actor`] lets the learner choose instead: any running or runnable
//! thread (a runnable one is switched onto its CPU first, which costs a context switch), a thread
//! in a timed sleep (its timer fires now), or the network (forcing the next arrival now). The result is deterministic for a given scenario and seed.
//!
//! # Invariants checked on every step
//! - **No lost wakeup** (accept path): never is a connection waiting in the accept queue while every
//!   worker sleeps. A violation is counted in `lost_wakeups` and remembered with its step.
//! - **Conservation:** every arrived connection is taken by exactly one worker (`connections_accepted`
//!   never exceeds `connections_arrived`; a connection id is handed out once).
//! - In the event-driven network a connection waiting while every worker sleeps is only a lost
//!   wakeup when nothing else is pending either (no client action, no timer): a sleeping worker may
//!   legitimately be about to wake for its own connection or its timeout.
//!
//! The simulation keeps no global state: any number of them can run side by side.
//!
//! # Files, one per role
//! | file | role |
//! |---|---|
//! | `mod.rs` | [`Simulation`], [`WorldSpec`], the step loop (choosing the actor, stepping it, the trace, the status), read access |
//! | `record.rs` | what a step did: [`StepRecord`], [`Note`], [`Actor`], [`StepError`], [`Status`], the trace hash |
//! | `thread.rs` | one thread: [`SimThread`], [`Sched`], [`TaskState`], [`SleepKind`], [`Role`] |
//! | `sched.rs` | CPUs ([`Cpu`]), the tree of their clocks that names the next CPU to step, run queues and the three policies ([`SchedPolicy`]), wakeups, blocking, preemption |
//! | `eevdf.rs` | [`SchedPolicy::Eevdf`]: virtual runtime, lag, deadlines, delayed dequeue; the run queue and the wake, block, pick and tick paths |
//! | `kernel/mod.rs` | the kernel's state, wait-queue plumbing (`try_to_wake_up`, walks), the dispatch of a thread's step |
//! | `kernel/mem.rs` | words of memory: [`Words`], the one semantics of the memory operations, and [`BusyTime`] |
//! | `kernel/{futex,sem,mutex}.rs` | futexes, semaphores, sleeping mutexes and condition variables |
//! | `kernel/accept.rs` | the blocking accept path ([`accept`]) and the plain network actor |
//! | `kernel/timer.rs` | timed sleeps ([`crate::op::Op::Sleep`]): the timer, its firing |
//! | `kernel/net.rs` | the event-driven network ([`net`]): listeners, epoll, connections, clients |
//! | `invariants.rs` | the checks run after every step |
//! | `arrivals.rs`, `stepper.rs` | the arrival stream; stepping back |
//!
//! Nothing here names a mechanism: a mechanism brings its [`Machine`]s, a [`WorldSpec`] and its
//! invariants; the simulator knows it only through [`Machine`].

pub mod arrivals;
#[cfg(feature = "eevdf")]
mod eevdf;
mod invariants;
pub mod kernel;
mod record;
mod sched;
pub mod stepper;
mod thread;

pub use kernel::mem::{Access, BusyTime, Coherence, Words};
pub use kernel::mutex::MutexSpin;
pub use kernel::{accept, net};
pub use record::{Actor, Note, Status, StepError, StepRecord};
pub use sched::{wakeup_granularity_ns, Cpu, SchedPolicy};
pub use thread::{Role, Sched, SimThread, SleepKind, TaskState};

use std::collections::VecDeque;

use crate::cost::CostModel;
use crate::histogram::LogHistogram;
use crate::machine::Machine;
use crate::metrics::{Metrics, ThreadMetrics};
use crate::op::Word;
use crate::rng::Rng;
use crate::waitqueue::{WaitQueue, WalkEnd, WalkVisit};
use accept::AcceptModel;
use arrivals::Arrivals;
use kernel::Kernel;
use sched::{RunAt, RunQueue};
use thread::KPath;

/// The shape of the simulated world a mechanism needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WorldSpec {
    /// Words of shared memory (also futex words).
    pub words: u16,
    /// Sleeping mutexes.
    pub mutexes: u8,
    /// Condition variables.
    pub condvars: u8,
    /// Counting semaphores (all start at 0, as `sem_init(&sem, 1, 0)`).
    pub sems: u8,
    /// Whether the network actor delivers connections to the listening socket.
    pub network: bool,
    /// How the modelled accept path waits.
    pub accept: AcceptModel,
    /// Number of CPUs (at least 1).
    pub cpus: u8,
    /// The cost model.
    pub cost: CostModel,
    /// The arrival stream.
    pub arrivals: Arrivals,
    /// The scenario's seed (for the cost jitter).
    pub seed: u64,
    /// The event-driven network (epoll instances, several listeners, clients that send requests),
    /// for the accept strategies; `None` for every other mechanism.
    pub net: Option<net::NetSpec>,
    /// The scheduler's policy.
    pub sched: SchedPolicy,
}
/// A running simulation of one mechanism.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Simulation<M> {
    threads: Vec<SimThread<M>>,
    cpus: Vec<Cpu>,
    /// Per CPU: its clock while it runs a thread, `u64::MAX` while idle (kept in step with `cpus` by
    /// [`Simulation::sync_cpu`] and `charge`), in a tree whose root is the next CPU to step.
    run_at: RunAt,
    k: Kernel,
    network: bool,
    accept: AcceptModel,
    cost: CostModel,
    jitter: Rng,
    arrivals: Arrivals,
    total_events: u32,
    next_conn: u32,
    workers: u16,
    asleep_workers: u16,
    /// The producer asleep in `AwaitEvent`, if any.
    event_sleeper: Option<u16>,
    idle_since: Option<u64>,
    lost_episode: bool,
    first_violation: Option<(u64, u32)>,
    metrics: Metrics,
    status: Status,
    last: Option<StepRecord>,
    last_walk: Vec<WalkVisit>,
    last_walk_budget: u32,
    last_walk_end: Option<WalkEnd>,
    last_walk_listener: u8,
    /// A reused, empty buffer for the visits of walks that are not recorded.
    scratch_walk: Vec<WalkVisit>,
    trace: u64,
    /// Whether steps are mixed into `trace` ([`Simulation::set_trace`]; on unless turned off).
    trace_on: bool,
    net: Option<Box<net::Net>>,
    accept_latency: LogHistogram,
    /// When the event the producer's latest `AwaitEvent` delivered arrived (its due time).
    event_arrival_ns: u64,
    event_latency: LogHistogram,
    seed: u64,
    /// How long each word has been non-zero (a lock word's hold time).
    busy: BusyTime,
    /// Which CPUs hold each cache line, for `coherence_miss_ns` (`kernel/mem.rs`).
    coherence: Coherence,
    policy: SchedPolicy,
    wakeup_gran_ns: u64,
    /// The first of the CPUs set apart for the load generator's threads, one each
    /// ([`Simulation::threads_on_own_cpus`]), if any: every CPU from it on.
    harness_cpu: Option<u8>,
    /// Threads asleep on a timer ([`crate::op::Op::Sleep`]): 0 skips the search for the earliest.
    timers: u16,
    /// Threads the step being taken woke onto an idle CPU (each costs the stepping thread
    /// `wake_ipi_ns`: `kernel/mod.rs`, `step_thread`).
    #[cfg(feature = "wake-ipi")]
    idle_wakes: u16,
    /// [`SchedPolicy::Eevdf`]: each thread's state outside the run queues (empty otherwise).
    #[cfg(feature = "eevdf")]
    eev: Vec<eevdf::EevThread>,
}
impl<M: Machine> Simulation<M> {
    /// Hash the *logical* state: what the threads and the kernel model hold, leaving out time (CPU
    /// clocks, costs, the jitter generator), CPU placement (a running and a queued thread are both
    /// runnable), connection ids and counters. Two states with the same logical hash behave the
    /// same under every schedule of [`Simulation::step_actor`] calls, which is what the model checker
    /// needs ([`crate::check::SimModel`]). A broken invariant is part of the logical state.
    pub fn hash_logical<H: core::hash::Hasher>(&self, h: &mut H) {
        use core::hash::Hash;
        for t in &self.threads {
            t.machine.hash(h);
            let sched = match t.sched {
                Sched::OnCpu | Sched::Queued => 0u8,
                Sched::Asleep => 1,
                Sched::Done => 2,
            };
            let kpath = match t.kpath {
                KPath::None => (0u8, None),
                KPath::Accept(p, _) => (1, Some(p as u8)),
                KPath::CondRelock(m) => (2, Some(m)),
            };
            (sched, t.task, t.sleep, kpath, t.woken_since_work).hash(h);
            #[cfg(feature = "mutex-spin")]
            t.lock_tries.hash(h);
            #[cfg(feature = "futex-entry")]
            t.futex_entered.hash(h);
            (&t.harvest, t.deadline.is_some(), t.timed_out, t.resumed).hash(h);
            if t.timer.is_some() {
                // a timed sleep: the checker has no time, only that it may end
                true.hash(h);
            }
        }
        if let Some(n) = &self.net {
            for l in &self.k.listeners {
                (&l.wq, l.queue.len()).hash(h);
            }
            n.epolls.hash(h);
            for c in &n.conns {
                (c.listener, c.accepted, c.closed, c.ep, c.reader).hash(h);
                (c.pending, c.eof, c.requests_left).hash(h);
            }
            for e in &n.client {
                (e.1, e.2).hash(h);
            }
            for t in &n.timers {
                t.1.hash(h);
            }
        }
        self.k.mem.hash(h);
        self.k.futex_q.hash(h);
        self.k.mutex_owner.hash(h);
        self.k.mutex_q.hash(h);
        self.k.cond_q.hash(h);
        self.k.sem_count.hash(h);
        self.k.sem_q.hash(h);
        self.k.listeners[0].wq.hash(h);
        self.k.listeners[0].queue.len().hash(h);
        self.arrivals.remaining().hash(h);
        (self.metrics.lost_wakeups > 0).hash(h);
    }
}

impl<M> Simulation<M> {
    /// The same simulation with every thread's machine replaced by `f` of it, everything else
    /// kept as it is. For a caller that runs several machine types through one simulator (the
    /// site's engine wraps each in one enum, so that the simulator is compiled once for all of
    /// them); `f` must keep what the machine does ([`Machine`]'s methods, and `Hash`/`Eq` for the
    /// model checker), or the mapped simulation is a different one. Native code does not use it.
    pub fn map_machines<N>(self, mut f: impl FnMut(M) -> N) -> Simulation<N> {
        let Simulation {
            threads,
            cpus,
            run_at,
            k,
            network,
            accept,
            cost,
            jitter,
            arrivals,
            total_events,
            next_conn,
            workers,
            asleep_workers,
            event_sleeper,
            idle_since,
            lost_episode,
            first_violation,
            metrics,
            status,
            last,
            last_walk,
            last_walk_budget,
            last_walk_end,
            last_walk_listener,
            scratch_walk,
            trace,
            trace_on,
            net,
            accept_latency,
            event_arrival_ns,
            event_latency,
            seed,
            busy,
            coherence,
            policy,
            wakeup_gran_ns,
            harness_cpu,
            timers,
            #[cfg(feature = "wake-ipi")]
            idle_wakes,
            #[cfg(feature = "eevdf")]
            eev,
        } = self;
        Simulation {
            threads: threads.into_iter().map(|t| t.map_machine(&mut f)).collect(),
            cpus,
            run_at,
            k,
            network,
            accept,
            cost,
            jitter,
            arrivals,
            total_events,
            next_conn,
            workers,
            asleep_workers,
            event_sleeper,
            idle_since,
            lost_episode,
            first_violation,
            metrics,
            status,
            last,
            last_walk,
            last_walk_budget,
            last_walk_end,
            last_walk_listener,
            scratch_walk,
            trace,
            trace_on,
            net,
            accept_latency,
            event_arrival_ns,
            event_latency,
            seed,
            busy,
            coherence,
            policy,
            wakeup_gran_ns,
            harness_cpu,
            timers,
            #[cfg(feature = "wake-ipi")]
            idle_wakes,
            #[cfg(feature = "eevdf")]
            eev,
        }
    }
}

impl<M: Machine> Simulation<M> {
    /// Give the producer a CPU of its own, which no other thread uses (call it before the first
    /// step): a load generator that runs beside the simulated machine rather than on its CPUs.
    /// Its wakeups then preempt no simulated thread and take none of their CPU time; what it
    /// costs the machine (its own CPU time, its preemptions) is left out. For a producer that
    /// wakes more often than a real client would (a closed loop drawn by thinning an arrival
    /// stream wakes at every arrival of the stream, most of which send nothing).
    pub fn producer_on_own_cpu(&mut self) {
        if self.harness_cpu.is_some() {
            return;
        }
        self.threads_on_own_cpus(|_, role| role == Role::Producer);
    }

    /// Give every thread that `pick` selects (by index and role) a CPU of its own, which no other
    /// thread uses (call it before the first step): the threads of a load generator that runs
    /// on CPUs set apart from the simulated machine's, as a benchmark pins its clients away from
    /// the server. Their wakeups preempt no other thread and take none of the others' CPU time;
    /// a woken thread of the machine is never placed on them. The CPUs added are the last ones,
    /// after the machine's; a thread already on one keeps it.
    pub fn threads_on_own_cpus(&mut self, pick: impl Fn(usize, Role) -> bool) {
        let first = self.harness_cpu.map_or(self.cpus.len(), usize::from);
        for tid in 0..self.threads.len() {
            if !pick(tid, self.threads[tid].role) || self.threads[tid].cpu as usize >= first {
                continue;
            }
            let h = self.cpus.len();
            self.cpus.push(Cpu {
                current: None,
                runq: RunQueue::new(self.policy),
                clock: 0,
                slice_start: 0,
            });
            let from = self.threads[tid].cpu as usize;
            match self.threads[tid].sched {
                Sched::OnCpu => {
                    let c = &mut self.cpus[from];
                    c.current = None;
                    if let Some(next) = c.runq.pop_next() {
                        c.current = Some(next);
                        self.threads[next as usize].sched = Sched::OnCpu;
                    }
                }
                Sched::Queued => self.cpus[from].runq.remove(tid as u16),
                Sched::Asleep | Sched::Done => {}
            }
            let t = &mut self.threads[tid];
            t.cpu = h as u8;
            if matches!(t.sched, Sched::OnCpu | Sched::Queued) {
                t.sched = Sched::OnCpu;
                self.cpus[h].current = Some(tid as u16);
            }
        }
        let leaves: Vec<u64> = self
            .cpus
            .iter()
            .map(|c| {
                if c.current.is_some() {
                    c.clock
                } else {
                    u64::MAX
                }
            })
            .collect();
        self.run_at = RunAt::new(&leaves);
        if first < self.cpus.len() {
            self.harness_cpu = Some(first as u8);
        }
    }

    /// A simulation of `threads` (each with its role) in `world`. Every thread starts runnable; they
    /// are spread over the CPUs round robin, the first ones running.
    pub fn new(world: WorldSpec, threads: Vec<(M, Role)>) -> Self {
        let ncpu = world.cpus.max(1) as usize;
        let mut cpus: Vec<Cpu> = (0..ncpu)
            .map(|_| Cpu {
                current: None,
                runq: RunQueue::new(world.sched),
                clock: 0,
                slice_start: 0,
            })
            .collect();
        let mut sim_threads = Vec::with_capacity(threads.len());
        for (i, (machine, role)) in threads.into_iter().enumerate() {
            let cpu = (i % ncpu) as u8;
            let c = &mut cpus[cpu as usize];
            let sched = if c.current.is_none() {
                c.current = Some(i as u16);
                Sched::OnCpu
            } else {
                c.runq.push_back(i as u16, 0);
                Sched::Queued
            };
            sim_threads.push(SimThread {
                machine,
                role,
                sched,
                task: TaskState::Running,
                sleep: SleepKind::None,
                cpu,
                kpath: KPath::None,
                woken_since_work: false,
                empty_handed: false,
                metrics: ThreadMetrics::default(),
                harvest: VecDeque::new(),
                deadline: None,
                timed_out: false,
                resumed: false,
                timer: None,
                #[cfg(feature = "mutex-spin")]
                lock_tries: 0,
                #[cfg(feature = "futex-entry")]
                futex_entered: false,
            });
        }
        let workers = sim_threads
            .iter()
            .filter(|t| t.role == Role::Worker)
            .count() as u16;
        let words = world.words as usize;
        let total_events = world.arrivals.remaining();
        let run_at: Vec<u64> = cpus
            .iter()
            .map(|c| {
                if c.current.is_some() {
                    c.clock
                } else {
                    u64::MAX
                }
            })
            .collect();
        let run_at = RunAt::new(&run_at);
        #[cfg_attr(not(feature = "eevdf"), allow(unused_mut))]
        let mut sim = Simulation {
            threads: sim_threads,
            cpus,
            run_at,
            k: Kernel {
                mem: Words::new(vec![0; words]),
                futex_q: vec![WaitQueue::new(); words],
                mutex_owner: vec![None; world.mutexes as usize],
                mutex_q: vec![WaitQueue::new(); world.mutexes as usize],
                #[cfg(feature = "mutex-spin")]
                mutex_spin: kernel::mutex::MutexSpin::NONE,
                #[cfg(feature = "futex-entry")]
                futex_entry: false,
                cond_q: vec![WaitQueue::new(); world.condvars as usize],
                sem_count: vec![0; world.sems as usize],
                sem_q: vec![WaitQueue::new(); world.sems as usize],
                listeners: vec![
                    net::Listener::default();
                    world.net.map_or(1, |n| n.listeners.max(1) as usize)
                ],
            },
            network: world.network,
            accept: world.accept,
            cost: world.cost,
            jitter: Rng::new(world.seed ^ 0x5EED_C057_0000_0000),
            arrivals: world.arrivals,
            total_events,
            next_conn: 0,
            workers,
            asleep_workers: 0,
            event_sleeper: None,
            idle_since: if workers == 0 { Some(0) } else { None },
            lost_episode: false,
            first_violation: None,
            metrics: Metrics::default(),
            status: Status::Running,
            last: None,
            last_walk: Vec::new(),
            last_walk_budget: 0,
            last_walk_end: None,
            last_walk_listener: 0,
            scratch_walk: Vec::new(),
            trace: record::TRACE_START,
            trace_on: true,
            net: world.net.map(|n| Box::new(net::Net::new(n))),
            accept_latency: LogHistogram::new(),
            event_arrival_ns: 0,
            event_latency: LogHistogram::new(),
            seed: world.seed,
            busy: BusyTime::new(words),
            coherence: Coherence::new(words, world.cost.charges_coherence()),
            // (without core's `eevdf` feature, EEVDF runs as the fair policy)
            policy: match world.sched {
                SchedPolicy::Eevdf if cfg!(not(feature = "eevdf")) => SchedPolicy::Fair,
                p => p,
            },
            wakeup_gran_ns: wakeup_granularity_ns(ncpu as u8),
            harness_cpu: None,
            timers: 0,
            #[cfg(feature = "wake-ipi")]
            idle_wakes: 0,
            #[cfg(feature = "eevdf")]
            eev: Vec::new(),
        };
        #[cfg(feature = "eevdf")]
        if world.sched == SchedPolicy::Eevdf {
            sim.eev_init();
        }
        sim
    }

    // ----- read access -----

    /// The run's counters.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }
    /// Whether the run can go on.
    pub fn status(&self) -> &Status {
        &self.status
    }
    /// The threads.
    pub fn threads(&self) -> &[SimThread<M>] {
        &self.threads
    }
    /// The CPUs.
    pub fn cpus(&self) -> &[Cpu] {
        &self.cpus
    }
    /// The listening socket's wait queue.
    pub fn listen_wait_queue(&self) -> &WaitQueue {
        &self.k.listeners[0].wq
    }
    /// Every listening socket (one, or one per worker with `SO_REUSEPORT`).
    pub fn listeners(&self) -> &[net::Listener] {
        &self.k.listeners
    }
    /// The event-driven network (accept strategies only).
    pub fn net(&self) -> Option<&net::Net> {
        self.net.as_deref()
    }
    /// Time from each connection's arrival to its `accept`.
    pub fn accept_latency(&self) -> &LogHistogram {
        &self.accept_latency
    }
    /// Time from each measured event's arrival (the due time of the event `AwaitEvent` delivered,
    /// however long the producer was busy before it asked) to the end of the `Work` that served it,
    /// for the events [`Machine::serves_measured_event`] marks (the pool's cache hits).
    pub fn event_latency(&self) -> &LogHistogram {
        &self.event_latency
    }
    /// How long word `w` has held a non-zero value so far (for a lock word: how long the lock was
    /// held); 0 for a word this world does not have. Every word is tracked ([`BusyTime`]).
    pub fn word_busy_ns(&self, w: Word) -> u64 {
        self.busy.busy_ns(w, self.metrics.sim_time_ns)
    }
    /// The accept queue's connections, oldest first.
    pub fn accept_queue(&self) -> impl Iterator<Item = u32> + '_ {
        self.k.listeners[0].queue.iter().copied()
    }
    /// Length of the accept queue.
    pub fn accept_queue_len(&self) -> usize {
        self.k.listeners[0].queue.len()
    }
    /// The futex queue of a word.
    pub fn futex_queue(&self, word: Word) -> &WaitQueue {
        &self.k.futex_q[word.0 as usize]
    }
    /// The sleepers of a condition variable.
    pub fn cond_queue(&self, cv: u8) -> &WaitQueue {
        &self.k.cond_q[cv as usize]
    }
    /// The sleepers of a mutex.
    pub fn mutex_queue(&self, m: u8) -> &WaitQueue {
        &self.k.mutex_q[m as usize]
    }
    /// A semaphore's count.
    pub fn sem_count(&self, sem: u8) -> u32 {
        self.k.sem_count[sem as usize]
    }
    /// A semaphore's sleepers.
    pub fn sem_queue(&self, sem: u8) -> &WaitQueue {
        &self.k.sem_q[sem as usize]
    }
    /// How many sleeping mutexes the world has (`0..mutexes()` are [`Simulation::mutex_owner`]'s
    /// arguments).
    pub fn mutexes(&self) -> u8 {
        self.k.mutex_owner.len() as u8
    }
    /// Who holds a mutex.
    pub fn mutex_owner(&self, m: u8) -> Option<u16> {
        self.k.mutex_owner[m as usize]
    }
    /// A word of memory.
    pub fn word(&self, w: Word) -> u32 {
        self.k.mem.load(w)
    }
    /// Whether this world has a network actor (the accept primitive).
    pub fn has_network(&self) -> bool {
        self.network
    }
    /// The accept model in use.
    pub fn accept_model(&self) -> AcceptModel {
        self.accept
    }
    /// Events (connections, jobs) not delivered yet.
    pub fn events_remaining(&self) -> u32 {
        self.arrivals.remaining()
    }
    /// Events in the whole run.
    pub fn events_total(&self) -> u32 {
        self.total_events
    }
    /// The last step taken.
    pub fn last_step(&self) -> Option<&StepRecord> {
        self.last.as_ref()
    }
    /// The visits of the last wake walk (of the last step, if it ran one; empty otherwise).
    pub fn last_walk(&self) -> &[WalkVisit] {
        &self.last_walk
    }
    /// The `nr_exclusive` budget the last wake walk started with (0: no limit).
    pub fn last_walk_budget(&self) -> u32 {
        self.last_walk_budget
    }
    /// The listening socket whose wait queue the last wake walk ran on (0 for every other walk).
    pub fn last_walk_listener(&self) -> u8 {
        self.last_walk_listener
    }
    /// When the network actor acts next with the default scheduler (an arrival, a client's
    /// request or close, or an `epoll_wait` timeout), if it has anything left to do.
    pub fn network_due_ns(&self) -> Option<u64> {
        if self.network {
            self.network_due()
        } else {
            None
        }
    }
    /// Why the last wake walk stopped (`None` when the last step ran no walk).
    pub fn last_walk_end(&self) -> Option<WalkEnd> {
        self.last_walk_end
    }
    /// The first broken invariant: the step and the connection left waiting.
    pub fn first_violation(&self) -> Option<(u64, u32)> {
        self.first_violation
    }
    /// A hash of every step so far (actor, line, time, outcome): equal traces give equal hashes.
    /// Steps taken while the trace was off ([`Simulation::set_trace`]) are not in it.
    pub fn trace_hash(&self) -> u64 {
        self.trace
    }
    /// Turn the trace hash on or off for the steps that follow (on from the start). A caller that
    /// never reads [`Simulation::trace_hash`] (a headless run that reports only the counters,
    /// `herdlab sim`, the site's `#/bench`) turns it off and saves the hashing on every step;
    /// nothing else a step does changes.
    pub fn set_trace(&mut self, on: bool) {
        self.trace_on = on;
    }
    /// The simulated time now.
    pub fn now_ns(&self) -> u64 {
        self.metrics.sim_time_ns
    }

    /// Actors that may step now (for the learner's per-thread buttons).
    pub fn runnable(&self) -> Vec<Actor> {
        let mut v: Vec<Actor> = self
            .threads
            .iter()
            .enumerate()
            .filter(|(_, t)| matches!(t.sched, Sched::OnCpu | Sched::Queued) || t.timer.is_some())
            .map(|(i, _)| Actor::Thread(i as u16))
            .collect();
        if let Some((p, _)) = self.due_producer() {
            v.push(Actor::Thread(p));
        }
        if self.network_can_step() {
            v.push(Actor::Network);
        }
        v
    }

    /// Whether the network actor has something to do: an arrival left, or (event-driven network) a
    /// client action or an `epoll_wait` timeout pending.
    fn network_can_step(&self) -> bool {
        if !self.network {
            return false;
        }
        self.arrivals.remaining() > 0 || self.net_event_due().is_some()
    }

    /// The event-driven network has delivered and closed everything: timers no longer count.
    fn net_drained(&self) -> bool {
        match &self.net {
            Some(n) => {
                self.arrivals.remaining() == 0
                    && n.client.is_empty()
                    && n.open_conns() == 0
                    && self.k.listeners.iter().all(|l| l.queue.is_empty())
            }
            None => true,
        }
    }

    /// The next client action or timer of the event-driven network.
    #[inline(never)]
    fn net_event_due(&self) -> Option<u64> {
        let n = self.net.as_ref()?;
        if self.net_drained() {
            return None;
        }
        n.next_event()
    }

    /// When the network actor's next action is due.
    fn network_due(&self) -> Option<u64> {
        self.network_due_inline()
    }

    /// [`Self::network_due`], inlined into [`Self::next_actor`], which asks on every step: in the
    /// site's wasm (built for size but for core and the engine, `Cargo.toml`'s `release-wasm`)
    /// the call stayed out of line, and the `Option` it returns went through memory; natively
    /// the compiler inlined it anyway. The page's `#/bench` is ~4% faster for it.
    #[inline(always)]
    fn network_due_inline(&self) -> Option<u64> {
        let a = self.arrivals.due(self.idle_since);
        // the event-driven network's part out of line (only the worlds with one ask it)
        let n = if self.net.is_some() {
            self.net_event_due()
        } else {
            None
        };
        match (a, n) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }

    /// Whether `actor` may step now.
    pub fn can_step(&self, actor: Actor) -> bool {
        match actor {
            Actor::Thread(i) => {
                self.threads.get(i as usize).is_some_and(|t| {
                    matches!(t.sched, Sched::OnCpu | Sched::Queued) || t.timer.is_some()
                }) || self.due_producer().is_some_and(|(p, _)| p == i)
            }
            Actor::Network => self.network_can_step(),
        }
    }

    /// The producer asleep waiting for an event that is now due, with the due time.
    fn due_producer(&self) -> Option<(u16, u64)> {
        let p = self.event_sleeper?;
        self.event_due().map(|t| (p, t))
    }

    /// When the producer's next `AwaitEvent` completes: the next arrival while events remain, then
    /// (to report the end) once every worker sleeps, so that the end never cuts a wakeup short.
    fn event_due(&self) -> Option<u64> {
        if self.arrivals.remaining() > 0 {
            self.arrivals.due(self.idle_since)
        } else {
            self.idle_since.map(|t| t + arrivals::THINK_NS)
        }
    }

    /// The actor the default scheduler runs next; `None` when nothing can run.
    pub fn next_actor(&self) -> Option<Actor> {
        self.debug_check_run_at();
        #[cfg(all(debug_assertions, feature = "eevdf"))]
        self.eev_check();
        let mut best: Option<(u64, Actor)> =
            self.due_producer().map(|(p, t)| (t, Actor::Thread(p)));
        // a timer that fires before every running CPU's clock (ties: the timer)
        if let Some((t, tid)) = self.earliest_timer() {
            if best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, Actor::Thread(tid)));
            }
        }
        // the running CPU with the earliest clock (ties: the lowest), unless the producer is due
        // no later
        if let Some((ct, ci)) = self.run_at.earliest() {
            if best.is_none_or(|(bt, _)| ct < bt) {
                if let Some(t) = self.cpus[ci].current {
                    best = Some((ct, Actor::Thread(t)));
                }
            }
        }
        if self.network {
            if let Some(t) = self.network_due_inline() {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, Actor::Network));
                }
            }
        }
        best.map(|(_, a)| a)
    }

    /// Take one step with the default scheduler. `None` when nothing can run (see [`Self::status`]).
    pub fn step(&mut self) -> Option<StepRecord> {
        match self.next_actor() {
            Some(a) => self.step_actor(a).ok(),
            None => {
                self.settle_status();
                None
            }
        }
    }

    /// Run up to `max_steps` steps with the default scheduler; returns the number taken.
    pub fn run(&mut self, max_steps: u64) -> u64 {
        let mut n = 0;
        while n < max_steps && self.step().is_some() {
            n += 1;
        }
        n
    }

    /// Take one step of the chosen actor.
    pub fn step_actor(&mut self, actor: Actor) -> Result<StepRecord, StepError> {
        self.last_walk.clear();
        self.last_walk_end = None;
        let rec = match actor {
            Actor::Network => {
                if !self.network_can_step() {
                    return Err(StepError::NoArrival);
                }
                if self.net.is_some() {
                    self.step_net()
                } else {
                    self.step_network()
                }
            }
            Actor::Thread(i) => {
                let t = self
                    .threads
                    .get(i as usize)
                    .ok_or(StepError::NoSuchThread)?;
                match t.sched {
                    Sched::OnCpu => {}
                    Sched::Queued => self.switch_in(i),
                    // its timed sleep ends (now, when the learner or the checker chose it early)
                    Sched::Asleep if t.timer.is_some() => {
                        let rec = self.end_sleep(i);
                        return Ok(self.finish_step(rec));
                    }
                    Sched::Asleep => match self.due_producer() {
                        // the producer's timer fires: it wakes and takes its step at once
                        Some((p, at)) if p == i => {
                            self.threads[i as usize].task = TaskState::Running;
                            self.wake_thread(i, at, false);
                            if self.threads[i as usize].sched == Sched::Queued {
                                self.switch_in(i);
                            }
                        }
                        _ => return Err(StepError::NotRunnable),
                    },
                    Sched::Done => return Err(StepError::NotRunnable),
                }
                self.step_thread(i)
            }
        };
        Ok(self.finish_step(rec))
    }

    /// After a step: the tree of clocks, the count, the trace, the invariants and the status.
    #[inline]
    fn finish_step(&mut self, mut rec: StepRecord) -> StepRecord {
        self.run_at.flush();
        self.metrics.steps += 1;
        rec.step = self.metrics.steps;
        if self.trace_on {
            self.trace = record::mix_trace(self.trace, &rec);
        }
        self.check_invariants();
        self.last = Some(rec);
        self.settle_status();
        rec
    }

    /// Bring `status` up to date after a step (or a refused one). Inline, so that the common
    /// case (a CPU runs a thread, and the status says `Running` already) costs two loads and
    /// two compares; everything else is out of line ([`Self::settle_status_slow`]).
    #[inline(always)]
    fn settle_status(&mut self) {
        if self.run_at.earliest().is_some() && self.status == Status::Running {
            return;
        }
        self.settle_status_slow();
    }

    /// `settle_status` past its common case.
    #[inline(never)]
    fn settle_status_slow(&mut self) {
        let any_cpu = self.run_at.earliest().is_some();
        let can_run = any_cpu
            || self.timers > 0
            || self.due_producer().is_some()
            || (self.network && self.network_due().is_some());
        if can_run {
            if self.status != Status::Running {
                self.status = Status::Running;
            }
            return;
        }
        self.settle_stopped();
    }

    /// `settle_status` when no actor can run: finished, or stuck, and why.
    #[cold]
    #[inline(never)]
    fn settle_stopped(&mut self) {
        let handled = self.metrics.connections_accepted;
        let all_done = self.threads.iter().all(|t| t.sched == Sched::Done);
        let served = self.network
            && self.arrivals.remaining() == 0
            && handled >= self.total_events as u64
            && self.net_drained();
        if all_done || served {
            self.status = Status::Finished;
        } else if !self.network && self.total_events == 0 {
            let sleepers: Vec<String> = self
                .threads
                .iter()
                .enumerate()
                .filter(|(_, t)| t.sched == Sched::Asleep)
                .map(|(i, _)| i.to_string())
                .collect();
            self.status = Status::Stuck(format!(
                "every unfinished thread sleeps (threads {}) and nothing can wake them",
                sleepers.join(", ")
            ));
        } else if let Some(c) = self
            .k
            .listeners
            .iter()
            .find_map(|l| l.queue.front().copied())
        {
            self.status = Status::Stuck(format!(
                "lost wakeup: connection {c} waits in the accept queue while every worker sleeps"
            ));
        } else {
            self.status = Status::Stuck(format!(
                "every thread sleeps with {} of {} events handled",
                handled, self.total_events
            ));
        }
    }

    // ----- costs and time -----

    fn jittered(&mut self, ns: u64) -> u64 {
        let j = self.cost.jitter_pct as u64;
        if j == 0 || ns == 0 {
            return ns;
        }
        let pct = 100 - j.min(99) + self.jitter.below(2 * j.min(99) + 1);
        (ns * pct / 100).max(1)
    }

    /// The earliest clock of a CPU that runs a thread (`None`: every CPU is idle).
    pub(in crate::sim) fn present_ns(&self) -> Option<u64> {
        self.run_at.earliest().map(|(t, _)| t)
    }

    /// Bring `run_at` up to date after `cpu`'s clock or current thread changed.
    #[inline]
    pub(in crate::sim) fn sync_cpu(&mut self, cpu: usize) {
        let c = &self.cpus[cpu];
        let t = if c.current.is_some() {
            c.clock
        } else {
            u64::MAX
        };
        self.run_at.set(cpu, t);
    }

    /// In debug builds (every test): `run_at` says what `cpus` say.
    fn debug_check_run_at(&self) {
        debug_assert!(
            self.cpus.iter().enumerate().all(|(i, c)| self.run_at.get(i)
                == if c.current.is_some() {
                    c.clock
                } else {
                    u64::MAX
                }),
            "run_at out of step with the CPUs"
        );
    }

    #[inline(always)]
    fn charge(&mut self, cpu: u8, ns: u64) {
        let c = &mut self.cpus[cpu as usize];
        if let Some(t) = c.current {
            self.threads[t as usize].metrics.busy_ns += ns;
            self.run_at.set(cpu as usize, c.clock + ns);
        }
        c.clock += ns;
        self.metrics.cpu_time_ns += ns;
        if c.clock > self.metrics.sim_time_ns {
            self.metrics.sim_time_ns = c.clock;
        }
    }
}
