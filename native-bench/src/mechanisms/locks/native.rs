//! Locks on real threads: core's [`LockWorker`] machines driven on the native platform, beside
//! `std::sync::Mutex` and `parking_lot::Mutex` as baselines.
//!
//! # The driver
//! Every thread, whatever its lock, runs one loop (`round_loop`) of rounds lock → critical
//! section → unlock, generic over its lock ([`RoundLock`]) and monomorphised per lock, so the work
//! around the lock is the same code for core's machines and for the library baselines, and a
//! row's figure differs from another's only by the lock:
//! - [`CoreStraight`] ([`Form::Straight`], the default): one of core's lock algorithms as its step
//!   tables' straight-line form (`Shmtx::lock_run`/`unlock_run` and the others': the state in a
//!   local, the primitives of [`NativeThread`] inlined, through a [`Hot`] view whose lock words,
//!   [`LOCK_WORDS`], were checked once when the thread was made);
//! - [`CoreStepped`] ([`Form::Stepped`]): core's whole thread ([`LockWorker`]) stepped one
//!   operation at a time through `NativeThread::exec`, as the simulator steps it, its critical
//!   section included (the machine's `Work` step): what stepping costs (`--form stepped`);
//! - [`Library`]: `std::sync::Mutex` or `parking_lot::Mutex`, the baselines.
//!
//! Between rounds (never inside one: a ticket or a `wait` announcement cannot be abandoned) the
//! loop checks the shared stop flag (raised at the deadline, or by a thread that failed, which
//! also fails the world so that sleepers leave their waits), and publishes its acquisition count
//! to its own padded slot, so the coordinator can take a snapshot of every thread's count at the
//! deadline. The algorithms themselves exist only in core; the std and parking_lot rows call
//! those libraries, which are the baselines. [`Harness`] runs the same loop for the criterion
//! bench (`benches/locks.rs`).
//!
//! Around the critical section (a busy spin of `cs_ns`, [`spin_for`]) the loop:
//! - times the acquisition (from the first lock operation to the lock being held) on every
//!   [`SAMPLE_EVERY`]-th round, to keep the clock reads off most rounds;
//! - records the lock's acquire and release in the thread's trace (`--trace`; one branch each
//!   when off), for the baselines too;
//! - optionally ([`LockRun::check_exclusion`]) increments an `in_critical` counter before and
//!   decrements it after, counting every entry that found it non-zero (a mutual-exclusion
//!   violation seen natively);
//! - increments the *protected counter* with a plain load and a plain store (no atomic
//!   read-modify-write): it is the data the lock protects. If two threads were ever inside
//!   together, increments would be lost, so `protected_counter == acquisitions` checks mutual
//!   exclusion on every run, benchmark rows included.
//!
//! # Padded and packed ([`LockRun::padded`])
//! The false-sharing demonstration: *padded*, the lock's words and the protected counter each sit
//! alone on a 128-byte line (two 64-byte lines, adjacent-line prefetch included), as nginx pads its
//! shared counters (`cl = 128` in `ngx_event_module_init`). *Packed*, the lock's words and the
//! counter share one line, the way a lock embedded in the data it protects does (a slab pool's
//! mutex at the start of its zone, a `struct` with a lock field). Every holder writes the counter,
//! so with the packed layout each such write invalidates the line that every waiter is spinning on
//! or about to CAS, and the holder's own release then has to fetch the line back: coherence traffic
//! that the padded layout avoids. Correctness does not depend on the layout; only speed does.

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize};
use std::thread;
use std::time::{Duration, Instant};

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::locks::futex_mutex::FutexMutex;
use herdlab_core::mechanisms::locks::shmtx::{Shmtx, ShmtxConfig};
use herdlab_core::mechanisms::locks::ticket::Ticket;
use herdlab_core::mechanisms::locks::ttas::Ttas;
use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker, Phase};
use herdlab_core::op::{SemId, Word};
use herdlab_core::trace::Kind;

use crate::mechanisms::herd::native::quantile;
use crate::platform::native::{own_nvcsw, spin_for, Hot, NativeThread, OpCounters, Padded, Words};
use crate::platform::{supported, NativeError, NativeWorld, WorldSpec};
use crate::trace::Recorder;

/// One acquisition in this many is timed.
pub const SAMPLE_EVERY: u32 = 16;

