//! One headless measuring run of a simulation, whatever its machine (the engine's [`AnyMachine`]): steps in chunks for about a
//! given time, starting over when a run ends early.

use herdlab_core::sim::Simulation;
use herdlab_web_engine::{AnyMachine, FastSim};

use crate::dom;

/// Steps between clock reads.
const CHUNK: u64 = 10_000;

/// Step `fresh()` in chunks for about `run_ms`; a run that ends early starts over. Returns the
/// steps taken and the milliseconds they took.
///
/// It measures what `herdlab sim` measures: the engine's [`FastSim::run_fast`] loop (the steps
/// stay inside the engine, no step record comes back to the site per step) with the trace hash
/// off (nobody reads it here: `Simulation::set_trace`).
pub fn measure(fresh: impl Fn() -> Simulation<AnyMachine>, run_ms: f64) -> (u64, f64) {
    let fresh = || {
        let mut sim = fresh();
        sim.set_trace(false);
        sim
    };
    let mut sim = fresh();
    let t0 = dom::now_ms();
    let mut steps = 0u64;
    loop {
        let n = sim.run_fast(CHUNK);
        steps += n;
        let el = dom::now_ms() - t0;
        if el >= run_ms {
            return (steps, el.max(0.001));
        }
        if n < CHUNK {
            if n == 0 && sim.metrics().steps == 0 {
                return (steps, el.max(0.001));
            }
            sim = fresh();
        }
    }
}
