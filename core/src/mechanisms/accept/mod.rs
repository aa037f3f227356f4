//! The epoll herd and nginx's accept mutex: how event-loop workers share a listening socket.
//!
//! Every worker is an [`event_worker::EventWorker`] (or, for the reference server, a
//! [`blocking_worker::BlockingWorker`]); the [`Strategy`] decides how the listening socket is shared
//! (`shared/reference/linux-wakeups.md` §3 D-I, `shared/reference/nginx-accept-mutex.md`):
//!
//! | strategy | listeners | epolls | the listener's entries on the socket's wait queue | woken per connection (idle server) |
//! |---|---|---|---|---|
//! | [`Strategy::Herd`] | 1 | one per worker, after fork | N non-exclusive (head) | every worker |
//! | [`Strategy::SharedEpoll`] | 1 | one, before fork | 1; the sleepers on the epoll are LIFO | one (the newest sleeper), maybe one more per harvest |
//! | [`Strategy::Exclusive`] | 1 | one per worker | N exclusive, in registration order (tail) | one: the first registered that sleeps |
//! | [`Strategy::AcceptMutex`] | 1 | one per worker | only workers that hold (or recently held) the lock | the holder |
//! | [`Strategy::Reuseport`] | N | one per worker | one per socket | the owner of the hashed socket |
//! | [`Strategy::Blocking`] | 1 | none | N blocked `accept()` callers, exclusive (tail) | one, FIFO |
//!
//! The simulated kernel ([`crate::sim`], its `net` model) runs `ep_poll_callback`, `ep_poll` and the
//! re-poll of `ep_send_events`; the native platform (`herdlab-bench`) runs the very same workers on real
//! epoll instances and real loopback sockets. [`AcceptReport`] is the result both print.

pub mod blocking_worker;
pub mod event_worker;
pub mod invariants;
pub mod params;
pub mod report;
pub use params::Accept;

use serde::{Deserialize, Serialize};

use crate::cost::CostModel;
use crate::machine::Machine;
use crate::op::{EpId, ListenerId, Op, OpResult};
use crate::sim::accept::{AcceptModel, AcceptPhase};
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
use crate::sim::net::NetSpec;
use crate::sim::{Role, Simulation, WorldSpec};

pub use report::{jain_index, AcceptReport, WorkerReport};

/// How the workers share the listening socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// One epoll per worker, created after fork, the listener in every one: the epoll herd.
    Herd,
    /// One epoll created before fork and shared by every worker.
    SharedEpoll,
    /// `EPOLLEXCLUSIVE` on each worker's registration (nginx 1.11.3+ default on Linux).
    Exclusive,
    /// nginx's accept mutex (`accept_mutex on`, the default before 1.11.3).
    AcceptMutex,
    /// `SO_REUSEPORT`: a listening socket per worker, connections placed by a hash of the 4-tuple.
    Reuseport,
    /// Threads blocked in `accept()` (the reference server).
    Blocking,
}

impl Strategy {
    /// Every strategy, in the order of the issue.
    pub const ALL: [Strategy; 6] = [
        Strategy::Herd,
        Strategy::SharedEpoll,
        Strategy::Exclusive,
        Strategy::AcceptMutex,
        Strategy::Reuseport,
        Strategy::Blocking,
    ];

    /// The names the CLI and the URL use.
    pub const NAMES: [&'static str; 6] = [
        "herd",
        "shared-epoll",
        "exclusive",
        "accept-mutex",
        "reuseport",
        "blocking",
    ];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&s| s == self).unwrap_or(0)]
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|&n| n == s)
            .map(|i| Self::ALL[i])
    }

    /// Listening sockets this strategy opens for `workers` workers.
    pub fn listeners(self, workers: u32) -> u32 {
        if self == Strategy::Reuseport {
            workers
        } else {
            1
        }
    }

    /// Epoll instances it creates.
    pub fn epolls(self, workers: u32) -> u32 {
        match self {
            Strategy::SharedEpoll => 1,
            Strategy::Blocking => 0,
            _ => workers,
        }
    }
}

/// The accept mutex as nginx wrote it, or a broken variant (`nginx-accept-mutex.md` §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MutexVariant {
    /// nginx's code.
    Correct,
    /// V1, the order seed 000 describes: unlock, then accept. Two workers can accept at once.
    UnlockBeforeAccept,
    /// V3: a worker that loses the trylock forgets to remove the listener from its epoll.
    NoDisable,
    /// V4: a worker without the lock sleeps with no timeout, so it never tries again.
    NoTimer,
}

