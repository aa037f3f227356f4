//! The futex herd: worker threads sleep on one futex word; a producer publishes jobs and wakes all of
//! them (`FUTEX_WAKE` with `INT_MAX`) or one.
//!
//! Shared words: [`TICKETS`] (jobs published and not yet claimed, plus the [`STOP`] bit) and
//! [`WAITERS`] (threads that announced they are about to sleep).
//!
//! Each thread is a step table ([`Worker`], [`Producer`]) whose states name their lines
//! ([`WorkerLn`], [`ProducerLn`]); the table finishing is the thread exiting.
//!
//! # Worker states ([`Worker`])
//! | state | line | op | then |
//! |---|---|---|---|
//! | `Load` | Load | load `tickets` | `Claim{t}` if jobs, exit if STOP and no job, else `Announce` |
//! | `Claim{t}` | Claim | CAS `tickets` t → t−1 | `Handle` on success, `Load` on failure |
//! | `Handle` | Handle | work (service time) | `Load` |
//! | `Announce` | Announce | `waiters += 1` | `Wait` |
//! | `Wait` | Wait | `futex_wait(tickets, 0)` | `Unannounce` |
//! | `Unannounce` | Unannounce | `waiters −= 1` | `Load` |
//!
//! # Producer states ([`Producer`])
//! | state | line | op | then |
//! |---|---|---|---|
//! | `Await` | Await | next event | `Publish`, or `Stop` when events run out |
//! | `Publish` | Publish | `tickets += 1` | `Check` |
//! | `Check` | Check | load `waiters` | `Wake` if > 0, else `Await` |
//! | `Wake` | Wake | `futex_wake(tickets, n)` | `Await` |
//! | `Stop` | Stop | `tickets += STOP` | `StopWake` |
//! | `StopWake` | Stop | `futex_wake(tickets, ALL)` | exit |
//!
//! # Why no wakeup is lost
//! The worker increments `waiters` *before* `futex_wait`, and the producer increments `tickets`
//! *before* reading `waiters` (all operations sequentially consistent). If the producer reads
//! `waiters == 0` and skips the wake, the worker's increment came later, so its `futex_wait` finds
//! `tickets != 0` and returns at once. Otherwise the producer wakes. The kernel checks the futex word
//! and queues the sleeper atomically, so a wake cannot slip between the two.

use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Stopped};
use crate::machine::Machine;
use crate::op::{Op, OpResult, WakeCount, Word};

/// Jobs published and not claimed, plus [`STOP`].
pub const TICKETS: Word = Word(0);
/// Threads about to sleep or asleep.
pub const WAITERS: Word = Word(1);
/// Set in [`TICKETS`] when no more jobs will come.
pub const STOP: u32 = 0x8000_0000;

crate::line_names! {
    /// The named lines of the worker's listing.
    pub enum WorkerLn {
        /// `t = tickets.load()`.
        Load,
        /// `if t > 0 && tickets.cas(t, t - 1)`.
        Claim,
        /// `handle(job)`.
        Handle,
        /// `waiters.fetch_add(1)`.
        Announce,
        /// `futex_wait(&tickets, 0)`.
        Wait,
        /// `waiters.fetch_sub(1)`.
        Unannounce,
        /// The loop's end, where an exited worker rests.
        End,
    }
}

crate::line_names! {
    /// The named lines of the producer's listings.
    pub enum ProducerLn {
        /// `await_event()`.
        Await,
        /// `tickets.fetch_add(1)`.
        Publish,
        /// `if waiters.load() > 0`.
        Check,
        /// `futex_wake(&tickets, n)`.
        Wake,
        /// The stop: `tickets.fetch_add(STOP); futex_wake(&tickets, ALL)`, where it rests after.
        Stop,
    }
}

const WORKER_LISTING: Listing<WorkerLn> = crate::listing![WorkerLn;
    ([], "loop {                                      // worker thread"),
    ([WorkerLn::Load], "  t = tickets.load()                        // STOP and no job left: return"),
    ([WorkerLn::Claim], "  if t > 0 && tickets.cas(t, t - 1):        // claim one job (on failure, look again)"),
    ([WorkerLn::Handle], "    handle(job)                             // service time"),
    ([], "    continue"),
    ([WorkerLn::Announce], "  waiters.fetch_add(1)"),
    ([WorkerLn::Wait], "  futex_wait(&tickets, 0)                   // sleeps only while tickets == 0"),
    ([WorkerLn::Unannounce], "  waiters.fetch_sub(1)"),
    ([WorkerLn::End], "}"),
];

const PRODUCER_ALL: Listing<ProducerLn> = crate::listing![ProducerLn;
    ([], "for each event {                            // producer thread"),
    ([ProducerLn::Await], "  await_event()                             // the arrival pattern"),
    ([ProducerLn::Publish], "  tickets.fetch_add(1)                      // publish the job"),
    ([ProducerLn::Check], "  if waiters.load() > 0:"),
    ([ProducerLn::Wake], "    futex_wake(&tickets, ALL)               // wake-all: every sleeper"),
    ([], "}"),
    ([ProducerLn::Stop], "tickets.fetch_add(STOP); futex_wake(&tickets, ALL)"),
];

