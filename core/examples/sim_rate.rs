//! Steps per second of the headless herd simulation (64 workers, wake-all, Poisson arrivals).
//! `cargo run --release -p herdlab-core --example sim_rate [-- --cpus 8 --connections 100000]`
//! (defaults: 2 CPUs, 1M connections, at most 20M steps). With `--connections`, the run goes to
//! the end and the wall time of the whole run is the figure to read. `--trace off` leaves the
//! trace hash out, as `herdlab sim` and the site's `#/bench` do (`Simulation::set_trace`).
use herdlab_core::mechanisms::herd::{HerdParams, WakeMode};
use herdlab_core::sim::arrivals::ArrivalPattern;

fn main() {
    let mut cpus = 2u32;
    let mut connections = 1_000_000u32;
    let mut trace = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--cpus" => cpus = v.parse().expect("--cpus N"),
            "--connections" => connections = v.parse().expect("--connections N"),
            "--trace" => {
                trace = match v.as_str() {
                    "on" => true,
                    "off" => false,
                    _ => panic!("--trace takes on or off, not {v}"),
                }
            }
            _ => panic!("unknown argument {a} (use --cpus N, --connections N, --trace on|off)"),
        }
    }
    let p = HerdParams {
        workers: 64,
        cpus,
        mode: WakeMode::WakeAll,
        arrival: ArrivalPattern::Poisson,
        rate: 1_000_000,
        connections,
        seed: 1,
        ..HerdParams::default()
    };
    let mut sim = p.simulate();
    sim.set_trace(trace);
    let t = std::time::Instant::now();
    let steps = sim.run(20_000_000);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "cpus {cpus} connections {connections}: {steps} steps in {dt:.3} s: {:.1} M steps/s; wakeups {} wasted {}",
        steps as f64 / dt / 1e6,
        sim.metrics().wakeups,
        sim.metrics().wasted_wakeups
    );
}
