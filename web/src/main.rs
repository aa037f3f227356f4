//! herdlab-web: the teaching site. Lessons are Markdown, split into HTML and widget blocks at build
//! time and fetched by the lesson page (`lessons/<slug>.txt`, see [`lessons`]); their
//! ```` ```herdlab-sim ````, ```` ```herdlab-compare ```` and ```` ```herdlab-predict ```` blocks
//! (and the others in the contract) become live widgets over herdlab-core's simulator. The names shared with the lessons and the browser tests are fixed in
//! `docs/site-contract.md`.
//!
//! Layout: pure state and parsing ([`route`], [`lessons`], [`markdown`], [`blocks`], [`model`],
//! [`form`], [`snapshot`], [`describe`]), the browser calls ([`dom`]), and the view ([`app`],
//! [`components`], one component per file).

mod app;
mod check_proto;
mod dom;
mod lesson;
#[cfg(test)]
mod lesson_file;
#[cfg(test)]
mod lesson_list;
#[cfg(test)]
mod lesson_text;
mod live;
#[cfg(test)]
mod markdown;
mod mechanisms;
mod pages;
mod route;
mod ui;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
