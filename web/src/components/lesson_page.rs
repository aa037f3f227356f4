//! A lesson: its Markdown as HTML, with the widget blocks replaced by live widgets. The page
//! fetches the lesson's file (`lessons/<slug>.txt`, see [`crate::lessons`]) and shows a loading
//! line until it has it, or why it could not get it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use yew::prelude::*;

use crate::accept_blocks::{
    parse_accept_compare, parse_accept_sim, resolve_accept_main, AcceptCompareSpec, AcceptMainInit,
    AcceptSimSpec,
};
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
    /// Place a simulation block at part `at`: make its id unique, keep only the first playground
    /// (`fields`: the spec's id, main flag and errors), and resolve the page query over it
    /// (`resolve`: the link's errors and the playground's start).
    fn playground<S, I>(
        &mut self,
        spec: &mut S,
        at: usize,
        fields: fn(&mut S) -> (&mut String, &mut bool, &mut Vec<String>),
        resolve: impl FnOnce(&S) -> (Vec<String>, I),
    ) -> Option<Rc<I>> {
        let (id, main, errors) = fields(spec);
        *id = unique(id.clone(), &mut self.seen, errors);
        if *main && self.main_at.is_some() {
            errors.push(
                "main: only one playground per lesson; this block is not the main one".into(),
            );
            *main = false;
        }
        let main = *main;
        self.first_widget.get_or_insert(at);
        if !main {
            return None;
        }
        self.main_at = Some(at);
        let (url_errors, init) = resolve(spec);
        self.url_errors = url_errors;
        Some(Rc::new(init))
    }
}

fn build(blocks: &[Block], query: &str) -> Page {
    let mut parts = Vec::new();
    let mut place = Placing::default();
    let (mut nsim, mut npredict) = (0, 0);
    for block in blocks {
        match block {
            Block::Html(h) => parts.push(Part::Html(AttrValue::Rc(h.clone()))),
            Block::Sim(body) if mechanism_of(body) == "locks" => {
                nsim += 1;
                let mut spec = parse_lock_sim(body, &format!("block-{nsim}"));
                let init = place.playground(
                    &mut spec,
                    parts.len(),
                    |s| (&mut s.id, &mut s.main, &mut s.errors),
                    |s| {
                        let init = resolve_lock_main(s, query);
                        (init.errors.iter().map(|e| e.to_string()).collect(), init)
                    },
                );
                parts.push(Part::LockSim(Rc::new(spec), init, false));
            }
            Block::Sim(body) => {
                nsim += 1;
                let mut spec = parse_sim(body, &format!("block-{nsim}"));
                let init = place.playground(
                    &mut spec,
                    parts.len(),
                    |s| (&mut s.id, &mut s.main, &mut s.errors),
                    |s| {
                        let init = resolve_main(s, query);
                        (init.errors.iter().map(|e| e.to_string()).collect(), init)
                    },
                );
                parts.push(Part::Sim(Rc::new(spec), init, false));
            }
            Block::Compare(body) if mechanism_of(body) == "locks" => {
                nsim += 1;
                let mut spec = parse_lock_compare(body, &format!("block-{nsim}"));
                spec.id = unique(spec.id.clone(), &mut place.seen, &mut spec.errors);
                place.first_widget.get_or_insert(parts.len());
                parts.push(Part::LockCompare(Rc::new(spec), false));
            }
            Block::Compare(body) => {
                nsim += 1;
                let mut spec = parse_compare(body, &format!("block-{nsim}"));
                spec.id = unique(spec.id.clone(), &mut place.seen, &mut spec.errors);
                place.first_widget.get_or_insert(parts.len());
                parts.push(Part::Compare(Rc::new(spec), false));
            }
            Block::Accept(body) => {
                nsim += 1;
                let mut spec = parse_accept_sim(body, &format!("block-{nsim}"));
                let init = place.playground(
                    &mut spec,
                    parts.len(),
                    |s| (&mut s.id, &mut s.main, &mut s.errors),
                    |s| {
                        let init = resolve_accept_main(s, query);
                        (init.errors.iter().map(|e| e.to_string()).collect(), init)
                    },
                );
                parts.push(Part::Accept(Rc::new(spec), init, false));
            }
            Block::AcceptCompare(body) => {
                nsim += 1;
                let mut spec = parse_accept_compare(body, &format!("block-{nsim}"));
                spec.id = unique(spec.id.clone(), &mut place.seen, &mut spec.errors);
                place.first_widget.get_or_insert(parts.len());
                parts.push(Part::AcceptCompare(Rc::new(spec), false));
            }
            Block::Check(body) => {
                nsim += 1;
                let mut spec = parse_check(body, &format!("block-{nsim}"));
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
