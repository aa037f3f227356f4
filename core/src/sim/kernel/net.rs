//! The kernel model of event-driven servers: listening sockets, epoll instances, connections and the
//! simulated clients that send requests on them.
//!
//! Follows `fs/eventpoll.c` and `net/core/sock_reuseport.c` (Linux 4.5 to 6.x;
//! `shared/reference/linux-wakeups.md` §3 E-I):
//!
//! - **Registration** (`ep_insert`): `EPOLL_CTL_ADD` of a listening socket puts an entry for the epoll
//!   on the socket's wait queue: at the head without `EPOLLEXCLUSIVE` (`add_wait_queue`), at the tail
//!   with it (`add_wait_queue_exclusive`). If the socket is already readable, the item goes straight on
//!   the ready list and one `epoll_wait` sleeper is woken.
//! - **`ep_poll_callback`**, called by the socket's wake walk for that entry: 1. if the event's key
//!   does not match the item's interest mask, stop there (nothing queued; the kernel returns 1 for a
//!   non-exclusive entry and 0 for an exclusive one); 2. queue the item on the ready list if it is
//!   not there (whether or not anyone is woken); 3. if the epoll's own queue `ep->wq` is non-empty,
//!   `wake_up` it, which wakes one sleeper (the newest: sleepers are queued at the head, so the order
//!   is LIFO); 4. return 1 for a non-exclusive entry; for an exclusive one, return 1 when `ep->wq`
//!   was non-empty and the key matched (`EPOLLIN` here), **whether or not `wake_up` actually woke
//!   anyone**, else 0. So a walk with budget 1 passes exclusive epolls that have nobody waiting. In
//!   this model a listener's key is always `EPOLLIN` and every listener registration asks for it, so
//!   the key always matches.
//! - **`ep_poll` / `ep_send_events`**: a caller harvests the ready list by re-polling each item: a
//!   drained listener is dropped (the woken caller goes back to sleep inside the kernel: a wasted
//!   wakeup that user space never sees); a level-triggered listener that is still readable goes back
//!   on the list, and if other callers sleep on the same epoll one of them is woken (`ep_done_scan`):
//!   on a shared epoll that is a chain of single wakeups, not a herd. A connection is registered
//!   edge-triggered: reported once per arrival of data.
//! - **`SO_REUSEPORT`**: with several listeners the connection goes to listener
//!   `reciprocal_scale(hash, n)`, `hash` being the 4-tuple's hash (a seeded hash of the client port
//!   here), whatever the owning worker is doing.
//! - **Clients**: each connection's client sends its first request [`NetSpec::send_delay_ns`] after
//!   the connection is queued (on loopback the client writes as soon as `connect` returns, before a
//!   woken server thread gets to `accept`), and after each response it takes
//!   [`NetSpec::client_turn_ns`] (waking up, reading the response) plus [`NetSpec::think_ns`] to send
//!   the next request, or to close after the last one, so the server reads EOF.
//!
//! # Invariants
//! - An epoll item is on its ready list at most once (`linux-wakeups.md` §5, invariant 5).
//! - Conservation: every connection sits in exactly one listener's queue until exactly one `accept`
//!   takes it, and is then read until EOF by whoever holds it.

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::op::{Fd, Interest, ListenerId, OpResult, Ready};
use crate::sim::{Actor, Note, Sched, Simulation, SleepKind, StepRecord, TaskState};
use crate::waitqueue::{Enqueue, WaitQueue};

/// Socket wait-queue entries of epoll instances use waiter ids from here up: `EP_WAITER + ep`.
pub const EP_WAITER: u16 = 0x8000;

