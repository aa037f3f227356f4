//! Words for what the simulation shows: thread names, lane states, one sentence per step.

use herdlab_core::machine::Machine;
use herdlab_core::sim::net::EP_WAITER;
use herdlab_core::sim::{Actor, Note, Role, Sched, SimThread, Simulation, Status, StepRecord};

/// A lane's state, as `data-state` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneState {
    /// On its CPU.
    Running,
    /// Waiting for a CPU.
    Runnable,
    /// Off every CPU until woken.
    Sleeping,
    /// Woken, found nothing, on its way back to sleep.
    WokenEmpty,
    /// Running or runnable in its accept handler (`accept4`, registering the connection); the
    /// accept strategies' lanes only.
    Accepting,
    /// Exited.
    Done,
}

impl LaneState {
    /// Of a thread.
    pub fn of<M: Machine>(t: &SimThread<M>) -> Self {
        match t.sched() {
            Sched::Done => LaneState::Done,
            Sched::Asleep => LaneState::Sleeping,
            _ if t.is_empty_handed() => LaneState::WokenEmpty,
            Sched::OnCpu => LaneState::Running,
            Sched::Queued => LaneState::Runnable,
        }
    }

    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            LaneState::Running => "running",
            LaneState::Runnable => "runnable",
            LaneState::Sleeping => "sleeping",
            LaneState::WokenEmpty => "woken-empty",
            LaneState::Accepting => "accepting",
            LaneState::Done => "done",
        }
    }

    /// The text label shown next to the colour.
    pub fn label(self) -> &'static str {
        match self {
            LaneState::Running => "running",
            LaneState::Runnable => "runnable",
            LaneState::Sleeping => "sleeping",
            LaneState::WokenEmpty => "woke: empty",
            LaneState::Accepting => "in accept",
            LaneState::Done => "done",
        }
    }
}

/// "worker 3" or "producer".
pub fn thread_name<M: Machine>(sim: &Simulation<M>, i: u16) -> String {
    match sim.threads().get(i as usize).map(|t| t.role()) {
        Some(Role::Producer) => "producer".to_string(),
        _ => format!("worker {i}"),
    }
}

/// "w3" or "P": the short name in queues and code markers; "ep2" for the wait-queue entry of epoll
/// instance 2 on a listening socket.
pub fn short_name<M: Machine>(sim: &Simulation<M>, i: u16) -> String {
    if i >= EP_WAITER {
        return format!("ep{}", i - EP_WAITER);
    }
    match sim.threads().get(i as usize).map(|t| t.role()) {
        Some(Role::Producer) => "P".to_string(),
        _ => format!("w{i}"),
    }
}

fn plural(n: u16, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn woke_clause(woken: u16) -> String {
    if woken == 0 {
        String::new()
    } else {
        format!("; it woke {}", plural(woken, "sleeper", "sleepers"))
    }
}

fn word_name(w: u16) -> &'static str {
    match w {
        0 => "tickets",
        1 => "waiters",
        _ => "a word",
    }
}

/// The code of a thread's pseudocode line, without its comment.
fn line_code<M: Machine>(sim: &Simulation<M>, i: u16, line: u16) -> Option<String> {
    let text = sim
        .threads()
        .get(i as usize)?
        .machine()
        .listing()
        .get((line as usize).checked_sub(1)?)?;
    let code = text
        .split("//")
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches(':')
        .trim();
    (!code.is_empty()).then(|| code.to_string())
}

/// What a thread whose timer fired ([`Note::TimerFired`]) was asleep in. Core's simulator fires
/// two kinds of timer: an `epoll_wait` with a timeout, whose expiry is a step of the network
/// (`core/src/sim/kernel/net.rs`: the thread's wait returns empty), and a timed sleep
/// ([`herdlab_core::op::Op::Sleep`]: `nanosleep`, or a blocking call modelled as time off the
/// CPU), whose end is a step of the sleeping thread itself at the line it slept on
/// (`core/src/sim/kernel/timer.rs`). So the step's actor says which operation it slept in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimedWait {
    /// `epoll_wait` with a timeout: it returns with no event.
    EpollWait,
    /// A timed sleep: the operation on the record's line returns when its time is up.
    Sleep,
}

/// The operation the thread of a [`Note::TimerFired`] step slept in.
fn timed_wait(rec: &StepRecord) -> TimedWait {
    match rec.actor {
        Actor::Network => TimedWait::EpollWait,
        Actor::Thread(_) => TimedWait::Sleep,
    }
}