impl MutexVariant {
    /// Every variant, the correct one first.
    pub const ALL: [MutexVariant; 4] = [
        MutexVariant::Correct,
        MutexVariant::UnlockBeforeAccept,
        MutexVariant::NoDisable,
        MutexVariant::NoTimer,
    ];

    /// The names the CLI and the URL use, in the order of [`MutexVariant::ALL`].
    pub const NAMES: [&'static str; 4] =
        ["correct", "unlock-before-accept", "no-disable", "no-timer"];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        match self {
            MutexVariant::Correct => "correct",
            MutexVariant::UnlockBeforeAccept => "unlock-before-accept",
            MutexVariant::NoDisable => "no-disable",
            MutexVariant::NoTimer => "no-timer",
        }
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }

    /// One line on what goes wrong.
    pub fn story(self) -> &'static str {
        match self {
            MutexVariant::Correct => {
                "nginx's order: trylock, register, wait, accept (posted), unlock, then the rest"
            }
            MutexVariant::UnlockBeforeAccept => {
                "the seed's order: the winner unlocks before it accepts, so the next winner accepts beside it"
            }
            MutexVariant::NoDisable => {
                "a worker that loses the lock keeps the listener in its epoll: the herd comes back"
            }
            MutexVariant::NoTimer => {
                "losers sleep without a timeout: when the holder stops taking the lock, nobody retries"
            }
        }
    }
}

/// The parameters of an accept scenario; [`crate::scenario`] validates them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AcceptParams {
    /// How the listening socket is shared.
    pub strategy: Strategy,
    /// Worker threads (processes in nginx), 1-64.
    pub workers: u32,
    /// CPUs, 1-16.
    pub cpus: u32,
    /// Connections in the run, 1-1,000,000.
    pub connections: u32,
    /// New connections per second (steady and Poisson arrivals), 1-10,000,000.
    pub rate: u32,
    /// How connections arrive.
    pub arrival: ArrivalPattern,
    /// Connections per burst, 1-1024.
    pub burst: u32,
    /// Requests per connection (keep-alive), 1-1000.
    pub requests: u32,
    /// Service time per request, ns, 0-100,000,000.
    pub service_ns: u64,
    /// Extra gap between a response and the client's next request (or its close), ns, on top of the
    /// client's turnaround ([`NetSpec::client_turn_ns`]).
    pub think_ns: u64,
    /// `multi_accept`.
    pub multi_accept: bool,
    /// Re-register the listener every this many accepts (exclusive only; 0 = never; nginx 1.21.6+: 16).
    pub reorder_every: u32,
    /// `accept_mutex_delay`, ms (nginx default 500).
    pub mutex_delay_ms: u32,
    /// `worker_connections` (nginx default 512).
    pub worker_connections: u32,
    /// The accept mutex's code.
    pub variant: MutexVariant,
    /// The clients run on the server's CPUs (as `herdlab bench accept`'s load generator does):
    /// see [`NetSpec::client_cpu_ns`].
    pub local_clients: bool,
    /// The seed of every random choice.
    pub seed: u64,
}

/// CPU time a local client takes between a response and its next action (read, then write or
/// close: two system calls on loopback TCP and the wakeup), ns.
pub const LOCAL_CLIENT_CPU_NS: u64 = 5_000;

impl Default for AcceptParams {
    fn default() -> Self {
        AcceptParams {
            strategy: Strategy::Herd,
            workers: 8,
            cpus: 2,
            connections: 1000,
            rate: 200,
            arrival: ArrivalPattern::Poisson,
            burst: 4,
            requests: 1,
            service_ns: 20_000,
            think_ns: 0,
            multi_accept: false,
            reorder_every: 16,
            mutex_delay_ms: 500,
            worker_connections: 512,
            variant: MutexVariant::Correct,
            local_clients: false,
            seed: 1,
        }
    }
}

/// A thread of an accept scenario.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AcceptThread {
    /// An event-loop worker.
    Event(event_worker::EventWorker),
    /// A blocking-accept thread.
    Blocking(blocking_worker::BlockingWorker),
}

impl AcceptThread {
    /// The worker's counters.
    pub fn stats(&self) -> &event_worker::WorkerStats {
        match self {
            AcceptThread::Event(w) => w.stats(),
            AcceptThread::Blocking(w) => w.stats(),
        }
    }
    /// Straight-line form: run this worker's step table from where it is until the platform
    /// stops it (a server's loop never ends on its own).
    pub fn run<P: crate::machine::steps::Ops + ?Sized>(
        &mut self,
        p: &mut P,
    ) -> Result<(), P::Error> {
        match self {
            AcceptThread::Event(w) => w.run(p),
            AcceptThread::Blocking(w) => w.run(p),
        }
    }
    /// The event worker, when it is one.
    pub fn event(&self) -> Option<&event_worker::EventWorker> {
        match self {
            AcceptThread::Event(w) => Some(w),
            AcceptThread::Blocking(_) => None,
        }
    }
}

