//! MySQL's connection handling: exact counts of the thread cache, the pool's thread creation
//! (wait callbacks, the stall timer), the broken variants' effects, the invariants, determinism,
//! both forms of the step tables, the key table and the checker's proof.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::machine::steps::{Next, Recorder};
use herdlab_core::machine::Machine;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql;
use herdlab_core::mechanisms::mysql::invariants::{check_state, check_terminal, replay};
use herdlab_core::mechanisms::mysql::machine::{throttle_us, WocCx};
use herdlab_core::mechanisms::mysql::{
    ClientCpus, Conn, ConnThread, Mode, Mysql, MysqlActor, MysqlConfig, MysqlParams, MysqlVariant,
    Timer, Woc, Worker, LISTING,
};
use herdlab_core::op::Op;
use herdlab_core::sim::SchedPolicy;

/// States of the checker's login preset with the real code.
#[cfg(not(target_arch = "wasm32"))]
const LOGIN_PRESET_STATES: u64 = 668_476;

fn pool(extra: impl FnOnce(&mut MysqlParams)) -> MysqlParams {
    let mut p = MysqlParams::default();
    extra(&mut p);
    p
}

fn per_conn(extra: impl FnOnce(&mut MysqlParams)) -> MysqlParams {
    let mut p = MysqlParams {
        mode: Mode::PerConnection,
        connections: 16,
        queries: 200,
        ..Default::default()
    };
    extra(&mut p);
    p
}

#[test]
fn without_a_thread_cache_every_connection_creates_a_thread() {
    let p = per_conn(|p| {
        p.cache_size = 0;
        p.queries_per_conn = 1;
        p.queries = 100;
    });
    let (_, r) = p.run(u64::MAX);
    assert_eq!(r.violation, None);
    assert_eq!((r.queries_done, r.connects), (100, 100));
    assert_eq!((r.threads_created, r.cache_hits), (100, 0));
    assert_eq!(r.mode, "per-connection");
}

/// Bug: the simulator created a connection's thread at its first query, not at connect
/// (`--compare-sim` at 1024 connections: 1022 threads against the native 1024). MySQL's acceptor
/// calls `add_connection` when it accepts the socket; the thread exists before any query.
#[test]
fn thread_created_at_first_query_not_at_connect() {
    for n in [1, 16, 1024] {
        let p = per_conn(|p| {
            p.connections = n;
            p.cache_size = 0;
            p.queries = 1;
        });
        let (_, r) = p.run(u64::MAX);
        assert_eq!(r.violation, None, "{n} connections");
        assert_eq!(r.queries_done, 1);
        // every client connected (one thread each, no cache) though only one query was sent
        assert_eq!(
            (r.connects, r.threads_created, r.cache_hits),
            (n, n, 0),
            "{n} connections"
        );
    }
}

#[test]
fn the_thread_cache_hands_connections_to_parked_threads() {
    for cache in [1, 4, 9, 16] {
        let p = per_conn(|p| {
            p.cache_size = cache;
            p.queries_per_conn = 2;
        });
        let (_, r) = p.run(u64::MAX);
        assert_eq!(r.violation, None, "cache {cache}");
        assert_eq!(r.queries_done, 200);
        // each connection is either handed to a cached thread or creates one
        assert_eq!(
            r.threads_created + r.cache_hits,
            r.connects,
            "cache {cache}"
        );
        assert!(r.cache_hits > 0, "cache {cache}");
        // at most one thread per client, the cache, and one finishing a closed connection
        assert!(
            r.os_threads_max <= 16 + cache + 1,
            "cache {cache}: {}",
            r.os_threads_max
        );
        assert_eq!(r.rss_bytes, r.os_threads_max as u64 * (1 << 20));
    }
    // a bigger cache never creates more threads here
    let created = |cache| {
        per_conn(|p| {
            p.cache_size = cache;
            p.queries_per_conn = 2;
        })
        .run(u64::MAX)
        .1
        .threads_created
    };
    assert!(created(16) <= created(1));
}

#[test]
fn handing_off_on_blocked_greater_than_zero_gives_one_thread_two_connections() {
    let p = per_conn(|p| {
        p.connections = 32;
        p.queries_per_conn = 4;
        p.queries = 400;
        p.cache_size = 2;
        p.variant = MysqlVariant::CacheAnyBlocked;
    });
    let (_, r) = p.run(u64::MAX);
    let v = r.violation.expect("the broken hand-off is caught");
    assert_eq!(v.invariant, "cache-count");
    assert!(
        v.message.contains("exceeds blocked_pthread_count"),
        "{}",
        v.message
    );
    // the correct test on the same load
    let (_, r) = MysqlParams {
        variant: MysqlVariant::Correct,
        ..p
    }
    .run(u64::MAX);
    assert_eq!((r.violation, r.queries_done), (None, 400));
}

