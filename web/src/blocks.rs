//! The bodies of the widget blocks (docs/site-contract.md, "Blocks inside lesson Markdown"), and the
//! page query of the main simulation. Nothing here panics on any input: every bad key or value
//! becomes an error message naming the key and the allowed values.

use herdlab_core::herd::{HerdParams, Primitive, WakeMode};
use herdlab_core::scenario::{
    query_pairs, set_herd_param, validate_herd, ParamError, Scenario, HERD_KEYS, MECHANISMS,
    UI_KEYS,
};
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_core::sim::Actor;

use crate::check_proto::{BROWSER_MAX_HERD_CONNECTIONS, BROWSER_MAX_HERD_WORKERS};
use crate::lock_blocks::{checked_id, CheckSpec};
use crate::model::MAX_STEPS;

/// Which controls a simulation widget shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controls {
    /// The stepping buttons and the parameter form.
    Full,
    /// The stepping buttons only.
    Step,
}

/// A parsed ```` ```herdlab-sim ```` block.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
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
    pub params: HerdParams,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// A parsed ```` ```herdlab-compare ```` block.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareSpec {
    /// The widget id (`sim-<id>`, halves `sim-<id>-left`, `sim-<id>-right`).
    pub id: String,
    /// The left side's scenario.
    pub left: HerdParams,
    /// The right side's scenario.
    pub right: HerdParams,
    /// Open stopped at this step.
    pub stop: Option<u64>,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// A parsed ```` ```herdlab-predict ```` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PredictSpec {
    /// The question.
    pub q: String,
    /// The choices.
    pub options: Vec<String>,
    /// The index of the right choice.
    pub answer: Option<usize>,
    /// Shown once the learner has picked.
    pub reveal: String,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// A widget key's `true`/`false`.
pub fn parse_bool(key: &str, v: &str, errors: &mut Vec<String>) -> bool {
    match v {
        "true" | "1" | "" => true,
        "false" | "0" => false,
        _ => {
            errors.push(format!("{key}: '{v}' is not allowed; allowed: true, false"));
            false
        }
    }
}

/// A widget's `stop=<n>`.
pub fn parse_stop(v: &str, errors: &mut Vec<String>) -> Option<u64> {
    match v.parse::<u64>() {
        Ok(n) if n <= MAX_STEPS => Some(n),
        _ => {
            errors.push(format!("stop: '{v}' is not allowed; allowed 0-{MAX_STEPS}"));
            None
        }
    }
}

/// How one mechanism's widget block names its keys: the block (`herdlab-sim`), the keys the block
/// itself takes (for the error), the mechanism's scenario keys and the setter for them.
pub(crate) struct KeySet<'a, P> {
    /// The block's name, for "not a … key".
    pub block: &'a str,
    /// The block's own keys, listed before the scenario keys in the error.
    pub own: &'a str,
    /// The mechanism's scenario keys.
    pub keys: &'a [&'a str],
    /// Sets one scenario key.
    pub set: fn(&mut P, &str, &str) -> Result<(), ParamError>,
}

/// What [`parse_keys`] gathers besides the scenario.
pub(crate) struct BlockKeys {
    /// The `id`, unchecked.
    pub id: Option<String>,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block's own keys.
    pub errors: Vec<String>,
    /// What was wrong with the scenario's keys.
    pub perr: Vec<ParamError>,
}

/// The key loop every widget block shares: `own` takes the block's own keys first (returning
/// whether it took the key), then `id`, `caption` and `mechanism` (`mechanism` says what is wrong
/// with a value), a page-only key is reported, and anything else goes to the scenario `p`.
pub(crate) fn parse_keys<P>(
    body: &str,
    set: &KeySet<'_, P>,
    p: &mut P,
    mechanism: impl Fn(&str) -> Option<String>,
    mut own: impl FnMut(&str, &str, &mut Vec<String>) -> bool,
) -> BlockKeys {
    let mut out = BlockKeys {
        id: None,
        caption: None,
        errors: Vec::new(),
        perr: Vec::new(),
    };
    for (k, v) in query_pairs(body.trim()) {
        if own(&k, &v, &mut out.errors) {
            continue;
        }
        match k.as_str() {
            "id" => out.id = Some(v),
            "caption" => out.caption = Some(v),
            "mechanism" => out.errors.extend(mechanism(&v)),
            key if UI_KEYS.contains(&key) => out.errors.push(format!(
                "{key}: not a {} key; allowed: {}, {}",
                set.block,
                set.own,
                set.keys.join(", ")
            )),
            key => {
                if let Err(e) = (set.set)(p, key, &v) {
                    out.perr.push(e);
                }
            }
        }
    }
    out
}

