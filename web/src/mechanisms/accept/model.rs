//! The accept strategies' model: the generic [`SimModel`] over core's accept strategies.

use herdlab_core::mechanisms::accept::Accept;

use crate::live::sim_model::SimModel;

/// The accept strategies' simulation model.
pub type AcceptSimModel = SimModel<Accept>;
