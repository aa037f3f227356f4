//! `herdlab sim mysql`, `check mysql` and `bench mysql`: the simulator's report is core's (the
//! bench contract's keys, in order), the checker proves the pool's preset and finds the thread
//! cache's broken hand-off with its steps; the loopback server answers every query exactly once,
//! creates one thread per connection per-connection and a few per group with the pool; bad input
//! exits 2 naming the allowed values. Bounded: small scenarios, the checker's presets, a few
//! hundred queries over at most 48 loopback connections.

use std::process::{Command, Output};

use herdlab_core::mechanisms::mysql::{ClientCpus, Mode, MysqlParams};

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

/// `sim mysql --think-us`: the clients as a closed loop (what `bench mysql --compare-sim`
/// runs): the report says so, every query is answered, and the load generator's own threads are
/// not the server's (threads, switches).
#[test]
fn sim_mysql_think_us_runs_the_clients_as_a_closed_loop() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "sim",
            "mysql",
            "--mode",
            "per-connection",
            "--connections",
            "16",
            "--queries",
            "300",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = herdlab(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        json_of(&out)
    };
    let open = run(&[]);
    assert_eq!(open["think_us"], serde_json::Value::Null);
    let closed = run(&["--think-us", "1000"]);
    assert_eq!(closed["think_us"], 1000);
    assert_eq!(closed["status"], "finished");
    assert_eq!(closed["queries_done"], 300);
    assert_eq!(closed["violation"], serde_json::Value::Null);
    assert_eq!(closed["os_threads_max"], 16, "{closed}");
    // one blocking read per query (a client never has two queries outstanding)
    let v = closed["ctx_switches_voluntary_per_query"].as_f64().unwrap();
    assert!((0.9..=1.1).contains(&v), "{closed}");
    let out = herdlab(&["sim", "mysql", "--queries", "30", "--think-us", "500"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("clients: a closed loop, 500 us mean think time"),
        "{s}"
    );
    refused(&["sim", "mysql", "--think-us", "0"], "allowed 1-1000000");
    // --clients-apart: the same run with the load generator on CPUs of its own (core's
    // run_closed_on with ClientCpus::Apart); the server's figures are its own either way
    assert_eq!(closed["clients_apart"], false);
    let apart = run(&["--think-us", "1000", "--clients-apart"]);
    assert_eq!(apart["clients_apart"], true);
    assert_eq!(apart["queries_done"], 300);
    assert_eq!(apart["os_threads_max"], 16, "{apart}");
    let core = MysqlParams {
        mode: Mode::PerConnection,
        connections: 16,
        queries: 300,
        ..Default::default()
    }
    .run_closed_on(1_000_000, ClientCpus::Apart, u64::MAX)
    .1;
    assert_eq!(apart["p95_ns"], core.p95_ns, "{apart}");
    assert_eq!(apart["ctx_switches_per_query"], core.ctx_switches_per_query);
    refused(
        &["sim", "mysql", "--clients-apart"],
        "--clients-apart: places a closed loop's load generator; allowed: with --think-us",
    );
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
    refused(
        &["sim", "mysql", "--sched", "cfs"],
        "--sched: 'cfs' is not allowed; allowed: fair, eevdf",
    );
    refused(
        &["bench", "mysql", "--sched", "fifo"],
        "--sched: 'fifo' is not allowed; allowed: fair, eevdf",
    );
}

/// `--sched eevdf` runs core's EEVDF policy: the JSON says so and carries core's report of the
/// same scenario with `sched` set, which differs from the fair policy's.
#[test]
fn sim_mysql_sched_chooses_the_simulated_kernels_scheduler() {
    use herdlab_core::mechanisms::mysql::{Mode, MysqlParams};
    use herdlab_core::sim::SchedPolicy;
    let args = [
        "sim",
        "mysql",
        "--mode",
        "per-connection",
        "--connections",
        "16",
        "--queries",
        "300",
        "--json",
    ];
    let fair = json_of(&herdlab(&args));
    let eevdf = json_of(&herdlab(&[&args[..], &["--sched", "eevdf"]].concat()));
    assert_eq!(fair["sched"], "fair");
    assert_eq!(eevdf["sched"], "eevdf");
    let core = |sched| {
        let p = MysqlParams {
            mode: Mode::PerConnection,
            connections: 16,
            queries: 300,
            sched,
            ..Default::default()
        };
        p.run(200_000_000).1
    };
    for (j, sched) in [(&fair, SchedPolicy::Fair), (&eevdf, SchedPolicy::Eevdf)] {
        let r = core(sched);
        assert_eq!(j["p95_ns"].as_u64(), Some(r.p95_ns), "{j}");
        // (the JSON's shortest decimals: equal to a few ulps)
        let cs = j["ctx_switches_per_query"].as_f64().expect("a number");
        assert!((cs - r.ctx_switches_per_query).abs() < 1e-9, "{j}");
    }
    assert_ne!(fair["p95_ns"], eevdf["p95_ns"]);
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
    assert_eq!(v["states"], 26_745);
}

