//! Run every accept strategy on the same scenario and print one line each.
//!
//! `cargo run --release -p herdlab-core --example accept -- [workers] [connections] [rate]`
use herdlab_core::accept::{AcceptParams, Strategy};

fn main() {
    let a: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let base = AcceptParams {
        workers: a.first().copied().unwrap_or(8) as u32,
        connections: a.get(1).copied().unwrap_or(1000) as u32,
        rate: a.get(2).copied().unwrap_or(200) as u32,
        ..Default::default()
    };
    for s in Strategy::ALL {
        let p = AcceptParams {
            strategy: s,
            ..base
        };
        let t = std::time::Instant::now();
        let mut sim = p.simulate();
        let steps = sim.run(u64::MAX);
        let r = herdlab_core::accept::AcceptReport::from_sim(&p, &sim);
        println!(
            "{:13} steps {:9} {:6.0} ms  accepted {:6} wake/conn {:5.2} wasted/conn {:5.2} eagain/conn {:5.2} timer {:4} busiest {:.2} jain {:.3} p50 {:7} p99 {:8} status {:?}",
            s.name(), steps, t.elapsed().as_secs_f64() * 1e3, r.connections_accepted, r.wakeups_per_connection,
            r.wasted_per_connection, r.eagain_per_connection, r.timer_wakeups, r.busiest_share, r.jain_index,
            r.accept_p50_ns, r.accept_p99_ns, sim.status()
        );
    }
}