/// The lesson writer's report (#13 §1): open-loop clients that reconnect every 2 queries, no
/// thread cache, 8 clients, 200 queries: 6 queries were never answered. A client opened its next
/// connection while its old one still had queries to serve, so several connections of one client
/// shared its socket word and the thread slots ran out. A client now holds its next queries until
/// its old connection is gone, and has one connection on the server at a time.
#[test]
fn churn_without_a_cache_lost_queries_when_a_client_reconnected_before_its_close() {
    let p = per_conn(|p| {
        p.connections = 8;
        p.cache_size = 0;
        p.queries_per_conn = 2;
        p.queries = 200;
    });
    let (sim, r) = p.run(u64::MAX);
    assert_eq!(r.violation, None);
    assert_eq!((r.queries_sent, r.queries_done), (200, 200));
    // seed 1: every connection creates a thread (no cache), at most one per client at once
    assert_eq!((r.connects, r.threads_created, r.cache_hits), (101, 101, 0));
    assert_eq!(r.os_threads_max, 8);
    // each client opened ⌈its queries / 2⌉ connections, one after the other
    let MysqlActor::Clients(c) = sim.threads()[0].machine() else {
        panic!("thread 0 is the clients")
    };
    for (i, (&sent, &opened)) in c.per_client.iter().zip(&c.opened).enumerate() {
        assert_eq!(opened, sent.div_ceil(2), "client {i}");
        assert_eq!(c.held[i], 0, "client {i}");
    }
    assert_eq!(c.opened.iter().sum::<u32>(), 101);
    // the same clients as a closed loop
    let (_, r) = p.run_closed(100_000, u64::MAX);
    assert_eq!((r.violation, r.queries_done), (None, 200));
    assert_eq!(r.threads_created, r.connects);
}

/// Churn over clients, caches and quotas, open and closed loop: every query is answered, the
/// invariants (`one-connection` among them: one connection per client on the server, a free slot
/// for every thread to create) hold after every step, and each connection either took a parked
/// thread or created one.
#[test]
fn churn_serves_every_query_over_clients_caches_and_quotas() {
    for connections in 1..=8 {
        for cache_size in [0, 1, 4] {
            for queries_per_conn in [1, 2, 3] {
                let p = per_conn(|p| {
                    p.connections = connections;
                    p.cache_size = cache_size;
                    p.queries_per_conn = queries_per_conn;
                    p.queries = 120;
                });
                let what = format!(
                    "{connections} clients, cache {cache_size}, {queries_per_conn} per connection"
                );
                for (mode, (_, r)) in [
                    ("open", p.run(u64::MAX)),
                    ("closed", p.run_closed(200_000, u64::MAX)),
                ] {
                    assert_eq!(r.violation, None, "{what}, {mode} loop");
                    assert_eq!(r.queries_done, 120, "{what}, {mode} loop");
                    assert_eq!(
                        r.threads_created,
                        r.connects - r.cache_hits,
                        "{what}, {mode} loop"
                    );
                    // one connection per client at a time: ⌈120 / quota⌉ connections at least
                    assert!(
                        r.connects >= 120u32.div_ceil(queries_per_conn),
                        "{what}, {mode} loop: {} connections",
                        r.connects
                    );
                    assert!(
                        r.os_threads_max <= connections + cache_size,
                        "{what}, {mode} loop: {} threads",
                        r.os_threads_max
                    );
                }
            }
        }
    }
}

#[test]
fn one_group_without_blocking_runs_on_its_first_thread() {
    let p = pool(|p| {
        p.groups = 1;
        p.cpus = 1;
    });
    let (_, r) = p.run(u64::MAX);
    assert_eq!(r.violation, None);
    assert_eq!((r.queries_sent, r.queries_done), (400, 400));
    // the listener picks each event itself when the queues are empty: nobody else is needed
    assert_eq!(
        (r.threads_created, r.os_threads_max, r.worker_wakeups),
        (1, 2, 0)
    );
    assert_eq!(r.mode, "pool");
    assert!(r.p50_ns <= r.p95_ns && r.p95_ns <= r.p99_ns);
}