/// The keys a ```` ```herdlab-sim ```` block takes besides `id` and `caption`.
pub(crate) struct SimKeys {
    /// `main`.
    pub main: bool,
    /// `controls`.
    pub controls: Controls,
    /// `stop`.
    pub stop: Option<u64>,
}

impl SimKeys {
    /// The defaults: not the playground, stepping controls, no stop.
    pub fn new() -> Self {
        SimKeys {
            main: false,
            controls: Controls::Step,
            stop: None,
        }
    }

    /// Take `main`, `controls` or `stop`; whether `k` was one of them.
    pub fn take(&mut self, k: &str, v: &str, errors: &mut Vec<String>) -> bool {
        match k {
            "main" => self.main = parse_bool("main", v, errors),
            "controls" => match v {
                "full" => self.controls = Controls::Full,
                "step" => self.controls = Controls::Step,
                _ => errors.push(format!(
                    "controls: '{v}' is not allowed; allowed: full, step"
                )),
            },
            "stop" => self.stop = parse_stop(v, errors),
            _ => return false,
        }
        true
    }
}

/// A ```` ```herdlab-check ```` block's `mechanism` error.
pub(crate) fn check_mechanism(v: &str) -> String {
    format!("mechanism: '{v}' is not allowed in a herdlab-check block; allowed: locks, herd")
}

/// A herd block's `mechanism` error.
fn herd_mechanism(v: &str) -> Option<String> {
    (!MECHANISMS.contains(&v)).then(|| {
        format!(
            "mechanism: '{v}' is not allowed; allowed: {}",
            MECHANISMS.join(", ")
        )
    })
}

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
    let mut p = HerdParams::default();
    let mut sim = SimKeys::new();
    let keys = KeySet {
        block: "herdlab-sim",
        own: "id, main, controls, stop, caption",
        keys: &HERD_KEYS,
        set: set_herd_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(body, &keys, &mut p, herd_mechanism, |k, v, e| {
        sim.take(k, v, e)
    });
    settle(&mut p, &HerdParams::default(), &mut perr);
    errors.extend(perr.iter().map(|e| e.to_string()));
    let id = match id.filter(|s| valid_id(s)) {
        Some(id) => id,
        None => {
            errors.push("id: missing or not made of letters, digits and '-'; every herdlab-sim block needs a unique id".into());
            fallback_id.to_string()
        }
    };
    SimSpec {
        id,
        main: sim.main,
        controls: sim.controls,
        stop: sim.stop,
        caption,
        params: p,
        errors,
    }
}

