//! `herdlab sim pool`, `check pool` and `bench pool`: the simulator's report is core's, the checker
//! proves nginx's pool and finds a broken variant with its steps, bad input exits 2, and every
//! bench row completes each posted task exactly once. Bounded: small scenarios, `--quick` rows.

use std::process::{Command, Output};

use herdlab_core::mechanisms::pool::{PoolParams, Wake};

fn herdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(args)
        .output()
        .expect("run herdlab")
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn sim_pool_json_is_cores_report() {
    let out = herdlab(&[
        "sim",
        "pool",
        "--threads",
        "4",
        "--tasks",
        "8",
        "--blocking-pct",
        "100",
        "--wake",
        "broadcast",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let v = json_of(&out);
    // the contract's keys come first, in this order
    let keys = [
        "tasks_posted",
        "tasks_done",
        "overflows",
        "wakeups",
        "wasted_wakeups",
        "notify_wakes",
        "sim_time_ns",
    ];
    let mut at = 0;
    for k in keys {
        let i = text
            .find(&format!("\"{k}\":"))
            .unwrap_or_else(|| panic!("{k}"));
        assert!(i >= at, "{k} out of order in {text}");
        at = i;
    }
    // every request blocks: no cache hit, so no cache-hit latency
    for k in ["cache_p50_ns", "cache_p99_ns", "cache_mean_ns"] {
        assert_eq!(v[k], 0, "{k} in {v}");
    }
    let p = PoolParams {
        threads: 4,
        requests: 8,
        blocking_pct: 100,
        wake: Wake::Broadcast,
        ..PoolParams::default()
    };
    let (_, r) = p.run(50_000_000);
    assert_eq!(v["tasks_posted"], r.tasks_posted);
    assert_eq!(v["tasks_done"], r.tasks_done);
    assert_eq!(v["overflows"], r.overflows);
    assert_eq!(v["wakeups"], r.wakeups);
    assert_eq!(v["wasted_wakeups"], r.wasted_wakeups);
    assert_eq!(v["notify_wakes"], r.notify_wakes);
    assert_eq!(v["sim_time_ns"], r.sim_time_ns);
    // 8 tasks plus the 4 exit tasks, every one done; a broadcast wastes wakeups
    assert_eq!((r.tasks_posted, r.tasks_done), (12, 8));
    assert!(r.wasted_wakeups > 0, "{v}");
    assert!(v["violation"].is_null());
    assert_eq!(v["status"], "finished");
}

#[test]
fn sim_pool_refuses_bad_values() {
    let out = herdlab(&["sim", "pool", "--wake", "shout"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("signal") && err.contains("broadcast"), "{err}");
    let out = herdlab(&["sim", "pool", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_pool_proves_correct_and_finds_no_signal() {
    let out = herdlab(&["check", "pool", "--tasks", "2", "--json"]);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["mechanism"], "pool");
    assert_eq!(v["variant"], "correct");
    assert_eq!(v["complete"], true);
    assert!(v["violation"].is_null());
    assert!(v["states"].as_u64().unwrap() > 1000, "{v}");

    let out = herdlab(&["check", "pool", "--variant", "no-signal"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("VIOLATION of lost-wakeup"), "{text}");
    assert!(text.contains("step 1: event loop"), "{text}");
    assert!(
        text.contains("#/lesson/nginx-thread-pool?mechanism=pool&"),
        "{text}"
    );
    assert!(!text.contains("warning: the simulator's replay"), "{text}");
}

#[test]
fn check_pool_lists_variants_and_refuses_bad_flags() {
    let out = herdlab(&["check", "pool", "--list-variants"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("correct "), "{text}");
    assert_eq!(text.lines().count(), 9);
    for args in [
        &["check", "pool", "--variant", "bogus"][..],
        &["check", "pool", "--bogus"][..],
        &["check", "pool", "--threads", "65"][..],
    ] {
        assert_eq!(herdlab(args).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn bench_pool_quick_rows_lose_no_task() {
    let out = herdlab(&[
        "bench",
        "pool",
        "--quick",
        "--threads",
        "2",
        "--tasks",
        "300",
        "--task-ns",
        "0,1000",
        "--compare-sim",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let rows = v.as_array().expect("rows");
    // 2 task times x 4 pools, 2 idle rows, 2 event-loop rows
    assert_eq!(rows.len(), 12, "{v}");
    for r in rows {
        for k in [
            "pool",
            "threads",
            "task_ns",
            "tasks_per_sec",
            "wait_p50_ns",
            "wait_p99_ns",
            "wakeups_per_task",
            "wasted_per_task",
        ] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
        assert_eq!(r["tasks_done"], r["tasks_posted"], "{r}");
        assert_eq!(r["tasks_run"], r["tasks_posted"], "{r}");
    }
    let pools: Vec<&str> = rows.iter().map(|r| r["pool"].as_str().unwrap()).collect();
    for p in ["nginx", "threadpool", "rayon", "crossbeam"] {
        assert!(pools.contains(&p), "{pools:?}");
    }
    for r in rows.iter().filter(|r| r["scenario"] == "throughput") {
        // every request is a task; nginx drops a post whose task object is still in flight
        // ("task already active"), the rivals none
        assert_eq!(r["requests"], 300, "{r}");
        let posted = r["tasks_posted"].as_u64().unwrap();
        let refused = r["already_active"].as_u64().unwrap();
        assert_eq!(posted + refused, 300, "{r}");
        assert!(refused <= 15, "{r}");
        if r["pool"] != "nginx" {
            assert_eq!(refused, 0, "{r}");
        }
    }
    let idle = |wake: &str| {
        rows.iter()
            .find(|r| r["scenario"] == "idle" && r["wake"] == wake)
            .expect("an idle row")
    };
    let (s, b) = (idle("signal"), idle("broadcast"));
    assert_eq!(s["tasks_done"], 200);
    // all 4 threads idle at each post: a signal wakes one, a broadcast all four
    assert!(s["wasted_per_task"].as_f64().unwrap() < 0.5, "{s}");
    assert!(b["wasted_per_task"].as_f64().unwrap() > 2.0, "{b}");
    // the simulator agrees on the idle pool
    assert!(s["sim_wasted_per_task"].as_f64().unwrap() < 0.5, "{s}");
    assert!(b["sim_wasted_per_task"].as_f64().unwrap() > 2.0, "{b}");
    let ev: Vec<_> = rows
        .iter()
        .filter(|r| r["scenario"] == "event-loop")
        .collect();
    assert_eq!(ev.len(), 2);
    assert!(ev.iter().all(|r| r["cache_p99_ns"].as_u64().is_some()));
}

#[test]
fn bench_pool_refuses_bad_input() {
    for args in [
        &["bench", "pool", "--pools", "nginx,tokio"][..],
        &["bench", "pool", "--threads", "0"][..],
        &["bench", "pool", "--task-ns", "x"][..],
    ] {
        let out = herdlab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = herdlab(&["bench", "pool", "--pools", "tokio"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nginx, threadpool, rayon, crossbeam"), "{err}");
}
