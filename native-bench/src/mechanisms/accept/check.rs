//! `herdlab check accept-mutex` (and `herdlab check accept --strategy …`): core's model checker on an
//! accept scenario, timed natively.
//!
//! The search is `herdlab_core::mechanisms::accept::invariants::check`: the simulator as the model
//! (`herdlab_core::check::SimModel`); the actors are the workers (checker indices `0..n`) and the
//! network (index `n`), which delivers the next connection, client action or `epoll_wait` timeout
//! at any point. The invariants are those of `herdlab_core::mechanisms::accept::invariants`:
//! `mutual-exclusion`, `accept-under-lock`, `registration-follows-held`, `retry-bound` (accept mutex
//! only), `lost-connection` and `conservation` (every strategy).
//!
//! A counterexample is replayed in the simulator one step at a time, which names each step's
//! pseudocode line and confirms the simulator breaks the same invariant; the link opens the
//! nginx-accept-mutex lesson (or the epoll-herd one) at that schedule (`step` and `picks`).

use std::ops::Deref;

use serde::Serialize;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::accept::invariants::{check, check_state, check_terminal};
use herdlab_core::mechanisms::accept::{AcceptParams, AcceptSim, MutexVariant, Strategy};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::net::EP_WAITER;
use herdlab_core::sim::{Actor, Note, StepRecord};

use crate::check::{self as check_sim, playground_link, SimStep};
use crate::check::{self as check_cmd, Replay, Search};

/// `--workers` when checking.
pub const CHECK_WORKERS: u32 = 2;
/// `--connections` when checking.
pub const CHECK_CONNECTIONS: u32 = 2;

/// The defaults of `herdlab check accept-mutex`.
pub fn default_params() -> AcceptParams {
    AcceptParams {
        strategy: Strategy::AcceptMutex,
        workers: CHECK_WORKERS,
        cpus: 1,
        connections: CHECK_CONNECTIONS,
        arrival: ArrivalPattern::OnDemand,
        ..AcceptParams::default()
    }
}

/// The parameters the checker runs (and the link carries): `p` with on-demand arrivals, so which
/// states are reached does not depend on the clocks (the network may deliver at any point anyway).
pub fn checked_params(p: &AcceptParams) -> AcceptParams {
    AcceptParams {
        arrival: ArrivalPattern::OnDemand,
        ..*p
    }
}

/// One step of a counterexample.
pub type Step = SimStep;

/// A broken invariant with its schedule.
pub type ViolationReport = check_cmd::ViolationReport<Step>;

/// What `herdlab check accept-mutex` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckOutput {
    /// Always `accept`.
    pub mechanism: &'static str,
    /// The strategy.
    pub strategy: String,
    /// The accept mutex's variant.
    pub variant: String,
    /// Workers.
    pub workers: u32,
    /// Connections.
    pub connections: u32,
    /// The scenario as a query string (as checked).
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

/// The invariants checked for this scenario.
pub fn invariants(p: &AcceptParams) -> Vec<&'static str> {
    if p.strategy == Strategy::AcceptMutex {
        vec![
            "mutual-exclusion",
            "accept-under-lock",
            "registration-follows-held",
            "retry-bound",
            "lost-connection",
            "conservation",
        ]
    } else {
        vec!["lost-connection", "conservation"]
    }
}

/// The picks that make the web widget replay `schedule` (`i:t<k>` or `i:n`).
pub fn picks(p: &AcceptParams, schedule: &[u16]) -> String {
    check_sim::picks(p.workers as usize, schedule)
}

/// The lesson a scenario belongs to.
pub fn lesson(p: &AcceptParams) -> &'static str {
    if p.strategy == Strategy::AcceptMutex {
        "nginx-accept-mutex"
    } else {
        "epoll-herd"
    }
}

/// The lesson link for a scenario (as checked) and schedule.
pub fn link(p: &AcceptParams, schedule: &[u16]) -> String {
    playground_link(
        lesson(p),
        &Scenario::Accept(*p).to_query(),
        schedule.len(),
        &picks(p, schedule),
    )
}

/// What a network step did.
fn network_text(sim: &AcceptSim, rec: &StepRecord) -> String {
    match (rec.actor, rec.note) {
        (Actor::Network, Note::Arrived { conn, .. }) => {
            let woken: Vec<String> = sim
                .last_walk()
                .iter()
                .filter(|v| v.ret > 0)
                .map(|v| {
                    if v.waiter >= EP_WAITER {
                        format!("epoll {}", v.waiter - EP_WAITER)
                    } else {
                        format!("worker {}", v.waiter)
                    }
                })
                .collect();
            if woken.is_empty() {
                format!(
                    "connection {conn} arrives; no entry on the socket's wait queue wakes anyone"
                )
            } else {
                format!(
                    "connection {conn} arrives; the wake walk reaches {}",
                    woken.join(", ")
                )
            }
        }
        (Actor::Network, Note::ClientSent { conn, .. }) => {
            format!("the client of connection {conn} sends a request")
        }
        (Actor::Network, Note::ClientClosed { conn, .. }) => {
            format!("the client of connection {conn} closes it")
        }
        (Actor::Network, Note::TimerFired { thread }) => {
            format!("worker {thread}'s epoll_wait timeout expires")
        }
        _ => "the network acts".to_string(),
    }
}