#[test]
fn wait_begin_lets_a_group_add_a_thread_while_one_blocks() {
    let base = pool(|p| {
        p.lock_pct = 100;
        p.cpu_us = 200;
        p.rate = 8000;
    });
    let (_, ok) = base.run(u64::MAX);
    let (_, broken) = MysqlParams {
        variant: MysqlVariant::NoWaitBegin,
        ..base
    }
    .run(u64::MAX);
    assert_eq!((ok.violation.clone(), ok.queries_done), (None, 400));
    assert_eq!((broken.violation.clone(), broken.queries_done), (None, 400));
    // without the callback a blocked thread holds its group: no thread is ever added
    assert_eq!(broken.threads_created, 2);
    assert!(ok.threads_created > 2, "{}", ok.threads_created);
    assert!(
        broken.p50_ns > 2 * ok.p50_ns,
        "{} vs {}",
        broken.p50_ns,
        ok.p50_ns
    );
}

#[test]
fn the_stall_timer_rescues_a_group_behind_a_long_query() {
    let base = pool(|p| p.long_ms = 1500);
    let (_, ok) = base.run(u64::MAX);
    let (_, broken) = MysqlParams {
        variant: MysqlVariant::NoStallTimer,
        ..base
    }
    .run(u64::MAX);
    assert_eq!(ok.violation, None);
    assert_eq!(broken.violation, None);
    // the second tick (1 s) finds no listener and no I/O since the first and adds a thread
    assert_eq!((ok.threads_created, broken.threads_created), (3, 2));
    assert!(ok.p50_ns < 1_100_000_000, "{}", ok.p50_ns);
    assert!(broken.p50_ns > 1_400_000_000, "{}", broken.p50_ns);
}

#[test]
fn the_creation_throttle_table() {
    assert_eq!(
        [0, 3, 4, 7, 8, 15, 16, 100].map(throttle_us),
        [0, 0, 50_000, 50_000, 100_000, 100_000, 200_000, 200_000]
    );
    assert_eq!(MysqlParams::autosized_cache(151), 9);
    assert_eq!(MysqlParams::autosized_cache(100_000), 100);
}

#[test]
fn transactions_statements_go_to_the_high_priority_queue() {
    let base = pool(|p| {
        p.lock_pct = 100;
        p.cpu_us = 200;
        p.rate = 8000;
        p.txn_statements = 4;
    });
    let (_, ok) = base.run(u64::MAX);
    assert_eq!((ok.violation, ok.queries_done), (None, 400));
    assert!(ok.high_p99_ns > 0);
    for off in [
        MysqlParams {
            variant: MysqlVariant::NoHighPrio,
            ..base
        },
        MysqlParams { tickets: 0, ..base },
    ] {
        let (_, r) = off.run(u64::MAX);
        assert_eq!((r.violation, r.queries_done, r.high_p99_ns), (None, 400, 0));
    }
}

#[test]
fn no_query_is_lost_over_seeds_and_variants() {
    for variant in MysqlVariant::ALL {
        if variant == MysqlVariant::CacheAnyBlocked {
            continue;
        }
        for seed in 1..=3 {
            let p = pool(|p| {
                p.variant = variant;
                p.seed = seed;
                p.lock_pct = 50;
                p.txn_statements = 3;
                p.groups = 3;
                p.cpus = 3;
                p.queries = 200;
            });
            let (_, r) = p.run(u64::MAX);
            assert_eq!(r.violation, None, "{} seed {seed}", variant.name());
            assert_eq!(r.queries_done, 200, "{} seed {seed}", variant.name());
        }
    }
}

#[test]
fn runs_are_deterministic() {
    for p in [
        pool(|p| p.lock_pct = 30),
        per_conn(|p| p.queries_per_conn = 3),
    ] {
        let (a, ra) = p.run(u64::MAX);
        let (b, rb) = p.run(u64::MAX);
        assert_eq!(ra, rb);
        assert_eq!(a.trace_hash(), b.trace_hash());
        let (c, _) = MysqlParams { seed: 2, ..p }.run(u64::MAX);
        assert_ne!(a.trace_hash(), c.trace_hash());
    }
}

