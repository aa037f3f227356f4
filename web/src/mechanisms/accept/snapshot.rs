//! Plain data for an accept widget's view, derived from a [`AcceptSimModel`] on each render: the
//! workers' lanes, each epoll instance (ready list and sleepers), the listening sockets (wait-queue
//! entries and accept queue), the last wake walk, the accept mutex, the network's pending events,
//! the listings and the counters. Everything is read from core's simulation and report.

use std::rc::Rc;

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::accept::{AcceptReport, AcceptThread, Strategy};
use herdlab_core::op::{Fd, Interest, Op, Word};
use herdlab_core::sim::net::{ClientAction, EP_WAITER};
use herdlab_core::sim::{Actor, Note, Role, Sched, SimThread};
use herdlab_web_engine::{typed, AnyMachine, Erased};

use crate::live::describe::{fmt_ns, short_name, thread_name, LaneState};
use crate::live::snapshot::WordView;
use crate::live::snapshot::{
    cpu_views, listing, walk_view, CodeLine, CodeView, CpuView, LaneView, StatusView, WalkView,
};

pub use crate::mechanisms::accept::model::AcceptSimModel;

/// A list shows at most this many items, then "+n more".
const SHOWN: usize = 24;

/// One epoll instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpollView {
    /// Its index.
    pub idx: usize,
    /// Whose it is ("worker 2", or "shared by every worker").
    pub owner: String,
    /// How the listener is registered in it: `level`, `exclusive` or `none` (`data-listener`).
    pub listener: &'static str,
    /// Connections registered in it.
    pub conns: usize,
    /// The ready list, in order ("L0", "#3").
    pub ready: Vec<String>,
    /// The threads asleep in its `epoll_wait`, head (newest) first.
    pub sleepers: Vec<u16>,
}

/// One entry of a listening socket's wait queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SockEntryView {
    /// "ep2" or "w1".
    pub short: String,
    /// `epoll` (an epoll instance's entry) or `thread` (a blocked `accept`).
    pub kind: &'static str,
    /// `WQ_FLAG_EXCLUSIVE`.
    pub exclusive: bool,
}

/// One listening socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListenerView {
    /// Its index.
    pub idx: usize,
    /// Its wait queue, head first.
    pub entries: Vec<SockEntryView>,
    /// The accept queue's first connections, oldest first.
    pub queue: Vec<u32>,
    /// Its length.
    pub queued: usize,
}

/// The network actor: what is still to come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetView {
    /// Connections sent so far.
    pub sent: u64,
    /// Connections in the run.
    pub total: u32,
    /// Connections open now.
    pub open: usize,
    /// The pending client actions and timers, soonest first ("w2's timeout at 500 ms").
    pub pending: Vec<String>,
    /// How many more are pending than shown.
    pub more: usize,
    /// When the network acts next with the default scheduler: "next network event (…): at 12.5 ms",
    /// or why nothing is timed (on-demand arrivals wait for idle workers; or nothing is left).
    pub next: String,
    /// Whether the network can step now.
    pub can_step: bool,
    /// Whether the last step was the network's.
    pub ran_last: bool,
}

/// Figures of core's report.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportView {
    /// Connections per worker.
    pub per_worker: Vec<u64>,
    /// Jain's fairness index over them.
    pub jain: f64,
    /// The busiest worker's share (0-1).
    pub busiest: f64,
    /// Accept latency, median and 99th percentile, ns.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Time the accept mutex was held, ns.
    pub mutex_hold_ns: u64,
}

