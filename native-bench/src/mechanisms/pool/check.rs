//! `herdlab check pool`: core's model checker on a pool scenario, timed natively.
//!
//! The search is `herdlab_core::mechanisms::pool::invariants::check`: the simulator as the model
//! (`herdlab_core::check::SimModel`); the actors are the event loop (checker index 0), the pool
//! threads (`1..=T`), the spurious-wakeup injector if any, and the arrivals (the last index). A
//! counterexample is replayed in the simulator one step at a time (the generic
//! [`crate::check::replay`]), which names each step's line and confirms that the simulator breaks
//! the same invariant.

use std::ops::Deref;

use serde::Serialize;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::invariants::{check, model_state, model_terminal};
use herdlab_core::mechanisms::pool::{Pool, PoolParams, PoolSim};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::{Actor, StepRecord};

use crate::check::{self as check_cmd, Replay, Search, SimStep};

/// The lesson of the pool.
pub const LESSON: &str = "nginx-thread-pool";

/// The invariants checked (core's names, `nginx-thread-pool.md` §5).
pub const INVARIANTS: [&str; 8] = [
    "null-deref",
    "queue-shape",
    "waiting-count",
    "bounded-queue",
    "lost-wakeup",
    "exactly-once",
    "order",
    "shutdown",
];

/// A broken invariant with its schedule.
pub type ViolationReport = check_cmd::ViolationReport<SimStep>;

/// What `herdlab check pool` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutput {
    /// Always `pool`.
    pub mechanism: &'static str,
    /// The variant.
    pub variant: String,
    /// Pool threads.
    pub threads: u32,
    /// Requests (`--tasks`), every one a blocking read in the checker's preset.
    pub tasks: u32,
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

/// The lesson link for a scenario and schedule.
pub fn link(p: &PoolParams, schedule: &[u16]) -> String {
    let threads = p.simulate().threads().len();
    check_cmd::playground_link(
        LESSON,
        &Scenario::Pool(*p).to_query(),
        schedule.len(),
        &check_cmd::picks(threads, schedule),
    )
}

fn network_text(_sim: &PoolSim, rec: &StepRecord) -> String {
    match rec.actor {
        Actor::Network => "the next request arrives".to_string(),
        Actor::Thread(_) => String::new(),
    }
}

/// Replay `schedule` in the simulator.
pub fn replay(p: &PoolParams, schedule: &[u16]) -> Replay<SimStep> {
    check_cmd::replay(
        p.simulate(),
        schedule,
        network_text,
        model_state,
        model_terminal,
    )
}

/// Run the checker on `p`.
pub fn run(p: &PoolParams, cfg: &CheckConfig, progress: bool) -> CheckOutput {
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
        mechanism: "pool",
        variant: p.variant.name().to_string(),
        threads: p.threads,
        tasks: p.requests,
        scenario: Pool::to_query(p),
        search,
    }
}

/// Who took a step, in words.
fn who(threads: u32, s: &SimStep) -> String {
    let name = match s
        .actor
        .strip_prefix('t')
        .and_then(|n| n.parse::<u32>().ok())
    {
        Some(0) => "event loop".to_string(),
        Some(i) if i <= threads => format!("pool thread {i}"),
        Some(_) => "injector".to_string(),
        None => return format!("network: {}", s.text),
    };
    format!("{name} (line {}): {}", s.line, s.text)
}

/// The report as text.
pub fn render(p: &PoolParams, cfg: &CheckConfig, out: &CheckOutput) -> String {
    let description = format!(
        "pool --variant {} --threads {} --tasks {}{}",
        p.variant.name(),
        p.threads,
        p.requests,
        check_cmd::bound_text(cfg)
    );
    out.search.render(&description, |s| who(p.threads, s))
}
