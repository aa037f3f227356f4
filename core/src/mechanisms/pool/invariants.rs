//! The pool's invariants (`nginx-thread-pool.md` §5), over the simulator's state: the simulator
//! checks them after every step ([`super::PoolParams::run`]) and the checker on every state it
//! explores ([`check`], over [`SimModel`]); a counterexample replays in the simulator ([`replay`])
//! to the same broken invariant.
//!
//! | name | § 5 | holds |
//! |---|---|---|
//! | `null-deref` | (`if` for `while`) | no pool thread read `first` as NULL and went on to dequeue it |
//! | `queue-shape` | 1 | with `mtx` free: `first == NULL` ⇔ `last == &first`; else the list from `first` is acyclic, holds each task once, and `last == &tail->next`; the done list likewise while its spinlock is free |
//! | `waiting-count` | 2 | with `mtx` free: `waiting == len(queue) − idle`, idle = threads between W2 and their dequeue |
//! | `bounded-queue` | 3 | `len ≤ max_queue + T`; a post is refused only when `len − idle ≥ max_queue` |
//! | `lost-wakeup` | 4 | never, with `mtx` free, a queued task while every live pool thread sleeps in `cond_wait` |
//! | `exactly-once` | 5 | no task runs more often than it was posted, none completes more often than it ran, a queued or done task's event is active; at the end every posted task ran and completed once per post |
//! | `order` | 6 | the queue holds tasks in the order they were posted |
//! | `shutdown` | 7 | once destroy has returned, every pool thread has exited |

use super::machine::{
    active_of, next_of, Cycle, EventLoop, PoolActor, PoolThread, ThreadAt, DONE_FIRST, DONE_LAST,
    DONE_LOCK, FIRST, LAST, WAITING,
};
use super::params::{PoolParams, PoolSim};
use crate::check::{CheckConfig, CheckReport, SimModel, Violation};
use crate::op::Word;
use crate::sim::{Sched, SleepKind};

fn v(invariant: &str, message: String) -> Option<Violation> {
    Some(Violation {
        invariant: invariant.to_string(),
        message,
    })
}

fn event_loop(sim: &PoolSim) -> &EventLoop {
    sim.threads()[0]
        .machine()
        .as_loop()
        .expect("thread 0 is the event loop")
}

fn pool_threads(sim: &PoolSim) -> impl Iterator<Item = (usize, &PoolThread)> {
    sim.threads()
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.machine().as_thread().map(|p| (i, p)))
}

fn word(sim: &PoolSim, w: Word) -> u32 {
    sim.word(w)
}

/// Walk a first/last list: its tasks from `first`, or what is wrong with its shape.
fn walk(sim: &PoolSim, first: Word, last: Word, max_task: u32) -> Result<Vec<u32>, String> {
    let f = word(sim, first);
    let l = word(sim, last);
    let name = if first == FIRST { "queue" } else { "done list" };
    if f == 0 {
        if l != first.0 as u32 {
            return Err(format!(
                "the {name} is empty (first == NULL) but last points at word {l}, not at first"
            ));
        }
        return Ok(Vec::new());
    }
    let mut tasks = Vec::new();
    let mut cur = f;
    loop {
        if cur == 0 || cur > max_task {
            return Err(format!("the {name} links to {cur}, which is no task"));
        }
        if tasks.contains(&cur) {
            return Err(format!(
                "the {name} has a cycle: task {cur} appears twice ({tasks:?} then {cur})"
            ));
        }
        tasks.push(cur);
        let n = word(sim, next_of(cur));
        if n == 0 {
            break;
        }
        cur = n;
    }
    let tail = *tasks.last().unwrap_or(&0);
    if l != next_of(tail).0 as u32 {
        return Err(format!(
            "the {name} ends at task {tail} but last points at word {l}, not at its next ({})",
            next_of(tail).0
        ));
    }
    Ok(tasks)
}

