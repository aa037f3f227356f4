//! What every `herdlab check` shares: the search's report (bounds, statistics, verdict, the
//! counterexample), the listing line tidier and the progress switch.
//!
//! Generic: names no mechanism.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use serde::Serialize;

use herdlab_core::check::{CheckConfig, CheckReport, Counterexample, Model, SimModel, Violation};
use herdlab_core::machine::Machine;
use herdlab_core::sim::{Actor, Simulation, StepRecord};

/// A broken invariant, with the schedule that breaks it (`S`: how a step is reported; the herd's
/// steps name an actor where the locks' name a thread).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ViolationReport<S> {
    /// The invariant's name.
    pub invariant: String,
    /// What the checker saw.
    pub message: String,
    /// The checker indices (threads, or the herd's network) to step, in order.
    pub schedule: Vec<u16>,
    /// The schedule's steps with their lines.
    pub steps: Vec<S>,
    /// The lesson at this scenario and schedule.
    pub link: String,
    /// Whether the simulator's replay broke the same invariant.
    pub replay_agrees: bool,
    /// What the simulator's replay saw (`invariant: message`, or why it saw nothing).
    pub replay: String,
}

/// What a replay in the simulator gives: the steps, and the first invariant it saw broken
/// (`Err`: it saw none, or the schedule could not be replayed: the string says which).
pub type Replay<S> = (Vec<S>, Result<(String, String), String>);

impl<S> ViolationReport<S> {
    /// The report of the counterexample `c`, with its simulator replay and its lesson link.
    pub fn new(c: Counterexample, (steps, seen): Replay<S>, link: String) -> Self {
        let (replay_agrees, replay) = match seen {
            Ok((inv, msg)) => (inv == c.violation.invariant, format!("{inv}: {msg}")),
            Err(why) => (false, why),
        };
        ViolationReport {
            invariant: c.violation.invariant,
            message: c.violation.message,
            schedule: c.schedule,
            steps,
            link,
            replay_agrees,
            replay,
        }
    }
}

/// What a search reports, whatever it searched: the bounds, the statistics, the invariants and
/// the counterexample (the report of each `check` command adds its scenario's fields first).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Search<S> {
    /// The preemption bound, if any.
    pub preemption_bound: Option<u32>,
    /// Whether a preemption bound limited the search (then `complete` means the bounded search
    /// ended, which finds bugs but proves nothing).
    pub bounded: bool,
    /// The state limit.
    pub max_states: u64,
    /// Distinct states visited.
    pub states: u64,
    /// Transitions taken.
    pub transitions: u64,
    /// The longest schedule explored.
    pub max_depth: u32,
    /// Every reachable state (within the bounds) was visited, or a violation was found.
    pub complete: bool,
    /// Wall time of the search (the breadth-first search for the shortest counterexample
    /// included), nanoseconds.
    pub elapsed_ns: u64,
    /// States per wall-clock second.
    pub states_per_sec: f64,
    /// The invariants checked.
    pub invariants: Vec<&'static str>,
    /// The shortest counterexample, or null.
    pub violation: Option<ViolationReport<S>>,
}

impl<S> Search<S> {
    /// Run `search` under `cfg`, timed (`progress` prints the state count on stderr while it
    /// runs), and report a counterexample through `report`.
    pub fn run(
        cfg: &CheckConfig,
        progress: bool,
        invariants: Vec<&'static str>,
        search: impl FnOnce(&mut dyn FnMut(u64) -> bool) -> CheckReport,
        report: impl FnOnce(Counterexample) -> ViolationReport<S>,
    ) -> Self {
        let t0 = Instant::now();
        let mut err = std::io::stderr();
        let mut tick = |states: u64| {
            if progress {
                let _ = write!(
                    err,
                    "\r{states} states, {:.1} s",
                    t0.elapsed().as_secs_f64()
                );
                let _ = err.flush();
            }
            true
        };
        let r = search(&mut tick);
        let elapsed_ns = (t0.elapsed().as_nanos() as u64).max(1);
        if progress && r.states >= 65_536 {
            let _ = write!(std::io::stderr(), "\r{:<40}\r", "");
        }
        Search {
            preemption_bound: cfg.preemption_bound,
            bounded: cfg.preemption_bound.is_some(),
            max_states: cfg.max_states,
            states: r.states,
            transitions: r.transitions,
            max_depth: r.max_depth,
            complete: r.complete,
            elapsed_ns,
            states_per_sec: r.states as f64 * 1e9 / elapsed_ns as f64,
            invariants,
            violation: r.violation.map(report),
        }
    }

