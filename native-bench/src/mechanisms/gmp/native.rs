//! Core's G/M/P table on real threads: each M an OS thread running [`GmpActor::run`] (the
//! straight-line form of core's `Sched` table) on [`NativeThread`]: the Ps' rings, `runnext`,
//! the idle masks and `nmspinning` are real atomics laid out and ordered as Go's own
//! ([`GoMemory`]: `schedt` on one line, a P's ring contiguous, a G in 64 bytes, plain stores where
//! Go stores plainly), `sched.lock` is Go's futex lock (one CAS in, one swap out, a futex wake only
//! when a waiter sleeps), a parked M sleeps on its `m.park` futex word, and a G's work is a busy
//! spin. Nothing of the algorithm is written here: this file starts the Ms, times the run, and
//! checks what it left in memory.
//!
//! A G's code comes from one of two places. [`run_tasks`]: each G is a Rust future
//! ([`super::task`]), polled by the M that runs it, the poll's spawns, wakes and result becoming
//! the table's G actions through core's `GCode` seam (`herdlab bench gmp`'s shapes: the same async
//! code runs on tokio). [`run`]: the model's own workload (`fan-out`: main spawns the others;
//! `chain`: each spawns the next; `spawn-many` and `yield-many`: core's spawner thread, outside
//! every P, makes them; `ping-pong`: pairs parking and readying each other; and the `--blocking`,
//! `--locked` and `--netpoll` shapes, whose Gs block in syscalls, lock their thread or wait on
//! the netpoller, which futures here do not do). Either way the Gs' scheduling state is memory
//! words (core's `MAX_GOROUTINES`, in a table of at most 65,535 words: 10,000 Gs on 8 Ps of 256
//! slots take 22,108), with Go's 256-slot rings ([`ring_for`]).

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use herdlab_core::machine::steps::Ops;
use herdlab_core::mechanisms::gmp::machine::{fatal, gstatus, MCounts, DONE, LIVE, SCHED_LOCK};
use herdlab_core::mechanisms::gmp::params::MAX_WORDS;
use herdlab_core::mechanisms::gmp::{GmpActor, GmpConfig, GmpParams, Workload, LOCK2};
use herdlab_core::op::{CondId, MutexId, Op, OpResult, SemId, WakeCount, Word};

use super::layout::{GoMemory, IN_WORLD, MAP_WORDS, WATCH};
use super::task::Tasks;
use crate::platform::futex::{futex_wait, futex_wake, WaitOutcome};
use crate::platform::native::{NativeError, NativeThread, NativeWorld, WorldSpec};
use crate::platform::{GATE_TIMEOUT, WAIT_TIMEOUT};

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
    /// `locked`: the runs (`execute`s) of Gs that called `LockOSThread` on the M that G locked
    /// (a run elsewhere is an error, unless the G called `UnlockOSThread`).
    pub locked_runs: u64,
}

/// The platform of one M: [`NativeThread`] for the Ms' futex words and the kernel, the table's
/// other words in Go's layout and orderings ([`GoMemory`]), `sched.lock` as Go's futex lock
/// ([`MOps::mutex_lock`]), and the time of the `done = 1` store taken.
///
/// Blocking: the table's blocking syscall and sysmon's `usleep` are `Op::Sleep`, a real
/// `clock_nanosleep(2)` here, so the thread blocks in the kernel while its P is retaken.
struct MOps<'w> {
    inner: NativeThread<'w>,
    world: &'w NativeWorld,
    /// [`GoMemory`]'s entries and words, at hand.
    map: &'w [u32; MAP_WORDS],
    lines: &'w [AtomicU32],
    /// `sched.lock`'s futex word (a word of the world, after the table's: what
    /// `NativeWorld::fail` wakes).
    lock: &'w AtomicU32,
    /// This M holds `sched.lock`.
    held: bool,
    end: &'w AtomicU64,
}

/// `sched.lock`'s word: free.
const UNLOCKED: u32 = 0;
/// Held, nobody asleep on it.
const LOCKED: u32 = 1;
/// Held, and a thread may be asleep on it (the unlocker must wake one).
const SLEEPING: u32 = 2;

