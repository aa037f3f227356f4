//! A lesson: its Markdown as HTML, with the widget blocks replaced by live widgets. The page
//! fetches the lesson's file (`lessons/<slug>.txt`, see [`crate::lessons`]) and shows a loading
//! line until it has it, or why it could not get it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use herdlab_core::scenario::ParamError;
use yew::prelude::*;

use crate::accept_blocks::{
    parse_accept_compare, parse_accept_sim, resolve_accept_main, AcceptCompareSpec, AcceptMainInit,
    AcceptSimSpec,
};
use crate::block_parse::{PlaygroundInit, SimBlock};
use crate::blocks::{
    parse_compare, parse_predict, parse_sim, resolve_main, CompareSpec, MainInit, PredictSpec,
    SimSpec,
};
use crate::components::accept_compare::AcceptCompareWidget;
use crate::components::accept_widget::AcceptWidget;
use crate::components::check_widget::CheckWidget;
use crate::components::compare::CompareWidget;
use crate::components::lock_compare::LockCompareWidget;
use crate::components::lock_widget::LockWidget;
use crate::components::not_found::NotFound;
use crate::components::predict::PredictWidget;
use crate::components::sim_widget::SimWidget;
use crate::dom;
use crate::lessons;
use crate::lessons::{Block, Lesson};
use crate::lock_blocks::{
    mechanism_of, parse_check, parse_lock_compare, parse_lock_sim, resolve_lock_main, CheckSpec,
    LockCompareSpec, LockMainInit, LockSimSpec,
};

/// Props of [`LessonPage`].
#[derive(Properties, PartialEq)]
pub struct LessonProps {
    /// The lesson's slug.
    pub slug: AttrValue,
    /// The page query (the main simulation's).
    pub query: AttrValue,
}

enum Part {
    Html(AttrValue),
    Sim(Rc<SimSpec>, Option<Rc<MainInit>>, bool),
    Compare(Rc<CompareSpec>, bool),
    Predict(Rc<PredictSpec>, usize),
    LockSim(Rc<LockSimSpec>, Option<Rc<LockMainInit>>, bool),
    LockCompare(Rc<LockCompareSpec>, bool),
    Check(Rc<CheckSpec>),
    Accept(Rc<AcceptSimSpec>, Option<Rc<AcceptMainInit>>, bool),
    AcceptCompare(Rc<AcceptCompareSpec>, bool),
}

struct Page {
    parts: Vec<Part>,
    url_errors: Vec<String>,
}

fn unique(id: String, seen: &mut HashSet<String>, errors: &mut Vec<String>) -> String {
    if seen.insert(id.clone()) {
        return id;
    }
    errors.push(format!(
        "id: '{id}' is used by an earlier block; ids must be unique in a lesson"
    ));
    let mut n = 2;
    loop {
        let next = format!("{id}-{n}");
        if seen.insert(next.clone()) {
            return next;
        }
        n += 1;
    }
}

/// Where the lesson's widgets stand, while its parts are built.
#[derive(Default)]
struct Placing {
    seen: HashSet<String>,
    main_at: Option<usize>,
    first_widget: Option<usize>,
    url_errors: Vec<String>,
}

impl Placing {
    /// Place a comparison at part `at`: make its `id` unique (a clash goes to its `errors`); the
    /// page's keys drive the first widget.
    fn widget(&mut self, id: &mut String, errors: &mut Vec<String>, at: usize) {
        *id = unique(id.clone(), &mut self.seen, errors);
        self.first_widget.get_or_insert(at);
    }

    /// Place a simulation block at part `at` as [`Placing::widget`] does, keep only the first
    /// playground, and resolve the page query over it (`resolve`: the playground's start).
    fn playground<P, I: QueryStart>(
        &mut self,
        spec: &mut SimBlock<P>,
        at: usize,
        resolve: impl FnOnce(&SimBlock<P>) -> I,
    ) -> Option<Rc<I>> {
        self.widget(&mut spec.id, &mut spec.errors, at);
        if spec.main && self.main_at.is_some() {
            spec.errors.push(
                "main: only one playground per lesson; this block is not the main one".into(),
            );
            spec.main = false;
        }
        if !spec.main {
            return None;
        }
        self.main_at = Some(at);
        let init = resolve(spec);
        self.url_errors = init.query_errors().iter().map(|e| e.to_string()).collect();
        Some(Rc::new(init))
    }
}

