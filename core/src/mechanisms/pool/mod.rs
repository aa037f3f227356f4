//! nginx's thread pool (`src/core/ngx_thread_pool.c`): one event-loop thread E hands blocking reads
//! to T pool threads through a mutex-protected task queue and gets the completions back through a
//! spinlocked done list and an eventfd.
//!
//! Follows `shared/reference/nginx-thread-pool.md` (nginx 1.31.5-dev, 3f6f7824d): `ngx_thread_task_post`
//! (P1-P7), `ngx_thread_pool_cycle` (W1-W11), `ngx_thread_pool_handler` (C1-C4),
//! `ngx_thread_pool_destroy` and `ngx_thread_pool_exit_handler`; the `waiting` accounting is the one
//! of commit afe1fcffa (before 1.7.11 shipped), the done-list barriers those of eeb72127c (1.9.15).
//!
//! ```
//! use herdlab_core::mechanisms::pool::{PoolParams, Wake};
//! use herdlab_core::sim::arrivals::ArrivalPattern;
//! // 4 idle pool threads, 4 blocking reads at once: one eventfd wake completes all four
//! let p = PoolParams { threads: 4, cpus: 8, blocking_pct: 100, arrival: ArrivalPattern::Burst,
//!                      burst: 4, requests: 4, ..Default::default() };
//! let (_, r) = p.run(u64::MAX);
//! assert_eq!((r.tasks_done, r.notify_wakes, r.max_batch, r.violation), (4, 1, 4, None));
//! // 1 blocking read for 4 idle threads: a signal wakes one, a broadcast all four (3 for nothing);
//! // each of the 4 exit tasks of the shutdown wakes the thread it kills
//! let one = PoolParams { requests: 1, burst: 1, ..p.clone() };
//! let (_, r) = one.run(u64::MAX);
//! assert_eq!((r.wakeups, r.wasted_wakeups), (1 + 4, 0));
//! ```
//!
//! # Memory
//! The queue is words, so a broken variant really loses or corrupts a task ([`machine`]): `first`
//! ([`FIRST`]) holds a task id (0 is NULL); `last` ([`LAST`]) holds the *index of the word* the next
//! append writes (`&first`, or `&tail->next`, the word [`next_of`]`(tail)`); each task id k has its
//! `next` and its `event.active` word. The done list is the same shape ([`DONE_FIRST`],
//! [`DONE_LAST`]) under the spinlock word [`DONE_LOCK`]. `waiting` ([`WAITING`]) is read as `i32`
//! and is negative while threads sit idle. The eventfd is [`NOTIFY`]: a write adds 1 and wakes the
//! loop (two steps here, one `write(2)` on Linux), the loop reads and clears it with one swap, so
//! k writes collapse into one wake that drains k tasks. `mtx` and `cond` are the simulator's
//! sleeping mutex and condition variable ([`MTX`], [`COND`]).
//!
//! # Threads (each a [`steps!`](crate::steps) table; [`machine::LISTING`] names their lines)
//! | table | thread | states |
//! |---|---|---|
//! | [`Loop`] | E | `InitLast`, `InitDoneLast` (init); `Await` (next request), `ServeCached`, `ReadInline` (no pool: head-of-line blocking); P1 `Active`, P2 `PostLock`, P3 `Full` / `Refuse` ("queue overflow"), P4 `SetActive`, `ClearNext`, P5 `Signal` (before the link, under mtx), P6 `LoadLast`, `Link`, `SetLast`, P7 `Inc`, `PostUnlock`; `Poll` / `Drain` (read the eventfd), `Sleep` (wait on it); C2 `Detach`, `DetachFirst`, `DetachLast`, C3 `HandlerUnlock`, C4 `Complete`, `Inactive`; destroy `ExitStart`, `ExitSpin`, `ExitYield`, `ExitReuse`; broken only: `EarlyUnlock`, `OutsideSignal`, `Relock`, `DetachOneNext`, `DetachOne`, `FlagStore`, `FlagSignal` |
//! | [`Cycle`] | pool thread | W1 `Lock`, W2 `Dec`, W3 `Check` / `Wait` (`while`), W4 `TakeNext`, `SetFirst`, `ResetLast`, W5 `Unlock`, W6 `Handler`, W7 `ClearNext`, W9 `DoneLoadLast`, `DoneLink`, `DoneSetLast`, W10 `DoneUnlock`, W11 `Notify`, `Wake`; `ExitHandler`; broken only: `Head` (`if`), `LateDec`, `FlagLoad`, `FlagUnlock` |
//! | [`Spin`] | both (W8, C1) | `ngx_spinlock(lock, 1, spin)`: `Load`, `Cas`, `Pause{n,i}`, `Probe{n}`, `ProbeCas{n}`, `Yield` |
//! | [`Inject`] | injector | `Gap`, `Wake`: a `cond_signal` by nobody is what a spurious wakeup looks like to the woken thread |
//!
//! # Invariants ([`invariants`], §5 of the fact sheet)
//! | name | holds |
//! |---|---|
//! | `null-deref` | no thread dequeues a NULL `first` |
//! | `queue-shape` (1) | with mtx free: `first == NULL` ⇔ `last == &first`, else acyclic, each task once, `last == &tail->next`; the done list too |
//! | `waiting-count` (2) | with mtx free: `waiting == len − idle` |
//! | `bounded-queue` (3) | `len ≤ max_queue + T`; refused only when `len − idle ≥ max_queue` |
//! | `lost-wakeup` (4) | never a queued task, mtx free, every live thread in `cond_wait` |
//! | `exactly-once` (5) | runs ≤ posts, completions ≤ runs; at the end all equal |
//! | `order` (6) | queued in posting order (completions are not FIFO when T > 1) |
//! | `shutdown` (7) | destroy returns only after every pool thread exited |
//!
//! # Broken variants ([`PoolVariant`]) and what catches them
//! `if-not-while` → `null-deref`; `signal-outside-mutex`, `no-signal` → `lost-wakeup`;
//! `forget-last` → `queue-shape` (the next post writes through the old task's `next`; the task is
//! lost); `waiting-after-dequeue` (before afe1fcffa) → `waiting-count` / `bounded-queue` (posts
//! refused while threads sit idle); `one-per-notify` → `exactly-once` (tasks stranded in the done
//! list); `no-active-check` → `queue-shape` (a cycle); `shutdown-flag` → `shutdown`. Broadcast
//! instead of signal is the `wake=broadcast` parameter: correct, but T threads wake for one task.
//!
//! # What seed 002 and the popular accounts get wrong (fact sheet §7)
//! - The queue has no `count`, atomic or not: the counter is `tp->waiting`, a signed `ngx_int_t`
//!   under `mtx`, queued tasks minus idle threads, decremented *before* the wait (W2), so
//!   `max_queue=0` still accepts a task while threads are idle.
//! - The post signals *before* linking, under `mtx` (P5 then P6); it first rejects a double post
//!   (`event.active`, P1) and compares `waiting`, not a queue length.
//! - A finished task is not forgotten: it goes back through the spinlocked done list and an eventfd
//!   (`ngx_notify`), and `ngx_thread_pool_handler` drains the whole list per wake.
//! - Shutdown is one exit task per thread, posted one at a time, each waited for with `sched_yield`
//!   until the thread clears the stack `lock`; the threads are detached, never joined; there is no
//!   flag.
//! - There is no configurable stack size (the call is `#if 0`), no dynamic resizing, and "lock-free
//!   friendly" is wrong: it is a mutex-protected list whose `last` pointer-to-pointer only removes
//!   the empty-queue special case.
//!
//! # Cache-hit latency
//! The report's `cache_p50_ns`, `cache_p99_ns` and `cache_mean_ns` are the cache hits' latency in
//! simulated ns: from the request's arrival (the due time of the event `await_event` delivered,
//! however long the loop was busy before it asked) to the end of its `ServeCached` serve, recorded
//! by the simulator ([`crate::sim::Simulation::event_latency`], through
//! [`crate::machine::Machine::serves_measured_event`]). With the pool a hit waits for nothing but
//! the loop's own short steps; without it, a hit that arrives during a blocking read on the loop
//! waits for the rest of that read (head-of-line blocking).
//!
//! # Model limits
//! - `cond_signal` wakes exactly one waiter (the front); POSIX's "at least one" and spurious
//!   wakeups come from the injector (`spurious=`).
//! - E waits for a request *or* the eventfd in nginx (`epoll_wait`); here it sleeps in the arrival
//!   stream and reads the eventfd between requests (and sleeps on it after the last request), so
//!   completions wait for the next arrival.
//! - Requests that fall due while the loop is busy are not queued one behind the other: the
//!   simulator's arrival stream restarts from the moment the loop asks again
//!   ([`crate::sim::arrivals`]), so a cache hit waits for at most the one read ahead of it, and
//!   `cache_p99_ns` is about one read long at any blocking share; the mean climbs with the share.
//!   The native event-loop rows (`herdlab bench pool`) keep arrivals on their schedule, so there the
//!   queue behind a read grows too.
//! - The memory is sequentially consistent: the pre-1.9.15 missing barrier is not modelled.

pub mod invariants;
pub mod machine;
pub mod params;

pub use machine::{
    active_of, next_of, Cycle, EventLoop, Inject, Injector, Ln, Loop, PoolActor, PoolConfig,
    PoolThread, PoolVariant, Spin, Wake, COND, DONE_FIRST, DONE_LAST, DONE_LOCK, FIRST, LAST, MTX,
    NOTIFY, WAITING,
};
pub use params::{Pool, PoolParams, PoolReport, PoolSim};
