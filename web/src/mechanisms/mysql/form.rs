//! The mysql playground's parameter form (controls=full): its fields, read, written and checked
//! with core's `Mysql` (`Mechanism::get`, `set`, `validate`).

use herdlab_core::mechanisms::mysql::{Mode, MysqlVariant};

use crate::live::form::{Field, FieldKind, Hint};

const fn number(key: &'static str, label: &'static str, range: &'static str) -> Field {
    Field {
        key,
        label,
        kind: FieldKind::Number(range),
        hint: None,
    }
}

/// The mysql form's fields, in display order (`input-<key>` / `select-<key>`; a test holds their
/// keys to be core's `Mysql::KEYS`).
pub const MYSQL_FIELDS: [Field; 21] = [
    Field {
        key: "mode",
        label: "thread_handling",
        kind: FieldKind::Choice(&Mode::NAMES),
        hint: Some(Hint(mode_story)),
    },
    Field {
        key: "variant",
        label: "code",
        kind: FieldKind::Choice(&MysqlVariant::NAMES),
        hint: Some(Hint(variant_story)),
    },
    number("connections", "connections", "1-4096"),
    number("queries", "queries", "1-1000000"),
    number("rate", "queries per second", "1-10000000"),
    number("cpu_us", "CPU per query (µs)", "1-1000000"),
    number(
        "queries_per_conn",
        "queries before reconnecting",
        "1-1000000",
    ),
    number("cache_size", "thread_cache_size", "0-16384"),
    number("max_connections", "max_connections", "1-100000"),
    number("groups", "thread_pool_size (groups)", "1-7"),
    number("group_threads", "thread slots per group", "2-15"),
    number("oversubscribe", "thread_pool_oversubscribe", "1-1000"),
    number("stall_ms", "thread_pool_stall_limit (ms)", "10-60000"),
    number("tickets", "thread_pool_high_prio_tickets", "0-4294967295"),
    number("max_threads", "thread_pool_max_threads", "1-100000"),
    number("txn_statements", "statements per transaction", "1-100"),
    number("lock_pct", "queries taking the hot row lock (%)", "0-100"),
    number("long_ms", "one long query (ms)", "0-60000"),
    number("cpus", "CPUs", "1-64"),
    number("seed", "seed", "0-18446744073709551615"),
    number(
        "logins",
        "pool: queue every login at the start (1) or not (0)",
        "0-1",
    ),
];

/// One line on each mode.
pub fn mode_story(v: &str) -> &'static str {
    match v {
        "per-connection" => "one OS thread per connection; a closed connection's thread may wait in the thread cache",
        "pool" => "thread groups: a listener polls the sockets, workers take events off the group's queues",
        _ => "",
    }
}

/// One line on each variant.
pub fn variant_story(v: &str) -> &'static str {
    match v {
        "correct" => "Percona Server 8.0's thread pool, MySQL 8.0's thread cache",
        "no-listener-wake" => "the listener never wakes a worker when none is active",
        "fifo-waiters" => "waiting_threads is woken oldest first: the coldest thread",
        "no-stall-timer" => "no stall check: one long query blocks its group",
        "no-wait-begin" => "a row-lock wait without thd_wait_begin: the group looks busy",
        "no-throttle" => "no creation throttle: a thread storm",
        "no-high-prio" => "no high-priority queue: a transaction's statements wait behind all",
        "cache-any-blocked" => {
            "the cache hands off when blocked > 0: two connections to one thread"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanism::{KeyKind, Mechanism};
    use herdlab_core::mechanisms::mysql::Mysql;

    #[test]
    fn the_fields_are_cores_keys_with_cores_ranges() {
        let mut keys: Vec<&str> = MYSQL_FIELDS.iter().map(|f| f.key).collect();
        keys.sort();
        let mut core: Vec<&str> = Mysql::KEYS.iter().map(|k| k.name).collect();
        core.sort();
        assert_eq!(keys, core);
        for f in &MYSQL_FIELDS {
            let k = Mysql::KEYS.iter().find(|k| k.name == f.key).unwrap();
            match (f.kind, k.kind) {
                (FieldKind::Number(r), KeyKind::Range { .. }) => assert_eq!(r, k.allowed()),
                (FieldKind::Choice(names), _) => {
                    for n in names {
                        let mut p = Default::default();
                        assert!(Mysql::set(&mut p, f.key, n).is_ok(), "{} {n}", f.key);
                    }
                    let h = f.hint.expect("a hint");
                    assert!(names.iter().all(|n| !h.text(n).is_empty()), "{}", f.key);
                }
                other => panic!("{}: {other:?}", f.key),
            }
        }
    }
}
