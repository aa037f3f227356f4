//! The scheduler's view, derived from its model on each render: a lane per M (and the spawner,
//! outside every P, where the workload has one), each P's owner, `runnext` and local ring, the
//! global queue, `nmspinning`, the idle Ps and parked Ms, the listing with every M on its line,
//! the counters of core's [`GmpReport`] and the invariants.

use std::rc::Rc;

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::gmp::invariants::{check_state, check_terminal, global_queue};
use herdlab_core::mechanisms::gmp::machine::{GSIZE, MIDLE, NMSPINNING, NONE, NPIDLE, PIDLE};
use herdlab_core::mechanisms::gmp::{GmpConfig, GmpReport, GmpSim, Workload};
use herdlab_core::sim::{Actor, Sched, Status};
use herdlab_web_engine::typed;

use crate::live::describe::LaneState;
use crate::live::snapshot::{CodeLine, CodeView, InvariantView, LaneView, StatusView};
use crate::mechanisms::gmp::model::GmpSimModel;

/// A queue shows at most this many Gs.
const SHOWN: usize = 32;

/// One P.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PView {
    /// The M that holds it (`pp.m`), if any.
    pub owner: Option<u32>,
    /// `pp.runnext` (0: empty).
    pub runnext: u32,
    /// The local ring from head to tail (at most [`SHOWN`]).
    pub ring: Vec<u32>,
    /// Its slots.
    pub slots: u32,
    /// On the idle list (`pidle`).
    pub idle: bool,
    /// `_Psyscall`: its M is blocked in a syscall and sysmon may retake it.
    pub syscall: bool,
}

/// The scheduler's shared state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmpStateView {
    /// The Ps.
    pub ps: Vec<PView>,
    /// The global queue from its head (at most [`SHOWN`]; `None`: cyclic or too long).
    pub global: Option<Vec<u32>>,
    /// `sched.runq.size`.
    pub global_size: u32,
    /// `sched.nmspinning`.
    pub nmspinning: u32,
    /// `sched.npidle`.
    pub npidle: u32,
    /// The Ms parked on `midle`.
    pub parked: Vec<u32>,
}

