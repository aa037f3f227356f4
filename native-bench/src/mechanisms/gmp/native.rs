//! Core's G/M/P table on real threads: each M an OS thread running [`GmpActor::run`] (the
//! straight-line form of core's `Sched` table) on [`NativeThread`]: the Ps' rings, `runnext`,
//! the idle masks and `nmspinning` are real atomics, `sched.lock` a real mutex, a parked M
//! sleeps on its `m.park` futex word, and a G's work is a busy spin. Nothing of the algorithm is
//! written here: this file starts the Ms, times the run, and checks what it left in memory.
//!
//! A G here is what the model's workload makes it (`fan-out`: main spawns the others; `chain`:
//! each spawns the next; `spawn-many` and `yield-many`: core's spawner thread, outside every P,
//! makes them; `ping-pong`: pairs parking and readying each other), not a Rust future: the model's Gs are memory words (core's
//! `MAX_GOROUTINES`, in a world of at most 65,535 words, each on its own 128-byte line: 10,000
//! Gs on 8 Ps of 256 slots take 22,108 words, 2.8 MB), with Go's 256-slot rings ([`ring_for`]).

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, PoisonError};

use herdlab_core::machine::steps::Ops;
use herdlab_core::mechanisms::gmp::machine::{gstatus, MCounts, DONE, LIVE};
use herdlab_core::mechanisms::gmp::params::MAX_WORDS;
use herdlab_core::mechanisms::gmp::{GmpActor, GmpParams, Workload};
use herdlab_core::op::{CondId, MutexId, Op, OpResult, SemId, WakeCount, Word};

use crate::platform::native::{NativeError, NativeThread, NativeWorld, WorldSpec};

/// The largest even ring (Go's 256 whenever it fits) that fits `gs` Gs, `procs` Ps and `threads`
/// Ms in a world's words (`None`: not even a ring of 2 fits).
pub fn ring_for(procs: u32, threads: u32, gs: u32) -> Option<u32> {
    let fit = |ring: u32| {
        GmpParams {
            gomaxprocs: procs,
            threads,
            goroutines: gs,
            ring,
            ..GmpParams::default()
        }
        .config()
        .words_needed()
            <= MAX_WORDS
    };
    let mut ring = 256;
    while ring >= 2 && !fit(ring) {
        ring -= 2;
    }
    (ring >= 2).then_some(ring)
}

/// What one native run of the scheduler did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GmpRun {
    /// From M0 starting `main` (or the spawner starting) to the last G's exit (the `done = 1`
    /// store), nanoseconds.
    pub wall_ns: u64,
    /// The Ms' counters, summed (the simulator's definitions: `core::mechanisms::gmp::machine`).
    pub counts: MCounts,
    /// Gs whose status word ended `_Gdead`.
    pub finished: u32,
    /// The live-G count at the end (0 when every G exited).
    pub live: u32,
}

/// The platform of one M: [`NativeThread`], with the time of the `done = 1` store taken.
///
/// Blocking: the table's blocking syscall and sysmon's `usleep` are `Op::Sleep`, a real
/// `clock_nanosleep(2)` here, so the thread blocks in the kernel while its P is retaken.
struct MOps<'w> {
    inner: NativeThread<'w>,
    world: &'w NativeWorld,
    end: &'w AtomicU64,
}

impl Ops for MOps<'_> {
    type Error = NativeError;
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        self.inner.load(w)
    }
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        if w == DONE && v == 1 {
            self.end.store(self.world.now_ns(), SeqCst);
        }
        self.inner.store(w, v)
    }
    fn cas(&mut self, w: Word, e: u32, n: u32) -> Result<bool, NativeError> {
        self.inner.cas(w, e, n)
    }
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        self.inner.fetch_add(w, d)
    }
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        self.inner.swap(w, v)
    }
    fn sem_wait(&mut self, s: SemId) -> Result<(), NativeError> {
        self.inner.sem_wait(s)
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), NativeError> {
        self.inner.sem_post(s)
    }
    fn futex_wait(&mut self, w: Word, e: u32) -> Result<bool, NativeError> {
        // an M sleeps on its note only to park (Go's stopm → notesleep); sysmon on its
        // `sysmonnote` only in its deep sleep
        self.inner
            .record(herdlab_core::trace::Kind::Park, Some(u32::from(w.0)));
        self.inner.futex_wait(w, e)
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
        // and is woken only by another's notewakeup (startm, wakep)
        self.inner
            .record(herdlab_core::trace::Kind::Unpark, Some(u32::from(w.0)));
        self.inner.futex_wake(w, n)
    }
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.inner.mutex_lock(m)
    }
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.inner.mutex_unlock(m)
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NativeError> {
        self.inner.cond_wait(c, m)
    }
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), NativeError> {
        self.inner.cond_notify(c, n)
    }
    fn work(&mut self, ns: u64) -> Result<(), NativeError> {
        self.inner.work(ns)
    }
    fn sleep(&mut self, ns: u64) -> Result<(), NativeError> {
        self.inner.sleep(ns)
    }
    fn pause(&mut self) -> Result<(), NativeError> {
        self.inner.pause()
    }
    fn sched_yield(&mut self) -> Result<(), NativeError> {
        self.inner.sched_yield()
    }
    fn now(&mut self) -> Result<u64, NativeError> {
        self.inner.now()
    }
    fn other(&mut self, op: Op) -> Result<OpResult, NativeError> {
        self.inner.other(op)
    }
}

