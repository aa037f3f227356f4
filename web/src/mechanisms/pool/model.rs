//! The pool's model: the generic [`SimModel`] over core's thread pool.

use herdlab_core::mechanisms::pool::Pool;

use crate::live::sim_model::SimModel;

/// The pool's simulation model.
pub type PoolSimModel = SimModel<Pool>;
