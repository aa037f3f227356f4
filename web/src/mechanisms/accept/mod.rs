//! The accept strategies (nginx's accept mutex, `EPOLLEXCLUSIVE`, `SO_REUSEPORT`) on the site:
//! their blocks, form, snapshot, panels and widgets.

pub mod blocks;
pub mod compare;
pub mod conn_bars;
pub mod epoll_panel;
pub mod form;
pub mod listener_panel;
pub mod model;
pub mod network_panel;
pub mod site;
pub mod snapshot;
pub mod widget;
