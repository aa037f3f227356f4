//! A lesson's simulation, comparison or check block of a lazy-only mechanism
//! (`mechanisms::LAZY_ONLY`), rendered by the lazily loaded bundle: the lesson page
//! (`pages::lesson`) shows `<Lazy what="sim"|"compare"|"check" query=… />` for such a block, and
//! the bundle's `mount` renders [`LazyWidget`] (or [`LazyCheck`]) with that query, which builds
//! the widget (or the check) through the bundle's registry (where the lazy-only mechanisms are).
//!
//! Generic: it names no mechanism. Lazy-only itself (the `lazy` feature).

use std::rc::Rc;

use yew::prelude::*;

use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::named_mechanism;
use crate::lesson::parts::{Placing, Widget};
use crate::mechanisms::{check_block, compare_widget, lesson_of, sim_widget, NAMES};
use crate::pages::check_widget::CheckWidget;
use crate::pages::lesson::url_error;

/// Props of [`LazyWidget`].
#[derive(Properties, PartialEq)]
pub struct LazyWidgetProps {
    /// A comparison block (else a simulation block).
    pub compare: bool,
    /// `pages::lesson::lazy_query`'s text: the lesson's slug, the block's fallback id, the page
    /// query (the playground's) and its body, one per line.
    pub query: AttrValue,
}

/// `pages::lesson::lazy_query`'s text split.
struct Split<'a> {
    slug: &'a str,
    fallback: &'a str,
    /// The page query, when the block is the lesson's playground (`None`: it is not, whatever
    /// its `main` key says).
    page_query: Option<&'a str>,
    body: &'a str,
}

/// `pages::lesson::lazy_query`'s text split; or why the block is not this bundle's (it names no
/// mechanism this bundle has).
fn split(query: &str) -> Result<Split<'_>, String> {
    let mut lines = query.splitn(4, '\n');
    let mut next = || lines.next().unwrap_or("");
    let (slug, fallback, page_query, body) = (next(), next(), next(), next());
    match named_mechanism(body).as_deref() {
        Some(m) if NAMES.contains(&m) => Ok(Split {
            slug,
            // a text without one (none the page makes) still names the block
            fallback: if fallback.is_empty() {
                "block"
            } else {
                fallback
            },
            page_query: page_query.strip_prefix('?'),
            body,
        }),
        other => Err(format!(
            "the lazily loaded bundle has no mechanism '{}'; it has: {}",
            other.unwrap_or(""),
            NAMES.join(", ")
        )),
    }
}

/// The check of a check block, parsed by the bundle's registry, and the lesson's slug. For the
/// `#/check` page (`page`) the slug is the one of the lesson whose playground opens the
/// mechanism's counterexamples, and a caption in the address is not shown (as the main app's
/// page does).
fn check(query: &str, page: bool) -> Result<(Rc<CheckSpec>, AttrValue), String> {
    let Split {
        slug,
        fallback,
        body,
        ..
    } = split(query)?;
    let mut spec = check_block(body, fallback);
    let slug = if page {
        spec.caption = None;
        lesson_of(&spec.scenario)
    } else {
        slug
    };
    Ok((Rc::new(spec), AttrValue::from(slug.to_string())))
}

/// Props of [`LazyCheck`].
#[derive(Properties, PartialEq)]
pub struct LazyCheckProps {
    /// `pages::lesson::lazy_query`'s text, as [`LazyWidgetProps::query`].
    pub query: AttrValue,
    /// The `#/check` page's check (`pages::check`), not a lesson's block.
    #[prop_or_default]
    pub page: bool,
}

/// A lesson's check block (or the `#/check` page's check), in the lazily loaded bundle: the
/// check widget (its errors, its run in the check worker, its replay) over the bundle's registry.
#[function_component]
pub fn LazyCheck(p: &LazyCheckProps) -> Html {
    let c = use_memo((p.query.clone(), p.page), |(query, page)| {
        check(query, *page)
    });
    match &*c {
        Ok((spec, slug)) if p.page => html! {
            <>
                <CheckWidget spec={spec.clone()} slug={slug.clone()} />
                { crate::pages::check::lesson_link(slug) }
            </>
        },
        Ok((spec, slug)) => html! { <CheckWidget spec={spec.clone()} slug={slug.clone()} /> },
        Err(e) => html! {
            <p class="lazy-error" role="alert" data-testid="lazy-widget-error">{ e.clone() }</p>
        },
    }
}

/// The widget of a block, or why there is none (the block names no mechanism this bundle has),
/// and what was wrong with the page query when the block is the lesson's playground.
fn widget(compare: bool, query: &str) -> Result<(Widget, AttrValue, Vec<String>), String> {
    let Split {
        slug,
        fallback,
        page_query,
        body,
    } = split(query)?;
    let mut place = Placing::default();
    if page_query.is_none() {
        // the lesson has its playground elsewhere: a `main` block here is told it is not it
        place.main_at = Some(usize::MAX);
    }
    let w = if compare {
        compare_widget(None, body, fallback, &mut place, 0)
    } else {
        sim_widget(
            None,
            body,
            fallback,
            page_query.unwrap_or(""),
            &mut place,
            0,
        )
    };
    Ok((w, AttrValue::from(slug.to_string()), place.url_errors))
}

