//! The pool's threads as step tables: the event loop ([`Loop`]), a pool thread ([`Cycle`]), the
//! done-list spinlock both of them take ([`Spin`], `ngx_spinlock`) and the spurious-wakeup injector
//! ([`Inject`]); [`PoolActor`] is the one [`Machine`] type the simulator steps.
//!
//! The module docs of [`crate::mechanisms::pool`] give the states, the invariants and the sources.

use serde::{Deserialize, Serialize};

use crate::machine::steps::{Next, Ops, Stopped};
use crate::machine::Machine;
use crate::op::{CondId, MutexId, Op, OpResult, WakeCount, Word};

/// `tp->waiting`: queued tasks minus threads ready to take one (read as `i32`; guarded by [`MTX`]).
pub const WAITING: Word = Word(0);
/// `tp->queue.first`: the id of the first queued task, 0 for NULL.
pub const FIRST: Word = Word(1);
/// `tp->queue.last`: the index of the word to write on the next append (`&first` or `&tail->next`).
pub const LAST: Word = Word(2);
/// `ngx_thread_pool_done.first`.
pub const DONE_FIRST: Word = Word(3);
/// `ngx_thread_pool_done.last`.
pub const DONE_LAST: Word = Word(4);
/// `ngx_thread_pool_done_lock`: the spinlock word of the done list.
pub const DONE_LOCK: Word = Word(5);
/// The eventfd's counter (`ngx_notify` writes 1; the event loop reads and clears it).
pub const NOTIFY: Word = Word(6);
/// The destroy's `volatile ngx_uint_t lock` on its stack: 1 while an exit task is out.
pub const EXIT_LOCK: Word = Word(7);
/// The shutdown flag of the broken `shutdown-flag` variant (nginx has none).
pub const SHUTDOWN: Word = Word(8);
/// The first task word: task `k` (1-based) has its `next` at `TASK_BASE + 2(k-1)` and its
/// `event.active` right after.
pub const TASK_BASE: u8 = 9;
/// The most task objects (the event loop's connections' tasks) a scenario may have.
pub const MAX_SLOTS: u32 = 100;
/// `tp->mtx`.
pub const MTX: MutexId = MutexId(0);
/// `tp->cond`.
pub const COND: CondId = CondId(0);
/// How long serving a cached response takes on the event loop (a page-cache hit, `sendfile`).
pub const CACHE_NS: u64 = 5_000;

/// The word holding `task->next` (task ids start at 1; wraps instead of panicking on a bad id).
#[inline(always)]
pub fn next_of(task: u32) -> Word {
    Word(TASK_BASE.wrapping_add((task.wrapping_sub(1) as u8).wrapping_mul(2)) as u16)
}

/// The word holding `task->event.active`.
#[inline(always)]
pub fn active_of(task: u32) -> Word {
    Word((next_of(task).0 as u8).wrapping_add(1) as u16)
}

/// Words a scenario with `slots` task objects needs (the exit task is `slots + 1`).
pub fn words(slots: u32) -> u8 {
    TASK_BASE + 2 * (slots.min(MAX_SLOTS) as u8 + 1)
}

/// nginx's code or one of its broken variants (`nginx-thread-pool.md` §5). Broadcast instead of
/// signal is not a variant here but the `wake` parameter ([`Wake::Broadcast`]): it is correct, only
/// wasteful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PoolVariant {
    /// `ngx_thread_pool.c` as it is.
    Correct,
    /// `if (first == NULL) cond_wait` instead of `while`: a thread woken for a task another thread
    /// took dereferences NULL.
    IfNotWhile,
    /// unlock; signal; lock; link: a thread that checks the queue between the unlock and the link
    /// sleeps after the signal went by (lost wakeup).
    SignalOutsideMutex,
    /// No `cond_signal` at all: a task sits queued while every thread sleeps.
    NoSignal,
    /// No `last = &first` when the dequeue empties the queue: the next post writes through the old
    /// task's `next` and the task is lost.
    ForgetLast,
    /// Before afe1fcffa: `waiting` counts queued tasks only and is decremented after the dequeue,
    /// so posts are refused while threads sit idle.
    WaitingAfterDequeue,
    /// The completion handler takes one task per eventfd wakeup: the notifies collapse, tasks are
    /// stranded in the done list.
    OnePerNotify,
    /// No `event.active` check: a task still queued is posted again and the queue gets a cycle.
    NoActiveCheck,
    /// Shutdown by a flag and one signal instead of one exit task per thread: threads asleep in
    /// `cond_wait` stay there.
    ShutdownFlag,
}

impl PoolVariant {
    /// Every variant, the correct one first.
    pub const ALL: [PoolVariant; 9] = [
        PoolVariant::Correct,
        PoolVariant::IfNotWhile,
        PoolVariant::SignalOutsideMutex,
        PoolVariant::NoSignal,
        PoolVariant::ForgetLast,
        PoolVariant::WaitingAfterDequeue,
        PoolVariant::OnePerNotify,
        PoolVariant::NoActiveCheck,
        PoolVariant::ShutdownFlag,
    ];

    /// The names, in [`PoolVariant::ALL`] order.
    pub const NAMES: [&'static str; 9] = [
        "correct",
        "if-not-while",
        "signal-outside-mutex",
        "no-signal",
        "forget-last",
        "waiting-after-dequeue",
        "one-per-notify",
        "no-active-check",
        "shutdown-flag",
    ];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&v| v == self).unwrap_or(0)]
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|&n| n == s)
            .map(|i| Self::ALL[i])
    }
}

/// How the post wakes a pool thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wake {
    /// `pthread_cond_signal` (nginx).
    Signal,
    /// `pthread_cond_broadcast`: every idle thread wakes for one task.
    Broadcast,
}

impl Wake {
    /// The names.
    pub const NAMES: [&'static str; 2] = ["signal", "broadcast"];
    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        match self {
            Wake::Signal => "signal",
            Wake::Broadcast => "broadcast",
        }
    }
    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "signal" => Some(Wake::Signal),
            "broadcast" => Some(Wake::Broadcast),
            _ => None,
        }
    }
    fn count(self) -> WakeCount {
        match self {
            Wake::Signal => WakeCount::Up(1),
            Wake::Broadcast => WakeCount::All,
        }
    }
}

