//! The simulated platform: a deterministic, seeded machine with CPUs, an OS scheduler and a kernel
//! model, that runs a mechanism's [`Machine`]s one atomic step at a time and counts everything.
//!
//! # The machine
//! - **CPUs.** Each CPU has a clock (simulated nanoseconds), the thread it is running, and a FIFO run
//!   queue. A step of a thread advances its CPU's clock by the step's cost ([`CostModel`]).
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
//!   herd's wins over the workers on a real kernel. A context switch costs `context_switch_ns`.
//! - **Kernel model.** Words of memory, a futex queue per word, sleeping mutexes, condition variables,
//!   one listening socket with its accept queue and its wait queue ([`WaitQueue`]), and the arrival
//!   stream ([`arrivals::Arrivals`]) whose connections the *network* actor delivers. For the accept
//!   strategies, the event-driven network ([`net`]): several listeners (`SO_REUSEPORT`), epoll
//!   instances, connections and the clients that send requests on them; the network actor then also
//!   delivers the clients' requests and closes, and the `epoll_wait` timeouts.
//!
//! # Choosing the next step
//! [`Simulation::step`] runs the actor whose next action is earliest in simulated time: each CPU's
//! running thread at its CPU's clock, the network at its next arrival. Ties go to the lowest CPU, then
//! the network. [`Simulation::step_actor`] lets the learner choose instead: any running or runnable
//! thread (a runnable one is switched onto its CPU first, which costs a context switch), or the network
//! (forcing the next arrival now). The result is deterministic for a given scenario and seed.
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

pub mod accept;
pub mod arrivals;
pub mod net;
pub mod stepper;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::cost::CostModel;
use crate::histogram::LogHistogram;
use crate::machine::Machine;
use crate::metrics::{Metrics, ThreadMetrics};
use crate::op::{Op, OpResult, WakeCount, Word};
use crate::rng::Rng;
use crate::waitqueue::{WaitQueue, WalkEnd, WalkVisit};
use accept::{AcceptModel, AcceptPhase, SleeperOrder};
use arrivals::Arrivals;

/// Who takes a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Actor {
    /// A thread, by index.
    Thread(u16),
    /// The network: delivers the next connection and runs the socket's wake walk.
    Network,
}

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

/// Whether the run can go on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// Some actor can still step.
    Running,
    /// Every event was delivered and handled, and no actor can step.
    Finished,
    /// No actor can step but work is left: the message says what is stuck.
    Stuck(String),
}

/// What one step did, for announcements and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Note {
    /// A connection arrived; the wake walk woke `woken` sleepers (see [`Simulation::last_walk`]).
    Arrived {
        /// The connection's id.
        conn: u32,
        /// Sleepers the walk woke.
        woken: u16,
    },
    /// The accept fast path took a queued connection.
    FastPathTook {
        /// The connection's id.
        conn: u32,
    },
    /// The accept fast path found the queue empty.
    FastPathEmpty,
    /// The broken sleeper tested the queue before queueing itself.
    TestedFirst {
        /// Whether it found the queue empty.
        empty: bool,
    },
    /// `prepare_to_wait`: the entry was queued (or was already there) and the state set.
    Enqueued {
        /// Whether the entry is exclusive.
        exclusive: bool,
        /// False when the entry was already queued.
        added: bool,
    },
    /// The thread went to sleep.
    Slept {
        /// The sleep ends a wakeup that found nothing.
        wasted: bool,
    },
    /// `schedule()` returned at once: the thread was woken before it slept, or the queue was not
    /// empty.
    DidNotSleep,
    /// Took a connection under `lock_sock`.
    Took {
        /// The connection's id.
        conn: u32,
    },
    /// Found the accept queue empty after waking: back to the top of the loop.
    FoundEmpty,
    /// `finish_wait`.
    FinishedWait,
    /// Did useful work.
    Worked {
        /// Nanoseconds of work.
        ns: u64,
    },
    /// A plain or atomic memory operation.
    Memory {
        /// The word.
        word: Word,
        /// The value read (or the old value).
        value: u32,
        /// For a CAS: whether it succeeded; true for every other operation.
        ok: bool,
    },
    /// A futex wait slept.
    FutexSlept,
    /// A futex wait returned `EAGAIN` at once.
    FutexMismatch,
    /// A futex or condition-variable wake woke this many.
    Woke {
        /// Sleepers woken.
        woken: u16,
    },
    /// Took a mutex.
    LockTaken,
    /// Slept on a contended mutex.
    LockSlept,
    /// Released a mutex.
    Unlocked,
    /// Released the mutex and slept on the condition variable.
    CondSlept,
    /// Took the mutex back after a condition-variable wakeup.
    Relocked,
    /// `sem_wait` took a unit.
    SemTook,
    /// `sem_wait` slept.
    SemSlept,
    /// The producer received the next event.
    EventDelivered,
    /// The producer waits for the next event.
    EventWait,
    /// No events are left.
    NoMoreEvents,
    /// A `pause`, `yield` or clock read.
    Other,
    /// The thread exited.
    Exited,
    /// `epoll_ctl(ADD)`; `ready_now` when the descriptor was already readable (queued at once).
    EpollAdded {
        /// The epoll instance.
        ep: u8,
        /// The descriptor was readable at registration.
        ready_now: bool,
    },
    /// `epoll_ctl(DEL)`.
    EpollRemoved {
        /// The epoll instance.
        ep: u8,
    },
    /// `epoll_wait` returned events.
    EpollReturned {
        /// The listening socket was among them.
        listener: bool,
        /// Readable connections among them.
        conns: u16,
    },
    /// `epoll_wait` found nothing and slept.
    EpollSlept {
        /// The sleep ends a wakeup that found nothing (the re-poll found the socket drained).
        wasted: bool,
    },
    /// `epoll_wait` returned 0: its timeout expired.
    EpollTimedOut,
    /// `accept4` took a connection.
    AcceptedNb {
        /// The connection's id.
        conn: u32,
    },
    /// `accept4` returned `EAGAIN`.
    AcceptAgain,
    /// A request was read.
    ReadRequest {
        /// The connection.
        conn: u32,
    },
    /// The client had closed: EOF, and the connection is closed.
    ReadEof {
        /// The connection.
        conn: u32,
    },
    /// A read found nothing.
    ReadNothing,
    /// A blocking read slept.
    RecvSlept,
    /// The response was written.
    Responded {
        /// The connection.
        conn: u32,
    },
    /// A client sent a request; the connection's readiness woke `woken` threads.
    ClientSent {
        /// The connection.
        conn: u32,
        /// Threads woken.
        woken: u16,
    },
    /// A client closed its connection.
    ClientClosed {
        /// The connection.
        conn: u32,
        /// Threads woken.
        woken: u16,
    },
    /// A thread's `epoll_wait` timeout expired and woke it.
    TimerFired {
        /// The thread.
        thread: u16,
    },
}

