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
pub mod params;
pub mod shmtx;
pub mod ticket;
pub mod ttas;
pub use params::{Locks, LOCK_NAMES, SHMTX_VARIANT_NAMES};

use serde::{Deserialize, Serialize};

use crate::cost::CostModel;
use crate::machine::steps::{exec, Next, Ops, Stopped};
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
    /// For `shmtx`: thread 0 dies inside its first critical section, holding the lock.
    pub crash: bool,
    /// With `crash`: a master process reaps the dead worker and runs `ngx_shmtx_force_unlock`
    /// with its pid (nginx's `ngx_unlock_mutexes`). Without it, the others wait forever.
    pub master: bool,
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
            crash: false,
            master: true,
            seed: 1,
        }
    }
}

// An explicit tag (no niche in the locks' own fields): the native driver tests it on every step,
// and decoding a niche cost more instructions than the step's atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
enum Algo {
    Shmtx(Shmtx),
    Master(Master),
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
    /// Died holding the lock: the kernel records the exit and wakes the parent (`waitpid`).
    Dying,
    /// All rounds done (or dead).
    Done,
}

/// The word where the kernel records a dead worker's pid for its parent (the exit status
/// `waitpid` returns); 0 while nobody died.
pub const DEAD: crate::op::Word = crate::op::Word(3);

/// The master process of a crash scenario: it waits for a worker to die, then runs
/// `ngx_shmtx_force_unlock(mtx, pid)`: CAS `lock` pid → 0 and, on success, the same wakeup as an
/// unlock (`src/core/ngx_shmtx.c`; called from `ngx_unlock_mutexes` in `src/os/unix/ngx_process.c`
/// for every child the master reaps, since nginx 1.1.9). Its table is [`MasterStep`]; its listing
/// names the unlock's lines ([`shmtx::Ln`]), so force_unlock's states show where the unlock's do.
///
/// | state | line | op | next |
/// |---|---|---|---|
/// | `Reap` | Reap | `futex_wait(&dead, 0)` (waitpid) | `ReadPid` |
/// | `ReadPid` | Reap | load `dead` | `Force` with that pid (or `Reap` if 0) |
/// | `Force` | the unlock's | the [`shmtx::Unlock`] table for the dead pid | done |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Master {
    /// `None` once force_unlock is over.
    step: Option<MasterStep>,
    /// The lock as the dead worker held it (pid 0 until `ReadPid`, and again once done); it also
    /// carries the lock's configuration (no field of its own: the checker copies every thread on
    /// every transition).
    force: Shmtx,
}

crate::steps! {
    /// Where the master is.
    enum MasterStep(m: Master) -> (), line shmtx::Ln {
        /// `waitpid`: sleep until a worker dies.
        Reap @ shmtx::Ln::Reap => futex_wait(DEAD, 0) => |_| Go(MasterStep::ReadPid);
        /// Read the dead worker's pid.
        ReadPid @ shmtx::Ln::Reap => load(DEAD) => |pid| {
            if pid == 0 {
                Go(MasterStep::Reap)
            } else {
                m.force = Shmtx::new(m.force.config(), pid);
                m.force.start_unlock();
                Go(MasterStep::Force)
            }
        };
        /// `ngx_shmtx_force_unlock(mtx, pid)`: the unlock's table with the dead pid.
        Force @ m.force.unlock_line_name() => call(shmtx::Unlock, m.force) => |()| Done(());
    }
}

const MASTER_LISTING: shmtx::Listing = crate::listing![shmtx::Ln;
    ([shmtx::Ln::Entry], "// master process"),
    ([shmtx::Ln::Reap], "pid = waitpid()                              // sleep until a worker dies"),
    ([], "// ngx_unlock_mutexes(pid) -> ngx_shmtx_force_unlock(mtx, pid):"),
    ([shmtx::Ln::Release], "if cas(lock, pid, 0):                        // it died holding the lock"),
    ([shmtx::Ln::WakeLoop], "  w = wait; while w > 0 (signed):            // the unlock's wakeup"),
    ([shmtx::Ln::WakeOne], "    if cas(wait, w, w - 1): sem_post(sem); stop"),
];

