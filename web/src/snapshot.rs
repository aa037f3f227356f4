//! Plain data for the view, derived from a [`SimModel`] on each render. Each part is compared by
//! value, so a part that did not change is not re-rendered.

use std::rc::Rc;

use herdlab_core::herd::{Primitive, Variant};
use herdlab_core::machine::Machine;
use herdlab_core::metrics::Metrics;
use herdlab_core::op::Word;
use herdlab_core::sim::{Actor, Role, Sched, Simulation, Status};

use crate::describe::{short_name, thread_name, LaneState};
use crate::model::{SimModel, Walk};

/// The accept queue shows at most this many connections.
const ACCEPT_SHOWN: usize = 32;
/// A code line names at most this many threads.
const CODE_NAMES: usize = 4;

/// One lane (thread).
#[derive(Clone, Debug, PartialEq)]
pub struct LaneView {
    /// The thread index.
    pub idx: u16,
    /// "worker 3" / "producer".
    pub name: String,
    /// Its state.
    pub state: LaneState,
    /// Its CPU.
    pub cpu: u8,
    /// The line its next step executes.
    pub line: u16,
    /// Its counters in words ("woken 2 · wasted 1 · took 0").
    pub detail: String,
    /// Markers, as (class, label): shown as badges, and set as classes on the lane.
    pub marks: Vec<(&'static str, &'static str)>,
    /// The values a comparison draws as bars (herd: taken, woken; locks: acquired); empty for a
    /// thread that gets no bar (the producer).
    pub bars: Vec<u64>,
    /// Whether its step button works now.
    pub can_step: bool,
}

/// One wait-queue entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryView {
    /// The sleeper.
    pub thread: u16,
    /// "w3".
    pub short: String,
    /// `WQ_FLAG_EXCLUSIVE`.
    pub exclusive: bool,
}

/// One visit of a wake walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisitView {
    /// "w3".
    pub short: String,
    /// The entry was exclusive.
    pub exclusive: bool,
    /// The wake function's return.
    pub ret: i32,
    /// `nr_exclusive` left after it.
    pub budget_left: u32,
}

/// The last wake walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkView {
    /// The step that ran it.
    pub step: u64,
    /// True when it ran on the step just taken.
    pub fresh: bool,
    /// The starting budget (0: no limit).
    pub budget: u32,
    /// The visits, head first.
    pub visits: Vec<VisitView>,
    /// Why it stopped.
    pub end: &'static str,
    /// The listening socket it walked, where there are several (an `SO_REUSEPORT` group).
    pub listener: Option<u8>,
}

/// The queue the sleepers wait on, with the last walk over it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueView {
    /// What queue this is.
    pub title: &'static str,
    /// The entries, head first.
    pub entries: Vec<EntryView>,
    /// The last walk.
    pub walk: Option<WalkView>,
    /// For the condition variable: who holds the mutex and who waits for it.
    pub mutex: Option<(Option<String>, Vec<String>)>,
    /// For the futex: the words `tickets` and `waiters`.
    pub words: Option<(u32, u32)>,
}

/// The accept queue and the arrivals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptView {
    /// Whether there is a listening socket at all.
    pub network: bool,
    /// The first connections, oldest first.
    pub conns: Vec<u32>,
    /// How many more are queued than shown.
    pub more: usize,
    /// Events not delivered yet.
    pub remaining: u32,
    /// Events in the run.
    pub total: u32,
    /// Whether the network can step now.
    pub can_step: bool,
    /// Whether the last step was the network's.
    pub ran_last: bool,
}

/// One CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuView {
    /// Its index.
    pub idx: usize,
    /// Who runs on it.
    pub current: Option<String>,
    /// Its run queue, front first.
    pub runq: Vec<String>,
    /// Its clock.
    pub clock: u64,
}

/// One line of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLine {
    /// 1-based.
    pub n: usize,
    /// The text.
    pub text: &'static str,
    /// Threads on it (data-threads).
    pub threads: Vec<u16>,
    /// Their short names, shortened.
    pub names: String,
    /// The line the last step ran, when no thread is on it (the network's).
    pub hot: bool,
}

/// A listing with its threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeView {
    /// The heading.
    pub title: &'static str,
    /// `code-line-` for the workers; `producer-line-` and `network-line-` for the others.
    pub prefix: &'static str,
    /// The lines.
    pub lines: Vec<CodeLine>,
    /// Lines marked as just run (the network's), when nobody sits on them.
    pub ran: bool,
}

