//! Run one MySQL scenario and print its report as JSON: `cargo run --release -p herdlab-core
//! --example mysql -- mode=pool connections=256 groups=4 cpus=4 lock_pct=20`.
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::Mysql;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs = args.iter().filter_map(|a| a.split_once('='));
    let (p, errs) = Mysql::parse_pairs(pairs);
    for e in &errs {
        eprintln!("{}: {}", e.field, e.message);
    }
    if !errs.is_empty() {
        std::process::exit(2);
    }
    let (_, r) = p.run(u64::MAX);
    println!(
        "{}",
        serde_json::to_string_pretty(&r).expect("a report serialises")
    );
}
