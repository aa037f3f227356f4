//! Property test over the whole parameter space the UI allows: the simulation never panics and
//! keeps its invariants. Native only (proptest does not target wasm32 here).
#![cfg(not(target_arch = "wasm32"))]

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::herd::{Herd, HerdParams, Primitive, Variant, WakeMode};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::stepper::Stepper;
use herdlab_core::sim::Status;
use proptest::prelude::*;

fn params() -> impl Strategy<Value = HerdParams> {
    (
        1u32..=64,
        1u32..=16,
        0usize..3,
        0usize..3,
        1u32..=1024,
        1u32..=10_000_000,
        1u32..=1_000_000,
        0u64..=100_000_000,
        0usize..2,
        0usize..3,
        any::<u64>(),
    )
        .prop_map(|(w, c, m, a, b, r, n, s, v, p, seed)| {
            let primitive = [Primitive::Accept, Primitive::Futex, Primitive::Condvar][p];
            let mut mode = [
                WakeMode::WakeAll,
                WakeMode::Exclusive,
                WakeMode::LifoExclusive,
            ][m];
            let mut variant = [Variant::Correct, Variant::BrokenSleeper][v];
            if primitive != Primitive::Accept {
                // the UI refuses these combinations
                if mode == WakeMode::LifoExclusive {
                    mode = WakeMode::Exclusive;
                }
                variant = Variant::Correct;
            }
            HerdParams {
                workers: w,
                cpus: c,
                mode,
                arrival: [
                    ArrivalPattern::OnDemand,
                    ArrivalPattern::Burst,
                    ArrivalPattern::Poisson,
                ][a],
                burst: b,
                rate: r,
                connections: n,
                service_ns: s,
                variant,
                primitive,
                seed,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_allowed_scenario_runs_without_panicking_and_keeps_its_invariants(p in params()) {
        prop_assert!(Herd::validate(&p).is_empty());
        let mut st = Stepper::new(p.simulate());
        for i in 0..3_000u32 {
            let advanced = if i % 7 == 3 {
                let r = st.sim().runnable();
                match r.get(i as usize % r.len().max(1)) {
                    Some(&a) => st.step_actor(a).is_ok(),
                    None => false,
                }
            } else {
                st.step().is_some()
            };
            if !advanced { break; }
            if i % 97 == 0 { st.step_back(); }
            let m = st.sim().metrics();
            prop_assert!(m.connections_accepted <= m.connections_arrived);
            prop_assert!(m.wasted_wakeups <= m.wakeups);
        }
        if p.variant == Variant::Correct && p.primitive == Primitive::Accept {
            prop_assert_eq!(st.sim().metrics().lost_wakeups, 0);
        }
        if let Status::Stuck(msg) = st.sim().status() {
            prop_assert!(p.variant == Variant::BrokenSleeper, "stuck: {}", msg);
        }
    }
}
