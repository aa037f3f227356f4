//! What every widget block shares, whatever its mechanism (docs/site-contract.md, "Blocks inside
//! lesson Markdown"): the `key=value` loop with the keys `id`, `caption` and `mechanism`, the
//! simulation keys `main`, `controls` and `stop`, the `left`/`right` sides of a comparison, the id
//! check, and the page query of a playground (`step`, `picks`, `mechanism`). Each mechanism's own
//! keys and combination checks stay in its file ([`crate::mechanisms::herd::blocks`], [`crate::mechanisms::locks::blocks`],
//! [`crate::mechanisms::accept::blocks`]). Nothing here panics on any input: every bad key or value becomes an
//! error message naming the key and the allowed values, and the default stays.

use herdlab_core::mechanism::{shown, Mechanism};
use herdlab_core::scenario::{query_pairs, ParamError, MECHANISMS, UI_KEYS};
use herdlab_core::sim::Actor;

use crate::check_proto::CHECKED;
use crate::lesson::picks::parse_picks;

/// The longest history a widget keeps (and the largest `step` a link may ask for).
pub const MAX_STEPS: u64 = 10_000_000;

/// Which controls a simulation widget shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controls {
    /// The stepping buttons and the parameter form.
    Full,
    /// The stepping buttons only.
    Step,
}

/// A parsed simulation block (```` ```herdlab-sim ````, ```` ```herdlab-accept ````) over a
/// mechanism's scenario `P`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimBlock<P> {
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
    pub params: P,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

impl<P> SimBlock<P> {
    /// The block of check block `id`'s counterexample replay (`sim-<id>-replay`) over `params`:
    /// stepped by hand from step 0, its caption naming the broken `invariant` and the
    /// counterexample's `steps`.
    pub fn replay(id: &str, params: P, invariant: &str, steps: usize) -> Self {
        SimBlock {
            id: format!("{id}-replay"),
            main: false,
            controls: Controls::Step,
            stop: Some(0),
            caption: Some(format!(
                "The shortest schedule that breaks {invariant}: step forward to its last step ({steps} steps)."
            )),
            params,
            errors: Vec::new(),
        }
    }
}

/// A parsed two-sided ```` ```herdlab-compare ```` block over a mechanism's scenario `P`.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareBlock<P> {
    /// The widget id (`sim-<id>`, halves `sim-<id>-left`, `sim-<id>-right`).
    pub id: String,
    /// The left side's scenario.
    pub left: P,
    /// The right side's scenario.
    pub right: P,
    /// Open stopped at this step.
    pub stop: Option<u64>,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// What a playground starts from: its block's scenario `P` with the page query on top.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaygroundInit<P> {
    /// The scenario.
    pub params: P,
    /// The step to open at.
    pub step: Option<u64>,
    /// The learner's manual picks to replay.
    pub picks: Vec<(u64, Actor)>,
    /// `follow=picks`: the picks name every step from 0 (a checker's counterexample), and stepping
    /// forward follows them: after a step back, the next step is the recorded one again, and the
    /// run stops where they end.
    pub follow: bool,
    /// The page query's bad parameters.
    pub errors: Vec<ParamError>,
}

/// The message for a value that is not one of the allowed ones (`allowed` already joined).
pub(crate) fn not_allowed(key: &str, v: &str, allowed: &str) -> String {
    format!(
        "{}: '{}' is not allowed; allowed: {allowed}",
        shown(key),
        shown(v)
    )
}

/// A widget key's `true`/`false`.
fn parse_bool(key: &str, v: &str, errors: &mut Vec<String>) -> bool {
    match v {
        "true" | "1" | "" => true,
        "false" | "0" => false,
        _ => {
            errors.push(not_allowed(key, v, "true, false"));
            false
        }
    }
}

/// A widget's `stop=<n>`.
pub fn parse_stop(v: &str, errors: &mut Vec<String>) -> Option<u64> {
    match v.parse::<u64>() {
        Ok(n) if n <= MAX_STEPS => Some(n),
        _ => {
            errors.push(format!(
                "stop: '{}' is not allowed; allowed 0-{MAX_STEPS}",
                shown(v)
            ));
            None
        }
    }
}

/// A value named by `from_name`, or `None` with the `not allowed` message (`allowed` lists the
/// names).
fn parse_named<T>(
    key: &str,
    v: &str,
    from_name: fn(&str) -> Option<T>,
    allowed: &str,
    errors: &mut Vec<String>,
) -> Option<T> {
    let named = from_name(v);
    if named.is_none() {
        errors.push(not_allowed(key, v, allowed));
    }
    named
}