/// Everything an accept board shows.
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptSnapshot {
    /// The workers.
    pub lanes: Rc<Vec<LaneView>>,
    /// The epoll instances (none for the blocking server).
    pub epolls: Rc<Vec<EpollView>>,
    /// The listening sockets.
    pub listeners: Rc<Vec<ListenerView>>,
    /// The last wake walk of a listening socket.
    pub walk: Option<WalkView>,
    /// The network.
    pub net: Rc<NetView>,
    /// The CPUs.
    pub cpus: Rc<Vec<CpuView>>,
    /// The accept mutex's word (accept-mutex only).
    pub mutex: Option<Rc<Vec<WordView>>>,
    /// The workers' listing, then the network's.
    pub code: Rc<Vec<CodeView>>,
    /// The counters (`counter-<key>`).
    pub counters: Vec<(&'static str, u64)>,
    /// The report's figures.
    pub report: Rc<ReportView>,
    /// The run's status.
    pub status: Rc<StatusView>,
}

/// The counters an accept widget shows, in order.
pub fn accept_counter_values(model: &AcceptSimModel) -> Vec<(&'static str, u64)> {
    let sim = model.sim();
    let m = sim.metrics();
    let (won, lost) = sim.threads().iter().fold((0, 0), |(a, b), t| {
        let s = AcceptThread::get(t.machine()).stats();
        (a + s.lock_acquired, b + s.lock_failed)
    });
    vec![
        ("steps", m.steps),
        ("wakeups", m.wakeups),
        ("wasted_wakeups", m.wasted_wakeups),
        ("eagain", m.eagain),
        ("timer_wakeups", m.timer_wakeups),
        ("context_switches", m.context_switches),
        ("connections_accepted", m.connections_accepted),
        ("connections_arrived", m.connections_arrived),
        ("syscalls", m.syscalls),
        ("mutex_acquisitions", won),
        ("mutex_failures", lost),
        ("sim_time_ns", m.sim_time_ns),
        ("cpu_time_ns", m.cpu_time_ns),
        ("lost_wakeups", m.lost_wakeups),
    ]
}

const NETWORK_LISTING: [&str; 5] = [
    "conn arrives: queue it on its listener (with SO_REUSEPORT: hash(4-tuple) picks one)",
    "sock_def_readable: walk the listener's sk_wq, nr_exclusive = 1 (epoll entries: ep_poll_callback)",
    "client sends a request: ep_poll_callback on its connection's epoll, or wake its reader",
    "client closes: EOF makes the connection readable, the same wakeup",
    "an epoll_wait timeout expires: wake that worker (a timer wakeup)",
];

/// The network listing's lines the last step ran (1-based).
fn network_lines(note: Option<Note>) -> &'static [usize] {
    match note {
        Some(Note::Arrived { .. }) => &[1, 2],
        Some(Note::ClientSent { .. }) => &[3],
        Some(Note::ClientClosed { .. }) => &[4],
        Some(Note::TimerFired { .. }) => &[5],
        _ => &[],
    }
}

fn lane_state(t: &SimThread<AnyMachine>) -> LaneState {
    let s = LaneState::of(t);
    let accepting = match AcceptThread::get(t.machine()) {
        AcceptThread::Event(w) => w.is_accepting(),
        AcceptThread::Blocking(_) => t.accept_phase().is_some(),
    };
    match s {
        LaneState::Running | LaneState::Runnable if accepting => LaneState::Accepting,
        s => s,
    }
}

/// Where a sleeping worker sleeps ("in epoll_wait (timeout 500 ms)").
fn sleeps_in(t: &SimThread<AnyMachine>) -> String {
    if t.sched() != Sched::Asleep {
        return String::new();
    }
    match t.machine().next_op() {
        Op::EpollWait { .. } => match t.deadline() {
            Some(d) => format!(" · in epoll_wait until {}", fmt_ns(d)),
            None => " · in epoll_wait".to_string(),
        },
        Op::Accept(_) => " · in accept".to_string(),
        Op::Recv(c) => format!(" · in read of #{c}"),
        _ => String::new(),
    }
}

fn lanes(model: &AcceptSimModel) -> Vec<LaneView> {
    let sim = model.sim();
    let mutex = model.params().strategy == Strategy::AcceptMutex;
    sim.threads()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let tm = t.metrics();
            let mut marks = Vec::new();
            let mut detail = format!(
                "woken {} · wasted {} · accepted {} · EAGAIN {}",
                tm.wakeups, tm.wasted_wakeups, tm.accepted, tm.eagain
            );
            if let AcceptThread::Event(w) = AcceptThread::get(t.machine()) {
                detail.push_str(&format!(" · open {}", w.active()));
                if mutex {
                    if w.locked() {
                        marks.push(("mutex-holder", "holds the accept mutex"));
                    }
                    if w.held() {
                        marks.push(("held", "held: listener registered"));
                    }
                    detail.push_str(&format!(" · accept_disabled {}", w.accept_disabled()));
                }
            }
            detail.push_str(&sleeps_in(t));
            LaneView {
                idx: i as u16,
                name: thread_name(sim, i as u16),
                state: lane_state(t),
                cpu: t.cpu(),
                line: t.line(),
                detail,
                marks,
                bars: vec![tm.accepted, tm.wakeups, tm.wasted_wakeups],
                can_step: sim.can_step(Actor::Thread(i as u16)),
            }
        })
        .collect()
}