/// What every thread of one scenario knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PoolConfig {
    /// Pool threads (T).
    pub threads: u32,
    /// `tp->max_queue`.
    pub max_queue: u32,
    /// Whether blocking reads go to the pool (else the event loop reads itself).
    pub offload: bool,
    /// Signal or broadcast.
    pub wake: Wake,
    /// The blocking read's time.
    pub task_ns: u64,
    /// Percent of requests that need a blocking read.
    pub blocking_pct: u32,
    /// Task objects (requests use them round robin; the exit task is `slots + 1`).
    pub slots: u32,
    /// Which code runs.
    pub variant: PoolVariant,
    /// `ngx_spinlock`'s spin (2048 in nginx).
    pub spin: u32,
    /// `ngx_ncpu`: the spinlock spins only on more than one CPU.
    pub ncpu: u32,
    /// The seed of the event loop's request classes.
    pub seed: u64,
}

impl PoolConfig {
    /// The exit task's id.
    #[inline(always)]
    pub fn exit_task(&self) -> u32 {
        self.slots + 1
    }
}

/// The named lines of the pool's listing ([`LISTING`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ln {
    /// `first = NULL; last = &first; done.last = &done.first`.
    Init,
    /// Wait for a request or the eventfd.
    Await,
    /// Serve a request on the event loop (cached, or a blocking read without a pool).
    Serve,
    /// P1: `if task.event.active: return ERROR`.
    Active,
    /// P2: `lock(mtx)`.
    PostLock,
    /// P3: `if waiting >= max_queue: unlock; return ERROR`.
    Full,
    /// P4: `active = 1; id = id++; next = NULL`.
    SetActive,
    /// P5: `cond_signal(cond)`.
    Signal,
    /// P6: `*last = task; last = &task.next`.
    Link,
    /// P7: `waiting++; unlock(mtx)`.
    Inc,
    /// W1: `lock(mtx)`.
    W1,
    /// W2: `waiting--`.
    W2,
    /// W3: `while first == NULL: cond_wait(cond, mtx)`.
    W3,
    /// W4: the dequeue.
    W4,
    /// W5: `unlock(mtx)`.
    W5,
    /// W6: the handler (the blocking read).
    W6,
    /// W7: `task.next = NULL`.
    W7,
    /// W8: `ngx_spinlock(&done_lock, 1, 2048)`.
    W8,
    /// W9: append to the done list.
    W9,
    /// W10: barrier, `done_lock = 0`.
    W10,
    /// W11: `ngx_notify`: the eventfd write.
    W11,
    /// C1: `ngx_spinlock` in the completion handler.
    C1,
    /// C2: detach the done list.
    C2,
    /// C3: barrier, unlock.
    C3,
    /// C4: each task: `active = 0`, its event handler.
    C4,
    /// Destroy: `lock = 1; post(exit task)`.
    ExitPost,
    /// Destroy: `while lock: sched_yield()`.
    ExitSpin,
    /// Destroy: `exit_task.event.active = 0`.
    ExitReuse,
    /// The exit handler: `*lock = 0; pthread_exit()`.
    ExitHandler,
    /// A spurious wakeup.
    Spurious,
}

impl Ln {
    /// How many named lines there are.
    pub const COUNT: usize = 30;
}

/// The listing with its named lines.
#[derive(Debug)]
pub struct Listing {
    /// The lines, as the code panel shows them.
    pub text: &'static [&'static str],
    /// For each [`Ln`] (by its discriminant), its 1-based line, 0 when absent.
    pub lines: [u16; Ln::COUNT],
}

impl Listing {
    /// The 1-based line named `n`.
    #[inline(always)]
    pub fn of(&self, n: Ln) -> u16 {
        self.lines[n as usize]
    }
}