/// One sentence for a step: "step 12: worker 3 found the accept queue empty".
pub fn step_sentence<M: Machine>(sim: &Simulation<M>, rec: &StepRecord) -> String {
    sentence(rec, &|i| thread_name(sim, i), &|i, line| {
        line_code(sim, i, line)
    })
}

/// [`step_sentence`] with the thread names and the code lines given (one copy for every
/// machine).
fn sentence(
    rec: &StepRecord,
    thread_name: &dyn Fn(u16) -> String,
    line_code: &dyn Fn(u16, u16) -> Option<String>,
) -> String {
    let who = match rec.actor {
        Actor::Thread(i) => thread_name(i),
        Actor::Network => "the network".to_string(),
    };
    let what = match rec.note {
        Note::Arrived { conn, woken } => {
            return format!(
                "step {}: connection {conn} arrived; the wake walk woke {}",
                rec.step,
                if woken == 0 {
                    "nobody".to_string()
                } else {
                    plural(woken, "sleeper", "sleepers")
                }
            )
        }
        Note::ClientSent { conn, woken } => {
            return format!(
                "step {}: the client of connection {conn} sent a request{}",
                rec.step,
                woke_clause(woken)
            )
        }
        Note::ClientClosed { conn, woken } => {
            return format!(
                "step {}: the client of connection {conn} closed it{}",
                rec.step,
                woke_clause(woken)
            )
        }
        Note::TimerFired { thread } => {
            let who = thread_name(thread);
            return match timed_wait(rec) {
                TimedWait::EpollWait => format!(
                    "step {}: the epoll_wait timeout of {who} expired and woke it",
                    rec.step
                ),
                TimedWait::Sleep => match line_code(thread, rec.line) {
                    Some(code) => format!(
                        "step {}: {who}'s time in {code} is up: its timer fired and it is runnable again",
                        rec.step
                    ),
                    None => format!(
                        "step {}: {who}'s timed sleep is over: its timer fired and it is runnable again",
                        rec.step
                    ),
                },
            };
        }
        Note::FastPathTook { conn } => {
            format!("took connection {conn} straight from the accept queue")
        }
        Note::FastPathEmpty => "found the accept queue empty and gets ready to sleep".to_string(),
        Note::TestedFirst { empty: true } => {
            "tested the accept queue before joining the wait queue: empty".to_string()
        }
        Note::TestedFirst { empty: false } => {
            "tested the accept queue before joining the wait queue: a connection is there"
                .to_string()
        }
        Note::Enqueued {
            exclusive,
            added: true,
        } => format!(
            "joined the wait queue ({}) and marked itself sleeping",
            if exclusive {
                "exclusive"
            } else {
                "not exclusive"
            }
        ),
        Note::Enqueued { added: false, .. } => {
            "was already on the wait queue and marked itself sleeping".to_string()
        }
        Note::Slept { wasted: true } => "went back to sleep (a wasted wakeup)".to_string(),
        Note::Slept { wasted: false } => "went to sleep in schedule()".to_string(),
        Note::DidNotSleep => {
            "did not sleep: it was woken already or a connection is waiting".to_string()
        }
        Note::Took { conn } => format!("took connection {conn}"),
        Note::FoundEmpty => "woke and found the accept queue empty".to_string(),
        Note::FinishedWait => "left the wait queue and runs (finish_wait)".to_string(),
        Note::Worked { ns } => format!("handled its request ({} of work)", fmt_ns(ns)),
        Note::Memory { word, value, ok } => {
            let code = match rec.actor {
                Actor::Thread(i) => line_code(i, rec.line),
                Actor::Network => None,
            };
            let w = word_name(word.0);
            match (code, ok) {
                (Some(c), true) => format!("ran {c} ({w} held {value})"),
                (Some(c), false) => {
                    format!("ran {c}, which failed: {w} had changed (it held {value})")
                }
                (None, true) => format!("read or updated {w} (it held {value})"),
                (None, false) => {
                    format!("tried to claim a job but {w} had changed (it held {value})")
                }
            }
        }
        Note::FutexSlept => "went to sleep in futex_wait".to_string(),
        Note::FutexMismatch => {
            "futex_wait returned at once: the word had changed (EAGAIN)".to_string()
        }
        Note::Woke { woken } => format!(
            "woke {}",
            if woken == 0 {
                "nobody".to_string()
            } else {
                plural(woken, "sleeper", "sleepers")
            }
        ),
        Note::LockTaken => "took the mutex".to_string(),
        Note::LockSlept => "slept waiting for the mutex".to_string(),
        Note::Unlocked => "released the mutex".to_string(),
        Note::CondSlept => "released the mutex and slept on the condition variable".to_string(),
        Note::Relocked => "took the mutex back after waking".to_string(),
        Note::EventDelivered => "received the next job".to_string(),
        Note::EventWait => "waits for the next job".to_string(),
        Note::NoMoreEvents => "found no jobs left and shuts down".to_string(),
        Note::Other => "spun, yielded or read the clock".to_string(),
        Note::Exited => "exited".to_string(),
        Note::SemTook => "took a unit from the semaphore (sem_wait)".to_string(),
        Note::SemSlept => "went to sleep in sem_wait".to_string(),
        Note::EpollAdded { ep, ready_now } => format!(
            "ran epoll_ctl(ADD) on epoll {ep}{}",
            if ready_now {
                ": the descriptor was readable already, so it went straight on the ready list"
            } else {
                ""
            }
        ),
        Note::EpollRemoved { ep } => format!("ran epoll_ctl(DEL) on epoll {ep}"),
        Note::EpollReturned { listener, conns } => {
            let mut what = Vec::new();
            if listener {
                what.push("the listening socket".to_string());
            }
            if conns > 0 {
                what.push(plural(conns, "readable connection", "readable connections"));
            }
            format!("returned from epoll_wait with {}", what.join(" and "))
        }
        Note::EpollSlept { wasted: true } => {
            "found nothing left on its ready list and went back to sleep in epoll_wait (a wasted wakeup)"
                .to_string()
        }
        Note::EpollSlept { wasted: false } => "went to sleep in epoll_wait".to_string(),
        Note::EpollTimedOut => "returned from epoll_wait: its timeout expired".to_string(),
        Note::AcceptedNb { conn } => format!("accepted connection {conn} (accept4)"),
        Note::AcceptAgain => {
            "called accept4 and got EAGAIN: another worker took the connection".to_string()
        }
        Note::ReadRequest { conn } => format!("read a request on connection {conn}"),
        Note::ReadEof { conn } => format!("read EOF on connection {conn} and closed it"),
        Note::ReadNothing => "found nothing to read".to_string(),
        Note::RecvSlept => "went to sleep in read, waiting for the request".to_string(),
        Note::Responded { conn } => format!("wrote the response on connection {conn}"),
    };
    format!("step {}: {who} {what}", rec.step)
}

