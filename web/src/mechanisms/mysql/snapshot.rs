//! MySQL's view, derived from its model on each render: a lane per thread (the clients, the
//! pool's timer and worker slots, or thread-per-connection's thread slots); pool mode's groups
//! (the listener, the two queues, the epoll set's ready events, `thread_count`, active and
//! waiting threads, `stalled`, the sleepers in `waiting_threads`); thread-per-connection's thread
//! cache (`blocked_pthread_count`, `wake_pthread`, the queued channels) and each connection's
//! thread; the listing with every thread on its line, the counters of core's [`MysqlReport`] and
//! the invariants.

use std::rc::Rc;

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::mysql::invariants::{check_state, check_terminal};
use herdlab_core::mechanisms::mysql::machine::g;
use herdlab_core::mechanisms::mysql::{
    gw, stack, Conn, Ln, Mode, MysqlActor, MysqlConfig, MysqlReport, MysqlSim, ALIVE, BLOCKED,
    HEAD, MAX_GROUP_THREADS, NUM_WORKERS, TAIL, WAKE,
};
use herdlab_core::sim::{Actor, Sched, Status};
use herdlab_web_engine::typed;

use crate::live::describe::LaneState;
use crate::live::snapshot::{CodeLine, CodeView, InvariantView, LaneView, StatusView};
use crate::mechanisms::mysql::model::MysqlSimModel;

/// A list shows at most this many threads or connections.
const SHOWN: usize = 32;

/// One thread group of the pool (`thread_group_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupView {
    /// The listener's name (`g0t1`), if a thread listens.
    pub listener: Option<String>,
    /// `queue`: normal-priority events queued.
    pub queue: u32,
    /// `high_prio_queue`: events queued at high priority.
    pub high: u32,
    /// Events ready in the epoll set, not yet taken (both classes).
    pub ready: u32,
    /// `thread_count`.
    pub threads: u32,
    /// `active_thread_count`.
    pub active: u32,
    /// `waiting_thread_count` (inside `thd_wait_begin/end`).
    pub waiting: u32,
    /// `connection_count`.
    pub connections: u32,
    /// `stalled`.
    pub stalled: bool,
    /// `waiting_threads`, the one `wake_thread` pops first (the front) first.
    pub sleepers: Vec<String>,
}

/// Thread-per-connection's thread cache (`LOCK_thread_cache`'s words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheView {
    /// `thread_cache_size`.
    pub size: u32,
    /// `blocked_pthread_count`: threads parked in the cache.
    pub blocked: u32,
    /// `wake_pthread`: hand-offs signalled, not yet taken.
    pub wake: u32,
    /// Channels queued on `waiting_channel_info_list`.
    pub channels: u32,
    /// OS threads alive.
    pub alive: u32,
    /// Each connection (at most [`SHOWN`]): its pending queries and the thread reading it.
    pub conns: Vec<ConnView>,
}

/// One client connection (thread-per-connection).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnView {
    /// Queries sent and not yet read by its thread.
    pub pending: u32,
    /// The thread that serves it (`T3`), if one reads it now.
    pub thread: Option<String>,
}

/// The mode's shared state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MysqlStateView {
    /// The pool's groups.
    Pool(Vec<GroupView>),
    /// Thread-per-connection's cache and connections.
    PerConnection(CacheView),
}