/// A playground's start, resolved from the page query: what was wrong with the query.
trait QueryStart {
    /// The page query's bad parameters.
    fn query_errors(&self) -> &[ParamError];
}

impl<P> QueryStart for PlaygroundInit<P> {
    fn query_errors(&self) -> &[ParamError] {
        &self.errors
    }
}

impl QueryStart for LockMainInit {
    fn query_errors(&self) -> &[ParamError] {
        &self.errors
    }
}

fn build(blocks: &[Block], query: &str) -> Page {
    let mut parts = Vec::new();
    let mut place = Placing::default();
    // A block without an id is named by its place among the simulation blocks.
    let mut nsim = 0;
    let mut fallback_id = || {
        nsim += 1;
        format!("block-{nsim}")
    };
    let mut npredict = 0;
    for block in blocks {
        let at = parts.len();
        match block {
            Block::Html(h) => parts.push(Part::Html(AttrValue::Rc(h.clone()))),
            Block::Sim(body) if mechanism_of(body) == "locks" => {
                let mut spec = parse_lock_sim(body, &fallback_id());
                let init = place.playground(&mut spec, at, |s| resolve_lock_main(s, query));
                parts.push(Part::LockSim(Rc::new(spec), init, false));
            }
            Block::Sim(body) => {
                let mut spec = parse_sim(body, &fallback_id());
                let init = place.playground(&mut spec, at, |s| resolve_main(s, query));
                parts.push(Part::Sim(Rc::new(spec), init, false));
            }
            Block::Compare(body) if mechanism_of(body) == "locks" => {
                let mut spec = parse_lock_compare(body, &fallback_id());
                place.widget(&mut spec.id, &mut spec.errors, at);
                parts.push(Part::LockCompare(Rc::new(spec), false));
            }
            Block::Compare(body) => {
                let mut spec = parse_compare(body, &fallback_id());
                place.widget(&mut spec.id, &mut spec.errors, at);
                parts.push(Part::Compare(Rc::new(spec), false));
            }
            Block::Accept(body) => {
                let mut spec = parse_accept_sim(body, &fallback_id());
                let init = place.playground(&mut spec, at, |s| resolve_accept_main(s, query));
                parts.push(Part::Accept(Rc::new(spec), init, false));
            }
            Block::AcceptCompare(body) => {
                let mut spec = parse_accept_compare(body, &fallback_id());
                place.widget(&mut spec.id, &mut spec.errors, at);
                parts.push(Part::AcceptCompare(Rc::new(spec), false));
            }
            Block::Check(body) => {
                let mut spec = parse_check(body, &fallback_id());
                spec.id = unique(spec.id.clone(), &mut place.seen, &mut spec.errors);
                parts.push(Part::Check(Rc::new(spec)));
            }
            Block::Predict(body) => {
                npredict += 1;
                parts.push(Part::Predict(Rc::new(parse_predict(body)), npredict));
            }
        }
    }
    let Placing {
        main_at,
        first_widget,
        mut url_errors,
        ..
    } = place;
    if main_at.is_none() && !query.trim().is_empty() {
        url_errors
            .push("this lesson has no playground, so the link's values were not used".to_string());
    }
    if let Some(i) = main_at.or(first_widget) {
        match parts.get_mut(i) {
            Some(Part::Sim(_, _, k))
            | Some(Part::Compare(_, k))
            | Some(Part::LockSim(_, _, k))
            | Some(Part::LockCompare(_, k))
            | Some(Part::Accept(_, _, k))
            | Some(Part::AcceptCompare(_, k)) => *k = true,
            _ => {}
        }
    }
    Page { parts, url_errors }
}