#[test]
fn every_line_a_thread_stands_on_is_in_the_listing() {
    for p in [
        pool(|p| {
            p.lock_pct = 60;
            p.txn_statements = 2;
            p.queries = 100;
        }),
        per_conn(|p| {
            p.queries_per_conn = 2;
            p.lock_pct = 30;
            p.queries = 100;
        }),
    ] {
        let mut sim = p.simulate();
        let mut steps = 0;
        while steps < 200_000 && sim.step().is_some() {
            steps += 1;
            for t in sim.threads() {
                let l = t.machine().line();
                assert!(
                    (1..=LISTING.len() as u16).contains(&l),
                    "line {l} of {:?}",
                    t.machine()
                );
                assert_eq!(t.machine().listing().len(), LISTING.len());
            }
        }
        assert!(check_state(&sim).is_none());
    }
}

fn cfg() -> MysqlConfig {
    MysqlParams {
        lock_pct: 50,
        ..Default::default()
    }
    .config()
}

#[test]
fn wake_or_create_forms_agree() {
    for seed in 0..64 {
        for from_listener in [false, true] {
            let cx = WocCx {
                cfg: cfg(),
                grp: 1,
                from_listener,
                created: 0,
            };
            let mut straight = cx;
            let mut p = Recorder::new(seed, 64);
            let out = Woc::Start.run(&mut straight, &mut p);
            let mut stepped = cx;
            let mut s = Woc::Start;
            let mut ops = Vec::new();
            let mut end = None;
            for r in p.results() {
                ops.push(s.op(&stepped));
                match s.complete(&mut stepped, *r) {
                    Next::Go(n) => s = n,
                    Next::Done(o) => {
                        end = Some((s, o));
                        break;
                    }
                }
            }
            assert_eq!(ops, p.ops(), "seed {seed}");
            assert_eq!(out.ok(), end, "seed {seed}");
            assert_eq!(straight, stepped, "seed {seed}");
        }
    }
}

#[test]
fn per_connection_thread_forms_agree() {
    let c = MysqlParams {
        mode: Mode::PerConnection,
        connections: 4,
        lock_pct: 50,
        queries_per_conn: 2,
        cache_size: 2,
        ..Default::default()
    }
    .config();
    for seed in 0..64 {
        let mut straight = ConnThread::new(c);
        let mut p = Recorder::new(seed, 80);
        p.draw_values_from(&[0, 1, 2, 3]);
        // the table loops forever; the recorder's budget stops it
        let stopped = Conn::Unborn.run(&mut straight, &mut p).unwrap_err();
        let mut stepped = ConnThread::new(c);
        let mut s = Conn::Unborn;
        let mut ops: Vec<Op> = Vec::new();
        for r in p.results() {
            ops.push(s.op(&stepped));
            if let Next::Go(n) = s.complete(&mut stepped, *r) {
                s = n;
            }
        }
        assert_eq!(ops, p.ops(), "seed {seed}");
        assert_eq!(s, stopped.state, "seed {seed}");
        straight.at = s;
        stepped.at = s;
        assert_eq!(straight, stepped, "seed {seed}");
    }
}

/// The native platform's straight-line entries (`Worker::run`, `Timer::run`, `ConnThread::run`)
/// against the simulator's actor stepped on the same answers: the same operations, the same state
/// where the recorder's budget stopped them.
#[test]
fn the_native_entries_agree_with_the_stepped_actors() {
    let pool_cfg = MysqlParams {
        lock_pct: 50,
        groups: 2,
        group_threads: 4,
        txn_statements: 2,
        ..Default::default()
    }
    .config();
    let conn_cfg = MysqlParams {
        mode: Mode::PerConnection,
        connections: 4,
        lock_pct: 50,
        queries_per_conn: 2,
        cache_size: 2,
        ..Default::default()
    }
    .config();
    let fresh = [
        MysqlActor::Worker(Worker::new(pool_cfg, 1, 16)),
        MysqlActor::Timer(Timer::new(pool_cfg)),
        MysqlActor::Conn(ConnThread::new(conn_cfg)),
    ];
    for seed in 0..48 {
        for f in &fresh {
            let mut straight = f.clone();
            let mut p = Recorder::new(seed, 120);
            // no zero answers: the tables subtract one from counts they found non-zero
            p.draw_values_from(&[1, 2, 3]);
            let r = match &mut straight {
                MysqlActor::Worker(w) => w.run(&mut p),
                MysqlActor::Timer(t) => t.run(&mut p),
                MysqlActor::Conn(c) => c.run(&mut p),
                MysqlActor::Clients(_) => Ok(()),
            };
            assert!(r.is_err(), "seed {seed}: the tables never end on their own");
            let mut stepped = f.clone();
            let mut ops = Vec::new();
            for r in p.results() {
                ops.push(stepped.next_op());
                stepped.complete(*r);
            }
            assert_eq!(ops, p.ops(), "seed {seed}: {f:?}");
            // the straight form rests on the state whose operation the budget refused
            assert_eq!(stepped.next_op(), straight.next_op(), "seed {seed}");
            assert_eq!(
                stepped, straight,
                "seed {seed}: different states at the end"
            );
        }
    }
}