/// Report `key` as missing (`<key>: missing; <hint>`), unless a bad value of it is already
/// reported.
pub(crate) fn report_missing(key: &str, hint: &str, errors: &mut Vec<String>) {
    if !errors.iter().any(|e| e.starts_with(key)) {
        errors.push(format!("{key}: missing; {hint}"));
    }
}

/// Whether `s` can be a widget id (letters, digits, `-`, `_`; at most 64).
fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The usual message for a missing or bad `id`.
pub(crate) const ID_NEEDED: &str =
    "id: missing or not made of letters, digits and '-'; every block needs a unique id";

/// The value a block or query gives `key` last, if any (a block written one key per line reads
/// as one line).
pub(crate) fn block_value(query: &str, key: &str) -> Option<String> {
    query_pairs(&query.trim().replace('\n', "&"))
        .into_iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// The `mechanism` a block or query names last, if any.
pub(crate) fn named_mechanism(query: &str) -> Option<String> {
    block_value(query, "mechanism")
}

/// Whether a simulation block asks to be the lesson's playground (its last `main` is true, as
/// the block's own reading takes it).
pub(crate) fn asks_main(body: &str) -> bool {
    matches!(
        block_value(body, "main").as_deref(),
        Some("true" | "1" | "")
    )
}

/// A `mechanism` error for a block of one mechanism (`block`: "a lock block"), unless `v` is
/// `mechanism`.
pub(crate) fn misfit_mechanism(v: &str, block: &str, mechanism: &str) -> Option<String> {
    (v != mechanism).then(|| {
        format!(
            "mechanism: '{}' does not fit {block}; allowed: {mechanism} (mechanisms: {})",
            shown(v),
            MECHANISMS.join(", ")
        )
    })
}

/// A ```` ```herdlab-check ```` block's `mechanism` error, unless `v` is `mechanism`.
pub(crate) fn check_mechanism(v: &str, mechanism: &str) -> Option<String> {
    (v != mechanism).then(|| {
        format!(
            "mechanism: '{}' is not allowed in a herdlab-check block; allowed: {}",
            shown(v),
            CHECKED.join(", ")
        )
    })
}

/// How one widget block of one mechanism reads its keys: the block's name and own keys (for the
/// errors), the mechanism's scenario keys and their setter, what `mechanism` may say, and the
/// message for a missing `id`.
pub(crate) struct BlockRules<P> {
    /// The block's name, for "not a … key".
    pub block: &'static str,
    /// The block's own keys, listed before the scenario keys in the error.
    pub own: &'static str,
    /// The mechanism's scenario keys.
    pub keys: &'static [&'static str],
    /// Sets one scenario key.
    pub set: fn(&mut P, &str, &str) -> Result<(), ParamError>,
    /// What is wrong with a `mechanism` value (`None`: nothing).
    pub mechanism: fn(&str) -> Option<String>,
    /// The error for a missing or bad `id`.
    pub missing_id: &'static str,
}

impl<P> BlockRules<P> {
    /// A mechanism's ```` ```herdlab-sim ```` block: the widget keys and its scenario `keys`.
    pub const fn sim(
        keys: &'static [&'static str],
        set: fn(&mut P, &str, &str) -> Result<(), ParamError>,
        mechanism: fn(&str) -> Option<String>,
    ) -> Self {
        BlockRules {
            block: "herdlab-sim",
            own: "id, main, controls, stop, caption, mechanism",
            keys,
            set,
            mechanism,
            missing_id: ID_NEEDED,
        }
    }

    /// A mechanism's two-setting ```` ```herdlab-compare ```` block: `left`, `right` and its
    /// scenario `keys`.
    pub const fn compare(
        keys: &'static [&'static str],
        set: fn(&mut P, &str, &str) -> Result<(), ParamError>,
        mechanism: fn(&str) -> Option<String>,
    ) -> Self {
        BlockRules {
            block: "herdlab-compare",
            own: "id, left, right, stop, caption, mechanism",
            keys,
            set,
            mechanism,
            missing_id: ID_NEEDED,
        }
    }

    /// A mechanism's ```` ```herdlab-check ```` block: its scenario `keys` over a preset.
    pub const fn check(
        keys: &'static [&'static str],
        set: fn(&mut P, &str, &str) -> Result<(), ParamError>,
        mechanism: fn(&str) -> Option<String>,
    ) -> Self {
        BlockRules {
            block: "herdlab-check",
            own: "id, caption, mechanism",
            keys,
            set,
            mechanism,
            missing_id: ID_NEEDED,
        }
    }
}

