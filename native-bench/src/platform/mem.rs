//! Memory layout and busy work: a value alone on its cache line ([`Padded`]), and the busy spin
//! that `Op::Work` runs ([`spin_for`]).

use std::time::{Duration, Instant};

/// A value alone on its own 128-byte line (two 64-byte lines: adjacent-line prefetch included), so
/// that words and per-thread counters never share a cache line.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct Padded<T>(pub T);

/// Busy-spin on the monotonic clock for `ns` nanoseconds (what `Op::Work` does; 0 returns at once).
pub fn spin_for(ns: u64) {
    if ns == 0 {
        return;
    }
    let start = Instant::now();
    let d = Duration::from_nanos(ns);
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}
