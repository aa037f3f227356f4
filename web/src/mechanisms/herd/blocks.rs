//! The herd blocks (docs/site-contract.md, "Blocks inside lesson Markdown"): ```` ```herdlab-sim ````,
//! ```` ```herdlab-compare ```` (`left`/`right` name wake modes), the herd ```` ```herdlab-check ````
//! and ```` ```herdlab-predict ````, and the page query of the main simulation with its `picks`. The
//! key loop and the keys every block shares are in [`crate::lesson::grammar`]. Nothing here panics on
//! any input: every bad key or value becomes an error message naming the key and the allowed
//! values.

use herdlab_core::mechanisms::herd::{HerdParams, Primitive, WakeMode};
use herdlab_core::scenario::{
    set_herd_param, validate_herd, ParamError, Scenario, HERD_KEYS, MECHANISMS,
};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::Actor;

use crate::check_proto::{BROWSER_MAX_HERD_CONNECTIONS, BROWSER_MAX_HERD_WORKERS};
use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::{
    check_mechanism, not_allowed, parse_keys, parse_sim_block, read_playground_query, BlockRules,
    CompareBlock, CompareSides, PlaygroundInit, SimBlock, ID_NEEDED,
};
use crate::lesson::picks::checker_actors;

/// A parsed herd ```` ```herdlab-sim ```` block.
pub type SimSpec = SimBlock<HerdParams>;

/// A parsed herd ```` ```herdlab-compare ```` block (`left`/`right` name wake modes).
pub type CompareSpec = CompareBlock<HerdParams>;

/// A herd block's `mechanism` error.
fn herd_mechanism(v: &str) -> Option<String> {
    (!MECHANISMS.contains(&v)).then(|| not_allowed("mechanism", v, &MECHANISMS.join(", ")))
}

/// A herd ```` ```herdlab-check ````'s `mechanism` error.
fn herd_check_mechanism(v: &str) -> Option<String> {
    check_mechanism(v, "herd")
}

/// The keys of a herd ```` ```herdlab-sim ```` block.
const SIM_RULES: BlockRules<HerdParams> = BlockRules {
    block: "herdlab-sim",
    own: "id, main, controls, stop, caption",
    keys: &HERD_KEYS,
    set: set_herd_param,
    mechanism: herd_mechanism,
    missing_id: "id: missing or not made of letters, digits and '-'; every herdlab-sim block needs a unique id",
};

/// The keys of a herd ```` ```herdlab-compare ```` block.
const COMPARE_RULES: BlockRules<HerdParams> = BlockRules {
    block: "herdlab-compare",
    own: "id, left, right, stop, caption",
    keys: &HERD_KEYS,
    set: set_herd_param,
    mechanism: herd_mechanism,
    missing_id: "id: missing or not made of letters, digits and '-'",
};

/// The keys of a herd ```` ```herdlab-check ```` block.
const CHECK_RULES: BlockRules<HerdParams> = BlockRules {
    block: "herdlab-check",
    own: "id, caption, mechanism",
    keys: &HERD_KEYS,
    set: set_herd_param,
    mechanism: herd_check_mechanism,
    missing_id: ID_NEEDED,
};

/// Check the combinations; put back the defaults of the fields that break one, and say so.
fn settle(p: &mut HerdParams, base: &HerdParams, errors: &mut Vec<ParamError>) {
    for e in validate_herd(p) {
        errors.push(e);
    }
    if !validate_herd(p).is_empty() {
        p.mode = base.mode;
        p.variant = base.variant;
        if !validate_herd(p).is_empty() {
            p.primitive = base.primitive;
        }
        if !validate_herd(p).is_empty() {
            *p = *base;
        }
    }
}

/// Parse a ```` ```herdlab-sim ```` body. `fallback_id` names the widget when `id` is missing.
pub fn parse_sim(body: &str, fallback_id: &str) -> SimSpec {
    parse_sim_block(body, fallback_id, &SIM_RULES, |p, errors| {
        settle(p, &HerdParams::default(), errors)
    })
}

/// Parse a ```` ```herdlab-compare ```` body.
pub fn parse_compare(body: &str, fallback_id: &str) -> CompareSpec {
    let mut p = HerdParams::default();
    let mut sides = CompareSides::new(
        WakeMode::from_name,
        WakeMode::NAMES.join(", "),
        [WakeMode::WakeAll, WakeMode::Exclusive],
    );
    let mut block = parse_keys(body, &COMPARE_RULES, &mut p, |k, v, errors| {
        sides.take(k, v, errors)
    });
    settle(&mut p, &HerdParams::default(), &mut block.perr);
    sides.finish(
        block,
        &COMPARE_RULES,
        fallback_id,
        |mode, fallback, name, perr| {
            let mut s = HerdParams { mode, ..p };
            if !validate_herd(&s).is_empty() {
                perr.push(ParamError {
                    field: name.into(),
                    message: format!(
                        "{} does not work with primitive={}; allowed: wake-all, exclusive",
                        s.mode.name(),
                        s.primitive.name()
                    ),
                });
                s.mode = fallback;
            }
            s
        },
    )
}

