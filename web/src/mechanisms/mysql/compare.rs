//! Two MySQL simulations side by side (```` ```herdlab-compare ```` with `mechanism=mysql`): one
//! scenario and seed, one setting changed (one thread per connection / the pool, a thread cache
//! size, the real code / a broken variant), stepped together: mysql's part of the generic
//! [`TwoSettings`](crate::ui::shell::side_by_side::TwoSettings) comparison (its sides' labels, the
//! state line under each half's lanes, and the table's rows).
//!
//! The two sides may run different modes, whose counters differ (the thread cache's `connects`
//! and `cache_hits`, the pool's `worker_wakeups`, `timer_ticks` and `stalls`): the table lines up
//! the union of both sides' counters, each side's value read from core's report (0 where its mode
//! has no such thing: no timer ticks one thread per connection).

use yew::prelude::*;

use herdlab_core::mechanisms::mysql::{Mode, Mysql, MysqlParams};

use crate::mechanisms::mysql::model::MysqlSimModel;
use crate::mechanisms::mysql::snapshot::{MysqlSnapshot, MysqlStateView};
use crate::ui::shell::side_by_side::{Half, SideBySide};
use crate::ui::status::invariant_status;

/// A side's label: the settings that tell the two sides apart.
pub fn side_label(p: &MysqlParams, other: &MysqlParams) -> String {
    let mut parts = Vec::new();
    if p.mode != other.mode || p == other {
        parts.push(
            match p.mode {
                Mode::PerConnection => "one thread per connection",
                Mode::Pool => "the pool",
            }
            .to_string(),
        );
    }
    if p.cache_size != other.cache_size {
        parts.push(format!("thread_cache_size {}", p.cache_size));
    }
    if p.variant != other.variant {
        parts.push(p.variant.name().to_string());
    }
    parts.join(", ")
}

/// Every counter either mode shows, in the order of `snapshot::mysql_counters`.
const ORDER: [&str; 13] = [
    "steps",
    "queries_sent",
    "queries_done",
    "threads_created",
    "os_threads",
    "connects",
    "cache_hits",
    "worker_wakeups",
    "timer_ticks",
    "stalls",
    "context_switches",
    "p95_ns",
    "sim_time_ns",
];

/// Side `s`'s value of `key`: its own counter, else core's report, else 0.
fn value(s: &MysqlSnapshot, key: &str) -> u64 {
    if let Some(&(_, v)) = s.counters.iter().find(|(k, _)| *k == key) {
        return v;
    }
    let r = &s.report;
    match key {
        "connects" => r.connects as u64,
        "cache_hits" => r.cache_hits as u64,
        "worker_wakeups" => r.worker_wakeups as u64,
        "stalls" => r.stalls as u64,
        _ => 0,
    }
}

/// The table's rows: every counter either side shows, with both sides' values.
pub fn compare_rows(l: &MysqlSnapshot, r: &MysqlSnapshot) -> Vec<(&'static str, u64, u64)> {
    let shown = |k: &str| {
        l.counters.iter().any(|(c, _)| *c == k) || r.counters.iter().any(|(c, _)| *c == k)
    };
    ORDER
        .iter()
        .filter(|k| shown(k))
        .map(|&k| (k, value(l, k), value(r, k)))
        .collect()
}

/// A one-line summary of a side's shared state.
fn state_line(s: &MysqlSnapshot) -> Html {
    match &*s.state {
        MysqlStateView::Pool(gs) => {
            let sum = |f: fn(&crate::mechanisms::mysql::snapshot::GroupView) -> u32| {
                gs.iter().map(f).sum::<u32>()
            };
            html! {
                <p class="mysql-half-state">
                    { "queued " }<b data-testid="mysql-queued">{ sum(|g| g.queue + g.high) }</b>
                    { " · group threads " }<b data-testid="mysql-group-threads">{ sum(|g| g.threads) }</b>
                    { " · asleep " }<b>{ gs.iter().map(|g| g.sleepers.len()).sum::<usize>() }</b>
                    { " · listeners " }<b>{ gs.iter().filter(|g| g.listener.is_some()).count() }</b>
                </p>
            }
        }
        MysqlStateView::PerConnection(c) => html! {
            <p class="mysql-half-state">
                { "blocked_pthread_count " }<b data-testid="mysql-blocked">{ c.blocked }</b>
                { " · wake_pthread " }<b data-testid="mysql-wake">{ c.wake }</b>
                { " · channels queued " }<b>{ c.channels }</b>
                { " · OS threads " }<b>{ c.alive }</b>
            </p>
        },
    }
}