const fn listing<const N: usize>(
    named: &[(Option<Ln>, &'static str); N],
) -> ([&'static str; N], [u16; Ln::COUNT]) {
    let mut text = [""; N];
    let mut lines = [0u16; Ln::COUNT];
    let mut i = 0;
    while i < N {
        text[i] = named[i].1;
        if let Some(n) = named[i].0 {
            lines[n as usize] = (i + 1) as u16;
        }
        i += 1;
    }
    (text, lines)
}

const BASE: [(Option<Ln>, &str); 37] = [
    (
        None,
        "ngx_thread_pool_init:                      // event loop E, at start",
    ),
    (
        Some(Ln::Init),
        "  first = NULL; last = &first; done.last = &done.first",
    ),
    (None, "event loop:"),
    (
        Some(Ln::Await),
        "  wait for a request or the eventfd      // epoll_wait",
    ),
    (
        Some(Ln::Serve),
        "  cached: serve it; blocking: post it (no pool: read it here)",
    ),
    (None, "ngx_thread_task_post(task):                // E"),
    (
        Some(Ln::Active),
        "  if task.event.active: return ERROR     // \"already active\"",
    ),
    (Some(Ln::PostLock), "  lock(mtx)"),
    (
        Some(Ln::Full),
        "  if waiting >= max_queue: unlock(mtx); return ERROR  // \"queue overflow\"",
    ),
    (
        Some(Ln::SetActive),
        "  task.event.active = 1; task.id = id++; task.next = NULL",
    ),
    (
        Some(Ln::Signal),
        "  cond_signal(cond)                      // before the link, under mtx",
    ),
    (Some(Ln::Link), "  *last = task; last = &task.next"),
    (Some(Ln::Inc), "  waiting++; unlock(mtx)"),
    (
        None,
        "ngx_thread_pool_cycle:                     // each pool thread",
    ),
    (Some(Ln::W1), "  for ;; { lock(mtx)"),
    (
        Some(Ln::W2),
        "    waiting--                            // ready: may go negative",
    ),
    (
        Some(Ln::W3),
        "    while first == NULL: cond_wait(cond, mtx)",
    ),
    (
        Some(Ln::W4),
        "    task = first; first = task.next; if first == NULL: last = &first",
    ),
    (Some(Ln::W5), "    unlock(mtx)"),
    (
        Some(Ln::W6),
        "    task.handler()                       // the blocking read",
    ),
    (Some(Ln::W7), "    task.next = NULL"),
    (Some(Ln::W8), "    ngx_spinlock(&done_lock, 1, 2048)"),
    (
        Some(Ln::W9),
        "    *done.last = task; done.last = &task.next",
    ),
    (Some(Ln::W10), "    memory_barrier(); done_lock = 0"),
    (
        Some(Ln::W11),
        "    ngx_notify(handler)                  // eventfd write, then }",
    ),
    (
        None,
        "ngx_thread_pool_handler:                   // E, eventfd readable",
    ),
    (Some(Ln::C1), "  ngx_spinlock(&done_lock, 1, 2048)"),
    (
        Some(Ln::C2),
        "  task = done.first; done.first = NULL; done.last = &done.first",
    ),
    (Some(Ln::C3), "  memory_barrier(); done_lock = 0"),
    (
        Some(Ln::C4),
        "  for each task: active = 0; complete = 1; event.handler()",
    ),
    (
        None,
        "ngx_thread_pool_destroy:                   // E, at exit",
    ),
    (
        Some(Ln::ExitPost),
        "  for each thread: lock = 1; post(exit_task)",
    ),
    (Some(Ln::ExitSpin), "    while lock: sched_yield()"),
    (Some(Ln::ExitReuse), "    exit_task.event.active = 0"),
    (
        Some(Ln::ExitHandler),
        "ngx_thread_pool_exit_handler: *lock = 0; pthread_exit()",
    ),
    (None, "(POSIX: a waiter may wake without a signal)"),
    (Some(Ln::Spurious), "spurious wakeup"),
];

/// `BASE` with the text of some named lines replaced (a variant's listing: same lines, same places).
const fn patch(patches: &[(Ln, &'static str)]) -> [(Option<Ln>, &'static str); 37] {
    let mut out = BASE;
    let mut i = 0;
    while i < out.len() {
        if let Some(n) = out[i].0 {
            let mut j = 0;
            while j < patches.len() {
                if n as usize == patches[j].0 as usize {
                    out[i].1 = patches[j].1;
                }
                j += 1;
            }
        }
        i += 1;
    }
    out
}

macro_rules! pool_listing {
    ($(#[$meta:meta])* $name:ident: [$(($ln:expr, $text:expr)),* $(,)?]) => {
        $(#[$meta])*
        pub const $name: Listing = {
            const NAMED: [(Option<Ln>, &str); 37] = patch(&[$(($ln, $text)),*]);
            const BUILT: ([&str; 37], [u16; Ln::COUNT]) = listing(&NAMED);
            Listing { text: &BUILT.0, lines: BUILT.1 }
        };
    };
}

pool_listing!(
    /// The pool's listing: nginx's code.
    LISTING: []
);
pool_listing!(
    /// `if-not-while`.
    LISTING_IF: [(Ln::W3, "    if first == NULL: cond_wait(cond, mtx)   // BUG: if, not while")]
);
pool_listing!(
    /// `signal-outside-mutex`.
    LISTING_OUTSIDE: [(Ln::Signal, "  unlock(mtx); cond_signal(cond); lock(mtx)  // BUG: signal outside mtx")]
);
pool_listing!(
    /// `no-signal`.
    LISTING_NO_SIGNAL: [(Ln::Signal, "  // BUG: no cond_signal")]
);
pool_listing!(
    /// `forget-last`.
    LISTING_FORGET_LAST: [(Ln::W4, "    task = first; first = task.next      // BUG: last stays &task.next")]
);
pool_listing!(
    /// `waiting-after-dequeue` (before afe1fcffa).
    LISTING_LATE_DEC: [
        (Ln::W2, "    // BUG (before afe1fcffa): no waiting-- before the wait"),
        (Ln::W4, "    task = first; first = task.next; ...; waiting--  // BUG: after the dequeue"),
    ]
);
pool_listing!(
    /// `one-per-notify`.
    LISTING_ONE: [(Ln::C2, "  task = done.first; done.first = task.next  // BUG: one per notify")]
);
pool_listing!(
    /// `no-active-check`.
    LISTING_NO_ACTIVE: [(Ln::Active, "  // BUG: no event.active check")]
);
pool_listing!(
    /// `shutdown-flag`.
    LISTING_FLAG: [
        (Ln::W3, "    while first == NULL: if shutdown: exit; cond_wait(cond, mtx)  // BUG: the flag"),
        (Ln::ExitPost, "  shutdown = 1; cond_signal(cond)   // BUG: a flag and one signal"),
    ]
);

impl PoolVariant {
    /// This variant's listing (the same lines in the same places as [`LISTING`]; the changed ones
    /// say `BUG`).
    pub fn listing(self) -> &'static Listing {
        match self {
            PoolVariant::Correct => &LISTING,
            PoolVariant::IfNotWhile => &LISTING_IF,
            PoolVariant::SignalOutsideMutex => &LISTING_OUTSIDE,
            PoolVariant::NoSignal => &LISTING_NO_SIGNAL,
            PoolVariant::ForgetLast => &LISTING_FORGET_LAST,
            PoolVariant::WaitingAfterDequeue => &LISTING_LATE_DEC,
            PoolVariant::OnePerNotify => &LISTING_ONE,
            PoolVariant::NoActiveCheck => &LISTING_NO_ACTIVE,
            PoolVariant::ShutdownFlag => &LISTING_FLAG,
        }
    }
}

// ----- the spinlock -----

/// The context of `ngx_spinlock(lock, 1, spin)`: the spin and who takes it (its line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpinCx {
    /// `spin`.
    pub spin: u32,
    /// `ngx_ncpu`.
    pub ncpu: u32,
    /// The line the taker shows (W8 or C1).
    pub line: Ln,
}

impl SpinCx {
    #[inline(always)]
    fn after_fail(&self, n: u32) -> Next<Spin, ()> {
        Next::Go(if self.ncpu > 1 && n < self.spin {
            Spin::Pause { n, i: 0 }
        } else {
            Spin::Yield
        })
    }
}

crate::steps! {
    /// Where a thread is in `ngx_spinlock(&ngx_thread_pool_done_lock, 1, 2048)`.
    pub enum Spin(m: SpinCx) -> (), line Ln {
        /// `*lock == 0`?
        Load @ m.line => load(DONE_LOCK) => |v|
            if v == 0 { Go(Spin::Cas) } else { m.after_fail(1) };
        /// `cmp_set(lock, 0, 1)`.
        Cas @ m.line => cas(DONE_LOCK, 0, 1) => |ok|
            if ok { Done(()) } else { m.after_fail(1) };
        /// The i-th of n pauses.
        Pause {
            /// Pauses in this run.
            n: u32,
            /// Pauses done.
            i: u32,
        } @ m.line => pause() => |()|
            Go(if i + 1 >= n { Spin::Probe { n } } else { Spin::Pause { n, i: i + 1 } });
        /// Probe after n pauses.
        Probe {
            /// Pauses before it.
            n: u32,
        } @ m.line => load(DONE_LOCK) => |v|
            if v == 0 { Go(Spin::ProbeCas { n }) } else { m.after_fail(2 * n) };
        /// Take it after a probe.
        ProbeCas {
            /// Pauses before it.
            n: u32,
        } @ m.line => cas(DONE_LOCK, 0, 1) => |ok|
            if ok { Done(()) } else { m.after_fail(2 * n) };
        /// `ngx_sched_yield()`, then from the top.
        Yield @ m.line => sched_yield() => |()| Go(Spin::Load);
    }
}

// ----- a pool thread -----

/// Why a pool thread's cycle table stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Leave {
    /// At W8: take the done list's spinlock ([`Spin`]), then go on at `DoneLoadLast`.
    Spinlock,
    /// The thread exits (`pthread_exit`).
    Exit,
    /// It dereferenced NULL (the `if-not-while` variant).
    Fault,
}

/// Where a pool thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadAt {
    /// In `ngx_thread_pool_cycle`.
    Cycle(Cycle),
    /// In `ngx_spinlock` at W8.
    Spin(Spin),
    /// Exited.
    Exited,
}

/// One pool thread: its position, its locals and the ghost state the invariants read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PoolThread {
    cfg: PoolConfig,
    /// Where it is.
    pub at: ThreadAt,
    spin: SpinCx,
    /// The local `task`.
    task: u32,
    /// Ghost: between W2 (its decrement) and the dequeue.
    idle: bool,
    /// Ghost: it dereferenced NULL.
    fault: bool,
    /// Ghost: handler runs per task id.
    ran: Vec<u16>,
}

crate::steps! {
    /// Where a pool thread is in `ngx_thread_pool_cycle` (W1-W11) or the exit handler.
    pub enum Cycle(m: PoolThread) -> Leave, line Ln {
        /// W1: `lock(mtx)`.
        Lock @ Ln::W1 => mutex_lock(MTX) => |()| {
            if m.cfg.variant == PoolVariant::WaitingAfterDequeue {
                m.idle = true;
                Go(Cycle::Check)
            } else {
                Go(Cycle::Dec)
            }
        };
        /// W2: `waiting--` (under mtx).
        Dec @ Ln::W2 => fetch_add(WAITING, u32::MAX) => |_| {
            m.idle = true;
            Go(Cycle::Check)
        };
        /// W3: `first == NULL`?
        Check @ Ln::W3 => load(FIRST) => |f|
            Go(if f != 0 {
                Cycle::TakeNext { task: f }
            } else if m.cfg.variant == PoolVariant::ShutdownFlag {
                Cycle::FlagLoad
            } else {
                Cycle::Wait
            });
        /// W3 in `shutdown-flag`: `if shutdown: unlock; exit`.
        FlagLoad @ Ln::W3 => load(SHUTDOWN) => |s|
            Go(if s != 0 { Cycle::FlagUnlock } else { Cycle::Wait });
        /// W3 in `shutdown-flag`: unlock and exit.
        FlagUnlock @ Ln::W3 => mutex_unlock(MTX) => |()| Done(Leave::Exit);
        /// W3: `cond_wait(cond, mtx)`; `while` checks again, `if` goes on to the dequeue.
        Wait @ Ln::W3 => cond_wait(COND, MTX) => |()|
            Go(if m.cfg.variant == PoolVariant::IfNotWhile { Cycle::Head } else { Cycle::Check });
        /// W4 after an `if`: `task = first`, unchecked.
        Head @ Ln::W4 => load(FIRST) => |f|
            if f == 0 {
                m.fault = true;
                Done(Leave::Fault)
            } else {
                Go(Cycle::TakeNext { task: f })
            };
        /// W4: read `task->next`.
        TakeNext {
            /// The task at the head.
            task: u32,
        } @ Ln::W4 => load(next_of(task)) => |n| Go(Cycle::SetFirst { task, next: n });
        /// W4: `first = task->next`.
        SetFirst {
            /// The task taken.
            task: u32,
            /// Its `next`.
            next: u32,
        } @ Ln::W4 => store(FIRST, next) => |()| m.dequeued(task, next);
        /// W4: `last = &first` (the queue is empty now).
        ResetLast @ Ln::W4 => store(LAST, FIRST.0 as u32) => |()| Go(m.after_dequeue());
        /// W4 before afe1fcffa: `waiting--` after the dequeue.
        LateDec @ Ln::W4 => fetch_add(WAITING, u32::MAX) => |_| Go(Cycle::Unlock);
        /// W5: `unlock(mtx)`.
        Unlock @ Ln::W5 => mutex_unlock(MTX) => |()|
            Go(if m.task == m.cfg.exit_task() { Cycle::ExitHandler } else { Cycle::Handler });
        /// W6: the handler: the blocking read.
        Handler @ Ln::W6 => work(m.cfg.task_ns) => |()| {
            m.count_run();
            Go(Cycle::ClearNext)
        };
        /// W7: `task->next = NULL`.
        ClearNext @ Ln::W7 => store(next_of(m.task), 0) => |()| Done(Leave::Spinlock);
        /// W9: read `done.last`.
        DoneLoadLast @ Ln::W9 => load(DONE_LAST) => |l| Go(Cycle::DoneLink { at: l });
        /// W9: `*done.last = task`.
        DoneLink {
            /// The word `done.last` pointed at.
            at: u32,
        } @ Ln::W9 => store(Word(at as u8 as u16), m.task) => |()| Go(Cycle::DoneSetLast);
        /// W9: `done.last = &task->next`.
        DoneSetLast @ Ln::W9 => store(DONE_LAST, next_of(m.task).0 as u32) => |()| Go(Cycle::DoneUnlock);
        /// W10: barrier, `done_lock = 0`.
        DoneUnlock @ Ln::W10 => store(DONE_LOCK, 0) => |()| Go(Cycle::Notify);
        /// W11: the eventfd write adds 1 to its counter…
        Notify @ Ln::W11 => fetch_add(NOTIFY, 1) => |_| Go(Cycle::Wake);
        /// W11: …and wakes the event loop if it sleeps on it.
        Wake @ Ln::W11 => futex_wake(NOTIFY, WakeCount::Up(1)) => |_| Go(Cycle::Lock);
        /// The exit handler: `*lock = 0`, then `pthread_exit`.
        ExitHandler @ Ln::ExitHandler => store(EXIT_LOCK, 0) => |()| Done(Leave::Exit);
    }
}

impl PoolThread {
    /// A pool thread of this configuration, before W1.
    pub fn new(cfg: PoolConfig) -> Self {
        PoolThread {
            cfg,
            at: ThreadAt::Cycle(Cycle::Lock),
            spin: SpinCx {
                spin: cfg.spin,
                ncpu: cfg.ncpu,
                line: Ln::W8,
            },
            task: 0,
            idle: false,
            fault: false,
            ran: vec![0; cfg.slots as usize + 2],
        }
    }

    #[inline(always)]
    fn dequeued(&mut self, task: u32, next: u32) -> Next<Cycle, Leave> {
        self.idle = false;
        self.task = task;
        Next::Go(
            if next == 0 && self.cfg.variant != PoolVariant::ForgetLast {
                Cycle::ResetLast
            } else {
                self.after_dequeue()
            },
        )
    }

    #[inline(always)]
    fn after_dequeue(&self) -> Cycle {
        if self.cfg.variant == PoolVariant::WaitingAfterDequeue {
            Cycle::LateDec
        } else {
            Cycle::Unlock
        }
    }

    fn count_run(&mut self) {
        if let Some(r) = self.ran.get_mut(self.task as usize) {
            *r += 1;
        }
    }

    /// Ghost: between its W2 and its dequeue (a thread ready to take a task).
    pub fn is_idle(&self) -> bool {
        self.idle
    }
    /// Ghost: it dereferenced NULL.
    pub fn faulted(&self) -> bool {
        self.fault
    }
    /// Ghost: how many times it ran task `k`'s handler.
    pub fn ran(&self, k: u32) -> u16 {
        self.ran.get(k as usize).copied().unwrap_or(0)
    }
    /// True once it has exited.
    pub fn exited(&self) -> bool {
        self.at == ThreadAt::Exited
    }

    /// The next step's operation.
    pub fn op(&self) -> Op {
        match self.at {
            ThreadAt::Cycle(s) => s.op(self),
            ThreadAt::Spin(s) => s.op(&self.spin),
            ThreadAt::Exited => Op::Exit,
        }
    }

    /// Deliver a step's result.
    pub fn complete(&mut self, r: OpResult) {
        match self.at {
            ThreadAt::Cycle(s) => {
                self.at = match s.complete(self, r) {
                    Next::Go(s) => ThreadAt::Cycle(s),
                    Next::Done(Leave::Spinlock) => ThreadAt::Spin(Spin::Load),
                    Next::Done(_) => ThreadAt::Exited,
                }
            }
            ThreadAt::Spin(s) => {
                self.at = match s.complete(&mut self.spin, r) {
                    Next::Go(s) => ThreadAt::Spin(s),
                    Next::Done(()) => ThreadAt::Cycle(Cycle::DoneLoadLast),
                }
            }
            ThreadAt::Exited => {}
        }
    }

    /// The named line of the next step.
    pub fn line_name(&self) -> Option<Ln> {
        match self.at {
            ThreadAt::Cycle(s) => Some(s.line(self)),
            ThreadAt::Spin(s) => Some(s.line(&self.spin)),
            ThreadAt::Exited => None,
        }
    }

    /// Straight-line form: run the thread until it exits (or the platform stops it; the state is
    /// then left where the run stopped, as the stepped form would rest).
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        loop {
            match self.at {
                ThreadAt::Cycle(s) => match s.run(self, p) {
                    Ok((_, Leave::Spinlock)) => self.at = ThreadAt::Spin(Spin::Load),
                    Ok(_) => {
                        self.at = ThreadAt::Exited;
                        return Ok(());
                    }
                    Err(Stopped { state, error }) => {
                        self.at = ThreadAt::Cycle(state);
                        return Err(error);
                    }
                },
                ThreadAt::Spin(s) => match s.run(&mut self.spin, p) {
                    Ok(_) => self.at = ThreadAt::Cycle(Cycle::DoneLoadLast),
                    Err(Stopped { state, error }) => {
                        self.at = ThreadAt::Spin(state);
                        return Err(error);
                    }
                },
                ThreadAt::Exited => return Ok(()),
            }
        }
    }
}

