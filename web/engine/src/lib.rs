//! herdlab-web-engine: the simulator's hot loops as the site runs them, compiled for speed.
//!
//! The site (`herdlab-web`) is built for size: the `release-wasm` profile (the workspace's
//! `Cargo.toml`) compiles it with `opt-level = "z"`, so that its wasm stays under its size budget.
//! But the generic code of herdlab-core that the site runs, [`Simulation<M>`] and [`Stepper<M>`]
//! stepping and the checker's [`explore`], is instantiated in the crate that names `M`: compiled
//! inside the site, it would be compiled for size too, and the browser would run fewer steps and
//! check fewer states per second. This crate names every machine the site runs and instantiates
//! those methods here, in a crate the profile compiles with `opt-level = 3`; the site calls them
//! through [`FastStepper`], [`FastSim`] and [`check_locks`] instead of core's generic methods.
//!
//! Nothing here changes what a step does: every function forwards to core.

use herdlab_core::check::{explore, CheckConfig, CheckReport};
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::accept::AcceptThread;
use herdlab_core::mechanisms::herd::HerdThread;
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, check_world};
use herdlab_core::mechanisms::locks::{LockParams, LockWorker};
use herdlab_core::mechanisms::pool::PoolActor;
use herdlab_core::sim::stepper::Stepper;
use herdlab_core::sim::{Actor, Simulation, StepError, StepRecord};

/// A machine the site simulates, with core's stepping compiled in this crate.
pub trait Engine: Machine {
    /// [`Stepper::step`].
    fn stepper_step(s: &mut Stepper<Self>) -> Option<StepRecord>;
    /// [`Stepper::step_actor`].
    fn stepper_step_actor(s: &mut Stepper<Self>, actor: Actor) -> Result<StepRecord, StepError>;
    /// [`Stepper::step_to_next_wakeup`].
    fn stepper_step_to_next_wakeup(s: &mut Stepper<Self>, max_steps: u64) -> u64;
    /// [`Stepper::step_back`].
    fn stepper_step_back(s: &mut Stepper<Self>) -> bool;
    /// [`Simulation::step`].
    fn sim_step(sim: &mut Simulation<Self>) -> Option<StepRecord>;
    /// [`Simulation::step_actor`].
    fn sim_step_actor(sim: &mut Simulation<Self>, actor: Actor) -> Result<StepRecord, StepError>;
    /// [`Simulation::run`].
    fn sim_run(sim: &mut Simulation<Self>, max_steps: u64) -> u64;
}

macro_rules! engines {
    ($($machine:ty),* $(,)?) => {$(
        impl Engine for $machine {
            fn stepper_step(s: &mut Stepper<Self>) -> Option<StepRecord> {
                s.step()
            }
            fn stepper_step_actor(s: &mut Stepper<Self>, actor: Actor) -> Result<StepRecord, StepError> {
                s.step_actor(actor)
            }
            fn stepper_step_to_next_wakeup(s: &mut Stepper<Self>, max_steps: u64) -> u64 {
                s.step_to_next_wakeup(max_steps)
            }
            fn stepper_step_back(s: &mut Stepper<Self>) -> bool {
                s.step_back()
            }
            fn sim_step(sim: &mut Simulation<Self>) -> Option<StepRecord> {
                sim.step()
            }
            fn sim_step_actor(sim: &mut Simulation<Self>, actor: Actor) -> Result<StepRecord, StepError> {
                sim.step_actor(actor)
            }
            fn sim_run(sim: &mut Simulation<Self>, max_steps: u64) -> u64 {
                sim.run(max_steps)
            }
        }
    )*};
}

engines!(HerdThread, AcceptThread, LockWorker, PoolActor);

/// [`Stepper`]'s stepping methods, compiled in this crate (see the crate's documentation).
pub trait FastStepper {
    /// [`Stepper::step`].
    fn step_fast(&mut self) -> Option<StepRecord>;
    /// [`Stepper::step_actor`].
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError>;
    /// [`Stepper::step_to_next_wakeup`].
    fn step_to_next_wakeup_fast(&mut self, max_steps: u64) -> u64;
    /// [`Stepper::step_back`].
    fn step_back_fast(&mut self) -> bool;
}

