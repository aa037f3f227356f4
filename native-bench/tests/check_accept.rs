//! `herdlab check accept-mutex` and `check accept`: the checker proves nginx's accept mutex and the
//! other strategies for small scenarios, and finds each broken variant with its steps and link. No
//! timing is asserted.

use std::process::{Command, Output};

fn herdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(args)
        .output()
        .expect("run herdlab")
}

fn check_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut a = vec!["check"];
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
fn the_accept_mutex_is_proved_for_two_workers() {
    let (code, v) = check_json(&["accept-mutex"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["mechanism"], "accept");
    assert_eq!(v["strategy"], "accept-mutex");
    assert!(v["violation"].is_null());
    assert_eq!(v["complete"], true);
    assert!(v["states"].as_u64().unwrap() > 1000, "{v}");
    assert!(v["transitions"].as_u64().unwrap() >= v["states"].as_u64().unwrap());
    let inv: Vec<&str> = v["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(inv.contains(&"registration-follows-held"), "{inv:?}");
}

#[test]
fn each_broken_variant_is_caught_with_steps_and_a_link() {
    for (variant, invariant) in [
        ("unlock-before-accept", "accept-under-lock"),
        ("no-disable", "registration-follows-held"),
        ("no-timer", "retry-bound"),
    ] {
        let (code, v) = check_json(&["accept-mutex", "--variant", variant]);
        assert_eq!(code, Some(1), "{variant}: {v}");
        let x = &v["violation"];
        assert_eq!(x["invariant"], invariant, "{variant}");
        let steps = x["steps"].as_array().unwrap();
        assert_eq!(steps.len(), x["schedule"].as_array().unwrap().len());
        assert!(x["link"]
            .as_str()
            .unwrap()
            .contains("/#/lesson/nginx-accept-mutex?mechanism=accept&strategy=accept-mutex"));
    }
}

#[test]
fn the_other_strategies_are_proved() {
    for s in ["herd", "exclusive", "reuseport", "blocking", "shared-epoll"] {
        let (code, v) = check_json(&["accept", "--strategy", s]);
        assert_eq!(code, Some(0), "{s}: {v}");
        assert_eq!(v["strategy"], s);
    }
}

#[test]
fn bad_arguments_exit_2_naming_the_problem() {
    for (args, expect) in [
        (
            &["check", "accept-mutex", "--workers", "9"][..],
            "--workers",
        ),
        (
            &["check", "accept", "--strategy", "nope"][..],
            "allowed: herd, shared-epoll",
        ),
        (
            &["check", "accept-mutex", "--strategy", "herd"][..],
            "check accept --strategy",
        ),
        (
            &[
                "check",
                "accept",
                "--strategy",
                "herd",
                "--variant",
                "no-timer",
            ][..],
            "needs --strategy accept-mutex",
        ),
        (
            &["check", "accept-mutex", "--rate", "5"][..],
            "unknown flag '--rate'",
        ),
    ] {
        let out = herdlab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}