impl SideBySide for Mysql {
    type Snapshot = MysqlSnapshot;
    const CLASSES: Option<(&'static str, &'static str)> = Some(("mysql-compare", "mysql-half"));

    fn snapshot(m: &MysqlSimModel) -> MysqlSnapshot {
        MysqlSnapshot::of(m)
    }

    fn label(p: &MysqlParams, other: &MysqlParams) -> String {
        side_label(p, other)
    }

    fn half(s: &MysqlSnapshot, _: &MysqlSnapshot) -> Half {
        Half {
            status: s.status.clone(),
            invariant: invariant_status("mysql-invariant", &s.invariant),
            lanes: s.lanes.clone(),
            state: state_line(s),
            counters: s.counters.clone(),
        }
    }

    fn rows(l: &MysqlSnapshot, r: &MysqlSnapshot) -> Vec<(&'static str, u64, u64)> {
        compare_rows(l, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::sim_model::Action;
    use crate::mechanisms::mysql::blocks::parse_mysql_compare;
    use herdlab_core::mechanisms::mysql::MysqlVariant;

    #[test]
    fn sides_are_labelled_by_what_differs() {
        let p = MysqlParams::default();
        let per = MysqlParams {
            mode: Mode::PerConnection,
            ..p
        };
        assert_eq!(side_label(&per, &p), "one thread per connection");
        assert_eq!(side_label(&p, &per), "the pool");
        let fifo = MysqlParams {
            variant: MysqlVariant::FifoWaiters,
            ..p
        };
        assert_eq!(side_label(&fifo, &p), "fifo-waiters");
        assert_eq!(side_label(&p, &fifo), "correct");
        let c2 = MysqlParams {
            cache_size: 2,
            ..per
        };
        assert_eq!(side_label(&c2, &per), "thread_cache_size 2");
        assert_eq!(side_label(&p, &p), "the pool");
    }

    /// Both sides run to their end: the rows hold the union of the modes' counters, and the
    /// values are core's reports (the lesson's figures: 32 threads without a cache, 12 with 2).
    #[test]
    fn the_rows_line_up_both_modes_and_match_core() {
        let c = parse_mysql_compare(
            "id=c&mechanism=mysql&left=cache-0&right=cache-2&mode=per-connection&connections=6&queries=60&queries_per_conn=2&cpus=2",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let end = |p: MysqlParams| {
            let mut m = MysqlSimModel::new(p);
            m.apply(Action::RunToEnd);
            MysqlSnapshot::of(&m)
        };
        let (l, r) = (end(c.left), end(c.right));
        let rows = compare_rows(&l, &r);
        let get = |k: &str| rows.iter().find(|x| x.0 == k).map(|x| (x.1, x.2));
        let (_, core_l) = c.left.run(10_000_000);
        let (_, core_r) = c.right.run(10_000_000);
        assert_eq!(
            get("threads_created"),
            Some((core_l.threads_created as u64, core_r.threads_created as u64))
        );
        assert_eq!(get("threads_created"), Some((32, 12)));
        assert_eq!(get("cache_hits"), Some((0, 20)));
        assert_eq!(get("timer_ticks"), None, "neither side is a pool");

        let m = parse_mysql_compare(
            "id=m&mechanism=mysql&left=per-connection&right=pool&connections=16&queries=200",
            "x",
        );
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        let (l, r) = (end(m.left), end(m.right));
        let keys: Vec<&str> = compare_rows(&l, &r).iter().map(|x| x.0).collect();
        assert_eq!(keys, ORDER, "both modes' counters");
        let made = compare_rows(&l, &r)
            .into_iter()
            .find(|x| x.0 == "threads_created")
            .unwrap();
        let (_, core_l) = m.left.run(10_000_000);
        let (_, core_r) = m.right.run(10_000_000);
        assert_eq!(
            (made.1, made.2),
            (core_l.threads_created as u64, core_r.threads_created as u64)
        );
        assert_eq!(made.1, 16, "one thread per connection");
        assert!(made.2 < 16, "the pool: {}", made.2);
    }
}
