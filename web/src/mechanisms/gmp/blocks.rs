//! The G/M/P blocks (docs/site-contract.md, "Go's scheduler"): ```` ```herdlab-sim ```` with
//! `mechanism=gmp` (one simulation; `main=true` for the playground) and the page query of a gmp
//! playground. Nothing here panics on any input: every bad key or value becomes a message naming
//! the key and the allowed values, and the default is used instead.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::{Gmp, GmpParams};

use crate::lesson::grammar::{
    misfit_mechanism, one_line, parse_sim_block, read_playground_query, settle_or_default,
    BlockRules, PlaygroundInit, SimBlock, ID_NEEDED,
};

/// A parsed gmp simulation block.
pub type GmpSimSpec = SimBlock<GmpParams>;
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