/// One executed step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step's number, from 1.
    pub step: u64,
    /// Who stepped.
    pub actor: Actor,
    /// The pseudocode line the step executed (0 for the network).
    pub line: u16,
    /// Simulated time when the step started.
    pub time_ns: u64,
    /// The CPU it ran on (none for the network).
    pub cpu: Option<u8>,
    /// What happened.
    pub note: Note,
}

/// Why a step could not be taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepError {
    /// The thread index does not exist.
    NoSuchThread,
    /// The thread is asleep or done.
    NotRunnable,
    /// The network has nothing left to deliver (or this mechanism has no network).
    NoArrival,
    /// No actor can step.
    Stalled,
}

impl core::fmt::Display for StepError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            StepError::NoSuchThread => "no such thread",
            StepError::NotRunnable => "that thread is asleep or done",
            StepError::NoArrival => "no connection is left to send",
            StepError::Stalled => "nothing can run",
        })
    }
}

/// The multi-step kernel path a thread is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum KPath {
    None,
    Accept(AcceptPhase, u32),
    CondRelock(u8),
}

/// One thread of the simulation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SimThread<M> {
    machine: M,
    role: Role,
    sched: Sched,
    task: TaskState,
    sleep: SleepKind,
    cpu: u8,
    kpath: KPath,
    woken_since_work: bool,
    empty_handed: bool,
    metrics: ThreadMetrics,
    /// Connections its last `epoll_wait` reported and it has not read yet.
    harvest: VecDeque<u32>,
    /// Its `epoll_wait` timeout, while it waits with one.
    deadline: Option<u64>,
    /// The timeout expired while it slept.
    timed_out: bool,
    /// It was woken inside a blocking call that it now resumes (not a new system call).
    resumed: bool,
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
    /// Whether it is inside the modelled kernel's accept path, and where.
    pub fn accept_phase(&self) -> Option<AcceptPhase> {
        match self.kpath {
            KPath::Accept(p, _) => Some(p),
            _ => None,
        }
    }
}

/// One simulated CPU.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cpu {
    current: Option<u16>,
    runq: VecDeque<u16>,
    clock: u64,
    slice_start: u64,
}

impl Cpu {
    /// The thread it runs.
    pub fn current(&self) -> Option<u16> {
        self.current
    }
    /// Its run queue, front first.
    pub fn run_queue(&self) -> impl Iterator<Item = u16> + '_ {
        self.runq.iter().copied()
    }
    /// Its clock.
    pub fn clock_ns(&self) -> u64 {
        self.clock
    }
}

/// How a CPU chooses among runnable threads (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SchedPolicy {
    /// FIFO run queues, no wakeup preemption.
    #[default]
    Fifo,
    /// Least CPU time first, with CFS-style wakeup preemption.
    Fair,
}

/// CFS's wakeup granularity for `cpus` CPUs: 1 ms × (1 + log2(min(cpus, 8)))
/// (`sysctl_sched_wakeup_granularity`, scaled by `SCHED_TUNABLESCALING_LOG`).
///
/// ```
/// use herdlab_core::sim::wakeup_granularity_ns as g;
/// assert_eq!([g(1), g(2), g(4), g(8), g(16)], [1_000_000, 2_000_000, 3_000_000, 4_000_000, 4_000_000]);
/// ```
pub fn wakeup_granularity_ns(cpus: u8) -> u64 {
    let n = cpus.clamp(1, 8) as u32;
    1_000_000 * (1 + (31 - n.leading_zeros()) as u64)
}