crate::steps! {
    /// A worker that dies in its critical section: the kernel records its pid for the parent
    /// (`waitpid`'s status) and wakes the parent. Both steps show the critical section's line.
    enum Die(m: LockWorker) -> (), line shmtx::Ln {
        /// Record the exit.
        Record @ shmtx::Ln::Critical => store(DEAD, m.pid) => |()| Go(Die::Notify);
        /// Wake the parent.
        Notify @ shmtx::Ln::Critical => futex_wake(DEAD, crate::op::WakeCount::All) => |_| Done(());
    }
}

/// A thread that takes and releases one lock, `rounds` times (or, in a crash scenario, the master).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LockWorker {
    algo: Algo,
    phase: Phase,
    rounds_left: u32,
    cs_ns: u64,
    acquired: u32,
    pid: u32,
    crash: bool,
    die: Die,
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
            pid: index + 1,
            crash: p.crash && index == 0 && p.lock == LockKind::Shmtx,
            die: Die::Record,
        }
    }

    /// The master process of a crash scenario.
    pub fn master(p: &LockParams) -> Self {
        let cfg = ShmtxConfig {
            spin: p.spin,
            ncpu: p.cpus,
            semaphore: p.semaphore,
            variant: p.variant,
        };
        LockWorker {
            algo: Algo::Master(Master {
                step: Some(MasterStep::Reap),
                force: Shmtx::new(cfg, 0),
            }),
            phase: Phase::Unlock,
            rounds_left: 1,
            cs_ns: 0,
            acquired: 0,
            pid: 0,
            crash: false,
            die: Die::Record,
        }
    }

    /// True for the master process of a crash scenario.
    pub fn is_master(&self) -> bool {
        matches!(self.algo, Algo::Master(_))
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

    /// `ngx_shmtx` only: between the `wait` CAS and the `sem_post` (invariant 2's set F), in an
    /// unlock or in the master's force_unlock.
    pub fn is_posting(&self) -> bool {
        match self.algo {
            Algo::Shmtx(s) => self.phase == Phase::Unlock && s.is_posting(),
            Algo::Master(Master {
                step: Some(MasterStep::Force),
                force,
                ..
            }) => force.is_posting(),
            _ => false,
        }
    }

    fn start_lock(&mut self) {
        match &mut self.algo {
            Algo::Master(_) => {}
            Algo::Shmtx(s) => s.start_lock(),
            Algo::Ttas(s) => s.start_lock(),
            Algo::Ticket(s) => s.start_lock(),
            Algo::Futex(s) => s.start_lock(),
        }
    }

    fn start_unlock(&mut self) {
        match &mut self.algo {
            Algo::Master(_) => {}
            Algo::Shmtx(s) => s.start_unlock(),
            Algo::Futex(s) => s.start_unlock(),
            Algo::Ttas(_) | Algo::Ticket(_) => {}
        }
    }

    /// An unlock finished: on to the next round's lock, or done.
    #[inline(always)]
    fn end_round(&mut self) {
        self.rounds_left -= 1;
        if self.rounds_left == 0 {
            self.phase = Phase::Done;
        } else {
            self.start_lock();
            self.phase = Phase::Lock;
        }
    }

    /// Execute the next step on `p` with the stepped form (one operation, then its transition).
    #[inline(always)]
    pub fn step_on<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        let r = exec(p, self.next_op())?;
        self.complete(r);
        Ok(())
    }

    /// Straight-line form of the lock phase: take the lock on `p` (from [`Phase::Lock`] to
    /// [`Phase::Critical`]; nothing in any other phase): the lock's step table runs straight. Ends
    /// in the state that stepping would reach.
    #[inline(always)]
    pub fn lock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        if self.phase != Phase::Lock {
            return Ok(());
        }
        match &mut self.algo {
            Algo::Shmtx(s) => s.lock_run(p)?,
            Algo::Ttas(s) => s.lock_run(p)?,
            Algo::Ticket(s) => s.lock_run(p)?,
            Algo::Futex(s) => s.lock_run(p)?,
            Algo::Master(_) => return Ok(()),
        }
        self.acquired += 1;
        self.phase = Phase::Critical;
        Ok(())
    }

    /// Straight-line form of the unlock phase: release the lock on `p` (from [`Phase::Unlock`] to the
    /// next round's [`Phase::Lock`] or [`Phase::Done`]; nothing in any other phase). The master
    /// runs its whole table (reap, then force_unlock).
    #[inline(always)]
    pub fn unlock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        if self.phase != Phase::Unlock {
            return Ok(());
        }
        match &mut self.algo {
            Algo::Shmtx(s) => s.unlock_run(p)?,
            Algo::Ttas(s) => s.unlock_run(p)?,
            Algo::Ticket(s) => s.unlock_run(p)?,
            Algo::Futex(s) => s.unlock_run(p)?,
            Algo::Master(m) => {
                m.run(p)?;
                self.phase = Phase::Done;
                return Ok(());
            }
        }
        self.end_round();
        Ok(())
    }

    fn critical_line(&self) -> u16 {
        match &self.algo {
            Algo::Shmtx(_) | Algo::Master(_) => shmtx::CRITICAL_LINE,
            Algo::Ttas(t) => t.critical_line(),
            Algo::Ticket(t) => t.critical_line(),
            Algo::Futex(t) => t.critical_line(),
        }
    }

    /// The line a thread that is done rests on: its listing's first.
    fn entry_line(&self) -> u16 {
        match &self.algo {
            Algo::Shmtx(s) => s.named_listing().of(shmtx::Ln::Entry),
            Algo::Master(_) => MASTER_LISTING.of(shmtx::Ln::Entry),
            Algo::Ttas(t) => t.named_listing().of(ttas::Ln::Entry),
            Algo::Ticket(t) => t.named_listing().of(ticket::Ln::Entry),
            Algo::Futex(t) => t.named_listing().of(futex_mutex::Ln::Entry),
        }
    }
}

