//! MySQL's connection handling in the registry ([`Mysql`]): its simulation blocks become mysql
//! widgets, its comparison blocks two of them stepped together, and its check blocks explore
//! core's small presets in the check worker (the thread cache's in the browser's size,
//! `blocks::browser_cache_preset`; the pool's `MysqlParams::check_preset`); a counterexample
//! replays as picks (every step one thread, or the network) in the mysql widget.

use herdlab_core::check::Counterexample;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::{Mode, Mysql, MysqlParams};
use herdlab_core::scenario::Scenario;
use yew::prelude::*;

use crate::lesson::check::CheckSpec;
use crate::lesson::parts::{Placing, Widget};
use crate::lesson::picks::{format_picks, script_picks};
use crate::live::form::Field;
use crate::mechanisms::mysql::blocks::{
    mysql_actors, parse_mysql_check, parse_mysql_compare, parse_mysql_sim, resolve_mysql_main,
};
use crate::mechanisms::mysql::form::MYSQL_FIELDS;
use crate::mechanisms::mysql::widget::MysqlSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::replay::{playground_href, replay_html, schedule_line};
use crate::ui::shell::side_by_side::two_settings_part;
use crate::ui::shell::sim_shell::sim_part;

/// The invariants core's `mysql::invariants` checks (as `herdlab check mysql` lists them).
pub const INVARIANTS: [&str; 8] = [
    "one-listener",
    "no-lost-event",
    "active-count",
    "thread-bound",
    "idle-with-work",
    "cache-count",
    "one-connection",
    "all-served",
];

impl SiteMechanism for Mysql {
    const FIELDS: &'static [Field] = &MYSQL_FIELDS;
    const LESSON: &'static str = "mysql-thread-per-connection";
    const FINISHED: &'static str = "every query was answered";

    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_mysql_sim(body, fallback_id);
        sim_part::<MysqlSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_mysql_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        two_settings_part::<Self>(parse_mysql_compare(body, fallback_id), place, at)
    }

    fn check_block(body: &str, fallback_id: &str) -> Option<CheckSpec> {
        Some(parse_mysql_check(body, fallback_id))
    }

    fn check_invariants(_p: &MysqlParams) -> Vec<&'static str> {
        INVARIANTS.to_vec()
    }

    fn check_caption(p: &MysqlParams) -> String {
        let shape = match p.mode {
            Mode::PerConnection => format!(
                "{} client{} reconnecting after every {} quer{}, a thread cache of {}",
                p.connections,
                if p.connections == 1 { "" } else { "s" },
                p.queries_per_conn,
                if p.queries_per_conn == 1 { "y" } else { "ies" },
                p.cache_size
            ),
            Mode::Pool => format!(
                "{} group{} of at most {} threads, {} connection{}",
                p.groups,
                if p.groups == 1 { "" } else { "s" },
                p.group_threads,
                p.connections,
                if p.connections == 1 { "" } else { "s" }
            ),
        };
        format!(
            "{} ({}): every interleaving of the clients, the server's threads and the arrivals; {shape}, {} quer{}",
            Mysql::TITLE,
            p.variant.name(),
            p.queries,
            if p.queries == 1 { "y" } else { "ies" }
        )
    }

    /// Its picks (every step one thread: `t0` the clients, then the timer and the pool's workers
    /// or the connection threads; `n` an arrival), the link to the lesson's playground following
    /// them, and the mysql widget stepping through it from step 0.
    fn check_replay(p: MysqlParams, c: &Counterexample, id: &str, slug: &AttrValue) -> Html {
        let actors = mysql_actors(&p, &c.schedule);
        let picks = format_picks(&script_picks(&actors));
        // the lesson's playground (mysql-playground, mysql-tp-playground) at the last step
        let href = playground_href(slug, &Scenario::Mysql(p), actors.len(), &picks);
        html! {
            <>
                { schedule_line("who takes each step; t0 is the clients, t1… the server's threads, n an arrival", picks, Some(href)) }
                { replay_html::<MysqlSim>(id, p, &c.violation.invariant, actors, slug) }
            </>
        }
    }

    /// The mysql widget stepping through the counterexample from step 0.
    fn replay_widget(
        p: MysqlParams,
        c: &Counterexample,
        id: &str,
        slug: &AttrValue,
    ) -> Option<Html> {
        let actors = mysql_actors(&p, &c.schedule);
        Some(replay_html::<MysqlSim>(
            id,
            p,
            &c.violation.invariant,
            actors,
            slug,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanisms::{check_block, compare_widget};
    use herdlab_core::scenario::Scenario;

    const LESSONS: [&str; 2] = [
        include_str!("../../../../lessons/mysql-thread-per-connection.md"),
        include_str!("../../../../lessons/mysql-thread-pool.md"),
    ];

    /// The bodies of the lessons' `fence` blocks (one line each).
    fn bodies(fence: &str) -> Vec<&'static str> {
        LESSONS
            .iter()
            .flat_map(|l| {
                let lines: Vec<&str> = l.lines().collect();
                (0..lines.len())
                    .filter(|&i| lines[i] == fence)
                    .map(|i| lines[i + 1])
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Every comparison and check block of the mysql lessons parses without a message, into the
    /// mysql widgets and the presets the browser checks.
    #[test]
    fn the_lessons_blocks_parse() {
        let compares = bodies("```herdlab-compare");
        assert_eq!(compares.len(), 8, "{compares:?}");
        for b in compares {
            let mut place = Placing::default();
            let w = compare_widget(None, b, "x", &mut place, 0);
            assert_eq!(w.mechanism, "mysql", "{b}");
            assert!(w.errors.is_empty(), "{b}: {:?}", w.errors);
        }
        let checks = bodies("```herdlab-check");
        assert_eq!(checks.len(), 2, "{checks:?}");
        for b in checks {
            let k = check_block(b, "x");
            assert!(k.errors.is_empty(), "{b}: {:?}", k.errors);
            let Scenario::Mysql(p) = k.scenario else {
                panic!("{b}: {k:?}")
            };
            assert_eq!(
                p.mode == Mode::PerConnection,
                b.contains("cache-any-blocked"),
                "{b}"
            );
        }
    }
}
