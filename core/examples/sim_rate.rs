//! Steps per second of the headless herd simulation (64 workers, wake-all, Poisson arrivals).
//! `cargo run --release -p herdlab-core --example sim_rate`
use herdlab_core::herd::{HerdParams, WakeMode};
use herdlab_core::sim::arrivals::ArrivalPattern;

fn main() {
    let p = HerdParams {
        workers: 64,
        cpus: 2,
        mode: WakeMode::WakeAll,
        arrival: ArrivalPattern::Poisson,
        rate: 1_000_000,
        connections: 1_000_000,
        seed: 1,
        ..HerdParams::default()
    };
    let mut sim = p.simulate();
    let t = std::time::Instant::now();
    let steps = sim.run(20_000_000);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{steps} steps in {dt:.3} s: {:.1} M steps/s; wakeups {} wasted {}",
        steps as f64 / dt / 1e6,
        sim.metrics().wakeups,
        sim.metrics().wasted_wakeups
    );
}
