//! The native platform: `herdlab_core`'s operations executed for real on OS threads.
//!
//! | operation | here |
//! |---|---|
//! | `Load`, `Store`, `Cas`, `FetchAdd`, `Swap` | an `AtomicU32`, `SeqCst`; alone on its 128-byte cache line, or packed with the world's other words ([`WorldSpec::packed`]) |
//! | `FutexWait`, `FutexWake` | `futex(2)` with `FUTEX_WAIT_PRIVATE` / `FUTEX_WAKE_PRIVATE` (Linux only) |
//! | `SemWait`, `SemPost` | a POSIX `sem_t` per semaphore, `sem_init(sem, 0, 0)` (process-private, value 0), alone on its cache line, destroyed with the world; `sem_wait` is `sem_trywait`, then `sem_timedwait` retried on `EINTR` |
//! | `MutexLock`, `MutexUnlock` | a `std::sync::Mutex<()>`; the guard is kept by the thread's driver between ops |
//! | `CondWait`, `CondNotify` | a `std::sync::Condvar` (`wait_timeout`, `notify_one`, `notify_all`) |
//! | `Accept` | a blocking `accept(2)` on one `TcpListener` bound to `127.0.0.1:0`; `Closed` once shut down |
//! | `Work(ns)` | a busy spin on the monotonic clock for `ns` ([`spin_for`]) |
//! | `AwaitEvent` | the harness's [`EventGate`] |
//! | `Pause`, `Yield`, `Now` | `spin_loop`, `yield_now`, nanoseconds on the monotonic clock |
//!
//! # Lifetimes
//! A [`NativeWorld`] is shared by reference with scoped threads (`std::thread::scope`): every
//! thread's [`NativeThread`] (and so [`drive`]) borrows it for `'w`, so a held
//! `MutexGuard<'w, ()>` can outlive one operation without `unsafe` and without leaking the mutex.
//! The semaphores live in the world's heap block and never move after `sem_init`; no thread can
//! still use them when the world is dropped (the borrow ends first), so `sem_destroy` is safe there.
//!
//! # Drivers
//! [`drive`] runs one machine to its exit. A harness that needs to act between operations (stop
//! between lock rounds, time an acquisition, check mutual exclusion around the critical section)
//! makes its own loop over [`NativeThread::exec`], which executes exactly one operation.
//! A straight-line run (a step table's `run`) calls the thread's typed primitives directly; a
//! lock's runs go through a [`Hot`] view, which has the world's first words resolved and checked
//! once ([`NativeThread::words`]), so its memory operations need no check per operation.
//!
//! # Counters (per thread, the definitions of `herdlab_core::metrics`)
//! - `wakeups`: a `FutexWait` that returned 0 after sleeping (not `EAGAIN`), or a `CondWait` that
//!   returned.
//! - `wasted_wakeups`: a wakeup followed by another `FutexWait`/`CondWait` that sleeps, with no
//!   `Work` in between (counted when the next wait is entered; taken back if that futex wait returns
//!   `EAGAIN` without sleeping).
//! - `work_items`: `Work` operations.
//! - voluntary context switches: `getrusage(RUSAGE_THREAD)`'s `ru_nvcsw` at thread start and end
//!   (and `/proc/self/task/<tid>/status` for snapshots taken by another thread).
//! - [`OpCounters`], kept by the thread alone (plain integers, no shared writes): operations,
//!   `pause`s, `sched_yield`s, failed CAS, `sem_wait`s that found the count at 0 and went to the
//!   kernel (`sem_sleeps`), `sem_post`s, and `futex_wait`s that slept (`futex_sleeps`).
//!
//! # Bounds
//! Every futex, semaphore and condition-variable wait carries [`WAIT_TIMEOUT`]; a timeout is an
//! error, never a hang. [`NativeWorld::fail`] records the first error, wakes every futex word, posts
//! every semaphore once per thread, notifies every condition variable and shuts the listener down,
//! so every other thread leaves its wait and exits.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering::{Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use herdlab_core::machine::steps::Read;
use herdlab_core::machine::Machine;

use super::futex::{futex_wait, futex_wake, WaitOutcome};
pub use super::mem::{spin_for, Padded};
use super::sem::{Sem, SemOutcome};
use crate::trace::{now_ns, Recorder};
use herdlab_core::op::{
    CondId, EpId, Fd, Interest, ListenerId, MutexId, Op, OpResult, Ready, SemId, WakeCount, Word,
};
use herdlab_core::trace::Kind;

/// The longest any single futex, semaphore or condition-variable wait may sleep before it is an
/// error.
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a gate may wait for every worker to be asleep before it is an error.
pub const GATE_TIMEOUT: Duration = Duration::from_secs(10);

/// The most operations one thread may execute in one run of [`drive`] (a runaway machine is an
/// error).
pub const MAX_OPS: u64 = 500_000_000;

/// The bytes of one padded line: two 64-byte cache lines (adjacent-line prefetch included).
pub const LINE_BYTES: usize = 128;

/// 32-bit words in one [`LINE_BYTES`] line.
pub const WORDS_PER_LINE: usize = LINE_BYTES / 4;

/// An error of the native platform or of a harness running on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeError(pub String);

