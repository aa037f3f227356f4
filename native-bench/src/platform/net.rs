//! The native event world: `herdlab_core`'s event-driven operations on real loopback TCP sockets and
//! real epoll instances (Linux only).
//!
//! | operation | here (the simulator's meaning: `herdlab_core::sim::net`) |
//! |---|---|
//! | `AcceptNb(l)` | `accept4(listener l, SOCK_NONBLOCK \| SOCK_CLOEXEC)` → `Conn(id)` (a new id in the connection table), `EAGAIN` → `Again` |
//! | `Accept(l)` | the same on a blocking listener (`blocking`): sleeps until a connection |
//! | `EpollAdd{ep, Listener(l), Level}` | `epoll_ctl(ADD, EPOLLIN)` |
//! | `EpollAdd{ep, Listener(l), LevelExclusive}` | `epoll_ctl(ADD, EPOLLIN \| EPOLLEXCLUSIVE)` (Linux 4.5+) |
//! | `EpollAdd{ep, Conn(c), Edge}` | `epoll_ctl(ADD, EPOLLIN \| EPOLLET \| EPOLLRDHUP)`; `EEXIST` is ignored, as the simulator ignores a second ADD |
//! | `EpollDel{ep, fd}` | `epoll_ctl(DEL)`; `ENOENT` is ignored |
//! | `EpollWait{ep, timeout}` | `epoll_wait` (512 events): `Events(Ready{listener, conns})`; the readable connections are kept, in order, in the thread's harvest for `ReadNext`. `None` waits forever (internally in slices of [`SLICE`]); `Some(ns)` is rounded up to whole milliseconds; only an expired *machine* timeout returns an empty `Events` |
//! | `ReadNext` | read one request from the next harvested connection: `Request(c)`, or `Eof(c)` after `read` = 0 or `ECONNRESET` (the descriptor is closed, so it leaves every epoll), or `Again` |
//! | `Recv(c)` | the same, blocking (`blocking`'s connections are blocking sockets) |
//! | `Respond(c)` | `write` the fixed response |
//! | `Load`, `Store`, `Cas`, `FetchAdd`, `Swap` | two `AtomicU32` words, `SeqCst` (word 0 is nginx's accept mutex) |
//! | `Work(ns)` | a busy spin ([`spin_for`]) |
//!
//! One world per run: one listening socket bound to `127.0.0.1:0` (the kernel picks the port) or
//! to the port asked for ([`Listen`]; a taken one is refused with a message naming it), or
//! with `reuseport` one per worker, each with `SO_REUSEPORT`, all bound to the same port before any
//! of them listens (a port asked for is first probed without `SO_REUSEPORT`, so that this run never
//! joins another program's group: [`check_port_free`]). Overflows of the listen queue are the
//! kernel's `TcpExt` counters ([`ListenCounters`]). Epoll instances: one per worker, one shared (`shared-epoll`), none (`blocking`).
//!
//! # Connections
//! A connection's id is its index in the world's table, given at `accept4`. The slot holds the
//! descriptor and a state (`open`, `busy` while one thread reads or writes it, `closed`). A thread
//! that finds it busy waits for the other to finish (a shared epoll may report a connection to
//! another worker while its first reader is still at it), so a descriptor is closed only by the
//! thread that holds the slot and is never reused under another thread's feet.
//!
//! # Requests
//! The load generator's requests are [`NetSpec::request_size`] bytes; the first 8 are the client's
//! clock (ns since the world's epoch, the same `Instant`) when its `connect` returned, the next 4 the
//! request's number on the connection. When a worker reads request 0 it records the accept latency
//! (its `accept4` return time minus the client's connect time) in its [`LogHistogram`].
//!
//! # Wakeup accounting ([`WakeCounts`], the simulator's definitions)
//! Around every blocking call (`epoll_wait`, a blocking `accept`, a blocking `read`) the thread reads
//! its voluntary context switches (`getrusage(RUSAGE_THREAD)`'s `ru_nvcsw`); `d` is the difference.
//! Every switch is one sleep ended by a wakeup, so `wakeups += d`. For a call that returned something
//! to the machine, `d − 1` of them were wasted inside the kernel (woken, re-polled, found nothing, slept
//! again) and the last one is useful if the thread accepts, reads or works before its next sleep, and
//! wasted otherwise (`accept4` gave `EAGAIN`). An expired machine timeout is one timer wakeup (and
//! `d − 1` wasted). A return that only this platform asked for (the slice, the stop) is not a wakeup.
//!
//! # Bounds
//! Every wait is bounded by [`SLICE`]; the stop is delivered at once: an `eventfd` in every epoll
//! instance is made readable and a blocking listener is shut down. Connections are bounded by the
//! table's size; each `read` of the rest of a partial request, and each `write`, waits at most
//! [`IO_TIMEOUT`].

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use herdlab_core::histogram::LogHistogram;
use herdlab_core::op::{
    CondId, EpId, Fd, Interest, ListenerId, MutexId, Op, OpResult, Ready, SemId, WakeCount, Word,
};
use herdlab_core::trace::Kind;

use super::native::{own_nvcsw, spin_for, NativeError, Padded};

/// The longest one internal wait lasts before the thread looks at the stop flag again.
pub const SLICE: Duration = Duration::from_secs(1);
/// The longest the rest of a partial request, a response's `write`, or a busy connection may take.
pub const IO_TIMEOUT: Duration = Duration::from_secs(2);
/// Events one `epoll_wait` may return (nginx: 512).
pub const MAX_EVENTS: usize = 512;
/// The listening sockets' backlog by default (capped by `net.core.somaxconn`).
pub const BACKLOG: i32 = 4096;
/// The largest backlog a caller may ask for (the kernel caps it at `net.core.somaxconn`).
pub const MAX_BACKLOG: u32 = 65_535;
/// The smallest request: the client's connect time (8 bytes) and the request's number (4).
pub const MIN_REQUEST: usize = 12;

const LISTENER_TAG: u64 = 1 << 62;
const STOP_TAG: u64 = u64::MAX;

/// A slot's states (a fresh slot is 0: never accepted).
const OPEN: u32 = 1;
const BUSY: u32 = 2;
const CLOSED: u32 = 3;

fn err(msg: impl Into<String>) -> NativeError {
    NativeError(msg.into())
}

/// How the listening socket is shared: how many listeners and epoll instances, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sockets {
    /// Listening sockets (one, or one per worker with `reuseport`).
    pub listeners: u32,
    /// Epoll instances (none for blocking acceptors).
    pub epolls: u32,
    /// Every listener has `SO_REUSEPORT` and binds the same port.
    pub reuseport: bool,
    /// Blocking listeners (a blocking `accept`, blocking connections).
    pub blocking: bool,
}

/// What a world needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetSpec {
    /// How the listening socket is shared.
    pub sockets: Sockets,
    /// Worker threads (one counter slot each).
    pub workers: u32,
    /// Connections the table can hold (every accepted connection takes one slot for the run).
    pub max_conns: u32,
    /// Bytes of each request, at least [`MIN_REQUEST`].
    pub request_size: usize,
    /// Bytes of each response.
    pub response_size: usize,
}

#[derive(Debug, Default)]
struct ConnSlot {
    state: AtomicU32,
    fd: AtomicI32,
    accepted_ns: AtomicU64,
}

/// What other threads may read of a worker while it runs.
#[derive(Debug, Default)]
pub struct NetSlot {
    tid: AtomicI32,
    in_wait: AtomicBool,
    waits: AtomicU64,
}

impl NetSlot {
    /// The thread's kernel id, 0 before it started.
    pub fn tid(&self) -> i32 {
        self.tid.load(SeqCst)
    }
    /// Whether the thread is inside a blocking call.
    pub fn in_wait(&self) -> bool {
        self.in_wait.load(SeqCst)
    }
    /// How many blocking calls it has entered.
    pub fn waits(&self) -> u64 {
        self.waits.load(SeqCst)
    }
}

/// The sockets, epoll instances, connection table and words of one run.
#[derive(Debug)]
pub struct NetWorld {
    spec: NetSpec,
    listeners: Vec<OwnedFd>,
    addr: SocketAddr,
    epolls: Vec<OwnedFd>,
    stop_fd: OwnedFd,
    words: [Padded<AtomicU32>; 2],
    conns: Box<[ConnSlot]>,
    next_conn: AtomicU32,
    closed: AtomicU32,
    last_close_ns: AtomicU64,
    started: AtomicU32,
    stop: AtomicBool,
    slots: Box<[Padded<NetSlot>]>,
    response: Box<[u8]>,
    epoch: Instant,
    failure: Mutex<Option<String>>,
}

/// Where the listeners listen and how long their accept queue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listen {
    /// The port on `127.0.0.1`; 0: a free one the kernel picks.
    pub port: u16,
    /// The backlog asked of `listen(2)` (the kernel caps it at `net.core.somaxconn`, see
    /// [`effective_backlog`]).
    pub backlog: u32,
}

