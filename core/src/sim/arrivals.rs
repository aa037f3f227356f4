//! Arrival patterns: when the scenario's connections (or jobs) arrive.
//!
//! The arrival stream has its own generator, seeded from the scenario's seed alone, so two
//! simulations with the same seed see the same arrival sequence whatever their scheduling does (the
//! side-by-side comparisons depend on it).
//!
//! | pattern | the next event is due |
//! |---|---|
//! | [`ArrivalPattern::OnDemand`] | `THINK_NS` after every worker has gone to sleep |
//! | [`ArrivalPattern::Burst`] | `burst` events at once, each burst `THINK_NS` after every worker sleeps |
//! | [`ArrivalPattern::Poisson`] | at exponentially distributed gaps with mean `1e9 / rate` ns |
//! | [`ArrivalPattern::Steady`] | every `1e9 / rate` ns exactly, the first one gap after the start |

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// The gap between "every worker is asleep" and an on-demand arrival, in nanoseconds.
pub const THINK_NS: u64 = 1_000;

/// How connections arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArrivalPattern {
    /// One connection each time every worker is asleep.
    OnDemand,
    /// `burst` connections together each time every worker is asleep.
    Burst,
    /// Seeded Poisson arrivals at `rate` per second.
    Poisson,
    /// One connection every `1e9 / rate` ns (a paced load generator).
    Steady,
}

impl ArrivalPattern {
    /// The names the CLI and the URL use, in order.
    pub const NAMES: [&'static str; 4] = ["on-demand", "burst", "poisson", "steady"];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        match self {
            ArrivalPattern::OnDemand => "on-demand",
            ArrivalPattern::Burst => "burst",
            ArrivalPattern::Poisson => "poisson",
            ArrivalPattern::Steady => "steady",
        }
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "on-demand" => Some(ArrivalPattern::OnDemand),
            "burst" => Some(ArrivalPattern::Burst),
            "poisson" => Some(ArrivalPattern::Poisson),
            "steady" => Some(ArrivalPattern::Steady),
            _ => None,
        }
    }
}

/// How many Poisson gaps [`Arrivals`] draws at once ([`Rng::exponential_ns_n`]): their fixed-point
/// logarithms overlap, where one draw per arrival left the step waiting for its chain of
/// multiplies (on the herd's Poisson scenario about a fifth of a step natively and a quarter in
/// the page's wasm). Four chains keep their values in registers on x86-64 and in V8's wasm code.
const AHEAD: usize = 4;

/// The arrival stream of one run.
///
/// Its Poisson gaps are drawn `AHEAD` at a time and kept until their arrivals; equality, hashing
/// and `Debug` see the stream as if each were drawn at its arrival (the generator's state
/// [`Rng::rewound`] by the gaps held), so a simulation's logical state and hash do not depend on
/// where in a batch it stands.
#[derive(Clone)]
pub struct Arrivals {
    pattern: ArrivalPattern,
    burst: u32,
    mean_gap_ns: u64,
    remaining: u32,
    /// Events of the current burst still to deliver, and the burst's time.
    burst_left: u32,
    burst_time: u64,
    /// The next Poisson arrival time.
    next_time: u64,
    rng: Rng,
    /// Gaps drawn ahead: the last `ahead_left` of them are the next arrivals' (Poisson only).
    ahead: [u64; AHEAD],
    ahead_left: u8,
}

impl Arrivals {
    /// The generator as if no gap had been drawn ahead.
    fn logical_rng(&self) -> Rng {
        self.rng.rewound(self.ahead_left as u64)
    }
}

impl PartialEq for Arrivals {
    fn eq(&self, o: &Self) -> bool {
        // the gaps held follow from the generator's logical state and the mean (which are
        // compared): two streams at the same point hold the same gaps
        self.pattern == o.pattern
            && self.burst == o.burst
            && self.mean_gap_ns == o.mean_gap_ns
            && self.remaining == o.remaining
            && self.burst_left == o.burst_left
            && self.burst_time == o.burst_time
            && self.next_time == o.next_time
            && self.logical_rng() == o.logical_rng()
    }
}

impl Eq for Arrivals {}

impl core::hash::Hash for Arrivals {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        // the fields in the order a derived `Hash` took them, before gaps were drawn ahead
        self.pattern.hash(h);
        self.burst.hash(h);
        self.mean_gap_ns.hash(h);
        self.remaining.hash(h);
        self.burst_left.hash(h);
        self.burst_time.hash(h);
        self.next_time.hash(h);
        self.logical_rng().hash(h);
    }
}

