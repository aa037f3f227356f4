//! Model-check nginx's thread pool (T = 2, 3 requests) for the correct code and every broken
//! variant, and replay each counterexample in the simulator:
//! `cargo run --release -p herdlab-core --example pool_check [key=value ...]` (keys override the
//! preset: `spurious=1`, `threads=3`, `variant=correct` to check one variant).

use std::time::Instant;

use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::invariants::{check, check_state, check_terminal, replay};
use herdlab_core::mechanisms::pool::{Pool, PoolParams, PoolVariant};

fn main() {
    let mut base = PoolParams::check_preset();
    let mut only = None;
    for arg in std::env::args().skip(1) {
        let (k, v) = arg.split_once('=').expect("key=value");
        if let Err(e) = Pool::set(&mut base, k, v) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        if k == "variant" {
            only = Some(base.variant);
        }
    }
    for variant in PoolVariant::ALL {
        if only.is_some_and(|o| o != variant) {
            continue;
        }
        let p = PoolParams { variant, ..base };
        let t = Instant::now();
        let r = check(&p, &CheckConfig::default(), &mut |_| true);
        let secs = t.elapsed().as_secs_f64();
        let verdict = match &r.violation {
            None => "proven".to_string(),
            Some(cx) => {
                let sim = replay(&p, &cx.schedule);
                let again = check_state(&sim).or_else(|| check_terminal(&sim));
                format!(
                    "{} in {} steps: {} (replay: {})",
                    cx.violation.invariant,
                    cx.schedule.len(),
                    cx.violation.message,
                    again.map_or("no violation".to_string(), |v| v.invariant)
                )
            }
        };
        println!(
            "{:22} states {:>9} depth {:>4} {:>7.2} s complete {}  {verdict}",
            variant.name(),
            r.states,
            r.max_depth,
            secs,
            r.complete
        );
    }
}
