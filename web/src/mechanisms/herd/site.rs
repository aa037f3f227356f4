//! The herd in the registry ([`Herd`]): its blocks become its widgets, its check blocks explore a
//! small herd scenario, and a counterexample replays as picks (every step one) in the herd widget.

use herdlab_core::check::Counterexample;
use herdlab_core::mechanisms::herd::{Herd, HerdParams, Primitive};
use herdlab_core::scenario::Scenario;
use herdlab_web_engine::erase;
use yew::prelude::*;

use crate::lesson::check::CheckSpec;
use crate::lesson::parts::{Placing, Widget};
use crate::lesson::picks::{format_picks, script_picks};
use crate::live::bench::measure;
use crate::live::form::Field;
use crate::mechanisms::herd::bench::bench_params;
use crate::mechanisms::herd::blocks::{
    herd_actors, parse_compare, parse_herd_check, parse_sim, resolve_main,
};
use crate::mechanisms::herd::form::HERD_FIELDS;
use crate::mechanisms::herd::widget::HerdSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::replay::{playground_href, replay_html, schedule_line};
use crate::ui::shell::side_by_side::two_settings_part;
use crate::ui::shell::sim_shell::sim_part;
use herdlab_core::mechanism::Mechanism;

impl SiteMechanism for Herd {
    const FIELDS: &'static [Field] = &HERD_FIELDS;
    const DEFAULT_WIDGET: bool = true;
    const LESSON: &'static str = "thundering-herd";
    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_sim(body, fallback_id);
        sim_part::<HerdSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        two_settings_part::<Self>(parse_compare(body, fallback_id), place, at)
    }

    fn check_block(body: &str, fallback_id: &str) -> Option<CheckSpec> {
        Some(parse_herd_check(body, fallback_id))
    }

    fn check_caption(p: &HerdParams) -> String {
        format!(
            "{} {} ({}): every interleaving of {} worker{} and {} connection{}, each arriving at any point",
            p.primitive.name(),
            p.mode.name(),
            p.variant.name(),
            p.workers,
            if p.workers == 1 { "" } else { "s" },
            p.connections,
            if p.connections == 1 { "" } else { "s" }
        )
    }

    /// As `herdlab check herd` lists them.
    fn check_invariants(p: &HerdParams) -> Vec<&'static str> {
        if p.primitive == Primitive::Accept {
            vec!["lost-wakeup", "conservation", "deadlock"]
        } else {
            // no accept queue: a lost wakeup shows where nothing can run
            vec!["lost-wakeup", "deadlock"]
        }
    }

    fn bench_query() -> Option<String> {
        Some(Scenario::Herd(bench_params()).to_query())
    }

    fn bench_run(run_ms: f64) -> Option<(u64, f64)> {
        Some(measure(|| erase(bench_params().simulate()), run_ms))
    }

    /// Its picks (every step one), a link as `herdlab check herd` prints it, and the herd widget
    /// stepping through it from step 0.
    fn check_replay(p: HerdParams, c: &Counterexample, id: &str, slug: &AttrValue) -> Html {
        let actors = herd_actors(&p, &c.schedule);
        let picks = format_picks(&script_picks(&actors));
        let href = playground_href(slug, &Scenario::Herd(p), actors.len(), &picks);
        html! {
            <>
                { schedule_line("who takes each step; t<k> is worker k, n the network", picks, Some(href)) }
                { replay_html::<HerdSim>(id, p, &c.violation.invariant, actors, slug) }
            </>
        }
    }

    /// The herd widget stepping through the counterexample from step 0.
    fn replay_widget(
        p: HerdParams,
        c: &Counterexample,
        id: &str,
        slug: &AttrValue,
    ) -> Option<Html> {
        let actors = herd_actors(&p, &c.schedule);
        Some(replay_html::<HerdSim>(
            id,
            p,
            &c.violation.invariant,
            actors,
            slug,
        ))
    }
}