impl Master {
    #[inline(always)]
    fn next_op(&self) -> Op {
        match self.step {
            Some(s) => s.op(self),
            None => Op::Exit,
        }
    }

    #[inline(always)]
    fn complete(&mut self, r: OpResult) {
        if let Some(s) = self.step {
            self.step = match s.complete(self, r) {
                Next::Go(s) => Some(s),
                Next::Done(()) => self.finish(),
            };
        }
    }

    /// force_unlock is over: the master is done (and keeps no trace of the dead pid).
    fn finish(&mut self) -> Option<MasterStep> {
        self.force = Shmtx::new(self.force.config(), 0);
        None
    }

    /// Straight-line form: reap and force_unlock to the end.
    fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        let Some(s) = self.step else { return Ok(()) };
        match s.run(self, p) {
            Ok(_) => {
                self.step = self.finish();
                Ok(())
            }
            Err(Stopped { state, error }) => {
                self.step = Some(state);
                Err(error)
            }
        }
    }

    fn line(&self) -> u16 {
        MASTER_LISTING.of(match self.step {
            Some(s) => s.line(self),
            None => shmtx::Ln::Entry,
        })
    }
}

impl Machine for LockWorker {
    #[inline(always)]
    fn next_op(&self) -> Op {
        // the master is always in `Phase::Unlock` (until done), so the phase decides first
        match self.phase {
            Phase::Lock => match &self.algo {
                Algo::Master(m) => m.next_op(),
                Algo::Shmtx(s) => s.lock_op(),
                Algo::Ttas(s) => s.lock_op(),
                Algo::Ticket(s) => s.lock_op(),
                Algo::Futex(s) => s.lock_op(),
            },
            Phase::Critical => Op::Work(self.cs_ns),
            Phase::Dying => self.die.op(self),
            Phase::Unlock => match &self.algo {
                Algo::Master(m) => m.next_op(),
                Algo::Shmtx(s) => s.unlock_op(),
                Algo::Ttas(s) => s.unlock_op(),
                Algo::Ticket(s) => s.unlock_op(),
                Algo::Futex(s) => s.unlock_op(),
            },
            Phase::Done => Op::Exit,
        }
    }