/// Caps each `(key, value, max)` of a check block at what the checker in the browser takes,
/// each with a message naming `command`, which checks more natively.
pub(crate) fn cap_for_browser<const N: usize>(
    caps: [(&str, &mut u32, u32); N],
    command: &str,
    perr: &mut Vec<ParamError>,
) {
    for (field, v, max) in caps {
        if *v > max {
            perr.push(ParamError {
                field: field.into(),
                message: format!(
                    "{v} is too many for the checker in the browser, which takes at most {max}; it checks {max} (run `{command}` natively for more)"
                ),
            });
            *v = max;
        }
    }
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

impl BlockKeys {
    /// Close the block: the scenario's errors follow the block's own, then the id is checked (a
    /// missing or bad one is reported and `fallback_id` used). Returns the id.
    pub fn finish<P>(&mut self, rules: &BlockRules<P>, fallback_id: &str) -> String {
        self.errors
            .extend(self.perr.drain(..).map(|e| e.to_string()));
        match self.id.take().filter(|s| valid_id(s)) {
            Some(id) => id,
            None => {
                self.errors.push(rules.missing_id.into());
                fallback_id.to_string()
            }
        }
    }
}

/// A block body as one query: its lines are `&`-separated too (a multi-line body reads as one
/// line), blank lines skipped.
pub fn one_line(body: &str) -> String {
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("&")
}

/// Put back `M`'s defaults when `p` does not hold together as a whole ([`Mechanism::validate`]:
/// the checks across keys that a key-by-key read cannot make), adding core's messages to `errors`.
pub fn settle_or_default<M: Mechanism>(p: &mut M::Params, errors: &mut Vec<ParamError>)
where
    M::Params: Default,
{
    let errs = M::validate(p);
    if !errs.is_empty() {
        *p = M::Params::default();
        errors.extend(errs);
    }
}

/// The key loop every widget block shares: `own` takes the block's own keys first (returning
/// whether it took the key), then `id`, `caption` and `mechanism` (checked by the rules), a
/// page-only key is reported, and anything else goes to the scenario `p`.
pub(crate) fn parse_keys<P>(
    body: &str,
    rules: &BlockRules<P>,
    p: &mut P,
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
            "mechanism" => out.errors.extend((rules.mechanism)(&v)),
            key if UI_KEYS.contains(&key) => out.errors.push(format!(
                "{key}: not a {} key; allowed: {}, {}",
                rules.block,
                rules.own,
                rules.keys.join(", ")
            )),
            key => {
                if let Err(e) = (rules.set)(p, key, &v) {
                    out.perr.push(e);
                }
            }
        }
    }
    out
}

/// The keys a simulation block takes besides `id` and `caption`.
struct SimKeys {
    /// `main`.
    main: bool,
    /// `controls`.
    controls: Controls,
    /// `stop`.
    stop: Option<u64>,
}

impl SimKeys {
    /// The defaults: not the playground, stepping controls, no stop.
    fn new() -> Self {
        SimKeys {
            main: false,
            controls: Controls::Step,
            stop: None,
        }
    }

    /// Take `main`, `controls` or `stop`; whether `k` was one of them.
    fn take(&mut self, k: &str, v: &str, errors: &mut Vec<String>) -> bool {
        match k {
            "main" => self.main = parse_bool("main", v, errors),
            "controls" => match v {
                "full" => self.controls = Controls::Full,
                "step" => self.controls = Controls::Step,
                _ => errors.push(not_allowed("controls", v, "full, step")),
            },
            "stop" => self.stop = parse_stop(v, errors),
            _ => return false,
        }
        true
    }
}

/// Parse a simulation block's body over `P::default()`: the keys of [`SimKeys`] and the rules',
/// then `settle` checks the combinations (putting back defaults and saying so).
pub(crate) fn parse_sim_block<P: Default>(
    body: &str,
    fallback_id: &str,
    rules: &BlockRules<P>,
    settle: fn(&mut P, &mut Vec<ParamError>),
) -> SimBlock<P> {
    let mut params = P::default();
    let mut sim = SimKeys::new();
    let mut block = parse_keys(body, rules, &mut params, |k, v, e| sim.take(k, v, e));
    settle(&mut params, &mut block.perr);
    let id = block.finish(rules, fallback_id);
    SimBlock {
        id,
        main: sim.main,
        controls: sim.controls,
        stop: sim.stop,
        caption: block.caption,
        params,
        errors: block.errors,
    }
}

