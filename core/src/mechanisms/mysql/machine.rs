//! MySQL's threads as step tables: the clients and the acceptor ([`Feed`]), a pool worker
//! ([`Work`]), the pool's `wake_or_create_thread` ([`Woc`]), the pool's timer ([`Tick`]) and a
//! thread-per-connection thread ([`Conn`]); [`MysqlActor`] is the one [`Machine`] type the simulator
//! steps.
//!
//! The module docs of [`crate::mechanisms::mysql`] give the memory layout, the states, the invariants and the
//! sources.

use core::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::machine::steps::{Next, Ops, Stopped};
use crate::machine::Machine;
use crate::op::{CondId, MutexId, Op, OpResult, SemId, WakeCount, Word};

// ----- memory -----

/// The timer's futex word: the clients bump it once per `thread_pool_stall_limit` (a tick).
pub const TICK: Word = Word(0);
/// `tp_stats.num_worker_threads`: pool threads over every group.
pub const NUM_WORKERS: Word = Word(1);
/// The hot row's lock word (0 free, 1 taken), a futex lock: the blocking wait of a query.
pub const ROW: Word = Word(2);
/// `blocked_pthread_count`: threads parked in the thread cache.
pub const BLOCKED: Word = Word(3);
/// `wake_pthread`: cached threads signalled but not yet awake.
pub const WAKE: Word = Word(4);
/// The head of `waiting_channel_info_list` (a ring of client ids; also the channels handed to new
/// threads).
pub const HEAD: Word = Word(5);
/// The tail of the channel ring.
pub const TAIL: Word = Word(6);
/// OS threads alive in thread-per-connection mode.
pub const ALIVE: Word = Word(7);
/// The first word of the per-group blocks (pool) or of the channel ring (per-connection).
pub const BASE: u16 = 16;
/// Words per thread group.
pub const GROUP_WORDS: u16 = 33;
/// Most thread groups the simulator models (`thread_pool_size`).
pub const MAX_GROUPS: u32 = 7;
/// Most threads per group: the `waiting_threads` stack has room for every one of them in the 15
/// words after [`g::STACK`] of the group's block.
pub const MAX_GROUP_THREADS: u32 = 15;
/// Most client connections the simulator takes, in both modes. Thread-per-connection sizes its
/// memory by the scenario ([`MysqlConfig::words`]): the channel ring (one word per thread slot) and
/// three words per connection (its socket, its query ordinal and its connections closed), at most
/// 16,465 words for 4096 connections.
pub const MAX_CONNECTIONS: u32 = 4096;

/// Offsets of a group's words from its block (`thread_group_t`).
pub mod g {
    /// `queue`: normal-priority events queued.
    pub const Q: u8 = 0;
    /// `high_prio_queue`: high-priority events queued.
    pub const HQ: u8 = 1;
    /// Events ready in the group's epoll set (delivered, not yet taken), normal priority.
    pub const RDY: u8 = 2;
    /// Events ready in the epoll set whose connection is in a transaction (high priority).
    pub const HRDY: u8 = 3;
    /// The epoll set's futex word: bumped on every delivery; the listener sleeps on it.
    pub const EPSEQ: u8 = 4;
    /// `listener != NULL`.
    pub const LISTENER: u8 = 5;
    /// `thread_count`.
    pub const THREADS: u8 = 6;
    /// `active_thread_count`.
    pub const ACTIVE: u8 = 7;
    /// `waiting_thread_count`: threads inside `thd_wait_begin/end`.
    pub const WAITING: u8 = 8;
    /// `connection_count`.
    pub const CONNS: u8 = 9;
    /// `io_event_count`.
    pub const IO_EV: u8 = 10;
    /// `queue_event_count`.
    pub const Q_EV: u8 = 11;
    /// `last_thread_creation_time`, µs (wraps after 71 minutes of simulated time).
    pub const LAST_CREATE: u8 = 12;
    /// `stalled`.
    pub const STALLED: u8 = 13;
    /// Length of `waiting_threads`.
    pub const NWAIT: u8 = 14;
    /// Normal events dequeued so far (the ordinal that matches an event to its arrival).
    pub const DEQ_N: u8 = 15;
    /// High-priority events dequeued so far.
    pub const DEQ_H: u8 = 16;
    /// `waiting_threads`: worker slots, bottom first.
    pub const STACK: u8 = 17;
    /// Logins (`queue_put` at connect) still in the normal queue; they are its first entries
    /// (every connection logs in before the first query arrives), so a worker that dequeues
    /// the normal head while this is above 0 takes a login.
    pub const LOGINQ: u8 = 32;
}

/// Word `off` of group `grp`'s block.
#[inline(always)]
pub fn gw(grp: u8, off: u8) -> Word {
    Word(BASE + grp as u16 * GROUP_WORDS + off as u16)
}

/// Word `i` of group `grp`'s `waiting_threads` stack.
#[inline(always)]
pub fn stack(grp: u8, i: u32) -> Word {
    gw(grp, g::STACK + (i % MAX_GROUP_THREADS) as u8)
}

/// A group's mutex.
#[inline(always)]
pub fn gm(grp: u8) -> MutexId {
    MutexId(grp)
}

/// A pool worker's private condition variable (`worker_thread_t.cond`), by its slot.
#[inline(always)]
pub fn wcond(slot: u8) -> CondId {
    CondId(slot)
}

/// The semaphore a group's unborn threads wait on: one post is one `create_worker`.
#[inline(always)]
pub fn spawn(grp: u8) -> SemId {
    SemId(grp)
}

/// A query's CPU time runs in slices of at most this long, so the scheduler may preempt it
/// between slices (a time slice of CFS's order).
pub const SLICE_NS: u64 = 1_000_000;

/// What a login costs the worker that handles it (a modelled figure: `threadpool_add_connection`,
/// the handshake and authentication), ns.
pub const LOGIN_NS: u64 = 10_000;

/// What starting an OS thread costs the new thread (a modelled figure: `pthread_create`, the stack's
/// first pages, the THD's set-up), ns.
pub const THREAD_START_NS: u64 = 30_000;

/// `LOCK_thread_cache`.
pub const CACHE_MTX: MutexId = MutexId(0);
/// `COND_thread_cache`.
pub const CACHE_COND: CondId = CondId(0);
/// The semaphore unborn per-connection threads wait on (`mysql_thread_create`).
pub const CONN_SPAWN: SemId = SemId(0);

/// `microsecond_throttling_interval(thread_count)`: 0 / 50 / 100 / 200 ms at < 4 / < 8 / < 16 /
/// ≥ 16 threads.
pub fn throttle_us(threads: u32) -> u32 {
    match threads {
        0..=3 => 0,
        4..=7 => 50_000,
        8..=15 => 100_000,
        _ => 200_000,
    }
}

// ----- configuration -----

/// How connections are handled (`thread_handling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// `one-thread-per-connection` with the thread cache (MySQL's default).
    PerConnection,
    /// `pool-of-threads` (Percona Server's `threadpool_unix.cc`).
    Pool,
}

impl Mode {
    /// The names.
    pub const NAMES: [&'static str; 2] = ["per-connection", "pool"];
    /// The CLI/URL/JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::PerConnection => "per-connection",
            Mode::Pool => "pool",
        }
    }
    /// Parse a name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "per-connection" => Some(Mode::PerConnection),
            "pool" => Some(Mode::Pool),
            _ => None,
        }
    }
}

/// The code as it is, or one of its broken variants (`mysql-threadpool.md` §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MysqlVariant {
    /// Percona Server 8.0's `threadpool_unix.cc` and MySQL's `connection_handler_per_thread.cc`.
    Correct,
    /// The listener never wakes or creates a worker when `active == 0` (variant 2): events sit in
    /// the queue while threads idle, until the timer's tick.
    NoListenerWake,
    /// `waiting_threads` used FIFO (variant 1): the coldest sleeper is woken.
    FifoWaiters,
    /// No stall check in the timer (variant 3): one long query blocks its group.
    NoStallTimer,
    /// A blocking row-lock wait without `thd_wait_begin` (variant 7): the group looks busy.
    NoWaitBegin,
    /// No creation throttle (variant 4): a thread storm.
    NoThrottle,
    /// No high-priority queue (variant 5): a transaction's next statement queues behind all others.
    NoHighPrio,
    /// Thread cache hand-off tested as `blocked_pthread_count > 0` instead of `> wake_pthread`
    /// (variant 8): two connections are handed to one cached thread.
    CacheAnyBlocked,
}

