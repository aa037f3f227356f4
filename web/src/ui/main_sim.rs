//! The page's main simulation: a widget whose id is not `main` is wrapped so the page (and the
//! browser tests) find it as `sim-main`.

use yew::prelude::*;

/// `widget`, wrapped when it is the main simulation but not named `main`.
pub fn main_wrap(main: bool, id: &str, widget: Html) -> Html {
    if main && id != "main" {
        html! { <div class="main-sim" data-testid="sim-main">{ widget }</div> }
    } else {
        widget
    }
}
