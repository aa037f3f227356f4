//! Golden traces of the lock machines: every lock kind, every `ngx_shmtx` variant, with and without
//! the semaphore, on one CPU and two, with a short spin and nginx's, and the crash scenarios. Each
//! trace hash covers every step's actor, pseudocode line, time and outcome, so a change to a
//! machine's operations, transitions or highlighted lines shows here. Update a constant only when a
//! model changes on purpose (and say why in the commit).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
use herdlab_core::mechanisms::locks::{LockKind, LockParams};

fn scenarios() -> Vec<(String, LockParams)> {
    let base = LockParams {
        threads: 4,
        rounds: 10,
        cs_ns: 100,
        seed: 7,
        yield_after: 4,
        ..LockParams::default()
    };
    let mut v = Vec::new();
    for variant in ShmtxVariant::ALL {
        for semaphore in [true, false] {
            for cpus in [1, 2] {
                for spin in [4, 2048] {
                    let p = LockParams {
                        variant,
                        semaphore,
                        cpus,
                        spin,
                        ..base
                    };
                    v.push((
                        format!(
                            "shmtx {} sem={semaphore} cpus={cpus} spin={spin}",
                            variant.name()
                        ),
                        p,
                    ));
                }
            }
        }
    }
    for master in [true, false] {
        let p = LockParams {
            crash: true,
            master,
            cpus: 2,
            ..base
        };
        v.push((format!("shmtx crash master={master}"), p));
    }
    for lock in [
        LockKind::Ttas,
        LockKind::SpinYield,
        LockKind::Ticket,
        LockKind::Futex,
    ] {
        for cpus in [1, 2] {
            let p = LockParams { lock, cpus, ..base };
            v.push((format!("{} cpus={cpus}", lock.name()), p));
        }
    }
    v
}

fn traces() -> Vec<(String, u64, u64)> {
    scenarios()
        .into_iter()
        .map(|(name, p)| {
            let mut sim = p.simulate();
            sim.run(200_000);
            (name, sim.metrics().steps, sim.trace_hash())
        })
        .collect()
}

#[test]
fn every_lock_scenario_keeps_its_golden_trace() {
    let got = traces();
    if std::env::var_os("HERDLAB_PRINT_GOLDEN").is_some() {
        for (name, steps, hash) in &got {
            println!("    ({name:?}, {steps}, {hash}),");
        }
    }
    assert_eq!(got.len(), GOLDEN.len(), "scenario list changed");
    let mut changed = Vec::new();
    for ((name, steps, hash), (gname, gsteps, ghash)) in got.iter().zip(GOLDEN) {
        assert_eq!(name, gname, "scenario order changed");
        if (*steps, *hash) != (*gsteps, *ghash) {
            changed.push(format!("{name}: ({steps}, {hash}) was ({gsteps}, {ghash})"));
        }
    }
    assert!(
        changed.is_empty(),
        "traces changed:\n{}",
        changed.join("\n")
    );
}