/// The two sides of a compare block: the keys `left` and `right` (each a name `from_name` knows)
/// and `stop`, and how the sides become scenarios.
pub(crate) struct CompareSides<T> {
    /// `left`, when given and known.
    left: Option<T>,
    /// `right`, when given and known.
    right: Option<T>,
    /// `stop`.
    stop: Option<u64>,
    /// Reads a side's name.
    from_name: fn(&str) -> Option<T>,
    /// The names, for the errors.
    allowed: String,
    /// What the left and the right side run when not given.
    fallbacks: [T; 2],
}

impl<T: Copy> CompareSides<T> {
    /// No sides yet; `allowed` lists the names `from_name` knows, `fallbacks` stand in for the
    /// left and the right side when missing.
    pub fn new(from_name: fn(&str) -> Option<T>, allowed: String, fallbacks: [T; 2]) -> Self {
        CompareSides {
            left: None,
            right: None,
            stop: None,
            from_name,
            allowed,
            fallbacks,
        }
    }

    /// Take `left`, `right` or `stop`; whether `k` was one of them.
    pub fn take(&mut self, k: &str, v: &str, errors: &mut Vec<String>) -> bool {
        match k {
            "left" => self.left = parse_named("left", v, self.from_name, &self.allowed, errors),
            "right" => self.right = parse_named("right", v, self.from_name, &self.allowed, errors),
            "stop" => self.stop = parse_stop(v, errors),
            _ => return false,
        }
        true
    }

    /// Close a compare block: a side not given is reported (one given with a bad name is already),
    /// `side` makes each side's scenario from the side's name (its fallback when missing), the
    /// fallback and `left`/`right`, reporting into the scenario's errors; then the id is checked.
    pub fn finish<P>(
        self,
        mut block: BlockKeys,
        rules: &BlockRules<P>,
        fallback_id: &str,
        mut side: impl FnMut(T, T, &str, &mut Vec<ParamError>) -> P,
    ) -> CompareBlock<P> {
        let hint = format!("allowed: {}", self.allowed);
        let [left_fallback, right_fallback] = self.fallbacks;
        for (name, given) in [
            ("left", self.left.is_some()),
            ("right", self.right.is_some()),
        ] {
            if !given {
                report_missing(name, &hint, &mut block.errors);
            }
        }
        let left = side(
            self.left.unwrap_or(left_fallback),
            left_fallback,
            "left",
            &mut block.perr,
        );
        let right = side(
            self.right.unwrap_or(right_fallback),
            right_fallback,
            "right",
            &mut block.perr,
        );
        let id = block.finish(rules, fallback_id);
        CompareBlock {
            id,
            left,
            right,
            stop: self.stop,
            caption: block.caption,
            errors: block.errors,
        }
    }
}

/// The page query over the playground block of mechanism `M` (`spec`), with no keys of its own:
/// a bad value keeps the block's value for that field and is reported, and a set that does not
/// hold together falls back on the defaults of the fields it names.
pub(crate) fn resolve_playground<M: Mechanism<Params: Copy>>(
    spec: &SimBlock<M::Params>,
    query: &str,
) -> PlaygroundInit<M::Params> {
    let mut init = read_playground_query(query, spec.params, M::NAME, M::set, |_, _, _| false);
    settle_or_default::<M>(&mut init.params, &mut init.errors);
    init
}