impl core::fmt::Display for NativeError {
    /// The message, and when it ran into a limit of the machine, which one and how to raise it
    /// ([`super::limits::hint`]) on the next line.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)?;
        #[cfg(unix)]
        if let Some(h) = super::limits::hint(&self.0).filter(|h| !self.0.contains(h.as_str())) {
            // (not again when the message wraps an error that already has it)
            write!(f, "\n  {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for NativeError {}

impl NativeError {
    pub(crate) fn new(msg: impl Into<String>) -> Self {
        NativeError(msg.into())
    }
}

/// What a world needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldSpec {
    /// Words of shared memory (also futex words).
    pub words: u16,
    /// Sleeping mutexes.
    pub mutexes: u8,
    /// Condition variables.
    pub condvars: u8,
    /// POSIX semaphores (`sem_t`, initial value 0).
    pub sems: u8,
    /// Whether to bind a listening socket on `127.0.0.1:0` (for [`Op::Accept`]).
    pub listener: bool,
    /// How many threads will be driven in it (one counter slot each).
    pub threads: usize,
    /// `false`: every word alone on its own 128-byte line (the default, no false sharing).
    /// `true`: the words packed side by side, [`WORDS_PER_LINE`] to a line, so that word 0 and its
    /// neighbours share one cache line (the false-sharing layout of `herdlab bench locks`).
    pub packed: bool,
}

/// The counters of one thread that other threads (a gate, a load generator) may read while it runs.
#[derive(Debug, Default)]
pub struct ThreadSlot {
    tid: AtomicI32,
    wakeups: AtomicU64,
    wasted: AtomicU64,
    work_items: AtomicU64,
    in_wait: AtomicBool,
    wait_gen: AtomicU64,
}

impl ThreadSlot {
    /// The thread's kernel id (`gettid()`), 0 until the thread has started.
    pub fn tid(&self) -> i32 {
        self.tid.load(SeqCst)
    }
    /// Wakeups so far.
    pub fn wakeups(&self) -> u64 {
        self.wakeups.load(SeqCst)
    }
    /// Wasted wakeups so far.
    pub fn wasted(&self) -> u64 {
        self.wasted.load(SeqCst)
    }
    /// Work items so far.
    pub fn work_items(&self) -> u64 {
        self.work_items.load(SeqCst)
    }
    /// Whether the thread is inside a wait for work (`FutexWait`, `CondWait` or `Accept`).
    pub fn in_wait(&self) -> bool {
        self.in_wait.load(SeqCst)
    }
    /// How many waits for work the thread has entered (changes each time it enters one).
    pub fn wait_gen(&self) -> u64 {
        self.wait_gen.load(SeqCst)
    }
}

/// The shared state of one native run: words, mutexes, condition variables, semaphores, the
/// listener, the per-thread counters, the current event's time stamp and the failure flag.
#[derive(Debug)]
pub struct NativeWorld {
    /// The words' storage: word `i` is `lines[i >> shift].0[i & mask]`.
    lines: Box<[Padded<[AtomicU32; WORDS_PER_LINE]>]>,
    words: usize,
    shift: u32,
    mask: usize,
    mutexes: Box<[Mutex<()>]>,
    condvars: Box<[Condvar]>,
    sems: Box<[Padded<Sem>]>,
    listener: Option<TcpListener>,
    listener_shut: AtomicBool,
    slots: Box<[Padded<ThreadSlot>]>,
    epoch: Instant,
    event_start: Padded<AtomicU64>,
    conn_seq: AtomicU32,
    aborted: AtomicBool,
    failure: Mutex<Option<String>>,
}

impl NativeWorld {
    /// A world of this shape (binds the listener and initialises the semaphores if asked).
    pub fn new(spec: WorldSpec) -> Result<Self, NativeError> {
        Self::with_words(spec, spec.words as usize)
    }

    /// A world of this shape with `words` words instead of `spec.words` (a table whose memory is
    /// larger than 255 words: `Word` is a `u16`).
    pub fn with_words(spec: WorldSpec, words: usize) -> Result<Self, NativeError> {
        let listener = if spec.listener {
            let l = TcpListener::bind("127.0.0.1:0")
                .map_err(|e| NativeError::new(format!("cannot bind 127.0.0.1:0: {e}")))?;
            Some(l)
        } else {
            None
        };
        let (shift, lines) = if spec.packed {
            (
                WORDS_PER_LINE.trailing_zeros(),
                words.div_ceil(WORDS_PER_LINE),
            )
        } else {
            (0, words)
        };
        let mut sems: Box<[Padded<Sem>]> = (0..spec.sems).map(|_| Padded(Sem::new())).collect();
        // in place, in the heap block: a sem_t must not move once initialised
        for s in sems.iter_mut() {
            s.0.init()?;
        }
        Ok(NativeWorld {
            lines: (0..lines).map(|_| Padded::default()).collect(),
            words,
            shift,
            mask: (1usize << shift) - 1,
            mutexes: (0..spec.mutexes).map(|_| Mutex::new(())).collect(),
            condvars: (0..spec.condvars).map(|_| Condvar::new()).collect(),
            sems,
            listener,
            listener_shut: AtomicBool::new(false),
            slots: (0..spec.threads).map(|_| Padded::default()).collect(),
            epoch: Instant::now(),
            event_start: Padded::default(),
            conn_seq: AtomicU32::new(0),
            aborted: AtomicBool::new(false),
            failure: Mutex::new(None),
        })
    }

    /// Nanoseconds on the monotonic clock since the world was made.
    pub fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// A word's value.
    pub fn load(&self, w: Word) -> Option<u32> {
        self.word(w).ok().map(|a| a.load(SeqCst))
    }

    /// A word itself (for a harness that keeps its own data beside the machines' words, such as
    /// the protected counter of `herdlab bench locks`).
    #[inline]
    pub fn word(&self, w: Word) -> Result<&AtomicU32, NativeError> {
        let i = w.0 as usize;
        if i >= self.words {
            return Err(no_word(w));
        }
        Ok(&self.lines[i >> self.shift].0[i & self.mask])
    }

    /// A semaphore's count (`sem_getvalue`), if it exists.
    pub fn sem_value(&self, s: SemId) -> Option<i32> {
        self.sems.get(s.0 as usize).and_then(|p| p.0.value())
    }

    fn sem(&self, s: SemId) -> Result<&Sem, NativeError> {
        self.sems
            .get(s.0 as usize)
            .map(|p| &p.0)
            .ok_or_else(|| NativeError::new(format!("semaphore {} does not exist", s.0)))
    }

    /// The counters of thread `i`.
    pub fn slot(&self, i: usize) -> &ThreadSlot {
        &self.slots[i].0
    }

    /// Number of thread slots.
    pub fn threads(&self) -> usize {
        self.slots.len()
    }

    /// One poll of [`Self::wait_asleep`]: `Some(wait generations)` when every thread of
    /// `threads` is inside a wait for work and in state `S`, and `extra` holds.
    fn poll_asleep(&self, threads: &[usize], extra: &dyn Fn() -> bool) -> Option<Vec<u64>> {
        let mut gens = Vec::with_capacity(threads.len());
        for &i in threads {
            let s = self.slot(i);
            if s.tid() == 0 || !s.in_wait() {
                return None;
            }
            gens.push(s.wait_gen());
        }
        if !extra() {
            return None;
        }
        threads
            .iter()
            .all(|&i| thread_state(self.slot(i).tid()) == Some('S'))
            .then_some(gens)
    }

    /// Wait until every thread of `threads` is asleep in the kernel in a wait for work
    /// (`FutexWait`, `CondWait`, `Accept`) and `extra` holds: two consecutive good polls with the
    /// same wait generations, so no thread woke and slept again between them. Bounded by
    /// [`GATE_TIMEOUT`] and `deadline`; past them, the error counts the threads asleep. A failed run
    /// ends the wait with its failure.
    pub fn wait_asleep(
        &self,
        threads: &[usize],
        extra: &dyn Fn() -> bool,
        deadline: Instant,
    ) -> Result<(), NativeError> {
        let start = Instant::now();
        let limit = (start + GATE_TIMEOUT).min(deadline);
        let mut prev: Option<Vec<u64>> = None;
        let mut polls = 0u32;
        loop {
            if self.aborted() {
                return Err(NativeError(format!(
                    "aborted: {}",
                    self.failure().unwrap_or_default()
                )));
            }
            match self.poll_asleep(threads, extra) {
                Some(g) if prev.as_ref() == Some(&g) => return Ok(()),
                Some(g) => prev = Some(g),
                None => prev = None,
            }
            if Instant::now() > limit {
                let asleep = threads
                    .iter()
                    .filter(|&&i| {
                        self.slot(i).in_wait() && thread_state(self.slot(i).tid()) == Some('S')
                    })
                    .count();
                return Err(NativeError(format!(
                    "timed out after {:.1} s waiting for every thread to sleep: {asleep} of {} asleep",
                    start.elapsed().as_secs_f64(),
                    threads.len()
                )));
            }
            polls += 1;
            if polls < 20 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// The listener's address, if the world has one.
    pub fn listener_addr(&self) -> Option<SocketAddr> {
        self.listener.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// Connections accepted so far.
    pub fn connections_accepted(&self) -> u32 {
        self.conn_seq.load(SeqCst)
    }

    /// Mark the start of an event now: the next `Work` any thread starts records its latency from
    /// here.
    pub fn stamp_event(&self) {
        self.event_start.0.store(self.now_ns() + 1, SeqCst);
    }

    /// Shut the listener down (`shutdown(fd, SHUT_RDWR)`): every blocked `accept` returns and every
    /// later one fails, which the driver reports as [`OpResult::Closed`]. Idempotent.
    pub fn shutdown_listener(&self) {
        if let Some(l) = &self.listener {
            if !self.listener_shut.swap(true, SeqCst) {
                sys::shutdown(l);
            }
        }
    }

    /// Whether the run was aborted by an error.
    pub fn aborted(&self) -> bool {
        self.aborted.load(SeqCst)
    }

    /// The first error recorded, if any.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Record an error (the first one is kept), and release every thread: wake every futex word,
    /// post every semaphore once per thread, notify every condition variable, shut the listener
    /// down. Threads leave at their next wait.
    pub fn fail(&self, why: &str) {
        {
            let mut f = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
            if f.is_none() {
                *f = Some(why.to_string());
            }
        }
        self.aborted.store(true, SeqCst);
        for i in 0..self.words {
            if let Ok(w) = self.word(Word(i as u16)) {
                let _ = futex_wake(w, i32::MAX);
            }
        }
        for s in self.sems.iter() {
            for _ in 0..self.slots.len().max(1) {
                let _ = s.0.post();
            }
        }
        for c in self.condvars.iter() {
            c.notify_all();
        }
        self.shutdown_listener();
    }
}

#[cold]
fn no_word(w: Word) -> NativeError {
    NativeError::new(format!("word {} does not exist", w.0))
}

/// What `Op::AwaitEvent` does on the native platform: the harness decides when the next event is
/// due (and when there are no more).
pub trait EventGate: Sync {
    /// Block until the next event, then return [`OpResult::Done`], or [`OpResult::Closed`] when
    /// there are no more. `thread` is the caller's slot.
    fn await_event(&self, world: &NativeWorld, thread: usize) -> Result<OpResult, NativeError>;
}

/// Counters a thread keeps for itself while it executes operations (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OpCounters {
    /// Operations executed.
    pub ops: u64,
    /// `Pause` operations (`spin_loop` hints).
    pub pauses: u64,
    /// `Yield` operations (`sched_yield`).
    pub yields: u64,
    /// `Cas` operations that failed.
    pub cas_failures: u64,
    /// `SemWait`s that found the count at 0 and went to the kernel (`sem_trywait` failed).
    pub sem_sleeps: u64,
    /// `SemPost`s.
    pub sem_posts: u64,
    /// `FutexWait`s that slept and were woken (not `EAGAIN`).
    pub futex_sleeps: u64,
    /// `Sleep`s (`clock_nanosleep`).
    pub sleeps: u64,
}

/// The memory operations on a word already found, and how each counts: written once here, for
/// [`NativeThread`] (which finds the word through the world) and [`Hot`] (which has it at hand).
impl OpCounters {
    /// `Load`: one `SeqCst` load, one operation.
    #[inline(always)]
    fn load(&mut self, a: &AtomicU32) -> u32 {
        self.ops += 1;
        a.load(SeqCst)
    }
    /// `Store`: one `SeqCst` store, one operation.
    #[inline(always)]
    fn store(&mut self, a: &AtomicU32, v: u32) {
        self.ops += 1;
        a.store(v, SeqCst);
    }
    /// `Cas`: one `SeqCst` compare-exchange, one operation, and a failure counted.
    #[inline(always)]
    fn cas(&mut self, a: &AtomicU32, expected: u32, new: u32) -> bool {
        self.ops += 1;
        let ok = a.compare_exchange(expected, new, SeqCst, SeqCst).is_ok();
        if !ok {
            self.cas_failures += 1;
        }
        ok
    }
    /// `FetchAdd`: one `SeqCst` fetch-add, one operation.
    #[inline(always)]
    fn fetch_add(&mut self, a: &AtomicU32, d: u32) -> u32 {
        self.ops += 1;
        a.fetch_add(d, SeqCst)
    }
    /// `Swap`: one `SeqCst` swap, one operation.
    #[inline(always)]
    fn swap(&mut self, a: &AtomicU32, v: u32) -> u32 {
        self.ops += 1;
        a.swap(v, SeqCst)
    }

    /// The sum, field by field.
    pub fn add(&mut self, o: &OpCounters) {
        self.ops += o.ops;
        self.pauses += o.pauses;
        self.yields += o.yields;
        self.cas_failures += o.cas_failures;
        self.sem_sleeps += o.sem_sleeps;
        self.sem_posts += o.sem_posts;
        self.futex_sleeps += o.futex_sleeps;
        self.sleeps += o.sleeps;
    }
}

/// What one thread did, returned by [`drive`] and [`NativeThread::report`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadReport {
    /// The thread's slot.
    pub index: usize,
    /// Its kernel thread id.
    pub tid: i32,
    /// Operations executed.
    pub ops: u64,
    /// Wakeups (see the module docs).
    pub wakeups: u64,
    /// Wasted wakeups.
    pub wasted_wakeups: u64,
    /// `Work` operations.
    pub work_items: u64,
    /// `ru_nvcsw` when the thread started.
    pub nvcsw_start: u64,
    /// `ru_nvcsw` when its machine exited.
    pub nvcsw_end: u64,
    /// For each `Work` that followed a stamped event: nanoseconds from the stamp to its start.
    pub latencies_ns: Vec<u64>,
    /// The thread's own operation counters.
    pub counters: OpCounters,
}

/// One OS thread's executor of operations in a [`NativeWorld`]: made on the thread that will use
/// it, it executes one [`Op`] per [`NativeThread::exec`] and keeps what the operations leave
/// behind (a held mutex guard, an accepted connection) between calls.
pub struct NativeThread<'w> {
    world: &'w NativeWorld,
    index: usize,
    tid: i32,
    nvcsw_start: u64,
    guards: Vec<Option<MutexGuard<'w, ()>>>,
    conn: Option<TcpStream>,
    woken_since_work: bool,
    latencies: Vec<u64>,
    counters: OpCounters,
    /// The addresses of the world's first [`FAST_WORDS`] words, resolved once (`fast_len` of them
    /// exist): a lock's round is a handful of atomics, and finding each word through the world
    /// (its line array, shift and mask, a chain of dependent loads that every locked instruction
    /// makes start afresh) cost as much as the atomics themselves.
    fast: [Option<&'w AtomicU32>; FAST_WORDS],
    /// What serves `Op::AwaitEvent`.
    gate: Option<&'w dyn EventGate>,
    /// The thread's recorder with `--trace` (`crate::trace`), else `None`.
    trace: Option<Recorder>,
}

/// The primitives of core's step tables on real atomics and system calls: what a machine's
/// straight-line form (`run`) calls, and what the one stepped executor
/// (`herdlab_core::machine::steps::exec`, [`super::exec`]) calls for each [`Op`]. Each counts one
/// operation; the memory operations, `pause` and `work` are inlined into the caller (a lock's fast
/// path is a handful of them per round); what may sleep or touch the kernel is not.
impl herdlab_core::machine::steps::Ops for NativeThread<'_> {
    type Error = NativeError;

    #[inline(always)]
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        let a = self.mem_word(w)?;
        Ok(self.counters.load(a))
    }
    #[inline(always)]
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        let a = self.mem_word(w)?;
        self.counters.store(a, v);
        Ok(())
    }
    #[inline(always)]
    fn cas(&mut self, w: Word, expected: u32, new: u32) -> Result<bool, NativeError> {
        let a = self.mem_word(w)?;
        Ok(self.counters.cas(a, expected, new))
    }
    #[inline(always)]
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        let a = self.mem_word(w)?;
        Ok(self.counters.fetch_add(a, d))
    }
    #[inline(always)]
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        let a = self.mem_word(w)?;
        Ok(self.counters.swap(a, v))
    }
    #[inline(always)]
    fn pause(&mut self) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.counters.pauses += 1;
        std::hint::spin_loop();
        Ok(())
    }
    fn sem_wait(&mut self, s: SemId) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.sem_wait_slow(s)
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.world.sem(s)?.post()?;
        self.counters.sem_posts += 1;
        self.record(Kind::Notify, None);
        Ok(())
    }
    fn futex_wait(&mut self, word: Word, expected: u32) -> Result<bool, NativeError> {
        self.counters.ops += 1;
        self.futex_wait_slow(word, expected)
    }
    fn futex_wake(&mut self, w: Word, count: WakeCount) -> Result<u32, NativeError> {
        self.counters.ops += 1;
        let n = match count {
            WakeCount::All => i32::MAX,
            WakeCount::Up(n) => n.min(i32::MAX as u32) as i32,
        };
        let woken = futex_wake(self.world.word(w)?, n)?;
        self.record(Kind::Notify, Some(woken));
        Ok(woken)
    }
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.counters.ops += 1;
        let mx = self.mutex(m.0)?;
        if self.guards[m.0 as usize].is_some() {
            return Err(NativeError::new(format!(
                "thread {} locked mutex {} it already holds",
                self.index, m.0
            )));
        }
        let g = mx.lock().unwrap_or_else(PoisonError::into_inner);
        self.guards[m.0 as usize] = Some(g);
        self.record(Kind::Lock, Some(u32::from(m.0)));
        Ok(())
    }
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.mutex(m.0)?;
        if self.guards[m.0 as usize].take().is_none() {
            return Err(NativeError::new(format!(
                "thread {} unlocked mutex {} it does not hold",
                self.index, m.0
            )));
        }
        self.record(Kind::Unlock, Some(u32::from(m.0)));
        Ok(())
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.cond_wait_slow(c, m)
    }
    fn cond_notify(&mut self, cv: CondId, count: WakeCount) -> Result<(), NativeError> {
        self.counters.ops += 1;
        let c = self
            .world
            .condvars
            .get(cv.0 as usize)
            .ok_or_else(|| NativeError::new(format!("condvar {} does not exist", cv.0)))?;
        match count {
            WakeCount::All => c.notify_all(),
            WakeCount::Up(n) => (0..n).for_each(|_| c.notify_one()),
        }
        self.record(
            Kind::Notify,
            match count {
                WakeCount::All => None,
                WakeCount::Up(n) => Some(n),
            },
        );
        Ok(())
    }
    #[inline(always)]
    fn work(&mut self, ns: u64) -> Result<(), NativeError> {
        self.work_item(ns, true)
    }
    fn sched_yield(&mut self) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.counters.yields += 1;
        std::thread::yield_now();
        Ok(())
    }
    fn now(&mut self) -> Result<u64, NativeError> {
        self.counters.ops += 1;
        Ok(self.world.now_ns())
    }
    fn sleep(&mut self, ns: u64) -> Result<(), NativeError> {
        self.counters.ops += 1;
        self.counters.sleeps += 1;
        super::sleep_ns(ns)
    }
    fn other(&mut self, op: Op) -> Result<OpResult, NativeError> {
        self.counters.ops += 1;
        self.other_slow(op)
    }
}

