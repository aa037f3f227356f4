//! The scheduler's model: the generic [`SimModel`] over core's G/M/P simulation.

use herdlab_core::mechanisms::gmp::Gmp;

use crate::live::sim_model::SimModel;

/// The G/M/P simulation model.
pub type GmpSimModel = SimModel<Gmp>;
