//! # herdlab-bench
//!
//! The `herdlab` command: headless simulations of core's scenarios (`herdlab sim
//! herd|locks|accept`), core's model checker on the locks and the herd (`herdlab check`), and the
//! native platform that runs the same state machines on real threads (`herdlab bench
//! herd|locks|accept`).
//!
//! - [`platform::native`]: every `herdlab_core::op::Op` executed for real (atomic words, `futex(2)`,
//!   POSIX semaphores, `std::sync::Mutex`/`Condvar`, a blocking `accept(2)`), and the per-thread
//!   driver; [`platform::net`] (Linux): the event-driven operations on real epoll instances and
//!   loopback TCP sockets, with the wakeup accounting of the simulator.
//! - [`native_herd`]: core's herd machines on real threads, with the gate and load generator that
//!   decide when each event is delivered.
//! - [`native_locks`]: core's lock machines on real threads, beside `std` and `parking_lot`.
//! - [`native_accept`]: core's accept workers (nginx event loops, blocking acceptors) on real
//!   threads against a bounded loopback load generator.
//! - [`sim_cmd`], [`check_cmd`], [`check_herd`], [`bench_cmd`], [`accept_cmd`]: the commands;
//!   [`cli`]: their argument parsing.
#![warn(missing_docs)]

pub mod accept_cmd;
pub mod bench_cmd;
pub mod check_accept;
pub mod check_cmd;
pub mod check_herd;
pub mod check_sim;
pub mod cli;
pub mod native_accept;
pub mod native_herd;
pub mod native_locks;
pub mod platform;
pub mod sim_cmd;
