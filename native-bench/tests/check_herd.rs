//! `herdlab check herd`: the checker proves the correct sleeper (accept, futex, condvar) and finds
//! the broken sleeper's lost wakeup, with its steps, its replay and the lesson link. No timing is
//! asserted.

use std::process::{Command, Output};

fn herdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(args)
        .output()
        .expect("run herdlab")
}

fn check_herd_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut a = vec!["check", "herd"];
    a.extend_from_slice(args);
    a.push("--json");
    let out = herdlab(&a);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

#[test]
fn the_correct_default_is_proved() {
    let (code, v) = check_herd_json(&[]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["complete"], true, "{v}");
    assert_eq!(v["bounded"], false, "{v}");
    assert!(v["violation"].is_null(), "{v}");
    for k in [
        "states",
        "transitions",
        "max_depth",
        "complete",
        "bounded",
        "elapsed_ns",
        "states_per_sec",
        "violation",
        "invariants",
        "scenario",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert!(v["states"].as_u64().unwrap() > 50, "{v}");
    assert_eq!(
        v["invariants"],
        serde_json::json!(["lost-wakeup", "conservation", "deadlock"])
    );
    let s = v["scenario"].as_str().unwrap();
    for kv in [
        "workers=2",
        "cpus=2",
        "mode=exclusive",
        "connections=2",
        "variant=correct",
        "primitive=accept",
    ] {
        assert!(s.contains(kv), "{kv} in {s}");
    }
    let out = herdlab(&["check", "herd"]);
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.contains("OK: every invariant holds"), "{t}");
}

#[test]
fn the_broken_sleeper_loses_a_wakeup() {
    let (code, v) = check_herd_json(&["--variant", "broken-sleeper"]);
    assert_eq!(code, Some(1), "{v}");
    let x = &v["violation"];
    assert_eq!(x["invariant"], "lost-wakeup", "{v}");
    let schedule = x["schedule"].as_array().expect("a schedule");
    let steps = x["steps"].as_array().expect("steps");
    assert!(!schedule.is_empty(), "{v}");
    assert_eq!(schedule.len(), steps.len());
    let mut picks = Vec::new();
    for (i, (t, s)) in schedule.iter().zip(steps).enumerate() {
        let t = t.as_u64().unwrap();
        assert!(t <= 2, "{v}");
        let actor = s["actor"].as_str().unwrap();
        if t == 2 {
            assert_eq!(actor, "n");
            assert_eq!(s["line"], 0);
            assert!(s["text"]
                .as_str()
                .unwrap()
                .contains("arrives; the wake walk wakes"));
        } else {
            assert_eq!(actor, format!("t{t}"));
            assert!(s["line"].as_u64().unwrap() >= 1);
        }
        assert!(!s["text"].as_str().unwrap().is_empty());
        picks.push(format!("{i}:{actor}"));
    }
    assert_eq!(x["replay_agrees"], true, "{}", x["replay"]);
    assert!(!x["message"].as_str().unwrap().is_empty());
    let link = x["link"].as_str().unwrap();
    assert!(
        link.starts_with("http://127.0.0.1:8080/#/lesson/thundering-herd?mechanism=herd&"),
        "{link}"
    );
    assert!(link.contains("variant=broken-sleeper"), "{link}");
    assert!(
        link.ends_with(&format!(
            "&follow=picks&step={}&picks={}",
            schedule.len(),
            picks.join(",")
        )),
        "{link}"
    );
}

#[test]
fn the_broken_sleeper_prints_its_steps_message_and_link() {
    let out = herdlab(&["check", "herd", "--variant", "broken-sleeper"]);
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("VIOLATION of lost-wakeup"), "{s}");
    let steps: Vec<&str> = s.lines().filter(|l| l.starts_with("step ")).collect();
    assert!(steps.len() > 3, "{s}");
    assert!(steps[0].starts_with("step 1: worker "), "{s}");
    assert!(
        steps
            .iter()
            .any(|l| l.contains(": network: connection 0 arrives; the wake walk wakes")),
        "{s}"
    );
    assert!(
        s.contains("lost-wakeup: connection 0 waits in the accept queue while every worker sleeps"),
        "{s}"
    );
    assert!(
        s.contains("http://127.0.0.1:8080/#/lesson/thundering-herd?"),
        "{s}"
    );
    assert!(!s.contains("warning"), "{s}");
}

#[test]
fn futex_and_condvar_are_proved() {
    for prim in ["futex", "condvar"] {
        let (code, v) = check_herd_json(&["--primitive", prim]);
        assert_eq!(code, Some(0), "{prim}: {v}");
        assert_eq!(v["complete"], true);
        assert!(v["violation"].is_null());
        assert!(v["scenario"]
            .as_str()
            .unwrap()
            .contains(&format!("primitive={prim}")));
    }
}

#[test]
fn every_mode_is_proved() {
    for mode in ["wake-all", "exclusive", "lifo-exclusive"] {
        let (code, v) = check_herd_json(&["--mode", mode]);
        assert_eq!(code, Some(0), "{mode}: {v}");
        assert_eq!(v["complete"], true);
    }
}

#[test]
fn the_state_limit_is_incomplete_and_exits_1() {
    let (code, v) = check_herd_json(&["--max-states", "20"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["complete"], false);
    assert!(v["violation"].is_null());
    let out = herdlab(&["check", "herd", "--max-states", "20"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("INCOMPLETE"));
}

#[test]
fn arrival_flags_and_bad_arguments_exit_2() {
    for args in [
        &["check", "herd", "--arrival", "poisson"][..],
        &["check", "herd", "--burst", "4"],
        &["check", "herd", "--rate", "1000"],
        &["check", "herd", "--workers", "0"],
        &["check", "herd", "--mode", "bogus"],
        &["check", "herd", "--threads", "2"],
        &[
            "check",
            "herd",
            "--primitive",
            "futex",
            "--variant",
            "broken-sleeper",
        ],
    ] {
        let out = herdlab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let e = String::from_utf8(herdlab(&["check", "herd", "--arrival", "poisson"]).stderr).unwrap();
    assert!(
        e.contains("herdlab: --arrival: check herd takes no arrival pattern"),
        "{e}"
    );
    assert!(e.contains("every arrival time is explored"), "{e}");
}

#[test]
fn the_help_describes_check_herd() {
    let out = herdlab(&["--help"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("herdlab check herd [--workers N]"), "{s}");
    assert!(
        s.contains("The arrival pattern is irrelevant to the checker"),
        "{s}"
    );
    assert!(!s.contains("is refused: the herd"), "{s}");
}