// ----- the event loop -----

/// Why the event loop's table stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopOut {
    /// At C1: take the done list's spinlock ([`Spin`]), then go on at `Detach`.
    Spinlock,
    /// Destroy returned: the event loop exits.
    Finished,
}

/// Where the event loop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopAt {
    /// In its table.
    Loop(Loop),
    /// In `ngx_spinlock` at C1.
    Spin(Spin),
    /// Exited (destroy returned).
    Exited,
}

/// The event loop's counters (what the report shows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoopCounts {
    /// Requests that arrived.
    pub requests: u32,
    /// Served from cache on the loop.
    pub cached: u32,
    /// Blocking reads done on the loop itself (no pool).
    pub inline_reads: u32,
    /// Tasks posted successfully (exit tasks included).
    pub tasks_posted: u32,
    /// Tasks whose completion ran on the loop.
    pub tasks_done: u32,
    /// Posts refused with "queue overflow".
    pub overflows: u32,
    /// Posts refused with "task already active".
    pub already_active: u32,
    /// Completion handler calls (eventfd wakes that found a count).
    pub notify_wakes: u32,
    /// The most tasks one handler call completed.
    pub max_batch: u32,
}

/// The event loop: its position, locals, the harness's counts and the ghost state the invariants
/// read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventLoop {
    cfg: PoolConfig,
    /// Where it is.
    pub at: LoopAt,
    spin: SpinCx,
    rng: u64,
    next_slot: u32,
    exits_left: u32,
    closed: bool,
    in_flight: u32,
    batch: u32,
    counts: LoopCounts,
    /// Ghost: the queue was initialised.
    inited: bool,
    /// Ghost: P3 just refused (the state after the refusing load, before the unlock).
    refusing: bool,
    /// Ghost: destroy returned.
    destroyed: bool,
    /// Ghost: posts, completions and the post number of each task id's latest post.
    posts: Vec<u16>,
    completions: Vec<u16>,
    post_no: Vec<u32>,
    next_no: u32,
}