/// Words whose addresses a [`NativeThread`] keeps at hand.
pub const FAST_WORDS: usize = 8;

/// The first `N` words of a thread's world, resolved and checked once, when made
/// ([`NativeThread::words`]): typed handles for a straight-line run's memory operations, which then
/// need no check per operation ([`Hot`]).
#[derive(Clone, Copy, Debug)]
pub struct Words<'w, const N: usize>([&'w AtomicU32; N]);

/// A thread's executor with its world's first `N` words at hand ([`Words`]): what a lock's
/// straight-line run calls, one view per run (`herdlab bench locks`' default form).
///
/// A memory operation (`load`, `store`, `cas`, `fetch_add`, `swap`) on one of those words is the
/// `SeqCst` atomic alone, counted in the thread's [`OpCounters`] as [`NativeThread`] counts it: the
/// word was checked to exist when [`Words`] was made, and its address is a local of the run rather
/// than a look-up through the thread after every locked instruction. Any other word, and every
/// other operation, goes to the thread's own [`Ops`](herdlab_core::machine::steps::Ops) methods,
/// checks and counters included, so an operation means and counts the same through the view as
/// through the thread.
pub struct Hot<'t, 'w, const N: usize> {
    th: &'t mut NativeThread<'w>,
    words: [&'w AtomicU32; N],
}

impl<'t, 'w, const N: usize> Hot<'t, 'w, N> {
    /// The view of `th` with `words` (made from the same world: [`NativeThread::words`]) at hand.
    #[inline(always)]
    pub fn new(th: &'t mut NativeThread<'w>, words: Words<'w, N>) -> Self {
        Hot { th, words: words.0 }
    }

