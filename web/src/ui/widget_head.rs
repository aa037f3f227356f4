//! A widget's header: the kicker and caption, and (when the page's keys drive it) the keys hint.

use yew::prelude::*;

/// The header; `caption_id` labels the widget.
pub fn widget_head(caption_id: String, kicker: &str, caption: String, keyboard: bool) -> Html {
    html! {
        <header class="widget-head">
            <p class="caption" id={caption_id}>
                <span class="kicker">{ kicker.to_string() }</span>
                { caption }
            </p>
            if keyboard {
                <p class="keys-hint">{ "Keys (here unless you are working in another simulation): space play · → step · ← back · + / − speed · ? help" }</p>
            }
        </header>
    }
}
