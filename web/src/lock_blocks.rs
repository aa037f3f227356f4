//! The lock blocks (`mechanism=locks`; docs/site-contract.md): ```` ```herdlab-sim ````,
//! ```` ```herdlab-compare ```` (`left`/`right` name locks) and ```` ```herdlab-check ````, and the
//! page query of a lock playground, with `schedule` (a counterexample of `herdlab check`). Nothing
//! here panics on any input: every bad key or value becomes a message naming the key and the
//! allowed values, and the default is used instead.

use herdlab_core::check::world::MAX_THREADS;
use herdlab_core::locks::shmtx::ShmtxVariant;
use herdlab_core::locks::{LockKind, LockParams};
use herdlab_core::scenario::{
    query_pairs, set_lock_param, validate_locks, ParamError, Scenario, LOCK_KEYS, MECHANISMS,
    UI_KEYS,
};
use herdlab_core::sim::Actor;

use crate::blocks::{
    check_mechanism, parse_herd_check, parse_keys, parse_picks, parse_stop, valid_id, BlockKeys,
    Controls, KeySet, SimKeys,
};
use crate::model::MAX_STEPS;

/// The longest `schedule` a link may carry.
pub const MAX_SCHEDULE: usize = 100_000;

/// The mechanism a block or query names (`herd` when it names none).
pub fn mechanism_of(query: &str) -> String {
    query_pairs(query.trim())
        .into_iter()
        .rev()
        .find(|(k, _)| k == "mechanism")
        .map(|(_, v)| v)
        .unwrap_or_else(|| "herd".to_string())
}

