//! The accept blocks (docs/site-contract.md, "Accept strategies"): ```` ```herdlab-accept ```` (one
//! simulation; `main=true` for the playground), ```` ```herdlab-accept-compare ```` (2-4 strategies
//! on one scenario), and the page query of an accept playground (`mechanism=accept`). Nothing here
//! panics on any input: every bad key or value becomes a message naming the key and the allowed
//! values, and the default is used instead.

use herdlab_core::mechanisms::accept::{AcceptParams, Strategy};
use herdlab_core::scenario::{set_accept_param, validate_accept, ParamError, ACCEPT_KEYS};

use crate::lesson::grammar::{
    misfit_mechanism, parse_keys, parse_sim_block, parse_stop, read_playground_query,
    report_missing, BlockRules, PlaygroundInit, SimBlock, ID_NEEDED,
};

/// The most strategies a comparison shows.
pub const MAX_STRATEGIES: usize = 4;

/// A parsed ```` ```herdlab-accept ```` block.
pub type AcceptSimSpec = SimBlock<AcceptParams>;

/// A parsed ```` ```herdlab-accept-compare ```` block.
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptCompareSpec {
    /// The widget id (`sim-<id>`; each side `sim-<id>-<strategy>`).
    pub id: String,
    /// One scenario per side: the shared keys with that side's strategy.
    pub sides: Vec<AcceptParams>,
    /// Open stopped at this step.
    pub stop: Option<u64>,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// What an accept playground starts from: its block's scenario with the page query on top.
pub type AcceptMainInit = PlaygroundInit<AcceptParams>;

/// An accept block's `mechanism` error.
fn accept_mechanism(v: &str) -> Option<String> {
    misfit_mechanism(v, "an accept block", "accept")
}

/// The keys of a ```` ```herdlab-accept ```` block.
const SIM_RULES: BlockRules<AcceptParams> = BlockRules {
    block: "herdlab-accept",
    own: "id, main, controls, stop, caption, mechanism",
    keys: &ACCEPT_KEYS,
    set: set_accept_param,
    mechanism: accept_mechanism,
    missing_id: ID_NEEDED,
};

/// The keys of a ```` ```herdlab-accept-compare ```` block.
const COMPARE_RULES: BlockRules<AcceptParams> = BlockRules {
    block: "herdlab-accept-compare",
    own: "id, strategies, stop, caption, mechanism",
    keys: &ACCEPT_KEYS,
    set: set_accept_param,
    mechanism: accept_mechanism,
    missing_id: ID_NEEDED,
};

/// Put back the defaults of fields out of range (only possible for values built in code).
fn settle(p: &mut AcceptParams, errors: &mut Vec<ParamError>) {
    let errs = validate_accept(p);
    if !errs.is_empty() {
        *p = AcceptParams::default();
        errors.extend(errs);
    }
}

/// Parse a ```` ```herdlab-accept ```` body. `fallback_id` names the widget when `id` is missing.
pub fn parse_accept_sim(body: &str, fallback_id: &str) -> AcceptSimSpec {
    parse_sim_block(body, fallback_id, &SIM_RULES, settle)
}

/// Parse `strategies`: 2-4 distinct strategy names, comma-separated.
pub fn parse_strategies(v: &str) -> Result<Vec<Strategy>, String> {
    let allowed = Strategy::NAMES.join(", ");
    let mut out = Vec::new();
    for name in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let s = Strategy::from_name(name).ok_or_else(|| {
            format!(
                "strategies: '{}' is not a strategy; allowed: {allowed}",
                herdlab_core::mechanism::shown(name)
            )
        })?;
        if out.contains(&s) {
            return Err(format!("strategies: {name} is named twice"));
        }
        out.push(s);
    }
    if !(2..=MAX_STRATEGIES).contains(&out.len()) {
        return Err(format!(
            "strategies: give 2-{MAX_STRATEGIES} of {allowed}, comma-separated (got {})",
            out.len()
        ));
    }
    Ok(out)
}

/// Parse a ```` ```herdlab-accept-compare ```` body (`strategies=herd,exclusive` and the shared
/// scenario keys; a `strategy` key is refused). Bad strategies fall back on herd and exclusive.
pub fn parse_accept_compare(body: &str, fallback_id: &str) -> AcceptCompareSpec {
    let mut strategies = None;
    let mut stop = None;
    let mut p = AcceptParams::default();
    let mut block = parse_keys(body, &COMPARE_RULES, &mut p, |k, v, errors| {
        match k {
            "strategies" => match parse_strategies(v) {
                Ok(s) => strategies = Some(s),
                Err(e) => errors.push(e),
            },
            "stop" => stop = parse_stop(v, errors),
            "strategy" => errors.push(
                "strategy: not a herdlab-accept-compare key; strategies names the sides".into(),
            ),
            _ => return false,
        }
        true
    });
    if strategies.is_none() {
        let hint = format!("give 2-{MAX_STRATEGIES} of {}", Strategy::NAMES.join(", "));
        report_missing("strategies", &hint, &mut block.errors);
    }
    settle(&mut p, &mut block.perr);
    let sides = strategies
        .unwrap_or_else(|| vec![Strategy::Herd, Strategy::Exclusive])
        .into_iter()
        .map(|strategy| AcceptParams { strategy, ..p })
        .collect();
    let id = block.finish(&COMPARE_RULES, fallback_id);
    AcceptCompareSpec {
        id,
        sides,
        stop,
        caption: block.caption,
        errors: block.errors,
    }
}