    /// The word `w` if it is one of those at hand (a constant `w` folds this to one array read).
    #[inline(always)]
    fn at(&self, w: Word) -> Option<&'w AtomicU32> {
        self.words.get(w.0 as usize).copied()
    }
}

/// The memory operations inlined, on the words at hand without a check; the rest is the
/// thread's.
impl<const N: usize> herdlab_core::machine::steps::Ops for Hot<'_, '_, N> {
    type Error = NativeError;

    #[inline(always)]
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        match self.at(w) {
            Some(a) => Ok(self.th.counters.load(a)),
            None => self.th.load(w),
        }
    }
    #[inline(always)]
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        match self.at(w) {
            Some(a) => {
                self.th.counters.store(a, v);
                Ok(())
            }
            None => self.th.store(w, v),
        }
    }
    #[inline(always)]
    fn cas(&mut self, w: Word, expected: u32, new: u32) -> Result<bool, NativeError> {
        match self.at(w) {
            Some(a) => Ok(self.th.counters.cas(a, expected, new)),
            None => self.th.cas(w, expected, new),
        }
    }
    #[inline(always)]
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        match self.at(w) {
            Some(a) => Ok(self.th.counters.fetch_add(a, d)),
            None => self.th.fetch_add(w, d),
        }
    }
    #[inline(always)]
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        match self.at(w) {
            Some(a) => Ok(self.th.counters.swap(a, v)),
            None => self.th.swap(w, v),
        }
    }
    #[inline(always)]
    fn pause(&mut self) -> Result<(), NativeError> {
        self.th.pause()
    }
    #[inline(always)]
    fn sem_wait(&mut self, s: SemId) -> Result<(), NativeError> {
        self.th.sem_wait(s)
    }
    #[inline(always)]
    fn sem_post(&mut self, s: SemId) -> Result<(), NativeError> {
        self.th.sem_post(s)
    }
    #[inline(always)]
    fn futex_wait(&mut self, w: Word, expected: u32) -> Result<bool, NativeError> {
        self.th.futex_wait(w, expected)
    }
    #[inline(always)]
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
        self.th.futex_wake(w, n)
    }
    #[inline(always)]
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.th.mutex_lock(m)
    }
    #[inline(always)]
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.th.mutex_unlock(m)
    }
    #[inline(always)]
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NativeError> {
        self.th.cond_wait(c, m)
    }
    #[inline(always)]
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), NativeError> {
        self.th.cond_notify(c, n)
    }
    #[inline(always)]
    fn work(&mut self, ns: u64) -> Result<(), NativeError> {
        self.th.work(ns)
    }
    #[inline(always)]
    fn sched_yield(&mut self) -> Result<(), NativeError> {
        self.th.sched_yield()
    }
    #[inline(always)]
    fn now(&mut self) -> Result<u64, NativeError> {
        self.th.now()
    }
    #[inline(always)]
    fn other(&mut self, op: Op) -> Result<OpResult, NativeError> {
        self.th.other(op)
    }
    #[inline(always)]
    fn accept(&mut self, l: ListenerId) -> Result<Option<u32>, NativeError> {
        self.th.accept(l)
    }
    #[inline(always)]
    fn accept_nb(&mut self, l: ListenerId) -> Result<Option<u32>, NativeError> {
        self.th.accept_nb(l)
    }
    #[inline(always)]
    fn epoll_add(&mut self, ep: EpId, fd: Fd, interest: Interest) -> Result<(), NativeError> {
        self.th.epoll_add(ep, fd, interest)
    }
    #[inline(always)]
    fn epoll_del(&mut self, ep: EpId, fd: Fd) -> Result<(), NativeError> {
        self.th.epoll_del(ep, fd)
    }
    #[inline(always)]
    fn epoll_wait(&mut self, ep: EpId, timeout_ns: Option<u64>) -> Result<Ready, NativeError> {
        self.th.epoll_wait(ep, timeout_ns)
    }
    #[inline(always)]
    fn read_next(&mut self) -> Result<Read, NativeError> {
        self.th.read_next()
    }
    #[inline(always)]
    fn recv(&mut self, c: u32) -> Result<Read, NativeError> {
        self.th.recv(c)
    }
    #[inline(always)]
    fn respond(&mut self, c: u32) -> Result<(), NativeError> {
        self.th.respond(c)
    }
    #[inline(always)]
    fn sleep(&mut self, ns: u64) -> Result<(), NativeError> {
        self.th.sleep(ns)
    }
    #[inline(always)]
    fn await_event(&mut self) -> Result<bool, NativeError> {
        self.th.await_event()
    }
}

