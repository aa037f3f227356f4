//! MySQL's invariants (`mysql-threadpool.md` §5) over the simulator's state; the simulator checks
//! them after every step ([`super::MysqlParams::run`]). The table is in the module docs of
//! [`crate::mechanisms::mysql`].

use super::machine::{
    g, gw, stack, Feed, Mode, MysqlActor, Work, WorkerAt, ALIVE, BLOCKED, CACHE_MTX, HEAD,
    NUM_WORKERS, TAIL, WAKE,
};
use super::params::{MysqlParams, MysqlSim, CHECK_DRAIN};
use crate::check::{CheckConfig, CheckReport, SimModel, Violation};
use crate::machine::Machine;

fn v(invariant: &str, message: String) -> Option<Violation> {
    Some(Violation {
        invariant: invariant.to_string(),
        message,
    })
}

fn clients(sim: &MysqlSim) -> &super::machine::Clients {
    match sim.threads()[0].machine() {
        MysqlActor::Clients(c) => c,
        _ => unreachable!("thread 0 is the clients"),
    }
}

/// The invariants that hold after every step; the first broken one.
pub fn check_state(sim: &MysqlSim) -> Option<Violation> {
    let c = clients(sim);
    match c.cfg.mode {
        Mode::Pool => check_pool(sim),
        Mode::PerConnection => check_cache(sim),
    }
}

fn check_pool(sim: &MysqlSim) -> Option<Violation> {
    let c = clients(sim);
    let cfg = c.cfg;
    if matches!(
        c.at,
        Feed::InitConns
            | Feed::InitThreads
            | Feed::InitActive
            | Feed::InitWorkers
            | Feed::InitSpawn
    ) {
        return None;
    }
    let mut all_free = true;
    let mut threads_sum = 0u32;
    for grp in 0..cfg.groups as u8 {
        let workers = sim.threads().iter().filter_map(|t| match t.machine() {
            MysqlActor::Worker(w) if w.grp == grp => Some(w),
            _ => None,
        });
        let mut listeners = 0;
        let mut held = 0u64;
        let mut finished = 0u64;
        let mut running = 0u32;
        let mut woken_pending = 0u32;
        let nwait = sim.word(gw(grp, g::NWAIT));
        let on_stack: Vec<u32> = (0..nwait.min(16))
            .map(|i| sim.word(stack(grp, i)))
            .collect();
        for w in workers {
            listeners += u32::from(w.listening);
            held +=
                (w.hand_n + w.hand_h) as u64 + u64::from(w.holding.is_some()) + u64::from(w.login);
            finished += w.done.len() as u64 + u64::from(w.logins_done);
            if let WorkerAt::Work(s) = w.at {
                let counted = matches!(
                    s,
                    Work::Lock
                        | Work::Start
                        | Work::BeginLock
                        | Work::RowTry
                        | Work::RowWait
                        | Work::Run { .. }
                        | Work::LoginRun
                        | Work::RowRelease
                        | Work::RowWake
                        | Work::Clock
                        | Work::Answer
                        | Work::Notify
                        | Work::WakeRecv
                );
                if counted && w.born > 0 && !w.listening && !w.waiting {
                    running += 1;
                }
                if s == Work::Wait && !on_stack.contains(&(w.slot as u32)) {
                    woken_pending += 1;
                }
            }
        }
        if listeners > 1 {
            return v(
                "one-listener",
                format!("group {grp} has {listeners} listeners"),
            );
        }
        // no lost event: delivered = ready + queued + held + finished
        let high = (grp as usize) * 2 + 1;
        // queries delivered to the epoll set, and logins `queue_put` queued
        let mut delivered = (c.arrivals[grp as usize * 2].len() + c.arrivals[high].len()) as u64
            + u64::from(c.logins_put[grp as usize]);
        if let Feed::Deliver { word } | Feed::Tag { word } = c.at {
            if word == gw(grp, g::RDY) || word == gw(grp, g::HRDY) {
                delivered -= 1;
            }
        }
        let ready = sim.word(gw(grp, g::RDY)) as u64 + sim.word(gw(grp, g::HRDY)) as u64;
        let queued = sim.word(gw(grp, g::Q)) as u64 + sim.word(gw(grp, g::HQ)) as u64;
        if delivered != ready + queued + held + finished {
            return v(
                "no-lost-event",
                format!(
                    "group {grp}: {delivered} events delivered but {ready} ready + {queued} queued + {held} in threads' hands + {finished} finished"
                ),
            );
        }
        let free = sim.mutex_owner(grp).is_none();
        all_free &= free;
        threads_sum += sim.word(gw(grp, g::THREADS));
        if !free {
            continue;
        }
        let lw = sim.word(gw(grp, g::LISTENER));
        if lw != listeners {
            return v(
                "one-listener",
                format!("group {grp}: listener word {lw} but {listeners} thread(s) listen"),
            );
        }
        let active = sim.word(gw(grp, g::ACTIVE));
        let creating = sim.sem_count(grp);
        if active != running + creating {
            return v(
                "active-count",
                format!(
                    "group {grp}: active_thread_count is {} but {running} threads run and {creating} are being created",
                    active as i32
                ),
            );
        }
        let waiting = sim.word(gw(grp, g::WAITING));
        let q = sim.word(gw(grp, g::Q));
        let h = sim.word(gw(grp, g::HQ));
        // a woken thread counts itself: it may take a normal event only if `active + 1 + waiting`
        // stays within 1 + oversubscribe (a busy-limited queue waits for waits to end, by design)
        let takeable = h > 0 || (q > 0 && active + 1 + waiting <= cfg.cap());
        // every thread idles (asleep in waiting_threads, or listening) while work a thread may
        // take is queued: nothing but an epoll event or the timer's tick will take it (threads
        // inside a wait callback will come back on their own: not idle)
        let idle = nwait > 0 || waiting == 0;
        if takeable && active == 0 && idle && creating == 0 && woken_pending == 0 {
            return v(
                "idle-with-work",
                format!(
                    "group {grp}: {q} normal + {h} high-priority events queued, no thread active, {nwait} asleep in waiting_threads, {listeners} listening, and none woken or being created"
                ),
            );
        }
    }
    if all_free {
        let n = sim.word(NUM_WORKERS);
        if n != threads_sum {
            return v(
                "thread-bound",
                format!(
                    "num_worker_threads is {n} but the groups' thread_count sum to {threads_sum}"
                ),
            );
        }
        let bound = cfg.max_threads.max(2 * cfg.groups);
        if n > bound.max(cfg.max_threads + 2 * cfg.groups) {
            return v(
                "thread-bound",
                format!(
                    "{n} pool threads, above thread_pool_max_threads {}",
                    cfg.max_threads
                ),
            );
        }
    }
    None
}

