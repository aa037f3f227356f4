//! The `herdlab` binary: exit statuses, messages and the sim command's JSON.

use std::process::{Command, Output};

fn herdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(args)
        .output()
        .expect("run herdlab")
}

fn sim_json(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["sim", "herd"];
    a.extend_from_slice(args);
    a.push("--json");
    let out = herdlab(&a);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn sim_json_has_the_keys() {
    let v = sim_json(&["--workers", "4", "--connections", "20", "--seed", "3"]);
    for k in [
        "steps",
        "wakeups",
        "wasted_wakeups",
        "context_switches",
        "connections_accepted",
        "sim_time_ns",
        "cpu_time_ns",
        "syscalls",
        "spins",
        "lost_wakeups",
        "status",
        "worker_accepted",
        "worker_wakeups",
        "scenario",
        "wall_ns",
        "steps_per_sec",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert_eq!(v["status"], "finished");
    assert_eq!(v["connections_accepted"], 20);
    assert_eq!(v["worker_accepted"].as_array().unwrap().len(), 4);
    assert!(v["scenario"].as_str().unwrap().contains("workers=4"));
}

#[test]
fn sim_wake_all_wastes_seven_per_connection_and_exclusive_none() {
    let base = [
        "--workers",
        "8",
        "--cpus",
        "2",
        "--arrival",
        "on-demand",
        "--connections",
        "100",
    ];
    let mut a = base.to_vec();
    a.extend(["--mode", "wake-all"]);
    let v = sim_json(&a);
    assert_eq!(v["wasted_wakeups"], 700, "{v}");
    assert_eq!(v["connections_accepted"], 100);
    let mut a = base.to_vec();
    a.extend(["--mode", "exclusive"]);
    let v = sim_json(&a);
    assert_eq!(v["wasted_wakeups"], 0, "{v}");
    assert_eq!(v["connections_accepted"], 100);
}

#[test]
fn sim_table_without_json() {
    let out = herdlab(&["sim", "herd", "--connections", "5"]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.lines().any(|l| l.starts_with("wasted_wakeups ")), "{s}");
}

#[test]
fn bad_mode_exits_2_with_the_allowed_values() {
    let out = herdlab(&["sim", "herd", "--mode", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains(
            "herdlab: --mode: 'bogus' is not allowed; allowed: wake-all, exclusive, lifo-exclusive"
        ),
        "{e}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn unknown_command_flag_and_missing_value_exit_2() {
    let out = herdlab(&["bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("allowed: sim, bench, check, help"));
    let out = herdlab(&["sim", "herd", "--bogus", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown flag '--bogus'"));
    let out = herdlab(&["bench", "herd", "--events"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--events: missing value"));
    let out = herdlab(&[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_exits_0() {
    for a in [["--help"], ["help"]] {
        let out = herdlab(&a);
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stdout).contains("herdlab sim herd"));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn bench_json_rows() {
    let out = herdlab(&["bench", "herd", "--threads", "2", "--events", "5", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for r in rows {
        for k in [
            "variant",
            "threads",
            "events",
            "wakeups_per_event",
            "wasted_per_event",
            "nvcsw_per_event",
            "event_p50_ns",
            "event_p99_ns",
        ] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        assert_eq!(r["work_items"], 5);
    }
    assert_eq!(rows[0]["variant"], "futex wake-all");
    assert_eq!(rows[0]["wasted_per_event"], 1.0);
}