/// The most wait samples one thread keeps.
pub const MAX_SAMPLES: usize = 1 << 20;

/// The word of the protected counter, after the lock's own words (shmtx: `LOCK`, `WAIT`; ticket:
/// `NEXT`, `SERVING`).
pub const COUNTER: Word = Word(2);

/// The most threads one run may have.
pub const MAX_THREADS: u32 = 1024;

/// The longest a run may take, drain included, before it is an error.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Which lock a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BenchLock {
    /// One of core's machines, on the native platform.
    Core(LockKind),
    /// `std::sync::Mutex<()>`.
    Std,
    /// `parking_lot::Mutex<()>`.
    ParkingLot,
}

impl BenchLock {
    /// Every lock, core's first.
    pub const ALL: [BenchLock; 7] = [
        BenchLock::Core(LockKind::Shmtx),
        BenchLock::Core(LockKind::Ttas),
        BenchLock::Core(LockKind::SpinYield),
        BenchLock::Core(LockKind::Ticket),
        BenchLock::Core(LockKind::Futex),
        BenchLock::Std,
        BenchLock::ParkingLot,
    ];

    /// The row name.
    pub fn name(self) -> &'static str {
        match self {
            BenchLock::Core(k) => k.name(),
            BenchLock::Std => "std",
            BenchLock::ParkingLot => "parking_lot",
        }
    }

    /// Parse a row name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == s)
    }

    /// The names, comma-separated.
    pub fn names() -> String {
        Self::ALL.map(|l| l.name()).join(", ")
    }
}

/// How a core lock's machine runs natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// The step tables' straight-line form (`Shmtx::lock_run`/`unlock_run` and the other
    /// algorithms'): the state in a local, typed primitives inlined. The default.
    Straight,
    /// The stepped form, one `NativeThread::exec` per operation (`next_op`, execute, `complete`),
    /// as the simulator steps it: what stepping costs.
    Stepped,
}

impl Form {
    /// Every form, the default first.
    pub const ALL: [Form; 2] = [Form::Straight, Form::Stepped];

    /// The CLI/JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Form::Straight => "straight",
            Form::Stepped => "stepped",
        }
    }

    /// Parse a CLI name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// How long a run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Until this much time has passed (then every thread stops at its next round boundary).
    Time(Duration),
    /// Exactly this many rounds per thread.
    Rounds(u32),
}

/// One run's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockRun {
    /// The lock.
    pub lock: BenchLock,
    /// Threads.
    pub threads: u32,
    /// Nanoseconds of busy work in each critical section.
    pub cs_ns: u64,
    /// Words alone on their lines (`true`) or packed with the protected counter (`false`).
    pub padded: bool,
    /// The bound.
    pub bound: Bound,
    /// Check `in_critical` around every critical section (two more atomic RMWs per round).
    pub check_exclusion: bool,
    /// How core's machines run (the baselines ignore it).
    pub form: Form,
}

impl LockRun {
    /// The scenario as the site's query string (`--trace`): core's for a core lock; the baselines
    /// (`std`, `parking_lot`) have none of core's, so theirs is shmtx's at the same threads and
    /// critical section (the label says what ran).
    pub fn scenario(&self) -> String {
        let kind = match self.lock {
            BenchLock::Core(k) => k,
            _ => LockKind::Shmtx,
        };
        format!(
            "mechanism=locks&{}",
            <herdlab_core::mechanisms::locks::Locks as herdlab_core::mechanism::Mechanism>::to_query(
                &self.params(kind)
            )
        )
    }

    /// The core scenario of this run (`Core` locks): nginx's spin 2048, `ngx_ncpu` = the cores of
    /// this machine, the semaphore on, spin-yield's 64 tests.
    pub fn params(&self, kind: LockKind) -> LockParams {
        LockParams {
            lock: kind,
            threads: self.threads,
            rounds: match self.bound {
                Bound::Rounds(r) => r,
                Bound::Time(_) => u32::MAX,
            },
            cpus: cores() as u32,
            cs_ns: self.cs_ns,
            ..LockParams::default()
        }
    }
}

