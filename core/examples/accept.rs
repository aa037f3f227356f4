//! Run accept strategies on one scenario and print one line each.
//!
//! `cargo run --release -p herdlab-core --example accept -- [key=value ...]`, with the keys of
//! `AcceptParams` (`workers=8 connections=1000 rate=200 strategy=exclusive reorder_every=0 ...`);
//! without `strategy=` every strategy runs.
use herdlab_core::mechanisms::accept::{AcceptParams, AcceptReport, Strategy};

fn main() {
    let mut obj = serde_json::Map::new();
    for a in std::env::args().skip(1) {
        let Some((k, v)) = a.split_once('=') else {
            eprintln!("expected key=value, got {a}");
            std::process::exit(2);
        };
        let val = if let Ok(n) = v.parse::<u64>() {
            serde_json::Value::from(n)
        } else if let Ok(b) = v.parse::<bool>() {
            serde_json::Value::from(b)
        } else {
            serde_json::Value::from(v)
        };
        obj.insert(k.to_string(), val);
    }
    let only = obj
        .get("strategy")
        .and_then(|v| v.as_str())
        .map(String::from);
    let base: AcceptParams = match serde_json::from_value(serde_json::Value::Object(obj)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bad parameters: {e}");
            std::process::exit(2);
        }
    };
    for s in Strategy::ALL {
        if only.as_deref().is_some_and(|o| o != s.name()) {
            continue;
        }
        let p = AcceptParams {
            strategy: s,
            ..base
        };
        let t = std::time::Instant::now();
        let mut sim = p.simulate();
        let steps = sim.run(u64::MAX);
        let r = AcceptReport::from_sim(&p, &sim);
        println!(
            "{:13} steps {:9} {:6.0} ms  accepted {:6} wake/conn {:5.2} wasted/conn {:5.2} eagain/conn {:5.2} timer {:4} busiest {:.2} jain {:.3} p50 {:7} p99 {:8} per-worker {:?} {:?}",
            s.name(), steps, t.elapsed().as_secs_f64() * 1e3, r.connections_accepted, r.wakeups_per_connection,
            r.wasted_per_connection, r.eagain_per_connection, r.timer_wakeups, r.busiest_share, r.jain_index,
            r.accept_p50_ns, r.accept_p99_ns, r.per_worker_connections, sim.status()
        );
    }
}
