//! The model checker: every interleaving of a mechanism's threads, with a visited-state set.
//!
//! Two layers, kept apart (as loom keeps its engine apart from the API it checks):
//! - [`search`]: the engine. It knows nothing about locks or kernels: it explores any [`Model`]
//!   depth-first with a set of visited state hashes, an optional preemption bound and a state limit,
//!   checks the invariants given to it on every state, and, once a violation is known, searches
//!   breadth-first for the shortest schedule that reaches one.
//! - [`world`]: the checking platform. It executes a mechanism's [`crate::machine::Machine`]s one
//!   primitive operation per step, atomically and without time (no costs, no CPUs: every runnable
//!   thread may go next), with the same kernel semantics as the simulated platform for the operations
//!   it supports (memory words, futex wait/wake, counting semaphores, pause, yield, work). A schedule it
//!   finds is a list of thread indices that [`replay`] runs in the simulator step for step (a checker
//!   step folds a thread's `pause`s into its next visible operation, and a failed spin probe's
//!   remaining probes into that probe: [`SpinSteps`], with the argument that this loses nothing).
//!
//! - [`sim_model`]: the simulator itself as a model, for mechanisms whose kernel side the checking
//!   platform does not model (the herd's accept path); states are compared without their time.
//!
//! Mechanisms supply the invariants (each mechanism's `invariants` module): this module knows them
//! only as the closures [`explore`] takes.

pub mod search;
pub mod sim_model;
pub mod world;

pub use search::{explore, CheckConfig, CheckReport, Counterexample, Model, Violation};
pub use sim_model::SimModel;
pub use world::{replay, replay_with, CheckWorld, SpinSteps};