impl Default for Listen {
    /// A free port, the default [`BACKLOG`].
    fn default() -> Self {
        Listen {
            port: 0,
            backlog: BACKLOG as u32,
        }
    }
}

impl NetWorld {
    /// Bind the listener(s) on `127.0.0.1` (the kernel picks the port), create the epoll instances
    /// and the stop `eventfd`.
    pub fn new(spec: NetSpec) -> Result<Self, NativeError> {
        Self::with_listen(spec, Listen::default())
    }

    /// [`NetWorld::new`] on `listen`'s port and backlog. A taken port is refused with a message
    /// naming it (see [`bind_loopback`]); with `reuseport`, a port any other socket holds is
    /// refused before binding ([`check_port_free`]), since the kernel would let this run's
    /// `SO_REUSEPORT` listeners join another program's group of the same user.
    pub fn with_listen(spec: NetSpec, listen: Listen) -> Result<Self, NativeError> {
        if spec.request_size < MIN_REQUEST {
            return Err(err(format!(
                "requests of {} bytes cannot carry the client's clock; at least {MIN_REQUEST}",
                spec.request_size
            )));
        }
        let workers = spec.workers.max(1);
        // refused up front when the open-file limit cannot hold even the world's own
        // descriptors and one connection (both ends), rather than failing midway
        let fds = 3 + u64::from(spec.sockets.listeners) + u64::from(spec.sockets.epolls) + 1 + 2;
        if let (Some(soft), hard) = super::limits::open_files() {
            if soft < fds {
                return Err(err(format!(
                    "this run needs at least {fds} open files (stdio, {} listener(s), {} epoll \
                     instance(s), the stop eventfd, one connection's two ends), and {}",
                    spec.sockets.listeners,
                    spec.sockets.epolls,
                    super::limits::open_files_advice(soft, hard, fds)
                )));
            }
        }
        let Sockets {
            blocking,
            reuseport,
            ..
        } = spec.sockets;
        let n_listeners = spec.sockets.listeners as usize;
        if listen.backlog == 0 || listen.backlog > MAX_BACKLOG {
            return Err(err(format!(
                "backlog: {} is out of range; allowed 1-{MAX_BACKLOG}",
                listen.backlog
            )));
        }
        if reuseport && listen.port != 0 {
            check_port_free(listen.port)?;
        }
        let mut listeners = Vec::with_capacity(n_listeners);
        let mut port = listen.port;
        for i in 0..n_listeners {
            let fd = bind_loopback(port, reuseport, !blocking).map_err(|e| match i {
                0 => e,
                _ => err(format!("listener {i}: {}", e.0)),
            })?;
            if i == 0 {
                port = sys::local_port(&fd).map_err(|e| err(format!("getsockname(): {e}")))?;
            }
            if blocking {
                sys::set_rcvtimeo(&fd, SLICE)
                    .map_err(|e| err(format!("setsockopt(SO_RCVTIMEO): {e}")))?;
            }
            listeners.push(fd);
        }
        // every member bound before any listens (SO_REUSEPORT groups form at listen time)
        for (i, fd) in listeners.iter().enumerate() {
            sys::listen(fd, listen.backlog as i32)
                .map_err(|e| err(format!("listen() of listener {i}: {e}")))?;
        }
        let stop_fd = sys::eventfd().map_err(|e| err(format!("eventfd(): {e}")))?;
        let n_epolls = spec.sockets.epolls as usize;
        let mut epolls = Vec::with_capacity(n_epolls);
        for _ in 0..n_epolls {
            let ep = sys::epoll_create().map_err(|e| err(format!("epoll_create1(): {e}")))?;
            sys::epoll_ctl(
                &ep,
                libc::EPOLL_CTL_ADD,
                stop_fd.as_raw_fd(),
                libc::EPOLLIN as u32,
                STOP_TAG,
            )
            .map_err(|e| err(format!("epoll_ctl(ADD, eventfd): {e}")))?;
            epolls.push(ep);
        }
        Ok(NetWorld {
            spec,
            listeners,
            addr: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)),
            epolls,
            stop_fd,
            words: Default::default(),
            conns: (0..spec.max_conns).map(|_| ConnSlot::default()).collect(),
            next_conn: AtomicU32::new(0),
            closed: AtomicU32::new(0),
            last_close_ns: AtomicU64::new(0),
            started: AtomicU32::new(0),
            stop: AtomicBool::new(false),
            slots: (0..workers).map(|_| Padded::default()).collect(),
            response: vec![b'r'; spec.response_size].into_boxed_slice(),
            epoch: Instant::now(),
            failure: Mutex::new(None),
        })
    }

    /// The shape.
    pub fn spec(&self) -> &NetSpec {
        &self.spec
    }
    /// The listeners' address (`127.0.0.1:port`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
    /// Nanoseconds since the world was made (the clock clients put in their requests).
    pub fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
    /// A worker's slot.
    pub fn slot(&self, i: usize) -> &NetSlot {
        &self.slots[i].0
    }
    /// Worker slots.
    pub fn workers(&self) -> usize {
        self.slots.len()
    }
    /// Connections accepted so far.
    pub fn accepted(&self) -> u32 {
        self.next_conn.load(SeqCst)
    }
    /// Connections closed after the client's EOF so far.
    pub fn closed(&self) -> u32 {
        self.closed.load(SeqCst)
    }
    /// When the last connection was closed (ns since the epoch; 0 before the first).
    pub fn last_close_ns(&self) -> u64 {
        self.last_close_ns.load(SeqCst)
    }
    /// Workers that have reached their first blocking call (they start in turn, 0 first).
    pub fn started(&self) -> u32 {
        self.started.load(SeqCst)
    }
    /// A word's value.
    pub fn load(&self, w: Word) -> Option<u32> {
        self.word(w).ok().map(|a| a.load(SeqCst))
    }
    fn word(&self, w: Word) -> Result<&AtomicU32, NativeError> {
        self.words
            .get(w.0 as usize)
            .map(|p| &p.0)
            .ok_or_else(|| err(format!("word {} does not exist in the event world", w.0)))
    }
    fn listener(&self, l: ListenerId) -> Result<RawFd, NativeError> {
        self.listeners
            .get(l.0 as usize)
            .map(|f| f.as_raw_fd())
            .ok_or_else(|| err(format!("listener {} does not exist", l.0)))
    }
    fn epoll(&self, ep: EpId) -> Result<&OwnedFd, NativeError> {
        self.epolls
            .get(ep.0 as usize)
            .ok_or_else(|| err(format!("epoll instance {} does not exist", ep.0)))
    }
    fn conn(&self, c: u32) -> Result<&ConnSlot, NativeError> {
        self.conns
            .get(c as usize)
            .ok_or_else(|| err(format!("connection {c} does not exist")))
    }

    /// Whether the run is over (stopped, or failed).
    pub fn stopped(&self) -> bool {
        self.stop.load(SeqCst)
    }

    /// End the run: every worker returns from its wait at once and leaves its loop.
    pub fn stop(&self) {
        if self.stop.swap(true, SeqCst) {
            return;
        }
        sys::eventfd_signal(&self.stop_fd);
        if self.spec.sockets.blocking {
            for l in &self.listeners {
                sys::shutdown(l.as_raw_fd(), libc::SHUT_RDWR);
            }
        }
    }

    /// Record an error (the first is kept) and stop.
    pub fn fail(&self, why: &str) {
        {
            let mut f = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
            if f.is_none() {
                *f = Some(why.to_string());
            }
        }
        self.stop();
    }

    /// The first error recorded.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Take connection `c`'s slot for one read or write. `None`: not open (closed, or never
    /// accepted). Waits (bounded) while another thread holds it.
    fn claim(&self, c: u32) -> Result<Option<(&ConnSlot, RawFd)>, NativeError> {
        let s = self.conn(c)?;
        let start = Instant::now();
        loop {
            match s.state.compare_exchange(OPEN, BUSY, SeqCst, SeqCst) {
                Ok(_) => return Ok(Some((s, s.fd.load(SeqCst)))),
                Err(BUSY) => {
                    if start.elapsed() > IO_TIMEOUT {
                        return Err(err(format!(
                            "connection {c} stayed busy for {} s",
                            IO_TIMEOUT.as_secs()
                        )));
                    }
                    std::thread::yield_now();
                }
                Err(_) => return Ok(None),
            }
        }
    }

    fn release(&self, s: &ConnSlot) {
        s.state.store(OPEN, SeqCst);
    }

    /// Close a claimed connection after its EOF.
    fn close_claimed(&self, s: &ConnSlot, fd: RawFd) {
        s.fd.store(-1, SeqCst);
        sys::close(fd);
        s.state.store(CLOSED, SeqCst);
        self.closed.fetch_add(1, SeqCst);
        self.last_close_ns.fetch_max(self.now_ns(), SeqCst);
    }
}

impl Drop for NetWorld {
    fn drop(&mut self) {
        for s in self.conns.iter() {
            if matches!(s.state.load(SeqCst), OPEN | BUSY) {
                let fd = s.fd.swap(-1, SeqCst);
                if fd >= 0 {
                    sys::close(fd);
                }
                s.state.store(CLOSED, SeqCst);
            }
        }
    }
}