/// `no-listener-wake` had no effect in the model; with the logins modelled its preset (the login
/// preset) breaks `idle-with-work` in 25 steps, and the real code is proven on it.
#[test]
fn check_mysql_catches_no_listener_wake_on_the_login_preset() {
    let out = herdlab(&["check", "mysql", "--variant", "no-listener-wake", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["mode"], "pool");
    let cx = &v["violation"];
    assert_eq!(cx["invariant"], "idle-with-work");
    assert_eq!(cx["replay_agrees"], true, "{}", cx["replay"]);
    assert_eq!(cx["schedule"].as_array().unwrap().len(), 25);
    the_link_opens_the_playground_at_the_break(cx["link"].as_str().unwrap(), "idle-with-work");
    let out = herdlab(&["check", "mysql", "--logins", "1", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(
        (v["complete"].clone(), v["states"].clone()),
        (true.into(), 668_476.into())
    );
}

/// `link`, a counterexample's link, opens the lesson of its mode following the picks to their
/// end, and there the playground's own simulation (all its clock events, not the checker's few)
/// breaks `invariant` too.
fn the_link_opens_the_playground_at_the_break(link: &str, invariant: &str) {
    use herdlab_core::check::SimModel;
    use herdlab_core::mechanisms::mysql::invariants::model_state;
    use herdlab_core::mechanisms::mysql::Mysql;
    use herdlab_core::scenario::Scenario;
    use herdlab_core::sim::stepper::Stepper;
    use herdlab_core::sim::Actor;
    let (head, picks) = link.split_once("&picks=").expect(link);
    let (head, step) = head.split_once("&follow=picks&step=").expect(link);
    let (base, query) = head.split_once('?').expect(link);
    let p = *Scenario::from_query(query)
        .expect(link)
        .params::<Mysql>()
        .expect(link);
    let lesson = match p.mode {
        Mode::Pool => "mysql-thread-pool",
        Mode::PerConnection => "mysql-thread-per-connection",
    };
    assert_eq!(base, format!("http://127.0.0.1:8080/#/lesson/{lesson}"));
    let picks: Vec<(u64, Actor)> = picks
        .split(',')
        .enumerate()
        .map(|(i, x)| {
            let (at, a) = x.split_once(':').expect(x);
            assert_eq!(at, i.to_string(), "every step is a pick: {link}");
            let a = match a.strip_prefix('t') {
                Some(t) => Actor::Thread(t.parse().expect(x)),
                None => Actor::Network,
            };
            (i as u64, a)
        })
        .collect();
    let step: u64 = step.parse().expect(link);
    assert_eq!(step, picks.len() as u64);
    let (s, bad) = Stepper::replay(p.simulate(), step, &picks);
    assert_eq!(bad, None, "{link}");
    let at_end = SimModel {
        sim: s.sim().clone(),
    };
    assert_eq!(
        model_state(&at_end).map(|v| v.invariant),
        Some(invariant.to_string())
    );
}

#[test]
fn check_mysql_finds_the_broken_hand_off_and_replays_it() {
    // the preset's two clients (a client has one connection on the server at a time: two
    // connections in flight at once are two clients'); one preemption finds it in 40,443 states
    // (the whole space is about 1.5 million)
    let out = herdlab(&[
        "check",
        "mysql",
        "--variant",
        "cache-any-blocked",
        "--preemption-bound",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["mode"], "per-connection");
    let cx = &v["violation"];
    assert_eq!(cx["invariant"], "cache-count");
    assert_eq!(cx["replay_agrees"], true, "{}", cx["replay"]);
    the_link_opens_the_playground_at_the_break(cx["link"].as_str().unwrap(), "cache-count");
    assert_eq!(
        cx["steps"].as_array().unwrap().len(),
        cx["schedule"].as_array().unwrap().len()
    );
}

// ----- bench mysql: the loopback query server on real threads -----

/// Run `bench mysql` with `args` and its rows.
fn bench_rows(args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["bench", "mysql", "--json"];
    all.extend_from_slice(args);
    let out = herdlab(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out)
        .as_array()
        .unwrap_or_else(|| panic!("{all:?}: not an array"))
        .clone()
}

fn num(row: &serde_json::Value, k: &str) -> u64 {
    row[k]
        .as_u64()
        .unwrap_or_else(|| panic!("{k} is not a count: {row}"))
}

/// Every query the clients sent was served once by the tables and answered once at the client.
fn exactly_once(row: &serde_json::Value, queries: u64) {
    assert_eq!(num(row, "queries_sent"), queries, "{row}");
    assert_eq!(num(row, "queries_answered"), queries, "{row}");
    assert_eq!(num(row, "queries_served"), queries, "{row}");
    assert_eq!(num(row, "bad_responses"), 0, "{row}");
    assert_eq!(row["timed_out"], false, "{row}");
}

#[test]
fn bench_mysql_quick_json_has_the_contract_keys_and_answers_every_query_once() {
    let rows = bench_rows(&["--quick", "--connections", "8", "--queries", "200"]);
    let modes: Vec<&str> = rows.iter().filter_map(|r| r["mode"].as_str()).collect();
    assert_eq!(modes, ["per-connection", "pool"]);
    for r in &rows {
        let row = r.as_object().expect("a row is an object");
        for k in CONTRACT {
            assert!(row.contains_key(k), "{k} missing: {r}");
        }
        assert_eq!(num(r, "connections"), 8);
        exactly_once(r, 200);
        assert!(r["qps"].as_f64().is_some_and(|q| q > 0.0), "{r}");
        assert!(num(r, "p50_ns") <= num(r, "p95_ns") && num(r, "p95_ns") <= num(r, "p99_ns"));
        assert!(num(r, "rss_bytes") > 0, "{r}");
    }
}

#[test]
fn per_connection_creates_one_thread_per_client_and_the_pool_a_few_per_group() {
    let (n, groups, over) = (48u64, 2u64, 1u64);
    let rows = bench_rows(&[
        "--connections",
        "48",
        "--queries",
        "300",
        "--think-us",
        "200",
        "--groups",
        "2",
        "--oversubscribe",
        "1",
    ]);
    let per = &rows[0];
    let pool = &rows[1];
    exactly_once(per, 300);
    exactly_once(pool, 300);
    // an empty thread cache: every connection's mysql_thread_create, and all of them alive
    assert_eq!(num(per, "threads_created"), n, "{per}");
    assert_eq!(num(per, "os_threads_max"), n, "{per}");
    // the pool: each group's first thread, and no more than its soft cap (1 + oversubscribe
    // active, a listener) plus the timer, whatever the connections
    assert!(num(pool, "threads_created") >= groups, "{pool}");
    assert!(
        num(pool, "os_threads_max") <= groups * (1 + over + 1) + 1,
        "{pool}"
    );
    assert!(num(pool, "os_threads_max") < n / 4, "{pool}");
}

#[test]
fn the_row_lock_and_transactions_lose_no_query() {
    // blocking waits (thd_wait_begin, wake_or_create_thread) and the high-priority queue
    let rows = bench_rows(&[
        "--connections",
        "12",
        "--queries",
        "300",
        "--lock-pct",
        "50",
        "--txn-statements",
        "3",
        "--groups",
        "3",
        "--stall-ms",
        "10",
    ]);
    assert_eq!(rows.len(), 2);
    for r in &rows {
        exactly_once(r, 300);
        assert_eq!(num(r, "lock_pct"), 50);
    }
}

#[test]
fn bench_mysql_refuses_bad_flags_naming_the_allowed_values() {
    refused(
        &["bench", "mysql", "--connections", "0"],
        "allowed: a comma-separated list of up to 16 counts, each 1-4096",
    );
    refused(
        &["bench", "mysql", "--connections", "16,5000"],
        "5000 is out of range",
    );
    refused(
        &["bench", "mysql", "--mode", "threads"],
        "allowed: per-connection, pool",
    );
    refused(&["bench", "mysql", "--time-limit", "99"], "allowed 1-25");
    refused(&["bench", "mysql", "--groups", "9"], "--groups");
    refused(&["bench", "mysql", "--queries", "0"], "allowed 1-1000000");
    refused(
        &["bench", "mysql", "--client-cpus", "1024"],
        "would leave the server none",
    );
    refused(&["bench", "mysql", "--client-cpus", "x"], "allowed 0-1024");
    refused(
        &["bench", "mysql", "--oversubscribe", "x"],
        "--oversubscribe",
    );
}

#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_bench_mysql_stops_and_says_what_it_measured() {
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_herdlab"))
        .args([
            "bench",
            "mysql",
            "--connections",
            "16",
            "--queries",
            "1000000",
            "--time-limit",
            "25",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run herdlab");
    // mid-row (a row of a million queries runs to its 25 s limit)
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        // a hang guard, not a timing
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("bench mysql did not stop on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = child.wait_with_output().expect("output");
    assert_eq!(status.code(), Some(130));
    let v = json_of(&out);
    assert_eq!(v["partial"], true, "{v}");
    assert_eq!(v["interrupted_by"], "SIGINT", "{v}");
    assert!(v["rows"].is_array(), "{v}");
}

#[cfg(target_os = "linux")]
#[test]
fn too_few_open_files_is_refused_naming_the_limit() {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herdlab"));
    cmd.args(["bench", "mysql", "--connections", "200", "--queries", "10"]);
    // SAFETY: setrlimit is async-signal-safe; the child lowers its own limits before exec.
    unsafe {
        cmd.pre_exec(|| {
            let r = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("run herdlab");
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("200 connections need"), "{e}");
    assert!(e.contains("the open-file limit (ulimit -n) is 64"), "{e}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_long_query_stalls_its_group_until_the_stall_timer_adds_a_thread() {
    // pool, 2 groups, one 300 ms query (group 0's first), a 10 ms stall limit: the timer sees
    // group 0 make no progress with events waiting and gives it another thread
    let args = |variant: &str| {
        bench_rows(&[
            "--mode",
            "pool",
            "--groups",
            "2",
            "--connections",
            "8",
            "--queries",
            "300",
            "--think-us",
            "200",
            "--stall-ms",
            "10",
            "--long-ms",
            "300",
            "--variant",
            variant,
        ])
    };
    let correct = args("correct");
    assert_eq!(correct.len(), 1);
    let r = &correct[0];
    exactly_once(r, 300);
    assert_eq!(num(r, "long_ms"), 300);
    assert_eq!(r["variant"], "correct");
    assert!(num(r, "threads_created") > 2, "{r}");
    // without the stall check the group waits for its long query; nothing is lost
    let broken = args("no-stall-timer");
    exactly_once(&broken[0], 300);
    assert_eq!(broken[0]["variant"], "no-stall-timer");
}

#[test]
fn every_variant_of_the_tables_serves_every_query_once_natively() {
    for v in [
        "no-listener-wake",
        "fifo-waiters",
        "no-wait-begin",
        "no-throttle",
        "no-high-prio",
        "cache-any-blocked",
    ] {
        let rows = bench_rows(&[
            "--connections",
            "12",
            "--queries",
            "200",
            "--think-us",
            "200",
            "--lock-pct",
            "30",
            "--txn-statements",
            "2",
            "--stall-ms",
            "10",
            "--variant",
            v,
        ]);
        assert_eq!(rows.len(), 2, "{v}");
        for r in &rows {
            exactly_once(r, 200);
            assert_eq!(r["variant"], v, "{r}");
        }
    }
}

#[test]
fn max_connections_is_the_rows_or_given_and_sizes_the_thread_cache() {
    let rows = bench_rows(&[
        "--mode",
        "per-connection",
        "--connections",
        "4,300",
        "--queries",
        "300",
        "--think-us",
        "200",
    ]);
    // MySQL's default 151, or the row's connections if more; the cache 8 + max/100
    assert_eq!(num(&rows[0], "max_connections"), 151);
    assert_eq!(num(&rows[0], "cache_size"), 9);
    assert_eq!(num(&rows[1], "max_connections"), 300);
    assert_eq!(num(&rows[1], "cache_size"), 11);
    let rows = bench_rows(&[
        "--mode",
        "per-connection",
        "--connections",
        "11",
        "--max-connections",
        "10",
        "--queries",
        "100",
        "--think-us",
        "200",
    ]);
    // the +1 of CONNECTION_ADMIN
    assert_eq!(num(&rows[0], "max_connections"), 10);
    assert_eq!(num(&rows[0], "cache_size"), 8);
    exactly_once(&rows[0], 100);
}

#[test]
fn bench_mysql_refuses_bad_scenario_flags_naming_the_allowed_values() {
    refused(
        &["bench", "mysql", "--variant", "lifo"],
        "correct, no-listener-wake, fifo-waiters",
    );
    refused(
        &[
            "bench",
            "mysql",
            "--connections",
            "8,16",
            "--max-connections",
            "10",
        ],
        "--connections: 16 exceeds --max-connections + 1 (11): MySQL would refuse the rest with \
         ER_CON_COUNT_ERROR; allowed: counts up to 11, or a larger --max-connections",
    );
    refused(
        &["bench", "mysql", "--max-connections", "0"],
        "--max-connections",
    );
    refused(
        &["bench", "mysql", "--long-ms", "20000"],
        "--long-ms: 20000 ms would outlast the row's --time-limit of 20 s; allowed: 0-19999, or a \
         longer --time-limit",
    );
    refused(&["bench", "mysql", "--long-ms", "60001"], "allowed 0-60000");
    refused(
        &["bench", "mysql", "--queries-per-conn", "0"],
        "--queries-per-conn: 0 is out of range; allowed 1-1000000",
    );
    refused(
        &["bench", "mysql", "--cache-size", "16385"],
        "--cache-size: 16385 is out of range; allowed 0-16384",
    );
}

/// Connection churn (`--queries-per-conn`): each client reconnects after every 2 answers; the
/// server's acceptor hands each reconnection to `add_connection`. Without a thread cache every
/// reconnection creates a thread; with a cache as large as the connections the parked threads
/// take them (some reconnections may come before the old thread has parked).
#[test]
fn connection_churn_creates_a_thread_per_reconnection_without_the_cache_and_reuses_with_it() {
    let run = |cache: &str| {
        bench_rows(&[
            "--connections",
            "8",
            "--queries",
            "200",
            "--think-us",
            "200",
            "--queries-per-conn",
            "2",
            "--cache-size",
            cache,
        ])
    };
    let rows = run("0");
    let (per, pool) = (&rows[0], &rows[1]);
    exactly_once(per, 200);
    let reconnects = num(per, "reconnects");
    assert!(reconnects > 0, "{per}");
    assert_eq!(num(per, "reconnects_accepted"), reconnects, "{per}");
    assert_eq!(num(per, "queries_per_conn"), 2);
    assert_eq!(num(per, "cache_size"), 0);
    assert_eq!(num(per, "threads_created"), 8 + reconnects, "{per}");
    // the pool's model has no churn: its clients keep their connections
    exactly_once(pool, 200);
    assert_eq!(pool["queries_per_conn"], serde_json::Value::Null);
    assert_eq!(num(pool, "reconnects"), 0);

    let rows = run("9");
    let per = &rows[0];
    exactly_once(per, 200);
    let reconnects = num(per, "reconnects");
    assert_eq!(num(per, "reconnects_accepted"), reconnects, "{per}");
    let created = num(per, "threads_created");
    assert!(created >= 8 && created < 8 + reconnects, "{per}");
}

/// `--compare-sim`: under each measured row its simulator row (the contract's keys) and the
/// comparison issue #13 asks for: threads, threads created, switches per query, and on the pool
/// row the p95 ratio pool / per-connection; each with the native value, the simulator's, their
/// ratio and whether the simulator is within 25% of the native value.
#[test]
fn compare_sim_puts_the_simulators_figures_beside_the_native_ones_within_25_percent_or_not() {
    let rows = bench_rows(&[
        "--connections",
        "8",
        "--queries",
        "200",
        "--think-us",
        "200",
        "--compare-sim",
    ]);
    let modes: Vec<&str> = rows.iter().filter_map(|r| r["mode"].as_str()).collect();
    assert_eq!(modes, ["per-connection", "pool"]);
    let p95 = |r: &serde_json::Value| num(r, "p95_ns") as f64;
    // the simulator models this machine's kernel: EEVDF from Linux 6.6 on
    let kernel =
        herdlab_bench::platform::kernel::policy_for(herdlab_bench::platform::kernel::release());
    for r in &rows {
        assert_eq!(r["sim_sched"], kernel.name(), "{r}");
        exactly_once(r, 200);
        let sim = &r["sim"];
        for k in CONTRACT {
            assert!(sim.get(k).is_some(), "sim's {k} missing: {r}");
        }
        assert_eq!(num(sim, "queries_done"), 200, "{sim}");
        // the CPUs the process used on average over the row (the simulator's has its own)
        let cpus = r["process_cpus"].as_f64().expect("process_cpus");
        assert!(cpus > 0.0 && cpus <= 64.0, "{r}");
        let cmp = r["compare"].as_array().expect("compare is a list");
        let names: Vec<&str> = cmp.iter().filter_map(|c| c["metric"].as_str()).collect();
        let want: &[&str] = if r["mode"] == "pool" {
            &[
                "os_threads_max",
                "threads_created",
                "ctx_switches_per_query",
                "ctx_switches_voluntary_per_query",
                "p95_pool_over_per_connection",
            ]
        } else {
            &[
                "os_threads_max",
                "threads_created",
                "ctx_switches_per_query",
                "ctx_switches_voluntary_per_query",
            ]
        };
        assert_eq!(names, want, "{r}");
        for c in cmp {
            let keys: Vec<&String> = c.as_object().expect("an object").keys().collect();
            assert_eq!(
                keys,
                [
                    "agrees",
                    "both_below_floor",
                    "metric",
                    "native",
                    "sim",
                    "sim_over_native",
                    "within_25pct"
                ],
                "{c}"
            );
            let (n, s) = (c["native"].as_f64().unwrap(), c["sim"].as_f64().unwrap());
            let within = (s - n).abs() <= 0.25 * n;
            assert_eq!(c["within_25pct"], within, "{c}");
            // switch figures: both under 0.05 per query are too few to compare as a ratio
            let m = c["metric"].as_str().unwrap();
            let floor = m.starts_with("ctx_switches") && n < 0.05 && s < 0.05;
            assert_eq!(c["both_below_floor"], floor, "{c}");
            assert_eq!(c["agrees"], within || floor, "{c}");
            // (the JSON's shortest decimals: equal to a few ulps)
            match c["sim_over_native"].as_f64() {
                Some(ratio) => assert!((ratio - s / n).abs() < 1e-9, "{c}"),
                None => assert_eq!(n, 0.0, "{c}"),
            }
            if m != "p95_pool_over_per_connection" {
                assert_eq!(n, r[m].as_f64().unwrap(), "{c}");
                assert_eq!(s, sim[m].as_f64().unwrap(), "{c}");
            }
        }
        // the threads: per-connection one per client in both, the pool one per group (+ timer)
        assert_eq!(cmp[0]["native"], cmp[0]["sim"], "{r}");
        assert_eq!(cmp[1]["native"], cmp[1]["sim"], "{r}");
    }
    let ratio = &rows[1]["compare"][4];
    let close = |x: &serde_json::Value, want: f64| (x.as_f64().unwrap() - want).abs() < 1e-9;
    assert!(
        close(&ratio["native"], p95(&rows[1]) / p95(&rows[0])),
        "{ratio}"
    );
    assert!(
        close(&ratio["sim"], p95(&rows[1]["sim"]) / p95(&rows[0]["sim"])),
        "{ratio}"
    );
    // the server's CPU per query (measured: at least its reads and writes, more than a µs; the
    // query's spin is on the clock, so a CPU shared with other tests' servers may give it less
    // than its 50 µs), and what the simulated query got on top of `cpu_us`
    for r in &rows {
        let cpu = r["server_cpu_ns_per_query"].as_f64().expect("a number");
        assert!(cpu > 1_000.0 && cpu < 100_000_000.0, "{r}");
        assert!(
            r["sim_io_us"].as_u64().is_some_and(|io| io <= 10_000),
            "{r}"
        );
    }
    // without --compare-sim: neither
    let rows = bench_rows(&["--connections", "8", "--queries", "50"]);
    for r in &rows {
        assert!(r.get("sim").is_none() && r.get("compare").is_none(), "{r}");
        assert_eq!(r["sim_io_us"], serde_json::Value::Null, "{r}");
    }
}

/// `--sim-io-us N`: each simulated query costs `--cpu-us` + N µs, exactly core's closed loop with
/// that CPU time (its load generator where the row's was).
#[test]
fn sim_io_us_sets_what_the_simulated_query_costs_on_top() {
    let rows = bench_rows(&[
        "--mode",
        "pool",
        "--connections",
        "8",
        "--queries",
        "100",
        "--think-us",
        "300",
        "--compare-sim",
        "--sim-io-us",
        "7",
    ]);
    let r = &rows[0];
    assert_eq!(r["sim_io_us"], 7, "{r}");
    let p = MysqlParams {
        mode: Mode::Pool,
        connections: 8,
        groups: num(r, "groups") as u32,
        cpus: num(r, "server_cpus") as u32,
        cpu_us: 57,
        max_connections: 151,
        cache_size: MysqlParams::autosized_cache(151),
        queries: 100,
        ..Default::default()
    };
    let clients = ClientCpus::apart_if(num(r, "client_cpus") > 0);
    let core = p.run_closed_on(300_000, clients, u64::MAX).1;
    assert_eq!(r["sim"]["p95_ns"], core.p95_ns, "{r}");
    assert_eq!(r["sim"]["qps"], core.qps, "{r}");
    refused(
        &["bench", "mysql", "--sim-io-us", "5"],
        "--sim-io-us: sets the cost of the simulator's query; allowed: with --compare-sim",
    );
    refused(
        &["bench", "mysql", "--compare-sim", "--sim-io-us", "20000"],
        "allowed 0-10000",
    );
}

/// `--client-cpus`: the load generator (and the harness) on the last CPUs of the process's, the
/// server pinned to the rest, and the simulator's row on as many CPUs as the server had; 0: all
/// share every CPU. The default sets one CPU apart on 2-3 CPUs, two on 4 or more, none on 1.
#[cfg(target_os = "linux")]
#[test]
fn client_cpus_pin_the_load_generator_away_from_the_server() {
    // the CPUs this process may run on (its affinity, as the bench reads it)
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list")
        .trim()
        .to_string();
    let count = |list: &str| -> u64 {
        list.split(',')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('-') {
                Some((a, b)) => b.parse::<u64>().unwrap() - a.parse::<u64>().unwrap() + 1,
                None => 1,
            })
            .sum()
    };
    let cpus = count(&allowed);
    let apart_by_default = match cpus {
        1 => 0,
        2 | 3 => 1,
        _ => 2,
    };
    let row = |extra: &[&str]| {
        let mut args = vec!["--mode", "pool", "--connections", "8", "--queries", "100"];
        args.extend_from_slice(extra);
        bench_rows(&args).remove(0)
    };
    let r = row(&["--compare-sim"]);
    exactly_once(&r, 100);
    assert_eq!(num(&r, "client_cpus"), apart_by_default, "{r}");
    assert_eq!(num(&r, "server_cpus"), cpus - apart_by_default, "{r}");
    // thread_pool_size defaults to the server's CPUs (at most 7)
    assert_eq!(num(&r, "groups"), (cpus - apart_by_default).min(7), "{r}");
    assert_eq!(num(&r["sim"], "connections"), 8, "{r}");
    let listed = |k: &str| count(r[k].as_str().expect("a CPU list"));
    assert_eq!(listed("server_cpu_list"), num(&r, "server_cpus"), "{r}");
    assert_eq!(listed("client_cpu_list"), num(&r, "client_cpus"), "{r}");
    // 0: nothing set apart, the server on every CPU
    let r = row(&["--client-cpus", "0"]);
    exactly_once(&r, 100);
    assert_eq!(
        (num(&r, "client_cpus"), num(&r, "server_cpus")),
        (0, cpus),
        "{r}"
    );
    assert_eq!(r["server_cpu_list"], allowed.as_str(), "{r}");
    assert_eq!(r["client_cpu_list"], "", "{r}");
}
