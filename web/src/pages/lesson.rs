//! A lesson: its Markdown as HTML, with the widget blocks replaced by live widgets. The page
//! fetches the lesson's file (`lessons/<slug>.txt`, see [`crate::lesson::catalog`]) and shows a loading
//! line until it has it, or why it could not get it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use yew::prelude::*;

use crate::dom;
use crate::lesson::catalog::{self as lessons, Block, Lesson};
use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::{asks_main, named_mechanism};
use crate::lesson::outline::{self, outline, Heading};
use crate::lesson::parts::{unique, Placing, Shape, Widget};
use crate::lesson::predict::{parse_predict, PredictSpec};
use crate::lesson::toc::{Contents, LessonPager};
use crate::mechanisms;
use crate::pages::check_widget::CheckWidget;
use crate::pages::not_found::{not_found, NotFoundProps};
use crate::ui::lazy::Lazy;
use crate::ui::predict::PredictWidget;

/// Props of [`LessonPage`].
#[derive(Properties, PartialEq)]
pub struct LessonProps {
    /// The lesson's slug.
    pub slug: AttrValue,
    /// The page query (the main simulation's).
    pub query: AttrValue,
}

/// One part of the page.
enum Part {
    /// Prose.
    Html(AttrValue),
    /// A live widget of some mechanism, and whether the page's keys drive it.
    Widget(Widget, bool),
    /// A predict block and its number in the lesson.
    Predict(Rc<PredictSpec>, usize),
    /// A check block.
    Check(Rc<CheckSpec>),
    /// A simulation, comparison or check block of a lazy-only mechanism
    /// (`mechanisms::LAZY_ONLY`), rendered by the lazily loaded bundle: `what` (`sim`, `compare`,
    /// `check`) and [`lazy_block`]'s text (the page adds the slug, [`lazy_query`]).
    Lazy(&'static str, String),
}

/// The query of a lazy block (`<Lazy what="sim"|"compare"|"check" query=… />`, read by the
/// bundle's `pages::lazy_widget`): the lesson's slug, then [`lazy_block`]'s lines.
pub(crate) fn lazy_query(slug: &str, block: &str) -> String {
    format!("{slug}\n{block}")
}

/// A lazy block's part of [`lazy_query`]: the block's fallback id, `?` and the page query when
/// the block is the lesson's playground (else nothing: a `main` block there is not the
/// playground) and its body, one per line (the body may span lines; the page query has no line
/// break: the address parser removes them).
pub(crate) fn lazy_block(fallback_id: &str, page_query: &str, body: &str) -> String {
    format!("{fallback_id}\n{page_query}\n{body}")
}

/// The lazy-only mechanism a widget block is for, if it is one's: the block's fence names it, or
/// its body.
fn lazy_mechanism(fence: Option<&str>, body: &str) -> Option<String> {
    fence
        .map(str::to_string)
        .or_else(|| named_mechanism(body))
        .filter(|m| mechanisms::LAZY_ONLY.contains(&m.as_str()))
}

struct Page {
    parts: Vec<Part>,
    url_errors: Vec<String>,
    /// The sections (h2, h3), for the contents list.
    heads: Rc<Vec<Heading>>,
    /// The words of the lesson's prose.
    words: usize,
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
    let mut heads = Vec::new();
    let mut seen = HashSet::new();
    let mut words = 0;
    for block in blocks {
        let at = parts.len();
        match block {
            // not the main app's: the lazily loaded bundle builds and draws it (its id is not
            // checked against the page's). A simulation block that asks to be the playground is
            // one, if none is before it: it takes the page query (and the keys), and a later
            // `main` block is told that it is not the main one.
            Block::Widget(shape, mechanism, body) if lazy_mechanism(*mechanism, body).is_some() => {
                let main = *shape == Shape::Sim && place.main_at.is_none() && asks_main(body);
                if main {
                    place.main_at = Some(at);
                }
                let what = match shape {
                    Shape::Sim => "sim",
                    Shape::Compare => "compare",
                    Shape::Check => "check",
                };
                let body = match mechanism {
                    Some(m) if named_mechanism(body).is_none() => format!("mechanism={m}&{body}"),
                    _ => body.to_string(),
                };
                let query = if main {
                    format!("?{query}")
                } else {
                    String::new()
                };
                parts.push(Part::Lazy(what, lazy_block(&fallback_id(), &query, &body)));
            }
            Block::Html(h) => {
                let (h, mut hs) = outline(h, &mut seen);
                words += outline::words(&h);
                heads.append(&mut hs);
                parts.push(Part::Html(AttrValue::from(h)));
            }
            Block::Widget(Shape::Sim, mechanism, body) => {
                let w =
                    mechanisms::sim_widget(*mechanism, body, &fallback_id(), query, &mut place, at);
                parts.push(Part::Widget(w, false));
            }
            Block::Widget(Shape::Compare, mechanism, body) => {
                let w =
                    mechanisms::compare_widget(*mechanism, body, &fallback_id(), &mut place, at);
                parts.push(Part::Widget(w, false));
            }
            Block::Widget(Shape::Check, _, body) => {
                let mut spec = mechanisms::check_block(body, &fallback_id());
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
        if let Some(Part::Widget(_, k)) = parts.get_mut(i) {
            *k = true;
        }
    }
    Page {
        parts,
        url_errors,
        heads: Rc::new(heads),
        words,
    }
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
        return not_found(&NotFoundProps {
            what: p.slug.clone(),
            lesson: true,
        });
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
    let view_part = part_view(&p.slug);
    let contents = html! {
        <Contents heads={page.heads.clone()} words={page.words}
            minutes={outline::reading_minutes(page.words)} />
    };
    html! {
        <article class="lesson has-toc">
            { url_error(&page.url_errors) }
            // the contents list follows the lesson's first block (its title and introduction)
            { for page.parts.iter().enumerate().take(1).map(&view_part) }
            { contents }
            { for page.parts.iter().enumerate().skip(1).map(&view_part) }
            <LessonPager slug={p.slug.clone()} />
        </article>
    }
}

/// What was wrong with the page query (over the playground), if anything: above the lesson, or
/// above a playground of the lazily loaded bundle (`pages::lazy_widget`).
pub(crate) fn url_error(errors: &[String]) -> Html {
    if errors.is_empty() {
        return Html::default();
    }
    html! {
        <div class="url-error" data-testid="url-error" role="alert">
            <p><strong>{ "Some values in this link could not be used." }</strong>
                { " The playground runs with the lesson's own values for them:" }</p>
            <ul>{ for errors.iter().map(|e| html! { <li><code>{ e }</code></li> }) }</ul>
        </div>
    }
}

/// Renders the lesson's parts.
fn part_view(slug: &AttrValue) -> impl Fn((usize, &Part)) -> Html + '_ {
    move |(i, part)| match part {
        Part::Html(h) => html! {
            <div key={format!("h{i}")} class="prose">{ Html::from_html_unchecked(h.clone()) }</div>
        },
        Part::Widget(w, keyboard) => (w.view)(format!("w{i}"), slug.clone(), *keyboard),
        Part::Predict(spec, n) => html! {
            <PredictWidget key={format!("p{i}")} spec={spec.clone()} idx={*n} />
        },
        Part::Check(spec) => html! {
            <CheckWidget key={format!("k{i}")} spec={spec.clone()} slug={slug.clone()} />
        },
        Part::Lazy(what, block) => html! {
            <Lazy key={format!("z{i}")} what={*what} query={lazy_query(slug, block)} />
        },
    }
}

/// What the page built from `blocks` and page `query` says is wrong, each message once per
/// part (the page's own, then each widget's, check's and predict's), and the ids of its widgets
/// and checks: for the fuzz tests (`crate::fuzz`), which build whole lessons from hostile text.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) fn page_errors(blocks: &[Block], query: &str) -> (Vec<String>, Vec<String>) {
    let page = build(blocks, query);
    let mut errors = page.url_errors;
    let mut ids = Vec::new();
    for part in page.parts {
        match part {
            Part::Html(_) => {}
            Part::Widget(w, _) => {
                errors.extend(w.errors);
                ids.push(w.id);
            }
            Part::Predict(p, _) => errors.extend(p.errors.iter().cloned()),
            Part::Check(c) => {
                errors.extend(c.errors.iter().cloned());
                ids.push(c.id.clone());
            }
            Part::Lazy(..) => {}
        }
    }
    (errors, ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks() -> Vec<Block> {
        let w = |shape, mechanism, body: &str| Block::Widget(shape, mechanism, body.into());
        vec![
            Block::Html("<p>intro</p>".into()),
            w(Shape::Compare, None, "left=wake-all&right=wake-one"),
            w(Shape::Sim, None, "id=a&main=true"),
            w(Shape::Sim, None, "id=a&main=true&mechanism=locks"),
            w(Shape::Sim, Some("accept"), "main=true"),
            Block::Predict("q: why?".into()),
        ]
    }

    /// Part `i` as a widget, with whether the page's keys drive it.
    fn widget(page: &Page, i: usize) -> (&Widget, bool) {
        match &page.parts[i] {
            Part::Widget(w, k) => (w, *k),
            _ => panic!("part {i} is not a widget"),
        }
    }

    #[test]
    fn the_first_playground_takes_the_query_and_the_keys() {
        let page = build(&blocks(), "workers=3&mode=bogus");
        let p = &page.parts;
        assert!(matches!(p[0], Part::Html(_)) && matches!(p[5], Part::Predict(_, 1)));
        let (cmp, keys) = widget(&page, 1);
        assert!(!keys, "part 1: a comparison without the keys");
        assert_eq!((cmp.mechanism, cmp.shape), ("herd", Shape::Compare));
        let (sim, keys) = widget(&page, 2);
        assert!(keys && sim.main, "part 2: the playground, with the keys");
        let init = sim.init.as_deref().expect("the playground has its start");
        assert!(init.contains("workers: 3,"), "{init}");
        let (lock, keys) = widget(&page, 3);
        assert!(
            !keys && lock.init.is_none(),
            "part 3: a lock simulation, not the playground"
        );
        assert_eq!((lock.mechanism, lock.shape), ("locks", Shape::Sim));
        let (accept, keys) = widget(&page, 4);
        assert!(
            !keys && accept.init.is_none(),
            "part 4: an accept simulation, not the playground"
        );
        assert_eq!(accept.mechanism, "accept");
        assert_eq!(cmp.id, "block-1");
        assert_eq!(sim.id.as_str(), "a");
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
        assert!(widget(&page, 1).1);
        assert_eq!(
            page.url_errors,
            ["this lesson has no playground, so the link's values were not used"]
        );
    }

    /// A block of a lazy-only mechanism is the lazily loaded bundle's: the page neither builds
    /// nor places it, and hands it its slug, fallback id and body.
    #[test]
    fn a_lazy_only_mechanisms_block_goes_to_the_lazy_bundle() {
        let blocks = vec![
            Block::Widget(Shape::Sim, None, "id=g&mechanism=gmp&gomaxprocs=2".into()),
            Block::Widget(Shape::Compare, Some("gmp"), "id=h".into()),
            Block::Widget(Shape::Sim, None, "id=a&main=true".into()),
            Block::Widget(Shape::Check, None, "id=k&mechanism=mysql".into()),
        ];
        let page = build(&blocks, "workers=3");
        match &page.parts[0] {
            Part::Lazy(what, block) => {
                assert_eq!(*what, "sim");
                assert_eq!(
                    lazy_query("go", block),
                    "go\nblock-1\n\nid=g&mechanism=gmp&gomaxprocs=2",
                    "the fallback id, no page query (not the playground), the body"
                );
            }
            _ => panic!("part 0 is not lazy"),
        }
        assert!(
            matches!(&page.parts[1], Part::Lazy("compare", b) if b == "block-2\n\nmechanism=gmp&id=h")
        );
        assert!(
            matches!(&page.parts[3], Part::Lazy("check", b) if b == "block-4\n\nid=k&mechanism=mysql")
        );
        let (w, keys) = widget(&page, 2);
        assert!(
            keys && w.main && w.mechanism == "herd",
            "the playground is the main app's"
        );
        assert!(page.url_errors.is_empty(), "{:?}", page.url_errors);
    }

    /// A lazy-only mechanism's simulation block can be the playground (the link of
    /// `herdlab check gmp` opens it): it takes the page query, no widget of the main app takes the
    /// keys, a later `main` block is refused, and the page does not say "no playground".
    #[test]
    fn a_lazy_playground_takes_the_page_query() {
        let blocks = vec![
            Block::Widget(Shape::Sim, None, "id=a".into()),
            Block::Widget(Shape::Check, None, "id=k&mechanism=gmp&main=true".into()),
            Block::Widget(Shape::Compare, Some("gmp"), "id=c&main=true".into()),
            Block::Widget(Shape::Sim, Some("gmp"), "id=g\nmain".into()),
            Block::Widget(Shape::Sim, None, "id=h&mechanism=gmp&main=true".into()),
            Block::Widget(Shape::Sim, None, "id=b&main=true".into()),
        ];
        let page = build(&blocks, "gomaxprocs=3&step=4");
        assert!(page.url_errors.is_empty(), "{:?}", page.url_errors);
        let queries: Vec<&str> = page.parts[1..5]
            .iter()
            .map(|p| match p {
                Part::Lazy(_, b) => b.split('\n').nth(1).unwrap(),
                _ => panic!("not lazy"),
            })
            .collect();
        assert_eq!(
            queries,
            ["", "", "?gomaxprocs=3&step=4", ""],
            "only the first simulation block asking for it is the playground"
        );
        let (a, keys) = widget(&page, 0);
        assert!(!keys && !a.main, "the main app's first widget has no keys");
        let (b, keys) = widget(&page, 5);
        assert!(!keys && !b.main && b.init.is_none());
        assert!(
            b.errors.iter().any(|e| e.starts_with("main: only one")),
            "{:?}",
            b.errors
        );
        // without a playground asking, the page refuses the query as before
        let page = build(&blocks[..3], "gomaxprocs=3");
        assert_eq!(
            page.url_errors,
            ["this lesson has no playground, so the link's values were not used"]
        );
    }

    /// One fence kind per shape, with `mechanism=`: `herdlab-sim` / `herdlab-compare` naming the
    /// accept strategies read exactly as the older `herdlab-accept` / `herdlab-accept-compare`.
    #[test]
    fn a_shape_fence_with_a_mechanism_key_reads_as_the_mechanism_fence() {
        let old = [
            Block::Widget(
                Shape::Sim,
                Some("accept"),
                "id=a&main=true&strategy=reuseport".into(),
            ),
            Block::Widget(
                Shape::Compare,
                Some("accept"),
                "id=b&strategies=herd,exclusive".into(),
            ),
        ];
        let new = [
            Block::Widget(
                Shape::Sim,
                None,
                "mechanism=accept&id=a&main=true&strategy=reuseport".into(),
            ),
            Block::Widget(
                Shape::Compare,
                None,
                "mechanism=accept&id=b&strategies=herd,exclusive".into(),
            ),
        ];
        let (old, new) = (build(&old, "workers=3"), build(&new, "workers=3"));
        for i in 0..2 {
            let (o, n) = (widget(&old, i), widget(&new, i));
            assert_eq!(format!("{o:?}"), format!("{n:?}"), "part {i}");
            assert_eq!(o.0.mechanism, "accept");
            assert!(o.0.errors.is_empty(), "{:?}", o.0.errors);
        }
        assert!(widget(&new, 0)
            .0
            .init
            .as_deref()
            .is_some_and(|i| i.contains("workers: 3,")));
        assert_eq!(old.url_errors, new.url_errors);
    }
}
