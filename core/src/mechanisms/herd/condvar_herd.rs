//! The condition-variable herd: workers wait on one condition variable under one mutex; the producer
//! publishes a job under the mutex and calls `notify_all` or `notify_one`.
//!
//! Shared words (read and written only with the mutex held): [`TICKETS`] (jobs, plus [`STOP`]) and
//! [`WAITERS`].
//!
//! Each thread is a step table ([`Worker`], [`Producer`]) whose states name their lines
//! ([`WorkerLn`], [`ProducerLn`]); the table finishing is the thread exiting.
//!
//! # Worker states ([`Worker`])
//! | state | line | op | then |
//! |---|---|---|---|
//! | `Lock` | Lock | `m.lock()` | `Load` |
//! | `Load` | Load | load `tickets` | `Take{t}` if jobs, `ExitUnlock` if STOP and none, else `Announce` |
//! | `Take{t}` | Claim | store t−1 in `tickets` | `Unlock` |
//! | `Unlock` | Claim | `m.unlock()` | `Handle` |
//! | `Handle` | Handle | work (service time) | `Relock` |
//! | `Relock` | Relock | `m.lock()` | `Load` |
//! | `Announce` | Announce | `waiters += 1` | `Wait` |
//! | `Wait` | Wait | `cv.wait(m)`: release, sleep, take the mutex back | `Unannounce` |
//! | `Unannounce` | Unannounce | `waiters −= 1` | `Load` |
//! | `ExitUnlock` | Load | `m.unlock()` | exit |
//!
//! # Producer states ([`Producer`])
//! | state | line | op | then |
//! |---|---|---|---|
//! | `Await` | Await | next event | `Lock`, or `StopLock` when events run out |
//! | `Lock` | Lock | `m.lock()` | `Publish` |
//! | `Publish` | Publish | `tickets += 1` | `Check` |
//! | `Check` | Notify | load `waiters` | `Notify` if > 0, else `Unlock` |
//! | `Notify` | Notify | `cv.notify_all()` or `notify_one()` | `Unlock` |
//! | `Unlock` | Unlock | `m.unlock()` | `Await` |
//! | `StopLock` | Stop | `m.lock()` | `StopPublish` |
//! | `StopPublish` | Stop | `tickets += STOP` | `StopNotify` |
//! | `StopNotify` | Stop | `cv.notify_all()` | `StopUnlock` |
//! | `StopUnlock` | Stop | `m.unlock()` | exit |
//!
//! # Why no wakeup is lost
//! Every read and write of the two words happens with the mutex held, and `cv.wait` releases the mutex
//! and queues the sleeper in one atomic step. A producer that sees `waiters > 0` therefore notifies a
//! thread that is already queued on the condition variable.

use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Stopped};
use crate::machine::Machine;
use crate::op::{CondId, MutexId, Op, OpResult, WakeCount};

pub use super::futex_herd::{STOP, TICKETS, WAITERS};

/// The mutex.
pub const M: MutexId = MutexId(0);
/// The condition variable.
pub const CV: CondId = CondId(0);

crate::line_names! {
    /// The named lines of the worker's listing.
    pub enum WorkerLn {
        /// `m.lock()` before the loop.
        Lock,
        /// `t = tickets` (and the exit's `m.unlock()`).
        Load,
        /// `tickets = t - 1; m.unlock()`.
        Claim,
        /// `handle(job)`.
        Handle,
        /// `m.lock(); continue`.
        Relock,
        /// `waiters += 1`.
        Announce,
        /// `cv.wait(&m)`.
        Wait,
        /// `waiters -= 1`.
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
        /// `m.lock()`.
        Lock,
        /// `tickets += 1`.
        Publish,
        /// `if waiters > 0: cv.notify_all()` (or `notify_one`).
        Notify,
        /// `m.unlock()`.
        Unlock,
        /// The stop line, where it rests after.
        Stop,
    }
}

const WORKER_LISTING: Listing<WorkerLn> = crate::listing![WorkerLn;
    ([WorkerLn::Lock], "m.lock()                                    // worker thread"),
    ([], "loop {"),
    ([WorkerLn::Load], "  t = tickets                               // STOP and no job: m.unlock(), return"),
    ([], "  if t > 0:"),
    ([WorkerLn::Claim], "    tickets = t - 1; m.unlock()             // claim one job"),
    ([WorkerLn::Handle], "    handle(job)                             // service time"),
    ([WorkerLn::Relock], "    m.lock(); continue"),
    ([WorkerLn::Announce], "  waiters += 1"),
    ([WorkerLn::Wait], "  cv.wait(&m)                               // release m, sleep, take m back"),
    ([WorkerLn::Unannounce], "  waiters -= 1"),
    ([WorkerLn::End], "}"),
];

const PRODUCER_ALL: Listing<ProducerLn> = crate::listing![ProducerLn;
    ([], "for each event {                            // producer thread"),
    ([ProducerLn::Await], "  await_event()                             // the arrival pattern"),
    ([ProducerLn::Lock], "  m.lock()"),
    ([ProducerLn::Publish], "  tickets += 1                              // publish the job"),
    ([ProducerLn::Notify], "  if waiters > 0: cv.notify_all()           // wake-all"),
    ([ProducerLn::Unlock], "  m.unlock()"),
    ([], "}"),
    ([ProducerLn::Stop], "m.lock(); tickets += STOP; cv.notify_all(); m.unlock()"),
];