/// A lesson block's widget, in the lazily loaded bundle. The lesson's playground (the page
/// passes it the page query) takes the page's keys, and shows above it what was wrong with the
/// page query, as the lesson page does for a playground of its own.
#[function_component]
pub fn LazyWidget(p: &LazyWidgetProps) -> Html {
    let w = use_memo((p.compare, p.query.clone()), |(compare, query)| {
        widget(*compare, query)
    });
    match &*w {
        Ok((w, slug, url_errors)) => html! {
            <>
                { url_error(url_errors) }
                { (w.view)("lazy".into(), slug.clone(), w.main) }
            </>
        },
        Err(e) => html! {
            <p class="lazy-error" role="alert" data-testid="lazy-widget-error">{ e.clone() }</p>
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::parts::Shape;
    use crate::pages::lesson::{lazy_block, lazy_query};

    /// `lazy_query`'s text for a block.
    fn q(slug: &str, fallback: &str, page_query: &str, body: &str) -> String {
        lazy_query(slug, &lazy_block(fallback, page_query, body))
    }

    #[test]
    fn a_lazy_block_becomes_its_mechanisms_widget() {
        for m in crate::mechanisms::LAZY_ONLY {
            let text = q("s", "block-2", "", &format!("mechanism={m}\nid=x"));
            let (w, slug, url_errors) = widget(false, &text).expect("a widget");
            assert!(url_errors.is_empty() && !w.main && w.init.is_none());
            assert_eq!((w.mechanism, w.shape, w.id.as_str()), (*m, Shape::Sim, "x"));
            assert!(w.errors.is_empty(), "{:?}", w.errors);
            assert_eq!(slug, "s");
            let (w, ..) = widget(true, &q("s", "block-2", "", &format!("mechanism={m}"))).unwrap();
            assert_eq!(w.id, "block-2", "the fallback id");
        }
        let m = crate::mechanisms::LAZY_ONLY[0];
        let (w, ..) = widget(false, &format!("s\n\n\nmechanism={m}")).unwrap();
        assert_eq!(w.id, "block", "no fallback id given: the default one");
        let e = widget(false, &q("s", "b", "", "mechanism=nope&id=x")).unwrap_err();
        assert!(e.contains("no mechanism 'nope'; it has: herd"), "{e}");
        let (k, slug) = check(&q("s", "block-3", "", "mechanism=mysql"), false).expect("a check");
        assert!(
            matches!(k.scenario, herdlab_core::scenario::Scenario::Mysql(_)),
            "{k:?}"
        );
        assert_eq!((k.id.as_str(), slug.as_str()), ("block-3", "s"));
        assert!(check(&q("s", "b", "", "mechanism=nope"), false).is_err());
        // the `#/check` page's: its id, no caption, the mechanism's lesson
        let (k, slug) = check(
            &q(
                "",
                "page",
                "",
                "id=page&mechanism=mysql&mode=per-connection&variant=cache-any-blocked&caption=x",
            ),
            true,
        )
        .expect("a check");
        assert!(k.errors.is_empty(), "{:?}", k.errors);
        assert_eq!(
            (k.id.as_str(), k.caption.as_deref(), slug.as_str()),
            ("page", None, lesson_of(&k.scenario))
        );
        assert_eq!(slug, "mysql-thread-per-connection");
    }

    /// The lesson's playground of a lazy-only mechanism: the page query (the link of
    /// `herdlab check gmp`, a copied playground link) sets its start, and what is wrong with it
    /// comes back to be shown above the widget.
    #[test]
    fn a_lazy_playground_starts_from_the_page_query() {
        for m in crate::mechanisms::LAZY_ONLY {
            let body = format!("id=p&main=true&controls=full&mechanism={m}&seed=1");
            let (w, _, url_errors) = widget(false, &q("s", "b", "?seed=7&step=3", &body)).unwrap();
            assert!(w.main && w.errors.is_empty(), "{m}: {:?}", w.errors);
            assert!(url_errors.is_empty(), "{m}: {url_errors:?}");
            let init = w.init.expect("the playground's start");
            assert!(init.contains("seed: 7"), "{m}: {init}");
            assert!(init.contains("step: Some(3)"), "{m}: {init}");
            let (w, _, url_errors) = widget(false, &q("s", "b", "?seed=x&bogus=1", &body)).unwrap();
            assert!(
                w.init.expect("a start").contains("seed: 1"),
                "{m}: the block's seed"
            );
            assert!(
                url_errors.iter().any(|e| e.contains("seed"))
                    && url_errors.iter().any(|e| e.contains("bogus")),
                "{m}: {url_errors:?}"
            );
            // a `main` block the page did not make the playground (one came before it): told
            // so, with no start and no page query
            let (w, _, url_errors) = widget(false, &q("s", "b", "", &body)).unwrap();
            assert!(!w.main && w.init.is_none(), "{m}");
            assert!(url_errors.is_empty(), "{m}: {url_errors:?}");
            assert!(
                w.errors
                    .iter()
                    .any(|e| e.starts_with("main: only one playground")),
                "{m}: {:?}",
                w.errors
            );
        }
    }
}
