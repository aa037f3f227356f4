//! nginx's thread pool (`ngx_thread_pool`): `sim pool`, `check pool`, `bench pool`, and core's
//! pool tables (event loop, pool threads) on real threads beside threadpool, rayon and a
//! crossbeam-channel pool.

pub mod bench;
pub mod check;
pub mod cli;
pub mod native;
pub mod sim;

pub use herdlab_core::mechanisms::pool::Pool;
