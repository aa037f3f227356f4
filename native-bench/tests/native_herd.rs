//! Core's herd machines on real threads (Linux only): the herd's arithmetic, exactly.
//!
//! The gate delivers each event only when every worker is asleep, so wake-all must wake all `N`
//! and waste `N − 1` per event, and wake-one must wake one. No timing is asserted.
#![cfg(target_os = "linux")]

use herdlab_bench::mechanisms::herd::native::{run, RunReport, Variant};

const N: u32 = 4;
const E: u32 = 20;

fn check_no_lost_or_duplicated_work(r: &RunReport) {
    assert_eq!(r.events, E, "events delivered: {r:?}");
    assert_eq!(r.work_items, E as u64, "every job handled exactly once");
    assert_eq!(
        r.latencies_ns.len(),
        E as usize,
        "one timed start per event"
    );
    assert_eq!(r.thread_reports.len(), N as usize + 1);
}

#[test]
fn futex_wake_all_wastes_n_minus_one_per_event() {
    let r = run(Variant::FutexWakeAll, N, E).unwrap();
    check_no_lost_or_duplicated_work(&r);
    assert_eq!(r.wakeups, (N * E) as u64, "N wakeups per event");
    assert_eq!(
        r.wasted_wakeups,
        ((N - 1) * E) as u64,
        "N - 1 wasted per event"
    );
    assert_eq!(r.wasted_wakeups, 60);
}

#[test]
fn futex_wake_one_wastes_almost_nothing() {
    let r = run(Variant::FutexWakeOne, N, E).unwrap();
    check_no_lost_or_duplicated_work(&r);
    assert!(r.wasted_wakeups <= 2, "wasted {}", r.wasted_wakeups);
    assert!(
        (E as u64..=E as u64 + 2).contains(&r.wakeups),
        "wakeups {}",
        r.wakeups
    );
}

#[test]
fn condvar_notify_all_wastes_n_minus_one_per_event() {
    let r = run(Variant::CondvarNotifyAll, N, E).unwrap();
    check_no_lost_or_duplicated_work(&r);
    assert_eq!(r.wakeups, (N * E) as u64, "N wakeups per event");
    assert_eq!(r.wasted_wakeups, 60);
}

#[test]
fn condvar_notify_one_wastes_almost_nothing() {
    let r = run(Variant::CondvarNotifyOne, N, E).unwrap();
    check_no_lost_or_duplicated_work(&r);
    assert!(r.wasted_wakeups <= 2, "wasted {}", r.wasted_wakeups);
    assert!(
        (E as u64..=E as u64 + 2).contains(&r.wakeups),
        "wakeups {}",
        r.wakeups
    );
}

#[test]
fn accept_takes_every_connection_once() {
    let r = run(Variant::Accept, N, E).unwrap();
    assert_eq!(r.events, E);
    assert_eq!(r.connections, E, "connections accepted");
    assert_eq!(r.work_items, E as u64, "each connection handled once");
    assert_eq!(r.latencies_ns.len(), E as usize);
    assert_eq!(r.thread_reports.len(), N as usize);
    // every worker exited through the listener's shutdown
    assert!(r.thread_reports.iter().all(|t| t.tid > 0));
    // the kernel queues accept() sleepers exclusively: one wakes per connection
    assert!(r.wakeups >= E as u64, "wakeups {}", r.wakeups);
}
