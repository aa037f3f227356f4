//! The primitive operations every mechanism is written against.
//!
//! A mechanism's thread is a state machine (see [`crate::machine::Machine`]) that, at each step, asks
//! its platform to perform exactly one [`Op`] and then receives the [`OpResult`]. One step is one
//! atomic action that the learner can see. The two platforms give these operations their meaning:
//!
//! | operation | simulated platform ([`crate::sim`]) | native platform (`herdlab-bench`) |
//! |---|---|---|
//! | `Load`, `Store`, `Cas`, `FetchAdd` | a word of simulated memory | an `AtomicU32`, `SeqCst` |
//! | `Swap` | a word of simulated memory | `AtomicU32::swap`, `SeqCst` |
//! | `FutexWait`, `FutexWake` | the kernel model's futex queues | the Linux `futex(2)` call |
//! | `SemWait`, `SemPost` | a counting semaphore in the kernel model | a POSIX `sem_t` (`sem_wait`, `sem_post`) |
//! | `MutexLock`, `MutexUnlock`, `CondWait`, `CondNotify` | a model of a sleeping mutex and condition variable | `std::sync::Mutex` and `Condvar` |
//! | `Accept` | the kernel model of `inet_csk_wait_for_connect` over a wait queue | a real blocking `accept(2)` |
//! | `AcceptNb` | the accept queue, `EAGAIN` when empty | `accept4(2)` with `SOCK_NONBLOCK` on a non-blocking listener |
//! | `EpollAdd`, `EpollDel` | the kernel model of `ep_insert` / `ep_remove` (an `ep_poll_callback` entry on the socket's wait queue) | `epoll_ctl(2)` |
//! | `EpollWait` | the kernel model of `ep_poll` and `ep_send_events` (LIFO sleepers, re-poll, level-triggered re-queue) | `epoll_wait(2)` |
//! | `ReadNext`, `Recv`, `Respond` | a connection's modelled request stream from the simulated client | `read(2)` / `write(2)` on a real loopback TCP socket |
//! | `Work` | advances the CPU's clock | spins for that long |
//! | `Sleep` | a timer in the kernel model: the thread leaves its CPU and is runnable again when the simulated clock reaches its deadline | `clock_nanosleep(2)` (`CLOCK_MONOTONIC`, relative) |
//! | `AwaitEvent` | the scenario's arrival pattern | the benchmark's load gate |
//! | `Pause`, `Yield`, `Now` | cost model and simulated clock | `spin_loop`, `sched_yield`, a monotonic clock |
//!
//! What the kernel provides (futex, wait queues, accept) is a model on the simulated platform and the
//! real system call on the native one; what user code does is the same state machine on both.

use serde::{Deserialize, Serialize};

/// The index of a 32-bit word in the mechanism's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Word(pub u16);

/// The index of a sleeping mutex (used with [`Op::MutexLock`] and [`Op::CondWait`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MutexId(pub u8);

/// The index of a condition variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CondId(pub u8);

/// The index of a counting semaphore (`sem_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SemId(pub u8);

/// The index of a listening socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ListenerId(pub u8);

/// The index of an epoll instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EpId(pub u8);

/// A file descriptor an epoll instance can watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Fd {
    /// A listening socket.
    Listener(ListenerId),
    /// An accepted connection, by the id [`OpResult::Conn`] gave it.
    Conn(u32),
}

/// How a descriptor is registered with `EPOLL_CTL_ADD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Interest {
    /// `EPOLLIN`, level-triggered, not exclusive: the entry on the socket's wait queue is queued at the
    /// head and woken by every walk (nginx's listening sockets without the flag).
    Level,
    /// `EPOLLIN | EPOLLEXCLUSIVE`, level-triggered: the entry is queued at the tail with
    /// `WQ_FLAG_EXCLUSIVE` (Linux 4.5+, nginx 1.11.3+).
    LevelExclusive,
    /// `EPOLLIN | EPOLLET`: reported once per new arrival of data (nginx's accepted connections).
    Edge,
}

/// What one `epoll_wait` returned: the listening socket if it was reported, and how many connections
/// were reported readable (read them with [`Op::ReadNext`]). Both empty: the timeout expired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ready {
    /// The listening socket, when it was among the events.
    pub listener: Option<ListenerId>,
    /// Readable connections among the events.
    pub conns: u16,
}

impl Ready {
    /// True when the call returned no event (its timeout expired).
    pub fn is_empty(&self) -> bool {
        self.listener.is_none() && self.conns == 0
    }
}

/// How many sleepers a wake call may wake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WakeCount {
    /// Wake at most this many (the `nr_exclusive` budget; `futex(FUTEX_WAKE, n)`; `notify_one` is 1).
    Up(u32),
    /// Wake every sleeper (`wake_up_all`, `FUTEX_WAKE` with `INT_MAX`, `notify_all`).
    All,
}