fn fd_name(fd: &Fd) -> String {
    match fd {
        Fd::Listener(l) => format!("L{}", l.0),
        Fd::Conn(c) => format!("#{c}"),
    }
}

fn epolls(model: &AcceptSimModel) -> Vec<EpollView> {
    let sim = model.sim();
    let Some(net) = sim.net() else {
        return Vec::new();
    };
    let shared = net.epolls.len() == 1 && sim.threads().len() > 1;
    net.epolls
        .iter()
        .enumerate()
        .map(|(idx, e)| {
            let listener = e
                .interest
                .iter()
                .find(|(fd, _)| matches!(fd, Fd::Listener(_)))
                .map(|(_, i)| match i {
                    Interest::LevelExclusive => "exclusive",
                    _ => "level",
                })
                .unwrap_or("none");
            EpollView {
                idx,
                owner: if shared {
                    "shared by every worker".to_string()
                } else {
                    thread_name(sim, idx as u16)
                },
                listener,
                conns: e
                    .interest
                    .iter()
                    .filter(|(fd, _)| matches!(fd, Fd::Conn(_)))
                    .count(),
                ready: e.ready.iter().take(SHOWN).map(fd_name).collect(),
                sleepers: e.wq.entries().iter().map(|x| x.waiter).collect(),
            }
        })
        .collect()
}

fn listeners(model: &AcceptSimModel) -> Vec<ListenerView> {
    let sim = model.sim();
    sim.listeners()
        .iter()
        .enumerate()
        .map(|(idx, l)| ListenerView {
            idx,
            entries: l
                .wq
                .entries()
                .iter()
                .map(|e| SockEntryView {
                    short: short_name(sim, e.waiter),
                    kind: if e.waiter >= EP_WAITER {
                        "epoll"
                    } else {
                        "thread"
                    },
                    exclusive: e.exclusive,
                })
                .collect(),
            queue: l.queue.iter().take(SHOWN).copied().collect(),
            queued: l.queue.len(),
        })
        .collect()
}

fn net_view(model: &AcceptSimModel) -> NetView {
    let sim = model.sim();
    let mut pending = Vec::new();
    let mut count = 0;
    if let Some(n) = sim.net() {
        count = n.client.len() + n.timers.len();
        // both sets are ordered by time: merge them, soonest first
        let mut client = n.client.iter().peekable();
        let mut timers = n.timers.iter().peekable();
        while pending.len() < SHOWN {
            let take_client = match (client.peek(), timers.peek()) {
                (Some(c), Some(t)) => c.0 <= t.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            pending.push(if take_client {
                let &(t, c, a) = client.next().expect("peeked");
                let what = match a {
                    ClientAction::Request => "sends a request",
                    ClientAction::Close => "closes",
                };
                format!("the client of #{c} {what} at {}", fmt_ns(t))
            } else {
                let &(t, w) = timers.next().expect("peeked");
                format!(
                    "{}'s epoll_wait timeout at {}",
                    short_name(sim, w),
                    fmt_ns(t)
                )
            });
        }
    }
    let m = sim.metrics();
    NetView {
        sent: m.connections_arrived,
        total: sim.events_total(),
        open: sim.net().map_or(0, |n| n.open_conns()),
        more: count.saturating_sub(pending.len()),
        pending,
        next: next_line(
            sim.network_due_ns(),
            m.connections_arrived < u64::from(sim.events_total()),
        ),
        can_step: model.can_connect(),
        ran_last: sim.last_step().is_some_and(|r| r.actor == Actor::Network),
    }
}

/// The network panel's line on when the network acts next: at `due`, or, with nothing timed,
/// whether connections are still to come (`more`: they arrive once the workers are idle).
fn next_line(due: Option<u64>, more: bool) -> String {
    match (due, more) {
        (Some(t), _) => format!(
            "next network event (arrival, client or timer): at {}",
            fmt_ns(t)
        ),
        (None, true) => {
            "nothing timed: the next connection arrives once every worker is idle".to_string()
        }
        (None, false) => "nothing left for the network to do".to_string(),
    }
}

fn mutex_word(model: &AcceptSimModel) -> Option<Vec<WordView>> {
    if model.params().strategy != Strategy::AcceptMutex {
        return None;
    }
    let sim = model.sim();
    let pid = sim.word(Word(0));
    // each worker's pid is its index + 1 (`EventWorker::new`)
    let holder = pid.checked_sub(1).map(|t| t as u16);
    let held: Vec<String> = sim
        .threads()
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            AcceptThread::get(t.machine())
                .event()
                .is_some_and(|w| w.held())
        })
        .map(|(i, _)| format!("w{i}"))
        .collect();
    Some(vec![
        WordView {
            testid: "mutex-word",
            label: "accept mutex (lock word)",
            value: pid.to_string(),
            note: match holder {
                None => "free".to_string(),
                Some(t) => format!("held by worker {t} (pid {pid})"),
            },
            threads: holder.into_iter().collect(),
        },
        WordView {
            testid: "held-workers",
            label: "held (listener registered)",
            value: if held.is_empty() {
                "none".to_string()
            } else {
                held.join(" ")
            },
            note: "ngx_accept_mutex_held: set on winning the trylock, cleared by the next lost one"
                .to_string(),
            threads: Vec::new(),
        },
    ])
}

