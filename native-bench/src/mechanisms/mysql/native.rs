//! MySQL's connection handling on real threads: a loopback query server whose threads run core's
//! mysql tables (`herdlab_core::mechanisms::mysql`) in their straight-line form, thread-per-connection
//! ([`ConnThread`], with the thread cache: `Clients::add_connection`) or Percona's pool of threads
//! ([`Worker`]: groups, listener, two queues, LIFO waiters, `wake_or_create_thread`; the
//! [`Timer`]), against the load generator of [`super::load`].
//!
//! The algorithm is core's tables, not a copy: every thread runs on a [`ServerOps`], the thread's
//! `NativeThread` (real atomics, `futex(2)`, `std::sync` mutexes and condition variables) with a
//! few primitives given their real meaning:
//!
//! | the table does | here |
//! |---|---|
//! | `sem_post(spawn(g))` (`create_worker`), `sem_post(CONN_SPAWN)` (`mysql_thread_create`) | a real `pthread_create` (a scoped thread) that runs a new [`Worker`] of group `g` / a new [`ConnThread`]; counted in `threads_created` |
//! | `sem_wait` of an unborn slot | the new thread's start: the first returns at once; a second (a per-connection thread that exits, `Conn::Dead`) ends the thread |
//! | a listener's `futex_wait(EPSEQ)` (`epoll_wait(pollfd, 1024, -1)`) | a real blocking `epoll_wait` on the group's epoll fd (up to 1024 events) |
//! | a non-listener's `load(HRDY)` (`epoll_wait(pollfd, 1, 0)` in `get_event`) | a real non-blocking `epoll_wait` of at most one event first |
//! | `fetch_add(DEQ_N/DEQ_H)` (the dequeue ordinal) | names the connection: the ordinal-th event the kernel delivered in that class |
//! | the query's first `work` | a real `read` of the request from that connection's socket, then the CPU time (a spin) |
//! | the `now` that ends a query (`Work::Clock`, `Conn::Clock`) | the response `write`, and (pool) `epoll_ctl(MOD, EPOLLIN \| EPOLLONESHOT)`: `start_io`'s re-arm |
//! | a per-connection thread's `futex_wait` on its socket word (`Conn::ReadWait`) | a real blocking `read` of the next request |
//! | the timer's `futex_wait(TICK)` | a sleep of `thread_pool_stall_limit` |
//!
//! What the kernel does in the model's `Feed` (an event becomes ready in its group's epoll set:
//! `RDY`/`HRDY` + 1, `EPSEQ` + 1) is done here when a real `epoll_wait` returns events: each is
//! appended to its group's log of deliveries of its class (high priority when the connection is
//! inside a transaction, as the model's `Feed` decides) under the log's lock, with the count
//! words. The tables keep events in order per class (the model's docs), so the `o`-th dequeue of a
//! class is the `o`-th delivery of that class: the log maps the table's dequeue ordinal to a real
//! connection.
//!
//! The run ends when the load generator is done: the world is failed with [`STOP`], which wakes
//! every futex and condition variable, and every server end of a connection is shut down
//! ([`Server::shut_sockets`]), which ends the per-connection threads' blocking `read`s; the epoll
//! waits (listeners', the acceptor's) poll it every [`POLL_MS`] ms; every thread is joined, every socket and epoll fd closed when the row's
//! [`Server`] drops (on every exit path).

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::{Mutex, PoisonError, RwLock};
use std::thread::Scope;
use std::time::Duration;

use herdlab_core::machine::steps::Ops;
use herdlab_core::mechanisms::mysql::machine::g;
use herdlab_core::mechanisms::mysql::params::STACK_BYTES;
use herdlab_core::mechanisms::mysql::{
    gw, Clients, ConnThread, Mode, MysqlConfig, Timer, Worker, MAX_GROUP_THREADS, TICK,
};
use herdlab_core::op::{CondId, MutexId, Op, OpResult, SemId, WakeCount, Word};

use herdlab_core::trace::Kind;

use crate::platform::native::NativeThread;
use crate::platform::{NativeError, NativeWorld, WorldSpec};

/// Bytes of a request and of its response: the connection's index, the query's sequence number,
/// the client's send time (the response echoes them).
pub const REQUEST: usize = 16;