impl MysqlVariant {
    /// Every variant, the correct one first.
    pub const ALL: [MysqlVariant; 8] = [
        MysqlVariant::Correct,
        MysqlVariant::NoListenerWake,
        MysqlVariant::FifoWaiters,
        MysqlVariant::NoStallTimer,
        MysqlVariant::NoWaitBegin,
        MysqlVariant::NoThrottle,
        MysqlVariant::NoHighPrio,
        MysqlVariant::CacheAnyBlocked,
    ];
    /// The names, in [`MysqlVariant::ALL`] order.
    pub const NAMES: [&'static str; 8] = [
        "correct",
        "no-listener-wake",
        "fifo-waiters",
        "no-stall-timer",
        "no-wait-begin",
        "no-throttle",
        "no-high-prio",
        "cache-any-blocked",
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

/// What every thread of one scenario knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MysqlConfig {
    /// Per-connection or pool.
    pub mode: Mode,
    /// Client connections.
    pub connections: u32,
    /// `thread_pool_size`.
    pub groups: u32,
    /// Thread slots per group (the model's cap, ≤ [`MAX_GROUP_THREADS`]).
    pub group_threads: u32,
    /// `thread_pool_max_threads`.
    pub max_threads: u32,
    /// `thread_pool_oversubscribe`.
    pub oversubscribe: u32,
    /// `thread_pool_stall_limit` in ns (the timer's tick).
    pub stall_ns: u64,
    /// High-priority queue on (`thread_pool_high_prio_mode=transactions` with tickets > 0).
    pub high_prio: bool,
    /// `thread_cache_size`.
    pub cache_size: u32,
    /// Queries a connection sends before it closes (the client reconnects: churn).
    pub queries_per_conn: u32,
    /// Statements per transaction (statements 2.. of a transaction are high priority).
    pub txn_statements: u32,
    /// Queries in the run (further events only advance the clock).
    pub queries: u32,
    /// CPU time of a query, ns.
    pub cpu_ns: u64,
    /// Percent of queries that take the hot row lock.
    pub lock_pct: u32,
    /// CPU time of the first query of group 0, ns (a long query; 0: none).
    pub long_ns: u64,
    /// Which code runs.
    pub variant: MysqlVariant,
    /// The seed.
    pub seed: u64,
    /// The clients' mean think time, ns: 0, an open loop (queries arrive on the arrival stream
    /// whatever is outstanding); above 0, a closed loop ([`MysqlConfig::closed`]).
    pub think_ns: u64,
    /// Closed loop: the load generator's threads that receive the responses (each connection's
    /// answers go to thread `c % receivers`), on the server's CPUs ([`Feed::Recv`]).
    pub receivers: u32,
    /// Pool: every connection logs in at the first arrival (`queue_put`, [`Feed::PutLock`]).
    pub logins: bool,
}

impl MysqlConfig {
    /// Whether the clients are a closed loop, as a load generator's (`herdlab bench mysql`'s):
    /// each connection has at most one query outstanding and, once answered, thinks for an
    /// exponential time of mean `think_ns` before it sends the next. The model draws it by
    /// thinning: the arrival stream runs at `connections / think_ns` (every client thinking at
    /// once), each arrival picks a client at random, and an arrival whose client still waits for
    /// its answer is only a clock event. By the exponential's lack of memory, each waiting-free
    /// client then sends at rate `1 / think_ns`, exactly the closed loop's.
    #[inline(always)]
    pub fn closed(&self) -> bool {
        self.think_ns > 0
    }
    /// The first word after the mode's own (the closed loop's words start there).
    fn closed_base(&self) -> u16 {
        match self.mode {
            Mode::Pool => BASE + MAX_GROUPS as u16 * GROUP_WORDS,
            Mode::PerConnection => BASE + (self.slots() + 3 * self.connections.max(1)) as u16,
        }
    }
    /// Closed loop, pool: the most connections of one group (the ring of a stream's events).
    pub fn ring_len(&self) -> u32 {
        self.connections.max(1).div_ceil(self.groups.max(1))
    }
    /// Closed loop, pool: the connection of the `o`-th event of stream `stream` (the epoll
    /// event's data: which socket became readable). A ring of [`MysqlConfig::ring_len`] words
    /// per stream: a stream never has more events delivered and not yet taken than its group has
    /// connections, each with at most one query outstanding.
    #[inline(always)]
    pub fn tag(&self, stream: u32, o: u32) -> Word {
        let len = self.ring_len();
        Word(self.closed_base() + (stream * len + o % len) as u16)
    }
    /// Closed loop: client `c`'s answers received (the response written to its socket).
    #[inline(always)]
    pub fn answered(&self, c: u32) -> Word {
        let rings = match self.mode {
            Mode::Pool => 2 * self.groups.max(1) * self.ring_len(),
            Mode::PerConnection => 0,
        };
        Word(self.closed_base() + (rings + c % self.connections.max(1)) as u16)
    }
    /// Closed loop: the responses that reached load-generator thread `i`'s sockets (its
    /// `epoll_wait` wakes on them; the futex word it sleeps on).
    #[inline(always)]
    pub fn resp(&self, i: u32) -> Word {
        let last = self.answered(self.connections.max(1) - 1).0;
        Word(last + 1 + (i % self.receivers.max(1)) as u16)
    }
    /// `1 + thread_pool_oversubscribe`.
    #[inline(always)]
    pub fn cap(&self) -> u32 {
        1 + self.oversubscribe
    }
    /// Connections of group `grp` (connection id modulo `thread_pool_size`).
    pub fn conns_of(&self, grp: u32) -> u32 {
        let n = self.connections;
        let gs = self.groups.max(1);
        n / gs + u32::from(grp < n % gs)
    }
    /// Whether `id` uses the hot row lock (a seeded choice per query id).
    pub fn needs_lock(&self, id: u64) -> bool {
        mix(self.seed ^ id.wrapping_mul(0x2545_F491_4F6C_DD1D)) % 100 < self.lock_pct as u64
    }
    /// Thread-per-connection: the thread slots (every connection's thread, a full cache up to 64,
    /// and one spare); also the channel ring's size. A client has at most one connection on the
    /// server at a time (it reconnects only once its old connection's thread has parked or
    /// exited, [`MysqlConfig::closes`]), so OS threads alive ≤ open connections +
    /// `blocked_pthread_count` − `wake_pthread`: a thread is created only when every parked one
    /// is claimed, and then at most `connections` slots are taken; the ring holds at most one
    /// channel per client. The invariant `one-connection` checks both.
    pub fn slots(&self) -> u32 {
        self.connections + self.cache_size.min(64) + 1
    }
    /// Thread-per-connection: ring slot `i` of `waiting_channel_info_list` (also the channels
    /// handed to new threads).
    #[inline(always)]
    pub fn ring(&self, i: u32) -> Word {
        Word(BASE + (i % self.slots()) as u16)
    }
    /// Thread-per-connection: client `c`'s pending queries, the connection's socket (its thread
    /// sleeps on it in `read`).
    #[inline(always)]
    pub fn pend(&self, c: u32) -> Word {
        Word(BASE + self.slots() as u16 + (c % self.connections.max(1)) as u16)
    }
    /// Thread-per-connection: client `c`'s queries taken so far (the ordinal of the next one).
    #[inline(always)]
    pub fn served(&self, c: u32) -> Word {
        let n = self.connections.max(1);
        Word(BASE + (self.slots() + n + c % n) as u16)
    }
    /// Thread-per-connection: client `c`'s connections closed on the server's side (the thread
    /// that served it parked in the cache or exited): the client reconnects only after that
    /// (one connection per client on the server at a time).
    #[inline(always)]
    pub fn closes(&self, c: u32) -> Word {
        let n = self.connections.max(1);
        Word(BASE + (self.slots() + 2 * n + c % n) as u16)
    }
    /// Words of memory the scenario uses: the pool's group blocks, or per-connection the ring and
    /// three words per connection; a closed loop adds one word per connection
    /// ([`MysqlConfig::answered`]) and, pool, the events' rings ([`MysqlConfig::tag`]).
    pub fn words(&self) -> u16 {
        if self.closed() {
            self.resp(self.receivers.max(1) - 1).0 + 1
        } else {
            self.closed_base()
        }
    }
}

/// splitmix64's finaliser.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

// ----- the listing -----

/// The named lines of the listing ([`LISTING`]); a line's number is its position + 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ln {
    /// The clients: wait for the next query.
    Await,
    /// Pool: `epoll` delivers the query's event to its connection's group.
    Deliver,
    /// Per-connection: `check_idle_thread_and_enqueue_connection`.
    AddConn,
    /// Per-connection: `mysql_thread_create`, `Threads_created++`.
    CreateThread,
    /// The clients: a `thread_pool_stall_limit` tick for the timer.
    TickOut,
    /// A thread slot not yet created (or exited): waits to be created.
    Unborn,
    /// `get_event`: `lock(group)`; `oversubscribed = active >= 1 + oversubscribe && !stalled`.
    GetEvent,
    /// `queue_get`: high-priority head, else the normal head unless too many busy threads.
    QueueGet,
    /// `if listener == NULL`: become it (`active--`).
    BecomeListener,
    /// `listener()`: `epoll_wait(pollfd, 1024, -1)`.
    Listen,
    /// `listener()`: queue every event but the first when both queues are empty.
    ListenQueue,
    /// `listener()`: flood: `if active == 0: wake_thread or create_worker`.
    ListenWake,
    /// `epoll_wait(pollfd, 1, 0)`: take one ready event if not oversubscribed.
    Poll,
    /// Sleep: push self on `waiting_threads` (front), `active--`, `cond_timedwait`.
    Sleep,
    /// `stalled = false; unlock(group)`: return the event.
    GotEvent,
    /// `handle_event`: `do_command` (the query's CPU time).
    Handle,
    /// The query takes the hot row lock (may block).
    RowLock,
    /// `thd_wait_begin`: `active--; waiting++; if active == 0 && (queued || no listener): wake_or_create`.
    WaitBegin,
    /// `thd_wait_end`: `active++; waiting--`.
    WaitEnd,
    /// Release the row lock.
    RowUnlock,
    /// `start_io`: re-arm the socket (`EPOLL_CTL_MOD`, `EPOLLONESHOT`).
    Rearm,
    /// `wake_or_create_thread`: `wake_thread` pops the front of `waiting_threads` (LIFO).
    WakeThread,
    /// `if thread_count > connection_count: return -1`.
    TooMany,
    /// `if active == 0: create now; else throttle 0/50/100/200 ms`.
    Throttle,
    /// `create_worker`: `max_threads` check, `last_thread_creation_time`, `thread_count++`.
    CreateWorker,
    /// Timer: sleep `thread_pool_stall_limit` ms.
    TimerWait,
    /// `check_stall`: `lock(group)` (trylock in Percona).
    CheckStall,
    /// `if listener == NULL && io_event_count == 0: wake_or_create`.
    NoListener,
    /// `if queue_event_count == 0 && queues not empty: stalled = true; wake_or_create`.
    Stalled,
    /// Per-connection: take the channel (`waiting_channel_info_list` head).
    TakeChannel,
    /// Per-connection: `do_command`: read the next query (blocking `read`).
    ReadQuery,
    /// Per-connection: `block_until_new_connection`: park if `blocked < thread_cache_size`.
    Park,
    /// Per-connection: cache full: the thread exits.
    ThreadExit,
    /// Pool: `add_connection`: `queue_put(group)`: the login to the normal queue; wake or create
    /// when `active == 0`.
    QueuePut,
    /// Pool: `handle_event` of a login: `threadpool_add_connection`, then `start_io` arms the
    /// socket.
    Login,
}

/// The listing, one line per [`Ln`], in its order.
pub const LISTING: [&str; 35] = [
    "clients: wait for the next query (think time)",
    "  epoll: the connection's socket is readable; group = id % thread_pool_size",
    "  new connection: lock(LOCK_thread_cache); if blocked_pthread_count > wake_pthread: enqueue, wake_pthread++, signal",
    "  else: mysql_thread_create(handle_connection); Threads_created++",
    "  every thread_pool_stall_limit ms: wake the timer",
    "thread slot: wait to be created",
    "get_event: lock(group); oversubscribed = active >= 1 + oversubscribe && !stalled",
    "  queue_get: high_prio_queue head; else queue head unless active + waiting > 1 + oversubscribe",
    "  if listener == NULL: listener = self; active--; unlock",
    "  listener: epoll_wait(pollfd, 1024, -1)",
    "  listener: lock; pick event 0 if both queues empty, queue the rest (high-prio if in a transaction)",
    "  listener (not picking): if active == 0: wake_thread; if none and thread_count == 1: create_worker",
    "  if !oversubscribed: epoll_wait(pollfd, 1, 0): high-prio keep; too many busy: queue it",
    "  push self to the front of waiting_threads; active--; cond_timedwait(idle_timeout); active++",
    "  stalled = false; unlock(group); return the connection",
    "handle_event: do_command (the query)",
    "  row lock: if taken: block",
    "    thd_wait_begin: lock; active--; waiting++; if active == 0 && (queued || !listener): wake_or_create",
    "    thd_wait_end: lock; active++; waiting--; unlock",
    "  release the row lock, wake one waiter",
    "  start_io: epoll_ctl(MOD, EPOLLIN|EPOLLET|EPOLLONESHOT): one future delivery",
    "wake_or_create_thread: wake_thread: pop the front of waiting_threads, signal its cond",
    "  if thread_count > connection_count: return -1",
    "  if active == 0: create now; else if now - last_creation > 0/50/100/200 ms (<4/<8/<16/>=16)",
    "  create_worker: if workers >= max_threads && thread_count >= 2: fail; last_creation = now; thread_count++",
    "timer: cond_timedwait(thread_pool_stall_limit ms)",
    "  check_stall(group): trylock(group)",
    "  if listener == NULL && io_event_count == 0: wake_or_create; io_event_count = 0",
    "  if queue_event_count == 0 && queues not empty: stalled = true; wake_or_create; queue_event_count = 0",
    "handle_connection: take the channel (waiting_channel_info_list head)",
    "  do_command: read the next query (blocking read)",
    "block_until_new_connection: lock; if blocked < thread_cache_size: blocked++; wait until wake_pthread > 0",
    "  cache full: the thread exits",
    "pool add_connection: queue_put: lock(group); queue.push_back(login); if active == 0: wake_or_create",
    "handle_event (not logged in): threadpool_add_connection; start_io: epoll_ctl(ADD, EPOLLONESHOT)",
];

impl Ln {
    /// The 1-based line.
    pub fn line(self) -> u16 {
        self as u16 + 1
    }
}

// ----- wake_or_create_thread -----

/// What `wake_or_create_thread` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WocOut {
    /// A sleeper was signalled (`wake_thread` returned 0).
    Woken,
    /// A worker was created.
    Created,
    /// Nothing: more threads than connections, throttled, or refused by `max_threads`.
    Nothing,
}

