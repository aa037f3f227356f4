//! Model-check one G/M/P scenario with a preemption bound and print the counterexample's last
//! states: `cargo run -p herdlab-core --example gmp_np_check [key=value ...]` (from the
//! workload's action preset; `bound=N`).

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::{check, replay};
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpVariant, Workload};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<(&str, &str)> = args.iter().filter_map(|a| a.split_once('=')).collect();
    let w = pairs
        .iter()
        .find(|(k, _)| *k == "workload")
        .and_then(|(_, v)| Workload::from_name(v))
        .unwrap_or(Workload::Netpoll);
    let mut p = GmpParams::action_preset(w, GmpVariant::Correct);
    let mut bound = None;
    for (k, v) in &pairs {
        if *k == "bound" {
            bound = v.parse().ok();
        } else if let Err(e) = Gmp::set(&mut p, k, v) {
            eprintln!("{}: {}", e.field, e.message);
        }
    }
    let cfg = CheckConfig {
        preemption_bound: bound,
        ..CheckConfig::default()
    };
    let r = check(&p, &cfg, &mut |_| true);
    println!(
        "{} states {} transitions complete {}",
        r.states, r.transitions, r.complete
    );
    if let Some(c) = r.violation {
        println!(
            "{}: {} ({} steps)",
            c.violation.invariant,
            c.violation.message,
            c.schedule.len()
        );
        let n = c.schedule.len();
        for k in n.saturating_sub(12)..=n {
            let sim = replay(&p, &c.schedule[..k]);
            let at: Vec<String> = sim
                .threads()
                .iter()
                .map(|t| format!("{:?}", t.machine().at))
                .collect();
            println!("{k}: {}", at.join(" | "));
        }
    }
}
