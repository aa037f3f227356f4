//! What a live widget needs of its model ([`LiveModel`]): both [`crate::model::SimModel`] and
//! [`crate::lock_model::LockModel`] implement it, so one controller ([`crate::live::Live`], and
//! [`crate::pair::Pair`] for two side by side) drives either.

use crate::form::FormParams;
use crate::lock_model::LockModel;
use crate::model::{Action, SimModel};
use crate::playback::{Playback, Player};

/// A playable model with parameters, an announcement and a link.
pub trait LiveModel: Player {
    /// Its parameters (the form edits them).
    type Params: FormParams;
    /// The parameters now.
    fn params(&self) -> &Self::Params;
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
    fn rebuild(&mut self, params: Self::Params);
}

macro_rules! live_model {
    ($model:ty, $params:ty) => {
        impl LiveModel for $model {
            type Params = $params;
            fn params(&self) -> &$params {
                <$model>::params(self)
            }
            fn play(&self) -> &Playback {
                &self.play
            }
            fn apply(&mut self, action: Action) -> bool {
                <$model>::apply(self, action)
            }
            fn announce(&self) -> &str {
                &self.announce
            }
            fn announce_mut(&mut self) -> &mut String {
                &mut self.announce
            }
            fn link_query(&self) -> String {
                <$model>::link_query(self)
            }
            fn rebuild(&mut self, params: $params) {
                <$model>::rebuild(self, params)
            }
        }
    };
}

live_model!(SimModel, herdlab_core::herd::HerdParams);
live_model!(
    SimModel<herdlab_core::accept::AcceptParams>,
    herdlab_core::accept::AcceptParams
);
live_model!(LockModel, herdlab_core::locks::LockParams);
