//! The scheduler's M as one step table ([`Sched`]): `schedule`, `findRunnable` (local, global,
//! steal, park), `runqput` / `runqputslow`, `runqget`, `runqgrab` / `runqsteal`, the global queue
//! under `sched.lock`, `wakep` / `startm`, the park protocol and `stopm`; [`GmpActor`] is the one
//! [`Machine`] type the simulator steps. What a G does when it runs is the small separate
//! [`Workload::action`], or, where a platform gives the Gs their code, a [`GCode`] (natively:
//! each G a Rust future, polled by the M that runs it; the table is the same either way).
//!
//! Subroutines (`runqput`, `wakep`) are states of the same table; where they return to is a
//! continuation register of the M ([`PutRet`], [`WakeRet`]), so each state still issues exactly one
//! primitive and the straight-line form is one loop over the table.
//!
//! The module docs of [`crate::mechanisms::gmp`] give the memory layout, the invariants and the sources.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::machine::steps::{Next, Ops, Stopped};
use crate::machine::Machine;
use crate::op::{MutexId, Op, OpResult, WakeCount, Word};

/// `sched.nmspinning`.
pub const NMSPINNING: Word = Word(0);
/// `sched.npidle`.
pub const NPIDLE: Word = Word(1);
/// `sched.pidle` as `idlepMask`: bit p set while P p is idle (under [`SCHED_LOCK`]).
pub const PIDLE: Word = Word(2);
/// `sched.midle`: bit m set while M m is parked in `stopm` (under [`SCHED_LOCK`]).
pub const MIDLE: Word = Word(3);
/// `sched.runq.head`: the first G of the global queue (0 = empty).
pub const GHEAD: Word = Word(4);
/// `sched.runq.tail`.
pub const GTAIL: Word = Word(5);
/// `sched.runq.size`.
pub const GSIZE: Word = Word(6);
/// Live Gs (created, not yet dead): the program ends when it falls to 0.
pub const LIVE: Word = Word(7);
/// 1 once the last G has exited: Ms leave `stopm` and exit.
pub const DONE: Word = Word(8);
/// `sched.needspinning`: `wakep` found no idle P; the next M to park must spin instead.
pub const NEEDSPIN: Word = Word(9);
/// The first per-P word.
pub const P_BASE: u32 = 10;
/// Words per P besides its ring: `runqhead`, `runqtail`, `runnext`, `m` (owner M + 1).
pub const P_WORDS: u32 = 4;
/// Words per G: `atomicstatus`, `schedlink`, its wait word, `sched` (the saved `pc`).
pub const G_WORDS: u32 = 4;
/// Bit of an M's `nextp` word: the M was started spinning (`startm(pp, spinning=true)`).
pub const SPIN_BIT: u32 = 0x100;
/// `sched.lock`.
pub const SCHED_LOCK: MutexId = MutexId(0);
/// `usleep(3)` before stealing a victim's `runnext`.
pub const RUNNEXT_STEAL_SLEEP_NS: u64 = 3_000;
/// `stealTries`.
pub const STEAL_TRIES: u32 = 4;
/// No P / no M.
pub const NONE: u32 = u32::MAX;
/// `forcePreemptNS`: the time slice sysmon gives a P's `schedtick` before `preemptone` (10 ms).
pub const FORCE_PREEMPT_NS: u64 = 10_000_000;
/// sysmon polls the network when nobody has for longer than this (`lastpoll + 10ms < now`).
pub const SYSMON_NETPOLL_NS: u64 = 10_000_000;
/// `retake`'s grace for a syscall on a P with an empty queue while spinning or idle Ps exist.
pub const SYSCALL_GRACE_NS: u64 = 10_000_000;
/// sysmon's first sleep, in µs (`usleep(20)`).
pub const SYSMON_MIN_US: u32 = 20;
/// sysmon's longest sleep, in µs (10 ms).
pub const SYSMON_MAX_US: u32 = 10_000;
/// sysmon doubles its sleep once more than this many rounds in a row did nothing.
pub const SYSMON_IDLE_ROUNDS: u32 = 50;
/// A call-free loop (the `hog` workload) runs in slices of this many ns; between two slices is an
/// async-safe point where a `SIGURG` preemption lands.
pub const HOG_SLICE_NS: u64 = 100_000;
/// Where the ghost count of inherited `execute`s saturates (above the invariants' bound).
pub const RUNNEXT_GHOST_CAP: u32 = 8;
/// Words per P of the syscall and preemption state ([`GmpConfig::psys`] and the next three),
/// laid out after the Gs, only for the workloads that have them ([`Workload::sysmon_world`]).
pub const X_WORDS: u32 = 4;

/// G status values (`_Gidle`, `_Grunnable`, `_Grunning`, `_Gdead` as in `runtime2.go`).
pub mod gstatus {
    /// Never created (simulator memory starts zeroed).
    pub const IDLE: u32 = 0;
    /// In a run queue, a `runnext` slot or an M's hands on its way to one.
    pub const RUNNABLE: u32 = 1;
    /// Some M's `curg`.
    pub const RUNNING: u32 = 2;
    /// Parked (`gopark`): on its wait word, in no queue, until a `goready`.
    pub const WAITING: u32 = 4;
    /// In a blocking system call (`_Gsyscall`): still its M's `curg`, in no queue.
    pub const SYSCALL: u32 = 3;
    /// Exited.
    pub const DEAD: u32 = 6;
}

/// Values of a G's wait word (its channel, as the `ping-pong` workload uses it).
pub mod wait {
    /// Nothing sent, nobody waiting.
    pub const EMPTY: u32 = 0;
    /// A token sent before the receiver parked (a oneshot channel holding its value).
    pub const TOKEN: u32 = 1;
    /// The G parked on it (`gopark`'s unlock function published it).
    pub const PARKED: u32 = 2;
}

/// Which code runs: the runtime's, or one of the broken variants of the fact sheet's §5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GmpVariant {
    /// `proc.go` as it is (the parts this model has).
    Correct,
    /// The delicate dance reversed: re-check every queue, *then* drop spinning. A G queued in the
    /// gap sees a spinner, nobody wakes, and it waits while a P idles.
    ReversedDance,
    /// `wakep` without the `nmspinning` test: every new G wakes another M (a herd).
    WakepNoSpinTest,
    /// No spinning limit (`2·nmspinning < GOMAXPROCS − npidle` dropped): idle Ms all spin.
    NoSpinLimit,
    /// `runqgrab` takes one G instead of half.
    StealOne,
    /// No 1-in-61 check of the global queue.
    NoFairness,
    /// For comparison, the Go 1.0 scheduler the 2012 design replaced: one global queue under one
    /// lock, every new G goes there, every M takes one G at a time from it, no local queues and no
    /// stealing (an M woken spinning drops it and re-checks before parking).
    SingleQueue,
    /// sysmon never retakes a P from a syscall: the P stays with the blocked M while Gs wait in
    /// its queue (with GOMAXPROCS=1 everything stops until the syscall returns).
    NoSyscallRetake,
    /// Go before 1.14: no `SIGURG`, only the cooperative check in function prologues. A
    /// call-free loop ignores sysmon's request and starves its P's queue.
    NoAsyncPreemption,
    /// No sysmon, but `runqput` still uses `runnext` (the runtime turns runnext off where there is
    /// no sysmon, e.g. wasm): a ping-pong pair passes one time slice back and forth for ever.
    RunnextWithoutSysmon,
    /// `schedule` runs a G locked to another M (`LockOSThread`) on whichever M picked it,
    /// skipping `startlockedm`: the G leaves its thread.
    LockedRunsAnywhere,
    /// The last M with nothing to do parks in `stopm` instead of blocking in `netpoll`
    /// (findRunnable's step 13 dropped): Gs parked on the poller wait while their readiness sits
    /// in the kernel, and `checkdead` reports a deadlock that is not one.
    NoBlockingNetpoll,
    /// A thread outside every P readies a parked G onto the global queue but skips
    /// `injectglist`'s `startIdle` (`foreign-wake`): with every M asleep in `stopm` the G waits
    /// on the global queue while a P idles, and nobody looks.
    InjectWithoutStartm,
    /// sysmon never polls the network (its "not polled for more than 10 ms" check dropped):
    /// while every P computes, Gs whose answers have come wait in the kernel until some M's
    /// `findRunnable` reaches its own `netpoll` (counted, not caught: they wait, they are not
    /// lost).
    NoSysmonNetpoll,
}

impl GmpVariant {
    /// Every variant, the correct one first.
    pub const ALL: [GmpVariant; 14] = [
        GmpVariant::Correct,
        GmpVariant::ReversedDance,
        GmpVariant::WakepNoSpinTest,
        GmpVariant::NoSpinLimit,
        GmpVariant::StealOne,
        GmpVariant::NoFairness,
        GmpVariant::SingleQueue,
        GmpVariant::NoSyscallRetake,
        GmpVariant::NoAsyncPreemption,
        GmpVariant::RunnextWithoutSysmon,
        GmpVariant::LockedRunsAnywhere,
        GmpVariant::NoBlockingNetpoll,
        GmpVariant::InjectWithoutStartm,
        GmpVariant::NoSysmonNetpoll,
    ];
    /// Their names, as `variant=` takes them.
    pub const NAMES: [&'static str; 14] = [
        "correct",
        "reversed-dance",
        "wakep-no-spin-test",
        "no-spin-limit",
        "steal-one",
        "no-fairness",
        "single-queue",
        "no-syscall-retake",
        "no-async-preemption",
        "runnext-without-sysmon",
        "locked-runs-anywhere",
        "no-blocking-netpoll",
        "inject-without-startm",
        "no-sysmon-netpoll",
    ];
    /// This variant's name.
    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&v| v == self).unwrap_or(0)]
    }
    /// The variant of a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|&n| n == s)
            .map(|i| Self::ALL[i])
    }
}

/// What the Gs of a scenario do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// G1 spawns G2..GN, each works and exits (a CPU hog when the work is long).
    FanOut,
    /// Each G works, then spawns the next (`go next()`) and exits.
    Chain,
    /// G k works, then spawns G 2k and G 2k+1.
    Tree,
    /// tokio's `spawn_many` from the `block_on` thread: a spawner outside every P (not an M) makes
    /// G1..GN runnable on the global queue and starts Ms for idle Ps (`injectglist` with no P);
    /// each G works and exits.
    SpawnMany,
    /// tokio's `yield_many`: the outside spawner makes the Gs; each calls `runtime.Gosched`
    /// `yields` times (to the *global* queue), then works and exits.
    YieldMany,
    /// `yield-many` with `goyield` instead of `Gosched`: each yield puts the G on the tail of
    /// its own P's local ring (no `sched.lock`, no `wakep`), as tokio's `yield_now` puts a task
    /// behind its worker's local queue.
    GoyieldMany,
    /// tokio's `ping_pong`: main spawns one G per pair (G 2k); it works, spawns its partner
    /// (G 2k+1), sends it a token (`goready` if it is parked) and waits for one back (`gopark`
    /// unless it came already); the partner waits, answers and exits.
    PingPong,
    /// Blocking system calls: main spawns G2..GN, then blocks in a syscall of `syscall_ns` and
    /// exits; each even G blocks in a syscall of `syscall_ns`, then computes `work_ns`; each odd
    /// G computes `work_ns`.
    Syscall,
    /// A CPU hog: main spawns G2..GN; G2 is a call-free loop of `hog_ns` (slices of
    /// [`HOG_SLICE_NS`] between async-safe points); the others compute `work_ns` each (on one P
    /// the last one runs first from `runnext`, then G2, and the rest wait behind it).
    Hog,
    /// A ping-pong pair and its victims: main spawns G3, then G2 and G5..GN (each computes
    /// `work_ns`); G3 spawns its partner G4 and the pair passes a token back and forth `rounds`
    /// times through `runnext`, each computing `work_ns` per turn (a function call at each turn:
    /// cooperative preemption).
    Pair,
    /// `runtime.LockOSThread` (a GUI main thread, a cgo callback's thread): main spawns G2..GN;
    /// the first `locked` of them lock their M first; each G then computes `work_ns` and calls
    /// `runtime.Gosched` `yields` times, computes once more and exits. A locked G's every run
    /// after a `Gosched` needs its own M: `stoplockedm` on it, `startlockedm` on the M that
    /// picks the G. Every locked G but the last (G2 … G`locked`) calls
    /// `runtime.UnlockOSThread` after the first half of its yields (rounded up) and runs on any
    /// M from then on; the last one, G(1+`locked`), holds its M to its exit, and its thread
    /// exits with it.
    Locked,
    /// Gs waiting on the network: main spawns G2..GN; then every G, `rounds` times, computes
    /// `work_ns` and reads from its connection, whose peer answers `net_ns` after the request
    /// (the G parks on the poller, `gopark` on its `pollDesc`, until a `netpoll` finds it ready).
    Netpoll,
    /// A receive nobody sends to: main spawns G2..GN (each computes `work_ns` and exits), then
    /// waits for a token that never comes. When the last M goes idle, `checkdead` ends the
    /// program: "all goroutines are asleep - deadlock!".
    Deadlock,
    /// A wake from outside every P (a foreign thread, a timer): main spawns G2..GN; every G
    /// (main after its spawns) computes `work_ns`, receives a token (`gopark` unless it came)
    /// and exits. The tokens come from a thread outside the runtime, no P and not an
    /// M (the injector): it sleeps `net_ns` before each, then, G1 to GN in turn, leaves the
    /// token on the G's wait word if the G has not parked, else readies it the way Go readies
    /// a G from a thread without a P (`injectglist` with no P: `_Grunnable`,
    /// `globrunqputbatch` under `sched.lock`, `startIdle`), which must wake a parked M when
    /// every M sleeps in `stopm`.
    ForeignWake,
    /// Gs waiting on the network while a CPU hog holds the Ps: main spawns G2..GN; G2 first
    /// runs a call-free loop of `hog_ns` (slices of [`HOG_SLICE_NS`], as `hog`'s G2), then every
    /// G reads as in `netpoll` (`rounds` times: compute `work_ns`, read, the answer `net_ns`
    /// later). With the hog on every P no `findRunnable` reaches its `netpoll` while the
    /// answers wait in the kernel: sysmon's poll (nobody polled for 10 ms) finds them. Its world
    /// has both the poller (one peer per G) and sysmon.
    NetpollHog,
}

/// One thing a running G does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GAct {
    /// Compute for this many nanoseconds.
    Work(u64),
    /// `go f()`: create this G.
    Spawn(u32),
    /// Return from the G's function (`goexit`).
    Exit,
    /// `runtime.Gosched()`: to the global queue, and the M schedules.
    Yield,
    /// `goyield()` (`goyield_m`, what `semrelease`'s hand-off calls): to the tail of this P's
    /// local ring (`runqput(pp, gp, false)`; `runqputslow` to the global queue if the ring is
    /// full), no `wakep`, and the M schedules. Natively, a future that wakes its own waker and is
    /// pending (tokio's `yield_now`).
    GoYield,
    /// Receive this G's token: take it if it came, else `gopark` until a `goready`.
    Park,
    /// Send G `c` its token: `goready(c)` if it is parked, else leave the token.
    Ready(u32),
    /// A blocking system call of this many nanoseconds (`entersyscall` … `exitsyscall`).
    Syscall(u64),
    /// Compute this many nanoseconds, then a preemption point: cooperative (a function call,
    /// `calls`) or async-safe only (a call-free loop).
    Slice {
        /// The slice.
        ns: u64,
        /// Whether the code makes calls (the prologue's check sees `stackguard0`).
        calls: bool,
    },
    /// `runtime.LockOSThread()`: wire the G and its M to each other.
    LockOSThread,
    /// `runtime.UnlockOSThread()` (`dounlockOSThread`): unwire them; the G runs on any M again.
    UnlockOSThread,
    /// Read from the G's connection: send the request to its peer, then `netpollblock` (park on
    /// the `pollDesc` until the poller finds the answer).
    NetWait,
    /// `netpollblock`'s return: `pd.rg.Swap(pdNil)` consumes the readiness (after a park, or
    /// when it came first).
    NetDone,
}

/// Where a G's code comes from when the platform gives it (the seam between the table and a
/// G's body): the table asks for the action of G `g` at its step `pc`, exactly as it asks
/// [`Workload::action`] when no provider is given (the simulator, the checker and the model's
/// native workloads).
///
/// The table's contract, which a provider may rely on: it asks only about the G this M runs
/// (`m.curg`, status `_Grunning`); a G's `pc` only grows over its life (every `gogo` resumes at
/// the `pc` saved by `Gosched` or `gopark`, one past the action that left); it may ask the same
/// `(g, pc)` more than once (it must get the same answer); and `pc + 1` is asked only after the
/// action at `pc` was done. So a provider that runs a G's code in bursts (natively: one poll of a
/// future) answers a new `pc` past its last burst by running the next burst, and the actions of
/// the burst in order: each ends with [`GAct::Exit`], [`GAct::Yield`], [`GAct::GoYield`],
/// [`GAct::Park`], [`GAct::Syscall`] (the G resumes at the next `pc` after `exitsyscall`) or
/// [`GAct::NetWait`] (it resumes at the next `pc`, its `NetDone`, when the poller readies it).
pub trait GCode: Send + Sync + core::fmt::Debug {
    /// The action of G `g` at its step `pc`.
    fn action(&self, c: &GmpConfig, g: u32, pc: u32) -> GAct;
}

/// An M's [`GCode`], if the platform gives one (`None`: [`Workload::action`]). Not part of the
/// M's state: the checker never sets it, and equality and hashing ignore it.
#[derive(Clone, Debug, Default)]
pub struct GCodeRef(pub Option<Arc<dyn GCode>>);

impl Workload {
    /// Every workload.
    pub const ALL: [Workload; 15] = [
        Workload::FanOut,
        Workload::Chain,
        Workload::Tree,
        Workload::SpawnMany,
        Workload::YieldMany,
        Workload::PingPong,
        Workload::Syscall,
        Workload::Hog,
        Workload::Pair,
        Workload::Locked,
        Workload::Netpoll,
        Workload::Deadlock,
        Workload::ForeignWake,
        Workload::NetpollHog,
        Workload::GoyieldMany,
    ];
    /// Their names.
    pub const NAMES: [&'static str; 15] = [
        "fan-out",
        "chain",
        "tree",
        "spawn-many",
        "yield-many",
        "ping-pong",
        "syscall",
        "hog",
        "pair",
        "locked",
        "netpoll",
        "deadlock",
        "foreign-wake",
        "netpoll-hog",
        "goyield-many",
    ];
    /// Whether the Gs are made by the spawner outside every P (no `main` on M0).
    pub fn external(self) -> bool {
        matches!(
            self,
            Workload::SpawnMany | Workload::YieldMany | Workload::GoyieldMany
        )
    }
    /// Whether a G may leave its M and resume later (so `execute` reads its saved `pc`).
    pub fn resumes(self) -> bool {
        matches!(
            self,
            Workload::YieldMany
                | Workload::GoyieldMany
                | Workload::PingPong
                | Workload::Syscall
                | Workload::Hog
                | Workload::Pair
                | Workload::Locked
                | Workload::Netpoll
                | Workload::Deadlock
                | Workload::ForeignWake
                | Workload::NetpollHog
        )
    }
    /// Whether a thread outside the runtime (the injector: no P, not an M) readies the
    /// workload's parked Gs (`foreign-wake`).
    pub fn foreign(self) -> bool {
        matches!(self, Workload::ForeignWake)
    }
    /// Whether the workload's Gs wait on the network, so its world has the poller's words and
    /// one peer per G (the other end of its connection).
    pub fn netpoll_world(self) -> bool {
        matches!(self, Workload::Netpoll | Workload::NetpollHog)
    }
    /// Whether the workload has syscalls or long-running Gs, so its world has each P's syscall
    /// and preemption words and (in every variant but `runnext-without-sysmon`) a sysmon.
    pub fn sysmon_world(self) -> bool {
        matches!(
            self,
            Workload::Syscall | Workload::Hog | Workload::Pair | Workload::NetpollHog
        )
    }
    /// This workload's name.
    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&v| v == self).unwrap_or(0)]
    }
    /// The workload of a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|&n| n == s)
            .map(|i| Self::ALL[i])
    }

    /// What G `g` (1-based) of scenario `c` does at its step `pc`.
    pub fn action(self, c: &GmpConfig, g: u32, pc: u32) -> GAct {
        let (gs, work_ns) = (c.gs, c.work_ns);
        match self {
            Workload::Syscall => {
                if g == 1 {
                    match pc {
                        _ if pc + 2 <= gs => GAct::Spawn(pc + 2),
                        _ if pc + 1 == gs => GAct::Syscall(c.syscall_ns),
                        _ => GAct::Exit,
                    }
                } else if g % 2 == 0 {
                    match pc {
                        0 => GAct::Syscall(c.syscall_ns),
                        1 => GAct::Work(work_ns),
                        _ => GAct::Exit,
                    }
                } else {
                    match pc {
                        0 => GAct::Work(work_ns),
                        _ => GAct::Exit,
                    }
                }
            }
            Workload::Hog => {
                let slices = c.hog_ns.div_ceil(HOG_SLICE_NS).max(1) as u32;
                if g == 1 {
                    if pc + 2 <= gs {
                        GAct::Spawn(pc + 2)
                    } else {
                        GAct::Exit
                    }
                } else if g == 2 {
                    if pc < slices {
                        let left = c.hog_ns.max(1) - pc as u64 * HOG_SLICE_NS;
                        GAct::Slice {
                            ns: left.min(HOG_SLICE_NS),
                            calls: false,
                        }
                    } else {
                        GAct::Exit
                    }
                } else if pc == 0 {
                    GAct::Work(work_ns)
                } else {
                    GAct::Exit
                }
            }
            Workload::Pair => {
                let r = c.rounds;
                if g == 1 {
                    // G3 first (kicked to the ring by the next spawn), then G2, G5..GN
                    match pc {
                        0 if gs >= 3 => GAct::Spawn(3),
                        1 if gs >= 2 => GAct::Spawn(2),
                        _ if pc >= 2 && pc + 3 <= gs => GAct::Spawn(pc + 3),
                        _ => GAct::Exit,
                    }
                } else if g == 3 {
                    match pc {
                        0 if gs >= 4 => GAct::Spawn(4),
                        _ if gs < 4 || pc > 3 * r => GAct::Exit,
                        _ => match (pc - 1) % 3 {
                            0 => GAct::Slice {
                                ns: work_ns,
                                calls: true,
                            },
                            1 => GAct::Ready(4),
                            _ => GAct::Park,
                        },
                    }
                } else if g == 4 {
                    if pc >= 3 * r {
                        GAct::Exit
                    } else {
                        match pc % 3 {
                            0 => GAct::Park,
                            1 => GAct::Slice {
                                ns: work_ns,
                                calls: true,
                            },
                            _ => GAct::Ready(3),
                        }
                    }
                } else if pc == 0 {
                    GAct::Work(work_ns)
                } else {
                    GAct::Exit
                }
            }
            Workload::SpawnMany => match pc {
                0 => GAct::Work(work_ns),
                _ => GAct::Exit,
            },
            Workload::YieldMany => yielder(c, pc, GAct::Yield),
            Workload::GoyieldMany => yielder(c, pc, GAct::GoYield),
            Workload::PingPong => {
                let pairs = gs.saturating_sub(1) / 2;
                if g == 1 {
                    if pc < pairs {
                        GAct::Spawn(2 * (pc + 1))
                    } else {
                        GAct::Exit
                    }
                } else if g % 2 == 0 && g / 2 <= pairs {
                    match pc {
                        0 => GAct::Work(work_ns),
                        1 => GAct::Spawn(g + 1),
                        2 => GAct::Ready(g + 1),
                        3 => GAct::Park,
                        _ => GAct::Exit,
                    }
                } else if g % 2 == 1 {
                    match pc {
                        0 => GAct::Park,
                        1 => GAct::Ready(g - 1),
                        _ => GAct::Exit,
                    }
                } else {
                    match pc {
                        0 => GAct::Work(work_ns),
                        _ => GAct::Exit,
                    }
                }
            }
            Workload::FanOut => {
                if g == 1 {
                    if pc + 2 <= gs {
                        GAct::Spawn(pc + 2)
                    } else {
                        GAct::Exit
                    }
                } else if pc == 0 {
                    GAct::Work(work_ns)
                } else {
                    GAct::Exit
                }
            }
            Workload::Chain => match pc {
                0 => GAct::Work(work_ns),
                1 if g < gs => GAct::Spawn(g + 1),
                _ => GAct::Exit,
            },
            Workload::Tree => match pc {
                0 => GAct::Work(work_ns),
                1 if 2 * g <= gs => GAct::Spawn(2 * g),
                2 if 2 * g < gs => GAct::Spawn(2 * g + 1),
                _ => GAct::Exit,
            },
            Workload::Locked => locked_action(c, g, pc),
            Workload::Netpoll | Workload::NetpollHog => {
                let spawns = if g == 1 { gs - 1 } else { 0 };
                // netpoll-hog: G2 first computes its call-free loop in slices
                let slices = if self == Workload::NetpollHog && g == 2 {
                    c.hog_ns.div_ceil(HOG_SLICE_NS).max(1) as u32
                } else {
                    0
                };
                if pc < spawns {
                    GAct::Spawn(pc + 2)
                } else if pc < slices {
                    let left = c.hog_ns.max(1) - pc as u64 * HOG_SLICE_NS;
                    GAct::Slice {
                        ns: left.min(HOG_SLICE_NS),
                        calls: false,
                    }
                } else {
                    let q = pc - spawns - slices;
                    match q {
                        _ if q >= 3 * c.rounds => GAct::Exit,
                        _ if q % 3 == 0 => GAct::Work(work_ns),
                        _ if q % 3 == 1 => GAct::NetWait,
                        _ => GAct::NetDone,
                    }
                }
            }
            Workload::ForeignWake => {
                let spawns = if g == 1 { gs - 1 } else { 0 };
                match pc {
                    _ if pc < spawns => GAct::Spawn(pc + 2),
                    _ if pc == spawns => GAct::Work(work_ns),
                    _ if pc == spawns + 1 => GAct::Park,
                    _ => GAct::Exit,
                }
            }
            Workload::Deadlock => {
                if g == 1 {
                    match pc {
                        _ if pc + 2 <= gs => GAct::Spawn(pc + 2),
                        _ if pc + 1 == gs => GAct::Park,
                        _ => GAct::Exit,
                    }
                } else if pc == 0 {
                    GAct::Work(work_ns)
                } else {
                    GAct::Exit
                }
            }
        }
    }
}