/// The context of a `wake_or_create_thread` call (the caller holds the group's mutex).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WocCx {
    /// The configuration.
    pub cfg: MysqlConfig,
    /// The group.
    pub grp: u8,
    /// Called from the listener: `wake_thread`, and `create_worker` only when the listener is the
    /// group's only thread (no throttle).
    pub from_listener: bool,
    /// Counted: creations this context made.
    pub created: u32,
}

crate::steps! {
    /// `wake_or_create_thread(group)` (`threadpool_unix.cc`, §3.5), with the group mutex held.
    pub enum Woc(m: WocCx) -> WocOut, line Ln {
        /// `wake_thread`: is `waiting_threads` empty?
        Start @ Ln::WakeThread => load(gw(m.grp, g::NWAIT)) => |n|
            Go(if n == 0 {
                Woc::Threads
            } else if m.cfg.variant == MysqlVariant::FifoWaiters {
                Woc::Bottom { n }
            } else {
                Woc::Top { n }
            });
        /// The front: the most recent sleeper (the top of the stack).
        Top {
            /// The length of `waiting_threads`.
            n: u32,
        } @ Ln::WakeThread => load(stack(m.grp, n - 1)) => |s| Go(Woc::Pop { n, s });
        /// FIFO variant: the oldest sleeper.
        Bottom {
            /// The length of `waiting_threads`.
            n: u32,
        } @ Ln::WakeThread => load(stack(m.grp, 0)) => |s|
            Go(if n > 1 { Woc::ShiftLoad { n, i: 1, s } } else { Woc::Pop { n, s } });
        /// FIFO variant: move the rest down.
        ShiftLoad {
            /// The length of `waiting_threads`.
            n: u32,
            /// The index being moved.
            i: u32,
            /// The slot woken.
            s: u32,
        } @ Ln::WakeThread => load(stack(m.grp, i)) => |v|
            Go(Woc::ShiftPut { n, i, s, v });
        /// FIFO variant: move the rest down.
        ShiftPut {
            /// The length of `waiting_threads`.
            n: u32,
            /// The index being moved.
            i: u32,
            /// The slot woken.
            s: u32,
            /// The value being moved.
            v: u32,
        } @ Ln::WakeThread => store(stack(m.grp, i - 1), v) => |()|
            Go(if i + 1 < n { Woc::ShiftLoad { n, i: i + 1, s } } else { Woc::Pop { n, s } });
        /// Remove it from the list.
        Pop {
            /// The length of `waiting_threads`.
            n: u32,
            /// The slot woken.
            s: u32,
        } @ Ln::WakeThread => store(gw(m.grp, g::NWAIT), n - 1) => |()|
            Go(Woc::Signal { s });
        /// `woken = true; cond_signal(thread.cond)`.
        Signal {
            /// The slot woken.
            s: u32,
        } @ Ln::WakeThread => cond_notify(wcond(s as u8), WakeCount::Up(1)) => |()|
            Done(WocOut::Woken);
        /// `thread_count`.
        Threads @ Ln::TooMany => load(gw(m.grp, g::THREADS)) => |t|
            if m.from_listener {
                if t == 1 { Go(Woc::Cap { t }) } else { Done(WocOut::Nothing) }
            } else {
                Go(Woc::Conns { t })
            };
        /// `if thread_count > connection_count: return -1`.
        Conns {
            /// `thread_count` (or the ring tail).
            t: u32,
        } @ Ln::TooMany => load(gw(m.grp, g::CONNS)) => |c|
            if t > c { Done(WocOut::Nothing) } else { Go(Woc::Active { t }) };
        /// `if active_thread_count == 0: create now` (every thread blocked).
        Active {
            /// `thread_count` (or the ring tail).
            t: u32,
        } @ Ln::Throttle => load(gw(m.grp, g::ACTIVE)) => |a|
            Go(if a == 0 || m.cfg.variant == MysqlVariant::NoThrottle { Woc::Cap { t } } else { Woc::Clock { t } });
        /// `now`.
        Clock {
            /// `thread_count` (or the ring tail).
            t: u32,
        } @ Ln::Throttle => now() => |ns| Go(Woc::Last { t, now: (ns / 1000) as u32 });
        /// `now - last_thread_creation_time > microsecond_throttling_interval`.
        Last {
            /// `thread_count` (or the ring tail).
            t: u32,
            /// Now, µs.
            now: u32,
        } @ Ln::Throttle => load(gw(m.grp, g::LAST_CREATE)) => |l|
            if now.wrapping_sub(l) > throttle_us(t) { Go(Woc::Cap { t }) } else { Done(WocOut::Nothing) };
        /// `create_worker`: `num_worker_threads >= max_threads && thread_count >= 2` refuses.
        Cap {
            /// `thread_count` (or the ring tail).
            t: u32,
        } @ Ln::CreateWorker => load(NUM_WORKERS) => |n|
            if (n >= m.cfg.max_threads && t >= 2) || t >= m.cfg.group_threads {
                Done(WocOut::Nothing)
            } else {
                Go(Woc::StampNow)
            };
        /// `last_thread_creation_time = now`.
        StampNow @ Ln::CreateWorker => now() => |ns| Go(Woc::Stamp { us: (ns / 1000) as u32 });
        /// `last_thread_creation_time = now`.
        Stamp {
            /// Now, µs.
            us: u32,
        } @ Ln::CreateWorker => store(gw(m.grp, g::LAST_CREATE), us) => |()| Go(Woc::IncThreads);
        /// `add_thread_count(+1)`: `thread_count++`.
        IncThreads @ Ln::CreateWorker => fetch_add(gw(m.grp, g::THREADS), 1) => |_| Go(Woc::IncActive);
        /// `active_thread_count++` (a new worker starts active).
        IncActive @ Ln::CreateWorker => fetch_add(gw(m.grp, g::ACTIVE), 1) => |_| Go(Woc::IncWorkers);
        /// `num_worker_threads++`.
        IncWorkers @ Ln::CreateWorker => fetch_add(NUM_WORKERS, 1) => |_| Go(Woc::Spawn);
        /// `mysql_thread_create(worker_main)`.
        Spawn @ Ln::CreateWorker => sem_post(spawn(m.grp)) => |()| {
            m.created += 1;
            Done(WocOut::Created)
        };
    }
}

// ----- a pool worker -----

/// The priority class of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    /// The normal queue.
    Normal,
    /// The high-priority queue (a connection inside a transaction).
    High,
}

/// One finished query, for the report: which arrival it was and when it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Finished {
    /// The arrival stream it came from (pool: `group * 2 + high`; per-connection: the client).
    pub stream: u32,
    /// Its ordinal in that stream.
    pub ordinal: u32,
    /// When it finished, ns.
    pub at_ns: u64,
}