/// Run `machine` on the calling thread until it exits: `loop { op = next_op(); if Exit break;
/// complete(exec(op)) }`. `index` is the thread's counter slot in `world`; `gate` serves
/// `Op::AwaitEvent`. On an error the world is failed ([`NativeWorld::fail`]) and the error returned.
pub fn drive<'w, M: Machine>(
    world: &'w NativeWorld,
    index: usize,
    machine: &mut M,
    gate: Option<&'w dyn EventGate>,
) -> Result<ThreadReport, NativeError> {
    let mut d = NativeThread::new(world, index)?.with_gate(gate);
    let result = loop {
        let op = machine.next_op();
        if op == Op::Exit {
            break Ok(());
        }
        if d.counters.ops >= MAX_OPS {
            break Err(NativeError::new(format!(
                "thread {index} ran past {MAX_OPS} operations"
            )));
        }
        match d.exec(op) {
            Ok(r) => machine.complete(r),
            Err(e) => break Err(e),
        }
    };
    // release what the machine still held (a connection, a mutex) before reporting
    d.release();
    if let Err(e) = result {
        world.fail(&e.0);
        return Err(e);
    }
    Ok(d.report())
}

impl<'w> NativeThread<'w> {
    /// The executor of the calling thread in slot `index` of `world` (records its kernel id and its
    /// voluntary context switches so far).
    pub fn new(world: &'w NativeWorld, index: usize) -> Result<Self, NativeError> {
        if index >= world.threads() {
            return Err(NativeError::new(format!(
                "thread slot {index} does not exist (the world has {})",
                world.threads()
            )));
        }
        let tid = sys::gettid();
        world.slot(index).tid.store(tid, SeqCst);
        Ok(NativeThread {
            world,
            index,
            tid,
            nvcsw_start: sys::own_nvcsw(),
            guards: (0..world.mutexes.len()).map(|_| None).collect(),
            conn: None,
            woken_since_work: false,
            latencies: Vec::new(),
            counters: OpCounters::default(),
            fast: std::array::from_fn(|i| world.word(Word(i as u16)).ok()),
            gate: None,
            trace: Recorder::start(index, world.threads()),
        })
    }

    /// The same thread with `gate` serving `Op::AwaitEvent`.
    pub fn with_gate(mut self, gate: Option<&'w dyn EventGate>) -> Self {
        self.gate = gate;
        self
    }

