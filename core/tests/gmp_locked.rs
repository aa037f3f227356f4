//! `runtime.LockOSThread` in the G/M/P model (the `locked` workload): a locked G runs only on
//! its M, each of its returns costs one `stoplockedm` and one `startlockedm`, its thread exits
//! with it; after `UnlockOSThread` it runs on any M; the checker proves the presets and catches
//! `locked-runs-anywhere`.

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{check, check_state, replay};
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpReport, GmpVariant, Workload};

/// The lesson's scenario: 2 Ps, 4 Ms, main and 8 Gs yielding 20 times each.
fn lesson(locked: u32) -> GmpParams {
    GmpParams {
        gomaxprocs: 2,
        threads: 4,
        workload: Workload::Locked,
        goroutines: 9,
        yields: 20,
        locked,
        ..GmpParams::default()
    }
}

#[test]
fn each_return_of_a_locked_g_costs_a_stoplockedm_and_a_startlockedm() {
    let (sim, locked) = lesson(1).run(10_000_000);
    let (_, free) = lesson(0).run(10_000_000);
    for r in [&locked, &free] {
        assert_eq!(r.violation, None);
        assert_eq!(r.finished, 9);
        // one execute per G, one more per Gosched: locking does not change what runs
        assert_eq!(r.context_switches, 9 + 8 * 20);
        assert_eq!(r.yields, 8 * 20);
    }
    assert!(all_exited(&sim));
    assert_eq!(
        (
            locked.locks,
            locked.locked_handoffs,
            locked.lockedm_parks,
            locked.locked_exits
        ),
        (1, 20, 20, 1)
    );
    assert_eq!(
        (free.locks, free.locked_handoffs, free.lockedm_parks),
        (0, 0, 0)
    );
    // the cost, pinned for the lesson (simulator, this preset, seed 1): every return of the
    // locked G is a handoffp that wakes an M for its P (stoplockedm) and a startlockedm that
    // wakes the locked M; unlocked, the same Gs need one park and one wakeup in all
    assert_eq!(
        (
            locked.handoffs,
            locked.parks,
            locked.futex_wakes,
            locked.sim_time_ns
        ),
        (21, 21, 22, 1_852_098)
    );
    assert_eq!(
        (
            free.handoffs,
            free.parks,
            free.futex_wakes,
            free.sim_time_ns
        ),
        (0, 1, 1, 1_710_062)
    );
    // deterministic for a seed
    assert_eq!(lesson(1).run(10_000_000).1, locked);
}

#[test]
fn a_locked_g_runs_only_on_the_m_it_locked_and_its_thread_exits_with_it() {
    for (procs, locked, seed) in [(1, 1, 1), (2, 1, 2), (2, 2, 3), (4, 3, 4), (3, 2, 5)] {
        let p = GmpParams {
            gomaxprocs: procs,
            threads: procs + locked + 1,
            cpus: procs,
            workload: Workload::Locked,
            goroutines: 12,
            yields: 6,
            work_ns: 5_000,
            locked,
            seed,
            ..GmpParams::default()
        };
        assert!(Gmp::validate(&p).is_empty(), "{p:?}");
        let (sim, r) = p.run(10_000_000);
        assert_eq!(r.violation, None, "{p:?}");
        assert_eq!(r.finished, 12, "{p:?}");
        assert!(all_exited(&sim), "{p:?}");
        let l = locked as u64;
        // G2 … G(locked) unlock after 3 of their 6 yields (3 returns on their M each); the
        // last locked G holds its M for all 6 and its thread exits with it
        let returns = 6 + 3 * (l - 1);
        assert_eq!(
            (
                r.locks,
                r.unlocks,
                r.locked_handoffs,
                r.lockedm_parks,
                r.locked_exits
            ),
            (l, l - 1, returns, returns, 1),
            "{p:?}"
        );
        // each M's record: the Gs it locked ran on it (once, then once per Gosched while
        // locked) and, the one that never unlocked, on no other M
        let ms: Vec<_> = sim.threads().iter().map(|t| &t.machine().cx).collect();
        let mut locked_gs = 0;
        for (i, m) in ms.iter().enumerate() {
            for &g in &m.locked_here {
                locked_gs += 1;
                assert!((2..2 + locked).contains(&g), "{p:?}: M{i} locked G{g}");
                let total: usize = ms
                    .iter()
                    .map(|o| o.ran.iter().filter(|&&x| x == g).count())
                    .sum();
                assert_eq!(total, 7, "{p:?}: G{g}");
                let here = m.ran.iter().filter(|&&x| x == g).count();
                if g == 1 + locked {
                    assert_eq!(here, 7, "{p:?}: G{g}");
                    assert!(m.unlocked_here.is_empty() || !m.unlocked_here.contains(&g));
                } else {
                    // unlocked by the M it locked, after 1 + 3 runs there
                    assert!(m.unlocked_here.contains(&g), "{p:?}: G{g}");
                    assert!(here >= 4, "{p:?}: G{g} ran {here} times on M{i}");
                }
            }
        }
        assert_eq!(locked_gs, locked, "{p:?}");
    }
}

