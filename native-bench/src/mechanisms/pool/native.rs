//! nginx's thread pool on real threads: core's pool tables (the event loop and the pool threads)
//! in their straight-line form (`run<P: Ops>`) through the native platform, and the rival pools
//! (threadpool, rayon, a crossbeam-channel pool) fed the same tasks.
//!
//! The event loop runs on a [`LoopOps`]: the loop thread's `NativeThread` with the request
//! source (`await_event`: the next request, or none) and the harness's clocks around it. Every
//! other operation goes straight to the `NativeThread`; the algorithm is core's tables, not a copy.
//! The harness only watches words the tables write: the post's `event.active = 1` (P4) stamps
//! the task's post time, a pool thread's read of `task->next` (W4, the dequeue) ends the task's
//! wait, the completion handler's `event.active = 0` (C4) ends the task.

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use herdlab_core::machine::steps::Ops;
use herdlab_core::mechanisms::pool::machine::{words, CACHE_NS, MAX_SLOTS};
use herdlab_core::mechanisms::pool::{
    active_of, next_of, EventLoop, PoolParams, PoolThread, Wake, NOTIFY,
};
use herdlab_core::op::{CondId, MutexId, OpResult, SemId, WakeCount, Word};
use herdlab_core::sim::arrivals::ArrivalPattern;

use crate::platform::limits::{catch_start, probe_threads};
use crate::platform::mem::spin_for;
use crate::platform::native::NativeThread;
use crate::platform::scratch::ScratchFile;
use crate::platform::{NativeError, NativeWorld, WorldSpec, WAIT_TIMEOUT};

/// The most pool threads a bench row may have.
pub const MAX_THREADS: u32 = 64;

/// How requests reach the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feed {
    /// As fast as the loop takes them, at most `window` tasks outstanding (posted, not yet
    /// completed on the loop): a client with `window` connections.
    Window(u32),
    /// One at a time, each once every pool thread sleeps in `cond_wait` and nothing is in flight
    /// (the idle pool: how many threads one post wakes).
    Idle,
    /// At a steady rate (requests per second), whatever the loop is doing.
    Rate(u32),
}

/// What a blocking read is on real threads.
#[derive(Clone, Copy, Debug)]
pub enum Handler<'f> {
    /// Spin for the task time (a CPU-bound task).
    Spin,
    /// Sleep for the task time (a read that waits on the disk, without a disk).
    Sleep,
    /// One blocking `pread(2)` of a 4 KiB block of a scratch file (the task time is not used).
    File(&'f ScratchFile),
}

impl Handler<'_> {
    /// The row's `task`: `spin`, `sleep` or `file`.
    pub fn name(&self) -> &'static str {
        match self {
            Handler::Spin => "spin",
            Handler::Sleep => "sleep",
            Handler::File(_) => "file",
        }
    }

    /// Run one task of `ns`.
    fn run(&self, ns: u64) -> Result<(), NativeError> {
        match self {
            Handler::Spin => spin_for(ns),
            Handler::Sleep => std::thread::sleep(Duration::from_nanos(ns)),
            Handler::File(f) => {
                f.read_next()
                    .map_err(|e| NativeError(format!("pread of the scratch file failed: {e}")))?;
            }
        }
        Ok(())
    }
}

/// What one native pool run measured.
#[derive(Clone, Debug, Default)]
pub struct PoolRun {
    /// Requests the loop took.
    pub requests: u32,
    /// Tasks posted (exit tasks not counted).
    pub tasks_posted: u64,
    /// Tasks completed on the event loop.
    pub tasks_done: u64,
    /// Tasks that ran a handler on a pool thread.
    pub tasks_run: u64,
    /// Wall time from the first request to the last completion, ns.
    pub wall_ns: u64,
    /// Pool threads' wakeups from `cond_wait` (the platform's counters; the destroy's included).
    pub wakeups: u64,
    /// Of those, wakeups after which the thread waited again without running a task.
    pub wasted: u64,
    /// Pool threads' voluntary context switches (`ru_nvcsw`).
    pub nvcsw: u64,
    /// Per task, post to dequeue, ns.
    pub waits_ns: Vec<u64>,
    /// Per cache hit, arrival to response served, ns (rate feed only).
    pub cache_ns: Vec<u64>,
}

