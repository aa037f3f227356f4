//! The app: hash routing, the site frame, and the help overlay.

use gloo_events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

use crate::dom::{self, Shortcut};
use crate::pages::bench::BenchPage;
use crate::pages::check::CheckPage;
use crate::pages::glossary::GlossaryPage;
use crate::pages::home::home;
use crate::pages::lesson::LessonPage;
use crate::pages::not_found::{not_found, NotFoundProps};
use crate::pages::results::results_page;
use crate::route::{self, Route};
use crate::ui::help::HelpOverlay;

/// Messages of [`App`].
pub enum Msg {
    /// The address changed.
    HashChanged,
    /// `?`.
    ToggleHelp,
    /// Escape or the close button.
    CloseHelp,
}

/// The app.
pub struct App {
    hash: String,
    route: Route,
    help: bool,
    _hash: Option<EventListener>,
    _keys: Option<EventListener>,
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let window = web_sys::window();
        let hash_l = window.as_ref().map(|w| {
            let link = ctx.link().clone();
            EventListener::new(w, "hashchange", move |_| {
                link.send_message(Msg::HashChanged)
            })
        });
        let keys = window.as_ref().and_then(|w| w.document()).map(|d| {
            let link = ctx.link().clone();
            EventListener::new(&d, "keydown", move |e| {
                let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                match dom::shortcut(e) {
                    Some(Shortcut::Help) => link.send_message(Msg::ToggleHelp),
                    Some(Shortcut::Close) => link.send_message(Msg::CloseHelp),
                    _ => {}
                }
            })
        });
        let hash = dom::location_hash();
        let route = route::parse(&hash);
        if !matches!(
            route,
            Route::Lesson { .. }
                | Route::Bench
                | Route::Check { .. }
                | Route::Glossary { .. }
                | Route::Results { .. }
                | Route::Trace
        ) {
            dom::set_title("herdlab");
        }
        App {
            hash,
            route,
            help: false,
            _hash: hash_l,
            _keys: keys,
        }
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::HashChanged => {
                let hash = dom::location_hash();
                if hash == self.hash {
                    return false;
                }
                let route = route::parse(&hash);
                let same_page = matches!((&route, &self.route),
                    (Route::Lesson { slug: a, .. }, Route::Lesson { slug: b, .. }) if a == b);
                if !same_page {
                    dom::scroll_top();
                }
                if !matches!(
                    route,
                    Route::Lesson { .. }
                        | Route::Bench
                        | Route::Check { .. }
                        | Route::Glossary { .. }
                        | Route::Results { .. }
                        | Route::Trace
                ) {
                    dom::set_title("herdlab");
                }
                self.hash = hash;
                self.route = route;
                true
            }
            Msg::ToggleHelp => {
                self.help = !self.help;
                true
            }
            Msg::CloseHelp => {
                let was = self.help;
                self.help = false;
                was
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let page = match &self.route {
            Route::Home => home(),
            Route::Lesson { slug, query } => html! {
                <LessonPage key={self.hash.clone()} slug={slug.clone()} query={query.clone()} />
            },
            Route::Bench => html! { <BenchPage /> },
            Route::Check { query } => html! { <CheckPage query={query.clone()} /> },
            Route::Glossary { term } => html! { <GlossaryPage term={term.clone()} /> },
            Route::Results { query } => results_page(query),
            Route::Trace => crate::pages::trace_route::trace_page(),
            Route::NotFound(what) => not_found(&NotFoundProps {
                what: what.clone().into(),
                lesson: false,
            }),
        };
        let open_help = ctx.link().callback(|_: MouseEvent| Msg::ToggleHelp);
        html! {
            <>
                <header class="site-header">
                    <a class="brand" href="#/">{ "herdlab" }</a>
                    <nav aria-label="site">
                        <a href="#/">{ "lessons" }</a>
                        <a href="#/glossary" data-testid="glossary-link">{ "glossary" }</a>
                        <a href="#/bench">{ "speed" }</a>
                        <a href="#/results" data-testid="results-link">{ "results" }</a>
                        <button class="help-button" onclick={open_help} aria-label="keyboard help" title="keyboard help (?)">{ "?" }</button>
                    </nav>
                </header>
                <main id="content">{ page }</main>
                <footer class="site-footer">
                    <p>{ "herdlab: every number on this site comes from a deterministic, seeded simulation you can step back through." }</p>
                </footer>
                if self.help {
                    <HelpOverlay on_close={ctx.link().callback(|_| Msg::CloseHelp)} />
                }
            </>
        }
    }
}
