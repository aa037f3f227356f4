//! One headless measuring run of a simulation, whatever its machine (the engine's [`AnyMachine`]): steps in chunks for about a
//! given time, starting over when a run ends early.

use herdlab_core::sim::Simulation;
use herdlab_web_engine::{AnyMachine, FastSim};

use crate::dom;

/// Steps between clock reads.
const CHUNK: u64 = 10_000;

/// Step `fresh()` in chunks for about `run_ms`; a run that ends early starts over. Returns the
/// steps taken and the milliseconds they took.
pub fn measure(fresh: impl Fn() -> Simulation<AnyMachine>, run_ms: f64) -> (u64, f64) {
    let mut sim = fresh();
    let t0 = dom::now_ms();
    let mut steps = 0u64;
    loop {
        let mut n = 0;
        while n < CHUNK && sim.step_fast().is_some() {
            n += 1;
        }
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