crate::steps! {
    /// A pool worker (`worker_main`: `get_event`, `listener`, `handle_event`; §3.7-3.11).
    pub enum Work(m: Worker) -> WocOut, line Ln {
        /// Not created yet: wait for `create_worker`.
        Unborn @ Ln::Unborn => sem_wait(spawn(m.grp)) => |()| {
            m.born += 1;
            Go(Work::Start)
        };
        /// The new thread's start (its stack, `worker_main`'s set-up).
        Start @ Ln::Unborn => work(THREAD_START_NS) => |()| Go(Work::Lock);
        /// `lock(group)`.
        Lock @ Ln::GetEvent => mutex_lock(gm(m.grp)) => |()| Go(Work::ReadActive);
        /// `active_thread_count`.
        ReadActive @ Ln::GetEvent => load(m.w(g::ACTIVE)) => |a| Go(Work::ReadStalled { a });
        /// `oversubscribed = active >= 1 + oversubscribe && !stalled`.
        ReadStalled {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::GetEvent => load(m.w(g::STALLED)) => |s| {
            let over = a >= m.cfg.cap() && s == 0;
            Go(if over { Work::IsListener { over } } else { Work::QueueEv { a } })
        };
        /// `queue_event_count++`.
        QueueEv {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::QueueGet => fetch_add(m.w(g::Q_EV), 1) => |_| Go(Work::HighQ { a });
        /// The high-priority head.
        HighQ {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::QueueGet => load(m.w(g::HQ)) => |h|
            Go(if h > 0 { Work::TakeHigh { h } } else { Work::Busy { a } });
        /// `too_many_busy_threads`: `active + waiting > 1 + oversubscribe`.
        Busy {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::QueueGet => load(m.w(g::WAITING)) => |w|
            Go(if a + w > m.cfg.cap() { Work::IsListener { over: false } } else { Work::NormalQ });
        /// The normal head.
        NormalQ @ Ln::QueueGet => load(m.w(g::Q)) => |q|
            Go(if q > 0 { Work::TakeNormal { q } } else { Work::IsListener { over: false } });
        /// Dequeue a high-priority event.
        TakeHigh {
            /// The high-priority count as read.
            h: u32,
        } @ Ln::QueueGet => store(m.w(g::HQ), h - 1) => |()| {
            m.holding = Some(Class::High);
            Go(Work::Ordinal)
        };
        /// Dequeue a normal event.
        TakeNormal {
            /// The normal queue length as read.
            q: u32,
        } @ Ln::QueueGet => store(m.w(g::Q), q - 1) => |()| {
            m.holding = Some(Class::Normal);
            Go(Work::LoginHead)
        };
        /// Is the normal head a login (logins are the queue's first entries)?
        LoginHead @ Ln::QueueGet => load(m.w(g::LOGINQ)) => |l|
            Go(if l > 0 { Work::LoginTake { l } } else { Work::Ordinal });
        /// Take the login: `handle_event` will run `threadpool_add_connection`.
        LoginTake {
            /// Logins queued as read.
            l: u32,
        } @ Ln::QueueGet => store(m.w(g::LOGINQ), l - 1) => |()| {
            m.holding = None;
            m.login = true;
            Go(Work::Unstall)
        };
        /// `if listener == NULL`.
        IsListener {
            /// `oversubscribed`.
            over: bool,
        } @ Ln::BecomeListener => load(m.w(g::LISTENER)) => |l|
            Go(if l == 0 { Work::BecomeListener } else if !over { Work::PollHigh } else { Work::Sleep });
        /// `listener = self`.
        BecomeListener @ Ln::BecomeListener => store(m.w(g::LISTENER), 1) => |()| {
            m.listening = true;
            Go(Work::ListenDec)
        };
        /// `active_thread_count--`.
        ListenDec @ Ln::BecomeListener => fetch_add(m.w(g::ACTIVE), u32::MAX) => |_| Go(Work::ListenUnlock);
        /// `unlock(group)`.
        ListenUnlock @ Ln::BecomeListener => mutex_unlock(gm(m.grp)) => |()| Go(Work::ListenSeq);
        /// `epoll_wait(-1)`: the set's sequence before looking.
        ListenSeq @ Ln::Listen => load(m.w(g::EPSEQ)) => |seq| Go(Work::ListenReady { seq });
        /// Ready normal events.
        ListenReady {
            /// The epoll set's sequence as read.
            seq: u32,
        } @ Ln::Listen => load(m.w(g::RDY)) => |r| Go(Work::ListenHigh { seq, r });
        /// Ready high-priority events; none: sleep.
        ListenHigh {
            /// The epoll set's sequence as read.
            seq: u32,
            /// Ready normal events as read.
            r: u32,
        } @ Ln::Listen => load(m.w(g::HRDY)) => |h|
            Go(if r + h == 0 { Work::ListenSleep { seq } } else { Work::ListenLock });
        /// Sleep in `epoll_wait`.
        ListenSleep {
            /// The epoll set's sequence as read.
            seq: u32,
        } @ Ln::Listen => futex_wait(m.w(g::EPSEQ), seq) => |_| Go(Work::ListenSeq);
        /// `lock(group)`.
        ListenLock @ Ln::Listen => mutex_lock(gm(m.grp)) => |()| Go(Work::HarvestNormal);
        /// Harvest every ready normal event.
        HarvestNormal @ Ln::Listen => swap(m.w(g::RDY), 0) => |r| {
            m.hand_n += r;
            Go(Work::HarvestHigh)
        };
        /// Harvest every ready high-priority event.
        HarvestHigh @ Ln::Listen => swap(m.w(g::HRDY), 0) => |h| {
            m.hand_h += h;
            Go(Work::IoCount)
        };
        /// `io_event_count += n`.
        IoCount @ Ln::Listen => fetch_add(m.w(g::IO_EV), m.hand_n + m.hand_h) => |_| Go(Work::ListenQ);
        /// The normal queue's length.
        ListenQ @ Ln::ListenQueue => load(m.w(g::Q)) => |q| Go(Work::ListenHQ { q });
        /// `listener_picks_event = both queues empty`; keep event 0.
        ListenHQ {
            /// The normal queue length as read.
            q: u32,
        } @ Ln::ListenQueue => load(m.w(g::HQ)) => |h| {
            if q == 0 && h == 0 {
                m.pick();
            }
            Go(Work::PushHigh)
        };
        /// Queue the high-priority ones.
        PushHigh @ Ln::ListenQueue => fetch_add(m.w(g::HQ), m.hand_h) => |_| {
            m.hand_h = 0;
            Go(Work::PushNormal)
        };
        /// Queue the normal ones.
        PushNormal @ Ln::ListenQueue => fetch_add(m.w(g::Q), m.hand_n) => |_| {
            m.hand_n = 0;
            Go(if m.holding.is_some() { Work::ListenActive } else { Work::ListenIdle })
        };
        /// Picked: `active++`.
        ListenActive @ Ln::ListenQueue => fetch_add(m.w(g::ACTIVE), 1) => |_| Go(Work::ListenClear);
        /// `listener = NULL`: the group has no listener while this thread runs the event.
        ListenClear @ Ln::ListenQueue => store(m.w(g::LISTENER), 0) => |()| {
            m.listening = false;
            Go(Work::Ordinal)
        };
        /// Not picking: `if active == 0`.
        ListenIdle @ Ln::ListenWake => load(m.w(g::ACTIVE)) => |a|
            if a == 0 && m.cfg.variant != MysqlVariant::NoListenerWake {
                m.woc_from(true);
                Done(WocOut::Nothing)
            } else {
                Go(Work::ListenUnlock2)
            };
        /// `unlock(group)`; poll again.
        ListenUnlock2 @ Ln::ListenWake => mutex_unlock(gm(m.grp)) => |()| Go(Work::ListenSeq);
        /// `epoll_wait(pollfd, 1, 0)`: a ready high-priority event?
        PollHigh @ Ln::Poll => load(m.w(g::HRDY)) => |h|
            Go(if h > 0 { Work::PollHighTake { h } } else { Work::PollNormal });
        /// Take it.
        PollHighTake {
            /// The high-priority count as read.
            h: u32,
        } @ Ln::Poll => cas(m.w(g::HRDY), h, h - 1) => |ok| {
            if ok {
                m.holding = Some(Class::High);
            }
            Go(if ok { Work::PollIo { keep: true } } else { Work::PollHigh })
        };
        /// A ready normal event?
        PollNormal @ Ln::Poll => load(m.w(g::RDY)) => |r|
            Go(if r > 0 { Work::PollNormalTake { r } } else { Work::Sleep });
        /// Take it.
        PollNormalTake {
            /// Ready normal events as read.
            r: u32,
        } @ Ln::Poll => cas(m.w(g::RDY), r, r - 1) => |ok| {
            if ok {
                m.holding = Some(Class::Normal);
            }
            Go(if ok { Work::PollIo { keep: false } } else { Work::PollNormal })
        };
        /// `io_event_count++`.
        PollIo {
            /// A high-priority event, kept.
            keep: bool,
        } @ Ln::Poll => fetch_add(m.w(g::IO_EV), 1) => |_|
            Go(if keep { Work::PollQueueEv } else { Work::PollActive });
        /// Too many busy threads?
        PollActive @ Ln::Poll => load(m.w(g::ACTIVE)) => |a| Go(Work::PollWaiting { a });
        /// Too many busy threads: queue it.
        PollWaiting {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::Poll => load(m.w(g::WAITING)) => |w|
            Go(if a + w > m.cfg.cap() { Work::PollQueue } else { Work::PollQueueEv });
        /// Append it to the normal queue, then sleep.
        PollQueue @ Ln::Poll => fetch_add(m.w(g::Q), 1) => |_| {
            m.holding = None;
            Go(Work::Sleep)
        };
        /// Kept: `queue_event_count++`.
        PollQueueEv @ Ln::Poll => fetch_add(m.w(g::Q_EV), 1) => |_| Go(Work::Ordinal);
        /// Sleep: `waiting_threads` length.
        Sleep @ Ln::Sleep => load(m.w(g::NWAIT)) => |n| Go(Work::Push { n });
        /// Push self on the front.
        Push {
            /// The length of `waiting_threads`.
            n: u32,
        } @ Ln::Sleep => store(stack(m.grp, n), m.slot as u32) => |()| Go(Work::PushLen { n });
        /// The list's length.
        PushLen {
            /// The length of `waiting_threads`.
            n: u32,
        } @ Ln::Sleep => store(m.w(g::NWAIT), n + 1) => |()| Go(Work::SleepDec);
        /// `active_thread_count--`.
        SleepDec @ Ln::Sleep => fetch_add(m.w(g::ACTIVE), u32::MAX) => |_| Go(Work::Wait);
        /// `cond_timedwait(thread.cond, group.mutex)` (the idle timeout is not modelled).
        Wait @ Ln::Sleep => cond_wait(wcond(m.slot), gm(m.grp)) => |()| {
            m.wakeups += 1;
            Go(Work::SleepInc)
        };
        /// `active_thread_count++`; loop.
        SleepInc @ Ln::Sleep => fetch_add(m.w(g::ACTIVE), 1) => |_| Go(Work::ReadActive);
        /// The event's ordinal in its stream (matches it to its arrival).
        Ordinal @ Ln::GotEvent => fetch_add(m.w(if m.holding == Some(Class::High) { g::DEQ_H } else { g::DEQ_N }), 1) => |o| {
            m.ordinal = o;
            Go(if m.cfg.closed() { Work::Client } else { Work::Unstall })
        };
        /// Closed loop: the event's connection (the epoll event's data).
        Client @ Ln::GotEvent => load(m.cfg.tag(m.stream(), m.ordinal)) => |c| {
            m.client = c;
            Go(Work::Unstall)
        };
        /// `stalled = false`.
        Unstall @ Ln::GotEvent => store(m.w(g::STALLED), 0) => |()| Go(Work::Unlock);
        /// `unlock(group)`: handle the event.
        Unlock @ Ln::GotEvent => mutex_unlock(gm(m.grp)) => |()| Go(m.start_query());
        /// The row lock.
        RowTry @ Ln::RowLock => cas(ROW, 0, 1) => |ok|
            Go(if ok {
                m.locked = true;
                if m.waiting { Work::EndLock } else { Work::Run { left: m.query_ns() } }
            } else if m.waiting || m.cfg.variant == MysqlVariant::NoWaitBegin {
                Work::RowWait
            } else {
                Work::BeginLock
            });
        /// Blocked on the row lock.
        RowWait @ Ln::RowLock => futex_wait(ROW, 1) => |_| Go(Work::RowTry);
        /// `thd_wait_begin`: `lock(group)`.
        BeginLock @ Ln::WaitBegin => mutex_lock(gm(m.grp)) => |()| Go(Work::BeginActive);
        /// `active--`.
        BeginActive @ Ln::WaitBegin => fetch_add(m.w(g::ACTIVE), u32::MAX) => |a| Go(Work::BeginWaiting { a: a - 1 });
        /// `waiting++`; `if active == 0`.
        BeginWaiting {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::WaitBegin => fetch_add(m.w(g::WAITING), 1) => |_| {
            m.waiting = true;
            Go(if a == 0 { Work::BeginListener } else { Work::BeginUnlock })
        };
        /// `|| listener == NULL`.
        BeginListener @ Ln::WaitBegin => load(m.w(g::LISTENER)) => |l|
            if l == 0 { m.woc_from(false); Done(WocOut::Nothing) } else { Go(Work::BeginQ) };
        /// `queues not empty`.
        BeginQ @ Ln::WaitBegin => load(m.w(g::Q)) => |q|
            if q > 0 { m.woc_from(false); Done(WocOut::Nothing) } else { Go(Work::BeginHQ) };
        /// `queues not empty`: `wake_or_create_thread`.
        BeginHQ @ Ln::WaitBegin => load(m.w(g::HQ)) => |h|
            if h > 0 { m.woc_from(false); Done(WocOut::Nothing) } else { Go(Work::BeginUnlock) };
        /// `unlock(group)`; block.
        BeginUnlock @ Ln::WaitBegin => mutex_unlock(gm(m.grp)) => |()| Go(Work::RowWait);
        /// `thd_wait_end`: `lock(group)`.
        EndLock @ Ln::WaitEnd => mutex_lock(gm(m.grp)) => |()| Go(Work::EndActive);
        /// `active++`.
        EndActive @ Ln::WaitEnd => fetch_add(m.w(g::ACTIVE), 1) => |_| Go(Work::EndWaiting);
        /// `waiting--`.
        EndWaiting @ Ln::WaitEnd => fetch_add(m.w(g::WAITING), u32::MAX) => |_| {
            m.waiting = false;
            Go(Work::EndUnlock)
        };
        /// `unlock(group)`.
        EndUnlock @ Ln::WaitEnd => mutex_unlock(gm(m.grp)) => |()| Go(Work::Run { left: m.query_ns() });
        /// `handle_event` of a login: `threadpool_add_connection`; then `start_io` arms the
        /// socket (`EPOLL_CTL_ADD`): the connection's queries come through epoll from now on.
        LoginRun @ Ln::Login => work(LOGIN_NS) => |()| {
            m.login = false;
            m.logins_done += 1;
            Go(Work::Lock)
        };
        /// `do_command`: the query's CPU time.
        Run {
            /// CPU time left, ns.
            left: u64,
        } @ Ln::Handle => work(left.min(SLICE_NS)) => |()|
            Go(if left > SLICE_NS {
                Work::Run { left: left - SLICE_NS }
            } else if m.locked {
                Work::RowRelease
            } else {
                Work::Clock
            });
        /// Release the row lock.
        RowRelease @ Ln::RowUnlock => store(ROW, 0) => |()| {
            m.locked = false;
            Go(Work::RowWake)
        };
        /// Wake one waiter.
        RowWake @ Ln::RowUnlock => futex_wake(ROW, WakeCount::Up(1)) => |_| Go(Work::Clock);
        /// The response is sent; `start_io` re-arms the socket (one-shot): the client's next query
        /// will be delivered once.
        Clock @ Ln::Rearm => now() => |t| {
            m.finish(t);
            Go(if m.cfg.closed() { Work::Answer } else { Work::Lock })
        };
        /// Closed loop: the response reaches the client's socket (it may think, then send again).
        Answer @ Ln::Rearm => fetch_add(m.cfg.answered(m.client), 1) => |_| Go(Work::Notify);
        /// Closed loop: the client's load-generator thread has a response to read.
        Notify @ Ln::Rearm => fetch_add(m.cfg.resp(m.client), 1) => |_| Go(Work::WakeRecv);
        /// Closed loop: it wakes from `epoll_wait` (if it sleeps there).
        WakeRecv @ Ln::Rearm => futex_wake(m.cfg.resp(m.client), WakeCount::Up(1)) => |_| Go(Work::Lock);
    }
}

/// Where a pool worker is: its own table, or a `wake_or_create_thread` it called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkerAt {
    /// In `worker_main`.
    Work(Work),
    /// In `wake_or_create_thread`, called from the listener or from `thd_wait_begin`.
    Woc(Woc),
}

/// A pool worker thread: a slot of its group that `create_worker` brings to life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    /// The configuration.
    pub cfg: MysqlConfig,
    /// Its group.
    pub grp: u8,
    /// Its slot (its condition variable).
    pub slot: u8,
    /// Where it is.
    pub at: WorkerAt,
    woc: WocCx,
    woc_listener: bool,
    /// Ghost: the event it runs, if any.
    pub holding: Option<Class>,
    /// Ghost: events harvested by the listener, not yet queued.
    pub hand_n: u32,
    /// Ghost: high-priority events harvested, not yet queued.
    pub hand_h: u32,
    /// Ghost: it is the group's listener.
    pub listening: bool,
    /// Ghost: it is inside `thd_wait_begin/end`.
    pub waiting: bool,
    /// Ghost: the event it runs is a login.
    pub login: bool,
    /// Logins it handled.
    pub logins_done: u32,
    locked: bool,
    ordinal: u32,
    /// Closed loop: the connection of the event it runs.
    client: u32,
    /// Times it was created.
    pub born: u32,
    /// Times it was woken from `waiting_threads`.
    pub wakeups: u32,
    /// Queries it finished.
    pub done: Vec<Finished>,
}

impl Worker {
    /// Slot `slot` of group `grp`; slot 0 is the group's first thread.
    pub fn new(cfg: MysqlConfig, grp: u8, slot: u8) -> Self {
        Worker {
            cfg,
            grp,
            slot,
            at: WorkerAt::Work(Work::Unborn),
            woc: WocCx {
                cfg,
                grp,
                from_listener: false,
                created: 0,
            },
            woc_listener: false,
            holding: None,
            hand_n: 0,
            hand_h: 0,
            listening: false,
            waiting: false,
            login: false,
            logins_done: 0,
            locked: false,
            ordinal: 0,
            client: 0,
            born: 0,
            wakeups: 0,
            done: Vec::new(),
        }
    }

    #[inline(always)]
    fn w(&self, off: u8) -> Word {
        gw(self.grp, off)
    }

    fn pick(&mut self) {
        if self.hand_h > 0 {
            self.hand_h -= 1;
            self.holding = Some(Class::High);
        } else if self.hand_n > 0 {
            self.hand_n -= 1;
            self.holding = Some(Class::Normal);
        }
    }

    fn woc_from(&mut self, listener: bool) {
        self.woc_listener = listener;
        self.woc.from_listener = listener;
    }

    fn stream(&self) -> u32 {
        self.grp as u32 * 2 + u32::from(self.holding == Some(Class::High))
    }

    fn query_id(&self) -> u64 {
        ((self.stream() as u64) << 32) | self.ordinal as u64
    }

    fn start_query(&self) -> Work {
        if self.login {
            Work::LoginRun
        } else if self.cfg.needs_lock(self.query_id()) {
            Work::RowTry
        } else {
            Work::Run {
                left: self.query_ns(),
            }
        }
    }

    fn query_ns(&self) -> u64 {
        if self.cfg.long_ns > 0 && self.stream() == 0 && self.ordinal == 0 {
            self.cfg.long_ns
        } else {
            self.cfg.cpu_ns
        }
    }

    fn finish(&mut self, t: u64) {
        self.done.push(Finished {
            stream: self.stream(),
            ordinal: self.ordinal,
            at_ns: t,
        });
        self.holding = None;
    }

    /// Threads this worker's calls of `wake_or_create_thread` created.
    pub fn created(&self) -> u32 {
        self.woc.created
    }

    /// The operation of its next step.
    pub fn op(&self) -> Op {
        match self.at {
            WorkerAt::Work(s) => s.op(self),
            WorkerAt::Woc(s) => s.op(&self.woc),
        }
    }

    /// Complete its step.
    pub fn complete(&mut self, r: OpResult) {
        match self.at {
            WorkerAt::Work(s) => {
                self.at = match s.complete(self, r) {
                    Next::Go(s) => WorkerAt::Work(s),
                    Next::Done(_) => WorkerAt::Woc(Woc::Start),
                }
            }
            WorkerAt::Woc(s) => {
                self.at = match s.complete(&mut self.woc, r) {
                    Next::Go(s) => WorkerAt::Woc(s),
                    Next::Done(_) => self.after_woc(),
                }
            }
        }
    }

    /// Where `wake_or_create_thread` returns to: the listener's unlock, or `thd_wait_begin`'s.
    fn after_woc(&self) -> WorkerAt {
        WorkerAt::Work(if self.woc_listener {
            Work::ListenUnlock2
        } else {
            Work::BeginUnlock
        })
    }

    /// Straight-line form (the native platform): run `worker_main` and the
    /// `wake_or_create_thread` calls it makes, with the same transitions as [`Worker::complete`],
    /// until the platform stops it (a worker never returns on its own: the idle timeout is not
    /// modelled); the state is left where the run stopped.
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        loop {
            match self.at {
                WorkerAt::Work(s) => match s.run(self, p) {
                    Ok(_) => self.at = WorkerAt::Woc(Woc::Start),
                    Err(Stopped { state, error }) => {
                        self.at = WorkerAt::Work(state);
                        return Err(error);
                    }
                },
                WorkerAt::Woc(s) => match s.run(&mut self.woc, p) {
                    Ok(_) => self.at = self.after_woc(),
                    Err(Stopped { state, error }) => {
                        self.at = WorkerAt::Woc(state);
                        return Err(error);
                    }
                },
            }
        }
    }

    /// The line it is on.
    pub fn line_name(&self) -> Ln {
        match self.at {
            WorkerAt::Work(s) => s.line(self),
            WorkerAt::Woc(s) => s.line(&self.woc),
        }
    }

    /// Whether it holds its group's mutex (between its lock and unlock).
    pub fn holds_group_mutex(&self) -> bool {
        match self.at {
            WorkerAt::Woc(_) => true,
            WorkerAt::Work(s) => !matches!(
                s,
                Work::Unborn
                    | Work::Start
                    | Work::Lock
                    | Work::ListenSeq
                    | Work::ListenReady { .. }
                    | Work::ListenHigh { .. }
                    | Work::ListenSleep { .. }
                    | Work::ListenLock
                    | Work::Wait
                    | Work::RowTry
                    | Work::RowWait
                    | Work::BeginLock
                    | Work::EndLock
                    | Work::Run { .. }
                    | Work::LoginRun
                    | Work::RowRelease
                    | Work::RowWake
                    | Work::Clock
            ),
        }
    }
}

// ----- the timer -----

/// The timer's context: the group it checks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Timer {
    /// The configuration.
    pub cfg: MysqlConfig,
    /// The group being checked.
    pub grp: u8,
    /// Where it is.
    pub at: TimerAt,
    woc: WocCx,
    stall_path: bool,
    /// Ticks seen.
    pub ticks: u32,
    /// Stalls declared.
    pub stalls: u32,
}

/// Where the timer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerAt {
    /// Its own table.
    Tick(Tick),
    /// In `wake_or_create_thread`.
    Woc(Woc),
}

crate::steps! {
    /// The timer thread (`timer_thread`, `check_stall`; §3.12).
    pub enum Tick(m: Timer) -> (), line Ln {
        /// The tick counter before sleeping.
        Seq @ Ln::TimerWait => load(TICK) => |seq| Go(Tick::Sleep { seq });
        /// `cond_timedwait(tick_interval)`.
        Sleep {
            /// The epoll set's sequence as read.
            seq: u32,
        } @ Ln::TimerWait => futex_wait(TICK, seq) => |_| {
            m.ticks += 1;
            m.grp = 0;
            Go(if m.cfg.variant == MysqlVariant::NoStallTimer { Tick::Seq } else { Tick::Lock })
        };
        /// `check_stall`: lock the group.
        Lock @ Ln::CheckStall => mutex_lock(gm(m.grp)) => |()| Go(Tick::Listener);
        /// `listener == NULL`?
        Listener @ Ln::NoListener => load(gw(m.grp, g::LISTENER)) => |l| Go(Tick::Io { l });
        /// `&& io_event_count == 0`: wake or create (the new thread becomes the listener).
        Io {
            /// `listener` as read.
            l: u32,
        } @ Ln::NoListener => load(gw(m.grp, g::IO_EV)) => |io|
            if l == 0 && io == 0 {
                m.stall_path = false;
                Done(())
            } else {
                Go(Tick::IoClear)
            };
        /// `io_event_count = 0`.
        IoClear @ Ln::NoListener => store(gw(m.grp, g::IO_EV), 0) => |()| Go(Tick::QueueEv);
        /// `queue_event_count == 0`?
        QueueEv @ Ln::Stalled => load(gw(m.grp, g::Q_EV)) => |qe|
            Go(if qe == 0 { Tick::High } else { Tick::QueueEvClear });
        /// High-priority queue not empty?
        High @ Ln::Stalled => load(gw(m.grp, g::HQ)) => |h|
            Go(if h > 0 { Tick::Stall } else { Tick::Normal });
        /// Normal queue not empty (and not busy-limited)?
        Normal @ Ln::Stalled => load(gw(m.grp, g::Q)) => |q|
            Go(if q > 0 { Tick::BusyA } else { Tick::QueueEvClear });
        /// `too_many_busy_threads` makes the normal queue count as empty.
        BusyA @ Ln::Stalled => load(gw(m.grp, g::ACTIVE)) => |a| Go(Tick::BusyW { a });
        /// `too_many_busy_threads` makes the normal queue count as empty.
        BusyW {
            /// `active_thread_count` as read.
            a: u32,
        } @ Ln::Stalled => load(gw(m.grp, g::WAITING)) => |w|
            Go(if a + w > m.cfg.cap() { Tick::QueueEvClear } else { Tick::Stall });
        /// `stalled = true`; wake or create.
        Stall @ Ln::Stalled => store(gw(m.grp, g::STALLED), 1) => |()| {
            m.stalls += 1;
            m.stall_path = true;
            Done(())
        };
        /// `queue_event_count = 0`.
        QueueEvClear @ Ln::Stalled => store(gw(m.grp, g::Q_EV), 0) => |()| Go(Tick::Unlock);
        /// `unlock(group)`; the next group.
        Unlock @ Ln::CheckStall => mutex_unlock(gm(m.grp)) => |()| {
            m.grp += 1;
            Go(if (m.grp as u32) < m.cfg.groups { Tick::Lock } else { Tick::Seq })
        };
    }
}

impl Timer {
    /// The timer.
    pub fn new(cfg: MysqlConfig) -> Self {
        Timer {
            cfg,
            grp: 0,
            at: TimerAt::Tick(Tick::Seq),
            woc: WocCx {
                cfg,
                grp: 0,
                from_listener: false,
                created: 0,
            },
            stall_path: false,
            ticks: 0,
            stalls: 0,
        }
    }
    /// Threads its calls of `wake_or_create_thread` created.
    pub fn created(&self) -> u32 {
        self.woc.created
    }
    fn op(&self) -> Op {
        match self.at {
            TimerAt::Tick(s) => s.op(self),
            TimerAt::Woc(s) => s.op(&self.woc),
        }
    }
    fn complete(&mut self, r: OpResult) {
        match self.at {
            TimerAt::Tick(s) => {
                self.at = match s.complete(self, r) {
                    Next::Go(s) => TimerAt::Tick(s),
                    Next::Done(()) => self.enter_woc(),
                }
            }
            TimerAt::Woc(s) => {
                self.at = match s.complete(&mut self.woc, r) {
                    Next::Go(s) => TimerAt::Woc(s),
                    Next::Done(_) => self.after_woc(),
                }
            }
        }
    }
    fn enter_woc(&mut self) -> TimerAt {
        self.woc.grp = self.grp;
        TimerAt::Woc(Woc::Start)
    }
    /// After a no-listener wake the real code unlocks and returns; after a stall it clears
    /// `queue_event_count` first.
    fn after_woc(&self) -> TimerAt {
        TimerAt::Tick(if self.stall_path {
            Tick::QueueEvClear
        } else {
            Tick::Unlock
        })
    }
    /// Straight-line form (the native platform): the timer's loop and its
    /// `wake_or_create_thread` calls, with the transitions of its stepped form, until the platform
    /// stops it; the state is left where the run stopped.
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        loop {
            match self.at {
                TimerAt::Tick(s) => match s.run(self, p) {
                    Ok(_) => self.at = self.enter_woc(),
                    Err(Stopped { state, error }) => {
                        self.at = TimerAt::Tick(state);
                        return Err(error);
                    }
                },
                TimerAt::Woc(s) => match s.run(&mut self.woc, p) {
                    Ok(_) => self.at = self.after_woc(),
                    Err(Stopped { state, error }) => {
                        self.at = TimerAt::Woc(state);
                        return Err(error);
                    }
                },
            }
        }
    }
    fn line_name(&self) -> Ln {
        match self.at {
            TimerAt::Tick(s) => s.line(self),
            TimerAt::Woc(s) => s.line(&self.woc),
        }
    }
}

