//! The accept blocks (docs/site-contract.md, "Accept strategies"): ```` ```herdlab-accept ```` (one
//! simulation; `main=true` for the playground), ```` ```herdlab-accept-compare ```` (2-4 strategies
//! on one scenario), and the page query of an accept playground (`mechanism=accept`). Nothing here
//! panics on any input: every bad key or value becomes a message naming the key and the allowed
//! values, and the default is used instead.

use herdlab_core::accept::{AcceptParams, Strategy};
use herdlab_core::scenario::{
    query_pairs, set_accept_param, validate_accept, ParamError, ACCEPT_KEYS, MECHANISMS, UI_KEYS,
};
use herdlab_core::sim::Actor;

use crate::blocks::{parse_keys, parse_picks, parse_stop, BlockKeys, Controls, KeySet, SimKeys};
use crate::lock_blocks::checked_id;
use crate::model::MAX_STEPS;

/// The most strategies a comparison shows.
pub const MAX_STRATEGIES: usize = 4;

/// A parsed ```` ```herdlab-accept ```` block.
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptSimSpec {
    /// The widget id (`sim-<id>`).
    pub id: String,
    /// Whether this is the lesson's playground, whose state lives in the URL.
    pub main: bool,
    /// Which controls to show.
    pub controls: Controls,
    /// Open stopped at this step (`None`: open at step 0 and play, unless motion is reduced).
    pub stop: Option<u64>,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// The scenario (bad values replaced by defaults).
    pub params: AcceptParams,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

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
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptMainInit {
    /// The scenario.
    pub params: AcceptParams,
    /// The step to open at.
    pub step: Option<u64>,
    /// The learner's manual picks to replay.
    pub picks: Vec<(u64, Actor)>,
    /// The page query's bad parameters.
    pub errors: Vec<ParamError>,
}

fn mechanism_error(v: &str) -> Option<String> {
    (v != "accept").then(|| {
        format!(
            "mechanism: '{v}' does not fit an accept block; allowed: accept (mechanisms: {})",
            MECHANISMS.join(", ")
        )
    })
}

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
    let mut p = AcceptParams::default();
    let mut sim = SimKeys::new();
    let keys = KeySet {
        block: "herdlab-accept",
        own: "id, main, controls, stop, caption, mechanism",
        keys: &ACCEPT_KEYS,
        set: set_accept_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(body, &keys, &mut p, mechanism_error, |k, v, e| {
        sim.take(k, v, e)
    });
    settle(&mut p, &mut perr);
    errors.extend(perr.iter().map(|e| e.to_string()));
    let id = checked_id(id, fallback_id, &mut errors);
    AcceptSimSpec {
        id,
        main: sim.main,
        controls: sim.controls,
        stop: sim.stop,
        caption,
        params: p,
        errors,
    }
}

/// Parse `strategies`: 2-4 distinct strategy names, comma-separated.
pub fn parse_strategies(v: &str) -> Result<Vec<Strategy>, String> {
    let allowed = Strategy::NAMES.join(", ");
    let mut out = Vec::new();
    for name in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let s = Strategy::from_name(name)
            .ok_or_else(|| format!("strategies: '{name}' is not a strategy; allowed: {allowed}"))?;
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
    let keys = KeySet {
        block: "herdlab-accept-compare",
        own: "id, strategies, stop, caption, mechanism",
        keys: &ACCEPT_KEYS,
        set: set_accept_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(body, &keys, &mut p, mechanism_error, |k, v, errors| {
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
    if strategies.is_none() && !errors.iter().any(|e| e.starts_with("strategies")) {
        errors.push(format!(
            "strategies: missing; give 2-{MAX_STRATEGIES} of {}",
            Strategy::NAMES.join(", ")
        ));
    }
    settle(&mut p, &mut perr);
    errors.extend(perr.iter().map(|e| e.to_string()));
    let sides = strategies
        .unwrap_or_else(|| vec![Strategy::Herd, Strategy::Exclusive])
        .into_iter()
        .map(|strategy| AcceptParams { strategy, ..p })
        .collect();
    let id = checked_id(id, fallback_id, &mut errors);
    AcceptCompareSpec {
        id,
        sides,
        stop,
        caption,
        errors,
    }
}

/// Read the page query over the accept playground's scenario. A bad value keeps the block's value
/// for that field and is reported.
pub fn resolve_accept_main(spec: &AcceptSimSpec, query: &str) -> AcceptMainInit {
    let mut p = spec.params;
    let mut errors = Vec::new();
    let mut step = None;
    let mut picks = Vec::new();
    for (k, v) in query_pairs(query) {
        match k.as_str() {
            "step" => match v.parse::<u64>() {
                Ok(n) if n <= MAX_STEPS => step = Some(n),
                _ => errors.push(ParamError {
                    field: "step".into(),
                    message: format!("'{v}' is not allowed; allowed 0-{MAX_STEPS}"),
                }),
            },
            "picks" => match parse_picks(&v) {
                Ok(x) => picks = x,
                Err(e) => errors.push(e),
            },
            "mechanism" => {
                if v != "accept" {
                    errors.push(ParamError {
                        field: "mechanism".into(),
                        message: format!(
                            "'{v}' is not this playground's; allowed: accept (mechanisms: {})",
                            MECHANISMS.join(", ")
                        ),
                    });
                }
            }
            key if UI_KEYS.contains(&key) => {}
            key => {
                if let Err(e) = set_accept_param(&mut p, key, &v) {
                    errors.push(e);
                }
            }
        }
    }
    settle(&mut p, &mut errors);
    AcceptMainInit {
        params: p,
        step,
        picks,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::accept::MutexVariant;
    use herdlab_core::scenario::Scenario;

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
        use crate::markdown::{segments, Segment};
        let mut n = 0;
        for slug in ["epoll-herd", "nginx-accept-mutex"] {
            for seg in segments(crate::lessons::tests::source(slug)) {
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