/// The herd scenario a check runs: `p` with on-demand arrivals, as `herdlab check herd` runs it
/// (the network actor may deliver at any point while connections remain, so every arrival time is
/// explored anyway, and the states do not depend on timings).
pub fn checked_herd(p: &HerdParams) -> HerdParams {
    HerdParams {
        arrival: ArrivalPattern::OnDemand,
        ..*p
    }
}

/// The herd scenario a check block starts from, as `herdlab check herd`'s defaults: 2 workers,
/// 2 CPUs, exclusive wakeups, 2 connections, on-demand arrivals.
pub fn herd_check_defaults() -> HerdParams {
    HerdParams {
        workers: 2,
        cpus: 2,
        mode: WakeMode::Exclusive,
        connections: 2,
        arrival: ArrivalPattern::OnDemand,
        ..HerdParams::default()
    }
}

/// Parse a herd ```` ```herdlab-check ```` body (`mechanism=herd` and the herd keys, over
/// [`herd_check_defaults`]). The browser's checker takes at most [`BROWSER_MAX_HERD_WORKERS`]
/// workers and [`BROWSER_MAX_HERD_CONNECTIONS`] connections: more is reported and capped.
pub fn parse_herd_check(body: &str, fallback_id: &str) -> CheckSpec {
    let base = herd_check_defaults();
    let mut p = base;
    let mut block = parse_keys(body, &CHECK_RULES, &mut p, |_, _, _| false);
    settle(&mut p, &base, &mut block.perr);
    let cap = |field: &str, v: &mut u32, max: u32, perr: &mut Vec<ParamError>| {
        if *v > max {
            perr.push(ParamError {
                field: field.into(),
                message: format!(
                    "{v} is too many for the checker in the browser, which takes at most {max}; it checks {max} (run `herdlab check herd` natively for more)"
                ),
            });
            *v = max;
        }
    };
    cap(
        "workers",
        &mut p.workers,
        BROWSER_MAX_HERD_WORKERS,
        &mut block.perr,
    );
    cap(
        "connections",
        &mut p.connections,
        BROWSER_MAX_HERD_CONNECTIONS,
        &mut block.perr,
    );
    let id = block.finish(&CHECK_RULES, fallback_id);
    CheckSpec {
        id,
        scenario: Scenario::Herd(checked_herd(&p)),
        caption: block.caption,
        errors: block.errors,
    }
}

/// A herd counterexample (checker indices: `0..n` the threads, `n` the network) as the actors the
/// herd widget steps, one per step.
pub fn herd_actors(p: &HerdParams, schedule: &[u16]) -> Vec<Actor> {
    let threads = p.workers as usize + (p.primitive != Primitive::Accept) as usize;
    checker_actors(threads, schedule)
}

/// What the main simulation starts from: its block's scenario with the page query on top.
pub type MainInit = PlaygroundInit<HerdParams>;

