//! Words for a lock simulation: one sentence per step ("step 7: thread 1 announced itself in wait
//! (wait is now 1)"), the names of the shared words, and the holder of the lock.

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::locks::shmtx::{LOCK, WAIT};
use herdlab_core::mechanisms::locks::ticket::{NEXT, SERVING};
use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker, Phase};
use herdlab_core::op::{Op, Word};
use herdlab_core::sim::{Actor, Note, Status, StepRecord};
use herdlab_web_engine::{AnyMachine, Erased};

use crate::live::describe::fmt_ns;

/// What a step is about to do, noted before it runs (the record says what happened, not what was
/// asked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Before {
    /// The operation.
    pub op: Op,
    /// The thread at the head of the semaphore's queue (a post wakes it).
    pub sem_head: Option<u16>,
    /// The thread at the head of the futex queue of word 0 (a futex wake wakes it).
    pub futex_head: Option<u16>,
}

/// A lock simulation as the site runs it: the engine's one simulator, every thread a
/// [`LockWorker`] in an [`AnyMachine`].
pub type LockSim = herdlab_core::sim::Simulation<AnyMachine>;

/// What thread `t`'s next step will do.
pub fn before(sim: &LockSim, t: u16) -> Option<Before> {
    let th = sim.threads().get(t as usize)?;
    Some(Before {
        op: th.machine().next_op(),
        sem_head: sim.sem_queue(0).entries().first().map(|e| e.waiter),
        futex_head: sim.futex_queue(LOCK).entries().first().map(|e| e.waiter),
    })
}

/// The name of a shared word of this lock.
pub fn word_name(kind: LockKind, w: Word) -> &'static str {
    match (kind, w.0) {
        (LockKind::Ticket, 0) => "next",
        (LockKind::Ticket, 1) => "serving",
        (LockKind::Futex, 0) => "state",
        (_, 0) => "lock",
        (LockKind::Shmtx, 1) => "wait",
        _ => "a word",
    }
}

/// The thread holding the lock now, if one does: for `shmtx` the pid in the lock word; for the
/// others the thread in its critical section, or releasing the lock while the word still says held.
pub fn holder(p: &LockParams, sim: &LockSim) -> Option<u16> {
    let n = sim.threads().len();
    if p.lock == LockKind::Shmtx {
        let pid = sim.word(LOCK) as usize;
        return (1..=n).contains(&pid).then(|| (pid - 1) as u16);
    }
    let held = match p.lock {
        LockKind::Ticket => sim.word(NEXT) != sim.word(SERVING),
        _ => sim.word(LOCK) != 0,
    };
    let phase = |ph: Phase| {
        sim.threads()
            .iter()
            .position(|t| LockWorker::get(t.machine()).phase() == ph)
            .map(|i| i as u16)
    };
    phase(Phase::Critical).or_else(|| if held { phase(Phase::Unlock) } else { None })
}

fn lock_value(p: &LockParams, v: u32) -> String {
    match p.lock {
        LockKind::Shmtx if v == 0 => "0, free".to_string(),
        LockKind::Shmtx => format!("{v}, held by thread {}", v - 1),
        LockKind::Futex => match v {
            0 => "0, free".to_string(),
            1 => "1, held".to_string(),
            _ => format!("{v}, held with possible sleepers"),
        },
        _ if v == 0 => "0, free".to_string(),
        _ => format!("{v}, held"),
    }
}

fn woke(head: Option<u16>, woken: u16) -> String {
    match (woken, head) {
        (0, _) => "nobody was asleep".to_string(),
        (1, Some(t)) => format!("waking thread {t}"),
        (n, _) => format!("waking {n} sleepers"),
    }
}