/// The harness's state shared by the loop and the pool threads.
struct Watch {
    post_ns: Vec<AtomicU64>,
    /// word index -> task id, for the `next` words.
    next_task: Vec<u32>,
    active_task: Vec<u32>,
}

impl Watch {
    fn new(slots: u32) -> Self {
        let n = words(slots) as usize;
        let mut next_task = vec![0; n];
        let mut active_task = vec![0; n];
        for k in 1..=slots + 1 {
            next_task[next_of(k).0 as usize] = k;
            active_task[active_of(k).0 as usize] = k;
        }
        Watch {
            post_ns: (0..slots + 2).map(|_| AtomicU64::new(0)).collect(),
            next_task,
            active_task,
        }
    }
}

/// The event loop's platform: its `NativeThread`, the request feed and the clocks.
pub struct LoopOps<'w> {
    inner: NativeThread<'w>,
    world: &'w NativeWorld,
    watch: &'w Watch,
    feed: Feed,
    exit_task: u32,
    pool_threads: usize,
    left: u32,
    taken: u32,
    in_flight: u32,
    posted: u64,
    done: u64,
    start: Option<u64>,
    last_done: u64,
    arrival: u64,
    cache_ns: Vec<u64>,
    /// What a blocking read on the loop itself (offload off, rate feed) does.
    inline: Handler<'w>,
}

impl LoopOps<'_> {
    fn clock(&self) -> u64 {
        self.world.now_ns()
    }

    /// Wait until every pool thread sleeps in `cond_wait`: each is inside its wait and no wakeup
    /// came in for 100 µs (a thread woken by a broadcast is still "in its wait" while it queues
    /// for the mutex, so the flags alone would let the next post reach it).
    fn all_idle(&self) -> Result<(), NativeError> {
        let t0 = Instant::now();
        let woken = || -> u64 {
            (1..=self.pool_threads)
                .map(|i| self.world.slot(i).wakeups())
                .sum()
        };
        loop {
            let before = woken();
            if (1..=self.pool_threads).all(|i| self.world.slot(i).in_wait()) {
                std::thread::sleep(Duration::from_micros(100));
                if woken() == before
                    && (1..=self.pool_threads).all(|i| self.world.slot(i).in_wait())
                {
                    return Ok(());
                }
            } else {
                std::thread::yield_now();
            }
            if t0.elapsed() > WAIT_TIMEOUT {
                return Err(NativeError(
                    "the pool threads never all went idle".to_string(),
                ));
            }
        }
    }

    /// Sleep on the eventfd word until a pool thread notifies.
    fn await_notify(&mut self) -> Result<(), NativeError> {
        if self.world.load(NOTIFY) == Some(0) {
            self.inner.futex_wait(NOTIFY, 0)?;
        }
        Ok(())
    }
}

