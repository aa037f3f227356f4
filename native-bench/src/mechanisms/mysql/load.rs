//! The load generator of `herdlab bench mysql`: N client connections to 127.0.0.1, each a closed
//! loop (send one query, wait for its response, think, send the next), multiplexed over a few
//! client threads with their own epoll (so the clients add a fixed number of threads whatever N
//! is). The run is bounded by a total query budget and a deadline.
//!
//! A request is [`REQUEST`] bytes: the connection's index, the query's sequence number on it and
//! the send time; the response must echo them, and each connection has at most one query
//! outstanding, so a response that answers no outstanding query (a duplicate, a wrong connection)
//! is counted in `bad`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::SeqCst};
use std::time::Instant;

use herdlab_core::mechanisms::mysql::machine::mix;

use super::native::{events, Epoll, REQUEST};
use crate::platform::NativeError;

/// What the clients share: the budget of queries left to send, the clock, the deadline, the stop.
pub struct Shared {
    /// Queries not yet sent.
    pub budget: AtomicI64,
    /// The clock's origin.
    pub epoch: Instant,
    /// Nanoseconds since `epoch` after which no query is sent.
    pub deadline_ns: u64,
    /// Set when the run must end now (a server failure).
    pub stop: AtomicBool,
    /// Mean think time, ns.
    pub think_ns: u64,
    /// The seed.
    pub seed: u64,
    /// Connection churn: each connection closes after this many answered queries and its client
    /// reconnects to `reconnect_to` (sending its 4-byte index first); `None`: never.
    pub churn: Option<(u32, std::net::SocketAddr)>,
}