/// The shape of a scenario every M knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GmpConfig {
    /// GOMAXPROCS.
    pub procs: u32,
    /// Slots of each P's local ring (256 in Go; smaller here to fit the simulator's words).
    pub ring: u32,
    /// Ms (threads) the runtime may use.
    pub threads: u32,
    /// Gs the workload creates in all.
    pub gs: u32,
    /// What they do.
    pub workload: Workload,
    /// A G's work.
    pub work_ns: u64,
    /// `yield-many` and `goyield-many`: each G's yields (`Gosched` or `goyield`).
    pub yields: u32,
    /// `yield-many` and `goyield-many`: the work each G does when it resumes after a yield,
    /// before its next one (0: none, no step; [`GmpParams::poll_ns`](super::GmpParams::poll_ns)).
    pub poll_ns: u64,
    /// Which code.
    pub variant: GmpVariant,
    /// Seed of the Ms' steal orders.
    pub seed: u64,
    /// `syscall`: each blocking syscall's duration.
    pub syscall_ns: u64,
    /// `hog`: the call-free loop's run.
    pub hog_ns: u64,
    /// `pair`: the token's round trips; `netpoll`: each G's reads.
    pub rounds: u32,
    /// `locked`: how many Gs (G2, G3, …) call `LockOSThread`.
    pub locked: u32,
    /// `netpoll`: the network's delay between a request and its answer; `foreign-wake`: the
    /// injector's sleep before each wake.
    pub net_ns: u64,
    /// Threads outside the runtime may ready parked Gs (the `foreign-wake` injector; natively,
    /// any thread that holds a future's waker), so a run whose every M is idle and every G
    /// waits is not known to be dead: `checkdead` stays silent, as Go's does in a program
    /// built as a library (`-buildmode=c-archive`, `c-shared`), whose host's threads call in.
    pub foreign_wakes: bool,
}

impl GmpConfig {
    /// Whether a sysmon thread runs (the syscall, hog, pair and netpoll-hog workloads, except
    /// in the `runnext-without-sysmon` variant).
    pub fn sysmon(&self) -> bool {
        self.workload.sysmon_world() && self.variant != GmpVariant::RunnextWithoutSysmon
    }
    /// The actor index of the injector (`foreign-wake`: the thread outside the runtime that
    /// readies parked Gs, after every other thread), if it runs.
    pub fn injector_id(&self) -> Option<u32> {
        self.workload.foreign().then(|| {
            self.threads + self.workload.external() as u32 + self.sysmon() as u32 + self.peers()
        })
    }
    /// The actor index of sysmon (after the Ms and the spawner), if it runs.
    pub fn sysmon_id(&self) -> Option<u32> {
        self.sysmon()
            .then(|| self.threads + self.workload.external() as u32)
    }
    fn x_base(&self, p: u32) -> u32 {
        self.g_base(self.gs + 1)
            .wrapping_add(p.wrapping_mul(X_WORDS))
    }
    /// `pp.status == _Psyscall` (1) of P `p` (0: any other status).
    pub fn psys(&self, p: u32) -> Word {
        w(self.x_base(p))
    }
    /// `pp.schedtick`: one more per `execute` that does not inherit the slice.
    pub fn pschedtick(&self, p: u32) -> Word {
        w(self.x_base(p).wrapping_add(1))
    }
    /// `pp.syscalltick`: one more per syscall exit on the P and per retake.
    pub fn psyscalltick(&self, p: u32) -> Word {
        w(self.x_base(p).wrapping_add(2))
    }
    /// sysmon's preemption request (`gp.preempt`, `pp.preempt`): the `schedtick` whose slice is
    /// to end, plus one (0: none). A request for an older slice is stale and ignored.
    pub fn ppreempt(&self, p: u32) -> Word {
        w(self.x_base(p).wrapping_add(3))
    }
    /// The first word of P `p`.
    pub fn p_base(&self, p: u32) -> u32 {
        P_BASE.wrapping_add(p.wrapping_mul(P_WORDS + self.ring))
    }
    /// `pp.runqhead`.
    pub fn head(&self, p: u32) -> Word {
        w(self.p_base(p))
    }
    /// `pp.runqtail`.
    pub fn tail(&self, p: u32) -> Word {
        w(self.p_base(p).wrapping_add(1))
    }
    /// `pp.runnext`.
    pub fn runnext(&self, p: u32) -> Word {
        w(self.p_base(p).wrapping_add(2))
    }
    /// `pp.m`: the owner M's id + 1 (0 = none).
    pub fn owner(&self, p: u32) -> Word {
        w(self.p_base(p).wrapping_add(3))
    }
    /// `pp.runq[i % len]`.
    pub fn slot(&self, p: u32, i: u32) -> Word {
        // Go's ring has 256 slots, so its `% len` is a mask; ours may have any even size, and a
        // division per ring access is the slowest instruction of `runqput` and `runqget`
        let r = self.ring;
        let i = if r & r.wrapping_sub(1) == 0 {
            i & r.wrapping_sub(1)
        } else {
            i % r
        };
        w(self.p_base(p).wrapping_add(P_WORDS + i))
    }
    fn m_base(&self, m: u32) -> u32 {
        self.p_base(self.procs).wrapping_add(m.wrapping_mul(2))
    }
    /// The threads of a run: the Ms, the spawner (id `threads`) when the workload has one,
    /// sysmon when it runs, the peers of a `netpoll` world, and the injector of `foreign-wake`.
    pub fn actors(&self) -> u32 {
        self.threads
            + self.workload.external() as u32
            + self.sysmon() as u32
            + self.peers()
            + self.workload.foreign() as u32
    }
    /// `m.park`: the note the M sleeps on.
    pub fn park(&self, m: u32) -> Word {
        w(self.m_base(m))
    }
    /// `m.nextp`: P + 1, with [`SPIN_BIT`] when started spinning.
    pub fn nextp(&self, m: u32) -> Word {
        w(self.m_base(m).wrapping_add(1))
    }
    fn g_base(&self, g: u32) -> u32 {
        self.m_base(self.threads + 1)
            .wrapping_add(g.wrapping_sub(1).wrapping_mul(G_WORDS))
    }
    /// `gp.atomicstatus` of G `g` (1-based).
    pub fn status(&self, g: u32) -> Word {
        w(self.g_base(g))
    }
    /// `gp.schedlink`.
    pub fn link(&self, g: u32) -> Word {
        w(self.g_base(g).wrapping_add(1))
    }
    /// The G's wait word: its channel ([`wait`]: empty, a token, or the G parked on it).
    pub fn wait(&self, g: u32) -> Word {
        w(self.g_base(g).wrapping_add(2))
    }
    /// `gp.sched`: where the G resumes (its `pc`), saved when it yields or parks.
    pub fn sched(&self, g: u32) -> Word {
        w(self.g_base(g).wrapping_add(3))
    }
    /// `sched.sysmonwait`: 1 while sysmon sleeps deep on [`GmpConfig::sysmonnote`] (under
    /// `sched.lock`). Sysmon worlds only, after the Ps' syscall words.
    pub fn sysmonwait(&self) -> Word {
        w(self.x_base(self.procs))
    }
    /// `sched.sysmonnote`: the note (a futex word) sysmon's deep sleep waits on; `notewakeup`
    /// sets it to 1, sysmon clears it when it wakes.
    pub fn sysmonnote(&self) -> Word {
        w(self.x_base(self.procs).wrapping_add(1))
    }
    /// Words the layout needs.
    pub fn words_needed(&self) -> u32 {
        if self.workload == Workload::Locked {
            return self.lock_words_end();
        }
        if self.workload.netpoll_world() {
            // a world with both the poller and sysmon has one word more: `lastpoll`'s stamp
            self.n_base().wrapping_add(
                N_GLOBALS + N_WORDS.wrapping_mul(self.gs) + 1 + self.sysmon_polls() as u32,
            )
        } else if self.workload.sysmon_world() {
            self.x_base(self.procs).wrapping_add(2)
        } else {
            self.g_base(self.gs + 1)
        }
    }
    /// Half the ring: what `runqputslow` moves and the most `runqgrab` takes.
    pub fn half(&self) -> u32 {
        (self.ring / 2).max(1)
    }
}

#[inline(always)]
fn w(i: u32) -> Word {
    Word(i.min(u16::MAX as u32) as u16)
}

// ----- the network poller (`netpoll` worlds only) -----

/// Global words of the poller: `sched.lastpoll`, `netpollWaiters`, `sched.pollingNet`,
/// `netpollWakeSig`, and the epoll instance's ready list ([`GmpConfig::rdy`]).
pub const N_GLOBALS: u32 = 5;
/// Words per G of the poller: its `pollDesc.rg` ([`pd`]), its request to its peer and its
/// link in the ready list.
pub const N_WORDS: u32 = 3;

/// Values of a `pollDesc`'s read semaphore `rg` (`netpoll.go`: `pdNil`, `pdReady`, `pdWait`, or
/// the parked G, which is always this pollDesc's own G here).
pub mod pd {
    /// Nothing: no readiness, nobody waiting.
    pub const NIL: u32 = 0;
    /// The poller found the fd readable before the G parked (`pdReady`).
    pub const READY: u32 = 1;
    /// The G is about to park (`pdWait`, set by `netpollblock` before `gopark`).
    pub const WAIT: u32 = 2;
    /// The G is parked on it (`netpollblockcommit` stored the G).
    pub const PARKED: u32 = 3;
}

/// What `checkdead` reported (an M's [`Mcx::fatal`]).
pub mod fatal {
    /// Nothing.
    pub const NONE: u8 = 0;
    /// "all goroutines are asleep - deadlock!"
    pub const DEADLOCK: u8 = 1;
    /// "checkdead: runnable g" (a runnable G while no M runs: a lost wakeup).
    pub const RUNNABLE_G: u8 = 2;
    /// The text of a report.
    pub fn text(f: u8) -> Option<&'static str> {
        match f {
            DEADLOCK => Some("all goroutines are asleep - deadlock!"),
            RUNNABLE_G => Some("checkdead: runnable g"),
            _ => None,
        }
    }
}

impl GmpConfig {
    /// Peers: one per G in a `netpoll` world (the other end of its connection), after the Ms,
    /// the spawner and sysmon.
    pub fn peers(&self) -> u32 {
        if self.workload.netpoll_world() {
            self.gs
        } else {
            0
        }
    }
    /// The actor index of G `g`'s peer.
    pub fn peer_id(&self, g: u32) -> u32 {
        (self.threads + self.workload.external() as u32 + self.sysmon() as u32)
            .wrapping_add(g)
            .wrapping_sub(1)
    }
    fn n_base(&self) -> u32 {
        if self.workload.sysmon_world() {
            self.x_base(self.procs).wrapping_add(2)
        } else {
            self.g_base(self.gs + 1)
        }
    }
    /// `sched.lastpoll == 0`: 1 while an M blocks in `netpoll` (THE poller), 0 otherwise (Go
    /// keeps the last poll's time there and 0 while one blocks; the model keeps no time, and its
    /// memory starts zeroed, so the word is the flag).
    pub fn in_netpoll(&self) -> Word {
        w(self.n_base())
    }
    /// `netpollWaiters`: Gs parked on the poller (an `i32`: may dip below 0 for a moment).
    pub fn nwaiters(&self) -> Word {
        w(self.n_base().wrapping_add(1))
    }
    /// `sched.pollingNet`: one M at a time does the non-blocking `netpoll(0)`.
    pub fn pollingnet(&self) -> Word {
        w(self.n_base().wrapping_add(2))
    }
    /// `netpollWakeSig`: a `netpollBreak` is in flight (its eventfd write not yet read).
    pub fn wakesig(&self) -> Word {
        w(self.n_base().wrapping_add(3))
    }
    /// The epoll instance's ready list: the first ready fd (G `g`'s connection is fd `g`, the
    /// break eventfd is fd `gs + 1`), linked through [`GmpConfig::rlink`]; 0 = empty. The
    /// kernel (a peer, or `netpollBreak`'s write) pushes; `epoll_wait` takes the whole list. It
    /// is also the futex word the blocking `epoll_wait` sleeps on.
    pub fn rdy(&self) -> Word {
        w(self.n_base().wrapping_add(4))
    }
    /// `sched.lastpoll`'s time, as a stamp: a world with both the poller and sysmon
    /// ([`GmpConfig::sysmon_polls`]) keeps it in the word after the poller's (the break
    /// eventfd's link). Go stores `now` there after every blocking `netpoll` and at sysmon's
    /// own poll; the model's Ms keep no time, so they add one to the stamp instead, and sysmon
    /// measures its age on its own clock (the sum of its sleeps) from the round it first saw
    /// the stamp, as `retake` measures a P's `schedtick`.
    pub fn lastpoll_stamp(&self) -> Word {
        w(self
            .n_base()
            .wrapping_add(N_GLOBALS + N_WORDS.wrapping_mul(self.gs) + 1))
    }
    /// Whether the world has both the poller and sysmon (`netpoll-hog`): then the Ms stamp
    /// `lastpoll` after each blocking `netpoll`, and sysmon polls the network when nobody has
    /// for 10 ms (except in the `no-sysmon-netpoll` variant).
    pub fn sysmon_polls(&self) -> bool {
        self.workload.netpoll_world() && self.sysmon()
    }
    /// The break eventfd's fd number.
    pub fn brk_fd(&self) -> u32 {
        self.gs + 1
    }
    fn nw(&self, g: u32) -> u32 {
        self.n_base()
            .wrapping_add(N_GLOBALS)
            .wrapping_add(g.wrapping_sub(1).wrapping_mul(N_WORDS))
    }
    /// G `g`'s `pollDesc.rg` ([`pd`]).
    pub fn pd(&self, g: u32) -> Word {
        w(self.nw(g))
    }
    /// G `g`'s request to its peer: 1 while sent and not yet taken (the peer's futex word).
    pub fn req(&self, g: u32) -> Word {
        w(self.nw(g).wrapping_add(1))
    }
    /// Fd `fd`'s link in the ready list (fd `gs + 1`, the break eventfd, has one too).
    pub fn rlink(&self, fd: u32) -> Word {
        if fd == self.brk_fd() {
            w(self.nw(fd))
        } else {
            w(self.nw(fd).wrapping_add(2))
        }
    }
}

/// The pseudocode the M steps through (one entry per line).
pub const LISTING: &[&str] = &[
    "schedule(): if schedtick % 61 == 0 && sched.runq.size > 0: lock; gp = globrunqget(1)",
    "  gp, inheritTime = runqget(pp)        // runnext first, then the ring",
    "  if gp == nil && sched.runq.size > 0: lock; gp = globrunqgetbatch(); unlock",
    "  if gp == nil: if m.spinning || 2*nmspinning < gomaxprocs-npidle: becomeSpinning()",
    "    for i in 0..4: for each P in stealOrder: gp = runqsteal(pp, p2, stealRunNextG = i == 3)",
    "  if gp == nil: lock; recheck global; releasep(); pidleput(pp); unlock",
    "    if m.spinning: m.spinning = false; nmspinning--   // the delicate dance",
    "    recheck global and every P's queue: found -> lock; pidleget; acquirep; spin; goto top",
    "    stopm(): lock; mput(m); unlock; notesleep(&m.park); acquirep(m.nextp)",
    "  if m.spinning: resetspinning()   // nmspinning--; wakep()",
    "  execute(gp): casgstatus(gp, _Grunnable, _Grunning); gogo",
    "G runs: work",
    "G: go f() -> newproc: casgstatus(newg, _Gdead, _Grunnable); runqput(pp, newg, next=true)",
    "runqput: if next: cas runnext old -> gp; if old == 0 return; gp = old",
    "  if tail - head < len(runq): runq[tail % len] = gp; store-release tail + 1",
    "  else runqputslow: grab len/2 oldest, cas head; lock; globrunqput(batch + gp); unlock",
    "wakep(): if nmspinning != 0 || !cas(nmspinning, 0, 1): return",
    "  lock; pp = pidleget(); if pp == nil: nmspinning--; unlock; return",
    "  startm(pp, spinning): mp = mget(); mp.nextp = pp; unlock; notewakeup(&mp.park)",
    "G exits: casgstatus(gp, _Grunning, _Gdead); gfput",
    "last G exited: lock; done = 1; unlock; wake every parked M",
    "M exits",
    "G: Gosched() -> goschedImpl: casgstatus(gp, _Grunning, _Grunnable); dropg; lock; globrunqput(gp); unlock; wakep(); schedule()",
    "G: receive: token there? take it; else gopark: casgstatus(gp, _Grunning, _Gwaiting); dropg; unlockf: cas(wait, empty, parked) || resume",
    "G: send: parked? goready: casgstatus(gp, _Gwaiting, _Grunnable); runqput(pp, gp, next=true); wakep(); else leave the token",
    "spawner (no P): every P idle, every M parked; per G: runnable; lock; globrunqput; unlock; startIdle: lock; pidlegetSpinning; startm(pp, false)",
    "G: entersyscall: casgstatus(gp, _Grunning, _Gsyscall); pp.m = 0; m.oldp = pp; m.p = 0; pp.status = _Psyscall",
    "G blocks in the system call (its M sleeps in the kernel and holds no P)",
    "exitsyscall: if cas(oldp.status, _Psyscall, _Pidle): wirep(oldp); pp.syscalltick++; casgstatus(gp, _Gsyscall, _Grunning)",
    "  else if sched.pidle != 0: lock; pp = pidleget(); unlock; acquirep(pp)   // exitsyscallfast_pidle",
    "  else exitsyscall0: casgstatus(gp, _Gsyscall, _Grunnable); dropg; lock; pp = pidleget(); pp ? execute(gp) : globrunqput(gp); unlock; stopm()",
    "G computes a slice, then a preemption point (a call's prologue, or an async-safe point for SIGURG)",
    "  if preempt requested for this slice: gopreempt_m: casgstatus(gp, _Grunning, _Grunnable); lock; globrunqput(gp); unlock; schedule()",
    "sysmon: usleep(delay)   // 20 us; doubling after 50 rounds that did nothing; at most 10 ms",
    "retake: for each P: if pp.schedtick == pd.schedtick && now - pd.schedwhen >= 10ms: preemptone(pp)   // sets the request",
    "  if pp.status == _Psyscall: if pd.syscalltick != pp.syscalltick: pd.syscalltick = ..; pd.syscallwhen = now; next P",
    "  if runqempty(pp) && nmspinning + npidle > 0 && now - pd.syscallwhen < 10ms: next P",
    "  if cas(pp.status, _Psyscall, _Pidle): n++; pp.syscalltick++; handoffp(pp)",
    "handoffp(pp): local or global work -> startm(pp, false); no spinning or idle P and cas(nmspinning, 0, 1) -> startm(pp, true)",
    "  lock; global work or the last running P -> startm(pp, false); else pidleput(pp); unlock",
    "startm(pp, spinning): mp = mget(); mp.nextp = pp; unlock; notewakeup(&mp.park)   // no M (Go: newm): pidleput(pp)",
    "sysmon: if npidle == gomaxprocs: lock; recheck; sysmonwait = true; unlock; notetsleep(&sysmonnote); lock; sysmonwait = false; noteclear; idle = 0; delay = 20 us; unlock",
    "sysmonwake (entersyscall; exitsyscallfast_pidle and exitsyscall0 with a P; under sched.lock): if sysmonwait: sysmonwait = false; notewakeup(&sysmonnote)",
    "G: LockOSThread() -> dolockOSThread: m.lockedg = gp; gp.lockedm = m",
    "schedule(): if m.lockedg != 0: stoplockedm(): handoffp(releasep()); incidlelocked(1); notesleep(&m.park); acquirep(m.nextp); execute(m.lockedg)",
    "  if gp.lockedm != 0: startlockedm(gp): incidlelocked(-1); mp.nextp = releasep(); notewakeup(&mp.park); stopm(); goto top",
    "G exits while locked: gp.lockedm = 0; m.lockedg = 0; the thread exits (mexit: handoffp(releasep()))",
    "G: read: send the request; netpollblock: cas(pd.rg, pdNil, pdWait); gopark: casgstatus(gp, _Grunning, _Gwaiting); commit: cas(pd.rg, pdWait, gp) && netpollWaiters++ || resume",
    "  if netpollWaiters > 0 && lastpoll != 0 && pollingNet.Swap(1) == 0: list = netpoll(0); pollingNet = 0; if list: gp = pop; injectglist(list); return gp",
    "netpoll: epoll_wait takes the ready list; per fd: break eventfd? read it, netpollWakeSig = 0; else netpollunblock: cas(pd.rg, old, pdReady); old == gp? list.push(gp)",
    "    if netpollWaiters > 0 && lastpoll.Swap(0) != 0: list = netpoll(-1)   // THE poller: blocks in epoll_wait, holds no P, is not on midle",
    "    lastpoll = now; lock; pp = pidleget(); unlock; pp? acquirep(pp); gp = pop; injectglist(list); return gp : injectglist(list); stopm()",
    "injectglist: casgstatus(each, _Gwaiting, _Grunnable); no P: globrunqputbatch(all), startIdle(n); with P: min(npidle, n) to the global queue, startIdle; the rest runqput(pp, gp, false)",
    "netpollBreak(): if cas(netpollWakeSig, 0, 1): write(eventfd)   // startm found no M while an M blocks in netpoll; the program's end",
    "peer: wait for the request; sleep(net_ns); the fd is readable: push it on epoll's ready list; wake epoll_wait",
    "stopm: mput(m); checkdead(): run = mcount - nmidle; run == 0 && Gs wait: throw(\"all goroutines are asleep - deadlock!\")",
    "foreign thread (no P, not an M): sleep; G's wait word empty? leave the token : parked? take it; injectglist: casgstatus(gp, _Gwaiting, _Grunnable); lock; globrunqputbatch; unlock; startIdle(1)",
    "sysmon: if lastpoll != 0 && lastpoll + 10ms < now: cas(lastpoll, lastpoll, now); list = netpoll(0); injectglist(list)   // no P: all to the global queue, startIdle",
    "G: UnlockOSThread() -> dounlockOSThread: m.lockedg = 0; gp.lockedm = 0   // from now on the G runs on any M",
    "G: goyield() -> goyield_m: gp.sched = resume; casgstatus(gp, _Grunning, _Grunnable); dropg(); runqput(pp, gp, false); schedule()   // the tail of this P's ring: no sched.lock, no wakep",
];