/// The run's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusView {
    /// Running, finished or stuck.
    pub status: Status,
    /// Steps taken.
    pub position: u64,
    /// Lost wakeups counted.
    pub lost: u64,
    /// The first one: step and connection.
    pub first: Option<(u64, u32)>,
    /// Whether the broken sleeper runs.
    pub broken: bool,
}

/// Everything a simulation board shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// The wait queue.
    pub queue: Rc<QueueView>,
    /// The accept queue.
    pub accept: Rc<AcceptView>,
    /// The CPUs.
    pub cpus: Rc<Vec<CpuView>>,
    /// The workers' listing, then the producer's or the network's.
    pub code: Rc<Vec<CodeView>>,
    /// The counters.
    pub metrics: Metrics,
    /// The status.
    pub status: Rc<StatusView>,
}

const NETWORK_LISTING: [&str; 2] = [
    "conn arrives: accept_queue.push(conn)",
    "sk_data_ready(): wake_up(&sk_wq, nr_exclusive = 1)",
];

fn names(threads: &[u16], short: &dyn Fn(u16) -> String) -> String {
    let mut s: Vec<String> = threads.iter().take(CODE_NAMES).map(|&t| short(t)).collect();
    if threads.len() > CODE_NAMES {
        s.push(format!("+{}", threads.len() - CODE_NAMES));
    }
    s.join(" ")
}

/// The listing of the threads with this role (the first one's), with the line each unfinished one
/// is on; `short` names a thread in the margin.
pub fn listing<M: Machine>(
    sim: &Simulation<M>,
    title: &'static str,
    prefix: &'static str,
    role: Role,
    short: &dyn Fn(u16) -> String,
) -> Option<CodeView> {
    let first = sim.threads().iter().find(|t| t.role() == role)?;
    let text = first.machine().listing();
    let mut on: Vec<Vec<u16>> = vec![Vec::new(); text.len()];
    for (i, t) in sim.threads().iter().enumerate() {
        if t.role() != role || t.sched() == Sched::Done {
            continue;
        }
        let l = t.line() as usize;
        if (1..=text.len()).contains(&l) {
            on[l - 1].push(i as u16);
        }
    }
    Some(CodeView {
        title,
        prefix,
        lines: text
            .iter()
            .zip(on)
            .enumerate()
            .map(|(i, (&text, threads))| CodeLine {
                n: i + 1,
                text,
                names: names(&threads, short),
                threads,
                hot: false,
            })
            .collect(),
        ran: false,
    })
}

/// The CPUs of `sim`: who runs, the run queues, the clocks.
pub fn cpu_views<M: Machine>(sim: &Simulation<M>) -> Vec<CpuView> {
    sim.cpus()
        .iter()
        .enumerate()
        .map(|(idx, c)| CpuView {
            idx,
            current: c.current().map(|t| short_name(sim, t)),
            runq: c.run_queue().map(|t| short_name(sim, t)).collect(),
            clock: c.clock_ns(),
        })
        .collect()
}

/// The view of wake walk `w`, seen at step `position`; `short` names each waiter.
pub fn walk_view(w: &Walk, position: u64, short: &dyn Fn(u16) -> String) -> WalkView {
    let visits: Vec<VisitView> = w
        .visits
        .iter()
        .map(|v| VisitView {
            short: short(v.waiter),
            exclusive: v.exclusive,
            ret: v.ret,
            budget_left: v.budget_left,
        })
        .collect();
    let end = visits.last().map(|l| walk_end(w.budget, l)).unwrap_or("");
    WalkView {
        step: w.step,
        fresh: w.step == position,
        budget: w.budget,
        visits,
        end,
        listener: None,
    }
}

fn walk_end(budget: u32, last: &VisitView) -> &'static str {
    if last.ret < 0 {
        "stopped: a wake function returned a negative value"
    } else if budget > 0 && last.exclusive && last.ret > 0 && last.budget_left == 0 {
        "stopped: the budget is spent"
    } else {
        "stopped: end of the queue"
    }
}

