//! Run a G/M/P scenario and print its whole report as JSON: `cargo run -p herdlab-core --example
//! gmp_netpoll [key=value ...]` (the keys of `herdlab_core::mechanisms::gmp::Gmp`).

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::Gmp;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<(&str, &str)> = args.iter().filter_map(|a| a.split_once('=')).collect();
    let (p, errs) = Gmp::parse_pairs(pairs.iter().copied());
    for e in &errs {
        eprintln!("{}: {}", e.field, e.message);
    }
    let (_, r) = p.run(50_000_000);
    println!("{}", Gmp::to_query(&p));
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
}
