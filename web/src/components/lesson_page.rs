//! A lesson: its Markdown as HTML, with the widget blocks replaced by live widgets.

use std::collections::HashSet;
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
use crate::lessons::Block;
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
    title: String,
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

fn build(slug: &str, query: &str) -> Option<Page> {
    let lesson = lessons::find(slug)?;
    let mut parts = Vec::new();
    let mut place = Placing::default();
    let (mut nsim, mut npredict) = (0, 0);
    for block in lesson.blocks {
        match *block {
            Block::Html(h) => parts.push(Part::Html(AttrValue::Static(h))),
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
    Some(Page {
        title: lesson.title.to_string(),
        parts,
        url_errors,
    })
}

/// The lesson page.
#[function_component(LessonPage)]
pub fn lesson_page(p: &LessonProps) -> Html {
    let page = use_memo((p.slug.clone(), p.query.clone()), |(slug, query)| {
        build(slug, query)
    });
    let title = page.as_ref().as_ref().map(|pg| pg.title.clone());
    use_effect_with(title, |t| {
        dom::set_title(&match t {
            Some(t) => format!("{t} · herdlab"),
            None => "No such lesson · herdlab".to_string(),
        });
    });
    let Some(page) = page.as_ref() else {
        return html! { <NotFound what={p.slug.clone()} lesson=true /> };
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
