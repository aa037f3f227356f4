//! The mechanisms, one folder each. A folder holds the mechanism's machines (step tables), its
//! parameters and `impl` [`crate::mechanism::Mechanism`] (`params.rs`), its invariants and its report;
//! its module docs state the machines' states and invariants and cite the real source. Only a
//! mechanism's own folder names it: generic code reaches it through the trait and the one registry
//! list in [`crate::scenario`]. One mechanism may build on another's public machines (the accept mutex
//! is ngx_shmtx's trylock).

pub mod accept;
pub mod gmp;
pub mod herd;
pub mod locks;
pub mod mysql;
pub mod pool;
