//! The accept strategies in the simulator: exact wakeup counts in an idle server, conservation under
//! load, the kernel's EPOLLEXCLUSIVE walk, fairness, and the accept mutex's model-checked invariants.

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::accept::{
    invariants, AcceptParams, AcceptReport, MutexVariant, Strategy,
};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::net::EP_WAITER;
use herdlab_core::sim::{Note, Status};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn run(p: &AcceptParams) -> (AcceptReport, Status) {
    let mut sim = p.simulate();
    sim.run(50_000_000);
    (AcceptReport::from_sim(p, &sim), sim.status().clone())
}

/// A fully idle server: 200 connections per second against microseconds of work, one request each.
fn idle(strategy: Strategy, workers: u32, cpus: u32, seed: u64) -> AcceptParams {
    AcceptParams {
        strategy,
        workers,
        cpus,
        connections: 40,
        rate: 200,
        arrival: ArrivalPattern::Steady,
        seed,
        ..Default::default()
    }
}

/// Per connection in an idle server: the wakeups for the listener, then one for the client's close
/// (the request's data is already there when the connection is accepted, so reading it costs no
/// sleep), and the wasted ones among them.
#[test]
fn idle_server_wakes_exactly_the_textbook_count_per_connection() {
    for seed in [1, 7] {
        for cpus in [1, 2, 4] {
            for workers in [2u32, 3, 4, 8] {
                let c = 40u64;
                let w = workers as u64;
                // shared epoll: the newest sleeper is woken (LIFO); its harvest puts the
                // level-triggered listener back on the ready list and wakes the next sleeper
                // (ep_done_scan), and registering the connection, already readable, wakes a third
                // (ep_insert): with three or more workers both extra wakeups find nothing
                let shared = if workers >= 3 { (4, 2) } else { (3, 1) };
                let cases: [(Strategy, u64, u64); 5] = [
                    // every epoll's entry is non-exclusive: all N woken, N-1 for nothing
                    (Strategy::Herd, w + 1, w - 1),
                    (Strategy::SharedEpoll, shared.0, shared.1),
                    (Strategy::Exclusive, 2, 0),
                    (Strategy::Reuseport, 2, 0),
                    // accept, then the blocking read that sleeps until the close
                    (Strategy::Blocking, 2, 0),
                ];
                for (s, wake, wasted) in cases {
                    let (r, status) = run(&idle(s, workers, cpus, seed));
                    let tag = format!("{} w{workers} c{cpus} s{seed}", s.name());
                    assert_eq!(status, Status::Finished, "{tag}");
                    assert_eq!(r.connections_accepted, c, "{tag}");
                    assert_eq!(r.wakeups, wake * c, "{tag}: wakeups");
                    assert_eq!(r.wasted_wakeups, wasted * c, "{tag}: wasted");
                    assert_eq!(r.timer_wakeups, 0, "{tag}");
                }
                // the accept mutex: only the holder's epoll has the listener
                let (r, status) = run(&idle(Strategy::AcceptMutex, workers, cpus, seed));
                assert_eq!(status, Status::Finished);
                assert_eq!(r.wasted_wakeups, 0, "accept-mutex w{workers}");
                assert_eq!(r.eagain, 0);
                assert_eq!(
                    r.wakeups - r.timer_wakeups,
                    2 * c,
                    "accept-mutex w{workers}"
                );
                // losers wake every 500 ms; 40 connections at 200/s are over in 200 ms
                assert_eq!(r.timer_wakeups, 0, "accept-mutex w{workers}");
                let _ = w;
            }
        }
    }
}

#[test]
fn herd_wastes_n_minus_one_and_eagain_undercounts_it() {
    let (r, _) = run(&AcceptParams {
        connections: 200,
        ..idle(Strategy::Herd, 8, 2, 1)
    });
    assert_eq!(r.wasted_wakeups, 7 * 200);
    // most of the wasted wakeups never reach user space: the re-poll finds the socket drained
    assert!(
        r.eagain < r.wasted_wakeups / 2,
        "{} {}",
        r.eagain,
        r.wasted_wakeups
    );
}

/// With FIFO run queues the two workers that reach the two idle CPUs first would win every race;
/// the fair scheduler's wakeup preemption lets a worker that has used less CPU preempt the winner,
/// so the herd's wins spread, as they do on a real kernel.
#[test]
fn herd_wins_spread_over_the_workers_under_the_fair_scheduler() {
    let (r, _) = run(&AcceptParams {
        connections: 600,
        arrival: ArrivalPattern::Poisson,
        local_clients: true,
        ..idle(Strategy::Herd, 8, 2, 1)
    });
    let winners = r.per_worker_connections.iter().filter(|&&n| n > 0).count();
    assert_eq!(winners, 8, "{:?}", r.per_worker_connections);
    assert!(r.busiest_share < 0.4, "{:?}", r.per_worker_connections);
    // random arrivals sometimes overlap, so a few wakeups find a worker busy instead of asleep
    assert!(r.wasted_wakeups > 69 * 600 / 10, "{}", r.wasted_wakeups);
}