impl core::fmt::Debug for Arrivals {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Arrivals")
            .field("pattern", &self.pattern)
            .field("burst", &self.burst)
            .field("mean_gap_ns", &self.mean_gap_ns)
            .field("remaining", &self.remaining)
            .field("burst_left", &self.burst_left)
            .field("burst_time", &self.burst_time)
            .field("next_time", &self.next_time)
            .field("rng", &self.logical_rng())
            .finish()
    }
}

impl Arrivals {
    /// A stream of `total` events. (Out of line: each mechanism's setup calls it once.)
    #[inline(never)]
    pub fn new(
        pattern: ArrivalPattern,
        total: u32,
        burst: u32,
        rate_per_sec: u32,
        seed: u64,
    ) -> Self {
        let mean_gap_ns = 1_000_000_000 / rate_per_sec.max(1) as u64;
        let mut a = Arrivals {
            pattern,
            burst: burst.max(1),
            mean_gap_ns,
            remaining: total,
            burst_left: 0,
            burst_time: 0,
            next_time: mean_gap_ns,
            rng: Rng::new(seed ^ 0xA5A5_0000_0000_0001),
            ahead: [0; AHEAD],
            ahead_left: 0,
        };
        // every pattern but the steady one draws the first gap (unused but by Poisson's), so
        // that the generator stands where it always has
        if pattern != ArrivalPattern::Steady {
            a.next_time = a.next_gap();
        }
        a
    }

    /// Events not yet delivered. (`#[inline]`, like [`Arrivals::due`]: the simulator asks on
    /// every step, and in the site's wasm, built for size but for core and the engine, these
    /// calls across crates stayed calls unless marked so.)
    #[inline]
    pub fn remaining(&self) -> u32 {
        self.remaining
    }

    /// The pattern.
    pub fn pattern(&self) -> ArrivalPattern {
        self.pattern
    }

    /// When the next event is due, given the instant every worker fell asleep (`idle_since`, `None`
    /// while some worker is awake). `None`: nothing is due until the workers are idle, or nothing is
    /// left.
    #[inline]
    pub fn due(&self, idle_since: Option<u64>) -> Option<u64> {
        if self.remaining == 0 {
            return None;
        }
        match self.pattern {
            ArrivalPattern::Poisson | ArrivalPattern::Steady => Some(self.next_time),
            ArrivalPattern::OnDemand => idle_since.map(|t| t + THINK_NS),
            ArrivalPattern::Burst => {
                if self.burst_left > 0 {
                    Some(self.burst_time)
                } else {
                    idle_since.map(|t| t + THINK_NS)
                }
            }
        }
    }

    /// The next Poisson gap: the next of those drawn ahead, drawing [`AHEAD`] more when none is
    /// left (the same values, in the same order, as one [`Rng::exponential_ns`] per arrival).
    #[inline]
    fn next_gap(&mut self) -> u64 {
        if self.ahead_left == 0 {
            self.draw_ahead();
        }
        let gap = self.ahead[AHEAD - self.ahead_left as usize];
        self.ahead_left -= 1;
        gap
    }

    /// Draw the next [`AHEAD`] gaps (out of line: once every `AHEAD` arrivals, and one copy of
    /// the unrolled logarithms in the site's wasm).
    #[inline(never)]
    fn draw_ahead(&mut self) {
        // the mean gap is at most 1e9 ns (a rate of at least 1 per second): it fits in 32 bits
        let mean = self.mean_gap_ns.min(u32::MAX as u64) as u32;
        self.ahead = self.rng.exponential_ns_n::<AHEAD>(mean);
        self.ahead_left = AHEAD as u8;
    }

