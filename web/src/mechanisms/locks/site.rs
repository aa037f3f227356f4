//! The locks in the registry ([`Locks`]): their blocks become their widgets, a check block that
//! names no other checkable mechanism is a lock check, and a counterexample replays as its
//! schedule in the lock widget.

use std::rc::Rc;

use herdlab_core::check::Counterexample;
use herdlab_core::mechanisms::locks::{LockParams, Locks};
use herdlab_core::scenario::Scenario;
use yew::prelude::*;

use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::Controls;
use crate::lesson::parts::{Placing, Widget};
use crate::live::form::Field;
use crate::mechanisms::locks::blocks::{
    format_schedule, parse_check, parse_lock_compare, parse_lock_sim, resolve_lock_main,
    LockSimSpec,
};
use crate::mechanisms::locks::compare::LockCompare;
use crate::mechanisms::locks::form::LOCK_FIELDS;
use crate::mechanisms::locks::snapshot::invariant_names;
use crate::mechanisms::locks::widget::LockSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::compare_shell::compare_part;
use crate::ui::shell::sim_shell::{sim_html, sim_part, SimProps};
use herdlab_core::mechanism::Mechanism;

impl SiteMechanism for Locks {
    const FIELDS: &'static [Field] = &LOCK_FIELDS;
    const DEFAULT_CHECK: bool = true;
    const LESSON: &'static str = "nginx-shmtx";
    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_lock_sim(body, fallback_id);
        sim_part::<LockSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_lock_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        let mut spec = parse_lock_compare(body, fallback_id);
        place.widget(&mut spec.id, &mut spec.errors, at);
        compare_part::<LockCompare>(
            <Self as Mechanism>::NAME,
            spec.id.clone(),
            spec.errors.clone(),
            spec,
        )
    }

    fn check_block(body: &str, fallback_id: &str) -> Option<CheckSpec> {
        Some(parse_check(body, fallback_id))
    }

    fn check_caption(p: &LockParams) -> String {
        format!(
            "{} ({}): every interleaving of {} threads × {} rounds, spin {}, {} CPUs",
            p.lock.name(),
            p.variant.name(),
            p.threads,
            p.rounds,
            p.spin,
            p.cpus
        )
    }

    /// As `herdlab check` lists them.
    fn check_invariants(p: &LockParams) -> Vec<&'static str> {
        invariant_names(p)
    }

    /// Its schedule, a link, and the lock widget stepping through it.
    fn check_replay(p: LockParams, c: &Counterexample, id: &str, slug: &AttrValue) -> Html {
        let href = format!(
            "#/lesson/{slug}?{}&schedule={}",
            Scenario::Locks(p).to_query(),
            format_schedule(&c.schedule)
        );
        html! {
            <>
                <p class="check-schedule">
                    { "Schedule (thread per checker step): " }
                    <code data-testid="check-schedule">{ format_schedule(&c.schedule) }</code>
                    { " · " }
                    <a data-testid="check-link" href={href}>{ "open it in the playground" }</a>
                </p>
                { Self::replay_widget(p, c, id, slug).unwrap_or_default() }
            </>
        }
    }

    /// The lock widget stepping through the counterexample from step 0.
    fn replay_widget(
        p: LockParams,
        c: &Counterexample,
        id: &str,
        slug: &AttrValue,
    ) -> Option<Html> {
        let rspec = Rc::new(LockSimSpec {
            id: format!("{id}-replay"),
            main: false,
            controls: Controls::Step,
            stop: Some(0),
            caption: Some(format!(
                "The shortest schedule that breaks {}: step forward (pauses included) to its last step.",
                c.violation.invariant
            )),
            params: p,
            errors: Vec::new(),
        });
        Some(sim_html::<LockSim>(
            SimProps {
                spec: rspec,
                init: None,
                counterexample: Some(Rc::new(c.schedule.clone())),
            },
            slug.clone(),
        ))
    }
}