/// Everything a gmp board shows.
#[derive(Clone, Debug, PartialEq)]
pub struct GmpSnapshot {
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// The shared state.
    pub state: Rc<GmpStateView>,
    /// The listing, with every M on its line.
    pub code: Rc<Vec<CodeView>>,
    /// Core's counts of the run so far.
    pub report: GmpReport,
    /// The counters shown (`counter-<key>`).
    pub counters: Vec<(&'static str, u64)>,
    /// The status.
    pub status: Rc<StatusView>,
    /// The invariants.
    pub invariant: Rc<InvariantView>,
}

/// Whether thread `i` is the spawner (outside every P), not an M.
fn spawner(cfg: &GmpConfig, i: u32) -> bool {
    i == cfg.threads && cfg.workload.external()
}

/// The short name of thread `i` ("M2", "S" for the spawner, "SM" for sysmon).
pub fn gmp_short(cfg: &GmpConfig, i: u32) -> String {
    if spawner(cfg, i) {
        "S".into()
    } else if cfg.sysmon_id() == Some(i) {
        "SM".into()
    } else {
        format!("M{i}")
    }
}

/// The counters of `r` (`counter-<key>`), with those of `workload`'s own mechanism: the
/// `locked` workload adds LockOSThread's `startlockedm`s, `stoplockedm`s and `UnlockOSThread`s;
/// the network worlds (`netpoll`, `netpoll-hog`) the poller's calls and the Gs parked on it;
/// `netpoll-hog` sysmon's own polls and the Gs they injected.
pub fn gmp_counters(r: &GmpReport, workload: Workload) -> Vec<(&'static str, u64)> {
    let mut c = vec![
        ("steps", r.steps),
        ("steals", r.steals),
        ("spins", r.spins),
        ("parks", r.parks),
        ("handoffs", r.handoffs),
        ("retakes", r.retakes),
        ("preemptions", r.preemptions),
        ("global_queue_gets", r.global_queue_gets),
        ("context_switches", r.context_switches),
        ("futex_wakes", r.futex_wakes),
        ("finished", r.finished as u64),
        ("sim_time_ns", r.sim_time_ns),
    ];
    if workload == Workload::Locked {
        c.push(("locked_handoffs", r.locked_handoffs));
        c.push(("lockedm_parks", r.lockedm_parks));
        c.push(("unlocks", r.unlocks));
    }
    if workload.netpoll_world() {
        c.push(("netpoll_polls", r.netpoll_polls));
        c.push(("netpoll_parks", r.netpoll_parks));
    }
    if workload == Workload::NetpollHog {
        c.push(("sysmon_netpolls", r.sysmon_netpolls));
        c.push(("sysmon_injected", r.sysmon_injected));
    }
    c
}

fn bits(mask: u32, n: u32) -> Vec<u32> {
    (0..n.min(32)).filter(|i| mask & (1 << i) != 0).collect()
}

/// The Ps of `sim`.
fn ps(sim: &GmpSim, cfg: &GmpConfig) -> Vec<PView> {
    let idle = sim.word(PIDLE);
    (0..cfg.procs)
        .map(|p| {
            let head = sim.word(cfg.head(p));
            let tail = sim.word(cfg.tail(p));
            let n = tail.wrapping_sub(head).min(cfg.ring).min(SHOWN as u32);
            PView {
                owner: sim.word(cfg.owner(p)).checked_sub(1),
                runnext: sim.word(cfg.runnext(p)),
                ring: (0..n)
                    .map(|k| sim.word(cfg.slot(p, head.wrapping_add(k))))
                    .collect(),
                slots: cfg.ring,
                idle: idle & (1 << p) != 0,
                syscall: cfg.workload.sysmon_world() && sim.word(cfg.psys(p)) == 1,
            }
        })
        .collect()
}

impl GmpSnapshot {
    /// The view of `m` now.
    pub fn of(m: &GmpSimModel) -> Self {
        // core's report and invariants read the typed simulation
        let sim: GmpSim = typed(m.sim());
        let sim = &sim;
        let cfg = sim.threads()[0].machine().cx.cfg;
        let lanes = sim
            .threads()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let cx = &t.machine().cx;
                let c = &cx.counts;
                let detail = if spawner(&cfg, i as u32) {
                    "no P: its Gs go to the global queue".to_string()
                } else if cfg.sysmon_id() == Some(i as u32) {
                    format!(
                        "no P · sleeps {} µs · retook {} · preempted {}",
                        cx.sm.delay_us, c.retakes, c.preempt_requests
                    )
                } else if cx.oldp != NONE && cx.p == NONE {
                    format!("in a syscall (oldp P{}) · G{}", cx.oldp, cx.curg)
                } else {
                    format!(
                        "{} · {} · ran {} · stole {}",
                        if cx.p == NONE {
                            "no P".to_string()
                        } else {
                            format!("P{}", cx.p)
                        },
                        if cx.curg == 0 {
                            "no G".to_string()
                        } else {
                            format!("G{}", cx.curg)
                        },
                        c.context_switches,
                        c.steals
                    )
                };
                LaneView {
                    idx: i as u16,
                    name: if spawner(&cfg, i as u32) {
                        "spawner".into()
                    } else if cfg.sysmon_id() == Some(i as u32) {
                        "sysmon".into()
                    } else {
                        format!("M{i}")
                    },
                    state: LaneState::of(t),
                    cpu: t.cpu(),
                    line: t.line(),
                    detail,
                    marks: if cx.spinning {
                        vec![("spinning", "spinning")]
                    } else {
                        Vec::new()
                    },
                    bars: vec![c.context_switches, c.steals],
                    can_step: sim.can_step(Actor::Thread(i as u16)),
                }
            })
            .collect();

        let global = global_queue(sim).map(|mut g| {
            g.truncate(SHOWN);
            g
        });
        let state = GmpStateView {
            ps: ps(sim, &cfg),
            global,
            global_size: sim.word(GSIZE),
            nmspinning: sim.word(NMSPINNING),
            npidle: sim.word(NPIDLE),
            parked: bits(sim.word(MIDLE), cfg.threads),
        };

        let text = sim
            .threads()
            .first()
            .map(|t| t.machine().listing())
            .unwrap_or(&[]);
        let mut on: Vec<Vec<u16>> = vec![Vec::new(); text.len()];
        for (i, t) in sim.threads().iter().enumerate() {
            if t.sched() == Sched::Done {
                continue;
            }
            let l = t.line() as usize;
            if (1..=text.len()).contains(&l) {
                on[l - 1].push(i as u16);
            }
        }
        let code = vec![CodeView {
            title: "schedule() and the goroutines' runtime calls (M0…, S the spawner)",
            prefix: "code-line-",
            lines: text
                .iter()
                .zip(on)
                .enumerate()
                .map(|(i, (&text, threads))| CodeLine {
                    n: i + 1,
                    text,
                    names: threads
                        .iter()
                        .map(|&t| gmp_short(&cfg, t as u32))
                        .collect::<Vec<_>>()
                        .join(" "),
                    threads,
                    hot: false,
                })
                .collect(),
            ran: false,
        }];

