//! The thread pool in the registry ([`Pool`]): its blocks become its widgets, its check blocks
//! explore core's small preset (T = 2, 3 requests) in the check worker, and a counterexample
//! replays as picks (every step one thread) in the pool widget.

use herdlab_core::check::Counterexample;
use herdlab_core::scenario::Scenario;
use yew::prelude::*;

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::{Pool, PoolParams};

use crate::lesson::check::CheckSpec;
use crate::lesson::parts::{Placing, Widget};
use crate::lesson::picks::{format_picks, script_picks};
use crate::live::form::Field;
use crate::mechanisms::pool::blocks::{
    parse_pool_check, parse_pool_compare, parse_pool_sim, pool_actors, resolve_pool_main,
};
use crate::mechanisms::pool::form::POOL_FIELDS;
use crate::mechanisms::pool::widget::PoolSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::replay::{playground_href, replay_html, schedule_line};
use crate::ui::shell::side_by_side::two_settings_part;
use crate::ui::shell::sim_shell::sim_part;

impl SiteMechanism for Pool {
    const FIELDS: &'static [Field] = &POOL_FIELDS;
    const LESSON: &'static str = "nginx-thread-pool";
    const FINISHED: &'static str = "every request was answered";

    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_pool_sim(body, fallback_id);
        sim_part::<PoolSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_pool_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        two_settings_part::<Self>(parse_pool_compare(body, fallback_id), place, at)
    }

    fn check_block(body: &str, fallback_id: &str) -> Option<CheckSpec> {
        Some(parse_pool_check(body, fallback_id))
    }

    /// As `herdlab check pool` lists them (core's `pool::invariants`).
    fn check_invariants(_p: &PoolParams) -> Vec<&'static str> {
        vec![
            "null-deref",
            "queue-shape",
            "waiting-count",
            "bounded-queue",
            "lost-wakeup",
            "exactly-once",
            "order",
            "shutdown",
        ]
    }

    /// Its picks (every step one thread: `t0` the event loop, `t1…` the pool threads), a link into
    /// the playground at its end, and the pool widget stepping through it from step 0.
    fn check_replay(p: PoolParams, c: &Counterexample, id: &str, slug: &AttrValue) -> Html {
        let actors = pool_actors(&c.schedule);
        let picks = format_picks(&script_picks(&actors));
        let href = playground_href(slug, &Scenario::Pool(p), actors.len(), &picks);
        html! {
            <>
                { schedule_line("who takes each step; t0 is the event loop, t1… the pool threads", picks, Some(href)) }
                { replay_html::<PoolSim>(id, p, &c.violation.invariant, actors, slug) }
            </>
        }
    }

    /// The pool widget stepping through the counterexample from step 0.
    fn replay_widget(
        p: PoolParams,
        c: &Counterexample,
        id: &str,
        slug: &AttrValue,
    ) -> Option<Html> {
        let actors = pool_actors(&c.schedule);
        Some(replay_html::<PoolSim>(
            id,
            p,
            &c.violation.invariant,
            actors,
            slug,
        ))
    }

    fn check_caption(p: &PoolParams) -> String {
        format!(
            "{} ({}): every interleaving of the event loop, {} pool thread{} and {} request{}",
            Pool::TITLE,
            p.variant.name(),
            p.threads,
            if p.threads == 1 { "" } else { "s" },
            p.requests,
            if p.requests == 1 { "" } else { "s" }
        )
    }
}
