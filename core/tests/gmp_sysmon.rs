//! Go's scheduler with blocking syscalls and sysmon (issue 12 §1): exact counts of hand-offs,
//! retakes and preemptions for fixed seeds, each broken variant against the runtime on the same
//! scenario, the checker's proofs of the tiny presets (up to 2 preemptions of the schedule) and the
//! broken variants' shortest counterexamples, replayed in the simulator.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{check, check_state, replay};
use herdlab_core::mechanisms::gmp::params::all_exited;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpReport, GmpVariant, Workload};

/// One P, 6 Ms, 8 Gs, 7 CPUs (the lesson's scenario; a blocked M and sysmon sleep off every
/// CPU, so fewer CPUs change little: [`one_p_on_two_cpus_runs_the_same_hand_offs`]).
fn one_p(workload: Workload, variant: GmpVariant) -> GmpParams {
    GmpParams {
        gomaxprocs: 1,
        threads: 6,
        cpus: 7,
        goroutines: 8,
        work_ns: 100_000,
        syscall_ns: 1_000_000,
        hog_ns: 30_000_000,
        rounds: 100,
        workload,
        variant,
        ..GmpParams::default()
    }
}

fn run(p: &GmpParams) -> GmpReport {
    assert!(Gmp::validate(p).is_empty(), "{:?}", Gmp::validate(p));
    let (sim, r) = p.run(10_000_000);
    assert!(all_exited(&sim), "{p:?}");
    assert_eq!(r.finished, p.goroutines, "{p:?}");
    r
}

#[test]
fn sysmon_retakes_the_p_of_each_blocked_m_and_hands_it_to_a_parked_m() {
    // main spawns 7 Gs and blocks: sysmon's first look at P0 sees the same syscalltick it
    // recorded (0), the queue is full, so it retakes P0 and handoffp starts M1 on it. Each even G
    // blocks too (3 more), each is retaken the same way; the 5 syscalls end with the P elsewhere:
    // 1 finds no idle P (the G goes to the global queue, the M stops), 4 find P0 idle. Twice
    // P0 idles while Ms sleep in syscalls: sysmon sleeps deep, and the M that comes back to the
    // idle P wakes it.
    let r = run(&one_p(Workload::Syscall, GmpVariant::Correct));
    assert_eq!(r.violation, None);
    assert_eq!(
        (
            r.syscalls,
            r.retakes,
            r.handoffs,
            r.syscall_oldp,
            r.syscall_stops
        ),
        (5, 5, 5, 0, 1)
    );
    assert_eq!(r.syscall_pidle, 4);
    assert_eq!((r.sysmon_deep_sleeps, r.sysmon_wakes), (2, 2));
    assert_eq!((r.preempt_requests, r.preemptions), (0, 0));
    assert_eq!(r.sim_time_ns, 1_495_227);
    assert_eq!(r.max_wait_ns, 408_227);
    // without the retake every syscall keeps P0: each G waits for the one before it
    let broken = run(&one_p(Workload::Syscall, GmpVariant::NoSyscallRetake));
    assert_eq!(broken.violation.unwrap().invariant, "syscall-retake");
    assert_eq!(
        (
            broken.syscalls,
            broken.retakes,
            broken.handoffs,
            broken.syscall_oldp
        ),
        (5, 0, 0, 5)
    );
    assert_eq!(broken.sim_time_ns, 6_489_218);
    assert_eq!(broken.max_wait_ns, 5_634_216);
}

