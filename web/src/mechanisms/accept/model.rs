//! The accept strategies' model: core's accept scenario as a [`SimParams`] of the generic
//! [`SimModel`].

use herdlab_core::accept::{AcceptParams, AcceptThread};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::Simulation;

use crate::live::sim_model::{SimModel, SimParams};

/// The accept strategies' simulation model.
pub type AcceptSimModel = SimModel<AcceptParams>;

impl SimParams for AcceptParams {
    type Thread = AcceptThread;
    fn start(&self) -> Simulation<AcceptThread> {
        self.simulate()
    }
    fn query(&self) -> String {
        Scenario::Accept(*self).to_query()
    }
}