impl MOps<'_> {
    /// The word's entry in [`GoMemory`] (an unknown word: [`IN_WORLD`], where the world says
    /// it does not exist).
    #[inline(always)]
    fn entry(&self, w: Word) -> u32 {
        GoMemory::lookup(self.map, w)
    }

    /// A store to a word in the world or one the harness watches: `done = 1` takes the end's
    /// time.
    #[cold]
    #[inline(never)]
    fn store_slow(&mut self, w: Word, v: u32, e: u32) -> Result<(), NativeError> {
        if e & WATCH != 0 && v == 1 && w == DONE {
            self.end.store(self.world.now_ns(), SeqCst);
        }
        if e & IN_WORLD != 0 {
            return self.inner.store(w, v);
        }
        GoMemory::store(self.lines, e, v);
        Ok(())
    }

    /// `lock2`'s contended path ([`lock_slow`]).
    #[cold]
    #[inline(never)]
    fn lock_slow(&mut self) -> Result<(), NativeError> {
        lock_slow(self.lock, self.world)
    }

    /// Let go of `sched.lock` if this M still holds it (its run stopped on an error).
    fn release(&mut self) {
        if std::mem::take(&mut self.held) && self.lock.swap(UNLOCKED, Release) == SLEEPING {
            let _ = futex_wake(self.lock, i32::MAX);
        }
        self.inner.release();
    }
}

impl Ops for MOps<'_> {
    type Error = NativeError;
    #[inline(always)]
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        let e = self.entry(w);
        if e & IN_WORLD != 0 {
            return self.inner.load(w);
        }
        Ok(GoMemory::at(self.lines, e).load(SeqCst))
    }
    #[inline(always)]
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        let e = self.entry(w);
        if e & (IN_WORLD | WATCH) != 0 {
            return self.store_slow(w, v, e);
        }
        GoMemory::store(self.lines, e, v);
        Ok(())
    }
    #[inline(always)]
    fn cas(&mut self, w: Word, old: u32, new: u32) -> Result<bool, NativeError> {
        let e = self.entry(w);
        if e & IN_WORLD != 0 {
            return self.inner.cas(w, old, new);
        }
        Ok(GoMemory::at(self.lines, e)
            .compare_exchange(old, new, SeqCst, SeqCst)
            .is_ok())
    }
    #[inline(always)]
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        let e = self.entry(w);
        if e & IN_WORLD != 0 {
            return self.inner.fetch_add(w, d);
        }
        Ok(GoMemory::at(self.lines, e).fetch_add(d, SeqCst))
    }
    #[inline(always)]
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        let e = self.entry(w);
        if e & IN_WORLD != 0 {
            return self.inner.swap(w, v);
        }
        Ok(GoMemory::at(self.lines, e).swap(v, SeqCst))
    }
    fn sem_wait(&mut self, s: SemId) -> Result<(), NativeError> {
        self.inner.sem_wait(s)
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), NativeError> {
        self.inner.sem_post(s)
    }
    fn futex_wait(&mut self, w: Word, e: u32) -> Result<bool, NativeError> {
        // an M sleeps on its note only to park (Go's stopm → notesleep), sysmon on its
        // `sysmonnote` only in its deep sleep; the notes live in the world (`GoMemory` leaves
        // them there)
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
    /// `sched.lock` as Go's `lock2`: one CAS when free; else spin, yield, sleep on the word.
    #[inline(always)]
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        if m != SCHED_LOCK || self.held {
            return Err(NativeError::new(format!(
                "an M locked mutex {} (the table has only sched.lock, {}, which it {})",
                m.0,
                SCHED_LOCK.0,
                if self.held {
                    "already holds"
                } else {
                    "does not hold"
                }
            )));
        }
        if self
            .lock
            .compare_exchange(UNLOCKED, LOCKED, Acquire, Relaxed)
            .is_err()
        {
            self.lock_slow()?;
        }
        self.held = true;
        self.inner
            .record(herdlab_core::trace::Kind::Lock, Some(u32::from(m.0)));
        Ok(())
    }
    /// `unlock2`: one swap; a futex wake only when a waiter may sleep.
    #[inline(always)]
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        if m != SCHED_LOCK || !self.held {
            return Err(NativeError::new(format!(
                "an M unlocked mutex {} it does not hold (the table has only sched.lock, {})",
                m.0, SCHED_LOCK.0
            )));
        }
        self.held = false;
        self.inner
            .record(herdlab_core::trace::Kind::Unlock, Some(u32::from(m.0)));
        if self.lock.swap(UNLOCKED, Release) == SLEEPING {
            futex_wake(self.lock, 1)?;
        }
        Ok(())
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NativeError> {
        self.inner.cond_wait(c, m)
    }
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), NativeError> {
        self.inner.cond_notify(c, n)
    }
    #[inline(always)]
    fn work(&mut self, ns: u64) -> Result<(), NativeError> {
        self.inner.work(ns)
    }
    fn sleep(&mut self, ns: u64) -> Result<(), NativeError> {
        // sysmon sleeps in a loop that only `done` ends: a failed run ends it too
        if self.world.aborted() {
            return Err(NativeError::new("an M stopped sleeping: the run failed"));
        }
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

/// An M's platform in a traced run: [`MOps`], but each successful compare-and-swap on a word
/// the harness watches (a P's `runqhead` or `runnext`) is checked for a steal
/// ([`Traced::note_steal`]). A type of its own, so that the table's straight-line form is
/// compiled twice and an untraced run's is the one without the check (in the table's one large
/// function, even a check that is never taken cost a yield some 20 to 40 instructions of
/// register spills).
struct Traced<'w> {
    ops: MOps<'w>,
    /// Each P's `runqhead` and `runnext` (the words [`GoMemory`] watches in a traced run), with
    /// that P's `pp.m` (who owns it: this M's thread index plus one, or another's) and whether
    /// the word is the head.
    stealable: &'w [(Word, Word, bool)],
}

