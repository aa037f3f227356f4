//! `runtime.LockOSThread` in the G/M/P model (the `locked` workload): a locked G runs only on
//! its M, each of its returns costs one `stoplockedm` and one `startlockedm`, its thread exits
//! with it; the checker proves the presets and catches `locked-runs-anywhere`.

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{check, check_state, replay};
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpVariant, Workload};

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
        (20, 22, 22, 1_876_893)
    );
    assert_eq!(
        (
            free.handoffs,
            free.parks,
            free.futex_wakes,
            free.sim_time_ns
        ),
        (0, 1, 1, 1_706_838)
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
        assert_eq!(
            (r.locks, r.locked_handoffs, r.lockedm_parks, r.locked_exits),
            (l, 6 * l, 6 * l, l),
            "{p:?}"
        );
        // each M's record: the Gs it locked ran on it (once, then once per Gosched) and on no
        // other M
        let ms: Vec<_> = sim.threads().iter().map(|t| &t.machine().cx).collect();
        let mut locked_gs = 0;
        for (i, m) in ms.iter().enumerate() {
            for &g in &m.locked_here {
                locked_gs += 1;
                assert!((2..2 + locked).contains(&g), "{p:?}: M{i} locked G{g}");
                assert_eq!(m.ran.iter().filter(|&&x| x == g).count(), 7, "{p:?}");
                for (j, other) in ms.iter().enumerate() {
                    assert!(j == i || !other.ran.contains(&g), "{p:?}: G{g} on M{j}");
                }
            }
        }
        assert_eq!(locked_gs, locked, "{p:?}");
    }
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
    assert_eq!(r.states, 116_797);
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