/// Whether `s` can be a widget id (letters, digits, `-`, `_`; at most 64).
pub fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Parse a ```` ```herdlab-compare ```` body.
pub fn parse_compare(body: &str, fallback_id: &str) -> CompareSpec {
    let mut left = None;
    let mut right = None;
    let mut stop = None;
    let mut p = HerdParams::default();
    let mode = |v: &str, key: &str, errors: &mut Vec<String>| match WakeMode::from_name(v) {
        Some(m) => Some(m),
        None => {
            errors.push(format!(
                "{key}: '{v}' is not allowed; allowed: {}",
                WakeMode::NAMES.join(", ")
            ));
            None
        }
    };
    let keys = KeySet {
        block: "herdlab-compare",
        own: "id, left, right, stop, caption",
        keys: &HERD_KEYS,
        set: set_herd_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(body, &keys, &mut p, herd_mechanism, |k, v, errors| {
        match k {
            "left" => left = mode(v, "left", errors),
            "right" => right = mode(v, "right", errors),
            "stop" => stop = parse_stop(v, errors),
            _ => return false,
        }
        true
    });
    settle(&mut p, &HerdParams::default(), &mut perr);
    let side = |m: Option<WakeMode>, fallback: WakeMode, name: &str, errors: &mut Vec<String>| {
        let mut s = p;
        s.mode = m.unwrap_or(fallback);
        if !validate_herd(&s).is_empty() {
            errors.push(format!(
                "{name}: {} does not work with primitive={}; allowed: wake-all, exclusive",
                s.mode.name(),
                s.primitive.name()
            ));
            s.mode = fallback;
        }
        s
    };
    if left.is_none() && !errors.iter().any(|e| e.starts_with("left")) {
        errors.push("left: missing; allowed: wake-all, exclusive, lifo-exclusive".into());
    }
    if right.is_none() && !errors.iter().any(|e| e.starts_with("right")) {
        errors.push("right: missing; allowed: wake-all, exclusive, lifo-exclusive".into());
    }
    errors.extend(perr.iter().map(|e| e.to_string()));
    let left = side(left, WakeMode::WakeAll, "left", &mut errors);
    let right = side(right, WakeMode::Exclusive, "right", &mut errors);
    let id = match id.filter(|s| valid_id(s)) {
        Some(id) => id,
        None => {
            errors.push("id: missing or not made of letters, digits and '-'".into());
            fallback_id.to_string()
        }
    };
    CompareSpec {
        id,
        left,
        right,
        stop,
        caption,
        errors,
    }
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
    let keys = KeySet {
        block: "herdlab-check",
        own: "id, caption, mechanism",
        keys: &HERD_KEYS,
        set: set_herd_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(
        body,
        &keys,
        &mut p,
        |v| (v != "herd").then(|| check_mechanism(v)),
        |_, _, _| false,
    );
    settle(&mut p, &base, &mut perr);
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
        &mut perr,
    );
    cap(
        "connections",
        &mut p.connections,
        BROWSER_MAX_HERD_CONNECTIONS,
        &mut perr,
    );
    errors.extend(perr.iter().map(|e| e.to_string()));
    let id = checked_id(id, fallback_id, &mut errors);
    CheckSpec {
        id,
        scenario: Scenario::Herd(checked_herd(&p)),
        caption,
        errors,
    }
}

/// A herd counterexample (checker indices: `0..n` the threads, `n` the network) as the actors the
/// herd widget steps, one per step.
pub fn herd_actors(p: &HerdParams, schedule: &[u16]) -> Vec<Actor> {
    let n = p.workers as usize + (p.primitive != Primitive::Accept) as usize;
    schedule
        .iter()
        .map(|&t| {
            if (t as usize) < n {
                Actor::Thread(t)
            } else {
                Actor::Network
            }
        })
        .collect()
}

/// Picks that make every step of `actors` a pick (`0:t0,1:n,…`), as `herdlab check herd` links them.
pub fn script_picks(actors: &[Actor]) -> Vec<(u64, Actor)> {
    actors
        .iter()
        .enumerate()
        .map(|(i, &a)| (i as u64, a))
        .collect()
}

/// Parse a ```` ```herdlab-predict ```` body.
pub fn parse_predict(body: &str) -> PredictSpec {
    let mut errors = Vec::new();
    let mut q = String::new();
    let mut options = Vec::new();
    let mut answer_text = None;
    let mut reveal = String::new();
    for line in body.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once(':') {
            Some(("q", v)) => q = v.trim().to_string(),
            Some(("options", v)) => {
                options = v.split('|').map(|o| o.trim().to_string()).filter(|o| !o.is_empty()).collect()
            }
            Some(("answer", v)) => answer_text = Some(v.trim().to_string()),
            Some(("reveal", v)) => reveal = v.trim().to_string(),
            _ => errors.push(format!(
                "'{line}' is not a predict line; allowed: q: …, options: a | b, answer: …, reveal: …"
            )),
        }
    }
    if q.is_empty() {
        errors.push("q: missing".into());
    }
    if options.len() < 2 {
        errors.push("options: give at least two, separated by |".into());
    }
    let answer = match &answer_text {
        Some(a) => {
            let i = options.iter().position(|o| o == a);
            if i.is_none() {
                errors.push(format!(
                    "answer: '{a}' is not one of the options; allowed: {}",
                    options.join(", ")
                ));
            }
            i
        }
        None => {
            errors.push("answer: missing".into());
            None
        }
    };
    PredictSpec {
        q,
        options,
        answer,
        reveal,
        errors,
    }
}