/// Step a `locked` run and watch every running G: whenever a G runs with `gp.lockedm` set it is
/// on that M; the Gs that unlocked are seen running on some other M afterwards (over the
/// shapes); the invariants hold at every step.
#[test]
fn an_unlocked_g_may_move_to_another_m_and_a_locked_one_never_does() {
    use herdlab_core::mechanisms::gmp::machine::gstatus;
    let mut moved = 0;
    for (procs, locked, seed) in [(1, 2, 1), (2, 2, 2), (2, 3, 3), (3, 2, 4), (4, 3, 5)] {
        let p = GmpParams {
            gomaxprocs: procs,
            threads: procs + locked + 1,
            cpus: procs,
            workload: Workload::Locked,
            goroutines: 8,
            yields: 8,
            work_ns: 5_000,
            locked,
            seed,
            ..GmpParams::default()
        };
        let cfg = p.config();
        let mut sim = p.simulate();
        // per G: the M it locked (while locked), and the Ms it ran on after its unlock
        let mut owner = vec![None; cfg.gs as usize + 1];
        let mut after: Vec<Vec<u32>> = vec![Vec::new(); cfg.gs as usize + 1];
        let mut unlocked = vec![false; cfg.gs as usize + 1];
        while sim.step().is_some() {
            assert_eq!(check_state(&sim), None, "{p:?}");
            for i in 0..cfg.threads {
                let g = sim.threads()[i as usize].machine().cx.curg;
                if g == 0 || sim.word(cfg.status(g)) != gstatus::RUNNING {
                    continue;
                }
                let lm = sim.word(cfg.lockedm(g));
                if lm != 0 {
                    assert_eq!(lm - 1, i, "{p:?}: G{g} locked to M{} runs on M{i}", lm - 1);
                    assert!(!unlocked[g as usize], "{p:?}: G{g} locked again");
                    owner[g as usize] = Some(i);
                } else if owner[g as usize].is_some() {
                    unlocked[g as usize] = true;
                    after[g as usize].push(i);
                }
            }
        }
        let r = GmpReport::of(&sim, 0, None);
        assert_eq!(r.finished, 8, "{p:?}");
        assert_eq!(r.unlocks, locked as u64 - 1, "{p:?}");
        for g in 2..1 + locked {
            assert!(unlocked[g as usize], "{p:?}: G{g} never ran unlocked");
            let o = owner[g as usize].expect("locked");
            moved += after[g as usize].iter().filter(|&&m| m != o).count();
        }
        // the last locked G never unlocks
        assert!(!unlocked[1 + locked as usize], "{p:?}");
    }
    assert!(moved > 0, "no unlocked G ever ran on another M");
}

