//! The action a page keyboard shortcut asks a widget for.

use crate::dom::Shortcut;
use crate::live::sim_model::Action;

/// The widget action of a shortcut (`None`: the page's, not a widget's).
pub fn key_action(s: Shortcut) -> Option<Action> {
    match s {
        Shortcut::PlayPause => Some(Action::TogglePlay),
        Shortcut::Step => Some(Action::Step),
        Shortcut::Back => Some(Action::Back),
        Shortcut::Faster => Some(Action::Faster),
        Shortcut::Slower => Some(Action::Slower),
        Shortcut::Help | Shortcut::Close => None,
    }
}