impl Ops for LoopOps<'_> {
    type Error = NativeError;
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        self.inner.load(w)
    }
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        let k = self
            .watch
            .active_task
            .get(w.0 as usize)
            .copied()
            .unwrap_or(0);
        if k != 0 && k != self.exit_task {
            if v == 1 {
                self.watch.post_ns[k as usize].store(self.clock(), SeqCst);
                self.in_flight += 1;
                self.posted += 1;
            } else {
                self.in_flight = self.in_flight.saturating_sub(1);
                self.done += 1;
                self.last_done = self.clock();
            }
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
        self.inner.futex_wait(w, e)
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
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
        if ns != CACHE_NS && matches!(self.feed, Feed::Rate(_)) {
            // a blocking read on the loop itself (offload off) blocks it: a sleep or a pread
            self.inner.work(0)?;
            return self.inline.run(ns);
        }
        self.inner.work(ns)?;
        if ns == CACHE_NS && matches!(self.feed, Feed::Rate(_)) {
            let now = self.clock();
            self.cache_ns.push(now.saturating_sub(self.arrival));
        }
        Ok(())
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
    fn other(&mut self, op: herdlab_core::op::Op) -> Result<OpResult, NativeError> {
        self.inner.other(op)
    }
    fn await_event(&mut self) -> Result<bool, NativeError> {
        if self.left == 0 {
            return Ok(false);
        }
        match self.feed {
            Feed::Window(w) => {
                while self.in_flight >= w {
                    // the completions come in at the loop's next poll: wait for a notify
                    self.await_notify()?;
                    if self.world.load(NOTIFY) != Some(0) {
                        break;
                    }
                }
            }
            Feed::Idle => {
                // the previous task has notified (the loop completes it at its next poll), and
                // every pool thread sleeps in cond_wait again
                while self.in_flight > 0 && self.world.load(NOTIFY) == Some(0) {
                    self.await_notify()?;
                }
                self.all_idle()?;
            }
            Feed::Rate(r) => {
                let gap = 1_000_000_000 / r.max(1) as u64;
                let due = self.start.unwrap_or_else(|| self.clock()) + self.taken as u64 * gap;
                let now = self.clock();
                if due > now {
                    let d = due - now;
                    if d > 200_000 {
                        std::thread::sleep(Duration::from_nanos(d - 100_000));
                    }
                    let now = self.clock();
                    spin_for(due.saturating_sub(now));
                }
                self.arrival = due;
            }
        }
        self.next_request()
    }
}

impl LoopOps<'_> {
    fn next_request(&mut self) -> Result<bool, NativeError> {
        if self.start.is_none() {
            self.start = Some(self.clock());
            if let Feed::Rate(_) = self.feed {
                self.arrival = self.start.unwrap_or(0);
            }
        }
        self.left -= 1;
        self.taken += 1;
        Ok(true)
    }
}

/// A pool thread's platform: its `NativeThread`, and the dequeue clock.
struct ThreadOps<'w> {
    inner: NativeThread<'w>,
    world: &'w NativeWorld,
    watch: &'w Watch,
    exit_task: u32,
    waits: Vec<u64>,
    runs: u64,
    /// What the task's handler does.
    handler: Handler<'w>,
}

impl Ops for ThreadOps<'_> {
    type Error = NativeError;
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        let k = self.watch.next_task.get(w.0 as usize).copied().unwrap_or(0);
        if k != 0 && k != self.exit_task {
            // W4: the dequeue of task k reads its `next`
            let posted = self.watch.post_ns[k as usize].load(SeqCst);
            self.waits.push(self.world.now_ns().saturating_sub(posted));
            self.runs += 1;
        }
        self.inner.load(w)
    }
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
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
        self.inner.futex_wait(w, e)
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
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
        match self.handler {
            // the platform's own spin, as every other `work`
            Handler::Spin => self.inner.work(ns),
            h => {
                self.inner.work(0)?;
                h.run(ns)
            }
        }
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
    fn other(&mut self, op: herdlab_core::op::Op) -> Result<OpResult, NativeError> {
        self.inner.other(op)
    }
}

/// The core scenario a native run follows: `threads` pool threads, `requests` requests of which
/// `blocking_pct` percent are tasks of `task_ns` (0: an empty handler), offloaded or read on the
/// loop, woken by signal or broadcast.
pub fn scenario(
    threads: u32,
    requests: u32,
    task_ns: u64,
    blocking_pct: u32,
    offload: bool,
    wake: Wake,
) -> PoolParams {
    PoolParams {
        threads,
        requests,
        task_us: (task_ns / 1000).max(1) as u32,
        blocking_pct,
        offload,
        wake,
        slots: MAX_SLOTS,
        arrival: ArrivalPattern::Steady,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()) as u32,
        ..PoolParams::default()
    }
}