#[test]
fn the_key_table_round_trips_and_explains_bad_values() {
    let p = pool(|p| {
        p.groups = 4;
        p.tickets = 0;
        p.variant = MysqlVariant::FifoWaiters;
    });
    let q = Mysql::to_query(&p);
    assert!(q.starts_with("mode=pool&connections=64&groups=4"), "{q}");
    let pairs: Vec<(&str, &str)> = q.split('&').map(|kv| kv.split_once('=').unwrap()).collect();
    let (back, errs) = Mysql::parse_pairs(pairs);
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(back, p);
    let mut p = MysqlParams::default();
    let e = Mysql::set(&mut p, "groups", "8").unwrap_err();
    assert_eq!(e.to_string(), "groups: 8 is out of range; allowed 1-7");
    let e = Mysql::set(&mut p, "mode", "fork").unwrap_err();
    assert_eq!(
        e.to_string(),
        "mode: 'fork' is not allowed; allowed: per-connection, pool"
    );
    assert!(Mysql::set(&mut p, "nope", "1").is_err());
    // thread-per-connection takes as many connections as the pool (max_connections + 1 allows)
    assert_eq!(Mysql::validate(&per_conn(|p| p.connections = 100)), vec![]);
    let e = Mysql::set(&mut p, "connections", "4097").unwrap_err();
    assert_eq!(
        e.to_string(),
        "connections: 4097 is out of range; allowed 1-4096"
    );
    let bad = pool(|p| p.connections = 200);
    assert!(Mysql::validate(&bad)[0]
        .message
        .contains("max_connections + 1 (152)"));
    let (fixed, errs) = Mysql::parse_pairs([("mode", "per-connection"), ("connections", "200")]);
    assert_eq!(errs.len(), 1);
    assert_eq!(fixed.connections, MysqlParams::default().connections);
    assert_eq!(Mysql::NAME, "mysql");
    assert_eq!(
        Mysql::KEYS.iter().map(|k| k.name).collect::<Vec<_>>().len(),
        21
    );
    // the scheduler is chosen outside the key table (`--sched`)
    assert_eq!(mysql::sched_from_name("eevdf"), Some(SchedPolicy::Eevdf));
    assert_eq!(mysql::sched_from_name("fair"), Some(SchedPolicy::Fair));
    assert_eq!(mysql::sched_from_name("fifo"), None);
    assert!(Mysql::set(&mut p, "sched", "eevdf").is_err());
}

// native only: keeps the wasm32 run short
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_checker_proves_the_pool_preset() {
    use herdlab_core::check::CheckConfig;
    use herdlab_core::mechanisms::mysql::invariants::check;
    let p = MysqlParams::check_preset();
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    assert!(r.complete);
    assert_eq!(r.violation, None);
    assert_eq!(r.states, 26_745);
}

/// Bug: `no-listener-wake` had no effect in the model (every path that queued work while no
/// thread was active had its own wake). With the logins modelled, `queue_put` is such a path:
/// without its `active == 0` wake a login sits in the queue while the group's one thread
/// listens, and the checker's `idle-with-work` finds it.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn no_listener_wake_leaves_a_login_queued_while_the_group_idles() {
    use herdlab_core::check::CheckConfig;
    use herdlab_core::mechanisms::mysql::invariants::check;
    let p = MysqlParams {
        variant: MysqlVariant::NoListenerWake,
        ..MysqlParams::check_preset_login()
    };
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    let c = r.violation.expect("idle-with-work");
    assert_eq!(c.violation.invariant, "idle-with-work");
    // the shortest schedule: the group's thread starts and becomes the listener, then the
    // client's login is queued with no wake
    assert_eq!(c.schedule.len(), 25);
    let sim = replay(&p, &c.schedule);
    assert_eq!(
        check_state(&sim).map(|v| v.invariant),
        Some("idle-with-work".to_string())
    );
}

