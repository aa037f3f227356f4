//! The accept herd's worker: `loop { fd = accept(listen_fd); handle(fd) }`.
//!
//! The user-space loop is two steps; `accept` is a system call whose kernel side (the sleeper
//! protocol of `inet_csk_wait_for_connect`) the simulated platform runs line by line
//! ([`crate::sim::accept`]) and the native platform leaves to the real kernel.
//!
//! The loop is the step table [`Worker`]; the table finishing (the listener was shut down) is the
//! worker exiting. Each state names its line ([`Ln`]), and each kernel phase of the accept path
//! names one too ([`Ln::of_phase`]), placed by the listing of the model's sleeper order and queue.
//!
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Accept` | Fast, then the kernel path's lines | [`Op::Accept`] | `Handle`, or exit once the listener is shut down |
//! | `Handle` | Handle | [`Op::Work`] (service time) | `Accept` |

use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Stopped};
use crate::machine::Machine;
use crate::op::{ListenerId, Op, OpResult};
use crate::sim::accept::SleeperOrder;
use crate::sim::accept::{AcceptModel, AcceptPhase};
use crate::waitqueue::Enqueue;

crate::line_names! {
    /// The named lines of the accept worker's listings: its own two, and the kernel's accept path.
    pub enum Ln {
        /// `loop {`, where an exited worker rests.
        Top,
        /// `if accept_queue not empty: take head, return` (the fast path).
        Fast,
        /// Broken order: `if accept_queue empty:` before queueing.
        TestFirst,
        /// `prepare_to_wait[_exclusive]` / `__add_wait_queue_exclusive`.
        Prepare,
        /// Correct order: `if accept_queue empty: schedule()`.
        SleepIfEmpty,
        /// Broken order: `schedule()`.
        Schedule,
        /// `if accept_queue not empty: take head, break`.
        Take,
        /// `finish_wait(&sk_wq)`.
        Finish,
        /// `handle(fd)`.
        Handle,
    }
}

impl Ln {
    /// The line name of a phase of the kernel's accept path.
    pub fn of_phase(phase: AcceptPhase) -> Ln {
        match phase {
            AcceptPhase::Fast => Ln::Fast,
            AcceptPhase::TestFirst => Ln::TestFirst,
            AcceptPhase::Prepare => Ln::Prepare,
            AcceptPhase::SleepIfEmpty => Ln::SleepIfEmpty,
            AcceptPhase::Schedule => Ln::Schedule,
            AcceptPhase::Take => Ln::Take,
            AcceptPhase::Finish => Ln::Finish,
        }
    }
}

crate::steps! {
    /// Where an accept-herd worker is; the table finishing is the worker exiting.
    pub enum Worker(m: AcceptWorker) -> (), line Ln {
        /// `fd = accept(listen_fd)`: the kernel path runs under it.
        Accept @ Ln::Fast => accept(ListenerId(0)) => |conn| match conn {
            Some(c) => {
                m.conn = c;
                Go(Worker::Handle)
            }
            None => Done(()),
        };
        /// `handle(fd)`.
        Handle @ Ln::Handle => work(m.service_ns) => |()| Go(Worker::Accept);
    }
}

/// One worker thread blocked in `accept()` on a shared listening socket.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AcceptWorker {
    /// `None` once it exited.
    state: Option<Worker>,
    service_ns: u64,
    listing: &'static Listing<Ln>,
    /// The connection being handled.
    conn: u32,
}

const CORRECT_TAIL: Listing<Ln> = crate::listing![Ln;
    ([Ln::Top], "loop {                                      // worker thread, user space"),
    ([], "  fd = accept(listen_fd)                    // system call; the kernel runs:"),
    ([Ln::Fast], "  | if accept_queue not empty: take head, return"),
    ([], "  | loop {"),
    ([Ln::Prepare], "  |   prepare_to_wait_exclusive(&sk_wq)     // tail, EXCLUSIVE; state = SLEEPING"),
    ([Ln::SleepIfEmpty], "  |   if accept_queue empty: schedule()     // off the CPU until woken"),
    ([Ln::Take], "  |   if accept_queue not empty: take head, break"),
    ([], "  | }"),
    ([Ln::Finish], "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink"),
    ([Ln::Handle], "  handle(fd)                                // the request's service time"),
    ([], "}"),
];

const CORRECT_HEAD: Listing<Ln> = crate::listing![Ln;
    ([Ln::Top], "loop {                                      // worker thread, user space"),
    ([], "  fd = accept(listen_fd)                    // system call; the kernel runs:"),
    ([Ln::Fast], "  | if accept_queue not empty: take head, return"),
    ([], "  | loop {"),
    ([Ln::Prepare], "  |   prepare_to_wait(&sk_wq)               // head, not exclusive; state = SLEEPING"),
    ([Ln::SleepIfEmpty], "  |   if accept_queue empty: schedule()     // off the CPU until woken"),
    ([Ln::Take], "  |   if accept_queue not empty: take head, break"),
    ([], "  | }"),
    ([Ln::Finish], "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink"),
    ([Ln::Handle], "  handle(fd)                                // the request's service time"),
    ([], "}"),
];

const CORRECT_LIFO: Listing<Ln> = crate::listing![Ln;
    ([Ln::Top], "loop {                                      // worker thread, user space"),
    ([], "  fd = accept(listen_fd)                    // system call; the kernel runs:"),
    ([Ln::Fast], "  | if accept_queue not empty: take head, return"),
    ([], "  | loop {"),
    ([Ln::Prepare], "  |   __add_wait_queue_exclusive(&sk_wq)    // head, EXCLUSIVE; state = SLEEPING"),
    ([Ln::SleepIfEmpty], "  |   if accept_queue empty: schedule()     // off the CPU until woken"),
    ([Ln::Take], "  |   if accept_queue not empty: take head, break"),
    ([], "  | }"),
    ([Ln::Finish], "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink"),
    ([Ln::Handle], "  handle(fd)                                // the request's service time"),
    ([], "}"),
];

const BROKEN_TAIL: Listing<Ln> = crate::listing![Ln;
    ([Ln::Top], "loop {                                      // worker thread, user space"),
    ([], "  fd = accept(listen_fd)                    // system call; the kernel runs:"),
    ([Ln::Fast], "  | if accept_queue not empty: take head, return"),
    ([], "  | loop {"),
    ([Ln::TestFirst], "  |   if accept_queue empty:                // BUG: tested before queueing"),
    ([Ln::Prepare], "  |     prepare_to_wait_exclusive(&sk_wq)   // a wakeup before this line is lost"),
    ([Ln::Schedule], "  |     schedule()"),
    ([Ln::Take], "  |   if accept_queue not empty: take head, break"),
    ([], "  | }"),
    ([Ln::Finish], "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink"),
    ([Ln::Handle], "  handle(fd)                                // the request's service time"),
    ([], "}"),
];

const BROKEN_HEAD: Listing<Ln> = crate::listing![Ln;
    ([Ln::Top], "loop {                                      // worker thread, user space"),
    ([], "  fd = accept(listen_fd)                    // system call; the kernel runs:"),
    ([Ln::Fast], "  | if accept_queue not empty: take head, return"),
    ([], "  | loop {"),
    ([Ln::TestFirst], "  |   if accept_queue empty:                // BUG: tested before queueing"),
    ([Ln::Prepare], "  |     prepare_to_wait(&sk_wq)             // a wakeup before this line is lost"),
    ([Ln::Schedule], "  |     schedule()"),
    ([Ln::Take], "  |   if accept_queue not empty: take head, break"),
    ([], "  | }"),
    ([Ln::Finish], "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink"),
    ([Ln::Handle], "  handle(fd)                                // the request's service time"),
    ([], "}"),
];

const BROKEN_LIFO: Listing<Ln> = crate::listing![Ln;
    ([Ln::Top], "loop {                                      // worker thread, user space"),
    ([], "  fd = accept(listen_fd)                    // system call; the kernel runs:"),
    ([Ln::Fast], "  | if accept_queue not empty: take head, return"),
    ([], "  | loop {"),
    ([Ln::TestFirst], "  |   if accept_queue empty:                // BUG: tested before queueing"),
    ([Ln::Prepare], "  |     __add_wait_queue_exclusive(&sk_wq)  // a wakeup before this line is lost"),
    ([Ln::Schedule], "  |     schedule()"),
    ([Ln::Take], "  |   if accept_queue not empty: take head, break"),
    ([], "  | }"),
    ([Ln::Finish], "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink"),
    ([Ln::Handle], "  handle(fd)                                // the request's service time"),
    ([], "}"),
];

impl AcceptWorker {
    /// A worker that handles each connection for `service_ns`, whose listing shows the kernel path
    /// `model` describes.
    pub fn new(service_ns: u64, model: AcceptModel) -> Self {
        let listing = match (model.order, model.enqueue) {
            (SleeperOrder::EnqueueThenTest, Enqueue::ExclusiveTail) => &CORRECT_TAIL,
            (SleeperOrder::EnqueueThenTest, Enqueue::NonExclusiveHead) => &CORRECT_HEAD,
            (SleeperOrder::EnqueueThenTest, Enqueue::ExclusiveHead) => &CORRECT_LIFO,
            (SleeperOrder::TestThenEnqueue, Enqueue::ExclusiveTail) => &BROKEN_TAIL,
            (SleeperOrder::TestThenEnqueue, Enqueue::NonExclusiveHead) => &BROKEN_HEAD,
            (SleeperOrder::TestThenEnqueue, Enqueue::ExclusiveHead) => &BROKEN_LIFO,
        };
        AcceptWorker {
            state: Some(Worker::Accept),
            service_ns,
            listing,
            conn: 0,
        }
    }

    /// The connection handled last.
    pub fn conn(&self) -> u32 {
        self.conn
    }

    /// Where it is (`None` once it exited).
    pub fn state(&self) -> Option<Worker> {
        self.state
    }

    /// This worker's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<Ln> {
        self.listing
    }

    /// Straight-line form: accept and handle until the listener is shut down.
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        let Some(s) = self.state else { return Ok(()) };
        match s.run(self, p) {
            Ok(_) => {
                self.state = None;
                Ok(())
            }
            Err(Stopped { state, error }) => {
                self.state = Some(state);
                Err(error)
            }
        }
    }
}

impl Machine for AcceptWorker {
    fn next_op(&self) -> Op {
        match self.state {
            Some(s) => s.op(self),
            None => Op::Exit,
        }
    }

    fn complete(&mut self, r: OpResult) {
        if let Some(s) = self.state {
            self.state = match s.complete(self, r) {
                Next::Go(s) => Some(s),
                Next::Done(()) => None,
            };
        }
    }

    fn line(&self) -> u16 {
        self.listing.of(match self.state {
            Some(s) => s.line(self),
            None => Ln::Top,
        })
    }

    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        self.listing.of(Ln::of_phase(phase))
    }

    fn listing(&self) -> &'static [&'static str] {
        self.listing.text
    }
}
