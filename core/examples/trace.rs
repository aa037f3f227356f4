//! Print a herd scenario's steps one per line: `cargo run -p herdlab-core --example trace -- 'workers=3&cpus=1' 40`
use herdlab_core::scenario::Scenario;

fn main() {
    let mut args = std::env::args().skip(1);
    let q = args.next().unwrap_or_default();
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(50);
    let (sc, errs) = Scenario::from_query_lenient(&q);
    for e in errs {
        eprintln!("warning: {e}");
    }
    let mut sim = sc.herd().simulate();
    for _ in 0..n {
        let Some(r) = sim.step() else { break };
        let q: Vec<String> = sim
            .listen_wait_queue()
            .entries()
            .iter()
            .map(|e| format!("{}{}", if e.exclusive { "X" } else { "N" }, e.waiter))
            .collect();
        println!(
            "{:>4} {:>9} {:?} line {:>2} {:?} wq=[{}] aq={} wake={} waste={}",
            r.step,
            r.time_ns,
            r.actor,
            r.line,
            r.note,
            q.join(" "),
            sim.accept_queue_len(),
            sim.metrics().wakeups,
            sim.metrics().wasted_wakeups
        );
    }
    let m = sim.metrics();
    println!(
        "status {:?} accepted {} lost_wakeups {} first violation {:?}",
        sim.status(),
        m.connections_accepted,
        m.lost_wakeups,
        sim.first_violation()
    );
}
