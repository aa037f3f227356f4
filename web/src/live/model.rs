//! What a live widget needs of its model ([`LiveModel`]): an object-safe trait, so that one
//! controller ([`crate::live::Live`], and [`crate::live::pair::Pair`] for several side by side)
//! and one shell drive any mechanism's model through `Box<dyn LiveModel>`, compiled once for all
//! of them. The generic [`crate::live::sim_model::SimModel`] implements it here, a mechanism's own
//! model in its folder.

use std::any::Any;

use herdlab_core::sim::Actor;

use crate::live::form::{Field, FormState};
use crate::live::playback::{Playback, Player};
use crate::live::sim_model::{Action, SimModel, SimRun, Simulated};

/// A playable model with parameters (edited through the form), an announcement and a link.
pub trait LiveModel: 'static {
    /// The play state.
    fn play(&self) -> &Playback;
    /// Apply a button's action; whether anything changed.
    fn apply(&mut self, action: Action) -> bool;
    /// Whether a default step can be taken.
    fn can_step(&self) -> bool;
    /// Steps taken.
    fn position(&self) -> u64;
    /// One animation frame, `dt_ms` after the last (see [`Player::advance`]).
    fn advance_frame(&mut self, dt_ms: f64, out_of_time: &mut dyn FnMut() -> bool) -> bool;
    /// The announcement.
    fn announce(&self) -> &str;
    /// The announcement, to set.
    fn announce_mut(&mut self) -> &mut String;
    /// The page query that reopens this state.
    fn link_query(&self) -> String;
    /// Its mechanism's form fields ([`crate::live::mechanism::SiteMechanism::FIELDS`]).
    fn fields(&self) -> &'static [Field];
    /// The form showing the parameters now.
    fn form(&self) -> FormState;
    /// The learner set `key` to `value` in `form` ([`FormState::edit`]): when that makes a valid
    /// scenario other than the one now, start again at step 0 with it and return true.
    fn edit(&mut self, form: &mut FormState, key: &str, value: &str) -> bool;
    /// The model itself, for its mechanism's view to downcast.
    fn as_any(&self) -> &dyn Any;
    /// Follow `script` (one actor a step) from now on, as a replay follows its counterexample:
    /// a handed-over state's `follow=picks`. A model that cannot ignores it (the state is still
    /// reached, through its picks).
    fn follow(&mut self, script: Vec<Actor>) {
        let _ = script;
    }
    /// Whether it has a timeline (what [`LiveModel::timeline_source`] gives in a build with the
    /// timeline): a build without it shows "Show the timeline" where this is true, and hands the
    /// widget to the lazily loaded bundle when it is pressed (`crate::ui::shell::sim_shell`).
    fn has_timeline(&self) -> bool {
        false
    }
    /// What the timeline replays (the simulation at step 0 and the steps taken by hand), or
    /// `None` for a model that has no timeline.
    #[cfg(feature = "timeline")]
    fn timeline_source(&self) -> Option<TimelineSource<'_>> {
        None
    }
}

/// What the timeline replays (defined beside the generic model, which gives it).
#[cfg(feature = "timeline")]
pub use crate::live::sim_model::TimelineSource;

/// The model a mechanism's view was given: `m` as its concrete type. The shell hands every view
/// the model its own kind opened, so anything else is a bug.
pub fn model_as<T: 'static>(m: &dyn LiveModel) -> &T {
    match m.as_any().downcast_ref::<T>() {
        Some(t) => t,
        None => panic!(
            "a widget was handed a model other than the {} its kind opened",
            std::any::type_name::<T>()
        ),
    }
}

impl<M: Simulated> LiveModel for SimModel<M> {
    fn play(&self) -> &Playback {
        &self.play
    }
    fn apply(&mut self, action: Action) -> bool {
        SimRun::apply(self, action)
    }
    fn can_step(&self) -> bool {
        SimRun::can_step(self)
    }
    fn position(&self) -> u64 {
        SimRun::position(self)
    }
    fn advance_frame(&mut self, dt_ms: f64, out_of_time: &mut dyn FnMut() -> bool) -> bool {
        Player::advance(&mut **self, dt_ms, out_of_time)
    }
    fn announce(&self) -> &str {
        &self.announce
    }
    fn announce_mut(&mut self) -> &mut String {
        &mut self.announce
    }
    fn link_query(&self) -> String {
        SimRun::link_query(self)
    }
    fn fields(&self) -> &'static [Field] {
        M::FIELDS
    }
    fn form(&self) -> FormState {
        FormState::of::<M>(self.params())
    }
    fn edit(&mut self, form: &mut FormState, key: &str, value: &str) -> bool {
        match form.edit::<M>(key, value, self.params()) {
            Some(p) => {
                SimModel::rebuild(self, p);
                true
            }
            None => false,
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn follow(&mut self, script: Vec<Actor>) {
        SimRun::follow(self, script)
    }
    fn has_timeline(&self) -> bool {
        true
    }
    #[cfg(feature = "timeline")]
    fn timeline_source(&self) -> Option<TimelineSource<'_>> {
        Some(SimRun::timeline_source(self))
    }
}
