//! The scenario the `#/bench` page measures (the same one the native throughput benchmark runs).

use herdlab_core::mechanisms::herd::{HerdParams, WakeMode};
use herdlab_core::sim::arrivals::ArrivalPattern;

/// The scenario measured.
pub fn bench_params() -> HerdParams {
    HerdParams {
        workers: 64,
        cpus: 2,
        mode: WakeMode::WakeAll,
        arrival: ArrivalPattern::Poisson,
        rate: 1_000_000,
        connections: 1_000_000,
        seed: 1,
        ..Default::default()
    }
}
