//! The MySQL blocks (docs/site-contract.md, "MySQL"): ```` ```herdlab-sim ```` with
//! `mechanism=mysql` (one simulation; `main=true` for the playground) and the page query of a
//! mysql playground. Nothing here panics on any input: every bad key or value becomes a message
//! naming the key and the allowed values, and the default is used instead.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::{Mysql, MysqlParams};

use crate::lesson::grammar::{
    misfit_mechanism, one_line, parse_sim_block, read_playground_query, settle_or_default,
    BlockRules, PlaygroundInit, SimBlock, ID_NEEDED,
};

/// A parsed mysql simulation block.
pub type MysqlSimSpec = SimBlock<MysqlParams>;
/// What a mysql playground starts from: its block's scenario with the page query on top.
pub type MysqlMainInit = PlaygroundInit<MysqlParams>;

/// Core's mysql keys by name (a test holds them equal to `Mysql::KEYS`).
pub const MYSQL_KEYS: [&str; 20] = [
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
];

/// A mysql block's `mechanism` error.
fn mysql_mechanism(v: &str) -> Option<String> {
    misfit_mechanism(v, "a mysql block", "mysql")
}

const SIM_RULES: BlockRules<MysqlParams> = BlockRules {
    block: "herdlab-sim",
    own: "id, main, controls, stop, caption, mechanism",
    keys: &MYSQL_KEYS,
    set: <Mysql as Mechanism>::set,
    mechanism: mysql_mechanism,
    missing_id: ID_NEEDED,
};

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
    let mut init = read_playground_query(
        query,
        spec.params,
        "mysql",
        <Mysql as Mechanism>::set,
        |_, _, _| false,
    );
    settle_or_default::<Mysql>(&mut init.params, &mut init.errors);
    init
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::mysql::{Mode, MysqlVariant};

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
    fn main_query_over_the_block() {
        let spec = parse_mysql_sim("id=p&main=true&mode=pool&groups=2", "x");
        let m = resolve_mysql_main(&spec, "mechanism=mysql&groups=99&seed=7&step=4");
        assert_eq!(m.params.groups, 2, "the block's value stays");
        assert_eq!((m.params.seed, m.step), (7, Some(4)));
        assert_eq!(m.errors.len(), 1, "{:?}", m.errors);
        assert!(m.errors[0].to_string().contains("1-7"));
    }
}
