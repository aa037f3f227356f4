//! Run G/M/P scenarios and print their counts: `cargo run -p herdlab-core --example gmp --release
//! [key=value ...]` (the keys of `herdlab_core::mechanisms::gmp::Gmp`); with no `variant=`, every variant.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpVariant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<(&str, &str)> = args.iter().filter_map(|a| a.split_once('=')).collect();
    let (p, errs) = Gmp::parse_pairs(pairs.iter().copied());
    for e in &errs {
        eprintln!("{}: {}", e.field, e.message);
    }
    let variants: Vec<GmpVariant> = if pairs.iter().any(|(k, _)| *k == "variant") {
        vec![p.variant]
    } else {
        GmpVariant::ALL.to_vec()
    };
    println!("{}", Gmp::to_query(&p));
    println!(
        "{:<20} {:>8} {:>7} {:>6} {:>6} {:>8} {:>6} {:>6} {:>11} {:>5}  violation",
        "variant",
        "steps",
        "steals",
        "parks",
        "spins",
        "gq_gets",
        "cs",
        "wakes",
        "sim_time_ns",
        "fin"
    );
    for v in variants {
        let q = GmpParams { variant: v, ..p };
        let (_, r) = q.run(50_000_000);
        println!(
            "{:<20} {:>8} {:>7} {:>6} {:>6} {:>8} {:>6} {:>6} {:>11} {:>5}  {}",
            v.name(),
            r.steps,
            r.steals,
            r.parks,
            r.spins,
            r.global_queue_gets,
            r.context_switches,
            r.futex_wakes,
            r.sim_time_ns,
            r.finished,
            r.violation.map_or("-".to_string(), |v| format!(
                "{}: {}",
                v.invariant, v.message
            ))
        );
    }
}
