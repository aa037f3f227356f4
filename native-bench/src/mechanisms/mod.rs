//! The mechanisms of the native command, one folder each: `herd/`, `locks/`, `accept/`.

pub mod accept;
pub mod herd;
pub mod locks;

/// The longest a whole native benchmark may take.
pub const BENCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30 * 60);