impl Shared {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

/// What one client thread measured.
#[derive(Clone, Debug, Default)]
pub struct ClientOut {
    /// Queries sent.
    pub sent: u64,
    /// Responses that answered the outstanding query of their connection.
    pub answered: u64,
    /// Responses that answered nothing outstanding (must stay 0).
    pub bad: u64,
    /// Send to response, ns, per answered query.
    pub latencies_ns: Vec<u64>,
    /// The first send and the last response, ns since the epoch.
    pub first_ns: u64,
    /// The last response.
    pub last_ns: u64,
    /// Whether the deadline came before every query was answered.
    pub timed_out: bool,
    /// The thread's own context switches.
    pub switches: super::bench::Switches,
    /// Reconnections (connection churn).
    pub reconnects: u64,
}

struct Conn {
    sock: TcpStream,
    id: u32,
    seq: u32,
    outstanding: Option<u64>,
    buf: [u8; REQUEST],
    got: usize,
    rng: u64,
}

impl Conn {
    fn think(&mut self, mean: u64) -> u64 {
        self.rng = mix(self.rng);
        // exponential with mean `mean`: -ln(u) * mean, u in (0, 1]
        let u = ((self.rng >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        (-u.ln() * mean as f64) as u64
    }
}

/// Drive `socks` (each with its client's index) until the budget is spent and every query
/// answered, the deadline passes or the stop is set. The sockets come back open (the server must
/// not see a client go away before the row's stop); on an error `fail` is called first, then
/// they close.
pub fn run(
    sh: &Shared,
    socks: Vec<(u32, TcpStream)>,
    fail: impl Fn(&str),
) -> Result<(ClientOut, Vec<TcpStream>), NativeError> {
    let mut conns = Vec::with_capacity(socks.len());
    match drive(sh, socks, &mut conns) {
        Ok(out) => Ok((out, conns.into_iter().map(|c| c.sock).collect())),
        Err(e) => {
            fail(&e.0);
            drop(conns);
            Err(e)
        }
    }
}

/// A new connection of client `id` to `addr`: its index first (the acceptor reads it), then
/// non-blocking as the others. The old one closes when the caller drops it (and leaves the epoll
/// set with its descriptor).
fn reconnect(addr: std::net::SocketAddr, id: u32) -> Result<TcpStream, NativeError> {
    let err = |what: &str, e: std::io::Error| NativeError(format!("client {id}: {what}: {e}"));
    let s = TcpStream::connect(addr).map_err(|e| err(&format!("reconnect to {addr}"), e))?;
    (&s).write_all(&id.to_le_bytes())
        .map_err(|e| err("its index", e))?;
    s.set_nonblocking(true).map_err(|e| err("O_NONBLOCK", e))?;
    s.set_nodelay(true).map_err(|e| err("TCP_NODELAY", e))?;
    Ok(s)
}

fn drive(
    sh: &Shared,
    socks: Vec<(u32, TcpStream)>,
    conns: &mut Vec<Conn>,
) -> Result<ClientOut, NativeError> {
    let sw0 = super::bench::own_switches();
    let ep = Epoll::new()?;
    let mut timers = BinaryHeap::new();
    let start = sh.now();
    for (k, (id, sock)) in socks.into_iter().enumerate() {
        sock.set_nonblocking(true)
            .map_err(|e| NativeError(format!("O_NONBLOCK: {e}")))?;
        sock.set_nodelay(true)
            .map_err(|e| NativeError(format!("TCP_NODELAY: {e}")))?;
        ep.add_level(sock.as_raw_fd(), k as u64)?;
        let mut c = Conn {
            sock,
            id,
            seq: 0,
            outstanding: None,
            buf: [0; REQUEST],
            got: 0,
            rng: sh.seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        };
        // spread the first queries over one think time
        let first = start + c.think(sh.think_ns).min(sh.think_ns.saturating_mul(4));
        timers.push(Reverse((first, k)));
        conns.push(c);
    }
    let mut out = ClientOut {
        first_ns: u64::MAX,
        ..ClientOut::default()
    };
    let mut evs = events(256);
    let mut outstanding = 0usize;
    loop {
        let now = sh.now();
        while let Some(&Reverse((due, k))) = timers.peek() {
            if due > now {
                break;
            }
            timers.pop();
            if now >= sh.deadline_ns {
                out.timed_out = true;
                continue;
            }
            if sh.budget.fetch_sub(1, SeqCst) <= 0 {
                continue;
            }
            let c = &mut conns[k];
            c.seq += 1;
            let sent = sh.now();
            let mut req = [0u8; REQUEST];
            req[0..4].copy_from_slice(&c.id.to_le_bytes());
            req[4..8].copy_from_slice(&c.seq.to_le_bytes());
            req[8..16].copy_from_slice(&sent.to_le_bytes());
            match (&c.sock).write(&req) {
                Ok(REQUEST) => {}
                Ok(n) => {
                    return Err(NativeError(format!(
                        "client {}: a request went out in part ({n} of {REQUEST} bytes)",
                        c.id
                    )))
                }
                Err(e) => return Err(NativeError(format!("client {}: write: {e}", c.id))),
            }
            c.outstanding = Some(sent);
            out.sent += 1;
            out.first_ns = out.first_ns.min(sent);
            outstanding += 1;
        }
        if outstanding == 0 && timers.is_empty() {
            break;
        }
        if sh.stop.load(SeqCst)
            || (now >= sh.deadline_ns && outstanding > 0 && now >= sh.deadline_ns + 2_000_000_000)
        {
            out.timed_out = true;
            break;
        }
        // until the next think time ends (to the nanosecond: `epoll_pwait2`), at most 20 ms
        let timeout_ns = timers
            .peek()
            .map_or(20_000_000, |&Reverse((due, _))| due.saturating_sub(now))
            .min(20_000_000);
        let n = ep.wait_ns(&mut evs, timeout_ns)?;
        for ev in &evs[..n] {
            let k = ev.u64 as usize;
            let c = &mut conns[k];
            loop {
                match (&c.sock).read(&mut c.buf[c.got..]) {
                    Ok(0) => {
                        return Err(NativeError(format!(
                            "client {}: the server closed the connection",
                            c.id
                        )))
                    }
                    Ok(m) => {
                        c.got += m;
                        if c.got < REQUEST {
                            continue;
                        }
                        c.got = 0;
                        let t = sh.now();
                        let id = u32::from_le_bytes(c.buf[0..4].try_into().unwrap_or_default());
                        let seq = u32::from_le_bytes(c.buf[4..8].try_into().unwrap_or_default());
                        match c.outstanding {
                            Some(sent) if id == c.id && seq == c.seq => {
                                out.latencies_ns.push(t.saturating_sub(sent));
                                out.answered += 1;
                                out.last_ns = out.last_ns.max(t);
                                c.outstanding = None;
                                outstanding -= 1;
                                let think = c.think(sh.think_ns);
                                timers.push(Reverse((t + think, k)));
                                // churn: the client closes after its k-th answer and reconnects
                                // (while queries are left to send)
                                if let Some((per, addr)) = sh.churn {
                                    if c.seq % per.max(1) == 0 && sh.budget.load(SeqCst) > 0 {
                                        c.sock = reconnect(addr, c.id)?;
                                        c.got = 0;
                                        ep.add_level(c.sock.as_raw_fd(), k as u64)?;
                                        out.reconnects += 1;
                                        break;
                                    }
                                }
                            }
                            _ => out.bad += 1,
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(NativeError(format!("client {}: read: {e}", c.id))),
                }
            }
        }
    }
    out.switches = super::bench::own_switches().minus(sw0);
    Ok(out)
}
