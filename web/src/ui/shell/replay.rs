//! A check block's counterexample as its mechanism shows it: the schedule line
//! ([`schedule_line`]: `check-schedule`, and `check-link` where the lesson has a playground to
//! open it in) and the mechanism's widget stepping through it from step 0 ([`replay_html`]:
//! `sim-<id>-replay`, for kinds whose counterexample is who takes each step).
//!
//! Generic: it names no mechanism.

use std::rc::Rc;

use herdlab_core::scenario::Scenario;
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::lesson::grammar::SimBlock;
use crate::ui::shell::sim_shell::{sim_html, SimKind, SimProps};

/// The address of lesson `slug`'s playground at the end of a counterexample of `scenario`:
/// `steps` steps, taken by `picks` (`lesson::picks::format_picks`' text), which the playground
/// follows (`follow=picks`: stepping forward after a step back retraces them), as the checker's
/// command-line links give it.
pub fn playground_href(slug: &str, scenario: &Scenario, steps: usize, picks: &str) -> String {
    format!(
        "#/lesson/{slug}?{}&follow=picks&step={steps}&picks={picks}",
        scenario.to_query()
    )
}

/// "Schedule (`legend`): `schedule` · open it in the playground" (the link where `link` is
/// the playground's address).
pub fn schedule_line(legend: &str, schedule: String, link: Option<String>) -> Html {
    html! {
        <p class="check-schedule">
            { format!("Schedule ({legend}): ") }
            <code data-testid="check-schedule">{ schedule }</code>
            if let Some(href) = link {
                { " · " }
                <a data-testid="check-link" href={href}>{ "open it in the playground" }</a>
            }
        </p>
    }
}

/// Kind `K`'s widget `sim-<id>-replay` over `params`, from step 0, following `actors` (who takes
/// each step of check block `id`'s counterexample, which breaks `invariant`).
pub fn replay_html<K: SimKind<Counterexample = Vec<Actor>>>(
    id: &str,
    params: K::Params,
    invariant: &str,
    actors: Vec<Actor>,
    slug: &AttrValue,
) -> Html {
    let spec = Rc::new(SimBlock::replay(id, params, invariant, actors.len()));
    sim_html::<K>(
        SimProps {
            spec,
            init: None,
            counterexample: Some(Rc::new(actors)),
        },
        slug.clone(),
    )
}
