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

/// Props of [`LazyWidget`].
#[derive(Properties, PartialEq)]
pub struct LazyWidgetProps {
    /// A comparison block (else a simulation block).
    pub compare: bool,
    /// `pages::lesson::lazy_query`'s text: the lesson's slug, the block's fallback id and its
    /// body, one per line.
    pub query: AttrValue,
}

/// `pages::lesson::lazy_query`'s text split: the slug, the fallback id and the body; or why the
/// block is not this bundle's (it names no mechanism this bundle has).
fn split(query: &str) -> Result<(&str, &str, &str), String> {
    let mut lines = query.splitn(3, '\n');
    let (slug, fallback, body) = (
        lines.next().unwrap_or(""),
        lines.next().unwrap_or("block"),
        lines.next().unwrap_or(""),
    );
    match named_mechanism(body).as_deref() {
        Some(m) if NAMES.contains(&m) => Ok((slug, fallback, body)),
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
    let (slug, fallback, body) = split(query)?;
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

/// The widget of a block, or why there is none (the block names no mechanism this bundle has).
fn widget(compare: bool, query: &str) -> Result<(Widget, AttrValue), String> {
    let (slug, fallback, body) = split(query)?;
    let mut place = Placing::default();
    let w = if compare {
        compare_widget(None, body, fallback, &mut place, 0)
    } else {
        sim_widget(None, body, fallback, "", &mut place, 0)
    };
    Ok((w, AttrValue::from(slug.to_string())))
}

/// A lesson block's widget, in the lazily loaded bundle.
#[function_component]
pub fn LazyWidget(p: &LazyWidgetProps) -> Html {
    let w = use_memo((p.compare, p.query.clone()), |(compare, query)| {
        widget(*compare, query)
    });
    match &*w {
        Ok((w, slug)) => (w.view)("lazy".into(), slug.clone(), false),
        Err(e) => html! {
            <p class="lazy-error" role="alert" data-testid="lazy-widget-error">{ e.clone() }</p>
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::parts::Shape;
    use crate::pages::lesson::lazy_query;

    #[test]
    fn a_lazy_block_becomes_its_mechanisms_widget() {
        for m in crate::mechanisms::LAZY_ONLY {
            let q = lazy_query("s", "block-2", &format!("mechanism={m}\nid=x"));
            let (w, slug) = widget(false, &q).expect("a widget");
            assert_eq!((w.mechanism, w.shape, w.id.as_str()), (*m, Shape::Sim, "x"));
            assert!(w.errors.is_empty(), "{:?}", w.errors);
            assert_eq!(slug, "s");
            let (w, _) =
                widget(true, &lazy_query("s", "block-2", &format!("mechanism={m}"))).unwrap();
            assert_eq!(w.id, "block-2", "the fallback id");
        }
        let e = widget(false, &lazy_query("s", "b", "mechanism=nope&id=x")).unwrap_err();
        assert!(e.contains("no mechanism 'nope'; it has: herd"), "{e}");
        let (k, slug) =
            check(&lazy_query("s", "block-3", "mechanism=mysql"), false).expect("a check");
        assert!(
            matches!(k.scenario, herdlab_core::scenario::Scenario::Mysql(_)),
            "{k:?}"
        );
        assert_eq!((k.id.as_str(), slug.as_str()), ("block-3", "s"));
        assert!(check(&lazy_query("s", "b", "mechanism=nope"), false).is_err());
        // the `#/check` page's: its id, no caption, the mechanism's lesson
        let (k, slug) = check(
            &lazy_query(
                "",
                "page",
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
}
