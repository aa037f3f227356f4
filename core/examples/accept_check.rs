//! Model-check the accept mutex (and the other strategies) for small scenarios.
//!
//! `cargo run --release -p herdlab-core --example accept_check -- [workers] [connections]`
use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::accept::{invariants, AcceptParams, MutexVariant, Strategy};
use herdlab_core::sim::arrivals::ArrivalPattern;

fn main() {
    let a: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let workers = a.first().copied().unwrap_or(2);
    let connections = a.get(1).copied().unwrap_or(2);
    for (s, v) in MutexVariant::ALL
        .iter()
        .map(|&v| (Strategy::AcceptMutex, v))
        .chain(
            Strategy::ALL
                .iter()
                .filter(|&&s| s != Strategy::AcceptMutex)
                .map(|&s| (s, MutexVariant::Correct)),
        )
    {
        let p = AcceptParams {
            strategy: s,
            variant: v,
            workers,
            cpus: 1,
            connections,
            arrival: ArrivalPattern::OnDemand,
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let r = invariants::check(
            &p,
            &CheckConfig {
                max_states: 5_000_000,
                ..Default::default()
            },
            &mut |_| true,
        );
        println!(
            "{:13} {:22} states {:8} complete {} {:6.0} ms  {:?}",
            s.name(),
            v.name(),
            r.states,
            r.complete,
            t.elapsed().as_secs_f64() * 1e3,
            r.violation
                .map(|c| (c.violation.invariant, c.violation.message, c.schedule.len()))
        );
    }
}
