//! An nginx-style worker: one event loop over an epoll instance, with the accept strategy of the run.
//!
//! Follows `ngx_process_events_and_timers`, `ngx_trylock_accept_mutex`, `ngx_event_accept` and
//! `ngx_reorder_accept_events` (nginx 1.31.x; `shared/reference/nginx-accept-mutex.md` §3 C-F). One
//! iteration of the loop, in the states the machine steps through:
//!
//! | state | op | next |
//! |---|---|---|
//! | `Register` | `epoll_ctl(ADD, listen_fd)` at start-up (not with the accept mutex) | `Top` |
//! | (S2, no step of its own) | accept mutex only: `accept_disabled > 0` → decrement and skip; else trylock (load, CAS 0 → pid) | `Enable`, `Disable` or `Wait` |
//! | `Enable` (D.1b) | `epoll_ctl(ADD, listen_fd)` after winning the lock while not `held` | `Wait` |
//! | `Disable` (D.2) | `epoll_ctl(DEL, listen_fd)` after losing the lock while `held` | `Wait` |
//! | `Wait` (S4) | `epoll_wait(ep, timeout)`; the timeout is `accept_mutex_delay` when the worker lost | `Accept`, `Unlock` or `Read` |
//! | `Accept` (S5 / E) | `accept4(listen_fd, SOCK_NONBLOCK)`; `EAGAIN` ends the handler early | `AddConn` or `Unlock`/`Read` |
//! | `AddConn` | `epoll_ctl(ADD, fd, EPOLLIN|EPOLLET)`; `accept_disabled = n/8 − free` | `Accept` (multi_accept), `ReorderDel` or on |
//! | `ReorderDel`, `ReorderAdd` (F) | `epoll_ctl(DEL)` then `ADD` with `EPOLLEXCLUSIVE`, on the 1st, 17th, 33rd… accept | on |
//! | `Unlock` (S6) | `ngx_shmtx_unlock`: CAS pid → 0 (the accept mutex has no semaphore) | `Read` |
//! | `Read` (S8) | `read` the next reported connection: a request, or EOF (close) | `Handle` or `Read`/`Top` |
//! | `Handle`, `Respond` | the service time, then `write` the response | `Read`/`Top` |
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

use crate::locks::shmtx::{Shmtx, ShmtxConfig, ShmtxVariant, TryOutcome};
use crate::machine::Machine;
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pc {
    Register,
    Try,
    Enable,
    Disable,
    Wait,
    Accept,
    AddConn(u32),
    ReorderDel,
    ReorderAdd,
    Unlock,
    Read,
    Handle(u32),
    Respond(u32),
}

