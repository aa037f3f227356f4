//! Go's scheduler on real threads: core's G/M/P table (`herdlab`, and Go 1.0's single queue,
//! `herdlab-2012`) beside tokio's multi-thread runtime, on the shapes of `herdlab bench gmp`
//! (tokio's sizes divided by 10, no work: `spawn_many`, `spawn_many_task`, `yield_many`,
//! `ping_pong`, `chained_spawn`), at 1 and 2 workers. Criterion times whole runs; a
//! herdlab run also starts its Ms (OS threads), which `herdlab bench gmp` leaves out of its time,
//! so these figures are larger than the command's for herdlab.
//!
//! `cargo bench -p herdlab-bench --bench gmp -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use herdlab_bench::mechanisms::gmp::bench::{params, run_tokio, Runtime, Shape};
use herdlab_bench::mechanisms::gmp::native;

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
                    b.iter(|| native::run(&p, 0).expect("every task once"))
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

criterion_group!(benches, gmp);
criterion_main!(benches);
