//! Simulation throughput: simulated steps per wall-clock second, headless (no history).
//!
//! `cargo bench -p herdlab-bench --bench sim_throughput`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use herdlab_core::mechanisms::herd::{HerdParams, WakeMode};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::Status;

fn steps_of(p: &HerdParams) -> u64 {
    let mut sim = p.simulate();
    sim.run(u64::MAX);
    assert_eq!(*sim.status(), Status::Finished, "{p:?}");
    sim.metrics().steps
}

fn bench(c: &mut Criterion, name: &str, p: HerdParams) {
    let steps = steps_of(&p);
    let mut g = c.benchmark_group("sim_throughput");
    g.throughput(Throughput::Elements(steps));
    g.sample_size(10);
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut sim = black_box(p).simulate();
            sim.run(u64::MAX);
            black_box(sim.metrics().steps)
        })
    });
    g.finish();
}

fn herd(c: &mut Criterion) {
    let poisson = HerdParams {
        workers: 64,
        cpus: 2,
        mode: WakeMode::WakeAll,
        arrival: ArrivalPattern::Poisson,
        rate: 1_000_000,
        connections: 100_000,
        seed: 1,
        ..HerdParams::default()
    };
    bench(c, "64 workers, 2 cpus, wake-all, poisson 1M/s", poisson);
    bench(
        c,
        "8 workers, 2 cpus, exclusive, poisson 1M/s",
        HerdParams {
            workers: 8,
            mode: WakeMode::Exclusive,
            ..poisson
        },
    );
    // every worker asleep before each connection: the wake walk and the herd on every arrival
    bench(
        c,
        "64 workers, 2 cpus, wake-all, on-demand",
        HerdParams {
            arrival: ArrivalPattern::OnDemand,
            connections: 2_000,
            ..poisson
        },
    );
}

criterion_group!(benches, herd);
criterion_main!(benches);
