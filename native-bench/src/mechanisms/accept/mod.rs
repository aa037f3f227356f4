//! The accept strategies (the epoll herd, `EPOLLEXCLUSIVE`, `SO_REUSEPORT`, nginx's accept mutex):
//! `sim accept`, `check accept-mutex`/`check accept`, `bench accept`, and core's accept workers on
//! real threads.

pub mod check;
pub mod cli;
pub mod cmd;
pub mod native;

pub use herdlab_core::mechanisms::accept::Accept;
