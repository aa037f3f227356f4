//! A lesson's navigation: the contents list of its sections with the one being read highlighted
//! ([`Contents`]), its reading time, and the previous and next lessons ([`LessonPager`]).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::lesson::catalog::LESSONS;
use crate::lesson::outline::Heading;

/// A heading counts as being read once its top is this far from the top of the window, or less.
const READ_LINE_PX: f64 = 120.0;

/// The top of element `id` in the document, in CSS pixels.
fn page_top(id: &str) -> Option<f64> {
    let doc = web_sys::window()?.document()?;
    let mut el: HtmlElement = doc.get_element_by_id(id)?.dyn_into().ok()?;
    let mut top = f64::from(el.offset_top());
    while let Some(parent) = el.offset_parent() {
        el = parent.dyn_into().ok()?;
        top += f64::from(el.offset_top());
    }
    Some(top)
}

/// The id of the section being read: the last heading above the reading line.
fn current_section(heads: &[Heading]) -> Option<String> {
    let y = web_sys::window()?.scroll_y().ok()?;
    let mut current = None;
    for h in heads {
        match page_top(&h.id) {
            Some(top) if top - y <= READ_LINE_PX => current = Some(h.id.clone()),
            Some(_) => break,
            None => {}
        }
    }
    current
}

/// Props of [`Contents`].
#[derive(Properties, PartialEq)]
pub struct ContentsProps {
    /// The sections.
    pub heads: Rc<Vec<Heading>>,
    /// Minutes to read the lesson.
    pub minutes: usize,
    /// Its words.
    pub words: usize,
}

/// The contents list (sticky beside the lesson on wide screens, inline on narrow ones), with the
/// section being read marked (`aria-current="location"`, `data-current`) and the reading time.
#[function_component(Contents)]
pub fn contents(p: &ContentsProps) -> Html {
    let current = use_state(|| None::<String>);
    {
        let current = current.clone();
        use_effect_with(p.heads.clone(), move |heads| {
            let heads = heads.clone();
            // the handle's value is the one of its render: keep the last one set here
            let last = Rc::new(RefCell::new(None::<String>));
            let update = move || {
                let now = current_section(&heads);
                if *last.borrow() != now {
                    last.replace(now.clone());
                    current.set(now);
                }
            };
            update();
            let listener = web_sys::window()
                .map(|w| gloo_events::EventListener::new(&w, "scroll", move |_| update()));
            move || drop(listener)
        });
    }
    html! {
        <nav class="toc" aria-label="contents" data-testid="lesson-toc">
            <p class="reading-time" data-testid="reading-time" data-words={p.words.to_string()}>
                { format!("{} min read", p.minutes) }
            </p>
            <p class="toc-title">{ "Contents" }</p>
            <ol>
                { for p.heads.iter().map(|h| {
                    let on = current.as_deref() == Some(h.id.as_str());
                    html! {
                        <li class={classes!(format!("toc-h{}", h.level), on.then_some("current"))}>
                            <a href={format!("#{}", h.id)} data-testid={format!("toc-{}", h.id)}
                                data-current={on.then_some("true")}
                                aria-current={on.then_some("location")}
                                onclick={scroll_to(h.id.clone())}>{ &h.text }</a>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}

/// A contents link: scroll to the section (the address's hash is the route, so it is not used).
fn scroll_to(id: String) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        e.prevent_default();
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&id))
        {
            el.scroll_into_view();
        }
    })
}

/// Props of [`LessonPager`].
#[derive(Properties, PartialEq)]
pub struct PagerProps {
    /// The lesson's slug.
    pub slug: AttrValue,
}

/// The previous and next lessons in the suggested order.
#[function_component(LessonPager)]
pub fn lesson_pager(p: &PagerProps) -> Html {
    let Some(i) = LESSONS.iter().position(|l| l.slug == p.slug.as_str()) else {
        return html! {};
    };
    let prev = i.checked_sub(1).map(|j| &LESSONS[j]);
    let next = LESSONS.get(i + 1);
    html! {
        <nav class="pager" aria-label="lessons">
            if let Some(l) = prev {
                <a class="prev" rel="prev" data-testid="lesson-prev" href={format!("#/lesson/{}", l.slug)}>
                    <span class="pager-dir">{ "← previous" }</span>{ " " }<span class="pager-title">{ l.title }</span>
                </a>
            }
            if let Some(l) = next {
                <a class="next" rel="next" data-testid="lesson-next" href={format!("#/lesson/{}", l.slug)}>
                    <span class="pager-dir">{ "next →" }</span>{ " " }<span class="pager-title">{ l.title }</span>
                </a>
            }
        </nav>
    }
}