/// The cores of this machine (`available_parallelism`, at least 1).
pub fn cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// What one thread did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockThreadReport {
    /// Acquisitions in the whole run (the drain after the deadline included).
    pub acquisitions: u64,
    /// Operation counters (core locks only).
    pub counters: OpCounters,
    /// Voluntary context switches during the run.
    pub nvcsw: u64,
    /// Timed acquisitions: nanoseconds from starting to lock to holding the lock.
    pub waits_ns: Vec<u64>,
}

/// What one run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LockRunReport {
    /// Per thread: acquisitions when the deadline passed (all of them for a rounds bound).
    pub counted: Vec<u64>,
    /// Nanoseconds from the start to the snapshot of `counted`.
    pub elapsed_ns: u64,
    /// Every thread's report.
    pub threads: Vec<LockThreadReport>,
    /// The protected counter at the end (wrapping at 2³²).
    pub protected_counter: u32,
    /// Critical-section entries that found another thread inside (with `check_exclusion`).
    pub exclusion_violations: u64,
    /// The most threads seen inside the critical section at once (with `check_exclusion`).
    pub max_inside: u64,
    /// The semaphore's count at the end (shmtx), from `sem_getvalue`.
    pub sem_value: Option<i32>,
    /// The wait samples of every thread, sorted.
    pub waits_ns: Vec<u64>,
}

impl LockRunReport {
    /// Acquisitions counted (`counted`, summed).
    pub fn total(&self) -> u64 {
        self.counted.iter().sum()
    }

    /// Acquisitions in the whole run.
    pub fn total_all(&self) -> u64 {
        self.threads.iter().map(|t| t.acquisitions).sum()
    }

    /// Counted acquisitions per second.
    pub fn ops_per_sec(&self) -> f64 {
        self.total() as f64 * 1e9 / self.elapsed_ns.max(1) as f64
    }

    /// The least and the most served threads' fractions of the counted acquisitions.
    pub fn shares(&self) -> (f64, f64) {
        let t = self.total();
        if t == 0 {
            return (0.0, 0.0);
        }
        let min = self.counted.iter().copied().min().unwrap_or(0);
        let max = self.counted.iter().copied().max().unwrap_or(0);
        (min as f64 / t as f64, max as f64 / t as f64)
    }

    /// The operation counters of every thread, summed.
    pub fn counters(&self) -> OpCounters {
        let mut c = OpCounters::default();
        for t in &self.threads {
            c.add(&t.counters);
        }
        c
    }

    /// Voluntary context switches of every thread, summed.
    pub fn nvcsw(&self) -> u64 {
        self.threads.iter().map(|t| t.nvcsw).sum()
    }

    /// Whether the protected counter saw every acquisition (no increment was lost).
    pub fn counter_ok(&self) -> bool {
        self.protected_counter == self.total_all() as u32
    }

    /// The `p`-quantile of the timed waits.
    pub fn wait_quantile(&self, p: f64) -> u64 {
        quantile(&self.waits_ns, p)
    }
}

/// What every thread of a run shares besides the lock.
struct Control {
    ready: Padded<AtomicUsize>,
    go: Padded<AtomicBool>,
    stop: Padded<AtomicBool>,
    failed: Padded<AtomicBool>,
    inside: Padded<AtomicU64>,
    violations: Padded<AtomicU64>,
    max_inside: Padded<AtomicU64>,
    published: Box<[Padded<AtomicU64>]>,
    check: bool,
}

impl Control {
    fn new(threads: usize, check: bool) -> Self {
        Control {
            ready: Padded::default(),
            go: Padded::default(),
            stop: Padded::default(),
            failed: Padded::default(),
            inside: Padded::default(),
            violations: Padded::default(),
            max_inside: Padded::default(),
            published: (0..threads).map(|_| Padded::default()).collect(),
            check,
        }
    }

    /// Wait at the start line; false when the run failed before it started.
    fn start_line(&self) -> bool {
        self.ready.0.fetch_add(1, SeqCst);
        while !self.go.0.load(SeqCst) {
            if self.failed.0.load(SeqCst) {
                return false;
            }
            thread::yield_now();
        }
        true
    }

    fn stopped(&self) -> bool {
        self.stop.0.load(Relaxed)
    }

    fn enter(&self) {
        if self.check {
            let before = self.inside.0.fetch_add(1, SeqCst);
            if before != 0 {
                self.violations.0.fetch_add(1, SeqCst);
                self.max_inside.0.fetch_max(before + 1, SeqCst);
            }
        }
    }

