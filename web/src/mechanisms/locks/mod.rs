//! The locks (nginx's `ngx_shmtx` and the others) on the site: their blocks, form, model, snapshot,
//! words and widgets.

pub mod blocks;
pub mod compare;
pub mod describe;
pub mod form;
pub mod invariant_status;
pub mod model;
pub mod site;
pub mod snapshot;
pub mod widget;