/// What the main simulation starts from: its block's scenario with the page query on top.
#[derive(Clone, Debug, PartialEq)]
pub struct MainInit {
    /// The scenario.
    pub params: HerdParams,
    /// The step to open at.
    pub step: Option<u64>,
    /// The learner's manual picks to replay.
    pub picks: Vec<(u64, Actor)>,
    /// The page query's bad parameters.
    pub errors: Vec<ParamError>,
}

/// Read the page query over the main block's scenario. A bad value keeps the block's value for that
/// field and is reported.
pub fn resolve_main(spec: &SimSpec, query: &str) -> MainInit {
    let base = spec.params;
    let mut p = base;
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
                if v != "herd" {
                    errors.push(ParamError {
                        field: "mechanism".into(),
                        message: format!(
                            "'{v}' is not this playground's; allowed: herd (mechanisms: {})",
                            MECHANISMS.join(", ")
                        ),
                    });
                }
            }
            key if UI_KEYS.contains(&key) => {}
            key => {
                if let Err(e) = set_herd_param(&mut p, key, &v) {
                    errors.push(e);
                }
            }
        }
    }
    settle(&mut p, &base, &mut errors);
    MainInit {
        params: p,
        step,
        picks,
        errors,
    }
}

/// Parse `picks`: comma-separated `i:t<k>` (thread k took step i, 0-based) or `i:n` (the network).
pub fn parse_picks(s: &str) -> Result<Vec<(u64, Actor)>, ParamError> {
    let bad = |item: &str| {
        ParamError {
        field: "picks".into(),
        message: format!(
            "'{item}' is not a pick; allowed: comma-separated step:t<thread> or step:n, for example 3:t1,7:n"
        ),
    }
    };
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let (i, a) = item.split_once(':').ok_or_else(|| bad(item))?;
        let i: u64 = i.parse().map_err(|_| bad(item))?;
        let actor = if a == "n" {
            Actor::Network
        } else {
            let t: u16 = a
                .strip_prefix('t')
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| bad(item))?;
            Actor::Thread(t)
        };
        out.push((i, actor));
    }
    out.sort_by_key(|(i, _)| *i);
    out.dedup_by_key(|(i, _)| *i);
    Ok(out)
}

/// Format picks for the URL.
pub fn format_picks(picks: &[(u64, Actor)]) -> String {
    picks
        .iter()
        .map(|(i, a)| match a {
            Actor::Thread(t) => format!("{i}:t{t}"),
            Actor::Network => format!("{i}:n"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::herd::{Primitive, Variant};

    #[test]
    fn herd_check_block() {
        let k = crate::lock_blocks::parse_check(
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
    fn picks_round_trip() {
        let p = vec![(0, Actor::Thread(3)), (9, Actor::Network)];
        assert_eq!(parse_picks(&format_picks(&p)).ok(), Some(p));
        assert!(parse_picks("1:x").is_err());
        assert!(parse_picks("").is_ok_and(|v| v.is_empty()));
    }

    #[test]
    fn compare_and_predict() {
        let c = parse_compare(
            "id=c&left=wake-all&right=exclusive&workers=8&cpus=2&connections=100&seed=1",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.left.mode, WakeMode::WakeAll);
        assert_eq!(c.right.mode, WakeMode::Exclusive);
        let c = parse_compare("left=nope", "x");
        assert!(!c.errors.is_empty());
        let p = parse_predict("q: How many?\noptions: 0 | 1 | 7 | 8\nanswer: 7\nreveal: Seven.\n");
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.answer, Some(2));
        let p = parse_predict("garbage\nanswer: 9");
        assert!(p.errors.len() >= 3);
    }
}
