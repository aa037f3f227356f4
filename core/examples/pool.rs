//! Run nginx's thread pool in the simulator and print its report as JSON, side by side for a few
//! settings: `cargo run --release -p herdlab-core --example pool [key=value ...]`.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::{Pool, PoolParams};

fn main() {
    let mut p = PoolParams::default();
    for arg in std::env::args().skip(1) {
        let (k, v) = arg.split_once('=').expect("key=value");
        if let Err(e) = Pool::set(&mut p, k, v) {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
    let (_, r) = p.run(50_000_000);
    println!("{}", Pool::to_query(&p));
    println!("{}", serde_json::to_string_pretty(&r).expect("json"));
}