/// The failure that ends a row normally (every thread leaves its wait).
pub const STOP: &str = "the row ended";

/// How often a thread blocked in `epoll_wait` or `read` looks at the stop, ms.
pub const POLL_MS: i32 = 20;

/// Most events one blocking `epoll_wait` of a listener returns (Percona's `MAX_EVENTS`).
pub const MAX_EVENTS: usize = 1024;

/// An epoll instance.
#[derive(Debug)]
pub struct Epoll(OwnedFd);

impl Epoll {
    /// `epoll_create1(EPOLL_CLOEXEC)`.
    pub fn new() -> Result<Self, NativeError> {
        // SAFETY: epoll_create1 takes no pointers; a non-negative result is a new fd we own.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(os_err("epoll_create1()"));
        }
        // SAFETY: `fd` is a freshly created descriptor owned by nobody else.
        Ok(Epoll(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    fn ctl(&self, op: i32, fd: RawFd, events: u32, data: u64) -> Result<(), NativeError> {
        let mut ev = libc::epoll_event { events, u64: data };
        // SAFETY: both descriptors are open; `ev` is a valid epoll_event for the call.
        let r = unsafe { libc::epoll_ctl(self.0.as_raw_fd(), op, fd, &mut ev) };
        if r < 0 {
            return Err(os_err("epoll_ctl()"));
        }
        Ok(())
    }

    /// Add `fd` for one readable event (`EPOLLIN | EPOLLONESHOT`), tagged `data`.
    pub fn add_oneshot(&self, fd: RawFd, data: u64) -> Result<(), NativeError> {
        self.ctl(
            libc::EPOLL_CTL_ADD,
            fd,
            (libc::EPOLLIN | libc::EPOLLONESHOT) as u32,
            data,
        )
    }

    /// Re-arm `fd` for one more readable event (`EPOLL_CTL_MOD`).
    pub fn rearm(&self, fd: RawFd, data: u64) -> Result<(), NativeError> {
        self.ctl(
            libc::EPOLL_CTL_MOD,
            fd,
            (libc::EPOLLIN | libc::EPOLLONESHOT) as u32,
            data,
        )
    }

    /// Add `fd` level-triggered (the load generator's side).
    pub fn add_level(&self, fd: RawFd, data: u64) -> Result<(), NativeError> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, libc::EPOLLIN as u32, data)
    }

    /// `epoll_wait` for at most `buf.len()` events, `timeout_ms` (0: do not block); `EINTR` is 0
    /// events.
    pub fn wait(
        &self,
        buf: &mut [libc::epoll_event],
        timeout_ms: i32,
    ) -> Result<usize, NativeError> {
        // SAFETY: `buf` is writable for `buf.len()` events; the epoll fd is open.
        let n = unsafe {
            libc::epoll_wait(
                self.0.as_raw_fd(),
                buf.as_mut_ptr(),
                buf.len().min(i32::MAX as usize) as i32,
                timeout_ms,
            )
        };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == ErrorKind::Interrupted {
                return Ok(0);
            }
            return Err(os_err("epoll_wait()"));
        }
        Ok(n as usize)
    }
}