    fn leave(&self) {
        if self.check {
            self.inside.0.fetch_sub(1, SeqCst);
        }
    }
}

/// The protected counter's increment: a plain load and a plain store (see the module docs).
fn bump(counter: &AtomicU32) {
    counter.store(counter.load(Relaxed).wrapping_add(1), Relaxed);
}

struct Sampler {
    waits: Vec<u64>,
}

impl Sampler {
    fn new() -> Self {
        Sampler {
            waits: Vec::with_capacity(4096),
        }
    }

    fn start(&self, round: u64) -> Option<Instant> {
        (round % SAMPLE_EVERY as u64 == 0 && self.waits.len() < MAX_SAMPLES).then(Instant::now)
    }

    fn end(&mut self, t0: Option<Instant>) {
        if let Some(t0) = t0 {
            self.waits.push(t0.elapsed().as_nanos() as u64);
        }
    }
}

/// A lock as the one driver loop (`round_loop`) sees it. Every row's thread runs the same loop,
/// monomorphised over its lock, so the round's bookkeeping (the stop check, the sampler, the trace
/// points, the exclusion check, the protected counter, the published count) is the same code for
/// core's machines and for the library mutexes: the lock is the only difference.
pub trait RoundLock {
    /// Take the lock, run `body` holding it, release it.
    fn with<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> Result<R, NativeError>;
    /// The critical section's busy work, with the lock held.
    #[inline(always)]
    fn critical(&mut self, cs_ns: u64) -> Result<(), NativeError> {
        spin_for(cs_ns);
        Ok(())
    }
    /// Record `kind` in the thread's trace (`--trace`; one branch when off).
    fn record(&mut self, kind: Kind);
    /// The run is over: release what the thread holds, return its operation counters (core's
    /// locks; the libraries count none).
    fn finish(&mut self) -> OpCounters {
        OpCounters::default()
    }
}

/// The driver described in the module docs: rounds until the stop flag or the bound, each timed
/// by the sampler one in [`SAMPLE_EVERY`], its count published after it. Returns the rounds done.
#[inline(always)]
fn round_loop<L: RoundLock>(
    lock: &mut L,
    index: usize,
    cs_ns: u64,
    rounds: Option<u64>,
    counter: &AtomicU32,
    ctl: &Control,
    s: &mut Sampler,
) -> Result<u64, NativeError> {
    let mut n = 0u64;
    while !ctl.stopped() && rounds.is_none_or(|r| n < r) {
        let t0 = s.start(n);
        lock.with(|l| {
            s.end(t0);
            l.record(Kind::Lock);
            ctl.enter();
            let r = l.critical(cs_ns);
            bump(counter);
            ctl.leave();
            l.record(Kind::Unlock);
            r
        })??;
        n += 1;
        ctl.published[index].0.store(n, Relaxed);
    }
    Ok(n)
}

/// The words a lock's straight-line run finds at hand ([`Hot`]): the lock's own, word 0 and 1
/// (shmtx's `LOCK` and `WAIT`, ticket's `NEXT` and `SERVING`; ttas and futex use word 0). A word
/// past them still works, through the thread's checked path.
pub const LOCK_WORDS: usize = 2;

/// A thread's executor as a lock's straight-line run sees it: its world's lock words at hand.
pub type LockOps<'t, 'w> = Hot<'t, 'w, LOCK_WORDS>;

/// One of core's lock algorithms in the straight-line form of its step tables: the lock table's
/// `lock_run`, the unlock table's `unlock_run`.
pub trait Straight {
    /// The lock table's straight-line run.
    fn lock_run(&mut self, p: &mut LockOps<'_, '_>) -> Result<(), NativeError>;
    /// The unlock table's straight-line run.
    fn unlock_run(&mut self, p: &mut LockOps<'_, '_>) -> Result<(), NativeError>;
}

macro_rules! straight {
    ($($t:ty),*) => {$(
        impl Straight for $t {
            #[inline(always)]
            fn lock_run(&mut self, p: &mut LockOps<'_, '_>) -> Result<(), NativeError> {
                <$t>::lock_run(self, p)
            }
            #[inline(always)]
            fn unlock_run(&mut self, p: &mut LockOps<'_, '_>) -> Result<(), NativeError> {
                <$t>::unlock_run(self, p)
            }
        }
    )*};
}
straight!(Shmtx, Ttas, Ticket, FutexMutex);