/// The same scenario with the real `queue_put`: proven.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_checker_proves_the_login_preset() {
    use herdlab_core::check::CheckConfig;
    use herdlab_core::mechanisms::mysql::invariants::check;
    let p = MysqlParams::check_preset_login();
    let r = check(&p, &CheckConfig::default(), &mut |_| true);
    assert!(r.complete);
    assert_eq!(r.violation, None);
    assert_eq!(r.states, LOGIN_PRESET_STATES);
}

/// In the simulator: 64 connections log in once the server is up (2 groups, their threads
/// listening); without the wake the logins, and every query queued behind them, wait for the
/// stall timer's ticks (500 ms).
#[test]
fn without_the_listener_wake_logins_wait_for_the_stall_timer() {
    let base = pool(|p| {
        p.logins = 1;
        p.rate = 2000;
    });
    let (_, ok) = base.run(u64::MAX);
    let (_, broken) = MysqlParams {
        variant: MysqlVariant::NoListenerWake,
        ..base
    }
    .run(u64::MAX);
    assert_eq!(
        (ok.violation.clone(), ok.queries_done, ok.stalls),
        (None, 400, 0)
    );
    assert!(ok.p95_ns < 1_000_000, "{}", ok.p95_ns);
    assert_eq!(broken.queries_done, 400);
    assert_eq!(
        broken.violation.map(|v| v.invariant),
        Some("idle-with-work".to_string())
    );
    assert!(broken.stalls >= 1);
    assert!(broken.p50_ns > 500_000_000, "{}", broken.p50_ns);
}

#[test]
fn a_replayed_schedule_keeps_the_invariants() {
    // the clients first, then every thread in turn: a legal schedule of the checker's preset
    let p = MysqlParams::check_preset();
    let n = p.threads().len() as u16;
    let schedule: Vec<u16> = (0..400).map(|i| i % n).collect();
    let sim = replay(&p, &schedule);
    assert_eq!(check_state(&sim), None);
    let mut sim = sim;
    sim.run(u64::MAX);
    assert_eq!(check_terminal(&sim), None);
}

#[test]
fn the_simulator_takes_up_to_4096_connections_in_both_modes() {
    use herdlab_core::mechanisms::mysql::MAX_CONNECTIONS;
    // native only the largest: keeps the wasm32 run short
    let sizes: &[u32] = if cfg!(target_arch = "wasm32") {
        &[1, 300]
    } else {
        &[1, 300, MAX_CONNECTIONS]
    };
    for &n in sizes {
        for mode in [Mode::PerConnection, Mode::Pool] {
            let p = MysqlParams {
                mode,
                connections: n,
                max_connections: 5000,
                queries: 600,
                ..Default::default()
            };
            assert_eq!(Mysql::validate(&p), vec![], "{n}");
            let (sim, r) = p.run(u64::MAX);
            assert_eq!((r.violation, r.queries_done), (None, 600), "{mode:?} {n}");
            assert_eq!(r.connections, n);
            match mode {
                // a thread slot per connection (and the cache, and one finishing), each alive
                // thread a modelled stack
                Mode::PerConnection => {
                    assert_eq!(sim.threads().len() as u32, 1 + n + 9 + 1);
                    assert!(r.os_threads_max <= n + 10, "{n}: {}", r.os_threads_max);
                }
                // the pool's threads do not grow with the connections
                Mode::Pool => assert!(r.os_threads_max <= 2 * 15 + 1, "{n}"),
            }
            assert_eq!(r.rss_bytes, r.os_threads_max as u64 * (1 << 20));
        }
    }
}

#[test]
fn without_the_throttle_a_stalled_group_creates_a_thread_every_tick() {
    // 40 long CPU-bound queries at once, a 10 ms stall limit, a soft cap above the group's 15
    // slots: each tick declares a stall and wakes or creates a thread
    let at_200ms = |variant| {
        let p = pool(|p| {
            p.groups = 1;
            p.cpus = 16;
            p.oversubscribe = 30;
            p.stall_ms = 10;
            p.cpu_us = 500_000;
            p.rate = 1_000_000;
            p.queries = 40;
            p.variant = variant;
        });
        let mut sim = p.simulate();
        while sim.now_ns() < 200_000_000 && sim.step().is_some() {}
        assert_eq!(check_state(&sim), None);
        sim.word(herdlab_core::mechanisms::mysql::NUM_WORKERS)
    };
    // 0 ms below 4 threads, then 50 ms between creations: 4 by the third tick, then one per 50 ms
    let ok = at_200ms(MysqlVariant::Correct);
    assert!((5..=7).contains(&ok), "{ok}");
    // one per tick up to the group's 15 slots
    assert_eq!(at_200ms(MysqlVariant::NoThrottle), 15);
}