/// Run core's pool tables on real threads: the event loop on the calling thread's helper, `T` pool
/// threads, `feed` delivering `p.requests` requests. `task_ns` overrides the handler's time (the
/// scenario's `task_us` cannot say 0); `handler` is what a blocking read does, on a pool thread or
/// (offload off, rate feed) on the loop.
pub fn run_nginx(
    p: &PoolParams,
    task_ns: u64,
    feed: Feed,
    handler: Handler<'_>,
) -> Result<PoolRun, NativeError> {
    let mut cfg = p.config();
    cfg.task_ns = task_ns;
    let threads = cfg.threads as usize;
    let world = NativeWorld::new(WorldSpec {
        words: words(cfg.slots).into(),
        mutexes: 1,
        condvars: 1,
        sems: 0,
        listener: false,
        threads: threads + 1,
        packed: false,
    })?;
    let watch = Watch::new(cfg.slots);
    let exit_task = cfg.exit_task();
    let world = &world;
    let watch = &watch;
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for i in 1..=threads {
            let spawned = std::thread::Builder::new().spawn_scoped(
                s,
                move || -> Result<(u64, u64, Vec<u64>), NativeError> {
                    let inner = NativeThread::new(world, i)?;
                    let mut ops = ThreadOps {
                        inner,
                        world,
                        watch,
                        exit_task,
                        waits: Vec::new(),
                        runs: 0,
                        handler,
                    };
                    let mut t = PoolThread::new(cfg);
                    let r = t.run(&mut ops);
                    ops.inner.release();
                    if let Err(e) = r {
                        world.fail(&e.0);
                        return Err(e);
                    }
                    let rep = ops.inner.report();
                    Ok((
                        ops.runs,
                        rep.nvcsw_end.saturating_sub(rep.nvcsw_start),
                        ops.waits,
                    ))
                },
            );
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // the started threads leave at their next wait, and are joined
                    let e = with_hint(format!("cannot start pool thread {i} of {threads}: {e}"));
                    world.fail(&e.0);
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(e);
                }
            }
        }
        // the event loop runs on the calling thread
        let lp = (|| -> Result<LoopOps<'_>, NativeError> {
            let inner = NativeThread::new(world, 0)?;
            let mut ops = LoopOps {
                inner,
                world,
                watch,
                feed,
                exit_task,
                pool_threads: threads,
                left: p.requests,
                taken: 0,
                in_flight: 0,
                posted: 0,
                done: 0,
                start: None,
                last_done: 0,
                arrival: 0,
                cache_ns: Vec::new(),
                inline: handler,
            };
            let mut e = EventLoop::new(cfg);
            let r = e.run(&mut ops);
            ops.inner.release();
            if let Err(err) = r {
                world.fail(&err.0);
                return Err(err);
            }
            Ok(ops)
        })();
        let lp = match lp {
            Ok(lp) => lp,
            Err(e) => {
                for h in handles {
                    let _ = h.join();
                }
                return Err(e);
            }
        };
        let mut run = PoolRun {
            requests: lp.taken,
            tasks_posted: lp.posted,
            tasks_done: lp.done,
            wall_ns: lp.last_done.saturating_sub(lp.start.unwrap_or(0)).max(1),
            cache_ns: lp.cache_ns,
            ..PoolRun::default()
        };
        for h in handles {
            let (runs, nvcsw, waits) = h
                .join()
                .map_err(|_| NativeError("a pool thread panicked".to_string()))??;
            run.tasks_run += runs;
            run.nvcsw += nvcsw;
            run.waits_ns.extend(waits);
        }
        for i in 1..=threads {
            run.wakeups += world.slot(i).wakeups();
            run.wasted += world.slot(i).wasted();
        }
        Ok(run)
    })
}

// ----- the rivals -----

/// A rival pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rival {
    /// The `threadpool` crate (a mutex-protected channel, workers blocking on it).
    Threadpool,
    /// `rayon::ThreadPool::spawn` (work-stealing deques, sleeping workers).
    Rayon,
    /// T workers blocking on a `crossbeam-channel` receiver.
    Crossbeam,
}

impl Rival {
    /// Every rival.
    pub const ALL: [Rival; 3] = [Rival::Threadpool, Rival::Rayon, Rival::Crossbeam];

    /// The row's `pool` name.
    pub fn name(self) -> &'static str {
        match self {
            Rival::Threadpool => "threadpool",
            Rival::Rayon => "rayon",
            Rival::Crossbeam => "crossbeam",
        }
    }
}

