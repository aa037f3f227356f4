//! herdlab-web: the teaching site. Lessons are Markdown, split into HTML and widget blocks at build
//! time and fetched by the lesson page (`lessons/<slug>.txt`, see [`lesson::catalog`]); their
//! ```` ```herdlab-sim ````, ```` ```herdlab-compare ```` and ```` ```herdlab-predict ```` blocks
//! (and the others in the contract) become live widgets over herdlab-core's simulator. The names shared with the lessons and the browser tests are fixed in
//! `docs/site-contract.md`.
//!
//! Layout (layers, each using only those below it; `web/tools/modgraph.py` checks there is no
//! cycle and that no file outside `mechanisms/<name>/` names a mechanism):
//! - [`lesson`]: the lesson list and files, the one block grammar, picks, predict and check specs,
//!   the parts of a lesson page and their placing;
//! - [`live`]: what the site knows of a mechanism ([`live::mechanism::SiteMechanism`]), the generic
//!   model, form, snapshot views, playback and the controllers of one widget and of a comparison;
//! - [`ui`]: generic components and the shells every mechanism's widgets are made of;
//! - [`mechanisms`]: one folder per mechanism and the one registry of them;
//! - [`pages`] and [`app`]: the routes; [`dom`], [`route`]: the browser calls and the hash routes.
// With the `lazy` feature (the lazily loaded bundle's code, `src/bin/lazy.rs`, compiled here too
// when a build asks for the feature for the whole crate) this bin never mounts what only the bundle
// mounts: the results page, the lazy-only mechanisms' widgets.
#![cfg_attr(feature = "lazy", allow(dead_code))]

mod app;
mod check_proto;
mod dom;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz;
mod lesson;
mod live;
mod mechanisms;
mod pages;
mod route;
mod ui;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