impl Traced<'_> {
    /// A successful compare-and-swap on a watched word: one that takes Gs from a P this M does
    /// not own (the head moved on, or `runnext` emptied, while `pp.m` names another M or none)
    /// is a steal, recorded with the victim's M (`runqgrab`'s CAS; `runnext`'s, after
    /// `usleep(3)`).
    #[cold]
    #[inline(never)]
    fn note_steal(&mut self, w: Word, old: u32, new: u32) {
        let Some(&(_, owner, head)) = self.stealable.iter().find(|s| s.0 == w) else {
            return;
        };
        let took = if head { new != old } else { new == 0 };
        let o = GoMemory::lookup(self.ops.map, owner);
        let by = if o & IN_WORLD == 0 {
            GoMemory::at(self.ops.lines, o).load(SeqCst)
        } else {
            0
        };
        if took && by != self.ops.inner.index() as u32 + 1 {
            self.ops
                .inner
                .record(herdlab_core::trace::Kind::Steal, by.checked_sub(1));
        }
    }
}

impl Ops for Traced<'_> {
    type Error = NativeError;
    #[inline(always)]
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        self.ops.load(w)
    }
    #[inline(always)]
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        self.ops.store(w, v)
    }
    #[inline(always)]
    fn cas(&mut self, w: Word, old: u32, new: u32) -> Result<bool, NativeError> {
        let ok = self.ops.cas(w, old, new)?;
        if ok && self.ops.entry(w) & (IN_WORLD | WATCH) == WATCH {
            self.note_steal(w, old, new);
        }
        Ok(ok)
    }
    #[inline(always)]
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        self.ops.fetch_add(w, d)
    }
    #[inline(always)]
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        self.ops.swap(w, v)
    }
    fn sem_wait(&mut self, s: SemId) -> Result<(), NativeError> {
        self.ops.sem_wait(s)
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), NativeError> {
        self.ops.sem_post(s)
    }
    fn futex_wait(&mut self, w: Word, e: u32) -> Result<bool, NativeError> {
        self.ops.futex_wait(w, e)
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
        self.ops.futex_wake(w, n)
    }
    #[inline(always)]
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.ops.mutex_lock(m)
    }
    #[inline(always)]
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.ops.mutex_unlock(m)
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NativeError> {
        self.ops.cond_wait(c, m)
    }
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), NativeError> {
        self.ops.cond_notify(c, n)
    }
    #[inline(always)]
    fn work(&mut self, ns: u64) -> Result<(), NativeError> {
        self.ops.work(ns)
    }
    fn sleep(&mut self, ns: u64) -> Result<(), NativeError> {
        self.ops.sleep(ns)
    }
    fn pause(&mut self) -> Result<(), NativeError> {
        self.ops.pause()
    }
    fn sched_yield(&mut self) -> Result<(), NativeError> {
        self.ops.sched_yield()
    }
    fn now(&mut self) -> Result<u64, NativeError> {
        self.ops.now()
    }
    fn other(&mut self, op: Op) -> Result<OpResult, NativeError> {
        self.ops.other(op)
    }
}