crate::steps! {
    /// Where the event loop is: init, requests, posts (P1-P7), the completion handler (C2-C4),
    /// destroy.
    pub enum Loop(m: EventLoop) -> LoopOut, line Ln {
        /// Init: `last = &first`.
        InitLast @ Ln::Init => store(LAST, FIRST.0 as u32) => |()| Go(Loop::InitDoneLast);
        /// Init: `done.last = &done.first`.
        InitDoneLast @ Ln::Init => store(DONE_LAST, DONE_FIRST.0 as u32) => |()| {
            m.inited = true;
            Go(Loop::Await)
        };
        /// The next request (false: there are no more).
        Await @ Ln::Await => await_event() => |ev| Go(if ev { m.request() } else {
            m.closed = true;
            Loop::Drain
        });
        /// A cached response, served on the loop.
        ServeCached @ Ln::Serve => work(CACHE_NS) => |()| Go(Loop::Poll);
        /// A blocking read on the loop itself (no pool): head-of-line blocking.
        ReadInline @ Ln::Serve => work(m.cfg.task_ns) => |()| Go(Loop::Poll);
        /// P1: `if task->event.active`.
        Active {
            /// The task.
            k: u32,
        } @ Ln::Active => load(active_of(k)) => |a|
            if a != 0 {
                m.counts.already_active += 1;
                Go(m.after_post(k))
            } else {
                Go(Loop::PostLock { k })
            };
        /// P2: `lock(mtx)`.
        PostLock {
            /// The task.
            k: u32,
        } @ Ln::PostLock => mutex_lock(MTX) => |()| Go(Loop::Full { k });
        /// P3: `waiting >= max_queue`?
        Full {
            /// The task.
            k: u32,
        } @ Ln::Full => load(WAITING) => |w|
            if (w as i32) as i64 >= m.cfg.max_queue as i64 {
                m.refusing = true;
                Go(Loop::Refuse { k })
            } else {
                Go(Loop::SetActive { k })
            };
        /// P3: `unlock(mtx); return ERROR` ("queue overflow").
        Refuse {
            /// The task.
            k: u32,
        } @ Ln::Full => mutex_unlock(MTX) => |()| m.refused(k);
        /// P4: `task->event.active = 1`.
        SetActive {
            /// The task.
            k: u32,
        } @ Ln::SetActive => store(active_of(k), 1) => |()| Go(Loop::ClearNext { k });
        /// P4: `task->next = NULL` (and `id = task_id++`, a local count here).
        ClearNext {
            /// The task.
            k: u32,
        } @ Ln::SetActive => store(next_of(k), 0) => |()| Go(match m.cfg.variant {
            PoolVariant::SignalOutsideMutex => Loop::EarlyUnlock { k },
            PoolVariant::NoSignal => Loop::LoadLast { k },
            _ => Loop::Signal { k },
        });
        /// P5: `cond_signal(cond)`, before the link, with mtx held.
        Signal {
            /// The task.
            k: u32,
        } @ Ln::Signal => cond_notify(COND, m.cfg.wake.count()) => |()| Go(Loop::LoadLast { k });
        /// `signal-outside-mutex`: unlock first…
        EarlyUnlock {
            /// The task.
            k: u32,
        } @ Ln::Signal => mutex_unlock(MTX) => |()| Go(Loop::OutsideSignal { k });
        /// …signal without mtx…
        OutsideSignal {
            /// The task.
            k: u32,
        } @ Ln::Signal => cond_notify(COND, m.cfg.wake.count()) => |()| Go(Loop::Relock { k });
        /// …and lock again to link.
        Relock {
            /// The task.
            k: u32,
        } @ Ln::Signal => mutex_lock(MTX) => |()| Go(Loop::LoadLast { k });
        /// P6: read `last`.
        LoadLast {
            /// The task.
            k: u32,
        } @ Ln::Link => load(LAST) => |l| Go(Loop::Link { k, at: l });
        /// P6: `*last = task`.
        Link {
            /// The task.
            k: u32,
            /// The word `last` pointed at.
            at: u32,
        } @ Ln::Link => store(Word(at as u8 as u16), k) => |()| Go(Loop::SetLast { k });
        /// P6: `last = &task->next`.
        SetLast {
            /// The task.
            k: u32,
        } @ Ln::Link => store(LAST, next_of(k).0 as u32) => |()| Go(Loop::Inc { k });
        /// P7: `waiting++`.
        Inc {
            /// The task.
            k: u32,
        } @ Ln::Inc => fetch_add(WAITING, 1) => |_| Go(Loop::PostUnlock { k });
        /// P7: `unlock(mtx)`: posted.
        PostUnlock {
            /// The task.
            k: u32,
        } @ Ln::Inc => mutex_unlock(MTX) => |()| {
            m.posted(k);
            Go(m.after_post(k))
        };
        /// Between requests: is the eventfd readable? (read and clear its counter)
        Poll @ Ln::Await => swap(NOTIFY, 0) => |n| m.notified(n);
        /// After the last request: read the eventfd; destroy once nothing is in flight.
        Drain @ Ln::Await => swap(NOTIFY, 0) => |n| m.notified(n);
        /// Sleep until the eventfd is written.
        Sleep @ Ln::Await => futex_wait(NOTIFY, 0) => |_| Go(Loop::Drain);
        /// C2: `task = done.first`.
        Detach @ Ln::C2 => load(DONE_FIRST) => |t|
            Go(if m.cfg.variant == PoolVariant::OnePerNotify && t != 0 {
                Loop::DetachOneNext { t }
            } else {
                Loop::DetachFirst { t }
            });
        /// C2: `done.first = NULL`.
        DetachFirst {
            /// The detached list's head.
            t: u32,
        } @ Ln::C2 => store(DONE_FIRST, 0) => |()| Go(Loop::DetachLast { t, only: false });
        /// C2: `done.last = &done.first`.
        DetachLast {
            /// The detached list's head.
            t: u32,
            /// `one-per-notify`: only `t` was detached.
            only: bool,
        } @ Ln::C2 => store(DONE_LAST, DONE_FIRST.0 as u32) => |()| Go(Loop::HandlerUnlock { t, only });
        /// `one-per-notify`: read the head's `next`…
        DetachOneNext {
            /// The head.
            t: u32,
        } @ Ln::C2 => load(next_of(t)) => |n| Go(Loop::DetachOne { t, next: n });
        /// …and unlink only the head.
        DetachOne {
            /// The head.
            t: u32,
            /// Its `next`.
            next: u32,
        } @ Ln::C2 => store(DONE_FIRST, next) => |()|
            Go(if next == 0 { Loop::DetachLast { t, only: true } } else { Loop::HandlerUnlock { t, only: true } });
        /// C3: barrier, `done_lock = 0`.
        HandlerUnlock {
            /// The detached list's head.
            t: u32,
            /// Only `t`.
            only: bool,
        } @ Ln::C3 => store(DONE_LOCK, 0) => |()|
            if t == 0 { m.handler_over() } else { Go(Loop::Complete { t, only }) };
        /// C4: read the task's `next` before its handler may reuse it.
        Complete {
            /// The task.
            t: u32,
            /// Only this one.
            only: bool,
        } @ Ln::C4 => load(next_of(t)) => |n| Go(Loop::Inactive { t, next: if only { 0 } else { n } });
        /// C4: `active = 0; complete = 1; event.handler()`.
        Inactive {
            /// The task.
            t: u32,
            /// The next one in the detached list.
            next: u32,
        } @ Ln::C4 => store(active_of(t), 0) => |()| {
            m.completed(t);
            if next != 0 { Go(Loop::Complete { t: next, only: false }) } else { m.handler_over() }
        };
        /// Destroy: `lock = 1`, then post the exit task.
        ExitStart @ Ln::ExitPost => store(EXIT_LOCK, 1) => |()| Go(m.post_entry(m.cfg.exit_task()));
        /// Destroy: `while (lock)`.
        ExitSpin @ Ln::ExitSpin => load(EXIT_LOCK) => |l|
            Go(if l != 0 { Loop::ExitYield } else { Loop::ExitReuse });
        /// Destroy: `ngx_sched_yield()`.
        ExitYield @ Ln::ExitSpin => sched_yield() => |()| Go(Loop::ExitSpin);
        /// Destroy: `task.event.active = 0`, then the next thread.
        ExitReuse @ Ln::ExitReuse => store(active_of(m.cfg.exit_task()), 0) => |()| {
            m.exits_left = m.exits_left.saturating_sub(1);
            if m.exits_left > 0 {
                Go(Loop::ExitStart)
            } else {
                m.destroyed = true;
                Done(LoopOut::Finished)
            }
        };
        /// `shutdown-flag`: `shutdown = 1`…
        FlagStore @ Ln::ExitPost => store(SHUTDOWN, 1) => |()| Go(Loop::FlagSignal);
        /// …and one signal; destroy returns.
        FlagSignal @ Ln::ExitPost => cond_notify(COND, WakeCount::Up(1)) => |()| {
            m.destroyed = true;
            Done(LoopOut::Finished)
        };
    }
}

