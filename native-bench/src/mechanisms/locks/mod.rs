//! The locks (nginx's `ngx_shmtx` and its rivals): `sim locks`, `check <lock>`, `bench locks`,
//! and core's lock machines on real threads.

pub mod bench;
pub mod check;
pub mod cli;
pub mod native;
pub mod sim;

pub use herdlab_core::mechanisms::locks::Locks;