impl<M: Engine> FastStepper for Stepper<M> {
    #[inline]
    fn step_fast(&mut self) -> Option<StepRecord> {
        M::stepper_step(self)
    }
    #[inline]
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError> {
        M::stepper_step_actor(self, actor)
    }
    #[inline]
    fn step_to_next_wakeup_fast(&mut self, max_steps: u64) -> u64 {
        M::stepper_step_to_next_wakeup(self, max_steps)
    }
    #[inline]
    fn step_back_fast(&mut self) -> bool {
        M::stepper_step_back(self)
    }
}

/// [`Simulation`]'s stepping methods, compiled in this crate (see the crate's documentation).
pub trait FastSim {
    /// [`Simulation::step`].
    fn step_fast(&mut self) -> Option<StepRecord>;
    /// [`Simulation::step_actor`].
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError>;
    /// [`Simulation::run`].
    fn run_fast(&mut self, max_steps: u64) -> u64;
}

impl<M: Engine> FastSim for Simulation<M> {
    #[inline]
    fn step_fast(&mut self) -> Option<StepRecord> {
        M::sim_step(self)
    }
    #[inline]
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError> {
        M::sim_step_actor(self, actor)
    }
    #[inline]
    fn run_fast(&mut self, max_steps: u64) -> u64 {
        M::sim_run(self, max_steps)
    }
}

/// The lock invariants over the checking platform, as `herdlab check` runs them: core's
/// [`explore`] of [`check_world`] with [`check_state`] and [`check_terminal`]. (The herd's check,
/// `herd::invariants::check`, is not generic: core compiles it.)
pub fn check_locks(
    p: &LockParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    explore(
        check_world(p),
        cfg,
        &|s| check_state(p, s),
        &|s| check_terminal(p, s),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::accept::AcceptParams;
    use herdlab_core::mechanisms::herd::HerdParams;

    /// The forwarders take the same steps as core's methods.
    #[test]
    fn same_steps_as_core() {
        let p = HerdParams {
            workers: 4,
            connections: 20,
            ..Default::default()
        };
        let (mut a, mut b) = (p.simulate(), p.simulate());
        assert_eq!(a.run_fast(500), b.run(500));
        assert_eq!(a.trace_hash(), b.trace_hash());
        assert_eq!(a.step_fast(), b.step());
        let (mut a, mut b) = (Stepper::new(p.simulate()), Stepper::new(p.simulate()));
        for _ in 0..50 {
            assert_eq!(a.step_fast(), b.step());
        }
        assert_eq!(
            a.step_to_next_wakeup_fast(1000),
            b.step_to_next_wakeup(1000)
        );
        assert_eq!(a.step_back_fast(), b.step_back());
        assert_eq!(
            a.step_actor_fast(Actor::Thread(0)).is_ok(),
            b.step_actor(Actor::Thread(0)).is_ok()
        );
        assert_eq!(a.sim().trace_hash(), b.sim().trace_hash());

        let p = AcceptParams::default();
        let (mut a, mut b) = (p.simulate(), p.simulate());
        assert_eq!(a.run_fast(300), b.run(300));
        assert_eq!(a.trace_hash(), b.trace_hash());

        let p = LockParams::default();
        let (mut a, mut b) = (p.simulate(), p.simulate());
        assert_eq!(
            a.step_actor_fast(Actor::Thread(1)),
            b.step_actor(Actor::Thread(1))
        );
        assert_eq!(a.run_fast(300), b.run(300));
        assert_eq!(a.trace_hash(), b.trace_hash());

        let p = herdlab_core::mechanisms::pool::PoolParams::default();
        let (mut a, mut b) = (p.simulate(), p.simulate());
        assert_eq!(a.run_fast(400), b.run(400));
        assert_eq!(a.trace_hash(), b.trace_hash());
    }

    #[test]
    fn checks_locks_as_core() {
        let p = LockParams {
            threads: 2,
            rounds: 1,
            ..Default::default()
        };
        let cfg = CheckConfig::default();
        let ours = check_locks(&p, &cfg, &mut |_| true);
        let core = explore(
            check_world(&p),
            &cfg,
            &|s| check_state(&p, s),
            &|s| check_terminal(&p, s),
            &mut |_| true,
        );
        assert_eq!(ours.states, core.states);
        assert!(ours.states > 0);
    }
}
