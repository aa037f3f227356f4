//! `ngx_shmtx` written once as step tables: the stepped form (simulator, checker, site) and the
//! straight-line form (native) issue the same operations, take the same transitions and end in the
//! same state, against a recorder that feeds seeded answers; every state's highlighted line exists
//! in its variant's listing and says what the state does; the module docs name the real states.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::machine::steps::Recorder;
use herdlab_core::mechanisms::locks::shmtx::{
    Ln, Lock, Progress, Shmtx, ShmtxConfig, ShmtxVariant, Try, TryOutcome, Unlock,
};
use herdlab_core::op::Op;

fn configs() -> Vec<ShmtxConfig> {
    let mut v = Vec::new();
    for variant in ShmtxVariant::ALL {
        for semaphore in [true, false] {
            for ncpu in [1, 2] {
                for spin in [1, 2, 4, 16] {
                    v.push(ShmtxConfig {
                        spin,
                        ncpu,
                        semaphore,
                        variant,
                    });
                }
            }
        }
    }
    v
}

/// What the line named `n` must say in any variant's listing.
fn says(n: Ln) -> &'static [&'static str] {
    match n {
        Ln::L1 | Ln::Probe | Ln::Recheck => &["lock == 0"],
        Ln::Spin => &["pause()"],
        Ln::Announce => &["wait += 1"],
        Ln::Undo => &["wait -= 1", "break"],
        Ln::Sleep => &["sem_wait"],
        Ln::Yield => &["sched_yield"],
        Ln::Critical => &["critical_section"],
        Ln::Release => &["cas(lock, pid, 0)"],
        Ln::WakeLoop => &["w = wait"],
        Ln::WakeOne => &["cas(wait, w, w - 1)"],
        Ln::Entry => &["for each round", "// master process"],
        Ln::Reap => &["waitpid"],
    }
}

fn assert_line(s: &Shmtx, line: u16, name: Ln, what: &str) {
    let listing = s.listing();
    assert!(
        line >= 1 && (line as usize) <= listing.len(),
        "{what}: line {line} ({name:?}) is not in the {:?} listing",
        s.named_listing()
    );
    let text = listing[line as usize - 1];
    assert!(
        says(name).iter().any(|w| text.contains(w)),
        "{what}: line {line} named {name:?} reads {text:?}"
    );
}

#[test]
fn lock_forms_agree() {
    let mut runs = 0;
    let mut finished = 0;
    for cfg in configs() {
        for seed in 0..60 {
            let mut straight = Shmtx::new(cfg, 1);
            let mut rec = Recorder::new(seed, 64);
            let out = straight.lock_run(&mut rec);
            let mut stepped = Shmtx::new(cfg, 1);
            stepped.start_lock();
            let n = rec.ops().len();
            for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
                let what = format!("{cfg:?} seed {seed} step {i} in {:?}", stepped.lock_state());
                assert_eq!(
                    stepped.lock_op(),
                    op,
                    "{what}: the forms issued different operations"
                );
                let name = stepped.lock_state().line(&stepped);
                assert_line(&stepped, stepped.lock_line(), name, &what);
                let p = stepped.lock_complete(r);
                assert_eq!(
                    p == Progress::Finished,
                    i + 1 == n && out.is_ok(),
                    "{what}: the forms finished at different steps"
                );
            }
            if out.is_err() {
                // stopped by the recorder's budget: both forms are in the same state
                assert_eq!(
                    stepped, straight,
                    "{cfg:?} seed {seed}: different states at the stop"
                );
            } else {
                finished += 1;
                assert_eq!(stepped.is_announced(), straight.is_announced());
            }
            runs += 1;
        }
    }
    // the seeds reach both ends: runs that take the lock and runs that are still spinning or asleep
    assert!(
        finished > runs / 4 && finished < runs,
        "{finished} of {runs} runs finished"
    );
}

#[test]
fn unlock_forms_agree() {
    for cfg in configs() {
        for seed in 0..60 {
            let mut straight = Shmtx::new(cfg, 1);
            let mut rec = Recorder::new(seed, 32);
            let out = straight.unlock_run(&mut rec);
            let mut stepped = Shmtx::new(cfg, 1);
            stepped.start_unlock();
            let n = rec.ops().len();
            for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
                let what = format!(
                    "{cfg:?} seed {seed} step {i} in {:?}",
                    stepped.unlock_state()
                );
                assert_eq!(stepped.unlock_op(), op, "{what}");
                let name = stepped.unlock_line_name();
                assert_line(&stepped, stepped.unlock_line(), name, &what);
                let p = stepped.unlock_complete(r);
                assert_eq!(p == Progress::Finished, i + 1 == n && out.is_ok(), "{what}");
            }
            assert_eq!(stepped, straight, "{cfg:?} seed {seed}");
        }
    }
}

