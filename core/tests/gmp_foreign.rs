//! A wake from outside every P (`foreign-wake`): a thread that is neither an M nor holds a P
//! readies parked Gs the way Go's `injectglist` does without a P (`_Grunnable`,
//! `globrunqputbatch` under `sched.lock`, `startIdle`), so a G woken while every M sleeps in
//! `stopm` runs. Exact counts over seeds and shapes, determinism (the trace hash), the checker
//! proving the preset, and the broken variant (`inject-without-startm`) caught and replayed.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{check, check_state, replay};
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpActor, GmpParams, GmpVariant, Workload};

fn foreign(procs: u32, threads: u32, gs: u32, net_ns: u32, seed: u64) -> GmpParams {
    GmpParams {
        gomaxprocs: procs,
        threads,
        cpus: procs,
        workload: Workload::ForeignWake,
        goroutines: gs,
        work_ns: 5_000,
        net_ns,
        ring: 4,
        seed,
        ..GmpParams::default()
    }
}

#[test]
fn every_outside_wake_runs_its_g_exactly_once_over_seeds_and_shapes() {
    for (procs, threads, gs) in [(1, 2, 1), (1, 2, 3), (2, 3, 7), (4, 6, 40)] {
        for seed in 0..3 {
            for variant in [
                GmpVariant::Correct,
                GmpVariant::WakepNoSpinTest,
                GmpVariant::NoSpinLimit,
                GmpVariant::StealOne,
                GmpVariant::NoFairness,
                GmpVariant::SingleQueue,
            ] {
                let p = GmpParams {
                    variant,
                    ..foreign(procs, threads, gs, 200_000, seed)
                };
                assert!(Gmp::validate(&p).is_empty(), "{p:?}");
                let (sim, r) = p.run(10_000_000);
                assert_eq!(r.violation, None, "{p:?}");
                assert_eq!(r.fatal, None, "{p:?}");
                assert_eq!(r.finished, gs, "{p:?}");
                assert!(all_exited(&sim), "{p:?}");
                // the wakes come 200 µs apart, long after every G parked: each G parks once
                // and the outside thread readies each (none finds a token's race)
                assert_eq!(r.gparks, gs as u64, "{p:?}");
                assert_eq!(r.readies, gs as u64, "{p:?}");
                // a G runs once, then once after its wake
                assert_eq!(r.context_switches, 2 * gs as u64, "{p:?}");
            }
        }
    }
}

#[test]
fn a_wake_while_every_m_sleeps_starts_an_m_for_an_idle_p() {
    // 1 P, 2 Ms, main alone: it parks, its M finds nothing and sleeps in stopm (no checkdead:
    // a thread outside may still wake main); the outside thread readies main: the global queue
    // and startIdle, one futex wake of a parked M, which runs main to its end
    let p = foreign(1, 2, 1, 100_000, 1);
    let (sim, r) = p.run(1_000_000);
    assert_eq!(r.violation, None);
    assert_eq!(r.fatal, None);
    assert_eq!((r.finished, r.gparks, r.readies), (1, 1, 1));
    assert_eq!(r.context_switches, 2);
    // the injected G came off the global queue
    assert_eq!(r.global_queue_gets, 1);
    assert!(all_exited(&sim));
}

#[test]
fn a_wake_before_the_park_is_a_token_not_an_injection() {
    // 1 P: each G computes 1 ms before its receive, and the outside thread (a CPU for each
    // thread) wakes every few µs: each token is on its wait word before its G gets there, so
    // no G parks and nothing is injected
    let p = GmpParams {
        cpus: 3,
        work_ns: 1_000_000,
        ..foreign(1, 2, 3, 1_000, 1)
    };
    let (sim, r) = p.run(1_000_000);
    assert_eq!(r.violation, None);
    assert_eq!(r.finished, 3);
    assert_eq!((r.gparks, r.readies, r.futex_wakes), (0, 0, 0));
    assert_eq!(r.context_switches, 3);
    assert!(all_exited(&sim));
}

#[test]
fn the_simulator_is_deterministic_with_the_outside_thread() {
    let p = foreign(2, 3, 9, 30_000, 7);
    let (a, ra) = p.run(10_000_000);
    let (b, rb) = p.run(10_000_000);
    assert_eq!(ra.violation, None);
    assert_eq!(a.trace_hash(), b.trace_hash());
    assert_eq!(ra, rb);
}

#[test]
fn the_checker_proves_the_foreign_wake_preset() {
    let p = GmpParams::action_preset(Workload::ForeignWake, GmpVariant::Correct);
    assert_eq!((p.gomaxprocs, p.threads, p.goroutines), (1, 2, 2));
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    assert_eq!(r.violation, None, "{p:?}");
    assert!(r.complete);
    assert_eq!(r.states, 768_139);
}

#[test]
fn the_checker_finds_an_injection_without_startm_and_it_replays() {
    let p = GmpParams::variant_preset(GmpVariant::InjectWithoutStartm);
    assert_eq!(p.workload, Workload::ForeignWake);
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    let c = r.violation.expect("a counterexample");
    // the outside thread queues a parked G on the global queue and starts no M: every M sleeps
    // in stopm, the P idles, nobody looks
    assert_eq!(c.violation.invariant, "lost-wakeup");
    assert_eq!(c.schedule.len(), 72);
    let sim = replay(&p, &c.schedule);
    assert_eq!(
        check_state(&sim).map(|v| v.invariant),
        Some("lost-wakeup".to_string())
    );
    let pre = replay(&p, &c.schedule[..c.schedule.len() - 1]);
    assert_eq!(check_state(&pre), None);
}

#[test]
fn a_one_shot_injector_readies_one_parked_g_and_is_done() {
    // the native form of a foreign wake: core's injector for one G, straight-line, over a
    // recorder: it starts at the wait word and ends after that G (no sleep, no next G)
    use herdlab_core::machine::Machine;
    use herdlab_core::op::Op;
    let cfg = foreign(2, 3, 4, 1_000, 1).config();
    let a = GmpActor::injector(cfg, 3);
    assert_eq!(a.next_op(), Op::Load(cfg.wait(3)));
    assert!(a.cx.is_injector());
}