/// Read the page query over the accept playground's scenario. A bad value keeps the block's value
/// for that field and is reported.
pub fn resolve_accept_main(spec: &AcceptSimSpec, query: &str) -> AcceptMainInit {
    let mut init =
        read_playground_query(query, spec.params, "accept", set_accept_param, |_, _, _| {
            false
        });
    settle(&mut init.params, &mut init.errors);
    init
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::grammar::Controls;
    use herdlab_core::mechanisms::accept::MutexVariant;
    use herdlab_core::scenario::Scenario;
    use herdlab_core::sim::Actor;

    #[test]
    fn accept_blocks() {
        let s = parse_accept_sim(
            "id=epoll-intro&strategy=herd&workers=4&cpus=1&connections=1&seed=1&stop=0&controls=step&caption=Four%20workers",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.id, "epoll-intro");
        assert_eq!((s.params.workers, s.params.cpus), (4, 1));
        assert_eq!(s.stop, Some(0));
        assert_eq!(s.caption.as_deref(), Some("Four workers"));
        let s = parse_accept_sim(
            "id=mutex-playground&main=true&controls=full&mechanism=accept&strategy=accept-mutex&variant=no-timer",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert!(s.main && s.controls == Controls::Full);
        assert_eq!(s.params.variant, MutexVariant::NoTimer);
        let bad = parse_accept_sim(
            "workers=99&strategy=x&mechanism=herd&strategies=a,b&frob=1",
            "fb",
        );
        assert_eq!(bad.id, "fb");
        assert_eq!(bad.params, AcceptParams::default());
        let all = bad.errors.join("\n");
        for w in [
            "workers",
            "1-64",
            "strategy",
            "reuseport",
            "mechanism",
            "strategies",
            "frob",
            "id",
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
    }

    #[test]
    fn compare_blocks() {
        let c = parse_accept_compare(
            "id=compare-epoll&strategies=herd,exclusive,reuseport&workers=4&connections=50&seed=3",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(
            c.sides.iter().map(|p| p.strategy).collect::<Vec<_>>(),
            [Strategy::Herd, Strategy::Exclusive, Strategy::Reuseport]
        );
        assert!(c
            .sides
            .iter()
            .all(|p| p.workers == 4 && p.connections == 50 && p.seed == 3));
        for bad in [
            "strategies=herd",
            "strategies=herd,herd",
            "strategies=herd,x",
            "strategies=herd,exclusive,reuseport,blocking,accept-mutex",
            "",
        ] {
            let c = parse_accept_compare(&format!("id=c&{bad}"), "x");
            assert!(
                c.errors.iter().any(|e| e.starts_with("strategies")),
                "{bad}: {:?}",
                c.errors
            );
            assert_eq!(c.sides.len(), 2);
        }
        let c = parse_accept_compare("id=c&strategies=herd,blocking&strategy=herd", "x");
        assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    }

    #[test]
    fn every_accept_block_of_the_lessons_parses_cleanly() {
        use herdlab_lessons::markdown::{segments, Segment};
        let mut n = 0;
        for slug in ["epoll-herd", "nginx-accept-mutex"] {
            for seg in segments(crate::lesson::catalog::tests::source(slug)) {
                let errors = match &seg {
                    Segment::Accept(b) => parse_accept_sim(b, "x").errors,
                    Segment::AcceptCompare(b) => parse_accept_compare(b, "x").errors,
                    _ => continue,
                };
                n += 1;
                assert!(errors.is_empty(), "{slug}: {seg:?}: {errors:?}");
            }
        }
        assert!(n >= 6, "{n} accept blocks");
    }

    #[test]
    fn main_query_over_the_block() {
        let spec = parse_accept_sim("id=p&main=true&controls=full&workers=4&connections=20", "x");
        let m = resolve_accept_main(
            &spec,
            "mechanism=accept&workers=999&strategy=bogus&connections=7&step=5&picks=1:t2,3:n",
        );
        assert_eq!(m.params.workers, 4, "the block's value stays");
        assert_eq!(m.params.strategy, Strategy::Herd);
        assert_eq!(m.params.connections, 7);
        assert_eq!(m.step, Some(5));
        assert_eq!(m.picks, vec![(1, Actor::Thread(2)), (3, Actor::Network)]);
        assert_eq!(m.errors.len(), 2, "{:?}", m.errors);
        assert!(m.errors[0].to_string().contains("1-64"));
        assert!(m.errors[1].to_string().contains("shared-epoll"));
        let m = resolve_accept_main(&spec, "mechanism=herd");
        assert_eq!(m.errors.len(), 1);
        // a playground link is the scenario's query
        let q = Scenario::Accept(m.params).to_query();
        let back = resolve_accept_main(&spec, &q);
        assert!(back.errors.is_empty(), "{:?}", back.errors);
        assert_eq!(back.params, m.params);
    }
}
