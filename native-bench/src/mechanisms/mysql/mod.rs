//! MySQL's connection handling (thread-per-connection with the thread cache, Percona's
//! pool-of-threads): `sim mysql` and `check mysql` on core's model
//! (`herdlab_core::mechanisms::mysql`). `bench mysql` (the loopback query server) is not written
//! yet: it refuses with a message that says so.

pub mod check;
pub mod cli;
pub mod sim;

pub use herdlab_core::mechanisms::mysql::Mysql;
