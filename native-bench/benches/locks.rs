//! Lock + unlock on real threads: core's lock machines driven through the native platform, in both
//! forms of their step tables, exactly as `herdlab bench locks` drives them, beside
//! `std::sync::Mutex` and `parking_lot::Mutex`.
//!
//! - `uncontended/<lock>`: one thread, empty critical section: the cost of the fast path, with the
//!   straight-line form (`LockWorker::lock_run`/`unlock_run`, `herdlab bench locks`' default).
//! - `uncontended/<lock> (stepped)`: the same, one `NativeThread::exec` per operation
//!   (`--form stepped`): the atomics plus the step-by-step dispatch.
//! - `contended2/<lock>` and `contended2/<lock> (stepped)`: the same, timed on one thread while a
//!   second thread takes and releases the same lock in a loop.
//!
//! `cargo bench -p herdlab-bench --bench locks -- --warm-up-time 1 --measurement-time 3`

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use herdlab_bench::platform::native::NativeThread;
use herdlab_bench::platform::{NativeWorld, WorldSpec};
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::locks::shmtx::{Shmtx, ShmtxConfig};
use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker, Phase};

fn params(lock: LockKind) -> LockParams {
    LockParams {
        lock,
        threads: 2,
        rounds: u32::MAX,
        cpus: thread::available_parallelism().map_or(1, |n| n.get()) as u32,
        cs_ns: 0,
        ..LockParams::default()
    }
}

fn world() -> NativeWorld {
    NativeWorld::new(WorldSpec {
        words: 3,
        sems: 1,
        threads: 2,
        ..WorldSpec::default()
    })
    .expect("a native world")
}

/// One whole round of `w` with the straight-line form: the lock, the critical section (one step),
/// the unlock, back in `Phase::Lock`.
#[inline(always)]
fn straight_round(th: &mut NativeThread<'_>, w: &mut LockWorker) {
    w.lock_run(th).expect("the lock");
    step(th, w);
    w.unlock_run(th).expect("the unlock");
}

/// One whole lock → critical section → unlock round of `w`, stepped, every operation executed
/// natively: the lock's steps (the machine stays in `Phase::Lock` across them), then the critical
/// section and the unlock's steps until it is back in `Phase::Lock`.
fn one_round(th: &mut NativeThread<'_>, w: &mut LockWorker) {
    while w.phase() == Phase::Lock {
        step(th, w);
    }
    while w.phase() != Phase::Lock && w.phase() != Phase::Done {
        step(th, w);
    }
}

/// A round of one form (a function item, so each form is its own instantiation and inlines).
trait Round: Fn(&mut NativeThread<'_>, &mut LockWorker) + Copy + Send + Sync {}
impl<F: Fn(&mut NativeThread<'_>, &mut LockWorker) + Copy + Send + Sync> Round for F {}

fn uncontended_form(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    lock: LockKind,
    form: &str,
    round: impl Round,
) {
    let wd = world();
    let p = params(lock);
    let mut th = NativeThread::new(&wd, 0).unwrap();
    let mut w = LockWorker::new(&p, 0);
    // an iteration is one whole round: one acquisition, and back to taking the lock
    for n in 1..=3 {
        round(&mut th, &mut w);
        assert_eq!(
            (w.acquired(), w.phase()),
            (n, Phase::Lock),
            "{}{form}",
            lock.name()
        );
    }
    g.bench_function(format!("{}{form}", lock.name()), |b| {
        b.iter(|| round(&mut th, &mut w))
    });
}

fn contended_form(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    lock: LockKind,
    form: &str,
    round: impl Round,
) {
    let p = params(lock);
    g.bench_function(format!("{}{form}", lock.name()), |b| {
        b.iter_custom(|iters| {
            let wd = world();
            let wd = &wd;
            contended(
                iters,
                {
                    let mut th = NativeThread::new(wd, 0).unwrap();
                    let mut w = LockWorker::new(&p, 0);
                    move || round(&mut th, &mut w)
                },
                || {
                    let mut th = NativeThread::new(wd, 1).unwrap();
                    let mut w = LockWorker::new(&p, 1);
                    move || round(&mut th, &mut w)
                },
            )
        })
    });
}

#[inline(always)]
fn step(th: &mut NativeThread<'_>, w: &mut LockWorker) {
    let r = th.exec(w.next_op()).expect("an operation");
    w.complete(r);
}

/// Time `iters` rounds of `mine` while a second thread runs rounds of the closure that `other`
/// makes there (so that it may hold thread-bound state, such as a `NativeThread`).
fn contended<F: FnMut()>(
    iters: u64,
    mine: impl FnMut(),
    other: impl FnOnce() -> F + Send,
) -> Duration {
    let stop = AtomicBool::new(false);
    let started = AtomicBool::new(false);
    let mut mine = mine;
    thread::scope(|s| {
        let (stop, started) = (&stop, &started);
        s.spawn(move || {
            let mut other = other();
            while !stop.load(SeqCst) {
                other();
                started.store(true, SeqCst);
            }
        });
        while !started.load(SeqCst) {
            std::hint::spin_loop();
        }
        let t = Instant::now();
        for _ in 0..iters {
            mine();
        }
        let e = t.elapsed();
        stop.store(true, SeqCst);
        e
    })
}

fn uncontended(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended");
    for lock in LockKind::ALL {
        uncontended_form(&mut g, lock, "", straight_round);
        uncontended_form(&mut g, lock, " (stepped)", one_round);
    }
    // ngx_shmtx's lock and unlock tables alone, straight-line, no critical-section step and no
    // round bookkeeping: what std's row measures (lock, then unlock, nothing between)
    {
        let wd = world();
        let mut th = NativeThread::new(&wd, 0).unwrap();
        let p = params(LockKind::Shmtx);
        let mut s = Shmtx::new(
            ShmtxConfig {
                spin: p.spin,
                ncpu: p.cpus,
                semaphore: p.semaphore,
                variant: p.variant,
            },
            1,
        );
        g.bench_function("shmtx (lock+unlock only)", |b| {
            b.iter(|| {
                s.lock_run(&mut th).expect("the lock");
                s.unlock_run(&mut th).expect("the unlock");
            })
        });
    }
    let m = std::sync::Mutex::new(());
    g.bench_function("std", |b| b.iter(|| drop(black_box(&m).lock())));
    let m = parking_lot::Mutex::new(());
    g.bench_function("parking_lot", |b| b.iter(|| drop(black_box(&m).lock())));
    g.finish();
}

fn contended2(c: &mut Criterion) {
    let mut g = c.benchmark_group("contended2");
    for lock in [LockKind::Shmtx, LockKind::Futex, LockKind::Ttas] {
        contended_form(&mut g, lock, "", straight_round);
        contended_form(&mut g, lock, " (stepped)", one_round);
    }
    g.bench_function("std", |b| {
        b.iter_custom(|iters| {
            let m = std::sync::Mutex::new(());
            let m = &m;
            contended(iters, || drop(black_box(m).lock()), || || drop(m.lock()))
        })
    });
    g.bench_function("parking_lot", |b| {
        b.iter_custom(|iters| {
            let m = parking_lot::Mutex::new(());
            let m = &m;
            contended(iters, || drop(black_box(m).lock()), || || drop(m.lock()))
        })
    });
    g.finish();
}

criterion_group!(benches, uncontended, contended2);
criterion_main!(benches);
