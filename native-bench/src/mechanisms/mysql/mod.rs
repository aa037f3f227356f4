//! MySQL's connection handling (thread-per-connection with the thread cache, Percona's
//! pool-of-threads): `sim mysql` and `check mysql` on core's model
//! (`herdlab_core::mechanisms::mysql`), and `bench mysql`: a loopback query server whose threads
//! run core's tables on real threads with real epoll ([`native`]), under a bounded load
//! generator ([`load`]), measured per row ([`bench`](mod@bench)).

#[cfg(target_os = "linux")]
pub mod bench;
pub mod check;
pub mod cli;
#[cfg(target_os = "linux")]
pub mod load;
#[cfg(target_os = "linux")]
pub mod native;
pub mod sim;

pub use herdlab_core::mechanisms::mysql::Mysql;