/// Line numbers (1-based) into [`LISTING`].
pub mod ln {
    /// The 1-in-61 check.
    pub const FAIR: u16 = 1;
    /// `runqget`.
    pub const LOCAL: u16 = 2;
    /// `globrunqgetbatch`.
    pub const GLOBAL: u16 = 3;
    /// The spinning limit.
    pub const SPIN: u16 = 4;
    /// `stealWork`.
    pub const STEAL: u16 = 5;
    /// Release the P.
    pub const RELEASE: u16 = 6;
    /// Drop spinning.
    pub const DANCE_DROP: u16 = 7;
    /// The re-check.
    pub const DANCE_CHECK: u16 = 8;
    /// `stopm`.
    pub const STOPM: u16 = 9;
    /// `resetspinning`.
    pub const RESET_SPIN: u16 = 10;
    /// `execute`.
    pub const EXECUTE: u16 = 11;
    /// The G's work.
    pub const G_WORK: u16 = 12;
    /// `newproc`.
    pub const NEWPROC: u16 = 13;
    /// `runqput`'s runnext.
    pub const PUT_NEXT: u16 = 14;
    /// `runqput`'s ring.
    pub const PUT_RING: u16 = 15;
    /// `runqputslow`.
    pub const PUT_SLOW: u16 = 16;
    /// `wakep`'s test.
    pub const WAKEP: u16 = 17;
    /// `pidleget`.
    pub const WAKE_PIDLE: u16 = 18;
    /// `startm`.
    pub const STARTM: u16 = 19;
    /// `goexit`.
    pub const G_EXIT: u16 = 20;
    /// The end of the program.
    pub const END: u16 = 21;
    /// Exited.
    pub const EXITED: u16 = 22;
    /// `Gosched`.
    pub const G_YIELD: u16 = 23;
    /// A receive that may `gopark`.
    pub const G_PARK: u16 = 24;
    /// A send that may `goready`.
    pub const G_READY: u16 = 25;
    /// The spawner outside every P.
    pub const INJECT: u16 = 26;
    /// `entersyscall`.
    pub const SYSCALL_ENTER: u16 = 27;
    /// In the syscall.
    pub const SYSCALL_BLOCK: u16 = 28;
    /// `exitsyscallfast`: `oldp` back.
    pub const EXIT_FAST: u16 = 29;
    /// `exitsyscallfast_pidle`.
    pub const EXIT_PIDLE: u16 = 30;
    /// `exitsyscall0`.
    pub const EXIT_NOP: u16 = 31;
    /// A slice of a long computation.
    pub const G_SLICE: u16 = 32;
    /// The preemption point and `gopreempt_m`.
    pub const PREEMPT: u16 = 33;
    /// sysmon's sleep.
    pub const SYSMON: u16 = 34;
    /// `retake`: the time slice.
    pub const RETAKE_PREEMPT: u16 = 35;
    /// `retake`: a new syscall is only recorded.
    pub const RETAKE_SYSCALL: u16 = 36;
    /// `retake`: the grace of an empty queue.
    pub const RETAKE_IDLE: u16 = 37;
    /// `retake`: take the P.
    pub const RETAKE_CAS: u16 = 38;
    /// `handoffp`'s lock-free tests.
    pub const HANDOFF: u16 = 39;
    /// `handoffp` under the lock.
    pub const HANDOFF_LOCK: u16 = 40;
    /// `handoffp`'s `startm`.
    pub const HANDOFF_STARTM: u16 = 41;
    /// sysmon's deep sleep (every P idle).
    pub const SYSMON_DEEP: u16 = 42;
    /// Waking sysmon from its deep sleep.
    pub const SYSMON_WAKE: u16 = 43;
    /// `LockOSThread`.
    pub const LOCK: u16 = 44;
    /// `stoplockedm`.
    pub const STOP_LOCKED: u16 = 45;
    /// `startlockedm`.
    pub const START_LOCKED: u16 = 46;
    /// A locked G's exit: the thread exits.
    pub const LOCKED_EXIT: u16 = 47;
    /// A read that parks on the poller (`netpollblock`).
    pub const NET_BLOCK: u16 = 48;
    /// findRunnable's non-blocking `netpoll(0)`.
    pub const NETPOLL0: u16 = 49;
    /// `netpoll`: the ready list and `netpollunblock`.
    pub const NETPOLL: u16 = 50;
    /// The blocking `netpoll` of the last M.
    pub const NETPOLL_BLOCK: u16 = 51;
    /// After the blocking `netpoll`: a P, or `injectglist` and `stopm`.
    pub const NETPOLL_AFTER: u16 = 52;
    /// `injectglist`.
    pub const INJECTGLIST: u16 = 53;
    /// `netpollBreak`.
    pub const NETPOLL_BREAK: u16 = 54;
    /// A G's peer (the network).
    pub const PEER: u16 = 55;
    /// `checkdead`.
    pub const CHECKDEAD: u16 = 56;
    /// A thread outside the runtime readies a parked G (`injectglist` with no P).
    pub const FOREIGN: u16 = 57;
    /// sysmon's network poll (nobody polled for 10 ms).
    pub const SYSMON_NETPOLL: u16 = 58;
    /// `UnlockOSThread`.
    pub const UNLOCK: u16 = 59;
    /// `goyield`.
    pub const G_GOYIELD: u16 = 60;
}

/// Where `runqput` returns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PutRet {
    /// `newproc` or `goready`: then `wakep`, then the G goes on.
    Newproc,
    /// `goschedImpl`: then `wakep`, then `schedule`.
    Gosched,
    /// `goyield_m`'s `runqput(pp, gp, false)`: then `schedule` (no `wakep`).
    Goyield,
    /// `exitsyscall0` with no P: `globrunqput`, then `stopm`.
    SyscallStop,
    /// The spawner's `globrunqput`: then `startIdle`.
    Inject,
    /// `injectglist`'s `globrunqputbatch`: then `startIdle(n)`.
    NetGlobal,
    /// `injectglist`'s `runqput(pp, gp, false)` of the rest: the next one.
    NetLocal,
}

/// Where `wakep` returns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WakeRet {
    /// `resetspinning` in `schedule`: then `execute`.
    Execute,
    /// `newproc`: the G goes on.
    GoOn,
    /// `goschedImpl`: `schedule()`.
    Schedule,
    /// The spawner: the next G.
    Inject,
    /// `injectglist`'s `startIdle`: the next start, then the rest of the list.
    NetIdle,
}

/// What a global-queue take is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GMode {
    /// The 1-in-61 check: one G.
    Fair,
    /// `globrunqgetbatch` after an empty local queue.
    Batch,
    /// The re-check under the lock before releasing the P.
    Park,
}

/// What an M counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MCounts {
    /// Successful `runqsteal`s (a batch, or a victim's runnext).
    pub steals: u64,
    /// `stopm`s (the M put itself on `midle`).
    pub parks: u64,
    /// Times the M became spinning: by itself (the spinning limit passed, or `needspinning`) or
    /// started spinning by `startm`.
    pub spins: u64,
    /// Takes from the global queue that got a G.
    pub global_queue_gets: u64,
    /// `execute`s.
    pub context_switches: u64,
    /// `notewakeup`s (futex wakes of parked Ms) by `startm`.
    pub futex_wakes: u64,
    /// `startm` found no parked M (Go would create a thread; the P goes back idle).
    pub no_m: u64,
    /// `Gosched` calls.
    pub yields: u64,
    /// `gopark`s that parked a G (a receive whose token had not come).
    pub gparks: u64,
    /// `goready`s of a parked G.
    pub readies: u64,
    /// `entersyscall`s.
    pub syscalls: u64,
    /// `exitsyscall`s that took their `oldp` back (the fast path).
    pub syscall_oldp: u64,
    /// `exitsyscall`s that found no P: the G went to the global queue and the M to `stopm`.
    pub syscall_stops: u64,
    /// `exitsyscall`s whose fast path took an idle P (`exitsyscallfast_pidle`).
    pub syscall_pidle: u64,
    /// Ps sysmon took from a syscall (`retake`'s CAS `_Psyscall → _Pidle`).
    pub retakes: u64,
    /// `handoffp`s that started an M for the P (the others put it on the idle list).
    pub handoffs: u64,
    /// sysmon's `preemptone` requests.
    pub preempt_requests: u64,
    /// Gs preempted at a safe point (`gopreempt_m`: to the global queue).
    pub preemptions: u64,
    /// sysmon's deep sleeps: every P idle, it set `sysmonwait` and slept on `sysmonnote`.
    pub sysmon_deep_sleeps: u64,
    /// `notewakeup(&sysmonnote)`s by an M (entering a syscall, or leaving one onto an idle P).
    pub sysmon_wakes: u64,
    /// `LockOSThread` calls.
    pub locks: u64,
    /// `startlockedm`s: an M picked a G locked to another M and handed it its P.
    pub locked_handoffs: u64,
    /// `stoplockedm`s: a locked M handed its P off and slept until its G was runnable again.
    pub lockedm_parks: u64,
    /// Threads that exited because their G exited while locked.
    pub locked_exits: u64,
    /// A locked M's `handoffp` found no idle M and tried again (Go would start a new M).
    pub locked_no_m: u64,
    /// `UnlockOSThread` calls.
    pub unlocks: u64,
    /// `netpoll` calls (non-blocking and blocking).
    pub netpoll_polls: u64,
    /// Gs `netpoll` found ready (`netpollunblock` of a parked G).
    pub netpoll_ready: u64,
    /// Blocking `netpoll`s: the M became THE poller.
    pub netpoll_blocks: u64,
    /// `netpollBreak`s that wrote the eventfd.
    pub netpoll_breaks: u64,
    /// Gs parked on the poller (`netpollblockcommit` succeeded).
    pub netpoll_parks: u64,
    /// sysmon's `netpoll(0)`s (nobody had polled for 10 ms; also counted in `netpoll_polls`).
    pub sysmon_netpolls: u64,
    /// Gs sysmon's polls found ready and injected (`injectglist` with no P: the global queue).
    pub sysmon_injected: u64,
}

/// Where the poller goes after `injectglist`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NpAfter {
    /// Run the first G of the list.
    #[default]
    Run,
    /// `stopm` (the blocking `netpoll` got no P).
    Stop,
    /// sysmon's poll: on with `retake`.
    Sysmon,
}

/// The network poller's registers of an M, and a peer's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NetRegs {
    /// Gs this M's `netpoll` found ready, still `_Gwaiting`, in the order found.
    pub list: Vec<u32>,
    /// The G `findRunnable` returns after `injectglist` (still `_Gwaiting`; 0: none).
    pub first: u32,
    /// The poll is the blocking one (this M is THE poller until it takes a P or parks).
    pub blocking: bool,
    /// The fd `netpoll` walks, and its successor on the ready list.
    cur: u32,
    next: u32,
    /// `injectglist`: the runnable Gs still to put, and how many go to the global queue.
    inj: Vec<u32>,
    k: u32,
    after: NpAfter,
    /// `startm` found no M: `netpollBreak` after the unlock.
    pub brk: bool,
    /// The break is the program's end (then the end goes on).
    brk_end: bool,
    /// A peer: requests answered.
    pub served: u32,
}

/// sysmon's registers (empty for an M): its sleep, its idle rounds and its `sysmontick` per P.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SysmonRegs {
    /// The next sleep in µs.
    pub delay_us: u32,
    /// Rounds in a row that retook or preempted nothing (saturates past 50).
    pub idle: u32,
    /// Ps retaken or preempted this round (`retake`'s `n`).
    pub n: u32,
    /// `pd.schedtick` per P.
    pub pd_sched: Vec<u32>,
    /// `now − pd.schedwhen` per P (saturates at `forcePreemptNS`); sysmon's clock is the sum
    /// of its sleeps.
    pub sched_age: Vec<u64>,
    /// `pd.syscalltick` per P.
    pub pd_sys: Vec<u32>,
    /// `now − pd.syscallwhen` per P (saturates at 10 ms).
    pub sys_age: Vec<u64>,
    /// `sysretake`: the slice ran out while the P is in a syscall.
    pub force: bool,
    /// `startm(pp, spinning)` of `handoffp`: started spinning.
    pub hspin: bool,
    /// Ghost: this round saw the P's syscall for the second time (same `syscalltick`).
    pub same: bool,
    /// Ghost: the Ps whose syscall sysmon has seen twice, as it left them (the invariant
    /// `syscall-retake` reads it).
    pub twice: u32,
    /// The `lastpoll` stamp sysmon last saw ([`GmpConfig::lastpoll_stamp`]).
    pub poll_stamp: u32,
    /// `now − lastpoll` on sysmon's clock: the age of that stamp (saturates just past 10 ms).
    pub poll_age: u64,
}

/// An M: its registers, its continuation registers and the ghost state the invariants read.
///
/// Equality and hashing leave out the counters and keep only `schedtick % 61`: two Ms that differ
/// only there behave the same (the model checker merges them).
#[derive(Clone, Debug)]
pub struct Mcx {
    /// The scenario.
    pub cfg: GmpConfig,
    /// This M's id.
    pub id: u32,
    /// `m.p`: the P held, or [`NONE`].
    pub p: u32,
    /// `m.spinning`.
    pub spinning: bool,
    /// `m.curg` (0 = none).
    pub curg: u32,
    /// The running G's step.
    pc: u32,
    /// `pp.schedtick` of the P (kept with the M that runs it; the P's counter in Go).
    schedtick: u32,
    /// The G found by `findRunnable` (or being put).
    g: u32,
    inherit: bool,
    /// The G `runqput` puts.
    pg: u32,
    put_ret: PutRet,
    wake_ret: WakeRet,
    gmode: GMode,
    /// Loop registers.
    i: u32,
    n: u32,
    t: u32,
    mask: u32,
    tp: u32,
    /// Steal order.
    pass: u32,
    k: u32,
    start: u32,
    stride: u32,
    /// Gs copied by `runqputslow` or `runqgrab`.
    batch: Vec<u32>,
    /// Ghost: runnable Gs this M holds outside every queue (taken, not yet run or published).
    pub hand: Vec<u32>,
    /// Ghost: an `nmspinning` increment of `wakep` not yet handed to an M's `nextp`.
    pub pending_spin: bool,
    /// Ghost: between making a G runnable (or `resetspinning`) and the end of its `wakep`.
    pub waking: bool,
    /// Ghost: between dropping spinning at the park and deciding to sleep (the re-check).
    pub dancing: bool,
    /// `wakep` is the spawner's `startIdle` (no `nmspinning`, `startm(pp, spinning=false)`).
    inject: bool,
    /// The injector: the last G it readies (it readies G `pc` now).
    ij_last: u32,
    /// Ghost: the G this M is parking (status `_Gwaiting`, not yet published on its wait word).
    pub parking: u32,
    /// Ghost: the G this M is readying (taken off its wait word, status not yet `_Grunnable`).
    pub readying: u32,
    /// `m.oldp`: the P held before the syscall (NONE outside one).
    pub oldp: u32,
    /// The P's `schedtick` of the running G's slice (what a preemption request names).
    pub ptick: u32,
    /// Ghost: the running G has just finished a slice (it stands at a preemption point).
    pub after_slice: bool,
    /// Ghost: `execute`s in a row that inherited the time slice (`runnext`), on this M's P.
    pub inherits: u32,
    /// `exitsyscall0` found an idle P: execute the G on it.
    x0: bool,
    /// sysmon's registers.
    pub sm: SysmonRegs,
    /// Counters.
    pub counts: MCounts,
    /// The network poller's registers (and a peer's).
    pub np: NetRegs,
    /// What this M's `checkdead` threw ([`fatal`]).
    pub fatal: u8,
    /// `m.lockedg`: the G locked to this M (0 = none).
    pub lockedg: u32,
    /// Where `handoffp` returns to.
    pub ho_ret: HoRet,
    /// Ghost: the M is in `handoffp` of a P it released (`stoplockedm`, or its exit).
    pub lk_handing: bool,
    /// Record (not state): the Gs this M locked (`locked` workload).
    pub locked_here: Vec<u32>,
    /// Record (not state): every G this M executed, in order (`locked` workload).
    pub ran: Vec<u32>,
    /// Record (not state): the Gs this M unlocked (`UnlockOSThread`, `locked` workload).
    pub unlocked_here: Vec<u32>,
    /// Where the Gs' code comes from ([`GCode`]; none: the workload's).
    pub code: GCodeRef,
}

/// Where `handoffp` returns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HoRet {
    /// sysmon's `retake`: the next P.
    Sysmon,
    /// `stoplockedm`: `incidlelocked(1)` and sleep.
    StopLocked,
    /// A locked G exited: the thread exits.
    Exit,
}

