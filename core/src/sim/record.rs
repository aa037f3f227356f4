//! What a step did: [`StepRecord`] and its [`Note`], who took it ([`Actor`]), why one could not be
//! taken ([`StepError`]), whether the run goes on ([`Status`]), and the trace hash they feed.

use serde::{Deserialize, Serialize};

use crate::op::Word;

/// Who takes a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Actor {
    /// A thread, by index.
    Thread(u16),
    /// The network: delivers the next connection and runs the socket's wake walk.
    Network,
}
/// Whether the run can go on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// Some actor can still step.
    Running,
    /// Every event was delivered and handled, and no actor can step.
    Finished,
    /// No actor can step but work is left: the message says what is stuck.
    Stuck(String),
}
/// What one step did, for announcements and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Note {
    /// A connection arrived; the wake walk woke `woken` sleepers (see [`crate::sim::Simulation::last_walk`]).
    Arrived {
        /// The connection's id.
        conn: u32,
        /// Sleepers the walk woke.
        woken: u16,
    },
    /// The accept fast path took a queued connection.
    FastPathTook {
        /// The connection's id.
        conn: u32,
    },
    /// The accept fast path found the queue empty.
    FastPathEmpty,
    /// The broken sleeper tested the queue before queueing itself.
    TestedFirst {
        /// Whether it found the queue empty.
        empty: bool,
    },
    /// `prepare_to_wait`: the entry was queued (or was already there) and the state set.
    Enqueued {
        /// Whether the entry is exclusive.
        exclusive: bool,
        /// False when the entry was already queued.
        added: bool,
    },
    /// The thread went to sleep.
    Slept {
        /// The sleep ends a wakeup that found nothing.
        wasted: bool,
    },
    /// `schedule()` returned at once: the thread was woken before it slept, or the queue was not
    /// empty.
    DidNotSleep,
    /// Took a connection under `lock_sock`.
    Took {
        /// The connection's id.
        conn: u32,
    },
    /// Found the accept queue empty after waking: back to the top of the loop.
    FoundEmpty,
    /// `finish_wait`.
    FinishedWait,
    /// Did useful work.
    Worked {
        /// Nanoseconds of work.
        ns: u64,
    },
    /// A plain or atomic memory operation.
    Memory {
        /// The word.
        word: Word,
        /// The value read (or the old value).
        value: u32,
        /// For a CAS: whether it succeeded; true for every other operation.
        ok: bool,
    },
    /// A futex wait slept.
    FutexSlept,
    /// A futex wait returned `EAGAIN` at once.
    FutexMismatch,
    /// A futex or condition-variable wake woke this many.
    Woke {
        /// Sleepers woken.
        woken: u16,
    },
    /// Took a mutex.
    LockTaken,
    /// Slept on a contended mutex.
    LockSlept,
    /// Released a mutex.
    Unlocked,
    /// Released the mutex and slept on the condition variable.
    CondSlept,
    /// Took the mutex back after a condition-variable wakeup.
    Relocked,
    /// `sem_wait` took a unit.
    SemTook,
    /// `sem_wait` slept.
    SemSlept,
    /// The producer received the next event.
    EventDelivered,
    /// The producer waits for the next event.
    EventWait,
    /// No events are left.
    NoMoreEvents,
    /// A `pause`, `yield` or clock read.
    Other,
    /// The thread exited.
    Exited,
    /// `epoll_ctl(ADD)`; `ready_now` when the descriptor was already readable (queued at once).
    EpollAdded {
        /// The epoll instance.
        ep: u8,
        /// The descriptor was readable at registration.
        ready_now: bool,
    },
    /// `epoll_ctl(DEL)`.
    EpollRemoved {
        /// The epoll instance.
        ep: u8,
    },
    /// `epoll_wait` returned events.
    EpollReturned {
        /// The listening socket was among them.
        listener: bool,
        /// Readable connections among them.
        conns: u16,
    },
    /// `epoll_wait` found nothing and slept.
    EpollSlept {
        /// The sleep ends a wakeup that found nothing (the re-poll found the socket drained).
        wasted: bool,
    },
    /// `epoll_wait` returned 0: its timeout expired.
    EpollTimedOut,
    /// `accept4` took a connection.
    AcceptedNb {
        /// The connection's id.
        conn: u32,
    },
    /// `accept4` returned `EAGAIN`.
    AcceptAgain,
    /// A request was read.
    ReadRequest {
        /// The connection.
        conn: u32,
    },
    /// The client had closed: EOF, and the connection is closed.
    ReadEof {
        /// The connection.
        conn: u32,
    },
    /// A read found nothing.
    ReadNothing,
    /// A blocking read slept.
    RecvSlept,
    /// The response was written.
    Responded {
        /// The connection.
        conn: u32,
    },
    /// A client sent a request; the connection's readiness woke `woken` threads.
    ClientSent {
        /// The connection.
        conn: u32,
        /// Threads woken.
        woken: u16,
    },
    /// A client closed its connection.
    ClientClosed {
        /// The connection.
        conn: u32,
        /// Threads woken.
        woken: u16,
    },
    /// A thread's timer expired and woke it: its `epoll_wait` timeout, or the end of its timed
    /// sleep ([`crate::op::Op::Sleep`]).
    TimerFired {
        /// The thread.
        thread: u16,
    },
}

