//! Where a widget stands in the counterexample it replays ([`replay_progress`]).

use yew::prelude::*;

/// The line `replay-progress`: step `position` of `total`, whether the history still follows the
/// counterexample (`data-on-script`, where the widget tells), and `text` saying so.
pub fn replay_progress(position: u64, total: usize, on_script: Option<bool>, text: String) -> Html {
    html! {
        <p class="replay-progress" data-testid="replay-progress"
            data-position={position.to_string()} data-total={total.to_string()}
            data-on-script={on_script.map(|on| on.to_string())}>{ text }</p>
    }
}