impl EventLoop {
    /// The event loop of this configuration, before init.
    pub fn new(cfg: PoolConfig) -> Self {
        let n = cfg.slots as usize + 2;
        EventLoop {
            cfg,
            at: LoopAt::Loop(Loop::InitLast),
            spin: SpinCx {
                spin: cfg.spin,
                ncpu: cfg.ncpu,
                line: Ln::C1,
            },
            rng: cfg.seed ^ 0x9E37_79B9_7F4A_7C15,
            next_slot: 0,
            exits_left: cfg.threads,
            closed: false,
            in_flight: 0,
            batch: 0,
            counts: LoopCounts::default(),
            inited: false,
            refusing: false,
            destroyed: false,
            posts: vec![0; n],
            completions: vec![0; n],
            post_no: vec![0; n],
            next_no: 0,
        }
    }

    /// A request arrived: serve it, read it inline, or post its task (round robin over the task
    /// objects, as connections reuse theirs).
    fn request(&mut self) -> Loop {
        self.counts.requests += 1;
        // splitmix64: the request's class, from the loop's own seed
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let blocking = (z % 100) < self.cfg.blocking_pct as u64;
        if !blocking {
            self.counts.cached += 1;
            Loop::ServeCached
        } else if !self.cfg.offload {
            self.counts.inline_reads += 1;
            Loop::ReadInline
        } else {
            let k = self.next_slot % self.cfg.slots.max(1) + 1;
            self.next_slot = self.next_slot.wrapping_add(1);
            self.post_entry(k)
        }
    }

