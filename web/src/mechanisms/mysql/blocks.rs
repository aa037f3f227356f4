//! The MySQL blocks (docs/site-contract.md, "MySQL"): ```` ```herdlab-sim ```` with
//! `mechanism=mysql` (one simulation; `main=true` for the playground), ```` ```herdlab-compare ````
//! with `mechanism=mysql` (two settings of one scenario, same seed), ```` ```herdlab-check ````
//! with `mechanism=mysql` (core's small check presets, explored in the browser's worker) and the
//! page query of a mysql playground. Nothing here panics on any input: every bad key or value
//! becomes a message naming the key and the allowed values, and the default is used instead.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::{Mode, Mysql, MysqlParams, MysqlVariant};
use herdlab_core::scenario::{ParamError, Scenario};
use herdlab_core::sim::Actor;

use crate::check_proto::{BROWSER_MAX_MYSQL_CONNECTIONS, BROWSER_MAX_MYSQL_QUERIES};
use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::{
    cap_for_browser, misfit_mechanism, one_line, parse_keys, parse_sim_block, resolve_playground,
    settle_or_default, BlockRules, CompareBlock, CompareSides, PlaygroundInit, SimBlock,
};
use crate::lesson::picks::checker_actors;

/// A parsed mysql simulation block.
pub type MysqlSimSpec = SimBlock<MysqlParams>;
/// A parsed mysql comparison block.
pub type MysqlCompareSpec = CompareBlock<MysqlParams>;
/// What a mysql playground starts from: its block's scenario with the page query on top.
pub type MysqlMainInit = PlaygroundInit<MysqlParams>;

/// Core's mysql keys by name (a test holds them equal to `Mysql::KEYS`).
pub const MYSQL_KEYS: [&str; 21] = [
    "mode",
    "connections",
    "groups",
    "cpus",
    "stall_ms",
    "oversubscribe",
    "tickets",
    "max_threads",
    "group_threads",
    "max_connections",
    "cache_size",
    "queries_per_conn",
    "txn_statements",
    "queries",
    "rate",
    "cpu_us",
    "lock_pct",
    "long_ms",
    "variant",
    "seed",
    "logins",
];

/// A mysql block's `mechanism` error.
fn mysql_mechanism(v: &str) -> Option<String> {
    misfit_mechanism(v, "a mysql block", "mysql")
}

const SIM_RULES: BlockRules<MysqlParams> =
    BlockRules::sim(&MYSQL_KEYS, <Mysql as Mechanism>::set, mysql_mechanism);

const COMPARE_RULES: BlockRules<MysqlParams> =
    BlockRules::compare(&MYSQL_KEYS, <Mysql as Mechanism>::set, mysql_mechanism);

const CHECK_RULES: BlockRules<MysqlParams> =
    BlockRules::check(&MYSQL_KEYS, <Mysql as Mechanism>::set, mysql_mechanism);

/// One side of a mysql comparison: the one setting it changes in the shared scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `mode=per-connection` (`per-connection`).
    Mode(Mode),
    /// `cache_size=N` (`cache-N`).
    Cache(u32),
    /// `variant=<name>`: the real code or a broken variant.
    Variant(MysqlVariant),
}

impl Side {
    /// The side named `s`: a mode, `cache-N` or a variant.
    pub fn from_name(s: &str) -> Option<Side> {
        if let Some(m) = Mode::from_name(s) {
            return Some(Side::Mode(m));
        }
        // a variant first: `cache-any-blocked` is one
        if let Some(v) = MysqlVariant::from_name(s) {
            return Some(Side::Variant(v));
        }
        s.strip_prefix("cache-")?.parse().ok().map(Side::Cache)
    }

