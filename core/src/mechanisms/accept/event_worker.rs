//! An nginx-style worker: one event loop over an epoll instance, with the accept strategy of the run.
//!
//! Follows `ngx_process_events_and_timers`, `ngx_trylock_accept_mutex`, `ngx_event_accept` and
//! `ngx_reorder_accept_events` (nginx 1.31.x; `shared/reference/nginx-accept-mutex.md` §3 C-F). One
//! iteration of the loop, in the states the machine steps through:
//!
//! The loop is the step table [`Step`]; each state names its line ([`Ln`]), placed by the listing
//! of the run's strategy ([`LISTING_PLAIN`], [`LISTING_MUTEX`]). The trylock and the unlock are
//! `ngx_shmtx`'s own tables ([`crate::mechanisms::locks::shmtx::Try`], [`crate::mechanisms::locks::shmtx::Unlock`]), run
//! as sub-tables.
//!
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Register` | Register | `epoll_ctl(ADD, listen_fd)` at start-up (not with the accept mutex) | S2 |
//! | (S2, no step of its own) | | accept mutex only: `accept_disabled > 0` → decrement and skip the trylock; else `Try` | `Try` or `Wait` |
//! | `Try` | Trylock | `ngx_shmtx_trylock`: load, CAS 0 → pid (never spins or sleeps) | `Enable`, `Disable` or `Wait` |
//! | `Enable` (D.1b) | Enable | `epoll_ctl(ADD, listen_fd)` after winning the lock while not `held` | `Wait` |
//! | `Disable` (D.2) | Disable | `epoll_ctl(DEL, listen_fd)` after losing the lock while `held` | `Wait` |
//! | `Wait` (S4) | Wait | `epoll_wait(ep, timeout)`: the nearest timer (none here), capped at `accept_mutex_delay` only when a trylock ran and lost | `Accept`, `Unlock` or `Read` |
//! | `Accept` (S5 / E) | Accept | `accept4(listen_fd, SOCK_NONBLOCK)`; `EAGAIN` ends the handler early | `AddConn{c}` or `Unlock`/`Read` |
//! | `AddConn{c}` | AddConn | `epoll_ctl(ADD, fd, EPOLLIN|EPOLLET)`; `accept_disabled = n/8 − free` | `Accept` (multi_accept), `ReorderDel` or on |
//! | `ReorderDel`, `ReorderAdd` (F) | Reorder | `epoll_ctl(DEL)` then `ADD` with `EPOLLEXCLUSIVE`, on the 1st, 17th, 33rd… accept or while `accept_disabled > 0` | on |
//! | `Unlock` (S6) | Unlock | `ngx_shmtx_unlock`: CAS pid → 0 (the accept mutex has no semaphore) | `Read` |
//! | `Read` (S8) | Read | `read` the next reported connection: a request, or EOF (close) | `Handle{c}` or `Read`/S2 |
//! | `Handle{c}`, `Respond{c}` | Handle, Respond | the service time, then `write` the response | `Read`/S2 |
//!
//! nginx unlocks when `ngx_accept_mutex_held` is set; a worker that skipped the trylock (S2) while
//! still `held` then runs a CAS pid → 0 that fails on a lock it does not hold. The model issues the
//! unlock only in a pass whose trylock won (`locked`), so that no-op CAS is not a step.
//!
//! # Invariants (checked by [`super::invariants`])
//! 1. Mutual exclusion: at most one worker has `lock == pid`; only it accepts under `NGX_POST_EVENTS`.
//! 2. Registration follows `held`: with the accept mutex, the listener is in a worker's epoll exactly
//!    when `held` is set (true after every trylock, [`EventWorker::registered`]). A former holder
//!    stays registered after unlocking until its next trylock fails, so two epolls can hold the
//!    listener for a while: "only the holder has it registered" is not what nginx does.
//! 3. No lost connection: listening sockets are level-triggered, so a connection left in the queue is
//!    reported again to whichever epoll still has the listener; while connections wait, some worker
//!    is awake, or asleep with a registered listener, or asleep with a timer.
//!
//! The counters in [`WorkerStats`] are statistics, not state: they are left out of equality and
//! hashing, so the model checker does not see two runs that differ only in counts as two states.

use serde::{Deserialize, Serialize};

use crate::machine::listing::Listing;
use crate::machine::steps::{Next, Ops, Read, Stopped};
use crate::machine::Machine;
use crate::mechanisms::locks::shmtx::{self, Shmtx, ShmtxConfig, ShmtxVariant};
use crate::op::{EpId, Fd, Interest, ListenerId, Op, OpResult};

use super::{MutexVariant, Strategy};

/// What one worker counted; the same fields on both platforms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WorkerStats {
    /// Connections accepted.
    pub accepted: u64,
    /// `accept4` calls that returned `EAGAIN`.
    pub eagain: u64,
    /// `epoll_wait` returns that carried at least one event.
    pub wait_returns: u64,
    /// `epoll_wait` returns with no event (the timeout expired).
    pub timeouts: u64,
    /// Requests read and answered.
    pub requests: u64,
    /// Connections closed after the client's EOF.
    pub closed: u64,
    /// `epoll_ctl` calls.
    pub epoll_ctls: u64,
    /// Accept-mutex trylocks that won.
    pub lock_acquired: u64,
    /// Accept-mutex trylocks that lost.
    pub lock_failed: u64,
    /// Re-registrations of the listener (`ngx_reorder_accept_events`).
    pub reorders: u64,
}

/// The fixed configuration of one worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WorkerConfig {
    /// The accept strategy.
    pub strategy: Strategy,
    /// The worker's index (its pid is `index + 1`).
    pub index: u16,
    /// Its epoll instance (shared by all workers with [`Strategy::SharedEpoll`]).
    pub ep: EpId,
    /// The listening socket it accepts from (its own with [`Strategy::Reuseport`]).
    pub listener: ListenerId,
    /// Whether this worker registers the listener at start-up.
    pub registers: bool,
    /// Service time per request, ns.
    pub service_ns: u64,
    /// `multi_accept`: accept until `EAGAIN` on each event.
    pub multi_accept: bool,
    /// Re-register the listener every this many accepts (exclusive only; 0: never, nginx: 16).
    pub reorder_every: u32,
    /// `accept_mutex_delay`, ns.
    pub mutex_delay_ns: u64,
    /// `worker_connections`.
    pub worker_connections: u32,
    /// Correct accept mutex or a broken variant.
    pub variant: MutexVariant,
}

crate::line_names! {
    /// The named lines of the event loop's listings.
    pub enum Ln {
        /// `epoll_ctl(ep, ADD, listen_fd, flags)` at start-up.
        Register,
        /// `trylock(accept_mutex)`.
        Trylock,
        /// `if !held: epoll_ctl(ep, ADD, listen_fd)`.
        Enable,
        /// `else if held: epoll_ctl(ep, DEL, listen_fd)`.
        Disable,
        /// `epoll_wait`.
        Wait,
        /// `accept4(listen_fd, NONBLOCK)`.
        Accept,
        /// `epoll_ctl(ep, ADD, fd, EPOLLIN|EPOLLET)`.
        AddConn,
        /// `ngx_reorder_accept_events`: DEL, then ADD with `EPOLLEXCLUSIVE`.
        Reorder,
        /// `unlock(accept_mutex)`.
        Unlock,
        /// `r = read(fd)`.
        Read,
        /// `handle(r)`.
        Handle,
        /// `write(fd, response)`.
        Respond,
    }
}

crate::steps! {
    /// Where a worker is in its event loop (the module docs give the table). The loop never ends.
    pub enum Step(m: EventWorker) -> (), line Ln {
        /// Register the listener at start-up.
        Register @ Ln::Register
            => epoll_add(m.cfg.ep, m.listener_fd(), m.register_interest()) => |()| {
            m.stats.epoll_ctls += 1;
            Go(m.top())
        };
        /// `ngx_trylock_accept_mutex`: `ngx_shmtx_trylock`'s own table.
        Try @ Ln::Trylock => call(shmtx::Try, m.mutex) => |won| Go(m.tried(won));
        /// D.1b: won while not `held`: register the listener.
        Enable @ Ln::Enable
            => epoll_add(m.cfg.ep, m.listener_fd(), m.register_interest()) => |()| {
            m.stats.epoll_ctls += 1;
            m.held = true;
            Go(Step::Wait)
        };
        /// D.2: lost while `held`: remove the listener.
        Disable @ Ln::Disable => epoll_del(m.cfg.ep, m.listener_fd()) => |()| {
            m.stats.epoll_ctls += 1;
            m.held = false;
            Go(Step::Wait)
        };
        /// S4: sleep until events (or the timer).
        Wait @ Ln::Wait => epoll_wait(m.cfg.ep, m.wait_timeout()) => |ready| {
            if ready.is_empty() {
                m.stats.timeouts += 1;
            } else {
                m.stats.wait_returns += 1;
            }
            m.listener_ready = ready.listener.is_some();
            m.conns_left = ready.conns;
            Go(m.after_wait())
        };
        /// S5 / E: accept one connection.
        Accept @ Ln::Accept => accept_nb(m.cfg.listener) => |conn| match conn {
            Some(c) => {
                m.stats.accepted += 1;
                m.active += 1;
                let n = m.cfg.worker_connections as i64;
                m.disabled = n / 8 - (n - m.active as i64);
                Go(Step::AddConn { c })
            }
            None => {
                m.stats.eagain += 1;
                m.listener_ready = false;
                // EAGAIN returns early: no reorder
                Go(m.after_accept())
            }
        };
        /// Register the new connection, edge-triggered.
        AddConn {
            /// The connection.
            c: u32,
        } @ Ln::AddConn => epoll_add(m.cfg.ep, Fd::Conn(c), Interest::Edge) => |()| {
            m.stats.epoll_ctls += 1;
            Go(m.after_conn_added())
        };
        /// F: remove the listener...
        ReorderDel @ Ln::Reorder => epoll_del(m.cfg.ep, m.listener_fd()) => |()| {
            m.stats.epoll_ctls += 1;
            Go(Step::ReorderAdd)
        };
        /// ...and add it back at the tail of the socket's wait queue.
        ReorderAdd @ Ln::Reorder
            => epoll_add(m.cfg.ep, m.listener_fd(), m.register_interest()) => |()| {
            m.stats.epoll_ctls += 1;
            m.stats.reorders += 1;
            Go(m.after_accept())
        };
        /// S6: `ngx_shmtx_unlock`'s own table.
        Unlock @ Ln::Unlock => call(shmtx::Unlock, m.mutex) => |()| {
            m.locked = false;
            if m.cfg.variant == MutexVariant::UnlockBeforeAccept && m.listener_ready {
                Go(Step::Accept)
            } else {
                Go(m.read_or_top())
            }
        };
        /// S8: read the next reported connection.
        Read @ Ln::Read => read_next() => |read| {
            m.conns_left = m.conns_left.saturating_sub(1);
            match read {
                Read::Request(c) => Go(Step::Handle { c }),
                Read::Eof(_) => {
                    m.stats.closed += 1;
                    m.active = m.active.saturating_sub(1);
                    Go(m.read_or_top())
                }
                Read::Nothing => Go(m.read_or_top()),
            }
        };
        /// The service time.
        Handle {
            /// The connection.
            c: u32,
        } @ Ln::Handle => work(m.cfg.service_ns) => |()| Go(Step::Respond { c });
        /// Write the response.
        Respond {
            /// The connection.
            c: u32,
        } @ Ln::Respond => respond(c) => |()| {
            m.stats.requests += 1;
            Go(m.read_or_top())
        };
    }
}

/// One nginx-style worker process.
#[derive(Clone, Debug)]
pub struct EventWorker {
    cfg: WorkerConfig,
    pc: Step,
    mutex: Shmtx,
    held: bool,
    locked: bool,
    disabled: i64,
    active: u32,
    requests_seen: u32,
    listener_ready: bool,
    conns_left: u16,
    skipped_trylock: bool,
    stats: WorkerStats,
}

impl PartialEq for EventWorker {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for EventWorker {}
impl core::hash::Hash for EventWorker {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h)
    }
}

type Key = (
    WorkerConfig,
    Step,
    Shmtx,
    bool,
    bool,
    i64,
    u32,
    u32,
    bool,
    u16,
    bool,
);

const NAMED_PLAIN: Listing<Ln> = crate::listing![Ln;
    ([Ln::Register], "epoll_ctl(ep, ADD, listen_fd, flags)        // once, at start-up"),
    ([], "loop {                                      // ngx_process_events_and_timers"),
    ([Ln::Wait], "  n = epoll_wait(ep, events, INFINITE)      // system call: sleep until an event"),
    ([], "  if listen_fd reported:                    // ngx_event_accept"),
    ([Ln::Accept], "    fd = accept4(listen_fd, NONBLOCK)       // EAGAIN: someone else took it"),
    ([Ln::AddConn], "    epoll_ctl(ep, ADD, fd, EPOLLIN|EPOLLET)"),
    ([], "    if exclusive && (requests++ % 16 == 0 || accept_disabled > 0):  // 1.21.6+"),
    ([Ln::Reorder], "      epoll_ctl(ep, DEL, listen_fd); epoll_ctl(ep, ADD, listen_fd, EXCLUSIVE)"),
    ([], "  for each reported connection fd:"),
    ([Ln::Read], "    r = read(fd)                            // a request, or EOF: close(fd)"),
    ([Ln::Handle], "    handle(r)                               // the service time"),
    ([Ln::Respond], "    write(fd, response)"),
    ([], "}"),
];

const NAMED_MUTEX: Listing<Ln> = crate::listing![Ln;
    ([], "loop {                                      // ngx_process_events_and_timers"),
    ([], "  if accept_disabled > 0: accept_disabled -= 1"),
    ([Ln::Trylock], "  else if trylock(accept_mutex):            // load; CAS 0 -> pid. Never spins or sleeps"),
    ([Ln::Enable], "    if !held: epoll_ctl(ep, ADD, listen_fd); held = 1"),
    ([Ln::Disable], "  else if held: epoll_ctl(ep, DEL, listen_fd); held = 0"),
    ([], "  timeout = nearest timer; if the trylock ran and lost: at most accept_mutex_delay"),
    ([Ln::Wait], "  n = epoll_wait(ep, events, timeout)       // the lock stays held while the holder sleeps"),
    ([], "  posted accept events:                     // run first, still under the lock"),
    ([Ln::Accept], "    fd = accept4(listen_fd, NONBLOCK)       // EAGAIN: nothing left"),
    ([Ln::AddConn, Ln::Reorder], "    epoll_ctl(ep, ADD, fd, EPOLLIN|EPOLLET); accept_disabled = n/8 - free"),
    ([Ln::Unlock], "  if accept_mutex_held: unlock(accept_mutex) // CAS pid -> 0; `held` stays 1"),
    ([], "  posted events, outside the lock:"),
    ([Ln::Read], "    r = read(fd)                            // a request, or EOF: close(fd)"),
    ([Ln::Handle], "    handle(r)                               // the service time"),
    ([Ln::Respond], "    write(fd, response)"),
    ([], "}"),
];

/// The listing of the loop without the accept mutex (herd, shared epoll, exclusive, reuseport).
pub const LISTING_PLAIN: &[&str] = NAMED_PLAIN.text;

/// The listing of the loop with the accept mutex.
pub const LISTING_MUTEX: &[&str] = NAMED_MUTEX.text;

impl EventWorker {
    /// A worker with this configuration, before its first step.
    pub fn new(cfg: WorkerConfig) -> Self {
        let mutex = Shmtx::new(
            ShmtxConfig {
                spin: u32::MAX,
                ncpu: 1,
                semaphore: false,
                variant: ShmtxVariant::Correct,
            },
            cfg.index as u32 + 1,
        );
        let mut w = EventWorker {
            cfg,
            pc: Step::Register,
            mutex,
            held: false,
            locked: false,
            disabled: 0,
            active: 0,
            requests_seen: 0,
            listener_ready: false,
            conns_left: 0,
            skipped_trylock: false,
            stats: WorkerStats::default(),
        };
        if !(cfg.registers && cfg.strategy != Strategy::AcceptMutex) {
            w.pc = w.top();
        }
        w
    }

    fn key(&self) -> Key {
        (
            self.cfg,
            self.pc,
            self.mutex,
            self.held,
            self.locked,
            self.disabled,
            self.active,
            self.requests_seen,
            self.listener_ready,
            self.conns_left,
            self.skipped_trylock,
        )
    }

    /// The configuration.
    pub fn config(&self) -> &WorkerConfig {
        &self.cfg
    }
    /// The counters.
    pub fn stats(&self) -> &WorkerStats {
        &self.stats
    }
    /// `ngx_accept_mutex_held`: the listener is registered because this worker won the lock recently.
    pub fn held(&self) -> bool {
        self.held
    }
    /// True between winning the trylock and the unlock of the same iteration (`lock == pid`).
    pub fn locked(&self) -> bool {
        self.locked
    }
    /// Whether this worker's epoll has the listener registered, as the worker itself tracks it.
    pub fn registered(&self) -> bool {
        match self.cfg.strategy {
            Strategy::AcceptMutex => self.held,
            _ => self.cfg.registers && self.pc != Step::Register,
        }
    }
    /// `ngx_accept_disabled`.
    pub fn accept_disabled(&self) -> i64 {
        self.disabled
    }
    /// Connections this worker has open.
    pub fn active(&self) -> u32 {
        self.active
    }
    /// True while it runs accept handlers (S5 or inline).
    pub fn is_accepting(&self) -> bool {
        matches!(self.pc, Step::Accept | Step::AddConn { .. })
    }
    /// True when this iteration skipped the trylock because `accept_disabled > 0` (S2): its accept
    /// handlers then run without the lock (`nginx-accept-mutex.md` §5, invariant 7).
    pub fn skipped_trylock(&self) -> bool {
        self.skipped_trylock
    }
    /// True between the trylock and the matching `epoll_ctl` (registration is being switched).
    pub fn is_switching(&self) -> bool {
        matches!(self.pc, Step::Try | Step::Enable | Step::Disable)
    }
    /// True while it sleeps or is about to sleep in `epoll_wait`.
    pub fn is_waiting(&self) -> bool {
        self.pc == Step::Wait
    }

    fn mutex_on(&self) -> bool {
        self.cfg.strategy == Strategy::AcceptMutex
    }

    /// S2: where an iteration starts.
    fn top(&mut self) -> Step {
        if !self.mutex_on() {
            return Step::Wait;
        }
        self.skipped_trylock = self.disabled > 0;
        if self.disabled > 0 {
            self.disabled -= 1;
            return Step::Wait;
        }
        self.mutex.start_trylock();
        Step::Try
    }

    /// After the accept handler (or when there was nothing to accept).
    fn after_accept(&mut self) -> Step {
        if self.locked && self.cfg.variant != MutexVariant::UnlockBeforeAccept {
            self.mutex.start_unlock();
            return Step::Unlock;
        }
        self.read_or_top()
    }

    fn read_or_top(&mut self) -> Step {
        if self.conns_left > 0 {
            Step::Read
        } else {
            self.top()
        }
    }

    fn after_wait(&mut self) -> Step {
        if self.locked && self.cfg.variant == MutexVariant::UnlockBeforeAccept {
            // the seed's order: release first, then accept
            self.mutex.start_unlock();
            return Step::Unlock;
        }
        if self.listener_ready {
            Step::Accept
        } else {
            self.after_accept()
        }
    }

    fn wait_timeout(&self) -> Option<u64> {
        // S2: only a worker that tried the lock and lost caps its timer (one that skipped the
        // trylock because it is overloaded waits for its nearest timer, here none)
        if self.mutex_on()
            && !self.held
            && !self.skipped_trylock
            && self.cfg.variant != MutexVariant::NoTimer
        {
            Some(self.cfg.mutex_delay_ns)
        } else {
            None
        }
    }

    /// After the trylock (`won`: the lock is now held): `ngx_trylock_accept_mutex`'s registration
    /// switch.
    fn tried(&mut self, won: bool) -> Step {
        if won {
            self.stats.lock_acquired += 1;
            self.locked = true;
            if self.held {
                Step::Wait
            } else {
                Step::Enable
            }
        } else {
            self.stats.lock_failed += 1;
            if self.held && self.cfg.variant != MutexVariant::NoDisable {
                Step::Disable
            } else {
                if self.cfg.variant == MutexVariant::NoDisable {
                    // the bug: forgets the listener is still registered
                    self.held = false;
                }
                Step::Wait
            }
        }
    }

    /// This worker's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing<Ln> {
        if self.mutex_on() {
            &NAMED_MUTEX
        } else {
            &NAMED_PLAIN
        }
    }

    /// Where it is.
    pub fn state(&self) -> Step {
        self.pc
    }

    /// Straight-line form: run the event loop from where it is until the platform stops it (the
    /// loop never ends on its own, so this returns only with the platform's error, in the state
    /// it stopped).
    pub fn run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        match self.pc.run(self, p) {
            Ok(_) => Ok(()),
            Err(Stopped { state, error }) => {
                self.pc = state;
                Err(error)
            }
        }
    }

    fn after_conn_added(&mut self) -> Step {
        if self.cfg.multi_accept {
            return Step::Accept;
        }
        // the loop ended normally (one accept per event): ngx_reorder_accept_events
        if self.cfg.strategy == Strategy::Exclusive && self.cfg.reorder_every > 0 {
            let n = self.requests_seen;
            self.requests_seen = self.requests_seen.wrapping_add(1);
            if n % self.cfg.reorder_every == 0 || self.disabled > 0 {
                return Step::ReorderDel;
            }
        }
        self.after_accept()
    }

    fn listener_fd(&self) -> Fd {
        Fd::Listener(self.cfg.listener)
    }

    fn register_interest(&self) -> Interest {
        match self.cfg.strategy {
            Strategy::Exclusive => Interest::LevelExclusive,
            _ => Interest::Level,
        }
    }
}

impl Machine for EventWorker {
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
        self.named_listing().of(self.pc.line(self))
    }

    fn listing(&self) -> &'static [&'static str] {
        self.named_listing().text
    }

    fn holds_word_lock(&self) -> Option<crate::op::Word> {
        // from the trylock that won to the unlock's CAS (`locked`; nginx's `held` outlives it)
        self.locked.then_some(crate::mechanisms::locks::shmtx::LOCK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Ready;

    fn cfg(strategy: Strategy) -> WorkerConfig {
        WorkerConfig {
            strategy,
            index: 0,
            ep: EpId(0),
            listener: ListenerId(0),
            registers: true,
            service_ns: 1000,
            multi_accept: false,
            reorder_every: 16,
            mutex_delay_ns: 500_000_000,
            worker_connections: 512,
            variant: MutexVariant::Correct,
        }
    }

    #[test]
    fn mutex_worker_trylocks_registers_then_waits_forever() {
        let mut w = EventWorker::new(cfg(Strategy::AcceptMutex));
        assert_eq!(w.next_op(), Op::Load(crate::mechanisms::locks::shmtx::LOCK));
        w.complete(OpResult::Value(0));
        assert!(matches!(w.next_op(), Op::Cas { new: 1, .. }));
        w.complete(OpResult::Cas {
            ok: true,
            actual: 0,
        });
        assert!(matches!(w.next_op(), Op::EpollAdd { .. }));
        w.complete(OpResult::Done);
        assert!(w.held() && w.locked());
        assert_eq!(
            w.next_op(),
            Op::EpollWait {
                ep: EpId(0),
                timeout_ns: None
            }
        );
    }

    #[test]
    fn reorder_runs_on_the_first_and_seventeenth_accept() {
        let mut w = EventWorker::new(cfg(Strategy::Exclusive));
        w.complete(OpResult::Done); // register
        let mut reorders_at = Vec::new();
        for i in 0..20u32 {
            w.complete(OpResult::Events(Ready {
                listener: Some(ListenerId(0)),
                conns: 0,
            }));
            w.complete(OpResult::Conn(i));
            w.complete(OpResult::Done); // AddConn
            if matches!(w.next_op(), Op::EpollDel { .. }) {
                reorders_at.push(i);
                w.complete(OpResult::Done);
                w.complete(OpResult::Done);
            }
            assert!(matches!(w.next_op(), Op::EpollWait { .. }));
        }
        assert_eq!(reorders_at, [0, 16]);
    }
}
