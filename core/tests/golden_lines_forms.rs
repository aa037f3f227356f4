//! A snapshot of every machine's behaviour taken before the machines became step tables (issue 9):
//! the herd and accept simulations over a grid of scenarios (each trace hash covers every step's
//! actor, highlighted line, time and outcome, so a changed operation, transition or line shows
//! here), the per-step line sequence of every thread, and the model checker's exact state and
//! transition counts for the lock, herd and accept checks. The lock traces are in
//! `lock_golden.rs`. Update a constant only when a model changes on purpose (and say why in the
//! commit); `HERDLAB_PRINT_GOLDEN=1` prints the current values.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::check::{explore, CheckConfig, CheckReport, SpinSteps};
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::accept::{AcceptParams, MutexVariant, Strategy};
use herdlab_core::mechanisms::herd::{HerdParams, Primitive, Variant, WakeMode};
use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
use herdlab_core::mechanisms::locks::{LockKind, LockParams};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::Simulation;

fn printing() -> bool {
    std::env::var_os("HERDLAB_PRINT_GOLDEN").is_some()
}

/// FNV-1a over a sequence of numbers.
fn fnv(h: &mut u64, x: u64) {
    for b in x.to_le_bytes() {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

/// Step a simulation to its end, hashing each step's actor and line and each thread's own line
/// sequence (the line shown before every step, kernel lines included), plus every listing's length
/// (the text of two listings changed on purpose in the conversion: `event_worker`'s review fixes).
fn run_lines<M: Machine>(sim: &mut Simulation<M>, max: u64) -> (u64, u64, u64) {
    let mut lines = 0xcbf2_9ce4_8422_2325u64;
    let mut n = 0u64;
    while n < max {
        if sim.step().is_none() {
            break;
        }
        n += 1;
        for t in sim.threads() {
            fnv(&mut lines, t.line() as u64);
        }
    }
    for t in sim.threads() {
        fnv(&mut lines, t.machine().listing().len() as u64);
    }
    (sim.metrics().steps, sim.trace_hash(), lines)
}

fn herd_scenarios() -> Vec<(String, HerdParams)> {
    let mut v = Vec::new();
    for primitive in [Primitive::Accept, Primitive::Futex, Primitive::Condvar] {
        for mode in [
            WakeMode::WakeAll,
            WakeMode::Exclusive,
            WakeMode::LifoExclusive,
        ] {
            for variant in [Variant::Correct, Variant::BrokenSleeper] {
                if variant == Variant::BrokenSleeper && primitive != Primitive::Accept {
                    continue;
                }
                for (arrival, cpus) in [
                    (ArrivalPattern::OnDemand, 1),
                    (ArrivalPattern::Poisson, 2),
                    (ArrivalPattern::Burst, 2),
                ] {
                    let p = HerdParams {
                        workers: 3,
                        cpus,
                        mode,
                        arrival,
                        burst: 3,
                        rate: 200_000,
                        connections: 20,
                        service_ns: 3_000,
                        variant,
                        primitive,
                        seed: 5,
                    };
                    v.push((
                        format!(
                            "{} {} {} {arrival:?} cpus={cpus}",
                            primitive.name(),
                            mode.name(),
                            variant.name()
                        ),
                        p,
                    ));
                }
            }
        }
    }
    v
}

fn accept_scenarios() -> Vec<(String, AcceptParams)> {
    let mut v = Vec::new();
    for strategy in Strategy::ALL {
        for variant in MutexVariant::ALL {
            if variant != MutexVariant::Correct && strategy != Strategy::AcceptMutex {
                continue;
            }
            for (multi_accept, requests, reorder_every, worker_connections) in
                [(false, 1, 16, 512), (true, 3, 2, 16), (false, 2, 1, 8)]
            {
                let p = AcceptParams {
                    strategy,
                    workers: 3,
                    cpus: 2,
                    connections: 40,
                    rate: 100_000,
                    arrival: ArrivalPattern::Poisson,
                    requests,
                    service_ns: 10_000,
                    multi_accept,
                    reorder_every,
                    mutex_delay_ms: 1,
                    worker_connections,
                    variant,
                    seed: 3,
                    ..AcceptParams::default()
                };
                v.push((
                    format!(
                        "{} {} multi={multi_accept} req={requests} reorder={reorder_every} wc={worker_connections}",
                        strategy.name(),
                        variant.name()
                    ),
                    p,
                ));
            }
        }
    }
    v
}

fn lock_scenarios() -> Vec<(String, LockParams)> {
    let mut v = Vec::new();
    for lock in LockKind::ALL {
        for crash in [false, true] {
            if crash && lock != LockKind::Shmtx {
                continue;
            }
            let p = LockParams {
                lock,
                threads: 3,
                rounds: 4,
                cpus: 2,
                spin: 4,
                yield_after: 3,
                crash,
                ..LockParams::default()
            };
            v.push((format!("{} crash={crash}", lock.name()), p));
        }
    }
    v
}

fn compare(what: &str, got: &[(String, u64, u64, u64)], golden: &[(&str, u64, u64, u64)]) {
    if printing() {
        for (name, a, b, c) in got {
            println!("    ({name:?}, {a}, {b}, {c}),");
        }
    }
    assert_eq!(got.len(), golden.len(), "{what}: scenario list changed");
    let mut changed = Vec::new();
    for ((name, a, b, c), (gname, ga, gb, gc)) in got.iter().zip(golden) {
        assert_eq!(name, gname, "{what}: scenario order changed");
        if (*a, *b, *c) != (*ga, *gb, *gc) {
            changed.push(format!("{name}: ({a}, {b}, {c}) was ({ga}, {gb}, {gc})"));
        }
    }
    assert!(
        changed.is_empty(),
        "{what} changed:\n{}",
        changed.join("\n")
    );
}

#[test]
fn every_herd_thread_keeps_its_trace_and_its_lines() {
    let got: Vec<_> = herd_scenarios()
        .into_iter()
        .map(|(name, p)| {
            let (a, b, c) = run_lines(&mut p.simulate(), 200_000);
            (name, a, b, c)
        })
        .collect();
    compare("herd", &got, HERD);
}

#[test]
fn every_accept_thread_keeps_its_trace_and_its_lines() {
    let got: Vec<_> = accept_scenarios()
        .into_iter()
        .map(|(name, p)| {
            let (a, b, c) = run_lines(&mut p.simulate(), 200_000);
            (name, a, b, c)
        })
        .collect();
    compare("accept", &got, ACCEPT);
}

#[test]
fn every_lock_thread_keeps_its_lines() {
    let got: Vec<_> = lock_scenarios()
        .into_iter()
        .map(|(name, p)| {
            let (a, b, c) = run_lines(&mut p.simulate(), 200_000);
            (name, a, b, c)
        })
        .collect();
    compare("locks", &got, LOCKS);
}

fn counts(r: &CheckReport) -> (u64, u64, u64) {
    let cx = r
        .violation
        .as_ref()
        .map(|c| c.schedule.len() as u64 + 1)
        .unwrap_or(0);
    (r.states, r.transitions, cx * 2 + r.complete as u64)
}

#[test]
fn the_checkers_state_counts_stay_exact() {
    use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, check_world};
    let mut got = Vec::new();
    for lock in LockKind::ALL {
        let variants: &[ShmtxVariant] = if lock == LockKind::Shmtx {
            &ShmtxVariant::ALL
        } else {
            &[ShmtxVariant::Correct]
        };
        for &variant in variants {
            for spins in [SpinSteps::Merged, SpinSteps::OneByOne] {
                let p = LockParams {
                    lock,
                    variant,
                    threads: 2,
                    rounds: 2,
                    cpus: 2,
                    spin: 4,
                    semaphore: true,
                    yield_after: 4,
                    cs_ns: 100,
                    crash: false,
                    master: true,
                    seed: 1,
                };
                let r = explore(
                    check_world(&p).with_spin_steps(spins),
                    &CheckConfig::default(),
                    &|s| check_state(&p, s),
                    &|s| check_terminal(&p, s),
                    &mut |_| true,
                );
                let (a, b, c) = counts(&r);
                got.push((
                    format!("locks {} {} {spins:?}", lock.name(), variant.name()),
                    a,
                    b,
                    c,
                ));
            }
        }
    }
    let crash = LockParams {
        crash: true,
        threads: 2,
        rounds: 2,
        spin: 4,
        ..LockParams::default()
    };
    let r = explore(
        check_world(&crash),
        &CheckConfig::default(),
        &|s| check_state(&crash, s),
        &|s| check_terminal(&crash, s),
        &mut |_| true,
    );
    let (a, b, c) = counts(&r);
    got.push(("locks shmtx crash".to_string(), a, b, c));
    for primitive in [Primitive::Accept, Primitive::Futex, Primitive::Condvar] {
        for mode in [WakeMode::WakeAll, WakeMode::Exclusive] {
            for variant in [Variant::Correct, Variant::BrokenSleeper] {
                if variant == Variant::BrokenSleeper && primitive != Primitive::Accept {
                    continue;
                }
                let p = HerdParams {
                    workers: 2,
                    cpus: 2,
                    mode,
                    arrival: ArrivalPattern::OnDemand,
                    connections: 2,
                    variant,
                    primitive,
                    ..HerdParams::default()
                };
                let r = herdlab_core::mechanisms::herd::invariants::check(
                    &p,
                    &CheckConfig::default(),
                    &mut |_| true,
                );
                let (a, b, c) = counts(&r);
                got.push((
                    format!(
                        "herd {} {} {}",
                        primitive.name(),
                        mode.name(),
                        variant.name()
                    ),
                    a,
                    b,
                    c,
                ));
            }
        }
    }
    for strategy in Strategy::ALL {
        for variant in MutexVariant::ALL {
            if variant != MutexVariant::Correct && strategy != Strategy::AcceptMutex {
                continue;
            }
            let p = AcceptParams {
                strategy,
                variant,
                workers: 2,
                cpus: 1,
                connections: 2,
                arrival: ArrivalPattern::OnDemand,
                ..Default::default()
            };
            let cfg = CheckConfig {
                max_states: 2_000_000,
                ..Default::default()
            };
            let r = herdlab_core::mechanisms::accept::invariants::check(&p, &cfg, &mut |_| true);
            let (a, b, c) = counts(&r);
            got.push((
                format!("accept {} {}", strategy.name(), variant.name()),
                a,
                b,
                c,
            ));
        }
    }
    compare("checker", &got, CHECKER);
}

const HERD: &[(&str, u64, u64, u64)] = &[
    (
        "accept wake-all correct OnDemand cpus=1",
        269,
        15475763452153129051,
        14729279845484303246,
    ),
    (
        "accept wake-all correct Poisson cpus=2",
        126,
        6372494717490852793,
        11439486379637590178,
    ),
    (
        "accept wake-all correct Burst cpus=2",
        146,
        15782969185661701056,
        5299166158797681863,
    ),
    (
        "accept wake-all broken-sleeper OnDemand cpus=1",
        332,
        2922334748999408001,
        15145349927602870442,
    ),
    (
        "accept wake-all broken-sleeper Poisson cpus=2",
        151,
        366933834397623199,
        14421252755932870026,
    ),
    (
        "accept wake-all broken-sleeper Burst cpus=2",
        170,
        12555837203535559370,
        14277093841224313122,
    ),
    (
        "accept exclusive correct OnDemand cpus=1",
        149,
        16169974427813238592,
        16229795331950072526,
    ),
    (
        "accept exclusive correct Poisson cpus=2",
        116,
        2282109265513749529,
        12106830133481435784,
    ),
    (
        "accept exclusive correct Burst cpus=2",
        143,
        7077300311823135455,
        16448444488085100384,
    ),
    (
        "accept exclusive broken-sleeper OnDemand cpus=1",
        172,
        17950028967745089690,
        11631298340714521994,
    ),
    (
        "accept exclusive broken-sleeper Poisson cpus=2",
        138,
        2046235355071301875,
        4729046359478827593,
    ),
    (
        "accept exclusive broken-sleeper Burst cpus=2",
        166,
        945137181110639332,
        8678670771927162823,
    ),
    (
        "accept lifo-exclusive correct OnDemand cpus=1",
        149,
        17618545560143455592,
        1531530270464927694,
    ),
    (
        "accept lifo-exclusive correct Poisson cpus=2",
        116,
        6885973407590377112,
        2968365601781023752,
    ),
    (
        "accept lifo-exclusive correct Burst cpus=2",
        143,
        14368043493045204652,
        4301566694270025696,
    ),
    (
        "accept lifo-exclusive broken-sleeper OnDemand cpus=1",
        172,
        17057708296001050123,
        6209877576841553066,
    ),
    (
        "accept lifo-exclusive broken-sleeper Poisson cpus=2",
        128,
        16105988907726346973,
        7944278459824366278,
    ),
    (
        "accept lifo-exclusive broken-sleeper Burst cpus=2",
        166,
        6316764165765243668,
        9321729657206357543,
    ),
    (
        "futex wake-all correct OnDemand cpus=1",
        422,
        13792952510012712281,
        7566691415642621134,
    ),
    (
        "futex wake-all correct Poisson cpus=2",
        314,
        15458751205150032769,
        17716517582133545440,
    ),
    (
        "futex wake-all correct Burst cpus=2",
        254,
        14786701148951687078,
        3340207804925278986,
    ),
    (
        "futex exclusive correct OnDemand cpus=1",
        262,
        15980936056107523977,
        15732626144794404398,
    ),
    (
        "futex exclusive correct Poisson cpus=2",
        258,
        15696483170854544469,
        1887080184429090565,
    ),
    (
        "futex exclusive correct Burst cpus=2",
        250,
        12612113817677304076,
        13794216275694964526,
    ),
    (
        "futex lifo-exclusive correct OnDemand cpus=1",
        262,
        15980936056107523977,
        15732626144794404398,
    ),
    (
        "futex lifo-exclusive correct Poisson cpus=2",
        258,
        15696483170854544469,
        1887080184429090565,
    ),
    (
        "futex lifo-exclusive correct Burst cpus=2",
        250,
        12612113817677304076,
        13794216275694964526,
    ),
    (
        "condvar wake-all correct OnDemand cpus=1",
        573,
        13158315520517157880,
        4484518968562265389,
    ),
    (
        "condvar wake-all correct Poisson cpus=2",
        436,
        840600444283598514,
        7130635078702852264,
    ),
    (
        "condvar wake-all correct Burst cpus=2",
        367,
        7585965769671150473,
        4928850348228437391,
    ),
    (
        "condvar exclusive correct OnDemand cpus=1",
        373,
        16417546246236537001,
        8841089040662141901,
    ),
    (
        "condvar exclusive correct Poisson cpus=2",
        371,
        5155408605930147283,
        12126319229532005224,
    ),
    (
        "condvar exclusive correct Burst cpus=2",
        362,
        16083452563875439642,
        7201109892085832620,
    ),
    (
        "condvar lifo-exclusive correct OnDemand cpus=1",
        373,
        16417546246236537001,
        8841089040662141901,
    ),
    (
        "condvar lifo-exclusive correct Poisson cpus=2",
        371,
        5155408605930147283,
        12126319229532005224,
    ),
    (
        "condvar lifo-exclusive correct Burst cpus=2",
        362,
        16083452563875439642,
        7201109892085832620,
    ),
];
const ACCEPT: &[(&str, u64, u64, u64)] = &[
    (
        "herd correct multi=false req=1 reorder=16 wc=512",
        553,
        15676402651788312058,
        12321933390958808719,
    ),
    (
        "herd correct multi=true req=3 reorder=2 wc=16",
        796,
        5750708147076265144,
        4091409312311186115,
    ),
    (
        "herd correct multi=false req=2 reorder=1 wc=8",
        691,
        11965112726333776452,
        14662844394534033993,
    ),
    (
        "shared-epoll correct multi=false req=1 reorder=16 wc=512",
        533,
        670351397210341720,
        14205675316994754251,
    ),
    (
        "shared-epoll correct multi=true req=3 reorder=2 wc=16",
        789,
        9018818013431534997,
        15909989065543701677,
    ),
    (
        "shared-epoll correct multi=false req=2 reorder=1 wc=8",
        678,
        8387962950594718576,
        6974155759807042437,
    ),
    (
        "exclusive correct multi=false req=1 reorder=16 wc=512",
        533,
        5874722421384856588,
        17147586512799941481,
    ),
    (
        "exclusive correct multi=true req=3 reorder=2 wc=16",
        799,
        9211717058699726132,
        12321855959247927406,
    ),
    (
        "exclusive correct multi=false req=2 reorder=1 wc=8",
        775,
        2845049155638452931,
        5830585526970162241,
    ),
    (
        "accept-mutex correct multi=false req=1 reorder=16 wc=512",
        657,
        6546191435831889794,
        14081334463768089116,
    ),
    (
        "accept-mutex correct multi=true req=3 reorder=2 wc=16",
        754,
        10424127909540161536,
        4767344472214729584,
    ),
    (
        "accept-mutex correct multi=false req=2 reorder=1 wc=8",
        711,
        275026852256449444,
        4042679257952339507,
    ),
    (
        "accept-mutex unlock-before-accept multi=false req=1 reorder=16 wc=512",
        657,
        7022085097193829781,
        18152943206172143130,
    ),
    (
        "accept-mutex unlock-before-accept multi=true req=3 reorder=2 wc=16",
        754,
        10699527190113442712,
        4923025539193281874,
    ),
    (
        "accept-mutex unlock-before-accept multi=false req=2 reorder=1 wc=8",
        711,
        14291652562558655157,
        433493874939986160,
    ),
    (
        "accept-mutex no-disable multi=false req=1 reorder=16 wc=512",
        657,
        6546191435831889794,
        14081334463768089116,
    ),
    (
        "accept-mutex no-disable multi=true req=3 reorder=2 wc=16",
        754,
        10424127909540161536,
        4767344472214729584,
    ),
    (
        "accept-mutex no-disable multi=false req=2 reorder=1 wc=8",
        711,
        275026852256449444,
        4042679257952339507,
    ),
    (
        "accept-mutex no-timer multi=false req=1 reorder=16 wc=512",
        657,
        6546191435831889794,
        14081334463768089116,
    ),
    (
        "accept-mutex no-timer multi=true req=3 reorder=2 wc=16",
        744,
        7157201964385656131,
        3354257542547216605,
    ),
    (
        "accept-mutex no-timer multi=false req=2 reorder=1 wc=8",
        711,
        275026852256449444,
        4042679257952339507,
    ),
    (
        "reuseport correct multi=false req=1 reorder=16 wc=512",
        524,
        1188896892596914321,
        3416245543679226308,
    ),
    (
        "reuseport correct multi=true req=3 reorder=2 wc=16",
        832,
        11140683101413264643,
        13673777205599419244,
    ),
    (
        "reuseport correct multi=false req=2 reorder=1 wc=8",
        703,
        10054543515575432011,
        15107975439197457256,
    ),
    (
        "blocking correct multi=false req=1 reorder=16 wc=512",
        491,
        3794707960571572773,
        3226997656786751530,
    ),
    (
        "blocking correct multi=true req=3 reorder=2 wc=16",
        781,
        8201635292296226778,
        3090863109468899915,
    ),
    (
        "blocking correct multi=false req=2 reorder=1 wc=8",
        582,
        4173624646380740297,
        9812166843173504009,
    ),
];
const LOCKS: &[(&str, u64, u64, u64)] = &[
    (
        "shmtx crash=false",
        81,
        3745070117674277735,
        8210577755602688064,
    ),
    (
        "shmtx crash=true",
        66,
        16820694935933406172,
        15178922132352599498,
    ),
    (
        "ttas crash=false",
        75,
        569264193750088209,
        16148602752127129838,
    ),
    (
        "spin-yield crash=false",
        63,
        16977180676187215372,
        14901809263281725926,
    ),
    (
        "ticket crash=false",
        95,
        619478358743289835,
        18046546303511270151,
    ),
    (
        "futex crash=false",
        44,
        2686949528718731206,
        9184997786064304587,
    ),
];
const CHECKER: &[(&str, u64, u64, u64)] = &[
    ("locks shmtx correct Merged", 2457, 4170, 1),
    ("locks shmtx correct OneByOne", 3313, 5594, 1),
    ("locks shmtx no-wait-decrement Merged", 48, 63, 21),
    ("locks shmtx no-wait-decrement OneByOne", 59, 80, 23),
    ("locks shmtx announce-after-check Merged", 58, 79, 33),
    ("locks shmtx announce-after-check OneByOne", 69, 96, 35),
    ("locks shmtx unlock-reads-wait-first Merged", 39, 41, 33),
    ("locks shmtx unlock-reads-wait-first OneByOne", 45, 48, 35),
    ("locks shmtx plain-load-store Merged", 141, 204, 11),
    ("locks shmtx plain-load-store OneByOne", 153, 223, 11),
    ("locks shmtx seed-listing Merged", 50, 65, 31),
    ("locks shmtx seed-listing OneByOne", 61, 82, 33),
    ("locks ttas correct Merged", 93, 164, 1),
    ("locks ttas correct OneByOne", 93, 164, 1),
    ("locks spin-yield correct Merged", 177, 320, 1),
    ("locks spin-yield correct OneByOne", 177, 320, 1),
    ("locks ticket correct Merged", 120, 204, 1),
    ("locks ticket correct OneByOne", 120, 204, 1),
    ("locks futex correct Merged", 454, 720, 1),
    ("locks futex correct OneByOne", 454, 720, 1),
    ("locks shmtx crash", 1838, 3921, 1),
    ("herd accept wake-all correct", 720, 1559, 1),
    ("herd accept wake-all broken-sleeper", 184, 309, 21),
    ("herd accept exclusive correct", 723, 1526, 1),
    ("herd accept exclusive broken-sleeper", 257, 450, 21),
    ("herd futex wake-all correct", 358, 753, 1),
    ("herd futex exclusive correct", 146, 239, 1),
    ("herd condvar wake-all correct", 477, 887, 1),
    ("herd condvar exclusive correct", 239, 387, 1),
    ("accept herd correct", 6825, 15414, 1),
    ("accept shared-epoll correct", 6904, 14716, 1),
    ("accept exclusive correct", 6367, 14490, 1),
    ("accept accept-mutex correct", 12214, 28188, 1),
    ("accept accept-mutex unlock-before-accept", 10, 9, 15),
    ("accept accept-mutex no-disable", 70, 76, 25),
    ("accept accept-mutex no-timer", 7, 6, 11),
    ("accept reuseport correct", 657, 1484, 1),
    ("accept blocking correct", 2230, 5321, 1),
];