/// One executed step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step's number, from 1.
    pub step: u64,
    /// Who stepped.
    pub actor: Actor,
    /// The pseudocode line the step executed (0 for the network).
    pub line: u16,
    /// Simulated time when the step started.
    pub time_ns: u64,
    /// The CPU it ran on (none for the network).
    pub cpu: Option<u8>,
    /// What happened.
    pub note: Note,
}

/// Why a step could not be taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepError {
    /// The thread index does not exist.
    NoSuchThread,
    /// The thread is asleep or done.
    NotRunnable,
    /// The network has nothing left to deliver (or this mechanism has no network).
    NoArrival,
    /// No actor can step.
    Stalled,
}

impl core::fmt::Display for StepError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            StepError::NoSuchThread => "no such thread",
            StepError::NotRunnable => "that thread is asleep or done",
            StepError::NoArrival => "no connection is left to send",
            StepError::Stalled => "nothing can run",
        })
    }
}
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

/// The trace hash before any step.
pub(super) const TRACE_START: u64 = 0xCBF2_9CE4_8422_2325;

/// Mix one step into a trace hash (FNV-1a over the actor, line, time and outcome).
#[inline]
pub(super) fn mix_trace(trace: u64, rec: &StepRecord) -> u64 {
    let actor = match rec.actor {
        Actor::Thread(i) => i as u64,
        Actor::Network => 0xFFFF,
    };
    let note = note_code(&rec.note);
    let mut h = trace;
    for x in [actor, rec.line as u64, rec.time_ns, note] {
        h = (h ^ x).wrapping_mul(FNV_PRIME);
    }
    h
}

fn note_code(n: &Note) -> u64 {
    match *n {
        Note::Arrived { conn, woken } => 1 << 40 | (conn as u64) << 8 | woken as u64,
        Note::FastPathTook { conn } => 2 << 40 | conn as u64,
        Note::FastPathEmpty => 3 << 40,
        Note::TestedFirst { empty } => 4 << 40 | empty as u64,
        Note::Enqueued { exclusive, added } => 5 << 40 | (exclusive as u64) << 1 | added as u64,
        Note::Slept { wasted } => 6 << 40 | wasted as u64,
        Note::DidNotSleep => 7 << 40,
        Note::Took { conn } => 8 << 40 | conn as u64,
        Note::FoundEmpty => 9 << 40,
        Note::FinishedWait => 10 << 40,
        Note::Worked { ns } => 11 << 40 | (ns & 0xFF_FFFF_FFFF),
        Note::Memory { word, value, ok } => {
            12 << 40 | (word.0 as u64) << 33 | (ok as u64) << 32 | value as u64
        }
        Note::FutexSlept => 13 << 40,
        Note::FutexMismatch => 14 << 40,
        Note::Woke { woken } => 15 << 40 | woken as u64,
        Note::LockTaken => 16 << 40,
        Note::LockSlept => 17 << 40,
        Note::Unlocked => 18 << 40,
        Note::CondSlept => 19 << 40,
        Note::Relocked => 20 << 40,
        Note::EventDelivered => 21 << 40,
        Note::EventWait => 22 << 40,
        Note::NoMoreEvents => 23 << 40,
        Note::Other => 24 << 40,
        Note::Exited => 25 << 40,
        Note::SemTook => 26 << 40,
        Note::SemSlept => 27 << 40,
        Note::EpollAdded { ep, ready_now } => 28 << 40 | (ep as u64) << 1 | ready_now as u64,
        Note::EpollRemoved { ep } => 29 << 40 | ep as u64,
        Note::EpollReturned { listener, conns } => {
            30 << 40 | (listener as u64) << 16 | conns as u64
        }
        Note::EpollSlept { wasted } => 31 << 40 | wasted as u64,
        Note::EpollTimedOut => 32 << 40,
        Note::AcceptedNb { conn } => 33 << 40 | conn as u64,
        Note::AcceptAgain => 34 << 40,
        Note::ReadRequest { conn } => 35 << 40 | conn as u64,
        Note::ReadEof { conn } => 36 << 40 | conn as u64,
        Note::ReadNothing => 37 << 40,
        Note::RecvSlept => 38 << 40,
        Note::Responded { conn } => 39 << 40 | conn as u64,
        Note::ClientSent { conn, woken } => 40 << 40 | (conn as u64) << 8 | woken as u64,
        Note::ClientClosed { conn, woken } => 41 << 40 | (conn as u64) << 8 | woken as u64,
        Note::TimerFired { thread } => 42 << 40 | thread as u64,
    }
}