impl Mcx {
    fn key(&self) -> impl core::hash::Hash + PartialEq + '_ {
        (
            (
                self.id,
                self.p,
                self.spinning,
                self.curg,
                self.pc,
                self.schedtick % 61,
            ),
            (
                self.g,
                self.inherit,
                self.pg,
                self.put_ret,
                self.wake_ret,
                self.gmode,
            ),
            (self.i, self.n, self.t, self.mask, self.tp),
            (self.pass, self.k, self.start, self.stride),
            (&self.batch, &self.hand),
            (self.pending_spin, self.waking, self.dancing),
            (self.inject, self.ij_last, self.parking, self.readying),
            (
                self.oldp,
                self.ptick,
                self.after_slice,
                self.x0,
                &self.sm,
                self.inherits,
            ),
            (self.lockedg, self.ho_ret, self.lk_handing),
            (&self.np, self.fatal),
        )
    }

    /// Forget the scratch registers (so states that differ only in dead values merge).
    fn clear(&mut self) {
        self.i = 0;
        self.n = 0;
        self.t = 0;
        self.mask = 0;
        self.tp = 0;
        self.pass = 0;
        self.k = 0;
        self.start = 0;
        self.stride = 1;
        self.pg = 0;
        self.batch.clear();
    }

    fn top(&mut self) -> Next<Sched, ()> {
        self.clear();
        self.g = 0;
        self.inherit = false;
        if self.lockedg != 0 {
            // schedule(): a locked M runs only its G
            return Next::Go(Sched::LkStopOwner);
        }
        if self.cfg.variant == GmpVariant::SingleQueue {
            Next::Go(Sched::GPeek)
        } else if self.cfg.variant != GmpVariant::NoFairness && self.schedtick % 61 == 0 {
            Next::Go(Sched::Fair)
        } else {
            Next::Go(Sched::NextLoad)
        }
    }

    fn found(&mut self, g: u32, inherit: bool) -> Next<Sched, ()> {
        self.g = g;
        self.inherit = inherit;
        if self.spinning {
            Next::Go(Sched::ResetSpin)
        } else {
            self.exec_or_startlocked()
        }
    }

    /// The running G's action at its `pc`: the platform's [`GCode`], else the workload's.
    #[inline(always)]
    fn action(&self, c: &GmpConfig) -> GAct {
        match &self.code.0 {
            Some(code) => code.action(c, self.curg, self.pc),
            None => c.workload.action(c, self.curg, self.pc),
        }
    }

    fn g_next(&mut self) -> Next<Sched, ()> {
        // the config lent, not copied (88 bytes: a `memcpy` per G action natively)
        match self.action(&self.cfg) {
            GAct::Work(_) => Next::Go(Sched::GWork),
            GAct::Slice { .. } => Next::Go(Sched::GSlice),
            GAct::Syscall(_) => Next::Go(Sched::EnterStatus),
            GAct::Spawn(child) => Next::Go(Sched::NewLive { c: child }),
            GAct::Exit => Next::Go(Sched::GExit),
            GAct::Yield => Next::Go(Sched::YieldSave),
            GAct::GoYield => Next::Go(Sched::GoyieldSave),
            GAct::Park => Next::Go(Sched::RecvLoad),
            GAct::Ready(c) => Next::Go(Sched::SendLoad { c }),
            GAct::LockOSThread => Next::Go(Sched::LkLockM),
            GAct::UnlockOSThread => Next::Go(Sched::LkUnlockM),
            GAct::NetWait => Next::Go(Sched::NwReq),
            GAct::NetDone => Next::Go(Sched::NwDone),
        }
    }

    /// Whether this is the injector: a thread outside the runtime that readies parked Gs
    /// (`foreign-wake`'s, or natively any thread that wakes a parked future's waker).
    pub fn is_injector(&self) -> bool {
        self.cfg.injector_id() == Some(self.id) || self.ij_last != 0
    }

    /// The injector's next wake (after its sleep), or its end.
    fn ij_next(&mut self) -> Next<Sched, ()> {
        if self.pc < self.ij_last {
            self.pc += 1;
            Next::Go(Sched::IjSleep)
        } else {
            Next::Done(())
        }
    }

    /// Whether this is the spawner (not an M).
    pub fn is_spawner(&self) -> bool {
        self.id == self.cfg.threads && self.cfg.workload.external()
    }

    /// After `execute`: `gogo` to where the G resumes.
    fn exec_go_on(&mut self) -> Next<Sched, ()> {
        // a G whose code the platform gives resumes where it left (its `pc` only grows)
        if self.cfg.workload.resumes() || self.code.0.is_some() {
            Next::Go(Sched::ExecSched)
        } else {
            self.g_next()
        }
    }

    /// Whether this is sysmon (not an M).
    pub fn is_sysmon(&self) -> bool {
        self.cfg.sysmon_id() == Some(self.id)
    }

    /// Whether the G at a slice's end checks for preemption: always with calls (the prologue's
    /// check); in a call-free loop only by the async signal.
    fn slice_checks(&self) -> bool {
        let c = &self.cfg;
        match self.action(c) {
            GAct::Slice { calls, .. } => calls || c.variant != GmpVariant::NoAsyncPreemption,
            _ => false,
        }
    }

    /// sysmon is done with P `p`: the ghost of a second look, then the next P or the round's end.
    fn sm_next(&mut self, p: u32) -> Next<Sched, ()> {
        if self.sm.same {
            self.sm.twice |= 1 << p;
        } else {
            self.sm.twice &= !(1 << p);
        }
        self.sm.same = false;
        self.sm.force = false;
        self.sm.hspin = false;
        if p + 1 < self.cfg.procs {
            Next::Go(Sched::SmFlag { p: p + 1 })
        } else {
            // `if retake(now) != 0 { idle = 0 } else { idle++ }`, then the next sleep
            if self.sm.n != 0 {
                self.sm.idle = 0;
            } else {
                self.sm.idle = (self.sm.idle + 1).min(SYSMON_IDLE_ROUNDS + 1);
            }
            if self.sm.idle == 0 {
                self.sm.delay_us = SYSMON_MIN_US;
            } else if self.sm.idle > SYSMON_IDLE_ROUNDS {
                self.sm.delay_us = self.sm.delay_us.saturating_mul(2);
            }
            self.sm.delay_us = self.sm.delay_us.min(SYSMON_MAX_US);
            Next::Go(Sched::SmSleep)
        }
    }

    /// sysmon after its sleep: every age grows by the sleep.
    fn sm_tick(&mut self) {
        let d = self.sm.delay_us as u64 * 1_000;
        for a in self.sm.sched_age.iter_mut() {
            *a = (*a + d).min(FORCE_PREEMPT_NS);
        }
        for a in self.sm.sys_age.iter_mut() {
            *a = (*a + d).min(SYSCALL_GRACE_NS);
        }
        if self.cfg.sysmon_polls() {
            self.sm.poll_age = (self.sm.poll_age + d).min(SYSMON_NETPOLL_NS + 1);
        }
        self.sm.n = 0;
    }

    /// sysmon's round after its sleep: the network poll (`netpoll-hog`'s world), then `retake`.
    fn sm_round(&self) -> Next<Sched, ()> {
        if self.cfg.sysmon_polls() && self.cfg.variant != GmpVariant::NoSysmonNetpoll {
            Next::Go(Sched::SmNpLast)
        } else {
            Next::Go(Sched::SmFlag { p: 0 })
        }
    }

    /// The spawner's next G, or its end (the injector: its next wake).
    fn inject_next(&mut self) -> Next<Sched, ()> {
        if self.is_injector() {
            return self.ij_next();
        }
        self.pc += 1;
        if self.pc <= self.cfg.gs {
            Next::Go(Sched::XNewLive)
        } else {
            Next::Go(Sched::XEnd)
        }
    }

    fn work_ns(&self) -> u64 {
        match self.action(&self.cfg) {
            GAct::Work(ns) | GAct::Syscall(ns) | GAct::Slice { ns, .. } => ns,
            _ => 0,
        }
    }

    fn wake_entry(&self) -> Sched {
        if self.cfg.variant == GmpVariant::WakepNoSpinTest {
            Sched::WakeInc
        } else {
            Sched::WakeLoad
        }
    }

    fn put_done(&mut self) -> Next<Sched, ()> {
        match self.put_ret {
            PutRet::Newproc => {
                self.wake_ret = WakeRet::GoOn;
                Next::Go(self.wake_entry())
            }
            PutRet::Gosched => {
                self.wake_ret = WakeRet::Schedule;
                Next::Go(self.wake_entry())
            }
            PutRet::Goyield => {
                self.waking = false;
                self.top()
            }
            PutRet::SyscallStop => {
                self.waking = false;
                Next::Go(Sched::StopLock)
            }
            PutRet::Inject => {
                self.wake_ret = WakeRet::Inject;
                if self.cfg.variant == GmpVariant::InjectWithoutStartm && self.is_injector() {
                    // broken: no startIdle
                    return self.wake_done();
                }
                // startIdle(1): straight to the lock, no nmspinning
                self.inject = true;
                Next::Go(Sched::WakeLock)
            }
            PutRet::NetGlobal => self.inj_idle(),
            PutRet::NetLocal => self.inj_local(),
        }
    }

    fn wake_done(&mut self) -> Next<Sched, ()> {
        self.waking = false;
        self.inject = false;
        match self.wake_ret {
            WakeRet::Execute => self.exec_or_startlocked(),
            WakeRet::GoOn => {
                self.pc += 1;
                self.g_next()
            }
            WakeRet::Schedule => self.top(),
            WakeRet::Inject => self.inject_next(),
            WakeRet::NetIdle => {
                self.waking = true;
                self.inj_idle()
            }
        }
    }

    /// Put `g` (in this M's hands) on the global queue under `sched.lock`.
    fn global_put(&mut self, g: u32, ret: PutRet) -> Next<Sched, ()> {
        self.batch.clear();
        self.batch.push(g);
        self.i = 0;
        self.put_ret = ret;
        Next::Go(Sched::SlowLock)
    }

    /// The ghost hands hold `g` alone (reusing the vector: no allocation per `execute` natively).
    fn hold(&mut self, g: u32) {
        self.hand.clear();
        self.hand.push(g);
    }

    fn unhand(&mut self, g: u32) {
        match self.hand.iter().position(|&x| x == g) {
            // the last one (the usual case): a pop, not `remove`'s `memmove` of nothing
            Some(i) if i + 1 == self.hand.len() => {
                self.hand.pop();
            }
            Some(i) => {
                self.hand.remove(i);
            }
            None => {}
        }
    }

    /// `cheaprand()`: a pure function of the seed, the M, its tick and the pass (so the model
    /// checker's states carry no generator).
    fn rand(&self) -> u32 {
        let mut x = self.cfg.seed
            ^ (self.id as u64) << 32
            ^ (self.schedtick as u64) << 8
            ^ self.pass as u64
            ^ 0x9E37_79B9_7F4A_7C15;
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        x ^= x >> 33;
        (x >> 16) as u32
    }

    /// `stealOrder.start(fastrand())`: a start and a stride coprime with GOMAXPROCS.
    fn new_order(&mut self) {
        let n = self.cfg.procs;
        // the ((r / n) mod count)-th stride coprime with n, counted without allocating
        let coprime = |s: &u32| gcd(*s, n) == 1;
        let count = (1..=n).filter(coprime).count() as u32;
        let r = self.rand();
        self.start = r % n;
        self.stride = (1..=n)
            .filter(coprime)
            .nth(((r / n) % count) as usize)
            .unwrap_or(1);
        self.k = 0;
    }

    fn spin_check(&self) -> Next<Sched, ()> {
        if self.cfg.variant == GmpVariant::SingleQueue {
            Next::Go(Sched::ParkLock)
        } else if self.spinning {
            Next::Go(Sched::StealOwnTail)
        } else if self.cfg.variant == GmpVariant::NoSpinLimit {
            Next::Go(Sched::BecomeSpin)
        } else {
            Next::Go(Sched::SpinLoadN)
        }
    }

    /// The next victim of `stealWork`, or the park once 4 passes found nothing.
    fn next_victim(&mut self) -> Next<Sched, ()> {
        let n = self.cfg.procs;
        loop {
            if self.k >= n {
                self.pass += 1;
                if self.pass >= STEAL_TRIES {
                    return Next::Go(Sched::ParkLock);
                }
                self.new_order();
            }
            let v = (self.start + self.k * self.stride) % n;
            if v != self.p {
                return Next::Go(Sched::StealIdle { v });
            }
            self.k += 1;
        }
    }

    fn skip_victim(&mut self) -> Next<Sched, ()> {
        self.k += 1;
        self.next_victim()
    }

    fn after_grab(&mut self, v: u32, h: u32, t: u32) -> Next<Sched, ()> {
        let avail = t.wrapping_sub(h);
        let mut n = avail - avail / 2;
        if self.cfg.variant == GmpVariant::StealOne {
            n = n.min(1);
        }
        if n > self.cfg.half() {
            // torn read of head and tail: try again
            return Next::Go(Sched::GrabHead { v });
        }
        if n == 0 {
            if self.pass == STEAL_TRIES - 1 {
                return Next::Go(Sched::GrabNextLoad { v });
            }
            return self.skip_victim();
        }
        self.n = n;
        self.i = 0;
        self.batch.clear();
        Next::Go(Sched::GrabCopy { v, h })
    }

    fn after_pop(&mut self, g: u32) -> Next<Sched, ()> {
        self.i += 1;
        if self.g == 0 {
            self.g = g;
            self.pop_more()
        } else {
            Next::Go(Sched::GPutSlot { g })
        }
    }

    fn pop_more(&self) -> Next<Sched, ()> {
        if self.i < self.n {
            Next::Go(Sched::GPopHead)
        } else {
            Next::Go(Sched::GUnlock)
        }
    }

    fn dance_nothing(&mut self) -> Next<Sched, ()> {
        if self.spinning {
            // reversed dance: drop spinning only now
            Next::Go(Sched::DanceDropLate)
        } else {
            self.dancing = false;
            self.stop_or_poll()
        }
    }

    fn end_wake_next(&mut self) -> Next<Sched, ()> {
        if self.mask == 0 && self.cfg.workload.netpoll_world() && !self.np.brk_end {
            // the program ends: a poller blocked in epoll_wait is not on midle, break it
            self.np.brk_end = true;
            Next::Go(Sched::NbLast)
        } else if self.mask == 0 && self.cfg.sysmon() {
            Next::Go(Sched::EndSmNote)
        } else if self.mask == 0 {
            self.end_finish()
        } else {
            let m2 = self.mask.trailing_zeros();
            self.mask &= !(1 << m2);
            Next::Go(Sched::EndPark { m2 })
        }
    }
}

impl Mcx {
    /// After the end's wakeups: the spawner exits, an M schedules (and finds `done`).
    fn end_finish(&mut self) -> Next<Sched, ()> {
        self.np.brk_end = false;
        if self.is_spawner() {
            Next::Done(())
        } else {
            self.top()
        }
    }

    /// After `sysmonwake`: back to `entersyscall` (to unlock) or to `exitsyscall`'s unlock.
    fn sw_done(&mut self, enter: bool) -> Next<Sched, ()> {
        if enter {
            Next::Go(Sched::EnterSmUnlock)
        } else {
            Next::Go(Sched::ExitUnlock)
        }
    }
}

impl Mcx {
    /// findRunnable's step 8 (`netpoll(0)`) in a `netpoll` world, then the spinning check.
    fn net_check(&mut self) -> Next<Sched, ()> {
        if self.cfg.workload.netpoll_world() && self.cfg.variant != GmpVariant::SingleQueue {
            Next::Go(Sched::NpWaiters)
        } else {
            self.spin_check()
        }
    }

    /// findRunnable's step 13 (the blocking `netpoll`) before `stopm`, in a `netpoll` world.
    fn stop_or_poll(&mut self) -> Next<Sched, ()> {
        if self.cfg.workload.netpoll_world() && self.cfg.variant != GmpVariant::NoBlockingNetpoll {
            Next::Go(Sched::NpBWaiters)
        } else {
            Next::Go(Sched::StopLock)
        }
    }

    /// Whether this is a G's peer (the network), not an M.
    pub fn is_peer(&self) -> bool {
        self.cfg.peers() > 0 && self.id >= self.cfg.peer_id(1) && self.id < self.cfg.actors()
    }

    /// The G a peer serves.
    pub fn peer_g(&self) -> u32 {
        self.id + 1 - self.cfg.peer_id(1)
    }

    /// `netpoll`'s walk of the ready list: the next fd, or the poll's end.
    fn np_walk_next(&mut self) -> Next<Sched, ()> {
        self.np.cur = self.np.next;
        if self.np.cur != 0 {
            Next::Go(Sched::NpLink)
        } else {
            self.np_polled()
        }
    }

    /// `netpoll` returned its list.
    fn np_polled(&mut self) -> Next<Sched, ()> {
        if self.is_sysmon() {
            // sysmon's poll: `injectglist` with no P (after `netpollAdjustWaiters`), then
            // `retake`
            if self.np.list.is_empty() {
                Next::Go(Sched::SmFlag { p: 0 })
            } else {
                self.counts.sysmon_injected += self.np.list.len() as u64;
                self.np.first = 0;
                self.np.after = NpAfter::Sysmon;
                Next::Go(Sched::NpAdjust)
            }
        } else if self.np.blocking && self.cfg.sysmon_polls() {
            Next::Go(Sched::NpStamp)
        } else if self.np.blocking {
            Next::Go(Sched::NpLastpoll)
        } else {
            Next::Go(Sched::NpPollDone)
        }
    }

    /// After `netpoll` with a P: run the first G, `injectglist` the rest (after
    /// `netpollAdjustWaiters`).
    fn np_run_first(&mut self) -> Next<Sched, ()> {
        self.np.first = self.np.list.remove(0);
        self.np.after = NpAfter::Run;
        Next::Go(Sched::NpAdjust)
    }

    /// `injectglist(list)`: mark every G runnable, then place them.
    fn inj_start(&mut self) -> Next<Sched, ()> {
        if self.np.list.is_empty() {
            self.inj_end()
        } else {
            self.waking = true;
            Next::Go(Sched::InjStatus)
        }
    }

    /// `startIdle(n)` of `injectglist`, then the local part.
    fn inj_idle(&mut self) -> Next<Sched, ()> {
        self.inject = false;
        if self.np.k > 0 {
            self.np.k -= 1;
            self.wake_ret = WakeRet::NetIdle;
            self.inject = true;
            Next::Go(Sched::WakeLock)
        } else {
            self.inj_local()
        }
    }

    /// `runqput(pp, gp, false)` of the next G left, or the end of `injectglist`.
    fn inj_local(&mut self) -> Next<Sched, ()> {
        if self.np.inj.is_empty() {
            self.inj_end()
        } else {
            self.pg = self.np.inj.remove(0);
            self.put_ret = PutRet::NetLocal;
            Next::Go(Sched::PutHead)
        }
    }

    fn inj_end(&mut self) -> Next<Sched, ()> {
        self.waking = false;
        self.inject = false;
        self.clear();
        match self.np.after {
            NpAfter::Run => Next::Go(Sched::NpFirstStatus),
            NpAfter::Stop => Next::Go(Sched::StopLock),
            NpAfter::Sysmon => {
                self.np.after = NpAfter::Run;
                Next::Go(Sched::SmFlag { p: 0 })
            }
        }
    }

    /// After `netpollBreak` (or its skip): back to `wakep`'s caller, or on with the end.
    fn nb_done(&mut self) -> Next<Sched, ()> {
        if self.np.brk_end {
            self.end_wake_next()
        } else {
            self.wake_done()
        }
    }

    /// `mput` is done: `checkdead` (only when no M runs: the run = Ms not on `midle`). Not where
    /// a thread outside the runtime runs (the spawner), nor where sysmon runs: Go brackets
    /// sysmon's retake with `incidlelocked(-1)` … `incidlelocked(1)` so that a P in sysmon's hands
    /// counts as running, which the model does not have (`sched.nmidlelocked`).
    fn checkdead(&mut self) -> Next<Sched, ()> {
        let idle = (self.mask | (1 << self.id)).count_ones();
        if idle >= self.cfg.threads
            && !self.cfg.workload.external()
            && !self.cfg.sysmon()
            && !self.cfg.foreign_wakes
        {
            self.n = 0;
            Next::Go(Sched::CdScan { g: 1 })
        } else {
            Next::Go(Sched::StopUnlock)
        }
    }
}

impl PartialEq for Mcx {
    fn eq(&self, other: &Self) -> bool {
        self.cfg == other.cfg && self.key() == other.key()
    }
}

impl Eq for Mcx {}

impl core::hash::Hash for Mcx {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h);
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