/// Everything a mysql board shows.
#[derive(Clone, Debug, PartialEq)]
pub struct MysqlSnapshot {
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// The shared state.
    pub state: Rc<MysqlStateView>,
    /// The listing, with every thread on its line.
    pub code: Rc<Vec<CodeView>>,
    /// Core's counts of the run so far.
    pub report: MysqlReport,
    /// The counters shown (`counter-<key>`).
    pub counters: Vec<(&'static str, u64)>,
    /// The status.
    pub status: Rc<StatusView>,
    /// The invariants.
    pub invariant: Rc<InvariantView>,
}

/// A pool worker's name: its group and its index in the group (`g1t0`).
fn worker_name(grp: u8, slot: u8) -> String {
    format!("g{grp}t{}", slot as u32 - grp as u32 * MAX_GROUP_THREADS)
}

/// The name of thread `i` (its lane and its listing mark).
pub fn mysql_name(a: &MysqlActor, i: usize) -> String {
    match a {
        MysqlActor::Clients(_) => "clients".into(),
        MysqlActor::Timer(_) => "timer".into(),
        MysqlActor::Worker(w) => worker_name(w.grp, w.slot),
        MysqlActor::Conn(_) => format!("T{i}"),
    }
}

/// OS threads alive now (pool: workers + the timer).
fn os_threads(sim: &MysqlSim, mode: Mode) -> u32 {
    match mode {
        Mode::Pool => sim.word(NUM_WORKERS) + 1,
        Mode::PerConnection => sim.word(ALIVE),
    }
}

/// The counters of `r` (`counter-<key>`), the mode's own.
pub fn mysql_counters(
    r: &MysqlReport,
    steps: u64,
    os: u32,
    cs: u64,
    ticks: u32,
) -> Vec<(&'static str, u64)> {
    let mut v = vec![
        ("steps", steps),
        ("queries_sent", r.queries_sent as u64),
        ("queries_done", r.queries_done as u64),
        ("threads_created", r.threads_created as u64),
        ("os_threads", os as u64),
    ];
    if r.mode == Mode::PerConnection.name() {
        v.extend([
            ("connects", r.connects as u64),
            ("cache_hits", r.cache_hits as u64),
        ]);
    } else {
        v.extend([
            ("worker_wakeups", r.worker_wakeups as u64),
            ("timer_ticks", ticks as u64),
            ("stalls", r.stalls as u64),
        ]);
    }
    v.extend([
        ("context_switches", cs),
        ("p95_ns", r.p95_ns),
        ("sim_time_ns", r.sim_time_ns),
    ]);
    v
}

/// The pool's groups.
fn groups(sim: &MysqlSim, cfg: &MysqlConfig) -> Vec<GroupView> {
    (0..cfg.groups.min(7) as u8)
        .map(|grp| {
            let w = |off| sim.word(gw(grp, off));
            let listener = sim.threads().iter().find_map(|t| match t.machine() {
                MysqlActor::Worker(x) if x.grp == grp && x.listening => {
                    Some(worker_name(x.grp, x.slot))
                }
                _ => None,
            });
            let n = w(g::NWAIT).min(MAX_GROUP_THREADS);
            GroupView {
                listener,
                queue: w(g::Q),
                high: w(g::HQ),
                ready: w(g::RDY) + w(g::HRDY),
                threads: w(g::THREADS),
                active: w(g::ACTIVE),
                waiting: w(g::WAITING),
                connections: w(g::CONNS),
                stalled: w(g::STALLED) != 0,
                // the stack's top (the last pushed) is the front `wake_thread` pops
                sleepers: (0..n)
                    .rev()
                    .map(|i| worker_name(grp, sim.word(stack(grp, i)) as u8))
                    .collect(),
            }
        })
        .collect()
}

/// Thread-per-connection's cache and connections.
fn cache(sim: &MysqlSim, cfg: &MysqlConfig) -> CacheView {
    let conns = (0..cfg.connections.min(SHOWN as u32))
        .map(|c| ConnView {
            pending: sim.word(cfg.pend(c)),
            thread: sim
                .threads()
                .iter()
                .enumerate()
                .find_map(|(i, t)| match t.machine() {
                    MysqlActor::Conn(x)
                        if x.client == c && !x.parked && x.at.line(x) == Ln::ReadQuery =>
                    {
                        Some(format!("T{i}"))
                    }
                    _ => None,
                }),
        })
        .collect();
    CacheView {
        size: cfg.cache_size,
        blocked: sim.word(BLOCKED),
        wake: sim.word(WAKE),
        channels: sim.word(TAIL).wrapping_sub(sim.word(HEAD)),
        alive: sim.word(ALIVE),
        conns,
    }
}

/// What a thread is doing, in words.
fn detail(a: &MysqlActor) -> String {
    match a {
        MysqlActor::Clients(c) => format!("{} queries sent", c.sent),
        MysqlActor::Timer(t) => format!("{} ticks · {} stalls", t.ticks, t.stalls),
        MysqlActor::Worker(w) => {
            let doing = match w.line_name() {
                Ln::Unborn => "not created",
                Ln::Sleep => "asleep in waiting_threads",
                _ if w.listening => "listener",
                _ if w.waiting => "blocked (thd_wait)",
                _ if w.holding.is_some() => "running a query",
                _ => "in get_event",
            };
            format!("{doing} · {} done", w.done.len())
        }
        MysqlActor::Conn(c) => {
            if matches!(c.at, Conn::Unborn) {
                "no OS thread".to_string()
            } else if c.parked {
                "parked in the thread cache".to_string()
            } else {
                format!("connection C{} · {} done", c.client, c.done.len())
            }
        }
    }
}

fn marks(a: &MysqlActor) -> Vec<(&'static str, &'static str)> {
    match a {
        MysqlActor::Worker(w) if w.listening => vec![("listener", "listener")],
        MysqlActor::Worker(w) if w.waiting => vec![("thd-wait", "thd_wait")],
        MysqlActor::Conn(c) if c.parked => vec![("cached", "cached")],
        _ => Vec::new(),
    }
}

impl MysqlSnapshot {
    /// The view of `m` now.
    pub fn of(m: &MysqlSimModel) -> Self {
        // core's report and invariants read the typed simulation
        let sim: MysqlSim = typed(m.sim());
        let sim = &sim;
        let cfg = match sim.threads()[0].machine() {
            MysqlActor::Clients(c) => c.cfg,
            _ => unreachable!("thread 0 is the clients"),
        };
        let mut ticks = 0;
        let lanes = sim
            .threads()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let a = t.machine();
                let done = match a {
                    MysqlActor::Worker(w) => w.done.len() as u64,
                    MysqlActor::Conn(c) => c.done.len() as u64,
                    MysqlActor::Clients(c) => c.sent as u64,
                    MysqlActor::Timer(tm) => {
                        ticks = tm.ticks;
                        tm.ticks as u64
                    }
                };
                LaneView {
                    idx: i as u16,
                    name: mysql_name(a, i),
                    state: LaneState::of(t),
                    cpu: t.cpu(),
                    line: t.line(),
                    detail: detail(a),
                    marks: marks(a),
                    bars: vec![done],
                    can_step: sim.can_step(Actor::Thread(i as u16)),
                }
            })
            .collect();