impl Snapshot {
    /// The view of `m` now.
    pub fn of(m: &SimModel) -> Self {
        let sim = m.sim();
        let p = m.params();
        let lanes = sim
            .threads()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let tm = t.metrics();
                LaneView {
                    idx: i as u16,
                    name: thread_name(sim, i as u16),
                    state: LaneState::of(t),
                    cpu: t.cpu(),
                    line: t.line(),
                    detail: format!(
                        "woken {} · wasted {} · took {}",
                        tm.wakeups, tm.wasted_wakeups, tm.accepted
                    ),
                    marks: Vec::new(),
                    bars: if t.role() == Role::Worker {
                        vec![tm.accepted, tm.wakeups]
                    } else {
                        Vec::new()
                    },
                    can_step: sim.can_step(Actor::Thread(i as u16)),
                }
            })
            .collect();

        let (title, wq) = match p.primitive {
            Primitive::Accept => (
                "wait queue of the listening socket (sk_wq), head first",
                sim.listen_wait_queue(),
            ),
            Primitive::Futex => (
                "futex queue of the word tickets, head first",
                sim.futex_queue(Word(0)),
            ),
            Primitive::Condvar => ("condition variable's queue, head first", sim.cond_queue(0)),
        };
        let entries = wq
            .entries()
            .iter()
            .map(|e| EntryView {
                thread: e.waiter,
                short: short_name(sim, e.waiter),
                exclusive: e.exclusive,
            })
            .collect();
        let walk = m
            .last_walk()
            .map(|w| walk_view(w, m.position(), &|t| short_name(sim, t)));
        let mutex = (p.primitive == Primitive::Condvar).then(|| {
            (
                sim.mutex_owner(0).map(|o| short_name(sim, o)),
                sim.mutex_queue(0)
                    .entries()
                    .iter()
                    .map(|e| short_name(sim, e.waiter))
                    .collect(),
            )
        });
        let words =
            (p.primitive != Primitive::Accept).then(|| (sim.word(Word(0)), sim.word(Word(1))));
        let queue = QueueView {
            title,
            entries,
            walk,
            mutex,
            words,
        };

        let queued = sim.accept_queue_len();
        let accept = AcceptView {
            network: sim.has_network(),
            conns: sim.accept_queue().take(ACCEPT_SHOWN).collect(),
            more: queued.saturating_sub(ACCEPT_SHOWN),
            remaining: sim.events_remaining(),
            total: sim.events_total(),
            can_step: m.can_connect(),
            ran_last: sim.last_step().is_some_and(|r| r.actor == Actor::Network),
        };

        let cpus = cpu_views(sim);

        let mut code = Vec::new();
        let short = |t: u16| short_name(sim, t);
        if let Some(c) = listing(sim, "worker", "code-line-", Role::Worker, &short) {
            code.push(c);
        }
        if let Some(c) = listing(sim, "producer", "producer-line-", Role::Producer, &short) {
            code.push(c);
        }
        if sim.has_network() {
            code.push(CodeView {
                title: "network",
                prefix: "network-line-",
                lines: NETWORK_LISTING
                    .iter()
                    .enumerate()
                    .map(|(i, &text)| CodeLine {
                        n: i + 1,
                        text,
                        threads: Vec::new(),
                        names: String::new(),
                        hot: false,
                    })
                    .collect(),
                ran: accept.ran_last,
            });
        }

        let status = StatusView {
            status: sim.status().clone(),
            position: m.position(),
            lost: sim.metrics().lost_wakeups,
            first: sim.first_violation(),
            broken: p.variant == Variant::BrokenSleeper,
        };

        Snapshot {
            lanes: Rc::new(lanes),
            queue: Rc::new(queue),
            accept: Rc::new(accept),
            cpus: Rc::new(cpus),
            code: Rc::new(code),
            metrics: *sim.metrics(),
            status: Rc::new(status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Action;
    use herdlab_core::herd::HerdParams;

    #[test]
    fn snapshot_of_a_herd() {
        let mut m = SimModel::new(HerdParams {
            workers: 3,
            cpus: 1,
            connections: 1,
            ..Default::default()
        });
        let s = Snapshot::of(&m);
        assert_eq!(s.lanes.len(), 3);
        assert_eq!(s.code.len(), 2);
        assert!(s.code[0].lines.iter().any(|l| !l.threads.is_empty()));
        m.apply(Action::NextWakeup);
        let s = Snapshot::of(&m);
        let w = s.queue.walk.as_ref().expect("walk");
        assert!(w.fresh);
        assert_eq!(w.visits.len(), 3);
        assert_eq!(w.end, "stopped: end of the queue");
        let mut f = SimModel::new(HerdParams {
            primitive: Primitive::Condvar,
            workers: 2,
            ..Default::default()
        });
        f.apply(Action::Step);
        let s = Snapshot::of(&f);
        assert_eq!(s.lanes.len(), 3);
        assert_eq!(s.lanes[2].name, "producer");
        assert!(s.queue.mutex.is_some());
        assert_eq!(s.code[1].prefix, "producer-line-");
    }
}