// ----- thread-per-connection -----

/// A thread of thread-per-connection mode (`handle_connection`, `block_until_new_connection`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnThread {
    /// The configuration.
    pub cfg: MysqlConfig,
    /// Where it is.
    pub at: Conn,
    /// The client whose connection it serves.
    pub client: u32,
    /// Queries it served on this connection.
    pub served: u32,
    /// Ghost: parked in the cache (between `blocked++` and `blocked--`).
    pub parked: bool,
    locked: bool,
    ordinal: u32,
    /// Times it was created.
    pub born: u32,
    /// Times it took a connection from the cache.
    pub reused: u32,
    /// Queries it finished.
    pub done: Vec<Finished>,
}

crate::steps! {
    /// A thread of thread-per-connection mode.
    pub enum Conn(m: ConnThread) -> (), line Ln {
        /// Not created: wait for `mysql_thread_create`.
        Unborn @ Ln::Unborn => sem_wait(CONN_SPAWN) => |()| {
            m.born += 1;
            Go(Conn::Alive)
        };
        /// One more OS thread.
        Alive @ Ln::Unborn => fetch_add(ALIVE, 1) => |_| Go(Conn::Start);
        /// The new thread's start: its stack, `init_new_thd`.
        Start @ Ln::Unborn => work(THREAD_START_NS) => |()| Go(Conn::TakeLock);
        /// Take the channel: `lock(LOCK_thread_cache)`.
        TakeLock @ Ln::TakeChannel => mutex_lock(CACHE_MTX) => |()| Go(Conn::Head);
        /// The ring's head.
        Head @ Ln::TakeChannel => load(HEAD) => |h| Go(Conn::Channel { h });
        /// The channel.
        Channel {
            /// The high-priority count as read.
            h: u32,
        } @ Ln::TakeChannel => load(m.cfg.ring(h)) => |c| {
            m.client = c;
            m.served = 0;
            Go(Conn::Advance { h })
        };
        /// Pop it.
        Advance {
            /// The high-priority count as read.
            h: u32,
        } @ Ln::TakeChannel => store(HEAD, h + 1) => |()| Go(Conn::TakeUnlock);
        /// `unlock`.
        TakeUnlock @ Ln::TakeChannel => mutex_unlock(CACHE_MTX) => |()| Go(Conn::Read);
        /// `do_command`: is a query there?
        Read @ Ln::ReadQuery => load(m.cfg.pend(m.client)) => |p|
            Go(if p == 0 { Conn::ReadWait } else { Conn::ReadTake { p } });
        /// Blocking `read`.
        ReadWait @ Ln::ReadQuery => futex_wait(m.cfg.pend(m.client), 0) => |_| Go(Conn::Read);
        /// Take it.
        ReadTake {
            /// Pending queries as read.
            p: u32,
        } @ Ln::ReadQuery => cas(m.cfg.pend(m.client), p, p - 1) => |ok|
            Go(if ok { Conn::Ordinal } else { Conn::Read });
        /// Its ordinal.
        Ordinal @ Ln::ReadQuery => fetch_add(m.cfg.served(m.client), 1) => |o| {
            m.ordinal = o;
            Go(if m.cfg.needs_lock(((m.client as u64) << 32) | o as u64) { Conn::RowTry } else { Conn::Run { left: m.cfg.cpu_ns } })
        };
        /// The row lock.
        RowTry @ Ln::RowLock => cas(ROW, 0, 1) => |ok| {
            m.locked = ok;
            Go(if ok { Conn::Run { left: m.cfg.cpu_ns } } else { Conn::RowWait })
        };
        /// Blocked on it.
        RowWait @ Ln::RowLock => futex_wait(ROW, 1) => |_| Go(Conn::RowTry);
        /// The query's CPU time.
        Run {
            /// CPU time left, ns.
            left: u64,
        } @ Ln::Handle => work(left.min(SLICE_NS)) => |()|
            Go(if left > SLICE_NS {
                Conn::Run { left: left - SLICE_NS }
            } else if m.locked {
                Conn::RowRelease
            } else {
                Conn::Clock
            });
        /// Release the row lock.
        RowRelease @ Ln::RowUnlock => store(ROW, 0) => |()| {
            m.locked = false;
            Go(Conn::RowWake)
        };
        /// Wake one waiter.
        RowWake @ Ln::RowUnlock => futex_wake(ROW, WakeCount::Up(1)) => |_| Go(Conn::Clock);
        /// The response is sent.
        Clock @ Ln::Handle => now() => |t| {
            m.done.push(Finished { stream: m.client, ordinal: m.ordinal, at_ns: t });
            m.served += 1;
            Go(if m.cfg.closed() { Conn::Answer } else { m.after_response() })
        };
        /// Closed loop: the response reaches the client's socket (it may think, then send again).
        Answer @ Ln::Handle => fetch_add(m.cfg.answered(m.client), 1) => |_| Go(Conn::Notify);
        /// Closed loop: the client's load-generator thread has a response to read.
        Notify @ Ln::Handle => fetch_add(m.cfg.resp(m.client), 1) => |_| Go(Conn::WakeRecv);
        /// Closed loop: it wakes from `epoll_wait` (if it sleeps there).
        WakeRecv @ Ln::Handle => futex_wake(m.cfg.resp(m.client), WakeCount::Up(1)) => |_| Go(m.after_response());
        /// The client closed: `block_until_new_connection`: `lock`.
        ParkLock @ Ln::Park => mutex_lock(CACHE_MTX) => |()| Go(Conn::Blocked);
        /// `if blocked_pthread_count < max_blocked_pthreads`.
        Blocked @ Ln::Park => load(BLOCKED) => |b|
            Go(if b < m.cfg.cache_size { Conn::Park { b } } else { Conn::ExitUnlock });
        /// `blocked_pthread_count++`.
        Park {
            /// `blocked_pthread_count` as read.
            b: u32,
        } @ Ln::Park => store(BLOCKED, b + 1) => |()| {
            m.parked = true;
            Go(Conn::ParkClosed)
        };
        /// The connection is gone on the server's side: its client may reconnect.
        ParkClosed @ Ln::Park => fetch_add(m.cfg.closes(m.client), 1) => |_| Go(Conn::ParkTell);
        /// The socket's close wakes the client if it waits for it.
        ParkTell @ Ln::Park => futex_wake(m.cfg.closes(m.client), WakeCount::Up(1)) => |_| Go(Conn::CacheWait);
        /// `cond_wait(COND_thread_cache)` (no timeout).
        CacheWait @ Ln::Park => cond_wait(CACHE_COND, CACHE_MTX) => |()| Go(Conn::WakeCount);
        /// `while !wake_pthread`.
        WakeCount @ Ln::Park => load(WAKE) => |w|
            Go(if w == 0 { Conn::CacheWait } else { Conn::Unpark { w } });
        /// `wake_pthread--`.
        Unpark {
            /// `wake_pthread` as read.
            w: u32,
        } @ Ln::Park => store(WAKE, w - 1) => |()| Go(Conn::Unblock);
        /// `blocked_pthread_count--`.
        Unblock @ Ln::Park => fetch_add(BLOCKED, u32::MAX) => |_| {
            m.parked = false;
            m.reused += 1;
            Go(Conn::Head)
        };
        /// Cache full: `unlock`; the thread exits.
        ExitUnlock @ Ln::ThreadExit => mutex_unlock(CACHE_MTX) => |()| Go(Conn::Dead);
        /// One OS thread fewer.
        Dead @ Ln::ThreadExit => fetch_add(ALIVE, u32::MAX) => |_| Go(Conn::Closed);
        /// The connection is gone on the server's side (its client may reconnect); the slot may be
        /// created again.
        Closed @ Ln::ThreadExit => fetch_add(m.cfg.closes(m.client), 1) => |_| Go(Conn::Tell);
        /// The socket's close wakes the client if it waits for it.
        Tell @ Ln::ThreadExit => futex_wake(m.cfg.closes(m.client), WakeCount::Up(1)) => |_| Go(Conn::Unborn);
    }
}

