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
//! - **`ep_poll_callback`**, called by the socket's wake walk for that entry: 1. queue the item on the
//!   ready list if it is not there (whether or not anyone is woken); 2. if the epoll has sleepers,
//!   wake one (the newest: sleepers are queued at the head, so the order is LIFO); 3. return 1 for a
//!   non-exclusive entry, and for an exclusive one 1 only if it woke a sleeper, so a walk with budget 1
//!   passes exclusive epolls with nobody waiting.
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
//!   the connection is queued, the next one [`NetSpec::think_ns`] after each response, and closes
//!   [`NetSpec::think_ns`] after the last response, so the server reads EOF.
//!
//! # Invariants
//! - An epoll item is on its ready list at most once (`linux-wakeups.md` §5, invariant 5).
//! - Conservation: every connection sits in exactly one listener's queue until exactly one `accept`
//!   takes it, and is then read until EOF by whoever holds it.

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::op::{Fd, Interest};
use crate::waitqueue::WaitQueue;

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
    /// Gap between a response and the client's next request or its close, ns.
    pub think_ns: u64,
    /// Gap between a connection's arrival in the accept queue and its first request's data, ns
    /// (on loopback the client writes right after `connect` returns).
    pub send_delay_ns: u64,
}

impl Default for NetSpec {
    fn default() -> Self {
        NetSpec {
            listeners: 1,
            epolls: 0,
            requests_per_conn: 1,
            think_ns: 50_000,
            send_delay_ns: 10_000,
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
    let mut r = crate::rng::Rng::new(seed ^ 0x7E05_E9A0_0000_0000 ^ conn as u64);
    let h = (r.next_u64() >> 32) as u32;
    ((h as u64 * n as u64) >> 32) as u8
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
    fn ready_list_holds_an_item_once() {
        let mut ep = Epoll::default();
        ep.mark_ready(Fd::Conn(1));
        ep.mark_ready(Fd::Conn(1));
        assert_eq!(ep.ready.len(), 1);
    }
}