fn what(p: &LockParams, sim: &LockSim, t: u16, note: &Note, b: &Before) -> Option<String> {
    let kind = p.lock;
    let pid = t as u32 + 1;
    let wait_now = sim.word(WAIT) as i32;
    Some(match (b.op, note) {
        (Op::Load(w), Note::Memory { value, .. }) if w == LOCK => {
            format!("read {}: {}", word_name(kind, w), lock_value(p, *value))
        }
        (Op::Load(w), Note::Memory { value, .. }) if kind == LockKind::Shmtx && w == WAIT => {
            let v = *value as i32;
            if v > 0 {
                format!("read wait: {v}, so someone announced and it will wake one")
            } else {
                format!("read wait: {v}, so nobody is announced and there is no one to wake")
            }
        }
        (Op::Load(w), Note::Memory { value, .. }) if kind == LockKind::Ticket && w == SERVING => {
            format!("read serving: {value}")
        }
        (
            Op::Cas {
                word, expected: 0, ..
            },
            Note::Memory { ok: true, .. },
        ) if word == LOCK => "took the lock (its CAS on the lock word succeeded)".to_string(),
        (
            Op::Cas {
                word, expected: 0, ..
            },
            Note::Memory {
                ok: false, value, ..
            },
        ) if word == LOCK => {
            format!(
                "lost the race: its CAS on the lock word failed ({})",
                lock_value(p, *value)
            )
        }
        (Op::Cas { word, new: 0, .. }, Note::Memory { ok: true, .. }) if word == LOCK => {
            "released the lock (CAS of its pid back to 0)".to_string()
        }
        (
            Op::Cas { word, new: 0, .. },
            Note::Memory {
                ok: false, value, ..
            },
        ) if word == LOCK => {
            format!("could not release the lock: it held {value}, not its pid {pid}")
        }
        (Op::Cas { word, .. }, Note::Memory { ok: true, .. }) if word == WAIT => {
            format!("took 1 off wait for the sleeper it will post (wait is now {wait_now})")
        }
        (
            Op::Cas { word, .. },
            Note::Memory {
                ok: false, value, ..
            },
        ) if word == WAIT => format!(
            "its CAS on wait failed (wait held {}); it reads wait again",
            *value as i32
        ),
        (Op::Store(w, 0), Note::Memory { .. }) if w == LOCK => {
            "released the lock (stored 0)".to_string()
        }
        (Op::Store(w, v), Note::Memory { value, .. }) if w == LOCK => format!(
            "stored {v} into the lock word without a CAS (it held {value}) and takes the lock"
        ),
        (Op::Store(w, v), Note::Memory { .. }) if kind == LockKind::Ticket && w == SERVING => {
            format!("handed the lock to ticket {v} (serving is now {v})")
        }
        (Op::FetchAdd(w, 1), Note::Memory { value, .. })
            if kind == LockKind::Shmtx && w == WAIT =>
        {
            format!(
                "announced itself in wait (wait is now {})",
                (*value as i32).wrapping_add(1)
            )
        }
        (Op::FetchAdd(w, _), Note::Memory { .. }) if kind == LockKind::Shmtx && w == WAIT => {
            format!("took back its announcement (wait is now {wait_now})")
        }
        (Op::FetchAdd(w, _), Note::Memory { value, .. })
            if kind == LockKind::Ticket && w == NEXT =>
        {
            format!("took ticket {value}")
        }
        (Op::Swap(w, 2), Note::Memory { value: 0, .. }) if w == LOCK => {
            "took the lock, marking it contended (state 2)".to_string()
        }
        (Op::Swap(w, 2), Note::Memory { value, .. }) if w == LOCK => {
            format!("marked the lock contended (state was {value}, now 2)")
        }
        (Op::Swap(w, 0), Note::Memory { value, .. }) if w == LOCK => {
            format!("released the lock (state was {value})")
        }
        (Op::SemWait(_), Note::SemTook) => format!(
            "took a post from the semaphore: sem_wait returned at once (count is now {})",
            sim.sem_count(0)
        ),
        (Op::SemWait(_), Note::SemSlept) => "slept in sem_wait".to_string(),
        (Op::SemPost(_), Note::Woke { woken }) => format!(
            "posted the semaphore (sem_post), {}; its count is now {}",
            woke(b.sem_head, *woken),
            sim.sem_count(0)
        ),
        (Op::FutexWait { .. }, Note::FutexSlept) => "slept in futex_wait (state is 2)".to_string(),
        (Op::FutexWait { .. }, Note::FutexMismatch) => {
            "futex_wait returned at once: the state had changed".to_string()
        }
        (Op::FutexWake(..), Note::Woke { woken }) => {
            format!("called futex_wake, {}", woke(b.futex_head, *woken))
        }
        (Op::Pause, _) => "paused (one pause instruction)".to_string(),
        (Op::Yield, _) => "called sched_yield()".to_string(),
        (Op::Work(_), Note::Worked { ns }) => format!(
            "ran its critical section ({} of work, acquisition {})",
            fmt_ns(*ns),
            LockWorker::get(sim.threads()[t as usize].machine()).acquired()
        ),
        (Op::Exit, _) | (_, Note::Exited) => "finished its rounds and exited".to_string(),
        _ => return None,
    })
}