/// Wakeups of one thread, the simulator's definitions (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WakeCounts {
    /// Sleeps ended by a wakeup.
    pub wakeups: u64,
    /// Of those, wakeups that found nothing to do.
    pub wasted: u64,
    /// Wakeups by an expired machine timeout.
    pub timer: u64,
    /// The last wakeup is not judged yet: useful if work follows before the next sleep.
    pending: bool,
}

impl WakeCounts {
    /// The thread slept `d` times in a call: a wakeup not followed by work was wasted.
    fn slept(&mut self, d: u64) {
        if d > 0 && self.pending {
            self.wasted += 1;
            self.pending = false;
        }
    }
    /// A blocking call returned something to the machine after `d` voluntary switches.
    pub fn returned(&mut self, d: u64) {
        self.slept(d);
        if d > 0 {
            self.wakeups += d;
            self.wasted += d - 1;
            self.pending = true;
        }
    }
    /// A blocking call returned only because this platform's slice ran out (or the stop came):
    /// the last switch was not a wakeup of the machine's; any before it were wasted.
    pub fn internal(&mut self, d: u64) {
        self.slept(d);
        let extra = d.saturating_sub(1);
        self.wakeups += extra;
        self.wasted += extra;
    }
    /// The machine's timeout expired after `d` switches: one timer wakeup (`d − 1` wasted).
    pub fn timed_out(&mut self, d: u64) {
        self.slept(d);
        if d > 0 {
            self.wakeups += d;
            self.wasted += d - 1;
            self.timer += 1;
        }
    }
    /// The thread did something useful (accepted, read a request or an EOF, worked, answered).
    pub fn work(&mut self) {
        self.pending = false;
    }
}

/// What one worker thread measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetThreadReport {
    /// Its wakeups.
    pub wakes: WakeCounts,
    /// Connections it accepted.
    pub accepted: u64,
    /// `accept4` calls that returned `EAGAIN`.
    pub eagain: u64,
    /// Requests it read.
    pub requests_read: u64,
    /// Responses it wrote.
    pub responses: u64,
    /// EOFs it read (connections it closed).
    pub eofs: u64,
    /// `ReadNext`/`Recv` that found nothing.
    pub reads_empty: u64,
    /// `epoll_wait` returns with events.
    pub wait_returns: u64,
    /// Accept latencies (client `connect` returned → server `accept4` returned), ns.
    pub latency: LogHistogram,
    /// Time it held the accept mutex (word 0 non-zero, from its CAS 0→pid to its CAS pid→0), ns.
    pub mutex_hold_ns: u64,
    /// Its CPU time (`CLOCK_THREAD_CPUTIME_ID`) while it ran, ns.
    pub busy_ns: u64,
    /// Its voluntary context switches while it ran, all of them.
    pub nvcsw: u64,
    /// Its involuntary context switches (preemptions) while it ran.
    pub nivcsw: u64,
}

/// One worker's executor of operations in a [`NetWorld`], made on the thread that uses it.
pub struct NetThread<'w> {
    world: &'w NetWorld,
    index: usize,
    harvest: VecDeque<u32>,
    events: Vec<libc::epoll_event>,
    buf: Vec<u8>,
    started: bool,
    lock_since: Option<u64>,
    cpu_start: u64,
    nvcsw_start: u64,
    nivcsw_start: u64,
    r: NetThreadReport,
    /// The thread's recorder with `--trace` (`crate::trace`), else `None`.
    trace: Option<crate::trace::Recorder>,
}

/// Why an event-world thread stopped before an operation completed.
#[derive(Debug)]
pub enum NetStop {
    /// The run was stopped while the thread waited.
    Stopped,
    /// The operation failed.
    Failed(NativeError),
}

impl From<NativeError> for NetStop {
    fn from(e: NativeError) -> Self {
        NetStop::Failed(e)
    }
}

/// What `None` from a waiting call means: the run was stopped.
fn or_stopped(r: Option<OpResult>) -> Result<OpResult, NetStop> {
    r.ok_or(NetStop::Stopped)
}

/// The event world's primitives: the memory operations on its two words (word 0's holder timed),
/// the busy work, and the network operations (`other`). The sleeping primitives of the lock world
/// (semaphores, futexes, mutexes, condvars) are not operations of the event world.
impl herdlab_core::machine::steps::Ops for NetThread<'_> {
    type Error = NetStop;

    fn load(&mut self, x: Word) -> Result<u32, NetStop> {
        Ok(self.world.word(x)?.load(SeqCst))
    }
    fn store(&mut self, x: Word, v: u32) -> Result<(), NetStop> {
        self.world.word(x)?.store(v, SeqCst);
        self.stored(x, v);
        Ok(())
    }
    fn cas(&mut self, x: Word, expected: u32, new: u32) -> Result<bool, NetStop> {
        let ok = self
            .world
            .word(x)?
            .compare_exchange(expected, new, SeqCst, SeqCst)
            .is_ok();
        if ok {
            self.wrote(x, expected, new);
        }
        Ok(ok)
    }
    fn fetch_add(&mut self, x: Word, d: u32) -> Result<u32, NetStop> {
        let old = self.world.word(x)?.fetch_add(d, SeqCst);
        self.wrote(x, old, old.wrapping_add(d));
        Ok(old)
    }
    fn swap(&mut self, x: Word, v: u32) -> Result<u32, NetStop> {
        let old = self.world.word(x)?.swap(v, SeqCst);
        self.wrote(x, old, v);
        Ok(old)
    }
    fn sem_wait(&mut self, s: SemId) -> Result<(), NetStop> {
        self.not_here(Op::SemWait(s))
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), NetStop> {
        self.not_here(Op::SemPost(s))
    }
    fn futex_wait(&mut self, word: Word, expected: u32) -> Result<bool, NetStop> {
        self.not_here(Op::FutexWait { word, expected })
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NetStop> {
        self.not_here(Op::FutexWake(w, n))
    }
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NetStop> {
        self.not_here(Op::MutexLock(m))
    }
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NetStop> {
        self.not_here(Op::MutexUnlock(m))
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NetStop> {
        self.not_here(Op::CondWait(c, m))
    }
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), NetStop> {
        self.not_here(Op::CondNotify(c, n))
    }
    fn work(&mut self, ns: u64) -> Result<(), NetStop> {
        self.r.wakes.work();
        crate::trace::record(&mut self.trace, Kind::Work, None);
        spin_for(ns);
        Ok(())
    }
    fn pause(&mut self) -> Result<(), NetStop> {
        std::hint::spin_loop();
        Ok(())
    }
    fn sched_yield(&mut self) -> Result<(), NetStop> {
        std::thread::yield_now();
        Ok(())
    }
    fn now(&mut self) -> Result<u64, NetStop> {
        Ok(self.world.now_ns())
    }
    fn other(&mut self, op: Op) -> Result<OpResult, NetStop> {
        if self.trace.is_some() {
            return self.other_traced(op);
        }
        self.other_untraced(op)
    }
}

impl NetThread<'_> {
    /// [`NetThread::other_untraced`], recording (`--trace`) what the thread did: a wait that
    /// slept (its sleep when it began, its wake when it returned, and the wakeups it wasted), an
    /// accept (the connection's id), an `EAGAIN`.
    fn other_traced(&mut self, op: Op) -> Result<OpResult, NetStop> {
        let t0 = crate::trace::now_ns();
        let before = self.r.wakes;
        let r = self.other_untraced(op);
        let after = self.r.wakes;
        if let Some(rec) = &mut self.trace {
            if after.wakeups > before.wakeups {
                rec.at(t0, Kind::Sleep, None);
                for _ in before.wasted..after.wasted {
                    rec.now(Kind::Wasted, None);
                }
                rec.now(Kind::Wake, None);
            } else if after.wasted > before.wasted {
                for _ in before.wasted..after.wasted {
                    rec.at(t0, Kind::Wasted, None);
                }
            }
            match (&op, &r) {
                (Op::AcceptNb(_) | Op::Accept(_), Ok(OpResult::Conn(id))) => {
                    rec.now(Kind::Accept, Some(*id))
                }
                (Op::AcceptNb(_), Ok(OpResult::Again)) => rec.now(Kind::Eagain, None),
                _ => {}
            }
        }
        r
    }

    fn other_untraced(&mut self, op: Op) -> Result<OpResult, NetStop> {
        let w = self.world;
        Ok(match op {
            Op::AcceptNb(l) => self.accept_nb(l)?,
            Op::Accept(l) => or_stopped(self.accept_blocking(l)?)?,
            Op::EpollAdd { ep, fd, interest } => self.epoll_add(ep, fd, interest)?,
            Op::EpollDel { ep, fd } => self.epoll_del(ep, fd)?,
            Op::EpollWait { ep, timeout_ns } => or_stopped(self.epoll_wait(ep, timeout_ns)?)?,
            Op::ReadNext => match self.harvest.pop_front() {
                Some(c) => self.read_request(c, false)?.unwrap_or(OpResult::Again),
                None => {
                    self.r.reads_empty += 1;
                    OpResult::Again
                }
            },
            Op::Recv(c) => match self.read_request(c, true)? {
                Some(r) => r,
                None if w.stopped() => return Err(NetStop::Stopped),
                // not open: the simulator answers a read of an unknown connection with EOF
                None => OpResult::Eof(c),
            },
            Op::Respond(c) => self.respond(c)?,
            other => return self.not_here(other),
        })
    }
}