impl Machine for AcceptThread {
    fn next_op(&self) -> Op {
        match self {
            AcceptThread::Event(w) => w.next_op(),
            AcceptThread::Blocking(w) => w.next_op(),
        }
    }
    fn complete(&mut self, r: OpResult) {
        match self {
            AcceptThread::Event(w) => w.complete(r),
            AcceptThread::Blocking(w) => w.complete(r),
        }
    }
    fn line(&self) -> u16 {
        match self {
            AcceptThread::Event(w) => w.line(),
            AcceptThread::Blocking(w) => w.line(),
        }
    }
    fn holds_word_lock(&self) -> Option<crate::op::Word> {
        match self {
            AcceptThread::Event(w) => w.holds_word_lock(),
            AcceptThread::Blocking(w) => w.holds_word_lock(),
        }
    }
    fn listing(&self) -> &'static [&'static str] {
        match self {
            AcceptThread::Event(w) => w.listing(),
            AcceptThread::Blocking(w) => w.listing(),
        }
    }
    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        match self {
            AcceptThread::Event(w) => w.kernel_line(phase),
            AcceptThread::Blocking(w) => w.kernel_line(phase),
        }
    }
}

/// An accept simulation.
pub type AcceptSim = Simulation<AcceptThread>;

impl AcceptParams {
    /// Worker `i`'s configuration.
    pub fn worker_config(&self, i: u32) -> event_worker::WorkerConfig {
        let s = self.strategy;
        event_worker::WorkerConfig {
            strategy: s,
            index: i as u16,
            ep: EpId(if s == Strategy::SharedEpoll {
                0
            } else {
                i as u8
            }),
            listener: ListenerId(if s == Strategy::Reuseport { i as u8 } else { 0 }),
            // a shared epoll is created, and the listener added, once: by the first worker
            registers: s != Strategy::SharedEpoll || i == 0,
            service_ns: self.service_ns,
            multi_accept: self.multi_accept,
            reorder_every: self.reorder_every,
            mutex_delay_ns: self.mutex_delay_ms as u64 * 1_000_000,
            worker_connections: self.worker_connections,
            variant: self.variant,
        }
    }

    /// The workers of this scenario.
    pub fn threads(&self) -> Vec<(AcceptThread, Role)> {
        (0..self.workers.clamp(1, 64))
            .map(|i| {
                let t = if self.strategy == Strategy::Blocking {
                    AcceptThread::Blocking(blocking_worker::BlockingWorker::new(self.service_ns))
                } else {
                    AcceptThread::Event(event_worker::EventWorker::new(self.worker_config(i)))
                };
                (t, Role::Worker)
            })
            .collect()
    }

    /// The simulated network of this scenario.
    pub fn net_spec(&self) -> NetSpec {
        let w = self.workers.clamp(1, 64);
        NetSpec {
            listeners: self.strategy.listeners(w) as u8,
            epolls: self.strategy.epolls(w) as u8,
            requests_per_conn: self.requests.max(1),
            think_ns: self.think_ns,
            client_cpu_ns: self.local_clients.then_some(LOCAL_CLIENT_CPU_NS),
            ..NetSpec::default()
        }
    }

    /// A fresh simulation with the default cost model.
    pub fn simulate(&self) -> AcceptSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model.
    pub fn simulate_with(&self, cost: CostModel) -> AcceptSim {
        let world = WorldSpec {
            words: 2,
            mutexes: 0,
            condvars: 0,
            sems: 0,
            network: true,
            accept: AcceptModel::default(),
            cpus: self.cpus.clamp(1, 64) as u8,
            cost,
            arrivals: Arrivals::new(
                self.arrival,
                self.connections,
                self.burst,
                self.rate,
                self.seed,
            ),
            seed: self.seed,
            net: Some(self.net_spec()),
            sched: crate::sim::SchedPolicy::Fair,
        };
        Simulation::new(world, self.threads())
    }

    /// Run the simulation to its end (bounded by `max_steps`) and report it.
    pub fn run_report(&self, max_steps: u64) -> AcceptReport {
        let mut sim = self.simulate();
        sim.run(max_steps);
        AcceptReport::from_sim(self, &sim)
    }
}
