//! `herdlab check mysql`: core's model checker on a MySQL scenario, timed natively.
//!
//! The search is `herdlab_core::mechanisms::mysql::invariants::check`: the simulator as the model
//! (`herdlab_core::check::SimModel`); the actors are the clients (checker index 0), then the
//! pool's timer and worker slots, or the thread-per-connection slots, and the arrivals (the last
//! index). A counterexample is replayed in the simulator one step at a time (the generic
//! [`crate::check::replay`]), which names each step's line and confirms that the simulator breaks
//! the same invariant.

use std::ops::Deref;

use serde::Serialize;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::invariants::{check, model_state, model_terminal};
use herdlab_core::mechanisms::mysql::params::CHECK_DRAIN;
use herdlab_core::mechanisms::mysql::{Mode, Mysql, MysqlParams, MysqlSim};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::{Actor, StepRecord};

use crate::check::{self as check_cmd, Replay, Search, SimStep};

/// The invariants checked (core's names, `mysql-threadpool.md` §5).
pub const INVARIANTS: [&str; 8] = [
    "one-listener",
    "no-lost-event",
    "active-count",
    "thread-bound",
    "idle-with-work",
    "cache-count",
    "one-connection",
    "all-served",
];

/// A broken invariant with its schedule.
pub type ViolationReport = check_cmd::ViolationReport<SimStep>;

/// What `herdlab check mysql` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutput {
    /// Always `mysql`.
    pub mechanism: &'static str,
    /// The variant.
    pub variant: String,
    /// `per-connection` or `pool`.
    pub mode: String,
    /// Client connections.
    pub connections: u32,
    /// Queries.
    pub queries: u32,
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

fn network_text(_sim: &MysqlSim, rec: &StepRecord) -> String {
    match rec.actor {
        Actor::Network => "the next query (or clock event) arrives".to_string(),
        Actor::Thread(_) => String::new(),
    }
}

/// Replay `schedule` in the simulator (the checker's scenario: [`CHECK_DRAIN`] clock events
/// after the queries).
pub fn replay(p: &MysqlParams, schedule: &[u16]) -> Replay<SimStep> {
    check_cmd::replay(
        p.simulate_drain(CHECK_DRAIN),
        schedule,
        network_text,
        model_state,
        model_terminal,
    )
}

/// The lesson of `p`'s mode: `mysql-thread-per-connection` (its playground `mysql-playground`) or
/// `mysql-thread-pool` (`mysql-tp-playground`).
pub fn lesson(p: &MysqlParams) -> &'static str {
    match p.config().mode {
        Mode::Pool => "mysql-thread-pool",
        Mode::PerConnection => "mysql-thread-per-connection",
    }
}

/// The lesson link for a scenario and a checker's schedule: the playground following it, opened at
/// its last step.
pub fn link(p: &MysqlParams, schedule: &[u16]) -> String {
    check_cmd::playground_link(
        lesson(p),
        &Scenario::Mysql(*p).to_query(),
        schedule.len(),
        &check_cmd::picks(p.threads().len(), schedule),
    )
}

/// Run the checker on `p`.
pub fn run(p: &MysqlParams, cfg: &CheckConfig, progress: bool) -> CheckOutput {
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
    let cfg_p = p.config();
    CheckOutput {
        mechanism: "mysql",
        variant: p.variant.name().to_string(),
        mode: p.mode.name().to_string(),
        connections: cfg_p.connections,
        queries: cfg_p.queries,
        scenario: Mysql::to_query(p),
        search,
    }
}

/// Who took a step, in words.
fn who(p: &MysqlParams, s: &SimStep) -> String {
    let cfg = p.config();
    let name = match s
        .actor
        .strip_prefix('t')
        .and_then(|n| n.parse::<u32>().ok())
    {
        Some(0) => "clients".to_string(),
        Some(1) if cfg.mode == Mode::Pool => "timer".to_string(),
        Some(i) if cfg.mode == Mode::Pool => {
            let k = i - 2;
            format!(
                "group {} thread {}",
                k / cfg.group_threads,
                k % cfg.group_threads
            )
        }
        Some(i) => format!("connection thread {}", i - 1),
        None => return format!("network: {}", s.text),
    };
    format!("{name} (line {}): {}", s.line, s.text)
}

/// The report as text.
pub fn render(p: &MysqlParams, cfg: &CheckConfig, out: &CheckOutput) -> String {
    let description = format!(
        "mysql --mode {} --variant {} --connections {} --queries {}{}",
        out.mode,
        out.variant,
        out.connections,
        out.queries,
        check_cmd::bound_text(cfg)
    );
    out.search.render(&description, |s| who(p, s))
}
