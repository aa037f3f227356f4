//! The simulator as a model for the search engine: for mechanisms whose kernel side the checking
//! platform does not model (the accept path, mutexes and condition variables, arrivals).
//!
//! The actors are the threads (indices `0..n`) and, where the world has one, the network (index
//! `n`), which may deliver its next connection at any point while connections remain, so every
//! arrival time is explored. States are identified by [`Simulation::hash_logical`]: time and CPU
//! placement are left out, so the search explores interleavings, not timings. Copies are heavier than
//! [`super::CheckWorld`]'s, so this suits small scenarios (two or three workers, a few connections).

use core::hash::{Hash, Hasher};

use super::search::Model;
use crate::machine::Machine;
use crate::sim::{Actor, Simulation};

/// A simulation explored by the model checker.
#[derive(Clone, Debug)]
pub struct SimModel<M> {
    /// The simulation.
    pub sim: Simulation<M>,
}

impl<M: Machine> SimModel<M> {
    /// Replay a schedule of checker indices (threads, then the network) from `sim`; steps that
    /// cannot be taken are skipped.
    pub fn replay(sim: Simulation<M>, schedule: &[u16]) -> Simulation<M> {
        let mut m = SimModel { sim };
        for &t in schedule {
            let a = m.actor(t as usize);
            let _ = m.sim.step_actor(a);
        }
        m.sim
    }

    /// The status once it has settled (a step attempted where nothing can run), and the
    /// simulation in that state; for the checks made where no actor can step.
    pub fn settled(&self) -> Simulation<M> {
        let mut sim = self.sim.clone();
        sim.step();
        sim
    }

    /// The actor behind a checker thread index.
    pub fn actor(&self, t: usize) -> Actor {
        if t < self.sim.threads().len() {
            Actor::Thread(t as u16)
        } else {
            Actor::Network
        }
    }
}

impl<M: Machine> Hash for SimModel<M> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.sim.hash_logical(h)
    }
}

impl<M: Machine> Model for SimModel<M> {
    fn thread_count(&self) -> usize {
        self.sim.threads().len() + self.sim.has_network() as usize
    }
    fn is_runnable(&self, t: usize) -> bool {
        self.sim.can_step(self.actor(t))
    }
    fn step(&mut self, t: usize) {
        let a = self.actor(t);
        // is_runnable said yes, so the step is taken
        let _ = self.sim.step_actor(a);
    }
}
