//! The reference server: threads blocked in `accept()` on one listening socket, each serving its
//! connection with blocking reads until the client closes it.
//!
//! The thread is the step table [`Worker`]; each state names its line ([`Ln`]).
//!
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Accept` | Accept (kernel: Sleep, Take) | [`Op::Accept`] (the kernel's exclusive, FIFO wait: [`crate::sim::accept`]) | `Recv{c}` |
//! | `Recv{c}` | Recv | blocking `read(fd)` | `Handle{c}`, or `Accept` after EOF (the connection is closed) |
//! | `Handle{c}` | Handle | [`Op::Work`], the service time | `Respond{c}` |
//! | `Respond{c}` | Respond | `write(fd, response)` | `Recv{c}` |
//!
//! Invariant: a thread serves one connection at a time, and every connection it accepts is read until
//! EOF, so none is lost or served twice (checked by the conservation counters of the simulation).

use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Read, Stopped};
use crate::machine::Machine;
use crate::op::{ListenerId, Op, OpResult};
use crate::sim::accept::AcceptPhase;

use super::event_worker::WorkerStats;

crate::line_names! {
    /// The named lines of the blocking server's listing.
    pub enum Ln {
        /// `fd = accept(listen_fd)`.
        Accept,
        /// The kernel queues the wait entry and sleeps.
        Sleep,
        /// The kernel takes the connection.
        Take,
        /// `r = read(fd)`.
        Recv,
        /// `handle(r)`.
        Handle,
        /// `write(fd, response)`.
        Respond,
    }
}

crate::steps! {
    /// Where a thread of the blocking server is.
    pub enum Worker(m: BlockingWorker) -> (), line Ln {
        /// `fd = accept(listen_fd)`.
        Accept @ Ln::Accept => accept(ListenerId(0)) => |conn| match conn {
            Some(c) => {
                m.stats.accepted += 1;
                Go(Worker::Recv { c })
            }
            None => Go(Worker::Accept),
        };
        /// Read the next request.
        Recv {
            /// The connection.
            c: u32,
        } @ Ln::Recv => recv(c) => |read| match read {
            Read::Request(c) => Go(Worker::Handle { c }),
            _ => {
                m.stats.closed += 1;
                Go(Worker::Accept)
            }
        };
        /// The service time.
        Handle {
            /// The connection.
            c: u32,
        } @ Ln::Handle => work(m.service_ns) => |()| Go(Worker::Respond { c });
        /// Write the response.
        Respond {
            /// The connection.
            c: u32,
        } @ Ln::Respond => respond(c) => |()| {
            m.stats.requests += 1;
            Go(Worker::Recv { c })
        };
    }
}

/// One thread of the blocking-accept server.
#[derive(Clone, Debug)]
pub struct BlockingWorker {
    pc: Worker,
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

const NAMED: Listing<Ln> = crate::listing![Ln;
    ([], "loop {                                      // one thread of a blocking server"),
    ([Ln::Accept], "  fd = accept(listen_fd)                    // sleeps: exclusive, FIFO wait queue entry"),
    ([Ln::Sleep], "  | (kernel) queue the wait entry at the tail, sleep until a connection"),
    ([Ln::Take], "  | (kernel) take the connection from the accept queue"),
    ([], "  loop {"),
    ([Ln::Recv], "    r = read(fd)                            // sleeps until the request; EOF: close(fd), break"),
    ([Ln::Handle], "    handle(r)                               // the service time"),
    ([Ln::Respond], "    write(fd, response)"),
    ([], "  }"),
    ([], "}"),
];

/// The listing of the blocking server's thread.
pub const LISTING: &[&str] = NAMED.text;

impl BlockingWorker {
    /// A thread that serves requests taking `service_ns` each.
    pub fn new(service_ns: u64) -> Self {
        BlockingWorker {
            pc: Worker::Accept,
            service_ns,
            stats: WorkerStats::default(),
        }
    }
    /// The counters.
    pub fn stats(&self) -> &WorkerStats {
        &self.stats
    }
    /// Where it is.
    pub fn state(&self) -> Worker {
        self.pc
    }
    /// This thread's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<Ln> {
        &NAMED
    }
    /// Straight-line form: serve connections until the platform stops the run (the server never
    /// exits on its own, so this returns only with the platform's error, in the state it stopped).
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        match self.pc.run(self, p) {
            Ok(_) => Ok(()),
            Err(Stopped { state, error }) => {
                self.pc = state;
                Err(error)
            }
        }
    }
}

impl Machine for BlockingWorker {
    fn next_op(&self) -> Op {
        self.pc.op(self)
    }

    fn complete(&mut self, r: OpResult) {
        let pc = self.pc;
        match pc.complete(self, r) {
            Next::Go(s) => self.pc = s,
            Next::Done(()) => {}
        }
    }

    fn line(&self) -> u16 {
        NAMED.of(self.pc.line(self))
    }

    fn kernel_line(&self, phase: AcceptPhase) -> u16 {
        NAMED.of(match phase {
            AcceptPhase::Take | AcceptPhase::Finish | AcceptPhase::Fast => Ln::Take,
            _ => Ln::Sleep,
        })
    }

    fn listing(&self) -> &'static [&'static str] {
        NAMED.text
    }
}