/// A sentence for a lock run that has stopped.
pub fn lock_status_sentence(p: &LockParams, status: &Status) -> Option<String> {
    match status {
        Status::Running => None,
        Status::Finished => Some(format!(
            "The run finished: every thread did its {} round{}.",
            p.rounds,
            if p.rounds == 1 { "" } else { "s" }
        )),
        Status::Stuck(m) => Some(format!("The run is stuck: {m}.")),
    }
}

/// The code of a listing line, without its comment.
fn line_code(sim: &LockSim, t: u16, line: u16) -> Option<String> {
    let text = sim
        .threads()
        .get(t as usize)?
        .machine()
        .listing()
        .get((line as usize).checked_sub(1)?)?;
    let code = text
        .split("//")
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches(':');
    (!code.is_empty()).then(|| code.to_string())
}

/// One sentence for a step of a lock simulation. `b` is what the step was about to do, if known
/// (stepping back and opening from a link only know the record).
pub fn lock_sentence(
    p: &LockParams,
    sim: &LockSim,
    rec: &StepRecord,
    b: Option<&Before>,
) -> String {
    let Actor::Thread(t) = rec.actor else {
        return format!("step {}: the network stepped", rec.step);
    };
    let what = b
        .and_then(|b| what(p, sim, t, &rec.note, b))
        .unwrap_or_else(|| match rec.note {
            Note::SemSlept => "slept in sem_wait".to_string(),
            Note::SemTook => "took a post from the semaphore".to_string(),
            Note::FutexSlept => "slept in futex_wait".to_string(),
            Note::Exited => "finished its rounds and exited".to_string(),
            Note::Worked { ns } => format!("ran its critical section ({} of work)", fmt_ns(ns)),
            Note::Woke { woken } => format!("woke {woken}"),
            _ => match line_code(sim, t, rec.line) {
                Some(c) => format!("ran {c}"),
                None => "took a step".to_string(),
            },
        });
    format!("step {}: thread {t} {what}", rec.step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;

    fn run(p: &LockParams) -> Vec<String> {
        let mut sim = herdlab_web_engine::erase(p.simulate());
        let mut out = Vec::new();
        while let Some(Actor::Thread(t)) = sim.next_actor() {
            let b = before(&sim, t);
            let Some(rec) = sim.step() else { break };
            out.push(lock_sentence(p, &sim, &rec, b.as_ref()));
        }
        out
    }

    #[test]
    fn shmtx_sentences() {
        let p = LockParams {
            threads: 2,
            rounds: 3,
            cpus: 2,
            spin: 8,
            cs_ns: 5000,
            ..Default::default()
        };
        let all = run(&p);
        let text = all.join("\n");
        for want in [
            "took the lock",
            "lost the race",
            "paused",
            "announced itself in wait (wait is now 1)",
            "slept in sem_wait",
            "read wait: 1, so someone announced",
            "took 1 off wait",
            "posted the semaphore (sem_post), waking thread 1",
            "ran its critical section (5.0 µs of work, acquisition 1)",
            "finished its rounds and exited",
        ] {
            assert!(text.contains(want), "{want} not in\n{text}");
        }
        assert!(
            all.iter()
                .all(|s| !s.contains(" ran ") || s.contains("critical")),
            "{text}"
        );
    }

    #[test]
    fn every_lock_describes_its_steps() {
        for lock in LockKind::ALL {
            let p = LockParams {
                lock,
                threads: 3,
                rounds: 2,
                cpus: 2,
                spin: 8,
                yield_after: 4,
                cs_ns: 20_000,
                ..Default::default()
            };
            let all = run(&p);
            assert!(!all.is_empty());
            for s in &all {
                assert!(!s.contains("took a step"), "{lock:?}: {s}");
            }
        }
        let p = LockParams {
            variant: ShmtxVariant::PlainLoadStore,
            threads: 2,
            ..Default::default()
        };
        assert!(run(&p).iter().any(|s| s.contains("without a CAS")));
    }
}