/// Whether this build can run the event world.
pub fn supported() -> Result<(), NativeError> {
    super::native::supported()
}

/// What to do about a port that cannot be had (the end of every message about one).
const PICK_ANOTHER: &str = "pick another --port, or --port 0 for a free one the kernel picks";

/// A TCP socket bound to `127.0.0.1:port` (0: the kernel picks a free port), not yet listening:
/// `SO_REUSEADDR` (a port whose earlier connections linger in `TIME_WAIT` can be bound again; on
/// Linux it never lets two sockets listen on one port), `SO_REUSEPORT` with `reuseport`,
/// `O_NONBLOCK` with `nonblocking`. A failed bind says what the kernel said, naming the port:
/// `EADDRINUSE`: the port is taken (another socket listens on it); `EACCES`: a privileged port
/// (below `net.ipv4.ip_unprivileged_port_start`); both with what to do instead.
///
/// `reuseport` alone does not notice a port held by another `SO_REUSEPORT` socket of the same
/// user: the kernel lets this one join it. Call [`check_port_free`] first.
pub fn bind_loopback(
    port: u16,
    reuseport: bool,
    nonblocking: bool,
) -> Result<OwnedFd, NativeError> {
    let fd = sys::tcp_socket(nonblocking).map_err(|e| err(format!("socket(): {e}")))?;
    sys::set_int(&fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1)
        .map_err(|e| err(format!("setsockopt(SO_REUSEADDR): {e}")))?;
    if reuseport {
        sys::set_int(&fd, libc::SOL_SOCKET, libc::SO_REUSEPORT, 1)
            .map_err(|e| err(format!("setsockopt(SO_REUSEPORT): {e}")))?;
    }
    sys::bind_loopback(&fd, port).map_err(|e| bind_error(port, &e))?;
    Ok(fd)
}

/// Refuse `port` (not 0) when any socket on this machine holds it on `127.0.0.1` or a wildcard
/// address: a probe socket without `SO_REUSEPORT` binds it and is closed at once. For a caller about
/// to bind `port` with `SO_REUSEPORT`, where the bind itself would succeed on a port another
/// program's `SO_REUSEPORT` listener of the same user holds, and the kernel would then share that
/// program's connections with this one.
pub fn check_port_free(port: u16) -> Result<(), NativeError> {
    let probe = sys::tcp_socket(true).map_err(|e| err(format!("socket(): {e}")))?;
    sys::set_int(&probe, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1)
        .map_err(|e| err(format!("setsockopt(SO_REUSEADDR): {e}")))?;
    match sys::bind_loopback(&probe, port) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EADDRINUSE) => Err(taken(
            port,
            " (when it has SO_REUSEPORT and this user's id, this run's SO_REUSEPORT bind would \
             even succeed and share its connections)",
        )),
        Err(e) => Err(bind_error(port, &e)),
    }
}

/// A blocking listener on `127.0.0.1:port` (0: a free port the kernel picks) with `backlog` (capped
/// by `net.core.somaxconn`): [`bind_loopback`]'s clear errors for a server that wants a plain
/// [`std::net::TcpListener`].
pub fn listen_loopback(port: u16, backlog: u32) -> Result<std::net::TcpListener, NativeError> {
    let fd = bind_loopback(port, false, false)?;
    sys::listen(&fd, backlog.min(i32::MAX as u32) as i32)
        .map_err(|e| err(format!("listen(127.0.0.1:{port}): {e}")))?;
    Ok(std::net::TcpListener::from(fd))
}

/// `port` is taken (`note` added before what to do). Without "(os error 98)": the limits' generic
/// hint for it would only repeat this.
fn taken(port: u16, note: &str) -> NativeError {
    err(format!(
        "port {port} on 127.0.0.1 is taken: another socket listens on it (`ss -ltnp 'sport = \
         :{port}'` shows which program){note}; {PICK_ANOTHER}"
    ))
}

/// The message of a failed `bind(127.0.0.1:port)`.
fn bind_error(port: u16, e: &std::io::Error) -> NativeError {
    match e.raw_os_error() {
        Some(libc::EADDRINUSE) if port == 0 => err(format!(
            "bind(127.0.0.1:0): {e}: no free port is left (net.ipv4.ip_local_port_range is \
             exhausted): close other programs' connections, or wait a minute for TIME_WAIT to pass"
        )),
        Some(libc::EADDRINUSE) => taken(port, ""),
        Some(libc::EACCES) => err(format!(
            "bind(127.0.0.1:{port}): {e}: ports below {} (net.ipv4.ip_unprivileged_port_start) \
             need root or CAP_NET_BIND_SERVICE; {PICK_ANOTHER}",
            std::fs::read_to_string("/proc/sys/net/ipv4/ip_unprivileged_port_start")
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok())
                .unwrap_or(1024)
        )),
        _ => err(format!("bind(127.0.0.1:{port}): {e}; {PICK_ANOTHER}")),
    }
}

/// `net.core.somaxconn` (`/proc/sys/net/core/somaxconn`), the most a listen backlog can be;
/// `None` when it cannot be read.
pub fn somaxconn() -> Option<u32> {
    std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The backlog `listen(2)` gives for `asked`, and `net.core.somaxconn` when it cut it down
/// (`None`: not capped, or the limit cannot be read).
pub fn effective_backlog(asked: u32) -> (u32, Option<u32>) {
    match somaxconn() {
        Some(max) if asked > max => (max, Some(max)),
        _ => (asked, None),
    }
}

/// The kernel's counters of connections its listening sockets could not queue: `TcpExt`'s
/// `ListenOverflows` (an accept queue was full: a SYN or the handshake's last ACK was dropped, and
/// the client retransmits it a second or more later) and `ListenDrops` (every drop at a listening
/// socket, the overflows included). They count every listening socket of this network namespace,
/// not only one run's: a difference over a run is an upper bound on the run's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListenCounters {
    /// `TcpExt: ListenOverflows`.
    pub overflows: u64,
    /// `TcpExt: ListenDrops`.
    pub drops: u64,
}

impl ListenCounters {
    /// Read them from `/proc/net/netstat`; the error says why they cannot be known.
    pub fn read() -> Result<Self, String> {
        let text = std::fs::read_to_string("/proc/net/netstat")
            .map_err(|e| format!("/proc/net/netstat: {e}"))?;
        Self::parse(&text)
    }

    /// Parse `/proc/net/netstat`'s text: pairs of lines, a `Prefix:` line of names then one of
    /// values; the counters are `TcpExt`'s.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        while let Some(names) = lines.next() {
            let Some(values) = lines.next() else { break };
            let (Some(n), Some(v)) = (
                names.strip_prefix("TcpExt:"),
                values.strip_prefix("TcpExt:"),
            ) else {
                continue;
            };
            let (n, v): (Vec<&str>, Vec<&str>) = (
                n.split_whitespace().collect(),
                v.split_whitespace().collect(),
            );
            if n.len() != v.len() {
                return Err(format!(
                    "/proc/net/netstat: TcpExt has {} names and {} values",
                    n.len(),
                    v.len()
                ));
            }
            let get = |name: &str| -> Result<u64, String> {
                let i = n
                    .iter()
                    .position(|x| *x == name)
                    .ok_or_else(|| format!("/proc/net/netstat: TcpExt has no {name}"))?;
                v[i].parse().map_err(|_| {
                    format!(
                        "/proc/net/netstat: TcpExt {name} is '{}', not a count",
                        v[i]
                    )
                })
            };
            return Ok(ListenCounters {
                overflows: get("ListenOverflows")?,
                drops: get("ListenDrops")?,
            });
        }
        Err("/proc/net/netstat: no TcpExt lines".to_string())
    }

    /// The counts since `before` (a counter that went backwards, as after a namespace change,
    /// counts 0).
    pub fn since(self, before: ListenCounters) -> ListenCounters {
        ListenCounters {
            overflows: self.overflows.saturating_sub(before.overflows),
            drops: self.drops.saturating_sub(before.drops),
        }
    }
}

