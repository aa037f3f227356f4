//! The thundering herd: N threads asleep on one wait queue, one event, and who wakes.
//!
//! Three primitives, one question ("how many wake for one event?"):
//! - [`Primitive::Accept`]: workers blocked in `accept()` on one listening socket
//!   ([`accept_worker::AcceptWorker`]); the network delivers connections and runs the socket's wake
//!   walk. The [`WakeMode`] decides how the modelled kernel queues its sleepers: `wake-all` (non-exclusive
//!   at the head, as before Linux 2.4: every sleeper wakes), `exclusive` (tail + `WQ_FLAG_EXCLUSIVE`, as
//!   `inet_csk_wait_for_connect` does now: one wakes, FIFO) or `lifo-exclusive` (exclusive at the head,
//!   as `ep_poll` queues `epoll_wait` callers: the newest sleeper wins).
//! - [`Primitive::Futex`]: workers in `futex_wait` on one word, a producer waking all or one
//!   ([`futex_herd`]).
//! - [`Primitive::Condvar`]: workers in `cv.wait`, a producer calling `notify_all` or `notify_one`
//!   ([`condvar_herd`]).
//!
//! [`Variant::BrokenSleeper`] swaps the accept path's sleeper protocol for one that tests the queue
//! before queueing itself (the lost wakeup of `linux-wakeups.md` §5).
//!
//! The same worker and producer machines run on the native platform (`herdlab bench herd`).

pub mod accept_worker;
pub mod condvar_herd;
pub mod futex_herd;
pub mod invariants;
pub mod params;
pub use params::Herd;

use serde::{Deserialize, Serialize};

use crate::cost::CostModel;
use crate::machine::Machine;
use crate::op::{Op, OpResult, WakeCount};
use crate::sim::accept::{AcceptModel, AcceptPhase, SleeperOrder};
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
use crate::sim::{Role, Simulation, WorldSpec};
use crate::waitqueue::Enqueue;

/// How sleepers are queued and woken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WakeMode {
    /// Every sleeper wakes (non-exclusive entries; `FUTEX_WAKE` all; `notify_all`).
    WakeAll,
    /// One sleeper wakes, FIFO (exclusive at the tail; wake one; `notify_one`).
    Exclusive,
    /// One sleeper wakes, the newest (exclusive at the head; accept primitive only).
    LifoExclusive,
}

impl WakeMode {
    /// The names the CLI and the URL use, in order.
    pub const NAMES: [&'static str; 3] = ["wake-all", "exclusive", "lifo-exclusive"];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "wake-all" => Some(WakeMode::WakeAll),
            "exclusive" => Some(WakeMode::Exclusive),
            "lifo-exclusive" => Some(WakeMode::LifoExclusive),
            _ => None,
        }
    }

    /// How the accept path queues its sleepers in this mode.
    pub fn enqueue(self) -> Enqueue {
        match self {
            WakeMode::WakeAll => Enqueue::NonExclusiveHead,
            WakeMode::Exclusive => Enqueue::ExclusiveTail,
            WakeMode::LifoExclusive => Enqueue::ExclusiveHead,
        }
    }

    /// How many a futex or condition-variable producer wakes per job in this mode.
    pub fn wake_count(self) -> WakeCount {
        match self {
            WakeMode::WakeAll => WakeCount::All,
            WakeMode::Exclusive | WakeMode::LifoExclusive => WakeCount::Up(1),
        }
    }
}

/// The correct algorithm or a deliberately broken one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The kernel's order: queue, set state, test, sleep.
    Correct,
    /// Test first, then queue and sleep: loses wakeups.
    BrokenSleeper,
}

impl Variant {
    /// The names the CLI and the URL use, in order (the correct one first).
    pub const NAMES: [&'static str; 2] = ["correct", "broken-sleeper"];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "correct" => Some(Variant::Correct),
            "broken-sleeper" => Some(Variant::BrokenSleeper),
            _ => None,
        }
    }

    /// One line on what the variant does.
    pub fn story(self) -> &'static str {
        match self {
            Variant::Correct => "queue the wait entry and mark the task sleeping, then test, then sleep",
            Variant::BrokenSleeper => {
                "tests the accept queue before queueing itself: a connection in the gap is never announced"
            }
        }
    }
}

/// What the threads sleep on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Primitive {
    /// A blocking `accept()` on one listening socket.
    Accept,
    /// `futex_wait` on one word.
    Futex,
    /// A condition variable under a mutex.
    Condvar,
}

impl Primitive {
    /// The names the CLI and the URL use, in order.
    pub const NAMES: [&'static str; 3] = ["accept", "futex", "condvar"];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "accept" => Some(Primitive::Accept),
            "futex" => Some(Primitive::Futex),
            "condvar" => Some(Primitive::Condvar),
            _ => None,
        }
    }
}

