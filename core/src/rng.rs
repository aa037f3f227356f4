//! A small deterministic random number generator (SplitMix64).
//!
//! The simulated platform draws every random choice (arrival times, cost jitter) from generators of
//! this type, seeded from the scenario's seed, so the same scenario always produces the same trace on
//! every platform (native and wasm32 alike: the arithmetic is plain 64-bit integer arithmetic).
//!
//! SplitMix64 is the generator of Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014.

/// A seeded SplitMix64 generator. Cloning it clones its position in the stream.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose stream is fixed by `seed`.
    ///
    /// ```
    /// use herdlab_core::rng::Rng;
    /// let mut a = Rng::new(7);
    /// let mut b = Rng::new(7);
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform value in `0..bound` (`bound` must be non-zero), by Lemire's multiply-shift. Bounds
    /// that fit in 32 bits use 64-bit arithmetic only (cheap on wasm32, which has no native 128-bit
    /// multiply).
    pub fn below(&mut self, bound: u64) -> u64 {
        let x = self.next_u64();
        if bound <= u32::MAX as u64 {
            ((x >> 32) * bound) >> 32
        } else {
            ((x as u128 * bound as u128) >> 64) as u64
        }
    }

    /// An exponentially distributed duration with the given mean, in whole nanoseconds (at least 1).
    ///
    /// Uses only integer arithmetic and a fixed-point logarithm so that native and wasm builds agree
    /// bit for bit.
    pub fn exponential_ns(&mut self, mean_ns: u64) -> u64 {
        // u in (0, 1] as a 32-bit fixed-point fraction; -ln(u) in 16.16 fixed point.
        let u = (self.next_u64() >> 32) as u32 as u64 + 1; // 1..=2^32
        let neg_ln = neg_ln_fixed(u);
        // mean_ns < 2^32 and neg_ln <= 22.2 in 16.16 (< 2^21): the product fits in 64 bits, which
        // keeps wasm32 (no native 128-bit multiply) fast; larger means fall back to 128 bits
        if mean_ns < (1 << 32) {
            ((mean_ns * neg_ln) >> 16).max(1)
        } else {
            ((mean_ns as u128 * neg_ln as u128) >> 16).max(1) as u64
        }
    }
}

/// `-ln(u / 2^32)` in 16.16 fixed point, for `u` in `1..=2^32`, by integer log2 plus a table-free
/// refinement. Accurate to about 1e-4, which is plenty for arrival times.
fn neg_ln_fixed(u: u64) -> u64 {
    // ln(x) = log2(x) * ln 2. log2(u / 2^32) = log2(u) - 32, which is <= 0.
    let lz = 63 - u.leading_zeros() as u64; // floor(log2 u)
                                            // fractional part of log2 by repeated squaring, 16 bits
    let mut frac: u64 = 0;
    // normalise to 1.x in 1.31 fixed point
    let mut x: u64 = if lz >= 31 {
        u >> (lz - 31)
    } else {
        u << (31 - lz)
    };
    for bit in (0..16).rev() {
        x = (x * x) >> 31;
        if x >= 1 << 32 {
            x >>= 1;
            frac |= 1 << bit;
        }
    }
    let log2_fixed = (lz << 16) | frac; // 16.16, in [0, 32<<16]
    let neg_log2 = (32u64 << 16) - log2_fixed;
    // multiply by ln 2 (0.693147 in 16.16 = 45426)
    (neg_log2 * 45426) >> 16
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn same_seed_same_stream_and_different_seeds_differ() {
        let mut a = Rng::new(1);
        let mut b = Rng::new(1);
        let mut c = Rng::new(2);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(3);
        for _ in 0..10_000 {
            assert!(r.below(7) < 7);
        }
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = Rng::new(9);
        let n = 200_000u64;
        let sum: u64 = (0..n).map(|_| r.exponential_ns(10_000)).sum();
        let mean = sum / n;
        assert!((9_700..=10_300).contains(&mean), "mean {mean}");
    }
}