#[test]
fn the_high_priority_queue_shortens_transactions() {
    // one group on two CPUs near saturation, every client in 4-statement transactions
    let base = pool(|p| {
        p.groups = 1;
        p.cpu_us = 100;
        p.rate = 12_000;
        p.txn_statements = 4;
        p.queries = 800;
    });
    let (_, ok) = base.run(u64::MAX);
    let (_, broken) = MysqlParams {
        variant: MysqlVariant::NoHighPrio,
        ..base
    }
    .run(u64::MAX);
    assert_eq!(
        (ok.violation.clone(), broken.violation.clone()),
        (None, None)
    );
    // statements 2..4 jump the normal queue: their p99 is lower with the queue than without
    assert!(ok.txn_p99_ns > 0 && broken.txn_p99_ns > 0);
    assert!(
        ok.txn_p99_ns < broken.txn_p99_ns,
        "{} vs {}",
        ok.txn_p99_ns,
        broken.txn_p99_ns
    );
    // and the first statements of transactions wait behind them: the overall p99 is higher
    assert!(
        ok.p99_ns > broken.p99_ns,
        "{} vs {}",
        ok.p99_ns,
        broken.p99_ns
    );
    assert_eq!(broken.high_p99_ns, 0);
}

#[test]
fn lifo_wakes_the_latest_sleeper_and_fifo_the_oldest() {
    use herdlab_core::mechanisms::mysql::stack;
    for (variant, woken_index) in [(MysqlVariant::Correct, 2), (MysqlVariant::FifoWaiters, 0)] {
        let cfg = MysqlParams {
            variant,
            ..Default::default()
        }
        .config();
        let mut cx = WocCx {
            cfg,
            grp: 1,
            from_listener: false,
            created: 0,
        };
        // three sleepers in waiting_threads
        let mut p = Recorder::new(1, 64);
        p.draw_values_from(&[3]);
        let _ = Woc::Start.run(&mut cx, &mut p);
        assert_eq!(p.ops()[1], Op::Load(stack(1, woken_index)), "{variant:?}");
        // FIFO moves the other two down a place: two more loads and stores each
        let moves = p
            .ops()
            .iter()
            .filter(|o| matches!(o, Op::Store(w, _) if (stack(1, 0)..=stack(1, 2)).contains(w)))
            .count();
        assert_eq!(moves, if woken_index == 0 { 2 } else { 0 });
    }
}

/// The clients as a closed loop (`run_closed`, what `herdlab bench mysql --compare-sim` runs):
/// a connection never has two queries outstanding, so at most `connections` queries are in the
/// server at once, in both modes; with a think time long against the query, nothing queues and
/// each client sends about once per think time.
#[test]
fn closed_loop_clients_keep_one_query_outstanding_per_connection() {
    for mode in [Mode::PerConnection, Mode::Pool] {
        let p = MysqlParams {
            mode,
            connections: 8,
            queries: 400,
            cpu_us: 50,
            ..Default::default()
        };
        let (sim, r) = p.run_closed(1_000_000, u64::MAX);
        assert_eq!(
            (r.violation.clone(), r.queries_done),
            (None, 400),
            "{mode:?}"
        );
        // the load generator's two receiving threads come after the server's
        let receivers = sim
            .threads()
            .iter()
            .skip(1)
            .filter(|t| matches!(t.machine(), MysqlActor::Clients(_)))
            .count();
        assert_eq!(receivers, 2);
        assert_eq!(sim.threads().len(), p.simulate().threads().len() + 2);
        // the sender has a CPU of its own, beyond the scenario's 2, and no other thread ran there
        assert_eq!(sim.cpus().len(), 3);
        assert_eq!(sim.threads()[0].cpu(), 2);
        assert!(sim.threads()[1..].iter().all(|t| t.cpu() < 2));
        assert_eq!(p.simulate().cpus().len(), 2);
        // in flight: +1 at each arrival, -1 at each answer; never above the connections
        let clients = match sim.threads()[0].machine() {
            MysqlActor::Clients(c) => c,
            _ => unreachable!("thread 0 is the clients"),
        };
        let mut ev: Vec<(u64, i32)> = clients.arrivals.iter().flatten().map(|&t| (t, 1)).collect();
        for t in sim.threads() {
            let done = match t.machine() {
                MysqlActor::Worker(w) => &w.done,
                MysqlActor::Conn(c) => &c.done,
                _ => continue,
            };
            ev.extend(done.iter().map(|f| (f.at_ns, -1)));
        }
        ev.sort();
        let (mut now, mut most) = (0i32, 0i32);
        for (_, d) in ev {
            now += d;
            most = most.max(now);
        }
        assert!(
            (2..=8).contains(&most),
            "{mode:?}: {most} in flight at most"
        );
        // per-connection: client c's query k+1 arrives after its query k is answered
        if mode == Mode::PerConnection {
            for (c, times) in clients.arrivals.iter().enumerate() {
                let mut answered: Vec<u64> = sim
                    .threads()
                    .iter()
                    .filter_map(|t| match t.machine() {
                        MysqlActor::Conn(ct) => Some(ct.done.iter()),
                        _ => None,
                    })
                    .flatten()
                    .filter(|f| f.stream == c as u32)
                    .map(|f| f.at_ns)
                    .collect();
                answered.sort();
                for (k, w) in times.windows(2).enumerate() {
                    assert!(
                        w[1] >= answered[k],
                        "client {c}: query {} before answer {k}",
                        k + 1
                    );
                }
            }
        }
        // 8 clients thinking 1 ms, answered in about 60 µs (2 CPUs, nothing queues for long):
        // about 8 / 1.06 ms
        assert!(
            (6_000.0..9_000.0).contains(&r.qps),
            "{mode:?}: {} queries/s",
            r.qps
        );
        // deterministic
        assert_eq!(p.run_closed(1_000_000, u64::MAX).1, r);
        // the open loop is unchanged by it
        assert_eq!(p.run(u64::MAX).1.queries_done, 400);
    }
}