    #[inline(always)]
    fn post_entry(&self, k: u32) -> Loop {
        if self.cfg.variant == PoolVariant::NoActiveCheck {
            Loop::PostLock { k }
        } else {
            Loop::Active { k }
        }
    }

    #[inline(always)]
    fn is_exit(&self, k: u32) -> bool {
        k == self.cfg.exit_task()
    }

    /// Where a post of `k` returns to.
    #[inline(always)]
    fn after_post(&self, k: u32) -> Loop {
        if self.is_exit(k) {
            Loop::ExitSpin
        } else {
            Loop::Poll
        }
    }

    fn refused(&mut self, k: u32) -> Next<Loop, LoopOut> {
        self.refusing = false;
        if self.is_exit(k) {
            // destroy gives up and leaves the threads behind
            self.destroyed = true;
            return Next::Done(LoopOut::Finished);
        }
        self.counts.overflows += 1;
        Next::Go(Loop::Poll)
    }

    fn posted(&mut self, k: u32) {
        self.counts.tasks_posted += 1;
        if !self.is_exit(k) {
            self.in_flight += 1;
        }
        if let Some(p) = self.posts.get_mut(k as usize) {
            *p += 1;
        }
        if let Some(p) = self.post_no.get_mut(k as usize) {
            *p = self.next_no;
        }
        self.next_no += 1;
    }

    fn notified(&mut self, n: u32) -> Next<Loop, LoopOut> {
        if n > 0 {
            self.counts.notify_wakes += 1;
            self.batch = 0;
            return Next::Done(LoopOut::Spinlock);
        }
        if !self.closed {
            Next::Go(Loop::Await)
        } else if self.in_flight > 0 {
            Next::Go(Loop::Sleep)
        } else if self.cfg.variant == PoolVariant::ShutdownFlag {
            Next::Go(Loop::FlagStore)
        } else {
            Next::Go(Loop::ExitStart)
        }
    }

    fn completed(&mut self, t: u32) {
        self.counts.tasks_done += 1;
        self.batch += 1;
        self.counts.max_batch = self.counts.max_batch.max(self.batch);
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Some(c) = self.completions.get_mut(t as usize) {
            *c += 1;
        }
    }