impl ConnThread {
    /// After a response: the next query, or (the client closed after `queries_per_conn`)
    /// `block_until_new_connection`.
    fn after_response(&self) -> Conn {
        if self.served >= self.cfg.queries_per_conn {
            Conn::ParkLock
        } else {
            Conn::Read
        }
    }

    /// Straight-line form (the native platform): `handle_connection` until the platform stops it
    /// (the table has no end: an exited thread waits to be created again); the state is left where
    /// the run stopped.
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        match self.at.run(self, p) {
            Ok((s, ())) => {
                self.at = s;
                Ok(())
            }
            Err(Stopped { state, error }) => {
                self.at = state;
                Err(error)
            }
        }
    }

    /// An unborn slot.
    pub fn new(cfg: MysqlConfig) -> Self {
        ConnThread {
            cfg,
            at: Conn::Unborn,
            client: 0,
            served: 0,
            parked: false,
            locked: false,
            ordinal: 0,
            born: 0,
            reused: 0,
            done: Vec::new(),
        }
    }
}

// ----- the clients -----

crate::steps! {
    /// The clients and the kernel's side of their sockets: each query arrives (the arrival
    /// stream), is delivered to its connection (pool: the group's epoll set; per-connection: the
    /// thread's socket, with `add_connection` first when the client has reconnected), and the
    /// clock ticks the pool's timer.
    pub enum Feed(m: Clients) -> (), line Ln {
        /// Pool start: `connection_count` of the group.
        InitConns @ Ln::Await => store(gw(m.grp, g::CONNS), m.cfg.conns_of(m.grp as u32)) => |()| Go(Feed::InitThreads);
        /// The group's first thread (created by the first login's `queue_put`).
        InitThreads @ Ln::Await => fetch_add(gw(m.grp, g::THREADS), 1) => |_| Go(Feed::InitActive);
        /// It starts active.
        InitActive @ Ln::Await => fetch_add(gw(m.grp, g::ACTIVE), 1) => |_| Go(Feed::InitWorkers);
        /// `num_worker_threads++`.
        InitWorkers @ Ln::Await => fetch_add(NUM_WORKERS, 1) => |_| Go(Feed::InitSpawn);
        /// `create_worker`.
        InitSpawn @ Ln::Await => sem_post(spawn(m.grp)) => |()| {
            m.grp += 1;
            Go(if (m.grp as u32) < m.cfg.groups { Feed::InitConns } else { Feed::Await })
        };
        /// Pool, `add_connection` of connection `login_c` (all at the start): `queue_put`:
        /// `lock(group)`.
        PutLock @ Ln::QueuePut => mutex_lock(gm(m.grp)) => |()| Go(Feed::PutQueue);
        /// `queue.push_back(connection)`: the login.
        PutQueue @ Ln::QueuePut => fetch_add(gw(m.grp, g::Q), 1) => |_| {
            m.logins_put[m.grp as usize] += 1;
            Go(Feed::PutMark)
        };
        /// One more login among the normal queue's first entries.
        PutMark @ Ln::QueuePut => fetch_add(gw(m.grp, g::LOGINQ), 1) => |_| Go(Feed::PutActive);
        /// `if active_thread_count == 0: wake_or_create_thread` (the `no-listener-wake` variant
        /// skips it).
        PutActive @ Ln::QueuePut => load(gw(m.grp, g::ACTIVE)) => |a|
            if a == 0 && m.cfg.variant != MysqlVariant::NoListenerWake {
                m.woc.grp = m.grp;
                Done(())
            } else {
                Go(Feed::PutUnlock)
            };
        /// `unlock(group)`; the next connection.
        PutUnlock @ Ln::QueuePut => mutex_unlock(gm(m.grp)) => |()| {
            m.login_c += 1;
            m.grp = (m.login_c % m.cfg.groups.max(1)) as u8;
            Go(if m.login_c < m.cfg.connections { Feed::PutLock } else { m.arrive(m.now) })
        };
        /// The next query (or a clock event once all are sent; once there are no more events, the
        /// queries clients still hold).
        Await @ Ln::Await => await_event() => |ev|
            if ev {
                Go(Feed::Clock)
            } else if m.held.iter().any(|&h| h > 0) {
                Go(m.after_delivery())
            } else {
                Done(())
            };
        /// Its time.
        Clock @ Ln::Await => now() => |t| Go(m.arrive(t));
        /// Closed loop, a load-generator thread ([`Clients::receiver`]): the responses so far.
        Recv @ Ln::Await => load(m.cfg.resp(m.grp as u32)) => |seen| Go(Feed::RecvWait { seen });
        /// `epoll_wait` until another response reaches one of its connections.
        RecvWait {
            /// The responses it has read.
            seen: u32,
        } @ Ln::Await => futex_wait(m.cfg.resp(m.grp as u32), seen) => |_| Go(Feed::Recv);
        /// Closed loop: has the chosen client its answer (else it still waits: a clock event)?
        Outstanding @ Ln::Await => load(m.cfg.answered(m.client)) => |a|
            Go(if m.per_client[m.client as usize] > a { m.after_delivery() } else { m.send() });
        /// Closed loop, pool: the event names its connection (the epoll event's data).
        Tag {
            /// The ready-count word of the event's group and class.
            word: Word,
        } @ Ln::Deliver => store(m.tag, m.client) => |()| Go(Feed::Deliver { word });
        /// Pool: the socket becomes readable in its group's epoll set.
        Deliver {
            /// The ready-count word of the event's group and class.
            word: Word,
        } @ Ln::Deliver => fetch_add(word, 1) => |_| Go(Feed::Seq);
        /// `ep_poll_callback`.
        Seq @ Ln::Deliver => fetch_add(gw(m.grp, g::EPSEQ), 1) => |_| Go(Feed::WakeListener);
        /// Wake the listener if it sleeps in `epoll_wait`.
        WakeListener @ Ln::Deliver => futex_wake(gw(m.grp, g::EPSEQ), WakeCount::Up(1)) => |_| Go(m.after_delivery());
        /// Per-connection, the client's next connection: is its old one gone on the server's side
        /// (else the client holds its queries)?
        Reopen @ Ln::AddConn => load(m.cfg.closes(m.client)) => |n| Go(m.reopen(n));
        /// Per-connection, every query has arrived and clients still hold some: wait until the
        /// first such client's old connection is gone (its socket closes).
        CloseWait {
            /// The client's connections closed as last seen.
            closed: u32,
        } @ Ln::Await => futex_wait(m.cfg.closes(m.client), closed) => |_| Go(m.after_delivery());
        /// Per-connection: `lock(LOCK_thread_cache)`.
        AddLock @ Ln::AddConn => mutex_lock(CACHE_MTX) => |()| Go(Feed::AddBlocked);
        /// `blocked_pthread_count`.
        AddBlocked @ Ln::AddConn => load(BLOCKED) => |b| Go(Feed::AddWake { b });
        /// `> wake_pthread`?
        AddWake {
            /// `blocked_pthread_count` as read.
            b: u32,
        } @ Ln::AddConn => load(WAKE) => |w| {
            let hand_off = if m.cfg.variant == MysqlVariant::CacheAnyBlocked { b > 0 } else { b > w };
            Go(Feed::AddTail { hand_off })
        };
        /// The channel ring's tail.
        AddTail {
            /// Whether a cached thread takes the connection.
            hand_off: bool,
        } @ Ln::AddConn => load(TAIL) => |t| Go(Feed::AddPut { hand_off, t });
        /// Enqueue the channel.
        AddPut {
            /// Whether a cached thread takes the connection.
            hand_off: bool,
            /// `thread_count` (or the ring tail).
            t: u32,
        } @ Ln::AddConn => store(m.cfg.ring(t), m.client) => |()| Go(Feed::AddAdvance { hand_off, t });
        /// Enqueue the channel.
        AddAdvance {
            /// Whether a cached thread takes the connection.
            hand_off: bool,
            /// `thread_count` (or the ring tail).
            t: u32,
        } @ Ln::AddConn => store(TAIL, t + 1) => |()|
            Go(if hand_off { Feed::AddWakeInc } else { Feed::AddUnlock { create: true } });
        /// `wake_pthread++`.
        AddWakeInc @ Ln::AddConn => fetch_add(WAKE, 1) => |_| Go(Feed::AddSignal);
        /// `cond_signal(COND_thread_cache)`.
        AddSignal @ Ln::AddConn => cond_notify(CACHE_COND, WakeCount::Up(1)) => |()| {
            m.handed_off += 1;
            Go(Feed::AddUnlock { create: false })
        };
        /// `unlock`.
        AddUnlock {
            /// Whether a thread must be created.
            create: bool,
        } @ Ln::AddConn => mutex_unlock(CACHE_MTX) => |()|
            Go(if create { Feed::Create } else { m.after_connect() });
        /// `mysql_thread_create`; `Threads_created++`.
        Create @ Ln::CreateThread => sem_post(CONN_SPAWN) => |()| {
            m.threads_created += 1;
            Go(m.after_connect())
        };
        /// The query (or the queries the client held while it reconnected) reaches the
        /// connection's socket.
        Pend @ Ln::Deliver => fetch_add(m.cfg.pend(m.client), m.deliver) => |_| Go(Feed::WakeReader);
        /// Wake the thread blocked in `read`.
        WakeReader @ Ln::Deliver => futex_wake(m.cfg.pend(m.client), WakeCount::Up(1)) => |_| Go(m.after_delivery());
        /// Pool: a tick of `thread_pool_stall_limit` for the timer.
        TickAdd @ Ln::TickOut => fetch_add(TICK, 1) => |_| Go(Feed::TickWake);
        /// Wake the timer.
        TickWake @ Ln::TickOut => futex_wake(TICK, WakeCount::Up(1)) => |_| Go(Feed::Await);
    }
}

