//! What `herdlab check herd` and `herdlab check accept` share: both search the simulator itself
//! (`herdlab_core::check::SimModel`), whose actors are the threads (checker indices `0..n`) and the
//! network (index `n`). A counterexample is replayed in a fresh simulation one step at a time, which
//! names each step's pseudocode line and confirms that the simulator breaks the same invariant.

use serde::Serialize;

use herdlab_core::check::{Model, SimModel, Violation};
use herdlab_core::machine::Machine;
use herdlab_core::sim::{Actor, Simulation, StepRecord};

use crate::check_cmd::{tidy, Replay};

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
