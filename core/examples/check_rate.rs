//! States per second of the checker on ngx_shmtx, 3 threads × 2 rounds.
//! `cargo run --release -p herdlab-core --example check_rate -- [spin]`
use herdlab_core::check::{explore, CheckConfig};
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, check_world};
use herdlab_core::mechanisms::locks::{LockKind, LockParams};

fn main() {
    let spin = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2048);
    for lock in LockKind::ALL {
        let p = LockParams {
            lock,
            threads: 3,
            rounds: 2,
            cpus: 2,
            spin,
            yield_after: 4,
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let r = explore(
            check_world(&p),
            &CheckConfig::default(),
            &|s| check_state(&p, s),
            &|s| check_terminal(&p, s),
            &mut |_| true,
        );
        let dt = t.elapsed().as_secs_f64();
        println!("{:<10} states {:>9} transitions {:>9} depth {:>4} complete {} violation {:?} {:.3} s {:.2} M states/s",
            lock.name(), r.states, r.transitions, r.max_depth, r.complete, r.violation.map(|v| v.violation.invariant), dt, r.states as f64 / dt / 1e6);
    }
}