/// A parsed lock ```` ```herdlab-sim ```` block.
#[derive(Clone, Debug, PartialEq)]
pub struct LockSimSpec {
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
    pub params: LockParams,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// A parsed lock ```` ```herdlab-compare ```` block.
#[derive(Clone, Debug, PartialEq)]
pub struct LockCompareSpec {
    /// The widget id (`sim-<id>`, halves `sim-<id>-left`, `sim-<id>-right`).
    pub id: String,
    /// The left side's scenario.
    pub left: LockParams,
    /// The right side's scenario.
    pub right: LockParams,
    /// Open stopped at this step.
    pub stop: Option<u64>,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

/// A parsed ```` ```herdlab-check ```` block (or the `#/check?…` page).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSpec {
    /// The widget id (`check-<id>`; its replay is `sim-<id>-replay`).
    pub id: String,
    /// The scenario to explore: a lock scenario (`mechanism=locks`, the default here) or a herd
    /// scenario (`mechanism=herd`; see `crate::blocks::parse_herd_check`).
    pub scenario: Scenario,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}

fn mechanism_error(v: &str) -> Option<String> {
    (v != "locks").then(|| {
        format!(
            "mechanism: '{v}' does not fit a lock block; allowed: locks (mechanisms: {})",
            MECHANISMS.join(", ")
        )
    })
}

/// Check the combinations; put back the defaults of the fields that break one, and say so.
fn settle(p: &mut LockParams, base: &LockParams, errors: &mut Vec<ParamError>) {
    for e in validate_locks(p) {
        match e.field.as_str() {
            "variant" => p.variant = ShmtxVariant::Correct,
            "threads" => p.threads = base.threads,
            "cpus" => p.cpus = base.cpus,
            _ => {}
        }
        errors.push(e);
    }
    if !validate_locks(p).is_empty() {
        *p = *base;
    }
}

pub(crate) fn checked_id(id: Option<String>, fallback: &str, errors: &mut Vec<String>) -> String {
    match id.filter(|s| valid_id(s)) {
        Some(id) => id,
        None => {
            errors.push(
                "id: missing or not made of letters, digits and '-'; every block needs a unique id"
                    .into(),
            );
            fallback.to_string()
        }
    }
}

/// Parse a lock ```` ```herdlab-sim ```` body. `fallback_id` names the widget when `id` is missing.
pub fn parse_lock_sim(body: &str, fallback_id: &str) -> LockSimSpec {
    let mut p = LockParams::default();
    let mut sim = SimKeys::new();
    let keys = KeySet {
        block: "herdlab-sim",
        own: "id, main, controls, stop, caption, mechanism",
        keys: &LOCK_KEYS,
        set: set_lock_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(body, &keys, &mut p, mechanism_error, |k, v, e| {
        sim.take(k, v, e)
    });
    settle(&mut p, &LockParams::default(), &mut perr);
    errors.extend(perr.iter().map(|e| e.to_string()));
    let id = checked_id(id, fallback_id, &mut errors);
    LockSimSpec {
        id,
        main: sim.main,
        controls: sim.controls,
        stop: sim.stop,
        caption,
        params: p,
        errors,
    }
}

fn lock_names() -> String {
    LockKind::ALL.map(LockKind::name).join(", ")
}

/// Parse a lock ```` ```herdlab-compare ```` body (`left`/`right`: lock names).
pub fn parse_lock_compare(body: &str, fallback_id: &str) -> LockCompareSpec {
    let (mut left, mut right) = (None, None);
    let mut stop = None;
    let mut p = LockParams::default();
    let kind = |v: &str, key: &str, errors: &mut Vec<String>| {
        let k = LockKind::from_name(v);
        if k.is_none() {
            errors.push(format!(
                "{key}: '{v}' is not allowed; allowed: {}",
                lock_names()
            ));
        }
        k
    };
    let keys = KeySet {
        block: "herdlab-compare",
        own: "id, left, right, stop, caption, mechanism",
        keys: &LOCK_KEYS,
        set: set_lock_param,
    };
    let BlockKeys {
        id,
        caption,
        mut errors,
        mut perr,
    } = parse_keys(body, &keys, &mut p, mechanism_error, |k, v, errors| {
        match k {
            "left" => left = kind(v, "left", errors),
            "right" => right = kind(v, "right", errors),
            "stop" => stop = parse_stop(v, errors),
            "lock" => {
                errors.push("lock: not a herdlab-compare key; left and right name the locks".into())
            }
            _ => return false,
        }
        true
    });
    for (side, val) in [("left", &left), ("right", &right)] {
        if val.is_none() && !errors.iter().any(|e| e.starts_with(side)) {
            errors.push(format!("{side}: missing; allowed: {}", lock_names()));
        }
    }
    let mut side = |k: Option<LockKind>, fallback: LockKind, name: &str| {
        let mut s = p;
        s.lock = k.unwrap_or(fallback);
        if s.lock != LockKind::Shmtx && s.variant != ShmtxVariant::Correct {
            perr.push(ParamError {
                field: name.into(),
                message: format!(
                    "variant {} is a variant of shmtx; the {} side runs correct",
                    s.variant.name(),
                    s.lock.name()
                ),
            });
            s.variant = ShmtxVariant::Correct;
        }
        settle(&mut s, &LockParams::default(), &mut perr);
        s
    };
    let left = side(left, LockKind::Shmtx, "left");
    let right = side(right, LockKind::Ttas, "right");
    errors.extend(perr.iter().map(|e| e.to_string()));
    let id = checked_id(id, fallback_id, &mut errors);
    LockCompareSpec {
        id,
        left,
        right,
        stop,
        caption,
        errors,
    }
}

/// Parse a ```` ```herdlab-check ```` body (also the query of `#/check?…`): a lock check unless
/// the body says `mechanism=herd`.
pub fn parse_check(body: &str, fallback_id: &str) -> CheckSpec {
    let named = query_pairs(body.trim())
        .into_iter()
        .rev()
        .find(|(k, _)| k == "mechanism")
        .map(|(_, v)| v);
    if named.as_deref() == Some("herd") {
        return parse_herd_check(body, fallback_id);
    }
    let mut p = LockParams::default();
    let keys = KeySet {
        block: "herdlab-check",
        own: "id, caption, mechanism",
        keys: &LOCK_KEYS,
        set: set_lock_param,
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
        |v| (v != "locks").then(|| check_mechanism(v)),
        |_, _, _| false,
    );
    settle(&mut p, &LockParams::default(), &mut perr);
    if p.threads as usize > MAX_THREADS {
        perr.push(ParamError {
            field: "threads".into(),
            message: format!("the checker takes at most {MAX_THREADS}"),
        });
        p.threads = MAX_THREADS as u32;
    }
    errors.extend(perr.iter().map(|e| e.to_string()));
    let id = checked_id(id, fallback_id, &mut errors);
    CheckSpec {
        id,
        scenario: Scenario::Locks(p),
        caption,
        errors,
    }
}

/// What a lock playground starts from: its block's scenario with the page query on top.
#[derive(Clone, Debug, PartialEq)]
pub struct LockMainInit {
    /// The scenario.
    pub params: LockParams,
    /// The step to open at (with a schedule: the step within it; `None`: its end).
    pub step: Option<u64>,
    /// The learner's manual picks to replay.
    pub picks: Vec<(u64, Actor)>,
    /// A checker schedule (thread indices, one per checker step) to replay.
    pub schedule: Option<Vec<u16>>,
    /// The page query's bad parameters.
    pub errors: Vec<ParamError>,
}

/// Parse `schedule`: comma-separated thread indices (`0,1,1,0`).
pub fn parse_schedule(s: &str) -> Result<Vec<u16>, ParamError> {
    let items: Vec<&str> = s
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .collect();
    if items.len() > MAX_SCHEDULE {
        return Err(ParamError {
            field: "schedule".into(),
            message: format!(
                "{} steps is too long; allowed at most {MAX_SCHEDULE}",
                items.len()
            ),
        });
    }
    items
        .iter()
        .map(|item| {
            item.parse::<u16>().ok().filter(|&t| (t as usize) < MAX_THREADS).ok_or_else(|| ParamError {
                field: "schedule".into(),
                message: format!(
                    "'{item}' is not a thread; allowed: comma-separated thread indices 0-{}, for example 0,1,1,0",
                    MAX_THREADS - 1
                ),
            })
        })
        .collect()
}

/// Format a schedule for the URL.
pub fn format_schedule(schedule: &[u16]) -> String {
    schedule
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Read the page query over the lock playground's scenario. A bad value keeps the block's value
/// for that field and is reported.
pub fn resolve_lock_main(spec: &LockSimSpec, query: &str) -> LockMainInit {
    let base = spec.params;
    let mut p = base;
    let mut errors = Vec::new();
    let mut step = None;
    let mut picks = Vec::new();
    let mut schedule = None;
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
            "schedule" => match parse_schedule(&v) {
                Ok(x) => schedule = Some(x),
                Err(e) => errors.push(e),
            },
            "mechanism" => {
                if v != "locks" {
                    errors.push(ParamError {
                        field: "mechanism".into(),
                        message: format!(
                            "'{v}' is not this playground's; allowed: locks (mechanisms: {})",
                            MECHANISMS.join(", ")
                        ),
                    });
                }
            }
            key if UI_KEYS.contains(&key) => {}
            key => {
                if let Err(e) = set_lock_param(&mut p, key, &v) {
                    errors.push(e);
                }
            }
        }
    }
    settle(&mut p, &base, &mut errors);
    if schedule.is_some() && !picks.is_empty() {
        errors.push(ParamError {
            field: "picks".into(),
            message: "ignored: a schedule fixes every step it covers".into(),
        });
        picks.clear();
    }
    LockMainInit {
        params: p,
        step,
        picks,
        schedule,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_sim_block() {
        let s = parse_lock_sim(
            "id=shmtx-intro&mechanism=locks&lock=shmtx&threads=3&rounds=2&cpus=2&spin=8&cs=1000&seed=1&stop=0&controls=step&caption=Three%20workers",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.id, "shmtx-intro");
        assert_eq!(s.params.threads, 3);
        assert_eq!(s.params.spin, 8);
        assert_eq!(s.params.cs_ns, 1000);
        assert_eq!(s.stop, Some(0));
        assert_eq!(s.caption.as_deref(), Some("Three workers"));
        assert_eq!(mechanism_of("id=a&mechanism=locks"), "locks");
        assert_eq!(mechanism_of("id=a&workers=2"), "herd");
    }

    #[test]
    fn bad_lock_blocks_report() {
        let s = parse_lock_sim(
            "mechanism=locks&threads=99&lock=nope&variant=seed-listing&semaphore=maybe&step=3",
            "fb",
        );
        assert_eq!(s.id, "fb");
        assert!(validate_locks(&s.params).is_empty());
        let all = s.errors.join("\n");
        for w in [
            "threads",
            "1-16",
            "lock",
            "shmtx",
            "semaphore",
            "on, off",
            "step",
            "id",
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
        let s = parse_lock_sim("id=a&mechanism=locks&lock=ttas&variant=seed-listing", "x");
        assert_eq!(s.params.variant, ShmtxVariant::Correct);
        assert!(s.errors.iter().any(|e| e.contains("variant")));
    }

    #[test]
    fn compare_and_check_blocks() {
        let c = parse_lock_compare(
            "id=cmp&mechanism=locks&left=shmtx&right=ttas&threads=8&cpus=2&rounds=20&cs=1000&seed=1",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.left.lock, LockKind::Shmtx);
        assert_eq!(c.right.lock, LockKind::Ttas);
        assert_eq!(c.left.threads, 8);
        assert_eq!(c.right.rounds, 20);
        let c = parse_lock_compare("mechanism=locks&left=x&variant=seed-listing", "y");
        assert!(c.errors.len() >= 3, "{:?}", c.errors);
        assert_eq!(c.right.variant, ShmtxVariant::Correct);
        let k = parse_check(
            "id=find-b1&mechanism=locks&lock=shmtx&variant=announce-after-check&threads=2&rounds=2&spin=4",
            "x",
        );
        assert!(k.errors.is_empty(), "{:?}", k.errors);
        let Scenario::Locks(lp) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!(lp.variant, ShmtxVariant::AnnounceAfterCheck);
        assert_eq!(lp.threads, 2);
        assert_eq!(lp.cpus, 2);
        let k = parse_check("mechanism=futex&frob=1", "z");
        assert_eq!(k.id, "z");
        assert!(k.errors.len() >= 3);
        assert!(
            k.errors[0].contains("allowed: locks, herd"),
            "{:?}",
            k.errors
        );
        let k = parse_check("mechanism=herd&frob=1", "z");
        assert!(matches!(k.scenario, Scenario::Herd(_)));
        assert_eq!(k.errors.len(), 2, "{:?}", k.errors);
    }

    #[test]
    fn main_query_with_a_schedule() {
        let spec = parse_lock_sim("id=p&main=true&mechanism=locks&threads=4&rounds=20", "x");
        let m = resolve_lock_main(
            &spec,
            "mechanism=locks&lock=shmtx&variant=plain-load-store&threads=2&rounds=1&cpus=2&spin=4&semaphore=on&yield=4&cs=100&seed=1&schedule=0,1,0,1",
        );
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        assert_eq!(m.params.variant, ShmtxVariant::PlainLoadStore);
        assert_eq!(m.params.threads, 2);
        assert_eq!(m.schedule, Some(vec![0, 1, 0, 1]));
        let m = resolve_lock_main(&spec, "mechanism=locks&threads=99&schedule=0,x&step=zz");
        assert_eq!(m.params.threads, 4);
        assert_eq!(m.errors.len(), 3, "{:?}", m.errors);
        assert!(m.errors[0].to_string().contains("1-16"));
        let m = resolve_lock_main(&spec, "mechanism=herd&workers=3");
        assert_eq!(m.errors.len(), 2, "{:?}", m.errors);
        assert_eq!(format_schedule(&[0, 1, 12]), "0,1,12");
        assert_eq!(parse_schedule("").ok(), Some(vec![]));
        assert!(parse_schedule("16").is_err());
    }
}
