//! The lock machines: the checker proves the correct locks and finds every broken variant, and its
//! counterexamples replay in the simulator.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::check::{explore, replay, replay_with, CheckConfig, CheckReport, SpinSteps};
use herdlab_core::mechanisms::locks::invariants::{
    check_state, check_terminal, check_world, LockView,
};
use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
use herdlab_core::mechanisms::locks::{LockKind, LockParams};
use herdlab_core::sim::Status;

fn params(lock: LockKind, variant: ShmtxVariant, threads: u32, rounds: u32) -> LockParams {
    LockParams {
        lock,
        variant,
        threads,
        rounds,
        cpus: 2,
        spin: 4,
        semaphore: true,
        yield_after: 4,
        cs_ns: 100,
        crash: false,
        master: true,
        seed: 1,
    }
}

fn check(p: &LockParams) -> CheckReport {
    check_with(p, SpinSteps::Merged)
}

#[test]
fn the_checker_proves_every_correct_lock_for_three_threads_two_rounds() {
    for lock in LockKind::ALL {
        let p = params(lock, ShmtxVariant::Correct, 3, 2);
        let r = check(&p);
        assert!(r.violation.is_none(), "{lock:?}: {:?}", r.violation);
        assert!(r.complete, "{lock:?} not explored completely");
        assert!(r.states > 100, "{lock:?}: only {} states", r.states);
    }
}

#[test]
fn shmtx_without_a_semaphore_yields_and_is_still_correct() {
    let p = LockParams {
        semaphore: false,
        ..params(LockKind::Shmtx, ShmtxVariant::Correct, 3, 2)
    };
    let r = check(&p);
    assert!(r.violation.is_none() && r.complete, "{:?}", r.violation);
}

#[test]
fn the_checker_finds_every_broken_shmtx_variant_and_the_replay_breaks_the_same_invariant() {
    // the shortest schedule may break an accounting invariant before the deadlock it leads to
    let expected: [(ShmtxVariant, &[&str]); 5] = [
        (ShmtxVariant::NoWaitDecrement, &["wakeup-accounting"]),
        (ShmtxVariant::AnnounceAfterCheck, &["lost-wakeup"]),
        (ShmtxVariant::UnlockReadsWaitFirst, &["lost-wakeup"]),
        (ShmtxVariant::PlainLoadStore, &["mutual-exclusion"]),
        (
            ShmtxVariant::SeedListing,
            &["deadlock", "wakeup-accounting"],
        ),
    ];
    for (variant, allowed) in expected {
        let p = params(LockKind::Shmtx, variant, 2, 2);
        let r = check(&p);
        let cx = r
            .violation
            .unwrap_or_else(|| panic!("{variant:?}: no violation found in {} states", r.states));
        let invariant = cx.violation.invariant.clone();
        assert!(
            allowed.contains(&invariant.as_str()),
            "{variant:?}: {invariant}: {}",
            cx.violation.message
        );

        // replay in the simulator, step for step
        let mut sim = p.simulate();
        replay(&mut sim, &cx.schedule)
            .unwrap_or_else(|e| panic!("{variant:?}: replay refused a step: {e}"));
        let seen = check_state(&p, &sim).or_else(|| {
            // a terminal violation: let the exiting threads exit, then nothing may run
            sim.run(1000);
            assert!(
                matches!(sim.status(), Status::Stuck(_)),
                "{variant:?}: {:?}",
                sim.status()
            );
            check_terminal(&p, &sim)
        });
        assert_eq!(
            seen.map(|v| v.invariant),
            Some(invariant.clone()),
            "{variant:?}: the replay does not break {invariant}"
        );
        // the correct code on the same schedule prefix keeps every invariant
        let ok = params(LockKind::Shmtx, ShmtxVariant::Correct, 2, 2);
        assert!(check(&ok).violation.is_none());
    }
}

fn check_with(p: &LockParams, spins: SpinSteps) -> CheckReport {
    explore(
        check_world(p).with_spin_steps(spins),
        &CheckConfig::default(),
        &|s| check_state(p, s),
        &|s| check_terminal(p, s),
        &mut |_| true,
    )
}

#[test]
fn merged_spins_find_what_probe_by_probe_finds() {
    // the reduction of check::world: a failed probe and the rest of its spin as one step. It must
    // keep every verdict: the same proofs, the same broken invariant, never a longer counterexample
    for variant in ShmtxVariant::ALL {
        for spin in [2, 4, 8, 16] {
            let p = LockParams {
                spin,
                ..params(LockKind::Shmtx, variant, 2, 2)
            };
            let merged = check_with(&p, SpinSteps::Merged);
            let single = check_with(&p, SpinSteps::OneByOne);
            let what = format!("{variant:?} spin {spin}");
            assert!(merged.complete || merged.violation.is_some(), "{what}");
            assert_eq!(
                merged.violation.as_ref().map(|c| &c.violation.invariant),
                single.violation.as_ref().map(|c| &c.violation.invariant),
                "{what}"
            );
            assert_eq!(merged.complete, single.complete, "{what}");
            if let (Some(m), Some(s)) = (&merged.violation, &single.violation) {
                assert!(m.schedule.len() <= s.schedule.len(), "{what}");
                // each replays in the simulator as its world steps, to the same broken invariant
                for (cx, spins) in [(m, SpinSteps::Merged), (s, SpinSteps::OneByOne)] {
                    let mut sim = p.simulate();
                    replay_with(&mut sim, &cx.schedule, spins).unwrap();
                    let seen = check_state(&p, &sim).or_else(|| {
                        sim.run(100_000);
                        check_terminal(&p, &sim)
                    });
                    assert_eq!(
                        seen.map(|v| v.invariant),
                        Some(cx.violation.invariant.clone()),
                        "{what} {spins:?}"
                    );
                }
            } else {
                assert!(merged.states <= single.states, "{what}");
            }
        }
    }
}