const PRODUCER_ONE: Listing<ProducerLn> = crate::listing![ProducerLn;
    ([], "for each event {                            // producer thread"),
    ([ProducerLn::Await], "  await_event()                             // the arrival pattern"),
    ([ProducerLn::Publish], "  tickets.fetch_add(1)                      // publish the job"),
    ([ProducerLn::Check], "  if waiters.load() > 0:"),
    ([ProducerLn::Wake], "    futex_wake(&tickets, 1)                 // wake-one"),
    ([], "}"),
    ([ProducerLn::Stop], "tickets.fetch_add(STOP); futex_wake(&tickets, ALL)"),
];

crate::steps! {
    /// Where a futex-herd worker is; the table finishing is the worker exiting.
    pub enum Worker(m: FutexWorker) -> (), line WorkerLn {
        /// Look for a job (or the stop).
        Load @ WorkerLn::Load => load(TICKETS) => |v|
            if v & !STOP > 0 {
                Go(Worker::Claim { t: v })
            } else if v & STOP != 0 {
                Done(())
            } else {
                Go(Worker::Announce)
            };
        /// Claim one job.
        Claim {
            /// The value of `tickets` read.
            t: u32,
        } @ WorkerLn::Claim => cas(TICKETS, t, t - 1) => |ok|
            Go(if ok { Worker::Handle } else { Worker::Load });
        /// Handle it.
        Handle @ WorkerLn::Handle => work(m.service_ns) => |()| Go(Worker::Load);
        /// Announce the sleep.
        Announce @ WorkerLn::Announce => fetch_add(WAITERS, 1) => |_| Go(Worker::Wait);
        /// Sleep while there is no job.
        Wait @ WorkerLn::Wait => futex_wait(TICKETS, 0) => |_| Go(Worker::Unannounce);
        /// Withdraw the announcement.
        Unannounce @ WorkerLn::Unannounce => fetch_add(WAITERS, u32::MAX) => |_| Go(Worker::Load);
    }
}

crate::steps! {
    /// Where the futex-herd producer is; the table finishing is the producer exiting.
    pub enum Producer(m: FutexProducer) -> (), line ProducerLn {
        /// Wait for the next event.
        Await @ ProducerLn::Await => await_event() => |more|
            Go(if more { Producer::Publish } else { Producer::Stop });
        /// Publish the job.
        Publish @ ProducerLn::Publish => fetch_add(TICKETS, 1) => |_| Go(Producer::Check);
        /// Anyone about to sleep?
        Check @ ProducerLn::Check => load(WAITERS) => |w|
            Go(if w == 0 { Producer::Await } else { Producer::Wake });
        /// Wake all or one.
        Wake @ ProducerLn::Wake => futex_wake(TICKETS, m.wake) => |_| Go(Producer::Await);
        /// No more jobs: set STOP.
        Stop @ ProducerLn::Stop => fetch_add(TICKETS, STOP) => |_| Go(Producer::StopWake);
        /// Wake everyone to see it.
        StopWake @ ProducerLn::Stop => futex_wake(TICKETS, WakeCount::All) => |_| Done(());
    }
}

/// A worker sleeping on the [`TICKETS`] futex.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FutexWorker {
    /// `None` once it exited.
    state: Option<Worker>,
    service_ns: u64,
}

impl FutexWorker {
    /// A worker that handles each job for `service_ns`.
    pub fn new(service_ns: u64) -> Self {
        FutexWorker {
            state: Some(Worker::Load),
            service_ns,
        }
    }

    /// Where it is (`None` once it exited).
    pub fn state(&self) -> Option<Worker> {
        self.state
    }

    /// The worker's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<WorkerLn> {
        &WORKER_LISTING
    }

    /// Straight-line form: run the worker's loop from where it is until it exits (the STOP bit
    /// with no job left). On a platform error it stays where the run stopped.
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

impl Machine for FutexWorker {
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
        WORKER_LISTING.of(match self.state {
            Some(s) => s.line(self),
            None => WorkerLn::End,
        })
    }

    fn listing(&self) -> &'static [&'static str] {
        WORKER_LISTING.text
    }
}

/// The producer of the futex herd.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FutexProducer {
    /// `None` once it exited.
    state: Option<Producer>,
    wake: WakeCount,
}

impl FutexProducer {
    /// A producer that wakes `wake` sleepers per job.
    pub fn new(wake: WakeCount) -> Self {
        FutexProducer {
            state: Some(Producer::Await),
            wake,
        }
    }

    /// Where it is (`None` once it exited).
    pub fn state(&self) -> Option<Producer> {
        self.state
    }

    /// Straight-line form: publish every event, then the stop, and exit.
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

    /// This producer's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<ProducerLn> {
        match self.wake {
            WakeCount::All => &PRODUCER_ALL,
            WakeCount::Up(_) => &PRODUCER_ONE,
        }
    }
}

impl Machine for FutexProducer {
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
        self.named_listing().of(match self.state {
            Some(s) => s.line(self),
            None => ProducerLn::Stop,
        })
    }

    fn listing(&self) -> &'static [&'static str] {
        self.named_listing().text
    }
}