/// A sentence for a run that has stopped (`finished`: what a finished run did, its mechanism's
/// `SiteMechanism::FINISHED`).
pub fn status_sentence(status: &Status, finished: &str) -> Option<String> {
    match status {
        Status::Running => None,
        Status::Finished => Some(format!("The run finished: {finished}.")),
        Status::Stuck(m) => Some(format!("The run is stuck: {m}.")),
    }
}

/// Nanoseconds for people: "850 ns", "12.3 µs", "4.56 ms", "1.20 s".
pub fn fmt_ns(ns: u64) -> String {
    let f = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.1} µs", f / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.2} ms", f / 1e6)
    } else {
        format!("{:.2} s", f / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer_step(actor: Actor, thread: u16, line: u16) -> StepRecord {
        StepRecord {
            step: 7,
            actor,
            line,
            time_ns: 1_000,
            cpu: None,
            note: Note::TimerFired { thread },
        }
    }

    fn name(i: u16) -> String {
        format!("thread {i}")
    }

    /// An expired `epoll_wait` (a step of the network) and the end of a timed sleep (a step of
    /// the sleeper, at the line it slept on) are told apart, and the sleep names its line's code.
    #[test]
    fn a_fired_timer_says_what_the_thread_slept_in() {
        let code = |i: u16, line: u16| (i == 2 && line == 5).then(|| "usleep(delay)".to_string());
        assert_eq!(
            sentence(&timer_step(Actor::Network, 2, 0), &name, &code),
            "step 7: the epoll_wait timeout of thread 2 expired and woke it"
        );
        assert_eq!(
            sentence(&timer_step(Actor::Thread(2), 2, 5), &name, &code),
            "step 7: thread 2's time in usleep(delay) is up: its timer fired and it is runnable again"
        );
        let none = |_: u16, _: u16| None;
        let slept = sentence(&timer_step(Actor::Thread(1), 1, 3), &name, &none);
        assert_eq!(
            slept,
            "step 7: thread 1's timed sleep is over: its timer fired and it is runnable again"
        );
        assert!(!slept.contains("epoll"), "{slept}");
    }

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(fmt_ns(999), "999 ns");
        assert_eq!(fmt_ns(12_345), "12.3 µs");
    }
}