    /// Every side name, for the messages.
    pub fn allowed() -> String {
        Mode::NAMES
            .iter()
            .copied()
            .chain(["cache-N (thread_cache_size N)"])
            .chain(MysqlVariant::NAMES.iter().copied())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The shared scenario `p` with this side's setting (a cache size out of range is core's
    /// message, under the side's name).
    pub fn apply(self, p: MysqlParams, name: &str) -> Result<MysqlParams, ParamError> {
        let mut q = p;
        match self {
            Side::Mode(mode) => q.mode = mode,
            Side::Variant(variant) => q.variant = variant,
            Side::Cache(n) => <Mysql as Mechanism>::set(&mut q, "cache_size", &n.to_string())
                .map_err(|e| ParamError {
                    field: name.into(),
                    message: format!("cache-{n}: {}", e.message),
                })?,
        }
        Ok(q)
    }
}

/// Parse a mysql comparison block: `left`/`right` each name one setting ([`Side`]) applied to the
/// shared scenario keys; a missing or bad side is reported and falls back on `per-connection`
/// (left) and `pool` (right), as does a side whose scenario does not hold together.
pub fn parse_mysql_compare(body: &str, fallback_id: &str) -> MysqlCompareSpec {
    let mut p = MysqlParams::default();
    let mut sides = CompareSides::new(
        Side::from_name,
        Side::allowed(),
        [Side::Mode(Mode::PerConnection), Side::Mode(Mode::Pool)],
    );
    let mut block = parse_keys(&one_line(body), &COMPARE_RULES, &mut p, |k, v, e| {
        sides.take(k, v, e)
    });
    settle_or_default::<Mysql>(&mut p, &mut block.perr);
    sides.finish(
        block,
        &COMPARE_RULES,
        fallback_id,
        |side, fallback, name, perr| {
            let fall = || fallback.apply(p, name).unwrap_or(p);
            match side.apply(p, name) {
                Ok(q) => {
                    let errs = <Mysql as Mechanism>::validate(&q);
                    if errs.is_empty() {
                        q
                    } else {
                        perr.extend(errs.into_iter().map(|e| ParamError {
                            field: format!("{name} ({})", e.field),
                            message: e.message,
                        }));
                        fall()
                    }
                }
                Err(e) => {
                    perr.push(e);
                    fall()
                }
            }
        },
    )
}

/// The preset a mysql check block starts from: the thread cache's ([`browser_cache_preset`]) when
/// it asks for `mode=per-connection` or `variant=cache-any-blocked`, else the pool's (core's
/// [`MysqlParams::check_preset`]), as `herdlab check mysql` picks them.
pub fn mysql_check_preset(body: &str) -> MysqlParams {
    let line = one_line(body);
    let cache = line.split('&').any(|kv| {
        matches!(
            kv.split_once('='),
            Some(("mode", "per-connection")) | Some(("variant", "cache-any-blocked"))
        )
    });
    if cache {
        browser_cache_preset()
    } else {
        MysqlParams::check_preset()
    }
}

/// The thread cache's check scenario in the browser: core's `check_preset_cache` (2 clients
/// connected at the start and reconnecting after every query, a cache of 1, 4 queries, seed 4),
/// whose `cache-any-blocked` search visits 152,441 states (an 87-step counterexample; 23 s
/// natively in a release build on a loaded 2-vCPU VM).
pub fn browser_cache_preset() -> MysqlParams {
    MysqlParams::check_preset_cache()
}

/// Parse a mysql ```` ```herdlab-check ```` body (`mechanism=mysql` and the mysql keys, over
/// [`mysql_check_preset`]). The browser's checker takes at most [`BROWSER_MAX_MYSQL_CONNECTIONS`]
/// connections and [`BROWSER_MAX_MYSQL_QUERIES`] queries: more is reported and capped.
pub fn parse_mysql_check(body: &str, fallback_id: &str) -> CheckSpec {
    let base = mysql_check_preset(body);
    let mut p = base;
    let mut block = parse_keys(&one_line(body), &CHECK_RULES, &mut p, |_, _, _| false);
    cap_for_browser(
        [
            (
                "connections",
                &mut p.connections,
                BROWSER_MAX_MYSQL_CONNECTIONS,
            ),
            ("queries", &mut p.queries, BROWSER_MAX_MYSQL_QUERIES),
        ],
        "herdlab check mysql",
        &mut block.perr,
    );
    let errs = <Mysql as Mechanism>::validate(&p);
    if !errs.is_empty() {
        p = base;
        block.perr.extend(errs);
    }
    let id = block.finish(&CHECK_RULES, fallback_id);
    CheckSpec {
        id,
        scenario: Scenario::Mysql(p),
        caption: block.caption,
        errors: block.errors,
    }
}

/// A mysql counterexample (checker indices: the threads, then the network) as the actors the
/// widget steps.
pub fn mysql_actors(p: &MysqlParams, schedule: &[u16]) -> Vec<Actor> {
    checker_actors(p.threads().len(), schedule)
}

/// Parse a mysql simulation block. `fallback_id` names the widget when `id` is missing.
pub fn parse_mysql_sim(body: &str, fallback_id: &str) -> MysqlSimSpec {
    parse_sim_block(
        &one_line(body),
        fallback_id,
        &SIM_RULES,
        settle_or_default::<Mysql>,
    )
}

/// Read the page query over the mysql playground's scenario. A bad value keeps the block's value
/// for that field and is reported.
pub fn resolve_mysql_main(spec: &MysqlSimSpec, query: &str) -> MysqlMainInit {
    resolve_playground::<Mysql>(spec, query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::grammar::ID_NEEDED;

    #[test]
    fn the_key_list_is_cores() {
        let core: Vec<&str> = <Mysql as Mechanism>::KEYS.iter().map(|k| k.name).collect();
        assert_eq!(core, MYSQL_KEYS);
    }

    #[test]
    fn mysql_sim_blocks() {
        let s = parse_mysql_sim(
            "id=m&mechanism=mysql&mode=per-connection&connections=3&cache_size=1&queries_per_conn=2&variant=cache-any-blocked&stop=0",
            "x",
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.id, "m");
        assert_eq!(s.params.mode, Mode::PerConnection);
        assert_eq!((s.params.connections, s.params.cache_size), (3, 1));
        assert_eq!(s.params.queries_per_conn, 2);
        assert_eq!(s.params.variant, MysqlVariant::CacheAnyBlocked);
        assert_eq!(s.stop, Some(0));

        let bad = parse_mysql_sim("connections=0&mode=nope&mechanism=gmp&frob=1", "fb");
        assert_eq!(bad.id, "fb");
        assert_eq!(bad.params, MysqlParams::default());
        let all = bad.errors.join("\n");
        for w in [
            "connections: 0 is out of range; allowed 1-4096",
            "mode: 'nope' is not allowed; allowed: per-connection, pool",
            "mechanism: 'gmp' does not fit a mysql block; allowed: mysql",
            "frob",
            ID_NEEDED,
        ] {
            assert!(all.contains(w), "{w} in {all}");
        }
        // a scenario that does not hold together: core's message, and the defaults
        let over = parse_mysql_sim("id=o&connections=200&max_connections=100", "x");
        assert_eq!(over.params, MysqlParams::default());
        assert_eq!(over.errors.len(), 1, "{:?}", over.errors);
        assert!(
            over.errors[0].contains("exceeds max_connections + 1 (101)"),
            "{:?}",
            over.errors
        );
    }

    #[test]
    fn mysql_compare_blocks() {
        let c = parse_mysql_compare(
            "id=cmp&mechanism=mysql&left=per-connection&right=pool&connections=16&queries=200&seed=3",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(
            (c.left.mode, c.right.mode),
            (Mode::PerConnection, Mode::Pool)
        );
        assert_eq!(
            MysqlParams {
                mode: Mode::Pool,
                ..c.left
            },
            c.right,
            "only the side's setting differs"
        );
        assert_eq!(
            (c.left.connections, c.left.queries, c.left.seed),
            (16, 200, 3)
        );
        let c = parse_mysql_compare("id=k&mode=per-connection&left=cache-0&right=cache-2", "x");
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!((c.left.cache_size, c.right.cache_size), (0, 2));
        let c = parse_mysql_compare(
            "id=b&mode=per-connection&left=correct&right=cache-any-blocked",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.right.variant, MysqlVariant::CacheAnyBlocked);
        let c = parse_mysql_compare("id=v&mode=pool&left=correct&right=fifo-waiters", "x");
        assert_eq!(c.right.variant, MysqlVariant::FifoWaiters);
        assert_eq!(c.left.variant, MysqlVariant::Correct);
        let c = parse_mysql_compare("id=m&left=loud&right=cache-x", "x");
        assert_eq!(
            c.errors,
            [
                format!("left: 'loud' is not allowed; allowed: {}", Side::allowed()),
                format!(
                    "right: 'cache-x' is not allowed; allowed: {}",
                    Side::allowed()
                ),
            ]
        );
        assert_eq!(
            (c.left.mode, c.right.mode),
            (Mode::PerConnection, Mode::Pool),
            "the fallbacks"
        );
        let c = parse_mysql_compare("id=big&left=cache-0&right=cache-999999", "x");
        assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
        assert!(
            c.errors[0].starts_with("right: cache-999999: "),
            "{:?}",
            c.errors
        );
        assert_eq!(c.right.mode, Mode::Pool, "the right fallback");
    }

    #[test]
    fn mysql_check_blocks() {
        let k = parse_mysql_check("id=find&mechanism=mysql&variant=cache-any-blocked", "x");
        assert!(k.errors.is_empty(), "{:?}", k.errors);
        let Scenario::Mysql(p) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!(
            p,
            MysqlParams {
                variant: MysqlVariant::CacheAnyBlocked,
                ..MysqlParams::check_preset_cache()
            }
        );
        let k = parse_mysql_check("id=pool&mechanism=mysql&variant=no-stall-timer", "x");
        assert!(k.errors.is_empty(), "{:?}", k.errors);
        assert_eq!(
            k.scenario,
            Scenario::Mysql(MysqlParams {
                variant: MysqlVariant::NoStallTimer,
                ..MysqlParams::check_preset()
            })
        );
        let k = parse_mysql_check("id=big&mechanism=mysql&connections=4&queries=9&stop=2", "x");
        let Scenario::Mysql(p) = k.scenario else {
            panic!("{k:?}")
        };
        assert_eq!((p.connections, p.queries), (2, 4), "capped");
        assert_eq!(k.errors.len(), 3, "{:?}", k.errors);
        assert!(k.errors[0].starts_with("stop: not a herdlab-check key"));
        assert!(k.errors[1].contains("connections: 4 is too many"));
        assert!(k.errors[2].contains("queries: 9 is too many"));
        let p = MysqlParams::check_preset();
        let n = p.threads().len() as u16;
        assert_eq!(
            mysql_actors(&p, &[0, n, 1]),
            [Actor::Thread(0), Actor::Network, Actor::Thread(1)]
        );
    }

    /// The shortest schedule the checker finds for `cache-any-blocked` on the browser's thread
    /// cache preset (core's `check_preset_cache`, as `mysql::invariants::check` returns it:
    /// 152,441 states, 87 steps; natively `cargo run --release -p herdlab-core --example
    /// mysql_check -- preset=cache variant=cache-any-blocked`, which prints it; the browser test
    /// checks the search itself, which takes minutes in a debug build).
    const CACHE_SCHEDULE: [u16; 87] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
        2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    /// The counterexample steps in the site's widget model (the simulation without the
    /// checker's clock events) to the same broken invariant: what the lesson's replay shows.
    #[test]
    fn the_cache_counterexample_replays_in_the_widget() {
        use crate::live::model::LiveModel;
        use crate::live::sim_model::Action;
        use crate::mechanisms::mysql::model::MysqlSimModel;
        use crate::mechanisms::mysql::snapshot::MysqlSnapshot;

        let k = parse_mysql_check("mechanism=mysql&variant=cache-any-blocked", "x");
        let Scenario::Mysql(p) = k.scenario else {
            panic!("a mysql check")
        };
        let actors = mysql_actors(&p, &CACHE_SCHEDULE);
        let mut m = MysqlSimModel::scripted(p, actors.clone());
        for i in 0..actors.len() {
            assert!(
                MysqlSnapshot::of(&m).invariant.name.is_empty(),
                "broken before step {i}"
            );
            assert!(m.apply(Action::Step));
        }
        assert!(m.script_done(), "every step as the schedule says");
        assert_eq!(MysqlSnapshot::of(&m).invariant.name, "cache-count");
    }

    #[test]
    fn main_query_over_the_block() {
        let spec = parse_mysql_sim("id=p&main=true&mode=pool&groups=2", "x");
        let m = resolve_mysql_main(&spec, "mechanism=mysql&groups=99&seed=7&step=4");
        assert_eq!(m.params.groups, 2, "the block's value stays");
        assert_eq!((m.params.seed, m.step), (7, Some(4)));
        assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
        assert!(m.errors[0].to_string().contains("1-7"));
    }
}
