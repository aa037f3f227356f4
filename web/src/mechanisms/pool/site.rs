//! The thread pool in the registry ([`Pool`]): its blocks become its widgets, its check blocks
//! explore core's small preset (T = 2, 3 requests) in the check worker, and a counterexample
//! replays as picks (every step one thread) in the pool widget.

use std::rc::Rc;

use herdlab_core::check::Counterexample;
use herdlab_core::scenario::Scenario;
use yew::prelude::*;

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::{Pool, PoolParams};

use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::{Controls, SimBlock};
use crate::lesson::parts::{Placing, Widget};
use crate::lesson::picks::{format_picks, script_picks};
use crate::live::form::Field;
use crate::mechanisms::pool::blocks::{
    parse_pool_check, parse_pool_compare, parse_pool_sim, pool_actors, resolve_pool_main,
};
use crate::mechanisms::pool::compare::PoolCompare;
use crate::mechanisms::pool::form::POOL_FIELDS;
use crate::mechanisms::pool::widget::PoolSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::compare_shell::compare_part;
use crate::ui::shell::sim_shell::{sim_html, sim_part, SimProps};

impl SiteMechanism for Pool {
    const FIELDS: &'static [Field] = &POOL_FIELDS;
    const LESSON: &'static str = "nginx-thread-pool";

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
        let mut spec = parse_pool_compare(body, fallback_id);
        place.widget(&mut spec.id, &mut spec.errors, at);
        compare_part::<PoolCompare>(
            <Self as Mechanism>::NAME,
            spec.id.clone(),
            spec.errors.clone(),
            spec,
        )
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
        let href = format!(
            "#/lesson/{slug}?{}&step={}&picks={picks}",
            Scenario::Pool(p).to_query(),
            actors.len()
        );
        html! {
            <>
                <p class="check-schedule">
                    { "Schedule (who takes each step; t0 is the event loop, t1… the pool threads): " }
                    <code data-testid="check-schedule">{ picks }</code>
                    { " · " }
                    <a data-testid="check-link" href={href}>{ "open it in the playground" }</a>
                </p>
                { Self::replay_widget(p, c, id, slug).unwrap_or_default() }
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
        let spec = Rc::new(SimBlock {
            id: format!("{id}-replay"),
            main: false,
            controls: Controls::Step,
            stop: Some(0),
            caption: Some(format!(
                "The shortest schedule that breaks {}: step forward to its last step ({} steps).",
                c.violation.invariant,
                actors.len()
            )),
            params: p,
            errors: Vec::new(),
        });
        Some(sim_html::<PoolSim>(
            SimProps {
                spec,
                init: None,
                counterexample: Some(Rc::new(actors)),
            },
            slug.clone(),
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