        let finished = matches!(sim.status(), Status::Finished | Status::Stuck(_));
        let violation =
            check_state(sim).or_else(|| finished.then(|| check_terminal(sim)).flatten());
        let invariant = InvariantView::of(violation.as_ref());
        let report = GmpReport::of(sim, m.position(), violation);
        let counters = gmp_counters(&report, cfg.workload);
        let status = StatusView {
            status: sim.status().clone(),
            position: m.position(),
            lost: 0,
            first: None,
            broken: false,
        };
        GmpSnapshot {
            lanes: Rc::new(lanes),
            state: Rc::new(state),
            code: Rc::new(code),
            report,
            counters,
            status: Rc::new(status),
            invariant: Rc::new(invariant),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::sim_model::Action;
    use herdlab_core::mechanisms::gmp::{GmpActor, GmpParams, Workload};

    /// Every G the view shows somewhere: in a `runnext`, a ring, the global queue, or running on an
    /// M (`curg`).
    fn placed(s: &GmpSnapshot, sim: &GmpSim) -> Vec<u32> {
        let mut gs: Vec<u32> = s
            .state
            .ps
            .iter()
            .flat_map(|p| {
                p.ring
                    .iter()
                    .copied()
                    .chain((p.runnext != 0).then_some(p.runnext))
            })
            .chain(s.state.global.clone().unwrap_or_default())
            .chain(
                sim.threads()
                    .iter()
                    .map(|t: &herdlab_core::sim::SimThread<GmpActor>| t.machine().cx.curg)
                    .filter(|&g| g != 0),
            )
            .collect();
        gs.sort();
        gs
    }

    fn small() -> GmpParams {
        GmpParams {
            gomaxprocs: 2,
            threads: 3,
            cpus: 2,
            goroutines: 6,
            ring: 4,
            workload: Workload::FanOut,
            ..Default::default()
        }
    }

    #[test]
    fn snapshot_at_step_0() {
        let m = GmpSimModel::new(small());
        let s = GmpSnapshot::of(&m);
        assert_eq!(s.lanes.len(), 3, "one lane per M");
        assert_eq!(s.lanes[0].name, "M0");
        assert_eq!(s.state.ps.len(), 2);
        assert!(s
            .state
            .ps
            .iter()
            .all(|p| p.runnext == 0 && p.ring.is_empty()));
        assert_eq!(s.state.global, Some(Vec::new()));
        assert!(s.invariant.name.is_empty());
        assert_eq!(s.counters[0], ("steps", 0));
        let on: usize = s.code[0].lines.iter().map(|l| l.threads.len()).sum();
        assert_eq!(on, 3, "every M is on one line");
    }

    /// netpoll-hog's panel shows sysmon's polls, and they are core's: run to the end, sysmon
    /// polled and injected at least once (the hog holds the only P for 50 ms), and the panel's
    /// figures are the report's.
    #[test]
    fn netpoll_hog_shows_sysmons_polls_with_cores_counts() {
        // core's one-P case: main and a 50 ms hog
        let p = GmpParams::sysmon_poll_case(herdlab_core::mechanisms::gmp::GmpVariant::Correct);
        let mut m = GmpSimModel::new(p);
        m.apply(Action::RunToEnd);
        assert!(!m.can_step(), "the run ends");
        let s = GmpSnapshot::of(&m);
        let get = |k: &str| s.counters.iter().find(|c| c.0 == k).map(|c| c.1);
        let sim: GmpSim = typed(m.sim());
        let report = GmpReport::of(&sim, m.position(), None);
        assert_eq!(get("sysmon_netpolls"), Some(report.sysmon_netpolls));
        assert_eq!(get("sysmon_injected"), Some(report.sysmon_injected));
        assert_eq!(get("netpoll_parks"), Some(report.netpoll_parks));
        assert!(
            report.sysmon_netpolls >= 1 && report.sysmon_injected >= 1,
            "{report:?}"
        );
        assert_eq!(
            get("unlocks"),
            None,
            "only the locked workload shows unlocks"
        );
        let fan_out = GmpSnapshot::of(&GmpSimModel::new(small()));
        assert!(fan_out
            .counters
            .iter()
            .all(|c| !c.0.starts_with("sysmon") && !c.0.starts_with("netpoll")));
    }

    #[test]
    fn a_spawner_lane_for_spawn_many() {
        let m = GmpSimModel::new(GmpParams {
            workload: Workload::SpawnMany,
            ..small()
        });
        let s = GmpSnapshot::of(&m);
        assert_eq!(s.lanes.len(), 4);
        assert_eq!(s.lanes[3].name, "spawner");
    }

    /// Stepping main's spawns puts Gs in its P's runnext and ring, never one twice, and the run
    /// ends with core's counts.
    #[test]
    fn gs_move_through_the_queues_and_the_counts_are_cores() {
        let p = small();
        let mut m = GmpSimModel::new(p);
        let mut most_queued = 0;
        for _ in 0..5_000 {
            if !m.can_step() {
                break;
            }
            assert!(m.apply(Action::Step));
            let s = GmpSnapshot::of(&m);
            assert!(s.invariant.name.is_empty(), "{:?}", s.invariant);
            let sim: GmpSim = typed(m.sim());
            let gs = placed(&s, &sim);
            let mut once = gs.clone();
            once.dedup();
            assert_eq!(gs, once, "no G in two places at step {}", m.position());
            let queued: usize = s.state.ps.iter().map(|p| p.ring.len()).sum();
            most_queued = most_queued.max(queued);
        }
        assert!(most_queued > 0, "main's spawns reach a ring");
        m.apply(Action::RunToEnd);
        let s = GmpSnapshot::of(&m);
        let (_, core) = p.run(10_000_000);
        assert_eq!(s.report.finished, 6);
        assert_eq!(
            (
                s.report.steals,
                s.report.parks,
                s.report.spins,
                s.report.context_switches
            ),
            (core.steals, core.parks, core.spins, core.context_switches)
        );
        assert_eq!(s.report.steps, core.steps);
        assert_eq!(s.status.status, Status::Finished);
    }

    /// The `gmp-ring` block of lessons/go-scheduler.md and tests/e2e/gmp.test.mjs: one P, a
    /// 4-slot ring, main starting 9 goroutines.
    #[test]
    fn the_ring_scenario_of_the_browser_test() {
        let p = GmpParams {
            gomaxprocs: 1,
            threads: 2,
            cpus: 1,
            goroutines: 10,
            ring: 4,
            ..Default::default()
        };
        let mut m = GmpSimModel::new(p);
        let at = |m: &GmpSimModel| {
            let s = GmpSnapshot::of(m);
            let p0 = s.state.ps[0].clone();
            (p0.runnext, p0.ring, s.state.global.clone().unwrap())
        };
        // every distinct (runnext, ring, global queue) until the global queue holds 3 Gs
        let mut seen = vec![at(&m)];
        while at(&m).2.len() < 3 {
            assert!(m.apply(Action::Step) && m.position() < 600);
            let now = at(&m);
            if seen.last() != Some(&now) {
                seen.push(now);
            }
        }
        let v = |rn: u32, ring: &[u32], global: &[u32]| (rn, ring.to_vec(), global.to_vec());
        assert_eq!(
            seen,
            [
                v(0, &[], &[]),
                v(1, &[], &[]), // main, made runnable, taken by M0
                v(0, &[], &[]),
                v(2, &[], &[]),  // main's first `go`
                v(3, &[], &[]),  // the second: G2 kicked out of runnext...
                v(3, &[2], &[]), // ...onto the ring's tail
                v(4, &[2], &[]),
                v(4, &[2, 3], &[]),
                v(5, &[2, 3], &[]),
                v(5, &[2, 3, 4], &[]),
                v(6, &[2, 3, 4], &[]),
                v(6, &[2, 3, 4, 5], &[]), // full
                v(7, &[2, 3, 4, 5], &[]),
                v(7, &[4, 5], &[]), // runqputslow takes the 2 oldest off the ring
                v(7, &[4, 5], &[2]),
                v(7, &[4, 5], &[2, 3]),
                v(7, &[4, 5], &[2, 3, 6]), // with the kicked G6
            ]
        );
        assert_eq!(GmpSnapshot::of(&m).report.context_switches, 1);
        m.apply(Action::RunToEnd);
        let s = GmpSnapshot::of(&m);
        assert_eq!(
            (
                s.report.finished,
                s.report.global_queue_gets,
                s.report.context_switches
            ),
            (10, 4, 10)
        );
        assert!(s.invariant.name.is_empty());
        assert_eq!(at(&m), (0, vec![], vec![]));
    }
}
