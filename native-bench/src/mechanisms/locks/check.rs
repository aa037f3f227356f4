//! `herdlab check <lock>`: core's model checker on a lock scenario, timed natively.
//!
//! The search is `herdlab_core::check::explore` over `check_world(&p)` with the lock invariants
//! (`check_state` on every state, `check_terminal` where no thread can run). A counterexample is
//! replayed in the simulator one checker step at a time (a thread's pending `pause`s, then its
//! visible operation), which gives each step's pseudocode line and confirms that the simulator
//! breaks the same invariant; the link opens the lesson at that schedule.

use std::ops::Deref;

use serde::Serialize;

use herdlab_core::check::{explore, CheckConfig, SpinSteps};
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, check_world};
use herdlab_core::mechanisms::locks::{LockKind, LockParams};
use herdlab_core::op::Op;
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::{Actor, Sched};

use crate::check::{bound_text, tidy, Replay, Search};

/// Where the lesson is served (`cargo xtask serve`).
pub const LESSON_BASE: &str = "http://127.0.0.1:8080/#/lesson/nginx-shmtx?";

/// `--spin` when checking: nginx's own 2048. The checker merges a failed probe with the rest of its
/// spin (`herdlab_core::check::SpinSteps`), so every spin of 2 or more has the same state space and
/// nginx's costs no more to check than a small one.
pub const CHECK_SPIN: u32 = herdlab_core::mechanisms::locks::shmtx::NGINX_SPIN;
/// `--cpus` when checking (more than one, so the spin phase exists).
pub const CHECK_CPUS: u32 = 2;
/// `--yield` when checking spin-yield.
pub const CHECK_YIELD: u32 = 4;
/// `--threads` when checking.
pub const CHECK_THREADS: u32 = 3;
/// `--rounds` when checking.
pub const CHECK_ROUNDS: u32 = 2;

/// The check's parameters, as the defaults of `herdlab check`.
pub fn default_params(lock: LockKind) -> LockParams {
    LockParams {
        lock,
        threads: CHECK_THREADS,
        rounds: CHECK_ROUNDS,
        cpus: CHECK_CPUS,
        spin: CHECK_SPIN,
        yield_after: CHECK_YIELD,
        ..LockParams::default()
    }
}

/// One step of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The thread (0-based; its pid is `thread + 1`).
    pub thread: u16,
    /// The 1-based line of the thread's listing that the step executed.
    pub line: u16,
    /// That line's text (trimmed).
    pub text: String,
    /// The probes that the step ran after its own and that failed too: the rest of a failed
    /// spin, which the checker runs as part of this step (0 for every other step).
    pub merged_probes: u32,
}

/// A broken lock invariant, with its schedule.
pub type ViolationReport = crate::check::ViolationReport<Step>;

/// What `herdlab check` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutput {
    /// The lock.
    pub lock: String,
    /// Its variant.
    pub variant: String,
    /// The scenario as a query string.
    pub scenario: String,
    /// The search's bounds, statistics and verdict.
    #[serde(flatten)]
    pub search: Search<Step>,
}

impl Deref for CheckOutput {
    type Target = Search<Step>;
    fn deref(&self) -> &Search<Step> {
        &self.search
    }
}

/// The invariants `check_state`/`check_terminal` apply to this scenario.
pub fn invariants(p: &LockParams) -> Vec<&'static str> {
    let mut v = vec!["mutual-exclusion"];
    if p.lock == LockKind::Shmtx && p.semaphore {
        v.push("wakeup-accounting");
    }
    v.extend(["semaphore-overflow", "lost-wakeup", "deadlock"]);
    v
}

