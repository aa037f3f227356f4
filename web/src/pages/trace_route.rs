//! `#/trace`: a native run's trace file beside its simulation. The page itself
//! (`crate::pages::trace`, with the timeline) is in the lazily loaded bundle
//! ([`crate::ui::lazy::Lazy`]), so the main wasm carries none of it.

use yew::prelude::*;

use crate::dom;
use crate::ui::lazy::Lazy;

/// The route's body.
pub fn trace_page() -> Html {
    dom::set_title("Your run beside the simulation · herdlab");
    html! { <Lazy what="trace" /> }
}
