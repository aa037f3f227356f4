//! `herdlab check herd`: core's model checker on a herd scenario, timed natively.
//!
//! The search is `herdlab_core::mechanisms::herd::invariants::check`: the simulator itself as the model
//! (`herdlab_core::check::SimModel`), whose actors are the threads (checker indices `0..n`: the
//! workers, then the producer for the futex and condvar primitives) and, for the accept primitive,
//! the network (index `n`), which may deliver its next connection at any point while connections
//! remain. States are compared without their time, so the search explores interleavings, not
//! timings. The invariants are `lost-wakeup` (a connection waits while every worker sleeps, or
//! nothing can run with a connection queued), `conservation` (no more connections taken than
//! arrived; accept only) and `deadlock` (nothing can run with work left).
//!
//! A counterexample is replayed in the simulator one step at a time with `step_actor` on the actor
//! behind each index, which gives each step's pseudocode line (the thread's listing at the step's
//! line) and confirms that the simulator breaks the same invariant; the link opens the
//! thundering-herd lesson at that schedule (`step` and `picks`, which the herd widget replays).

use std::ops::Deref;

use serde::Serialize;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::herd::invariants::{check, check_state, check_terminal};
use herdlab_core::mechanisms::herd::{HerdParams, HerdSim, Primitive, WakeMode};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::{Actor, Note, Role, StepRecord};

use crate::check::{self as check_sim, and_list, playground_link, SimStep};
use crate::check::{self as check_cmd, Replay, Search};

/// The herd's lesson (`lessons/thundering-herd.md`).
pub const LESSON: &str = "thundering-herd";

/// `--workers` when checking.
pub const CHECK_WORKERS: u32 = 2;
/// `--cpus` when checking.
pub const CHECK_CPUS: u32 = 2;
/// `--connections` when checking.
pub const CHECK_CONNECTIONS: u32 = 2;
/// `--mode` when checking.
pub const CHECK_MODE: WakeMode = WakeMode::Exclusive;

/// The check's parameters, as the defaults of `herdlab check herd` (the arrival pattern is the
/// one [`checked_params`] runs).
pub fn default_params() -> HerdParams {
    HerdParams {
        workers: CHECK_WORKERS,
        cpus: CHECK_CPUS,
        mode: CHECK_MODE,
        connections: CHECK_CONNECTIONS,
        arrival: ArrivalPattern::OnDemand,
        ..HerdParams::default()
    }
}

/// The parameters the checker runs (and the link carries): `p` with on-demand arrivals.
///
/// For the accept primitive the pattern does not matter: the network actor may deliver whenever
/// a connection is left, so every arrival time is explored. The futex and condvar producers are
/// threads that wait for their next event as the pattern says, by simulated time, which the
/// checker leaves out of its states; on-demand is the pattern whose condition is logical (the next
/// job is due once every worker sleeps), so the search does not depend on timings (`--cpus`,
/// `--service` and `--seed` leave the states explored unchanged). Poisson or burst arrivals would
/// make which states are reached depend on the clocks of the first path to reach them.
pub fn checked_params(p: &HerdParams) -> HerdParams {
    HerdParams {
        arrival: ArrivalPattern::OnDemand,
        ..*p
    }
}

/// One step of a counterexample.
pub type Step = SimStep;

/// A broken invariant, with the schedule that breaks it: the checker indices to step, in order
/// (`0..n`: threads; `n`: the network, where there is one), each with its line.
pub type ViolationReport = check_cmd::ViolationReport<Step>;

/// What `herdlab check herd` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutput {
    /// Always `herd`.
    pub mechanism: &'static str,
    /// What the threads sleep on.
    pub primitive: String,
    /// How sleepers are queued and woken.
    pub mode: String,
    /// The sleeper's variant.
    pub variant: String,
    /// Worker threads.
    pub workers: u32,
    /// Connections (or jobs) in the run.
    pub connections: u32,
    /// The scenario as a query string (as checked: see [`checked_params`]).
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
pub fn invariants(p: &HerdParams) -> Vec<&'static str> {
    if p.primitive == Primitive::Accept {
        vec!["lost-wakeup", "conservation", "deadlock"]
    } else {
        // no accept queue: a lost wakeup shows where nothing can run
        vec!["lost-wakeup", "deadlock"]
    }
}

/// The picks that make the web widget replay `schedule` (every step chosen: `i:t<k>` or `i:n`,
/// `i` the 0-based step).
pub fn picks(p: &HerdParams, schedule: &[u16]) -> String {
    check_sim::picks(thread_count(p), schedule)
}