#[test]
fn trylock_takes_a_free_lock_and_never_waits() {
    for cfg in configs() {
        for seed in 0..20 {
            let mut s = Shmtx::new(cfg, 7);
            s.start_trylock();
            let mut rec = Recorder::new(seed, 8);
            let mut ops = Vec::new();
            let outcome = loop {
                let op = s.trylock_op();
                ops.push(op);
                let r = herdlab_core::machine::steps::exec(&mut rec, op).unwrap();
                match s.trylock_complete(r) {
                    TryOutcome::Pending => continue,
                    o => break o,
                }
            };
            assert!(
                ops.len() <= 2,
                "a trylock is one load and at most one take: {ops:?}"
            );
            assert!(ops
                .iter()
                .all(|op| matches!(op, Op::Load(_) | Op::Cas { .. } | Op::Store(..))));
            // a trylock that saw the lock busy never takes
            if matches!(rec.results()[0], herdlab_core::op::OpResult::Value(v) if v != 0) {
                assert_eq!(outcome, TryOutcome::Busy);
            }
            assert_eq!(
                s.trylock_op(),
                Op::Load(herdlab_core::mechanisms::locks::shmtx::LOCK),
                "ready for the next trylock"
            );
        }
    }
}

/// The state names in one of the module docs' tables (the first backticked word of each row).
fn doc_states(section: &str) -> Vec<String> {
    let src = include_str!("../src/mechanisms/locks/shmtx.rs");
    let start = src.find(section).expect("section");
    let rest = &src[start..];
    let end = rest[1..]
        .find("//! # ")
        .map(|e| e + 1)
        .unwrap_or(rest.len());
    let mut names = Vec::new();
    for line in rest[..end].lines().filter(|l| l.starts_with("//! | `")) {
        let cell = line
            .trim_start_matches("//! | ")
            .split(" | ")
            .next()
            .unwrap();
        for part in cell.split(", ") {
            let name = part.trim_matches('`');
            let name = name.split('{').next().unwrap();
            names.push(name.to_string());
        }
    }
    names
}

#[test]
fn the_module_docs_name_every_state_and_no_other() {
    for (section, names) in [
        ("# Lock states", Lock::NAMES),
        ("# Unlock states", Unlock::NAMES),
    ] {
        let mut documented = doc_states(section);
        documented.sort();
        let mut real: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        real.sort();
        assert_eq!(documented, real, "{section}");
    }
    assert_eq!(Try::NAMES, ["Load", "Cas", "Store"]);
}

#[test]
fn every_lock_workers_straight_round_matches_its_stepped_round() {
    use herdlab_core::machine::Machine;
    use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker, Phase};
    for lock in LockKind::ALL {
        for variant in ShmtxVariant::ALL {
            if lock != LockKind::Shmtx && variant != ShmtxVariant::Correct {
                continue;
            }
            for seed in 0..40 {
                let p = LockParams {
                    lock,
                    variant,
                    cpus: 2,
                    spin: 4,
                    rounds: 3,
                    ..LockParams::default()
                };
                let mut straight = LockWorker::new(&p, 0);
                let mut rec = Recorder::new(seed, 80);
                let out = (|| {
                    while straight.phase() != Phase::Done {
                        straight.lock_run(&mut rec)?;
                        straight.step_on(&mut rec)?; // the critical section
                        straight.unlock_run(&mut rec)?;
                    }
                    Ok::<(), ()>(())
                })();
                let mut stepped = LockWorker::new(&p, 0);
                for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
                    assert_eq!(
                        stepped.next_op(),
                        op,
                        "{} {} seed {seed} step {i}",
                        lock.name(),
                        variant.name()
                    );
                    stepped.complete(r);
                }
                assert_eq!(
                    stepped,
                    straight,
                    "{} {} seed {seed}: {out:?}",
                    lock.name(),
                    variant.name()
                );
                if out.is_ok() {
                    assert_eq!(straight.acquired(), 3);
                }
            }
        }
    }
}
