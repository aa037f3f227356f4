//! A fixed-size logarithmic histogram for latencies, the same on both platforms.
//!
//! Values are bucketed by their power of two and the next [`SUB_BITS`] bits below the leading one, so
//! every bucket is at most 1/16 (6.25%) wide relative to its values: a percentile read from it is
//! within about 3% of the exact one. The histogram has a fixed size (no allocation per sample), so a
//! simulation that records 100,000 accept latencies stays cheap to clone for step-back snapshots, and
//! the native benchmark records into the same type and reports percentiles the same way.
//!
//! ```
//! use herdlab_core::histogram::LogHistogram;
//! let mut h = LogHistogram::new();
//! for v in 1..=100u64 { h.record(v * 1000); }
//! let p50 = h.percentile(50.0).unwrap();
//! assert!((48_000..=53_000).contains(&p50), "{p50}");
//! assert_eq!(h.count(), 100);
//! ```

/// Bits of resolution below the leading one.
pub const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = 64 * SUB;

/// A log-bucketed histogram of `u64` values (nanoseconds).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LogHistogram {
    counts: Box<[u32; BUCKETS]>,
    total: u64,
    max: u64,
    sum: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram::new()
    }
}

fn bucket(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let lz = 63 - v.leading_zeros(); // position of the leading one, >= SUB_BITS
    let shift = lz - SUB_BITS;
    let sub = ((v >> shift) as usize) & (SUB - 1);
    ((lz - SUB_BITS + 1) as usize) * SUB + sub
}

/// The smallest value that falls in bucket `b`.
fn bucket_low(b: usize) -> u64 {
    if b < SUB {
        return b as u64;
    }
    let e = (b / SUB) as u32 - 1 + SUB_BITS; // leading-one position
    let sub = (b % SUB) as u64;
    (1u64 << e) | (sub << (e - SUB_BITS))
}

impl LogHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        LogHistogram {
            counts: Box::new([0; BUCKETS]),
            total: 0,
            max: 0,
            sum: 0,
        }
    }

    /// Record one value.
    pub fn record(&mut self, v: u64) {
        let b = bucket(v);
        self.counts[b] = self.counts[b].saturating_add(1);
        self.total += 1;
        self.max = self.max.max(v);
        self.sum = self.sum.saturating_add(v);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The largest value recorded.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Add every value of `other`.
    pub fn merge(&mut self, other: &LogHistogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
        }
        self.total += other.total;
        self.max = self.max.max(other.max);
        self.sum = self.sum.saturating_add(other.sum);
    }

    /// The exact mean of the values recorded (rounded down; the sum saturates at `u64::MAX`).
    /// `None` when empty.
    pub fn mean(&self) -> Option<u64> {
        self.sum.checked_div(self.total)
    }

    /// The `p`-th percentile (0-100): the middle of the bucket holding that rank, capped at the
    /// maximum. `None` when empty.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((p.clamp(0.0, 100.0) / 100.0) * self.total as f64)
            .ceil()
            .max(1.0) as u64;
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                let lo = bucket_low(b);
                let hi = if b + 1 < BUCKETS {
                    bucket_low(b + 1)
                } else {
                    u64::MAX
                };
                let mid = lo + (hi - lo) / 2;
                return Some(mid.min(self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_is_exact_and_merges() {
        let mut a = LogHistogram::new();
        assert_eq!(a.mean(), None);
        for v in [1_000u64, 2_000, 6_000] {
            a.record(v);
        }
        assert_eq!(a.mean(), Some(3_000));
        let mut b = LogHistogram::new();
        b.record(11_000);
        a.merge(&b);
        assert_eq!((a.count(), a.mean()), (4, Some(5_000)));
    }

    #[test]
    fn buckets_are_monotonic_and_cover_their_values() {
        for v in [0u64, 1, 15, 16, 17, 31, 32, 1000, 123_456, u64::MAX / 3] {
            let b = bucket(v);
            assert!(bucket_low(b) <= v, "{v}");
            if b + 1 < BUCKETS {
                assert!(bucket_low(b + 1) > v, "{v}");
            }
        }
    }

    #[test]
    fn percentiles_are_within_four_percent() {
        let mut h = LogHistogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 37);
        }
        for p in [50.0, 90.0, 99.0] {
            let exact = (p / 100.0 * 10_000.0) as u64 * 37;
            let got = h.percentile(p).unwrap();
            let err = (got as f64 - exact as f64).abs() / exact as f64;
            assert!(err < 0.04, "p{p}: {got} vs {exact}");
        }
        assert_eq!(h.max(), 370_000);
    }
}
