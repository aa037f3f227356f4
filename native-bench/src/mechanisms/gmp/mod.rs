//! Go's G/M/P scheduler (`proc.go`): `sim gmp`, `check gmp`, and `bench gmp` (core's `Sched`
//! table on real threads, the Go 1.0 single-queue variant, and tokio's multi-thread runtime on
//! the same goroutine shapes).

pub mod bench;
pub mod blocking;
pub mod check;
pub mod cli;
pub mod layout;
pub mod locked;
pub mod native;
pub mod netpoll;
pub mod sim;
pub mod task;

pub use herdlab_core::mechanisms::gmp::Gmp;