/// `lock2`'s contended path: spin, yield once, then sleep on the word as a waiter (`futex(2)`,
/// bounded by [`WAIT_TIMEOUT`], and left when the run fails: `NativeWorld::fail` wakes the word).
///
/// The counts are core's [`LOCK2`], which the simulator's `sched.lock` spins too: rounds of
/// busy waiting (`active_spin`), each of `pauses` pauses (`active_spin_cnt`), then `osyield`
/// (`passive_spin`), then sleep on the word.
fn lock_slow(lock: &AtomicU32, world: &NativeWorld) -> Result<(), NativeError> {
    for _ in 0..LOCK2.rounds {
        for _ in 0..LOCK2.pauses {
            std::hint::spin_loop();
        }
        if lock.load(Relaxed) == UNLOCKED
            && lock
                .compare_exchange(UNLOCKED, LOCKED, Acquire, Relaxed)
                .is_ok()
        {
            return Ok(());
        }
    }
    for _ in 0..LOCK2.yields {
        std::thread::yield_now();
    }
    let t0 = std::time::Instant::now();
    while lock.swap(SLEEPING, Acquire) != UNLOCKED {
        if world.aborted() {
            return Err(NativeError::new(
                "a thread stopped waiting for sched.lock: the run failed",
            ));
        }
        // a plain futex sleep, as Go's `futexsleep`: not a park of the M (the trace's
        // `park`/`sleep` pairs are the table's notes), so not the platform's recorded wait
        if let WaitOutcome::TimedOut = futex_wait(lock, SLEEPING, WAIT_TIMEOUT)? {
            if t0.elapsed() >= WAIT_TIMEOUT {
                return Err(NativeError::new(format!(
                    "a thread waited for sched.lock past {} s",
                    WAIT_TIMEOUT.as_secs()
                )));
            }
        }
    }
    Ok(())
}

/// The platform of a thread outside the runtime that readies a parked G (core's injector,
/// [`GmpActor::injector`]): the same words as an M's ([`GoMemory`], the Ms' notes and
/// `sched.lock`'s futex word in the world) and the same `lock2`, without a thread slot of the
/// world (any thread may wake a future's waker). It only loads, stores, CASes, takes and
/// releases `sched.lock` and wakes an M's note: any other operation is an error.
struct ForeignOps<'w> {
    world: &'w NativeWorld,
    map: &'w [u32; MAP_WORDS],
    lines: &'w [AtomicU32],
    lock: &'w AtomicU32,
    held: bool,
}

impl ForeignOps<'_> {
    fn word(&self, w: Word) -> Result<&AtomicU32, NativeError> {
        match GoMemory::lookup(self.map, w) {
            e if e & IN_WORLD == 0 => Ok(GoMemory::at(self.lines, e)),
            _ => self.world.word(w),
        }
    }
    fn refuse<T>(&self, what: &str) -> Result<T, NativeError> {
        Err(NativeError::new(format!(
            "a foreign wake's injectglist issued {what}, which a thread outside the runtime does not"
        )))
    }
}

