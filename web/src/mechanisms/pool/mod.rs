//! nginx's thread pool (`mechanism=pool`) on the site: its blocks, form, model, snapshot and
//! widgets over core's [`herdlab_core::mechanisms::pool`].

pub mod blocks;
pub mod compare;
pub mod form;
pub mod model;
pub mod queue_panel;
pub mod site;
pub mod snapshot;
pub mod widget;
