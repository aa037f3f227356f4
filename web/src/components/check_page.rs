//! `#/check?<scenario>`: the model checker on any lock scenario (or, with `mechanism=herd`, a small
//! herd scenario), as a page of its own (the lesson's check blocks fix theirs). Its
//! counterexamples open in the lock lesson's (or the herd lesson's) playground.

use std::rc::Rc;

use herdlab_core::scenario::Scenario;
use yew::prelude::*;

use crate::components::check_widget::CheckWidget;
use crate::dom;
use crate::lock_blocks::parse_check;

/// The lesson whose playground takes the lock counterexamples.
const LOCK_LESSON: &str = "nginx-shmtx";
/// The lesson whose playground takes the herd counterexamples (`mechanism=herd`).
const HERD_LESSON: &str = "thundering-herd";

/// Props of [`CheckPage`].
#[derive(Properties, PartialEq)]
pub struct CheckPageProps {
    /// The page query: the scenario.
    pub query: AttrValue,
}

/// The page.
#[function_component(CheckPage)]
pub fn check_page(p: &CheckPageProps) -> Html {
    let spec = use_memo(p.query.clone(), |q| {
        let mut s = parse_check(&format!("id=page&{q}"), "page");
        s.caption = None;
        Rc::new(s)
    });
    use_effect_with((), |_| dom::set_title("Model checker · herdlab"));
    // a herd scenario's counterexample opens in the herd lesson's playground
    let slug = match spec.scenario {
        Scenario::Herd(_) => HERD_LESSON,
        // a check block is a lock or a herd check (`parse_check`); nothing else reaches here
        Scenario::Locks(_) | Scenario::Accept(_) => LOCK_LESSON,
    };
    html! {
        <article class="check-page prose">
            <h1>{ "The model checker, in this browser" }</h1>
            <p>
                { "Every interleaving of the scenario in the address, explored in a Web Worker with the \
                   invariants checked in every state: the same search as " }
                <code>{ "herdlab check" }</code>
                { ". Change the address to check another scenario, for example " }
                <a href="#/check?mechanism=locks&lock=shmtx&variant=correct&threads=3&rounds=2&spin=2048">
                    { "nginx's lock with three threads" }
                </a>{ "." }
            </p>
            <CheckWidget spec={(*spec).clone()} slug={slug} />
            <p><a href={format!("#/lesson/{LOCK_LESSON}")}>{ "← the lesson on nginx's lock" }</a></p>
        </article>
    }
}