impl Ops for ForeignOps<'_> {
    type Error = NativeError;
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        Ok(self.word(w)?.load(SeqCst))
    }
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        match GoMemory::lookup(self.map, w) {
            e if e & IN_WORLD == 0 => GoMemory::store(self.lines, e, v),
            _ => self.world.word(w)?.store(v, SeqCst),
        }
        Ok(())
    }
    fn cas(&mut self, w: Word, old: u32, new: u32) -> Result<bool, NativeError> {
        Ok(self
            .word(w)?
            .compare_exchange(old, new, SeqCst, SeqCst)
            .is_ok())
    }
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        Ok(self.word(w)?.fetch_add(d, SeqCst))
    }
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        Ok(self.word(w)?.swap(v, SeqCst))
    }
    fn sem_wait(&mut self, _: SemId) -> Result<(), NativeError> {
        self.refuse("sem_wait")
    }
    fn sem_post(&mut self, _: SemId) -> Result<(), NativeError> {
        self.refuse("sem_post")
    }
    fn futex_wait(&mut self, _: Word, _: u32) -> Result<bool, NativeError> {
        self.refuse("futex_wait")
    }
    /// `notewakeup(&mp.park)`'s wake of a parked M.
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
        let n = match n {
            WakeCount::All => i32::MAX,
            WakeCount::Up(k) => i32::try_from(k).unwrap_or(i32::MAX),
        };
        futex_wake(self.world.word(w)?, n)
    }
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        if m != SCHED_LOCK || self.held {
            return self.refuse("a lock other than sched.lock, or sched.lock twice");
        }
        if self
            .lock
            .compare_exchange(UNLOCKED, LOCKED, Acquire, Relaxed)
            .is_err()
        {
            lock_slow(self.lock, self.world)?;
        }
        self.held = true;
        Ok(())
    }
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        if m != SCHED_LOCK || !self.held {
            return self.refuse("an unlock of a lock it does not hold");
        }
        self.held = false;
        if self.lock.swap(UNLOCKED, Release) == SLEEPING {
            futex_wake(self.lock, 1)?;
        }
        Ok(())
    }
    fn cond_wait(&mut self, _: CondId, _: MutexId) -> Result<(), NativeError> {
        self.refuse("cond_wait")
    }
    fn cond_notify(&mut self, _: CondId, _: WakeCount) -> Result<(), NativeError> {
        self.refuse("cond_notify")
    }
    fn work(&mut self, _: u64) -> Result<(), NativeError> {
        self.refuse("work")
    }
    fn sleep(&mut self, _: u64) -> Result<(), NativeError> {
        self.refuse("a sleep")
    }
    fn pause(&mut self) -> Result<(), NativeError> {
        std::hint::spin_loop();
        Ok(())
    }
    /// The yield of `startm`'s wait for an M on its way to `stopm`: left when the run fails.
    fn sched_yield(&mut self) -> Result<(), NativeError> {
        if self.world.aborted() {
            return Err(NativeError::new(
                "a foreign wake stopped waiting for an idle M: the run failed",
            ));
        }
        std::thread::yield_now();
        Ok(())
    }
    fn now(&mut self) -> Result<u64, NativeError> {
        Ok(self.world.now_ns())
    }
    fn other(&mut self, op: Op) -> Result<OpResult, NativeError> {
        self.refuse(&format!("{op:?}"))
    }
}

/// The run a foreign wake goes to: the table's memory and scenario, the world that holds the
/// Ms' notes and `sched.lock`'s word.
#[derive(Debug)]
pub(crate) struct RunMem {
    pub(crate) mem: Arc<GoMemory>,
    pub(crate) cfg: GmpConfig,
    pub(crate) world: Arc<NativeWorld>,
}

