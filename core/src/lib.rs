//! # herdlab-core
//!
//! The mechanisms herdlab teaches, each written once as step-able state machines over a small set of
//! primitive operations, and the deterministic simulated platform that steps them.
//!
//! Layers, bottom up:
//! - [`op`]: the primitive operations (atomic words, futex wait/wake, sleeping mutex and condition
//!   variable, accept, work, pause, yield, clock) and their results.
//! - [`machine`]: the [`machine::Machine`] trait every mechanism's thread implements: one operation per
//!   step, with the pseudocode line it executes.
//! - [`waitqueue`]: the Linux wait queue and its `__wake_up_common` walk.
//! - [`sim`]: the simulated platform (CPUs, scheduler, kernel model, cost model, arrivals, step back).
//!   The native platform lives in `herdlab-bench` and drives the same machines on real threads.
//! - [`mechanism`]: the one trait through which generic code knows a mechanism ([`mechanism::Mechanism`]:
//!   its name, parameter keys with their ranges and messages, the simulation it starts).
//! - [`mechanisms`]: one folder per mechanism: [`mechanisms::herd`] (the thundering herd on wait
//!   queues, futexes and condition variables), [`mechanisms::locks`] (nginx's `ngx_shmtx` and its
//!   rivals), [`mechanisms::accept`] (the epoll herd, `EPOLLEXCLUSIVE`, `SO_REUSEPORT` and nginx's
//!   accept mutex), [`mechanisms::pool`] (nginx's thread pool).
//! - [`check`]: the model checker (an engine that knows only `Model`, the checking platform, the
//!   simulator as a model).
//! - [`scenario`]: the registry of the mechanisms and the serde description of a run, with validation
//!   and URL encoding.
//! - [`trace`]: the trace format (what `herdlab bench … --trace FILE` writes and the site opens): its
//!   one writer and its one reader, bounded and fuzzed.
//! - [`chart`]: benchmark rows drawn as SVG charts (what `--svg FILE` writes), generic over the rows.
//!
//! This crate has no web and no OS dependencies; it builds for `wasm32-unknown-unknown`.
//!
//! ```
//! use herdlab_core::mechanisms::herd::{HerdParams, WakeMode};
//! let mut p = HerdParams { workers: 8, cpus: 2, mode: WakeMode::WakeAll, connections: 10, ..Default::default() };
//! let mut sim = p.simulate();
//! sim.run(u64::MAX);
//! assert_eq!(sim.metrics().connections_accepted, 10);
//! assert_eq!(sim.metrics().wasted_wakeups, 70); // 8 woken per connection, 7 for nothing
//! p.mode = WakeMode::Exclusive;
//! let mut sim = p.simulate();
//! sim.run(u64::MAX);
//! assert_eq!(sim.metrics().wasted_wakeups, 0);
//! ```
#![warn(missing_docs)]

pub mod chart;
pub mod check;
pub mod cost;
pub mod histogram;
pub mod machine;
pub mod mechanism;
pub mod mechanisms;
pub mod metrics;
pub mod op;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod timeline;
pub mod trace;
pub mod waitqueue;
