//! Plain data for the view, whatever the mechanism: lanes, wait queues and their walks, CPUs,
//! listings, words, the status. A mechanism's snapshot (in its folder) is made of these, derived
//! from its model on each render; each part is compared by value, so a part that did not change is
//! not re-rendered.

use herdlab_core::check::Violation;
use herdlab_core::machine::Machine;
use herdlab_core::sim::{Role, Sched, Simulation, Status};

use crate::live::describe::{short_name, LaneState};
use crate::live::sim_model::Walk;

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

/// One shared word (or the semaphore) as the words panel shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordView {
    /// `lock-word`, `wait-word`, `sem-count`, `sem-sleepers`, `next-word`, `serving-word`,
    /// `futex-sleepers`.
    pub testid: &'static str,
    /// Its name.
    pub label: &'static str,
    /// The value (a number; for a queue, "thread 1", "threads 0, 2" or "none").
    pub value: String,
    /// What it means now ("held by thread 1").
    pub note: String,
    /// For the holder and the queues: the threads concerned (`data-threads`).
    pub threads: Vec<u16>,
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

/// The invariants of a mechanism's run now: the first broken one, if any (what a board's
/// `invariant-status` line says).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InvariantView {
    /// The broken invariant's name (empty when all hold).
    pub name: String,
    /// What was seen.
    pub message: String,
}

impl InvariantView {
    /// The view of core's first violation, if any.
    pub fn of(violation: Option<&Violation>) -> Self {
        violation.map_or_else(Self::default, |v| InvariantView {
            name: v.invariant.clone(),
            message: v.message.clone(),
        })
    }
}