/// A core lock in its straight-line form ([`Form::Straight`]) on this thread's [`NativeThread`],
/// with the lock's words resolved and checked once, when it is made ([`LockOps`]).
pub struct CoreStraight<'w, T> {
    table: T,
    th: NativeThread<'w>,
    words: Words<'w, LOCK_WORDS>,
}

impl<'w, T: Straight> CoreStraight<'w, T> {
    /// `table` (one thread's view of the lock) on the thread's executor `th`; an error when the
    /// thread's world lacks the lock's words ([`LOCK_WORDS`]).
    pub fn new(table: T, th: NativeThread<'w>) -> Result<Self, NativeError> {
        let words = th.words()?;
        Ok(Self::with_words(table, th, words))
    }

    /// The same with the lock's words already checked.
    fn with_words(table: T, th: NativeThread<'w>, words: Words<'w, LOCK_WORDS>) -> Self {
        CoreStraight { table, th, words }
    }
}

impl<T: Straight> RoundLock for CoreStraight<'_, T> {
    #[inline(always)]
    fn with<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> Result<R, NativeError> {
        self.table
            .lock_run(&mut Hot::new(&mut self.th, self.words))?;
        let r = body(self);
        self.table
            .unlock_run(&mut Hot::new(&mut self.th, self.words))?;
        Ok(r)
    }
    #[inline(always)]
    fn record(&mut self, kind: Kind) {
        self.th.record(kind, Some(0));
    }
    fn finish(&mut self) -> OpCounters {
        self.th.release();
        self.th.counters()
    }
}

/// A core lock's whole thread ([`LockWorker`]) stepped one operation at a time
/// ([`Form::Stepped`]), as the simulator steps it: the lock's steps, the critical section's `Work`
/// step, the unlock's steps, each through `NativeThread::exec`.
pub struct CoreStepped<'w> {
    w: LockWorker,
    th: NativeThread<'w>,
}

impl<'w> CoreStepped<'w> {
    /// The thread `w` on its executor `th`.
    pub fn new(w: LockWorker, th: NativeThread<'w>) -> Self {
        CoreStepped { w, th }
    }

    #[inline(always)]
    fn step_while(&mut self, phase: Phase) -> Result<(), NativeError> {
        while self.w.phase() == phase {
            let r = self.th.exec(self.w.next_op())?;
            self.w.complete(r);
        }
        Ok(())
    }
}

impl RoundLock for CoreStepped<'_> {
    #[inline(always)]
    fn with<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> Result<R, NativeError> {
        self.step_while(Phase::Lock)?;
        let r = body(self);
        self.step_while(Phase::Unlock)?;
        Ok(r)
    }
    /// The machine's own critical section: its `Work` step (the same busy spin, executed as the
    /// stepped form executes every operation).
    #[inline(always)]
    fn critical(&mut self, _cs_ns: u64) -> Result<(), NativeError> {
        self.step_while(Phase::Critical)
    }
    #[inline(always)]
    fn record(&mut self, kind: Kind) {
        self.th.record(kind, Some(0));
    }
    fn finish(&mut self) -> OpCounters {
        self.th.release();
        self.th.counters()
    }
}

/// The core lock's parameters as one straight-line table for the thread `index`, as
/// `LockWorker::new` makes it.
fn table(p: &LockParams, index: usize) -> Table {
    match p.lock {
        LockKind::Shmtx => Table::Shmtx(Shmtx::new(
            ShmtxConfig {
                spin: p.spin,
                ncpu: p.cpus,
                semaphore: p.semaphore,
                variant: p.variant,
            },
            index as u32 + 1,
        )),
        LockKind::Ttas => Table::Ttas(Ttas::spin()),
        LockKind::SpinYield => Table::Ttas(Ttas::spin_then_yield(p.yield_after)),
        LockKind::Ticket => Table::Ticket(Ticket::default()),
        LockKind::Futex => Table::Futex(FutexMutex::default()),
    }
}

enum Table {
    Shmtx(Shmtx),
    Ttas(Ttas),
    Ticket(Ticket),
    Futex(FutexMutex),
}

