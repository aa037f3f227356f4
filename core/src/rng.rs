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
        scale_neg_ln(mean_ns, self.neg_ln_n::<1>()[0])
    }

    /// `N` draws of [`Self::exponential_ns`] at once, for a mean that fits in 32 bits: the same
    /// values in the same order, and the stream advanced by `N` draws. The fixed-point logarithm
    /// of one draw is a chain of 16 dependent multiplies (about 100 cycles of latency, most of
    /// which a single draw makes the caller wait for); the `N` chains here are independent, so
    /// the CPU overlaps them.
    ///
    /// ```
    /// use herdlab_core::rng::Rng;
    /// let (mut a, mut b) = (Rng::new(5), Rng::new(5));
    /// let four = a.exponential_ns_n::<4>(1_000);
    /// assert_eq!(four, [(); 4].map(|_| b.exponential_ns(1_000)));
    /// assert_eq!(a, b);
    /// ```
    pub fn exponential_ns_n<const N: usize>(&mut self, mean_ns: u32) -> [u64; N] {
        self.neg_ln_n::<N>()
            .map(|neg_ln| scale_neg_ln(mean_ns as u64, neg_ln))
    }

    /// `-ln(u)` in 16.16 fixed point of the next `N` draws, `u` in (0, 1] as a 32-bit fixed-point
    /// fraction.
    #[inline(always)]
    fn neg_ln_n<const N: usize>(&mut self) -> [u64; N] {
        let u = [(); N].map(|_| (self.next_u64() >> 32) as u32 as u64 + 1); // 1..=2^32
        neg_ln_fixed(u)
    }

    /// This generator `n` draws back: SplitMix64's state is its seed plus a constant per draw, so
    /// the state before the last `n` draws is known (what [`crate::sim::arrivals::Arrivals`] hashes
    /// while it holds draws taken ahead).
    pub fn rewound(&self, n: u64) -> Rng {
        Rng {
            state: self
                .state
                .wrapping_sub(n.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        }
    }
}

/// `mean_ns * neg_ln` (a 16.16 fixed-point `-ln(u)`) in whole nanoseconds, at least 1.
#[inline(always)]
fn scale_neg_ln(mean_ns: u64, neg_ln: u64) -> u64 {
    // mean_ns < 2^32 and neg_ln <= 22.2 in 16.16 (< 2^21): the product fits in 64 bits, which
    // keeps wasm32 (no native 128-bit multiply) fast; larger means fall back to 128 bits
    if mean_ns < (1 << 32) {
        ((mean_ns * neg_ln) >> 16).max(1)
    } else {
        ((mean_ns as u128 * neg_ln as u128) >> 16).max(1) as u64
    }
}

/// `-ln(u / 2^32)` in 16.16 fixed point, for each `u` in `1..=2^32`, by integer log2 plus a
/// table-free refinement. Accurate to about 1e-4, which is plenty for arrival times. The lanes are
/// independent: each step runs over all of them before the next, so their multiplies overlap.
#[inline(always)]
fn neg_ln_fixed<const N: usize>(u: [u64; N]) -> [u64; N] {
    // ln(x) = log2(x) * ln 2. log2(u / 2^32) = log2(u) - 32, which is <= 0.
    // floor(log2 u)
    let lz = u.map(|u| 63 - u.leading_zeros() as u64);
    // normalise to 1.x in 1.31 fixed point: x in [2^31, 2^32)
    let mut x = [0u64; N];
    for i in 0..N {
        x[i] = if lz[i] >= 31 {
            u[i] >> (lz[i] - 31)
        } else {
            u[i] << (31 - lz[i])
        };
    }
    // fractional part of log2 by repeated squaring, 16 bits: x^2 in 1.31 is in [2^31, 2^33); when
    // it reaches 2 (bit 32 set), that bit of the fraction is 1 and x halves back into [1, 2)
    // (`bit` walks down by shifts, not a counted range: a loop the compiler keeps rolled, so the
    // site's wasm carries one round of the lanes rather than sixteen)
    let mut frac = [0u64; N];
    let mut bit: u64 = 1 << 15;
    while bit != 0 {
        for i in 0..N {
            let sq = (x[i] * x[i]) >> 31;
            let carry = sq >> 32; // 0 or 1
            x[i] = sq >> carry;
            frac[i] |= bit & carry.wrapping_neg();
        }
        bit >>= 1;
    }
    let mut out = [0u64; N];
    for i in 0..N {
        let log2_fixed = (lz[i] << 16) | frac[i]; // 16.16, in [0, 32<<16]
        let neg_log2 = (32u64 << 16) - log2_fixed;
        // multiply by ln 2 (0.693147 in 16.16 = 45426)
        out[i] = (neg_log2 * 45426) >> 16;
    }
    out
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

    /// The lanes' squaring step (`x >>= carry`) is the branchy loop it replaced, bit for bit: that
    /// loop, as it stood, against every lane of a 4-wide call, on the edges and 400,000 draws.
    #[test]
    fn neg_ln_is_the_branchy_loop_it_replaced() {
        fn reference(u: u64) -> u64 {
            let lz = 63 - u.leading_zeros() as u64;
            let mut frac: u64 = 0;
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
            let neg_log2 = (32u64 << 16) - ((lz << 16) | frac);
            (neg_log2 * 45426) >> 16
        }
        let mut us: Vec<u64> = vec![
            1,
            2,
            3,
            (1 << 31) - 1,
            1 << 31,
            (1 << 31) + 1,
            (1 << 32) - 1,
        ];
        us.extend((0..32).map(|k| 1u64 << k));
        us.push(1 << 32);
        let mut r = Rng::new(11);
        us.extend((0..400_000).map(|_| (r.next_u64() >> 32) + 1));
        for c in us.chunks(4) {
            let mut lanes = [1u64 << 32; 4];
            lanes[..c.len()].copy_from_slice(c);
            let got = neg_ln_fixed(lanes);
            for (u, g) in lanes.iter().zip(got) {
                assert_eq!(g, reference(*u), "u = {u}");
            }
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