impl WakeCount {
    /// The budget as the kernel's `nr_exclusive` (0 means no limit).
    pub fn nr_exclusive(self) -> u32 {
        match self {
            WakeCount::Up(n) => n,
            WakeCount::All => 0,
        }
    }
}

/// One primitive operation: what a thread asks its platform to do in one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Read a word. Result: [`OpResult::Value`].
    Load(Word),
    /// Write a word. Result: [`OpResult::Done`].
    Store(Word, u32),
    /// Compare-and-exchange. Result: [`OpResult::Cas`].
    Cas {
        /// The word.
        word: Word,
        /// The value it must hold.
        expected: u32,
        /// The value to write if it does.
        new: u32,
    },
    /// Add (wrapping) and return the old value. Result: [`OpResult::Value`].
    FetchAdd(Word, u32),
    /// Exchange: write the value and return the old one. Result: [`OpResult::Value`].
    Swap(Word, u32),
    /// `sem_wait`: take one unit, sleeping while the count is 0. A woken waiter tries again, so a
    /// newcomer may take the unit first (glibc's futex-based semaphore). Result: [`OpResult::Done`].
    SemWait(SemId),
    /// `sem_post`: add one unit and wake one sleeper. Result: [`OpResult::Done`].
    SemPost(SemId),
    /// Sleep while `word == expected`. Result: [`OpResult::Woken`] after a real sleep, or
    /// [`OpResult::Mismatch`] when the word already differed (`EAGAIN`).
    FutexWait {
        /// The futex word.
        word: Word,
        /// The value it must still hold for the caller to sleep.
        expected: u32,
    },
    /// Wake sleepers of a futex word. Result: [`OpResult::Value`] with the number woken.
    FutexWake(Word, WakeCount),
    /// Take a sleeping mutex, sleeping while another thread holds it. Result: [`OpResult::Done`].
    MutexLock(MutexId),
    /// Release a sleeping mutex. Result: [`OpResult::Done`].
    MutexUnlock(MutexId),
    /// Atomically release the mutex and sleep on the condition variable; take the mutex again
    /// before returning. Result: [`OpResult::Woken`].
    CondWait(CondId, MutexId),
    /// Wake sleepers of a condition variable (`notify_one` is `Up(1)`, `notify_all` is `All`).
    /// Result: [`OpResult::Done`].
    CondNotify(CondId, WakeCount),
    /// Take one connection from a listening socket, sleeping while its accept queue is empty.
    /// Result: [`OpResult::Conn`], or [`OpResult::Closed`] once the socket is shut down.
    Accept(ListenerId),
    /// Non-blocking `accept4`: take one connection from the listener's accept queue. Result:
    /// [`OpResult::Conn`], or [`OpResult::Again`] (`EAGAIN`) when the queue is empty.
    AcceptNb(ListenerId),
    /// `epoll_ctl(EPOLL_CTL_ADD)`. Result: [`OpResult::Done`].
    EpollAdd {
        /// The epoll instance.
        ep: EpId,
        /// The descriptor to watch.
        fd: Fd,
        /// How to watch it.
        interest: Interest,
    },
    /// `epoll_ctl(EPOLL_CTL_DEL)`. Result: [`OpResult::Done`].
    EpollDel {
        /// The epoll instance.
        ep: EpId,
        /// The descriptor to stop watching.
        fd: Fd,
    },
    /// `epoll_wait`: harvest ready events, sleeping until there are some or the timeout expires.
    /// Result: [`OpResult::Events`].
    EpollWait {
        /// The epoll instance.
        ep: EpId,
        /// The timeout in nanoseconds (`None`: wait forever, `-1`).
        timeout_ns: Option<u64>,
    },
    /// Read one request from the next connection the last [`Op::EpollWait`] of this thread reported.
    /// Result: [`OpResult::Request`], [`OpResult::Eof`] (the client closed; the platform closes the
    /// connection and forgets it), or [`OpResult::Again`] when nothing was there.
    ReadNext,
    /// Blocking read of one request from a connection. Result: [`OpResult::Request`] or
    /// [`OpResult::Eof`] (the connection is then closed).
    Recv(u32),
    /// Send the response to the request just read from a connection. Result: [`OpResult::Done`].
    Respond(u32),
    /// Useful work for this many nanoseconds (handling a request, a critical section).
    Work(u64),
    /// `nanosleep` / `usleep`: leave the CPU for this many nanoseconds. One system call and one
    /// voluntary context switch; the thread is runnable again when the clock reaches the
    /// deadline (it then waits for a CPU like any woken thread). The simulator arms a timer in
    /// its kernel model; the checker, which has no time, treats it as a yield point that may end
    /// at once; the native platform calls `clock_nanosleep`. Result: [`OpResult::Done`].
    Sleep(u64),
    /// Wait until the scenario delivers its next event (a job, a connection). Result:
    /// [`OpResult::Done`] for an event, [`OpResult::Closed`] when there are no more.
    AwaitEvent,
    /// One CPU `pause` (spin-loop hint). Result: [`OpResult::Done`].
    Pause,
    /// `sched_yield`. Result: [`OpResult::Done`].
    Yield,
    /// Read the clock. Result: [`OpResult::Value`] is not wide enough, so [`OpResult::Time`].
    Now,
    /// The thread has finished. Never completed.
    Exit,
}

