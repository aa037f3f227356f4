//! `herdlab sim accept` and `herdlab bench accept`: the JSON, the exact counts of the simulator in
//! an idle system, the refusals, and a small native run of every strategy (Linux).

use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The tests of this file run one at a time: the native run measures wakeups, and the other tests'
/// processes would compete with it for the CPUs.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn herdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(args)
        .output()
        .expect("run herdlab")
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = herdlab(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn refused(args: &[&str], wanted: &str) {
    let out = herdlab(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains(wanted), "{args:?}: {e}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

const REPORT_KEYS: [&str; 16] = [
    "platform",
    "strategy",
    "wakeups",
    "wasted_wakeups",
    "timer_wakeups",
    "eagain",
    "connections_accepted",
    "requests_served",
    "per_worker_connections",
    "jain_index",
    "busiest_share",
    "wakeups_per_connection",
    "wasted_per_connection",
    "accept_p50_ns",
    "accept_p99_ns",
    "connections_per_sec",
];

fn has_keys(v: &serde_json::Value) {
    for k in REPORT_KEYS {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
}

/// The epoll herd in an idle system (steady arrivals, 5 ms apart, every worker asleep when a
/// connection arrives): the listener sits in all 8 epolls without EPOLLEXCLUSIVE, so the socket's
/// wake walk runs `ep_poll_callback` for every one and each wakes its sleeper: 8 wakeups, one
/// `accept4` gets the connection, the 7 others find nothing (in the kernel's re-poll, or an EAGAIN
/// in user space): exactly 7 wasted per connection. One more wakeup per connection is the client's
/// EOF (the first request is written before the server accepts, so it is read without a sleep).
#[test]
fn sim_herd_wastes_exactly_seven_of_eight() {
    let _g = serial();
    let v = json_of(&[
        "sim",
        "accept",
        "--strategy",
        "herd",
        "--workers",
        "8",
        "--cpus",
        "2",
        "--arrival",
        "steady",
        "--rate",
        "200",
        "--connections",
        "100",
        "--json",
    ]);
    has_keys(&v);
    assert_eq!(v["platform"], "sim");
    assert_eq!(v["status"], "finished");
    assert_eq!(v["strategy"], "herd");
    assert_eq!(v["connections_accepted"], 100);
    assert_eq!(v["requests_served"], 100);
    assert_eq!(v["wasted_wakeups"], 700, "{v}");
    assert_eq!(v["wasted_per_connection"], 7.0);
    assert_eq!(v["wakeups"], 900, "{v}");
    assert_eq!(v["per_worker_connections"].as_array().unwrap().len(), 8);
    // EPOLLEXCLUSIVE: the walk stops at the first epoll with a sleeper: nothing wasted
    let v = json_of(&[
        "sim",
        "accept",
        "--strategy",
        "exclusive",
        "--arrival",
        "steady",
        "--connections",
        "100",
        "--json",
    ]);
    assert_eq!(v["wasted_wakeups"], 0, "{v}");
    assert_eq!(v["wakeups"], 200, "{v}");
    assert_eq!(v["connections_accepted"], 100);
}

#[test]
fn sim_without_a_strategy_runs_all_six() {
    let _g = serial();
    let v = json_of(&["sim", "accept", "--connections", "30", "--json"]);
    let rows = v.as_array().expect("an array");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "herd",
            "shared-epoll",
            "exclusive",
            "accept-mutex",
            "reuseport",
            "blocking"
        ]
    );
    for r in rows {
        has_keys(r);
        assert_eq!(r["connections_accepted"], 30, "{r}");
    }
    let out = herdlab(&["sim", "accept", "--connections", "10"]);
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(t.starts_with("strategy"), "{t}");
    assert_eq!(t.lines().count(), 7, "{t}");
}

#[test]
fn bad_accept_flags_exit_2_naming_the_allowed_values() {
    let _g = serial();
    refused(
        &["sim", "accept", "--strategy", "nginx"],
        "--strategy: 'nginx' is not allowed; allowed: herd, shared-epoll, exclusive, accept-mutex, reuseport, blocking",
    );
    refused(
        &["sim", "accept", "--workers", "0"],
        "--workers: 0 is out of range; allowed 1-64",
    );
    refused(&["sim", "accept", "--cpus", "32"], "allowed 1-16");
    refused(
        &["sim", "accept", "--connections", "2000000"],
        "allowed 1-1000000",
    );
    refused(&["sim", "accept", "--rate"], "--rate: missing value");
    refused(
        &["sim", "accept", "--variant", "no-disable"],
        "needs --strategy accept-mutex",
    );
    refused(&["sim", "accept", "--bogus"], "unknown flag '--bogus'");
    refused(
        &["bench", "accept", "--strategy", "x"],
        "'x' is not allowed",
    );
    refused(
        &["bench", "accept", "--arrival", "on-demand"],
        "allowed: steady, poisson",
    );
    refused(
        &["bench", "accept", "--connections", "999999"],
        "allowed 1-200000",
    );
    refused(&["bench", "accept", "--cpus", "2"], "sim accept does");
    refused(
        &["sim", "acept"],
        "'acept' is not a mechanism; allowed: herd, locks, accept, pool, gmp, mysql",
    );
}

#[test]
fn help_names_the_accept_commands() {
    let _g = serial();
    let out = herdlab(&["--help"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("herdlab sim accept"), "{s}");
    assert!(s.contains("herdlab bench accept"), "{s}");
    assert!(s.contains("--compare-sim"), "{s}");
}

/// Every strategy on real threads and real sockets, small: 4 workers, 60 connections at 300/s, two
/// requests each. Conservation is exact; the herd's waste is compared, not timed.
#[cfg(target_os = "linux")]
#[test]
fn native_strategies_serve_every_connection_once_and_only_the_herd_wastes() {
    let _g = serial();
    use herdlab_bench::mechanisms::accept::cmd::{run_bench, AcceptBenchConfig};
    use herdlab_core::sim::arrivals::ArrivalPattern;

    let mut cfg = AcceptBenchConfig::new(true);
    cfg.params.workers = 4;
    cfg.params.connections = 60;
    cfg.params.rate = 300;
    cfg.params.requests = 2;
    cfg.params.arrival = ArrivalPattern::Steady;
    cfg.compare_sim = true;
    let t0 = std::time::Instant::now();
    let rows = run_bench(&cfg, false).expect("native run");
    assert!(t0.elapsed().as_secs() < 30, "took {:?}", t0.elapsed());
    assert_eq!(rows.len(), 6);
    let mut wasted = std::collections::HashMap::new();
    for r in &rows {
        let a = &r.report;
        assert_eq!(a.platform, "native");
        assert_eq!(r.load.connections_made, 60, "{}: {:?}", a.strategy, r.load);
        assert_eq!(r.load.connect_errors + r.load.io_errors, 0, "{:?}", r.load);
        assert!(r.load.drained, "{}: {:?}", a.strategy, r.load);
        assert_eq!(a.connections_accepted, 60, "{}: accepted", a.strategy);
        assert_eq!(a.per_worker_connections.iter().sum::<u64>(), 60);
        assert_eq!(a.per_worker_connections.len(), 4);
        assert_eq!(a.requests_served, 120, "{}: requests", a.strategy);
        assert_eq!(r.load.responses, 120, "{}: responses", a.strategy);
        assert!(a.wakeups >= a.wasted_wakeups + a.timer_wakeups);
        // one latency per connection, and the figures of from_parts
        assert!(a.accept_p99_ns >= a.accept_p50_ns);
        assert!((0.25..=1.0).contains(&a.jain_index), "{}", a.jain_index);
        let sim = r.sim.as_ref().expect("--compare-sim");
        assert_eq!(sim.platform, "sim");
        assert_eq!(sim.connections_accepted, 60);
        wasted.insert(a.strategy.clone(), a.wasted_per_connection);
    }
    eprintln!("wasted per connection: {wasted:?}");
    let herd = wasted["herd"];
    for s in ["exclusive", "reuseport", "accept-mutex"] {
        assert!(
            wasted[s] <= 0.5 && herd >= 1.0 && herd > 3.0 * wasted[s],
            "herd wastes {herd:.2} per connection, {s} {:.2}: {wasted:?}",
            wasted[s]
        );
    }
    // the accept mutex gives the holder nearly everything in an idle system
    let m = rows
        .iter()
        .find(|r| r.report.strategy == "accept-mutex")
        .unwrap();
    assert!(
        m.report.busiest_share >= 0.5,
        "{:?}",
        m.report.per_worker_connections
    );
    assert!(m.report.mutex_acquisitions >= 1);
    assert!(m.report.mutex_hold_ns > 0);
}

#[cfg(target_os = "linux")]
#[test]
fn bench_json_is_one_object_for_one_strategy() {
    let _g = serial();
    let v = json_of(&[
        "bench",
        "accept",
        "--strategy",
        "blocking",
        "--workers",
        "2",
        "--connections",
        "10",
        "--rate",
        "2000",
        "--json",
    ]);
    has_keys(&v);
    assert_eq!(v["platform"], "native");
    assert_eq!(v["connections_accepted"], 10);
    assert!(v.get("sim").is_none());
    assert_eq!(v["load"]["connections_made"], 10);
}
