//! # herdlab-bench
//!
//! The `herdlab` command: headless simulations of core's scenarios (`herdlab sim
//! herd|locks|accept`), core's model checker (`herdlab check`), and the native platform that runs
//! the same state machines on real threads (`herdlab bench herd|locks|accept`).
//!
//! - [`platform`]: every `herdlab_core::op::Op` executed for real (atomic words, `futex(2)`, POSIX
//!   semaphores, `std::sync::Mutex`/`Condvar`, a blocking `accept(2)`, epoll and loopback TCP);
//!   generic, it names no mechanism.
//! - [`mechanisms`]: each mechanism's folder (`herd/`, `locks/`, `accept/`) with its native runs,
//!   its `sim`, `check` and `bench` commands, and the one registry list.
//! - [`cli`]: the command line (clap), built from the registry and core's key tables;
//!   [`output`]: tables, progress bars and JSON; [`check`]: the checker's report. All three are
//!   generic.
#![warn(missing_docs)]

pub mod charts;
pub mod check;
pub mod cli;
pub mod mechanisms;
pub mod output;
pub mod platform;
pub mod trace;