#[test]
fn the_checker_proves_lockosthread_on_its_presets() {
    // 1 P, 3 Ms: main and G2, which locks its M, computes, calls Gosched once, computes, exits
    let one_p = GmpParams {
        gomaxprocs: 1,
        threads: 3,
        cpus: 1,
        ..GmpParams::locked_preset(GmpVariant::Correct)
    };
    assert!(Gmp::validate(&one_p).is_empty());
    let r = check(&one_p, &CheckConfig::default(), &mut |_| true);
    assert_eq!(r.violation, None);
    assert!(r.complete);
    assert_eq!(r.states, 15_268);
    // 2 Ps, 4 Ms (the preset `check gmp --workload locked` starts from), up to 2 preemptions
    let p = GmpParams::locked_preset(GmpVariant::Correct);
    assert!(Gmp::validate(&p).is_empty());
    let cfg = CheckConfig {
        preemption_bound: Some(2),
        ..CheckConfig::default()
    };
    let r = check(&p, &cfg, &mut |_| true);
    assert_eq!(r.violation, None);
    assert!(r.complete);
    assert_eq!(r.states, 117_733);
}

#[test]
fn the_checker_proves_unlockosthread_on_one_p() {
    // 1 P, 4 Ms: main, G2 (locks, computes, Gosched, unlocks, computes, exits) and G3 (locks,
    // Gosched, exits locked: its thread exits)
    let p = GmpParams {
        gomaxprocs: 1,
        goroutines: 3,
        locked: 2,
        ..GmpParams::locked_preset(GmpVariant::Correct)
    };
    assert!(Gmp::validate(&p).is_empty());
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    assert_eq!(r.violation, None);
    assert!(r.complete);
    assert_eq!(r.states, 200_484);
}

#[test]
fn locked_runs_anywhere_is_caught_with_its_shortest_counterexample() {
    let p = GmpParams::variant_preset(GmpVariant::LockedRunsAnywhere);
    assert_eq!(p.workload, Workload::Locked);
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    let c = r.violation.expect("a counterexample");
    assert_eq!(c.violation.invariant, "locked-thread");
    assert!(
        c.violation
            .message
            .contains("G2 is locked to M0 (LockOSThread) but runs on M1"),
        "{}",
        c.violation.message
    );
    assert_eq!(c.schedule.len(), 68);
    // the simulator replays it to the same broken invariant
    let sim = replay(&p, &c.schedule);
    assert_eq!(
        check_state(&sim).map(|v| v.invariant),
        Some("locked-thread".to_string())
    );
    // and a plain run of the variant breaks it too
    let broken = GmpParams {
        variant: GmpVariant::LockedRunsAnywhere,
        ..lesson(1)
    };
    let (_, r) = broken.run(10_000_000);
    assert_eq!(
        r.violation.map(|v| v.invariant).as_deref(),
        Some("locked-thread")
    );
}

#[test]
fn bad_locked_scenarios_name_the_key_and_the_rule() {
    let e = Gmp::validate(&GmpParams {
        goroutines: 3,
        locked: 3,
        ..lesson(1)
    });
    assert_eq!(e[0].field, "locked");
    assert!(
        e[0].message.contains("at most goroutines - 1"),
        "{}",
        e[0].message
    );
    let e = Gmp::validate(&GmpParams {
        threads: 3,
        ..lesson(1)
    });
    assert_eq!(e[0].field, "threads");
    assert!(
        e[0].message.contains("more Ms than gomaxprocs + locked"),
        "{}",
        e[0].message
    );
    let mut p = lesson(1);
    let err = Gmp::set(&mut p, "locked", "17").unwrap_err();
    assert_eq!(err.field, "locked");
    assert!(err.message.contains("0-16"), "{}", err.message);
    // other workloads ignore the key
    assert!(Gmp::validate(&GmpParams {
        workload: Workload::FanOut,
        threads: 3,
        gomaxprocs: 2,
        locked: 16,
        ..GmpParams::default()
    })
    .is_empty());
}