    #[inline(always)]
    fn complete(&mut self, r: OpResult) {
        match self.phase {
            Phase::Lock => {
                let p = match &mut self.algo {
                    Algo::Master(_) => Progress::Pending,
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
                if self.crash && self.acquired == 1 {
                    // dies here, holding the lock
                    self.phase = Phase::Dying;
                    return;
                }
                self.start_unlock();
                self.phase = Phase::Unlock;
            }
            Phase::Dying => {
                let d = self.die;
                match d.complete(self, r) {
                    Next::Go(d) => self.die = d,
                    Next::Done(()) => self.phase = Phase::Done,
                }
            }
            Phase::Unlock => {
                let p = match &mut self.algo {
                    Algo::Master(m) => {
                        m.complete(r);
                        if m.step.is_none() {
                            self.phase = Phase::Done;
                        }
                        return;
                    }
                    Algo::Shmtx(s) => s.unlock_complete(r),
                    Algo::Futex(s) => s.unlock_complete(r),
                    Algo::Ttas(s) => s.unlock_complete(r),
                    Algo::Ticket(s) => s.unlock_complete(r),
                };
                if p == Progress::Finished {
                    self.end_round();
                }
            }
            Phase::Done => {}
        }
    }

    fn line(&self) -> u16 {
        if let Algo::Master(m) = &self.algo {
            return m.line();
        }
        match self.phase {
            Phase::Dying => match &self.algo {
                Algo::Shmtx(s) => s.named_listing().of(self.die.line(self)),
                _ => self.critical_line(),
            },
            Phase::Lock => match &self.algo {
                Algo::Master(_) => self.entry_line(),
                Algo::Shmtx(s) => s.lock_line(),
                Algo::Ttas(s) => s.lock_line(),
                Algo::Ticket(s) => s.lock_line(),
                Algo::Futex(s) => s.lock_line(),
            },
            Phase::Critical => self.critical_line(),
            Phase::Unlock => match &self.algo {
                Algo::Master(_) => self.entry_line(),
                Algo::Shmtx(s) => s.unlock_line(),
                Algo::Ttas(s) => s.unlock_line(),
                Algo::Ticket(s) => s.unlock_line(),
                Algo::Futex(s) => s.unlock_line(),
            },
            Phase::Done => self.entry_line(),
        }
    }

    fn holds_word_lock(&self) -> Option<crate::op::Word> {
        // every algorithm's "lock" is named by shmtx's lock word (the ticket lock's too: the
        // lane is the lock, whatever words its algorithm uses)
        self.in_critical().then_some(shmtx::LOCK)
    }

    fn in_failed_spin(&self) -> bool {
        matches!((self.phase, &self.algo), (Phase::Lock, Algo::Shmtx(s)) if s.in_failed_spin())
    }

    fn skip_pauses(&mut self) -> u32 {
        match (self.phase, &mut self.algo) {
            (Phase::Lock, Algo::Shmtx(s)) => s.skip_pauses(),
            _ => crate::machine::complete_pauses(self),
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        match &self.algo {
            Algo::Master(_) => MASTER_LISTING.text,
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
        let mut v: Vec<(LockWorker, Role)> = (0..self.threads)
            .map(|i| (LockWorker::new(self, i), Role::Peer))
            .collect();
        if self.crash && self.master && self.lock == LockKind::Shmtx {
            v.push((LockWorker::master(self), Role::Peer));
        }
        v
    }

    /// A fresh simulation with the default cost model.
    pub fn simulate(&self) -> LockSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model.
    pub fn simulate_with(&self, cost: CostModel) -> LockSim {
        let world = WorldSpec {
            words: 4,
            mutexes: 0,
            condvars: 0,
            sems: 1,
            network: false,
            accept: Default::default(),
            cpus: self.cpus.clamp(1, 64) as u8,
            cost,
            arrivals: Arrivals::new(ArrivalPattern::OnDemand, 0, 1, 1, self.seed),
            seed: self.seed,
            net: None,
            sched: crate::sim::SchedPolicy::Fifo,
        };
        Simulation::new(world, self.threads())
    }
}