impl<'w> NetThread<'w> {
    /// The executor of the calling thread in worker slot `index`.
    pub fn new(world: &'w NetWorld, index: usize) -> Result<Self, NativeError> {
        if index >= world.workers() {
            return Err(err(format!(
                "worker slot {index} does not exist (the world has {})",
                world.workers()
            )));
        }
        // SAFETY: gettid(2) has no preconditions and cannot fail.
        let tid = unsafe { libc::gettid() };
        world.slot(index).tid.store(tid, SeqCst);
        Ok(NetThread {
            world,
            index,
            harvest: VecDeque::new(),
            events: vec![libc::epoll_event { events: 0, u64: 0 }; MAX_EVENTS],
            buf: vec![0; world.spec.request_size],
            started: false,
            lock_since: None,
            cpu_start: sys::thread_cpu_ns(),
            nvcsw_start: own_nvcsw(),
            nivcsw_start: sys::own_nivcsw(),
            r: NetThreadReport::default(),
            trace: crate::trace::Recorder::start(index, world.workers()),
        })
    }

    /// What the thread measured so far (reads its CPU time and switches now: call it on the thread).
    pub fn report(&self) -> NetThreadReport {
        let mut r = self.r.clone();
        r.busy_ns = sys::thread_cpu_ns().saturating_sub(self.cpu_start);
        r.nvcsw = own_nvcsw().saturating_sub(self.nvcsw_start);
        r.nivcsw = sys::own_nivcsw().saturating_sub(self.nivcsw_start);
        r
    }

    fn slot(&self) -> &'w NetSlot {
        self.world.slot(self.index)
    }

    /// Before a blocking call: the first one lets the next worker start.
    fn enter_wait(&mut self) -> u64 {
        if !self.started {
            self.started = true;
            self.world.started.fetch_add(1, SeqCst);
        }
        let s = self.slot();
        s.waits.fetch_add(1, SeqCst);
        s.in_wait.store(true, SeqCst);
        own_nvcsw()
    }

    fn leave_wait(&self, before: u64) -> u64 {
        let d = own_nvcsw().saturating_sub(before);
        self.slot().in_wait.store(false, SeqCst);
        d
    }

    /// Execute one operation: the one executor (`herdlab_core::machine::steps::exec`, [`super::exec`])
    /// over this thread's `Ops`. `Ok(None)`: the run was stopped while the thread waited (the
    /// operation did not complete).
    pub fn exec(&mut self, op: Op) -> Result<Option<OpResult>, NativeError> {
        match super::exec(self, op) {
            Ok(r) => Ok(Some(r)),
            Err(NetStop::Stopped) => Ok(None),
            Err(NetStop::Failed(e)) => Err(e),
        }
    }

    /// The refusal of an operation the event world does not have.
    fn not_here<T>(&self, op: Op) -> Result<T, NetStop> {
        Err(NetStop::Failed(err(format!(
            "worker {}: {op:?} is not an operation of the event world",
            self.index
        ))))
    }

    /// A plain store to word 0: its holder's release (a store of 0) ends the hold it timed.
    fn stored(&mut self, x: Word, v: u32) {
        if x == Word(0) && v == 0 {
            if self.lock_since.is_some() {
                crate::trace::record(&mut self.trace, Kind::Unlock, Some(0));
            }
            if let Some(t) = self.lock_since.take() {
                self.r.mutex_hold_ns += self.world.now_ns().saturating_sub(t);
            }
        } else if x == Word(0) && self.lock_since.is_none() {
            self.lock_since = Some(self.world.now_ns());
            crate::trace::record(&mut self.trace, Kind::Lock, Some(0));
        }
    }

    /// Word 0 is the accept mutex: time it from 0 → pid to pid → 0.
    fn wrote(&mut self, x: Word, old: u32, new: u32) {
        if x != Word(0) {
            return;
        }
        if old == 0 && new != 0 {
            self.lock_since = Some(self.world.now_ns());
            crate::trace::record(&mut self.trace, Kind::Lock, Some(0));
        } else if old != 0 && new == 0 {
            crate::trace::record(&mut self.trace, Kind::Unlock, Some(0));
            if let Some(t) = self.lock_since.take() {
                self.r.mutex_hold_ns += self.world.now_ns().saturating_sub(t);
            }
        }
    }

    fn new_conn(&mut self, fd: RawFd, at_ns: u64) -> Result<OpResult, NativeError> {
        let w = self.world;
        let id = w.next_conn.fetch_add(1, SeqCst);
        let Some(s) = w.conns.get(id as usize) else {
            sys::close(fd);
            return Err(err(format!(
                "worker {}: connection {id} is past the table's {} slots (more connections than the load generator makes)",
                self.index,
                w.conns.len()
            )));
        };
        s.fd.store(fd, SeqCst);
        s.accepted_ns.store(at_ns, SeqCst);
        s.state.store(OPEN, SeqCst);
        self.r.accepted += 1;
        self.r.wakes.work();
        Ok(OpResult::Conn(id))
    }

    fn accept_nb(&mut self, l: ListenerId) -> Result<OpResult, NativeError> {
        let lfd = self.world.listener(l)?;
        loop {
            match sys::accept4(lfd, libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) {
                Ok(fd) => {
                    let now = self.world.now_ns();
                    return self.new_conn(fd, now);
                }
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {
                    self.r.eagain += 1;
                    return Ok(OpResult::Again);
                }
                // a connection reset before it was accepted, or a signal: try again
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::EINTR) | Some(libc::ECONNABORTED)
                    ) => {}
                Err(e) => {
                    return Err(err(format!(
                        "worker {}: accept4(listener {}): {e}",
                        self.index, l.0
                    )))
                }
            }
        }
    }

    fn accept_blocking(&mut self, l: ListenerId) -> Result<Option<OpResult>, NativeError> {
        let lfd = self.world.listener(l)?;
        loop {
            if self.world.stopped() {
                return Ok(None);
            }
            let before = self.enter_wait();
            let r = sys::accept4(lfd, libc::SOCK_CLOEXEC);
            let d = self.leave_wait(before);
            match r {
                Ok(fd) => {
                    let now = self.world.now_ns();
                    self.r.wakes.returned(d);
                    // a blocking read that still looks at the stop flag now and then
                    if let Err(e) = sys::set_rcvtimeo_raw(fd, SLICE) {
                        sys::close(fd);
                        return Err(err(format!("setsockopt(SO_RCVTIMEO): {e}")));
                    }
                    return self.new_conn(fd, now).map(Some);
                }
                Err(_) if self.world.stopped() => {
                    self.r.wakes.internal(d);
                    return Ok(None);
                }
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::EAGAIN) | Some(libc::EINTR) | Some(libc::ECONNABORTED)
                    ) =>
                {
                    // the slice ran out (SO_RCVTIMEO), or a signal
                    self.r.wakes.internal(d);
                }
                Err(e) => {
                    return Err(err(format!(
                        "worker {}: accept4(listener {}): {e}",
                        self.index, l.0
                    )))
                }
            }
        }
    }

    fn target(&self, fd: Fd) -> Result<(RawFd, u64), NativeError> {
        match fd {
            Fd::Listener(l) => Ok((self.world.listener(l)?, LISTENER_TAG | l.0 as u64)),
            Fd::Conn(c) => {
                let s = self.world.conn(c)?;
                let raw = s.fd.load(SeqCst);
                if raw < 0 {
                    return Err(err(format!(
                        "worker {}: connection {c} is not open",
                        self.index
                    )));
                }
                Ok((raw, c as u64))
            }
        }
    }

    fn epoll_add(&mut self, ep: EpId, fd: Fd, interest: Interest) -> Result<OpResult, NativeError> {
        let epfd = self.world.epoll(ep)?;
        let (raw, data) = self.target(fd)?;
        let events = match interest {
            Interest::Level => libc::EPOLLIN as u32,
            Interest::LevelExclusive => (libc::EPOLLIN | libc::EPOLLEXCLUSIVE) as u32,
            Interest::Edge => (libc::EPOLLIN | libc::EPOLLET | libc::EPOLLRDHUP) as u32,
        };
        match sys::epoll_ctl(epfd, libc::EPOLL_CTL_ADD, raw, events, data) {
            Ok(()) => Ok(OpResult::Done),
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => Ok(OpResult::Done),
            Err(e) => Err(err(format!(
                "worker {}: epoll_ctl(ep {}, ADD, {fd:?}, {interest:?}): {e}",
                self.index, ep.0
            ))),
        }
    }

    fn epoll_del(&mut self, ep: EpId, fd: Fd) -> Result<OpResult, NativeError> {
        let epfd = self.world.epoll(ep)?;
        let (raw, data) = match self.target(fd) {
            Ok(t) => t,
            // a closed connection has left every epoll already
            Err(_) if matches!(fd, Fd::Conn(_)) => return Ok(OpResult::Done),
            Err(e) => return Err(e),
        };
        match sys::epoll_ctl(epfd, libc::EPOLL_CTL_DEL, raw, 0, data) {
            Ok(()) => Ok(OpResult::Done),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(OpResult::Done),
            Err(e) => Err(err(format!(
                "worker {}: epoll_ctl(ep {}, DEL, {fd:?}): {e}",
                self.index, ep.0
            ))),
        }
    }

    fn epoll_wait(
        &mut self,
        ep: EpId,
        timeout_ns: Option<u64>,
    ) -> Result<Option<OpResult>, NativeError> {
        let w = self.world;
        let epfd = w.epoll(ep)?;
        let deadline = timeout_ns.map(|t| w.now_ns().saturating_add(t));
        let slice_ms = SLICE.as_millis() as u64;
        loop {
            if w.stopped() {
                return Ok(None);
            }
            let (ms, last) = match deadline {
                None => (slice_ms, false),
                Some(d) => {
                    let left = d.saturating_sub(w.now_ns());
                    let ms = left.div_ceil(1_000_000);
                    if ms <= slice_ms {
                        (ms, true)
                    } else {
                        (slice_ms, false)
                    }
                }
            };
            let before = self.enter_wait();
            let r = sys::epoll_wait(epfd, &mut self.events, ms as i32);
            let d = self.leave_wait(before);
            let n = match r {
                Ok(n) => n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {
                    self.r.wakes.internal(d);
                    continue;
                }
                Err(e) => {
                    return Err(err(format!(
                        "worker {}: epoll_wait(ep {}): {e}",
                        self.index, ep.0
                    )))
                }
            };
            let mut ready = Ready::default();
            let mut stop = false;
            for e in &self.events[..n] {
                let data = e.u64;
                if data == STOP_TAG {
                    stop = true;
                } else if data & LISTENER_TAG != 0 {
                    ready.listener = Some(ListenerId((data & 0xFF) as u8));
                } else {
                    self.harvest.push_back(data as u32);
                    ready.conns = ready.conns.saturating_add(1);
                }
            }
            if stop || w.stopped() {
                return Ok(None);
            }
            if !ready.is_empty() {
                self.r.wakes.returned(d);
                self.r.wait_returns += 1;
                return Ok(Some(OpResult::Events(ready)));
            }
            if last {
                // the machine's timeout expired
                self.r.wakes.timed_out(d);
                return Ok(Some(OpResult::Events(Ready::default())));
            }
            self.r.wakes.internal(d);
        }
    }

    /// Read one request (or the EOF) from connection `c`. `None`: nothing there (non-blocking), or
    /// the connection is not open, or the run stopped (blocking).
    fn read_request(&mut self, c: u32, blocking: bool) -> Result<Option<OpResult>, NativeError> {
        let w = self.world;
        let Some((slot, fd)) = w.claim(c)? else {
            self.r.reads_empty += 1;
            return Ok(None);
        };
        let size = w.spec.request_size;
        let mut got = 0usize;
        let started = Instant::now();
        let outcome = loop {
            let r = if blocking && got == 0 {
                let before = self.enter_wait();
                let r = sys::read(fd, &mut self.buf[..size]);
                let d = self.leave_wait(before);
                match &r {
                    Ok(_) => self.r.wakes.returned(d),
                    Err(e) if e.raw_os_error() == Some(libc::ECONNRESET) => {
                        self.r.wakes.returned(d)
                    }
                    Err(_) => self.r.wakes.internal(d),
                }
                r
            } else {
                sys::read(fd, &mut self.buf[got..size])
            };
            match r {
                Ok(0) => break ReadOutcome::Eof,
                Ok(k) => {
                    got += k;
                    if got == size {
                        break ReadOutcome::Request;
                    }
                }
                Err(e) => match e.raw_os_error() {
                    Some(libc::ECONNRESET) => break ReadOutcome::Eof,
                    Some(libc::EINTR) => {}
                    Some(libc::EAGAIN) if got == 0 && !blocking => break ReadOutcome::Nothing,
                    Some(libc::EAGAIN) if got == 0 => {
                        // the blocking read's slice ran out
                        if w.stopped() {
                            break ReadOutcome::Nothing;
                        }
                    }
                    Some(libc::EAGAIN) => {
                        // the rest of a partial request is on its way
                        if started.elapsed() > IO_TIMEOUT {
                            w.release(slot);
                            return Err(err(format!(
                                "worker {}: connection {c}: {got} of {size} request bytes after {} s",
                                self.index,
                                IO_TIMEOUT.as_secs()
                            )));
                        }
                        let _ = sys::poll_in(fd, 10);
                    }
                    _ => {
                        w.release(slot);
                        return Err(err(format!(
                            "worker {}: read(connection {c}): {e}",
                            self.index
                        )));
                    }
                },
            }
        };
        Ok(match outcome {
            ReadOutcome::Nothing => {
                w.release(slot);
                self.r.reads_empty += 1;
                None
            }
            ReadOutcome::Eof => {
                w.close_claimed(slot, fd);
                self.r.eofs += 1;
                self.r.wakes.work();
                Some(OpResult::Eof(c))
            }
            ReadOutcome::Request => {
                let sent = u64::from_le_bytes(self.buf[0..8].try_into().unwrap_or_default());
                let number = u32::from_le_bytes(self.buf[8..12].try_into().unwrap_or_default());
                if number == 0 {
                    let at = slot.accepted_ns.load(SeqCst);
                    self.r.latency.record(at.saturating_sub(sent));
                }
                w.release(slot);
                self.r.requests_read += 1;
                self.r.wakes.work();
                Some(OpResult::Request(c))
            }
        })
    }

    fn respond(&mut self, c: u32) -> Result<OpResult, NativeError> {
        let w = self.world;
        let Some((slot, fd)) = w.claim(c)? else {
            // the client went away meanwhile: nothing to answer
            return Ok(OpResult::Done);
        };
        let mut sent = 0usize;
        let started = Instant::now();
        let n = w.response.len();
        while sent < n {
            match sys::write(fd, &w.response[sent..]) {
                Ok(k) => sent += k,
                Err(e) => match e.raw_os_error() {
                    Some(libc::EINTR) => {}
                    Some(libc::EAGAIN) if started.elapsed() < IO_TIMEOUT => {
                        let _ = sys::poll_out(fd, 10);
                    }
                    // the client reset: its EOF will follow
                    Some(libc::EPIPE) | Some(libc::ECONNRESET) => break,
                    _ => {
                        w.release(slot);
                        return Err(err(format!(
                            "worker {}: write(connection {c}): {e}",
                            self.index
                        )));
                    }
                },
            }
        }
        w.release(slot);
        self.r.responses += 1;
        self.r.wakes.work();
        Ok(OpResult::Done)
    }
}