    /// Deliver the next event at time `at` (its due time, or earlier when forced by the learner).
    /// Returns false when none is left.
    pub fn take(&mut self, at: u64) -> bool {
        if self.remaining == 0 {
            return false;
        }
        self.remaining -= 1;
        match self.pattern {
            ArrivalPattern::Poisson => {
                let base = self.next_time.max(at);
                self.next_time = base + self.next_gap();
            }
            ArrivalPattern::Steady => {
                self.next_time = self.next_time.max(at) + self.mean_gap_ns;
            }
            ArrivalPattern::OnDemand => {}
            ArrivalPattern::Burst => {
                if self.burst_left == 0 {
                    self.burst_left = self.burst;
                    self.burst_time = at;
                }
                self.burst_left -= 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn on_demand_waits_for_idle() {
        let mut a = Arrivals::new(ArrivalPattern::OnDemand, 2, 1, 1, 0);
        assert_eq!(a.due(None), None);
        assert_eq!(a.due(Some(50)), Some(50 + THINK_NS));
        assert!(a.take(1050));
        assert!(a.take(2000));
        assert!(!a.take(3000));
        assert_eq!(a.due(Some(0)), None);
    }

    #[test]
    fn burst_delivers_k_together() {
        let mut a = Arrivals::new(ArrivalPattern::Burst, 5, 3, 1, 0);
        let t = a.due(Some(10)).unwrap();
        a.take(t);
        assert_eq!(a.due(None), Some(t));
        a.take(t);
        a.take(t);
        assert_eq!(a.due(None), None, "the next burst waits for idle");
        assert_eq!(a.remaining(), 2);
    }

    /// Gaps drawn ahead change nothing: the arrival times are one `exponential_ns` per arrival
    /// from the stream's generator, and at every arrival the stream equals, hashes and prints as
    /// one that would draw each gap at its arrival (its generator rewound by the gaps it holds).
    #[test]
    fn poisson_gaps_drawn_ahead_are_the_gaps_drawn_one_by_one() {
        use core::hash::{Hash, Hasher};
        let hash = |a: &Arrivals| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            a.hash(&mut h);
            h.finish()
        };
        for (seed, rate) in [(1, 1_000_000), (4, 100_000), (77, 3)] {
            let mut a = Arrivals::new(ArrivalPattern::Poisson, 1000, 1, rate, seed);
            let mut rng = Rng::new(seed ^ 0xA5A5_0000_0000_0001);
            let mean = 1_000_000_000 / rate as u64;
            let mut expect = rng.exponential_ns(mean);
            let mut seen = std::collections::HashSet::new();
            for k in 0..1000u32 {
                assert_eq!(a.due(None), Some(expect), "seed {seed}, arrival {k}");
                assert_eq!(a.logical_rng(), rng, "seed {seed}, arrival {k}");
                assert!(
                    seen.insert(hash(&a)),
                    "every point of the stream hashes apart"
                );
                // the same stream, taken to the same point by a copy: equal and hashed the same
                let c = a.clone();
                assert_eq!(c, a);
                assert_eq!(hash(&c), hash(&a));
                assert_eq!(format!("{c:?}"), format!("{a:?}"));
                assert!(format!("{a:?}").contains(&format!("rng: {rng:?}")));
                // an arrival forced late: the next gap starts from it
                let at = if k % 7 == 0 { expect + 5 } else { expect };
                assert!(a.take(at));
                expect = at + rng.exponential_ns(mean);
            }
            assert!(!a.take(0));
        }
    }

    /// A stream hashes as the stream that drew each gap at its arrival did (the derived `Hash` of
    /// its fields, the generator's state included, before gaps were drawn ahead): the checker's
    /// state hashes and the simulations' logical hashes are what they were.
    #[test]
    fn hashes_as_the_stream_without_gaps_ahead() {
        use core::hash::{Hash, Hasher};
        #[derive(Hash)]
        struct Before {
            pattern: ArrivalPattern,
            burst: u32,
            mean_gap_ns: u64,
            remaining: u32,
            burst_left: u32,
            burst_time: u64,
            next_time: u64,
            rng: Rng,
        }
        let hash = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x(&mut h);
            h.finish()
        };
        let mut a = Arrivals::new(ArrivalPattern::Poisson, 50, 1, 250_000, 3);
        let mut rng = Rng::new(3 ^ 0xA5A5_0000_0000_0001);
        let mean = 4_000;
        let mut next_time = rng.exponential_ns(mean);
        for k in 0..10u32 {
            let before = Before {
                pattern: ArrivalPattern::Poisson,
                burst: 1,
                mean_gap_ns: mean,
                remaining: 50 - k,
                burst_left: 0,
                burst_time: 0,
                next_time,
                rng: rng.clone(),
            };
            assert_eq!(
                hash(&|h| a.hash(h)),
                hash(&|h| before.hash(h)),
                "arrival {k}"
            );
            a.take(next_time);
            next_time += rng.exponential_ns(mean);
        }
    }

    #[test]
    fn poisson_times_increase_and_do_not_depend_on_idle() {
        let mut a = Arrivals::new(ArrivalPattern::Poisson, 100, 1, 100_000, 4);
        let mut last = 0;
        for _ in 0..100 {
            let t = a.due(None).unwrap();
            assert!(t >= last);
            last = t;
            a.take(t);
        }
        // mean gap 10 µs over 100 arrivals: roughly 1 ms in all
        assert!((400_000..2_000_000).contains(&last), "{last}");
    }
}