        let state = match cfg.mode {
            Mode::Pool => MysqlStateView::Pool(groups(sim, &cfg)),
            Mode::PerConnection => MysqlStateView::PerConnection(cache(sim, &cfg)),
        };

        let text = sim
            .threads()
            .first()
            .map(|t| t.machine().listing())
            .unwrap_or(&[]);
        let mut on: Vec<Vec<u16>> = vec![Vec::new(); text.len()];
        for (i, t) in sim.threads().iter().enumerate() {
            if t.sched() == Sched::Done {
                continue;
            }
            let l = t.line() as usize;
            if (1..=text.len()).contains(&l) {
                on[l - 1].push(i as u16);
            }
        }
        let code = vec![CodeView {
            title: "the clients, the pool (get_event, listener, wake_or_create_thread, the timer) and thread-per-connection",
            prefix: "code-line-",
            lines: text
                .iter()
                .zip(on)
                .enumerate()
                .map(|(i, (&text, threads))| CodeLine {
                    n: i + 1,
                    text,
                    names: threads
                        .iter()
                        .map(|&t| mysql_name(sim.threads()[t as usize].machine(), t as usize))
                        .collect::<Vec<_>>()
                        .join(" "),
                    threads,
                    hot: false,
                })
                .collect(),
            ran: false,
        }];