/// The invariants checked after every step.
pub fn check_state(sim: &PoolSim) -> Option<Violation> {
    let e = event_loop(sim);
    let max_task = e_max_task(sim);
    for (i, t) in pool_threads(sim) {
        if t.faulted() {
            return v(
                "null-deref",
                format!(
                    "pool thread {i} woke, skipped the re-check (`if`) and dequeued first == NULL"
                ),
            );
        }
    }
    // 5: never more runs than posts, never more completions than runs
    for k in 1..=max_task {
        let ran: u32 = pool_threads(sim).map(|(_, t)| t.ran(k) as u32).sum();
        let posts = e.posts(k) as u32;
        let done = e.completions(k) as u32;
        if ran > posts {
            return v(
                "exactly-once",
                format!("task {k} ran {ran} times but was posted {posts} times"),
            );
        }
        if done > ran {
            return v(
                "exactly-once",
                format!("task {k} completed {done} times but ran {ran} times"),
            );
        }
    }
    // 7: destroy returned only after every thread exited
    if e.destroyed() {
        let alive: Vec<usize> = pool_threads(sim)
            .filter(|(_, t)| !t.exited())
            .map(|(i, _)| i)
            .collect();
        if !alive.is_empty() {
            return v(
                "shutdown",
                format!("destroy returned while pool threads {alive:?} have not exited"),
            );
        }
    }
    if !e.inited() {
        return None;
    }
    let threads = pool_threads(sim).count() as i64;
    let idle = pool_threads(sim).filter(|(_, t)| t.is_idle()).count() as i64;
    let mtx_free = sim.mutex_owner(0).is_none();
    if word(sim, DONE_LOCK) == 0 {
        match walk(sim, DONE_FIRST, DONE_LAST, max_task) {
            Err(msg) => return v("queue-shape", msg),
            Ok(done) => {
                if let Some(k) = done.iter().find(|&&k| word(sim, active_of(k)) == 0) {
                    return v(
                        "exactly-once",
                        format!("task {k} waits in the done list but its event is not active"),
                    );
                }
            }
        }
    }
    if !(mtx_free || e.refusing()) {
        return None;
    }
    let queue = match walk(sim, FIRST, LAST, max_task) {
        Ok(q) => q,
        Err(msg) => return v("queue-shape", msg),
    };
    if let Some(k) = queue.iter().find(|&&k| word(sim, active_of(k)) == 0) {
        return v(
            "exactly-once",
            format!("task {k} is queued but its event is not active"),
        );
    }
    let len = queue.len() as i64;
    let max_queue = e.config().max_queue as i64;
    // 2
    let waiting = word(sim, WAITING) as i32 as i64;
    if waiting != len - idle {
        return v(
            "waiting-count",
            format!("waiting is {waiting} but {len} tasks are queued and {idle} threads are ready (expected {})", len - idle),
        );
    }
    // 3
    if len > max_queue + threads {
        return v(
            "bounded-queue",
            format!(
                "{len} tasks are queued, more than max_queue ({max_queue}) + threads ({threads})"
            ),
        );
    }
    if e.refusing() && len - idle < max_queue {
        return v(
            "bounded-queue",
            format!("a post was refused with {len} queued and {idle} threads ready: {} < max_queue ({max_queue})", len - idle),
        );
    }
    // 6
    for w in queue.windows(2) {
        if e.post_no(w[0]) >= e.post_no(w[1]) {
            return v(
                "order",
                format!(
                    "task {} (post #{}) is queued before task {} (post #{})",
                    w[0],
                    e.post_no(w[0]),
                    w[1],
                    e.post_no(w[1])
                ),
            );
        }
    }
    // 4
    if len > 0 && mtx_free {
        let mut live = 0;
        let mut sleeping = 0;
        for (i, t) in pool_threads(sim) {
            if t.exited() {
                continue;
            }
            live += 1;
            let st = &sim.threads()[i];
            if st.sched() == Sched::Asleep
                && st.sleep_kind() == SleepKind::Work
                && t.at == ThreadAt::Cycle(Cycle::Wait)
            {
                sleeping += 1;
            }
        }
        if live > 0 && sleeping == live {
            return v(
                "lost-wakeup",
                format!(
                    "{len} tasks are queued while every pool thread ({live}) sleeps in cond_wait"
                ),
            );
        }
    }
    None
}

fn e_max_task(sim: &PoolSim) -> u32 {
    event_loop(sim).config().exit_task()
}

/// The invariants checked where nothing can run.
pub fn check_terminal(sim: &PoolSim) -> Option<Violation> {
    let e = event_loop(sim);
    let alive: Vec<usize> = pool_threads(sim)
        .filter(|(_, t)| !t.exited())
        .map(|(i, _)| i)
        .collect();
    if e.destroyed() && !alive.is_empty() {
        return v(
            "shutdown",
            format!("destroy returned and pool threads {alive:?} are stuck"),
        );
    }
    let max = e_max_task(sim);
    for k in 1..max {
        let ran: u32 = pool_threads(sim).map(|(_, t)| t.ran(k) as u32).sum();
        let posts = e.posts(k) as u32;
        let done = e.completions(k) as u32;
        if ran != posts || done != posts {
            return v(
                "exactly-once",
                format!("the run ended with task {k} posted {posts} times, run {ran} times and completed {done} times"),
            );
        }
    }
    if !e.destroyed() {
        return v(
            "shutdown",
            "nothing can run and the event loop never finished its destroy".to_string(),
        );
    }
    None
}

/// The checker's state invariants over a [`SimModel`].
pub fn model_state(s: &SimModel<PoolActor>) -> Option<Violation> {
    check_state(&s.sim)
}

/// The checker's terminal invariants over a [`SimModel`].
pub fn model_terminal(s: &SimModel<PoolActor>) -> Option<Violation> {
    check_terminal(&s.sim)
}

/// Model-check a pool scenario: every interleaving of the event loop, the pool threads, the
/// injector and the arrivals.
pub fn check(
    p: &PoolParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    let init = SimModel { sim: p.simulate() };
    crate::check::explore(init, cfg, &model_state, &model_terminal, progress)
}

/// Replay a counterexample (checker indices are thread indices) in a fresh simulation.
pub fn replay(p: &PoolParams, schedule: &[u16]) -> PoolSim {
    SimModel::replay(p.simulate(), schedule)
}
