//! Lock + unlock on real threads: core's lock machines driven through the native platform, in both
//! forms of their step tables, beside `std::sync::Mutex` and `parking_lot::Mutex`, every row's
//! rounds run by the one driver loop of `herdlab bench locks` (`native::Harness::rounds`, the same
//! stop check, sampler, trace points and protected counter around every lock, monomorphised over
//! the lock), so the rows of one group differ only in the lock.
//!
//! - `uncontended/<lock>`: one thread, whole rounds (lock, empty critical section, unlock), core's
//!   locks in the straight-line form (`herdlab bench locks`' default).
//! - `uncontended/<lock> (stepped)`: the same rounds, the machine stepped one operation at a time
//!   through `NativeThread::exec` (`--form stepped`): the atomics plus the step-by-step dispatch.
//! - `uncontended/<lock> (lock+unlock only)`: `shmtx`'s two tables, `std`'s and `parking_lot`'s
//!   lock and unlock, alone, with no round around them.
//! - `contended2/<lock>`, `contended2/<lock> (stepped)`: whole rounds timed on one thread while a
//!   second thread runs rounds of the same lock.
//!
//! `cargo bench -p herdlab-bench --bench locks -- --warm-up-time 1 --measurement-time 3`

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use herdlab_bench::mechanisms::locks::native::{
    CoreStepped, CoreStraight, Harness, Library, RoundLock, LOCK_WORDS,
};
use herdlab_bench::platform::native::{Hot, NativeThread};
use herdlab_bench::platform::{NativeWorld, WorldSpec};
use herdlab_core::mechanisms::locks::futex_mutex::FutexMutex;
use herdlab_core::mechanisms::locks::shmtx::{Shmtx, ShmtxConfig};
use herdlab_core::mechanisms::locks::ticket::Ticket;
use herdlab_core::mechanisms::locks::ttas::Ttas;
use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker};

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

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

