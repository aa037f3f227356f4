//! Locks: core's machines on real threads keep mutual exclusion and count every acquisition, and
//! `herdlab check` proves the correct ngx_shmtx and catches each broken variant with the invariant
//! that names its bug. No timing is asserted.

use std::process::{Command, Output};

use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;

fn herdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args(args)
        .output()
        .expect("run herdlab")
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[cfg(target_os = "linux")]
mod native {
    use herdlab_bench::mechanisms::locks::native::{run, BenchLock, Bound, Form, LockRun};

    const N: u32 = 4;
    const M: u32 = 300;

    fn exact(lock: BenchLock, cs_ns: u64, padded: bool, form: Form) {
        let r = run(&LockRun {
            lock,
            threads: N,
            cs_ns,
            padded,
            bound: Bound::Rounds(M),
            check_exclusion: true,
            form,
        })
        .unwrap_or_else(|e| panic!("{} {}: {e}", lock.name(), form.name()));
        let name = format!("{} {}", lock.name(), form.name());
        assert_eq!(r.threads.len(), N as usize, "{name}");
        for (i, t) in r.threads.iter().enumerate() {
            assert_eq!(t.acquisitions, M as u64, "{name}: thread {i}");
        }
        assert_eq!(r.total(), (N * M) as u64, "{name}");
        assert_eq!(r.total_all(), (N * M) as u64, "{name}");
        assert_eq!(
            r.exclusion_violations, 0,
            "{name}: {} entries found another thread inside (at most {} at once)",
            r.exclusion_violations, r.max_inside
        );
        assert_eq!(r.max_inside, 1, "{name}");
        // every critical section's plain load+store increment survived
        assert_eq!(r.protected_counter, N * M, "{name}: lost updates");
        assert!(r.counter_ok(), "{name}");
        if let Some(v) = r.sem_value {
            assert!((0..=N as i32).contains(&v), "{name}: semaphore at {v}");
        }
        let (min, max) = r.shares();
        assert!(
            (min - 0.25).abs() < 1e-9 && (max - 0.25).abs() < 1e-9,
            "{name}"
        );
    }

    #[test]
    fn every_lock_counts_every_acquisition_and_excludes() {
        for lock in BenchLock::ALL {
            for form in Form::ALL {
                exact(lock, 0, true, form);
            }
        }
    }

    /// One thread never waits, so its operation counters are exact: the straight-line form (its
    /// lock's words checked once, the memory operations through the platform's `Hot` view) counts
    /// what the stepped form counts, less the critical section's `Work` step that only the stepped
    /// form executes, one a round; shmtx's uncontended round is four operations (L1's load and
    /// CAS, the releasing CAS and the load of `wait`), with no failed CAS, pause or sleep.
    #[test]
    fn one_thread_counts_the_same_operations_in_both_forms() {
        use herdlab_core::mechanisms::locks::LockKind;
        const R: u32 = 1000;
        for kind in LockKind::ALL {
            let counters = |form| {
                let r = run(&LockRun {
                    lock: BenchLock::Core(kind),
                    threads: 1,
                    cs_ns: 0,
                    padded: true,
                    bound: Bound::Rounds(R),
                    check_exclusion: true,
                    form,
                })
                .unwrap_or_else(|e| panic!("{} {}: {e}", kind.name(), form.name()));
                assert_eq!(r.total(), u64::from(R), "{}", kind.name());
                r.counters()
            };
            let (straight, stepped) = (counters(Form::Straight), counters(Form::Stepped));
            assert_eq!(straight.ops + u64::from(R), stepped.ops, "{}", kind.name());
            assert_eq!(
                (straight.cas_failures, straight.pauses, straight.sem_sleeps),
                (stepped.cas_failures, stepped.pauses, stepped.sem_sleeps),
                "{}",
                kind.name()
            );
            if kind == LockKind::Shmtx {
                assert_eq!(straight.ops, 4 * u64::from(R));
                assert_eq!((straight.cas_failures, straight.pauses), (0, 0));
                assert_eq!((straight.sem_sleeps, straight.sem_posts), (0, 0));
            }
        }
    }

    #[test]
    fn longer_critical_sections_and_the_packed_layout() {
        for lock in BenchLock::ALL {
            for form in Form::ALL {
                exact(lock, 2_000, false, form);
            }
        }
    }

