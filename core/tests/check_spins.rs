//! The checker's spin merging on a real spinning lock (moved out of `check::world`'s docs, which
//! name no mechanism): merged, nginx's spin of 2048 explores exactly the states of a spin of 2;
//! probe by probe, every probe is a state of its own.
use herdlab_core::check::{explore, CheckConfig, SpinSteps};
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, check_world};
use herdlab_core::mechanisms::locks::{LockKind, LockParams};

fn states(spin: u32, spins: SpinSteps) -> u64 {
    let p = LockParams {
        lock: LockKind::Shmtx,
        threads: 2,
        rounds: 1,
        cpus: 2,
        spin,
        ..LockParams::default()
    };
    let world = check_world(&p).with_spin_steps(spins);
    let r = explore(
        world,
        &CheckConfig::default(),
        &|s| check_state(&p, s),
        &|s| check_terminal(&p, s),
        &mut |_| true,
    );
    assert!(r.complete && r.violation.is_none());
    r.states
}

#[test]
fn merged_spin_of_2048_explores_the_states_of_a_spin_of_2() {
    assert_eq!(
        states(2048, SpinSteps::Merged),
        states(2, SpinSteps::Merged)
    );
    assert!(states(2048, SpinSteps::OneByOne) > states(2, SpinSteps::OneByOne));
}
