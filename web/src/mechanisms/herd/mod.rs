//! The thundering herd on the site: its blocks, form, snapshot and widgets.

pub mod accept_queue;
pub mod bench;
pub mod blocks;
pub mod compare;
pub mod model;
pub mod site;
pub mod snapshot;
pub mod widget;

pub mod form;