#[test]
fn one_p_on_two_cpus_runs_the_same_hand_offs() {
    // a blocked M and sysmon sleep off every CPU: 6 Ms and sysmon share 2 CPUs (1 and 1 P would
    // do) and the hand-offs are the same; the run ends within 1% of the 7-CPU one
    let wide = run(&one_p(Workload::Syscall, GmpVariant::Correct));
    for cpus in [1, 2] {
        let r = run(&GmpParams {
            cpus,
            ..one_p(Workload::Syscall, GmpVariant::Correct)
        });
        assert_eq!(r.violation, None);
        assert_eq!(
            (r.syscalls, r.retakes, r.handoffs, r.syscall_oldp),
            (5, 5, 5, 0),
            "{cpus} CPUs"
        );
        assert_eq!(r.syscall_stops + r.syscall_pidle, 5);
        assert!(
            r.sim_time_ns.abs_diff(wide.sim_time_ns) * 100 < wide.sim_time_ns,
            "{cpus} CPUs: {} ns against {} ns",
            r.sim_time_ns,
            wide.sim_time_ns
        );
        // 5 syscalls of 1 ms on 1 P overlap: far below their 5 ms in a row
        assert!(r.sim_time_ns < 2_000_000, "{}", r.sim_time_ns);
    }
    let two = run(&GmpParams {
        cpus: 2,
        ..one_p(Workload::Syscall, GmpVariant::Correct)
    });
    assert_eq!(
        (two.sim_time_ns, two.max_wait_ns, two.sysmon_deep_sleeps),
        (1_501_307, 414_140, 3)
    );
}

#[test]
fn sysmon_preempts_a_hog_after_10_ms_and_its_victims_run() {
    // G8 runs first (runnext), then G2, the hog: 30 ms without a call while G3..G7 wait in the
    // ring. After 10 ms on one schedtick (sysmon's sleep has grown to 5 ms by then) sysmon asks
    // for preemption; at its next async-safe point the hog goes to the global queue and the
    // victims run; it comes back when the ring is empty.
    let r = run(&one_p(Workload::Hog, GmpVariant::Correct));
    assert_eq!(r.violation, None);
    assert_eq!((r.preempt_requests, r.preemptions), (1, 1));
    assert_eq!(r.context_switches, 9, "8 Gs, the hog twice");
    assert_eq!(r.max_wait_ns, 12_100_722);
    // without async preemption the call-free loop ignores the request: the victims wait 30 ms
    let broken = run(&one_p(Workload::Hog, GmpVariant::NoAsyncPreemption));
    assert_eq!(broken.violation.unwrap().invariant, "preemption");
    assert_eq!((broken.preempt_requests, broken.preemptions), (2, 0));
    assert_eq!(broken.context_switches, 8);
    assert_eq!(broken.max_wait_ns, 30_500_509);
}

#[test]
fn a_ping_pong_pair_shares_one_slice_until_sysmon_ends_it() {
    // G3 and G4 hand the token back and forth through runnext, inheriting G3's time slice:
    // schedtick does not move, so after 10 ms sysmon preempts whichever of the pair runs, and
    // the victims in the ring get the P
    let r = run(&one_p(Workload::Pair, GmpVariant::Correct));
    assert_eq!(r.violation, None);
    assert_eq!((r.preempt_requests, r.preemptions), (1, 1));
    assert_eq!((r.gparks, r.readies), (199, 199));
    assert_eq!(r.max_wait_ns, 12_015_301);
    let broken = run(&one_p(Workload::Pair, GmpVariant::RunnextWithoutSysmon));
    assert_eq!(broken.violation.unwrap().invariant, "starvation");
    assert_eq!((broken.preempt_requests, broken.preemptions), (0, 0));
    assert_eq!(broken.max_wait_ns, 20_426_193);
}

