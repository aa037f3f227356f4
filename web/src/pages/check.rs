//! `#/check?<scenario>`: the model checker on any scenario a check block takes (the registry's
//! default check unless the address names another checkable mechanism), as a page of its own (the
//! lesson's check blocks fix theirs). Its counterexamples open in the playground of the lesson the
//! scenario's mechanism names.

use std::rc::Rc;

use yew::prelude::*;

use crate::dom;
use crate::mechanisms;
use crate::pages::check_widget::CheckWidget;

/// The lesson the page links back to (the one its example address belongs to).
const LOCK_LESSON: &str = "nginx-shmtx";

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
        let mut s = mechanisms::check_block(&format!("id=page&{q}"), "page");
        s.caption = None;
        Rc::new(s)
    });
    use_effect_with((), |_| dom::set_title("Model checker · herdlab"));
    // a counterexample opens in the playground of its mechanism's lesson
    let slug = mechanisms::lesson_of(&spec.scenario);
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