fn shmtx_config(p: &LockParams) -> ShmtxConfig {
    ShmtxConfig {
        spin: p.spin,
        ncpu: p.cpus,
        semaphore: p.semaphore,
        variant: p.variant,
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

/// Time `iters` whole rounds of `lock` through the driver loop, after checking that a few rounds
/// each count one acquisition on the protected counter.
fn timed<L: RoundLock>(h: &mut Harness, lock: &mut L, iters: u64) -> Duration {
    let t = Instant::now();
    let n = h.rounds(lock, iters).expect("the rounds");
    let e = t.elapsed();
    assert_eq!(n, iters);
    e
}

fn uncontended_row<L: RoundLock>(g: &mut Group<'_>, name: &str, mut lock: L) {
    let mut h = Harness::default();
    assert_eq!(h.rounds(&mut lock, 3).expect("three rounds"), 3, "{name}");
    assert_eq!(h.counter(), 3, "{name}");
    g.bench_function(name, |b| {
        b.iter_custom(|iters| timed(&mut h, &mut lock, iters))
    });
}

/// A core lock's straight-line tables for threads 0 and 1 (pids 1 and 2), as `LockWorker::new`
/// makes them, bound to `$t` and `$u` in `$body`.
macro_rules! with_tables {
    ($kind:expr, |$t:ident, $u:ident| $body:expr) => {{
        let p = params($kind);
        match $kind {
            LockKind::Shmtx => {
                let ($t, $u) = (
                    Shmtx::new(shmtx_config(&p), 1),
                    Shmtx::new(shmtx_config(&p), 2),
                );
                $body
            }
            LockKind::Ttas => {
                let ($t, $u) = (Ttas::spin(), Ttas::spin());
                $body
            }
            LockKind::SpinYield => {
                let ($t, $u) = (
                    Ttas::spin_then_yield(p.yield_after),
                    Ttas::spin_then_yield(p.yield_after),
                );
                $body
            }
            LockKind::Ticket => {
                let ($t, $u) = (Ticket::default(), Ticket::default());
                $body
            }
            LockKind::Futex => {
                let ($t, $u) = (FutexMutex::default(), FutexMutex::default());
                $body
            }
        }
    }};
}

fn uncontended(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended");
    for kind in LockKind::ALL {
        let wd = world();
        with_tables!(kind, |t, _u| uncontended_row(
            &mut g,
            kind.name(),
            CoreStraight::new(t, NativeThread::new(&wd, 0).unwrap()).expect("the lock's words")
        ));
        let wd = world();
        uncontended_row(
            &mut g,
            &format!("{} (stepped)", kind.name()),
            CoreStepped::new(
                LockWorker::new(&params(kind), 0),
                NativeThread::new(&wd, 0).unwrap(),
            ),
        );
    }
    let m = std::sync::Mutex::new(());
    uncontended_row(&mut g, "std", Library::new(&m, 0, 1));
    let m = parking_lot::Mutex::new(());
    uncontended_row(&mut g, "parking_lot", Library::new(&m, 0, 1));

    // the locks alone: shmtx's two tables straight, std's and parking_lot's lock and unlock
    {
        let wd = world();
        let mut th = NativeThread::new(&wd, 0).unwrap();
        let words = th.words::<LOCK_WORDS>().expect("the lock's words");
        let mut s = Shmtx::new(shmtx_config(&params(LockKind::Shmtx)), 1);
        g.bench_function("shmtx (lock+unlock only)", |b| {
            b.iter(|| {
                s.lock_run(&mut Hot::new(&mut th, words)).expect("the lock");
                s.unlock_run(&mut Hot::new(&mut th, words))
                    .expect("the unlock");
            })
        });
    }
    let m = std::sync::Mutex::new(());
    g.bench_function("std (lock+unlock only)", |b| {
        b.iter(|| drop(black_box(&m).lock()))
    });
    let m = parking_lot::Mutex::new(());
    g.bench_function("parking_lot (lock+unlock only)", |b| {
        b.iter(|| drop(black_box(&m).lock()))
    });
    g.finish();
}

/// Time `iters` rounds of `mine` on this thread while a second thread runs rounds of the lock
/// that `other` makes there (so that it may hold thread-bound state, such as a `NativeThread`).
fn contended<L: RoundLock, O: RoundLock>(
    iters: u64,
    mut mine: L,
    other: impl FnOnce() -> O + Send,
) -> Duration {
    let stop = AtomicBool::new(false);
    let started = AtomicBool::new(false);
    thread::scope(|s| {
        let (stop, started) = (&stop, &started);
        s.spawn(move || {
            let mut other = other();
            let mut h = Harness::default();
            while !stop.load(SeqCst) {
                h.rounds(&mut other, 16).expect("the other thread's rounds");
                started.store(true, SeqCst);
            }
        });
        while !started.load(SeqCst) {
            std::hint::spin_loop();
        }
        let mut h = Harness::default();
        let e = timed(&mut h, &mut mine, iters);
        stop.store(true, SeqCst);
        e
    })
}

fn contended2(c: &mut Criterion) {
    let mut g = c.benchmark_group("contended2");
    for kind in [LockKind::Shmtx, LockKind::Futex, LockKind::Ttas] {
        g.bench_function(kind.name(), |b| {
            b.iter_custom(|iters| {
                let wd = world();
                let wd = &wd;
                with_tables!(kind, |t, u| contended(
                    iters,
                    CoreStraight::new(t, NativeThread::new(wd, 0).unwrap()).expect("the words"),
                    move || CoreStraight::new(u, NativeThread::new(wd, 1).unwrap())
                        .expect("the words")
                ))
            })
        });
        g.bench_function(format!("{} (stepped)", kind.name()), |b| {
            b.iter_custom(|iters| {
                let wd = world();
                let wd = &wd;
                let p = params(kind);
                contended(
                    iters,
                    CoreStepped::new(LockWorker::new(&p, 0), NativeThread::new(wd, 0).unwrap()),
                    || CoreStepped::new(LockWorker::new(&p, 1), NativeThread::new(wd, 1).unwrap()),
                )
            })
        });
    }
    g.bench_function("std", |b| {
        b.iter_custom(|iters| {
            let m = std::sync::Mutex::new(());
            let m = &m;
            contended(iters, Library::new(m, 0, 2), || Library::new(m, 1, 2))
        })
    });
    g.bench_function("parking_lot", |b| {
        b.iter_custom(|iters| {
            let m = parking_lot::Mutex::new(());
            let m = &m;
            contended(iters, Library::new(m, 0, 2), || Library::new(m, 1, 2))
        })
    });
    g.finish();
}

criterion_group!(benches, uncontended, contended2);
criterion_main!(benches);
