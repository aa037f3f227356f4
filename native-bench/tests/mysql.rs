//! `herdlab sim mysql` and `check mysql`: the simulator's report is core's (the bench contract's
//! keys, in order), the checker proves the pool's preset and finds the thread cache's broken
//! hand-off with its steps, bad input exits 2 naming the allowed values. Bounded: small
//! scenarios, the checker's presets.

use std::process::{Command, Output};

use herdlab_core::mechanisms::mysql::{Mode, MysqlParams};

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

fn refused(args: &[&str], wanted: &str) {
    let out = herdlab(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains(wanted), "{args:?}: {e}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

/// The bench contract's keys, in order (issue 13).
const CONTRACT: [&str; 10] = [
    "mode",
    "connections",
    "qps",
    "p50_ns",
    "p95_ns",
    "p99_ns",
    "threads_created",
    "os_threads_max",
    "ctx_switches_per_query",
    "rss_bytes",
];

#[test]
fn sim_mysql_json_has_the_contract_keys_and_is_cores_report() {
    for mode in ["per-connection", "pool"] {
        let args = [
            "sim",
            "mysql",
            "--mode",
            mode,
            "--connections",
            "300",
            "--max-connections",
            "1000",
            "--queries",
            "300",
            "--json",
        ];
        let out = herdlab(&args);
        assert_eq!(out.status.code(), Some(0), "{mode}");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let mut at = 0;
        for k in CONTRACT {
            let i = text
                .find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("{k} missing in {text}"));
            assert!(i >= at, "{k} out of order in {text}");
            at = i;
        }
        let v = json_of(&out);
        // the same scenario in core gives the same report
        let p = MysqlParams {
            mode: Mode::from_name(mode).unwrap(),
            connections: 300,
            max_connections: 1000,
            queries: 300,
            ..Default::default()
        };
        let (_, r) = p.run(u64::MAX);
        assert_eq!(v["mode"], mode);
        assert_eq!(v["connections"], 300);
        assert_eq!(v["queries_done"], 300);
        assert_eq!(v["threads_created"], r.threads_created);
        assert_eq!(v["os_threads_max"], r.os_threads_max);
        assert_eq!(v["rss_bytes"], r.rss_bytes);
        assert_eq!(v["p99_ns"], r.p99_ns);
        assert_eq!(v["status"], "finished");
        assert!(v["violation"].is_null());
        // thread-per-connection grows a thread per client; the pool stays at a few per group
        if mode == "per-connection" {
            // a connection opens with its first query: about 190 of the 300 clients sent one
            assert!(r.os_threads_max > 150, "{}", r.os_threads_max);
        } else {
            assert!(r.os_threads_max <= 31, "{}", r.os_threads_max);
        }
    }
}

#[test]
fn sim_mysql_text_names_the_figures() {
    let out = herdlab(&["sim", "mysql", "--queries", "50"]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.starts_with("herdlab sim mysql mode=pool&connections=64"),
        "{s}"
    );
    assert!(s.contains("50 of 50 queries answered"), "{s}");
    assert!(s.contains("invariants: all held"), "{s}");
}

#[test]
fn bad_input_exits_2_naming_the_allowed_values() {
    refused(&["sim", "mysql", "--connections", "5000"], "allowed 1-4096");
    refused(
        &["sim", "mysql", "--mode", "fork"],
        "allowed: per-connection, pool",
    );
    refused(&["sim", "mysql", "--groups", "9"], "allowed 1-7");
    // the whole set: more connections than max_connections + 1
    refused(
        &["sim", "mysql", "--connections", "400"],
        "--connections: 400 exceeds max_connections + 1 (152)",
    );
    refused(
        &["check", "mysql", "--variant", "nope"],
        "allowed: correct, no-listener-wake, fifo-waiters",
    );
}

#[test]
fn check_mysql_lists_its_variants_correct_first() {
    let out = herdlab(&["check", "mysql", "--list-variants"]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = s
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "correct",
            "no-listener-wake",
            "fifo-waiters",
            "no-stall-timer",
            "no-wait-begin",
            "no-throttle",
            "no-high-prio",
            "cache-any-blocked"
        ]
    );
}

#[test]
fn check_mysql_proves_the_pool_preset() {
    let out = herdlab(&["check", "mysql", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["mechanism"], "mysql");
    assert_eq!(v["mode"], "pool");
    assert_eq!(v["complete"], true);
    assert!(v["violation"].is_null());
    assert_eq!(v["states"], 26_625);
}

#[test]
fn check_mysql_finds_the_broken_hand_off_and_replays_it() {
    // one client (two of its connections in flight at once): 290,278 states; the default two
    // clients take about 2.5 million
    let out = herdlab(&[
        "check",
        "mysql",
        "--variant",
        "cache-any-blocked",
        "--connections",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["mode"], "per-connection");
    let cx = &v["violation"];
    assert_eq!(cx["invariant"], "cache-count");
    assert_eq!(cx["replay_agrees"], true, "{}", cx["replay"]);
    assert_eq!(
        cx["steps"].as_array().unwrap().len(),
        cx["schedule"].as_array().unwrap().len()
    );
}
