//! The G/M/P blocks (docs/site-contract.md, "Go's scheduler"): ```` ```herdlab-sim ```` with
//! `mechanism=gmp` (one simulation; `main=true` for the playground), ```` ```herdlab-compare ````
//! with `mechanism=gmp` (the runtime's code and a variant, or two variants, on one scenario and
//! seed) and the page query of a gmp playground. Nothing here panics on any input: every bad key or value becomes a message naming
//! the key and the allowed values, and the default is used instead.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams, GmpVariant};
use herdlab_core::scenario::ParamError;

use crate::lesson::grammar::{
    misfit_mechanism, one_line, parse_keys, parse_sim_block, read_playground_query,
    settle_or_default, BlockRules, CompareBlock, CompareSides, PlaygroundInit, SimBlock, ID_NEEDED,
};

/// A parsed gmp simulation block.
pub type GmpSimSpec = SimBlock<GmpParams>;
/// A parsed gmp comparison block.
pub type GmpCompareSpec = CompareBlock<GmpParams>;
/// What a gmp playground starts from: its block's scenario with the page query on top.
pub type GmpMainInit = PlaygroundInit<GmpParams>;

/// Core's gmp keys by name (a test holds them equal to `Gmp::KEYS`).
pub const GMP_KEYS: [&str; 15] = [
    "gomaxprocs",
    "threads",
    "cpus",
    "workload",
    "goroutines",
    "work_ns",
    "yields",
    "ring",
    "variant",
    "syscall_ns",
    "hog_ns",
    "rounds",
    "net_ns",
    "locked",
    "seed",
];

/// A gmp block's `mechanism` error.
fn gmp_mechanism(v: &str) -> Option<String> {
    misfit_mechanism(v, "a gmp block", "gmp")
}

const SIM_RULES: BlockRules<GmpParams> = BlockRules {
    block: "herdlab-sim",
    own: "id, main, controls, stop, caption, mechanism",
    keys: &GMP_KEYS,
    set: <Gmp as Mechanism>::set,
    mechanism: gmp_mechanism,
    missing_id: ID_NEEDED,
};

/// Parse a gmp simulation block. `fallback_id` names the widget when `id` is missing.
pub fn parse_gmp_sim(body: &str, fallback_id: &str) -> GmpSimSpec {
    parse_sim_block(
        &one_line(body),
        fallback_id,
        &SIM_RULES,
        settle_or_default::<Gmp>,
    )
}

const COMPARE_RULES: BlockRules<GmpParams> =
    BlockRules::compare(&GMP_KEYS, <Gmp as Mechanism>::set, gmp_mechanism);

/// Parse a gmp comparison block: `left` and `right` each name a variant (`correct`, the
/// runtime's code, or a broken one: core's `GmpVariant::NAMES`), run on the shared scenario keys
/// with the same seed. A missing or bad side is reported and falls back on `correct` (left) and
/// `single-queue` (right), as does a side whose scenario does not hold together (core's message,
/// under the side's name).
pub fn parse_gmp_compare(body: &str, fallback_id: &str) -> GmpCompareSpec {
    let mut p = GmpParams::default();
    let mut sides = CompareSides::new(
        GmpVariant::from_name,
        GmpVariant::NAMES.join(", "),
        [GmpVariant::Correct, GmpVariant::SingleQueue],
    );
    let mut block = parse_keys(&one_line(body), &COMPARE_RULES, &mut p, |k, v, e| {
        sides.take(k, v, e)
    });
    settle_or_default::<Gmp>(&mut p, &mut block.perr);
    sides.finish(
        block,
        &COMPARE_RULES,
        fallback_id,
        |variant, fallback, name, perr| {
            let with = |v| GmpParams { variant: v, ..p };
            let q = with(variant);
            let errs = <Gmp as Mechanism>::validate(&q);
            if errs.is_empty() {
                return q;
            }
            perr.extend(errs.into_iter().map(|e| ParamError {
                field: format!("{name} ({})", e.field),
                message: e.message,
            }));
            let f = with(fallback);
            if <Gmp as Mechanism>::validate(&f).is_empty() {
                f
            } else {
                p
            }
        },
    )
}