/// The lesson link for a scenario and schedule.
pub fn link(p: &LockParams, schedule: &[u16]) -> String {
    let s: Vec<String> = schedule.iter().map(u16::to_string).collect();
    format!(
        "{LESSON_BASE}{}&schedule={}",
        Scenario::Locks(*p).to_query(),
        s.join(",")
    )
}
/// Replay `schedule` in the simulator: the steps with their lines, and the first invariant the
/// simulator sees broken (`None`: it saw none, or the schedule could not be replayed: the string
/// says which).
pub fn replay(p: &LockParams, schedule: &[u16]) -> Replay<Step> {
    let mut sim = p.simulate();
    let mut steps = Vec::with_capacity(schedule.len());
    let mut seen: Option<(String, String)> = None;
    for (k, &t) in schedule.iter().enumerate() {
        if sim.threads().get(t as usize).is_none() {
            return (
                steps,
                Err(format!("step {}: thread {t} does not exist", k + 1)),
            );
        }
        while sim.threads()[t as usize].machine().next_op() == Op::Pause {
            if let Err(e) = sim.step_actor(Actor::Thread(t)) {
                return (steps, Err(format!("step {}: thread {t}: {e}", k + 1)));
            }
        }
        let th = &sim.threads()[t as usize];
        let line = th.line();
        let text = th
            .machine()
            .listing()
            .get((line as usize).wrapping_sub(1))
            .map_or_else(|| format!("(line {line})"), |s| tidy(s));
        // the visible operation, and the rest of a spin it failed (one checker step)
        let mut visible = 0u32;
        loop {
            let ran = sim.threads()[t as usize].machine().next_op();
            if let Err(e) = sim.step_actor(Actor::Thread(t)) {
                return (steps, Err(format!("step {}: thread {t}: {e}", k + 1)));
            }
            visible += u32::from(ran != Op::Pause);
            if !SpinSteps::Merged.goes_on(ran, sim.threads()[t as usize].machine()) {
                break;
            }
        }
        steps.push(Step {
            thread: t,
            line,
            text,
            merged_probes: visible - 1,
        });
        if seen.is_none() {
            seen = check_state(p, &sim).map(|v| (v.invariant, v.message));
        }
    }
    // the checker retires a thread with its last operation; the simulator takes one more step
    // (the exit) for it, which touches nothing shared
    for t in 0..sim.threads().len() {
        let th = &sim.threads()[t];
        if th.machine().next_op() == Op::Exit && th.sched() != Sched::Done {
            let _ = sim.step_actor(Actor::Thread(t as u16));
        }
    }
    if seen.is_none() && sim.runnable().is_empty() {
        seen = check_terminal(p, &sim).map(|v| (v.invariant, v.message));
    }
    (
        steps,
        seen.ok_or_else(|| "the simulator saw no invariant broken".to_string()),
    )
}

/// Run the checker. `progress` prints the state count on stderr while it runs.
pub fn run(p: &LockParams, cfg: &CheckConfig, progress: bool) -> CheckOutput {
    let search = Search::run(
        cfg,
        progress,
        invariants(p),
        |tick| {
            explore(
                check_world(p),
                cfg,
                &|s| check_state(p, s),
                &|s| check_terminal(p, s),
                tick,
            )
        },
        |c| {
            let (steps, link) = (replay(p, &c.schedule), link(p, &c.schedule));
            ViolationReport::new(c, steps, link)
        },
    );
    CheckOutput {
        lock: p.lock.name().to_string(),
        variant: p.variant.name().to_string(),
        scenario: Scenario::Locks(*p).to_query(),
        search,
    }
}

/// The one-line description of the scenario.
pub fn describe(p: &LockParams, cfg: &CheckConfig) -> String {
    let mut s = format!(
        "{} ({}): {} threads x {} rounds",
        p.lock.name(),
        p.variant.name(),
        p.threads,
        p.rounds
    );
    match p.lock {
        LockKind::Shmtx => s.push_str(&format!(
            ", spin {}, cpus {}, semaphore {}",
            p.spin,
            p.cpus,
            if p.semaphore { "on" } else { "off" }
        )),
        LockKind::SpinYield => s.push_str(&format!(", yield after {}", p.yield_after)),
        _ => {}
    }
    s.push_str(&bound_text(cfg));
    s
}

