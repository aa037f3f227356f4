//! A fan-out's two phases on one P, timed: what `herdlab bench gmp --compare-sim` times natively
//! too, to learn what a G costs on the machine beyond the simulator's charge for the table's steps.
//!
//! On one P (`gomaxprocs: 1`, the other Ms asleep from the start: [`GmpParams::simulate_gated`])
//! a fan-out runs in two phases that do not overlap:
//!
//! 1. **Spawn.** `main` runs every `go` (`newproc`: `runnext`, the ring, every 128th G's
//!    `runqputslow` to the global queue) and then `goexit` (its spawns are its only code). No
//!    other G runs meanwhile: there is no other P, and nothing preempts `main` in so short a run.
//! 2. **Run.** The P's M runs the other Gs one after another (`schedule`, `runqget` or the global
//!    queue's batch, `execute`, the G's work, `goexit`).
//!
//! The boundary is the first G's work after `main`'s exit (the model's `main` has no work of
//! its own). A native run stamps the same moment: the bench's second body, after `main`'s own
//! body (an empty one, run inside its poll before any `newproc`). So the two sides' phases are
//! the same program between the same two events. With a G's work set to 1 ns, what the simulator charges
//! for phase 2 is the table's steps alone; the native phase 2 costs that table natively plus
//! everything a G's code costs there (the task's poll, its waker, its future freed, caches
//! missed on 10,000 Gs' slots). Their difference per G is what `--compare-sim` adds to each
//! simulated G's work.

use crate::cost::CostModel;
use crate::sim::Note;

use super::machine::Workload;
use super::params::GmpParams;

/// The two phases of a one-P fan-out ([`GmpParams::fan_out_phases`]), in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FanOutPhases {
    /// The Gs `main` spawned (`goroutines − 1`).
    pub spawned: u32,
    /// From the first step after the gate to the first G's work (every `go`, `main`'s exit,
    /// the first G's schedule), ns.
    pub spawn_ns: u64,
    /// From there to the last G's work (the runs of every G but the first), ns.
    pub run_ns: u64,
}

impl FanOutPhases {
    /// Phase 1 per spawned G, ns.
    pub fn spawn_per_g(&self) -> u64 {
        self.spawn_ns / u64::from(self.spawned.max(1))
    }

    /// Phase 2 per G it ran (all but the first), ns.
    pub fn run_per_g(&self) -> u64 {
        self.run_ns / u64::from(self.spawned.saturating_sub(1).max(1))
    }
}

impl GmpParams {
    /// Simulate this scenario, which must be a fan-out on one P of at least 3 goroutines, from
    /// the gated start ([`GmpParams::simulate_gated`]) under `cost`, at most `max_steps` steps,
    /// and time its two phases (the module docs). An error names what is not so: another
    /// workload or P count, a run that did not finish, or one that broke an invariant at its end.
    pub fn fan_out_phases(&self, cost: CostModel, max_steps: u64) -> Result<FanOutPhases, String> {
        if self.workload != Workload::FanOut || self.gomaxprocs != 1 || self.goroutines < 3 {
            return Err(format!(
                "fan_out_phases times a fan-out of at least 3 goroutines on 1 P, not {:?} of {} on {}",
                self.workload, self.goroutines, self.gomaxprocs
            ));
        }
        let mut sim = self.simulate_gated(cost)?;
        // the start of the first step after the gate, of the first work (`main` has none: its
        // spawns are its code) and of the last work
        let (mut start, mut boundary, mut last, mut n) = (None, None, 0, 0);
        while n < max_steps {
            let Some(rec) = sim.step() else { break };
            n += 1;
            start.get_or_insert(rec.time_ns);
            if let Note::Worked { .. } = rec.note {
                if sim.metrics().work_items == 1 {
                    boundary = Some(rec.time_ns);
                }
                last = last.max(rec.time_ns);
            }
        }
        let works = sim.metrics().work_items;
        if !super::params::all_exited(&sim) || works != u64::from(self.goroutines - 1) {
            return Err(format!(
                "the one-P fan-out of {} goroutines did not finish: {works} works done in {n} steps (at most {max_steps})",
                self.goroutines
            ));
        }
        if let Some(v) = super::invariants::check_terminal(&sim) {
            return Err(format!(
                "the one-P fan-out broke {}: {}",
                v.invariant, v.message
            ));
        }
        let (start, boundary) = (start.unwrap_or(0), boundary.unwrap_or(0));
        Ok(FanOutPhases {
            spawned: self.goroutines - 1,
            spawn_ns: boundary.saturating_sub(start),
            run_ns: last.saturating_sub(boundary),
        })
    }
}