/// `run_closed_on(.., ClientCpus::Apart, ..)` (what `herdlab bench mysql --compare-sim` runs when
/// `--client-cpus` sets CPUs apart for the load generator): each of the load generator's threads
/// on a CPU of its own, none of the server's. On one saturated server CPU the pool's single
/// worker is then preempted by nobody, while with the receivers on the server's CPU each answer
/// wakes one that preempts the worker (about one switch per query): the switches the pool's
/// workers make with a load generator beside them are the load generator's, not the pool's.
#[test]
fn a_load_generator_on_cpus_of_its_own_preempts_no_server_thread() {
    let p = MysqlParams {
        mode: Mode::Pool,
        connections: 64,
        groups: 1,
        cpus: 1,
        queries: 2_000,
        cpu_us: 50,
        ..Default::default()
    };
    // 64 clients thinking 100 µs against 50 µs queries: the one CPU is saturated
    let (shared_sim, shared) = p.run_closed_on(100_000, ClientCpus::Shared, u64::MAX);
    let (apart_sim, apart) = p.run_closed_on(100_000, ClientCpus::Apart, u64::MAX);
    for r in [&shared, &apart] {
        assert_eq!((r.violation.clone(), r.queries_done), (None, 2_000));
        // the one worker and the timer
        assert_eq!((r.threads_created, r.os_threads_max), (1, 2), "{r:?}");
    }
    // shared: the sender apart (CPU 1), the two receivers on the server's CPU 0
    assert_eq!(shared_sim.cpus().len(), 2);
    // apart: the sender and each receiver on CPUs 1, 2 and 3, every server thread on CPU 0
    assert_eq!(apart_sim.cpus().len(), 4);
    let on: Vec<(bool, u8)> = apart_sim
        .threads()
        .iter()
        .map(|t| (matches!(t.machine(), MysqlActor::Clients(_)), t.cpu()))
        .collect();
    let mut client_cpus: Vec<u8> = on.iter().filter(|c| c.0).map(|c| c.1).collect();
    client_cpus.sort_unstable();
    assert_eq!(client_cpus, [1, 2, 3]);
    assert!(on.iter().filter(|c| !c.0).all(|c| c.1 == 0), "{on:?}");
    // the worker's switches: about one per query when the receivers share its CPU, almost
    // none (the timer's ticks) when they do not
    assert!(shared.ctx_switches_per_query > 0.8, "{shared:?}");
    assert!(apart.ctx_switches_per_query < 0.05, "{apart:?}");
    // deterministic
    assert_eq!(
        p.run_closed_on(100_000, ClientCpus::Apart, u64::MAX).1,
        apart
    );
    // run_closed is the shared one
    assert_eq!(p.run_closed(100_000, u64::MAX).1, shared);
}