fn code(model: &AcceptSimModel) -> Vec<CodeView> {
    let sim = model.sim();
    let mut code = Vec::new();
    let short = |t: u16| short_name(sim, t);
    if let Some(c) = listing(sim, "worker", "code-line-", Role::Worker, &short) {
        code.push(c);
    }
    let hot = network_lines(sim.last_step().map(|r| r.note));
    code.push(CodeView {
        title: "network and kernel",
        prefix: "network-line-",
        lines: NETWORK_LISTING
            .iter()
            .enumerate()
            .map(|(i, &text)| CodeLine {
                n: i + 1,
                text,
                threads: Vec::new(),
                names: String::new(),
                hot: hot.contains(&(i + 1)),
            })
            .collect(),
        ran: false,
    });
    code
}

impl AcceptSnapshot {
    /// The view of `m` now.
    pub fn of(m: &AcceptSimModel) -> Self {
        let sim = m.sim();
        let r = AcceptReport::from_sim(m.params(), &typed(sim));
        let report = ReportView {
            per_worker: r.per_worker_connections,
            jain: r.jain_index,
            busiest: r.busiest_share,
            p50: r.accept_p50_ns,
            p99: r.accept_p99_ns,
            mutex_hold_ns: r.mutex_hold_ns,
        };
        let status = StatusView {
            status: sim.status().clone(),
            position: m.position(),
            lost: sim.metrics().lost_wakeups,
            first: sim.first_violation(),
            broken: false,
        };
        AcceptSnapshot {
            lanes: Rc::new(lanes(m)),
            epolls: Rc::new(epolls(m)),
            listeners: Rc::new(listeners(m)),
            walk: m.last_walk().map(|w| WalkView {
                // a reuseport group: say which socket's queue the arrival walked
                listener: (sim.listeners().len() > 1).then_some(w.listener),
                ..walk_view(w, m.position(), &|t| short_name(sim, t))
            }),
            net: Rc::new(net_view(m)),
            cpus: Rc::new(cpu_views(sim)),
            mutex: mutex_word(m).map(Rc::new),
            code: Rc::new(code(m)),
            counters: accept_counter_values(m),
            report: Rc::new(report),
            status: Rc::new(status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::sim_model::Action;
    use herdlab_core::mechanisms::accept::AcceptParams;

    fn p(strategy: Strategy) -> AcceptParams {
        AcceptParams {
            strategy,
            workers: 4,
            cpus: 2,
            connections: 1,
            ..AcceptParams::default()
        }
    }

    fn count(s: &AcceptSnapshot, key: &str) -> u64 {
        s.counters
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, v)| v)
            .unwrap_or(u64::MAX)
    }

    #[test]
    fn a_herd_board_at_the_start_and_the_end() {
        let mut m = AcceptSimModel::new(p(Strategy::Herd));
        let s = AcceptSnapshot::of(&m);
        assert_eq!(s.lanes.len(), 4);
        assert_eq!(s.epolls.len(), 4);
        assert_eq!(s.listeners.len(), 1);
        assert!(s.mutex.is_none());
        assert_eq!(
            s.code[0].lines.len(),
            m.sim().threads()[0].machine().listing().len()
        );
        assert!(s.code[0].lines.iter().any(|l| !l.threads.is_empty()));
        // every worker registers the listener (non-exclusive, head), then sleeps in epoll_wait
        m.apply(Action::NextWakeup);
        let s = AcceptSnapshot::of(&m);
        let w = s.walk.as_ref().expect("the arrival's walk");
        assert_eq!(w.visits.len(), 4, "{w:?}");
        assert!(w
            .visits
            .iter()
            .all(|v| v.short.starts_with("ep") && !v.exclusive));
        assert_eq!(s.listeners[0].entries.len(), 4);
        assert!(s.listeners[0].entries.iter().all(|e| e.kind == "epoll"));
        assert!(s.code[1].lines[0].hot && s.code[1].lines[1].hot);
        m.apply(Action::RunToEnd);
        let s = AcceptSnapshot::of(&m);
        assert_eq!(count(&s, "connections_accepted"), 1);
        assert_eq!(count(&s, "wasted_wakeups"), 3);
        assert_eq!(s.report.per_worker.iter().sum::<u64>(), 1);
        assert!((s.report.jain - 0.25).abs() < 1e-9);
        assert!(s.lanes.iter().all(|l| l.state == LaneState::Sleeping));
    }

    #[test]
    fn exclusive_and_shared_and_reuseport_boards() {
        let mut m = AcceptSimModel::new(p(Strategy::Exclusive));
        m.apply(Action::NextWakeup);
        let s = AcceptSnapshot::of(&m);
        assert!(s.listeners[0].entries.iter().all(|e| e.exclusive));
        assert!(s.epolls.iter().all(|e| e.listener == "exclusive"));
        m.apply(Action::RunToEnd);
        assert_eq!(count(&AcceptSnapshot::of(&m), "wasted_wakeups"), 0);
        let m = AcceptSimModel::new(p(Strategy::SharedEpoll));
        let s = AcceptSnapshot::of(&m);
        assert_eq!(s.epolls.len(), 1);
        assert_eq!(s.epolls[0].owner, "shared by every worker");
        let m = AcceptSimModel::new(p(Strategy::Reuseport));
        assert_eq!(AcceptSnapshot::of(&m).listeners.len(), 4);
        let m = AcceptSimModel::new(p(Strategy::Blocking));
        let s = AcceptSnapshot::of(&m);
        assert!(s.epolls.is_empty());
    }

    #[test]
    fn the_walk_names_its_reuseport_listener_and_the_network_its_next_time() {
        // one listener: the walk names none
        let mut m = AcceptSimModel::new(p(Strategy::Herd));
        m.apply(Action::NextWakeup);
        let s = AcceptSnapshot::of(&m);
        assert_eq!(s.walk.as_ref().map(|w| w.listener), Some(None));
        // a reuseport group: the arrival walked the queue of the socket the hash picked
        let mut m = AcceptSimModel::new(p(Strategy::Reuseport));
        let s = AcceptSnapshot::of(&m);
        let first = m.sim().network_due_ns().expect("a first arrival is due");
        assert!(
            s.net.next.ends_with(&format!(": at {}", fmt_ns(first))),
            "{}",
            s.net.next
        );
        m.apply(Action::NextWakeup);
        let s = AcceptSnapshot::of(&m);
        let w = s.walk.as_ref().expect("the arrival's walk");
        assert_eq!(w.listener, Some(m.sim().last_walk_listener()));
        let l = w.listener.unwrap() as usize;
        // the walk visited the entries of that socket's wait queue
        assert_eq!(w.visits.len(), s.listeners[l].entries.len(), "{w:?}");
        m.apply(Action::RunToEnd);
        let end = AcceptSnapshot::of(&m).net.next.clone();
        assert_eq!(end, "nothing left for the network to do");
        // on-demand arrivals are not timed: the first comes once every worker sleeps
        let m = AcceptSimModel::new(AcceptParams {
            arrival: herdlab_core::sim::arrivals::ArrivalPattern::OnDemand,
            ..p(Strategy::Herd)
        });
        assert!(AcceptSnapshot::of(&m).net.next.starts_with("nothing timed"));
    }

    #[test]
    fn the_accept_mutex_board() {
        let mut m = AcceptSimModel::new(AcceptParams {
            connections: 5,
            ..p(Strategy::AcceptMutex)
        });
        let mut saw_holder = false;
        let mut saw_held = false;
        for _ in 0..400 {
            m.apply(Action::Step);
            let s = AcceptSnapshot::of(&m);
            let words = s.mutex.as_ref().expect("the mutex word");
            let pid: u32 = words[0].value.parse().expect("a number");
            let holders: Vec<u16> = s
                .lanes
                .iter()
                .filter(|l| l.marks.iter().any(|(c, _)| *c == "mutex-holder"))
                .map(|l| l.idx)
                .collect();
            // the lock word names the worker whose lane says it holds the mutex
            if pid == 0 {
                assert!(holders.is_empty());
            } else {
                assert_eq!(holders, [(pid - 1) as u16]);
                saw_holder = true;
            }
            saw_held |= s
                .lanes
                .iter()
                .any(|l| l.marks.iter().any(|(c, _)| *c == "held"));
        }
        assert!(saw_holder && saw_held);
        // the losers sleep with accept_mutex_delay timers, listed soonest first
        let net = AcceptSnapshot::of(&m).net;
        assert!(
            net.pending.iter().any(|s| s.contains("timeout")),
            "{:?}",
            net.pending
        );
        assert!(count(&AcceptSnapshot::of(&m), "mutex_acquisitions") > 0);
    }

    #[test]
    fn random_actions_never_panic_and_links_replay() {
        use crate::lesson::picks::parse_picks;
        use herdlab_core::mechanisms::accept::MutexVariant;
        use herdlab_core::sim::arrivals::ArrivalPattern;
        let mut x: u64 = 0x1234_5678_9ABC_DEF1;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..36 {
            let p = AcceptParams {
                strategy: Strategy::ALL[case % 6],
                workers: 1 + rnd(12) as u32,
                cpus: 1 + rnd(4) as u32,
                connections: 1 + rnd(20) as u32,
                rate: 1 + rnd(1_000_000) as u32,
                arrival: [
                    ArrivalPattern::OnDemand,
                    ArrivalPattern::Burst,
                    ArrivalPattern::Poisson,
                    ArrivalPattern::Steady,
                ][rnd(4) as usize],
                burst: 1 + rnd(8) as u32,
                requests: 1 + rnd(3) as u32,
                service_ns: rnd(50_000),
                think_ns: rnd(100_000),
                multi_accept: rnd(2) == 0,
                reorder_every: rnd(20) as u32,
                mutex_delay_ms: 1 + rnd(600) as u32,
                worker_connections: 1 + rnd(600) as u32,
                variant: MutexVariant::ALL[rnd(4) as usize],
                local_clients: rnd(2) == 0,
                seed: rnd(u64::MAX),
            };
            assert!(herdlab_core::scenario::validate_accept(&p).is_empty());
            let mut m = AcceptSimModel::new(p);
            for _ in 0..300 {
                let a = match rnd(9) {
                    0 => Action::Back,
                    1 => Action::StepActor(Actor::Thread(rnd(14) as u16)),
                    2 => Action::StepActor(Actor::Network),
                    3 => Action::NextWakeup,
                    _ => Action::Step,
                };
                m.apply(a);
                let _ = AcceptSnapshot::of(&m);
            }
            let q = m.link_query();
            assert!(q.starts_with("mechanism=accept&"), "{q}");
            let picks = parse_picks(q.split("picks=").nth(1).unwrap_or("")).unwrap_or_default();
            let (r, bad) = AcceptSimModel::replayed(p, m.position(), &picks);
            assert_eq!(bad, None, "case {case}");
            assert_eq!(r.sim().trace_hash(), m.sim().trace_hash(), "case {case}");
        }
    }
}