    /// The world's first `N` words, checked to exist now: an error naming the first missing word
    /// when the world has fewer. A [`Hot`] view over them runs their memory operations with no
    /// check.
    pub fn words<const N: usize>(&self) -> Result<Words<'w, N>, NativeError> {
        let world = self.world;
        if N > world.words || N > usize::from(u16::MAX) + 1 {
            return Err(no_word(Word(
                world.words.min(N).min(usize::from(u16::MAX)) as u16
            )));
        }
        Ok(Words(std::array::from_fn(|i| {
            &world.lines[i >> world.shift].0[i & world.mask]
        })))
    }

    /// The word `w`: from the addresses at hand, else through the world (an error if it does not
    /// exist).
    #[inline(always)]
    fn word(&self, w: Word) -> Result<&'w AtomicU32, NativeError> {
        match self.fast.get(w.0 as usize) {
            Some(Some(a)) => Ok(a),
            _ => self.world.word(w),
        }
    }

    /// The word `w` of a memory operation: an operation on a word that does not exist still
    /// counts as one issued (its error is the thread's answer), as before the count moved to
    /// [`OpCounters`]' memory operations.
    #[inline(always)]
    fn mem_word(&mut self, w: Word) -> Result<&'w AtomicU32, NativeError> {
        self.word(w).inspect_err(|_| self.counters.ops += 1)
    }

    /// Record `kind` now in the thread's trace (`--trace`; nothing, one branch, when off): what a
    /// mechanism's executor sees and the platform cannot (its own lock's acquire and release, a
    /// steal, a park).
    #[inline(always)]
    pub fn record(&mut self, kind: Kind, arg: Option<u32>) {
        if let Some(r) = &mut self.trace {
            r.now(kind, arg);
        }
    }

    /// [`Ops::work`](herdlab_core::machine::steps::Ops::work), recording a `work` event only when `record` (an executor whose item of
    /// work spans several `work` calls, or whose `work` is no item, records its items itself).
    #[inline(always)]
    pub fn work_item(&mut self, ns: u64, record: bool) -> Result<(), NativeError> {
        self.counters.ops += 1;
        let world = self.world;
        // a plain load first: the stamp's line stays shared (and cheap) until an event is
        // stamped, so threads that never see events do not pass it back and forth
        if world.event_start.0.load(SeqCst) != 0 {
            let start = world.now_ns();
            let stamp = world.event_start.0.swap(0, SeqCst);
            if stamp != 0 {
                self.latencies.push(start.saturating_sub(stamp - 1));
            }
        }
        self.woken_since_work = false;
        if record {
            if let Some(r) = &mut self.trace {
                r.now(Kind::Work, None);
            }
        }
        // only this thread writes its slot's count: a load and a store, no locked RMW
        let items = &self.slot().work_items;
        items.store(items.load(Relaxed) + 1, Release);
        spin_for(ns);
        Ok(())
    }

    /// This thread's index in its world (its counter slot).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether this thread records (`--trace`).
    #[inline(always)]
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// The trace's clock now if recording (the start of a wait an executor makes itself), else 0.
    #[inline(always)]
    pub fn trace_clock(&self) -> u64 {
        self.trace_t0()
    }

    /// An executor's own wait (a real `epoll_wait`, a blocking `read`, a timed sleep) began at
    /// `t0` ([`Self::trace_clock`]) on `on` and woke now: a `sleep` and a `wake`.
    pub fn record_wait(&mut self, t0: u64, on: u32) {
        self.record_sleep(t0, on, false);
    }

    /// The trace's clock now if recording (the start of a wait), else 0.
    #[inline(always)]
    fn trace_t0(&self) -> u64 {
        if self.trace.is_some() {
            now_ns()
        } else {
            0
        }
    }

    /// A wait that began at `t0` slept on `on` and woke now (`wasted`: it was entered with no work
    /// since the last wakeup).
    fn record_sleep(&mut self, t0: u64, on: u32, wasted: bool) {
        if let Some(r) = &mut self.trace {
            if wasted {
                r.at(t0, Kind::Wasted, None);
            }
            r.at(t0, Kind::Sleep, Some(on));
            r.now(Kind::Wake, None);
        }
    }

    /// The world.
    pub fn world(&self) -> &'w NativeWorld {
        self.world
    }

    /// The counters so far.
    pub fn counters(&self) -> OpCounters {
        self.counters
    }

    /// Drop whatever the machine still holds (a mutex guard, a connection).
    pub fn release(&mut self) {
        self.conn = None;
        for g in self.guards.iter_mut() {
            *g = None;
        }
    }

    /// What the thread did so far (reads `ru_nvcsw` now: call it on the thread itself).
    pub fn report(&self) -> ThreadReport {
        let slot = self.world.slot(self.index);
        ThreadReport {
            index: self.index,
            tid: self.tid,
            ops: self.counters.ops,
            wakeups: slot.wakeups(),
            wasted_wakeups: slot.wasted(),
            work_items: slot.work_items(),
            nvcsw_start: self.nvcsw_start,
            nvcsw_end: sys::own_nvcsw(),
            latencies_ns: self.latencies.clone(),
            counters: self.counters,
        }
    }

    fn slot(&self) -> &'w ThreadSlot {
        self.world.slot(self.index)
    }

    fn check_abort(&self) -> Result<(), NativeError> {
        if self.world.aborted() {
            Err(NativeError::new(format!(
                "thread {} stopped: the run was aborted ({})",
                self.index,
                self.world.failure().unwrap_or_default()
            )))
        } else {
            Ok(())
        }
    }

    /// Entering a wait for work: a wakeup with no work since is wasted. Returns whether this entry
    /// counted one (to take it back if the wait does not sleep).
    fn enter_wait(&mut self) -> bool {
        let slot = self.slot();
        let wasted = self.woken_since_work;
        if wasted {
            slot.wasted.fetch_add(1, SeqCst);
            self.woken_since_work = false;
        }
        slot.wait_gen.fetch_add(1, SeqCst);
        slot.in_wait.store(true, SeqCst);
        wasted
    }

    fn leave_wait(&self) {
        self.slot().in_wait.store(false, SeqCst);
    }

    fn woken(&mut self) {
        self.slot().wakeups.fetch_add(1, SeqCst);
        self.woken_since_work = true;
    }

    fn mutex(&self, m: u8) -> Result<&'w Mutex<()>, NativeError> {
        self.world
            .mutexes
            .get(m as usize)
            .ok_or_else(|| NativeError::new(format!("mutex {m} does not exist")))
    }

    /// Execute one operation of a stepped machine and return its result: the one executor,
    /// `herdlab_core::machine::steps::exec`, over this thread's [`Ops`](herdlab_core::machine::steps::Ops) methods. `Op::AwaitEvent`
    /// is served by the thread's gate ([`NativeThread::with_gate`]); `Op::Exit` does nothing and
    /// returns `Done`. On an error the caller decides whether to fail the world ([`drive`] does).
    #[inline(always)]
    pub fn exec(&mut self, op: Op) -> Result<OpResult, NativeError> {
        super::exec(self, op)
    }

    #[inline(never)]
    fn sem_wait_slow(&mut self, s: SemId) -> Result<(), NativeError> {
        let sem = self.world.sem(s)?;
        self.check_abort()?;
        let t0 = self.trace_t0();
        match sem.wait(WAIT_TIMEOUT)? {
            SemOutcome::Took => {}
            SemOutcome::Slept => {
                self.counters.sem_sleeps += 1;
                self.record_sleep(t0, u32::from(s.0), false);
            }
            SemOutcome::TimedOut => {
                return Err(NativeError::new(format!(
                    "thread {}: sem_wait on semaphore {} slept past {} s",
                    self.index,
                    s.0,
                    WAIT_TIMEOUT.as_secs()
                )))
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn futex_wait_slow(&mut self, word: Word, expected: u32) -> Result<bool, NativeError> {
        self.check_abort()?;
        let a = self.world.word(word)?;
        let t0 = self.trace_t0();
        let counted = self.enter_wait();
        let r = futex_wait(a, expected, WAIT_TIMEOUT);
        self.leave_wait();
        match r? {
            WaitOutcome::Woken => {
                self.woken();
                self.counters.futex_sleeps += 1;
                self.record_sleep(t0, u32::from(word.0), counted);
                Ok(true)
            }
            WaitOutcome::Mismatch => {
                if let Some(r) = &mut self.trace {
                    r.at(t0, Kind::Eagain, None);
                }
                if counted {
                    self.slot().wasted.fetch_sub(1, SeqCst);
                    self.woken_since_work = true;
                }
                Ok(false)
            }
            // a signal: the thread did sleep (recorded as a sleep and a wake, so that every wait
            // the trace shows is a sleep or an EAGAIN); the machine re-checks the word, as after
            // any return
            WaitOutcome::Interrupted => {
                if let Some(r) = &mut self.trace {
                    r.at(t0, Kind::Sleep, Some(u32::from(word.0)));
                    r.now(Kind::Wake, None);
                }
                Ok(true)
            }
            WaitOutcome::TimedOut => Err(NativeError::new(format!(
                "thread {}: futex_wait on word {} slept past {} s",
                self.index,
                word.0,
                WAIT_TIMEOUT.as_secs()
            ))),
        }
    }

    #[inline(never)]
    fn cond_wait_slow(&mut self, cv: CondId, m: MutexId) -> Result<(), NativeError> {
        self.check_abort()?;
        self.mutex(m.0)?;
        let c = self
            .world
            .condvars
            .get(cv.0 as usize)
            .ok_or_else(|| NativeError::new(format!("condvar {} does not exist", cv.0)))?;
        let g = self.guards[m.0 as usize].take().ok_or_else(|| {
            NativeError::new(format!(
                "thread {} waited on condvar {} without holding mutex {}",
                self.index, cv.0, m.0
            ))
        })?;
        let t0 = self.trace_t0();
        let wasted = self.enter_wait();
        let (g, res) = c
            .wait_timeout(g, WAIT_TIMEOUT)
            .unwrap_or_else(PoisonError::into_inner);
        self.leave_wait();
        self.guards[m.0 as usize] = Some(g);
        if res.timed_out() {
            return Err(NativeError::new(format!(
                "thread {}: cv.wait slept past {} s",
                self.index,
                WAIT_TIMEOUT.as_secs()
            )));
        }
        self.woken();
        self.record_sleep(t0, u32::from(cv.0), wasted);
        Ok(())
    }

    /// The operations without a typed primitive: a blocking accept, the event gate, the exit.
    #[inline(never)]
    fn other_slow(&mut self, op: Op) -> Result<OpResult, NativeError> {
        let world = self.world;
        Ok(match op {
            Op::Accept(_) => {
                // the previous connection was handled: close it
                self.conn = None;
                self.check_abort()?;
                let l = world
                    .listener
                    .as_ref()
                    .ok_or_else(|| NativeError::new("Op::Accept in a world without a listener"))?;
                loop {
                    self.enter_wait();
                    let r = l.accept();
                    self.leave_wait();
                    match r {
                        Ok((s, _)) => {
                            self.conn = Some(s);
                            let id = world.conn_seq.fetch_add(1, SeqCst);
                            self.record(Kind::Accept, Some(id));
                            break OpResult::Conn(id);
                        }
                        Err(_) if world.listener_shut.load(SeqCst) => break OpResult::Closed,
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::Interrupted
                                    | std::io::ErrorKind::ConnectionAborted
                            ) =>
                        {
                            continue
                        }
                        Err(e) => {
                            return Err(NativeError::new(format!(
                                "thread {}: accept failed: {e}",
                                self.index
                            )))
                        }
                    }
                }
            }
            Op::AwaitEvent => match self.gate {
                Some(g) => g.await_event(world, self.index)?,
                None => {
                    return Err(NativeError::new(format!(
                        "thread {}: Op::AwaitEvent with no event gate",
                        self.index
                    )))
                }
            },
            Op::Sleep(ns) => {
                self.counters.sleeps += 1;
                super::sleep_ns(ns)?;
                OpResult::Done
            }
            Op::Exit => OpResult::Done,
            _ => {
                return Err(NativeError::new(format!(
                    "thread {}: {op:?} needs the event-driven world (platform/net.rs)",
                    self.index
                )))
            }
        })
    }
}

/// Whether this build can run the native platform; the error says why not.
pub fn supported() -> Result<(), NativeError> {
    sys::supported()
}

/// The scheduler state letter of a thread of this process (`R`, `S`, `D`, ...), from
/// `/proc/self/task/<tid>/stat`; `None` if it cannot be read.
pub fn thread_state(tid: i32) -> Option<char> {
    sys::thread_state(tid)
}

/// The voluntary context switches of a thread of this process so far, from
/// `/proc/self/task/<tid>/status`.
pub fn thread_nvcsw(tid: i32) -> Option<u64> {
    sys::thread_nvcsw(tid)
}

/// The calling thread's voluntary context switches so far (`getrusage(RUSAGE_THREAD)`'s
/// `ru_nvcsw`; 0 where unsupported).
pub fn own_nvcsw() -> u64 {
    sys::own_nvcsw()
}

#[cfg(target_os = "linux")]
mod sys {
    use super::NativeError;
    use std::net::TcpListener;
    use std::os::fd::AsRawFd;

    pub fn supported() -> Result<(), NativeError> {
        if std::path::Path::new("/proc/self/task").is_dir() {
            Ok(())
        } else {
            Err(NativeError::new(
                "the native platform reads /proc/self/task/<tid>/stat, and /proc is not mounted",
            ))
        }
    }

    pub fn gettid() -> i32 {
        // SAFETY: gettid(2) has no preconditions and cannot fail.
        unsafe { libc::gettid() }
    }

    pub fn own_nvcsw() -> u64 {
        let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `ru` is a writable rusage-sized buffer for the call; RUSAGE_THREAD asks for the
        // calling thread only. On failure (not expected) the zeroed buffer stays as it was.
        let r = unsafe { libc::getrusage(libc::RUSAGE_THREAD, ru.as_mut_ptr()) };
        if r != 0 {
            return 0;
        }
        // SAFETY: getrusage returned 0, so it filled the struct (it was zeroed before anyway, and
        // rusage is plain integers, for which all-zero bytes are a valid value).
        let ru = unsafe { ru.assume_init() };
        ru.ru_nvcsw as u64
    }

    pub fn thread_state(tid: i32) -> Option<char> {
        if tid <= 0 {
            return None;
        }
        let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
        // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'
        let rest = &s[s.rfind(')')? + 1..];
        rest.trim_start().chars().next()
    }

    pub fn thread_nvcsw(tid: i32) -> Option<u64> {
        if tid <= 0 {
            return None;
        }
        let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")).ok()?;
        s.lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse().ok())
    }

    pub fn shutdown(l: &TcpListener) {
        // SAFETY: the descriptor belongs to `l`, which is borrowed and so stays open for the call;
        // shutdown(2) does not close it (the listener still owns and later closes it).
        unsafe {
            libc::shutdown(l.as_raw_fd(), libc::SHUT_RDWR);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use super::NativeError;
    use std::net::TcpListener;

    fn unsupported() -> NativeError {
        NativeError::new(format!(
            "the native platform needs Linux (futex(2), RUSAGE_THREAD, /proc/self/task); this build is for {}",
            std::env::consts::OS
        ))
    }

    pub fn supported() -> Result<(), NativeError> {
        Err(unsupported())
    }

    pub fn gettid() -> i32 {
        0
    }

    pub fn own_nvcsw() -> u64 {
        0
    }

    pub fn thread_state(_: i32) -> Option<char> {
        None
    }

    pub fn thread_nvcsw(_: i32) -> Option<u64> {
        None
    }

    pub fn shutdown(_: &TcpListener) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use herdlab_core::op::{CondId, MutexId, SemId};

    fn world() -> NativeWorld {
        NativeWorld::new(WorldSpec {
            words: 2,
            mutexes: 1,
            condvars: 1,
            listener: false,
            sems: 0,
            packed: false,
            threads: 1,
        })
        .unwrap()
    }

    #[test]
    fn words_are_on_their_own_lines() {
        assert_eq!(std::mem::align_of::<Padded<AtomicU32>>(), 128);
        let w = world();
        let a = w.word(Word(0)).unwrap() as *const _ as usize;
        let b = w.word(Word(1)).unwrap() as *const _ as usize;
        assert_eq!(b - a, 128);
        assert!(w.word(Word(2)).is_err());
    }

    #[test]
    fn packed_words_share_a_line() {
        let w = NativeWorld::new(WorldSpec {
            words: 40,
            packed: true,
            threads: 1,
            ..WorldSpec::default()
        })
        .unwrap();
        let addr = |i: u16| w.word(Word(i)).unwrap() as *const _ as usize;
        assert_eq!(addr(0) % 128, 0);
        assert_eq!(addr(1) - addr(0), 4);
        assert_eq!(addr(2) - addr(0), 8);
        assert_eq!(addr(31) - addr(0), 124);
        // the 33rd word starts the next line
        assert_eq!(addr(32) - addr(0), 128);
        assert!(w.word(Word(40)).is_err());
    }

    #[test]
    fn swap_and_semaphore_ops() {
        let w = NativeWorld::new(WorldSpec {
            words: 1,
            sems: 1,
            threads: 1,
            ..WorldSpec::default()
        })
        .unwrap();
        assert_eq!(w.sem_value(SemId(0)), Some(0));
        assert_eq!(w.sem_value(SemId(1)), None);
        let mut m = Script {
            ops: vec![
                Op::Swap(Word(0), 7),
                Op::Swap(Word(0), 2),
                Op::SemPost(SemId(0)),
                Op::SemPost(SemId(0)),
                Op::SemWait(SemId(0)),
                Op::Pause,
                Op::Yield,
            ],
            at: 0,
            results: vec![],
        };
        let rep = drive(&w, 0, &mut m, None).unwrap();
        assert_eq!(
            m.results,
            vec![
                OpResult::Value(0),
                OpResult::Value(7),
                OpResult::Done,
                OpResult::Done,
                OpResult::Done,
                OpResult::Done,
                OpResult::Done,
            ]
        );
        assert_eq!(w.load(Word(0)), Some(2));
        // two posts, one taken: one unit left
        assert_eq!(w.sem_value(SemId(0)), Some(1));
        assert_eq!(rep.counters.sem_posts, 2);
        assert_eq!(rep.counters.sem_sleeps, 0, "a unit was there: no sleep");
        assert_eq!(rep.counters.pauses, 1);
        assert_eq!(rep.counters.yields, 1);
        assert_eq!(rep.counters.ops, 7);
        let mut m = Script {
            ops: vec![Op::SemPost(SemId(3))],
            at: 0,
            results: vec![],
        };
        assert!(drive(&w, 0, &mut m, None).is_err());
    }

    #[test]
    fn a_sem_wait_sleeps_until_posted_and_fail_releases_it() {
        let w = NativeWorld::new(WorldSpec {
            sems: 1,
            threads: 2,
            ..WorldSpec::default()
        })
        .unwrap();
        let t0 = Instant::now();
        std::thread::scope(|s| {
            let h = s.spawn(|| {
                let mut m = Script {
                    ops: vec![Op::SemWait(SemId(0))],
                    at: 0,
                    results: vec![],
                };
                drive(&w, 0, &mut m, None).map(|r| (r, m.results))
            });
            // wait until the waiter sleeps in the kernel, then post
            while !(w.slot(0).tid() != 0 && thread_state(w.slot(0).tid()) == Some('S')) {
                assert!(t0.elapsed() < Duration::from_secs(10), "never slept");
                std::thread::sleep(Duration::from_millis(1));
            }
            let mut poster = Script {
                ops: vec![Op::SemPost(SemId(0))],
                at: 0,
                results: vec![],
            };
            drive(&w, 1, &mut poster, None).unwrap();
            let (rep, results) = h.join().unwrap().unwrap();
            assert_eq!(results, vec![OpResult::Done]);
            assert_eq!(rep.counters.sem_sleeps, 1);
        });
        assert_eq!(w.sem_value(SemId(0)), Some(0));
        // a sleeper released by fail
        std::thread::scope(|s| {
            let h = s.spawn(|| {
                let mut m = Script {
                    ops: vec![Op::SemWait(SemId(0)), Op::SemWait(SemId(0))],
                    at: 0,
                    results: vec![],
                };
                drive(&w, 0, &mut m, None)
            });
            while thread_state(w.slot(0).tid()) != Some('S') {
                assert!(t0.elapsed() < Duration::from_secs(10), "never slept");
                std::thread::sleep(Duration::from_millis(1));
            }
            w.fail("test");
            // the first wait returns (posted), the second refuses: the run was aborted
            let e = h.join().unwrap().unwrap_err();
            assert!(e.0.contains("aborted"), "{e}");
        });
        assert!(t0.elapsed() < WAIT_TIMEOUT);
    }

    /// A tiny machine that runs a fixed list of ops and records the results.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Script {
        ops: Vec<Op>,
        at: usize,
        results: Vec<OpResult>,
    }

    impl Machine for Script {
        fn next_op(&self) -> Op {
            self.ops.get(self.at).copied().unwrap_or(Op::Exit)
        }
        fn complete(&mut self, r: OpResult) {
            self.results.push(r);
            self.at += 1;
        }
        fn line(&self) -> u16 {
            1
        }
        fn listing(&self) -> &'static [&'static str] {
            &["script"]
        }
    }

    #[test]
    fn atomics_futex_mismatch_and_mutex() {
        let w = world();
        let mut m = Script {
            ops: vec![
                Op::Store(Word(0), 5),
                Op::FetchAdd(Word(0), 2),
                Op::Cas {
                    word: Word(0),
                    expected: 7,
                    new: 1,
                },
                Op::Cas {
                    word: Word(0),
                    expected: 7,
                    new: 2,
                },
                Op::Load(Word(0)),
                Op::FutexWait {
                    word: Word(0),
                    expected: 0,
                },
                Op::FutexWake(Word(0), WakeCount::All),
                Op::MutexLock(MutexId(0)),
                Op::MutexUnlock(MutexId(0)),
                Op::Work(1000),
                Op::Now,
            ],
            at: 0,
            results: vec![],
        };
        let rep = drive(&w, 0, &mut m, None).unwrap();
        assert_eq!(
            &m.results[..9],
            &[
                OpResult::Done,
                OpResult::Value(5),
                OpResult::Cas {
                    ok: true,
                    actual: 7
                },
                // the one executor (core's `exec`) answers a failed cas with `actual` 0, as on
                // every platform (no machine reads it); the load after it reads the word: 1
                OpResult::Cas {
                    ok: false,
                    actual: 0
                },
                OpResult::Value(1),
                OpResult::Mismatch,
                OpResult::Value(0),
                OpResult::Done,
                OpResult::Done,
            ]
        );
        assert!(matches!(m.results[10], OpResult::Time(_)));
        assert_eq!(rep.wakeups, 0);
        assert_eq!(rep.work_items, 1);
        assert!(rep.tid > 0);
    }

    #[test]
    fn protocol_errors_fail_the_world() {
        let w = world();
        let mut m = Script {
            ops: vec![Op::MutexUnlock(MutexId(0))],
            at: 0,
            results: vec![],
        };
        let e = drive(&w, 0, &mut m, None).unwrap_err();
        assert!(e.0.contains("does not hold"), "{e}");
        assert!(w.aborted());
        let mut m = Script {
            ops: vec![Op::CondWait(CondId(0), MutexId(0))],
            at: 0,
            results: vec![],
        };
        assert!(drive(&world(), 0, &mut m, None).is_err());
        let mut m = Script {
            ops: vec![Op::AwaitEvent],
            at: 0,
            results: vec![],
        };
        assert!(drive(&world(), 0, &mut m, None).is_err());
    }

    #[test]
    fn fail_releases_every_wait() {
        let w = NativeWorld::new(WorldSpec {
            words: 1,
            mutexes: 1,
            condvars: 1,
            listener: true,
            sems: 0,
            packed: false,
            threads: 3,
        })
        .unwrap();
        let scripts = [
            vec![Op::FutexWait {
                word: Word(0),
                expected: 0,
            }],
            vec![
                Op::MutexLock(MutexId(0)),
                Op::CondWait(CondId(0), MutexId(0)),
            ],
            vec![Op::Accept(herdlab_core::op::ListenerId(0))],
        ];
        let t0 = Instant::now();
        std::thread::scope(|s| {
            let hs: Vec<_> = scripts
                .into_iter()
                .enumerate()
                .map(|(i, ops)| {
                    let w = &w;
                    s.spawn(move || {
                        let mut m = Script {
                            ops,
                            at: 0,
                            results: vec![],
                        };
                        let r = drive(w, i, &mut m, None);
                        (r, m.results)
                    })
                })
                .collect();
            // wait until all three are inside their waits, then fail the world
            while !(0..3).all(|i| w.slot(i).in_wait() && thread_state(w.slot(i).tid()) == Some('S'))
            {
                assert!(
                    t0.elapsed() < Duration::from_secs(10),
                    "threads never slept"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            w.fail("test");
            let rs: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
            // the futex and condvar waiters return (woken) and the driver finishes their script;
            // the accept returns Closed after the shutdown
            assert_eq!(rs[0].1, vec![OpResult::Woken]);
            assert_eq!(rs[1].1, vec![OpResult::Done, OpResult::Woken]);
            assert_eq!(rs[2].1, vec![OpResult::Closed]);
        });
        assert!(t0.elapsed() < WAIT_TIMEOUT);
        assert_eq!(w.failure().as_deref(), Some("test"));
    }

    /// The same operations through a [`Hot`] view and through the thread itself: the same results,
    /// the same words changed and, once the view is dropped, the same counters; a word past those
    /// at hand goes to the thread's checked path (an error where it does not exist).
    #[test]
    fn a_hot_view_counts_and_answers_as_the_thread() {
        use herdlab_core::machine::steps::Ops;
        fn script<P: Ops<Error = NativeError>>(p: &mut P) -> Vec<u64> {
            let mut out = vec![];
            out.push(u64::from(p.load(Word(0)).unwrap()));
            p.store(Word(0), 5).unwrap();
            out.push(u64::from(p.cas(Word(0), 5, 7).unwrap()));
            out.push(u64::from(p.cas(Word(0), 5, 9).unwrap()));
            out.push(u64::from(p.fetch_add(Word(1), 3).unwrap()));
            out.push(u64::from(p.swap(Word(1), 11).unwrap()));
            // word 2: not at hand in a view of two words, through the thread
            out.push(u64::from(p.fetch_add(Word(2), 1).unwrap()));
            out.push(u64::from(p.cas(Word(2), 0, 1).unwrap()));
            p.pause().unwrap();
            p.pause().unwrap();
            p.sched_yield().unwrap();
            out.push(u64::from(p.load(Word(3)).is_err()));
            out
        }
        let spec = WorldSpec {
            words: 3,
            threads: 1,
            ..WorldSpec::default()
        };
        let (a, b) = (
            NativeWorld::new(spec).unwrap(),
            NativeWorld::new(spec).unwrap(),
        );
        let mut plain = NativeThread::new(&a, 0).unwrap();
        let want = script(&mut plain);
        let mut th = NativeThread::new(&b, 0).unwrap();
        let words = th.words::<2>().unwrap();
        let got = {
            let mut hot = Hot::new(&mut th, words);
            script(&mut hot)
        };
        assert_eq!(got, want);
        assert_eq!(want, vec![0, 1, 0, 0, 3, 0, 0, 1]);
        for i in 0..3 {
            assert_eq!(b.load(Word(i)), a.load(Word(i)), "word {i}");
        }
        assert_eq!(th.counters(), plain.counters());
        assert_eq!(
            (
                th.counters().ops,
                th.counters().cas_failures,
                th.counters().pauses
            ),
            (12, 2, 2)
        );
        // the words are checked once, when resolved
        assert!(th.words::<3>().is_ok());
        let e = th.words::<4>().unwrap_err();
        assert!(e.0.contains("word 3 does not exist"), "{e}");
    }

    #[test]
    fn proc_readers_see_this_thread() {
        let tid = sys::gettid();
        assert_eq!(thread_state(tid), Some('R'));
        assert!(thread_nvcsw(tid).is_some());
        assert_eq!(thread_state(-1), None);
    }
}