/// One nginx-style worker process.
#[derive(Clone, Debug)]
pub struct EventWorker {
    cfg: WorkerConfig,
    pc: Pc,
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
    Pc,
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

/// The listing of the loop without the accept mutex (herd, shared epoll, exclusive, reuseport).
pub const LISTING_PLAIN: &[&str] = &[
    "epoll_ctl(ep, ADD, listen_fd, flags)        // once, at start-up",
    "loop {                                      // ngx_process_events_and_timers",
    "  n = epoll_wait(ep, events, INFINITE)      // system call: sleep until an event",
    "  if listen_fd reported:                    // ngx_event_accept",
    "    fd = accept4(listen_fd, NONBLOCK)       // EAGAIN: someone else took it",
    "    epoll_ctl(ep, ADD, fd, EPOLLIN|EPOLLET)",
    "    if exclusive && requests++ % 16 == 0:   // 1.21.6+: go to the back of the queue",
    "      epoll_ctl(ep, DEL, listen_fd); epoll_ctl(ep, ADD, listen_fd, EXCLUSIVE)",
    "  for each reported connection fd:",
    "    r = read(fd)                            // a request, or EOF: close(fd)",
    "    handle(r)                               // the service time",
    "    write(fd, response)",
    "}",
];

/// The listing of the loop with the accept mutex.
pub const LISTING_MUTEX: &[&str] = &[
    "loop {                                      // ngx_process_events_and_timers",
    "  if accept_disabled > 0: accept_disabled -= 1",
    "  else if trylock(accept_mutex):            // load; CAS 0 -> pid. Never spins or sleeps",
    "    if !held: epoll_ctl(ep, ADD, listen_fd); held = 1",
    "  else if held: epoll_ctl(ep, DEL, listen_fd); held = 0",
    "  timeout = held ? INFINITE : accept_mutex_delay",
    "  n = epoll_wait(ep, events, timeout)       // the lock stays held while the holder sleeps",
    "  posted accept events:                     // run first, still under the lock",
    "    fd = accept4(listen_fd, NONBLOCK)       // EAGAIN: nothing left",
    "    epoll_ctl(ep, ADD, fd, EPOLLIN|EPOLLET); accept_disabled = n/8 - free",
    "  if locked: unlock(accept_mutex)           // CAS pid -> 0; `held` stays 1",
    "  posted events, outside the lock:",
    "    r = read(fd)                            // a request, or EOF: close(fd)",
    "    handle(r)                               // the service time",
    "    write(fd, response)",
    "}",
];

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
            pc: Pc::Register,
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
            _ => self.cfg.registers && self.pc != Pc::Register,
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
        matches!(self.pc, Pc::Accept | Pc::AddConn(_))
    }
    /// True when this iteration skipped the trylock because `accept_disabled > 0` (S2): its accept
    /// handlers then run without the lock (`nginx-accept-mutex.md` §5, invariant 7).
    pub fn skipped_trylock(&self) -> bool {
        self.skipped_trylock
    }
    /// True between the trylock and the matching `epoll_ctl` (registration is being switched).
    pub fn is_switching(&self) -> bool {
        matches!(self.pc, Pc::Try | Pc::Enable | Pc::Disable)
    }
    /// True while it sleeps or is about to sleep in `epoll_wait`.
    pub fn is_waiting(&self) -> bool {
        self.pc == Pc::Wait
    }

    fn mutex_on(&self) -> bool {
        self.cfg.strategy == Strategy::AcceptMutex
    }

    /// S2: where an iteration starts.
    fn top(&mut self) -> Pc {
        if !self.mutex_on() {
            return Pc::Wait;
        }
        self.skipped_trylock = self.disabled > 0;
        if self.disabled > 0 {
            self.disabled -= 1;
            return Pc::Wait;
        }
        self.mutex.start_trylock();
        Pc::Try
    }

    /// After the accept handler (or when there was nothing to accept).
    fn after_accept(&mut self) -> Pc {
        if self.locked && self.cfg.variant != MutexVariant::UnlockBeforeAccept {
            self.mutex.start_unlock();
            return Pc::Unlock;
        }
        self.read_or_top()
    }

    fn read_or_top(&mut self) -> Pc {
        if self.conns_left > 0 {
            Pc::Read
        } else {
            self.top()
        }
    }

    fn after_wait(&mut self) -> Pc {
        if self.locked && self.cfg.variant == MutexVariant::UnlockBeforeAccept {
            // the seed's order: release first, then accept
            self.mutex.start_unlock();
            return Pc::Unlock;
        }
        if self.listener_ready {
            Pc::Accept
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

    fn after_conn_added(&mut self) -> Pc {
        if self.cfg.multi_accept {
            return Pc::Accept;
        }
        // the loop ended normally (one accept per event): ngx_reorder_accept_events
        if self.cfg.strategy == Strategy::Exclusive && self.cfg.reorder_every > 0 {
            let n = self.requests_seen;
            self.requests_seen = self.requests_seen.wrapping_add(1);
            if n % self.cfg.reorder_every == 0 || self.disabled > 0 {
                return Pc::ReorderDel;
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
        let ep = self.cfg.ep;
        match self.pc {
            Pc::Register | Pc::Enable | Pc::ReorderAdd => Op::EpollAdd {
                ep,
                fd: self.listener_fd(),
                interest: self.register_interest(),
            },
            Pc::Disable | Pc::ReorderDel => Op::EpollDel {
                ep,
                fd: self.listener_fd(),
            },
            Pc::Try => self.mutex.trylock_op(),
            Pc::Wait => Op::EpollWait {
                ep,
                timeout_ns: self.wait_timeout(),
            },
            Pc::Accept => Op::AcceptNb(self.cfg.listener),
            Pc::AddConn(c) => Op::EpollAdd {
                ep,
                fd: Fd::Conn(c),
                interest: Interest::Edge,
            },
            Pc::Unlock => self.mutex.unlock_op(),
            Pc::Read => Op::ReadNext,
            Pc::Handle(_) => Op::Work(self.cfg.service_ns),
            Pc::Respond(c) => Op::Respond(c),
        }
    }

    fn complete(&mut self, r: OpResult) {
        self.pc = match self.pc {
            Pc::Register => {
                self.stats.epoll_ctls += 1;
                self.top()
            }
            Pc::Try => match self.mutex.trylock_complete(r) {
                TryOutcome::Pending => Pc::Try,
                TryOutcome::Acquired => {
                    self.stats.lock_acquired += 1;
                    self.locked = true;
                    if self.held {
                        Pc::Wait
                    } else {
                        Pc::Enable
                    }
                }
                TryOutcome::Busy => {
                    self.stats.lock_failed += 1;
                    if self.held && self.cfg.variant != MutexVariant::NoDisable {
                        Pc::Disable
                    } else {
                        if self.cfg.variant == MutexVariant::NoDisable {
                            // the bug: forgets the listener is still registered
                            self.held = false;
                        }
                        Pc::Wait
                    }
                }
            },
            Pc::Enable => {
                self.stats.epoll_ctls += 1;
                self.held = true;
                Pc::Wait
            }
            Pc::Disable => {
                self.stats.epoll_ctls += 1;
                self.held = false;
                Pc::Wait
            }
            Pc::Wait => {
                let ready = match r {
                    OpResult::Events(ready) => ready,
                    _ => Default::default(),
                };
                if ready.is_empty() {
                    self.stats.timeouts += 1;
                } else {
                    self.stats.wait_returns += 1;
                }
                self.listener_ready = ready.listener.is_some();
                self.conns_left = ready.conns;
                self.after_wait()
            }
            Pc::Accept => match r {
                OpResult::Conn(c) => {
                    self.stats.accepted += 1;
                    self.active += 1;
                    let n = self.cfg.worker_connections as i64;
                    self.disabled = n / 8 - (n - self.active as i64);
                    Pc::AddConn(c)
                }
                _ => {
                    self.stats.eagain += 1;
                    self.listener_ready = false;
                    // EAGAIN returns early: no reorder
                    self.after_accept()
                }
            },
            Pc::AddConn(_) => {
                self.stats.epoll_ctls += 1;
                self.after_conn_added()
            }
            Pc::ReorderDel => {
                self.stats.epoll_ctls += 1;
                Pc::ReorderAdd
            }
            Pc::ReorderAdd => {
                self.stats.epoll_ctls += 1;
                self.stats.reorders += 1;
                self.after_accept()
            }
            Pc::Unlock => {
                let _ = self.mutex.unlock_complete(r);
                self.locked = false;
                if self.cfg.variant == MutexVariant::UnlockBeforeAccept && self.listener_ready {
                    Pc::Accept
                } else {
                    self.read_or_top()
                }
            }
            Pc::Read => {
                self.conns_left = self.conns_left.saturating_sub(1);
                match r {
                    OpResult::Request(c) => Pc::Handle(c),
                    OpResult::Eof(_) => {
                        self.stats.closed += 1;
                        self.active = self.active.saturating_sub(1);
                        self.read_or_top()
                    }
                    _ => self.read_or_top(),
                }
            }
            Pc::Handle(c) => Pc::Respond(c),
            Pc::Respond(_) => {
                self.stats.requests += 1;
                self.read_or_top()
            }
        };
    }

    fn line(&self) -> u16 {
        if self.mutex_on() {
            match self.pc {
                Pc::Try => {
                    if self.disabled > 0 {
                        2
                    } else {
                        3
                    }
                }
                Pc::Enable => 4,
                Pc::Disable => 5,
                Pc::Wait => 7,
                Pc::Accept => 9,
                Pc::AddConn(_) | Pc::ReorderDel | Pc::ReorderAdd => 10,
                Pc::Unlock => 11,
                Pc::Read => 13,
                Pc::Handle(_) => 14,
                Pc::Respond(_) => 15,
                Pc::Register => 1,
            }
        } else {
            match self.pc {
                Pc::Register => 1,
                Pc::Try | Pc::Enable | Pc::Disable | Pc::Unlock | Pc::Wait => 3,
                Pc::Accept => 5,
                Pc::AddConn(_) => 6,
                Pc::ReorderDel | Pc::ReorderAdd => 8,
                Pc::Read => 10,
                Pc::Handle(_) => 11,
                Pc::Respond(_) => 12,
            }
        }
    }

    fn listing(&self) -> &'static [&'static str] {
        if self.mutex_on() {
            LISTING_MUTEX
        } else {
            LISTING_PLAIN
        }
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
        assert_eq!(w.next_op(), Op::Load(crate::locks::shmtx::LOCK));
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