/// When an operation is a system call on a real kernel, which is when a platform counts it in
/// `syscalls` ([`Op::syscall`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syscall {
    /// Never: a user-space operation (memory, `pause`, work, the clock).
    Never,
    /// Always, counted once when it is issued (a call woken inside and resumed is not a new one).
    Always,
    /// Only when it sleeps: glibc's `sem_wait` and a futex-based mutex try user space first and
    /// enter the kernel only to sleep, so they are counted where they go to sleep, and nowhere else.
    WhenItSleeps,
}

impl Op {
    /// When this operation is a system call (see [`Syscall`]): the one table every count of
    /// `syscalls` follows.
    pub fn syscall(self) -> Syscall {
        match self {
            Op::FutexWait { .. }
            | Op::FutexWake(..)
            | Op::Accept(_)
            | Op::AcceptNb(_)
            | Op::EpollAdd { .. }
            | Op::EpollDel { .. }
            | Op::EpollWait { .. }
            | Op::ReadNext
            | Op::Recv(_)
            | Op::Respond(_)
            | Op::Yield
            | Op::Sleep(_)
            | Op::CondWait(..)
            | Op::CondNotify(..)
            | Op::SemPost(_) => Syscall::Always,
            Op::SemWait(_) | Op::MutexLock(_) => Syscall::WhenItSleeps,
            Op::Load(_)
            | Op::Store(..)
            | Op::Cas { .. }
            | Op::FetchAdd(..)
            | Op::Swap(..)
            | Op::MutexUnlock(_)
            | Op::Work(_)
            | Op::AwaitEvent
            | Op::Pause
            | Op::Now
            | Op::Exit => Syscall::Never,
        }
    }

    /// Whether this operation is always a system call on a real kernel (the simulator counts it in
    /// `syscalls` when it is issued): [`Op::syscall`] is [`Syscall::Always`]. `SemWait` and
    /// `MutexLock` are system calls only when they sleep ([`Syscall::WhenItSleeps`]).
    pub fn is_syscall(self) -> bool {
        self.syscall() == Syscall::Always
    }

    /// Whether this is an operation on a word of memory (`Load`, `Store`, `Cas`, `FetchAdd`,
    /// `Swap`), whose one meaning is [`crate::sim::Words::exec`].
    pub fn is_memory(self) -> bool {
        matches!(
            self,
            Op::Load(_) | Op::Store(..) | Op::Cas { .. } | Op::FetchAdd(..) | Op::Swap(..)
        )
    }
}

/// What an operation returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpResult {
    /// The operation completed with nothing to report.
    Done,
    /// A word's value (for `Load`, the old value for `FetchAdd`, a count for `FutexWake`).
    Value(u32),
    /// The outcome of a compare-and-exchange: whether it succeeded and the value it found.
    Cas {
        /// True when the word held the expected value and was replaced.
        ok: bool,
        /// The value found in the word.
        actual: u32,
    },
    /// The caller slept and was woken.
    Woken,
    /// A futex wait found the word changed and returned at once (`EAGAIN`).
    Mismatch,
    /// A connection, by its sequence number.
    Conn(u32),
    /// The socket or event source is closed.
    Closed,
    /// A clock reading in nanoseconds.
    Time(u64),
    /// A non-blocking call found nothing (`EAGAIN`).
    Again,
    /// What `epoll_wait` reported.
    Events(Ready),
    /// A request was read from this connection.
    Request(u32),
    /// The client closed this connection; it is closed on this side too.
    Eof(u32),
}

/// Where a thread is inside the kernel's accept path (`inet_csk_accept` and
/// `inet_csk_wait_for_connect`) that the simulated platform models for [`Op::Accept`]
/// ([`crate::machine::Machine::kernel_line`] shows a line for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AcceptPhase {
    /// The fast path: a connection is already queued.
    Fast,
    /// Broken order only: test the queue before queueing the wait entry.
    TestFirst,
    /// `prepare_to_wait[_exclusive]`.
    Prepare,
    /// Correct order: `if queue empty: schedule()`.
    SleepIfEmpty,
    /// Broken order only: `schedule()` unconditionally.
    Schedule,
    /// Take a connection under `lock_sock`, or loop.
    Take,
    /// `finish_wait`.
    Finish,
}