    fn handler_over(&self) -> Next<Loop, LoopOut> {
        Next::Go(if self.closed {
            Loop::Drain
        } else {
            Loop::Await
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PoolConfig {
        &self.cfg
    }
    /// The counters.
    pub fn counts(&self) -> &LoopCounts {
        &self.counts
    }
    /// Ghost: init is done.
    pub fn inited(&self) -> bool {
        self.inited
    }
    /// Ghost: P3 has just refused a post (the refusing unlock is next).
    pub fn refusing(&self) -> bool {
        self.refusing
    }
    /// Ghost: destroy has returned.
    pub fn destroyed(&self) -> bool {
        self.destroyed
    }
    /// Ghost: successful posts of task `k`.
    pub fn posts(&self, k: u32) -> u16 {
        self.posts.get(k as usize).copied().unwrap_or(0)
    }
    /// Ghost: completions of task `k` run on the loop.
    pub fn completions(&self, k: u32) -> u16 {
        self.completions.get(k as usize).copied().unwrap_or(0)
    }
    /// Ghost: the number of task `k`'s latest post (posts are numbered from 0).
    pub fn post_no(&self, k: u32) -> u32 {
        self.post_no.get(k as usize).copied().unwrap_or(0)
    }
    /// Tasks posted and not yet completed (exit tasks not counted).
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }
    /// True when it holds `mtx` between P2 and P7 (or P3's refusal).
    pub fn holds_mutex(&self) -> bool {
        matches!(
            self.at,
            LoopAt::Loop(
                Loop::Full { .. }
                    | Loop::Refuse { .. }
                    | Loop::SetActive { .. }
                    | Loop::ClearNext { .. }
                    | Loop::Signal { .. }
                    | Loop::EarlyUnlock { .. }
                    | Loop::LoadLast { .. }
                    | Loop::Link { .. }
                    | Loop::SetLast { .. }
                    | Loop::Inc { .. }
                    | Loop::PostUnlock { .. }
            )
        )
    }

    /// The next step's operation.
    pub fn op(&self) -> Op {
        match self.at {
            LoopAt::Loop(s) => s.op(self),
            LoopAt::Spin(s) => s.op(&self.spin),
            LoopAt::Exited => Op::Exit,
        }
    }

    /// Deliver a step's result.
    pub fn complete(&mut self, r: OpResult) {
        match self.at {
            LoopAt::Loop(s) => {
                self.at = match s.complete(self, r) {
                    Next::Go(s) => LoopAt::Loop(s),
                    Next::Done(LoopOut::Spinlock) => LoopAt::Spin(Spin::Load),
                    Next::Done(LoopOut::Finished) => LoopAt::Exited,
                }
            }
            LoopAt::Spin(s) => {
                self.at = match s.complete(&mut self.spin, r) {
                    Next::Go(s) => LoopAt::Spin(s),
                    Next::Done(()) => LoopAt::Loop(Loop::Detach),
                }
            }
            LoopAt::Exited => {}
        }
    }

    /// The named line of the next step.
    pub fn line_name(&self) -> Option<Ln> {
        match self.at {
            LoopAt::Loop(s) => Some(s.line(self)),
            LoopAt::Spin(s) => Some(s.line(&self.spin)),
            LoopAt::Exited => None,
        }
    }

    /// Straight-line form: run the event loop until destroy returns (or the platform stops it).
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        loop {
            match self.at {
                LoopAt::Loop(s) => match s.run(self, p) {
                    Ok((_, LoopOut::Spinlock)) => self.at = LoopAt::Spin(Spin::Load),
                    Ok((_, LoopOut::Finished)) => {
                        self.at = LoopAt::Exited;
                        return Ok(());
                    }
                    Err(Stopped { state, error }) => {
                        self.at = LoopAt::Loop(state);
                        return Err(error);
                    }
                },
                LoopAt::Spin(s) => match s.run(&mut self.spin, p) {
                    Ok(_) => self.at = LoopAt::Loop(Loop::Detach),
                    Err(Stopped { state, error }) => {
                        self.at = LoopAt::Spin(state);
                        return Err(error);
                    }
                },
                LoopAt::Exited => return Ok(()),
            }
        }
    }
}

// ----- spurious wakeups -----

/// The injector of spurious wakeups: POSIX lets `pthread_cond_wait` return without a signal; to
/// the woken thread that is a `cond_signal` by nobody, so the injector issues `left` of them, each
/// after `gap_ns`, at times the simulator's schedule (or the checker) chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Injector {
    /// Wakeups still to inject.
    pub left: u32,
    /// The time before each.
    pub gap_ns: u64,
    /// Where it is (`None`: exited).
    pub at: Option<Inject>,
}

crate::steps! {
    /// Where the injector is.
    pub enum Inject(m: Injector) -> (), line Ln {
        /// Let time pass.
        Gap @ Ln::Spurious => work(m.gap_ns) => |()| Go(Inject::Wake);
        /// Wake one waiter for nothing.
        Wake @ Ln::Spurious => cond_notify(COND, WakeCount::Up(1)) => |()| {
            m.left = m.left.saturating_sub(1);
            if m.left == 0 { Done(()) } else { Go(Inject::Gap) }
        };
    }
}

impl Injector {
    /// An injector of `left` spurious wakeups.
    pub fn new(left: u32, gap_ns: u64) -> Self {
        Injector {
            left,
            gap_ns,
            at: if left == 0 { None } else { Some(Inject::Gap) },
        }
    }
}

// ----- the one machine type -----

/// Any thread of a pool scenario: the simulator steps one type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PoolActor {
    /// The event loop E.
    Loop(EventLoop),
    /// A pool thread.
    Thread(PoolThread),
    /// The spurious-wakeup injector.
    Injector(Injector),
}

impl PoolActor {
    /// The named line of the next step (`None` once exited).
    pub fn line_name(&self) -> Option<Ln> {
        match self {
            PoolActor::Loop(e) => e.line_name(),
            PoolActor::Thread(t) => t.line_name(),
            PoolActor::Injector(i) => i.at.map(|s| s.line(i)),
        }
    }
    /// The event loop, if this is it.
    pub fn as_loop(&self) -> Option<&EventLoop> {
        match self {
            PoolActor::Loop(e) => Some(e),
            _ => None,
        }
    }
    /// The pool thread, if this is one.
    pub fn as_thread(&self) -> Option<&PoolThread> {
        match self {
            PoolActor::Thread(t) => Some(t),
            _ => None,
        }
    }
}

impl Machine for PoolActor {
    fn next_op(&self) -> Op {
        match self {
            PoolActor::Loop(e) => e.op(),
            PoolActor::Thread(t) => t.op(),
            PoolActor::Injector(i) => match i.at {
                Some(s) => s.op(i),
                None => Op::Exit,
            },
        }
    }
    fn complete(&mut self, r: OpResult) {
        match self {
            PoolActor::Loop(e) => e.complete(r),
            PoolActor::Thread(t) => t.complete(r),
            PoolActor::Injector(i) => {
                if let Some(s) = i.at {
                    i.at = match s.complete(i, r) {
                        Next::Go(s) => Some(s),
                        Next::Done(()) => None,
                    };
                }
            }
        }
    }
    fn serves_measured_event(&self) -> bool {
        // a cache hit's response: its latency, arrival to served, is what head-of-line blocking
        // inflates
        matches!(self, PoolActor::Loop(e) if e.at == LoopAt::Loop(Loop::ServeCached))
    }
    fn line(&self) -> u16 {
        self.line_name().map_or(0, |n| LISTING.of(n))
    }
    fn listing(&self) -> &'static [&'static str] {
        match self {
            PoolActor::Loop(e) => e.cfg.variant.listing().text,
            PoolActor::Thread(t) => t.cfg.variant.listing().text,
            PoolActor::Injector(_) => LISTING.text,
        }
    }
}
