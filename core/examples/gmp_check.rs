//! Model-check the G/M/P scheduler: `cargo run -p herdlab-core --example gmp_check --release
//! [key=value ...]`, starting from the check preset (2 Ps, 3 Ms, 3 Gs, ring 2); with no
//! `variant=`, every variant, the correct one first.

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::invariants::check;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpVariant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<(&str, &str)> = args.iter().filter_map(|a| a.split_once('=')).collect();
    let mut base = GmpParams::check_preset(GmpVariant::Correct);
    for (k, v) in &pairs {
        if let Err(e) = Gmp::set(&mut base, k, v) {
            eprintln!("{}: {}", e.field, e.message);
            std::process::exit(2);
        }
    }
    let variants: Vec<GmpVariant> = if pairs.iter().any(|(k, _)| *k == "variant") {
        vec![base.variant]
    } else {
        GmpVariant::ALL.to_vec()
    };
    let cfg = CheckConfig {
        max_states: std::env::var("GMP_STATES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5_000_000),
        preemption_bound: std::env::var("GMP_PB").ok().and_then(|s| s.parse().ok()),
        ..CheckConfig::default()
    };
    for v in variants {
        let p = GmpParams { variant: v, ..base };
        let t = std::time::Instant::now();
        let r = check(&p, &cfg, &mut |_| true);
        println!(
            "{:<20} states {:>9} transitions {:>10} depth {:>4} complete {} {:.1}s",
            v.name(),
            r.states,
            r.transitions,
            r.max_depth,
            r.complete,
            t.elapsed().as_secs_f64()
        );
        if let Some(c) = r.violation {
            println!(
                "  {}: {} (schedule of {} steps: {:?})",
                c.violation.invariant,
                c.violation.message,
                c.schedule.len(),
                c.schedule
            );
        }
    }
}
