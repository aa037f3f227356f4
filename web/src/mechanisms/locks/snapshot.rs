//! Plain data for a lock widget's view, derived from a [`LockModel`] on each render.

use std::rc::Rc;

use herdlab_core::check::Violation;
use herdlab_core::mechanisms::locks::shmtx::{LOCK, WAIT};
use herdlab_core::mechanisms::locks::ticket::{NEXT, SERVING};
use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker};
use herdlab_core::metrics::Metrics;
use herdlab_core::sim::{Actor, Role};
use herdlab_web_engine::Erased;

use crate::live::describe::LaneState;
use crate::live::snapshot::WordView;
use crate::live::snapshot::{listing, CodeView, LaneView, StatusView};
use crate::mechanisms::locks::describe::{holder, LockSim};
use crate::mechanisms::locks::model::LockModel;

/// The lock counters shown, in order, with their values (`counter-<key>`).
pub fn lock_counter_values(m: &Metrics) -> [(&'static str, u64); 10] {
    [
        ("steps", m.steps),
        ("work_items", m.work_items),
        ("cas_failures", m.cas_failures),
        ("spins", m.spins),
        ("sem_sleeps", m.sem_sleeps),
        ("sem_posts", m.sem_posts),
        ("yields", m.yields),
        ("context_switches", m.context_switches),
        ("sim_time_ns", m.sim_time_ns),
        ("cpu_time_ns", m.cpu_time_ns),
    ]
}

/// The invariants' state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantView {
    /// The invariant broken now.
    pub now: Option<Violation>,
    /// The first break in this history, with its step.
    pub first: Option<(u64, Violation)>,
    /// Whether the terminal invariants were checked (nothing can run).
    pub terminal: bool,
    /// The invariants that apply to this scenario.
    pub names: Vec<&'static str>,
}

/// Everything a lock board shows.
#[derive(Clone, Debug, PartialEq)]
pub struct LockSnapshot {
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// The shared words.
    pub words: Rc<Vec<WordView>>,
    /// The listing.
    pub code: Rc<Vec<CodeView>>,
    /// The counters.
    pub counters: Vec<(&'static str, u64)>,
    /// The run's status.
    pub status: Rc<StatusView>,
    /// The invariants.
    pub invariants: Rc<InvariantView>,
}

fn queue(sim: &LockSim, futex: bool) -> Vec<u16> {
    let q = if futex {
        sim.futex_queue(LOCK)
    } else {
        sim.sem_queue(0)
    };
    q.entries().iter().map(|e| e.waiter).collect()
}

fn thread_list(ts: &[u16]) -> String {
    let list = ts.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
    match ts.len() {
        0 => "none".to_string(),
        1 => format!("thread {list}"),
        _ => format!("threads {list}"),
    }
}

/// The shared words of this lock.
pub fn words(p: &LockParams, sim: &LockSim) -> Vec<WordView> {
    let h = holder(p, sim);
    let held = |free: bool| match (free, h) {
        (true, _) => "free".to_string(),
        (false, Some(t)) => format!("held by thread {t}"),
        (false, None) => "held".to_string(),
    };
    let word = |testid, label, value: String, note: String| WordView {
        testid,
        label,
        value,
        note,
        threads: h.into_iter().collect(),
    };
    let lock = sim.word(LOCK);
    match p.lock {
        LockKind::Shmtx => {
            let mut v = vec![word(
                "lock-word",
                "lock",
                lock.to_string(),
                if lock == 0 {
                    "free".to_string()
                } else {
                    format!("{}: pid {lock}", held(false))
                },
            )];
            if p.semaphore {
                let wait = sim.word(WAIT) as i32;
                let sleepers = queue(sim, false);
                v.push(WordView {
                    testid: "wait-word",
                    label: "wait",
                    value: wait.to_string(),
                    note: "announced sleepers, read as signed".to_string(),
                    threads: Vec::new(),
                });
                v.push(WordView {
                    testid: "sem-count",
                    label: "semaphore count",
                    value: sim.sem_count(0).to_string(),
                    note: "posts not yet taken".to_string(),
                    threads: Vec::new(),
                });
                v.push(WordView {
                    testid: "sem-sleepers",
                    label: "asleep in sem_wait",
                    value: thread_list(&sleepers),
                    note: String::new(),
                    threads: sleepers,
                });
            }
            v
        }
        LockKind::Ttas | LockKind::SpinYield => {
            vec![word("lock-word", "lock", lock.to_string(), held(lock == 0))]
        }
        LockKind::Ticket => {
            let (next, serving) = (sim.word(NEXT), sim.word(SERVING));
            vec![
                word(
                    "next-word",
                    "next",
                    next.to_string(),
                    "the next ticket to hand out".to_string(),
                ),
                word(
                    "serving-word",
                    "serving",
                    serving.to_string(),
                    held(next == serving),
                ),
            ]
        }
        LockKind::Futex => {
            let sleepers = queue(sim, true);
            vec![
                word(
                    "lock-word",
                    "state",
                    lock.to_string(),
                    match lock {
                        0 => "free".to_string(),
                        1 => held(false),
                        _ => format!("{}, sleepers possible", held(false)),
                    },
                ),
                WordView {
                    testid: "futex-sleepers",
                    label: "asleep in futex_wait",
                    value: thread_list(&sleepers),
                    note: String::new(),
                    threads: sleepers,
                },
            ]
        }
    }
}

/// The invariants `check_state`/`check_terminal` apply to this scenario.
pub fn invariant_names(p: &LockParams) -> Vec<&'static str> {
    let mut v = vec!["mutual-exclusion"];
    if p.lock == LockKind::Shmtx && p.semaphore {
        v.push("wakeup-accounting");
    }
    v.extend(["semaphore-overflow", "lost-wakeup", "deadlock"]);
    v
}

