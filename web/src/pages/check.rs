//! `#/check?<scenario>`: the model checker on any scenario a check block takes, as a page of its
//! own (the lesson's check blocks fix theirs). The address names the mechanism (none: the
//! registry's default check); every mechanism the check worker checks (`check_proto::CHECKED`) is
//! taken: one of the main app's registry here, a lazy-only one (`mechanisms::LAZY_ONLY`) by the
//! lazily loaded bundle (`<Lazy what="check-page">`, `pages::lazy_widget`), and any other is
//! refused with a message naming the allowed ones (`check-page-error`). Its counterexamples open
//! in the playground of the lesson the scenario's mechanism names.
//!
//! Generic: it names no mechanism.

use std::rc::Rc;

use herdlab_core::mechanism::shown;
use herdlab_core::scenario::MECHANISMS;
use yew::prelude::*;

use crate::check_proto::CHECKED;
use crate::dom;
use crate::lesson::catalog;
use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::named_mechanism;
use crate::mechanisms;
use crate::pages::check_widget::CheckWidget;
use crate::pages::lesson::{lazy_block, lazy_query};
use crate::ui::lazy::Lazy;

/// Props of [`CheckPage`].
#[derive(Properties, PartialEq)]
pub struct CheckPageProps {
    /// The page query: the scenario.
    pub query: AttrValue,
}

/// What the page shows for its query.
#[derive(Debug)]
enum Shown {
    /// The check, by this app's registry.
    Here(Rc<CheckSpec>),
    /// The check of a lazy-only mechanism: the lazily loaded bundle's `check-page` with this
    /// query (`pages::lesson::lazy_query`'s text: no slug, the fallback id `page`, no page query, the
    /// body).
    Lazy(String),
    /// No check: why (the mechanism it names has no checker in the browser).
    Refused(String),
}

/// The page's body for address query `q`.
fn shown_for(q: &str) -> Shown {
    let body = format!("id=page&{q}");
    match named_mechanism(q) {
        Some(m) if !CHECKED.contains(&m.as_str()) => Shown::Refused(format!(
            "mechanism: '{}' {}; allowed: {}",
            shown(&m),
            if MECHANISMS.contains(&m.as_str()) {
                "has no checker in this browser"
            } else {
                "is not a mechanism"
            },
            CHECKED.join(", ")
        )),
        Some(m) if mechanisms::LAZY_ONLY.contains(&m.as_str()) => {
            Shown::Lazy(lazy_query("", &lazy_block("page", "", &body)))
        }
        _ => {
            let mut s = mechanisms::check_block(&body, "page");
            s.caption = None;
            Shown::Here(Rc::new(s))
        }
    }
}

/// The page.
#[function_component(CheckPage)]
pub fn check_page(p: &CheckPageProps) -> Html {
    let shown = use_memo(p.query.clone(), |q| shown_for(q));
    use_effect_with((), |_| dom::set_title("Model checker · herdlab"));
    // the lazily loaded bundle links the lesson of a lazy-only mechanism (`LazyCheck`)
    let mut lesson = None;
    let body = match &*shown {
        Shown::Here(spec) => {
            // a counterexample opens in the playground of its mechanism's lesson
            let slug = mechanisms::lesson_of(&spec.scenario);
            lesson = Some(slug);
            html! { <CheckWidget spec={spec.clone()} slug={slug} /> }
        }
        Shown::Lazy(query) => html! { <Lazy what="check-page" query={query.clone()} /> },
        Shown::Refused(why) => html! {
            <p class="block-error" role="alert" data-testid="check-page-error">{ why.clone() }</p>
        },
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
            { body }
            { for lesson.map(lesson_link) }
        </article>
    }
}

/// The link back to the lesson `slug` (`check-page-lesson`), the one of the mechanism checked:
/// where its counterexamples open.
pub fn lesson_link(slug: &str) -> Html {
    let title = catalog::find(slug).map_or(slug, |l| l.title);
    html! {
        <p><a href={format!("#/lesson/{slug}")} data-testid="check-page-lesson">{ "← the lesson: " }{ title }</a></p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mechanism the worker checks is taken (here, or by the lazy bundle where it is lazy-only),
    /// and any other gets the list of the allowed ones.
    #[test]
    fn the_page_takes_every_checked_mechanism_and_refuses_the_rest() {
        assert!(matches!(shown_for(""), Shown::Here(_)));
        for m in CHECKED {
            let q = format!("mechanism={m}");
            match shown_for(&q) {
                Shown::Here(spec) => {
                    assert!(!mechanisms::LAZY_ONLY.contains(m), "{m}");
                    assert_eq!(spec.scenario.mechanism(), *m);
                    assert!(spec.errors.is_empty(), "{m}: {:?}", spec.errors);
                    assert_eq!((spec.id.as_str(), spec.caption.as_deref()), ("page", None));
                    // the footer links the lesson of the mechanism checked, which exists
                    let slug = mechanisms::lesson_of(&spec.scenario);
                    assert!(catalog::find(slug).is_some(), "{m}: {slug}");
                    let want = match *m {
                        "locks" => "nginx-shmtx",
                        "herd" => "thundering-herd",
                        "pool" => "nginx-thread-pool",
                        other => panic!("{other}: which lesson?"),
                    };
                    assert_eq!(slug, want, "{m}");
                }
                Shown::Lazy(body) => {
                    assert!(mechanisms::LAZY_ONLY.contains(m), "{m}");
                    assert_eq!(
                        body,
                        format!("\npage\n\nid=page&{q}"),
                        "no slug, no page query"
                    );
                }
                Shown::Refused(why) => panic!("{m}: {why}"),
            }
        }
        let Shown::Refused(why) = shown_for("mechanism=gmp&gomaxprocs=2") else {
            panic!("gmp is refused")
        };
        assert_eq!(
            why,
            "mechanism: 'gmp' has no checker in this browser; allowed: locks, herd, pool, mysql"
        );
        let Shown::Refused(why) = shown_for("mechanism=nope") else {
            panic!("an unknown mechanism is refused")
        };
        assert_eq!(
            why,
            "mechanism: 'nope' is not a mechanism; allowed: locks, herd, pool, mysql"
        );
    }
}