fn check_cache(sim: &MysqlSim) -> Option<Violation> {
    let c = clients(sim);
    // one connection per client on the server: it reconnects only once the old one is gone
    let mut open = 0u32;
    for (i, &opened) in c.opened.iter().enumerate() {
        let closed = sim.word(c.cfg.closes(i as u32));
        if opened < closed || opened - closed > 1 {
            return v(
                "one-connection",
                format!("client {i} opened {opened} connections and {closed} were closed: more than one on the server"),
            );
        }
        open += opened - closed;
    }
    let unborn = sim
        .threads()
        .iter()
        .filter(|t| matches!(t.machine(), MysqlActor::Conn(ct) if ct.at == super::machine::Conn::Unborn))
        .count() as u32;
    let to_create = sim.sem_count(0);
    if to_create > unborn {
        return v(
            "one-connection",
            format!("{to_create} threads to create but {unborn} free thread slots: a connection waits for a slot"),
        );
    }
    if sim.mutex_owner(CACHE_MTX.0).is_some() {
        return None;
    }
    let blocked = sim.word(BLOCKED);
    let wake = sim.word(WAKE);
    if blocked > c.cfg.cache_size {
        return v(
            "cache-count",
            format!(
                "blocked_pthread_count {blocked} exceeds thread_cache_size {}",
                c.cfg.cache_size
            ),
        );
    }
    if wake > blocked {
        return v(
            "cache-count",
            format!("wake_pthread {wake} exceeds blocked_pthread_count {blocked}: a connection was handed to a thread already taken"),
        );
    }
    let mut parked = 0;
    let mut starting = 0;
    for t in sim.threads() {
        if let MysqlActor::Conn(ct) = t.machine() {
            parked += u32::from(ct.parked);
            starting += u32::from(matches!(
                ct.at,
                super::machine::Conn::Alive
                    | super::machine::Conn::Start
                    | super::machine::Conn::TakeLock
            ));
        }
    }
    if blocked != parked {
        return v(
            "cache-count",
            format!("blocked_pthread_count {blocked} but {parked} threads are parked"),
        );
    }
    let alive = sim.word(ALIVE);
    if alive > open + blocked - wake {
        return v(
            "one-connection",
            format!(
                "{alive} threads alive but {open} connections open + {} unclaimed in the cache",
                blocked - wake
            ),
        );
    }
    let channels = sim.word(TAIL).wrapping_sub(sim.word(HEAD));
    let creating = sim.sem_count(0) + u32::from(c.at == Feed::Create) + starting;
    if channels != wake + creating {
        return v(
            "cache-count",
            format!(
                "{channels} channels queued but wake_pthread {wake} + {creating} threads being created"
            ),
        );
    }
    None
}

/// Queries sent and queries answered so far.
pub fn progress(sim: &MysqlSim) -> (u32, usize) {
    let done = sim
        .threads()
        .iter()
        .map(|t| match t.machine() {
            MysqlActor::Worker(w) => w.done.len(),
            MysqlActor::Conn(ct) => ct.done.len(),
            _ => 0,
        })
        .sum();
    (clients(sim).sent, done)
}

/// What must hold when the run is over: every query sent was answered.
pub fn check_terminal(sim: &MysqlSim) -> Option<Violation> {
    let c = clients(sim);
    let (_, done) = progress(sim);
    if done != c.sent as usize {
        let asleep = sim
            .threads()
            .iter()
            .filter(|t| !t.machine().is_done())
            .count();
        return v(
            "all-served",
            format!(
                "{} of {} queries were never answered ({asleep} threads left)",
                c.sent as usize - done,
                c.sent
            ),
        );
    }
    None
}

/// The checker's state invariants over a [`SimModel`].
pub fn model_state(s: &SimModel<MysqlActor>) -> Option<Violation> {
    check_state(&s.sim)
}

/// The checker's terminal invariants over a [`SimModel`].
pub fn model_terminal(s: &SimModel<MysqlActor>) -> Option<Violation> {
    check_terminal(&s.sim)
}

/// Model-check a scenario: every interleaving of the clients, the timer and the threads, with
/// [`CHECK_DRAIN`] clock events after the queries.
pub fn check(
    p: &MysqlParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    let init = SimModel {
        sim: p.simulate_drain(CHECK_DRAIN),
    };
    crate::check::explore(init, cfg, &model_state, &model_terminal, progress)
}

/// Replay a counterexample (checker indices are thread indices) in a fresh simulation.
pub fn replay(p: &MysqlParams, schedule: &[u16]) -> MysqlSim {
    SimModel::replay(p.simulate_drain(CHECK_DRAIN), schedule)
}
