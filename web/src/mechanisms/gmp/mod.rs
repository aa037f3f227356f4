//! Go's G/M/P scheduler (`mechanism=gmp`) on the site: its blocks, form, model, snapshot,
//! widget and side-by-side comparison over core's [`herdlab_core::mechanisms::gmp`]. Lazy-only: this folder is compiled into
//! the lazily loaded bundle (`src/bin/lazy.rs`, the `lazy` feature), never into the main wasm; a
//! lesson block naming `gmp` is handed to `ui::lazy::Lazy` by the lesson page.

pub mod blocks;
pub mod compare;
pub mod form;
pub mod model;
pub mod queue_panel;
pub mod site;
pub mod snapshot;
pub mod widget;