/// Where the page stands with its lesson file.
enum Text {
    /// Being fetched.
    Loading,
    /// Fetched and decoded.
    Ready(Rc<Vec<Block>>),
    /// Not to be had: why (a sentence without its full stop).
    Failed(String),
}

thread_local! {
    /// The lesson files fetched so far, by slug. Every change of the address mounts the page anew
    /// (a playground's link, a counterexample's), so a lesson once fetched renders at once.
    static FETCHED: RefCell<HashMap<&'static str, Rc<Vec<Block>>>> = RefCell::new(HashMap::new());
}

fn fetched(slug: &str) -> Option<Rc<Vec<Block>>> {
    FETCHED.with(|f| f.borrow().get(slug).cloned())
}

/// Fetch and decode `lesson`'s file, and remember it.
async fn load(lesson: &'static Lesson) -> Text {
    let file = lesson.file();
    let text = match dom::fetch_text(&lesson.url()).await {
        Ok(t) => t,
        Err(e) => return Text::Failed(format!("Fetching {file} failed ({e})")),
    };
    match lessons::decode(lesson.slug, &text) {
        Ok(blocks) => {
            let blocks = Rc::new(blocks);
            FETCHED.with(|f| f.borrow_mut().insert(lesson.slug, blocks.clone()));
            Text::Ready(blocks)
        }
        Err(e) => Text::Failed(format!("The file {file} could not be read: {e}")),
    }
}

