//! What the last action did (a polite live region), and, before the first, how to start.

use yew::prelude::*;

/// The announcement; with `hint`, a hint while it is empty.
pub fn announce(text: &str, hint: bool) -> Html {
    html! {
        <>
            <p class="announce" data-testid="announce" aria-live="polite">{ text.to_string() }</p>
            if hint && text.is_empty() {
                <p class="announce-hint">{ "Press step (or →) to take one step; each step is described here." }</p>
            }
        </>
    }
}