/// The Ms' start: none runs until every one has started (a `Barrier` that a failed start can
/// open without them).
struct StartGate {
    /// (arrived, aborted)
    state: Mutex<(usize, bool)>,
    cv: Condvar,
    all: usize,
}

impl StartGate {
    fn new(all: usize) -> Self {
        StartGate {
            state: Mutex::new((0, false)),
            cv: Condvar::new(),
            all,
        }
    }
    /// Arrive and wait for the others: `false` when the start was aborted.
    fn arrive(&self) -> bool {
        let mut g = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        g.0 += 1;
        if g.0 == self.all {
            self.cv.notify_all();
        }
        while g.0 < self.all && !g.1 {
            g = self.cv.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        !g.1
    }
    /// Not every M could start: the waiting ones go.
    fn abort(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.cv.notify_all();
    }
}

/// Run the scenario `p` on real threads (`work_ns` overrides each G's work: the scenario's
/// `work_ns` cannot say 0). Every G must run to its end exactly once, and every `execute` must be
/// a G's first run, a run after its `Gosched` or a run after its `goready` (none lost, none
/// twice): an error says what did not hold.
pub fn run(p: &GmpParams, work_ns: u64) -> Result<GmpRun, NativeError> {
    let mut cfg = p.config();
    cfg.work_ns = work_ns;
    let words = cfg.words_needed();
    if words > MAX_WORDS {
        return Err(NativeError::new(format!(
            "the scenario needs {words} words; at most {MAX_WORDS}"
        )));
    }
    let threads = cfg.actors() as usize;
    // who starts the program: M0 with `main`, or the spawner outside every P
    let first = if cfg.workload.external() {
        cfg.threads as usize
    } else {
        0
    };
    let world = NativeWorld::new(WorldSpec {
        words: words as u16,
        mutexes: 1,
        condvars: 0,
        sems: 0,
        listener: false,
        threads,
        packed: false,
    })?;
    let (start, end) = (AtomicU64::new(0), AtomicU64::new(0));
    let ready = StartGate::new(threads);
    let (world, start, end, ready) = (&world, &start, &end, &ready);
    let results: Vec<Result<MCounts, NativeError>> = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let spawned = std::thread::Builder::new()
                .name(format!("gmp-m{i}"))
                .spawn_scoped(s, move || -> Result<MCounts, NativeError> {
                    let inner = NativeThread::new(world, i);
                    // every M passes the gate, even one that could not start; none runs
                    // unless all started
                    if !ready.arrive() {
                        return Err(NativeError::new("another M could not start"));
                    }
                    let inner = inner.inspect_err(|e| world.fail(&e.0))?;
                    let mut ops = MOps { inner, world, end };
                    let mut m = GmpActor::new(cfg, i as u32);
                    if i == first {
                        start.store(world.now_ns(), SeqCst);
                    }
                    let r = m.run(&mut ops);
                    ops.inner.release();
                    if let Err(e) = r {
                        world.fail(&e.0);
                        return Err(e);
                    }
                    Ok(m.cx.counts)
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // the started Ms leave the gate without running, and are joined
                    let e = NativeError::new(format!(
                        "cannot start thread {i} of {threads} (an M): {e}"
                    ));
                    world.fail(&e.to_string());
                    ready.abort();
                    break;
                }
            }
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(NativeError::new("an M panicked")))
            })
            .collect()
    });
    if let Some(f) = world.failure() {
        return Err(NativeError::new(f));
    }
    let mut counts = MCounts::default();
    for r in results {
        let c = r?;
        counts.steals += c.steals;
        counts.parks += c.parks;
        counts.spins += c.spins;
        counts.global_queue_gets += c.global_queue_gets;
        counts.context_switches += c.context_switches;
        counts.futex_wakes += c.futex_wakes;
        counts.no_m += c.no_m;
        counts.yields += c.yields;
        counts.gparks += c.gparks;
        counts.readies += c.readies;
        counts.syscalls += c.syscalls;
        counts.syscall_oldp += c.syscall_oldp;
        counts.syscall_pidle += c.syscall_pidle;
        counts.syscall_stops += c.syscall_stops;
        counts.retakes += c.retakes;
        counts.handoffs += c.handoffs;
        counts.preempt_requests += c.preempt_requests;
        counts.preemptions += c.preemptions;
    }
    let load = |w: Word| world.load(w).unwrap_or(u32::MAX);
    let finished = (1..=cfg.gs)
        .filter(|&g| load(cfg.status(g)) == gstatus::DEAD)
        .count() as u32;
    let run = GmpRun {
        wall_ns: end.load(SeqCst).saturating_sub(start.load(SeqCst)).max(1),
        counts,
        finished,
        live: load(LIVE),
    };
    let c = &run.counts;
    // a G runs once, and once more after each Gosched, goready, preemption and exitsyscall0
    let exit0 = c.syscalls - c.syscall_oldp - c.syscall_pidle;
    let executes = cfg.gs as u64 + c.yields + c.readies + c.preemptions + exit0;
    let yields = match cfg.workload {
        Workload::YieldMany => cfg.gs as u64 * cfg.yields as u64,
        _ => 0,
    };
    if run.finished != cfg.gs
        || run.live != 0
        || c.context_switches != executes
        || c.yields != yields
        || c.gparks != c.readies
    {
        return Err(NativeError::new(format!(
            "{} Gs: {} finished, {} still live, {} executes for {} Gosched and {} goready ({} parks; \
             {yields} Gosched due): each G must run once, and once more after each Gosched and goready",
            cfg.gs, run.finished, run.live, c.context_switches, c.yields, c.readies, c.gparks
        )));
    }
    Ok(run)
}