/// The lesson page.
#[function_component(LessonPage)]
pub fn lesson_page(p: &LessonProps) -> Html {
    let lesson = lessons::find(&p.slug);
    let text = use_state(|| {
        lesson
            .and_then(|l| fetched(l.slug))
            .map_or(Text::Loading, Text::Ready)
    });
    // Bumped by "try again".
    let attempt = use_state(|| 0u32);
    {
        let text = text.clone();
        use_effect_with((p.slug.clone(), *attempt), move |_| {
            if let (Some(lesson), Text::Loading) = (lesson, &*text) {
                wasm_bindgen_futures::spawn_local(async move { text.set(load(lesson).await) });
            }
        });
    }
    let blocks = match &*text {
        Text::Ready(b) => Some(b.clone()),
        _ => None,
    };
    let page = use_memo((p.query.clone(), blocks), |(query, blocks)| {
        blocks.as_ref().map(|b| build(b, query))
    });
    let title = lesson.map(|l| l.title);
    use_effect_with(title, |t| {
        dom::set_title(&match t {
            Some(t) => format!("{t} · herdlab"),
            None => "No such lesson · herdlab".to_string(),
        });
    });
    let Some(lesson) = lesson else {
        return html! { <NotFound what={p.slug.clone()} lesson=true /> };
    };
    let Some(page) = page.as_ref() else {
        return match &*text {
            Text::Failed(why) => {
                let retry = {
                    let (text, attempt) = (text.clone(), attempt.clone());
                    Callback::from(move |_| {
                        text.set(Text::Loading);
                        attempt.set(*attempt + 1);
                    })
                };
                html! {
                    <article class="lesson">
                        <div class="lesson-error" data-testid="lesson-error" role="alert">
                            <p><strong>{ format!("“{}” could not be loaded.", lesson.title) }</strong></p>
                            <p>{ format!("{why}.") }</p>
                            <p>
                                <button type="button" data-testid="lesson-retry" onclick={retry}>{ "Try again" }</button>
                                { " or go back to " }<a href="#/" data-testid="home-link">{ "the home page" }</a>{ "." }
                            </p>
                        </div>
                    </article>
                }
            }
            _ => html! {
                <article class="lesson" aria-busy="true">
                    <p class="lesson-loading" data-testid="lesson-loading" role="status">
                        { format!("Loading “{}”…", lesson.title) }
                    </p>
                </article>
            },
        };
    };
    html! {
        <article class="lesson">
            if !page.url_errors.is_empty() {
                <div class="url-error" data-testid="url-error" role="alert">
                    <p><strong>{ "Some values in this link could not be used." }</strong>
                        { " The playground runs with the lesson's own values for them:" }</p>
                    <ul>{ for page.url_errors.iter().map(|e| html! { <li><code>{ e }</code></li> }) }</ul>
                </div>
            }
            { for page.parts.iter().enumerate().map(|(i, part)| match part {
                Part::Html(h) => html! {
                    <div key={format!("h{i}")} class="prose">{ Html::from_html_unchecked(h.clone()) }</div>
                },
                Part::Sim(spec, init, keyboard) => html! {
                    <SimWidget key={format!("s{i}")} spec={spec.clone()} slug={p.slug.clone()}
                        init={init.clone()} keyboard={*keyboard} />
                },
                Part::Compare(spec, keyboard) => html! {
                    <CompareWidget key={format!("c{i}")} spec={spec.clone()} keyboard={*keyboard} />
                },
                Part::Predict(spec, n) => html! {
                    <PredictWidget key={format!("p{i}")} spec={spec.clone()} idx={*n} />
                },
                Part::LockSim(spec, init, keyboard) => html! {
                    <LockWidget key={format!("s{i}")} spec={spec.clone()} slug={p.slug.clone()}
                        init={init.clone()} keyboard={*keyboard} />
                },
                Part::LockCompare(spec, keyboard) => html! {
                    <LockCompareWidget key={format!("c{i}")} spec={spec.clone()} keyboard={*keyboard} />
                },
                Part::Accept(spec, init, keyboard) => html! {
                    <AcceptWidget key={format!("s{i}")} spec={spec.clone()} slug={p.slug.clone()}
                        init={init.clone()} keyboard={*keyboard} />
                },
                Part::AcceptCompare(spec, keyboard) => html! {
                    <AcceptCompareWidget key={format!("c{i}")} spec={spec.clone()} keyboard={*keyboard} />
                },
                Part::Check(spec) => html! {
                    <CheckWidget key={format!("k{i}")} spec={spec.clone()} slug={p.slug.clone()} />
                },
            }) }
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks() -> Vec<Block> {
        vec![
            Block::Html("<p>intro</p>".into()),
            Block::Compare("left=wake-all&right=wake-one".into()),
            Block::Sim("id=a&main=true".into()),
            Block::Sim("id=a&main=true&mechanism=locks".into()),
            Block::Accept("main=true".into()),
            Block::Predict("q: why?".into()),
        ]
    }

    #[test]
    fn the_first_playground_takes_the_query_and_the_keys() {
        let page = build(&blocks(), "workers=3&mode=bogus");
        let p = &page.parts;
        assert!(matches!(p[0], Part::Html(_)) && matches!(p[5], Part::Predict(_, 1)));
        let Part::Compare(cmp, false) = &p[1] else {
            panic!("part 1: a comparison without the keys");
        };
        let Part::Sim(sim, Some(init), true) = &p[2] else {
            panic!("part 2: the playground, with the keys");
        };
        let Part::LockSim(lock, None, false) = &p[3] else {
            panic!("part 3: a lock simulation, not the playground");
        };
        let Part::Accept(accept, None, false) = &p[4] else {
            panic!("part 4: an accept simulation, not the playground");
        };
        assert_eq!(cmp.id, "block-1");
        assert_eq!((sim.id.as_str(), init.params.workers), ("a", 3));
        assert_eq!(lock.id, "a-2");
        assert!(!lock.main && lock.errors.iter().any(|e| e.starts_with("id: 'a'")));
        assert!(lock.errors.iter().any(|e| e.starts_with("main: only one")));
        assert_eq!(accept.id, "block-4");
        assert!(!accept.main);
        assert_eq!(page.url_errors.len(), 1);
        assert!(page.url_errors[0].contains("mode"), "{:?}", page.url_errors);
    }

    #[test]
    fn without_a_playground_the_query_is_refused_and_the_first_widget_takes_the_keys() {
        let page = build(&blocks()[..2], "workers=3");
        assert!(matches!(page.parts[1], Part::Compare(_, true)));
        assert_eq!(
            page.url_errors,
            ["this lesson has no playground, so the link's values were not used"]
        );
    }
}