/// The parameters of a herd scenario. [`crate::scenario`] validates them; see its table for ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HerdParams {
    /// Worker threads, 1-64.
    pub workers: u32,
    /// CPUs, 1-16.
    pub cpus: u32,
    /// How sleepers are queued and woken.
    pub mode: WakeMode,
    /// How connections arrive.
    pub arrival: ArrivalPattern,
    /// Connections per burst (`arrival = burst`), 1-1024.
    pub burst: u32,
    /// Poisson arrival rate per second (`arrival = poisson`), 1-10,000,000.
    pub rate: u32,
    /// Connections in the whole run, 1-1,000,000.
    pub connections: u32,
    /// Nanoseconds of work per connection, 0-100,000,000.
    pub service_ns: u64,
    /// Correct or broken sleeper.
    pub variant: Variant,
    /// What the threads sleep on.
    pub primitive: Primitive,
    /// The seed of every random choice.
    pub seed: u64,
}

impl Default for HerdParams {
    fn default() -> Self {
        HerdParams {
            workers: 8,
            cpus: 2,
            mode: WakeMode::WakeAll,
            arrival: ArrivalPattern::OnDemand,
            burst: 4,
            rate: 10_000,
            connections: 1000,
            service_ns: 5_000,
            variant: Variant::Correct,
            primitive: Primitive::Accept,
            seed: 1,
        }
    }
}

/// A thread of a herd scenario.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HerdThread {
    /// A worker in `accept()`.
    Accept(accept_worker::AcceptWorker),
    /// A worker in `futex_wait`.
    FutexWorker(futex_herd::FutexWorker),
    /// The futex producer.
    FutexProducer(futex_herd::FutexProducer),
    /// A worker in `cv.wait`.
    CondvarWorker(condvar_herd::CondvarWorker),
    /// The condition-variable producer.
    CondvarProducer(condvar_herd::CondvarProducer),
}

macro_rules! each {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            HerdThread::Accept($m) => $e,
            HerdThread::FutexWorker($m) => $e,
            HerdThread::FutexProducer($m) => $e,
            HerdThread::CondvarWorker($m) => $e,
            HerdThread::CondvarProducer($m) => $e,
        }
    };
}

impl HerdThread {
    /// Straight-line form: run this thread's step table from where it is until it exits (a
    /// worker: when the listener is shut down or STOP is set with no job left; a producer: after
    /// its stop). On a platform error it stays where the run stopped.
    pub fn run<P: crate::machine::steps::Ops + ?Sized>(
        &mut self,
        p: &mut P,
    ) -> Result<(), P::Error> {
        each!(self, m => m.run(p))
    }
}

impl Machine for HerdThread {
    fn next_op(&self) -> Op {
        each!(self, m => m.next_op())
    }
    fn complete(&mut self, result: OpResult) {
        each!(self, m => m.complete(result))
    }
    fn line(&self) -> u16 {
        each!(self, m => m.line())
    }
    fn listing(&self) -> &'static [&'static str] {
        each!(self, m => m.listing())
    }
    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        each!(self, m => m.kernel_line(phase))
    }
}

/// A herd simulation.
pub type HerdSim = Simulation<HerdThread>;

impl HerdParams {
    /// How the modelled accept path waits under these parameters.
    pub fn accept_model(&self) -> AcceptModel {
        AcceptModel {
            enqueue: self.mode.enqueue(),
            order: match self.variant {
                Variant::Correct => SleeperOrder::EnqueueThenTest,
                Variant::BrokenSleeper => SleeperOrder::TestThenEnqueue,
            },
        }
    }

    /// The threads of this scenario with their roles: the workers first, then the producer (futex
    /// and condvar primitives only).
    pub fn threads(&self) -> Vec<(HerdThread, Role)> {
        let n = self.workers as usize;
        let mut v = Vec::with_capacity(n + 1);
        match self.primitive {
            Primitive::Accept => {
                let model = self.accept_model();
                for _ in 0..n {
                    v.push((
                        HerdThread::Accept(accept_worker::AcceptWorker::new(
                            self.service_ns,
                            model,
                        )),
                        Role::Worker,
                    ));
                }
            }
            Primitive::Futex => {
                for _ in 0..n {
                    v.push((
                        HerdThread::FutexWorker(futex_herd::FutexWorker::new(self.service_ns)),
                        Role::Worker,
                    ));
                }
                v.push((
                    HerdThread::FutexProducer(futex_herd::FutexProducer::new(
                        self.mode.wake_count(),
                    )),
                    Role::Producer,
                ));
            }
            Primitive::Condvar => {
                for _ in 0..n {
                    v.push((
                        HerdThread::CondvarWorker(condvar_herd::CondvarWorker::new(
                            self.service_ns,
                        )),
                        Role::Worker,
                    ));
                }
                v.push((
                    HerdThread::CondvarProducer(condvar_herd::CondvarProducer::new(
                        self.mode.wake_count(),
                    )),
                    Role::Producer,
                ));
            }
        }
        v
    }

    /// A fresh simulation of these parameters with the default cost model. The parameters should be
    /// valid ([`crate::scenario::validate_herd`]); out-of-range values are clamped to keep the
    /// simulator safe, never to hide an error from a user.
    pub fn simulate(&self) -> HerdSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model.
    pub fn simulate_with(&self, cost: CostModel) -> HerdSim {
        let world = WorldSpec {
            words: 2,
            mutexes: 1,
            condvars: 1,
            sems: 0,
            network: self.primitive == Primitive::Accept,
            accept: self.accept_model(),
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
            net: None,
            sched: crate::sim::SchedPolicy::Fifo,
        };
        Simulation::new(world, self.threads())
    }
}
