//! Locks: nginx's `ngx_shmtx` and its rivals, as step-able state machines.
//!
//! Each worker thread ([`LockWorker`]) runs `rounds` rounds of lock → critical section → unlock with
//! one lock algorithm ([`LockKind`]):
//! - [`shmtx`]: nginx's `ngx_shmtx` (CAS on a pid word, exponential spin with `pause`, then a
//!   semaphore, or `sched_yield` without one), with its broken variants ([`shmtx::ShmtxVariant`]);
//! - [`ttas`]: a test-and-test-and-set spinlock, and the same with `sched_yield` after 64 spins;
//! - [`ticket`]: a ticket lock (FIFO);
//! - [`futex_mutex`]: a three-state futex mutex in the style of `std::sync::Mutex` on Linux.
//!
//! The same machines run in the simulator, in the model checker ([`crate::check`]) and on real threads
//! (`herdlab bench locks`).

pub mod futex_mutex;
pub mod invariants;
pub mod shmtx;
pub mod ticket;
pub mod ttas;

use serde::{Deserialize, Serialize};

use crate::cost::CostModel;
use crate::machine::Machine;
use crate::op::{Op, OpResult};
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
use crate::sim::{Role, Simulation, WorldSpec};
use shmtx::{Progress, Shmtx, ShmtxConfig, ShmtxVariant};

/// Which lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockKind {
    /// nginx's `ngx_shmtx`.
    Shmtx,
    /// Test-and-test-and-set spinlock.
    Ttas,
    /// TTAS that yields after 64 failed tests.
    SpinYield,
    /// Ticket lock.
    Ticket,
    /// Three-state futex mutex.
    Futex,
}

impl LockKind {
    /// Every kind, in display order.
    pub const ALL: [LockKind; 5] = [
        LockKind::Shmtx,
        LockKind::Ttas,
        LockKind::SpinYield,
        LockKind::Ticket,
        LockKind::Futex,
    ];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        match self {
            LockKind::Shmtx => "shmtx",
            LockKind::Ttas => "ttas",
            LockKind::SpinYield => "spin-yield",
            LockKind::Ticket => "ticket",
            LockKind::Futex => "futex",
        }
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// How many failed tests the spin-then-yield lock makes before it yields, by default.
pub const SPIN_YIELD_AFTER: u32 = 64;

/// The parameters of a lock scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LockParams {
    /// Which lock.
    pub lock: LockKind,
    /// For `shmtx`: which code.
    pub variant: ShmtxVariant,
    /// Threads, 1-16.
    pub threads: u32,
    /// Lock/unlock rounds per thread, 1-1000000.
    pub rounds: u32,
    /// CPUs, 1-16 (also `ngx_ncpu`).
    pub cpus: u32,
    /// For `shmtx`: `mtx->spin`, 1-65536 (nginx: 2048).
    pub spin: u32,
    /// For `shmtx`: whether the semaphore exists (else `sched_yield`).
    pub semaphore: bool,
    /// For `spin-yield`: failed tests before each `sched_yield`, 1-65536 (default 64).
    pub yield_after: u32,
    /// Nanoseconds of work inside the critical section, 0-10000000.
    pub cs_ns: u64,
    /// The seed.
    pub seed: u64,
}

impl Default for LockParams {
    fn default() -> Self {
        LockParams {
            lock: LockKind::Shmtx,
            variant: ShmtxVariant::Correct,
            threads: 4,
            rounds: 20,
            cpus: 2,
            spin: shmtx::NGINX_SPIN,
            semaphore: true,
            yield_after: SPIN_YIELD_AFTER,
            cs_ns: 100,
            seed: 1,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Algo {
    Shmtx(Shmtx),
    Ttas(ttas::Ttas),
    Ticket(ticket::Ticket),
    Futex(futex_mutex::FutexMutex),
}

/// Where a worker is in its round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Taking the lock.
    Lock,
    /// Inside the critical section.
    Critical,
    /// Releasing the lock.
    Unlock,
    /// All rounds done.
    Done,
}

/// A thread that takes and releases one lock, `rounds` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LockWorker {
    algo: Algo,
    phase: Phase,
    rounds_left: u32,
    cs_ns: u64,
    acquired: u32,
}

impl LockWorker {
    /// Thread `index` (0-based; its pid is `index + 1`) of a scenario.
    pub fn new(p: &LockParams, index: u32) -> Self {
        let algo = match p.lock {
            LockKind::Shmtx => Algo::Shmtx(Shmtx::new(
                ShmtxConfig {
                    spin: p.spin,
                    ncpu: p.cpus,
                    semaphore: p.semaphore,
                    variant: p.variant,
                },
                index + 1,
            )),
            LockKind::Ttas => Algo::Ttas(ttas::Ttas::spin()),
            LockKind::SpinYield => Algo::Ttas(ttas::Ttas::spin_then_yield(p.yield_after)),
            LockKind::Ticket => Algo::Ticket(ticket::Ticket::default()),
            LockKind::Futex => Algo::Futex(futex_mutex::FutexMutex::default()),
        };
        LockWorker {
            algo,
            phase: if p.rounds == 0 {
                Phase::Done
            } else {
                Phase::Lock
            },
            rounds_left: p.rounds,
            cs_ns: p.cs_ns,
            acquired: 0,
        }
    }