#[test]
fn the_sysmon_workloads_keep_every_invariant_over_seeds_and_shapes() {
    for workload in [Workload::Syscall, Workload::Hog, Workload::Pair] {
        for (procs, threads, gs) in [(1, 3, 5), (2, 5, 7), (4, 9, 9)] {
            for seed in 0..3 {
                let p = GmpParams {
                    gomaxprocs: procs,
                    threads,
                    cpus: threads + 1,
                    goroutines: gs,
                    work_ns: 50_000 + 10_000 * seed as u32,
                    syscall_ns: 300_000,
                    hog_ns: 12_000_000,
                    rounds: 30,
                    workload,
                    seed,
                    ..GmpParams::default()
                };
                let r = run(&p);
                assert_eq!(r.violation, None, "{p:?}");
                // a G runs once, and again after each goready, preemption and exitsyscall0
                let exit0 = r.syscalls - r.syscall_oldp - r.syscall_pidle;
                assert_eq!(
                    r.context_switches,
                    gs as u64 + r.readies + r.preemptions + exit0,
                    "{p:?}"
                );
            }
        }
    }
}

fn bounded() -> CheckConfig {
    CheckConfig {
        preemption_bound: Some(2),
        ..CheckConfig::default()
    }
}

#[test]
fn the_checker_proves_the_sysmon_presets_up_to_two_preemptions() {
    for (workload, states) in [
        (Workload::Syscall, 268_393),
        (Workload::Hog, 214_163),
        (Workload::Pair, 453_517),
    ] {
        let p = GmpParams::action_preset(workload, GmpVariant::Correct);
        let r = check(&p, &bounded(), &mut |_| true);
        assert_eq!(r.violation, None, "{workload:?}");
        assert!(r.complete, "{workload:?}");
        assert_eq!(r.states, states, "{workload:?}");
    }
}

#[test]
fn the_checker_finds_a_stuck_syscall_p_and_a_starving_pair() {
    for (variant, invariant, len) in [
        (GmpVariant::NoSyscallRetake, "syscall-retake", 35),
        (GmpVariant::RunnextWithoutSysmon, "starvation", 183),
    ] {
        let p = GmpParams::variant_preset(variant);
        let r = check(&p, &bounded(), &mut |_| true);
        let c = r.violation.expect("a counterexample");
        assert_eq!(c.violation.invariant, invariant);
        assert_eq!(c.schedule.len(), len, "{variant:?}");
        let sim = replay(&p, &c.schedule);
        assert_eq!(
            check_state(&sim).map(|v| v.invariant),
            Some(invariant.to_string())
        );
        let pre = replay(&p, &c.schedule[..c.schedule.len() - 1]);
        assert_eq!(check_state(&pre), None, "{variant:?}");
    }
}

#[test]
fn an_empty_ps_syscall_is_left_for_10_ms_while_another_p_idles() {
    // 2 Ps: main spawns G2 and blocks for 20 ms; its queue holds G2, so sysmon retakes P0 at
    // once and hands it off. G2 then blocks too (20 ms), with an empty queue while P1 idles:
    // retake's grace leaves that syscall alone for 10 ms of sysmon's clock. Then handoffp finds
    // no work, but P0 would be the last running P (npidle = GOMAXPROCS - 1: someone must poll
    // the network), so it still starts an M for it.
    use herdlab_core::mechanisms::gmp::machine::Sched;
    use herdlab_core::sim::{Actor, Note};
    let p = GmpParams {
        gomaxprocs: 2,
        threads: 4,
        cpus: 5,
        goroutines: 2,
        work_ns: 100_000,
        syscall_ns: 20_000_000,
        workload: Workload::Syscall,
        ..GmpParams::default()
    };
    let mut sim = p.simulate();
    let (mut entered, mut retaken) = (Vec::new(), Vec::new());
    while let Some(rec) = sim.step() {
        let Actor::Thread(a) = rec.actor else {
            continue;
        };
        match sim.threads()[a as usize].machine().at {
            // the M goes to sleep in the syscall (the step that fires its timer is another)
            Some(Sched::SysBlock) if rec.note == Note::Slept { wasted: false } => {
                entered.push(rec.time_ns)
            }
            Some(Sched::SmSysInc { .. }) => retaken.push(rec.time_ns),
            _ => {}
        }
    }
    assert_eq!((entered.len(), retaken.len()), (2, 2));
    assert!(retaken[0] - entered[0] < 100_000, "{entered:?} {retaken:?}");
    assert!(
        retaken[1] - entered[1] >= 10_000_000,
        "{entered:?} {retaken:?}"
    );
    let (_, r) = p.run(10_000_000);
    assert_eq!(r.violation, None);
    assert_eq!((r.syscalls, r.retakes, r.handoffs), (2, 2, 2));
}