/// One thread of a core lock: its [`RoundLock`] in the run's form, then `round_loop`.
fn core_thread(
    world: &NativeWorld,
    index: usize,
    p: &LockParams,
    form: Form,
    rounds: Option<u64>,
    ctl: &Control,
) -> Result<LockThreadReport, NativeError> {
    let th = NativeThread::new(world, index)?;
    let counter = world.word(COUNTER)?;
    // the lock's words, checked here, before the start line (the straight form's view needs them)
    let words: Words<'_, LOCK_WORDS> = th.words()?;
    let mut s = Sampler::new();
    let nv0 = own_nvcsw();
    if !ctl.start_line() {
        return Err(NativeError("the run failed before it started".into()));
    }
    fn go<L: RoundLock>(
        mut l: L,
        (index, cs, rounds, counter, ctl, s): (
            usize,
            u64,
            Option<u64>,
            &AtomicU32,
            &Control,
            &mut Sampler,
        ),
    ) -> (Result<u64, NativeError>, OpCounters) {
        let r = round_loop(&mut l, index, cs, rounds, counter, ctl, s);
        (r, l.finish())
    }
    let args = (index, p.cs_ns, rounds, counter, ctl, &mut s);
    let (result, counters) = match form {
        Form::Stepped => go(
            CoreStepped {
                w: LockWorker::new(p, index as u32),
                th,
            },
            args,
        ),
        Form::Straight => match table(p, index) {
            Table::Shmtx(t) => go(CoreStraight::with_words(t, th, words), args),
            Table::Ttas(t) => go(CoreStraight::with_words(t, th, words), args),
            Table::Ticket(t) => go(CoreStraight::with_words(t, th, words), args),
            Table::Futex(t) => go(CoreStraight::with_words(t, th, words), args),
        },
    };
    let acquisitions = match result {
        Ok(n) => n,
        Err(e) => {
            ctl.failed.0.store(true, SeqCst);
            // every other thread stops at its next round (or leaves its wait: `fail` posts)
            ctl.stop.0.store(true, SeqCst);
            world.fail(&e.0);
            return Err(e);
        }
    };
    Ok(LockThreadReport {
        acquisitions,
        counters,
        nvcsw: own_nvcsw().saturating_sub(nv0),
        waits_ns: s.waits,
    })
}

/// A library mutex (the baselines: `std`, `parking_lot`) with the thread's trace recorder.
pub struct Library<'a, M> {
    lock: &'a M,
    trace: Option<Recorder>,
}

impl<'a, M> Library<'a, M> {
    /// `lock`, used by the thread `index` of `threads` (its trace recorder with `--trace`).
    pub fn new(lock: &'a M, index: usize, threads: usize) -> Self {
        Library {
            lock,
            trace: Recorder::start(index, threads),
        }
    }
}

impl RoundLock for Library<'_, std::sync::Mutex<()>> {
    #[inline(always)]
    fn with<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> Result<R, NativeError> {
        let g = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let r = body(self);
        drop(g);
        Ok(r)
    }
    #[inline(always)]
    fn record(&mut self, kind: Kind) {
        crate::trace::record(&mut self.trace, kind, Some(0));
    }
}

impl RoundLock for Library<'_, parking_lot::Mutex<()>> {
    #[inline(always)]
    fn with<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> Result<R, NativeError> {
        let g = self.lock.lock();
        let r = body(self);
        drop(g);
        Ok(r)
    }
    #[inline(always)]
    fn record(&mut self, kind: Kind) {
        crate::trace::record(&mut self.trace, kind, Some(0));
    }
}

/// A library mutex and the protected counter on one line (the packed layout).
#[derive(Default)]
#[repr(C, align(128))]
struct PackedPair<M> {
    lock: M,
    counter: AtomicU32,
}

/// The same on a line each (the padded layout).
#[derive(Default)]
struct PaddedPair<M> {
    lock: Padded<M>,
    counter: Padded<AtomicU32>,
}

