//! herdlab-web: the teaching site. Lessons are Markdown, split into HTML and widget blocks at build
//! time and fetched by the lesson page (`lessons/<slug>.txt`, see [`lessons`]); their
//! ```` ```herdlab-sim ````, ```` ```herdlab-compare ```` and ```` ```herdlab-predict ```` blocks
//! (and the others in the contract) become live widgets over herdlab-core's simulator. The names shared with the lessons and the browser tests are fixed in
//! `docs/site-contract.md`.
//!
//! Layout: pure state and parsing ([`route`], [`lessons`], [`markdown`], [`blocks`], [`model`],
//! [`form`], [`snapshot`], [`describe`]), the browser calls ([`dom`]), and the view ([`app`],
//! [`components`], one component per file).

mod accept_blocks;
mod accept_form;
mod accept_snapshot;
mod app;
mod block_parse;
mod blocks;
mod check_proto;
mod components;
mod describe;
mod dom;
mod form;
mod frame_loop;
mod key_action;
mod lessons;
mod live;
mod live_model;
mod lock_blocks;
mod lock_describe;
mod lock_form;
mod lock_model;
mod lock_snapshot;
mod model;
mod pair;
mod playback;
mod route;
mod sim_open;
mod snapshot;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