impl Epoll {
    /// `epoll_pwait2`: as [`Epoll::wait`] with a timeout in nanoseconds (Linux 5.11+; before,
    /// `epoll_wait` with the timeout rounded up to a millisecond). A load generator's think time
    /// of a few hundred µs is then slept as drawn, not rounded up to the next millisecond.
    pub fn wait_ns(
        &self,
        buf: &mut [libc::epoll_event],
        timeout_ns: u64,
    ) -> Result<usize, NativeError> {
        let ts = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: `buf` is writable for `buf.len()` events, `ts` a valid timespec, no signal
        // mask (null); the epoll fd is open.
        let n = unsafe {
            libc::syscall(
                libc::SYS_epoll_pwait2,
                self.0.as_raw_fd(),
                buf.as_mut_ptr(),
                buf.len().min(i32::MAX as usize) as libc::c_int,
                &ts as *const libc::timespec,
                std::ptr::null::<libc::sigset_t>(),
                0usize,
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == ErrorKind::Interrupted {
                return Ok(0);
            }
            if e.raw_os_error() == Some(libc::ENOSYS) {
                return self.wait(
                    buf,
                    timeout_ns.div_ceil(1_000_000).min(i32::MAX as u64) as i32,
                );
            }
            return Err(os_err("epoll_pwait2()"));
        }
        Ok(n as usize)
    }
}

fn os_err(what: &str) -> NativeError {
    NativeError(format!("{what}: {}", std::io::Error::last_os_error()))
}

/// An empty event buffer.
pub fn events(n: usize) -> Vec<libc::epoll_event> {
    vec![libc::epoll_event { events: 0, u64: 0 }; n]
}

/// The server of one row: the scenario, the server's ends of the connections, the groups' epoll
/// sets and delivery logs, and the counters.
pub struct Server<'w> {
    world: &'w NativeWorld,
    cfg: MysqlConfig,
    /// The server's end of each client's connection (replaced when the client reconnects).
    socks: Vec<RwLock<TcpStream>>,
    epolls: Vec<Epoll>,
    /// Per group: the connections the kernel delivered, normal then high priority, in order.
    logs: Vec<Mutex<[Vec<u32>; 2]>>,
    /// Per connection: queries answered.
    served: Vec<AtomicU32>,
    answered: AtomicU64,
    created: AtomicU32,
    next_slot: Vec<AtomicU32>,
    next_conn: AtomicU32,
    /// Per-connection: the slots of threads that exited, for the next ones created.
    free_conn: Mutex<Vec<usize>>,
    /// Reconnections accepted (connection churn).
    reconnects: AtomicU64,
}

impl<'w> Server<'w> {
    /// The server for `cfg` over the accepted connections `socks` (connection `i` is client
    /// `i`); pool: each connection is added to its group's epoll set (`id % thread_pool_size`),
    /// armed for one event.
    pub fn new(
        world: &'w NativeWorld,
        cfg: MysqlConfig,
        socks: Vec<TcpStream>,
    ) -> Result<Self, NativeError> {
        let groups = if cfg.mode == Mode::Pool {
            cfg.groups as usize
        } else {
            0
        };
        let epolls = (0..groups)
            .map(|_| Epoll::new())
            .collect::<Result<Vec<_>, _>>()?;
        for (i, s) in socks.iter().enumerate() {
            s.set_nodelay(true)
                .map_err(|e| NativeError(format!("TCP_NODELAY: {e}")))?;
            // no read timeout: a thread waits in `read` until a request or the stop's
            // `shutdown` ([`Server::shut_sockets`]), as MySQL's waits for the next command
            // (`wait_timeout`: 8 hours); a timeout to look at the stop would wake every idle
            // connection's thread every few ms, switches MySQL does not make
            if groups > 0 {
                epolls[i % groups].add_oneshot(s.as_raw_fd(), i as u64)?;
            }
        }
        Ok(Server {
            world,
            cfg,
            served: socks.iter().map(|_| AtomicU32::new(0)).collect(),
            socks: socks.into_iter().map(RwLock::new).collect(),
            epolls,
            logs: (0..groups)
                .map(|_| Mutex::new([Vec::new(), Vec::new()]))
                .collect(),
            answered: AtomicU64::new(0),
            created: AtomicU32::new(0),
            next_slot: (0..groups.max(1)).map(|_| AtomicU32::new(0)).collect(),
            next_conn: AtomicU32::new(0),
            free_conn: Mutex::new(Vec::new()),
            reconnects: AtomicU64::new(0),
        })
    }

    /// The stop, for the threads blocked in `read` of a connection: `shutdown(SHUT_RDWR)` of
    /// every server end (the read returns 0, and the thread sees the stop). Call it after failing
    /// the world with [`STOP`] (or any failure), once the clients are done.
    pub fn shut_sockets(&self) {
        for s in &self.socks {
            let _ = s
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .shutdown(std::net::Shutdown::Both);
        }
    }

    /// Queries the tables answered (a response written).
    pub fn answered(&self) -> u64 {
        self.answered.load(SeqCst)
    }

    /// Reconnections the acceptor handed to `add_connection` (connection churn).
    pub fn reconnects(&self) -> u64 {
        self.reconnects.load(SeqCst)
    }