#[test]
fn sysmon_sleeps_deep_while_every_p_idles_and_wakes_when_an_m_comes_back() {
    // 1 P: main starts G2 and blocks 1 ms in a syscall; sysmon hands P0 to M1, G2 blocks too
    // (its queue empty, nobody spinning or idle: retaken anyway), handoffp's spinning M finds
    // nothing and P0 idles. Every P idle: sysmon sets sysmonwait and sleeps on sysmonnote (no
    // step of its own) until main's exitsyscall takes the idle P and wakes it. main exits, P0
    // idles again while G2 is still in its syscall: a second deep sleep, ended by G2's M.
    use herdlab_core::mechanisms::gmp::machine::{Sched, NONE, NPIDLE};
    use herdlab_core::sim::{Actor, Note};
    let p = GmpParams {
        gomaxprocs: 1,
        threads: 3,
        cpus: 1,
        goroutines: 2,
        work_ns: 100_000,
        syscall_ns: 1_000_000,
        workload: Workload::Syscall,
        ..GmpParams::default()
    };
    let cfg = p.config();
    let sm = cfg.sysmon_id().unwrap() as u16;
    let mut sim = p.simulate();
    // (when sysmon fell asleep, when it was woken, by whom)
    let mut slept: Vec<u64> = Vec::new();
    let mut woken: Vec<(u64, u16)> = Vec::new();
    let mut asleep = false;
    while let Some(rec) = sim.step() {
        assert_eq!(check_state(&sim), None);
        let Actor::Thread(a) = rec.actor else {
            continue;
        };
        let m = sim.threads()[a as usize].machine();
        if a == sm {
            assert!(
                !asleep,
                "sysmon stepped in its deep sleep at {}",
                rec.time_ns
            );
            if m.at == Some(Sched::SmNoteSleep) && rec.note == Note::FutexSlept {
                // every P idle, and an M in a syscall (its G will come back)
                assert_eq!(sim.word(NPIDLE), cfg.procs);
                assert_eq!(sim.word(cfg.sysmonwait()), 1);
                slept.push(rec.time_ns);
                asleep = true;
            }
        } else if matches!(m.at, Some(Sched::EnterSmUnlock | Sched::ExitUnlock))
            && matches!(rec.note, Note::Woke { woken: 1 })
            && asleep
        {
            // an M's notewakeup: it holds the P it came back to (or enters a syscall)
            assert!(m.cx.p != NONE || m.cx.oldp != NONE);
            woken.push((rec.time_ns, a));
            asleep = false;
        }
    }
    let (_, r) = p.run(10_000_000);
    assert_eq!(r.violation, None);
    assert_eq!(r.finished, 2);
    assert_eq!(slept.len() as u64, r.sysmon_deep_sleeps);
    assert_eq!(woken.len() as u64, r.sysmon_wakes);
    assert_eq!(
        (r.sysmon_deep_sleeps, r.sysmon_wakes),
        (2, 2),
        "{slept:?} {woken:?}"
    );
    // main (M0) entered its syscall first, so its exitsyscall wakes sysmon first, then M1's
    assert_eq!(woken.iter().map(|w| w.1).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(slept, [112_962, 1_035_972]);
    assert_eq!(
        woken.iter().map(|w| w.0).collect::<Vec<_>>(),
        [1_006_865, 1_037_526]
    );
    // the first deep sleep lasts most of main's 1 ms syscall, with no step of sysmon
    assert!(woken[0].0 - slept[0] > 800_000);
}
