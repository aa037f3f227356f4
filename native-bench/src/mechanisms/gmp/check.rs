//! `herdlab check gmp`: core's model checker on a G/M/P scenario, timed natively.
//!
//! The search is `herdlab_core::mechanisms::gmp::invariants::check`: the simulator as the model
//! (`herdlab_core::check::SimModel`); the actors are the Ms (checker index i is M i). A
//! counterexample is replayed in the simulator one step at a time (the generic
//! [`crate::check::replay`]), which names each step's line and confirms that the simulator breaks
//! the same invariant. The checker explores core's `checked_world` (`sched.lock` sleeping at once,
//! each `futex_wait` one step); `sim gmp` and the site step the full world, with `lock2`'s spin
//! rounds and `futex_wait`'s entry step. The replay and the link's picks are the schedule as the
//! full world steps it (core's `full_schedule`), so that the go-scheduler lesson's playground
//! (`gmp-playground`, a block of the lazily loaded bundle) replays what the checker found: the
//! link opens it at the counterexample's last step.

use std::ops::Deref;

use serde::Serialize;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{
    check, full_schedule, model_state, model_terminal,
};
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpSim};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::StepRecord;

use crate::check::{self as check_cmd, Replay, Search, SimStep};

/// The lesson of the scheduler (`lessons/go-scheduler.md`; its widgets load with the lazy bundle).
pub const LESSON: &str = "go-scheduler";

/// The invariants checked (core's names, `core/src/mechanisms/gmp/invariants.rs`).
pub const INVARIANTS: [&str; 10] = [
    "conservation",
    "ownership",
    "queue-bounds",
    "spinning",
    "lost-wakeup",
    "syscall-retake",
    "preemption",
    "starvation",
    "locked-thread",
    "stuck",
];

/// A broken invariant with its schedule.
pub type ViolationReport = check_cmd::ViolationReport<SimStep>;

/// What `herdlab check gmp` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutput {
    /// Always `gmp`.
    pub mechanism: &'static str,
    /// The variant.
    pub variant: String,
    /// GOMAXPROCS.
    pub gomaxprocs: u32,
    /// Ms.
    pub threads: u32,
    /// Goroutines, main included.
    pub goroutines: u32,
    /// The scenario as a query string.
    pub scenario: String,
    /// The search's bounds, statistics and verdict.
    #[serde(flatten)]
    pub search: Search<SimStep>,
}

impl Deref for CheckOutput {
    type Target = Search<SimStep>;
    fn deref(&self) -> &Search<SimStep> {
        &self.search
    }
}

/// The lesson link for a scenario and a checker's schedule (core's `full_schedule`: the picks are the
/// full world's).
pub fn link(p: &GmpParams, schedule: &[u16]) -> String {
    let threads = p.simulate().threads().len();
    let steps = full_schedule(p, schedule);
    check_cmd::playground_link(
        LESSON,
        &Scenario::Gmp(*p).to_query(),
        steps.len(),
        &check_cmd::picks(threads, &steps),
    )
}

fn network_text(_sim: &GmpSim, _rec: &StepRecord) -> String {
    String::new()
}

/// Replay a checker's `schedule` in the simulator's full world (core's `full_schedule`).
pub fn replay(p: &GmpParams, schedule: &[u16]) -> Replay<SimStep> {
    check_cmd::replay(
        p.simulate(),
        &full_schedule(p, schedule),
        network_text,
        model_state,
        model_terminal,
    )
}

/// Run the checker on `p`.
pub fn run(p: &GmpParams, cfg: &CheckConfig, progress: bool) -> CheckOutput {
    let search = Search::run(
        cfg,
        progress,
        INVARIANTS.to_vec(),
        |tick| check(p, cfg, tick),
        |c| {
            let (steps, link) = (replay(p, &c.schedule), link(p, &c.schedule));
            ViolationReport::new(c, steps, link)
        },
    );
    CheckOutput {
        mechanism: "gmp",
        variant: p.variant.name().to_string(),
        gomaxprocs: p.gomaxprocs,
        threads: p.threads,
        goroutines: p.goroutines,
        scenario: Gmp::to_query(p),
        search,
    }
}

/// Who took a step, in words (sysmon, when it runs, is the last thread).
fn who(p: &GmpParams, s: &SimStep) -> String {
    let sysmon = p.config().sysmon_id();
    match s.actor.strip_prefix('t') {
        Some(n) if n.parse::<u32>().ok() == sysmon && sysmon.is_some() => {
            format!("sysmon (line {}): {}", s.line, s.text)
        }
        Some(n) => format!("M{n} (line {}): {}", s.line, s.text),
        None => format!("{}: {}", s.actor, s.text),
    }
}

/// The report as text.
pub fn render(p: &GmpParams, cfg: &CheckConfig, out: &CheckOutput) -> String {
    let description = format!(
        "gmp --variant {} --gomaxprocs {} --threads {} --goroutines {}{}",
        p.variant.name(),
        p.gomaxprocs,
        p.threads,
        p.goroutines,
        check_cmd::bound_text(cfg)
    );
    out.search.render(&description, |s| who(p, s))
}
