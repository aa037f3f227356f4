//! The pool's view, derived from its model on each render: the lanes (the event loop, the pool
//! threads, the injector), the task queue with its `last` pointer, the signed `waiting` counter,
//! the done list, the eventfd counter, the mutex and the condition variable's sleepers, the
//! listing, the counters of core's [`PoolReport`] and the invariants.

use std::rc::Rc;

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::pool::invariants::{check_state, check_terminal};
use herdlab_core::mechanisms::pool::machine::{
    next_of, DONE_FIRST, DONE_LAST, FIRST, LAST, NOTIFY, TASK_BASE, WAITING,
};
use herdlab_core::mechanisms::pool::{PoolActor, PoolReport, PoolSim};
use herdlab_core::sim::{Actor, Sched, Status};
use herdlab_web_engine::typed;

use crate::live::describe::LaneState;
use crate::live::snapshot::{CodeLine, CodeView, InvariantView, LaneView, StatusView};
use crate::mechanisms::pool::model::PoolSimModel;

/// A list shows at most this many tasks.
const SHOWN: usize = 24;

/// The name of thread `i` ("event loop", "pool thread 2", "injector").
pub fn pool_name(sim: &PoolSim, i: u16) -> String {
    match sim.threads().get(i as usize).map(|t| t.machine()) {
        Some(PoolActor::Loop(_)) => "event loop".into(),
        Some(PoolActor::Thread(_)) => format!("pool thread {i}"),
        Some(PoolActor::Injector(_)) => "injector".into(),
        None => format!("thread {i}"),
    }
}

/// The short name of thread `i` in the code margin and the queues ("E", "t2", "inj").
pub fn pool_short(sim: &PoolSim, i: u16) -> String {
    match sim.threads().get(i as usize).map(|t| t.machine()) {
        Some(PoolActor::Loop(_)) => "E".into(),
        Some(PoolActor::Injector(_)) => "inj".into(),
        _ => format!("t{i}"),
    }
}

/// A task list (the queue or the done list) walked from its `first` word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListView {
    /// The task ids, first first (at most [`SHOWN`]).
    pub tasks: Vec<u32>,
    /// The walk stopped before the end (too long, or a cycle).
    pub cut: bool,
    /// Where `last` points: `&first` or `&task k.next`.
    pub last: String,
}

/// The pool's shared state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolStateView {
    /// `tp->queue`.
    pub queue: ListView,
    /// `tp->waiting` (queued tasks minus idle threads; negative while threads sit idle).
    pub waiting: i32,
    /// `ngx_thread_pool_done`.
    pub done: ListView,
    /// The eventfd's counter.
    pub notify: u32,
    /// Who holds `tp->mtx`.
    pub mutex_holder: Option<String>,
    /// Who waits for `tp->mtx`.
    pub mutex_waiters: Vec<String>,
    /// Who sleeps in `cond_wait` on `tp->cond`, front first.
    pub cond_sleepers: Vec<String>,
}

/// Everything a pool board shows.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolSnapshot {
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// The shared state.
    pub state: Rc<PoolStateView>,
    /// The listing, with every thread on its line.
    pub code: Rc<Vec<CodeView>>,
    /// Core's counts of the run so far.
    pub report: PoolReport,
    /// The counters shown (`counter-<key>`).
    pub counters: Vec<(&'static str, u64)>,
    /// The status.
    pub status: Rc<StatusView>,
    /// The invariants.
    pub invariant: Rc<InvariantView>,
}

fn where_last(word: u32) -> String {
    if word == FIRST.0 as u32 || word == DONE_FIRST.0 as u32 {
        return "&first".into();
    }
    match word.checked_sub(TASK_BASE as u32) {
        Some(d) if d % 2 == 0 => format!("&task {}.next", d / 2 + 1),
        _ => format!("word {word}"),
    }
}