/// The submitter's side of the window: completions counted, the submitter asleep while `window`
/// tasks are outstanding.
struct Done {
    count: AtomicU64,
    waiting: AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Done {
    fn finish(&self) {
        self.count.fetch_add(1, SeqCst);
        if self.waiting.load(SeqCst) {
            let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.cv.notify_one();
        }
    }

    fn wait_below(&self, submitted: u64, window: u64) {
        while submitted - self.count.load(SeqCst) >= window {
            let g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.waiting.store(true, SeqCst);
            if submitted - self.count.load(SeqCst) >= window {
                let _ = self.cv.wait_timeout(g, Duration::from_millis(1));
            }
            self.waiting.store(false, SeqCst);
        }
    }
}

/// Voluntary context switches of the whole process so far (`getrusage(RUSAGE_SELF)`: every
/// thread, the exited ones included).
pub fn process_nvcsw() -> u64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is a writable rusage-sized buffer; RUSAGE_SELF asks for the whole process.
    let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) };
    if r != 0 {
        return 0;
    }
    // SAFETY: getrusage returned 0 and filled the (zeroed, plain-integer) struct.
    let ru = unsafe { ru.assume_init() };
    ru.ru_nvcsw as u64
}

/// Voluntary context switches of the calling thread (`RUSAGE_THREAD`).
pub fn own_nvcsw() -> u64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: as in `process_nvcsw`; RUSAGE_THREAD asks for the calling thread only.
    let r = unsafe { libc::getrusage(libc::RUSAGE_THREAD, ru.as_mut_ptr()) };
    if r != 0 {
        return 0;
    }
    // SAFETY: getrusage returned 0 and filled the (zeroed, plain-integer) struct.
    let ru = unsafe { ru.assume_init() };
    ru.ru_nvcsw as u64
}

/// `msg` with the hint of the limit it ran into, if any (the thread limit), in its text: the pool
/// bench reports an error's text, not its `Display`.
fn with_hint(msg: String) -> NativeError {
    NativeError(NativeError(msg).to_string())
}

/// The `threadpool` crate's pool of `threads` threads. `ThreadPool::new` spawns them on this
/// thread and panics inside the crate when one cannot start (`unwrap` of the spawn's error; the
/// ones it started then find its channel closed and end). So: first a probe of as many threads
/// that all exist at once ([`probe_threads`]), which names the limit as the other rivals do; then
/// the pool, its panic caught (with the panic hook silenced meanwhile) and reported the same way,
/// for a limit reached between the two (another program of this user starting threads).
fn start_threadpool(threads: u32) -> Result<threadpool::ThreadPool, NativeError> {
    if let Err((i, e)) = probe_threads(threads) {
        return Err(with_hint(format!(
            "cannot start threadpool's thread {i} of {threads}: {e}"
        )));
    }
    catch_start(|| threadpool::ThreadPool::new(threads as usize))
        .map_err(|e| with_hint(format!("cannot start threadpool's {threads} threads: {e}")))
}

