//! Print the first steps of one accept strategy, one line per step.
//!
//! `cargo run -p herdlab-core --example accept_trace -- STRATEGY [steps] [workers]`
use herdlab_core::mechanisms::accept::{AcceptParams, Strategy};
use herdlab_core::sim::Actor;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let strategy = args
        .first()
        .and_then(|s| Strategy::from_name(s))
        .unwrap_or(Strategy::Herd);
    let steps: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
    let workers: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let p = AcceptParams {
        strategy,
        workers,
        connections: 3,
        ..Default::default()
    };
    let mut sim = p.simulate();
    for _ in 0..steps {
        let Some(r) = sim.step() else { break };
        let who = match r.actor {
            Actor::Thread(t) => format!("w{t}"),
            Actor::Network => "net".into(),
        };
        println!(
            "{:>5} {:>12} {:>4} line {:>2} {:?}",
            r.step, r.time_ns, who, r.line, r.note
        );
    }
    println!("{:?}", sim.metrics());
}