/// The clients' state: which client sends next, where each is in its transaction and
/// connection, the arrival times of every stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clients {
    /// The configuration.
    pub cfg: MysqlConfig,
    /// Where it is.
    pub at: Feed,
    grp: u8,
    client: u32,
    rng: u64,
    now: u64,
    next_tick: u64,
    /// Closed loop, pool: the ring word naming the event being delivered.
    tag: Word,
    /// Queries sent so far.
    pub sent: u32,
    /// Per client: queries sent so far.
    pub per_client: Vec<u32>,
    /// Per stream: the arrival time of each event, by ordinal.
    pub arrivals: Vec<Vec<u64>>,
    /// Ghost, per stream: whether each event is a statement inside a transaction (statements
    /// 2.. of one), by ordinal, whichever queue it went to.
    pub in_txn: Vec<Vec<bool>>,
    /// Per-connection: `Threads_created`.
    pub threads_created: u32,
    /// Per-connection: connections handed to a cached thread.
    pub handed_off: u32,
    /// Per-connection: connections opened.
    pub connects: u32,
    /// Per-connection, per client: queries it holds while it reconnects (its old connection is
    /// still on the server).
    pub held: Vec<u32>,
    /// Per-connection, per client: connections it opened.
    pub opened: Vec<u32>,
    /// Per-connection: queries [`Feed::Pend`] delivers (1, or the held ones).
    deliver: u32,
    /// Per-connection: the next client whose held queries to look at after this event.
    scan: u32,
    /// Per-connection: [`Feed::Reopen`] runs for the held queries (not for a new one).
    flushing: bool,
    /// Per-connection: the clients are connecting at the start (each client's first connection
    /// is accepted before any query: `add_connection` creates or hands off its thread then).
    connecting: bool,
    /// Pool: the connections log in at the first arrival (`queue_put`).
    logins: bool,
    /// Pool: the connection whose login `queue_put` is queueing.
    login_c: u32,
    /// Ghost, pool, per group: logins queued so far.
    pub logins_put: Vec<u32>,
    /// Pool: `queue_put`'s `wake_or_create_thread`.
    woc: WocCx,
    /// Pool: where `queue_put`'s `wake_or_create_thread` is (`None`: in [`Feed`]).
    pub woc_at: Option<Woc>,
}

impl Clients {
    /// The clients of a scenario.
    pub fn new(cfg: MysqlConfig) -> Self {
        let streams = match cfg.mode {
            Mode::Pool => cfg.groups as usize * 2,
            Mode::PerConnection => cfg.connections as usize,
        };
        let per_conn_clients = match cfg.mode {
            Mode::Pool => 0,
            Mode::PerConnection => cfg.connections as usize,
        };
        Clients {
            cfg,
            at: if cfg.mode == Mode::Pool {
                Feed::InitConns
            } else {
                Feed::Await
            },
            grp: 0,
            client: 0,
            rng: cfg.seed ^ 0x5851_F42D_4C95_7F2D,
            now: 0,
            next_tick: cfg.stall_ns,
            tag: Word(0),
            sent: 0,
            per_client: vec![0; cfg.connections as usize],
            arrivals: vec![Vec::new(); streams],
            in_txn: vec![Vec::new(); streams],
            threads_created: 0,
            handed_off: 0,
            connects: 0,
            held: vec![0; per_conn_clients],
            opened: vec![0; per_conn_clients],
            deliver: 1,
            scan: 0,
            flushing: false,
            connecting: false,
            logins: false,
            login_c: 0,
            logins_put: vec![0; MAX_GROUPS as usize],
            woc: WocCx {
                cfg,
                grp: 0,
                from_listener: false,
                created: 0,
            },
            woc_at: None,
        }
    }

    /// Threads `queue_put`'s calls of `wake_or_create_thread` created.
    pub fn created(&self) -> u32 {
        self.woc.created
    }

    /// The simulator's clients. Pool, with [`MysqlConfig::logins`]: every connection logs in at
    /// the first arrival (the server has started; then the clients connect, then the first
    /// query is sent): `add_connection`'s `queue_put` ([`Feed::PutLock`] …) queues its login,
    /// waking or creating a worker when the group has no active thread. Per-connection: every client connects at the start, before its
    /// first query, as MySQL's acceptor calls `add_connection` when it accepts the socket (the
    /// thread is created, or taken from the cache, then; [`Feed::AddLock`] for client 0, then
    /// each next one); the clients then wait for their first query. The pool's connections are
    /// counted at init ([`Feed::InitConns`]): unchanged. (The native platform accepts real
    /// sockets and calls [`Clients::add_connection`] itself.)
    pub fn connect_at_start(mut self) -> Self {
        if self.cfg.mode == Mode::Pool && self.cfg.logins {
            self.logins = true;
        }
        if self.cfg.mode == Mode::PerConnection && !self.opened.is_empty() {
            self.client = 0;
            self.connecting = true;
            self.opened[0] = 1;
            self.connects = 1;
            self.deliver = 0;
            self.at = Feed::AddLock;
        }
        self
    }