        let finished = matches!(sim.status(), Status::Finished | Status::Stuck(_));
        let violation =
            check_state(sim).or_else(|| finished.then(|| check_terminal(sim)).flatten());
        let invariant = InvariantView::of(violation.as_ref());
        let os = os_threads(sim, cfg.mode);
        let report = MysqlReport::of(sim, os, violation);
        let counters = mysql_counters(
            &report,
            m.position(),
            os,
            sim.metrics().context_switches,
            ticks,
        );
        let status = StatusView {
            status: sim.status().clone(),
            position: m.position(),
            lost: 0,
            first: None,
            broken: false,
        };
        MysqlSnapshot {
            lanes: Rc::new(lanes),
            state: Rc::new(state),
            code: Rc::new(code),
            report,
            counters,
            status: Rc::new(status),
            invariant: Rc::new(invariant),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::sim_model::Action;
    use herdlab_core::mechanisms::mysql::MysqlParams;

    /// The `mysql-cache` block of lessons/mysql-thread-per-connection.md and
    /// tests/e2e/mysql.test.mjs: 4 clients reconnecting after every 2 queries, a cache of 2.
    pub(crate) fn cache_preset(cache_size: u32) -> MysqlParams {
        MysqlParams {
            mode: Mode::PerConnection,
            connections: 4,
            queries: 16,
            queries_per_conn: 2,
            cache_size,
            cpus: 2,
            rate: 2000,
            cpu_us: 50,
            ..Default::default()
        }
    }

    /// The `mysql-tp-listener` block of lessons/mysql-thread-pool.md and tests/e2e/mysql.test.mjs:
    /// one group of at most 3 threads on one CPU, 8 connections, 40 short queries.
    pub(crate) fn listener_preset() -> MysqlParams {
        MysqlParams {
            mode: Mode::Pool,
            groups: 1,
            group_threads: 3,
            cpus: 1,
            connections: 8,
            queries: 40,
            ..Default::default()
        }
    }

    fn group0(s: &MysqlSnapshot) -> GroupView {
        match &*s.state {
            MysqlStateView::Pool(gs) => gs[0].clone(),
            other => panic!("not the pool: {other:?}"),
        }
    }

    /// Stepping the thread-pool lesson's listener scenario: the group's one thread becomes the
    /// listener, then picks an event itself (the group has no listener while it runs the query),
    /// and the run ends with core's counts: one thread, no wakeups.
    #[test]
    fn the_listener_scenario_of_the_browser_test() {
        let p = listener_preset();
        let mut m = MysqlSimModel::new(p);
        let mut first_listen = None;
        let mut first_pick = None;
        // the first steps one by one, looking at each; then on to the end (the clock events after
        // the last query keep the timer ticking for four stall limits)
        while m.can_step() && m.position() < 400 {
            assert!(m.apply(Action::Step));
            let s = MysqlSnapshot::of(&m);
            assert!(s.invariant.name.is_empty(), "{:?}", s.invariant);
            let g = group0(&s);
            assert!(g.threads <= 1 && g.sleepers.is_empty(), "{g:?}");
            match (&first_listen, &first_pick, &g.listener) {
                (None, _, Some(l)) => first_listen = Some((m.position(), l.clone())),
                (Some(_), None, None) => {
                    first_pick = Some((m.position(), g.threads, g.active, g.queue))
                }
                _ => {}
            }
        }
        while m.can_step() {
            assert!(m.apply(Action::Step) && m.position() < 2_000_000);
        }
        let s = MysqlSnapshot::of(&m);
        assert!(s.invariant.name.is_empty(), "{:?}", s.invariant);
        let (_, core) = p.run(10_000_000);
        assert_eq!(core.violation, None);
        assert_eq!(
            (
                s.report.queries_done,
                s.report.threads_created,
                s.report.worker_wakeups
            ),
            (40, 1, 0)
        );
        assert_eq!(
            (s.report.threads_created, s.report.worker_wakeups),
            (core.threads_created, core.worker_wakeups)
        );
        // (step, listener) and (step, thread_count, active, queue): g0t0 listens from step 27,
        // then turns into a worker for the first query at step 42, with nothing queued
        let (listen, pick) = (
            first_listen.expect("a listener"),
            first_pick.expect("a pick"),
        );
        assert_eq!(listen, (27, "g0t0".to_string()));
        assert_eq!(pick, (42, 1, 1, 0));
    }

    fn cache_of(s: &MysqlSnapshot) -> CacheView {
        match &*s.state {
            MysqlStateView::PerConnection(c) => c.clone(),
            other => panic!("not per-connection: {other:?}"),
        }
    }

    fn counter(s: &MysqlSnapshot, k: &str) -> u64 {
        s.counters
            .iter()
            .find(|(n, _)| *n == k)
            .unwrap_or_else(|| panic!("no counter {k}"))
            .1
    }

    #[test]
    fn snapshot_at_step_0() {
        let m = MysqlSimModel::new(cache_preset(2));
        let s = MysqlSnapshot::of(&m);
        // the clients, then 4 connections + a cache of 2 + 1 closing thread slots
        assert_eq!(s.lanes.len(), 8);
        assert_eq!(s.lanes[0].name, "clients");
        assert_eq!(s.lanes[1].name, "T1");
        let c = cache_of(&s);
        assert_eq!(
            (c.size, c.blocked, c.wake, c.channels, c.alive),
            (2, 0, 0, 0, 0)
        );
        assert_eq!(c.conns.len(), 4);
        assert!(s.invariant.name.is_empty());
        assert_eq!(counter(&s, "steps"), 0);
        assert_eq!(counter(&s, "threads_created"), 0);
        let on: usize = s.code[0].lines.iter().map(|l| l.threads.len()).sum();
        assert_eq!(on, 8, "every thread is on one line");

        let pool = MysqlSimModel::new(MysqlParams {
            groups: 2,
            group_threads: 3,
            ..Default::default()
        });
        let s = MysqlSnapshot::of(&pool);
        assert_eq!(
            s.lanes.len(),
            1 + 1 + 2 * 3,
            "clients, timer, 3 slots per group"
        );
        let names: Vec<&str> = s.lanes.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["clients", "timer", "g0t0", "g0t1", "g0t2", "g1t0", "g1t1", "g1t2"]
        );
        match &*s.state {
            MysqlStateView::Pool(gs) => assert_eq!(gs.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(s.counters.iter().any(|(k, _)| *k == "stalls"));
    }

    /// Stepping the lesson's cache scenario: the cache never holds more than its size, every
    /// connection is handed off or creates a thread, and the run ends with core's counts.
    #[test]
    fn the_cache_scenario_of_the_browser_test() {
        for (cache, created, hits) in [(2, 4, 5), (0, 9, 0)] {
            let p = cache_preset(cache);
            let mut m = MysqlSimModel::new(p);
            let mut first_hit = None;
            let mut most_blocked = 0;
            while m.can_step() {
                assert!(m.apply(Action::Step) && m.position() < 20_000);
                let s = MysqlSnapshot::of(&m);
                assert!(s.invariant.name.is_empty(), "{:?}", s.invariant);
                let c = cache_of(&s);
                assert!(c.blocked <= cache && c.wake <= c.blocked);
                most_blocked = most_blocked.max(c.blocked);
                // a connection is counted when the client connects, then handed off or given a
                // new thread under LOCK_thread_cache: at most one is between the two
                let placed = counter(&s, "threads_created") + counter(&s, "cache_hits");
                let connects = counter(&s, "connects");
                assert!(
                    placed <= connects && connects <= placed + 1,
                    "{placed} {connects}"
                );
                if first_hit.is_none() && counter(&s, "cache_hits") == 1 {
                    first_hit = Some((
                        m.position(),
                        counter(&s, "threads_created"),
                        counter(&s, "connects"),
                        c.blocked,
                        c.wake,
                        c.alive,
                    ));
                }
            }
            let s = MysqlSnapshot::of(&m);
            let (_, core) = p.run(10_000_000);
            assert_eq!(core.violation, None);
            assert_eq!(
                (
                    s.report.queries_done,
                    s.report.threads_created,
                    s.report.cache_hits,
                    s.report.connects
                ),
                (16, created, hits, 9)
            );
            assert_eq!(
                (
                    s.report.threads_created,
                    s.report.cache_hits,
                    s.report.connects
                ),
                (core.threads_created, core.cache_hits, core.connects)
            );
            assert!(s.invariant.name.is_empty(), "{:?}", s.invariant);
            if cache == 0 {
                assert_eq!((first_hit, most_blocked), (None, 0));
            } else {
                // (step, threads_created, connects, blocked, wake, alive): every client connects
                // at the start (4 threads), and the first reconnection is handed to the one
                // parked thread, promised (wake_pthread 1) before it wakes
                assert_eq!(first_hit, Some((128, 4, 5, 1, 1, 4)));
                assert_eq!((most_blocked, m.position()), (2, 389));
            }
        }
    }
}
