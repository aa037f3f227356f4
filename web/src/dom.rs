//! The few browser calls the app makes, each one failing quietly (no panics on a missing API).

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlElement, KeyboardEvent};

/// The document's `location.hash`.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// `location.origin + location.pathname`.
pub fn page_base() -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else {
        return String::new();
    };
    format!(
        "{}{}",
        loc.origin().unwrap_or_default(),
        loc.pathname().unwrap_or_default()
    )
}

/// Replace the address without a history entry or a `hashchange` event.
pub fn replace_url(url: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// Try to put `text` on the clipboard (errors, refusals and a missing API are ignored).
pub fn copy_to_clipboard(text: &str) {
    let Some(nav) = web_sys::window().map(|w| w.navigator()) else {
        return;
    };
    let has = js_sys::Reflect::get(&nav, &JsValue::from_str("clipboard"))
        .map(|c| !c.is_undefined() && !c.is_null())
        .unwrap_or(false);
    if !has {
        return;
    }
    let promise = nav.clipboard().write_text(text);
    wasm_bindgen_futures::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    });
}

/// Whether the learner asked for reduced motion.
pub fn prefers_reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|m| m.matches())
}

/// `performance.now()` in milliseconds.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// GET `url` (relative to the page) and return its body as text; an error says why not (the
/// network's message, or the HTTP status).
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("there is no window")?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(js_message)?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| "fetch did not return a response".to_string())?;
    if !response.ok() {
        let status = response.status_text();
        return Err(format!("HTTP {} {status}", response.status())
            .trim_end()
            .to_string());
    }
    let text = JsFuture::from(response.text().map_err(js_message)?)
        .await
        .map_err(js_message)?;
    text.as_string()
        .ok_or_else(|| "the response is not text".to_string())
}

/// The message of a JavaScript error (or its string form).
fn js_message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".to_string())
}

/// Set the document's title.
pub fn set_title(title: &str) {
    if let Some(d) = web_sys::window().and_then(|w| w.document()) {
        d.set_title(title);
    }
}

/// Scroll to the top of the page.
pub fn scroll_top() {
    if let Some(w) = web_sys::window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// A keyboard shortcut (docs/site-contract.md, "Keyboard").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortcut {
    /// Space.
    PlayPause,
    /// →.
    Step,
    /// ←.
    Back,
    /// +.
    Faster,
    /// −.
    Slower,
    /// ?.
    Help,
    /// Escape.
    Close,
}

/// The shortcut this key press means, or `None` when it is not one or focus is in a field (input,
/// select, textarea, contenteditable). Space on a button or link is left to the button.
pub fn shortcut(e: &KeyboardEvent) -> Option<Shortcut> {
    if e.ctrl_key() || e.meta_key() || e.alt_key() {
        return None;
    }
    let target = e.target().and_then(|t| t.dyn_into::<HtmlElement>().ok());
    let tag = target
        .as_ref()
        .map(|t| t.tag_name().to_ascii_lowercase())
        .unwrap_or_default();
    let key = e.key();
    if key == "Escape" {
        return Some(Shortcut::Close);
    }
    if matches!(tag.as_str(), "input" | "select" | "textarea")
        || target.as_ref().is_some_and(|t| t.is_content_editable())
    {
        return None;
    }
    let on_control = matches!(tag.as_str(), "button" | "a" | "summary");
    match key.as_str() {
        " " | "Spacebar" if !on_control => Some(Shortcut::PlayPause),
        "ArrowRight" => Some(Shortcut::Step),
        "ArrowLeft" => Some(Shortcut::Back),
        "+" | "=" => Some(Shortcut::Faster),
        "-" | "_" => Some(Shortcut::Slower),
        "?" => Some(Shortcut::Help),
        _ => None,
    }
}

/// Install the keydown listener of a widget whose root is `root`. A shortcut goes to the widget
/// that holds the keyboard focus; with the focus outside every widget it goes to the page's default
/// widget (`default`: the main simulation, or the first one).
pub fn widget_keys(
    root: yew::NodeRef,
    default: bool,
    on_key: impl Fn(Shortcut) + 'static,
) -> Option<gloo_events::EventListener> {
    let doc = web_sys::window()?.document()?;
    let d2 = doc.clone();
    Some(gloo_events::EventListener::new_with_options(
        &doc,
        "keydown",
        gloo_events::EventListenerOptions::enable_prevent_default(),
        move |e| {
            let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                return;
            };
            let Some(s) = shortcut(e) else { return };
            if matches!(s, Shortcut::Help | Shortcut::Close) {
                return;
            }
            let owner = d2
                .active_element()
                .and_then(|a| a.closest("[data-widget]").ok().flatten());
            let mine = match (owner, root.cast::<web_sys::Element>()) {
                (Some(o), Some(r)) => o == r,
                (Some(_), None) => false,
                (None, _) => default,
            };
            if mine {
                e.prevent_default();
                on_key(s);
            }
        },
    ))
}

/// On the glossary page: scroll the entry of term `id` into view, focus it and mark it
/// (`data-current`; hash routing leaves no fragment for `:target`).
pub fn show_term(id: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    while let Ok(Some(el)) = doc.query_selector(".glossary-entry[data-current]") {
        let _ = el.remove_attribute("data-current");
    }
    if let Some(el) = doc.get_element_by_id(id) {
        let _ = el.set_attribute("data-current", "");
        el.scroll_into_view();
        if let Ok(h) = el.dyn_into::<HtmlElement>() {
            let _ = h.focus();
        }
    }
}