fn list(sim: &PoolSim, first: u32, last: u32) -> ListView {
    let mut tasks = Vec::new();
    let mut k = first;
    let mut cut = false;
    while k != 0 {
        if tasks.len() >= SHOWN || tasks.contains(&k) {
            cut = true;
            break;
        }
        tasks.push(k);
        k = sim.word(next_of(k));
    }
    ListView {
        tasks,
        cut,
        last: where_last(last),
    }
}

/// The counters of `r` after `steps` steps, with the simulator's context switches.
pub fn pool_counters(r: &PoolReport, steps: u64, switches: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("steps", steps),
        ("requests", r.requests as u64),
        ("cached", r.cached as u64),
        ("inline_reads", r.inline_reads as u64),
        ("tasks_posted", r.tasks_posted as u64),
        ("tasks_done", r.tasks_done as u64),
        ("overflows", r.overflows as u64),
        ("wakeups", r.wakeups),
        ("wasted_wakeups", r.wasted_wakeups),
        ("notify_wakes", r.notify_wakes as u64),
        ("max_batch", r.max_batch as u64),
        ("context_switches", switches),
        ("sim_time_ns", r.sim_time_ns),
    ]
}

impl PoolSnapshot {
    /// The view of `m` now.
    pub fn of(m: &PoolSimModel) -> Self {
        // core's report and invariants read the typed simulation
        let typed_sim: PoolSim = typed(m.sim());
        let sim = &typed_sim;
        let lanes = sim
            .threads()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let tm = t.metrics();
                let detail = match t.machine() {
                    PoolActor::Loop(e) => {
                        let c = e.counts();
                        format!(
                            "requests {} · posted {} · done {}",
                            c.requests, c.tasks_posted, c.tasks_done
                        )
                    }
                    PoolActor::Thread(_) => {
                        format!("woken {} · wasted {}", tm.wakeups, tm.wasted_wakeups)
                    }
                    PoolActor::Injector(inj) => format!("left {}", inj.left),
                };
                LaneView {
                    idx: i as u16,
                    name: pool_name(sim, i as u16),
                    state: LaneState::of(t),
                    cpu: t.cpu(),
                    line: t.line(),
                    detail,
                    marks: Vec::new(),
                    bars: match t.machine() {
                        PoolActor::Thread(_) => vec![tm.wakeups, tm.wasted_wakeups],
                        _ => Vec::new(),
                    },
                    can_step: sim.can_step(Actor::Thread(i as u16)),
                }
            })
            .collect();

        let short = |i: u16| pool_short(sim, i);
        let state = PoolStateView {
            queue: list(sim, sim.word(FIRST), sim.word(LAST)),
            waiting: sim.word(WAITING) as i32,
            done: list(sim, sim.word(DONE_FIRST), sim.word(DONE_LAST)),
            notify: sim.word(NOTIFY),
            mutex_holder: sim.mutex_owner(0).map(short),
            mutex_waiters: sim
                .mutex_queue(0)
                .entries()
                .iter()
                .map(|e| short(e.waiter))
                .collect(),
            cond_sleepers: sim
                .cond_queue(0)
                .entries()
                .iter()
                .map(|e| short(e.waiter))
                .collect(),
        };

        // one listing: the event loop and the pool threads run parts of the same code
        let text = sim
            .threads()
            .first()
            .map(|t| t.machine().listing())
            .unwrap_or(&[]);
        let mut on: Vec<Vec<u16>> = vec![Vec::new(); text.len()];
        for (i, t) in sim.threads().iter().enumerate() {
            if t.sched() == Sched::Done || matches!(t.machine(), PoolActor::Injector(_)) {
                continue;
            }
            let l = t.line() as usize;
            if (1..=text.len()).contains(&l) {
                on[l - 1].push(i as u16);
            }
        }
        let code = vec![CodeView {
            title: "event loop (E) and pool threads (t1…)",
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
                        .map(|&t| short(t))
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
        let report = PoolReport::of(sim, violation);
        let counters = pool_counters(&report, m.position(), sim.metrics().context_switches);
        let status = StatusView {
            status: sim.status().clone(),
            position: m.position(),
            lost: 0,
            first: None,
            broken: false,
        };
        PoolSnapshot {
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
    use herdlab_core::mechanisms::pool::{PoolParams, PoolVariant};

    fn blocking(threads: u32, requests: u32) -> PoolParams {
        PoolParams {
            threads,
            requests,
            blocking_pct: 100,
            ..Default::default()
        }
    }

    #[test]
    fn snapshot_at_step_0() {
        let m = PoolSimModel::new(blocking(3, 4));
        let s = PoolSnapshot::of(&m);
        assert_eq!(s.lanes.len(), 4, "the event loop and 3 pool threads");
        assert_eq!(s.lanes[0].name, "event loop");
        assert_eq!(s.lanes[2].name, "pool thread 2");
        assert!(s.state.queue.tasks.is_empty());
        assert_eq!(s.state.waiting, 0);
        assert_eq!(s.state.notify, 0);
        assert_eq!(s.code.len(), 1);
        let on: usize = s.code[0].lines.iter().map(|l| l.threads.len()).sum();
        assert_eq!(on, 4, "every thread is on one line");
        assert!(s.invariant.name.is_empty());
        assert_eq!(s.counters[0], ("steps", 0));
    }

    #[test]
    fn the_run_ends_with_every_task_done_and_the_counts_of_core() {
        let p = blocking(2, 6);
        let mut m = PoolSimModel::new(p);
        m.apply(Action::RunToEnd);
        let s = PoolSnapshot::of(&m);
        let (_, core) = p.run(10_000_000);
        assert_eq!(s.report.tasks_done, core.tasks_done);
        assert_eq!(s.report.tasks_posted, core.tasks_posted);
        assert_eq!(s.report.wakeups, core.wakeups);
        assert_eq!(s.report.requests, 6);
        // every request blocks and goes to the pool; the destroy posts one exit task per thread
        assert_eq!(s.report.tasks_posted, 6 + 2);
        assert_eq!(s.report.overflows, 0);
        assert!(s.invariant.name.is_empty(), "{:?}", s.invariant);
        assert!(s.state.queue.tasks.is_empty() && s.state.done.tasks.is_empty());
        assert_eq!(s.state.queue.last, "&first");
        assert_eq!(s.status.status, Status::Finished);
    }

    #[test]
    fn waiting_goes_negative_while_threads_sit_idle() {
        let mut m = PoolSimModel::new(blocking(3, 2));
        let mut least = 0;
        for _ in 0..400 {
            if !m.apply(Action::Step) || !m.can_step() {
                break;
            }
            least = least.min(PoolSnapshot::of(&m).state.waiting);
        }
        assert_eq!(least, -3, "three idle pool threads");
    }

    #[test]
    fn no_pool_reads_on_the_event_loop() {
        let mut m = PoolSimModel::new(PoolParams {
            offload: false,
            ..blocking(2, 5)
        });
        m.apply(Action::RunToEnd);
        let s = PoolSnapshot::of(&m);
        assert_eq!(s.report.inline_reads, 5);
        assert_eq!(s.report.tasks_posted, 2, "only the exit tasks");
    }

    /// The scenario of tests/e2e/pool.test.mjs, with the numbers it checks.
    fn e2e() -> PoolParams {
        let mut p = PoolParams::default();
        let q = "threads=2&requests=3&blocking_pct=100&arrival=steady&rate=1000&cpus=2&seed=1";
        for (k, v) in herdlab_core::scenario::query_pairs(q) {
            <herdlab_core::mechanisms::pool::Pool as herdlab_core::mechanism::Mechanism>::set(
                &mut p, &k, &v,
            )
            .unwrap();
        }
        p
    }

    fn count(s: &PoolSnapshot, key: &str) -> u64 {
        s.counters.iter().find(|c| c.0 == key).unwrap().1
    }

    #[test]
    fn the_browser_tests_scenario() {
        let mut m = PoolSimModel::new(e2e());
        let mut n = 0;
        while PoolSnapshot::of(&m).report.tasks_posted == 0 {
            assert!(m.apply(Action::Step) && n < 1000);
            n += 1;
        }
        let s = PoolSnapshot::of(&m);
        assert_eq!(n, 23, "the first post");
        assert_eq!(s.state.queue.tasks, [1]);
        assert_eq!(s.state.queue.last, "&task 1.next");
        assert_eq!(
            s.state.waiting, -1,
            "one thread signalled, one idle: 1 task - 2 idle"
        );
        assert_eq!(s.state.cond_sleepers, ["t2"]);
        m.apply(Action::RunToEnd);
        let s = PoolSnapshot::of(&m);
        assert_eq!(m.position(), 267);
        let got: Vec<u64> = [
            "requests",
            "tasks_posted",
            "tasks_done",
            "wakeups",
            "wasted_wakeups",
            "notify_wakes",
            "max_batch",
            "inline_reads",
        ]
        .iter()
        .map(|k| count(&s, k))
        .collect();
        assert_eq!(got, [3, 5, 3, 5, 1, 2, 2, 0]);
        let mut no = PoolSimModel::new(PoolParams {
            offload: false,
            ..e2e()
        });
        no.apply(Action::RunToEnd);
        let s = PoolSnapshot::of(&no);
        let got =
            ["inline_reads", "tasks_posted", "wakeups", "wasted_wakeups"].map(|k| count(&s, k));
        assert_eq!(got, [3, 2, 2, 0], "the exit tasks wake the two threads");
        let mut all = PoolSimModel::new(PoolParams {
            wake: herdlab_core::mechanisms::pool::Wake::Broadcast,
            ..e2e()
        });
        all.apply(Action::RunToEnd);
        let s = PoolSnapshot::of(&all);
        assert_eq!((count(&s, "wakeups"), count(&s, "wasted_wakeups")), (6, 2));
    }

    #[test]
    fn a_broken_variant_shows_its_invariant() {
        let mut m = PoolSimModel::new(PoolParams {
            variant: PoolVariant::OnePerNotify,
            ..blocking(2, 8)
        });
        m.apply(Action::RunToEnd);
        let s = PoolSnapshot::of(&m);
        let (_, core) = m.params().run(10_000_000);
        assert_eq!(s.invariant.name, "exactly-once", "{:?}", s.invariant);
        assert_eq!(
            core.violation.map(|v| v.invariant).as_deref(),
            Some("exactly-once")
        );
    }
}

#[cfg(test)]
mod replay_tests {
    use super::*;
    use crate::live::sim_model::Action;
    use crate::mechanisms::pool::blocks::pool_actors;
    use herdlab_core::check::CheckConfig;
    use herdlab_core::mechanisms::pool::invariants::check;
    use herdlab_core::mechanisms::pool::{PoolParams, PoolVariant};

    /// A check block's replay: the widget steps the counterexample to its end, where the snapshot
    /// shows the invariant the checker found broken.
    #[test]
    fn a_counterexample_replays_to_its_broken_invariant() {
        for variant in [
            PoolVariant::IfNotWhile,
            PoolVariant::NoSignal,
            PoolVariant::OnePerNotify,
            PoolVariant::ShutdownFlag,
        ] {
            let p = PoolParams {
                variant,
                ..PoolParams::check_preset()
            };
            let r = check(&p, &CheckConfig::default(), &mut |_| true);
            let cx = r.violation.expect("a counterexample");
            let script = pool_actors(&cx.schedule);
            let mut m = PoolSimModel::scripted(p, script.clone());
            while m.can_step() {
                assert!(m.apply(Action::Step));
            }
            assert!(m.script_done(), "{variant:?}");
            assert_eq!(m.position() as usize, script.len());
            let s = PoolSnapshot::of(&m);
            assert_eq!(
                s.invariant.name, cx.violation.invariant,
                "{variant:?}: {:?}",
                s.invariant
            );
        }
    }
}
