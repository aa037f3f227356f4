//! Print each step of a G/M/P scenario (actor, state): `cargo run -p herdlab-core --example
//! gmp_trace [key=value ...]`.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::Gmp;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<(&str, &str)> = args.iter().filter_map(|a| a.split_once('=')).collect();
    let (p, _) = Gmp::parse_pairs(pairs.iter().copied());
    let mut sim = p.simulate();
    let mut n = 0;
    while let Some(rec) = sim.step() {
        n += 1;
        let at: Vec<String> = sim
            .threads()
            .iter()
            .map(|t| format!("{:?}", t.machine().at))
            .collect();
        println!("{n} {:?} t={} {}", rec.actor, rec.time_ns, at.join(" | "));
        if n > 3000 {
            break;
        }
    }
}