/// The report as text.
pub fn render(p: &LockParams, cfg: &CheckConfig, o: &CheckOutput) -> String {
    o.render(&describe(p, cfg), |s| match s.merged_probes {
        0 => format!("thread {}: {}", s.thread, s.text),
        n => format!(
            "thread {}: {}  [fails; so {} its {n} later probe{}, run in this step]",
            s.thread,
            s.text,
            if n == 1 { "does" } else { "do" },
            if n == 1 { "" } else { "s" }
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;

    #[test]
    fn correct_shmtx_two_threads_holds() {
        let p = LockParams {
            threads: 2,
            ..default_params(LockKind::Shmtx)
        };
        let o = run(&p, &CheckConfig::default(), false);
        assert!(o.complete && o.violation.is_none(), "{o:?}");
        assert_eq!(o.exit_code(), 0);
        assert!(render(&p, &CheckConfig::default(), &o).contains("OK: every invariant holds"));
    }

    #[test]
    fn announce_after_check_loses_a_wakeup_and_replays() {
        let p = LockParams {
            threads: 2,
            variant: ShmtxVariant::AnnounceAfterCheck,
            ..default_params(LockKind::Shmtx)
        };
        let o = run(&p, &CheckConfig::default(), false);
        let v = o.violation.as_ref().expect("a violation");
        assert_eq!(v.invariant, "lost-wakeup");
        assert!(v.replay_agrees, "{}", v.replay);
        assert_eq!(v.steps.len(), v.schedule.len());
        assert!(v.link.starts_with(LESSON_BASE));
        assert!(v.link.contains("variant=announce-after-check"));
        assert_eq!(o.exit_code(), 1);
        let t = render(&p, &CheckConfig::default(), &o);
        assert!(t.contains("step 1: thread "), "{t}");
        assert!(t.contains("sem_wait(sem)"), "{t}");
    }

    #[test]
    fn a_failed_spin_is_one_step_that_names_its_other_probes() {
        // nginx's spin 2048: n = 1, 2, 4, ..., 1024 is 11 probes; the step that fails the first
        // runs the other 10 (and the 2046 pauses between them), which the step reports
        let p = LockParams {
            threads: 2,
            variant: ShmtxVariant::UnlockReadsWaitFirst,
            ..default_params(LockKind::Shmtx)
        };
        assert_eq!(p.spin, 2048);
        let merged = |o: &CheckOutput| -> (Vec<u16>, Vec<u32>) {
            let v = o.violation.as_ref().expect("a violation");
            assert!(v.replay_agrees, "{}", v.replay);
            let m = v.steps.iter().map(|s| s.merged_probes).filter(|&n| n > 0);
            (v.schedule.clone(), m.collect())
        };
        let o = run(&p, &CheckConfig::default(), false);
        let (schedule, probes) = merged(&o);
        assert_eq!(probes, [10]);
        let t = render(&p, &CheckConfig::default(), &o);
        assert!(
            t.contains("so do its 10 later probes, run in this step"),
            "{t}"
        );
        // with spin 4 (probes n = 1, 2): the same schedule, and the step runs one more probe
        let o4 = run(&LockParams { spin: 4, ..p }, &CheckConfig::default(), false);
        assert_eq!(merged(&o4), (schedule, vec![1]));
    }

    #[test]
    fn state_limit_is_incomplete() {
        let p = default_params(LockKind::Shmtx);
        let cfg = CheckConfig {
            max_states: 100,
            ..CheckConfig::default()
        };
        let o = run(&p, &cfg, false);
        assert!(!o.complete);
        assert!(o.violation.is_none());
        assert_eq!(o.exit_code(), 1);
        assert!(render(&p, &cfg, &o).contains("INCOMPLETE"));
    }
}