#[test]
fn merged_spins_make_every_spin_of_two_or_more_the_same_state_space() {
    // after merging, the probes left in a spin are never states of their own: nginx's spin of 2048
    // (11 probes, 2047 pauses) is checked at the cost of a spin of 2 (one probe)
    let counts = |spin, spins| {
        let p = LockParams {
            spin,
            ..params(LockKind::Shmtx, ShmtxVariant::Correct, 2, 2)
        };
        let r = check_with(&p, spins);
        assert!(r.violation.is_none() && r.complete, "spin {spin}");
        (r.states, r.transitions, r.max_depth)
    };
    let two = counts(2, SpinSteps::Merged);
    for spin in [3, 4, 16, 2048] {
        assert_eq!(counts(spin, SpinSteps::Merged), two, "spin {spin}");
    }
    // without merging, every probe is a state: more of them, the more probes
    let (s4, ..) = counts(4, SpinSteps::OneByOne);
    let (s16, ..) = counts(16, SpinSteps::OneByOne);
    assert!(two.0 < s4 && s4 < s16, "{} {s4} {s16}", two.0);
}

#[test]
fn nginx_spin_2048_is_checked_too() {
    // (3 threads x 2 rounds at spin 2048: `herdlab check shmtx --spin 2048`, a third of a second)
    let p = LockParams {
        spin: 2048,
        ..params(LockKind::Shmtx, ShmtxVariant::Correct, 2, 2)
    };
    let r = check(&p);
    assert!(r.violation.is_none() && r.complete, "{:?}", r.violation);
    let b = LockParams {
        spin: 2048,
        ..params(LockKind::Shmtx, ShmtxVariant::UnlockReadsWaitFirst, 2, 2)
    };
    let cx = check(&b).violation.expect("lost wakeup with spin 2048");
    let mut sim = b.simulate();
    replay(&mut sim, &cx.schedule).unwrap();
    sim.run(100_000);
    assert!(matches!(sim.status(), Status::Stuck(_)));
}

#[test]
fn counterexamples_are_shortest() {
    // PlainLoadStore needs both threads to load 0 before either stores: 4 steps
    let p = params(LockKind::Shmtx, ShmtxVariant::PlainLoadStore, 2, 1);
    let cx = check(&p).violation.unwrap();
    assert_eq!(cx.schedule.len(), 4, "{:?}", cx.schedule);
}

#[test]
fn simulated_runs_enter_the_critical_section_exactly_threads_times_rounds() {
    for lock in LockKind::ALL {
        for cpus in [1, 2, 4] {
            let p = LockParams {
                cpus,
                spin: 2048,
                ..params(lock, ShmtxVariant::Correct, 4, 25)
            };
            let mut sim = p.simulate();
            sim.run(50_000_000);
            assert_eq!(sim.status(), &Status::Finished, "{lock:?} cpus={cpus}");
            assert_eq!(sim.metrics().work_items, 100, "{lock:?} cpus={cpus}");
            let per: Vec<u32> = (0..4).map(|t| sim.worker(t).acquired()).collect();
            assert_eq!(per, [25, 25, 25, 25]);
        }
    }
}

#[test]
fn shmtx_on_one_cpu_never_spins() {
    let p = LockParams {
        cpus: 1,
        spin: 2048,
        ..params(LockKind::Shmtx, ShmtxVariant::Correct, 4, 25)
    };
    let mut sim = p.simulate();
    sim.run(10_000_000);
    assert_eq!(sim.metrics().spins, 0);
    let p2 = LockParams { cpus: 2, ..p };
    let mut sim = p2.simulate();
    sim.run(10_000_000);
    assert!(sim.metrics().spins > 0);
}

#[test]
fn a_holder_that_dies_is_recovered_by_the_masters_force_unlock() {
    let p = LockParams {
        crash: true,
        master: true,
        ..params(LockKind::Shmtx, ShmtxVariant::Correct, 3, 2)
    };
    let r = check(&p);
    assert!(r.violation.is_none() && r.complete, "{:?}", r.violation);
    // the simulated run: every survivor finishes its rounds; the dead one had one
    let mut sim = LockParams { spin: 2048, ..p }.simulate();
    sim.run(10_000_000);
    assert_eq!(sim.status(), &Status::Finished);
    assert_eq!(sim.metrics().work_items, 1 + 2 * 2);
    assert!(sim.worker(3).is_master());
}

#[test]
fn without_the_master_a_dead_holder_deadlocks_everyone() {
    let p = LockParams {
        crash: true,
        master: false,
        ..params(LockKind::Shmtx, ShmtxVariant::Correct, 2, 2)
    };
    let cx = check(&p)
        .violation
        .expect("a dead holder must block the others");
    assert_eq!(
        cx.violation.invariant, "deadlock",
        "{}",
        cx.violation.message
    );
    let mut sim = p.simulate();
    replay(&mut sim, &cx.schedule).unwrap();
    sim.run(1000);
    assert!(matches!(sim.status(), Status::Stuck(_)));
    assert_eq!(
        check_terminal(&p, &sim).map(|v| v.invariant),
        Some("deadlock".to_string())
    );
}
