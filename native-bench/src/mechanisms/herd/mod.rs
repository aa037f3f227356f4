//! The thundering herd: `sim herd`, `check herd`, `bench herd`, and core's herd machines on real
//! threads.

pub mod bench;
pub mod check;
pub mod cli;
pub mod native;
pub mod sim;

pub use herdlab_core::mechanisms::herd::Herd;
