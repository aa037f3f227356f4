//! MySQL's connection handling: thread-per-connection with the thread cache (MySQL 8.0/8.4,
//! `sql/conn_handler/connection_handler_per_thread.cc`) and the pool-of-threads (Percona Server 8.0,
//! `sql/threadpool_unix.cc`, a port of MariaDB 5.5's), as step tables over memory words, sleeping
//! mutexes, condition variables, semaphores and futexes.
//!
//! Follows `shared/reference/mysql-threadpool.md` (§2 state, §3 algorithms, §5 invariants and
//! broken variants).
//!
//! ```
//! use herdlab_core::mechanisms::mysql::{Mode, MysqlParams};
//! // thread-per-connection, 8 clients reconnecting after every 2 queries, no thread cache: every
//! // connection creates a thread (Threads_created climbs); with a cache most are handed off
//! let p = MysqlParams { mode: Mode::PerConnection, connections: 8, queries: 64, queries_per_conn: 2,
//!                       cache_size: 0, ..Default::default() };
//! let (_, r) = p.run(u64::MAX);
//! assert_eq!((r.queries_done, r.threads_created, r.cache_hits, r.violation), (64, r.connects, 0, None));
//! let (_, r) = MysqlParams { cache_size: 8, ..p }.run(u64::MAX);
//! assert_eq!(r.threads_created + r.cache_hits, r.connects);
//! assert!(r.threads_created < r.connects / 2);
//! ```
//!
//! # Memory ([`machine`])
//! Global words: [`TICK`] (the timer's futex), [`NUM_WORKERS`], [`ROW`] (the hot row's lock),
//! [`BLOCKED`] (`blocked_pthread_count`), [`WAKE`] (`wake_pthread`), [`HEAD`]/[`TAIL`] of the
//! channel ring (`waiting_channel_info_list`), [`ALIVE`]. Pool: each group has a block of
//! [`GROUP_WORDS`] words ([`gw`], offsets in [`machine::g`]): the two queues and the epoll set's
//! ready events as counts per class (normal, high priority), `listener`, `thread_count`,
//! `active_thread_count`, `waiting_thread_count`, `connection_count`, `io_event_count`,
//! `queue_event_count`, `last_thread_creation_time`, `stalled`, and `waiting_threads` as a stack of
//! worker slots; the group's `mutex` is [`gm`]`(g)`, each worker's `cond` [`wcond`]`(slot)`, and
//! `create_worker` posts the group's semaphore [`spawn`]`(g)` on which unborn slots wait.
//! Per-connection: `LOCK_thread_cache` [`CACHE_MTX`], `COND_thread_cache` [`CACHE_COND`], each
//! client's socket [`MysqlConfig::pend`]`(c)` (pending queries; its thread sleeps on it in `read`),
//! its query ordinal [`MysqlConfig::served`]`(c)` and its connections closed on the server's side
//! [`MysqlConfig::closes`]`(c)` (the client sleeps on it when it waits to reconnect), after the
//! channel ring ([`MysqlConfig::ring`], one word per thread slot).
//!
//! # Threads (each a [`steps!`](crate::steps) table; [`LISTING`] names their lines)
//! | table | thread | what |
//! |---|---|---|
//! | [`Feed`] | the clients (closed loop: also the load generator's receiving threads, [`Feed::Recv`]) | init the groups; with [`MysqlParams::logins`], at the first arrival each connection's `add_connection`: `queue_put` of its login (wake or create when `active == 0`); per-connection, every client's `add_connection` at the start (its thread created or taken from the cache); `await_event` (the next query; closed loop: unless the chosen client still waits for its answer, [`MysqlConfig::answered`]), deliver it to its group's epoll set (`id % thread_pool_size`; high priority when the connection is inside a transaction; closed loop: the event names its connection, [`MysqlConfig::tag`]) or, per-connection, to its socket after `add_connection` when the client reconnected (a client holds its queries while its old connection is still on the server, [`Feed::Reopen`]); tick the timer every `stall_limit` |
//! | [`Work`] | pool worker | `get_event` (`queue_get`: a login at the normal queue's head is handled as a login, [`LOGIN_NS`]; become listener, the 0-timeout poll, sleep on `waiting_threads`), `listener` (harvest, pick event 0 only when both queues are empty, wake when `active == 0`), `handle_event` (row lock with `thd_wait_begin/end`, the query, the response (closed loop: it reaches the client and wakes its receiving thread), `start_io`) |
//! | [`Woc`] | called by workers and the timer | `wake_or_create_thread`: LIFO `wake_thread`, `thread_count > connection_count`, the 0/50/100/200 ms throttle, `create_worker` and `thread_pool_max_threads` |
//! | [`Tick`] | the timer | every tick, per group: `check_stall` (no listener and no I/O → wake or create; no dequeue and queued work → `stalled`) |
//! | [`Conn`] | per-connection thread | take a channel, `do_command` until the client closes (closed loop: each response reaches its client), `block_until_new_connection` (park if the cache has room, no timeout; else exit); once parked or exited, the connection is gone: `closes(c)++` and wake the client |
//!
//! The native platform (`herdlab bench mysql`) runs [`Worker::run`], [`Timer::run`] and
//! [`ConnThread::run`] (the straight-line forms) on real threads, and steps the clients' table only
//! where a real platform still needs it: [`Clients::start_groups`] (each group's first thread) and
//! [`Clients::add_connection`] (the thread cache's hand-off or `mysql_thread_create`); the kernel
//! delivers the queries itself.
//!
//! # Invariants ([`invariants`], checked after every step)
//! | name | holds |
//! |---|---|
//! | `one-listener` | at most one listener per group; with the group mutex free, `listener` is set iff one thread listens |
//! | `no-lost-event` | per group: events delivered = ready in epoll + queued + in a listener's hands + running + finished |
//! | `active-count` | with the group mutex free, `active_thread_count` = threads created and not yet started + threads running (not listening, not asleep, not in a wait callback) |
//! | `thread-bound` | `num_worker_threads` = Σ `thread_count` ≤ max(`thread_pool_max_threads`, 2 per group) |
//! | `idle-with-work` | never, with the group mutex free, work a thread may take (high-priority, or normal while not busy-limited) queued while `active == 0`, none is woken or being created, and every thread idles: one sleeps in `waiting_threads`, or none is inside a wait callback (all listen or sleep: only an epoll event or the timer's tick would take the work) |
//! | `cache-count` | per-connection, with the cache mutex free: `blocked ≤ thread_cache_size`, `wake ≤ blocked`, `blocked` = parked threads, channels queued = `wake` + threads being created |
//! | `one-connection` | per-connection: each client has at most one connection on the server (opened − closed ∈ {0, 1}); every thread to create has a free slot (`mysql_thread_create`'s posts ≤ unborn slots); with the cache mutex free, OS threads alive ≤ open connections + `blocked − wake` (so at most `connections + thread_cache_size`, within [`MysqlConfig::slots`]) |
//! | `all-served` (at the end) | every query sent was finished |
//!
//! # Broken variants ([`MysqlVariant`])
//! Two are caught by an invariant (`herdlab check mysql --variant V` exits 1 with the shortest
//! counterexample). The other five are performance breaks: each keeps every safety property and
//! every bounded-progress property the model can state. A queued event is still dequeued (by a
//! wait's end, a query's end or the timer), threads stay within `thread_pool_max_threads`, and
//! `active ≤ 1 + oversubscribe` is not a hard invariant of the real code (`thd_wait_end`, stalls
//! and admin connections exceed it). What they change is how long, how many or which thread:
//! latency, `Threads_created`, which sleeper wakes. The simulator shows them (`herdlab sim mysql
//! --variant V` against `correct`); the checker, which has no time, cannot separate them.
//!
//! | variant | what shows it (`core/tests/mysql.rs`) |
//! |---|---|
//! | `cache-any-blocked` | `cache-count` (two connections handed to one cached thread): the checker and the simulator |
//! | `no-wait-begin` | a blocked thread holds its group: no thread is added, the median latency more than doubles |
//! | `no-stall-timer` | one long query blocks its group until it ends (no thread added at the tick) |
//! | `no-throttle` | a stalled group gains a thread every tick (15 by 200 ms at a 10 ms stall limit) instead of one per 50 ms above 4 threads (6) |
//! | `no-high-prio` | a transaction's statements 2.. queue behind every other: their p99 (`txn_p99_ns`) grows |
//! | `fifo-waiters` | `wake_thread` pops the oldest sleeper and shifts the rest (the coldest cache); `workers_woken` counts how many threads share the wakeups |
//! | `no-listener-wake` | `queue_put` and the listener skip their `active == 0` wake: with the logins modelled ([`MysqlParams::logins`]), a login sits in the queue while the group's one thread listens. Caught by the checker (`idle-with-work`, [`MysqlParams::check_preset_login`]: 25 steps, 10,155 states; the real code: 668,476 states, proven) and the simulator: the default preset with `logins=1&rate=2000` answers at p50 57 µs, and at 911 ms without the wake (the logins and the queries behind them wait for the stall timer's ticks). Without logins every path that queues work while no thread is active has its own wake (`thd_wait_begin`, the listener picking event 0): the variant then changes nothing |
//!
//! # What seed 004 gets wrong (fact sheet §7)
//! - The hand-off test is `blocked_pthread_count > wake_pthread`, not "is there an idle thread"; a
//!   finished thread parks only if the cache (`thread_cache_size`, autosized 8 +
//!   `max_connections`/100) has room, and waits without a timeout.
//! - `waiting_thread_count` counts threads inside `thd_wait_begin/end`, not active connections; the
//!   wait callbacks, which let a group add a thread when one blocks, are missing from it.
//! - `queue_put` wakes or creates only when `active == 0`; a worker never exits because of
//!   `too_many_busy_threads` (only on its idle timeout); `oversubscribed` is a counter test, not a
//!   CPU-load measure; `check_stall` means "no listener and no I/O since the last tick", not "the
//!   listener is blocked".
//!
//! # Model limits
//! - Clients are open loop by default: queries arrive on the arrival stream (Poisson at `rate`) and
//!   go to a seeded random client, whatever it has outstanding. [`MysqlParams::run_closed`]
//!   makes them a closed loop, as a load generator's (`herdlab bench mysql`'s, and what its
//!   `--compare-sim` runs): one query outstanding per connection, an exponential think time after
//!   each answer, drawn by thinning the stream ([`MysqlConfig::closed`]). The sending side
//!   then runs on a CPU of its own ([`crate::sim::Simulation::producer_on_own_cpu`]): the
//!   thinned arrivals wake it far more often than a client wakes. The receiving side runs on
//!   the server's CPUs as the load generator's threads do: [`MysqlConfig::receivers`] threads
//!   ([`Clients::receiver`], [`Feed::Recv`]) sleep until a response reaches one of their
//!   connections, and a woken one may preempt a server thread (on a busy machine, the pool's
//!   workers' switches are mostly these preemptions); with [`ClientCpus::Apart`]
//!   ([`MysqlParams::run_closed_on`]) each of them runs on a CPU of its own instead, as a load
//!   generator pinned away from the server does, and preempts nobody. Their CPU time beyond the
//!   wakeup and the sender's wakeups are not modelled. Per-connection, every client connects at the start
//!   (`add_connection` creates its thread, or hands the connection to a cached one, before any
//!   query: [`Clients::connect_at_start`]), as MySQL's acceptor does when it accepts the socket.
//!   Pool: logins are modelled on request ([`MysqlParams::logins`]; off by default, as in
//!   the lessons and `--compare-sim`): at the first arrival every connection's
//!   `add_connection` queues its login (`queue_put`), and a worker spends [`LOGIN_NS`] on it;
//!   queries may reach the epoll set before their connection's login is handled (the real
//!   socket is armed only after it). Otherwise connections start logged in;
//! - Churn (`queries_per_conn`): a client sends its connection's quota of queries, closes it and
//!   reconnects for the next query; it has one connection on the server at a time. A query that
//!   needs a new connection while the old one is still on the server (its thread has not yet
//!   parked in the cache or exited) waits in the client, with every later query of that client,
//!   and its latency counts the wait. The clients look again at their next event (an arrival),
//!   so a reconnect can lag its close by up to one arrival gap; after the last arrival they
//!   sleep until the close wakes them ([`Feed::CloseWait`]).
//!   `thread_pool_high_prio_tickets` is on/off (no per-connection ticket count).
//! - The listener reads the epoll set as counts per class; events keep their order per class.
//! - `trylock` in `check_stall` is a lock; the idle timeout (60 s) and group migration are not
//!   modelled; the timer ticks on the clients' clock (while queries or clock events arrive).
//! - Thread-per-connection serves at most [`MAX_CONNECTIONS`] clients (three words each, four in
//!   a closed loop); the pool up to 4096 connections over at most [`MAX_GROUPS`] groups of
//!   [`MAX_GROUP_THREADS`] (a closed loop adds three words per connection).
//! - `rss_bytes` is modelled: 1 MiB of stack (`thread_stack` default in 8.0) per OS thread at the peak.

pub mod invariants;
pub mod machine;
pub mod params;

pub use machine::LOGIN_NS;
pub use machine::{
    gm, gw, spawn, stack, wcond, Class, Clients, Conn, ConnThread, Feed, Finished, Ln, Mode,
    MysqlActor, MysqlConfig, MysqlVariant, Tick, Timer, Woc, Work, Worker, ALIVE, BLOCKED,
    CACHE_COND, CACHE_MTX, GROUP_WORDS, HEAD, LISTING, MAX_CONNECTIONS, MAX_GROUPS,
    MAX_GROUP_THREADS, NUM_WORKERS, ROW, TAIL, TICK, WAKE,
};
pub use params::{sched_from_name, ClientCpus, Mysql, MysqlParams, MysqlReport, MysqlSim, SCHEDS};