/// Read the page query over the gmp playground's scenario. A bad value keeps the block's value
/// for that field and is reported.
pub fn resolve_gmp_main(spec: &GmpSimSpec, query: &str) -> GmpMainInit {
    let mut init = read_playground_query(
        query,
        spec.params,
        "gmp",
        <Gmp as Mechanism>::set,
        |_, _, _| false,
    );
    settle_or_default::<Gmp>(&mut init.params, &mut init.errors);
    init
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::gmp::{GmpVariant, Workload};

    #[test]
    fn the_key_list_is_cores() {
        let core: Vec<&str> = <Gmp as Mechanism>::KEYS.iter().map(|k| k.name).collect();
        assert_eq!(core, GMP_KEYS);
    }

    #[test]
    fn gmp_compare_blocks() {
        let c = parse_gmp_compare(
            "id=c&mechanism=gmp&left=correct&right=steal-one&gomaxprocs=2&threads=3&goroutines=9&ring=8&seed=4&stop=0",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!((c.id.as_str(), c.stop), ("c", Some(0)));
        assert_eq!(
            (c.left.variant, c.right.variant),
            (GmpVariant::Correct, GmpVariant::StealOne)
        );
        assert_eq!(
            GmpParams {
                variant: GmpVariant::Correct,
                ..c.right
            },
            c.left,
            "only the variant differs"
        );
        assert_eq!((c.left.goroutines, c.left.ring, c.left.seed), (9, 8, 4));

        let bad = parse_gmp_compare("id=b&left=nope&gomaxprocs=99", "x");
        let all = bad.errors.join("\n");
        for w in [
            "left: 'nope' is not allowed; allowed: correct, reversed-dance",
            "right: missing; allowed: correct",
            "gomaxprocs: 99 is out of range; allowed 1-16",
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
        assert_eq!(
            (bad.left.variant, bad.right.variant),
            (GmpVariant::Correct, GmpVariant::SingleQueue),
            "the fallbacks"
        );
        assert_eq!(bad.left.gomaxprocs, GmpParams::default().gomaxprocs);
    }

    #[test]
    fn gmp_sim_blocks() {
        let s = parse_gmp_sim(
            "id=g&mechanism=gmp&gomaxprocs=2&threads=3&goroutines=5&ring=4&workload=chain&variant=steal-one&stop=0",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.id, "g");
        assert_eq!((s.params.gomaxprocs, s.params.threads), (2, 3));
        assert_eq!((s.params.goroutines, s.params.ring), (5, 4));
        assert_eq!(s.params.workload, Workload::Chain);
        assert_eq!(s.params.variant, GmpVariant::StealOne);
        assert_eq!(s.stop, Some(0));

        let bad = parse_gmp_sim("gomaxprocs=0&workload=nope&mechanism=pool&frob=1", "fb");
        assert_eq!(bad.id, "fb");
        assert_eq!(bad.params, GmpParams::default());
        let all = bad.errors.join("\n");
        for w in [
            "gomaxprocs: 0 is out of range; allowed 1-16",
            "workload: 'nope' is not allowed; allowed: fan-out, chain, tree, spawn-many, yield-many, ping-pong",
            "mechanism: 'pool' does not fit a gmp block; allowed: gmp",
            "frob",
            ID_NEEDED,
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
        // a scenario that does not hold together: core's message, and the defaults
        let odd = parse_gmp_sim("id=o&workload=ping-pong&goroutines=4", "x");
        assert_eq!(odd.params, GmpParams::default());
        assert_eq!(odd.errors.len(), 1, "{:?}", odd.errors);
        assert!(odd.errors[0].contains("must be odd"), "{:?}", odd.errors);
    }

    #[test]
    fn main_query_over_the_block() {
        let spec = parse_gmp_sim("id=p&main=true&gomaxprocs=2&threads=3", "x");
        let m = resolve_gmp_main(&spec, "mechanism=gmp&gomaxprocs=99&seed=7&step=4");
        assert_eq!(m.params.gomaxprocs, 2, "the block's value stays");
        assert_eq!((m.params.seed, m.step), (7, Some(4)));
        assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
        assert!(m.errors[0].to_string().contains("1-16"));
    }
}
