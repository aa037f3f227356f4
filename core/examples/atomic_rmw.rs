//! How long one uncontended atomic read-modify-write takes on this machine: the measurement behind
//! `CostModel::atomic_ns` (see `core/src/cost.rs`).
//!
//! One thread, one cache line it owns: back-to-back `lock xadd` (`fetch_add`) and successful
//! `lock cmpxchg` (`compare_exchange`) on x86-64, each timed over many iterations, with a plain
//! load+store loop on the same word as the baseline, and `pause` (`std::hint::spin_loop`) for
//! `CostModel::pause_ns`. Each figure is the best (lowest) of many short
//! rounds, in nanoseconds per operation: short rounds, so that the best one ran without being
//! preempted on a shared machine.
//!
//! ```sh
//! cargo run --release -p herdlab-core --example atomic_rmw
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

const ITERS: u64 = 200_000;
const ROUNDS: usize = 200;

/// Best-of-`ROUNDS` nanoseconds per iteration of `body`.
fn best_ns(mut body: impl FnMut(u64)) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        body(ITERS);
        let ns = t0.elapsed().as_nanos() as f64 / ITERS as f64;
        best = best.min(ns);
    }
    best
}

fn main() {
    let word = AtomicU64::new(0);
    let w = black_box(&word);

    let plain = best_ns(|n| {
        for _ in 0..n {
            // a relaxed load and store compile to plain `mov`s on x86-64
            let v = w.load(Ordering::Relaxed);
            w.store(black_box(v + 1), Ordering::Relaxed);
        }
    });
    let xadd = best_ns(|n| {
        for _ in 0..n {
            black_box(w.fetch_add(1, Ordering::AcqRel));
        }
    });
    let cmpxchg = best_ns(|n| {
        for _ in 0..n {
            let v = w.load(Ordering::Relaxed);
            black_box(w.compare_exchange(v, v + 1, Ordering::AcqRel, Ordering::Relaxed))
                .expect("uncontended");
        }
    });

    let pause = best_ns(|n| {
        for _ in 0..n {
            std::hint::spin_loop(); // `pause` on x86-64
        }
    });

    println!("iterations per round: {ITERS}, best of {ROUNDS} rounds");
    println!("plain load+store     {plain:6.2} ns/op");
    println!("lock xadd            {xadd:6.2} ns/op");
    println!("lock cmpxchg         {cmpxchg:6.2} ns/op");
    println!("pause                {pause:6.2} ns/op");
    println!("{}", black_box(&word).load(Ordering::Relaxed) > 0);
}