/// The lesson link for a scenario (as checked) and schedule.
pub fn link(p: &HerdParams, schedule: &[u16]) -> String {
    playground_link(
        LESSON,
        &Scenario::Herd(*p).to_query(),
        schedule.len(),
        &picks(p, schedule),
    )
}

/// The number of threads of the scenario (the workers, plus the producer of futex and condvar).
fn thread_count(p: &HerdParams) -> usize {
    p.workers as usize + (p.primitive != Primitive::Accept) as usize
}

/// What a thread is called in a step line.
fn thread_name(sim: &HerdSim, t: u16) -> String {
    match sim.threads().get(t as usize).map(|th| th.role()) {
        Some(Role::Producer) => "producer".to_string(),
        _ => format!("worker {t}"),
    }
}

/// What a network step did.
fn network_text(sim: &HerdSim, rec: &StepRecord) -> String {
    match (rec.actor, rec.note) {
        (Actor::Network, Note::Arrived { conn, woken }) => {
            let names: Vec<String> = sim
                .last_walk()
                .iter()
                .filter(|v| v.ret > 0)
                .map(|v| thread_name(sim, v.waiter))
                .collect();
            let whom = if !names.is_empty() {
                and_list(&names)
            } else if woken > 0 {
                format!("{woken} sleeper{}", if woken == 1 { "" } else { "s" })
            } else if sim.last_walk().is_empty() {
                "nobody (the wait queue is empty)".to_string()
            } else {
                "nobody".to_string()
            };
            format!("connection {conn} arrives; the wake walk wakes {whom}")
        }
        _ => "the network delivers a connection".to_string(),
    }
}

/// Replay `schedule` in the simulator: the steps with their lines, and the first invariant the
/// simulator sees broken (`Err`: it saw none, or the schedule could not be replayed: the string
/// says which).
pub fn replay(p: &HerdParams, schedule: &[u16]) -> Replay<Step> {
    check_sim::replay(
        p.simulate(),
        schedule,
        network_text,
        check_state,
        check_terminal,
    )
}

/// Run the checker on `p` (as [`checked_params`] adjusts it). `progress` prints the state count
/// on stderr while it runs.
pub fn run(p: &HerdParams, cfg: &CheckConfig, progress: bool) -> CheckOutput {
    let p = checked_params(p);
    let search = Search::run(
        cfg,
        progress,
        invariants(&p),
        |tick| check(&p, cfg, tick),
        |c| {
            let (steps, link) = (replay(&p, &c.schedule), link(&p, &c.schedule));
            ViolationReport::new(c, steps, link)
        },
    );
    CheckOutput {
        mechanism: "herd",
        primitive: p.primitive.name().to_string(),
        mode: p.mode.name().to_string(),
        variant: p.variant.name().to_string(),
        workers: p.workers,
        connections: p.connections,
        scenario: Scenario::Herd(p).to_query(),
        search,
    }
}

/// The one-line description of the scenario.
pub fn describe(p: &HerdParams, cfg: &CheckConfig) -> String {
    let mut s = format!(
        "herd: {} {} ({}): {} worker{}, {} connection{}, cpus {}",
        p.primitive.name(),
        p.mode.name(),
        p.variant.name(),
        p.workers,
        if p.workers == 1 { "" } else { "s" },
        p.connections,
        if p.connections == 1 { "" } else { "s" },
        p.cpus
    );
    s.push_str(&check_cmd::bound_text(cfg));
    s
}