#[test]
fn no_connection_is_lost_or_served_twice_under_load() {
    for s in Strategy::ALL {
        for seed in [1, 2, 3] {
            let p = AcceptParams {
                strategy: s,
                workers: 6,
                cpus: 2,
                connections: 500,
                rate: 200_000,
                arrival: ArrivalPattern::Poisson,
                requests: 3,
                service_ns: 5_000,
                think_ns: 20_000,
                worker_connections: 16, // accept_disabled turns positive under this load
                seed,
                ..Default::default()
            };
            let mut sim = p.simulate();
            sim.run(50_000_000);
            let tag = format!("{} seed {seed}", s.name());
            assert_eq!(sim.status(), &Status::Finished, "{tag}");
            let m = sim.metrics();
            assert_eq!(m.connections_arrived, 500, "{tag}");
            assert_eq!(m.connections_accepted, 500, "{tag}");
            assert_eq!(sim.net().map(|n| n.closed), Some(500), "{tag}");
            let served: u64 = sim
                .threads()
                .iter()
                .map(|t| t.machine().stats().requests)
                .sum();
            assert_eq!(served, 1500, "{tag}");
            assert_eq!(m.lost_wakeups, 0, "{tag}");
        }
    }
}

#[test]
fn same_parameters_same_trace() {
    for s in Strategy::ALL {
        let p = AcceptParams {
            strategy: s,
            connections: 100,
            rate: 50_000,
            arrival: ArrivalPattern::Poisson,
            ..Default::default()
        };
        let mut a = p.simulate();
        let mut b = p.simulate();
        a.run(u64::MAX);
        b.run(u64::MAX);
        assert_eq!(a.trace_hash(), b.trace_hash(), "{}", s.name());
        assert_eq!(a.metrics(), b.metrics());
    }
}

/// EPOLLEXCLUSIVE is "one or more": a walk passes an exclusive epoll whose worker is busy (its
/// callback returns 0, so the budget is not spent) but still queues the event on its ready list.
#[test]
fn exclusive_walk_passes_a_busy_epoll_and_queues_the_event_there() {
    let p = AcceptParams {
        strategy: Strategy::Exclusive,
        workers: 2,
        cpus: 2,
        connections: 2,
        arrival: ArrivalPattern::Burst,
        burst: 2,
        reorder_every: 0,
        ..Default::default()
    };
    let mut sim = p.simulate();
    // run until both workers sleep in epoll_wait and the first connection arrives
    loop {
        let r = sim.step().expect("runs");
        if let Note::Arrived { .. } = r.note {
            break;
        }
    }
    let first: Vec<(u16, i32)> = sim.last_walk().iter().map(|v| (v.waiter, v.ret)).collect();
    assert_eq!(
        first,
        [(EP_WAITER, 1)],
        "the first registered epoll wakes its sleeper"
    );
    // the second connection of the burst arrives before worker 0 has run
    let r = sim
        .step_actor(herdlab_core::sim::Actor::Network)
        .expect("arrival");
    assert!(
        matches!(r.note, Note::Arrived { woken: 1, .. }),
        "{:?}",
        r.note
    );
    let second: Vec<(u16, i32)> = sim.last_walk().iter().map(|v| (v.waiter, v.ret)).collect();
    assert_eq!(second, [(EP_WAITER, 0), (EP_WAITER + 1, 1)]);
    let n = sim.net().unwrap();
    assert_eq!(n.epolls[0].ready.len(), 1, "queued on the busy epoll too");
    assert_eq!(n.epolls[1].ready.len(), 1);
}

#[test]
fn exclusive_without_reorder_gives_the_first_registered_worker_nearly_everything() {
    let base = AcceptParams {
        strategy: Strategy::Exclusive,
        connections: 400,
        ..idle(Strategy::Exclusive, 8, 2, 1)
    };
    let (r, _) = run(&AcceptParams {
        reorder_every: 0,
        ..base
    });
    assert!(r.busiest_share > 0.95, "{:?}", r.per_worker_connections);
    assert_eq!(r.per_worker_connections[0], r.connections_accepted);
    let (r, _) = run(&AcceptParams {
        reorder_every: 16,
        ..base
    });
    assert!(r.jain_index > 0.95, "{:?}", r.per_worker_connections);
    let (r, _) = run(&AcceptParams {
        strategy: Strategy::Reuseport,
        ..base
    });
    assert!(r.jain_index > 0.9, "{:?}", r.per_worker_connections);
}