/// Replay `schedule` in the simulator: the steps with their lines, and the first invariant the
/// simulator sees broken.
pub fn replay(p: &AcceptParams, schedule: &[u16]) -> Replay<Step> {
    check_sim::replay(
        p.simulate(),
        schedule,
        network_text,
        check_state,
        check_terminal,
    )
}

/// Run the checker on `p` (as [`checked_params`] adjusts it).
pub fn run(p: &AcceptParams, cfg: &CheckConfig, progress: bool) -> CheckOutput {
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
        mechanism: "accept",
        strategy: p.strategy.name().to_string(),
        variant: p.variant.name().to_string(),
        workers: p.workers,
        connections: p.connections,
        scenario: Scenario::Accept(p).to_query(),
        search,
    }
}

/// The one-line description of the scenario.
pub fn describe(p: &AcceptParams, cfg: &CheckConfig) -> String {
    let mut s = format!(
        "accept: {} ({}): {} worker{}, {} connection{}, {} request{} each",
        p.strategy.name(),
        p.variant.name(),
        p.workers,
        if p.workers == 1 { "" } else { "s" },
        p.connections,
        if p.connections == 1 { "" } else { "s" },
        p.requests,
        if p.requests == 1 { "" } else { "s" },
    );
    s.push_str(&check_cmd::bound_text(cfg));
    s
}

/// The report as text.
pub fn render(p: &AcceptParams, cfg: &CheckConfig, o: &CheckOutput) -> String {
    o.render(&describe(p, cfg), |s| {
        let who = match s.actor.strip_prefix('t') {
            Some(t) => format!("worker {t}"),
            None => "network".to_string(),
        };
        format!("{who}: {}", s.text)
    })
}

/// The variant names `--variant` accepts.
pub fn variant_names() -> Vec<&'static str> {
    MutexVariant::ALL.iter().map(|v| v.name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::SITE_BASE;

    #[test]
    fn the_correct_accept_mutex_holds() {
        let p = default_params();
        let o = run(&p, &CheckConfig::default(), false);
        assert!(o.complete && o.violation.is_none(), "{o:?}");
        assert_eq!(o.exit_code(), 0);
        let t = render(&p, &CheckConfig::default(), &o);
        assert!(t.contains("OK: every invariant holds"), "{t}");
    }

    #[test]
    fn every_broken_variant_is_caught_and_replays() {
        for (v, inv) in [
            (MutexVariant::UnlockBeforeAccept, "accept-under-lock"),
            (MutexVariant::NoDisable, "registration-follows-held"),
            (MutexVariant::NoTimer, "retry-bound"),
        ] {
            let p = AcceptParams {
                variant: v,
                ..default_params()
            };
            let o = run(&p, &CheckConfig::default(), false);
            let x = o.violation.as_ref().expect("a violation");
            assert_eq!(x.invariant, inv, "{}", v.name());
            assert!(x.replay_agrees, "{}", x.replay);
            assert_eq!(x.steps.len(), x.schedule.len());
            assert!(x
                .link
                .starts_with(&format!("{SITE_BASE}nginx-accept-mutex?")));
            assert!(
                x.link.contains(&format!("variant={}", v.name())),
                "{}",
                x.link
            );
            assert_eq!(o.exit_code(), 1);
        }
    }

    #[test]
    fn the_links_picks_replay_in_the_stepper_the_web_widget_uses() {
        use herdlab_core::sim::stepper::Stepper;
        let p = AcceptParams {
            variant: MutexVariant::NoDisable,
            ..default_params()
        };
        let o = run(&p, &CheckConfig::default(), false);
        let v = o.search.violation.expect("a violation");
        let (query, picks) = v.link.split_once("&picks=").unwrap();
        let step: u64 = query.rsplit_once("&step=").unwrap().1.parse().unwrap();
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
        let (s, bad) = Stepper::replay(checked_params(&p).simulate(), step, &picks);
        assert_eq!(bad, None);
        let m = herdlab_core::check::SimModel {
            sim: s.sim().clone(),
        };
        assert_eq!(
            check_state(&m).map(|v| v.invariant),
            Some("registration-follows-held".to_string())
        );
    }

    #[test]
    fn other_strategies_hold() {
        for s in [Strategy::Herd, Strategy::Exclusive, Strategy::Reuseport] {
            let p = AcceptParams {
                strategy: s,
                ..default_params()
            };
            let o = run(&p, &CheckConfig::default(), false);
            assert!(o.complete && o.violation.is_none(), "{}: {o:?}", s.name());
            assert_eq!(o.invariants, ["lost-connection", "conservation"]);
        }
    }
}
