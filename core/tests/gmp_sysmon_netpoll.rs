//! sysmon's network poll (`proc.go`'s sysmon: `lastpoll != 0 && lastpoll + 10ms < now` →
//! `netpoll(0)`, `injectglist` with no P) on the `netpoll-hog` workload: a call-free hog holds
//! the only P while main's answer waits in the kernel. With sysmon's poll main is injected onto
//! the global queue after 10 ms and runs at the hog's next preemption; without it
//! (`no-sysmon-netpoll`) main waits for the hog's whole run. Exact counts, the order the Gs
//! end, every answer runs its G over seeds and shapes, and the checker on the tiny preset.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::check_state;
use herdlab_core::mechanisms::gmp::machine::gstatus;
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpReport, GmpVariant, Workload};

/// core's case (`GmpParams::sysmon_poll_case`): 1 P, 2 Ms, main and a 50 ms hog.
fn one_p(variant: GmpVariant) -> GmpParams {
    GmpParams::sysmon_poll_case(variant)
}

/// Run to the end; the simulated time at which each G ended (index g), and the report.
fn run_timed(p: &GmpParams) -> (Vec<u64>, GmpReport) {
    let cfg = p.config();
    let mut sim = p.simulate();
    let mut ended = vec![0u64; cfg.gs as usize + 1];
    let mut steps = 0;
    while let Some(rec) = sim.step() {
        steps += 1;
        assert_eq!(check_state(&sim), None, "{p:?} at step {steps}");
        for g in 1..=cfg.gs {
            if ended[g as usize] == 0 && sim.word(cfg.status(g)) == gstatus::DEAD {
                ended[g as usize] = rec.time_ns;
            }
        }
        assert!(steps < 20_000_000, "{p:?} runs away");
    }
    assert!(all_exited(&sim), "{p:?}");
    (ended, GmpReport::of(&sim, steps, None))
}

#[test]
fn sysmons_poll_runs_an_answered_g_behind_a_hog_after_10_ms() {
    let p = one_p(GmpVariant::Correct);
    assert!(Gmp::validate(&p).is_empty());
    let (ended, r) = run_timed(&p);
    // main's answer came at ~0.1 ms; sysmon found nobody had polled for 10 ms (its own
    // clock: 20 µs sleeps, doubling after 50 idle rounds), polled, injected main onto the
    // global queue and asked the hog to stop; main ran at the hog's next slice end
    assert_eq!((r.sysmon_netpolls, r.sysmon_injected), (2, 1));
    // 2 polls by sysmon, 1 findRunnable netpoll(0) (G2's answer not yet there), 1 blocking
    assert_eq!((r.netpoll_polls, r.netpoll_blocks), (4, 1));
    assert_eq!((r.netpoll_parks, r.netpoll_ready), (2, 2));
    assert_eq!((r.preempt_requests, r.preemptions), (2, 2));
    // main's first run, G2's, main after its answer, G2 twice after its preemptions, G2 after
    // its answer
    assert_eq!(r.context_switches, 6);
    assert_eq!(r.finished, 2);
    let ten_ms = 10_000_000;
    assert!(
        ended[1] > ten_ms && ended[1] < 2 * ten_ms,
        "main ended at {} ns",
        ended[1]
    );
    assert!(ended[1] < ended[2], "main ends before the hog: {ended:?}");

    // without sysmon's poll nobody polls while the hog runs: every preemption puts G2 on the
    // global queue, findRunnable takes it back before its own netpoll(0), and main waits for
    // the hog's whole 50 ms
    let q = one_p(GmpVariant::NoSysmonNetpoll);
    let (ended, r) = run_timed(&q);
    assert_eq!((r.sysmon_netpolls, r.sysmon_injected), (0, 0));
    assert_eq!((r.netpoll_polls, r.netpoll_blocks), (3, 1));
    assert_eq!((r.netpoll_parks, r.netpoll_ready), (2, 2));
    assert_eq!((r.preempt_requests, r.preemptions), (2, 2));
    assert_eq!(r.context_switches, 6);
    assert!(ended[1] > 50_000_000, "main ended at {} ns", ended[1]);
}

#[test]
fn a_world_without_both_the_poller_and_sysmon_has_no_sysmon_poll() {
    // the netpoll workload has no sysmon, the hog no poller: their layouts and runs are as
    // before (no lastpoll stamp word, no sysmon poll)
    for workload in [Workload::Netpoll, Workload::Hog] {
        let p = GmpParams {
            workload,
            ..one_p(GmpVariant::Correct)
        };
        assert!(!p.config().sysmon_polls(), "{workload:?}");
        let (_, r) = p.run(20_000_000);
        assert_eq!(r.violation, None);
        assert_eq!((r.sysmon_netpolls, r.sysmon_injected), (0, 0));
    }
    let cfg = one_p(GmpVariant::Correct).config();
    assert!(cfg.sysmon_polls());
    // the stamp is the world's last word
    assert_eq!(cfg.lastpoll_stamp().0 as u32 + 1, cfg.words_needed());
}

#[test]
fn every_answer_runs_its_g_over_seeds_and_shapes_with_and_without_sysmons_poll() {
    for (procs, threads, gs) in [(1, 2, 3), (2, 3, 5), (4, 6, 12)] {
        for seed in 0..3 {
            for variant in [GmpVariant::Correct, GmpVariant::NoSysmonNetpoll] {
                let p = GmpParams {
                    gomaxprocs: procs,
                    threads,
                    cpus: procs + 1,
                    goroutines: gs,
                    rounds: 2,
                    hog_ns: 30_000_000,
                    seed,
                    ..one_p(variant)
                };
                assert!(Gmp::validate(&p).is_empty(), "{p:?}");
                let (sim, r) = p.run(20_000_000);
                assert_eq!(r.violation, None, "{p:?}");
                assert_eq!(r.fatal, None, "{p:?}");
                assert_eq!(r.finished, gs, "{p:?}");
                assert!(all_exited(&sim), "{p:?}");
                // every park is ended by one netpoll that found it (sysmon's or an M's)
                assert_eq!(r.netpoll_ready, r.netpoll_parks, "{p:?}");
                assert!(r.sysmon_injected <= r.netpoll_ready, "{p:?}");
                assert!(r.sysmon_netpolls <= r.netpoll_polls, "{p:?}");
                if variant == GmpVariant::NoSysmonNetpoll {
                    assert_eq!(r.sysmon_netpolls, 0, "{p:?}");
                }
            }
        }
    }
}

#[test]
fn netpoll_hog_needs_main_and_the_hog() {
    let p = GmpParams {
        goroutines: 1,
        ..one_p(GmpVariant::Correct)
    };
    let e = Gmp::validate(&p);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].field, "goroutines");
    assert!(e[0].message.contains("at least 2"), "{}", e[0].message);
}