/// The shape of the simulated world a mechanism needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WorldSpec {
    /// Words of shared memory (also futex words).
    pub words: u8,
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Kernel {
    mem: Vec<u32>,
    futex_q: Vec<WaitQueue>,
    mutex_owner: Vec<Option<u16>>,
    mutex_q: Vec<WaitQueue>,
    cond_q: Vec<WaitQueue>,
    sem_count: Vec<u32>,
    sem_q: Vec<WaitQueue>,
    /// Listening sockets (at least one): each with its wait queue and accept queue.
    listeners: Vec<net::Listener>,
}

/// A running simulation of one mechanism.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Simulation<M> {
    threads: Vec<SimThread<M>>,
    cpus: Vec<Cpu>,
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
    trace: u64,
    net: Option<Box<net::Net>>,
    accept_latency: LogHistogram,
    seed: u64,
    word0_busy_ns: u64,
    word0_since: Option<u64>,
    policy: SchedPolicy,
    wakeup_gran_ns: u64,
}

const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

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
            (&t.harvest, t.deadline.is_some(), t.timed_out, t.resumed).hash(h);
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

impl<M: Machine> Simulation<M> {
    /// A simulation of `threads` (each with its role) in `world`. Every thread starts runnable; they
    /// are spread over the CPUs round robin, the first ones running.
    pub fn new(world: WorldSpec, threads: Vec<(M, Role)>) -> Self {
        let ncpu = world.cpus.max(1) as usize;
        let mut cpus: Vec<Cpu> = (0..ncpu)
            .map(|_| Cpu {
                current: None,
                runq: VecDeque::new(),
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
                c.runq.push_back(i as u16);
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
            });
        }
        let workers = sim_threads
            .iter()
            .filter(|t| t.role == Role::Worker)
            .count() as u16;
        let words = world.words as usize;
        let total_events = world.arrivals.remaining();
        Simulation {
            threads: sim_threads,
            cpus,
            k: Kernel {
                mem: vec![0; words],
                futex_q: vec![WaitQueue::new(); words],
                mutex_owner: vec![None; world.mutexes as usize],
                mutex_q: vec![WaitQueue::new(); world.mutexes as usize],
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
            trace: 0xCBF2_9CE4_8422_2325,
            net: world.net.map(|n| Box::new(net::Net::new(n))),
            accept_latency: LogHistogram::new(),
            seed: world.seed,
            word0_busy_ns: 0,
            word0_since: None,
            policy: world.sched,
            wakeup_gran_ns: wakeup_granularity_ns(ncpu as u8),
        }
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
    /// How long word `w` has held a non-zero value so far (tracked for word 0, the lock word of the
    /// accept mutex; 0 for other words).
    pub fn word_busy_ns(&self, w: Word) -> u64 {
        if w != Word(0) {
            return 0;
        }
        self.word0_busy_ns
            + self
                .word0_since
                .map_or(0, |t| self.metrics.sim_time_ns.saturating_sub(t))
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
    /// Who holds a mutex.
    pub fn mutex_owner(&self, m: u8) -> Option<u16> {
        self.k.mutex_owner[m as usize]
    }
    /// A word of memory.
    pub fn word(&self, w: Word) -> u32 {
        self.k.mem[w.0 as usize]
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
    pub fn trace_hash(&self) -> u64 {
        self.trace
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
            .filter(|(_, t)| matches!(t.sched, Sched::OnCpu | Sched::Queued))
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
    fn net_event_due(&self) -> Option<u64> {
        let n = self.net.as_ref()?;
        if self.net_drained() {
            return None;
        }
        n.next_event()
    }

    /// When the network actor's next action is due.
    fn network_due(&self) -> Option<u64> {
        let a = self.arrivals.due(self.idle_since);
        match (a, self.net_event_due()) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }

    /// Whether `actor` may step now.
    pub fn can_step(&self, actor: Actor) -> bool {
        match actor {
            Actor::Thread(i) => {
                self.threads
                    .get(i as usize)
                    .is_some_and(|t| matches!(t.sched, Sched::OnCpu | Sched::Queued))
                    || self.due_producer().is_some_and(|(p, _)| p == i)
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
        let mut best: Option<(u64, Actor)> =
            self.due_producer().map(|(p, t)| (t, Actor::Thread(p)));
        for c in &self.cpus {
            if let Some(t) = c.current {
                if best.is_none_or(|(bt, _)| c.clock < bt) {
                    best = Some((c.clock, Actor::Thread(t)));
                }
            }
        }
        if self.network {
            if let Some(t) = self.network_due() {
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
        self.metrics.steps += 1;
        let rec = StepRecord {
            step: self.metrics.steps,
            ..rec
        };
        self.mix_trace(&rec);
        self.check_invariants();
        self.last = Some(rec);
        self.settle_status();
        Ok(rec)
    }

    fn mix_trace(&mut self, rec: &StepRecord) {
        let actor = match rec.actor {
            Actor::Thread(i) => i as u64,
            Actor::Network => 0xFFFF,
        };
        let note = note_code(&rec.note);
        for x in [actor, rec.line as u64, rec.time_ns, note] {
            self.trace = (self.trace ^ x).wrapping_mul(FNV_PRIME);
        }
    }

    fn check_invariants(&mut self) {
        let waiting = self
            .k
            .listeners
            .iter()
            .find_map(|l| l.queue.front().copied());
        // in the event-driven world a worker also wakes for its timer or its connections' clients
        let timer_pending = self
            .net
            .as_ref()
            .is_some_and(|n| !n.timers.is_empty() || !n.client.is_empty());
        if self.network
            && self.workers > 0
            && self.asleep_workers == self.workers
            && waiting.is_some()
            && !timer_pending
        {
            if !self.lost_episode {
                self.lost_episode = true;
                self.metrics.lost_wakeups += 1;
                if self.first_violation.is_none() {
                    self.first_violation = Some((self.metrics.steps, waiting.unwrap_or(0)));
                }
            }
        } else if self.asleep_workers < self.workers {
            self.lost_episode = false;
        }
    }

    fn settle_status(&mut self) {
        let any_cpu = self.cpus.iter().any(|c| c.current.is_some());
        let can_run = any_cpu
            || self.due_producer().is_some()
            || (self.network && self.network_due().is_some());
        if can_run {
            self.status = Status::Running;
            return;
        }
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

    fn charge(&mut self, cpu: u8, ns: u64) {
        let c = &mut self.cpus[cpu as usize];
        if let Some(t) = c.current {
            self.threads[t as usize].metrics.busy_ns += ns;
        }
        c.clock += ns;
        self.metrics.cpu_time_ns += ns;
        if c.clock > self.metrics.sim_time_ns {
            self.metrics.sim_time_ns = c.clock;
        }
    }

    // ----- scheduling -----

    /// Put a woken thread on a CPU at time `at` (the waker's time).
    fn wake_thread(&mut self, tid: u16, at: u64, counted: bool) {
        let prev = self.threads[tid as usize].cpu as usize;
        let idle = |c: &Cpu| c.current.is_none() && c.runq.is_empty();
        let target = if idle(&self.cpus[prev]) {
            Some(prev)
        } else {
            self.cpus.iter().position(idle)
        };
        let was_worker_sleep = self.threads[tid as usize].role == Role::Worker
            && self.threads[tid as usize].sleep == SleepKind::Work;
        if self.event_sleeper == Some(tid) {
            self.event_sleeper = None;
        }
        {
            let t = &mut self.threads[tid as usize];
            t.sleep = SleepKind::None;
            t.empty_handed = false;
            if counted {
                t.woken_since_work = true;
                t.metrics.wakeups += 1;
            }
        }
        if was_worker_sleep {
            self.asleep_workers -= 1;
            self.idle_since = None;
        }
        if counted {
            self.metrics.wakeups += 1;
        }
        match target {
            Some(c) => {
                let cs = self.cost.context_switch_ns;
                let lat = self.cost.cross_cpu_wake_ns;
                let cpu = &mut self.cpus[c];
                cpu.current = Some(tid);
                cpu.clock = cpu.clock.max(at + lat) + cs;
                cpu.slice_start = cpu.clock;
                self.metrics.cpu_time_ns += cs;
                if cpu.clock > self.metrics.sim_time_ns {
                    self.metrics.sim_time_ns = cpu.clock;
                }
                let t = &mut self.threads[tid as usize];
                t.sched = Sched::OnCpu;
                t.cpu = c as u8;
            }
            None => {
                self.cpus[prev].runq.push_back(tid);
                self.threads[tid as usize].sched = Sched::Queued;
                self.maybe_preempt_on_wake(prev as u8, tid, at);
            }
        }
    }

    /// [`SchedPolicy::Fair`]: the woken thread `tid`, queued on `cpu`, preempts the running thread
    /// when it has used at least the wakeup granularity less CPU time.
    fn maybe_preempt_on_wake(&mut self, cpu: u8, tid: u16, at: u64) {
        if self.policy != SchedPolicy::Fair {
            return;
        }
        let Some(cur) = self.cpus[cpu as usize].current else {
            return;
        };
        let woken = self.threads[tid as usize].metrics.busy_ns;
        let running = self.threads[cur as usize].metrics.busy_ns;
        if woken + self.wakeup_gran_ns >= running {
            return;
        }
        let cs = self.cost.context_switch_ns;
        let c = &mut self.cpus[cpu as usize];
        c.runq.retain(|&x| x != tid);
        c.runq.push_front(cur);
        c.current = Some(tid);
        c.clock = c.clock.max(at) + cs;
        c.slice_start = c.clock;
        let clock = c.clock;
        self.metrics.cpu_time_ns += cs;
        self.metrics.context_switches += 1;
        self.metrics.sim_time_ns = self.metrics.sim_time_ns.max(clock);
        self.threads[cur as usize].sched = Sched::Queued;
        self.threads[tid as usize].sched = Sched::OnCpu;
    }

    /// The next thread `cpu` runs from its run queue: the front (FIFO), or the one that has used the
    /// least CPU time (fair; ties: the front-most).
    fn pop_next(&mut self, cpu: u8) -> Option<u16> {
        let q = &self.cpus[cpu as usize].runq;
        let i = match self.policy {
            SchedPolicy::Fifo => 0,
            SchedPolicy::Fair => {
                let threads = &self.threads;
                q.iter()
                    .enumerate()
                    .min_by_key(|&(i, &t)| (threads[t as usize].metrics.busy_ns, i))
                    .map(|(i, _)| i)?
            }
        };
        self.cpus[cpu as usize].runq.remove(i)
    }

    /// The running thread `tid` leaves its CPU to sleep.
    fn block(&mut self, tid: u16, kind: SleepKind) {
        let wasted = {
            let t = &mut self.threads[tid as usize];
            t.sched = Sched::Asleep;
            t.sleep = kind;
            let wasted = kind == SleepKind::Work && t.woken_since_work;
            if kind == SleepKind::Work {
                t.woken_since_work = false;
                if wasted {
                    t.metrics.wasted_wakeups += 1;
                    // asleep again with nothing done: shown as "woken, found nothing"
                    t.empty_handed = true;
                }
            }
            wasted
        };
        if wasted {
            self.metrics.wasted_wakeups += 1;
        }
        if kind == SleepKind::Lock {
            self.metrics.lock_sleeps += 1;
        }
        if kind == SleepKind::Event {
            self.event_sleeper = Some(tid);
        }
        let cpu = self.threads[tid as usize].cpu;
        let role = self.threads[tid as usize].role;
        if role == Role::Worker && kind == SleepKind::Work {
            self.asleep_workers += 1;
            if self.asleep_workers == self.workers {
                self.idle_since = Some(self.cpus[cpu as usize].clock);
            }
        }
        self.leave_cpu(cpu);
    }

    fn leave_cpu(&mut self, cpu: u8) {
        self.metrics.context_switches += 1;
        self.cpus[cpu as usize].current = None;
        if let Some(next) = self.pop_next(cpu) {
            let c = &mut self.cpus[cpu as usize];
            c.current = Some(next);
            self.threads[next as usize].sched = Sched::OnCpu;
            let cs = self.cost.context_switch_ns;
            self.charge(cpu, cs);
            self.cpus[cpu as usize].slice_start = self.cpus[cpu as usize].clock;
        }
    }

    /// The learner chose a queued thread: preempt its CPU's current thread and switch it in.
    fn switch_in(&mut self, tid: u16) {
        let cpu = self.threads[tid as usize].cpu;
        let c = &mut self.cpus[cpu as usize];
        c.runq.retain(|&x| x != tid);
        if let Some(cur) = c.current.take() {
            c.runq.push_front(cur);
            self.threads[cur as usize].sched = Sched::Queued;
        }
        self.metrics.context_switches += 1;
        let c = &mut self.cpus[cpu as usize];
        c.current = Some(tid);
        self.threads[tid as usize].sched = Sched::OnCpu;
        let cs = self.cost.context_switch_ns;
        self.charge(cpu, cs);
        self.cpus[cpu as usize].slice_start = self.cpus[cpu as usize].clock;
    }

    fn maybe_preempt(&mut self, cpu: u8) {
        let slice = self.cost.time_slice_ns;
        let c = &mut self.cpus[cpu as usize];
        if let Some(cur) = c.current {
            if !c.runq.is_empty() && c.clock - c.slice_start >= slice {
                c.runq.push_back(cur);
                self.threads[cur as usize].sched = Sched::Queued;
                self.leave_cpu(cpu);
            }
        }
    }

    /// `try_to_wake_up` for a wait-queue entry: 1 if the sleeper was going to sleep or asleep, 0 if it
    /// was already running.
    fn ttwu(&mut self, tid: u16, at: u64, counted: bool) -> i32 {
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
    fn after_wake(&mut self, tid: u16) {
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
    fn wake_queue(&mut self, which: QueueRef, count: WakeCount, at: u64, counted: bool) -> u16 {
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
    fn sleep_on(&mut self, tid: u16, q: QueueRef, kind: SleepKind) {
        self.queue_mut(q)
            .add(tid, crate::waitqueue::Enqueue::ExclusiveTail);
        self.threads[tid as usize].task = TaskState::Interruptible;
        self.block(tid, kind);
    }

    fn queue_mut(&mut self, which: QueueRef) -> &mut WaitQueue {
        match which {
            QueueRef::Listen => &mut self.k.listeners[0].wq,
            QueueRef::Sem(i) => &mut self.k.sem_q[i as usize],
            QueueRef::Futex(w) => &mut self.k.futex_q[w as usize],
            QueueRef::Mutex(m) => &mut self.k.mutex_q[m as usize],
            QueueRef::Cond(c) => &mut self.k.cond_q[c as usize],
        }
    }

    // ----- the network actor -----

    fn step_network(&mut self) -> StepRecord {
        // The present is the earliest running CPU's clock (every CPU idle: the latest instant
        // reached). Chosen by the default scheduler, the arrival is due no later than that; forced
        // early by the learner, it happens now.
        // every CPU idle: nothing happens before the due time, so the clock jumps to it
        let present = self
            .cpus
            .iter()
            .filter(|c| c.current.is_some())
            .map(|c| c.clock)
            .min()
            .unwrap_or(u64::MAX);
        let at = match self.arrivals.due(self.idle_since) {
            Some(t) => t.min(present),
            None if present == u64::MAX => self.metrics.sim_time_ns,
            None => present,
        };
        self.arrivals.take(at);
        let conn = self.next_conn;
        self.next_conn += 1;
        self.metrics.connections_arrived += 1;
        if at > self.metrics.sim_time_ns {
            self.metrics.sim_time_ns = at;
        }
        self.k.listeners[0].queue.push_back(conn);
        // sock_def_readable: wake_up_interruptible_sync_poll, nr_exclusive = 1
        let walk_cost = self.cost.wake_entry_ns * self.k.listeners[0].wq.len().max(1) as u64;
        let woken = self.wake_queue(QueueRef::Listen, WakeCount::Up(1), at + walk_cost, true);
        StepRecord {
            step: 0,
            actor: Actor::Network,
            line: 0,
            time_ns: at,
            cpu: None,
            note: Note::Arrived { conn, woken },
        }
    }

    // ----- a thread's step -----

    fn step_thread(&mut self, tid: u16) -> StepRecord {
        let cpu = self.threads[tid as usize].cpu;
        let start = self.cpus[cpu as usize].clock;
        let line = self.threads[tid as usize].line();
        self.threads[tid as usize].metrics.steps += 1;
        let note = match self.threads[tid as usize].kpath {
            KPath::Accept(phase, conn) => self.step_accept(tid, cpu, phase, conn),
            KPath::CondRelock(m) => self.step_relock(tid, cpu, m),
            KPath::None => {
                let op = self.threads[tid as usize].machine.next_op();
                self.step_op(tid, cpu, op)
            }
        };
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

    fn complete(&mut self, tid: u16, r: OpResult) {
        self.threads[tid as usize].machine.complete(r);
    }

    fn step_op(&mut self, tid: u16, cpu: u8, op: Op) -> Note {
        let resumed = std::mem::take(&mut self.threads[tid as usize].resumed);
        if op.is_syscall() && !resumed {
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
            Op::Load(w) => {
                let c = self.jittered(self.cost.plain_ns);
                self.charge(cpu, c);
                let v = self.k.mem[w.0 as usize];
                self.complete(tid, OpResult::Value(v));
                Note::Memory {
                    word: w,
                    value: v,
                    ok: true,
                }
            }
            Op::Store(w, v) => {
                let c = self.jittered(self.cost.plain_ns);
                self.charge(cpu, c);
                let old = self.k.mem[w.0 as usize];
                self.k.mem[w.0 as usize] = v;
                self.wrote(w, old, v, cpu);
                self.complete(tid, OpResult::Done);
                Note::Memory {
                    word: w,
                    value: old,
                    ok: true,
                }
            }
            Op::Cas {
                word,
                expected,
                new,
            } => {
                let c = self.jittered(self.cost.atomic_ns);
                self.charge(cpu, c);
                let actual = self.k.mem[word.0 as usize];
                let ok = actual == expected;
                if ok {
                    self.k.mem[word.0 as usize] = new;
                    self.wrote(word, actual, new, cpu);
                } else {
                    self.metrics.cas_failures += 1;
                }
                self.complete(tid, OpResult::Cas { ok, actual });
                Note::Memory {
                    word,
                    value: actual,
                    ok,
                }
            }
            Op::FetchAdd(w, d) => {
                let c = self.jittered(self.cost.atomic_ns);
                self.charge(cpu, c);
                let old = self.k.mem[w.0 as usize];
                self.k.mem[w.0 as usize] = old.wrapping_add(d);
                self.wrote(w, old, old.wrapping_add(d), cpu);
                self.complete(tid, OpResult::Value(old));
                Note::Memory {
                    word: w,
                    value: old,
                    ok: true,
                }
            }
            Op::Swap(w, v) => {
                let c = self.jittered(self.cost.atomic_ns);
                self.charge(cpu, c);
                let old = self.k.mem[w.0 as usize];
                self.k.mem[w.0 as usize] = v;
                self.wrote(w, old, v, cpu);
                self.complete(tid, OpResult::Value(old));
                Note::Memory {
                    word: w,
                    value: old,
                    ok: true,
                }
            }
            Op::SemWait(sem) => {
                let c = self.jittered(self.cost.atomic_ns);
                self.charge(cpu, c);
                let i = sem.0 as usize;
                if self.k.sem_count[i] > 0 {
                    self.k.sem_count[i] -= 1;
                    self.complete(tid, OpResult::Done);
                    Note::SemTook
                } else {
                    // glibc's sem_wait sleeps in futex_wait; the woken thread retries its SemWait
                    self.metrics.syscalls += 1;
                    self.metrics.sem_sleeps += 1;
                    self.sleep_on(tid, QueueRef::Sem(sem.0), SleepKind::Lock);
                    Note::SemSlept
                }
            }
            Op::SemPost(sem) => {
                let i = sem.0 as usize;
                let n = self.k.sem_q[i].len() as u64;
                let c = self
                    .jittered(self.cost.atomic_ns + if n > 0 { self.cost.syscall_ns } else { 0 });
                self.charge(cpu, c);
                self.metrics.sem_posts += 1;
                self.k.sem_count[i] = self.k.sem_count[i].saturating_add(1);
                let at = self.cpus[cpu as usize].clock;
                let woken = self.wake_queue(QueueRef::Sem(sem.0), WakeCount::Up(1), at, false);
                self.complete(tid, OpResult::Done);
                Note::Woke { woken }
            }
            Op::FutexWait { word, expected } => {
                let c = self.jittered(self.cost.syscall_ns);
                self.charge(cpu, c);
                if self.k.mem[word.0 as usize] != expected {
                    self.complete(tid, OpResult::Mismatch);
                    Note::FutexMismatch
                } else {
                    self.sleep_on(tid, QueueRef::Futex(word.0), SleepKind::Work);
                    Note::FutexSlept
                }
            }
            Op::FutexWake(word, count) => {
                let n = self.k.futex_q[word.0 as usize].len().max(1) as u64;
                let c = self.jittered(self.cost.syscall_ns + self.cost.wake_entry_ns * n);
                self.charge(cpu, c);
                let at = self.cpus[cpu as usize].clock;
                let woken = self.wake_queue(QueueRef::Futex(word.0), count, at, true);
                self.complete(tid, OpResult::Value(woken as u32));
                Note::Woke { woken }
            }
            Op::MutexLock(m) => {
                let c = self.jittered(self.cost.atomic_ns);
                self.charge(cpu, c);
                let slot = &mut self.k.mutex_owner[m.0 as usize];
                if slot.is_none() {
                    *slot = Some(tid);
                    self.complete(tid, OpResult::Done);
                    Note::LockTaken
                } else {
                    self.metrics.syscalls += 1;
                    self.sleep_on(tid, QueueRef::Mutex(m.0), SleepKind::Lock);
                    Note::LockSlept
                }
            }
            Op::MutexUnlock(m) => {
                let c = self.jittered(self.cost.atomic_ns);
                self.charge(cpu, c);
                self.unlock(m.0, cpu);
                self.complete(tid, OpResult::Done);
                Note::Unlocked
            }
            Op::CondWait(cv, m) => {
                let c = self.jittered(self.cost.syscall_ns);
                self.charge(cpu, c);
                self.k.cond_q[cv.0 as usize].add(tid, crate::waitqueue::Enqueue::ExclusiveTail);
                self.threads[tid as usize].task = TaskState::Interruptible;
                self.threads[tid as usize].kpath = KPath::CondRelock(m.0);
                // cv.wait releases the mutex and queues the sleeper in one atomic step
                self.unlock(m.0, cpu);
                self.block(tid, SleepKind::Work);
                Note::CondSlept
            }
            Op::CondNotify(cv, count) => {
                let n = self.k.cond_q[cv.0 as usize].len().max(1) as u64;
                let c = self.jittered(self.cost.syscall_ns + self.cost.wake_entry_ns * n);
                self.charge(cpu, c);
                let at = self.cpus[cpu as usize].clock;
                let woken = self.wake_queue(QueueRef::Cond(cv.0), count, at, true);
                self.complete(tid, OpResult::Done);
                Note::Woke { woken }
            }
            Op::Accept(_) => {
                self.threads[tid as usize].kpath = KPath::Accept(AcceptPhase::Fast, 0);
                let phase = AcceptPhase::Fast;
                self.step_accept(tid, cpu, phase, 0)
            }
            Op::Work(ns) => {
                self.charge(cpu, ns);
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
                    self.cpus[cpu as usize].runq.push_back(tid);
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
                Note::Exited
            }
        }
    }

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

    fn step_relock(&mut self, tid: u16, cpu: u8, m: u8) -> Note {
        let c = self.jittered(self.cost.atomic_ns);
        self.charge(cpu, c);
        if self.k.mutex_owner[m as usize].is_none() {
            self.k.mutex_owner[m as usize] = Some(tid);
            self.threads[tid as usize].kpath = KPath::None;
            self.complete(tid, OpResult::Woken);
            Note::Relocked
        } else {
            self.metrics.syscalls += 1;
            self.sleep_on(tid, QueueRef::Mutex(m), SleepKind::Lock);
            Note::LockSlept
        }
    }

    fn step_accept(&mut self, tid: u16, cpu: u8, phase: AcceptPhase, conn: u32) -> Note {
        let mut cost = self.cost.kernel_step_ns;
        if phase == AcceptPhase::Fast {
            cost += self.cost.syscall_ns;
        }
        let c = self.jittered(cost);
        self.charge(cpu, c);
        let set = |s: &mut Self, p: AcceptPhase, conn: u32| {
            s.threads[tid as usize].kpath = KPath::Accept(p, conn)
        };
        match phase {
            AcceptPhase::Fast => {
                if let Some(c) = self.k.listeners[0].queue.pop_front() {
                    self.took(tid, c);
                    self.threads[tid as usize].kpath = KPath::None;
                    self.complete(tid, OpResult::Conn(c));
                    Note::FastPathTook { conn: c }
                } else {
                    let next = match self.accept.order {
                        SleeperOrder::EnqueueThenTest => AcceptPhase::Prepare,
                        SleeperOrder::TestThenEnqueue => AcceptPhase::TestFirst,
                    };
                    set(self, next, conn);
                    Note::FastPathEmpty
                }
            }
            AcceptPhase::TestFirst => {
                let empty = self.k.listeners[0].queue.is_empty();
                set(
                    self,
                    if empty {
                        AcceptPhase::Prepare
                    } else {
                        AcceptPhase::Take
                    },
                    conn,
                );
                Note::TestedFirst { empty }
            }
            AcceptPhase::Prepare => {
                let how = self.accept.enqueue;
                let added = self.k.listeners[0].wq.add(tid, how);
                self.threads[tid as usize].task = TaskState::Interruptible;
                let next = match self.accept.order {
                    SleeperOrder::EnqueueThenTest => AcceptPhase::SleepIfEmpty,
                    SleeperOrder::TestThenEnqueue => AcceptPhase::Schedule,
                };
                set(self, next, conn);
                Note::Enqueued {
                    exclusive: how.is_exclusive(),
                    added,
                }
            }
            AcceptPhase::SleepIfEmpty | AcceptPhase::Schedule => {
                let must_test = phase == AcceptPhase::SleepIfEmpty;
                let queue_empty = self.k.listeners[0].queue.is_empty();
                let t = &self.threads[tid as usize];
                if t.task == TaskState::Interruptible && (!must_test || queue_empty) {
                    // schedule(): give up the CPU; the wake walk moves us on to Take
                    let wasted = t.woken_since_work;
                    self.block(tid, SleepKind::Work);
                    Note::Slept { wasted }
                } else {
                    set(self, AcceptPhase::Take, conn);
                    Note::DidNotSleep
                }
            }
            AcceptPhase::Take => {
                if let Some(c) = self.k.listeners[0].queue.pop_front() {
                    self.took(tid, c);
                    set(self, AcceptPhase::Finish, c);
                    Note::Took { conn: c }
                } else {
                    if self.threads[tid as usize].woken_since_work {
                        self.threads[tid as usize].empty_handed = true;
                    }
                    let next = match self.accept.order {
                        SleeperOrder::EnqueueThenTest => AcceptPhase::Prepare,
                        SleeperOrder::TestThenEnqueue => AcceptPhase::TestFirst,
                    };
                    set(self, next, conn);
                    Note::FoundEmpty
                }
            }
            AcceptPhase::Finish => {
                self.k.listeners[0].wq.remove(tid);
                let t = &mut self.threads[tid as usize];
                t.task = TaskState::Running;
                t.kpath = KPath::None;
                self.complete(tid, OpResult::Conn(conn));
                Note::FinishedWait
            }
        }
    }

    fn took(&mut self, tid: u16, conn: u32) {
        if self.net.is_some() {
            let now = self.cpus[self.threads[tid as usize].cpu as usize].clock;
            self.net_accepted(conn, now);
        }
        self.metrics.connections_accepted += 1;
        let t = &mut self.threads[tid as usize];
        t.metrics.accepted += 1;
        t.empty_handed = false;
        t.woken_since_work = false;
    }
}

#[derive(Clone, Copy)]
enum QueueRef {
    Listen,
    Sem(u8),
    Futex(u8),
    Mutex(u8),
    Cond(u8),
}

fn note_code(n: &Note) -> u64 {
    match *n {
        Note::Arrived { conn, woken } => 1 << 40 | (conn as u64) << 8 | woken as u64,
        Note::FastPathTook { conn } => 2 << 40 | conn as u64,
        Note::FastPathEmpty => 3 << 40,
        Note::TestedFirst { empty } => 4 << 40 | empty as u64,
        Note::Enqueued { exclusive, added } => 5 << 40 | (exclusive as u64) << 1 | added as u64,
        Note::Slept { wasted } => 6 << 40 | wasted as u64,
        Note::DidNotSleep => 7 << 40,
        Note::Took { conn } => 8 << 40 | conn as u64,
        Note::FoundEmpty => 9 << 40,
        Note::FinishedWait => 10 << 40,
        Note::Worked { ns } => 11 << 40 | (ns & 0xFF_FFFF_FFFF),
        Note::Memory { word, value, ok } => {
            12 << 40 | (word.0 as u64) << 33 | (ok as u64) << 32 | value as u64
        }
        Note::FutexSlept => 13 << 40,
        Note::FutexMismatch => 14 << 40,
        Note::Woke { woken } => 15 << 40 | woken as u64,
        Note::LockTaken => 16 << 40,
        Note::LockSlept => 17 << 40,
        Note::Unlocked => 18 << 40,
        Note::CondSlept => 19 << 40,
        Note::Relocked => 20 << 40,
        Note::EventDelivered => 21 << 40,
        Note::EventWait => 22 << 40,
        Note::NoMoreEvents => 23 << 40,
        Note::Other => 24 << 40,
        Note::Exited => 25 << 40,
        Note::SemTook => 26 << 40,
        Note::SemSlept => 27 << 40,
        Note::EpollAdded { ep, ready_now } => 28 << 40 | (ep as u64) << 1 | ready_now as u64,
        Note::EpollRemoved { ep } => 29 << 40 | ep as u64,
        Note::EpollReturned { listener, conns } => {
            30 << 40 | (listener as u64) << 16 | conns as u64
        }
        Note::EpollSlept { wasted } => 31 << 40 | wasted as u64,
        Note::EpollTimedOut => 32 << 40,
        Note::AcceptedNb { conn } => 33 << 40 | conn as u64,
        Note::AcceptAgain => 34 << 40,
        Note::ReadRequest { conn } => 35 << 40 | conn as u64,
        Note::ReadEof { conn } => 36 << 40 | conn as u64,
        Note::ReadNothing => 37 << 40,
        Note::RecvSlept => 38 << 40,
        Note::Responded { conn } => 39 << 40 | conn as u64,
        Note::ClientSent { conn, woken } => 40 << 40 | (conn as u64) << 8 | woken as u64,
        Note::ClientClosed { conn, woken } => 41 << 40 | (conn as u64) << 8 | woken as u64,
        Note::TimerFired { thread } => 42 << 40 | thread as u64,
    }
}
