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
    // 2 task times x 4 pools, 2 idle rows, 7 event-loop rows (the 0% baseline, then 5, 10 and
    // 20% blocking with and without the pool)
    assert_eq!(rows.len(), 17, "{v}");
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
    assert_eq!(ev.len(), 7);
    assert!(ev.iter().all(|r| r["cache_p99_ns"].as_u64().is_some()));
    let shares: Vec<(u64, bool)> = ev
        .iter()
        .map(|r| {
            (
                r["blocking_pct"].as_u64().unwrap(),
                r["offload"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shares,
        [
            (0, true),
            (5, true),
            (5, false),
            (10, true),
            (10, false),
            (20, true),
            (20, false)
        ]
    );
    for r in &ev {
        assert_eq!(r["task"], "sleep", "{r}");
        // without the pool the loop reads itself: nothing is posted
        if r["offload"] == false {
            assert_eq!(r["tasks_posted"], 0, "{r}");
        }
    }
    for r in rows.iter().filter(|r| r["scenario"] != "event-loop") {
        assert_eq!(r["task"], "spin", "{r}");
        assert!(r["blocking_pct"].is_null(), "{r}");
    }
}

/// A fresh directory to serve as `TMPDIR` for one test.
fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("herdlab-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn entries(d: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect()
}

#[test]
fn bench_pool_file_tasks_read_a_scratch_file_and_leave_nothing_behind() {
    let tmp = tmpdir("file");
    let out = Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args([
            "bench",
            "pool",
            "--quick",
            "--threads",
            "2",
            "--tasks",
            "200",
            "--task",
            "file",
            "--file-mib",
            "2",
            "--json",
        ])
        .env("TMPDIR", &tmp)
        .output()
        .expect("run herdlab");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let rows = v.as_array().expect("rows");
    // one file row per pool (the task time is the read's own), 2 idle rows, 7 event-loop rows
    assert_eq!(rows.len(), 4 + 2 + 7, "{v}");
    for r in rows {
        assert_eq!(r["tasks_done"], r["tasks_posted"], "{r}");
        assert_eq!(r["tasks_run"], r["tasks_posted"], "{r}");
        let want = if r["scenario"] == "idle" {
            "spin"
        } else {
            "file"
        };
        assert_eq!(r["task"], want, "{r}");
    }
    for r in rows.iter().filter(|r| r["scenario"] == "throughput") {
        assert_eq!(r["task_ns"], 0, "{r}");
        assert_eq!(r["requests"], 200, "{r}");
    }
    assert_eq!(entries(&tmp), Vec::<String>::new(), "left behind");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn bench_pool_file_tasks_clean_up_on_ctrl_c() {
    use std::time::{Duration, Instant};
    let tmp = tmpdir("sigint");
    // long enough to be interrupted: a million reads on one thread
    let mut child = Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args([
            "bench",
            "pool",
            "--pools",
            "nginx",
            "--threads",
            "1",
            "--tasks",
            "1000000",
            "--task",
            "file",
            "--file-mib",
            "1",
            "--json",
        ])
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run herdlab");
    // wait for the scratch file (created after its paths are registered for the handler)
    let t0 = Instant::now();
    let made = loop {
        let found = std::fs::read_dir(&tmp)
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.path().join("blocks").exists());
        if found {
            break true;
        }
        if t0.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(made, "no scratch file appeared");
    // SAFETY: the child's pid is a live process we spawned (not yet waited for).
    let r = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0);
    let status = child.wait().unwrap();
    // the scratch handler removes the file, then hands the signal to the interrupt handler,
    // which reports the rows measured so far and exits with 128 + SIGINT
    assert_eq!(status.code(), Some(128 + libc::SIGINT), "{status:?}");
    assert_eq!(entries(&tmp), Vec::<String>::new(), "left behind");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn bench_pool_refuses_bad_input() {
    for args in [
        &["bench", "pool", "--pools", "nginx,tokio"][..],
        &["bench", "pool", "--threads", "0"][..],
        &["bench", "pool", "--task-ns", "x"][..],
        &["bench", "pool", "--task", "disk"][..],
        &["bench", "pool", "--file-mib", "0"][..],
        &["bench", "pool", "--file-mib", "65"][..],
    ] {
        let out = herdlab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = herdlab(&["bench", "pool", "--pools", "tokio"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nginx, threadpool, rayon, crossbeam"), "{err}");
    let out = herdlab(&["bench", "pool", "--task", "disk"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spin, file"), "{err}");
    let out = herdlab(&["bench", "pool", "--file-mib", "65"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1") && err.contains("64"), "{err}");
}