const GOLDEN: &[(&str, u64, u64)] = &[
    (
        "shmtx correct sem=true cpus=1 spin=4",
        204,
        6569525889244741144,
    ),
    (
        "shmtx correct sem=true cpus=1 spin=2048",
        204,
        6569525889244741144,
    ),
    (
        "shmtx correct sem=true cpus=2 spin=4",
        217,
        17189268165169997203,
    ),
    (
        "shmtx correct sem=true cpus=2 spin=2048",
        311,
        10277002098319314278,
    ),
    (
        "shmtx correct sem=false cpus=1 spin=4",
        164,
        2743964588225259326,
    ),
    (
        "shmtx correct sem=false cpus=1 spin=2048",
        164,
        2743964588225259326,
    ),
    (
        "shmtx correct sem=false cpus=2 spin=4",
        184,
        15765162739560667582,
    ),
    (
        "shmtx correct sem=false cpus=2 spin=2048",
        272,
        3223299975286763761,
    ),
    (
        "shmtx no-wait-decrement sem=true cpus=1 spin=4",
        204,
        6569525889244741144,
    ),
    (
        "shmtx no-wait-decrement sem=true cpus=1 spin=2048",
        204,
        6569525889244741144,
    ),
    (
        "shmtx no-wait-decrement sem=true cpus=2 spin=4",
        217,
        17189268165169997203,
    ),
    (
        "shmtx no-wait-decrement sem=true cpus=2 spin=2048",
        311,
        10277002098319314278,
    ),
    (
        "shmtx no-wait-decrement sem=false cpus=1 spin=4",
        164,
        2743964588225259326,
    ),
    (
        "shmtx no-wait-decrement sem=false cpus=1 spin=2048",
        164,
        2743964588225259326,
    ),
    (
        "shmtx no-wait-decrement sem=false cpus=2 spin=4",
        184,
        15765162739560667582,
    ),
    (
        "shmtx no-wait-decrement sem=false cpus=2 spin=2048",
        272,
        3223299975286763761,
    ),
    (
        "shmtx announce-after-check sem=true cpus=1 spin=4",
        204,
        6569525889244741144,
    ),
    (
        "shmtx announce-after-check sem=true cpus=1 spin=2048",
        204,
        6569525889244741144,
    ),
    (
        "shmtx announce-after-check sem=true cpus=2 spin=4",
        217,
        8766812623637772322,
    ),
    (
        "shmtx announce-after-check sem=true cpus=2 spin=2048",
        311,
        10277002098319314278,
    ),
    (
        "shmtx announce-after-check sem=false cpus=1 spin=4",
        164,
        2743964588225259326,
    ),
    (
        "shmtx announce-after-check sem=false cpus=1 spin=2048",
        164,
        2743964588225259326,
    ),
    (
        "shmtx announce-after-check sem=false cpus=2 spin=4",
        184,
        15765162739560667582,
    ),
    (
        "shmtx announce-after-check sem=false cpus=2 spin=2048",
        272,
        3223299975286763761,
    ),
    (
        "shmtx unlock-reads-wait-first sem=true cpus=1 spin=4",
        204,
        16651105924699229886,
    ),
    (
        "shmtx unlock-reads-wait-first sem=true cpus=1 spin=2048",
        204,
        16651105924699229886,
    ),
    (
        "shmtx unlock-reads-wait-first sem=true cpus=2 spin=4",
        217,
        8799641807598239485,
    ),
    (
        "shmtx unlock-reads-wait-first sem=true cpus=2 spin=2048",
        259,
        16177898259418055684,
    ),
    (
        "shmtx unlock-reads-wait-first sem=false cpus=1 spin=4",
        164,
        9027954817809596686,
    ),
    (
        "shmtx unlock-reads-wait-first sem=false cpus=1 spin=2048",
        164,
        9027954817809596686,
    ),
    (
        "shmtx unlock-reads-wait-first sem=false cpus=2 spin=4",
        184,
        16450959950075640846,
    ),
    (
        "shmtx unlock-reads-wait-first sem=false cpus=2 spin=2048",
        272,
        8769993087530394301,
    ),
    (
        "shmtx plain-load-store sem=true cpus=1 spin=4",
        204,
        1229362760956597973,
    ),
    (
        "shmtx plain-load-store sem=true cpus=1 spin=2048",
        204,
        1229362760956597973,
    ),
    (
        "shmtx plain-load-store sem=true cpus=2 spin=4",
        222,
        12021056301192842430,
    ),
    (
        "shmtx plain-load-store sem=true cpus=2 spin=2048",
        249,
        12589860356087661718,
    ),
    (
        "shmtx plain-load-store sem=false cpus=1 spin=4",
        164,
        4826143005668567698,
    ),
    (
        "shmtx plain-load-store sem=false cpus=1 spin=2048",
        164,
        4826143005668567698,
    ),
    (
        "shmtx plain-load-store sem=false cpus=2 spin=4",
        190,
        11468332238345297636,
    ),
    (
        "shmtx plain-load-store sem=false cpus=2 spin=2048",
        205,
        14633182037082371795,
    ),
    (
        "shmtx seed-listing sem=true cpus=1 spin=4",
        204,
        6569525889244741144,
    ),
    (
        "shmtx seed-listing sem=true cpus=1 spin=2048",
        204,
        6569525889244741144,
    ),
    (
        "shmtx seed-listing sem=true cpus=2 spin=4",
        217,
        17189268165169997203,
    ),
    (
        "shmtx seed-listing sem=true cpus=2 spin=2048",
        311,
        10277002098319314278,
    ),
    (
        "shmtx seed-listing sem=false cpus=1 spin=4",
        164,
        2743964588225259326,
    ),
    (
        "shmtx seed-listing sem=false cpus=1 spin=2048",
        164,
        2743964588225259326,
    ),
    (
        "shmtx seed-listing sem=false cpus=2 spin=4",
        184,
        15765162739560667582,
    ),
    (
        "shmtx seed-listing sem=false cpus=2 spin=2048",
        272,
        3223299975286763761,
    ),
    ("shmtx crash master=true", 4364, 12827128288604414893),
    ("shmtx crash master=false", 6193, 4722364704474397437),
    ("ttas cpus=1", 164, 13250995421716648565),
    ("ttas cpus=2", 222, 2983146517724425698),
    ("spin-yield cpus=1", 164, 15442385019234882741),
    ("spin-yield cpus=2", 188, 469811844787956991),
    ("ticket cpus=1", 164, 8574367760656424904),
    ("ticket cpus=2", 412, 1517172579931315200),
    ("futex cpus=1", 124, 1866060281657898677),
    ("futex cpus=2", 129, 1225220685152689753),
];