/// The shape of the network of an event-driven scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetSpec {
    /// Listening sockets (more than one: `SO_REUSEPORT` placement by hash).
    pub listeners: u8,
    /// Epoll instances.
    pub epolls: u8,
    /// Requests each client sends before closing.
    pub requests_per_conn: u32,
    /// Extra gap the client waits after a response before its next request or its close, ns.
    pub think_ns: u64,
    /// Gap between a connection's arrival in the accept queue and its first request's data, ns.
    pub send_delay_ns: u64,
    /// The client's turnaround after a response (its thread wakes and reads), ns.
    pub client_turn_ns: u64,
    /// `Some(ns)` when the clients run on the server's CPUs (a load generator on the same machine,
    /// as `herdlab bench accept` runs it): the response wakes the client onto the worker's CPU, where
    /// it preempts the worker for this long (read the response, send the next request or close), so
    /// its action lands before the worker goes back to `epoll_wait`. `None`: the clients are
    /// elsewhere and answer after `client_turn_ns`.
    pub client_cpu_ns: Option<u64>,
}

impl Default for NetSpec {
    fn default() -> Self {
        NetSpec {
            listeners: 1,
            epolls: 0,
            requests_per_conn: 1,
            think_ns: 0,
            send_delay_ns: 2_000,
            client_turn_ns: 10_000,
            client_cpu_ns: None,
        }
    }
}

/// A listening socket.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Listener {
    /// `sk_wq->wait`: blocked acceptors and the entries of the epolls that watch it.
    pub wq: WaitQueue,
    /// The accept queue, oldest first.
    pub queue: VecDeque<u32>,
}

/// One epoll instance.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Epoll {
    /// `ep->wq`: threads inside `epoll_wait`, newest first.
    pub wq: WaitQueue,
    /// `rdllist`, in order.
    pub ready: VecDeque<Fd>,
    /// The interest list.
    pub interest: Vec<(Fd, Interest)>,
}

impl Epoll {
    /// How `fd` is registered here.
    pub fn interest_of(&self, fd: Fd) -> Option<Interest> {
        self.interest
            .iter()
            .find(|(f, _)| *f == fd)
            .map(|&(_, i)| i)
    }
    /// Queue `fd` on the ready list unless it is there.
    pub fn mark_ready(&mut self, fd: Fd) {
        if !self.ready.contains(&fd) {
            self.ready.push_back(fd);
        }
    }
    /// Remove `fd` from the interest and ready lists. Returns true when it was registered.
    pub fn forget(&mut self, fd: Fd) -> bool {
        self.ready.retain(|&f| f != fd);
        let before = self.interest.len();
        self.interest.retain(|(f, _)| *f != fd);
        before != self.interest.len()
    }
}

/// One connection, from its arrival to its close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conn {
    /// The listener it arrived on.
    pub listener: u8,
    /// Taken by `accept`.
    pub accepted: bool,
    /// Closed by the server after EOF.
    pub closed: bool,
    /// The epoll it is registered in.
    pub ep: Option<u8>,
    /// A thread asleep in a blocking read of it.
    pub reader: Option<u16>,
    /// Requests that arrived and were not read yet.
    pub pending: u32,
    /// The client closed its side.
    pub eof: bool,
    /// Requests the client has still to send after the outstanding one.
    pub requests_left: u32,
    /// When it was queued, ns.
    pub arrived_at: u64,
}

impl Conn {
    /// Whether a read would return something (a request or EOF).
    pub fn readable(&self) -> bool {
        !self.closed && (self.pending > 0 || self.eof)
    }
}

/// What a client does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ClientAction {
    /// Send a request.
    Request,
    /// Close the connection.
    Close,
}

/// The network's state: connections, clients' next actions, and `epoll_wait` timers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Net {
    /// The shape.
    pub spec: NetSpec,
    /// Epoll instances.
    pub epolls: Vec<Epoll>,
    /// Connections from id `base` on (closed ones at the front are dropped).
    pub conns: VecDeque<Conn>,
    /// The id of `conns[0]`.
    pub base: u32,
    /// Clients' next actions: (time, connection, action).
    pub client: BTreeSet<(u64, u32, ClientAction)>,
    /// `epoll_wait` timeouts: (deadline, thread).
    pub timers: BTreeSet<(u64, u16)>,
    /// Connections closed.
    pub closed: u64,
}