/// The report as text.
pub fn render(p: &HerdParams, cfg: &CheckConfig, o: &CheckOutput) -> String {
    // the simulator names the threads; only a counterexample needs it
    let sim = std::cell::OnceCell::new();
    o.render(&describe(p, cfg), |s| {
        let who = match s.actor.strip_prefix('t').and_then(|t| t.parse().ok()) {
            Some(t) => thread_name(sim.get_or_init(|| p.simulate()), t),
            None => "network".to_string(),
        };
        format!("{who}: {}", s.text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::SITE_BASE;
    use herdlab_core::mechanisms::herd::Variant;

    #[test]
    fn the_correct_default_holds() {
        let p = default_params();
        let o = run(&p, &CheckConfig::default(), false);
        assert!(o.complete && o.violation.is_none(), "{o:?}");
        assert_eq!(o.exit_code(), 0);
        let t = render(&p, &CheckConfig::default(), &o);
        assert!(t.contains("OK: every invariant holds"), "{t}");
        assert!(t.contains("lost-wakeup, conservation, deadlock"), "{t}");
    }

    #[test]
    fn the_broken_sleeper_loses_a_wakeup_and_replays() {
        let p = HerdParams {
            variant: Variant::BrokenSleeper,
            ..default_params()
        };
        let o = run(&p, &CheckConfig::default(), false);
        let v = o.violation.as_ref().expect("a violation");
        assert_eq!(v.invariant, "lost-wakeup");
        assert!(v.replay_agrees, "{}", v.replay);
        assert!(!v.schedule.is_empty());
        assert_eq!(v.steps.len(), v.schedule.len());
        assert!(v.link.starts_with(&format!("{SITE_BASE}{LESSON}?")));
        assert!(v.link.contains("variant=broken-sleeper"));
        assert!(v
            .link
            .contains(&format!("&follow=picks&step={}&picks=0:", v.schedule.len())));
        assert_eq!(o.exit_code(), 1);
        let t = render(&p, &CheckConfig::default(), &o);
        assert!(t.contains("step 1: "), "{t}");
        assert!(
            t.contains(": network: connection 0 arrives; the wake walk wakes"),
            "{t}"
        );
        assert!(t.contains(": worker "), "{t}");
    }

    #[test]
    fn the_links_picks_replay_in_the_stepper_the_web_widget_uses() {
        use herdlab_core::sim::stepper::Stepper;
        let p = HerdParams {
            variant: Variant::BrokenSleeper,
            ..default_params()
        };
        let o = run(&p, &CheckConfig::default(), false);
        let v = o.search.violation.expect("a violation");
        let (query, picks) = v.link.split_once("&picks=").unwrap();
        let step: u64 = query.rsplit_once("&step=").unwrap().1.parse().unwrap();
        assert_eq!(step, v.schedule.len() as u64);
        let picks: Vec<(u64, Actor)> = picks
            .split(',')
            .map(|x| {
                let (i, a) = x.split_once(':').unwrap();
                let a = match a.strip_prefix('t') {
                    Some(t) => Actor::Thread(t.parse().unwrap()),
                    None => Actor::Network,
                };
                (i.parse().unwrap(), a)
            })
            .collect();
        assert_eq!(picks.len(), v.schedule.len());
        let (s, bad) = Stepper::replay(checked_params(&p).simulate(), step, &picks);
        assert_eq!(bad, None);
        assert!(s.sim().metrics().lost_wakeups > 0);
    }

    #[test]
    fn picks_name_every_step() {
        let p = default_params();
        assert_eq!(picks(&p, &[0, 2, 1]), "0:t0,1:n,2:t1");
        let f = HerdParams {
            primitive: Primitive::Futex,
            ..p
        };
        // the futex producer is thread 2, not a network
        assert_eq!(picks(&f, &[2, 0]), "0:t2,1:t0");
    }

    #[test]
    fn futex_and_condvar_hold() {
        for prim in [Primitive::Futex, Primitive::Condvar] {
            let p = HerdParams {
                primitive: prim,
                ..default_params()
            };
            let o = run(&p, &CheckConfig::default(), false);
            assert!(o.complete && o.violation.is_none(), "{prim:?}: {o:?}");
            assert_eq!(o.invariants, ["lost-wakeup", "deadlock"]);
            assert!(o.scenario.contains("arrival=on-demand"), "{}", o.scenario);
        }
    }

    #[test]
    fn timings_do_not_change_the_states_explored() {
        for prim in [Primitive::Accept, Primitive::Futex, Primitive::Condvar] {
            let base = HerdParams {
                primitive: prim,
                ..default_params()
            };
            let n = run(&base, &CheckConfig::default(), false).states;
            for p in [
                HerdParams { cpus: 1, ..base },
                HerdParams { cpus: 4, ..base },
                HerdParams { seed: 9, ..base },
                HerdParams {
                    service_ns: 0,
                    ..base
                },
                HerdParams {
                    arrival: ArrivalPattern::Poisson,
                    ..base
                },
            ] {
                assert_eq!(run(&p, &CheckConfig::default(), false).states, n, "{p:?}");
            }
        }
    }

    #[test]
    fn state_limit_is_incomplete() {
        let cfg = CheckConfig {
            max_states: 20,
            ..CheckConfig::default()
        };
        let p = default_params();
        let o = run(&p, &cfg, false);
        assert!(!o.complete && o.violation.is_none());
        assert_eq!(o.exit_code(), 1);
        assert!(render(&p, &cfg, &o).contains("INCOMPLETE"));
    }
}