fn baseline_thread<'a, M>(
    lock: &'a M,
    counter: &AtomicU32,
    (index, threads): (usize, usize),
    cs_ns: u64,
    rounds: Option<u64>,
    ctl: &Control,
) -> Result<LockThreadReport, NativeError>
where
    Library<'a, M>: RoundLock,
{
    let mut s = Sampler::new();
    let nv0 = own_nvcsw();
    let mut n = 0;
    if ctl.start_line() {
        let mut l = Library::new(lock, index, threads);
        n = round_loop(&mut l, index, cs_ns, rounds, counter, ctl, &mut s)?;
    }
    Ok(LockThreadReport {
        acquisitions: n,
        counters: OpCounters::default(),
        nvcsw: own_nvcsw().saturating_sub(nv0),
        waits_ns: s.waits,
    })
}

/// The driver loop outside a run, for the criterion bench (`benches/locks.rs`): one thread, no
/// stop flag raised, no exclusion check, its own padded protected counter. [`Harness::rounds`] runs
/// whole rounds through the very loop `herdlab bench locks` runs (`round_loop`), monomorphised
/// over the lock, so a bench that times two locks with it times the same code around each.
pub struct Harness {
    ctl: Control,
    counter: Padded<AtomicU32>,
    sampler: Sampler,
}

impl Default for Harness {
    fn default() -> Self {
        Harness {
            ctl: Control::new(1, false),
            counter: Padded::default(),
            sampler: Sampler::new(),
        }
    }
}

impl Harness {
    /// Run `n` whole rounds of `lock` (lock, an empty critical section, unlock) and return how
    /// many ran; the protected counter goes up by as many.
    #[inline(always)]
    pub fn rounds<L: RoundLock>(&mut self, lock: &mut L, n: u64) -> Result<u64, NativeError> {
        round_loop(
            lock,
            0,
            0,
            Some(n),
            &self.counter.0,
            &self.ctl,
            &mut self.sampler,
        )
    }

    /// The protected counter (wrapping at 2³²).
    pub fn counter(&self) -> u32 {
        self.counter.0.load(SeqCst)
    }
}

/// Start every thread with `spawn(i)`, let them go together, stop them at the bound, and collect.
fn run_threads<F>(
    n: usize,
    ctl: &Control,
    bound: Bound,
    spawn: F,
) -> Result<(Vec<LockThreadReport>, Vec<u64>, u64), NativeError>
where
    F: Fn(usize) -> Result<LockThreadReport, NativeError> + Sync,
{
    thread::scope(|s| {
        let spawn = &spawn;
        let mut handles = Vec::with_capacity(n);
        let mut start_err = None;
        for i in 0..n {
            match thread::Builder::new()
                .name(format!("lock-{i}"))
                .stack_size(256 * 1024)
                .spawn_scoped(s, move || spawn(i))
            {
                Ok(h) => handles.push(h),
                Err(e) => {
                    start_err = Some(NativeError(format!("cannot start thread {i}: {e}")));
                    break;
                }
            }
        }
        let t_ready = Instant::now();
        while start_err.is_none() && ctl.ready.0.load(SeqCst) < n {
            if ctl.failed.0.load(SeqCst) || t_ready.elapsed() > RUN_TIMEOUT {
                start_err = Some(NativeError("the threads never reached the start".into()));
                break;
            }
            thread::yield_now();
        }
        if start_err.is_some() {
            ctl.failed.0.store(true, SeqCst);
        }
        let start = Instant::now();
        ctl.go.0.store(true, SeqCst);
        let mut snapshot = None;
        if let Bound::Time(d) = bound {
            if start_err.is_none() {
                thread::sleep(d);
                // the counts as of now: acquisitions after the deadline (the drain) are not counted
                let elapsed = start.elapsed().as_nanos() as u64;
                let counted: Vec<u64> = ctl.published.iter().map(|p| p.0.load(Relaxed)).collect();
                snapshot = Some((counted, elapsed));
            }
            ctl.stop.0.store(true, SeqCst);
        }
        let mut reports = Vec::with_capacity(n);
        let mut first_err = start_err;
        for (i, h) in handles.into_iter().enumerate() {
            match h.join() {
                Ok(Ok(r)) => reports.push(r),
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err.get_or_insert(NativeError(format!("thread {i} panicked")));
                }
            }
        }
        let end = start.elapsed().as_nanos() as u64;
        if let Some(e) = first_err {
            return Err(e);
        }
        let (counted, elapsed) =
            snapshot.unwrap_or_else(|| (reports.iter().map(|r| r.acquisitions).collect(), end));
        Ok((reports, counted, elapsed))
    })
}

