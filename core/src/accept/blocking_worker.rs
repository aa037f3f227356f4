//! The reference server: threads blocked in `accept()` on one listening socket, each serving its
//! connection with blocking reads until the client closes it.
//!
//! | state | op | next |
//! |---|---|---|
//! | `Accept` | [`Op::Accept`] (the kernel's exclusive, FIFO wait: [`crate::sim::accept`]) | `Recv` |
//! | `Recv` | blocking `read(fd)` | `Handle`, or `Accept` after EOF (the connection is closed) |
//! | `Handle` | [`Op::Work`], the service time | `Respond` |
//! | `Respond` | `write(fd, response)` | `Recv` |
//!
//! Invariant: a thread serves one connection at a time, and every connection it accepts is read until
//! EOF, so none is lost or served twice (checked by the conservation counters of the simulation).

use crate::machine::Machine;
use crate::op::{ListenerId, Op, OpResult};
use crate::sim::accept::AcceptPhase;

use super::event_worker::WorkerStats;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pc {
    Accept,
    Recv(u32),
    Handle(u32),
    Respond(u32),
}

/// One thread of the blocking-accept server.
#[derive(Clone, Debug)]
pub struct BlockingWorker {
    pc: Pc,
    service_ns: u64,
    stats: WorkerStats,
}

impl PartialEq for BlockingWorker {
    fn eq(&self, o: &Self) -> bool {
        (self.pc, self.service_ns) == (o.pc, o.service_ns)
    }
}
impl Eq for BlockingWorker {}
impl core::hash::Hash for BlockingWorker {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        (self.pc, self.service_ns).hash(h)
    }
}

/// The listing of the blocking server's thread.
pub const LISTING: &[&str] = &[
    "loop {                                      // one thread of a blocking server",
    "  fd = accept(listen_fd)                    // sleeps: exclusive, FIFO wait queue entry",
    "  | (kernel) queue the wait entry at the tail, sleep until a connection",
    "  | (kernel) take the connection from the accept queue",
    "  loop {",
    "    r = read(fd)                            // sleeps until the request; EOF: close(fd), break",
    "    handle(r)                               // the service time",
    "    write(fd, response)",
    "  }",
    "}",
];

impl BlockingWorker {
    /// A thread that serves requests taking `service_ns` each.
    pub fn new(service_ns: u64) -> Self {
        BlockingWorker {
            pc: Pc::Accept,
            service_ns,
            stats: WorkerStats::default(),
        }
    }
    /// The counters.
    pub fn stats(&self) -> &WorkerStats {
        &self.stats
    }
}

impl Machine for BlockingWorker {
    fn next_op(&self) -> Op {
        match self.pc {
            Pc::Accept => Op::Accept(ListenerId(0)),
            Pc::Recv(c) => Op::Recv(c),
            Pc::Handle(_) => Op::Work(self.service_ns),
            Pc::Respond(c) => Op::Respond(c),
        }
    }

    fn complete(&mut self, r: OpResult) {
        self.pc = match (self.pc, r) {
            (Pc::Accept, OpResult::Conn(c)) => {
                self.stats.accepted += 1;
                Pc::Recv(c)
            }
            (Pc::Accept, _) => Pc::Accept,
            (Pc::Recv(_), OpResult::Request(c)) => Pc::Handle(c),
            (Pc::Recv(_), _) => {
                self.stats.closed += 1;
                Pc::Accept
            }
            (Pc::Handle(c), _) => Pc::Respond(c),
            (Pc::Respond(c), _) => {
                self.stats.requests += 1;
                Pc::Recv(c)
            }
        };
    }

    fn line(&self) -> u16 {
        match self.pc {
            Pc::Accept => 2,
            Pc::Recv(_) => 6,
            Pc::Handle(_) => 7,
            Pc::Respond(_) => 8,
        }
    }

    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        match phase {
            AcceptPhase::Take | AcceptPhase::Finish | AcceptPhase::Fast => 4,
            _ => 3,
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        LISTING
    }
}