/// Read the page query over the main block's scenario. A bad value keeps the block's value for that
/// field and is reported.
pub fn resolve_main(spec: &SimSpec, query: &str) -> MainInit {
    let mut init =
        read_playground_query(query, spec.params, "herd", set_herd_param, |_, _, _| false);
    settle(&mut init.params, &spec.params, &mut init.errors);
    init
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::grammar::Controls;
    use crate::lesson::picks::{format_picks, script_picks};
    use herdlab_core::mechanisms::herd::{Primitive, Variant};

    #[test]
    fn herd_check_block() {
        let k = crate::mechanisms::check_block(
            "id=find-lost-wakeup&mechanism=herd&workers=2&cpus=2&mode=exclusive&connections=2&variant=broken-sleeper&seed=1",
            "x",
        );
        assert!(k.errors.is_empty(), "{:?}", k.errors);
        assert_eq!(k.id, "find-lost-wakeup");
        let Scenario::Herd(p) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!((p.workers, p.cpus, p.connections), (2, 2, 2));
        assert_eq!(p.mode, WakeMode::Exclusive);
        assert_eq!(p.variant, Variant::BrokenSleeper);
        assert_eq!(p.arrival, ArrivalPattern::OnDemand);
        // the query the worker gets is the one `herdlab check herd` links
        assert_eq!(
            k.scenario.to_query(),
            "mechanism=herd&workers=2&cpus=2&mode=exclusive&arrival=on-demand&burst=4&rate=10000&connections=2&service=5000&variant=broken-sleeper&primitive=accept&seed=1"
        );
        // too big for the browser: reported and capped
        let k = parse_herd_check(
            "id=big&mechanism=herd&workers=9&connections=5&arrival=poisson&step=3",
            "x",
        );
        let Scenario::Herd(p) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!((p.workers, p.connections), (4, 4));
        assert_eq!(p.arrival, ArrivalPattern::OnDemand);
        let all = k.errors.join("\n");
        for w in [
            "step",
            "workers",
            "connections",
            "at most 4",
            "herdlab check herd",
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
        let k = parse_herd_check(
            "id=a&mechanism=herd&primitive=futex&mode=lifo-exclusive",
            "x",
        );
        assert!(!k.errors.is_empty());
        assert!(
            matches!(k.scenario, Scenario::Herd(p) if herdlab_core::scenario::validate_herd(&p).is_empty())
        );
    }

    #[test]
    fn herd_counterexamples_become_picks() {
        let p = herd_check_defaults();
        let a = herd_actors(&p, &[0, 0, 1, 1, 2, 0, 0, 1, 1]);
        assert_eq!(a[4], Actor::Network);
        assert_eq!(
            format_picks(&script_picks(&a)),
            "0:t0,1:t0,2:t1,3:t1,4:n,5:t0,6:t0,7:t1,8:t1"
        );
        let f = HerdParams {
            primitive: Primitive::Futex,
            ..p
        };
        // the futex producer is thread 2, not a network
        assert_eq!(
            herd_actors(&f, &[2, 0]),
            [Actor::Thread(2), Actor::Thread(0)]
        );
    }

    #[test]
    fn sim_block() {
        let s = parse_sim(
            "id=herd-intro&workers=8&cpus=2&mode=wake-all&arrival=on-demand&connections=1&seed=1&stop=0&controls=step&caption=Eight%20workers",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.id, "herd-intro");
        assert_eq!(s.stop, Some(0));
        assert_eq!(s.caption.as_deref(), Some("Eight workers"));
        assert_eq!(s.params.workers, 8);
        assert_eq!(s.controls, Controls::Step);
        assert!(!s.main);
    }

    #[test]
    fn bad_sim_block_reports() {
        let s = parse_sim(
            "workers=999&mode=x&frobs=2&controls=huge&stop=-1",
            "fallback",
        );
        assert_eq!(s.id, "fallback");
        assert_eq!(s.params, HerdParams::default());
        let all = s.errors.join("\n");
        for w in [
            "workers", "1-64", "mode", "wake-all", "frobs", "controls", "stop", "id",
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
    }

    #[test]
    fn combination_falls_back() {
        let s = parse_sim(
            "id=a&primitive=futex&mode=lifo-exclusive&variant=broken-sleeper",
            "x",
        );
        assert!(validate_herd(&s.params).is_empty());
        assert_eq!(s.params.primitive, Primitive::Futex);
        assert_eq!(s.params.variant, Variant::Correct);
        assert!(s.errors.len() >= 2);
    }

    #[test]
    fn main_query_over_block() {
        let spec = parse_sim("id=p&main=true&controls=full&workers=8&connections=20", "x");
        assert!(spec.main);
        let m = resolve_main(&spec, "workers=999&mode=bogus&step=5&picks=1:t2,3:n");
        assert_eq!(m.params.workers, 8);
        assert_eq!(m.params.connections, 20);
        assert_eq!(m.step, Some(5));
        assert_eq!(m.picks, vec![(1, Actor::Thread(2)), (3, Actor::Network)]);
        assert_eq!(m.errors.len(), 2);
        assert!(m.errors[0].to_string().contains("1-64"));
        assert!(m.errors[1].to_string().contains("wake-all"));
        let m = resolve_main(&spec, "primitive=futex&mode=lifo-exclusive");
        assert!(validate_herd(&m.params).is_empty());
        assert!(!m.errors.is_empty());
        let m = resolve_main(&spec, "picks=zz&step=x");
        assert_eq!(m.errors.len(), 2);
    }

    #[test]
    fn compare() {
        let c = parse_compare(
            "id=c&left=wake-all&right=exclusive&workers=8&cpus=2&connections=100&seed=1",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.left.mode, WakeMode::WakeAll);
        assert_eq!(c.right.mode, WakeMode::Exclusive);
        let c = parse_compare("left=nope", "x");
        assert!(!c.errors.is_empty());
    }
}