/// Run `tasks` tasks of `task_ns` (spinning, or one `pread` each of `file`) on a rival pool of
/// `threads` workers, at most `window` outstanding. Wakeups are the process's voluntary context
/// switches during the run minus the submitting thread's own (each sleep of a worker ends in one
/// wakeup).
pub fn run_rival(
    rival: Rival,
    threads: u32,
    tasks: u32,
    task_ns: u64,
    window: u32,
    file: Option<Arc<ScratchFile>>,
) -> Result<PoolRun, NativeError> {
    let failed = Arc::new(Mutex::new(None::<String>));
    let done = Arc::new(Done {
        count: AtomicU64::new(0),
        waiting: AtomicBool::new(false),
        lock: Mutex::new(()),
        cv: Condvar::new(),
    });
    let waits = Arc::new(Mutex::new(Vec::with_capacity(tasks as usize)));
    let epoch = Instant::now();
    let job = {
        let done = done.clone();
        let waits = waits.clone();
        let failed = failed.clone();
        move |posted: u64| {
            let w = (epoch.elapsed().as_nanos() as u64).saturating_sub(posted);
            match &file {
                None => spin_for(task_ns),
                Some(f) => {
                    if let Err(e) = f.read_next() {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(format!("pread of the scratch file failed: {e}"));
                    }
                }
            }
            waits.lock().unwrap_or_else(|e| e.into_inner()).push(w);
            done.finish();
        }
    };
    enum P {
        Tp(threadpool::ThreadPool),
        Ry(rayon::ThreadPool),
        Cb(
            Option<crossbeam_channel::Sender<u64>>,
            Vec<std::thread::JoinHandle<()>>,
        ),
    }
    let pool = match rival {
        Rival::Threadpool => P::Tp(start_threadpool(threads)?),
        Rival::Rayon => P::Ry(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads as usize)
                .build()
                .map_err(|e| with_hint(format!("cannot start rayon's {threads} threads: {e}")))?,
        ),
        Rival::Crossbeam => {
            let (tx, rx) = crossbeam_channel::unbounded::<u64>();
            let mut hs = Vec::with_capacity(threads as usize);
            for i in 0..threads {
                let rx = rx.clone();
                let job = job.clone();
                let h = std::thread::Builder::new().spawn(move || {
                    while let Ok(posted) = rx.recv() {
                        job(posted);
                    }
                });
                match h {
                    Ok(h) => hs.push(h),
                    Err(e) => {
                        // the started threads see the channel close, and are joined
                        drop(tx);
                        for h in hs {
                            let _ = h.join();
                        }
                        return Err(with_hint(format!(
                            "cannot start crossbeam's thread {i} of {threads}: {e}"
                        )));
                    }
                }
            }
            P::Cb(Some(tx), hs)
        }
    };
    // let the workers start and settle before counting
    std::thread::sleep(Duration::from_millis(5));
    let nv0 = process_nvcsw();
    let own0 = own_nvcsw();
    let t0 = Instant::now();
    for i in 0..tasks as u64 {
        done.wait_below(i, window.max(1) as u64);
        let posted = epoch.elapsed().as_nanos() as u64;
        match &pool {
            P::Tp(tp) => {
                let job = job.clone();
                tp.execute(move || job(posted));
            }
            P::Ry(ry) => {
                let job = job.clone();
                ry.spawn(move || job(posted));
            }
            P::Cb(tx, _) => {
                if let Some(tx) = tx {
                    let _ = tx.send(posted);
                }
            }
        }
    }
    done.wait_below(tasks as u64, 1);
    let wall_ns = (t0.elapsed().as_nanos() as u64).max(1);
    let nvcsw = process_nvcsw()
        .saturating_sub(nv0)
        .saturating_sub(own_nvcsw().saturating_sub(own0));
    match pool {
        P::Tp(tp) => tp.join(),
        P::Ry(ry) => drop(ry),
        P::Cb(mut tx, hs) => {
            tx.take();
            for h in hs {
                let _ = h.join();
            }
        }
    }
    let n = done.count.load(Relaxed);
    let waits = std::mem::take(&mut *waits.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some(e) = failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(NativeError(e));
    }
    Ok(PoolRun {
        requests: tasks,
        tasks_posted: tasks as u64,
        tasks_done: n,
        tasks_run: n,
        wall_ns,
        wakeups: nvcsw,
        wasted: 0,
        nvcsw,
        waits_ns: waits,
        cache_ns: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_os_error_of_an_unwrap_panic_is_found() {
        use crate::platform::limits::os_error_of;
        let p = "called `Result::unwrap()` on an `Err` value: Os { code: 11, kind: WouldBlock, \
                 message: \"Resource temporarily unavailable\" }";
        let e = os_error_of(p).unwrap();
        assert_eq!(e.raw_os_error(), Some(libc::EAGAIN));
        assert!(os_error_of("called `Option::unwrap()` on a `None` value").is_none());
        assert!(os_error_of("Os { code: x").is_none());
    }

    #[test]
    fn a_probe_of_threads_that_can_start_joins_them_all() {
        assert!(probe_threads(8).is_ok());
        let pool = start_threadpool(3).unwrap();
        assert_eq!(pool.max_count(), 3);
        let done = Arc::new(AtomicU64::new(0));
        for _ in 0..10 {
            let d = done.clone();
            pool.execute(move || {
                d.fetch_add(1, SeqCst);
            });
        }
        pool.join();
        assert_eq!(done.load(SeqCst), 10);
    }
}