    /// The exit status: 0 when every invariant holds and the search was complete, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.violation.is_none() && self.complete {
            0
        } else {
            1
        }
    }

    /// The report as text: `herdlab check <description>`, the verdict (or the counterexample,
    /// each step as `step k: <who(step)>`), the statistics.
    pub fn render(&self, description: &str, who: impl Fn(&S) -> String) -> String {
        let mut out = format!("herdlab check {description}\n");
        match &self.violation {
            None => out.push_str(&verdict_text(
                self.complete,
                self.bounded,
                self.max_states,
                &self.invariants,
            )),
            Some(v) => {
                out.push_str(&format!(
                    "VIOLATION of {} ({} steps, the shortest schedule that breaks it):\n",
                    v.invariant,
                    v.steps.len()
                ));
                for (k, s) in v.steps.iter().enumerate() {
                    out.push_str(&format!("step {}: {}\n", k + 1, who(s)));
                }
                out.push_str(&format!("{}: {}\n", v.invariant, v.message));
                if !v.replay_agrees {
                    out.push_str(&format!(
                        "warning: the simulator's replay of this schedule disagrees ({})\n",
                        v.replay
                    ));
                }
                out.push_str(&format!("{}\n", v.link));
            }
        }
        out.push_str(&stats_line(
            self.states,
            self.transitions,
            self.max_depth,
            self.elapsed_ns,
            self.states_per_sec,
        ));
        out.push('\n');
        out
    }
}

/// A listing line without its indentation, with one gap before its comment.
pub fn tidy(line: &str) -> String {
    match line.split_once("//") {
        Some((code, comment)) if !code.trim().is_empty() => {
            format!("{}  // {}", code.trim(), comment.trim())
        }
        _ => line.trim().to_string(),
    }
}

/// Whether to show the progress counter (stderr is a terminal).
pub fn progress_wanted() -> bool {
    std::io::stderr().is_terminal()
}

/// `, at most K preemption(s) per schedule` where the search is bounded, else nothing.
pub fn bound_text(cfg: &CheckConfig) -> String {
    match cfg.preemption_bound {
        Some(b) => format!(
            ", at most {b} preemption{} per schedule",
            if b == 1 { "" } else { "s" }
        ),
        None => String::new(),
    }
}

/// The statistics line of a check report.
pub fn stats_line(
    states: u64,
    transitions: u64,
    max_depth: u32,
    elapsed_ns: u64,
    states_per_sec: f64,
) -> String {
    format!(
        "{states} states, {transitions} transitions, max depth {max_depth}, {:.3} s, {:.2} M states/s",
        elapsed_ns as f64 / 1e9,
        states_per_sec / 1e6
    )
}

/// The verdict of a search that found no violation: OK (with the invariants checked), OK within
/// the preemption bound, or INCOMPLETE at the state limit.
pub fn verdict_text(complete: bool, bounded: bool, max_states: u64, invariants: &[&str]) -> String {
    if !complete {
        return format!(
            "INCOMPLETE: the search stopped at the state limit ({max_states} states, --max-states) \
             before it had seen every reachable state; no invariant broke in the states it \
             visited, but this is not a proof\n"
        );
    }
    let head = if bounded {
        "OK within the bound: no invariant broke in the states reached with the preemption bound \
         (a bounded search finds bugs; it is not a proof: a state first reached with more \
         preemptions is not explored again with fewer)"
    } else {
        "OK: every invariant holds in every reachable state"
    };
    format!("{head}\nchecked: {}\n", invariants.join(", "))
}

