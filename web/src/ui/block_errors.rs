//! A block's problems: its own (nothing when it has none; `what` names the block, "simulation"),
//! and what its widget could not replay.

use yew::prelude::*;

/// The problems of a block, or nothing.
pub fn block_errors(what: &str, errors: &[String]) -> Html {
    if errors.is_empty() {
        return Html::default();
    }
    html! {
        <div class="block-error" role="alert" data-testid="block-error">
            <p>{ format!("This {what} block has problems; it runs with defaults for them:") }</p>
            <ul>{ for errors.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
        </div>
    }
}

/// What a widget could not replay (nothing when it replayed all).
pub fn replay_error(error: Option<&str>) -> Html {
    match error {
        Some(e) => html! {
            <p class="block-error" role="alert" data-testid="replay-error">{ e.to_string() }</p>
        },
        None => Html::default(),
    }
}