/// Read a playground's page query over its block's scenario `params`: `step`, `picks`, `follow`
/// and `mechanism` (which must name `mechanism`); the page-only keys are skipped and the rest goes
/// to `set`. `own` takes the playground's own keys first (returning whether it took the key). A
/// bad value keeps the block's value for that field and is reported; the caller checks the
/// combinations.
pub(crate) fn read_playground_query<P>(
    query: &str,
    params: P,
    mechanism: &str,
    set: fn(&mut P, &str, &str) -> Result<(), ParamError>,
    mut own: impl FnMut(&str, &str, &mut Vec<ParamError>) -> bool,
) -> PlaygroundInit<P> {
    let mut init = PlaygroundInit {
        params,
        step: None,
        picks: Vec::new(),
        follow: false,
        errors: Vec::new(),
    };
    for (k, v) in query_pairs(query) {
        if own(&k, &v, &mut init.errors) {
            continue;
        }
        match k.as_str() {
            "step" => match v.parse::<u64>() {
                Ok(n) if n <= MAX_STEPS => init.step = Some(n),
                _ => init.errors.push(ParamError {
                    field: "step".into(),
                    message: format!("'{}' is not allowed; allowed 0-{MAX_STEPS}", shown(&v)),
                }),
            },
            "picks" => match parse_picks(&v) {
                Ok(x) => init.picks = x,
                Err(e) => init.errors.push(e),
            },
            "follow" => match v.as_str() {
                "picks" => init.follow = true,
                _ => init.errors.push(ParamError {
                    field: "follow".into(),
                    message: format!("'{}' is not allowed; allowed: picks", shown(&v)),
                }),
            },
            "mechanism" => {
                if v != mechanism {
                    init.errors.push(ParamError {
                        field: "mechanism".into(),
                        message: format!(
                            "'{}' is not this playground's; allowed: {mechanism} (mechanisms: {})",
                            shown(&v),
                            MECHANISMS.join(", ")
                        ),
                    });
                }
            }
            key if UI_KEYS.contains(&key) => {}
            key => {
                if let Err(e) = set(&mut init.params, key, &v) {
                    init.errors.push(e);
                }
            }
        }
    }
    init
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-key scenario, to test the shared loop without a mechanism.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Toy {
        n: u32,
    }

    fn set_toy(p: &mut Toy, key: &str, v: &str) -> Result<(), ParamError> {
        match (key, v.parse()) {
            ("n", Ok(n)) if n <= 9 => {
                p.n = n;
                Ok(())
            }
            _ => Err(ParamError {
                field: key.into(),
                message: format!("'{v}' is not allowed; allowed: n=0-9"),
            }),
        }
    }

    fn toy_mechanism(v: &str) -> Option<String> {
        misfit_mechanism(v, "a toy block", "toy")
    }

    const TOY: BlockRules<Toy> = BlockRules {
        block: "herdlab-toy",
        own: "id, caption, mechanism",
        keys: &["n"],
        set: set_toy,
        mechanism: toy_mechanism,
        missing_id: ID_NEEDED,
    };

    #[test]
    fn the_key_loop_sorts_keys_and_reports_in_order() {
        let mut p = Toy::default();
        let mut seen = Vec::new();
        let mut block = parse_keys(
            " n=12&own=1&id=a&caption=Two%20words&mechanism=herd&step=3&n=4 ",
            &TOY,
            &mut p,
            |k, v, _| {
                let mine = k == "own";
                if mine {
                    seen.push(v.to_string());
                }
                mine
            },
        );
        assert_eq!(seen, ["1"]);
        assert_eq!(
            p,
            Toy { n: 4 },
            "a bad value keeps the default, a later good one wins"
        );
        assert_eq!(block.caption.as_deref(), Some("Two words"));
        assert_eq!(
            block.errors,
            [
                "mechanism: 'herd' does not fit a toy block; allowed: toy (mechanisms: herd, locks, accept, pool, gmp, mysql)",
                "step: not a herdlab-toy key; allowed: id, caption, mechanism, n",
            ]
        );
        assert_eq!(block.finish(&TOY, "fb"), "a");
        assert_eq!(block.errors.len(), 3);
        assert_eq!(block.errors[2], "n: '12' is not allowed; allowed: n=0-9");
    }

    #[test]
    fn a_missing_or_bad_id_falls_back_and_is_reported_last() {
        for body in [
            "n=1",
            "id=",
            "id=two words",
            &format!("id={}", "x".repeat(65)),
        ] {
            let mut p = Toy::default();
            let mut block = parse_keys(body, &TOY, &mut p, |_, _, _| false);
            block.perr.push(ParamError {
                field: "n".into(),
                message: "late".into(),
            });
            assert_eq!(block.finish(&TOY, "fb"), "fb", "{body}");
            assert_eq!(block.errors, ["n: late", ID_NEEDED], "{body}");
        }
        assert!(valid_id("a-b_9") && !valid_id("a.b"));
    }

    #[test]
    fn sim_keys_take_main_controls_and_stop() {
        let s = parse_sim_block("id=s&main&controls=full&stop=7&n=3", "fb", &TOY, |_, _| {});
        assert_eq!(
            (s.id.as_str(), s.main, s.controls, s.stop, s.params.n),
            ("s", true, Controls::Full, Some(7), 3)
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let s = parse_sim_block("main=yes&controls=huge&stop=-1", "fb", &TOY, |p, errors| {
            p.n = 1;
            errors.push(ParamError {
                field: "n".into(),
                message: "settled".into(),
            })
        });
        assert_eq!(
            (s.main, s.controls, s.stop, s.params.n),
            (false, Controls::Step, None, 1)
        );
        assert_eq!(
            s.errors,
            [
                "main: 'yes' is not allowed; allowed: true, false".to_string(),
                "controls: 'huge' is not allowed; allowed: full, step".into(),
                format!("stop: '-1' is not allowed; allowed 0-{MAX_STEPS}"),
                "n: settled".into(),
                ID_NEEDED.into(),
            ]
        );
    }

    #[test]
    fn compare_sides_fall_back_and_report_each_once() {
        let parse = |body: &str| {
            let mut p = Toy::default();
            let mut sides = CompareSides::new(
                |v: &str| v.parse::<u32>().ok(),
                "digits".to_string(),
                [1, 2],
            );
            let block = parse_keys(body, &TOY, &mut p, |k, v, e| sides.take(k, v, e));
            sides.finish(block, &TOY, "fb", |n, fallback, name, perr| {
                if n == 0 {
                    perr.push(ParamError {
                        field: name.into(),
                        message: "zero".into(),
                    });
                    return Toy { n: fallback };
                }
                Toy { n }
            })
        };
        let c = parse("id=c&left=5&right=6&stop=2");
        assert_eq!((c.left.n, c.right.n, c.stop), (5, 6, Some(2)));
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let c = parse("id=c&left=x&right=0");
        assert_eq!((c.left.n, c.right.n), (1, 2));
        assert_eq!(
            c.errors,
            ["left: 'x' is not allowed; allowed: digits", "right: zero",]
        );
        let c = parse("id=c");
        assert_eq!(
            c.errors,
            [
                "left: missing; allowed: digits",
                "right: missing; allowed: digits",
            ]
        );
    }

    #[test]
    fn the_playground_query_keeps_the_block_value_on_a_bad_one() {
        let mut extra = None;
        let init = read_playground_query(
            "?n=3&n=99&step=5&picks=2:n&mechanism=herd&lesson=x&extra=1",
            Toy { n: 1 },
            "toy",
            set_toy,
            |k, v, _| {
                let mine = k == "extra";
                if mine {
                    extra = Some(v.to_string());
                }
                mine
            },
        );
        assert_eq!(extra.as_deref(), Some("1"));
        assert_eq!(init.params, Toy { n: 3 });
        assert_eq!(init.step, Some(5));
        assert_eq!(init.picks, [(2, Actor::Network)]);
        let errors: Vec<String> = init.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            [
                "n: '99' is not allowed; allowed: n=0-9",
                "mechanism: 'herd' is not this playground's; allowed: toy (mechanisms: herd, locks, accept, pool, gmp, mysql)",
            ]
        );
        let init = read_playground_query(
            "step=x&picks=zz",
            Toy { n: 1 },
            "toy",
            set_toy,
            |_, _, _| false,
        );
        assert_eq!(
            (init.step, init.picks.len(), init.errors.len()),
            (None, 0, 2)
        );
        assert!(!init.follow);
    }

    #[test]
    fn follow_takes_picks_only() {
        let read = |q| read_playground_query(q, Toy { n: 1 }, "toy", set_toy, |_, _, _| false);
        let init = read("follow=picks&step=2&picks=0:t0,1:t1");
        assert!(init.follow && init.errors.is_empty());
        assert_eq!(init.params, Toy { n: 1 }, "follow is no scenario key");
        let init = read("follow=yes&picks=0:t0");
        assert!(!init.follow);
        let errors: Vec<String> = init.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors, ["follow: 'yes' is not allowed; allowed: picks"]);
    }

    #[test]
    fn the_last_mechanism_named_wins() {
        assert_eq!(
            named_mechanism(" mechanism=herd&mechanism=locks ").as_deref(),
            Some("locks")
        );
        assert_eq!(named_mechanism("id=a"), None);
        assert_eq!(
            named_mechanism("mechanism=pool\nid=a\n").as_deref(),
            Some("pool")
        );
        assert_eq!(
            check_mechanism("accept", "herd").as_deref(),
            Some(
                "mechanism: 'accept' is not allowed in a herdlab-check block; allowed: locks, herd, pool, mysql"
            )
        );
        assert_eq!(check_mechanism("herd", "herd"), None);
    }
}