    #[test]
    fn shmtx_with_long_critical_sections_counts_exactly_and_excludes() {
        // 8 threads and 20 us critical sections. Whether waiters spin out and sleep depends on how
        // the OS schedules the threads, so this asserts only what must hold on every schedule:
        // exact counts and mutual exclusion. `herdlab bench locks` reports the sleeps.
        let r = run(&LockRun {
            lock: BenchLock::Core(herdlab_core::mechanisms::locks::LockKind::Shmtx),
            threads: 8,
            cs_ns: 20_000,
            padded: true,
            bound: Bound::Rounds(50),
            check_exclusion: true,
            form: Form::Straight,
        })
        .unwrap();
        assert_eq!(r.total(), 400);
        assert_eq!(r.exclusion_violations, 0);
        let c = r.counters();
        // every sleep in sem_wait was ended by a post
        assert!(c.sem_posts >= c.sem_sleeps.min(1), "{c:?}");
    }
}

fn check_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut a = vec!["check"];
    a.extend_from_slice(args);
    a.push("--json");
    let out = herdlab(&a);
    (out.status.code(), json_of(&out))
}

#[test]
fn correct_shmtx_three_by_two_is_proved() {
    let out = herdlab(&["check", "shmtx", "--threads", "3", "--rounds", "2"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("OK: every invariant holds"));
    let (code, v) = check_json(&["shmtx", "--threads", "3", "--rounds", "2"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["complete"], true, "{v}");
    assert!(v["violation"].is_null(), "{v}");
    for k in [
        "states",
        "transitions",
        "max_depth",
        "complete",
        "elapsed_ns",
        "states_per_sec",
        "violation",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert!(v["states"].as_u64().unwrap() > 1000);
    assert!(v["invariants"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("wakeup-accounting")));
}

#[test]
fn the_other_locks_are_proved_too() {
    for lock in ["ttas", "spin-yield", "ticket", "futex"] {
        let (code, v) = check_json(&[lock, "--threads", "3", "--rounds", "2"]);
        assert_eq!(code, Some(0), "{lock}: {v}");
        assert_eq!(v["complete"], true);
        assert!(v["violation"].is_null());
    }
}

#[test]
fn every_broken_variant_is_caught_by_its_invariant() {
    let expected: &[(&str, &[&str])] = &[
        ("no-wait-decrement", &["wakeup-accounting"]),
        ("announce-after-check", &["lost-wakeup"]),
        ("unlock-reads-wait-first", &["lost-wakeup"]),
        ("plain-load-store", &["mutual-exclusion"]),
        ("seed-listing", &["deadlock", "wakeup-accounting"]),
    ];
    assert_eq!(expected.len(), ShmtxVariant::ALL.len() - 1);
    for (variant, invariants) in expected {
        let (code, v) = check_json(&[
            "shmtx",
            "--threads",
            "2",
            "--rounds",
            "2",
            "--variant",
            variant,
        ]);
        assert_eq!(code, Some(1), "{variant}: {v}");
        let x = &v["violation"];
        let inv = x["invariant"].as_str().unwrap_or_default();
        assert!(invariants.contains(&inv), "{variant}: {inv} in {v}");
        let schedule = x["schedule"].as_array().expect("a schedule");
        let steps = x["steps"].as_array().expect("steps");
        assert!(!schedule.is_empty());
        assert_eq!(schedule.len(), steps.len(), "{variant}");
        for s in steps {
            assert!(s["thread"].as_u64().unwrap() < 2);
            assert!(s["line"].as_u64().unwrap() >= 1);
            assert!(!s["text"].as_str().unwrap().is_empty());
        }
        assert_eq!(x["replay_agrees"], true, "{variant}: {}", x["replay"]);
        let link = x["link"].as_str().unwrap();
        assert!(
            link.starts_with(
                "http://127.0.0.1:8080/#/lesson/nginx-shmtx?mechanism=locks&lock=shmtx"
            ),
            "{link}"
        );
        assert!(link.contains(&format!("variant={variant}")), "{link}");
        let sched: Vec<String> = schedule.iter().map(|t| t.to_string()).collect();
        assert!(
            link.ends_with(&format!("&schedule={}", sched.join(","))),
            "{link}"
        );
        assert!(!x["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn a_counterexample_prints_its_steps_message_and_link() {
    let out = herdlab(&[
        "check",
        "shmtx",
        "--threads",
        "2",
        "--rounds",
        "2",
        "--variant",
        "announce-after-check",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    let steps: Vec<&str> = s.lines().filter(|l| l.starts_with("step ")).collect();
    assert!(steps.len() > 3, "{s}");
    assert!(steps[0].starts_with("step 1: thread "), "{s}");
    assert!(steps.last().unwrap().contains("sem_wait"), "{s}");
    assert!(
        s.contains("lost-wakeup: threads [1] sleep while the lock is free"),
        "{s}"
    );
    assert!(
        s.contains("http://127.0.0.1:8080/#/lesson/nginx-shmtx?"),
        "{s}"
    );
    assert!(!s.contains("warning"), "{s}");
}

#[test]
fn the_state_limit_is_incomplete_and_exits_1() {
    let (code, v) = check_json(&["shmtx", "--max-states", "500"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["complete"], false);
    assert!(v["violation"].is_null());
    let out = herdlab(&["check", "shmtx", "--max-states", "500"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("INCOMPLETE"));
}

#[test]
fn list_variants_prints_six_lines_correct_first() {
    let out = herdlab(&["check", "shmtx", "--list-variants"]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 6, "{s}");
    assert!(lines[0].starts_with("correct"));
    for (l, v) in lines.iter().zip(ShmtxVariant::ALL) {
        assert!(l.starts_with(v.name()) && l.contains(v.story()), "{l}");
    }
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["check"][..],
        &["check", "mcs"],
        &["check", "shmtx", "--variant", "nope"],
        &["check", "shmtx", "--bogus"],
        &["check", "shmtx", "--threads", "17"],
        &["check", "shmtx", "--spin", "0"],
        &["check", "ttas", "--variant", "seed-listing"],
        &["check", "ticket", "--spin", "4"],
        &["check", "herd", "--arrival", "poisson"],
        &["sim", "locks", "--lock", "mcs"],
        &["sim", "locks", "--threads", "0"],
        &["bench", "locks", "--locks", "mcs"],
    ] {
        let out = herdlab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let e = String::from_utf8(herdlab(&["check", "shmtx", "--variant", "nope"]).stderr).unwrap();
    assert!(
        e.contains("allowed: correct, no-wait-decrement, announce-after-check"),
        "{e}"
    );
    let e = String::from_utf8(herdlab(&["check", "herd", "--arrival", "poisson"]).stderr).unwrap();
    assert!(e.contains("check herd takes no arrival pattern"), "{e}");
}

#[test]
fn sim_locks_reports_the_counters() {
    let out = herdlab(&[
        "sim",
        "locks",
        "--lock",
        "shmtx",
        "--threads",
        "4",
        "--rounds",
        "10",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    for k in [
        "steps",
        "work_items",
        "cas_failures",
        "spins",
        "sem_sleeps",
        "sem_posts",
        "yields",
        "context_switches",
        "sim_time_ns",
        "cpu_time_ns",
        "acquisitions",
        "min_share",
        "max_share",
        "status",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert_eq!(v["status"], "finished");
    assert_eq!(v["work_items"], 40);
    assert_eq!(v["acquisitions"], serde_json::json!([10, 10, 10, 10]));
    assert!(v["violation"].is_null());
}

#[cfg(target_os = "linux")]
#[test]
fn bench_locks_json_rows() {
    let out = herdlab(&[
        "bench",
        "locks",
        "--json",
        "--threads",
        "2",
        "--cs",
        "0",
        "--ms",
        "20",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let rows = v.as_array().unwrap();
    // 7 locks x 1 thread count x 1 critical section x 2 layouts
    assert_eq!(rows.len(), 14);
    for r in rows {
        for k in [
            "lock",
            "threads",
            "cs_ns",
            "padded",
            "ops_per_sec",
            "min_share",
            "max_share",
            "sleeps",
            "spins",
            "wait_p50_ns",
            "wait_p99_ns",
        ] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        assert_eq!(r["counter_ok"], true, "{r}");
        assert!(r["acquisitions"].as_u64().unwrap() > 0, "{r}");
    }
    let names: Vec<&str> = rows[..7]
        .iter()
        .map(|r| r["lock"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "shmtx",
            "ttas",
            "spin-yield",
            "ticket",
            "futex",
            "std",
            "parking_lot"
        ]
    );
    assert_eq!(rows[0]["padded"], true);
    assert_eq!(rows[7]["padded"], false);
}
