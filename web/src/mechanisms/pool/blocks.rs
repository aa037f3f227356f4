//! The pool blocks (docs/site-contract.md, "Thread pool"): ```` ```herdlab-sim ```` with
//! `mechanism=pool` (one simulation; `main=true` for the playground), ```` ```herdlab-compare ````
//! with `mechanism=pool` (two settings of one scenario, same seed), and the page query of a pool
//! playground. Nothing here panics on any input: every bad key or value becomes a message naming
//! the key and the allowed values, and the default is used instead.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::{Pool, PoolParams, PoolVariant, Wake};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::Actor;

use crate::check_proto::{BROWSER_MAX_POOL_REQUESTS, BROWSER_MAX_POOL_THREADS};
use crate::lesson::check::CheckSpec;

use crate::lesson::grammar::{
    cap_for_browser, misfit_mechanism, one_line, parse_keys, parse_sim_block, resolve_playground,
    settle_or_default, BlockRules, CompareBlock, CompareSides, PlaygroundInit, SimBlock,
};

/// A parsed pool simulation block.
pub type PoolSimSpec = SimBlock<PoolParams>;
/// A parsed pool comparison block.
pub type PoolCompareSpec = CompareBlock<PoolParams>;
/// What a pool playground starts from: its block's scenario with the page query on top.
pub type PoolMainInit = PlaygroundInit<PoolParams>;

/// Core's pool keys by name (a test holds them equal to `Pool::KEYS`).
pub const POOL_KEYS: [&str; 16] = [
    "threads",
    "max_queue",
    "offload",
    "wake",
    "task_us",
    "blocking_pct",
    "arrival",
    "rate",
    "burst",
    "requests",
    "slots",
    "cpus",
    "spin",
    "spurious",
    "variant",
    "seed",
];

/// One side of a pool comparison: the one setting it changes in the shared scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `offload=off`: the event loop does the blocking reads itself.
    NoPool,
    /// `offload=on`: blocking reads go to the pool.
    Pool,
    /// `wake=signal`.
    Signal,
    /// `wake=broadcast`.
    Broadcast,
    /// `variant=<name>`: nginx's code or a broken variant.
    Variant(PoolVariant),
}