    /// Per-connection, after `add_connection`: at the start, the next client connects (the
    /// last one: the clients wait for their first query); later, the query that reconnected
    /// reaches the new connection's socket.
    fn after_connect(&mut self) -> Feed {
        if !self.connecting {
            return Feed::Pend;
        }
        let next = self.client + 1;
        if (next as usize) < self.opened.len() {
            self.client = next;
            self.opened[next as usize] += 1;
            self.connects += 1;
            Feed::AddLock
        } else {
            self.connecting = false;
            Feed::Await
        }
    }

    /// Closed loop: load-generator thread `i` of [`MysqlConfig::receivers`], which only receives
    /// responses ([`Feed::Recv`]): it wakes (and may preempt a server thread on its CPU) when a
    /// response reaches one of its connections, as `herdlab bench mysql`'s client threads do.
    /// The sends are thread 0's ([`Clients::new`]).
    pub fn receiver(cfg: MysqlConfig, i: u32) -> Self {
        Clients {
            at: Feed::Recv,
            grp: i as u8,
            per_client: Vec::new(),
            arrivals: Vec::new(),
            in_txn: Vec::new(),
            held: Vec::new(),
            opened: Vec::new(),
            ..Clients::new(MysqlConfig {
                connections: 1,
                mode: Mode::PerConnection,
                ..cfg
            })
        }
        .with_cfg(cfg)
    }

    fn with_cfg(mut self, cfg: MysqlConfig) -> Self {
        self.cfg = cfg;
        self
    }

    /// The native platform, pool: the groups' start ([`Feed::InitConns`] … [`Feed::InitSpawn`]:
    /// `connection_count`, each group's first thread and its `create_worker`), stepped on `p` up
    /// to [`Feed::Await`]; the queries then reach the groups' epoll sets for real.
    pub fn start_groups<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        self.grp = 0;
        self.step_until(Feed::InitConns, Feed::Await, p)
    }

    /// The native platform, thread-per-connection: client `client` has connected:
    /// `check_idle_thread_and_enqueue_connection` ([`Feed::AddLock`] … [`Feed::Create`]: the
    /// hand-off to a cached thread, or `mysql_thread_create`), stepped on `p` up to
    /// [`Feed::Pend`], where the model delivers the first query: on a real socket the kernel does.
    pub fn add_connection<P: Ops + ?Sized>(
        &mut self,
        client: u32,
        p: &mut P,
    ) -> Result<(), P::Error> {
        self.client = client % self.cfg.connections.max(1);
        self.connects += 1;
        if let Some(o) = self.opened.get_mut(self.client as usize) {
            *o += 1;
        }
        self.deliver = 1;
        self.step_until(Feed::AddLock, Feed::Pend, p)
    }

    /// Step the table from `from` until it reaches `to` (or ends), each step's operation through
    /// the one executor, [`crate::machine::steps::exec`].
    fn step_until<P: Ops + ?Sized>(
        &mut self,
        from: Feed,
        to: Feed,
        p: &mut P,
    ) -> Result<(), P::Error> {
        self.at = from;
        while self.at != to {
            let r = crate::machine::steps::exec(p, self.at.op(self))?;
            match self.at.complete(self, r) {
                Next::Go(s) => self.at = s,
                Next::Done(()) => break,
            }
        }
        Ok(())
    }

    fn arrive(&mut self, t: u64) -> Feed {
        self.now = t;
        if self.logins && self.login_c < self.cfg.connections {
            // the server has started (each group's first thread is up); the clients connect
            // now, before the first query
            self.grp = 0;
            return Feed::PutLock;
        }
        if self.sent >= self.cfg.queries {
            return self.after_delivery();
        }
        self.rng = mix(self.rng);
        let c = (self.rng % self.cfg.connections.max(1) as u64) as u32;
        self.client = c;
        if self.cfg.closed() {
            return Feed::Outstanding;
        }
        self.send()
    }

    /// The chosen client sends its next query.
    fn send(&mut self) -> Feed {
        let (c, t) = (self.client, self.now);
        self.sent += 1;
        let k = self.per_client[c as usize];
        self.per_client[c as usize] += 1;
        let in_txn = self.cfg.txn_statements > 1 && k % self.cfg.txn_statements != 0;
        match self.cfg.mode {
            Mode::Pool => {
                self.grp = (c % self.cfg.groups.max(1)) as u8;
                let high =
                    in_txn && self.cfg.high_prio && self.cfg.variant != MysqlVariant::NoHighPrio;
                let stream = self.grp as usize * 2 + usize::from(high);
                self.arrivals[stream].push(t);
                self.in_txn[stream].push(in_txn);
                let word = gw(self.grp, if high { g::HRDY } else { g::RDY });
                if self.cfg.closed() {
                    let o = self.arrivals[stream].len() as u32 - 1;
                    self.tag = self.cfg.tag(stream as u32, o);
                    Feed::Tag { word }
                } else {
                    Feed::Deliver { word }
                }
            }
            Mode::PerConnection => {
                let ci = c as usize;
                self.arrivals[ci].push(t);
                self.in_txn[ci].push(in_txn);
                self.deliver = 1;
                if self.held[ci] > 0 {
                    // the client is reconnecting: this query waits behind the held ones
                    self.held[ci] += 1;
                    self.after_delivery()
                } else if k % self.cfg.queries_per_conn.max(1) != 0 || k == 0 {
                    // the first query goes on the connection opened at the start
                    Feed::Pend
                } else {
                    self.flushing = false;
                    Feed::Reopen
                }
            }
        }
    }

    /// Per-connection: the client opens its next connection (`add_connection`).
    fn open(&mut self) -> Feed {
        self.opened[self.client as usize] += 1;
        self.connects += 1;
        Feed::AddLock
    }

    /// Per-connection: the chosen client's old connection has been closed `closed` times on the
    /// server's side: if its last one is gone, it connects again and sends (its next query, or
    /// the held ones up to its quota); else it holds the query.
    fn reopen(&mut self, closed: u32) -> Feed {
        let ci = self.client as usize;
        if closed >= self.opened[ci] {
            if self.flushing {
                self.deliver = self.held[ci].min(self.cfg.queries_per_conn.max(1));
                self.held[ci] -= self.deliver;
            }
            self.open()
        } else {
            if !self.flushing {
                self.held[ci] += 1;
            }
            self.after_delivery()
        }
    }

    fn after_delivery(&mut self) -> Feed {
        if self.cfg.mode == Mode::Pool && self.now >= self.next_tick {
            while self.next_tick <= self.now {
                self.next_tick += self.cfg.stall_ns.max(1);
            }
            Feed::TickAdd
        } else if self.cfg.mode == Mode::PerConnection {
            // the clients that hold queries, each looked at once per event: is its old connection
            // gone?
            let n = self.held.len() as u32;
            while self.scan < n && self.held[self.scan as usize] == 0 {
                self.scan += 1;
            }
            if self.scan < n {
                self.client = self.scan;
                self.scan += 1;
                self.flushing = true;
                Feed::Reopen
            } else {
                self.scan = 0;
                // no more arrivals will come to look again: wait for a close
                match self.held.iter().position(|&h| h > 0) {
                    Some(c) if self.sent >= self.cfg.queries => {
                        self.client = c as u32;
                        Feed::CloseWait {
                            closed: self.opened[c] - 1,
                        }
                    }
                    _ => Feed::Await,
                }
            }
        } else {
            Feed::Await
        }
    }
}

// ----- state identity for the checker -----
//
// The checker compares states without their time (`Simulation::hash_logical`); the ghost
// timestamps (arrival and finish times, the clients' clock and next tick) are left out here too, so
// two states that differ only in when things happened are one state. Equal values still hash
// equal.

impl Hash for Worker {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (
            self.cfg,
            self.grp,
            self.slot,
            self.at,
            self.woc,
            self.woc_listener,
        )
            .hash(h);
        (
            self.holding,
            self.hand_n,
            self.hand_h,
            self.listening,
            self.waiting,
            self.login,
            self.logins_done,
        )
            .hash(h);
        (
            self.locked,
            self.ordinal,
            self.client,
            self.born,
            self.wakeups,
            self.done.len(),
        )
            .hash(h);
    }
}

impl Hash for ConnThread {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (
            self.cfg,
            self.at,
            self.client,
            self.served,
            self.parked,
            self.locked,
        )
            .hash(h);
        (self.ordinal, self.born, self.reused, self.done.len()).hash(h);
    }
}

impl Hash for Clients {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (
            self.cfg,
            self.at,
            self.grp,
            self.client,
            self.rng,
            self.sent,
            self.tag,
        )
            .hash(h);
        self.per_client.hash(h);
        for a in &self.arrivals {
            a.len().hash(h);
        }
        (self.threads_created, self.handed_off, self.connects).hash(h);
        (
            &self.held,
            &self.opened,
            self.deliver,
            self.scan,
            self.flushing,
        )
            .hash(h);
        (
            self.connecting,
            self.logins,
            self.login_c,
            &self.logins_put,
            self.woc,
            self.woc_at,
        )
            .hash(h);
    }
}

// ----- the actor -----

/// One simulated thread of a MySQL scenario.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MysqlActor {
    /// The clients (the producer).
    Clients(Clients),
    /// A pool worker slot.
    Worker(Worker),
    /// The pool's timer.
    Timer(Timer),
    /// A thread-per-connection slot.
    Conn(ConnThread),
}

impl MysqlActor {
    /// The named line it is on (`None` once finished).
    pub fn line_name(&self) -> Option<Ln> {
        match self {
            MysqlActor::Clients(c) => Some(match c.woc_at {
                Some(s) => s.line(&c.woc),
                None => c.at.line(c),
            }),
            MysqlActor::Worker(w) => Some(w.line_name()),
            MysqlActor::Timer(t) => Some(t.line_name()),
            MysqlActor::Conn(c) => Some(c.at.line(c)),
        }
    }
}

impl Machine for MysqlActor {
    fn next_op(&self) -> Op {
        match self {
            MysqlActor::Clients(c) => {
                if let Some(s) = c.woc_at {
                    s.op(&c.woc)
                } else if c.at == Feed::Await && c.now == u64::MAX {
                    Op::Exit
                } else {
                    c.at.op(c)
                }
            }
            MysqlActor::Worker(w) => w.op(),
            MysqlActor::Timer(t) => t.op(),
            MysqlActor::Conn(c) => c.at.op(c),
        }
    }
    fn complete(&mut self, r: OpResult) {
        match self {
            MysqlActor::Clients(c) => {
                if let Some(s) = c.woc_at {
                    c.woc_at = match s.complete(&mut c.woc, r) {
                        Next::Go(s) => Some(s),
                        Next::Done(_) => {
                            c.at = Feed::PutUnlock;
                            None
                        }
                    };
                } else {
                    match c.at.complete(c, r) {
                        Next::Go(s) => c.at = s,
                        Next::Done(()) if c.at == Feed::PutActive => c.woc_at = Some(Woc::Start),
                        Next::Done(()) => c.now = u64::MAX,
                    }
                }
            }
            MysqlActor::Worker(w) => w.complete(r),
            MysqlActor::Timer(t) => t.complete(r),
            MysqlActor::Conn(c) => {
                if let Next::Go(s) = c.at.complete(c, r) {
                    c.at = s;
                }
            }
        }
    }
    fn line(&self) -> u16 {
        self.line_name().map_or(0, Ln::line)
    }
    fn listing(&self) -> &'static [&'static str] {
        &LISTING
    }
}
