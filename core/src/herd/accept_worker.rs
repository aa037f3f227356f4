//! The accept herd's worker: `loop { fd = accept(listen_fd); handle(fd) }`.
//!
//! The user-space loop is two steps; `accept` is a system call whose kernel side (the sleeper
//! protocol of `inet_csk_wait_for_connect`) the simulated platform runs line by line
//! ([`crate::sim::accept`]) and the native platform leaves to the real kernel.
//!
//! | state | next op | line |
//! |---|---|---|
//! | `Accept` | [`Op::Accept`] | the kernel path's line |
//! | `Handle` | [`Op::Work`] (service time) | `handle(fd)` |
//! | `Exit` | [`Op::Exit`] (the listener was shut down) | — |

use crate::machine::Machine;
use crate::op::{ListenerId, Op, OpResult};
use crate::sim::accept::{AcceptModel, AcceptPhase, SleeperOrder};
use crate::waitqueue::Enqueue;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum State {
    Accept,
    Handle,
    Exit,
}

/// One worker thread blocked in `accept()` on a shared listening socket.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AcceptWorker {
    state: State,
    service_ns: u64,
    listing: &'static [&'static str],
    order: SleeperOrder,
    /// The connection being handled.
    conn: u32,
}

const CORRECT_TAIL: &[&str] = &[
    "loop {                                      // worker thread, user space",
    "  fd = accept(listen_fd)                    // system call; the kernel runs:",
    "  | if accept_queue not empty: take head, return",
    "  | loop {",
    "  |   prepare_to_wait_exclusive(&sk_wq)     // tail, EXCLUSIVE; state = SLEEPING",
    "  |   if accept_queue empty: schedule()     // off the CPU until woken",
    "  |   if accept_queue not empty: take head, break",
    "  | }",
    "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink",
    "  handle(fd)                                // the request's service time",
    "}",
];

const CORRECT_HEAD: &[&str] = &[
    "loop {                                      // worker thread, user space",
    "  fd = accept(listen_fd)                    // system call; the kernel runs:",
    "  | if accept_queue not empty: take head, return",
    "  | loop {",
    "  |   prepare_to_wait(&sk_wq)               // head, not exclusive; state = SLEEPING",
    "  |   if accept_queue empty: schedule()     // off the CPU until woken",
    "  |   if accept_queue not empty: take head, break",
    "  | }",
    "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink",
    "  handle(fd)                                // the request's service time",
    "}",
];

const CORRECT_LIFO: &[&str] = &[
    "loop {                                      // worker thread, user space",
    "  fd = accept(listen_fd)                    // system call; the kernel runs:",
    "  | if accept_queue not empty: take head, return",
    "  | loop {",
    "  |   __add_wait_queue_exclusive(&sk_wq)    // head, EXCLUSIVE; state = SLEEPING",
    "  |   if accept_queue empty: schedule()     // off the CPU until woken",
    "  |   if accept_queue not empty: take head, break",
    "  | }",
    "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink",
    "  handle(fd)                                // the request's service time",
    "}",
];

const BROKEN_TAIL: &[&str] = &[
    "loop {                                      // worker thread, user space",
    "  fd = accept(listen_fd)                    // system call; the kernel runs:",
    "  | if accept_queue not empty: take head, return",
    "  | loop {",
    "  |   if accept_queue empty:                // BUG: tested before queueing",
    "  |     prepare_to_wait_exclusive(&sk_wq)   // a wakeup before this line is lost",
    "  |     schedule()",
    "  |   if accept_queue not empty: take head, break",
    "  | }",
    "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink",
    "  handle(fd)                                // the request's service time",
    "}",
];

const BROKEN_HEAD: &[&str] = &[
    "loop {                                      // worker thread, user space",
    "  fd = accept(listen_fd)                    // system call; the kernel runs:",
    "  | if accept_queue not empty: take head, return",
    "  | loop {",
    "  |   if accept_queue empty:                // BUG: tested before queueing",
    "  |     prepare_to_wait(&sk_wq)             // a wakeup before this line is lost",
    "  |     schedule()",
    "  |   if accept_queue not empty: take head, break",
    "  | }",
    "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink",
    "  handle(fd)                                // the request's service time",
    "}",
];

const BROKEN_LIFO: &[&str] = &[
    "loop {                                      // worker thread, user space",
    "  fd = accept(listen_fd)                    // system call; the kernel runs:",
    "  | if accept_queue not empty: take head, return",
    "  | loop {",
    "  |   if accept_queue empty:                // BUG: tested before queueing",
    "  |     __add_wait_queue_exclusive(&sk_wq)  // a wakeup before this line is lost",
    "  |     schedule()",
    "  |   if accept_queue not empty: take head, break",
    "  | }",
    "  | finish_wait(&sk_wq)                     // state = RUNNING; unlink",
    "  handle(fd)                                // the request's service time",
    "}",
];

impl AcceptWorker {
    /// A worker that handles each connection for `service_ns`, whose listing shows the kernel path
    /// `model` describes.
    pub fn new(service_ns: u64, model: AcceptModel) -> Self {
        let listing = match (model.order, model.enqueue) {
            (SleeperOrder::EnqueueThenTest, Enqueue::ExclusiveTail) => CORRECT_TAIL,
            (SleeperOrder::EnqueueThenTest, Enqueue::NonExclusiveHead) => CORRECT_HEAD,
            (SleeperOrder::EnqueueThenTest, Enqueue::ExclusiveHead) => CORRECT_LIFO,
            (SleeperOrder::TestThenEnqueue, Enqueue::ExclusiveTail) => BROKEN_TAIL,
            (SleeperOrder::TestThenEnqueue, Enqueue::NonExclusiveHead) => BROKEN_HEAD,
            (SleeperOrder::TestThenEnqueue, Enqueue::ExclusiveHead) => BROKEN_LIFO,
        };
        AcceptWorker {
            state: State::Accept,
            service_ns,
            listing,
            order: model.order,
            conn: 0,
        }
    }

    /// The connection handled last.
    pub fn conn(&self) -> u32 {
        self.conn
    }
}

impl Machine for AcceptWorker {
    fn next_op(&self) -> Op {
        match self.state {
            State::Accept => Op::Accept(ListenerId(0)),
            State::Handle => Op::Work(self.service_ns),
            State::Exit => Op::Exit,
        }
    }

    fn complete(&mut self, result: OpResult) {
        self.state = match (self.state, result) {
            (State::Accept, OpResult::Conn(c)) => {
                self.conn = c;
                State::Handle
            }
            (State::Accept, _) => State::Exit,
            (State::Handle, _) => State::Accept,
            (State::Exit, _) => State::Exit,
        };
    }

    fn line(&self) -> u16 {
        let broken = self.order == SleeperOrder::TestThenEnqueue;
        match self.state {
            State::Accept => 3,
            State::Handle => 10 + broken as u16,
            State::Exit => 1,
        }
    }

    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        let broken = self.order == SleeperOrder::TestThenEnqueue;
        match (phase, broken) {
            (AcceptPhase::Fast, _) => 3,
            (AcceptPhase::Prepare, false) => 5,
            (AcceptPhase::SleepIfEmpty, _) => 6,
            (AcceptPhase::Take, false) => 7,
            (AcceptPhase::Finish, false) => 9,
            (AcceptPhase::TestFirst, _) => 5,
            (AcceptPhase::Prepare, true) => 6,
            (AcceptPhase::Schedule, _) => 7,
            (AcceptPhase::Take, true) => 8,
            (AcceptPhase::Finish, true) => 10,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        self.listing
    }
}
