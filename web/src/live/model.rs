//! What a live widget needs of its model ([`LiveModel`]): the generic
//! [`crate::live::sim_model::SimModel`] implements it here, a mechanism's own model in its folder,
//! so one controller ([`crate::live::Live`], and [`crate::live::pair::Pair`] for several side by
//! side) drives any.

use herdlab_core::mechanism::Mechanism;

use crate::live::mechanism::SiteMechanism;
use crate::live::playback::{Playback, Player};
use crate::live::sim_model::{Action, SimModel, Simulated};

/// A playable model with parameters, an announcement and a link.
pub trait LiveModel: Player {
    /// Its mechanism (the form edits its parameters).
    type Mech: SiteMechanism;
    /// The parameters now.
    fn params(&self) -> &<Self::Mech as Mechanism>::Params;
    /// The play state.
    fn play(&self) -> &Playback;
    /// Apply a button's action; whether anything changed.
    fn apply(&mut self, action: Action) -> bool;
    /// The announcement.
    fn announce(&self) -> &str;
    /// The announcement, to set.
    fn announce_mut(&mut self) -> &mut String;
    /// The page query that reopens this state.
    fn link_query(&self) -> String;
    /// Start again at step 0 with these parameters.
    fn rebuild(&mut self, params: <Self::Mech as Mechanism>::Params);
}

impl<M: Simulated> LiveModel for SimModel<M> {
    type Mech = M;
    fn params(&self) -> &M::Params {
        SimModel::params(self)
    }
    fn play(&self) -> &Playback {
        &self.play
    }
    fn apply(&mut self, action: Action) -> bool {
        SimModel::apply(self, action)
    }
    fn announce(&self) -> &str {
        &self.announce
    }
    fn announce_mut(&mut self) -> &mut String {
        &mut self.announce
    }
    fn link_query(&self) -> String {
        SimModel::link_query(self)
    }
    fn rebuild(&mut self, params: M::Params) {
        SimModel::rebuild(self, params)
    }
}