crate::steps! {
    /// Where an M is in the scheduler.
    pub enum Sched(m: Mcx) -> (), line u16 {
        // ----- M0's start: runtime·schedinit + newproc(main) -----
        /// All Ps but P0 idle.
        InitPidle @ ln::FAIR => store(PIDLE, ((1u64 << m.cfg.procs) - 1) as u32 & !1) => |()|
            Go(Sched::InitNpidle);
        /// `npidle = GOMAXPROCS − 1`.
        InitNpidle @ ln::FAIR => store(NPIDLE, m.cfg.procs - 1) => |()| Go(Sched::InitMidle);
        /// Every M but M0 waits on `midle` (threads not yet started).
        InitMidle @ ln::FAIR => store(MIDLE, ((1u64 << m.cfg.threads) - 1) as u32 & !1) => |()|
            Go(Sched::InitLive);
        /// One live G: main.
        InitLive @ ln::NEWPROC => store(LIVE, 1) => |()| Go(Sched::InitStatus);
        /// `main`'s G is runnable…
        InitStatus @ ln::NEWPROC => store(m.cfg.status(1), gstatus::RUNNABLE) => |()| {
            m.hand.push(1);
            m.waking = true;
            Go(Sched::InitRunnext)
        };
        /// …in P0's runnext (`single-queue`: the global queue's size…).
        InitRunnext @ ln::NEWPROC => store(
            if m.cfg.variant == GmpVariant::SingleQueue { GSIZE } else { m.cfg.runnext(0) },
            1
        ) => |()|
            if m.cfg.variant == GmpVariant::SingleQueue {
                Go(Sched::InitGHead)
            } else {
                m.unhand(1);
                Go(Sched::InitOwner)
            };
        /// `single-queue`: …head…
        InitGHead @ ln::NEWPROC => store(GHEAD, 1) => |()| Go(Sched::InitGTail);
        /// …and tail.
        InitGTail @ ln::NEWPROC => store(GTAIL, 1) => |()| {
            m.unhand(1);
            Go(Sched::InitOwner)
        };
        /// `acquirep(allp[0])`.
        InitOwner @ ln::NEWPROC => store(m.cfg.owner(0), 1) => |()| {
            m.p = 0;
            m.waking = false;
            m.top()
        };

        // ----- findRunnable: the 1-in-61 check -----
        /// `sched.runq.size > 0`?
        Fair @ ln::FAIR => load(GSIZE) => |n|
            if n > 0 { Go(Sched::FairLock) } else { Go(Sched::NextLoad) };
        /// `lock(&sched.lock)`.
        FairLock @ ln::FAIR => mutex_lock(SCHED_LOCK) => |()| {
            m.gmode = GMode::Fair;
            Go(Sched::GSize)
        };

        // ----- runqget -----
        /// `next := pp.runnext`.
        NextLoad @ ln::LOCAL => load(m.cfg.runnext(m.p)) => |g|
            if g != 0 { Go(Sched::NextCas { g }) } else { Go(Sched::RqHead) };
        /// `pp.runnext.cas(next, 0)`.
        NextCas {
            /// The G seen in runnext.
            g: u32,
        } @ ln::LOCAL => cas(m.cfg.runnext(m.p), g, 0) => |ok|
            if ok { m.hold(g); m.found(g, true) } else { Go(Sched::RqHead) };
        /// `h := load-acquire(pp.runqhead)`.
        RqHead @ ln::LOCAL => load(m.cfg.head(m.p)) => |h| Go(Sched::RqTail { h });
        /// `t := pp.runqtail`.
        RqTail {
            /// The head read.
            h: u32,
        } @ ln::LOCAL => load(m.cfg.tail(m.p)) => |t|
            if t == h { Go(Sched::GPeek) } else { Go(Sched::RqSlot { h }) };
        /// `gp := pp.runq[h % len]`.
        RqSlot {
            /// The head read.
            h: u32,
        } @ ln::LOCAL => load(m.cfg.slot(m.p, h)) => |g| Go(Sched::RqCas { h, g });
        /// `cas-release(pp.runqhead, h, h+1)`.
        RqCas {
            /// The head read.
            h: u32,
            /// The G at the head.
            g: u32,
        } @ ln::LOCAL => cas(m.cfg.head(m.p), h, h.wrapping_add(1)) => |ok|
            if ok { m.hold(g); m.found(g, false) } else { Go(Sched::RqHead) };

        // ----- the global queue -----
        /// `sched.runq.size != 0` (racy read before the lock).
        GPeek @ ln::GLOBAL => load(GSIZE) => |n|
            if n > 0 { Go(Sched::GLock) } else { m.net_check() };
        /// `lock(&sched.lock)`.
        GLock @ ln::GLOBAL => mutex_lock(SCHED_LOCK) => |()| {
            m.gmode = GMode::Batch;
            Go(Sched::GSize)
        };
        /// Under the lock: `n = min(size, size/gomaxprocs + 1, len(runq)/2)` (1 for the fairness
        /// check).
        GSize @ ln::GLOBAL => load(GSIZE) => |size| {
            m.g = 0;
            m.i = 0;
            m.n = match m.gmode {
                _ if m.cfg.variant == GmpVariant::SingleQueue => size.min(1),
                GMode::Fair => size.min(1),
                _ => size.min(size / m.cfg.procs + 1).min(m.cfg.half()),
            };
            if m.n == 0 {
                if m.gmode == GMode::Park { Go(Sched::ParkNeed) } else { Go(Sched::GUnlock) }
            } else {
                Go(Sched::GOwnTail)
            }
        };
        /// Our own tail, where the batch goes (our ring is empty; only we write its tail).
        GOwnTail @ ln::GLOBAL => load(m.cfg.tail(m.p)) => |t| {
            m.t = t;
            Go(Sched::GPopHead)
        };
        /// `gp := sched.runq.head`.
        GPopHead @ ln::GLOBAL => load(GHEAD) => |g|
            if g == 0 { Go(Sched::GUnlock) } else { Go(Sched::GPopLink { g }) };
        /// `gp.schedlink`.
        GPopLink {
            /// The head G.
            g: u32,
        } @ ln::GLOBAL => load(m.cfg.link(g)) => |next| Go(Sched::GPopSet { g, next });
        /// `sched.runq.head = gp.schedlink`.
        GPopSet {
            /// The head G.
            g: u32,
            /// Its successor.
            next: u32,
        } @ ln::GLOBAL => store(GHEAD, next) => |()| {
            m.hand.push(g);
            if next == 0 { Go(Sched::GPopTail { g }) } else { Go(Sched::GPopUnlink { g }) }
        };
        /// The queue is empty: `tail = 0`.
        GPopTail {
            /// The G taken.
            g: u32,
        } @ ln::GLOBAL => store(GTAIL, 0) => |()| Go(Sched::GPopUnlink { g });
        /// `gp.schedlink = 0`.
        GPopUnlink {
            /// The G taken.
            g: u32,
        } @ ln::GLOBAL => store(m.cfg.link(g), 0) => |()| Go(Sched::GPopSize { g });
        /// `sched.runq.size--`.
        GPopSize {
            /// The G taken.
            g: u32,
        } @ ln::GLOBAL => fetch_add(GSIZE, u32::MAX) => |_| m.after_pop(g);
        /// `runqput(pp, gp, false)` of the batch: the slot…
        GPutSlot {
            /// The G.
            g: u32,
        } @ ln::GLOBAL => store(m.cfg.slot(m.p, m.t), g) => |()| Go(Sched::GPutTail { g });
        /// …and the tail.
        GPutTail {
            /// The G.
            g: u32,
        } @ ln::GLOBAL => store(m.cfg.tail(m.p), m.t.wrapping_add(1)) => |()| {
            m.t = m.t.wrapping_add(1);
            m.unhand(g);
            m.pop_more()
        };
        /// `unlock(&sched.lock)`.
        GUnlock @ ln::GLOBAL => mutex_unlock(SCHED_LOCK) => |()| {
            if m.g != 0 {
                m.counts.global_queue_gets += 1;
                let g = m.g;
                m.found(g, false)
            } else {
                match m.gmode {
                    GMode::Fair => Go(Sched::NextLoad),
                    _ => m.net_check(),
                }
            }
        };

        // ----- spinning and stealWork -----
        /// `nmspinning` for the limit.
        SpinLoadN @ ln::SPIN => load(NMSPINNING) => |s| Go(Sched::SpinLoadIdle { s });
        /// `npidle`: spin only if `2*nmspinning < gomaxprocs - npidle`.
        SpinLoadIdle {
            /// `nmspinning` read.
            s: u32,
        } @ ln::SPIN => load(NPIDLE) => |i|
            if 2 * s < m.cfg.procs.saturating_sub(i) { Go(Sched::BecomeSpin) } else { Go(Sched::ParkLock) };
        /// `becomeSpinning`: `m.spinning = true; nmspinning++`.
        BecomeSpin @ ln::SPIN => fetch_add(NMSPINNING, 1) => |_| {
            m.spinning = true;
            m.counts.spins += 1;
            Go(Sched::SpinClearNeed)
        };
        /// `needspinning = 0`.
        SpinClearNeed @ ln::SPIN => store(NEEDSPIN, 0) => |()| Go(Sched::StealOwnTail);
        /// Our tail, where stolen Gs go.
        StealOwnTail @ ln::STEAL => load(m.cfg.tail(m.p)) => |t| {
            m.t = t;
            m.pass = 0;
            if m.cfg.procs < 2 {
                Go(Sched::ParkLock)
            } else {
                m.new_order();
                m.next_victim()
            }
        };
        /// `idlepMask.read(p2)`: skip idle Ps.
        StealIdle {
            /// The victim.
            v: u32,
        } @ ln::STEAL => load(PIDLE) => |mask|
            if mask & (1 << v) != 0 { m.skip_victim() } else { Go(Sched::GrabHead { v }) };
        /// `h := load-acquire(pp.runqhead)` of the victim.
        GrabHead {
            /// The victim.
            v: u32,
        } @ ln::STEAL => load(m.cfg.head(v)) => |h| Go(Sched::GrabTail { v, h });
        /// `t := load-acquire(pp.runqtail)`; `n = t-h; n -= n/2`.
        GrabTail {
            /// The victim.
            v: u32,
            /// Its head.
            h: u32,
        } @ ln::STEAL => load(m.cfg.tail(v)) => |t| m.after_grab(v, h, t);
        /// `batch[i] = pp.runq[(h+i) % len]`…
        GrabCopy {
            /// The victim.
            v: u32,
            /// Its head.
            h: u32,
        } @ ln::STEAL => load(m.cfg.slot(v, h.wrapping_add(m.i))) => |g| Go(Sched::GrabStore { v, h, g });
        /// …into our ring beyond our tail (invisible until published).
        GrabStore {
            /// The victim.
            v: u32,
            /// Its head.
            h: u32,
            /// The G copied.
            g: u32,
        } @ ln::STEAL => store(m.cfg.slot(m.p, m.t.wrapping_add(m.i)), g) => |()| {
            m.batch.push(g);
            m.i += 1;
            if m.i < m.n { Go(Sched::GrabCopy { v, h }) } else { Go(Sched::GrabCas { v, h }) }
        };
        /// `cas-release(pp.runqhead, h, h+n)`: the Gs are ours.
        GrabCas {
            /// The victim.
            v: u32,
            /// Its head.
            h: u32,
        } @ ln::STEAL => cas(m.cfg.head(v), h, h.wrapping_add(m.n)) => |ok| {
            if !ok {
                m.batch.clear();
                Go(Sched::GrabHead { v })
            } else {
                m.counts.steals += 1;
                m.hand = core::mem::take(&mut m.batch);
                if m.n == 1 {
                    let g = m.hand[0];
                    m.found(g, false)
                } else {
                    Go(Sched::StealPublish)
                }
            }
        };
        /// `store-release(pp.runqtail, t+n-1)`: all but the last are runnable here; the last runs.
        StealPublish @ ln::STEAL => store(m.cfg.tail(m.p), m.t.wrapping_add(m.n - 1)) => |()| {
            let g = m.hand[m.hand.len() - 1];
            m.hold(g);
            m.found(g, false)
        };
        /// Last pass, empty ring: `next := pp.runnext` of the victim.
        GrabNextLoad {
            /// The victim.
            v: u32,
        } @ ln::STEAL => load(m.cfg.runnext(v)) => |g|
            if g == 0 { m.skip_victim() } else { Go(Sched::GrabNextStatus { v, g }) };
        /// `if pp.status == _Prunning`: only a running victim is about to run its `runnext`, so
        /// only then wait for it (`pp.m` set: the model's `_Prunning`; a P in a system call or
        /// idle has none).
        GrabNextStatus {
            /// The victim.
            v: u32,
            /// Its runnext.
            g: u32,
        } @ ln::STEAL => load(m.cfg.owner(v)) => |o|
            if o != 0 { Go(Sched::GrabNextSleep { v, g }) } else { Go(Sched::GrabNextCas { v, g }) };
        /// `usleep(3)`: let the victim run its own runnext. A real `nanosleep`: the M leaves its
        /// CPU, and Linux's timer slack (50 µs for a normal thread; the cost model's
        /// `timer_slack_ns`) stretches the 3 µs.
        GrabNextSleep {
            /// The victim.
            v: u32,
            /// Its runnext.
            g: u32,
        } @ ln::STEAL => sleep(RUNNEXT_STEAL_SLEEP_NS) => |()| Go(Sched::GrabNextCas { v, g });
        /// `pp.runnext.cas(next, 0)`.
        GrabNextCas {
            /// The victim.
            v: u32,
            /// Its runnext.
            g: u32,
        } @ ln::STEAL => cas(m.cfg.runnext(v), g, 0) => |ok|
            if ok {
                m.counts.steals += 1;
                m.hold(g);
                m.found(g, false)
            } else {
                m.skip_victim()
            };

        // ----- nothing found: release the P, the delicate dance, stopm -----
        /// `lock(&sched.lock)`; re-check the global queue under it.
        ParkLock @ ln::RELEASE => mutex_lock(SCHED_LOCK) => |()| {
            m.gmode = GMode::Park;
            Go(Sched::GSize)
        };
        /// `if !mp.spinning && sched.needspinning == 1`: become spinning instead of parking.
        ParkNeed @ ln::RELEASE => load(NEEDSPIN) => |need|
            if need == 1 && !m.spinning { Go(Sched::ParkNeedSpin) } else { Go(Sched::ParkPidle) };
        /// `becomeSpinning`: `nmspinning++`…
        ParkNeedSpin @ ln::RELEASE => fetch_add(NMSPINNING, 1) => |_| {
            m.spinning = true;
            m.counts.spins += 1;
            Go(Sched::ParkNeedClear)
        };
        /// …`needspinning = 0`…
        ParkNeedClear @ ln::RELEASE => store(NEEDSPIN, 0) => |()| Go(Sched::ParkNeedUnlock);
        /// …`unlock`; `goto top`.
        ParkNeedUnlock @ ln::RELEASE => mutex_unlock(SCHED_LOCK) => |()| m.top();
        /// `pidleput`: read the idle mask…
        ParkPidle @ ln::RELEASE => load(PIDLE) => |mask| {
            m.mask = mask;
            Go(Sched::ParkOwner)
        };
        /// `releasep`: `pp.m = 0; m.p = 0`.
        ParkOwner @ ln::RELEASE => store(m.cfg.owner(m.p), 0) => |()| {
            m.inherits = 0;
            m.tp = m.p;
            m.p = NONE;
            Go(Sched::ParkPidleStore)
        };
        /// …set our P's bit…
        ParkPidleStore @ ln::RELEASE => store(PIDLE, m.mask | (1 << m.tp)) => |()| Go(Sched::ParkNpidle);
        /// …`npidle++`.
        ParkNpidle @ ln::RELEASE => fetch_add(NPIDLE, 1) => |_| Go(Sched::ParkUnlock);
        /// `unlock(&sched.lock)`.
        ParkUnlock @ ln::RELEASE => mutex_unlock(SCHED_LOCK) => |()|
            if !m.spinning {
                m.stop_or_poll()
            } else if m.cfg.variant == GmpVariant::ReversedDance {
                m.dancing = true;
                Go(Sched::DanceGsize)
            } else {
                Go(Sched::DanceDrop)
            };
        /// `m.spinning = false; nmspinning--` BEFORE the re-check.
        DanceDrop @ ln::DANCE_DROP => fetch_add(NMSPINNING, u32::MAX) => |_| {
            m.spinning = false;
            m.dancing = true;
            Go(Sched::DanceGsize)
        };
        /// Re-check: the global queue.
        DanceGsize @ ln::DANCE_CHECK => load(GSIZE) => |n|
            if n > 0 { Go(Sched::DanceLock) } else { Go(Sched::DanceHead { i: 0 }) };
        /// Re-check: P i's head…
        DanceHead {
            /// The P.
            i: u32,
        } @ ln::DANCE_CHECK => load(m.cfg.head(i)) => |h| Go(Sched::DanceTail { i, h });
        /// …its tail…
        DanceTail {
            /// The P.
            i: u32,
            /// Its head.
            h: u32,
        } @ ln::DANCE_CHECK => load(m.cfg.tail(i)) => |t|
            if t != h { Go(Sched::DanceLock) } else { Go(Sched::DanceNext { i }) };
        /// …its runnext.
        DanceNext {
            /// The P.
            i: u32,
        } @ ln::DANCE_CHECK => load(m.cfg.runnext(i)) => |g|
            if g != 0 {
                Go(Sched::DanceLock)
            } else if i + 1 < m.cfg.procs {
                Go(Sched::DanceHead { i: i + 1 })
            } else {
                m.dance_nothing()
            };
        /// Reversed dance only: drop spinning after the re-check.
        DanceDropLate @ ln::DANCE_DROP => fetch_add(NMSPINNING, u32::MAX) => |_| {
            m.spinning = false;
            m.dancing = false;
            Go(Sched::StopLock)
        };
        /// Work seen: `lock`; `pidleget`.
        DanceLock @ ln::DANCE_CHECK => mutex_lock(SCHED_LOCK) => |()| Go(Sched::DancePidle);
        /// The idle mask.
        DancePidle @ ln::DANCE_CHECK => load(PIDLE) => |mask|
            if mask == 0 {
                Go(Sched::DanceUnlockNone)
            } else {
                m.mask = mask;
                m.tp = mask.trailing_zeros();
                Go(Sched::DanceTakeP)
            };
        /// No idle P after all: unlock and stop.
        DanceUnlockNone @ ln::DANCE_CHECK => mutex_unlock(SCHED_LOCK) => |()| m.dance_nothing();
        /// Take the P off the idle mask…
        DanceTakeP @ ln::DANCE_CHECK => store(PIDLE, m.mask & !(1 << m.tp)) => |()| Go(Sched::DanceNpidle);
        /// …`npidle--`…
        DanceNpidle @ ln::DANCE_CHECK => fetch_add(NPIDLE, u32::MAX) => |_| Go(Sched::DanceOwner);
        /// …`acquirep`.
        DanceOwner @ ln::DANCE_CHECK => store(m.cfg.owner(m.tp), m.id + 1) => |()| {
            m.p = m.tp;
            Go(Sched::DanceUnlock)
        };
        /// `unlock`; become spinning (unless still spinning) and start over.
        DanceUnlock @ ln::DANCE_CHECK => mutex_unlock(SCHED_LOCK) => |()|
            if m.spinning {
                m.dancing = false;
                m.top()
            } else {
                Go(Sched::DanceSpin)
            };
        /// `becomeSpinning`…
        DanceSpin @ ln::DANCE_CHECK => fetch_add(NMSPINNING, 1) => |_| {
            m.spinning = true;
            m.dancing = false;
            Go(Sched::DanceClearNeed)
        };
        /// …`needspinning = 0`; `goto top`.
        DanceClearNeed @ ln::DANCE_CHECK => store(NEEDSPIN, 0) => |()| m.top();
        /// `stopm`: `lock(&sched.lock)`.
        StopLock @ ln::STOPM => mutex_lock(SCHED_LOCK) => |()| Go(Sched::StopDone);
        /// The program ended?
        StopDone @ ln::STOPM => load(DONE) => |d|
            if d != 0 { Go(Sched::StopExit) } else { Go(Sched::StopMidle) };
        /// `mput`: read `midle`…
        StopMidle @ ln::STOPM => load(MIDLE) => |mask| {
            m.mask = mask;
            Go(Sched::StopMidleStore)
        };
        /// …add ourselves.
        StopMidleStore @ ln::STOPM => store(MIDLE, m.mask | (1 << m.id)) => |()| {
            m.counts.parks += 1;
            m.checkdead()
        };
        /// `unlock`.
        StopUnlock @ ln::STOPM => mutex_unlock(SCHED_LOCK) => |()| {
            m.clear();
            Go(Sched::StopSleep)
        };
        /// `notesleep(&m.park)`: sleep while the note is clear.
        StopSleep @ ln::STOPM => futex_wait(m.cfg.park(m.id), 0) => |_| Go(Sched::StopWoke);
        /// The note set?
        StopWoke @ ln::STOPM => load(m.cfg.park(m.id)) => |v|
            if v == 0 { Go(Sched::StopSleep) } else { Go(Sched::StopClear) };
        /// `noteclear(&m.park)`.
        StopClear @ ln::STOPM => store(m.cfg.park(m.id), 0) => |()| Go(Sched::StopNextp);
        /// `m.nextp`: 0 means woken for the end of the program.
        StopNextp @ ln::STOPM => load(m.cfg.nextp(m.id)) => |v|
            if v == 0 { Go(Sched::StopLock) } else { Go(Sched::StopNextpClear { v }) };
        /// `m.nextp = 0`; take the spinning flag `startm` gave.
        StopNextpClear {
            /// The `nextp` word read.
            v: u32,
        } @ ln::STOPM => store(m.cfg.nextp(m.id), 0) => |()| {
            m.spinning = v & SPIN_BIT != 0;
            if m.spinning {
                m.counts.spins += 1;
            }
            m.tp = (v & 0xFF).wrapping_sub(1);
            Go(Sched::AcquireP)
        };
        /// `acquirep(nextp)`.
        AcquireP @ ln::STOPM => store(m.cfg.owner(m.tp), m.id + 1) => |()| {
            m.p = m.tp;
            m.top()
        };
        /// `unlock` and exit the thread.
        StopExit @ ln::EXITED => mutex_unlock(SCHED_LOCK) => |()| Done(());

        // ----- schedule: resetspinning, execute -----
        /// `resetspinning`: `m.spinning = false; nmspinning--`, then `wakep()`.
        ResetSpin @ ln::RESET_SPIN => fetch_add(NMSPINNING, u32::MAX) => |_| {
            m.spinning = false;
            m.waking = true;
            m.wake_ret = WakeRet::Execute;
            Go(m.wake_entry())
        };
        /// `execute`: `casgstatus(gp, _Grunnable, _Grunning)`, `m.curg = gp`.
        Exec @ ln::EXECUTE => store(m.cfg.status(m.g), gstatus::RUNNING) => |()| {
            m.curg = m.g;
            if m.cfg.workload == Workload::Locked {
                m.ran.push(m.g);
            }
            m.hand.clear();
            m.counts.context_switches += 1;
            if !m.inherit {
                m.schedtick = m.schedtick.wrapping_add(1);
                m.inherits = 0;
            } else if m.cfg.workload.sysmon_world() {
                m.inherits = (m.inherits + 1).min(RUNNEXT_GHOST_CAP);
            }
            m.pc = 0;
            m.after_slice = false;
            let inherit = m.inherit;
            m.clear();
            m.g = 0;
            m.inherit = false;
            if m.cfg.sysmon() {
                if inherit { Go(Sched::ExecTickLoad) } else { Go(Sched::ExecTickAdd) }
            } else {
                m.exec_go_on()
            }
        };
        /// `gogo(&gp.sched)`: where the G resumes.
        ExecSched @ ln::EXECUTE => load(m.cfg.sched(m.curg)) => |pc| {
            m.pc = pc;
            m.g_next()
        };

        // ----- the G (its code is Workload::action) -----
        /// The G computes.
        GWork @ ln::G_WORK => work(m.work_ns()) => |()| {
            m.pc += 1;
            m.g_next()
        };
        /// `newproc`: one more live G…
        NewLive {
            /// The new G.
            c: u32,
        } @ ln::NEWPROC => fetch_add(LIVE, 1) => |_| Go(Sched::NewStatus { c });
        /// …`casgstatus(newg, _Gdead, _Grunnable)`…
        NewStatus {
            /// The new G.
            c: u32,
        } @ ln::NEWPROC => store(m.cfg.status(c), gstatus::RUNNABLE) => |()| {
            m.hand.push(c);
            m.waking = true;
            m.pg = c;
            m.put_ret = PutRet::Newproc;
            if m.cfg.variant == GmpVariant::SingleQueue {
                // Go 1.0: `runqput` is a push to the one global queue under the lock
                m.global_put(c, PutRet::Newproc)
            } else {
                Go(Sched::PutNextLoad)
            }
        };
        /// `goexit`: `casgstatus(gp, _Grunning, _Gdead)`.
        GExit @ ln::G_EXIT => store(m.cfg.status(m.curg), gstatus::DEAD) => |()| {
            m.curg = 0;
            if m.lockedg != 0 { Go(Sched::LkExitG) } else { Go(Sched::GExitLive) }
        };
        /// One live G fewer; the last one ends the program.
        GExitLive @ ln::G_EXIT => fetch_add(LIVE, u32::MAX) => |old|
            if old == 1 { Go(Sched::EndLock) } else { m.top() };
        /// `lock`.
        EndLock @ ln::END => mutex_lock(SCHED_LOCK) => |()| Go(Sched::EndDone);
        /// `done = 1`.
        EndDone @ ln::END => store(DONE, 1) => |()| Go(Sched::EndMidle);
        /// The parked Ms.
        EndMidle @ ln::END => load(MIDLE) => |mask| {
            m.mask = mask;
            Go(Sched::EndUnlock)
        };
        /// `unlock`.
        EndUnlock @ ln::END => mutex_unlock(SCHED_LOCK) => |()| m.end_wake_next();
        /// Set a parked M's note…
        EndPark {
            /// The M.
            m2: u32,
        } @ ln::END => store(m.cfg.park(m2), 1) => |()| Go(Sched::EndFutex { m2 });
        /// …and wake it.
        EndFutex {
            /// The M.
            m2: u32,
        } @ ln::END => futex_wake(m.cfg.park(m2), WakeCount::Up(1)) => |_| m.end_wake_next();
        /// The program exits: sysmon stops wherever it sleeps (the model sets its note…
        EndSmNote @ ln::END => store(m.cfg.sysmonnote(), 1) => |()| Go(Sched::EndSmWake);
        /// …and wakes it, so that it sees `done`).
        EndSmWake @ ln::END => futex_wake(m.cfg.sysmonnote(), WakeCount::Up(1)) => |_| m.end_finish();

        // ----- Gosched (goschedImpl) -----
        /// Save where the G resumes (`gp.sched`).
        YieldSave @ ln::G_YIELD => store(m.cfg.sched(m.curg), m.pc + 1) => |()| Go(Sched::YieldStatus);
        /// `casgstatus(gp, _Grunning, _Grunnable)`; `dropg`; then `globrunqput` under the lock.
        YieldStatus @ ln::G_YIELD => store(m.cfg.status(m.curg), gstatus::RUNNABLE) => |()| {
            let g = m.curg;
            m.curg = 0;
            m.hand.push(g);
            m.waking = true;
            m.counts.yields += 1;
            m.global_put(g, PutRet::Gosched)
        };

        // ----- goyield (goyield_m) -----
        /// Save where the G resumes (`gp.sched`).
        GoyieldSave @ ln::G_GOYIELD => store(m.cfg.sched(m.curg), m.pc + 1) => |()| Go(Sched::GoyieldStatus);
        /// `casgstatus(gp, _Grunning, _Grunnable)`; `dropg`; then `runqput(pp, gp, false)`: the
        /// tail of this P's ring (Go 1.0's one queue in the 2012 design), and `schedule`.
        GoyieldStatus @ ln::G_GOYIELD => store(m.cfg.status(m.curg), gstatus::RUNNABLE) => |()| {
            let g = m.curg;
            m.curg = 0;
            m.hand.push(g);
            m.counts.yields += 1;
            if m.cfg.variant == GmpVariant::SingleQueue {
                m.waking = true;
                m.global_put(g, PutRet::Gosched)
            } else {
                m.pg = g;
                m.put_ret = PutRet::Goyield;
                Go(Sched::PutHead)
            }
        };

        // ----- a receive that may gopark -----
        /// The G's wait word: a token already there?
        RecvLoad @ ln::G_PARK => load(m.cfg.wait(m.curg)) => |v|
            if v == wait::TOKEN { Go(Sched::RecvTake) } else { Go(Sched::RecvSave) };
        /// Take the token and go on (no park, as a receive that finds a value).
        RecvTake @ ln::G_PARK => store(m.cfg.wait(m.curg), wait::EMPTY) => |()| {
            m.pc += 1;
            m.g_next()
        };
        /// `gopark`: save where the G resumes…
        RecvSave @ ln::G_PARK => store(m.cfg.sched(m.curg), m.pc + 1) => |()| Go(Sched::RecvStatus);
        /// …`casgstatus(gp, _Grunning, _Gwaiting)`; `dropg`…
        RecvStatus @ ln::G_PARK => store(m.cfg.status(m.curg), gstatus::WAITING) => |()| {
            m.parking = m.curg;
            m.curg = 0;
            Go(Sched::RecvPark)
        };
        /// …the unlock function: publish the G on its wait word, unless a token came meanwhile.
        RecvPark @ ln::G_PARK => cas(m.cfg.wait(m.parking), wait::EMPTY, wait::PARKED) => |ok|
            if ok {
                m.parking = 0;
                m.counts.gparks += 1;
                m.top()
            } else {
                Go(Sched::RecvResumeTake)
            };
        /// The unlock function failed (the token came): take it…
        RecvResumeTake @ ln::G_PARK => store(m.cfg.wait(m.parking), wait::EMPTY) => |()| Go(Sched::RecvResume);
        /// …and run the G on (`casgstatus(gp, _Gwaiting, _Grunning)`).
        RecvResume @ ln::G_PARK => store(m.cfg.status(m.parking), gstatus::RUNNING) => |()| {
            m.curg = m.parking;
            m.parking = 0;
            m.pc += 1;
            m.g_next()
        };

        // ----- a send that may goready -----
        /// The receiver's wait word.
        SendLoad {
            /// The receiver.
            c: u32,
        } @ ln::G_READY => load(m.cfg.wait(c)) => |v|
            if v == wait::PARKED {
                Go(Sched::SendTake { c })
            } else if v == wait::EMPTY {
                Go(Sched::SendPost { c })
            } else {
                m.pc += 1;
                m.g_next()
            };
        /// Not parked: leave the token.
        SendPost {
            /// The receiver.
            c: u32,
        } @ ln::G_READY => cas(m.cfg.wait(c), wait::EMPTY, wait::TOKEN) => |ok|
            if ok {
                m.pc += 1;
                m.g_next()
            } else {
                Go(Sched::SendLoad { c })
            };
        /// Parked: take it off its wait word…
        SendTake {
            /// The receiver.
            c: u32,
        } @ ln::G_READY => cas(m.cfg.wait(c), wait::PARKED, wait::EMPTY) => |ok|
            if ok {
                m.readying = c;
                Go(Sched::SendReady { c })
            } else {
                Go(Sched::SendLoad { c })
            };
        /// …`goready`: `casgstatus(gp, _Gwaiting, _Grunnable)`, `runqput(pp, gp, next=true)`, `wakep`.
        SendReady {
            /// The receiver.
            c: u32,
        } @ ln::G_READY => store(m.cfg.status(c), gstatus::RUNNABLE) => |()| {
            m.readying = 0;
            m.hand.push(c);
            m.waking = true;
            m.counts.readies += 1;
            if m.cfg.variant == GmpVariant::SingleQueue {
                m.global_put(c, PutRet::Newproc)
            } else {
                m.pg = c;
                m.put_ret = PutRet::Newproc;
                Go(Sched::PutNextLoad)
            }
        };

        // ----- the spawner outside every P (injectglist with no P) -----
        /// Every P idle…
        XInitPidle @ ln::INJECT => store(PIDLE, ((1u64 << m.cfg.procs) - 1) as u32) => |()| Go(Sched::XInitNpidle);
        /// …`npidle = GOMAXPROCS`…
        XInitNpidle @ ln::INJECT => store(NPIDLE, m.cfg.procs) => |()| Go(Sched::XInitMidle);
        /// …every M parked on `midle`…
        XInitMidle @ ln::INJECT => store(MIDLE, ((1u64 << m.cfg.threads) - 1) as u32) => |()| Go(Sched::XInitLive);
        /// …and the spawner's own hold on the program (so it cannot end before the last spawn).
        XInitLive @ ln::INJECT => store(LIVE, 1) => |()| {
            m.pc = 1;
            Go(Sched::XNewLive)
        };
        /// One live G more…
        XNewLive @ ln::INJECT => fetch_add(LIVE, 1) => |_| Go(Sched::XNewStatus);
        /// …runnable; `globrunqput` under the lock, then `startIdle(1)`.
        XNewStatus @ ln::INJECT => store(m.cfg.status(m.pc), gstatus::RUNNABLE) => |()| {
            let g = m.pc;
            m.hand.push(g);
            m.waking = true;
            m.global_put(g, PutRet::Inject)
        };
        /// Every G made: drop the hold; the last one out ends the program.
        XEnd @ ln::INJECT => fetch_add(LIVE, u32::MAX) => |old|
            if old == 1 { Go(Sched::EndLock) } else { Done(()) };

        // ----- a thread outside every P readies a parked G (injectglist with no P) -----
        /// The injector's timer: it sleeps `net_ns` before each wake.
        IjSleep @ ln::FOREIGN => sleep(m.cfg.net_ns) => |()| Go(Sched::IjLoad);
        /// G `pc`'s wait word: parked, empty, or a token already there.
        IjLoad @ ln::FOREIGN => load(m.cfg.wait(m.pc)) => |v|
            if v == wait::PARKED {
                Go(Sched::IjTake)
            } else if v == wait::EMPTY {
                Go(Sched::IjPost)
            } else {
                m.ij_next()
            };
        /// Not parked: leave the token (the G's park finds it).
        IjPost @ ln::FOREIGN => cas(m.cfg.wait(m.pc), wait::EMPTY, wait::TOKEN) => |ok|
            if ok { m.ij_next() } else { Go(Sched::IjLoad) };
        /// Parked: take it off its wait word…
        IjTake @ ln::FOREIGN => cas(m.cfg.wait(m.pc), wait::PARKED, wait::EMPTY) => |ok|
            if ok {
                m.readying = m.pc;
                Go(Sched::IjStatus)
            } else {
                Go(Sched::IjLoad)
            };
        /// The injector's `startm` found no parked M (Go: `newm`, a new thread; the model's Ms
        /// are a fixed set, and every M without a P is on its way to `stopm`): unless the
        /// program ended…
        IjNoMDone @ ln::FOREIGN => load(DONE) => |d|
            if d != 0 { Go(Sched::IjGivePidle) } else { Go(Sched::IjNoMUnlock) };
        /// …`unlock`, holding the P…
        IjNoMUnlock @ ln::FOREIGN => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::IjNoMYield);
        /// …yield…
        IjNoMYield @ ln::FOREIGN => sched_yield() => |()| Go(Sched::IjNoMLock);
        /// …and `mget` again under the lock.
        IjNoMLock @ ln::FOREIGN => mutex_lock(SCHED_LOCK) => |()| Go(Sched::WakeMidle);
        /// The program ended: the P goes back idle (the idle mask read again).
        IjGivePidle @ ln::FOREIGN => load(PIDLE) => |mask| {
            m.mask = mask;
            m.counts.no_m += 1;
            Go(Sched::WakeGiveBack)
        };
        /// …`injectglist` with no P: `casgstatus(gp, _Gwaiting, _Grunnable)`, then
        /// `globrunqputbatch` under the lock and `startIdle(1)` (the spawner's rows).
        IjStatus @ ln::INJECTGLIST => store(m.cfg.status(m.pc), gstatus::RUNNABLE) => |()| {
            let g = m.pc;
            m.readying = 0;
            m.hand.push(g);
            m.waking = true;
            m.counts.readies += 1;
            m.global_put(g, PutRet::Inject)
        };

        // ----- runqput(pp, gp, next) -----
        /// `oldnext := pp.runnext`.
        PutNextLoad @ ln::PUT_NEXT => load(m.cfg.runnext(m.p)) => |old| Go(Sched::PutNextCas { old });
        /// `pp.runnext.cas(oldnext, gp)`; the old one goes to the tail.
        PutNextCas {
            /// The old runnext.
            old: u32,
        } @ ln::PUT_NEXT => cas(m.cfg.runnext(m.p), old, m.pg) => |ok| {
            if !ok {
                Go(Sched::PutNextLoad)
            } else {
                let pg = m.pg;
                m.unhand(pg);
                if old == 0 {
                    m.put_done()
                } else {
                    m.pg = old;
                    m.hand.push(old);
                    Go(Sched::PutHead)
                }
            }
        };
        /// `h := load-acquire(pp.runqhead)`.
        PutHead @ ln::PUT_RING => load(m.cfg.head(m.p)) => |h| Go(Sched::PutTail { h });
        /// `t := pp.runqtail`; room?
        PutTail {
            /// The head read.
            h: u32,
        } @ ln::PUT_RING => load(m.cfg.tail(m.p)) => |t|
            if t.wrapping_sub(h) < m.cfg.ring {
                Go(Sched::PutSlot { t })
            } else {
                m.batch.clear();
                Go(Sched::SlowLoad { h, i: 0 })
            };
        /// `pp.runq[t % len] = gp`.
        PutSlot {
            /// The tail.
            t: u32,
        } @ ln::PUT_RING => store(m.cfg.slot(m.p, t), m.pg) => |()| Go(Sched::PutPublish { t });
        /// `store-release(pp.runqtail, t+1)`.
        PutPublish {
            /// The tail.
            t: u32,
        } @ ln::PUT_RING => store(m.cfg.tail(m.p), t.wrapping_add(1)) => |()| {
            let pg = m.pg;
            m.unhand(pg);
            m.put_done()
        };
        /// `runqputslow`: `batch[i] = pp.runq[(h+i) % len]` for the oldest half.
        SlowLoad {
            /// The head read.
            h: u32,
            /// The index.
            i: u32,
        } @ ln::PUT_SLOW => load(m.cfg.slot(m.p, h.wrapping_add(i))) => |g| {
            m.batch.push(g);
            if i + 1 < m.cfg.half() { Go(Sched::SlowLoad { h, i: i + 1 }) } else { Go(Sched::SlowCas { h }) }
        };
        /// `cas-release(pp.runqhead, h, h+n)`: a failure means a thief moved it; try the ring again.
        SlowCas {
            /// The head read.
            h: u32,
        } @ ln::PUT_SLOW => cas(m.cfg.head(m.p), h, h.wrapping_add(m.cfg.half())) => |ok|
            if !ok {
                m.batch.clear();
                Go(Sched::PutHead)
            } else {
                let b = m.batch.clone();
                m.hand.extend(b);
                let pg = m.pg;
                m.batch.push(pg);
                m.i = 0;
                Go(Sched::SlowLock)
            };
        /// `lock(&sched.lock)`.
        SlowLock @ ln::PUT_SLOW => mutex_lock(SCHED_LOCK) => |()| Go(Sched::GPushTail);
        /// `globrunqputbatch`: `sched.runq.tail`…
        GPushTail @ ln::PUT_SLOW => load(GTAIL) => |t|
            if t == 0 { Go(Sched::GPushHead) } else { Go(Sched::GPushLink { t }) };
        /// …the empty queue's head…
        GPushHead @ ln::PUT_SLOW => store(GHEAD, m.batch[m.i as usize]) => |()| Go(Sched::GPushSetTail);
        /// …or the old tail's `schedlink`…
        GPushLink {
            /// The old tail.
            t: u32,
        } @ ln::PUT_SLOW => store(m.cfg.link(t), m.batch[m.i as usize]) => |()| Go(Sched::GPushSetTail);
        /// …`tail = gp`…
        GPushSetTail @ ln::PUT_SLOW => store(GTAIL, m.batch[m.i as usize]) => |()| Go(Sched::GPushSize);
        /// …`size++`.
        GPushSize @ ln::PUT_SLOW => fetch_add(GSIZE, 1) => |_| {
            let g = m.batch[m.i as usize];
            m.unhand(g);
            m.i += 1;
            if (m.i as usize) < m.batch.len() { Go(Sched::GPushTail) } else { Go(Sched::SlowUnlock) }
        };
        /// `unlock(&sched.lock)`.
        SlowUnlock @ ln::PUT_SLOW => mutex_unlock(SCHED_LOCK) => |()| {
            m.batch.clear();
            m.put_done()
        };

        // ----- blocking system calls (Go <= 1.25's _Psyscall) -----
        /// `entersyscall`: `casgstatus(gp, _Grunning, _Gsyscall)`.
        EnterStatus @ ln::SYSCALL_ENTER => store(m.cfg.status(m.curg), gstatus::SYSCALL) => |()|
            if m.cfg.sysmon() { Go(Sched::EnterSmPeek) } else { Go(Sched::EnterOwner) };
        /// `if sched.sysmonwait.Load()`: sysmon sleeps deep, wake it (`entersyscall_sysmon`).
        EnterSmPeek @ ln::SYSMON_WAKE => load(m.cfg.sysmonwait()) => |v|
            if v != 0 { Go(Sched::EnterSmLock) } else { Go(Sched::EnterOwner) };
        /// `lock(&sched.lock)`.
        EnterSmLock @ ln::SYSMON_WAKE => mutex_lock(SCHED_LOCK) => |()| Go(Sched::SwCheck { enter: true });
        /// `unlock(&sched.lock)`, then the rest of `entersyscall`.
        EnterSmUnlock @ ln::SYSMON_WAKE => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::EnterOwner);
        /// `sysmonwake` under the lock: `sched.sysmonwait`?
        SwCheck {
            /// Called from `entersyscall` (else from `exitsyscall` with a P).
            enter: bool,
        } @ ln::SYSMON_WAKE => load(m.cfg.sysmonwait()) => |v|
            if v != 0 { Go(Sched::SwClear { enter }) } else { m.sw_done(enter) };
        /// `sched.sysmonwait.Store(false)`.
        SwClear {
            /// Called from `entersyscall`.
            enter: bool,
        } @ ln::SYSMON_WAKE => store(m.cfg.sysmonwait(), 0) => |()| Go(Sched::SwNote { enter });
        /// `notewakeup(&sched.sysmonnote)`: set the note…
        SwNote {
            /// Called from `entersyscall`.
            enter: bool,
        } @ ln::SYSMON_WAKE => store(m.cfg.sysmonnote(), 1) => |()| Go(Sched::SwWake { enter });
        /// …and wake sysmon.
        SwWake {
            /// Called from `entersyscall`.
            enter: bool,
        } @ ln::SYSMON_WAKE => futex_wake(m.cfg.sysmonnote(), WakeCount::Up(1)) => |_| {
            m.counts.sysmon_wakes += 1;
            m.sw_done(enter)
        };
        /// `pp.m = 0; m.oldp = pp; m.p = 0`.
        EnterOwner @ ln::SYSCALL_ENTER => store(m.cfg.owner(m.p), 0) => |()| {
            m.inherits = 0;
            m.oldp = m.p;
            m.p = NONE;
            Go(Sched::EnterFlag)
        };
        /// `atomic.Store(&pp.status, _Psyscall)`.
        EnterFlag @ ln::SYSCALL_ENTER => store(m.cfg.psys(m.oldp), 1) => |()| {
            m.counts.syscalls += 1;
            Go(Sched::SysBlock)
        };
        /// The syscall blocks the thread: the M sleeps in the kernel for the syscall's time, off
        /// every CPU ([`Op::Sleep`]).
        SysBlock @ ln::SYSCALL_BLOCK => sleep(m.work_ns()) => |()| Go(Sched::ExitFastCas);
        /// `exitsyscallfast`: `cas(oldp.status, _Psyscall, _Pidle)`.
        ExitFastCas @ ln::EXIT_FAST => cas(m.cfg.psys(m.oldp), 1, 0) => |ok|
            if ok {
                Go(Sched::ExitWire)
            } else {
                m.oldp = NONE;
                Go(Sched::ExitPidlePeek)
            };
        /// `wirep(oldp)`.
        ExitWire @ ln::EXIT_FAST => store(m.cfg.owner(m.oldp), m.id + 1) => |()| {
            m.p = m.oldp;
            m.oldp = NONE;
            m.counts.syscall_oldp += 1;
            Go(Sched::ExitTick)
        };
        /// `pp.syscalltick++`.
        ExitTick @ ln::EXIT_FAST => fetch_add(m.cfg.psyscalltick(m.p), 1) => |_| Go(Sched::ExitRun);
        /// `casgstatus(gp, _Gsyscall, _Grunning)`: the G goes on.
        ExitRun @ ln::EXIT_FAST => store(m.cfg.status(m.curg), gstatus::RUNNING) => |()| {
            m.pc += 1;
            m.g_next()
        };
        /// `sched.pidle != 0` (racy)?
        ExitPidlePeek @ ln::EXIT_PIDLE => load(PIDLE) => |mask|
            if mask == 0 { Go(Sched::Exit0Save) } else { Go(Sched::ExitLock) };
        /// `lock(&sched.lock)`.
        ExitLock @ ln::EXIT_PIDLE => mutex_lock(SCHED_LOCK) => |()| Go(Sched::ExitPidle);
        /// `pidleget`: the idle mask.
        ExitPidle @ ln::EXIT_PIDLE => load(PIDLE) => |mask|
            if mask == 0 {
                Go(Sched::ExitUnlockNone)
            } else {
                m.mask = mask;
                m.tp = mask.trailing_zeros();
                Go(Sched::ExitTakeP)
            };
        /// Take the P off the idle mask…
        ExitTakeP @ ln::EXIT_PIDLE => store(PIDLE, m.mask & !(1 << m.tp)) => |()| Go(Sched::ExitNpidle);
        /// …`npidle--`…
        ExitNpidle @ ln::EXIT_PIDLE => fetch_add(NPIDLE, u32::MAX) => |_| Go(Sched::ExitOwner);
        /// …`acquirep`.
        ExitOwner @ ln::EXIT_PIDLE => store(m.cfg.owner(m.tp), m.id + 1) => |()| {
            m.p = m.tp;
            // with a P: `if sched.sysmonwait.Load()`, wake sysmon (still under the lock)
            if m.cfg.sysmon() { Go(Sched::SwCheck { enter: false }) } else { Go(Sched::ExitUnlock) }
        };
        /// `unlock`; `exitsyscall0` runs the G on the P (`execute`), the fast path goes on.
        ExitUnlock @ ln::EXIT_PIDLE => mutex_unlock(SCHED_LOCK) => |()|
            if m.x0 {
                m.x0 = false;
                let g = m.g;
                m.found(g, false)
            } else {
                m.counts.syscall_pidle += 1;
                Go(Sched::ExitTick)
            };
        /// No idle P after all.
        ExitUnlockNone @ ln::EXIT_PIDLE => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::Exit0Save);
        /// `exitsyscall0`: the G resumes after the syscall…
        Exit0Save @ ln::EXIT_NOP => store(m.cfg.sched(m.curg), m.pc + 1) => |()| Go(Sched::Exit0Status);
        /// …`casgstatus(gp, _Gsyscall, _Grunnable)`; `dropg`.
        Exit0Status @ ln::EXIT_NOP => store(m.cfg.status(m.curg), gstatus::RUNNABLE) => |()| {
            let g = m.curg;
            m.curg = 0;
            m.g = g;
            m.hold(g);
            Go(Sched::Exit0Lock)
        };
        /// `lock(&sched.lock)`.
        Exit0Lock @ ln::EXIT_NOP => mutex_lock(SCHED_LOCK) => |()| Go(Sched::Exit0Pidle);
        /// `pidleget`: an idle P runs the G; none: `globrunqput(gp)` (still under the lock), `stopm`.
        Exit0Pidle @ ln::EXIT_NOP => load(PIDLE) => |mask|
            if mask != 0 {
                m.mask = mask;
                m.tp = mask.trailing_zeros();
                m.x0 = true;
                Go(Sched::ExitTakeP)
            } else {
                m.counts.syscall_stops += 1;
                let g = m.g;
                m.g = 0;
                m.batch.clear();
                m.batch.push(g);
                m.i = 0;
                m.put_ret = PutRet::SyscallStop;
                Go(Sched::GPushTail)
            };

        // ----- a long computation in slices, with preemption points -----
        /// The G computes one slice.
        GSlice @ ln::G_SLICE => work(m.work_ns()) => |()| {
            let checks = m.slice_checks();
            m.pc += 1;
            m.after_slice = true;
            if checks { Go(Sched::SliceCheck) } else { m.g_next() }
        };
        /// The preemption point: a request for this slice (`gp.preempt`, `stackguard0`, `SIGURG`)?
        SliceCheck @ ln::PREEMPT => load(m.cfg.ppreempt(m.p)) => |v| {
            m.after_slice = false;
            if v != 0 && v == m.ptick.wrapping_add(1) { Go(Sched::PreemptSave) } else { m.g_next() }
        };
        /// `gopreempt_m`: save where the G resumes…
        PreemptSave @ ln::PREEMPT => store(m.cfg.sched(m.curg), m.pc) => |()| Go(Sched::PreemptStatus);
        /// …`casgstatus(gp, _Grunning, _Grunnable)`; `dropg`; `globrunqput` under the lock; `wakep`;
        /// `schedule`.
        PreemptStatus @ ln::PREEMPT => store(m.cfg.status(m.curg), gstatus::RUNNABLE) => |()| {
            let g = m.curg;
            m.curg = 0;
            m.hand.push(g);
            m.waking = true;
            m.counts.preemptions += 1;
            m.global_put(g, PutRet::Gosched)
        };
        /// `execute`: `pp.schedtick++` unless the G inherits the slice (the request names it).
        ExecTickAdd @ ln::EXECUTE => fetch_add(m.cfg.pschedtick(m.p), 1) => |old| {
            m.ptick = old.wrapping_add(1);
            m.exec_go_on()
        };
        /// `execute` with `inheritTime`: the slice goes on.
        ExecTickLoad @ ln::EXECUTE => load(m.cfg.pschedtick(m.p)) => |t| {
            m.ptick = t;
            m.exec_go_on()
        };

        // ----- sysmon (its own M, no P) -----
        /// `usleep(delay)`: a timed sleep, off every CPU.
        SmSleep @ ln::SYSMON => sleep(m.sm.delay_us as u64 * 1_000) => |()| Go(Sched::SmDone);
        /// The program ended: sysmon stops too.
        SmDone @ ln::SYSMON => load(DONE) => |d|
            if d != 0 {
                Done(())
            } else {
                m.sm_tick();
                Go(Sched::SmIdle)
            };
        /// `sched.npidle.Load() == gomaxprocs`: every P idle → the deep sleep.
        SmIdle @ ln::SYSMON_DEEP => load(NPIDLE) => |n|
            if n == m.cfg.procs { Go(Sched::SmDeepLock) } else { m.sm_round() };
        /// `lock(&sched.lock)`.
        SmDeepLock @ ln::SYSMON_DEEP => mutex_lock(SCHED_LOCK) => |()| Go(Sched::SmDeepCheck);
        /// The same test under the lock.
        SmDeepCheck @ ln::SYSMON_DEEP => load(NPIDLE) => |n|
            if n == m.cfg.procs { Go(Sched::SmWaitSet) } else { Go(Sched::SmDeepUnlock) };
        /// Not idle after all: `unlock`, then `retake`.
        SmDeepUnlock @ ln::SYSMON_DEEP => mutex_unlock(SCHED_LOCK) => |()| m.sm_round();
        /// `sched.sysmonwait.Store(true)`.
        SmWaitSet @ ln::SYSMON_DEEP => store(m.cfg.sysmonwait(), 1) => |()| {
            m.counts.sysmon_deep_sleeps += 1;
            Go(Sched::SmWaitUnlock)
        };
        /// `unlock(&sched.lock)`.
        SmWaitUnlock @ ln::SYSMON_DEEP => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::SmNoteSleep);
        /// `notetsleep(&sched.sysmonnote, …)`: sleep on the note's futex word until an M's
        /// `notewakeup` (Go also wakes at the next timer or after 60 s; the model has no timers).
        SmNoteSleep @ ln::SYSMON_DEEP => futex_wait(m.cfg.sysmonnote(), 0) => |_| Go(Sched::SmWokeLock);
        /// `lock(&sched.lock)`.
        SmWokeLock @ ln::SYSMON_DEEP => mutex_lock(SCHED_LOCK) => |()| Go(Sched::SmWaitClear);
        /// `sched.sysmonwait.Store(false)`.
        SmWaitClear @ ln::SYSMON_DEEP => store(m.cfg.sysmonwait(), 0) => |()| Go(Sched::SmNoteClear);
        /// `noteclear(&sched.sysmonnote)`; woken by a syscall: `idle = 0`, `delay = 20`.
        SmNoteClear @ ln::SYSMON_DEEP => store(m.cfg.sysmonnote(), 0) => |()| {
            m.sm.idle = 0;
            m.sm.delay_us = SYSMON_MIN_US;
            Go(Sched::SmWokeUnlock)
        };
        /// `unlock(&sched.lock)`.
        SmWokeUnlock @ ln::SYSMON_DEEP => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::SmWokeDone);
        /// Woken by the program's end? Else `retake`.
        SmWokeDone @ ln::SYSMON_DEEP => load(DONE) => |d|
            if d != 0 { Done(()) } else { m.sm_round() };
        /// sysmon's network poll: `lastpoll != 0` (nobody blocks in `netpoll`)…
        SmNpLast @ ln::SYSMON_NETPOLL => load(m.cfg.in_netpoll()) => |l|
            if l == 0 { Go(Sched::SmNpStamp) } else { Go(Sched::SmFlag { p: 0 }) };
        /// …`&& lastpoll + 10ms < now`: the stamp unchanged for more than 10 ms of sysmon's
        /// clock (a new stamp starts its age at 0). Then Go's
        /// `sched.lastpoll.CompareAndSwap(lastpoll, now)`: only sysmon reads `lastpoll`'s time
        /// (the Ms test it against 0), so the model's sysmon restarts its own age instead of
        /// writing the stamp (a stamp sysmon bumped every 10 ms would grow without bound while
        /// sysmon runs alone, and the checker's states with it); then `netpoll(0)`.
        SmNpStamp @ ln::SYSMON_NETPOLL => load(m.cfg.lastpoll_stamp()) => |t|
            if t != m.sm.poll_stamp {
                m.sm.poll_stamp = t;
                m.sm.poll_age = 0;
                Go(Sched::SmFlag { p: 0 })
            } else if m.sm.poll_age > SYSMON_NETPOLL_NS {
                m.sm.poll_age = 0;
                m.np.blocking = false;
                m.counts.sysmon_netpolls += 1;
                m.counts.netpoll_polls += 1;
                Go(Sched::NpTake)
            } else {
                Go(Sched::SmFlag { p: 0 })
            };
        /// `s := pp.status`: `_Psyscall`?
        SmFlag {
            /// The P.
            p: u32,
        } @ ln::RETAKE_PREEMPT => load(m.cfg.psys(p)) => |f|
            if f == 1 { Go(Sched::SmTick { p, sys: true }) } else { Go(Sched::SmOwner { p }) };
        /// `_Prunning` (an owner)?
        SmOwner {
            /// The P.
            p: u32,
        } @ ln::RETAKE_PREEMPT => load(m.cfg.owner(p)) => |o|
            if o != 0 { Go(Sched::SmTick { p, sys: false }) } else { m.sm_next(p) };
        /// `pp.schedtick` against `pd.schedtick`: the same slice for 10 ms → `preemptone`.
        SmTick {
            /// The P.
            p: u32,
            /// In a syscall.
            sys: bool,
        } @ ln::RETAKE_PREEMPT => load(m.cfg.pschedtick(p)) => |t| {
            let i = p as usize;
            let expired = m.sm.pd_sched[i] == t && m.sm.sched_age[i] >= FORCE_PREEMPT_NS;
            if m.sm.pd_sched[i] != t {
                m.sm.pd_sched[i] = t;
                m.sm.sched_age[i] = 0;
            }
            if sys {
                // preemptone cannot reach a G in a syscall: `sysretake`
                m.sm.force = expired;
                Go(Sched::SmSysTick { p })
            } else if expired {
                Go(Sched::SmPreempt { p, t })
            } else {
                m.sm_next(p)
            }
        };
        /// `preemptone(pp)`: ask the running G to stop at its next preemption point.
        SmPreempt {
            /// The P.
            p: u32,
            /// The slice.
            t: u32,
        } @ ln::RETAKE_PREEMPT => store(m.cfg.ppreempt(p), t.wrapping_add(1)) => |()| {
            m.counts.preempt_requests += 1;
            m.sm_next(p)
        };
        /// `pp.syscalltick`: a new syscall is only recorded (it gets at least one tick).
        SmSysTick {
            /// The P.
            p: u32,
        } @ ln::RETAKE_SYSCALL => load(m.cfg.psyscalltick(p)) => |t| {
            let i = p as usize;
            if !m.sm.force && m.sm.pd_sys[i] != t {
                m.sm.pd_sys[i] = t;
                m.sm.sys_age[i] = 0;
                m.sm_next(p)
            } else {
                m.sm.same = true;
                if m.cfg.variant == GmpVariant::NoSyscallRetake {
                    m.sm_next(p)
                } else {
                    Go(Sched::SmRunnext { p })
                }
            }
        };
        /// `runqempty(pp)`: its `runnext`…
        SmRunnext {
            /// The P.
            p: u32,
        } @ ln::RETAKE_IDLE => load(m.cfg.runnext(p)) => |g|
            if g != 0 { Go(Sched::SmCas { p }) } else { Go(Sched::SmHead { p }) };
        /// …its head…
        SmHead {
            /// The P.
            p: u32,
        } @ ln::RETAKE_IDLE => load(m.cfg.head(p)) => |h| Go(Sched::SmTail { p, h });
        /// …its tail.
        SmTail {
            /// The P.
            p: u32,
            /// Its head.
            h: u32,
        } @ ln::RETAKE_IDLE => load(m.cfg.tail(p)) => |t|
            if t != h { Go(Sched::SmCas { p }) } else { Go(Sched::SmSpinN { p }) };
        /// Empty: `nmspinning`…
        SmSpinN {
            /// The P.
            p: u32,
        } @ ln::RETAKE_IDLE => load(NMSPINNING) => |s| Go(Sched::SmIdleN { p, s });
        /// …`+ npidle > 0` and the syscall younger than 10 ms: leave it.
        SmIdleN {
            /// The P.
            p: u32,
            /// `nmspinning` read.
            s: u32,
        } @ ln::RETAKE_IDLE => load(NPIDLE) => |i|
            if s + i > 0 && m.sm.sys_age[p as usize] < SYSCALL_GRACE_NS {
                m.sm.same = false;
                m.sm_next(p)
            } else {
                Go(Sched::SmCas { p })
            };
        /// `cas(pp.status, _Psyscall, _Pidle)`: the P is sysmon's (a failure: the M came back).
        SmCas {
            /// The P.
            p: u32,
        } @ ln::RETAKE_CAS => cas(m.cfg.psys(p), 1, 0) => |ok|
            if ok {
                m.sm.n += 1;
                m.counts.retakes += 1;
                m.tp = p;
                Go(Sched::SmSysInc { p })
            } else {
                m.sm.same = false;
                m.sm_next(p)
            };
        /// `pp.syscalltick++`; then `handoffp(pp)`.
        SmSysInc {
            /// The P.
            p: u32,
        } @ ln::RETAKE_CAS => fetch_add(m.cfg.psyscalltick(p), 1) => |_| {
            m.sm.same = false;
            Go(Sched::HoNext { p })
        };

        // ----- handoffp(pp) (sysmon's) -----
        /// Local work: `runnext`…
        HoNext {
            /// The P.
            p: u32,
        } @ ln::HANDOFF => load(m.cfg.runnext(p)) => |g|
            if g != 0 { Go(Sched::StLock { p }) } else { Go(Sched::HoHead { p }) };
        /// …the ring's head…
        HoHead {
            /// The P.
            p: u32,
        } @ ln::HANDOFF => load(m.cfg.head(p)) => |h| Go(Sched::HoTail { p, h });
        /// …and tail.
        HoTail {
            /// The P.
            p: u32,
            /// Its head.
            h: u32,
        } @ ln::HANDOFF => load(m.cfg.tail(p)) => |t|
            if t != h { Go(Sched::StLock { p }) } else { Go(Sched::HoGsize { p }) };
        /// Global work?
        HoGsize {
            /// The P.
            p: u32,
        } @ ln::HANDOFF => load(GSIZE) => |n|
            if n > 0 { Go(Sched::StLock { p }) } else { Go(Sched::HoSpinN { p }) };
        /// `nmspinning`…
        HoSpinN {
            /// The P.
            p: u32,
        } @ ln::HANDOFF => load(NMSPINNING) => |s| Go(Sched::HoIdleN { p, s });
        /// …`+ npidle == 0`: nobody would look, start a spinning M.
        HoIdleN {
            /// The P.
            p: u32,
            /// `nmspinning` read.
            s: u32,
        } @ ln::HANDOFF => load(NPIDLE) => |i|
            if s + i == 0 { Go(Sched::HoSpinCas { p }) } else { Go(Sched::HoLock { p }) };
        /// `cas(nmspinning, 0, 1)`.
        HoSpinCas {
            /// The P.
            p: u32,
        } @ ln::HANDOFF => cas(NMSPINNING, 0, 1) => |ok|
            if ok {
                m.pending_spin = true;
                m.sm.hspin = true;
                Go(Sched::HoNeedClear { p })
            } else {
                Go(Sched::HoLock { p })
            };
        /// `needspinning = 0`; `startm(pp, true)`.
        HoNeedClear {
            /// The P.
            p: u32,
        } @ ln::HANDOFF => store(NEEDSPIN, 0) => |()| Go(Sched::StLock { p });
        /// `lock(&sched.lock)`.
        HoLock {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_LOCK => mutex_lock(SCHED_LOCK) => |()| Go(Sched::HoGsize2 { p });
        /// Global work (under the lock) → `startm(pp, false)`.
        HoGsize2 {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_LOCK => load(GSIZE) => |n|
            if n > 0 { Go(Sched::StMidle { p }) } else { Go(Sched::HoLast { p }) };
        /// The last running P (and nobody in netpoll: this model has no netpoller) → `startm`.
        HoLast {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_LOCK => load(NPIDLE) => |i|
            if i + 1 == m.cfg.procs { Go(Sched::StMidle { p }) } else { Go(Sched::StPidle { p }) };

        // ----- startm(pp, spinning) of handoffp -----
        /// `lock(&sched.lock)`.
        StLock {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_STARTM => mutex_lock(SCHED_LOCK) => |()| Go(Sched::StMidle { p });
        /// `mget`.
        StMidle {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_STARTM => load(MIDLE) => |mm|
            if mm == 0 && m.ho_ret != HoRet::Sysmon {
                Go(Sched::LkNoMDone { p })
            } else if mm == 0 {
                m.counts.no_m += 1;
                Go(Sched::StPidle { p })
            } else {
                m.mask = mm;
                Go(Sched::StTakeM { p, m2: mm.trailing_zeros() })
            };
        /// Take the M off `midle`.
        StTakeM {
            /// The P.
            p: u32,
            /// The M.
            m2: u32,
        } @ ln::HANDOFF_STARTM => store(MIDLE, m.mask & !(1 << m2)) => |()| Go(Sched::StNextp { p, m2 });
        /// `mp.nextp = pp` (spinning if `handoffp` started one).
        StNextp {
            /// The P.
            p: u32,
            /// The M.
            m2: u32,
        } @ ln::HANDOFF_STARTM => store(m.cfg.nextp(m2), (p + 1) | if m.sm.hspin { SPIN_BIT } else { 0 }) => |()| {
            m.pending_spin = false;
            m.counts.handoffs += 1;
            Go(Sched::StUnlock { p, m2 })
        };
        /// `pidleput`: the idle mask…
        StPidle {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_LOCK => load(PIDLE) => |mask| {
            m.mask = mask;
            Go(Sched::StPidleStore { p })
        };
        /// …our P's bit…
        StPidleStore {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_LOCK => store(PIDLE, m.mask | (1 << p)) => |()| Go(Sched::StNpidle { p });
        /// …`npidle++` (and a spinning start that found no M is undone).
        StNpidle {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_LOCK => fetch_add(NPIDLE, 1) => |_|
            if m.sm.hspin { Go(Sched::StUndo { p }) } else { Go(Sched::StUnlock { p, m2: NONE }) };
        /// `nmspinning--`.
        StUndo {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_STARTM => fetch_add(NMSPINNING, u32::MAX) => |_| {
            m.pending_spin = false;
            Go(Sched::StUnlock { p, m2: NONE })
        };
        /// `unlock(&sched.lock)`.
        StUnlock {
            /// The P.
            p: u32,
            /// The M to wake, or NONE.
            m2: u32,
        } @ ln::HANDOFF_STARTM => mutex_unlock(SCHED_LOCK) => |()|
            if m2 == NONE { m.ho_done(p) } else { Go(Sched::StPark { p, m2 }) };
        /// `notewakeup(&mp.park)`: the note…
        StPark {
            /// The P.
            p: u32,
            /// The M.
            m2: u32,
        } @ ln::HANDOFF_STARTM => store(m.cfg.park(m2), 1) => |()| Go(Sched::StFutex { p, m2 });
        /// …and the futex.
        StFutex {
            /// The P.
            p: u32,
            /// The M.
            m2: u32,
        } @ ln::HANDOFF_STARTM => futex_wake(m.cfg.park(m2), WakeCount::Up(1)) => |_| {
            m.counts.futex_wakes += 1;
            m.ho_done(p)
        };

        // ----- wakep / startm -----
        /// `if nmspinning != 0: return`.
        WakeLoad @ ln::WAKEP => load(NMSPINNING) => |s|
            if s != 0 { m.wake_done() } else { Go(Sched::WakeCas) };
        /// `cas(nmspinning, 0, 1)`.
        WakeCas @ ln::WAKEP => cas(NMSPINNING, 0, 1) => |ok|
            if ok {
                m.pending_spin = true;
                Go(Sched::WakeLock)
            } else {
                m.wake_done()
            };
        /// Broken `wakep`: `nmspinning++` unconditionally.
        WakeInc @ ln::WAKEP => fetch_add(NMSPINNING, 1) => |_| {
            m.pending_spin = true;
            Go(Sched::WakeLock)
        };
        /// `lock(&sched.lock)`.
        WakeLock @ ln::WAKE_PIDLE => mutex_lock(SCHED_LOCK) => |()| Go(Sched::WakePidle);
        /// `pidlegetSpinning`: the idle mask.
        WakePidle @ ln::WAKE_PIDLE => load(PIDLE) => |mask|
            if mask == 0 {
                Go(Sched::WakeNeed)
            } else {
                m.mask = mask;
                m.tp = mask.trailing_zeros();
                Go(Sched::WakeTakeP)
            };
        /// No idle P: `needspinning = 1` (the next M to park spins instead).
        WakeNeed @ ln::WAKE_PIDLE => store(NEEDSPIN, 1) => |()|
            if m.inject { Go(Sched::WakeUnlock { m2: NONE }) } else { Go(Sched::WakeUndo) };
        /// No P: `nmspinning--`.
        WakeUndo @ ln::WAKE_PIDLE => fetch_add(NMSPINNING, u32::MAX) => |_| {
            m.pending_spin = false;
            Go(Sched::WakeUnlock { m2: NONE })
        };
        /// Take the P off the idle mask…
        WakeTakeP @ ln::WAKE_PIDLE => store(PIDLE, m.mask & !(1 << m.tp)) => |()| Go(Sched::WakeNpidle);
        /// …`npidle--`.
        WakeNpidle @ ln::WAKE_PIDLE => fetch_add(NPIDLE, u32::MAX) => |_| Go(Sched::WakeMidle);
        /// `mget`: a parked M.
        WakeMidle @ ln::STARTM => load(MIDLE) => |mm|
            if mm == 0 && (m.is_injector() || m.is_sysmon()) {
                Go(Sched::IjNoMDone)
            } else if mm == 0 {
                m.counts.no_m += 1;
                m.np.brk = m.cfg.workload.netpoll_world();
                Go(Sched::WakeGiveBack)
            } else {
                let m2 = mm.trailing_zeros();
                m.mask = mm;
                Go(Sched::WakeTakeM { m2 })
            };
        /// No M to start: put the P back…
        WakeGiveBack @ ln::STARTM => store(PIDLE, m.mask | (1 << m.tp)) => |()| Go(Sched::WakeGiveNpidle);
        /// …`npidle++`, and undo the spinning count.
        WakeGiveNpidle @ ln::STARTM => fetch_add(NPIDLE, 1) => |_|
            if m.inject { Go(Sched::WakeUnlock { m2: NONE }) } else { Go(Sched::WakeUndo) };
        /// Take the M off `midle`.
        WakeTakeM {
            /// The M.
            m2: u32,
        } @ ln::STARTM => store(MIDLE, m.mask & !(1 << m2)) => |()| Go(Sched::WakeNextp { m2 });
        /// `mp.nextp = pp; mp.spinning = true` (the spawner's `startm(pp, false)`: not spinning).
        WakeNextp {
            /// The M.
            m2: u32,
        } @ ln::STARTM => store(m.cfg.nextp(m2), (m.tp + 1) | if m.inject { 0 } else { SPIN_BIT }) => |()| {
            m.pending_spin = false;
            Go(Sched::WakeUnlock { m2 })
        };
        /// `unlock(&sched.lock)`.
        WakeUnlock {
            /// The M to wake, or NONE.
            m2: u32,
        } @ ln::STARTM => mutex_unlock(SCHED_LOCK) => |()|
            if m2 == NONE && m.np.brk {
                m.np.brk = false;
                Go(Sched::NbLast)
            } else if m2 == NONE { m.wake_done() } else { Go(Sched::WakePark { m2 }) };
        /// `notewakeup(&mp.park)`: set the note…
        WakePark {
            /// The M.
            m2: u32,
        } @ ln::STARTM => store(m.cfg.park(m2), 1) => |()| Go(Sched::WakeFutex { m2 });
        /// …and `futex_wake` it.
        WakeFutex {
            /// The M.
            m2: u32,
        } @ ln::STARTM => futex_wake(m.cfg.park(m2), WakeCount::Up(1)) => |_| {
            m.counts.futex_wakes += 1;
            m.wake_done()
        };

        // ----- LockOSThread (go-gmp.md §3.13) -----
        /// `dolockOSThread`: `m.lockedg = gp`…
        LkLockM @ ln::LOCK => store(m.cfg.lockedg(m.id), m.curg) => |()| {
            m.lockedg = m.curg;
            Go(Sched::LkLockG)
        };
        /// …`gp.lockedm = m`; the G goes on.
        LkLockG @ ln::LOCK => store(m.cfg.lockedm(m.curg), m.id + 1) => |()| {
            m.counts.locks += 1;
            m.locked_here.push(m.curg);
            m.pc += 1;
            m.g_next()
        };
        /// `dounlockOSThread`: `m.lockedg = 0`…
        LkUnlockM @ ln::UNLOCK => store(m.cfg.lockedg(m.id), 0) => |()| {
            m.lockedg = 0;
            Go(Sched::LkUnlockG)
        };
        /// …`gp.lockedm = 0`; the G goes on (and after its next stop, on any M).
        LkUnlockG @ ln::UNLOCK => store(m.cfg.lockedm(m.curg), 0) => |()| {
            m.counts.unlocks += 1;
            m.unlocked_here.push(m.curg);
            m.pc += 1;
            m.g_next()
        };
        /// `stoplockedm`: `releasep()` (`pp.m = 0; m.p = 0`), then `handoffp(pp)`.
        LkStopOwner @ ln::STOP_LOCKED => store(m.cfg.owner(m.p), 0) => |()| {
            m.inherits = 0;
            let p = m.p;
            m.p = NONE;
            m.ho_ret = HoRet::StopLocked;
            m.lk_handing = true;
            Go(Sched::HoNext { p })
        };
        /// `incidlelocked(1)`: `nmidlelocked++` (what `checkdead` counts).
        LkIdleInc @ ln::STOP_LOCKED => fetch_add(m.cfg.nmidlelocked(), 1) => |_| {
            m.counts.lockedm_parks += 1;
            m.clear();
            Go(Sched::LkSleep)
        };
        /// `mPark()`: `notesleep(&m.park)` until an M hands us a P for our G.
        LkSleep @ ln::STOP_LOCKED => futex_wait(m.cfg.park(m.id), 0) => |_| Go(Sched::LkWoke);
        /// The note set?
        LkWoke @ ln::STOP_LOCKED => load(m.cfg.park(m.id)) => |v|
            if v == 0 { Go(Sched::LkSleep) } else { Go(Sched::LkClear) };
        /// `noteclear(&m.park)`.
        LkClear @ ln::STOP_LOCKED => store(m.cfg.park(m.id), 0) => |()| Go(Sched::LkNextp);
        /// `m.nextp`: the P `startlockedm` gave.
        LkNextp @ ln::STOP_LOCKED => load(m.cfg.nextp(m.id)) => |v|
            if v == 0 { Go(Sched::LkSleep) } else { Go(Sched::LkNextpClear { v }) };
        /// `m.nextp = 0`: the locked G is ours to run.
        LkNextpClear {
            /// The `nextp` word read.
            v: u32,
        } @ ln::STOP_LOCKED => store(m.cfg.nextp(m.id), 0) => |()| {
            m.tp = (v & 0xFF).wrapping_sub(1);
            let g = m.lockedg;
            m.hold(g);
            Go(Sched::LkAcquire)
        };
        /// `acquirep(nextp)`; `execute(m.lockedg, inheritTime=false)`.
        LkAcquire @ ln::STOP_LOCKED => store(m.cfg.owner(m.tp), m.id + 1) => |()| {
            m.p = m.tp;
            m.g = m.lockedg;
            m.inherit = false;
            Go(Sched::Exec)
        };
        /// `schedule`, after `findRunnable` (and `resetspinning`): `if gp.lockedm != 0`.
        LkCheck @ ln::START_LOCKED => load(m.cfg.lockedm(m.g)) => |v|
            if v == 0 || v == m.id + 1 {
                Go(Sched::Exec)
            } else {
                Go(Sched::LkIdleDec { m2: v - 1 })
            };
        /// `startlockedm`: `incidlelocked(-1)`…
        LkIdleDec {
            /// The G's M.
            m2: u32,
        } @ ln::START_LOCKED => fetch_add(m.cfg.nmidlelocked(), u32::MAX) => |_| Go(Sched::LkRelease { m2 });
        /// …`pp := releasep()`…
        LkRelease {
            /// The G's M.
            m2: u32,
        } @ ln::START_LOCKED => store(m.cfg.owner(m.p), 0) => |()| {
            m.inherits = 0;
            m.tp = m.p;
            m.p = NONE;
            Go(Sched::LkGive { m2 })
        };
        /// …`mp.nextp.set(pp)`: the P, and with it the G, are the locked M's…
        LkGive {
            /// The G's M.
            m2: u32,
        } @ ln::START_LOCKED => store(m.cfg.nextp(m2), m.tp + 1) => |()| {
            let g = m.g;
            m.unhand(g);
            m.g = 0;
            Go(Sched::LkPark { m2 })
        };
        /// …`notewakeup(&mp.park)`: the note…
        LkPark {
            /// The G's M.
            m2: u32,
        } @ ln::START_LOCKED => store(m.cfg.park(m2), 1) => |()| Go(Sched::LkWake { m2 });
        /// …and the futex; then `stopm()` and, woken, `goto top`.
        LkWake {
            /// The G's M.
            m2: u32,
        } @ ln::START_LOCKED => futex_wake(m.cfg.park(m2), WakeCount::Up(1)) => |_| {
            m.counts.locked_handoffs += 1;
            m.clear();
            Go(Sched::StopLock)
        };
        /// `gdestroy` of a locked G: `gp.lockedm = 0`…
        LkExitG @ ln::LOCKED_EXIT => store(m.cfg.lockedm(m.lockedg), 0) => |()| Go(Sched::LkExitM);
        /// …`m.lockedg = 0`.
        LkExitM @ ln::LOCKED_EXIT => store(m.cfg.lockedg(m.id), 0) => |()| {
            m.lockedg = 0;
            Go(Sched::LkExitLive)
        };
        /// One live G fewer (the last one ends the program); else the thread exits.
        LkExitLive @ ln::LOCKED_EXIT => fetch_add(LIVE, u32::MAX) => |old| {
            m.counts.locked_exits += 1;
            if old == 1 { Go(Sched::EndLock) } else { Go(Sched::LkExitOwner) }
        };
        /// A locked M's `startm` found no idle M (Go: `newm`, a new thread; the model has a fixed
        /// set): unless the program ended (then the P goes idle)…
        LkNoMDone {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_STARTM => load(DONE) => |d|
            if d != 0 {
                m.counts.no_m += 1;
                Go(Sched::StPidle { p })
            } else {
                Go(Sched::LkNoMUnlock { p })
            };
        /// …`unlock`…
        LkNoMUnlock {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_STARTM => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::LkNoMYield { p });
        /// …yield, and try again: an M on its way to `stopm` will park.
        LkNoMYield {
            /// The P.
            p: u32,
        } @ ln::HANDOFF_STARTM => sched_yield() => |()| {
            m.counts.locked_no_m += 1;
            Go(Sched::StLock { p })
        };
        /// `mexit`: `releasep()`, then `handoffp(pp)`, then the thread ends.
        LkExitOwner @ ln::LOCKED_EXIT => store(m.cfg.owner(m.p), 0) => |()| {
            m.inherits = 0;
            let p = m.p;
            m.p = NONE;
            m.ho_ret = HoRet::Exit;
            m.lk_handing = true;
            Go(Sched::HoNext { p })
        };

        // ----- a G reads from its connection: netpollblock (netpoll.go) -----
        /// Send the request to the peer (`write(2)`)…
        NwReq @ ln::NET_BLOCK => store(m.cfg.req(m.curg), 1) => |()| Go(Sched::NwReqWake);
        /// …which wakes it.
        NwReqWake @ ln::NET_BLOCK => futex_wake(m.cfg.req(m.curg), WakeCount::Up(1)) => |_| Go(Sched::NwWait);
        /// `netpollblock`: `cas(pd.rg, pdNil, pdWait)` (fails if the poller already found it ready).
        NwWait @ ln::NET_BLOCK => cas(m.cfg.pd(m.curg), pd::NIL, pd::WAIT) => |ok|
            if ok {
                Go(Sched::NwSave)
            } else {
                // ready already: no park
                m.pc += 1;
                m.g_next()
            };
        /// `gopark`: save where the G resumes…
        NwSave @ ln::NET_BLOCK => store(m.cfg.sched(m.curg), m.pc + 1) => |()| Go(Sched::NwStatus);
        /// …`casgstatus(gp, _Grunning, _Gwaiting)`; `dropg`…
        NwStatus @ ln::NET_BLOCK => store(m.cfg.status(m.curg), gstatus::WAITING) => |()| {
            m.parking = m.curg;
            m.curg = 0;
            Go(Sched::NwCommit)
        };
        /// …`netpollblockcommit`: `cas(pd.rg, pdWait, gp)` (fails if the poller set `pdReady`).
        NwCommit @ ln::NET_BLOCK => cas(m.cfg.pd(m.parking), pd::WAIT, pd::PARKED) => |ok|
            if ok {
                let g = m.parking;
                m.parking = 0;
                Go(Sched::NwAdd { g })
            } else {
                Go(Sched::NwResumeRun)
            };
        /// `netpollWaiters++`; `schedule()`.
        NwAdd {
            /// The G parked.
            g: u32,
        } @ ln::NET_BLOCK => fetch_add(m.cfg.nwaiters(), 1) => |_| {
            m.counts.netpoll_parks += 1;
            m.top()
        };
        /// The commit failed (the poller set `pdReady`): the G runs on,
        /// `casgstatus(gp, _Gwaiting, _Grunning)`.
        NwResumeRun @ ln::NET_BLOCK => store(m.cfg.status(m.parking), gstatus::RUNNING) => |()| {
            m.curg = m.parking;
            m.parking = 0;
            m.pc += 1;
            m.g_next()
        };

        /// `netpollblock` returns: `pd.rg.Swap(pdNil)` takes the readiness.
        NwDone @ ln::NET_BLOCK => swap(m.cfg.pd(m.curg), pd::NIL) => |_| {
            m.pc += 1;
            m.g_next()
        };

        // ----- findRunnable step 8: the non-blocking netpoll(0) -----
        /// `netpollAnyWaiters()`.
        NpWaiters @ ln::NETPOLL0 => load(m.cfg.nwaiters()) => |n|
            if (n as i32) > 0 { Go(Sched::NpLastLoad) } else { m.spin_check() };
        /// `sched.lastpoll != 0`: nobody blocks in netpoll.
        NpLastLoad @ ln::NETPOLL0 => load(m.cfg.in_netpoll()) => |l|
            if l == 0 { Go(Sched::NpPolling) } else { m.spin_check() };
        /// `sched.pollingNet.Swap(1) == 0`: one non-blocking poller at a time.
        NpPolling @ ln::NETPOLL0 => swap(m.cfg.pollingnet(), 1) => |old|
            if old == 0 {
                m.np.blocking = false;
                m.counts.netpoll_polls += 1;
                Go(Sched::NpTake)
            } else {
                m.spin_check()
            };
        /// `sched.pollingNet.Store(0)`; a G found: run it, `injectglist` the rest.
        NpPollDone @ ln::NETPOLL0 => store(m.cfg.pollingnet(), 0) => |()|
            if m.np.list.is_empty() { m.spin_check() } else { m.np_run_first() };

        // ----- netpoll(delay): epoll_wait and netpollready -----
        /// `epoll_wait`: take the whole ready list.
        NpTake @ ln::NETPOLL => swap(m.cfg.rdy(), 0) => |h|
            if h != 0 {
                m.np.cur = h;
                Go(Sched::NpLink)
            } else if m.np.blocking {
                Go(Sched::NpSleep)
            } else {
                m.np_polled()
            };
        /// `epoll_wait(-1)` blocks in the kernel until an fd is ready (the list's futex word).
        NpSleep @ ln::NETPOLL_BLOCK => futex_wait(m.cfg.rdy(), 0) => |_| Go(Sched::NpTake);
        /// The next event's successor.
        NpLink @ ln::NETPOLL => load(m.cfg.rlink(m.np.cur)) => |next| {
            m.np.next = next;
            if m.np.cur == m.cfg.brk_fd() { Go(Sched::NpBrkRead) } else { Go(Sched::NpPdLoad) }
        };
        /// The break eventfd: read it; `netpollWakeSig.Store(0)`.
        NpBrkRead @ ln::NETPOLL => store(m.cfg.wakesig(), 0) => |()| m.np_walk_next();
        /// `netpollunblock`: `old := pd.rg`…
        NpPdLoad @ ln::NETPOLL => load(m.cfg.pd(m.np.cur)) => |old|
            if old == pd::READY { m.np_walk_next() } else { Go(Sched::NpPdCas { old }) };
        /// …`cas(pd.rg, old, pdReady)`; a parked G joins the list.
        NpPdCas {
            /// `pd.rg` read.
            old: u32,
        } @ ln::NETPOLL => cas(m.cfg.pd(m.np.cur), old, pd::READY) => |ok|
            if !ok {
                Go(Sched::NpPdLoad)
            } else {
                if old == pd::PARKED {
                    let g = m.np.cur;
                    m.np.list.push(g);
                    m.counts.netpoll_ready += 1;
                }
                m.np_walk_next()
            };

        // ----- findRunnable step 13: the blocking netpoll -----
        /// `netpollAnyWaiters()`.
        NpBWaiters @ ln::NETPOLL_BLOCK => load(m.cfg.nwaiters()) => |n|
            if (n as i32) > 0 { Go(Sched::NpBSwap) } else { Go(Sched::StopLock) };
        /// `sched.lastpoll.Swap(0) != 0`: this M becomes THE poller.
        NpBSwap @ ln::NETPOLL_BLOCK => swap(m.cfg.in_netpoll(), 1) => |old|
            if old == 0 {
                m.np.blocking = true;
                m.counts.netpoll_blocks += 1;
                m.counts.netpoll_polls += 1;
                Go(Sched::NpTake)
            } else {
                Go(Sched::StopLock)
            };
        /// `sched.lastpoll.Store(now)` where sysmon polls too: the stamp first (so a sysmon that
        /// sees `lastpoll != 0` below also sees the new stamp)…
        NpStamp @ ln::NETPOLL_AFTER => fetch_add(m.cfg.lastpoll_stamp(), 1) => |_| Go(Sched::NpLastpoll);
        /// `sched.lastpoll.Store(now)`.
        NpLastpoll @ ln::NETPOLL_AFTER => store(m.cfg.in_netpoll(), 0) => |()| Go(Sched::NpBLock);
        /// `lock(&sched.lock)`.
        NpBLock @ ln::NETPOLL_AFTER => mutex_lock(SCHED_LOCK) => |()| Go(Sched::NpBPidle);
        /// `pidleget`.
        NpBPidle @ ln::NETPOLL_AFTER => load(PIDLE) => |mask|
            if mask == 0 {
                Go(Sched::NpBUnlockNone)
            } else {
                m.mask = mask;
                m.tp = mask.trailing_zeros();
                Go(Sched::NpBTakeP)
            };
        /// Take the P off the idle mask…
        NpBTakeP @ ln::NETPOLL_AFTER => store(PIDLE, m.mask & !(1 << m.tp)) => |()| Go(Sched::NpBNpidle);
        /// …`npidle--`…
        NpBNpidle @ ln::NETPOLL_AFTER => fetch_add(NPIDLE, u32::MAX) => |_| Go(Sched::NpBUnlock);
        /// …`unlock`…
        NpBUnlock @ ln::NETPOLL_AFTER => mutex_unlock(SCHED_LOCK) => |()| Go(Sched::NpBOwner);
        /// …`acquirep(pp)`: run the first G, or look again.
        NpBOwner @ ln::NETPOLL_AFTER => store(m.cfg.owner(m.tp), m.id + 1) => |()| {
            m.p = m.tp;
            m.np.blocking = false;
            if m.np.list.is_empty() { m.top() } else { m.np_run_first() }
        };
        /// No P: `unlock`; `injectglist(list)` (all to the global queue), then `stopm`.
        NpBUnlockNone @ ln::NETPOLL_AFTER => mutex_unlock(SCHED_LOCK) => |()| {
            m.np.blocking = false;
            m.np.after = NpAfter::Stop;
            if m.np.list.is_empty() { Go(Sched::StopLock) } else { Go(Sched::NpAdjust) }
        };
        /// `netpollAdjustWaiters(delta)`: the Gs found are no longer waiters.
        NpAdjust @ ln::NETPOLL_AFTER => fetch_add(
            m.cfg.nwaiters(),
            0u32.wrapping_sub(m.np.list.len() as u32 + (m.np.first != 0) as u32)
        ) => |_| m.inj_start();
        /// The first G: `casgstatus(gp, _Gwaiting, _Grunnable)`; run it.
        NpFirstStatus @ ln::NETPOLL_AFTER => store(m.cfg.status(m.np.first), gstatus::RUNNABLE) => |()| {
            let g = m.np.first;
            m.np.first = 0;
            m.hold(g);
            m.found(g, false)
        };

        // ----- injectglist -----
        /// `casgstatus(gp, _Gwaiting, _Grunnable)` for each G of the list.
        InjStatus @ ln::INJECTGLIST => store(m.cfg.status(m.np.list[0]), gstatus::RUNNABLE) => |()| {
            let g = m.np.list.remove(0);
            m.hand.push(g);
            m.np.inj.push(g);
            if !m.np.list.is_empty() {
                Go(Sched::InjStatus)
            } else if m.p == NONE {
                // no P: all to the global queue, then startIdle(n)
                m.np.k = m.np.inj.len() as u32;
                let all = core::mem::take(&mut m.np.inj);
                m.batch.clear();
                m.batch.extend(all);
                m.i = 0;
                m.put_ret = PutRet::NetGlobal;
                Go(Sched::SlowLock)
            } else {
                Go(Sched::InjNpidle)
            }
        };
        /// With a P: `npidle`; that many Gs to the global queue (and an M each), the rest local
        /// (`single-queue`: all of them global).
        InjNpidle @ ln::INJECTGLIST => load(NPIDLE) => |n| {
            // the Go 1.0 design has no local queues: every G to the global queue
            let k = if m.cfg.variant == GmpVariant::SingleQueue {
                m.np.inj.len() as u32
            } else {
                n.min(m.np.inj.len() as u32)
            };
            m.np.k = k;
            if k == 0 {
                m.inj_local()
            } else {
                m.batch.clear();
                for _ in 0..k {
                    let g = m.np.inj.remove(0);
                    m.batch.push(g);
                }
                m.i = 0;
                m.put_ret = PutRet::NetGlobal;
                Go(Sched::SlowLock)
            }
        };

        // ----- netpollBreak -----
        /// Somebody blocks in netpoll (`lastpoll == 0`)?
        NbLast @ ln::NETPOLL_BREAK => load(m.cfg.in_netpoll()) => |l|
            if l == 1 { Go(Sched::NbCas) } else { m.nb_done() };
        /// `netpollWakeSig.CompareAndSwap(0, 1)`: one break in flight.
        NbCas @ ln::NETPOLL_BREAK => cas(m.cfg.wakesig(), 0, 1) => |ok|
            if ok { Go(Sched::NbHead) } else { m.nb_done() };
        /// `write(eventfd)`: the kernel puts the eventfd on the ready list…
        NbHead @ ln::NETPOLL_BREAK => load(m.cfg.rdy()) => |h| Go(Sched::NbLink { h });
        /// …linked before the old head…
        NbLink {
            /// The old head.
            h: u32,
        } @ ln::NETPOLL_BREAK => store(m.cfg.rlink(m.cfg.brk_fd()), h) => |()| Go(Sched::NbPush { h });
        /// …pushed…
        NbPush {
            /// The old head.
            h: u32,
        } @ ln::NETPOLL_BREAK => cas(m.cfg.rdy(), h, m.cfg.brk_fd()) => |ok|
            if ok { Go(Sched::NbWake) } else { Go(Sched::NbHead) };
        /// …and wakes the poller's `epoll_wait`.
        NbWake @ ln::NETPOLL_BREAK => futex_wake(m.cfg.rdy(), WakeCount::Up(1)) => |_| {
            m.counts.netpoll_breaks += 1;
            m.nb_done()
        };

        // ----- a G's peer: the network -----
        /// Wait for the G's request.
        PeerWait @ ln::PEER => futex_wait(m.cfg.req(m.peer_g()), 0) => |_| Go(Sched::PeerLoad);
        /// A request?
        PeerLoad @ ln::PEER => load(m.cfg.req(m.peer_g())) => |r|
            if r == 0 { Go(Sched::PeerWait) } else { Go(Sched::PeerTake) };
        /// Take it.
        PeerTake @ ln::PEER => store(m.cfg.req(m.peer_g()), 0) => |()| Go(Sched::PeerDelay);
        /// The network's delay (a timer in the kernel).
        PeerDelay @ ln::PEER => sleep(m.cfg.net_ns) => |()| Go(Sched::PeerHead);
        /// The answer arrives: the fd is readable; the kernel pushes it on the ready list…
        PeerHead @ ln::PEER => load(m.cfg.rdy()) => |h| Go(Sched::PeerLink { h });
        /// …linked before the old head…
        PeerLink {
            /// The old head.
            h: u32,
        } @ ln::PEER => store(m.cfg.rlink(m.peer_g()), h) => |()| Go(Sched::PeerPush { h });
        /// …pushed…
        PeerPush {
            /// The old head.
            h: u32,
        } @ ln::PEER => cas(m.cfg.rdy(), h, m.peer_g()) => |ok|
            if ok { Go(Sched::PeerWake) } else { Go(Sched::PeerHead) };
        /// …and wakes a blocked `epoll_wait`.
        PeerWake @ ln::PEER => futex_wake(m.cfg.rdy(), WakeCount::Up(1)) => |_| {
            m.np.served += 1;
            if m.np.served >= m.cfg.rounds { Done(()) } else { Go(Sched::PeerWait) }
        };

        // ----- checkdead (under sched.lock, after mput) -----
        /// No M runs: G `g`'s status.
        CdScan {
            /// The G.
            g: u32,
        } @ ln::CHECKDEAD => load(m.cfg.status(g)) => |st| {
            if matches!(st, gstatus::RUNNABLE | gstatus::RUNNING | gstatus::SYSCALL) {
                m.fatal = fatal::RUNNABLE_G;
                Go(Sched::CdFatal)
            } else {
                if st == gstatus::WAITING {
                    m.n += 1;
                }
                if g < m.cfg.gs {
                    Go(Sched::CdScan { g: g + 1 })
                } else if m.n == 0 {
                    Go(Sched::StopUnlock)
                } else {
                    m.fatal = fatal::DEADLOCK;
                    Go(Sched::CdFatal)
                }
            }
        };
        /// `fatal(...)`: the process dies (this M stops; the others stay where they sleep).
        CdFatal @ ln::CHECKDEAD => mutex_unlock(SCHED_LOCK) => |()| Done(());
    }
}

/// A G of `yield-many` (`yield`: `GAct::Yield`) or `goyield-many` (`GAct::GoYield`) at its step
/// `pc`: `c.yields` yields, then its work, then exit. With `c.poll_ns`, each resumption after a
/// yield first works that long (the last one's added to the G's work): step `2k` is the yield
/// `k`, step `2k + 1` the resumption's work.
fn yielder(c: &GmpConfig, pc: u32, yield_act: GAct) -> GAct {
    let (yields, work_ns, poll_ns) = (c.yields, c.work_ns, c.poll_ns);
    if poll_ns == 0 || yields == 0 {
        return match pc {
            _ if pc < yields => yield_act,
            _ if pc == yields => GAct::Work(work_ns),
            _ => GAct::Exit,
        };
    }
    match pc {
        _ if pc >= 2 * yields => GAct::Exit,
        _ if pc % 2 == 0 => yield_act,
        _ if pc + 1 == 2 * yields => GAct::Work(work_ns.saturating_add(poll_ns)),
        _ => GAct::Work(poll_ns),
    }
}

/// What G `g` of the `locked` workload does at its step `pc`: main spawns the others; G2 …
/// G(1+`locked`) lock their M first; then each computes and yields `yields` times, computes once
/// more and exits; all of them but G(1+`locked`) unlock after `ceil(yields / 2)` yields.
fn locked_action(c: &GmpConfig, g: u32, pc: u32) -> GAct {
    if g == 1 {
        return if pc + 2 <= c.gs {
            GAct::Spawn(pc + 2)
        } else {
            GAct::Exit
        };
    }
    let locks = g <= 1 + c.locked;
    if locks && pc == 0 {
        return GAct::LockOSThread;
    }
    let mut q = pc - locks as u32;
    // every locked G but the last unlocks after the first half (rounded up) of its yields
    if locks && g < 1 + c.locked {
        let held = 2 * c.yields.div_ceil(2);
        match q.cmp(&held) {
            core::cmp::Ordering::Equal => return GAct::UnlockOSThread,
            core::cmp::Ordering::Greater => q -= 1,
            core::cmp::Ordering::Less => {}
        }
    }
    match q {
        _ if q < 2 * c.yields && q % 2 == 0 => GAct::Work(c.work_ns),
        _ if q < 2 * c.yields => GAct::Yield,
        _ if q == 2 * c.yields => GAct::Work(c.work_ns),
        _ => GAct::Exit,
    }
}

impl GmpConfig {
    /// The first word of the `locked` workload's block (after the Gs).
    fn lock_base(&self) -> u32 {
        self.g_base(self.gs + 1)
    }
    /// `sched.nmidlelocked`: locked Ms parked in `stoplockedm` (`locked` workload).
    pub fn nmidlelocked(&self) -> Word {
        w(self.lock_base())
    }
    /// `m.lockedg` of M `m`: the G locked to it (0 = none).
    pub fn lockedg(&self, m: u32) -> Word {
        w(self.lock_base().wrapping_add(1).wrapping_add(m))
    }
    /// `gp.lockedm` of G `g` (1-based): its M + 1 (0 = none).
    pub fn lockedm(&self, g: u32) -> Word {
        w(self
            .lock_base()
            .wrapping_add(1 + self.threads)
            .wrapping_add(g.wrapping_sub(1)))
    }
    fn lock_words_end(&self) -> u32 {
        self.lock_base().wrapping_add(1 + self.threads + self.gs)
    }
}

impl Mcx {
    /// After `findRunnable`: a G locked to another M goes to it (`startlockedm`); the
    /// `locked-runs-anywhere` variant runs it here.
    fn exec_or_startlocked(&mut self) -> Next<Sched, ()> {
        if self.cfg.workload == Workload::Locked
            && self.cfg.variant != GmpVariant::LockedRunsAnywhere
        {
            Next::Go(Sched::LkCheck)
        } else {
            Next::Go(Sched::Exec)
        }
    }

    /// The end of `handoffp`: sysmon's next P, a locked M's sleep, or the thread's exit.
    fn ho_done(&mut self, p: u32) -> Next<Sched, ()> {
        match self.ho_ret {
            HoRet::Sysmon => self.sm_next(p),
            HoRet::StopLocked => {
                self.ho_ret = HoRet::Sysmon;
                self.lk_handing = false;
                self.sm.hspin = false;
                Next::Go(Sched::LkIdleInc)
            }
            HoRet::Exit => {
                self.ho_ret = HoRet::Sysmon;
                self.lk_handing = false;
                self.sm.hspin = false;
                self.clear();
                Next::Done(())
            }
        }
    }
}

/// One M: where it is (`None` once exited) and its registers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GmpActor {
    /// The state, `None` once the thread exited.
    pub at: Option<Sched>,
    /// The registers and ghost state.
    pub cx: Mcx,
}

impl GmpActor {
    /// M `id` of a scenario: M0 starts the program, the others wait parked on `midle`.
    pub fn new(cfg: GmpConfig, id: u32) -> Self {
        let external = cfg.workload.external();
        let sysmon = cfg.sysmon_id() == Some(id);
        let injector = cfg.injector_id() == Some(id);
        let n = if sysmon { cfg.procs as usize } else { 0 };
        GmpActor {
            at: Some(if sysmon {
                Sched::SmSleep
            } else if injector {
                Sched::IjSleep
            } else if id >= cfg.peer_id(1) && id < cfg.actors() {
                Sched::PeerWait
            } else if external && id == cfg.threads {
                Sched::XInitPidle
            } else if id == 0 && !external {
                Sched::InitPidle
            } else {
                Sched::StopSleep
            }),
            cx: Mcx {
                cfg,
                id,
                p: NONE,
                spinning: false,
                curg: 0,
                pc: if injector { 1 } else { 0 },
                schedtick: 0,
                g: 0,
                inherit: false,
                pg: 0,
                put_ret: PutRet::Newproc,
                wake_ret: WakeRet::GoOn,
                gmode: GMode::Batch,
                i: 0,
                n: 0,
                t: 0,
                mask: 0,
                tp: 0,
                pass: 0,
                k: 0,
                start: 0,
                stride: 1,
                batch: Vec::new(),
                hand: Vec::new(),
                pending_spin: false,
                waking: false,
                dancing: false,
                inject: false,
                ij_last: if injector { cfg.gs } else { 0 },
                parking: 0,
                readying: 0,
                oldp: NONE,
                ptick: 0,
                after_slice: false,
                inherits: 0,
                x0: false,
                sm: SysmonRegs {
                    delay_us: SYSMON_MIN_US,
                    pd_sched: vec![0; n],
                    sched_age: vec![0; n],
                    pd_sys: vec![0; n],
                    sys_age: vec![0; n],
                    ..SysmonRegs::default()
                },
                counts: MCounts::default(),
                lockedg: 0,
                ho_ret: HoRet::Sysmon,
                lk_handing: false,
                locked_here: Vec::new(),
                ran: Vec::new(),
                unlocked_here: Vec::new(),
                np: NetRegs::default(),
                fatal: fatal::NONE,
                code: GCodeRef(None),
            },
        }
    }

    /// M `id` whose Gs run the platform's `code` instead of the workload's (natively: Rust
    /// futures). The table is the same; only [`Workload::action`]'s answers change.
    pub fn with_code(cfg: GmpConfig, id: u32, code: Arc<dyn GCode>) -> Self {
        let mut a = Self::new(cfg, id);
        a.cx.code = GCodeRef(Some(code));
        a
    }

    /// A thread outside the runtime that wakes G `g` (natively: a thread that wakes a parked
    /// future's waker): once, from its wait word, the injector's rows — a token if `g` has not
    /// parked, else `injectglist` with no P — and then it is done. The actor's id is
    /// `cfg.threads` (the spawner's slot: an injector never parks on it).
    pub fn injector(cfg: GmpConfig, g: u32) -> Self {
        let mut a = Self::new(cfg, cfg.threads);
        a.at = Some(Sched::IjLoad);
        a.cx.pc = g;
        a.cx.ij_last = g;
        a
    }

    /// True while M0 (or the spawner) is still setting up the runtime (before `acquirep(allp[0])`,
    /// or before the spawner's first G).
    pub fn initializing(&self) -> bool {
        matches!(
            self.at,
            Some(
                Sched::InitPidle
                    | Sched::InitNpidle
                    | Sched::InitMidle
                    | Sched::InitLive
                    | Sched::InitStatus
                    | Sched::InitRunnext
                    | Sched::InitGHead
                    | Sched::InitGTail
                    | Sched::InitOwner
                    | Sched::XInitPidle
                    | Sched::XInitNpidle
                    | Sched::XInitMidle
                    | Sched::XInitLive
            )
        )
    }

    /// True when parked in `stopm` with nobody waking it (its note clear, no `nextp`).
    pub fn is_sleeping(&self) -> bool {
        matches!(self.at, Some(Sched::StopSleep))
    }

    /// Straight-line form: run the M until it exits (or the platform stops it, leaving the state
    /// where the stepped form would rest).
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        if let Some(s) = self.at {
            match s.run(&mut self.cx, p) {
                Ok(_) => self.at = None,
                Err(Stopped { state, error }) => {
                    self.at = Some(state);
                    return Err(error);
                }
            }
        }
        Ok(())
    }
}

impl Machine for GmpActor {
    fn next_op(&self) -> Op {
        match self.at {
            Some(s) => s.op(&self.cx),
            None => Op::Exit,
        }
    }
    fn complete(&mut self, r: OpResult) {
        if let Some(s) = self.at {
            self.at = match s.complete(&mut self.cx, r) {
                Next::Go(s) => Some(s),
                Next::Done(()) => None,
            };
        }
    }
    fn line(&self) -> u16 {
        match self.at {
            Some(s) => s.line(&self.cx),
            None => ln::EXITED,
        }
    }
    fn listing(&self) -> &'static [&'static str] {
        LISTING
    }
}
