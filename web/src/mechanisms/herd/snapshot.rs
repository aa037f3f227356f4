//! The herd's view, derived from its model on each render: the lanes, the queue the sleepers wait
//! on (the listening socket's, the futex's or the condition variable's) with its last walk, the
//! accept queue, the CPUs, the listings and the status.

use std::rc::Rc;

use herdlab_core::mechanisms::herd::{Primitive, Variant};
use herdlab_core::metrics::Metrics;
use herdlab_core::op::Word;
use herdlab_core::sim::{Actor, Role};

use crate::live::describe::{short_name, thread_name, LaneState};
use crate::live::snapshot::{
    cpu_views, listing, walk_view, CodeLine, CodeView, CpuView, EntryView, LaneView, QueueView,
    StatusView,
};
use crate::mechanisms::herd::model::HerdModel;

/// The accept queue shows at most this many connections.
const ACCEPT_SHOWN: usize = 32;

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

impl Snapshot {
    /// The view of `m` now.
    pub fn of(m: &HerdModel) -> Self {
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
    use crate::live::sim_model::Action;
    use herdlab_core::mechanisms::herd::HerdParams;

    #[test]
    fn snapshot_of_a_herd() {
        let mut m = HerdModel::new(HerdParams {
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
        let mut f = HerdModel::new(HerdParams {
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