const PRODUCER_ONE: Listing<ProducerLn> = crate::listing![ProducerLn;
    ([], "for each event {                            // producer thread"),
    ([ProducerLn::Await], "  await_event()                             // the arrival pattern"),
    ([ProducerLn::Lock], "  m.lock()"),
    ([ProducerLn::Publish], "  tickets += 1                              // publish the job"),
    ([ProducerLn::Notify], "  if waiters > 0: cv.notify_one()           // wake-one"),
    ([ProducerLn::Unlock], "  m.unlock()"),
    ([], "}"),
    ([ProducerLn::Stop], "m.lock(); tickets += STOP; cv.notify_all(); m.unlock()"),
];

crate::steps! {
    /// Where a condition-variable worker is; the table finishing is the worker exiting.
    pub enum Worker(m: CondvarWorker) -> (), line WorkerLn {
        /// Take the mutex before the loop.
        Lock @ WorkerLn::Lock => mutex_lock(M) => |()| Go(Worker::Load);
        /// Look for a job (or the stop), under the mutex.
        Load @ WorkerLn::Load => load(TICKETS) => |v|
            Go(if v & !STOP > 0 {
                Worker::Take { t: v }
            } else if v & STOP != 0 {
                Worker::ExitUnlock
            } else {
                Worker::Announce
            });
        /// Claim one job.
        Take {
            /// The value of `tickets` read.
            t: u32,
        } @ WorkerLn::Claim => store(TICKETS, t - 1) => |()| Go(Worker::Unlock);
        /// Release the mutex to handle it.
        Unlock @ WorkerLn::Claim => mutex_unlock(M) => |()| Go(Worker::Handle);
        /// Handle it.
        Handle @ WorkerLn::Handle => work(m.service_ns) => |()| Go(Worker::Relock);
        /// Take the mutex again.
        Relock @ WorkerLn::Relock => mutex_lock(M) => |()| Go(Worker::Load);
        /// Announce the sleep.
        Announce @ WorkerLn::Announce => fetch_add(WAITERS, 1) => |_| Go(Worker::Wait);
        /// Release the mutex and sleep; take it back when woken.
        Wait @ WorkerLn::Wait => cond_wait(CV, M) => |()| Go(Worker::Unannounce);
        /// Withdraw the announcement.
        Unannounce @ WorkerLn::Unannounce => fetch_add(WAITERS, u32::MAX) => |_| Go(Worker::Load);
        /// The stop: release the mutex and exit.
        ExitUnlock @ WorkerLn::Load => mutex_unlock(M) => |()| Done(());
    }
}

crate::steps! {
    /// Where the condition-variable producer is; the table finishing is the producer exiting.
    pub enum Producer(m: CondvarProducer) -> (), line ProducerLn {
        /// Wait for the next event.
        Await @ ProducerLn::Await => await_event() => |more|
            Go(if more { Producer::Lock } else { Producer::StopLock });
        /// Take the mutex.
        Lock @ ProducerLn::Lock => mutex_lock(M) => |()| Go(Producer::Publish);
        /// Publish the job.
        Publish @ ProducerLn::Publish => fetch_add(TICKETS, 1) => |_| Go(Producer::Check);
        /// Anyone waiting?
        Check @ ProducerLn::Notify => load(WAITERS) => |w|
            Go(if w == 0 { Producer::Unlock } else { Producer::Notify });
        /// Notify all or one.
        Notify @ ProducerLn::Notify => cond_notify(CV, m.wake) => |()| Go(Producer::Unlock);
        /// Release the mutex.
        Unlock @ ProducerLn::Unlock => mutex_unlock(M) => |()| Go(Producer::Await);
        /// The stop: take the mutex.
        StopLock @ ProducerLn::Stop => mutex_lock(M) => |()| Go(Producer::StopPublish);
        /// Set STOP.
        StopPublish @ ProducerLn::Stop => fetch_add(TICKETS, STOP) => |_| Go(Producer::StopNotify);
        /// Wake everyone to see it.
        StopNotify @ ProducerLn::Stop => cond_notify(CV, WakeCount::All) => |()| Go(Producer::StopUnlock);
        /// Release the mutex and exit.
        StopUnlock @ ProducerLn::Stop => mutex_unlock(M) => |()| Done(());
    }
}

/// A worker waiting on the condition variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CondvarWorker {
    /// `None` once it exited.
    state: Option<Worker>,
    service_ns: u64,
}

impl CondvarWorker {
    /// A worker that handles each job for `service_ns`.
    pub fn new(service_ns: u64) -> Self {
        CondvarWorker {
            state: Some(Worker::Lock),
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

    /// Straight-line form: run the worker's loop from where it is until it exits.
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

impl Machine for CondvarWorker {
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

/// The producer of the condition-variable herd.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CondvarProducer {
    /// `None` once it exited.
    state: Option<Producer>,
    wake: WakeCount,
}

impl CondvarProducer {
    /// A producer that notifies `wake` sleepers per job (`Up(1)` is `notify_one`).
    pub fn new(wake: WakeCount) -> Self {
        CondvarProducer {
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

impl Machine for CondvarProducer {
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
