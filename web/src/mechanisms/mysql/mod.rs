//! MySQL's connection handling (`mechanism=mysql`) on the site: its blocks, form, model, snapshot
//! and widget over core's [`herdlab_core::mechanisms::mysql`]: thread-per-connection with the
//! thread cache, and the pool-of-threads. Lazy-only, like `gmp`: this folder is compiled into the
//! lazily loaded bundle (`src/bin/lazy.rs`, the `lazy` feature), never into the main wasm; a
//! lesson block naming `mysql` is handed to `ui::lazy::Lazy` by the lesson page.

pub mod blocks;
pub mod compare;
pub mod form;
pub mod model;
pub mod panel;
pub mod site;
pub mod snapshot;
pub mod widget;
