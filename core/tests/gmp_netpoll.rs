//! Go's netpoller in the G/M/P model and `checkdead`: Gs that read from the network park on the
//! poller and every answer runs its G (over seeds, shapes and variants); the counts of a small
//! run derived by hand; the checker proves the netpoll preset and finds the broken variant's
//! (`no-blocking-netpoll`) shortest counterexample, which replays to the same broken invariant;
//! a receive nobody sends to ends the program with "all goroutines are asleep - deadlock!".

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{check, check_state, replay};
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpVariant, Workload};

const DEADLOCK: &str = "all goroutines are asleep - deadlock!";

fn netpoll(procs: u32, threads: u32, gs: u32, rounds: u32, seed: u64) -> GmpParams {
    GmpParams {
        gomaxprocs: procs,
        threads,
        cpus: procs,
        workload: Workload::Netpoll,
        goroutines: gs,
        rounds,
        work_ns: 5_000,
        net_ns: 50_000,
        ring: 4,
        seed,
        ..GmpParams::default()
    }
}

#[test]
fn every_answer_runs_its_g_over_seeds_shapes_and_variants() {
    for (procs, threads, gs) in [(1, 2, 3), (2, 3, 7), (4, 6, 40), (8, 12, 100)] {
        for seed in 0..3 {
            for variant in [
                GmpVariant::Correct,
                GmpVariant::WakepNoSpinTest,
                GmpVariant::NoSpinLimit,
                GmpVariant::StealOne,
                GmpVariant::NoFairness,
            ] {
                let p = GmpParams {
                    variant,
                    ..netpoll(procs, threads, gs, 3, seed)
                };
                assert!(Gmp::validate(&p).is_empty(), "{p:?}");
                let (sim, r) = p.run(10_000_000);
                assert_eq!(r.violation, None, "{p:?}");
                assert_eq!(r.fatal, None, "{p:?}");
                assert_eq!(r.finished, gs, "{p:?}");
                assert!(all_exited(&sim), "{p:?}");
                // each read parks (the answer takes 50 µs, far longer than the few steps
                // before the commit), and every park is ended by a netpoll that found it
                assert_eq!(r.netpoll_parks, 3 * gs as u64, "{p:?}");
                assert_eq!(r.netpoll_ready, r.netpoll_parks, "{p:?}");
                // a G runs once, then once per answer
                assert_eq!(r.context_switches, 4 * gs as u64, "{p:?}");
                assert!(r.netpoll_blocks >= 1, "{p:?}");
            }
        }
    }
}

#[test]
fn one_p_parks_both_gs_then_blocks_in_netpoll_and_runs_each_answer() {
    // GOMAXPROCS=1, 2 Ms: main spawns G2 (runnext), computes, reads (parks); G2 computes,
    // reads (parks). Nothing to run: the M releases its P and, with waiters and nobody polling,
    // becomes THE poller (blocking netpoll) instead of stopm. The first answer (G1's, sent
    // first) wakes it: it takes the idle P and runs G1 (G2's answer is not there yet); G1
    // exits; the M polls without blocking? No: lastpoll's M is back, so netpoll(0) finds
    // nothing, it blocks again, and G2's answer ends the run the same way.
    let p = GmpParams {
        cpus: 2,
        ..netpoll(1, 2, 2, 1, 1)
    };
    let (sim, r) = p.run(1_000_000);
    assert_eq!(r.violation, None);
    assert!(all_exited(&sim));
    assert_eq!((r.finished, r.context_switches), (2, 4));
    assert_eq!((r.netpoll_parks, r.netpoll_ready), (2, 2));
    assert_eq!(r.netpoll_blocks, 2, "{r:?}");
    assert_eq!(r.parks, 0, "the only parks are blocking polls: {r:?}");
    assert_eq!(r.netpoll_breaks, 0);
    // two network delays in a row would be 100 µs; the two requests overlap
    assert!(r.sim_time_ns < 100_000, "{}", r.sim_time_ns);
}

#[test]
fn netpoll_runs_are_deterministic() {
    let p = netpoll(4, 6, 40, 3, 7);
    let (a, ra) = p.run(10_000_000);
    let (b, rb) = p.run(10_000_000);
    assert_eq!(ra, rb);
    assert_eq!(a.trace_hash(), b.trace_hash());
}

#[test]
fn a_receive_nobody_sends_to_ends_in_checkdeads_report() {
    for (procs, threads, gs) in [(1, 2, 2), (2, 3, 5), (4, 6, 20)] {
        let p = GmpParams {
            gomaxprocs: procs,
            threads,
            cpus: procs,
            workload: Workload::Deadlock,
            goroutines: gs,
            ..GmpParams::default()
        };
        let (_, r) = p.run(1_000_000);
        assert_eq!(r.fatal.as_deref(), Some(DEADLOCK), "{p:?}");
        assert_eq!(r.violation, None, "{p:?}");
        // every G but main ran to its end; main waits (gopark) for ever
        assert_eq!((r.finished, r.gparks), (gs - 1, 1), "{p:?}");
    }
    // one goroutine cannot deadlock on a partner
    let e = Gmp::validate(&GmpParams {
        workload: Workload::Deadlock,
        goroutines: 1,
        ..GmpParams::default()
    });
    assert_eq!(e[0].field, "goroutines");
}

#[test]
fn without_the_blocking_poll_checkdead_reports_a_deadlock_that_is_not_one() {
    let p = GmpParams {
        variant: GmpVariant::NoBlockingNetpoll,
        ..netpoll(2, 3, 7, 3, 1)
    };
    let (_, r) = p.run(10_000_000);
    assert_eq!(r.fatal.as_deref(), Some(DEADLOCK));
    assert_eq!(
        r.violation.map(|v| v.invariant),
        Some("deadlock-report".to_string())
    );
    assert_eq!(r.netpoll_blocks, 0);
    assert!(r.finished < 7);
}

#[test]
fn the_checker_proves_the_netpoll_presets() {
    // 1 P, 2 Ms, 2 Gs of one read each (and their 2 peers); and 2 Ps, 3 Ms, main alone
    let p = GmpParams::action_preset(Workload::Netpoll, GmpVariant::Correct);
    assert_eq!(
        (p.gomaxprocs, p.threads, p.goroutines, p.rounds),
        (1, 2, 2, 1)
    );
    let two_ps = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        cpus: 2,
        goroutines: 1,
        ..p
    };
    for (p, states) in [(p, 311_944), (two_ps, 143_390)] {
        let r = check(&p, &CheckConfig::default(), &mut |_| true);
        assert_eq!(r.violation, None, "{p:?}");
        assert!(r.complete, "{p:?}");
        assert_eq!(r.states, states, "{p:?}");
    }
}

#[test]
fn the_checker_finds_the_missing_blocking_poll_and_it_replays() {
    let p = GmpParams::variant_preset(GmpVariant::NoBlockingNetpoll);
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    let c = r.violation.expect("a counterexample");
    assert_eq!(c.violation.invariant, "deadlock-report");
    // main reads and parks on the poller; its M finds nothing, parks in stopm instead of
    // polling, and checkdead (every M idle, G1 waiting) throws
    assert_eq!((p.gomaxprocs, p.threads, p.goroutines), (1, 2, 1));
    assert_eq!(c.schedule.len(), 53);
    let sim = replay(&p, &c.schedule);
    assert_eq!(
        check_state(&sim).map(|v| v.invariant),
        Some("deadlock-report".to_string())
    );
    let pre = replay(&p, &c.schedule[..c.schedule.len() - 1]);
    assert_eq!(check_state(&pre), None);
}