#[test]
fn accept_mutex_holder_keeps_most_connections() {
    let (r, _) = run(&AcceptParams {
        connections: 400,
        arrival: ArrivalPattern::Poisson,
        ..idle(Strategy::AcceptMutex, 8, 2, 1)
    });
    assert!(r.busiest_share > 0.5, "{:?}", r.per_worker_connections);
    assert!(r.mutex_acquisitions > 0 && r.mutex_failures > 0);
    assert!(r.mutex_hold_ns > 0);
}

fn check_cfg() -> CheckConfig {
    CheckConfig {
        max_states: 2_000_000,
        ..Default::default()
    }
}

fn small(variant: MutexVariant, workers: u32, connections: u32) -> AcceptParams {
    AcceptParams {
        strategy: Strategy::AcceptMutex,
        variant,
        workers,
        cpus: 1,
        connections,
        arrival: ArrivalPattern::OnDemand,
        ..Default::default()
    }
}

#[test]
fn checker_proves_the_accept_mutex_for_two_workers() {
    for (w, c) in [(2, 2), (3, 1)] {
        let r = invariants::check(
            &small(MutexVariant::Correct, w, c),
            &check_cfg(),
            &mut |_| true,
        );
        assert!(r.complete, "{w}x{c}");
        assert!(r.violation.is_none(), "{w}x{c}: {:?}", r.violation);
        assert!(r.states > 100, "{}", r.states);
    }
}

#[test]
fn checker_finds_every_broken_accept_mutex_and_the_replay_reproduces_it() {
    let cases = [
        (MutexVariant::UnlockBeforeAccept, "accept-under-lock"),
        (MutexVariant::NoDisable, "registration-follows-held"),
        (MutexVariant::NoTimer, "retry-bound"),
    ];
    for (variant, invariant) in cases {
        let p = small(variant, 2, 2);
        let r = invariants::check(&p, &check_cfg(), &mut |_| true);
        let cx = r
            .violation
            .unwrap_or_else(|| panic!("{} not caught", variant.name()));
        assert_eq!(cx.violation.invariant, invariant, "{}", variant.name());
        let sim = invariants::replay(&p, &cx.schedule);
        let model = herdlab_core::check::SimModel { sim };
        let again = invariants::check_state(&model).expect("the replay ends on the violation");
        assert_eq!(again.invariant, invariant);
        // one step shorter does not break it yet (the counterexample is minimal at its end)
        let sim = invariants::replay(&p, &cx.schedule[..cx.schedule.len() - 1]);
        assert!(invariants::check_state(&herdlab_core::check::SimModel { sim }).is_none());
    }
}

#[test]
fn checker_finds_nothing_wrong_with_the_other_strategies() {
    for s in Strategy::ALL {
        if s == Strategy::AcceptMutex {
            continue;
        }
        let p = AcceptParams {
            strategy: s,
            workers: 2,
            cpus: 1,
            connections: 2,
            arrival: ArrivalPattern::OnDemand,
            ..Default::default()
        };
        let r = invariants::check(&p, &check_cfg(), &mut |_| true);
        assert!(
            r.complete && r.violation.is_none(),
            "{}: {:?}",
            s.name(),
            r.violation
        );
    }
}

#[test]
fn mutex_variant_names_follow_all() {
    let names: Vec<&str> = MutexVariant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(names, MutexVariant::NAMES);
    for n in MutexVariant::NAMES {
        assert_eq!(MutexVariant::from_name(n).map(|v| v.name()), Some(n));
    }
}

#[test]
fn the_last_walk_names_its_listener_and_the_network_says_when_it_acts() {
    let p = AcceptParams {
        strategy: Strategy::Reuseport,
        workers: 4,
        connections: 20,
        ..idle(Strategy::Reuseport, 4, 2, 3)
    };
    let mut sim = p.simulate();
    let mut listeners = std::collections::HashSet::new();
    while let Some(due) = sim.network_due_ns().or_else(|| sim.next_actor().map(|_| 0)) {
        let r = sim.step().expect("runs");
        if let Note::Arrived { conn, .. } = r.note {
            assert_eq!(r.time_ns, due, "the arrival came when announced");
            let l = sim.last_walk_listener();
            assert!(
                sim.listeners()[l as usize].queue.contains(&conn),
                "connection {conn} on listener {l}"
            );
            listeners.insert(l);
        }
    }
    assert!(listeners.len() > 1, "{listeners:?}");
}