    /// The server's end of connection `c`.
    fn sock(&self, c: u32) -> std::sync::RwLockReadGuard<'_, TcpStream> {
        self.socks[c as usize]
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Threads `create_worker` / `mysql_thread_create` started (`Threads_created`).
    pub fn threads_created(&self) -> u32 {
        self.created.load(SeqCst)
    }

    /// The world's size for `cfg`: words, mutexes, condition variables, counter slots (the main
    /// thread, the timer, then the pool's worker slots or the per-connection threads).
    pub fn world_for(cfg: &MysqlConfig) -> Result<NativeWorld, NativeError> {
        let threads = 2 + match cfg.mode {
            Mode::Pool => (cfg.groups * MAX_GROUP_THREADS) as usize,
            // (and, under churn, room for a thread per connection still on its way out)
            Mode::PerConnection => (cfg.slots() + cfg.connections) as usize,
        };
        NativeWorld::with_words(
            WorldSpec {
                words: 0,
                mutexes: cfg.groups.max(1) as u8,
                condvars: (cfg.groups.max(1) * MAX_GROUP_THREADS) as u8,
                sems: 0,
                listener: false,
                threads,
                packed: false,
            },
            cfg.words() as usize,
        )
    }

    /// Whether an event of connection `c` is high priority now: inside a transaction (statements
    /// 2.. of one), with the high-priority queue on; as the model's `Feed` decides.
    fn high(&self, c: u32) -> bool {
        let k = self.served[c as usize].load(SeqCst);
        self.cfg.high_prio && self.cfg.txn_statements > 1 && k % self.cfg.txn_statements != 0
    }