impl Net {
    /// An idle network of this shape.
    pub fn new(spec: NetSpec) -> Self {
        Net {
            spec,
            epolls: vec![Epoll::default(); spec.epolls as usize],
            conns: VecDeque::new(),
            base: 0,
            client: BTreeSet::new(),
            timers: BTreeSet::new(),
            closed: 0,
        }
    }

    /// Connection `c`, if it is still tracked.
    pub fn conn(&self, c: u32) -> Option<&Conn> {
        c.checked_sub(self.base)
            .and_then(|i| self.conns.get(i as usize))
    }

    /// Connection `c`, mutably.
    pub fn conn_mut(&mut self, c: u32) -> Option<&mut Conn> {
        c.checked_sub(self.base)
            .and_then(|i| self.conns.get_mut(i as usize))
    }

    /// Drop closed connections from the front.
    pub fn compact(&mut self) {
        while self.conns.front().is_some_and(|c| c.closed) {
            self.conns.pop_front();
            self.base += 1;
        }
    }

    /// Connections still open (arrived and not closed).
    pub fn open_conns(&self) -> usize {
        self.conns.iter().filter(|c| !c.closed).count()
    }

    /// The next client action or timer, with its time.
    pub fn next_event(&self) -> Option<u64> {
        let a = self.client.first().map(|e| e.0);
        let b = self.timers.first().map(|e| e.0);
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}

/// `reciprocal_scale(hash, n)` over a seeded hash of connection `conn`'s 4-tuple: the
/// `SO_REUSEPORT` member it goes to.
pub fn reuseport_pick(conn: u32, n: u8, seed: u64) -> u8 {
    if n <= 1 {
        return 0;
    }
    // the run's key, then the connection's hash under it (distinct seeds give unrelated placements)
    let key = crate::rng::Rng::new(seed ^ 0x7E05_E9A0_0000_0000).next_u64();
    let mut r = crate::rng::Rng::new(key ^ (conn as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let h = (r.next_u64() >> 32) as u32;
    ((h as u64 * n as u64) >> 32) as u8
}

/// The kernel operations of the event-driven network, on the simulation's state.
impl<M: Machine> Simulation<M> {
    /// The thread did something useful: it no longer counts as woken for nothing.
    pub(in crate::sim) fn did_work(&mut self, tid: u16) {
        let t = &mut self.threads[tid as usize];
        t.woken_since_work = false;
        t.empty_handed = false;
    }

    /// Record that connection `c` was accepted at `now` (both accept paths).
    pub(in crate::sim) fn net_accepted(&mut self, c: u32, now: u64) {
        if let Some(n) = self.net.as_mut() {
            if let Some(conn) = n.conn_mut(c) {
                conn.accepted = true;
                let lat = now.saturating_sub(conn.arrived_at);
                self.accept_latency.record(lat);
            }
        }
    }

    /// `ep_poll_callback` for `fd` on epoll `ep`: queue the item, wake one sleeper. Returns what the
    /// callback returns to the socket's wake walk.
    pub(in crate::sim) fn ep_callback(&mut self, ep: u8, fd: Fd, at: u64, woken: &mut u16) -> i32 {
        let Some(n) = self.net.as_mut() else {
            return 0;
        };
        let Some(e) = n.epolls.get_mut(ep as usize) else {
            return 0;
        };
        let exclusive = e.interest_of(fd) == Some(Interest::LevelExclusive);
        e.mark_ready(fd);
        let has_sleeper = !e.wq.is_empty();
        if has_sleeper && self.wake_ep_sleeper(ep, at) {
            *woken += 1;
        }
        if exclusive {
            has_sleeper as i32
        } else {
            1
        }
    }

    /// `wake_up(&ep->wq)`: wake the first sleeper of the epoll (head: the newest). True if woken.
    pub(in crate::sim) fn wake_ep_sleeper(&mut self, ep: u8, at: u64) -> bool {
        let Some(n) = self.net.as_mut() else {
            return false;
        };
        let mut q = std::mem::take(&mut n.epolls[ep as usize].wq);
        // this walk is not recorded: its visits go to a reused buffer, emptied again after
        let mut visits = std::mem::take(&mut self.scratch_walk);
        let mut woke = false;
        q.wake(1, true, &mut visits, |tid| {
            let r = self.ttwu(tid, at, true);
            if r > 0 {
                woke = true;
            }
            r
        });
        visits.clear();
        self.scratch_walk = visits;
        if let Some(n) = self.net.as_mut() {
            n.epolls[ep as usize].wq = q;
        }
        woke
    }

    /// The wake walk of listener `l`'s wait queue with budget 1 (`sock_def_readable`), recorded as
    /// the last walk. Epoll entries run `ep_poll_callback`; thread entries are blocked acceptors.
    pub(in crate::sim) fn wake_listener(&mut self, l: u8, at: u64) -> u16 {
        let mut q = std::mem::take(&mut self.k.listeners[l as usize].wq);
        let mut visits = std::mem::take(&mut self.last_walk);
        let mut woken = 0u16;
        let end = q.wake_with(
            1,
            &mut visits,
            |w| {
                if w >= EP_WAITER {
                    let ep = (w - EP_WAITER) as u8;
                    let fd = Fd::Listener(ListenerId(l));
                    self.ep_callback(ep, fd, at, &mut woken)
                } else {
                    let r = self.ttwu(w, at, true);
                    if r > 0 {
                        woken += 1;
                    }
                    r
                }
            },
            |w| w < EP_WAITER,
        );
        self.k.listeners[l as usize].wq = q;
        self.last_walk = visits;
        self.last_walk_budget = 1;
        self.last_walk_listener = l;
        self.last_walk_end = Some(end);
        woken
    }

    /// Readiness of connection `c` changed (data or EOF): its epoll entry, or its blocked reader.
    pub(in crate::sim) fn notify_conn(&mut self, c: u32, at: u64) -> u16 {
        let Some(conn) = self.net.as_ref().and_then(|n| n.conn(c)).copied() else {
            return 0;
        };
        let mut woken = 0u16;
        if let Some(ep) = conn.ep {
            self.ep_callback(ep, Fd::Conn(c), at, &mut woken);
        }
        if let Some(r) = conn.reader {
            if let Some(cm) = self.net.as_mut().and_then(|n| n.conn_mut(c)) {
                cm.reader = None;
            }
            if self.ttwu(r, at, true) > 0 {
                woken += 1;
            }
        }
        woken
    }

    /// The network actor of the event-driven world: the earliest of the next arrival, the next client
    /// action and the next `epoll_wait` timeout.
    pub(in crate::sim) fn step_net(&mut self) -> StepRecord {
        // every CPU idle: nothing happens before the due time, so the clock jumps to it
        let present = self.present_ns().unwrap_or(u64::MAX);
        let arrival = self.arrivals.due(self.idle_since);
        let (client, timer) = {
            let n = self.net.as_ref().expect("event-driven network");
            let drained = self.net_drained();
            (
                n.client.first().copied(),
                if drained {
                    None
                } else {
                    n.timers.first().copied()
                },
            )
        };
        // which comes first (ties: arrival, client, timer); a learner's forced step takes the same
        // one, now
        let mut pick = 0u8;
        let mut best = u64::MAX;
        if let Some(t) = arrival {
            if self.arrivals.remaining() > 0 {
                best = t;
                pick = 1;
            }
        }
        if let Some((t, _, _)) = client {
            if t < best {
                best = t;
                pick = 2;
            }
        }
        if let Some((t, _)) = timer {
            if t < best {
                best = t;
                pick = 3;
            }
        }
        if pick == 0 && self.arrivals.remaining() > 0 {
            pick = 1; // forced: on-demand arrival before the workers are idle
        }
        let at = match best.min(present) {
            u64::MAX => self.metrics.sim_time_ns,
            t => t,
        };
        if at > self.metrics.sim_time_ns {
            self.metrics.sim_time_ns = at;
        }
        let note = match pick {
            1 => self.net_arrival(at),
            2 => {
                let (t, c, action) = client.expect("client action");
                self.net
                    .as_mut()
                    .expect("net")
                    .client
                    .remove(&(t, c, action));
                match action {
                    ClientAction::Request => {
                        if let Some(cm) = self.net.as_mut().and_then(|n| n.conn_mut(c)) {
                            cm.pending += 1;
                        }
                        let woken = self.notify_conn(c, at);
                        Note::ClientSent { conn: c, woken }
                    }
                    ClientAction::Close => {
                        if let Some(cm) = self.net.as_mut().and_then(|n| n.conn_mut(c)) {
                            cm.eof = true;
                        }
                        let woken = self.notify_conn(c, at);
                        Note::ClientClosed { conn: c, woken }
                    }
                }
            }
            _ => {
                let (t, tid) = timer.expect("timer");
                self.net.as_mut().expect("net").timers.remove(&(t, tid));
                self.fire_timer(tid, at);
                Note::TimerFired { thread: tid }
            }
        };
        StepRecord {
            step: 0,
            actor: Actor::Network,
            line: 0,
            time_ns: at,
            cpu: None,
            note,
        }
    }

    pub(in crate::sim) fn net_arrival(&mut self, at: u64) -> Note {
        self.arrivals.take(at);
        let conn = self.next_conn;
        self.next_conn += 1;
        self.metrics.connections_arrived += 1;
        let nl = self.k.listeners.len() as u8;
        let l = reuseport_pick(conn, nl, self.seed);
        let n = self.net.as_mut().expect("net");
        let spec = n.spec;
        n.conns.push_back(Conn {
            listener: l,
            accepted: false,
            closed: false,
            ep: None,
            reader: None,
            pending: 0,
            eof: false,
            requests_left: spec.requests_per_conn.saturating_sub(1),
            arrived_at: at,
        });
        n.client
            .insert((at + spec.send_delay_ns, conn, ClientAction::Request));
        self.k.listeners[l as usize].queue.push_back(conn);
        let walk_cost =
            self.cost.wake_entry_ns * self.k.listeners[l as usize].wq.len().max(1) as u64;
        let woken = self.wake_listener(l, at + walk_cost);
        Note::Arrived { conn, woken }
    }

    /// An `epoll_wait` timeout expired: the sleeper is woken (a timer wakeup, not a wasted one).
    pub(in crate::sim) fn fire_timer(&mut self, tid: u16, at: u64) {
        let t = &mut self.threads[tid as usize];
        if t.sched != Sched::Asleep || t.deadline.is_none() {
            // already woken by an event: its next look at the ready list sees the timeout expired
            t.deadline = None;
            t.timed_out = true;
            return;
        }
        if let Some(n) = self.net.as_mut() {
            for e in &mut n.epolls {
                e.wq.remove(tid);
            }
        }
        {
            let t = &mut self.threads[tid as usize];
            t.task = TaskState::Running;
            t.timed_out = true;
            t.deadline = None;
        }
        self.wake_thread(tid, at, false);
        self.after_wake(tid);
        self.metrics.wakeups += 1;
        self.metrics.timer_wakeups += 1;
        let m = &mut self.threads[tid as usize].metrics;
        m.wakeups += 1;
        m.timer_wakeups += 1;
    }

    pub(in crate::sim) fn syscall_cost(&mut self, cpu: u8, resumed: bool) {
        let base = if resumed {
            self.cost.kernel_step_ns
        } else {
            self.cost.syscall_ns
        };
        let c = self.jittered(base);
        self.charge(cpu, c);
    }

    pub(in crate::sim) fn step_accept_nb(&mut self, tid: u16, cpu: u8, l: u8) -> Note {
        self.syscall_cost(cpu, false);
        let now = self.cpus[cpu as usize].clock;
        match self
            .k
            .listeners
            .get_mut(l as usize)
            .and_then(|x| x.queue.pop_front())
        {
            Some(c) => {
                self.metrics.connections_accepted += 1;
                self.threads[tid as usize].metrics.accepted += 1;
                self.did_work(tid);
                self.net_accepted(c, now);
                self.complete(tid, OpResult::Conn(c));
                Note::AcceptedNb { conn: c }
            }
            None => {
                self.metrics.eagain += 1;
                let t = &mut self.threads[tid as usize];
                t.metrics.eagain += 1;
                if t.woken_since_work {
                    t.empty_handed = true;
                }
                self.complete(tid, OpResult::Again);
                Note::AcceptAgain
            }
        }
    }

    pub(in crate::sim) fn step_epoll_add(
        &mut self,
        tid: u16,
        cpu: u8,
        ep: u8,
        fd: Fd,
        interest: Interest,
    ) -> Note {
        self.syscall_cost(cpu, false);
        let at = self.cpus[cpu as usize].clock;
        let mut ready_now = false;
        let ok = self
            .net
            .as_ref()
            .is_some_and(|n| (ep as usize) < n.epolls.len());
        if ok {
            let n = self.net.as_mut().expect("net");
            let e = &mut n.epolls[ep as usize];
            if e.interest_of(fd).is_none() {
                e.interest.push((fd, interest));
                match fd {
                    Fd::Listener(l) => {
                        let how = match interest {
                            Interest::LevelExclusive => Enqueue::ExclusiveTail,
                            _ => Enqueue::NonExclusiveHead,
                        };
                        if let Some(li) = self.k.listeners.get_mut(l.0 as usize) {
                            li.wq.add(EP_WAITER + ep as u16, how);
                            ready_now = !li.queue.is_empty();
                        }
                    }
                    Fd::Conn(c) => {
                        if let Some(cm) = n.conn_mut(c) {
                            cm.ep = Some(ep);
                            ready_now = cm.readable();
                        }
                    }
                }
                if ready_now {
                    // ep_insert polls the file: already readable, so queue it and wake a waiter
                    let n = self.net.as_mut().expect("net");
                    n.epolls[ep as usize].mark_ready(fd);
                    if !n.epolls[ep as usize].wq.is_empty() {
                        self.wake_ep_sleeper(ep, at);
                    }
                }
            }
        }
        self.complete(tid, OpResult::Done);
        Note::EpollAdded { ep, ready_now }
    }

    pub(in crate::sim) fn step_epoll_del(&mut self, tid: u16, cpu: u8, ep: u8, fd: Fd) -> Note {
        self.syscall_cost(cpu, false);
        if let Some(n) = self.net.as_mut() {
            if let Some(e) = n.epolls.get_mut(ep as usize) {
                e.forget(fd);
            }
            match fd {
                Fd::Listener(l) => {
                    if let Some(li) = self.k.listeners.get_mut(l.0 as usize) {
                        li.wq.remove(EP_WAITER + ep as u16);
                    }
                }
                Fd::Conn(c) => {
                    if let Some(cm) = n.conn_mut(c) {
                        cm.ep = None;
                    }
                }
            }
        }
        self.complete(tid, OpResult::Done);
        Note::EpollRemoved { ep }
    }

    /// `ep_send_events`: re-poll every ready item; report the readable ones (the connections into
    /// the thread's harvest), keep level-triggered ones that are still readable, and wake the next
    /// sleeper if some remain (`ep_done_scan`).
    pub(in crate::sim) fn harvest(&mut self, tid: u16, ep: u8, at: u64) -> Ready {
        let mut ready = Ready::default();
        let Some(n) = self.net.as_mut() else {
            return ready;
        };
        let Some(e) = n.epolls.get_mut(ep as usize) else {
            return ready;
        };
        // in place, without allocating: level-triggered listeners that are still readable stay on
        // the list, in order; readable connections (edge-triggered) are reported once
        let mut list = std::mem::take(&mut e.ready);
        let listeners = &self.k.listeners;
        let harvest = &mut self.threads[tid as usize].harvest;
        let mut conns = 0u16;
        list.retain(|&fd| match fd {
            Fd::Listener(l) => {
                let readable = listeners
                    .get(l.0 as usize)
                    .is_some_and(|li| !li.queue.is_empty());
                if readable {
                    ready.listener = Some(l);
                }
                readable
            }
            Fd::Conn(c) => {
                if n.conn(c).is_some_and(|cm| cm.readable()) {
                    harvest.push_back(c);
                    conns += 1;
                }
                false
            }
        });
        let e = &mut n.epolls[ep as usize];
        e.ready = list;
        let chain = !e.ready.is_empty() && !e.wq.is_empty();
        ready.conns = conns;
        if chain {
            self.wake_ep_sleeper(ep, at);
        }
        ready
    }

    pub(in crate::sim) fn step_epoll_wait(
        &mut self,
        tid: u16,
        cpu: u8,
        ep: u8,
        timeout: Option<u64>,
        resumed: bool,
    ) -> Note {
        self.syscall_cost(cpu, resumed);
        let now = self.cpus[cpu as usize].clock;
        if let Some(n) = self.net.as_mut() {
            if let Some(e) = n.epolls.get_mut(ep as usize) {
                e.wq.remove(tid);
            }
        }
        self.threads[tid as usize].task = TaskState::Running;
        let ready = self.harvest(tid, ep, now);
        let timed_out = std::mem::take(&mut self.threads[tid as usize].timed_out);
        if !ready.is_empty() || timed_out || timeout == Some(0) || self.net.is_none() {
            if let Some(d) = self.threads[tid as usize].deadline.take() {
                if let Some(n) = self.net.as_mut() {
                    n.timers.remove(&(d, tid));
                }
            }
            self.complete(tid, OpResult::Events(ready));
            return if ready.is_empty() {
                Note::EpollTimedOut
            } else {
                Note::EpollReturned {
                    listener: ready.listener.is_some(),
                    conns: ready.conns,
                }
            };
        }
        // nothing: sleep at the head of ep->wq (LIFO), keeping the timer of this call
        let n = self.net.as_mut().expect("net");
        if let Some(e) = n.epolls.get_mut(ep as usize) {
            e.wq.add(tid, Enqueue::ExclusiveHead);
        }
        if let (Some(t), None) = (timeout, self.threads[tid as usize].deadline) {
            let d = now + t;
            n.timers.insert((d, tid));
            self.threads[tid as usize].deadline = Some(d);
        }
        self.threads[tid as usize].task = TaskState::Interruptible;
        let wasted = self.threads[tid as usize].woken_since_work;
        self.block(tid, SleepKind::Work);
        Note::EpollSlept { wasted }
    }

    /// Read one request (or EOF) from `c`; `None` when there is nothing to read.
    pub(in crate::sim) fn read_conn(&mut self, tid: u16, c: u32) -> Option<OpResult> {
        let n = self.net.as_mut()?;
        let cm = n.conn_mut(c)?;
        if cm.closed {
            return None;
        }
        if cm.pending > 0 {
            cm.pending -= 1;
            self.did_work(tid);
            return Some(OpResult::Request(c));
        }
        if cm.eof {
            cm.closed = true;
            if let Some(ep) = cm.ep.take() {
                if let Some(e) = n.epolls.get_mut(ep as usize) {
                    e.forget(Fd::Conn(c));
                }
            }
            n.closed += 1;
            n.compact();
            self.did_work(tid);
            return Some(OpResult::Eof(c));
        }
        None
    }

    pub(in crate::sim) fn step_read_next(&mut self, tid: u16, cpu: u8) -> Note {
        self.syscall_cost(cpu, false);
        let next = self.threads[tid as usize].harvest.pop_front();
        let r = next.and_then(|c| self.read_conn(tid, c));
        let note = match r {
            Some(OpResult::Request(c)) => Note::ReadRequest { conn: c },
            Some(OpResult::Eof(c)) => Note::ReadEof { conn: c },
            _ => Note::ReadNothing,
        };
        self.complete(tid, r.unwrap_or(OpResult::Again));
        note
    }

    pub(in crate::sim) fn step_recv(&mut self, tid: u16, cpu: u8, c: u32, resumed: bool) -> Note {
        self.syscall_cost(cpu, resumed);
        match self.read_conn(tid, c) {
            Some(r) => {
                self.complete(tid, r);
                match r {
                    OpResult::Request(c) => Note::ReadRequest { conn: c },
                    _ => Note::ReadEof { conn: c },
                }
            }
            None => {
                let known = self
                    .net
                    .as_mut()
                    .and_then(|n| n.conn_mut(c))
                    .map(|cm| cm.reader = Some(tid))
                    .is_some();
                if !known {
                    self.complete(tid, OpResult::Eof(c));
                    return Note::ReadNothing;
                }
                self.threads[tid as usize].task = TaskState::Interruptible;
                self.block(tid, SleepKind::Work);
                Note::RecvSlept
            }
        }
    }

    pub(in crate::sim) fn step_respond(&mut self, tid: u16, cpu: u8, c: u32) -> Note {
        self.syscall_cost(cpu, false);
        let mut now = self.cpus[cpu as usize].clock;
        let spec = self.net.as_ref().map(|n| n.spec);
        if let Some(spec) = spec {
            let turn = match spec.client_cpu_ns {
                Some(client) => {
                    // the woken client preempts the worker on this CPU, acts, and switches back
                    let cs = self.cost.context_switch_ns;
                    let cpu_c = &mut self.cpus[cpu as usize];
                    cpu_c.clock += client + 2 * cs;
                    self.metrics.cpu_time_ns += client + 2 * cs;
                    self.metrics.context_switches += 2;
                    // the worker's switch out is involuntary (the client's back is no worker's)
                    self.threads[tid as usize].metrics.involuntary_switches += 1;
                    self.metrics.sim_time_ns = self.metrics.sim_time_ns.max(cpu_c.clock);
                    self.sync_cpu(cpu as usize);
                    now += cs + client;
                    0
                }
                None => spec.client_turn_ns,
            };
            let n = self.net.as_mut().expect("net");
            if let Some(cm) = n.conn_mut(c) {
                let action = if cm.requests_left > 0 {
                    cm.requests_left -= 1;
                    ClientAction::Request
                } else {
                    ClientAction::Close
                };
                n.client.insert((now + spec.think_ns + turn, c, action));
            }
        }
        self.did_work(tid);
        self.complete(tid, OpResult::Done);
        Note::Responded { conn: c }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuseport_spreads_connections_over_every_member() {
        let mut counts = [0u32; 8];
        for c in 0..8000 {
            counts[reuseport_pick(c, 8, 1) as usize] += 1;
        }
        for &n in &counts {
            assert!((800..1200).contains(&n), "{counts:?}");
        }
    }

    #[test]
    fn seeds_give_unrelated_placements() {
        let place = |seed| {
            (0..16)
                .map(|c| reuseport_pick(c, 2, seed))
                .collect::<Vec<u8>>()
        };
        let distinct: std::collections::HashSet<Vec<u8>> = (0..32).map(place).collect();
        assert!(distinct.len() >= 30, "{}", distinct.len());
    }

    #[test]
    fn ready_list_holds_an_item_once() {
        let mut ep = Epoll::default();
        ep.mark_ready(Fd::Conn(1));
        ep.mark_ready(Fd::Conn(1));
        assert_eq!(ep.ready.len(), 1);
    }
}