impl RunMem {
    /// A thread outside the runtime wakes G `g`: core's injector rows, straight-line, on this
    /// thread (a token if `g` has not parked, else `injectglist` with no P: `_Grunnable`, the
    /// global queue under `sched.lock`, `startIdle`, which wakes a parked M for an idle P).
    /// What the injector counted (its `goready`s of parked Gs, its M wakes).
    pub(crate) fn inject(&self, g: u32) -> Result<MCounts, NativeError> {
        let mut ops = ForeignOps {
            world: &self.world,
            map: &self.mem.map,
            lines: &self.mem.lines,
            lock: self.world.word(self.mem.lock_word())?,
            held: false,
        };
        let mut a = GmpActor::injector(self.cfg, g);
        let r = a.run(&mut ops);
        if ops.held {
            // stopped on an error with the lock: let go of it
            if ops.lock.swap(UNLOCKED, Release) == SLEEPING {
                let _ = futex_wake(ops.lock, i32::MAX);
            }
        }
        r.map(|()| a.cx.counts)
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
    run_inner(cfg, None)
}

/// Run the Gs of `tasks` (Rust futures, [`super::task`]) on core's table with `p`'s Ps, Ms and
/// variant: a workload that starts from `main` (G1, the first root) or, when `p`'s workload
/// spawns from outside (`spawn-many`, `yield-many`), from the spawner, which injects every root.
/// `p.goroutines` must be the room of `tasks` (every G id runs once). Every G must run to its end
/// exactly once, every `execute` must be a first run or one after a `Gosched` or `goready`, and
/// every spawned G must have run: an error says what did not hold.
pub fn run_tasks(p: &GmpParams, tasks: &Arc<Tasks>) -> Result<GmpRun, NativeError> {
    let mut cfg = p.config();
    // the table's flags of the workload (external or not; `syscall`'s world, sysmon and each P's
    // syscall words, for futures that block in `task::syscall_sleep`; `locked`'s, the Ms' and
    // Gs' lock words, for futures that call `task::lock_os_thread`; `netpoll`'s, the poller and
    // a peer per G, for futures that `task::net_read`) are kept; what a G does is
    // the futures'
    cfg.workload = if cfg.workload.external() {
        Workload::SpawnMany
    } else if matches!(
        cfg.workload,
        Workload::Syscall | Workload::Locked | Workload::Netpoll
    ) {
        cfg.workload
    } else {
        Workload::FanOut
    };
    // any thread may hold a future's waker and wake it later: `checkdead` cannot know the
    // program is dead (a run whose every G waits for good ends at the platform's wait timeout)
    cfg.foreign_wakes = true;
    let spawned = tasks.spawned();
    if cfg.workload.external() && spawned != cfg.gs {
        return Err(NativeError::new(format!(
            "the spawner injects {} Gs but {spawned} roots were given",
            cfg.gs
        )));
    }
    if !cfg.workload.external() && spawned != 1 {
        return Err(NativeError::new(format!(
            "a run from main takes one root (main), not {spawned}"
        )));
    }
    let r = run_inner(cfg, Some(tasks));
    if let Some(f) = tasks.failure() {
        return Err(NativeError::new(f));
    }
    r
}

fn run_inner(cfg: GmpConfig, tasks: Option<&Arc<Tasks>>) -> Result<GmpRun, NativeError> {
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
    let mem = Arc::new(GoMemory::new(&cfg));
    let mem_arc = mem.clone();
    let mem = &*mem;
    let lock_word = mem.lock_word();
    let spec = WorldSpec {
        words: 0,
        mutexes: 0,
        condvars: 0,
        sems: 0,
        listener: false,
        threads,
        packed: false,
    };
    // The world holds the Ms' words, `sched.lock`'s and, in sysmon's worlds, sysmon's deep-sleep
    // words (`sysmonwait`, `sysmonnote`: after every P's, so the world reaches them; those
    // workloads have few Gs, so the unused G words between cost little).
    // The netpoll worlds' poller words (`lastpoll`, the ready list, each G's `pollDesc` and its
    // request to its peer) stay in the world too: the blocking poller and the peers sleep on
    // them (`futex(2)`), and `netpollBreak` and an answer wake them.
    let world_words = if cfg.workload.sysmon_world()
        || cfg.workload == Workload::Locked
        || cfg.workload.netpoll_world()
    {
        (lock_word.0 as usize + 1).max(cfg.words_needed() as usize)
    } else {
        lock_word.0 as usize + 1
    };
    let world_arc = Arc::new(NativeWorld::with_words(spec, world_words)?);
    if let Some(t) = tasks {
        // a foreign wake from now on runs core's injector on this run's words
        t.attach(RunMem {
            mem: mem_arc,
            cfg,
            world: world_arc.clone(),
        });
    }
    let world = &*world_arc;
    let lock = world.word(lock_word)?;
    let (start, end) = (AtomicU64::new(0), AtomicU64::new(0));
    let ready = StartGate::new(threads);
    // the Ms that start asleep in stopm: every M but the one that runs `main`
    let parked_at_start: Vec<usize> = (0..cfg.threads as usize).filter(|&i| i != first).collect();
    let parked_at_start = &parked_at_start;
    let (start, end, ready) = (&start, &end, &ready);
    // traced runs: the words whose compare-and-swaps may be steals ([`Traced::note_steal`])
    let stealable: Vec<(Word, Word, bool)> = if crate::trace::enabled() {
        (0..cfg.procs)
            .flat_map(|p| {
                [
                    (cfg.head(p), cfg.owner(p), true),
                    (cfg.runnext(p), cfg.owner(p), false),
                ]
            })
            .collect()
    } else {
        Vec::new()
    };
    let stealable = &stealable[..];
    // each M's counters, the Gs it locked and the Gs it executed (`locked` workload)
    type MResult = Result<(MCounts, Vec<u32>, Vec<u32>, Vec<u32>), NativeError>;
    let results: Vec<MResult> = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let spawned = std::thread::Builder::new()
                .name(format!("gmp-m{i}"))
                .spawn_scoped(s, move || -> MResult {
                    let inner = NativeThread::new(world, i);
                    // every M passes the gate, even one that could not start; none runs
                    // unless all started
                    if !ready.arrive() {
                        return Err(NativeError::new("another M could not start"));
                    }
                    let inner = inner.inspect_err(|e| world.fail(&e.0))?;
                    let mut ops = MOps {
                        inner,
                        world,
                        map: &mem.map,
                        lines: &mem.lines,
                        lock,
                        held: false,
                        end,
                    };
                    let mut m = match tasks {
                        Some(t) => GmpActor::with_code(cfg, i as u32, t.code()),
                        None => GmpActor::new(cfg, i as u32),
                    };
                    if i == first {
                        // the other Ms start parked in stopm: the run begins when each is asleep
                        // on its note, not while threads still start (a chain of 1,000 Gs could
                        // end on M0 before M1 first slept); `--compare-sim`'s simulations start
                        // the same way (core's `GmpParams::simulate_gated`)
                        let deadline = Instant::now() + GATE_TIMEOUT;
                        world
                            .wait_asleep(parked_at_start, &|| true, deadline)
                            .inspect_err(|e| world.fail(&e.0))?;
                        start.store(world.now_ns(), SeqCst);
                    }
                    // a traced run's Ms see their steals ([`Traced`]); an untraced run's platform
                    // is the one that never looks
                    let r = if stealable.is_empty() {
                        m.run(&mut ops)
                    } else {
                        let mut traced = Traced { ops, stealable };
                        let r = m.run(&mut traced);
                        ops = traced.ops;
                        r
                    };
                    ops.release();
                    if let Err(e) = r {
                        world.fail(&e.0);
                        return Err(e);
                    }
                    // checkdead threw: the program dies (the other Ms sleep for ever)
                    if let Some(f) = fatal::text(m.cx.fatal) {
                        let e = NativeError::new(format!("fatal error: {f}"));
                        world.fail(&e.0);
                        return Err(e);
                    }
                    Ok((m.cx.counts, m.cx.locked_here, m.cx.ran, m.cx.unlocked_here))
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
    // the foreign wakes still in flight end their injectglist (a bounded tail: the lock, an
    // M's note) before their counts are read
    let mut counts = match tasks {
        Some(t) => t.settle()?,
        None => MCounts::default(),
    };
    if let Some(f) = world.failure() {
        return Err(NativeError::new(f));
    }
    let mut per_m = Vec::with_capacity(results.len());
    for r in results {
        let (c, locked_here, ran, unlocked_here) = r?;
        per_m.push((locked_here, ran, unlocked_here));
        counts.locks += c.locks;
        counts.locked_handoffs += c.locked_handoffs;
        counts.lockedm_parks += c.lockedm_parks;
        counts.locked_exits += c.locked_exits;
        counts.locked_no_m += c.locked_no_m;
        counts.unlocks += c.unlocks;
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
        counts.netpoll_polls += c.netpoll_polls;
        counts.netpoll_ready += c.netpoll_ready;
        counts.netpoll_blocks += c.netpoll_blocks;
        counts.netpoll_breaks += c.netpoll_breaks;
        counts.netpoll_parks += c.netpoll_parks;
    }
    let load = |w: Word| mem.load(w).unwrap_or(u32::MAX);
    let finished = (1..=cfg.gs)
        .filter(|&g| load(cfg.status(g)) == gstatus::DEAD)
        .count() as u32;
    // the futures' runs: as many Gs as were spawned, as many Gosched as they made
    let (gs, yields_due) = match tasks {
        Some(t) => (t.spawned(), Some(t.yields())),
        None => (cfg.gs, None),
    };
    let run = GmpRun {
        wall_ns: end.load(SeqCst).saturating_sub(start.load(SeqCst)).max(1),
        counts,
        finished,
        live: load(LIVE),
        locked_runs: locked_runs(&per_m)?,
    };
    let c = &run.counts;
    // a G runs once, and once more after each Gosched, goready, preemption and exitsyscall0
    let exit0 = c.syscalls - c.syscall_oldp - c.syscall_pidle;
    let executes = gs as u64 + c.yields + c.readies + c.preemptions + exit0 + c.netpoll_ready;
    let yields = match cfg.workload {
        Workload::YieldMany | Workload::GoyieldMany => cfg.gs as u64 * cfg.yields as u64,
        Workload::Locked => (cfg.gs as u64 - 1) * cfg.yields as u64,
        _ => 0,
    };
    let yields = yields_due.unwrap_or(yields);
    if run.finished != gs
        || run.live != 0
        || c.context_switches != executes
        || c.yields != yields
        || c.gparks != c.readies
        || c.netpoll_parks != c.netpoll_ready
    {
        return Err(NativeError::new(format!(
            "{} Gs: {} finished, {} still live, {} executes for {} Gosched and {} goready ({} parks; \
             {yields} Gosched due): each G must run once, and once more after each Gosched and goready",
            gs, run.finished, run.live, c.context_switches, c.yields, c.readies, c.gparks
        )));
    }
    Ok(run)
}

/// The runs of locked Gs, each checked to be on the M that G locked: `per_m[i]` holds the Gs M i
/// locked, every G it executed, in order, and the Gs it unlocked (`UnlockOSThread`). A locked G
/// that never unlocked, executed by another M, is an error; one that unlocked may run anywhere
/// after, so only its runs on its own M are counted (at least one per return while locked: the
/// table's invariant `locked-thread` checks the order in the simulator and the checker).
fn locked_runs(per_m: &[(Vec<u32>, Vec<u32>, Vec<u32>)]) -> Result<u64, NativeError> {
    let unlocked: std::collections::HashSet<u32> = per_m
        .iter()
        .flat_map(|(_, _, u)| u.iter().copied())
        .collect();
    let mut owner = std::collections::HashMap::new();
    for (i, (locked, _, _)) in per_m.iter().enumerate() {
        for &g in locked {
            if let Some(j) = owner.insert(g, i) {
                return Err(NativeError::new(format!("G{g} locked both M{j} and M{i}")));
            }
        }
    }
    let mut runs = 0;
    for (i, (_, ran, _)) in per_m.iter().enumerate() {
        for &g in ran {
            match owner.get(&g) {
                // unlocked: free to run anywhere after (not counted)
                Some(&j) if j != i && unlocked.contains(&g) => {}
                Some(&j) if j != i => {
                    return Err(NativeError::new(format!(
                        "G{g} is locked to M{j} (LockOSThread) but ran on M{i}"
                    )))
                }
                Some(_) => runs += 1,
                None => {}
            }
        }
    }
    Ok(runs)
}
