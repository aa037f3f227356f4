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

/// The arrival stream of one run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
}

impl Arrivals {
    /// A stream of `total` events.
    pub fn new(
        pattern: ArrivalPattern,
        total: u32,
        burst: u32,
        rate_per_sec: u32,
        seed: u64,
    ) -> Self {
        let mut rng = Rng::new(seed ^ 0xA5A5_0000_0000_0001);
        let mean_gap_ns = 1_000_000_000 / rate_per_sec.max(1) as u64;
        let next_time = match pattern {
            ArrivalPattern::Steady => mean_gap_ns,
            _ => rng.exponential_ns(mean_gap_ns),
        };
        Arrivals {
            pattern,
            burst: burst.max(1),
            mean_gap_ns,
            remaining: total,
            burst_left: 0,
            burst_time: 0,
            next_time,
            rng,
        }
    }

    /// Events not yet delivered.
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
                self.next_time = base + self.rng.exponential_ns(self.mean_gap_ns);
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