impl Side {
    /// The side names besides the variants'.
    pub const SETTINGS: [&'static str; 4] = ["no-pool", "pool", "signal", "broadcast"];

    /// The side named `s`.
    pub fn from_name(s: &str) -> Option<Side> {
        Some(match s {
            "no-pool" => Side::NoPool,
            "pool" => Side::Pool,
            "signal" => Side::Signal,
            "broadcast" => Side::Broadcast,
            v => Side::Variant(PoolVariant::from_name(v)?),
        })
    }

    /// Every side name, for the messages.
    pub fn allowed() -> String {
        Side::SETTINGS
            .iter()
            .chain(PoolVariant::NAMES.iter())
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The shared scenario `p` with this side's setting.
    pub fn apply(self, p: PoolParams) -> PoolParams {
        match self {
            Side::NoPool => PoolParams {
                offload: false,
                ..p
            },
            Side::Pool => PoolParams { offload: true, ..p },
            Side::Signal => PoolParams {
                wake: Wake::Signal,
                ..p
            },
            Side::Broadcast => PoolParams {
                wake: Wake::Broadcast,
                ..p
            },
            Side::Variant(variant) => PoolParams { variant, ..p },
        }
    }
}

/// A pool block's `mechanism` error.
fn pool_mechanism(v: &str) -> Option<String> {
    misfit_mechanism(v, "a pool block", "pool")
}

const SIM_RULES: BlockRules<PoolParams> =
    BlockRules::sim(&POOL_KEYS, <Pool as Mechanism>::set, pool_mechanism);

const COMPARE_RULES: BlockRules<PoolParams> =
    BlockRules::compare(&POOL_KEYS, <Pool as Mechanism>::set, pool_mechanism);

const CHECK_RULES: BlockRules<PoolParams> =
    BlockRules::check(&POOL_KEYS, <Pool as Mechanism>::set, pool_mechanism);

/// Parse a pool simulation block. `fallback_id` names the widget when `id` is missing.
pub fn parse_pool_sim(body: &str, fallback_id: &str) -> PoolSimSpec {
    parse_sim_block(
        &one_line(body),
        fallback_id,
        &SIM_RULES,
        settle_or_default::<Pool>,
    )
}

/// Parse a pool comparison block: `left`/`right` each name one setting ([`Side`]) applied to the
/// shared scenario keys; a missing side is reported and falls back on `no-pool` (left) and
/// `pool` (right).
pub fn parse_pool_compare(body: &str, fallback_id: &str) -> PoolCompareSpec {
    let mut p = PoolParams::default();
    let mut sides = CompareSides::new(Side::from_name, Side::allowed(), [Side::NoPool, Side::Pool]);
    let mut block = parse_keys(&one_line(body), &COMPARE_RULES, &mut p, |k, v, e| {
        sides.take(k, v, e)
    });
    settle_or_default::<Pool>(&mut p, &mut block.perr);
    sides.finish(block, &COMPARE_RULES, fallback_id, |side, _, _, _| {
        side.apply(p)
    })
}

/// Parse a pool ```` ```herdlab-check ```` body (`mechanism=pool` and the pool keys, over core's
/// `PoolParams::check_preset()`: T = 2, 3 blocking requests over 2 task objects, `max_queue=1`,
/// one CPU). The browser's checker takes at most [`BROWSER_MAX_POOL_THREADS`] threads and
/// [`BROWSER_MAX_POOL_REQUESTS`] requests: more is reported and capped.
pub fn parse_pool_check(body: &str, fallback_id: &str) -> CheckSpec {
    let base = PoolParams::check_preset();
    let mut p = base;
    let mut block = parse_keys(&one_line(body), &CHECK_RULES, &mut p, |_, _, _| false);
    let errs = <Pool as Mechanism>::validate(&p);
    if !errs.is_empty() {
        p = base;
        block.perr.extend(errs);
    }
    cap_for_browser(
        [
            ("threads", &mut p.threads, BROWSER_MAX_POOL_THREADS),
            ("requests", &mut p.requests, BROWSER_MAX_POOL_REQUESTS),
        ],
        "herdlab check pool",
        &mut block.perr,
    );
    let id = block.finish(&CHECK_RULES, fallback_id);
    CheckSpec {
        id,
        scenario: Scenario::Pool(p),
        caption: block.caption,
        errors: block.errors,
    }
}

/// A pool counterexample (checker indices are thread indices) as the actors the widget steps.
pub fn pool_actors(schedule: &[u16]) -> Vec<Actor> {
    schedule.iter().map(|&t| Actor::Thread(t)).collect()
}

/// Read the page query over the pool playground's scenario. A bad value keeps the block's value
/// for that field and is reported.
pub fn resolve_pool_main(spec: &PoolSimSpec, query: &str) -> PoolMainInit {
    resolve_playground::<Pool>(spec, query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::grammar::Controls;
    use crate::lesson::grammar::ID_NEEDED;
    use herdlab_core::scenario::Scenario;
    use herdlab_core::sim::arrivals::ArrivalPattern;

    #[test]
    fn the_key_list_is_cores() {
        let core: Vec<&str> = <Pool as Mechanism>::KEYS.iter().map(|k| k.name).collect();
        assert_eq!(core, POOL_KEYS);
    }

    #[test]
    fn pool_sim_blocks() {
        let s = parse_pool_sim(
            "id=pool-intro&mechanism=pool&threads=2&requests=5&blocking_pct=100&wake=broadcast&offload=off&arrival=steady&stop=0&controls=full&caption=Two%20threads",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.id, "pool-intro");
        assert_eq!((s.params.threads, s.params.requests), (2, 5));
        assert_eq!(s.params.blocking_pct, 100);
        assert_eq!(s.params.wake, Wake::Broadcast);
        assert!(!s.params.offload);
        assert_eq!(s.params.arrival, ArrivalPattern::Steady);
        assert_eq!((s.stop, s.controls), (Some(0), Controls::Full));
        assert_eq!(s.caption.as_deref(), Some("Two threads"));
        // a body written one key per line reads the same
        let lines = parse_pool_sim("mechanism=pool\nid=pool-intro\nthreads=2\n", "x");
        assert!(lines.errors.is_empty(), "{:?}", lines.errors);
        assert_eq!((lines.id.as_str(), lines.params.threads), ("pool-intro", 2));

        let bad = parse_pool_sim(
            "threads=0&wake=loud&variant=nope&mechanism=herd&frob=1&step=3",
            "fb",
        );
        assert_eq!(bad.id, "fb");
        assert_eq!(bad.params, PoolParams::default());
        let all = bad.errors.join("\n");
        for w in [
            "threads: 0 is out of range; allowed 1-64",
            "wake: 'loud' is not allowed; allowed: signal, broadcast",
            "variant: 'nope'",
            "if-not-while",
            "mechanism: 'herd' does not fit a pool block; allowed: pool",
            "frob",
            "step: not a herdlab-sim key",
            ID_NEEDED,
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
        assert_eq!(bad.errors.len(), 7, "{all}");
    }

    #[test]
    fn pool_compare_blocks() {
        let c = parse_pool_compare(
            "id=cmp&mechanism=pool&left=no-pool&right=pool&threads=4&requests=50&seed=3",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert!(!c.left.offload && c.right.offload);
        assert_eq!(
            PoolParams {
                offload: true,
                ..c.left
            },
            c.right,
            "only the side's setting differs"
        );
        assert_eq!((c.left.threads, c.left.requests, c.left.seed), (4, 50, 3));
        let c = parse_pool_compare("id=w&left=signal&right=broadcast", "x");
        assert_eq!((c.left.wake, c.right.wake), (Wake::Signal, Wake::Broadcast));
        let c = parse_pool_compare("id=v&left=correct&right=one-per-notify", "x");
        assert_eq!(c.right.variant, PoolVariant::OnePerNotify);
        let c = parse_pool_compare("id=m&left=loud", "x");
        assert_eq!(
            c.errors,
            [
                format!("left: 'loud' is not allowed; allowed: {}", Side::allowed()),
                format!("right: missing; allowed: {}", Side::allowed()),
            ]
        );
        assert!(!c.left.offload && c.right.offload, "the fallbacks");
    }

    #[test]
    fn pool_check_blocks() {
        let k = parse_pool_check("id=find&mechanism=pool&variant=no-signal", "x");
        assert!(k.errors.is_empty(), "{:?}", k.errors);
        let Scenario::Pool(p) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!(
            p,
            PoolParams {
                variant: PoolVariant::NoSignal,
                ..PoolParams::check_preset()
            }
        );
        let k = parse_pool_check("id=big&mechanism=pool&threads=4&requests=9&stop=2", "x");
        let Scenario::Pool(p) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!((p.threads, p.requests), (2, 3), "capped");
        assert_eq!(k.errors.len(), 3, "{:?}", k.errors);
        assert!(k.errors[0].starts_with("stop: not a herdlab-check key"));
        assert!(k.errors[1].contains("threads: 4 is too many"));
        assert!(k.errors[2].contains("requests: 9 is too many"));
        assert_eq!(
            pool_actors(&[0, 2, 1]),
            [Actor::Thread(0), Actor::Thread(2), Actor::Thread(1)]
        );
    }

    #[test]
    fn main_query_over_the_block() {
        let spec = parse_pool_sim("id=p&main=true&controls=full&threads=2&requests=9", "x");
        let m = resolve_pool_main(
            &spec,
            "mechanism=pool&threads=999&wake=broadcast&requests=7&step=5&picks=1:t2",
        );
        assert_eq!(m.params.threads, 2, "the block's value stays");
        assert_eq!(m.params.wake, Wake::Broadcast);
        assert_eq!(m.params.requests, 7);
        assert_eq!(m.step, Some(5));
        assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
        assert!(m.errors[0].to_string().contains("1-64"));
        let m = resolve_pool_main(&spec, "mechanism=locks");
        assert_eq!(m.errors.len(), 1);
        let q = Scenario::Pool(m.params).to_query();
        let back = resolve_pool_main(&spec, &q);
        assert!(back.errors.is_empty(), "{:?}", back.errors);
        assert_eq!(back.params, m.params);
    }
}
