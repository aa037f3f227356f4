//! The invariants of the lock scenarios, over any view of the state: the checking platform's
//! [`CheckWorld`] or the simulator's [`Simulation`] (a counterexample found by the checker is replayed
//! in the simulator and must break the same invariant there).
//!
//! On every state:
//! - `mutual-exclusion`: at most one thread is in its critical section (and, for `ngx_shmtx`, the lock
//!   word holds that thread's pid).
//! - `wakeup-accounting` (`ngx_shmtx` with a semaphore): `wait + semval + |F| == |A|`
//!   (`nginx-shmtx.md` §5, invariant 2; see [`super::shmtx`]).
//! - `semaphore-overflow`: the semaphore's count never exceeds the number of threads.
//!
//! On states where no thread can run:
//! - `lost-wakeup`: some thread sleeps while the lock is free.
//! - `deadlock`: some thread sleeps and the lock is held (by a sleeper).

use super::shmtx::{LOCK, WAIT};
use super::{LockKind, LockParams, LockWorker};
use crate::check::{CheckWorld, Violation};
use crate::sim::{Sched, Simulation};

/// What the invariants need to see of a state.
pub trait LockView {
    /// Number of workers.
    fn worker_count(&self) -> usize;
    /// Worker `t`.
    fn worker(&self, t: usize) -> &LockWorker;
    /// A word of memory.
    fn word_value(&self, w: usize) -> u32;
    /// The semaphore's count.
    fn sem_value(&self) -> u32;
    /// Whether worker `t` sleeps.
    fn sleeps(&self, t: usize) -> bool;
}

impl LockView for CheckWorld<LockWorker> {
    fn worker_count(&self) -> usize {
        self.threads().len()
    }
    fn worker(&self, t: usize) -> &LockWorker {
        &self.threads()[t]
    }
    fn word_value(&self, w: usize) -> u32 {
        self.word(w)
    }
    fn sem_value(&self) -> u32 {
        self.sem_count(0)
    }
    fn sleeps(&self, t: usize) -> bool {
        self.is_blocked(t)
    }
}

impl LockView for Simulation<LockWorker> {
    fn worker_count(&self) -> usize {
        self.threads().len()
    }
    fn worker(&self, t: usize) -> &LockWorker {
        self.threads()[t].machine()
    }
    fn word_value(&self, w: usize) -> u32 {
        self.word(crate::op::Word(w as u16))
    }
    fn sem_value(&self) -> u32 {
        self.sem_count(0)
    }
    fn sleeps(&self, t: usize) -> bool {
        self.threads()[t].sched() == Sched::Asleep
    }
}

fn v(invariant: &str, message: String) -> Option<Violation> {
    Some(Violation {
        invariant: invariant.to_string(),
        message,
    })
}

/// The invariants checked on every state.
pub fn check_state(p: &LockParams, s: &impl LockView) -> Option<Violation> {
    let n = s.worker_count();
    let mut inside = None;
    let (mut announced, mut posting) = (0i64, 0i64);
    for t in 0..n {
        let w = s.worker(t);
        if w.in_critical() {
            if let Some(first) = inside {
                return v(
                    "mutual-exclusion",
                    format!("threads {first} and {t} are in the critical section together"),
                );
            }
            inside = Some(t);
        }
        announced += w.is_announced() as i64;
        posting += w.is_posting() as i64;
    }
    if p.lock == LockKind::Shmtx {
        if let Some(t) = inside {
            let lock = s.word_value(LOCK.0 as usize);
            if lock != t as u32 + 1 {
                return v(
                    "mutual-exclusion",
                    format!("thread {t} is in the critical section but lock holds {lock}"),
                );
            }
        }
        if p.semaphore {
            let wait = s.word_value(WAIT.0 as usize) as i32 as i64;
            let sem = s.sem_value() as i64;
            if wait + sem + posting != announced {
                return v(
                    "wakeup-accounting",
                    format!(
                        "wait ({wait}) + semaphore ({sem}) + posting unlockers ({posting}) != announced sleepers ({announced})"
                    ),
                );
            }
        }
    }
    let sem = s.sem_value();
    if sem > n as u32 {
        return v(
            "semaphore-overflow",
            format!("the semaphore holds {sem} posts for {n} threads"),
        );
    }
    None
}

/// The invariants checked where no thread can run.
pub fn check_terminal(_p: &LockParams, s: &impl LockView) -> Option<Violation> {
    let sleepers: Vec<usize> = (0..s.worker_count()).filter(|&t| s.sleeps(t)).collect();
    if sleepers.is_empty() {
        return None;
    }
    let lock = s.word_value(LOCK.0 as usize);
    if lock == 0 {
        v(
            "lost-wakeup",
            format!("threads {sleepers:?} sleep while the lock is free, and nobody is left to wake them"),
        )
    } else {
        v(
            "deadlock",
            format!(
                "threads {sleepers:?} sleep and the lock is held ({lock}): nobody can release it"
            ),
        )
    }
}

/// The checking world of a scenario.
pub fn check_world(p: &LockParams) -> CheckWorld<LockWorker> {
    CheckWorld::new(p.threads().into_iter().map(|(m, _)| m).collect())
}