    /// The kernel's side of `n` events of group `grp`: each ready in the epoll set
    /// (`RDY`/`HRDY` + 1, logged), then `EPSEQ` + 1.
    fn deliver(&self, grp: u8, evs: &[libc::epoll_event]) -> Result<(), NativeError> {
        if evs.is_empty() {
            return Ok(());
        }
        let mut log = self.logs[grp as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for ev in evs {
            let c = ev.u64 as u32;
            let high = self.high(c);
            log[usize::from(high)].push(c);
            let w = gw(grp, if high { g::HRDY } else { g::RDY });
            self.world.word(w)?.fetch_add(1, SeqCst);
        }
        self.world.word(gw(grp, g::EPSEQ))?.fetch_add(1, SeqCst);
        Ok(())
    }

    fn stopped(&self) -> bool {
        self.world.aborted()
    }

    /// A slot for a new per-connection thread: one a thread that exited left, else a new one;
    /// when every slot is taken (threads still on their way out under churn), wait for one to
    /// free, as the model's `mysql_thread_create` waits on its semaphore for an unborn slot.
    fn conn_slot(&self) -> Result<usize, NativeError> {
        let t0 = std::time::Instant::now();
        loop {
            let freed = self
                .free_conn
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            if let Some(i) = freed {
                return Ok(i);
            }
            let next = self.next_conn.load(SeqCst) as usize;
            if 2 + next < self.world.threads()
                && self
                    .next_conn
                    .compare_exchange(next as u32, next as u32 + 1, SeqCst, SeqCst)
                    .is_ok()
            {
                return Ok(2 + next);
            }
            if self.stopped() || t0.elapsed() > Duration::from_secs(5) {
                return Err(NativeError(format!(
                    "no slot for a per-connection thread: {} were alive for 5 s",
                    self.world.threads() - 2
                )));
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

/// What kind of thread a [`ServerOps`] drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The main thread: the pool's start, or the acceptor's `add_connection`.
    Main,
    /// A pool worker of a group.
    Worker(u8),
    /// The pool's timer.
    Timer,
    /// A thread-per-connection thread.
    Conn,
}

/// What a server thread needs to start more server threads: the scope (which joins every thread
/// it started before it returns) and the server. A thread's error fails the world
/// ([`NativeWorld::fail`]): the first one is the row's.
#[derive(Clone, Copy)]
pub struct Spawner<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    srv: &'env Server<'env>,
}

impl<'scope, 'env> Spawner<'scope, 'env> {
    /// A spawner in `scope`.
    pub fn new(scope: &'scope Scope<'scope, 'env>, srv: &'env Server<'env>) -> Self {
        Spawner { scope, srv }
    }

    /// Start a thread of `role` (a real `pthread_create`, with MySQL's 1 MiB `thread_stack`).
    fn spawn(self, role: Role) -> Result<(), NativeError> {
        let srv = self.srv;
        let (index, slot) = match role {
            Role::Worker(grp) => {
                let i = srv.next_slot[grp as usize].fetch_add(1, SeqCst);
                if i >= MAX_GROUP_THREADS {
                    return Err(NativeError(format!(
                        "group {grp} asked for a thread beyond its {MAX_GROUP_THREADS} slots"
                    )));
                }
                let slot = grp as u32 * MAX_GROUP_THREADS + i;
                (2 + slot as usize, slot as u8)
            }
            Role::Conn => (srv.conn_slot()?, 0),
            Role::Timer => (1, 0),
            Role::Main => (0, 0),
        };
        let me = self;
        std::thread::Builder::new()
            .stack_size(STACK_BYTES as usize)
            .spawn_scoped(self.scope, move || me.body(role, index, slot))
            .map_err(|e| NativeError(format!("cannot start a server thread: {e}")))?;
        if role != Role::Timer {
            srv.created.fetch_add(1, SeqCst);
        }
        Ok(())
    }

    /// Start the pool's timer.
    pub fn spawn_timer(self) -> Result<(), NativeError> {
        self.spawn(Role::Timer)
    }

    fn body(self, role: Role, index: usize, slot: u8) {
        let srv = self.srv;
        let ops = ServerOps::new(self, role, index);
        let mut ops = match ops {
            Ok(o) => o,
            Err(e) => return srv.world.fail(&e.0),
        };
        let r = match role {
            Role::Worker(grp) => Worker::new(srv.cfg, grp, slot).run(&mut ops),
            Role::Timer => Timer::new(srv.cfg).run(&mut ops),
            Role::Conn => ConnThread::new(srv.cfg).run(&mut ops),
            Role::Main => Ok(()),
        };
        // an error is recorded in the world (and ends the row)
        let exited = ops.exited;
        let _ = ops.finish(r);
        if role == Role::Conn && exited {
            // its slot (counters, trace buffer handed over) is free for the next thread
            srv.free_conn
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(index);
        }
    }

    /// The main thread's part: pool, the groups' start (`Clients::start_groups`: each group's
    /// first `create_worker`); per-connection, `add_connection` of every client in turn.
    pub fn start(self, clients: &mut Clients) -> Result<(), NativeError> {
        let mut ops = ServerOps::new(self, Role::Main, 0)?;
        let r = match self.srv.cfg.mode {
            Mode::Pool => clients.start_groups(&mut ops),
            Mode::PerConnection => (0..self.srv.socks.len() as u32)
                .try_for_each(|c| clients.add_connection(c, &mut ops)),
        };
        ops.finish(r)
    }

    /// Per-connection with churn: the acceptor. Each client that reconnects (to `listener`, then
    /// its 4-byte index) replaces its connection's server end, and `add_connection` hands it to
    /// a cached thread or creates one (`Clients::add_connection`, core's table). Until the row's
    /// stop; with `--trace`, each accept is an `accept` event of the acceptor (thread 0).
    pub fn accept_loop(
        self,
        listener: &std::net::TcpListener,
        clients: &mut Clients,
    ) -> Result<(), NativeError> {
        let srv = self.srv;
        listener
            .set_nonblocking(true)
            .map_err(|e| NativeError(format!("the listener's O_NONBLOCK: {e}")))?;
        let mut ops = ServerOps::new(self, Role::Main, 0)?;
        let r = (|| loop {
            if srv.stopped() {
                return Err(ops.stop_error());
            }
            let s = match listener.accept() {
                Ok((s, _)) => s,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                    // sleep until a reconnection is queued (or the stop is looked at again)
                    let mut pfd = libc::pollfd {
                        fd: listener.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: `pfd` is one valid pollfd for the call; the listener is open.
                    unsafe { libc::poll(&mut pfd, 1, POLL_MS) };
                    continue;
                }
                Err(e) => return Err(NativeError(format!("accept of a reconnection: {e}"))),
            };
            let io = |what: &str, e: std::io::Error| {
                NativeError(format!("a reconnection's {what}: {e}"))
            };
            s.set_nonblocking(false).map_err(|e| io("O_NONBLOCK", e))?;
            s.set_nodelay(true).map_err(|e| io("TCP_NODELAY", e))?;
            s.set_read_timeout(Some(Duration::from_millis(POLL_MS as u64)))
                .map_err(|e| io("SO_RCVTIMEO", e))?;
            let mut hello = [0u8; 4];
            let mut got = 0;
            while got < 4 {
                match (&s).read(&mut hello[got..]) {
                    Ok(0) => {
                        return Err(NativeError("a reconnection closed before its index".into()))
                    }
                    Ok(n) => got += n,
                    Err(e)
                        if matches!(
                            e.kind(),
                            ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                        ) =>
                    {
                        if srv.stopped() {
                            return Err(ops.stop_error());
                        }
                    }
                    Err(e) => return Err(io("read", e)),
                }
            }
            // (the index is read with a timeout, to look at the stop; the requests without one)
            s.set_read_timeout(None).map_err(|e| io("SO_RCVTIMEO", e))?;
            let c = u32::from_le_bytes(hello);
            let Some(slot) = srv.socks.get(c as usize) else {
                return Err(NativeError(format!(
                    "a reconnection named client {c}, of {}",
                    srv.socks.len()
                )));
            };
            ops.inner.record(Kind::Accept, Some(c));
            // the old end closes here; its thread answered its last query before the client left
            *slot.write().unwrap_or_else(PoisonError::into_inner) = s;
            srv.reconnects.fetch_add(1, SeqCst);
            clients.add_connection(c, &mut ops)?;
        })();
        ops.finish(r)
    }
}

/// One server thread's platform: its `NativeThread`, and what gives the primitives above their
/// real meaning.
pub struct ServerOps<'scope, 'env> {
    inner: NativeThread<'env>,
    sp: Spawner<'scope, 'env>,
    role: Role,
    born: bool,
    exited: bool,
    listening: bool,
    /// The connection whose query this thread holds.
    cur: Option<u32>,
    /// Its request is still to be read (pool: at the query's first `work`).
    need_read: bool,
    /// The query's CPU time has started (the next `now` is its response).
    worked: bool,
    req: [u8; REQUEST],
    evs: Vec<libc::epoll_event>,
}

impl<'scope, 'env> ServerOps<'scope, 'env> {
    fn new(sp: Spawner<'scope, 'env>, role: Role, index: usize) -> Result<Self, NativeError> {
        Ok(ServerOps {
            inner: NativeThread::new(sp.srv.world, index)?,
            sp,
            role,
            born: false,
            exited: false,
            listening: false,
            cur: None,
            need_read: false,
            worked: false,
            req: [0; REQUEST],
            evs: if matches!(role, Role::Worker(_)) {
                events(MAX_EVENTS)
            } else {
                Vec::new()
            },
        })
    }

    fn srv(&self) -> &'env Server<'env> {
        self.sp.srv
    }

    /// The thread's end: an exit or the row's stop is no error; another error fails the world.
    fn finish(mut self, r: Result<(), NativeError>) -> Result<(), NativeError> {
        self.inner.release();
        match r {
            Ok(()) => Ok(()),
            Err(_) if self.exited => Ok(()),
            Err(_) if self.srv().world.failure().as_deref() == Some(STOP) => Ok(()),
            Err(e) => {
                self.srv().world.fail(&e.0);
                Err(e)
            }
        }
    }

    fn stop_error(&self) -> NativeError {
        NativeError(
            self.srv()
                .world
                .failure()
                .unwrap_or_else(|| STOP.to_string()),
        )
    }

    /// `epoll_wait(pollfd, max, timeout)` on the group's set; the events delivered.
    fn poll_kernel(&mut self, grp: u8, max: usize, timeout_ms: i32) -> Result<usize, NativeError> {
        let srv = self.srv();
        let n = srv.epolls[grp as usize].wait(&mut self.evs[..max], timeout_ms)?;
        srv.deliver(grp, &self.evs[..n])?;
        Ok(n)
    }

    /// Read one whole request of connection `c` (blocking, without a timeout: the stop's
    /// [`Server::shut_sockets`] ends the wait).
    fn read_request(&mut self, c: u32) -> Result<(), NativeError> {
        let srv = self.srv();
        let guard = srv.sock(c);
        let mut s = &*guard;
        let mut got = 0;
        while got < REQUEST {
            match s.read(&mut self.req[got..]) {
                Ok(0) => {
                    return Err(if srv.stopped() {
                        self.stop_error()
                    } else {
                        NativeError(format!("connection {c} closed by the client mid-run"))
                    })
                }
                Ok(n) => got += n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if srv.stopped() {
                        return Err(self.stop_error());
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(NativeError(format!("read of connection {c}: {e}"))),
            }
        }
        Ok(())
    }

    /// Whether connection `c` has a request's bytes waiting (a non-blocking peek).
    fn readable_now(&self, c: u32) -> bool {
        let fd = self.srv().sock(c).as_raw_fd();
        let mut b = [0u8; 1];
        // SAFETY: `fd` is an open socket the server owns; `b` is writable for 1 byte; MSG_PEEK
        // leaves the byte in the socket, MSG_DONTWAIT returns at once.
        let n = unsafe {
            libc::recv(
                fd,
                b.as_mut_ptr().cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        n > 0
    }

    /// The response to the query in hand; pool: `start_io`'s re-arm.
    fn respond(&mut self, c: u32) -> Result<(), NativeError> {
        let srv = self.srv();
        let guard = srv.sock(c);
        let mut s = &*guard;
        s.write_all(&self.req)
            .map_err(|e| NativeError(format!("write to connection {c}: {e}")))?;
        srv.served[c as usize].fetch_add(1, SeqCst);
        srv.answered.fetch_add(1, SeqCst);
        if srv.cfg.mode == Mode::Pool {
            let grp = (c % srv.cfg.groups.max(1)) as usize;
            srv.epolls[grp].rearm(s.as_raw_fd(), c as u64)?;
        }
        Ok(())
    }

    /// The connection a dequeue ordinal names.
    fn dequeued(&self, grp: u8, class: usize, o: u32) -> Result<u32, NativeError> {
        let log = self.srv().logs[grp as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        log[class].get(o as usize).copied().ok_or_else(|| {
            NativeError(format!(
                "group {grp} dequeued {} event {o}, but the kernel delivered {} of them",
                ["normal", "high-priority"][class],
                log[class].len()
            ))
        })
    }

    /// Which client's socket word `w` is (per-connection), if it is one.
    fn socket_word(&self, w: Word) -> Option<u32> {
        let cfg = &self.srv().cfg;
        let base = cfg.pend(0).0 as u32;
        let i = (w.0 as u32).checked_sub(base)?;
        (i < cfg.connections).then_some(i)
    }
}

impl Ops for ServerOps<'_, '_> {
    type Error = NativeError;
    fn load(&mut self, w: Word) -> Result<u32, NativeError> {
        if let Role::Worker(grp) = self.role {
            // get_event's `epoll_wait(pollfd, 1, 0)` starts with the high-priority count
            if !self.listening && w == gw(grp, g::HRDY) {
                self.poll_kernel(grp, 1, 0)?;
            }
        }
        self.inner.load(w)
    }
    fn store(&mut self, w: Word, v: u32) -> Result<(), NativeError> {
        if let Role::Worker(grp) = self.role {
            if w == gw(grp, g::LISTENER) {
                self.listening = v != 0;
            }
        }
        self.inner.store(w, v)
    }
    fn cas(&mut self, w: Word, e: u32, n: u32) -> Result<bool, NativeError> {
        self.inner.cas(w, e, n)
    }
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, NativeError> {
        let o = self.inner.fetch_add(w, d)?;
        if let Role::Worker(grp) = self.role {
            let class = if w == gw(grp, g::DEQ_N) {
                Some(0)
            } else if w == gw(grp, g::DEQ_H) {
                Some(1)
            } else {
                None
            };
            if let Some(class) = class {
                self.cur = Some(self.dequeued(grp, class, o)?);
                self.need_read = true;
                self.worked = false;
            }
        }
        Ok(o)
    }
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, NativeError> {
        self.inner.swap(w, v)
    }
    fn sem_wait(&mut self, _s: SemId) -> Result<(), NativeError> {
        if self.born {
            // a thread that exited (`Conn::Dead`) waits to be created again: the OS thread ends
            self.exited = true;
            return Err(NativeError("the thread exits".to_string()));
        }
        self.born = true;
        Ok(())
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), NativeError> {
        let role = match self.srv().cfg.mode {
            Mode::Pool => Role::Worker(s.0),
            Mode::PerConnection => Role::Conn,
        };
        self.sp.spawn(role)
    }
    fn futex_wait(&mut self, w: Word, e: u32) -> Result<bool, NativeError> {
        match self.role {
            Role::Worker(grp) if w == gw(grp, g::EPSEQ) => {
                if self.inner.load(w)? != e {
                    self.inner.record(Kind::Eagain, None);
                    return Ok(false);
                }
                // the listener: epoll_wait(pollfd, 1024, -1)
                let t0 = self.inner.trace_clock();
                loop {
                    if self.srv().stopped() {
                        return Err(self.stop_error());
                    }
                    if self.poll_kernel(grp, MAX_EVENTS, POLL_MS)? > 0 {
                        self.inner.record_wait(t0, u32::from(w.0));
                        return Ok(true);
                    }
                }
            }
            Role::Timer if w == TICK => {
                // cond_timedwait(thread_pool_stall_limit)
                let mut left = self.srv().cfg.stall_ns;
                let t0 = self.inner.trace_clock();
                while left > 0 {
                    if self.srv().stopped() {
                        return Err(self.stop_error());
                    }
                    let d = left.min(POLL_MS as u64 * 1_000_000);
                    std::thread::sleep(Duration::from_nanos(d));
                    left -= d;
                }
                self.inner.record_wait(t0, u32::from(TICK.0));
                self.inner.fetch_add(TICK, 1)?;
                Ok(true)
            }
            Role::Conn => match self.socket_word(w) {
                Some(c) => {
                    // do_command's blocking read (recorded as a sleep when nothing was there
                    // to read: a peek first, only when recording)
                    let t0 = self.inner.trace_clock();
                    let slept = self.inner.tracing() && !self.readable_now(c);
                    self.read_request(c)?;
                    if slept {
                        self.inner.record_wait(t0, u32::from(w.0));
                    }
                    self.inner.fetch_add(w, 1)?;
                    self.cur = Some(c);
                    self.need_read = false;
                    self.worked = false;
                    Ok(true)
                }
                None => self.inner.futex_wait(w, e),
            },
            _ => self.inner.futex_wait(w, e),
        }
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, NativeError> {
        self.inner.futex_wake(w, n)
    }
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.inner.mutex_lock(m)
    }
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), NativeError> {
        self.inner.mutex_unlock(m)
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), NativeError> {
        self.inner.cond_wait(c, m)
    }
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), NativeError> {
        self.inner.cond_notify(c, n)
    }
    fn work(&mut self, ns: u64) -> Result<(), NativeError> {
        let Some(c) = self.cur else {
            // a new thread's start: the real pthread_create already happened (no query: no
            // `work` event)
            return self.inner.work_item(0, false);
        };
        if self.need_read {
            self.read_request(c)?;
            self.need_read = false;
        }
        // one `work` event per query, at its first slice of CPU time
        let first = !self.worked;
        self.worked = true;
        self.inner.work_item(ns, first)
    }
    fn pause(&mut self) -> Result<(), NativeError> {
        self.inner.pause()
    }
    fn sched_yield(&mut self) -> Result<(), NativeError> {
        self.inner.sched_yield()
    }
    fn now(&mut self) -> Result<u64, NativeError> {
        let t = self.inner.now()?;
        if self.worked {
            if let Some(c) = self.cur.take() {
                self.worked = false;
                self.respond(c)?;
            }
        }
        Ok(t)
    }
    fn other(&mut self, op: Op) -> Result<OpResult, NativeError> {
        self.inner.other(op)
    }
}