/// Run one configuration.
pub fn run(cfg: &LockRun) -> Result<LockRunReport, NativeError> {
    if !(1..=MAX_THREADS).contains(&cfg.threads) {
        return Err(NativeError(format!(
            "threads: {} is out of range; allowed 1-{MAX_THREADS}",
            cfg.threads
        )));
    }
    let n = cfg.threads as usize;
    let ctl = Control::new(n, cfg.check_exclusion);
    let rounds = match cfg.bound {
        Bound::Rounds(r) => Some(u64::from(r)),
        Bound::Time(_) => None,
    };
    let (threads, counted, elapsed_ns, protected_counter, sem_value) = match cfg.lock {
        BenchLock::Core(kind) => {
            supported()?;
            let p = cfg.params(kind);
            let world = NativeWorld::new(WorldSpec {
                words: 3,
                sems: 1,
                threads: n,
                packed: !cfg.padded,
                ..WorldSpec::default()
            })?;
            let (t, c, e) = run_threads(n, &ctl, cfg.bound, |i| {
                core_thread(&world, i, &p, cfg.form, rounds, &ctl)
            })?;
            let pc = world.load(COUNTER).unwrap_or(0);
            let sv = world.sem_value(SemId(0));
            (t, c, e, pc, sv)
        }
        BenchLock::Std => baseline::<std::sync::Mutex<()>>(cfg, n, &ctl, rounds)?,
        BenchLock::ParkingLot => baseline::<parking_lot::Mutex<()>>(cfg, n, &ctl, rounds)?,
    };
    let mut waits_ns: Vec<u64> = threads
        .iter()
        .flat_map(|t| t.waits_ns.iter().copied())
        .collect();
    waits_ns.sort_unstable();
    Ok(LockRunReport {
        counted,
        elapsed_ns,
        threads,
        protected_counter,
        exclusion_violations: ctl.violations.0.load(SeqCst),
        max_inside: if cfg.check_exclusion {
            ctl.max_inside.0.load(SeqCst).max(1)
        } else {
            0
        },
        sem_value,
        waits_ns,
    })
}

type Collected = (Vec<LockThreadReport>, Vec<u64>, u64, u32, Option<i32>);

fn baseline<M: Default + Sync>(
    cfg: &LockRun,
    n: usize,
    ctl: &Control,
    rounds: Option<u64>,
) -> Result<Collected, NativeError>
where
    for<'a> Library<'a, M>: RoundLock,
{
    let cs = cfg.cs_ns;
    let go = |lock: &M, counter: &AtomicU32| {
        run_threads(n, ctl, cfg.bound, |i| {
            baseline_thread(lock, counter, (i, n), cs, rounds, ctl)
        })
        .map(|(t, c, e)| (t, c, e, counter.load(SeqCst), None))
    };
    if cfg.padded {
        let pair = Box::new(PaddedPair::<M>::default());
        go(&pair.lock.0, &pair.counter.0)
    } else {
        let pair = Box::new(PackedPair::<M>::default());
        go(&pair.lock, &pair.counter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for l in BenchLock::ALL {
            assert_eq!(BenchLock::from_name(l.name()), Some(l));
        }
        assert_eq!(BenchLock::from_name("bogus"), None);
        assert!(BenchLock::names().starts_with("shmtx, ttas"));
    }

    #[test]
    fn packed_pair_shares_a_line() {
        let p = PackedPair::<std::sync::Mutex<()>>::default();
        let a = &p as *const _ as usize;
        let c = &p.counter as *const _ as usize;
        assert!(c - a < 64, "the counter is {} bytes in", c - a);
        let q = PaddedPair::<parking_lot::Mutex<()>>::default();
        let l = &q.lock as *const _ as usize;
        let c = &q.counter as *const _ as usize;
        assert_eq!(c.abs_diff(l), 128);
    }

    #[test]
    fn shares_and_totals() {
        let r = LockRunReport {
            counted: vec![1, 3],
            elapsed_ns: 1_000_000_000,
            ..Default::default()
        };
        assert_eq!(r.total(), 4);
        assert_eq!(r.shares(), (0.25, 0.75));
        assert_eq!(r.ops_per_sec(), 4.0);
        assert_eq!(LockRunReport::default().shares(), (0.0, 0.0));
    }
}