enum ReadOutcome {
    Nothing,
    Eof,
    Request,
}

/// Make the calling thread's sleeps precise (`prctl(PR_SET_TIMERSLACK, ns)`; the default is 50 µs):
/// the load generator's pacing and think times use it.
pub fn set_timer_slack_ns(ns: u64) {
    sys::set_timer_slack(ns);
}

mod sys {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
    use std::time::Duration;

    fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r)
        }
    }

    fn owned(r: libc::c_int) -> io::Result<OwnedFd> {
        let fd = cvt(r)?;
        // SAFETY: `fd` was just returned by a successful socket/epoll/eventfd call, so it is an
        // open descriptor that nothing else owns.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    pub fn tcp_socket(nonblocking: bool) -> io::Result<OwnedFd> {
        let mut ty = libc::SOCK_STREAM | libc::SOCK_CLOEXEC;
        if nonblocking {
            ty |= libc::SOCK_NONBLOCK;
        }
        // SAFETY: socket(2) takes plain integers and returns a new descriptor or -1.
        owned(unsafe { libc::socket(libc::AF_INET, ty, 0) })
    }

    pub fn set_int(fd: &OwnedFd, level: i32, name: i32, v: libc::c_int) -> io::Result<()> {
        // SAFETY: `fd` is open (borrowed); the option value points to a c_int on this stack frame,
        // and its size is passed.
        cvt(unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                level,
                name,
                (&v as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        })
        .map(drop)
    }

    pub fn set_rcvtimeo_raw(fd: RawFd, d: Duration) -> io::Result<()> {
        let tv = libc::timeval {
            tv_sec: d.as_secs() as libc::time_t,
            tv_usec: d.subsec_micros() as libc::suseconds_t,
        };
        // SAFETY: `fd` is an open socket the caller owns; the value is a timeval on this stack
        // frame, and its size is passed.
        cvt(unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&tv as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        })
        .map(drop)
    }

    pub fn set_rcvtimeo(fd: &OwnedFd, d: Duration) -> io::Result<()> {
        set_rcvtimeo_raw(fd.as_raw_fd(), d)
    }

    pub fn bind_loopback(fd: &OwnedFd, port: u16) -> io::Result<()> {
        let addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(std::net::Ipv4Addr::LOCALHOST).to_be(),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: `fd` is open; `addr` is a sockaddr_in on this stack frame and its size is passed.
        cvt(unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        })
        .map(drop)
    }

    pub fn listen(fd: &OwnedFd, backlog: i32) -> io::Result<()> {
        // SAFETY: `fd` is an open, bound socket; listen(2) takes integers.
        cvt(unsafe { libc::listen(fd.as_raw_fd(), backlog) }).map(drop)
    }

    pub fn local_port(fd: &OwnedFd) -> io::Result<u16> {
        // SAFETY: sockaddr_in is plain integers, for which all-zero bytes are valid.
        let mut addr: libc::sockaddr_in = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        // SAFETY: `fd` is open; `addr` and `len` are writable and `len` holds `addr`'s size.
        cvt(unsafe {
            libc::getsockname(
                fd.as_raw_fd(),
                (&mut addr as *mut libc::sockaddr_in).cast(),
                &mut len,
            )
        })?;
        Ok(u16::from_be(addr.sin_port))
    }

    pub fn epoll_create() -> io::Result<OwnedFd> {
        // SAFETY: epoll_create1(2) takes a flag and returns a new descriptor or -1.
        owned(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })
    }

    pub fn epoll_ctl(ep: &OwnedFd, op: i32, fd: RawFd, events: u32, data: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: data };
        // SAFETY: `ep` is an open epoll instance (borrowed), `fd` an open descriptor of the world's;
        // `ev` is an epoll_event on this stack frame (ignored by DEL).
        cvt(unsafe { libc::epoll_ctl(ep.as_raw_fd(), op, fd, &mut ev) }).map(drop)
    }

    pub fn epoll_wait(
        ep: &OwnedFd,
        buf: &mut [libc::epoll_event],
        timeout_ms: i32,
    ) -> io::Result<usize> {
        // SAFETY: `ep` is an open epoll instance; `buf` is a writable array of `buf.len()` events
        // borrowed for the call, and the kernel writes at most that many.
        let n = cvt(unsafe {
            libc::epoll_wait(
                ep.as_raw_fd(),
                buf.as_mut_ptr(),
                buf.len().min(i32::MAX as usize) as i32,
                timeout_ms,
            )
        })?;
        Ok(n as usize)
    }

    pub fn accept4(fd: RawFd, flags: i32) -> io::Result<RawFd> {
        // SAFETY: `fd` is the world's listening socket, open for the world's life; null address
        // pointers ask for no peer address.
        cvt(unsafe { libc::accept4(fd, std::ptr::null_mut(), std::ptr::null_mut(), flags) })
    }

    pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `fd` is a connection the caller holds claimed (open); `buf` is writable for its
        // length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    pub fn write(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: `fd` is a connection the caller holds claimed (open); `buf` is readable for its
        // length. MSG_NOSIGNAL: a reset peer gives EPIPE, not SIGPIPE.
        let n = unsafe { libc::send(fd, buf.as_ptr().cast(), buf.len(), libc::MSG_NOSIGNAL) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    fn poll_one(fd: RawFd, events: i16, ms: i32) -> io::Result<bool> {
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: `p` is one pollfd on this stack frame; `fd` is open (the caller holds it).
        let n = cvt(unsafe { libc::poll(&mut p, 1, ms) })?;
        Ok(n > 0)
    }

    pub fn poll_in(fd: RawFd, ms: i32) -> io::Result<bool> {
        poll_one(fd, libc::POLLIN, ms)
    }

    pub fn poll_out(fd: RawFd, ms: i32) -> io::Result<bool> {
        poll_one(fd, libc::POLLOUT, ms)
    }

    pub fn close(fd: RawFd) {
        // SAFETY: the caller owns `fd` (a connection it holds claimed, taken out of the table) and
        // never uses it again.
        unsafe {
            libc::close(fd);
        }
    }

    pub fn shutdown(fd: RawFd, how: i32) {
        // SAFETY: `fd` is an open socket of the world; shutdown(2) does not close it.
        unsafe {
            libc::shutdown(fd, how);
        }
    }

    pub fn eventfd() -> io::Result<OwnedFd> {
        // SAFETY: eventfd(2) takes integers and returns a new descriptor or -1.
        owned(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })
    }

    pub fn eventfd_signal(fd: &OwnedFd) {
        let one: u64 = 1;
        // SAFETY: `fd` is the world's open eventfd; the buffer is 8 readable bytes on this stack
        // frame, the size an eventfd write takes.
        unsafe {
            libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8);
        }
    }

    pub fn thread_cpu_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a writable timespec on this stack frame.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if r != 0 {
            return 0;
        }
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    pub fn own_nivcsw() -> u64 {
        // SAFETY: rusage is plain integers, for which all-zero bytes are valid.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a writable rusage on this stack frame; RUSAGE_THREAD asks for the
        // calling thread only.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
            return 0;
        }
        ru.ru_nivcsw as u64
    }

    pub fn set_timer_slack(ns: u64) {
        // SAFETY: PR_SET_TIMERSLACK takes an integer and affects only the calling thread.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, ns.max(1) as libc::c_ulong, 0, 0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::accept::Strategy;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    #[test]
    fn wake_counts_follow_the_simulator() {
        let mut w = WakeCounts::default();
        // woken once, accepted: useful
        w.returned(1);
        w.work();
        assert_eq!((w.wakeups, w.wasted), (1, 0));
        // woken, EAGAIN, slept again: the wakeup was wasted
        w.returned(1);
        w.returned(1);
        assert_eq!((w.wakeups, w.wasted), (3, 1));
        w.work();
        // woken three times in one call: two wasted in the kernel, the last useful
        w.returned(3);
        w.work();
        assert_eq!((w.wakeups, w.wasted), (6, 3));
        // no sleep at all: nothing counted, nothing judged
        w.returned(0);
        assert_eq!((w.wakeups, w.wasted), (6, 3));
        // the slice ran out: not a wakeup
        w.internal(1);
        assert_eq!((w.wakeups, w.wasted, w.timer), (6, 3, 0));
        // the machine's timer
        w.timed_out(1);
        assert_eq!((w.wakeups, w.wasted, w.timer), (7, 3, 1));
        // a timer wakeup is neither useful nor wasted
        w.returned(1);
        assert_eq!((w.wakeups, w.wasted), (8, 3));
    }

    fn world(strategy: Strategy) -> NetWorld {
        NetWorld::new(NetSpec {
            sockets: Sockets {
                listeners: strategy.listeners(2),
                epolls: strategy.epolls(2),
                reuseport: strategy == Strategy::Reuseport,
                blocking: strategy == Strategy::Blocking,
            },
            workers: 2,
            max_conns: 4,
            request_size: 16,
            response_size: 8,
        })
        .unwrap()
    }

    #[test]
    fn sockets_are_loopback_and_ops_mean_what_the_simulator_means() {
        let w = world(Strategy::Exclusive);
        assert!(w.addr().ip().is_loopback());
        assert_ne!(w.addr().port(), 0);
        let mut t = NetThread::new(&w, 0).unwrap();
        let ep = EpId(0);
        let l = ListenerId(0);
        assert_eq!(t.exec(Op::AcceptNb(l)).unwrap(), Some(OpResult::Again));
        let add = Op::EpollAdd {
            ep,
            fd: Fd::Listener(l),
            interest: Interest::LevelExclusive,
        };
        assert_eq!(t.exec(add).unwrap(), Some(OpResult::Done));
        // a machine timeout with nothing ready: an empty Events
        let r = t
            .exec(Op::EpollWait {
                ep,
                timeout_ns: Some(1_000_000),
            })
            .unwrap();
        assert_eq!(r, Some(OpResult::Events(Ready::default())));
        let mut client = TcpStream::connect(w.addr()).unwrap();
        let mut req = [0u8; 16];
        req[0..8].copy_from_slice(&w.now_ns().to_le_bytes());
        client.write_all(&req).unwrap();
        let r = t
            .exec(Op::EpollWait {
                ep,
                timeout_ns: None,
            })
            .unwrap();
        assert_eq!(
            r,
            Some(OpResult::Events(Ready {
                listener: Some(l),
                conns: 0
            }))
        );
        assert_eq!(t.exec(Op::AcceptNb(l)).unwrap(), Some(OpResult::Conn(0)));
        let add = Op::EpollAdd {
            ep,
            fd: Fd::Conn(0),
            interest: Interest::Edge,
        };
        assert_eq!(t.exec(add).unwrap(), Some(OpResult::Done));
        // the request was already there: reported at once
        let r = t
            .exec(Op::EpollWait {
                ep,
                timeout_ns: Some(1_000_000_000),
            })
            .unwrap();
        assert_eq!(
            r,
            Some(OpResult::Events(Ready {
                listener: None,
                conns: 1
            }))
        );
        assert_eq!(t.exec(Op::ReadNext).unwrap(), Some(OpResult::Request(0)));
        assert_eq!(t.exec(Op::ReadNext).unwrap(), Some(OpResult::Again));
        assert_eq!(t.exec(Op::Respond(0)).unwrap(), Some(OpResult::Done));
        let mut resp = [0u8; 8];
        client.read_exact(&mut resp).unwrap();
        drop(client);
        let r = t
            .exec(Op::EpollWait {
                ep,
                timeout_ns: None,
            })
            .unwrap();
        assert!(matches!(r, Some(OpResult::Events(Ready { conns: 1, .. }))));
        assert_eq!(t.exec(Op::ReadNext).unwrap(), Some(OpResult::Eof(0)));
        assert_eq!(w.closed(), 1);
        let rep = t.report();
        assert_eq!(rep.latency.count(), 1);
        assert_eq!((rep.accepted, rep.eagain, rep.eofs), (1, 1, 1));
        assert_eq!(rep.wakes.timer, 1);
        // the stop releases a wait at once and completes nothing
        w.stop();
        let r = t
            .exec(Op::EpollWait {
                ep,
                timeout_ns: None,
            })
            .unwrap();
        assert_eq!(r, None);
    }

    #[test]
    fn the_accept_mutex_word_is_timed() {
        let w = world(Strategy::AcceptMutex);
        let mut t = NetThread::new(&w, 1).unwrap();
        let lock = Op::Cas {
            word: Word(0),
            expected: 0,
            new: 2,
        };
        assert_eq!(
            t.exec(lock).unwrap(),
            Some(OpResult::Cas {
                ok: true,
                actual: 0
            })
        );
        spin_for(200_000);
        let unlock = Op::Cas {
            word: Word(0),
            expected: 2,
            new: 0,
        };
        assert!(matches!(
            t.exec(unlock).unwrap(),
            Some(OpResult::Cas { ok: true, .. })
        ));
        assert!(t.report().mutex_hold_ns >= 200_000);
        assert!(t.exec(Op::Load(Word(2))).is_err());
        assert!(t
            .exec(Op::FutexWake(Word(0), herdlab_core::op::WakeCount::All))
            .is_err());
    }

    #[test]
    fn a_plain_store_of_0_ends_the_timed_hold() {
        let w = world(Strategy::AcceptMutex);
        let mut t = NetThread::new(&w, 0).unwrap();
        let lock = Op::Cas {
            word: Word(0),
            expected: 0,
            new: 1,
        };
        assert!(matches!(
            t.exec(lock).unwrap(),
            Some(OpResult::Cas { ok: true, .. })
        ));
        spin_for(200_000);
        assert_eq!(t.exec(Op::Store(Word(0), 0)).unwrap(), Some(OpResult::Done));
        assert_eq!(t.exec(Op::Load(Word(0))).unwrap(), Some(OpResult::Value(0)));
        let held = t.report().mutex_hold_ns;
        assert!(held >= 200_000, "{held}");
        // a store to another word times nothing
        assert_eq!(t.exec(Op::Store(Word(1), 0)).unwrap(), Some(OpResult::Done));
        assert_eq!(t.report().mutex_hold_ns, held);
    }

    #[test]
    fn reuseport_binds_every_listener_to_one_port() {
        let w = world(Strategy::Reuseport);
        assert_eq!(w.listeners.len(), 2);
        assert_eq!(w.epolls.len(), 2);
        let w = world(Strategy::SharedEpoll);
        assert_eq!((w.listeners.len(), w.epolls.len()), (1, 1));
        let w = world(Strategy::Blocking);
        assert_eq!((w.listeners.len(), w.epolls.len()), (1, 0));
    }

    /// A socket holding `127.0.0.1:<free port>` with `SO_REUSEPORT`, listening, and its port.
    fn reuseport_holder() -> (OwnedFd, u16) {
        let fd = bind_loopback(0, true, true).unwrap();
        sys::listen(&fd, 8).unwrap();
        let port = sys::local_port(&fd).unwrap();
        (fd, port)
    }

    #[test]
    fn a_taken_port_is_refused_naming_it_and_what_to_do() {
        let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = held.local_addr().unwrap().port();
        for reuseport in [false, true] {
            let e = bind_loopback(port, reuseport, true).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "port {port} on 127.0.0.1 is taken: another socket listens on it (`ss -ltnp \
                     'sport = :{port}'` shows which program); pick another --port, or --port 0 \
                     for a free one the kernel picks"
                )
            );
        }
        assert!(check_port_free(port).unwrap_err().0.contains("is taken"));
        let e = listen_loopback(port, 8).unwrap_err();
        assert!(
            e.0.starts_with(&format!("port {port} on 127.0.0.1 is taken")),
            "{e}"
        );
        // a world on it: refused, for every way of sharing it
        for strategy in [Strategy::Herd, Strategy::Reuseport, Strategy::Blocking] {
            let e = world_on(strategy, port).unwrap_err();
            assert!(
                e.0.contains(&format!("port {port} on 127.0.0.1 is taken")),
                "{e}"
            );
        }
        // once free, the same port can be had
        drop(held);
        let l = listen_loopback(port, 8).unwrap();
        assert_eq!(l.local_addr().unwrap().port(), port);
    }

    #[test]
    fn a_port_held_with_so_reuseport_is_refused_before_binding() {
        let (holder, port) = reuseport_holder();
        // the bind alone would succeed: the kernel groups one user's SO_REUSEPORT sockets
        assert!(bind_loopback(port, true, true).is_ok());
        let e = check_port_free(port).unwrap_err();
        assert!(
            e.0.contains(&format!("port {port} on 127.0.0.1 is taken"))
                && e.0
                    .contains("this run's SO_REUSEPORT bind would even succeed"),
            "{e}"
        );
        let e = world_on(Strategy::Reuseport, port).unwrap_err();
        assert!(e.0.contains("SO_REUSEPORT bind would even succeed"), "{e}");
        // nothing was queued on the holder by the refused world
        assert!(matches!(
            sys::accept4(holder.as_raw_fd(), libc::SOCK_CLOEXEC),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
        ));
        drop(holder);
        check_port_free(port).unwrap();
        let w = world_on(Strategy::Reuseport, port).unwrap();
        assert_eq!(w.addr().port(), port);
    }

    fn world_on(strategy: Strategy, port: u16) -> Result<NetWorld, NativeError> {
        NetWorld::with_listen(
            NetSpec {
                sockets: Sockets {
                    listeners: strategy.listeners(2),
                    epolls: strategy.epolls(2),
                    reuseport: strategy == Strategy::Reuseport,
                    blocking: strategy == Strategy::Blocking,
                },
                workers: 2,
                max_conns: 4,
                request_size: 16,
                response_size: 8,
            },
            Listen { port, backlog: 16 },
        )
    }

    #[test]
    fn backlogs_out_of_range_are_refused_and_somaxconn_caps_the_rest() {
        for backlog in [0, MAX_BACKLOG + 1] {
            let e = NetWorld::with_listen(world(Strategy::Herd).spec, Listen { port: 0, backlog })
                .unwrap_err();
            assert_eq!(
                e.0,
                format!("backlog: {backlog} is out of range; allowed 1-65535")
            );
        }
        match somaxconn() {
            Some(max) => {
                assert_eq!(effective_backlog(max), (max, None));
                assert_eq!(effective_backlog(1), (1, None));
                if max < MAX_BACKLOG {
                    assert_eq!(effective_backlog(max + 1), (max, Some(max)));
                }
            }
            None => assert_eq!(effective_backlog(70_000), (70_000, None)),
        }
    }

    /// `/proc/net/netstat`'s layout (pairs of name and value lines, cut short).
    const NETSTAT: &str = "\
TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops TCPHPHits
TcpExt: 0 0 37 41 4544
IpExt: InNoRoutes InTruncatedPkts ListenOverflows
IpExt: 0 0 99
";

    #[test]
    fn the_listen_counters_are_tcpexts() {
        let c = ListenCounters::parse(NETSTAT).unwrap();
        assert_eq!(
            c,
            ListenCounters {
                overflows: 37,
                drops: 41
            }
        );
        let before = ListenCounters {
            overflows: 30,
            drops: 50,
        };
        assert_eq!(
            c.since(before),
            ListenCounters {
                overflows: 7,
                drops: 0
            }
        );
        assert_eq!(
            ListenCounters::parse("IpExt: A\nIpExt: 1\n").unwrap_err(),
            "/proc/net/netstat: no TcpExt lines"
        );
        assert_eq!(
            ListenCounters::parse("TcpExt: A ListenDrops\nTcpExt: 1 2\n").unwrap_err(),
            "/proc/net/netstat: TcpExt has no ListenOverflows"
        );
        assert_eq!(
            ListenCounters::parse("TcpExt: ListenOverflows ListenDrops\nTcpExt: 1\n").unwrap_err(),
            "/proc/net/netstat: TcpExt has 2 names and 1 values"
        );
        assert_eq!(
            ListenCounters::parse("TcpExt: ListenOverflows ListenDrops\nTcpExt: x 2\n")
                .unwrap_err(),
            "/proc/net/netstat: TcpExt ListenOverflows is 'x', not a count"
        );
        assert_eq!(
            ListenCounters::parse("").unwrap_err(),
            "/proc/net/netstat: no TcpExt lines"
        );
    }

    #[test]
    fn small_requests_are_refused() {
        let e = NetWorld::new(NetSpec {
            sockets: Sockets {
                listeners: 1,
                epolls: 1,
                reuseport: false,
                blocking: false,
            },
            workers: 1,
            max_conns: 1,
            request_size: 4,
            response_size: 1,
        })
        .unwrap_err();
        assert!(e.0.contains("at least 12"), "{e}");
    }
}
