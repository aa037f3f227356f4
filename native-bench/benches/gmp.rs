//! Go's scheduler on real threads: core's G/M/P table (`herdlab`, and Go 1.0's single queue,
//! `herdlab-2012`) beside tokio's multi-thread runtime, on the shapes of `herdlab bench gmp`
//! (tokio's sizes divided by 10, no work: `spawn_many`, `spawn_many_task`, `yield_many` (Go's
//! `goyield` on herdlab), `gosched_many` (Go's `Gosched`), `ping_pong`, `chained_spawn`: the
//! same async code on every runtime, herdlab's tasks Rust
//! futures on core's table), at 1 and 2 workers. Criterion times whole runs; a
//! herdlab run also starts its Ms (OS threads), which `herdlab bench gmp` leaves out of its time,
//! so these figures are larger than the command's for herdlab.
//!
//! `gosched_floor` times, for scale, only the locked instructions that Go's own `Gosched` path
//! issues per yield with GOMAXPROCS=1 (Go 1.21 and later): what no implementation of that
//! algorithm can avoid on this machine, beside which `gosched_many`'s per-yield time can be read.
//!
//! `cargo bench -p herdlab-bench --bench gmp -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use herdlab_bench::mechanisms::gmp::bench::{params, run_herdlab, run_tokio, Runtime, Shape};

/// tokio's sizes divided by this.
const SHRINK: u32 = 10;

fn gmp(c: &mut Criterion) {
    for workers in [1, 2] {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers as usize)
            .build()
            .expect("a tokio runtime");
        for shape in Shape::ALL {
            let mut g = c.benchmark_group(format!("{}/{workers}", shape.name()));
            for r in [Runtime::Herdlab, Runtime::Herdlab2012] {
                let p = params(r, shape, workers, SHRINK).expect("fits the model");
                g.bench_function(r.name(), |b| {
                    b.iter(|| run_herdlab(&p, shape, 0).expect("every task once"))
                });
            }
            let (tasks, yields) = shape.size(SHRINK);
            g.bench_function("tokio", |b| {
                b.iter(|| run_tokio(&rt, shape, tasks, yields, 0).expect("every task once"))
            });
            g.finish();
        }
    }
}

/// The locked instructions of one `Gosched` in Go's runtime with one P, on words of their own
/// lines, and nothing else: `goschedImpl`'s `casgstatus(_Grunning → _Grunnable)` (a CAS),
/// `lock(&sched.lock)` (a CAS) and `unlock` (a swap) around `globrunqput` (plain stores);
/// `wakep`: `nmspinning` CAS 0 → 1, `lock`, `pidlegetSpinning` finds no P and stores
/// `needspinning` (a swap), `nmspinning` −1 (an add), `unlock`; `findRunnable` takes the G from
/// the local ring (`runqget`: a CAS of `runqhead`; the global queue's batch refills the ring once
/// in ~40 yields) and `execute`'s `casgstatus(_Grunnable → _Grunning)`: 10 locked instructions.
fn gosched_floor(c: &mut Criterion) {
    use herdlab_bench::platform::mem::Padded;
    use std::sync::atomic::{AtomicU32, Ordering::*};
    let status = Padded(AtomicU32::new(2));
    let lock = Padded(AtomicU32::new(0));
    let nmspinning = Padded(AtomicU32::new(0));
    let needspinning = Padded(AtomicU32::new(0));
    let head = Padded(AtomicU32::new(0));
    c.bench_function("gosched_floor/1", |b| {
        b.iter(|| {
            let _ = status.0.compare_exchange(2, 1, SeqCst, SeqCst);
            let _ = lock.0.compare_exchange(0, 1, Acquire, Relaxed);
            lock.0.swap(0, Release);
            if nmspinning.0.load(SeqCst) == 0
                && nmspinning.0.compare_exchange(0, 1, SeqCst, SeqCst).is_ok()
            {
                let _ = lock.0.compare_exchange(0, 1, Acquire, Relaxed);
                needspinning.0.swap(1, SeqCst);
                nmspinning.0.fetch_sub(1, SeqCst);
                lock.0.swap(0, Release);
            }
            let h = head.0.load(SeqCst);
            let _ = head
                .0
                .compare_exchange(h, h.wrapping_add(1), SeqCst, SeqCst);
            let _ = status.0.compare_exchange(1, 2, SeqCst, SeqCst);
        })
    });
}

criterion_group!(benches, gosched_floor, gmp);
criterion_main!(benches);
