//! Stepping forward and back: snapshots plus deterministic replay.
//!
//! A [`Stepper`] wraps a [`Simulation`] and remembers which actor took each step. Stepping back `k`
//! steps restores the newest snapshot at or before the target and replays the remembered actors, so the
//! state reached is exactly the state the run had then (the simulation is deterministic). Snapshots are
//! taken every `interval` steps; when more than [`MAX_SNAPSHOTS`] accumulate, every other one is dropped
//! and the interval doubles, so memory stays bounded on long runs and a step back replays at most
//! `interval` steps.
//!
//! The steps the learner chose by hand ([`Stepper::picks`]) are what a link must carry, besides the
//! scenario and the step count, to reopen the same state ([`Stepper::replay`]).

use super::{Actor, Simulation, StepError, StepRecord};
use crate::machine::Machine;

/// The most snapshots kept before thinning.
pub const MAX_SNAPSHOTS: usize = 256;
/// The first snapshot interval, in steps.
pub const FIRST_INTERVAL: u64 = 64;

/// A simulation with history.
#[derive(Clone, Debug)]
pub struct Stepper<M> {
    current: Simulation<M>,
    log: Vec<Actor>,
    picks: Vec<(u64, Actor)>,
    snapshots: Vec<(u64, Simulation<M>)>,
    interval: u64,
}

impl<M: Machine> Stepper<M> {
    /// Start from `sim` (its current state is step 0 of the history).
    pub fn new(sim: Simulation<M>) -> Self {
        Stepper {
            snapshots: vec![(0, sim.clone())],
            current: sim,
            log: Vec::new(),
            picks: Vec::new(),
            interval: FIRST_INTERVAL,
        }
    }

    /// Rebuild the state after `steps` steps of `sim`, where `picks` lists the steps (by 0-based
    /// index) the learner chose by hand and who took them. Stops early if the run stalls; returns the
    /// stepper and the first step that could not be replayed as asked, if any.
    pub fn replay(sim: Simulation<M>, steps: u64, picks: &[(u64, Actor)]) -> (Self, Option<u64>) {
        let mut s = Stepper::new(sim);
        let mut bad = None;
        let mut pi = 0;
        for i in 0..steps {
            while pi < picks.len() && picks[pi].0 < i {
                pi += 1;
            }
            let ok = if pi < picks.len() && picks[pi].0 == i {
                s.step_actor(picks[pi].1).is_ok()
            } else {
                s.step().is_some()
            };
            if !ok {
                bad = Some(i);
                break;
            }
        }
        (s, bad)
    }

    /// The simulation now.
    pub fn sim(&self) -> &Simulation<M> {
        &self.current
    }

    /// Steps taken so far.
    pub fn position(&self) -> u64 {
        self.log.len() as u64
    }

    /// The steps chosen by hand, as (0-based step index, actor).
    pub fn picks(&self) -> &[(u64, Actor)] {
        &self.picks
    }

    /// One step with the default scheduler.
    pub fn step(&mut self) -> Option<StepRecord> {
        let rec = self.current.step()?;
        self.push(rec.actor, false);
        Some(rec)
    }

    /// One step of the chosen actor.
    pub fn step_actor(&mut self, actor: Actor) -> Result<StepRecord, StepError> {
        let rec = self.current.step_actor(actor)?;
        self.push(actor, true);
        Ok(rec)
    }

    /// Step until a step wakes someone (or `max_steps` pass, or the run stalls). Returns steps taken.
    pub fn step_to_next_wakeup(&mut self, max_steps: u64) -> u64 {
        let start = self.current.metrics().wakeups;
        let mut n = 0;
        while n < max_steps {
            if self.step().is_none() {
                break;
            }
            n += 1;
            if self.current.metrics().wakeups > start {
                break;
            }
        }
        n
    }

    fn push(&mut self, actor: Actor, manual: bool) {
        if manual {
            self.picks.push((self.log.len() as u64, actor));
        }
        self.log.push(actor);
        let pos = self.log.len() as u64;
        if pos % self.interval == 0 {
            self.snapshots.push((pos, self.current.clone()));
            if self.snapshots.len() > MAX_SNAPSHOTS {
                // keep snapshot 0 and every snapshot at a multiple of the doubled interval
                self.interval *= 2;
                let iv = self.interval;
                self.snapshots.retain(|(p, _)| p % iv == 0);
            }
        }
    }

    /// Go back one step. Returns false at step 0.
    pub fn step_back(&mut self) -> bool {
        let pos = self.position();
        if pos == 0 {
            return false;
        }
        self.seek_back(pos - 1);
        true
    }

    /// Go back to step `target` (no-op if `target` is not behind the current position).
    pub fn seek_back(&mut self, target: u64) {
        if target >= self.position() {
            return;
        }
        let idx = match self.snapshots.binary_search_by(|(p, _)| p.cmp(&target)) {
            Ok(i) => i,
            Err(i) => i - 1, // snapshot 0 always exists and 0 <= target
        };
        let (snap_pos, snap) = &self.snapshots[idx];
        let snap_pos = *snap_pos;
        self.current = snap.clone();
        for i in snap_pos..target {
            let a = self.log[i as usize];
            // replaying a recorded step cannot fail: the state is the one it was taken in
            let _ = self.current.step_actor(a);
        }
        self.log.truncate(target as usize);
        self.picks.retain(|(i, _)| *i < target);
        self.snapshots.truncate(idx + 1);
    }
}
