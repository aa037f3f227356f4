//! `herdlab sim gmp`, `check gmp` and `bench gmp`: the simulator's report is core's with the
//! contract's keys, the checker proves the scheduler (exit 0), stops at its state bound (exit 1),
//! bad input exits 2 naming the allowed values, and every bench row runs each goroutine exactly
//! once. Bounded: small scenarios, `--quick` rows.

use std::process::{Command, Output};

use herdlab_core::mechanisms::gmp::{GmpParams, GmpVariant, Workload};

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

fn refused(args: &[&str], needle: &str) {
    let out = herdlab(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

const SIM_KEYS: [&str; 8] = [
    "steps",
    "steals",
    "parks",
    "spins",
    "handoffs",
    "global_queue_gets",
    "context_switches",
    "sim_time_ns",
];

#[test]
fn sim_gmp_json_is_cores_report_with_the_contracts_keys_first() {
    let out = herdlab(&[
        "sim",
        "gmp",
        "--gomaxprocs",
        "2",
        "--threads",
        "3",
        "--workload",
        "chain",
        "--goroutines",
        "20",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let v = json_of(&out);
    let mut at = 0;
    for k in SIM_KEYS {
        let i = text
            .find(&format!("\"{k}\":"))
            .unwrap_or_else(|| panic!("{k} missing in {text}"));
        assert!(i >= at, "{k} out of order in {text}");
        at = i;
    }
    // the same figures as core's own run of the scenario
    let p = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        workload: Workload::Chain,
        goroutines: 20,
        ..GmpParams::default()
    };
    let (_, r) = p.run(50_000_000);
    assert_eq!(v["steps"], r.steps);
    assert_eq!(v["steals"], r.steals);
    assert_eq!(v["parks"], r.parks);
    assert_eq!(v["spins"], r.spins);
    assert_eq!(v["context_switches"], r.context_switches);
    assert_eq!(v["sim_time_ns"], r.sim_time_ns);
    // a chain runs every G once, one at a time: 20 executes, nothing to steal, no handoffs
    // (this model has no syscalls)
    assert_eq!(v["finished"], 20);
    assert_eq!(v["context_switches"], 20);
    assert_eq!(v["steals"], 0);
    assert_eq!(v["handoffs"], 0);
    assert_eq!(v["status"], "finished");
    assert_eq!(v["violation"], serde_json::Value::Null);
    // the frozen figures of this seed (a change of the model shows here)
    assert_eq!(
        (&v["steps"], &v["parks"], &v["spins"], &v["sim_time_ns"]),
        (
            &serde_json::json!(1404),
            &serde_json::json!(19),
            &serde_json::json!(20),
            &serde_json::json!(415008)
        )
    );
}

#[test]
fn sim_gmp_one_p_runs_every_g_once_without_stealing() {
    // GOMAXPROCS=1: main spawns 3 goroutines; 4 executes, nobody to steal from
    let out = herdlab(&[
        "sim",
        "gmp",
        "--gomaxprocs",
        "1",
        "--threads",
        "2",
        "--goroutines",
        "4",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["finished"], 4);
    assert_eq!(v["context_switches"], 4);
    assert_eq!(v["steals"], 0);
    assert_eq!(v["global_queue_gets"], 0);
}

#[test]
fn sim_gmp_is_deterministic_for_a_seed() {
    let run = |seed: &str| {
        let out = herdlab(&["sim", "gmp", "--seed", seed, "--json"]);
        assert_eq!(out.status.code(), Some(0));
        json_of(&out)
    };
    let a = run("7");
    assert_eq!(a, run("7"));
    // default fan-out of 40 on 4 Ps: every G runs once, whatever the seed
    assert_eq!(a["finished"], 40);
    assert_eq!(a["context_switches"], 40);
    assert_eq!(run("8")["finished"], 40);
}

#[test]
fn sim_gmp_single_queue_takes_every_g_from_the_global_queue() {
    let out = herdlab(&[
        "sim",
        "gmp",
        "--variant",
        "single-queue",
        "--goroutines",
        "10",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    // Go 1.0: every G (main included) goes through the one queue, one take each, no stealing
    assert_eq!(v["finished"], 10);
    assert_eq!(v["global_queue_gets"], 10);
    assert_eq!(v["steals"], 0);
}

#[test]
fn sim_gmp_refuses_bad_input_with_the_allowed_values() {
    refused(
        &["sim", "gmp", "--workload", "bogus"],
        "allowed: fan-out, chain, tree, spawn-many, yield-many, ping-pong",
    );
    refused(&["sim", "gmp", "--gomaxprocs", "0"], "allowed 1-16");
    refused(&["sim", "gmp", "--gomaxprocs", "17"], "allowed 1-16");
    refused(
        &["sim", "gmp", "--variant", "nope"],
        "allowed: correct, reversed-dance",
    );
    refused(
        &["sim", "gmp", "--gomaxprocs", "4", "--threads", "4"],
        "there must be more Ms than gomaxprocs",
    );
    refused(&["sim", "gmp", "--ring", "3"], "the ring must be even");
    refused(&["sim", "gmp", "--goroutines", "15001"], "allowed 1-15000");
    refused(&["sim", "gmp", "--bogus", "1"], "--gomaxprocs");
}

#[test]
fn check_gmp_proves_a_small_scenario_and_exits_0() {
    let out = herdlab(&[
        "check",
        "gmp",
        "--gomaxprocs",
        "1",
        "--threads",
        "2",
        "--goroutines",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["mechanism"], "gmp");
    assert_eq!(v["variant"], "correct");
    assert_eq!(v["complete"], true);
    assert_eq!(v["violation"], serde_json::Value::Null);
    assert_eq!(v["states"], 548);
    // conservation … starvation, locked-thread (LockOSThread), stuck
    assert_eq!(v["invariants"].as_array().unwrap().len(), 10);
}

#[test]
fn sim_gmp_runs_the_new_workloads_with_exact_counts() {
    let sim = |args: &[&str]| {
        let mut a = vec![
            "sim",
            "gmp",
            "--gomaxprocs",
            "1",
            "--threads",
            "2",
            "--json",
        ];
        a.extend_from_slice(args);
        let out = herdlab(&a);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_of(&out)
    };
    // one pair on one P: the first receiver parks, the partner's goready runs it once more
    let v = sim(&["--workload", "ping-pong", "--goroutines", "3"]);
    assert_eq!(
        (
            &v["finished"],
            &v["context_switches"],
            &v["gparks"],
            &v["readies"]
        ),
        (&3.into(), &4.into(), &1.into(), &1.into())
    );
    // two Gs yielding 3 times: each runs 4 times, every run after a yield from the global queue
    let v = sim(&[
        "--workload",
        "yield-many",
        "--goroutines",
        "2",
        "--yields",
        "3",
    ]);
    assert_eq!(
        (&v["finished"], &v["context_switches"], &v["yields"]),
        (&2.into(), &8.into(), &6.into())
    );
    // spawned from outside every P: all through the global queue, M0 started once
    let v = sim(&["--workload", "spawn-many", "--goroutines", "4"]);
    assert_eq!(
        (&v["finished"], &v["context_switches"], &v["futex_wakes"]),
        (&4.into(), &4.into(), &1.into())
    );
    refused(
        &["sim", "gmp", "--workload", "ping-pong", "--goroutines", "4"],
        "must be odd",
    );
}

#[test]
fn check_gmp_reversed_dance_exits_1_with_a_lost_wakeup_that_replays() {
    // core's preset (2 Ps, 3 Ms, main spawning 2 Gs); at most 5 preemptions per schedule keeps
    // the search at about 190,000 states, so a debug build finds it (unbounded: 2 million)
    let out = herdlab(&[
        "check",
        "gmp",
        "--variant",
        "reversed-dance",
        "--preemption-bound",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["variant"], "reversed-dance");
    let c = &v["violation"];
    assert_eq!(c["invariant"], "lost-wakeup", "{c}");
    assert!(!c["schedule"].as_array().unwrap().is_empty());
    // the simulator, replaying the schedule, breaks the same invariant: in its full world, where
    // each futex_wait takes an entry step more than in the checker's (core's invariants::full_schedule),
    // and the link's picks are those steps
    assert_eq!(c["replay_agrees"], true, "{c}");
    let (schedule, steps) = (
        c["schedule"].as_array().unwrap().len(),
        c["steps"].as_array().unwrap().len(),
    );
    assert!(
        steps > schedule,
        "{steps} steps for a schedule of {schedule}"
    );
    let link = c["link"].as_str().unwrap();
    assert!(link.contains(&format!("&step={steps}&")), "{link}");
    assert_eq!(link.matches(":t").count(), steps, "{link}");
    // the correct dance under the same bound holds
    let ok = herdlab(&["check", "gmp", "--preemption-bound", "5", "--json"]);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(json_of(&ok)["violation"], serde_json::Value::Null);
}

#[test]
fn check_gmp_at_its_state_bound_exits_1() {
    let out = herdlab(&["check", "gmp", "--max-states", "2000", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["complete"], false);
    assert_eq!(v["states"], 2000);
    assert_eq!(v["violation"], serde_json::Value::Null);
}

#[test]
fn check_gmp_lists_the_variants_correct_first() {
    let out = herdlab(&["check", "gmp", "--list-variants"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, GmpVariant::NAMES.to_vec());
}

#[test]
fn check_gmp_refuses_bad_input_with_the_allowed_values() {
    refused(
        &["check", "gmp", "--variant", "bogus"],
        "allowed: correct, reversed-dance, wakep-no-spin-test",
    );
    refused(&["check", "gmp", "--goroutines", "0"], "allowed 1-15000");
    refused(&["check", "gmp", "--bogus"], "--variant");
    refused(&["check", "gmp", "--max-states", "0"], "max-states");
}

#[test]
fn bench_gmp_quick_json_rows_carry_the_contracts_keys() {
    let out = herdlab(&[
        "bench", "gmp", "--quick", "--rounds", "2", "--shrink", "50", "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let rows = v.as_array().expect("rows");
    // workers 1 and 2, six shapes, three runtimes
    assert_eq!(rows.len(), 36);
    for r in rows {
        for k in [
            "runtime",
            "shape",
            "workers",
            "median_ns",
            "p10_ns",
            "p90_ns",
            "steals",
            "parks",
            "spins",
        ] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
        let (p10, med, p90) = (
            r["p10_ns"].as_u64().unwrap(),
            r["median_ns"].as_u64().unwrap(),
            r["p90_ns"].as_u64().unwrap(),
        );
        assert!(0 < p10 && p10 <= med && med <= p90, "{r}");
        assert_eq!(r["rounds"], 2);
        let herdlab = r["runtime"] != "tokio";
        assert_eq!(r["steals"].is_u64(), herdlab, "{r}");
        // tokio's sizes divided by 50
        let (tasks, yields) = match r["shape"].as_str().unwrap() {
            "spawn_many" | "spawn_many_task" => (200, 0),
            "yield_many" | "gosched_many" => (4, 20),
            "ping_pong" => (41, 0),
            "chained_spawn" => (20, 0),
            s => panic!("shape {s}"),
        };
        assert_eq!((&r["tasks"], &r["yields"]), (&tasks.into(), &yields.into()));
        if r["runtime"] == "herdlab-2012" {
            // Go 1.0: every run of a task is a take from the one global queue, nothing stolen;
            // a yielding task runs once more per yield (ping-pong's goreadys vary per run)
            if r["shape"] != "ping_pong" {
                assert_eq!(r["global_queue_gets"], tasks * (yields + 1), "{r}");
            }
            assert_eq!(r["steals"], 0, "{r}");
        }
    }
    let mut seen: Vec<(String, String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["runtime"].as_str().unwrap().to_string(),
                r["shape"].as_str().unwrap().to_string(),
                r["workers"].as_u64().unwrap(),
            )
        })
        .collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 36);
    // each row's factor over tokio, and the 2012 rows' over herdlab, from the same run's medians
    let median = |rt: &str, r: &serde_json::Value| {
        rows.iter()
            .find(|o| {
                o["runtime"] == rt && o["shape"] == r["shape"] && o["workers"] == r["workers"]
            })
            .map(|o| o["median_ns"].as_u64().unwrap() as f64)
            .unwrap()
    };
    for r in rows {
        let med = r["median_ns"].as_u64().unwrap() as f64;
        let x = r["x_tokio"]
            .as_f64()
            .unwrap_or_else(|| panic!("x_tokio in {r}"));
        assert!((x - med / median("tokio", r)).abs() <= 0.0005 + 1e-9, "{r}");
        if r["runtime"] == "herdlab-2012" {
            let x = r["x_herdlab"]
                .as_f64()
                .unwrap_or_else(|| panic!("x_herdlab in {r}"));
            assert!(
                (x - med / median("herdlab", r)).abs() <= 0.0005 + 1e-9,
                "{r}"
            );
        } else {
            assert!(r["x_herdlab"].is_null(), "{r}");
        }
    }
}

#[test]
fn bench_gmp_states_the_2012_factor_by_workers_and_only_beside_herdlab() {
    let text = |runtimes: &str| {
        let out = herdlab(&[
            "bench",
            "gmp",
            "--quick",
            "--rounds",
            "1",
            "--shrink",
            "50",
            "--shapes",
            "yield_many,chained_spawn",
            "--runtimes",
            runtimes,
        ]);
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let both = text("herdlab,herdlab-2012");
    for shape in ["yield_many", "chained_spawn"] {
        let line = both
            .lines()
            .find(|l| {
                l.starts_with("herdlab-2012 / herdlab") && l.contains(&format!(", {shape}: "))
            })
            .unwrap_or_else(|| panic!("no factor line for {shape} in\n{both}"));
        assert!(
            line.contains("x at 1 worker, ") && line.ends_with("x at 2 workers"),
            "{line}"
        );
    }
    // without herdlab's rows there is nothing to divide by
    assert!(!text("herdlab-2012,tokio").contains("herdlab-2012 / herdlab"));
}

#[test]
fn core_table_on_real_threads_runs_every_goroutine_exactly_once() {
    use herdlab_bench::mechanisms::gmp::bench::{params, Runtime, Shape, MAX_WORKERS};
    use herdlab_bench::mechanisms::gmp::native::run;
    for rt in [Runtime::Herdlab, Runtime::Herdlab2012] {
        for shape in Shape::ALL {
            // tokio's full sizes keep Go's 256-slot rings on every worker count the bench takes
            assert_eq!(params(rt, shape, MAX_WORKERS, 1).unwrap().ring, 256);
            for workers in [1, 2, 4, MAX_WORKERS] {
                // tokio's sizes / 100 (spawns 100, 2 x 10 yields, 10 pairs, 10 links) and / 25
                for shrink in [100, 25] {
                    let p = params(rt, shape, workers, shrink).unwrap();
                    let (tasks, yields) = shape.size(shrink);
                    assert_eq!((p.goroutines, p.yields, p.ring), (tasks, yields, 256));
                    for work_ns in [0, 2_000] {
                        let r = run(&p, work_ns).unwrap_or_else(|e| panic!("{p:?}: {}", e.0));
                        let c = r.counts;
                        // every G dead, none live; one execute per G, one more per Gosched and
                        // per goready: none lost, none twice
                        assert_eq!(r.finished, tasks, "{p:?}");
                        assert_eq!(r.live, 0, "{p:?}");
                        assert_eq!(c.yields, tasks as u64 * yields as u64, "{p:?}");
                        assert_eq!(c.gparks, c.readies, "{p:?}");
                        assert_eq!(
                            c.context_switches,
                            tasks as u64 + c.yields + c.readies,
                            "{p:?}"
                        );
                        if shape == Shape::PingPong {
                            // a pair parks at most twice (both sides wait)
                            assert!(c.gparks < tasks as u64, "{p:?} {c:?}");
                        } else {
                            assert_eq!(c.gparks, 0, "{p:?}");
                        }
                        // startm wakes an M that parked, or one of the Ms not yet started
                        // (they begin asleep on midle)
                        assert!(c.futex_wakes <= c.parks + p.threads as u64, "{p:?} {r:?}");
                        // the window --compare-sim compares in, as the simulator's: each counted
                        // park (an M onto midle before the end) ends by one startm wake or by
                        // the end's (one per M); each steal hands its M a G to execute
                        assert!(c.parks <= c.futex_wakes + p.threads as u64, "{p:?} {r:?}");
                        assert!(c.steals <= c.context_switches, "{p:?} {r:?}");
                        if rt == Runtime::Herdlab2012 {
                            assert_eq!(c.global_queue_gets, c.context_switches, "{p:?}");
                            assert_eq!(c.steals, 0, "{p:?}");
                        } else if workers == 1 {
                            // one P: nothing to steal
                            assert_eq!(c.steals, 0, "{p:?}");
                            if !shape.external() && tasks <= p.ring {
                                // a ring larger than the tasks: no overflow to the global queue
                                assert_eq!(c.global_queue_gets, 0, "{p:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn tokio_runs_every_task_exactly_once() {
    use herdlab_bench::mechanisms::gmp::bench::{run_tokio, Shape};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for shape in Shape::ALL {
        for shrink in [100, 10] {
            let (tasks, yields) = shape.size(shrink);
            // run_tokio refuses a run where a task ran twice or never
            assert!(run_tokio(&rt, shape, tasks, yields, 0).unwrap() > 0);
        }
    }
}

#[test]
fn bench_gmp_refuses_bad_input_with_the_allowed_values() {
    refused(
        &["bench", "gmp", "--workers", "0"],
        "allowed: a comma-separated list of counts, each 1-16",
    );
    refused(&["bench", "gmp", "--workers", "17"], "each 1-16");
    refused(
        &["bench", "gmp", "--runtimes", "go"],
        "allowed: a comma-separated list of herdlab, herdlab-2012, tokio",
    );
    refused(
        &["bench", "gmp", "--shapes", "ping-pong"],
        "allowed: a comma-separated list of spawn_many, spawn_many_task, yield_many, gosched_many, ping_pong, chained_spawn",
    );
    refused(&["bench", "gmp", "--shrink", "0"], "allowed 1-100");
    refused(&["bench", "gmp", "--shrink", "101"], "allowed 1-100");
    refused(&["bench", "gmp", "--rounds", "0"], "allowed 1-1000");
}

#[test]
fn bench_gmp_compare_sim_puts_cores_figures_beside_each_herdlab_row() {
    use herdlab_bench::mechanisms::gmp::bench::{params, Runtime, Shape};
    let out = herdlab(&[
        "bench",
        "gmp",
        "--workers",
        "2",
        "--rounds",
        "1",
        "--work-ns",
        "1000",
        "--shrink",
        "50",
        "--compare-sim",
        "--g-code-ns",
        "250",
        "--poll-ns",
        "0",
        // the simulator's own wake (5 µs, plus its 1.5 µs switch, and nothing to the waker):
        // core's default cost model
        "--wake-ns",
        "6500",
        "--wake-ipi-ns",
        "0",
        "--coherence-miss-ns",
        "50",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    for r in v.as_array().unwrap() {
        if r["runtime"] == "tokio" {
            assert!(r.get("sim").is_none(), "{r}");
            continue;
        }
        let rt = Runtime::from_name(r["runtime"].as_str().unwrap()).unwrap();
        let shape = Shape::from_name(r["shape"].as_str().unwrap()).unwrap();
        // each simulated G's work: the row's 1,000 ns and the 250 ns given for a G's code
        assert_eq!(
            (
                &r["sim"]["g_code_ns"],
                &r["sim"]["g_code_measured"],
                &r["sim"]["sim_work_ns"],
                &r["sim"]["calibration"]
            ),
            (
                &250.into(),
                &false.into(),
                &1250.into(),
                &serde_json::Value::Null
            ),
            "{r}"
        );
        let p = GmpParams {
            work_ns: 1250,
            ..params(rt, shape, 2, 50).unwrap()
        };
        let tasks = p.goroutines as f64;
        // simulated with a coherence miss costing core's figure (as the flag asked)
        // and timed sleeps ending as late as this machine's timer slack, which it read
        let cost = herdlab_core::cost::CostModel {
            timer_slack_ns: r["sim"]["timer_slack_ns"].as_u64().unwrap(),
            ..GmpParams::native_cost()
        };
        #[cfg(target_os = "linux")]
        assert_eq!(r["sim"]["timer_slack_measured"], true, "{r}");
        assert_eq!(s_cost(r), cost.coherence_miss_ns, "{r}");
        let (_, want) = p.run_gated_with(cost, 50_000_000).unwrap();
        assert_eq!(
            r["sim"]["sim_coherence_misses"], want.coherence_misses,
            "{r}"
        );
        assert!(want.coherence_misses > 0, "{r}");
        assert_eq!(want.violation, None);
        assert_eq!(r["sim"]["steals"], want.steals, "{r}");
        assert_eq!(r["sim"]["parks"], want.parks, "{r}");
        assert_eq!(
            r["sim"]["steals_per_1k"].as_f64().unwrap(),
            want.steals as f64 * 1000.0 / tasks
        );
        assert_eq!(
            r["sim"]["native_parks_per_1k"].as_f64().unwrap(),
            r["parks"].as_u64().unwrap() as f64 * 1000.0 / tasks
        );
        // the pooled comparison: the simulator's seeds 1-8 (seed 1 is the run above), every
        // native round, each side's events summed and counted the same way
        let s = &r["sim"];
        let seeds = s["seeds"].as_u64().unwrap();
        assert_eq!(seeds, 8, "{r}");
        let runs = |k: &str| -> Vec<u64> {
            s[k].as_array()
                .unwrap_or_else(|| panic!("{k} missing in {r}"))
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect()
        };
        let (sim_steals, sim_parks) = (runs("sim_steals_runs"), runs("sim_parks_runs"));
        assert_eq!((sim_steals.len(), sim_parks.len()), (8, 8), "{r}");
        assert_eq!(
            (sim_steals[0], sim_parks[0]),
            (want.steals, want.parks),
            "{r}"
        );
        for seed in 2..=8u64 {
            let q = GmpParams { seed, ..p };
            let got = q.run_end_checked_gated_with(cost, 50_000_000).unwrap();
            assert_eq!(got.violation, None, "{q:?}");
            assert_eq!(got.finished, p.goroutines, "{q:?}");
            let i = seed as usize - 1;
            assert_eq!(
                (sim_steals[i], sim_parks[i]),
                (got.steals, got.parks),
                "{r}"
            );
        }
        assert_eq!(s["sim_steals_total"], sim_steals.iter().sum::<u64>(), "{r}");
        assert_eq!(s["sim_parks_total"], sim_parks.iter().sum::<u64>(), "{r}");
        // the median run on each side (the upper one of an even count, as the rows' medians)
        let median_run = |v: &[u64]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v[v.len() / 2]
        };
        assert_eq!(s["sim_steals_median_run"], median_run(&sim_steals), "{r}");
        assert_eq!(s["sim_parks_median_run"], median_run(&sim_parks), "{r}");
        let (nat_steals, nat_parks) = (runs("native_steals_runs"), runs("native_parks_runs"));
        // one entry per round, the row's median among them
        assert_eq!((nat_steals.len(), nat_parks.len()), (1, 1), "{r}");
        assert_eq!(s["native_runs"], 1, "{r}");
        assert_eq!(
            (&r["steals"], &r["parks"]),
            (&nat_steals[0].into(), &nat_parks[0].into()),
            "{r}"
        );
        assert_eq!(s["native_steals_total"], nat_steals[0], "{r}");
        assert_eq!(s["native_parks_total"], nat_parks[0], "{r}");
        assert_eq!(
            (
                &s["native_steals_median_run"],
                &s["native_parks_median_run"]
            ),
            (&nat_steals[0].into(), &nat_parks[0].into()),
            "{r}"
        );
        if rt == Runtime::Herdlab2012 {
            // one global queue: nothing to steal, on either side
            assert_eq!(
                (s["sim_steals_total"].as_u64(), nat_steals[0]),
                (Some(0), 0),
                "{r}"
            );
        }
        let pooled =
            |total: &str, n: u64| s[total].as_u64().unwrap() as f64 * 1000.0 / (tasks * n as f64);
        assert_eq!(
            s["sim_steals_per_1k_pooled"].as_f64().unwrap(),
            pooled("sim_steals_total", 8)
        );
        assert_eq!(
            s["native_parks_per_1k_pooled"].as_f64().unwrap(),
            pooled("native_parks_total", 1)
        );
        // each verdict as the rule gives it: a ratio only with 64 events on one side
        for fig in ["steals", "parks"] {
            let (st, nt) = (
                s[format!("sim_{fig}_total")].as_u64().unwrap(),
                s[format!("native_{fig}_total")].as_u64().unwrap(),
            );
            let v = s[format!("{fig}_verdict")].as_str().unwrap();
            let ratio = &s[format!("{fig}_ratio")];
            if st.max(nt) < 64 {
                assert_eq!((v, ratio.is_null()), ("too few events", true), "{r}");
            } else if v == "one run dominates" {
                // more than half of one side's events in one run (the native side has 1 run here)
                let sim_runs = runs(&format!("sim_{fig}_runs"));
                assert!(2 * sim_runs.iter().max().unwrap() > st, "{r}");
            } else if nt == 0 {
                assert_eq!((v, ratio.is_null()), ("differs", true), "{r}");
            } else {
                let x = ratio.as_f64().unwrap();
                let want = (st as f64 / (8.0 * tasks)) / (nt as f64 / tasks);
                assert!((x - want).abs() < 1e-9, "{r}");
                assert_eq!(
                    v,
                    if (x - 1.0).abs() <= 0.25 {
                        "within 25%"
                    } else {
                        "differs"
                    },
                    "{r}"
                );
            }
        }
    }
}

fn s_cost(r: &serde_json::Value) -> u64 {
    r["sim"]["coherence_miss_ns"].as_u64().unwrap()
}

#[test]
fn bench_gmp_coherence_miss_ns_sets_the_simulators_cost_and_0_turns_it_off() {
    use herdlab_bench::mechanisms::gmp::bench::{params, Runtime, Shape};
    let out = herdlab(&[
        "bench",
        "gmp",
        "--workers",
        "2",
        "--rounds",
        "1",
        "--shrink",
        "50",
        "--runtimes",
        "herdlab",
        "--shapes",
        "spawn_many",
        "--compare-sim",
        "--coherence-miss-ns",
        "0",
        "--g-code-ns",
        "0",
        "--poll-ns",
        "0",
        "--wake-ns",
        "6500",
        "--wake-ipi-ns",
        "0",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let r = &v.as_array().unwrap()[0];
    assert_eq!(s_cost(r), 0, "{r}");
    assert_eq!(r["sim"]["sim_work_ns"], 1, "{r}");
    assert_eq!(r["sim"]["sim_coherence_misses"], 0, "{r}");
    // the model without the cost: core's plain run
    let p = GmpParams {
        work_ns: 1,
        ..params(Runtime::Herdlab, Shape::SpawnMany, 2, 50).unwrap()
    };
    let (_, want) = p
        .run_gated_with(herdlab_core::cost::CostModel::default(), 50_000_000)
        .unwrap();
    assert_eq!(
        (&r["sim"]["steals"], &r["sim"]["parks"]),
        (&want.steals.into(), &want.parks.into()),
        "{r}"
    );
    refused(
        &[
            "bench",
            "gmp",
            "--compare-sim",
            "--coherence-miss-ns",
            "10001",
        ],
        "allowed 0-10000",
    );
    // sim gmp: off by default, on with the flag (the report counts the misses)
    let args = [
        "sim",
        "gmp",
        "--gomaxprocs",
        "2",
        "--threads",
        "3",
        "--cpus",
        "2",
        "--workload",
        "spawn-many",
        "--goroutines",
        "200",
        "--json",
    ];
    let off = json_of(&herdlab(&args));
    assert_eq!(off["coherence_misses"], 0);
    let on = json_of(&herdlab(
        &[&args[..], &["--coherence-miss-ns", "50"]].concat(),
    ));
    let q = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        cpus: 2,
        workload: Workload::SpawnMany,
        goroutines: 200,
        ..GmpParams::default()
    };
    let (_, want) = q.run_with(GmpParams::native_cost(), 50_000_000);
    assert!(want.coherence_misses > 0);
    assert_eq!(on["coherence_misses"], want.coherence_misses);
    assert_eq!(on["sim_time_ns"], want.sim_time_ns);
    assert_eq!(on["steals"], want.steals);
}

/// By default `--compare-sim` measures what a G costs beyond the simulator's charge for its table
/// steps (a one-P fan-out timed here and simulated) and how long a wake onto an idle CPU takes on
/// this machine before the rounds, adds the first to each simulated G's work and makes the second
/// the simulator's wake, with no coherence cost: the simulator's figures are core's runs of that
/// scenario.
#[test]
fn bench_gmp_compare_sim_measures_a_gs_code_and_a_wake_and_simulates_with_them() {
    use herdlab_bench::mechanisms::gmp::bench::{params, Runtime, Shape};
    let out = herdlab(&[
        "bench",
        "gmp",
        "--workers",
        "2",
        "--rounds",
        "1",
        "--shrink",
        "50",
        "--runtimes",
        "herdlab",
        "--shapes",
        "spawn_many,chained_spawn,yield_many",
        "--compare-sim",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let g = rows[0]["sim"]["g_code_ns"].as_u64().unwrap();
    assert!(g >= 1, "{v}");
    assert_eq!(rows[0]["sim"]["g_code_measured"], true, "{v}");
    // measured as the difference of a one-P fan-out's run phase per G, native and simulated;
    // the simulated figures are core's phases of spawn_many_task at tokio's size on 1 worker
    let cal = &rows[0]["sim"]["calibration"];
    assert_eq!(
        (&cal["goroutines"], &cal["runs"]),
        (&10_000.into(), &7.into()),
        "{v}"
    );
    let phases = GmpParams {
        work_ns: 1,
        ..params(Runtime::Herdlab, Shape::SpawnManyTask, 1, 1).unwrap()
    }
    .fan_out_phases(herdlab_core::cost::CostModel::default(), 50_000_000)
    .unwrap();
    assert_eq!(cal["g_run_sim_ns"], phases.run_per_g() - 1, "{v}");
    assert_eq!(cal["newproc_sim_ns"], phases.spawn_per_g(), "{v}");
    let native = cal["g_run_native_ns"].as_u64().unwrap();
    assert_eq!(
        g,
        native.saturating_sub(phases.run_per_g() - 1).max(1),
        "{v}"
    );
    for k in [
        "go_code_native_ns",
        "newproc_native_ns",
        "g_run_native_ns",
        "atomic_fit_ns",
    ] {
        assert!(cal[k].as_u64().unwrap() > 0, "{k}: {v}");
    }
    // the simulated newproc at the fitted atomic cost is the native one, to within the rounding
    // of a whole ns of atomics (7 read-modify-writes a G) and the seeded jitter
    let fit = cal["atomic_fit_ns"].as_u64().unwrap();
    if (2..1_000).contains(&fit) {
        let at_fit = GmpParams {
            work_ns: 1,
            ..params(Runtime::Herdlab, Shape::SpawnManyTask, 1, 1).unwrap()
        }
        .fan_out_phases(
            herdlab_core::cost::CostModel {
                atomic_ns: fit,
                ..Default::default()
            },
            50_000_000,
        )
        .unwrap();
        let native_newproc = cal["newproc_native_ns"].as_u64().unwrap();
        assert!(
            at_fit.spawn_per_g().abs_diff(native_newproc) <= 8,
            "{} vs {native_newproc}: {v}",
            at_fit.spawn_per_g()
        );
    }
    assert_eq!(rows[0]["sim"]["atomic_ns"], 15, "the model's own: {v}");
    // a poll after a yield: a one-P yield_many's time per yield, native less simulated (the
    // simulated run core's, each G's work the G's code just measured, no poll cost)
    let y = params(Runtime::Herdlab, Shape::YieldMany, 1, 1).unwrap();
    let ys = GmpParams {
        work_ns: g as u32,
        ..y
    }
    .run_end_checked_gated_with(herdlab_core::cost::CostModel::default(), 50_000_000)
    .unwrap();
    let yields = u64::from(y.goroutines * y.yields);
    assert_eq!(cal["yield_sim_ns"], ys.sim_time_ns / yields, "{v}");
    let yield_native = cal["yield_native_ns"].as_u64().unwrap();
    assert!(yield_native > 0, "{v}");
    let poll = yield_native.saturating_sub(ys.sim_time_ns / yields);
    for r in rows {
        assert_eq!(
            &r["sim"]["calibration"], cal,
            "one calibration for the run: {v}"
        );
    }
    // and how long a wake onto an idle CPU takes here (a machine with one CPU has no idle CPU:
    // the simulator's own figure)
    let wake = rows[0]["sim"]["wake_ns"].as_u64().unwrap();
    let multi = std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
    assert_eq!(rows[0]["sim"]["wake_measured"], multi, "{v}");
    // and, from the same wakes, what such a wake costs the waker (the IPI)
    let ipi = rows[0]["sim"]["wake_ipi_ns"].as_u64().unwrap();
    assert_eq!(rows[0]["sim"]["wake_ipi_measured"], multi, "{v}");
    // and this machine's timer slack, read
    let slack = rows[0]["sim"]["timer_slack_ns"].as_u64().unwrap();
    #[cfg(target_os = "linux")]
    assert_eq!(rows[0]["sim"]["timer_slack_measured"], true, "{v}");
    let plain = herdlab_core::cost::CostModel::default();
    let cost = herdlab_core::cost::CostModel {
        cross_cpu_wake_ns: wake.saturating_sub(plain.context_switch_ns),
        wake_ipi_ns: ipi,
        timer_slack_ns: slack,
        ..plain
    };
    for r in rows {
        let s = &r["sim"];
        // one measurement for the whole run, added to the rows' 0 ns of work
        assert_eq!(
            (s["g_code_ns"].as_u64(), s["sim_work_ns"].as_u64()),
            (Some(g), Some(g))
        );
        assert_eq!(s["wake_ns"].as_u64(), Some(wake));
        assert_eq!(s["wake_ipi_ns"].as_u64(), Some(ipi));
        assert_eq!(s["timer_slack_ns"].as_u64(), Some(slack));
        // Go's usleep(3) before stealing a runnext: simulated, the call's entry, the 3 µs, the
        // slack and the wake from idle; natively measured, never shorter than asked
        assert_eq!(
            s["runnext_sleep_sim_ns"].as_u64(),
            Some(plain.syscall_ns + 3_000 + slack + wake),
            "{r}"
        );
        assert!(
            s["runnext_sleep_native_ns"].as_u64().unwrap() >= 3_000,
            "{r}"
        );
        assert_eq!(s_cost(r), 0, "{r}");
        assert_eq!(s["sim_coherence_misses"], 0, "{r}");
        let shape = Shape::from_name(r["shape"].as_str().unwrap()).unwrap();
        // the poll cost only where Gs yield
        let poll_here = if shape == Shape::YieldMany { poll } else { 0 };
        assert_eq!(s["poll_ns"].as_u64(), Some(poll_here), "{r}");
        assert_eq!(s["poll_measured"], poll_here > 0, "{r}");
        let p = GmpParams {
            work_ns: g as u32,
            poll_ns: poll_here as u32,
            ..params(Runtime::Herdlab, shape, 2, 50).unwrap()
        };
        let (_, want) = p.run_gated_with(cost, 50_000_000).unwrap();
        assert_eq!(want.violation, None);
        assert_eq!(
            (&s["steals"], &s["parks"], &s["sim_time_ns"]),
            (
                &want.steals.into(),
                &want.parks.into(),
                &want.sim_time_ns.into()
            ),
            "{r}"
        );
    }
    let text = herdlab(&[
        "bench",
        "gmp",
        "--workers",
        "1",
        "--rounds",
        "1",
        "--shrink",
        "50",
        "--runtimes",
        "herdlab",
        "--shapes",
        "spawn_many",
        "--compare-sim",
        "--g-code-ns",
        "120",
        "--poll-ns",
        "0",
        "--wake-ns",
        "9000",
    ]);
    assert_eq!(text.status.code(), Some(0));
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(
        t.contains("each G's work 120 ns (a G beyond its table steps 120 ns, from --g-code-ns"),
        "{t}"
    );
    assert!(t.contains("a wake onto an idle CPU 9000 ns (given)"), "{t}");
    refused(
        &["bench", "gmp", "--compare-sim", "--wake-ns", "0"],
        "allowed 1-1000000",
    );
    refused(
        &["bench", "gmp", "--compare-sim", "--g-code-ns", "100001"],
        "allowed 0-100000",
    );
}

/// `--atomic-ns` sets the simulator's atomic read-modify-write for every row's simulation (and
/// the calibration's, which then measures a G's code against that table cost).
#[test]
fn bench_gmp_compare_sim_atomic_ns_sets_the_simulators_atomic_cost() {
    use herdlab_bench::mechanisms::gmp::bench::{params, Runtime, Shape};
    let out = herdlab(&[
        "bench",
        "gmp",
        "--workers",
        "2",
        "--rounds",
        "1",
        "--shrink",
        "50",
        "--runtimes",
        "herdlab",
        "--shapes",
        "ping_pong",
        "--compare-sim",
        "--atomic-ns",
        "40",
        "--g-code-ns",
        "100",
        "--poll-ns",
        "0",
        "--wake-ns",
        "6500",
        "--wake-ipi-ns",
        "3000",
        "--timer-slack-ns",
        "20000",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let r = &v.as_array().unwrap()[0];
    // --timer-slack-ns given: not read from the machine
    assert_eq!(
        (
            &r["sim"]["timer_slack_ns"],
            &r["sim"]["timer_slack_measured"]
        ),
        (&20000.into(), &false.into()),
        "{r}"
    );
    assert_eq!(
        (&r["sim"]["atomic_ns"], &r["sim"]["calibration"]),
        (&40.into(), &serde_json::Value::Null),
        "{r}"
    );
    // --wake-ipi-ns given: not measured (no wake is: --wake-ns is given too)
    assert_eq!(
        (&r["sim"]["wake_ipi_ns"], &r["sim"]["wake_ipi_measured"]),
        (&3000.into(), &false.into()),
        "{r}"
    );
    let p = GmpParams {
        work_ns: 100,
        ..params(Runtime::Herdlab, Shape::PingPong, 2, 50).unwrap()
    };
    let at = |atomic_ns| {
        let cost = herdlab_core::cost::CostModel {
            atomic_ns,
            wake_ipi_ns: 3000,
            timer_slack_ns: 20_000,
            ..Default::default()
        };
        p.run_gated_with(cost, 50_000_000).unwrap().1
    };
    let (dear, plain) = (at(40), at(15));
    assert_eq!(r["sim"]["sim_time_ns"], dear.sim_time_ns, "{r}");
    assert!(dear.sim_time_ns > plain.sim_time_ns, "{r}");
    refused(
        &["bench", "gmp", "--compare-sim", "--atomic-ns", "0"],
        "allowed 1-1000",
    );
}

#[test]
fn compare_sim_verdicts_give_no_ratio_for_too_few_events() {
    use herdlab_bench::mechanisms::gmp::bench::{one_run_dominates, verdict, MIN_EVENTS};
    assert_eq!(MIN_EVENTS, 64);
    // 0 vs 0 (one P: nothing to steal) and 11 vs 3 (the old yield_many row): too few
    assert_eq!(verdict(0, 8_000, 0, 5_000), ("too few events", None));
    assert_eq!(verdict(11, 200, 3, 200), ("too few events", None));
    assert_eq!(verdict(63, 1_000, 63, 1_000), ("too few events", None));
    // enough on one side: a ratio of the rates per task (8 seeds against 5 runs)
    let near = |(v, r): (&str, Option<f64>), want: &str, x: f64| {
        assert_eq!(v, want);
        assert!((r.unwrap() - x).abs() < 1e-9, "{r:?} vs {x}");
    };
    near(verdict(80, 8_000, 50, 5_000), "within 25%", 1.0);
    near(verdict(64, 1_000, 80, 1_000), "within 25%", 0.8);
    near(verdict(120, 1_000, 100, 1_000), "within 25%", 1.2);
    near(verdict(64, 1_000, 40, 1_000), "differs", 1.6);
    near(verdict(30, 1_000, 70, 1_000), "differs", 30.0 / 70.0);
    assert_eq!(verdict(490, 80_000, 1, 50_000).0, "differs");
    // none natively, many simulated: differs, no ratio
    assert_eq!(verdict(490, 80_000, 0, 50_000), ("differs", None));
    // one run holding more than half of a side's events (of 3 runs or more, 64 events or more)
    assert!(one_run_dominates(&[0, 4, 1141, 2, 0]));
    assert!(!one_run_dominates(&[30, 40, 35]));
    assert!(
        !one_run_dominates(&[60, 0]),
        "two runs: no tail to speak of"
    );
    assert!(!one_run_dominates(&[0, 40, 2]), "fewer than 64 events");
    assert!(one_run_dominates(&[0, 64, 0]));
}

#[test]
fn sim_gmp_hands_off_retakes_and_preempts_with_exact_counts() {
    let base = [
        "sim",
        "gmp",
        "--gomaxprocs",
        "1",
        "--threads",
        "6",
        "--cpus",
        "7",
        "--goroutines",
        "8",
        "--work-ns",
        "100000",
        "--hog-ns",
        "30000000",
        "--rounds",
        "100",
        "--json",
    ];
    let sim = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        let out = herdlab(&a);
        assert_eq!(out.status.code(), Some(0), "{extra:?}");
        json_of(&out)
    };
    let v = sim(&["--workload", "syscall"]);
    assert_eq!(
        (
            &v["handoffs"],
            &v["retakes"],
            &v["syscalls"],
            &v["syscall_stops"]
        ),
        (&5.into(), &5.into(), &5.into(), &1.into())
    );
    assert_eq!(v["violation"], serde_json::Value::Null);
    assert_eq!(v["sysmon_deep_sleeps"], 2);
    let v = sim(&["--workload", "syscall", "--variant", "no-syscall-retake"]);
    assert_eq!((&v["handoffs"], &v["retakes"]), (&0.into(), &0.into()));
    assert_eq!(v["violation"]["invariant"], "syscall-retake");
    let v = sim(&["--workload", "hog"]);
    assert_eq!(
        (&v["preempt_requests"], &v["preemptions"]),
        (&1.into(), &1.into())
    );
    let v = sim(&["--workload", "hog", "--variant", "no-async-preemption"]);
    assert_eq!(v["preemptions"], 0);
    assert_eq!(v["violation"]["invariant"], "preemption");
    let v = sim(&["--workload", "pair", "--variant", "runnext-without-sysmon"]);
    assert_eq!(v["violation"]["invariant"], "starvation");
    // a blocked M and sysmon sleep off every CPU: 1 P on 2 CPUs makes the same hand-offs
    let mut two = base.to_vec();
    two[7] = "2";
    two.extend_from_slice(&["--workload", "syscall"]);
    let out = herdlab(&two);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!((&v["handoffs"], &v["retakes"]), (&5.into(), &5.into()));
    assert_eq!(v["sim_time_ns"], 1_501_307);
    // and fewer CPUs than threads is no longer bad input
    let out = herdlab(&["sim", "gmp", "--workload", "hog", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let out = herdlab(&[
        "sim",
        "gmp",
        "--workload",
        "pair",
        "--goroutines",
        "3",
        "--cpus",
        "7",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_gmp_finds_the_stuck_syscall_p_and_proves_the_runtime_on_its_preset() {
    let out = herdlab(&[
        "check",
        "gmp",
        "--variant",
        "no-syscall-retake",
        "--preemption-bound",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["violation"]["invariant"], "syscall-retake");
    assert_eq!(v["violation"]["schedule"].as_array().unwrap().len(), 35);
    let out = herdlab(&[
        "check",
        "gmp",
        "--workload",
        "syscall",
        "--preemption-bound",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(
        (&v["complete"], &v["states"]),
        (&true.into(), &268_393.into())
    );
}

#[test]
fn native_blocking_syscalls_hand_their_ps_off() {
    // 1 P, 8 Gs: main and every even G sleep 2 ms in nanosleep(2) (the table's blocking
    // syscall); sysmon (a real thread, usleep) retakes the P from each blocked M and hands it to
    // a parked one, so the odd Gs run while the sleepers are in the kernel. Counts only: the
    // timing is the machine's.
    use herdlab_bench::mechanisms::gmp::native;
    let p = GmpParams {
        gomaxprocs: 1,
        threads: 6,
        cpus: 7,
        goroutines: 8,
        work_ns: 10_000,
        syscall_ns: 2_000_000,
        workload: Workload::Syscall,
        ..GmpParams::default()
    };
    let r = native::run(&p, 10_000).expect("a native run");
    assert_eq!(r.finished, 8);
    assert_eq!(r.counts.syscalls, 5);
    assert!(r.counts.retakes >= 1, "{:?}", r.counts);
    assert!(r.counts.handoffs >= 1, "{:?}", r.counts);
}

#[test]
fn bench_gmp_blocking_prints_a_row_per_runtime_with_herdlabs_retakes() {
    let out = herdlab(&[
        "bench",
        "gmp",
        "--blocking",
        "--workers",
        "1",
        "--rounds",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let rows = v.as_array().expect("rows");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["runtime"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["herdlab", "herdlab-no-retake", "tokio"]);
    for r in rows {
        assert_eq!(
            (&r["shape"], &r["workers"], &r["tasks"]),
            (&"blocking".into(), &1.into(), &16.into())
        );
        assert!(r["median_ns"].as_u64().unwrap() > 0);
    }
    assert!(rows[0]["retakes"].as_u64().unwrap() >= 1);
    assert!(rows[0]["handoffs"].as_u64().unwrap() >= 1);
    assert_eq!(rows[1]["retakes"], 0);
    assert_eq!(rows[2]["retakes"], serde_json::Value::Null);
}

#[test]
fn native_locked_goroutines_run_only_on_their_own_thread() {
    // core's `locked` workload on real threads: the Gs that call LockOSThread run only on the M
    // they locked while locked (each M records the Gs it executed and unlocked; `native::run`
    // refuses a locked G that never unlocked on another M), every return of a locked G is one
    // startlockedm and one stoplockedm; with 2 locked, G2 calls UnlockOSThread after 10 of its
    // 20 Gosched calls (the same table rows as the simulator's) and the last locked G's thread
    // exits with it
    use herdlab_bench::mechanisms::gmp::native;
    for (procs, locked) in [(1, 1), (2, 1), (2, 2), (1, 2)] {
        let p = GmpParams {
            gomaxprocs: procs,
            threads: procs + locked + 2,
            cpus: procs,
            goroutines: 6,
            yields: 20,
            ring: 16,
            workload: Workload::Locked,
            locked,
            ..GmpParams::default()
        };
        let r = native::run(&p, 1_000).unwrap_or_else(|e| panic!("{p:?}: {}", e.0));
        let c = r.counts;
        let unlocking = locked as u64 - 1;
        assert_eq!(r.finished, 6, "{p:?}");
        assert_eq!((c.locks, c.unlocks), (locked as u64, unlocking), "{p:?}");
        assert_eq!(c.locked_handoffs, 20 + 10 * unlocking, "{p:?}");
        assert_eq!(c.lockedm_parks, 20 + 10 * unlocking, "{p:?}");
        assert_eq!(c.locked_exits, 1, "{p:?}");
        // a locked G runs once, and once more after each Gosched while locked, on its M: the
        // last one all 21 times; an unlocked one 11 times there, and any of its last 10 there
        // or elsewhere
        assert!(
            (21 + 11 * unlocking..=21 + 21 * unlocking).contains(&r.locked_runs),
            "{p:?}: {}",
            r.locked_runs
        );
    }
}

#[test]
fn sim_gmp_locked_counts_the_handoffs_of_lockosthread() {
    let args = |locked: &str| {
        herdlab(&[
            "sim",
            "gmp",
            "--workload",
            "locked",
            "--gomaxprocs",
            "2",
            "--threads",
            "4",
            "--goroutines",
            "9",
            "--yields",
            "20",
            "--locked",
            locked,
            "--json",
        ])
    };
    let (out, free) = (args("1"), args("0"));
    assert_eq!(out.status.code(), Some(0));
    let (v, w) = (json_of(&out), json_of(&free));
    assert_eq!(v["status"], "finished");
    assert_eq!(v["violation"], serde_json::Value::Null);
    assert_eq!(
        (
            &v["locked_handoffs"],
            &v["lockedm_parks"],
            &v["locked_exits"]
        ),
        (&20.into(), &20.into(), &1.into())
    );
    // one hand-off per stoplockedm, and one as G2's thread exits and hands its P on
    assert_eq!((&v["handoffs"], &w["handoffs"]), (&21.into(), &0.into()));
    assert_eq!(v["context_switches"], w["context_switches"]);
    // the text names the counts
    let out = herdlab(&["sim", "gmp", "--workload", "locked", "--locked", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("locked handoffs (startlockedm) 10"), "{text}");
    refused(
        &["sim", "gmp", "--workload", "locked", "--locked", "17"],
        "0-16",
    );
    refused(
        &[
            "sim",
            "gmp",
            "--workload",
            "locked",
            "--locked",
            "3",
            "--threads",
            "6",
        ],
        "more Ms than gomaxprocs + locked",
    );
}

#[test]
fn check_gmp_proves_lockosthread_and_catches_locked_runs_anywhere() {
    let out = herdlab(&[
        "check",
        "gmp",
        "--workload",
        "locked",
        "--preemption-bound",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(
        (&v["complete"], &v["states"]),
        (&true.into(), &117_733.into())
    );
    let out = herdlab(&[
        "check",
        "gmp",
        "--variant",
        "locked-runs-anywhere",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["violation"]["invariant"], "locked-thread");
    assert_eq!(v["violation"]["schedule"].as_array().unwrap().len(), 68);
    let out = herdlab(&["check", "gmp", "--list-variants"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("locked-runs-anywhere") && text.contains("-> locked-thread"),
        "{text}"
    );
}

#[test]
fn bench_gmp_locked_prints_a_row_with_and_without_the_lock() {
    let out = herdlab(&[
        "bench",
        "gmp",
        "--locked",
        "--workers",
        "1",
        "--rounds",
        "1",
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
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["runtime"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["herdlab", "herdlab-locked"]);
    for r in rows {
        assert_eq!(
            (&r["shape"], &r["workers"], &r["tasks"]),
            (&"locked".into(), &1.into(), &9.into())
        );
        assert!(r["median_ns"].as_u64().unwrap() > 0);
    }
    // 200 returns of the locked G: 200 startlockedm, 200 stoplockedm, 201 runs on its M
    assert_eq!(
        (
            &rows[1]["locked_handoffs"],
            &rows[1]["lockedm_parks"],
            &rows[1]["locked_runs"]
        ),
        (&200.into(), &200.into(), &201.into())
    );
    assert_eq!(rows[0]["locked_handoffs"], 0);
    refused(&["bench", "gmp", "--locked", "--blocking"], "give one");
}

#[test]
fn native_netpoll_parks_every_read_on_the_poller_and_every_answer_runs_its_g() {
    // real threads: each G's peer sleeps 300 µs in the kernel (clock_nanosleep), then pushes the
    // fd on the ready list and futex-wakes the poller; the last M with nothing to do blocks in
    // the kernel (futex) as THE poller
    use herdlab_bench::mechanisms::gmp::native;
    for (procs, threads, gs) in [(1, 2, 4), (2, 4, 16)] {
        let p = GmpParams {
            gomaxprocs: procs,
            threads,
            cpus: procs,
            workload: Workload::Netpoll,
            goroutines: gs,
            rounds: 3,
            net_ns: 300_000,
            ..GmpParams::default()
        };
        let r = native::run(&p, 2_000).expect("a native netpoll run");
        let c = &r.counts;
        assert_eq!(r.finished, gs);
        assert_eq!(c.netpoll_ready, c.netpoll_parks, "{c:?}");
        // a read parks unless its answer was found ready before the park's commit (with 300 µs
        // of network delay nearly all park on a quiet machine; how many, and whether the last
        // idle M blocked in the poller, is the machine's timing: a thread descheduled for
        // longer than the delay finds its answer there already), and every park was ended by a
        // poll of an M (no sysmon in this world)
        assert!(c.netpoll_parks <= 3 * gs as u64, "{c:?}");
        assert!(c.netpoll_parks == 0 || c.netpoll_polls >= 1, "{c:?}");
        // three reads of 300 µs one after the other take at least 900 µs
        assert!(r.wall_ns >= 900_000, "{}", r.wall_ns);
    }
}

#[test]
fn native_and_simulated_deadlocks_end_in_checkdeads_report() {
    use herdlab_bench::mechanisms::gmp::native;
    let p = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        cpus: 2,
        workload: Workload::Deadlock,
        goroutines: 4,
        ..GmpParams::default()
    };
    let e = native::run(&p, 2_000).expect_err("a deadlock");
    assert!(
        e.to_string()
            .contains("fatal error: all goroutines are asleep - deadlock!"),
        "{e}"
    );
    let out = herdlab(&[
        "sim",
        "gmp",
        "--workload",
        "deadlock",
        "--goroutines",
        "4",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["fatal"], "all goroutines are asleep - deadlock!");
    assert_eq!(v["finished"], 3);
}

#[test]
fn sim_gmp_netpoll_reports_the_pollers_counters_and_check_finds_the_missing_poll() {
    let out = herdlab(&[
        "sim",
        "gmp",
        "--workload",
        "netpoll",
        "--goroutines",
        "10",
        "--rounds",
        "2",
        "--net-ns",
        "50000",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["finished"], 10);
    assert_eq!(v["netpoll_parks"], 20);
    assert_eq!(v["netpoll_ready"], 20);
    assert!(v["netpoll_blocks"].as_u64().unwrap_or(0) >= 1);
    assert!(v["fatal"].is_null());
    let out = herdlab(&["check", "gmp", "--list-variants"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.contains("no-blocking-netpoll"), "{list}");
    let out = herdlab(&["check", "gmp", "--variant", "no-blocking-netpoll", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("deadlock-report"), "{text}");
}

#[test]
fn bench_gmp_netpoll_prints_a_row_per_runtime_with_the_pollers_counters() {
    let out = herdlab(&[
        "bench",
        "gmp",
        "--netpoll",
        "--workers",
        "1",
        "--rounds",
        "1",
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
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["runtime"], "herdlab");
    assert_eq!(rows[0]["shape"], "netpoll");
    // every read but those whose answer beat the park parks: 64 tasks, 3 reads
    let parks = rows[0]["netpoll_parks"].as_u64().expect("parks");
    assert!((128..=192).contains(&parks), "{parks}");
    // only the Ms' polls find the answers here (no sysmon in this world); whether one of them
    // is the blocking poll is the machine's timing (under load the answers can all be in the
    // kernel's ready list before an M runs out of work), so that count is not asserted
    assert!(rows[0]["netpoll_polls"].as_u64().unwrap_or(0) >= 1);
    assert_eq!(rows[1]["runtime"], "tokio");
    assert!(rows[1]["netpoll_parks"].is_null());
    // 3 requests of 200 µs one after another: at least 600 µs
    assert!(rows[0]["median_ns"].as_u64().unwrap_or(0) >= 600_000);
}

/// `sim gmp --wake-ns N`: a wake onto an idle CPU takes N ns in all (the simulator's
/// `cross_cpu_wake_ns` is N less its switch), as `bench gmp --compare-sim` simulates it; without
/// the flag the model's own 6.5 µs, as on the site.
#[test]
fn sim_gmp_wake_ns_sets_the_simulated_wake_onto_an_idle_cpu() {
    use herdlab_core::cost::CostModel;
    let args = [
        "sim",
        "gmp",
        "--gomaxprocs",
        "2",
        "--threads",
        "3",
        "--cpus",
        "2",
        "--workload",
        "chain",
        "--goroutines",
        "1000",
        "--work-ns",
        "72",
        "--ring",
        "256",
        "--json",
    ];
    let q = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        cpus: 2,
        workload: Workload::Chain,
        goroutines: 1000,
        work_ns: 72,
        ring: 256,
        ..GmpParams::default()
    };
    let plain = json_of(&herdlab(&args));
    let (_, want) = q.run(50_000_000);
    assert_eq!(
        (&plain["parks"], &plain["sim_time_ns"]),
        (&want.parks.into(), &want.sim_time_ns.into())
    );
    let slow = json_of(&herdlab(&[&args[..], &["--wake-ns", "21000"]].concat()));
    let cost = CostModel {
        cross_cpu_wake_ns: 21_000 - CostModel::default().context_switch_ns,
        ..CostModel::default()
    };
    let (_, want) = q.run_with(cost, 50_000_000);
    assert_eq!(
        (&slow["parks"], &slow["sim_time_ns"]),
        (&want.parks.into(), &want.sim_time_ns.into())
    );
    // the knob changes the run (not in one direction: how often the idle M goes round wake,
    // spin, park depends on where main's wakep lands in M1's stopm, 11 times at 6.5 µs and 4
    // at 21 µs here)
    assert_eq!(
        (plain["parks"].as_u64(), slow["parks"].as_u64()),
        (Some(11), Some(4))
    );
    assert!(
        slow["sim_time_ns"].as_u64() != plain["sim_time_ns"].as_u64(),
        "{slow} {plain}"
    );
    refused(&["sim", "gmp", "--wake-ns", "0"], "allowed 1-1000000");
    // --atomic-ns: the atomic read-modify-write's cost (bench gmp --compare-sim's atomic_fit_ns)
    let dear = json_of(&herdlab(&[&args[..], &["--atomic-ns", "27"]].concat()));
    let cost = CostModel {
        atomic_ns: 27,
        ..CostModel::default()
    };
    let (_, want) = q.run_with(cost, 50_000_000);
    assert_eq!(
        (&dear["parks"], &dear["sim_time_ns"]),
        (&want.parks.into(), &want.sim_time_ns.into())
    );
    assert!(
        dear["sim_time_ns"].as_u64() > plain["sim_time_ns"].as_u64(),
        "{dear} {plain}"
    );
    refused(&["sim", "gmp", "--atomic-ns", "0"], "allowed 1-1000");
    // --wake-ipi-ns: what a wake onto an idle CPU costs its waker (bench gmp --compare-sim
    // measures it); main's wakes of a sleeping M cost main that much more, so the chain is longer
    let ipi = json_of(&herdlab(&[&args[..], &["--wake-ipi-ns", "7000"]].concat()));
    let cost = CostModel {
        wake_ipi_ns: 7000,
        ..CostModel::default()
    };
    let (_, want) = q.run_with(cost, 50_000_000);
    assert_eq!(
        (&ipi["parks"], &ipi["sim_time_ns"]),
        (&want.parks.into(), &want.sim_time_ns.into())
    );
    assert!(
        ipi["sim_time_ns"].as_u64() > plain["sim_time_ns"].as_u64(),
        "{ipi} {plain}"
    );
    refused(
        &["sim", "gmp", "--wake-ipi-ns", "1000001"],
        "allowed 0-1000000",
    );
}

/// `sim gmp --gate` starts as `bench gmp`'s native runs start (every idle M asleep before the
/// starter's first step: core's `GmpParams::run_gated_with`, whose effect on M1's first wake
/// core's `a_gated_start_has_the_idle_ms_asleep_so_m1_does_not_keep_pace_with_mains_spawns`
/// checks); without it, as the site starts (`run_with`). Before the runnext steal's `usleep(3)`
/// was a sleep, the raced M1 also kept pace with the spawns here and stole 11 times to the gated
/// one's 1; now the two starts differ in their details only.
#[test]
fn sim_gmp_gate_starts_with_the_idle_ms_asleep() {
    use herdlab_core::cost::CostModel;
    let base = [
        "sim",
        "gmp",
        "--gomaxprocs",
        "2",
        "--threads",
        "3",
        "--cpus",
        "2",
        "--workload",
        "fan-out",
        "--goroutines",
        "2000",
        "--work-ns",
        "85",
        "--ring",
        "256",
        "--wake-ns",
        "16000",
        "--json",
    ];
    let q = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        cpus: 2,
        workload: Workload::FanOut,
        goroutines: 2000,
        work_ns: 85,
        ring: 256,
        ..GmpParams::default()
    };
    let cost = CostModel::default().with_idle_wake_ns(16_000);
    let run = |gate: bool| {
        let mut args = base.to_vec();
        if gate {
            args.push("--gate");
        }
        let out = herdlab(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let v = json_of(&out);
        assert_eq!(v["status"], "finished");
        assert_eq!(v["finished"], 2000);
        let want = if gate {
            q.run_gated_with(cost, 50_000_000)
                .expect("the idle Ms sleep")
                .1
        } else {
            q.run_with(cost, 50_000_000).1
        };
        assert_eq!(
            (&v["steps"], &v["steals"], &v["sim_time_ns"]),
            (
                &want.steps.into(),
                &want.steals.into(),
                &want.sim_time_ns.into()
            ),
            "gate {gate}"
        );
        v["steps"].as_u64().unwrap()
    };
    assert_ne!(run(true), run(false), "the gate changes the run");
}
