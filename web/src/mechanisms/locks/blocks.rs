//! The lock blocks (`mechanism=locks`; docs/site-contract.md): ```` ```herdlab-sim ````,
//! ```` ```herdlab-compare ```` (`left`/`right` name locks) and ```` ```herdlab-check ````, and the
//! page query of a lock playground, with `schedule` (a counterexample of `herdlab check`). Nothing
//! here panics on any input: every bad key or value becomes a message naming the key and the
//! allowed values, and the default is used instead.

use herdlab_core::check::world::MAX_THREADS;
use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
use herdlab_core::mechanisms::locks::{LockKind, LockParams};
use herdlab_core::scenario::{set_lock_param, validate_locks, ParamError, Scenario, LOCK_KEYS};
use herdlab_core::sim::Actor;

use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::{
    check_mechanism, misfit_mechanism, parse_keys, parse_sim_block, read_playground_query,
    BlockRules, CompareBlock, CompareSides, PlaygroundInit, SimBlock, ID_NEEDED,
};
use crate::lesson::parts::QueryStart;

/// The longest `schedule` a link may carry.
pub const MAX_SCHEDULE: usize = 100_000;

/// A parsed lock ```` ```herdlab-sim ```` block.
pub type LockSimSpec = SimBlock<LockParams>;

/// A parsed lock ```` ```herdlab-compare ```` block (`left`/`right` name locks).
pub type LockCompareSpec = CompareBlock<LockParams>;

/// A lock block's `mechanism` error.
fn lock_mechanism(v: &str) -> Option<String> {
    misfit_mechanism(v, "a lock block", "locks")
}

/// A lock ```` ```herdlab-check ````'s `mechanism` error.
fn lock_check_mechanism(v: &str) -> Option<String> {
    check_mechanism(v, "locks")
}

/// The keys of a lock ```` ```herdlab-sim ```` block.
const SIM_RULES: BlockRules<LockParams> = BlockRules {
    block: "herdlab-sim",
    own: "id, main, controls, stop, caption, mechanism",
    keys: &LOCK_KEYS,
    set: set_lock_param,
    mechanism: lock_mechanism,
    missing_id: ID_NEEDED,
};

/// The keys of a lock ```` ```herdlab-compare ```` block.
const COMPARE_RULES: BlockRules<LockParams> = BlockRules {
    block: "herdlab-compare",
    own: "id, left, right, stop, caption, mechanism",
    keys: &LOCK_KEYS,
    set: set_lock_param,
    mechanism: lock_mechanism,
    missing_id: ID_NEEDED,
};

/// The keys of a lock ```` ```herdlab-check ```` block.
const CHECK_RULES: BlockRules<LockParams> = BlockRules {
    block: "herdlab-check",
    own: "id, caption, mechanism",
    keys: &LOCK_KEYS,
    set: set_lock_param,
    mechanism: lock_check_mechanism,
    missing_id: ID_NEEDED,
};

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

/// Parse a lock ```` ```herdlab-sim ```` body. `fallback_id` names the widget when `id` is missing.
pub fn parse_lock_sim(body: &str, fallback_id: &str) -> LockSimSpec {
    parse_sim_block(body, fallback_id, &SIM_RULES, |p, errors| {
        settle(p, &LockParams::default(), errors)
    })
}

/// The lock names, for the errors.
fn lock_names() -> String {
    LockKind::ALL.map(LockKind::name).join(", ")
}

/// Parse a lock ```` ```herdlab-compare ```` body (`left`/`right`: lock names).
pub fn parse_lock_compare(body: &str, fallback_id: &str) -> LockCompareSpec {
    let mut p = LockParams::default();
    let mut sides = CompareSides::new(
        LockKind::from_name,
        lock_names(),
        [LockKind::Shmtx, LockKind::Ttas],
    );
    let block = parse_keys(body, &COMPARE_RULES, &mut p, |k, v, errors| match k {
        "lock" => {
            errors.push("lock: not a herdlab-compare key; left and right name the locks".into());
            true
        }
        _ => sides.take(k, v, errors),
    });
    sides.finish(block, &COMPARE_RULES, fallback_id, |lock, _, name, perr| {
        let mut s = LockParams { lock, ..p };
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
        settle(&mut s, &LockParams::default(), perr);
        s
    })
}

/// Parse a lock ```` ```herdlab-check ```` body (also the query of `#/check?…`; the registry sends
/// every check that names no other checkable mechanism here).
pub fn parse_check(body: &str, fallback_id: &str) -> CheckSpec {
    let mut p = LockParams::default();
    let mut block = parse_keys(body, &CHECK_RULES, &mut p, |_, _, _| false);
    settle(&mut p, &LockParams::default(), &mut block.perr);
    if p.threads as usize > MAX_THREADS {
        block.perr.push(ParamError {
            field: "threads".into(),
            message: format!("the checker takes at most {MAX_THREADS}"),
        });
        p.threads = MAX_THREADS as u32;
    }
    let id = block.finish(&CHECK_RULES, fallback_id);
    CheckSpec {
        id,
        scenario: Scenario::Locks(p),
        caption: block.caption,
        errors: block.errors,
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

impl QueryStart for LockMainInit {
    fn query_errors(&self) -> &[ParamError] {
        &self.errors
    }
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
                    "'{}' is not a thread; allowed: comma-separated thread indices 0-{}, for example 0,1,1,0",
                    herdlab_core::mechanism::shown(item),
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
    let mut schedule = None;
    let PlaygroundInit {
        mut params,
        step,
        mut picks,
        follow,
        mut errors,
    } = read_playground_query(
        query,
        spec.params,
        "locks",
        set_lock_param,
        |k, v, errors| {
            if k != "schedule" {
                return false;
            }
            match parse_schedule(v) {
                Ok(x) => schedule = Some(x),
                Err(e) => errors.push(e),
            }
            true
        },
    );
    settle(&mut params, &spec.params, &mut errors);
    if follow {
        errors.push(ParamError {
            field: "follow".into(),
            message: "ignored here: a lock checker's run is given as schedule=<threads>".into(),
        });
    }
    if schedule.is_some() && !picks.is_empty() {
        errors.push(ParamError {
            field: "picks".into(),
            message: "ignored: a schedule fixes every step it covers".into(),
        });
        picks.clear();
    }
    LockMainInit {
        params,
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
        // follow=picks is the other playgrounds' way to follow a checker's run: named, not used
        let m = resolve_lock_main(&spec, "follow=picks&step=2&picks=0:t0,1:t1");
        let errors: Vec<String> = m.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            ["follow: ignored here: a lock checker's run is given as schedule=<threads>"]
        );
        assert_eq!((m.step, m.picks.len()), (Some(2), 2));
        assert_eq!(format_schedule(&[0, 1, 12]), "0,1,12");
        assert_eq!(parse_schedule("").ok(), Some(vec![]));
        assert!(parse_schedule("16").is_err());
    }
}
