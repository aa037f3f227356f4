//! `Simulation::set_trace(false)` leaves the trace hash out and nothing else: the same run with the
//! trace on and off takes the same steps, ends with the same counters, the same per-thread
//! counters and the same status, and returns the same step records; off, the hash stays where it
//! was when it was turned off.

use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::accept::{AcceptParams, Strategy};
use herdlab_core::mechanisms::herd::{HerdParams, WakeMode};
use herdlab_core::mechanisms::locks::{LockKind, LockParams};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::{Simulation, Status};

/// Step `a` (trace on) and `b` (trace off from step `off_at`) side by side to the end: every step
/// record equal, then every counter.
fn same_run<M: Machine>(mut a: Simulation<M>, mut b: Simulation<M>, off_at: u64) -> u64 {
    let mut steps = 0u64;
    let mut hash_at_off = None;
    loop {
        if steps == off_at {
            b.set_trace(false);
            hash_at_off = Some(b.trace_hash());
        }
        let (ra, rb) = (a.step(), b.step());
        assert_eq!(ra, rb, "step {}", steps + 1);
        if ra.is_none() {
            break;
        }
        steps += 1;
    }
    assert_eq!(a.metrics(), b.metrics());
    assert_eq!(a.status(), b.status());
    assert_eq!(*a.status(), Status::Finished);
    assert_eq!(a.first_violation(), b.first_violation());
    for (ta, tb) in a.threads().iter().zip(b.threads()) {
        assert_eq!(ta.metrics(), tb.metrics());
        assert_eq!(ta.sched(), tb.sched());
    }
    let off = hash_at_off.expect("the run is longer than off_at");
    assert_eq!(
        b.trace_hash(),
        off,
        "no step after set_trace(false) is hashed"
    );
    assert_ne!(a.trace_hash(), off, "the traced run went on hashing");
    steps
}

#[test]
fn herd_untraced_takes_the_same_steps() {
    let p = HerdParams {
        workers: 64,
        cpus: 8,
        mode: WakeMode::WakeAll,
        arrival: ArrivalPattern::Poisson,
        rate: 1_000_000,
        connections: 2_000,
        seed: 1,
        ..HerdParams::default()
    };
    let steps = same_run(p.simulate(), p.simulate(), 0);
    assert_eq!(steps, p.simulate().run(u64::MAX));
}

#[test]
fn accept_and_locks_untraced_take_the_same_steps() {
    for strategy in [Strategy::Herd, Strategy::Reuseport] {
        let p = AcceptParams {
            strategy,
            workers: 8,
            cpus: 2,
            connections: 60,
            rate: 200,
            arrival: ArrivalPattern::Steady,
            seed: 3,
            ..Default::default()
        };
        same_run(p.simulate(), p.simulate(), 17);
    }
    let p = LockParams {
        lock: LockKind::Shmtx,
        threads: 4,
        cpus: 2,
        ..LockParams::default()
    };
    same_run(p.simulate(), p.simulate(), 5);
}