    /// Where it is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// True inside the critical section.
    pub fn in_critical(&self) -> bool {
        self.phase == Phase::Critical
    }

    /// Critical sections entered so far.
    pub fn acquired(&self) -> u32 {
        self.acquired
    }

    /// `ngx_shmtx` only: announced in `wait` and not yet undone or woken (invariant 2's set A).
    pub fn is_announced(&self) -> bool {
        matches!(self.algo, Algo::Shmtx(s) if s.is_announced())
    }

    /// `ngx_shmtx` only: between the `wait` CAS and the `sem_post` (invariant 2's set F).
    pub fn is_posting(&self) -> bool {
        self.phase == Phase::Unlock && matches!(self.algo, Algo::Shmtx(s) if s.is_posting())
    }

    fn start_lock(&mut self) {
        match &mut self.algo {
            Algo::Shmtx(s) => s.start_lock(),
            Algo::Ttas(s) => s.start_lock(),
            Algo::Ticket(s) => s.start_lock(),
            Algo::Futex(s) => s.start_lock(),
        }
    }

    fn start_unlock(&mut self) {
        match &mut self.algo {
            Algo::Shmtx(s) => s.start_unlock(),
            Algo::Futex(s) => s.start_unlock(),
            Algo::Ttas(_) | Algo::Ticket(_) => {}
        }
    }

    fn critical_line(&self) -> u16 {
        match &self.algo {
            Algo::Shmtx(_) => 16,
            Algo::Ttas(t) => t.critical_line(),
            Algo::Ticket(_) => 4,
            Algo::Futex(_) => 5,
        }
    }
}

impl Machine for LockWorker {
    fn next_op(&self) -> Op {
        match self.phase {
            Phase::Lock => match &self.algo {
                Algo::Shmtx(s) => s.lock_op(),
                Algo::Ttas(s) => s.lock_op(),
                Algo::Ticket(s) => s.lock_op(),
                Algo::Futex(s) => s.lock_op(),
            },
            Phase::Critical => Op::Work(self.cs_ns),
            Phase::Unlock => match &self.algo {
                Algo::Shmtx(s) => s.unlock_op(),
                Algo::Ttas(s) => s.unlock_op(),
                Algo::Ticket(s) => s.unlock_op(),
                Algo::Futex(s) => s.unlock_op(),
            },
            Phase::Done => Op::Exit,
        }
    }

    fn complete(&mut self, r: OpResult) {
        match self.phase {
            Phase::Lock => {
                let p = match &mut self.algo {
                    Algo::Shmtx(s) => s.lock_complete(r),
                    Algo::Ttas(s) => s.lock_complete(r),
                    Algo::Ticket(s) => s.lock_complete(r),
                    Algo::Futex(s) => s.lock_complete(r),
                };
                if p == Progress::Finished {
                    self.acquired += 1;
                    self.phase = Phase::Critical;
                }
            }
            Phase::Critical => {
                self.start_unlock();
                self.phase = Phase::Unlock;
            }
            Phase::Unlock => {
                let p = match &mut self.algo {
                    Algo::Shmtx(s) => s.unlock_complete(r),
                    Algo::Futex(s) => s.unlock_complete(r),
                    Algo::Ttas(_) | Algo::Ticket(_) => Progress::Finished,
                };
                if p == Progress::Finished {
                    self.rounds_left -= 1;
                    if self.rounds_left == 0 {
                        self.phase = Phase::Done;
                    } else {
                        self.start_lock();
                        self.phase = Phase::Lock;
                    }
                }
            }
            Phase::Done => {}
        }
    }

    fn line(&self) -> u16 {
        match self.phase {
            Phase::Lock => match &self.algo {
                Algo::Shmtx(s) => s.lock_line(),
                Algo::Ttas(s) => s.lock_line(),
                Algo::Ticket(s) => s.lock_line(),
                Algo::Futex(s) => s.lock_line(),
            },
            Phase::Critical => self.critical_line(),
            Phase::Unlock => match &self.algo {
                Algo::Shmtx(s) => s.unlock_line(),
                Algo::Ttas(s) => s.unlock_line(),
                Algo::Ticket(_) => 5,
                Algo::Futex(s) => s.unlock_line(),
            },
            Phase::Done => 1,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        match &self.algo {
            Algo::Shmtx(s) => s.listing(),
            Algo::Ttas(s) => s.listing(),
            Algo::Ticket(s) => s.listing(),
            Algo::Futex(s) => s.listing(),
        }
    }
}

/// A lock simulation.
pub type LockSim = Simulation<LockWorker>;

impl LockParams {
    /// The threads of this scenario.
    pub fn threads(&self) -> Vec<(LockWorker, Role)> {
        (0..self.threads)
            .map(|i| (LockWorker::new(self, i), Role::Peer))
            .collect()
    }

    /// A fresh simulation with the default cost model.
    pub fn simulate(&self) -> LockSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model.
    pub fn simulate_with(&self, cost: CostModel) -> LockSim {
        let world = WorldSpec {
            words: 2,
            mutexes: 0,
            condvars: 0,
            sems: 1,
            network: false,
            accept: Default::default(),
            cpus: self.cpus.clamp(1, 64) as u8,
            cost,
            arrivals: Arrivals::new(ArrivalPattern::OnDemand, 0, 1, 1, self.seed),
            seed: self.seed,
        };
        Simulation::new(world, self.threads())
    }
}