/// The lanes of a lock simulation.
pub fn lanes(p: &LockParams, sim: &LockSim) -> Vec<LaneView> {
    sim.threads()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let w = LockWorker::get(t.machine());
            let mut marks = Vec::new();
            if w.in_critical() {
                marks.push(("in-critical", "in the critical section"));
            }
            if w.is_announced() {
                marks.push(("announced", "announced in wait"));
            }
            LaneView {
                idx: i as u16,
                name: if w.is_master() {
                    "master".to_string()
                } else {
                    format!("thread {i}")
                },
                state: match LaneState::of(t) {
                    LaneState::WokenEmpty => LaneState::Runnable,
                    s => s,
                },
                cpu: t.cpu(),
                line: t.line(),
                detail: if w.is_master() {
                    format!(
                        "reaps dead workers and force-unlocks · line {} of its own code: {}",
                        t.line(),
                        herdlab_core::machine::Machine::listing(w)
                            .get(t.line().saturating_sub(1) as usize)
                            .map(|l| l.split("//").next().unwrap_or("").trim())
                            .unwrap_or("")
                    )
                } else if w.phase() == herdlab_core::mechanisms::locks::Phase::Done
                    && p.crash
                    && i == 0
                {
                    format!(
                        "pid 1 · died holding the lock after {} acquisition",
                        w.acquired()
                    )
                } else {
                    format!("pid {} · acquired {} of {}", i + 1, w.acquired(), p.rounds)
                },
                marks,
                bars: vec![w.acquired() as u64],
                can_step: sim.can_step(Actor::Thread(i as u16)),
            }
        })
        .collect()
}

fn code_title(p: &LockParams) -> &'static str {
    match p.lock {
        LockKind::Shmtx => "ngx_shmtx_lock / ngx_shmtx_unlock",
        LockKind::Ttas => "test-and-test-and-set spinlock",
        LockKind::SpinYield => "spin, then sched_yield",
        LockKind::Ticket => "ticket lock",
        LockKind::Futex => "three-state futex mutex",
    }
}

impl LockSnapshot {
    /// The view of `m` now.
    pub fn of(m: &LockModel) -> Self {
        let sim = m.sim();
        let p = m.params();
        let short = |t: u16| format!("t{t}");
        let code = listing(sim, code_title(p), "code-line-", Role::Peer, &short)
            .into_iter()
            .collect();
        let invariants = InvariantView {
            now: m.violation(),
            first: m.first_broken().cloned(),
            terminal: sim.runnable().is_empty(),
            names: invariant_names(p),
        };
        LockSnapshot {
            lanes: Rc::new(lanes(p, sim)),
            words: Rc::new(words(p, sim)),
            code: Rc::new(code),
            counters: lock_counter_values(sim.metrics()).to_vec(),
            status: Rc::new(StatusView {
                status: sim.status().clone(),
                position: m.position(),
                lost: 0,
                first: None,
                broken: false,
            }),
            invariants: Rc::new(invariants),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::sim_model::Action;

    #[test]
    fn snapshot_of_a_lock() {
        let p = LockParams {
            threads: 3,
            rounds: 2,
            cpus: 2,
            spin: 8,
            cs_ns: 1000,
            ..Default::default()
        };
        let mut m = LockModel::new(p);
        let s = LockSnapshot::of(&m);
        assert_eq!(s.lanes.len(), 3);
        assert_eq!(s.words[0].testid, "lock-word");
        assert_eq!(s.words[0].value, "0");
        assert_eq!(s.words.len(), 4);
        assert!(s.code[0].lines.iter().any(|l| l.threads.len() == 3));
        assert!(s.invariants.now.is_none());
        while m.sim().word(LOCK) == 0 && m.position() < 10 {
            m.apply(Action::Step);
        }
        let s = LockSnapshot::of(&m);
        assert_ne!(s.words[0].value, "0");
        assert!(
            s.words[0].note.starts_with("held by thread"),
            "{}",
            s.words[0].note
        );
        assert!(s
            .lanes
            .iter()
            .any(|l| l.marks.iter().any(|m| m.0 == "in-critical")));
        assert_eq!(s.counters[0], ("steps", m.position()));
        for lock in LockKind::ALL {
            let m = LockModel::new(LockParams { lock, ..p });
            let s = LockSnapshot::of(&m);
            assert!(!s.words.is_empty());
            assert_eq!(s.code.len(), 1);
        }
    }
}