// What `herdlab check herd` and `herdlab check accept` share: both search the simulator itself
// (`herdlab_core::check::SimModel`), whose actors are the threads (checker indices `0..n`) and the
// network (index `n`). A counterexample is replayed in a fresh simulation one step at a time, which
// names each step's pseudocode line and confirms that the simulator breaks the same invariant.

/// One step of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SimStep {
    /// Who stepped, as the link's picks spell it: `t<k>` (thread `k`) or `n` (the network).
    pub actor: String,
    /// The 1-based line of the thread's listing that the step executed (0 for the network).
    pub line: u16,
    /// That line's text (trimmed), or what the network did.
    pub text: String,
}

/// Where `cargo xtask serve` serves the site's lessons: a lesson's address is this and its slug.
pub const SITE_BASE: &str = "http://127.0.0.1:8080/#/lesson/";

/// The address of lesson `slug`'s playground on scenario `query` (`mechanism=…&…`) at the end of a
/// counterexample of `steps` steps taken by `picks` ([`picks`]' text). `follow=picks` makes the
/// playground follow them: after a step back, stepping forward retraces the counterexample.
pub fn playground_link(slug: &str, query: &str, steps: usize, picks: &str) -> String {
    format!("{SITE_BASE}{slug}?{query}&follow=picks&step={steps}&picks={picks}")
}

/// The picks that make a web widget replay `schedule` (every step chosen: `i:t<k>` or `i:n`, `i`
/// the 0-based step), for a world of `threads` threads.
pub fn picks(threads: usize, schedule: &[u16]) -> String {
    schedule
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            if (t as usize) < threads {
                format!("{i}:t{t}")
            } else {
                format!("{i}:n")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The text of a thread's step: its listing's line, trimmed.
pub fn thread_line<M: Machine>(sim: &Simulation<M>, t: u16, line: u16) -> String {
    sim.threads()
        .get(t as usize)
        .and_then(|th| th.machine().listing().get((line as usize).checked_sub(1)?))
        .map_or_else(|| format!("(line {line})"), |s| tidy(s))
}

/// Replay `schedule` from `sim`: the steps with their lines (`network_text` says what a network
/// step did), and the first invariant `state` (or, where nothing can run, `terminal`) sees broken
/// (`Err`: none, or the schedule could not be replayed: the string says which).
pub fn replay<M: Machine>(
    sim: Simulation<M>,
    schedule: &[u16],
    network_text: impl Fn(&Simulation<M>, &StepRecord) -> String,
    state: impl Fn(&SimModel<M>) -> Option<Violation>,
    terminal: impl Fn(&SimModel<M>) -> Option<Violation>,
) -> Replay<SimStep> {
    let mut m = SimModel { sim };
    let n = m.thread_count();
    let mut steps = Vec::with_capacity(schedule.len());
    let mut seen: Option<(String, String)> = None;
    for (k, &t) in schedule.iter().enumerate() {
        if t as usize >= n {
            return (
                steps,
                Err(format!("step {}: actor {t} does not exist", k + 1)),
            );
        }
        let actor = m.actor(t as usize);
        let rec = match m.sim.step_actor(actor) {
            Ok(r) => r,
            Err(e) => return (steps, Err(format!("step {}: actor {t}: {e}", k + 1))),
        };
        let (who, text) = match actor {
            Actor::Thread(i) => (format!("t{i}"), thread_line(&m.sim, i, rec.line)),
            Actor::Network => ("n".to_string(), network_text(&m.sim, &rec)),
        };
        steps.push(SimStep {
            actor: who,
            line: rec.line,
            text,
        });
        if seen.is_none() {
            seen = state(&m).map(|v| (v.invariant, v.message));
        }
    }
    if seen.is_none() && (0..n).all(|t| !m.is_runnable(t)) {
        seen = terminal(&m).map(|v| (v.invariant, v.message));
    }
    (
        steps,
        seen.ok_or_else(|| "the simulator saw no invariant broken".to_string()),
    )
}

/// `worker 0, worker 1 and worker 3` style lists.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
