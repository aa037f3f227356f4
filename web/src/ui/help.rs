//! The keyboard help overlay (`?` opens it, Escape closes it).

use yew::prelude::*;

/// Props of [`HelpOverlay`].
#[derive(Properties, PartialEq)]
pub struct HelpProps {
    /// Close it.
    pub on_close: Callback<()>,
}

/// The overlay.
#[function_component(HelpOverlay)]
pub fn help(p: &HelpProps) -> Html {
    let close_ref = use_node_ref();
    {
        let r = close_ref.clone();
        use_effect_with((), move |_| {
            if let Some(b) = r.cast::<web_sys::HtmlElement>() {
                let _ = b.focus();
            }
        });
    }
    let close = {
        let cb = p.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let backdrop = {
        let cb = p.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <div class="overlay" data-testid="help-overlay" role="dialog" aria-modal="true" aria-labelledby="help-title">
            <div class="overlay-backdrop" onclick={backdrop}></div>
            <div class="overlay-box">
                <h2 id="help-title">{ "Keyboard" }</h2>
                <p>{ "The keys drive the simulation you are working in (the one holding the keyboard focus, for example after you press one of its buttons); otherwise they drive the lesson's playground. They do nothing while you type in a field." }</p>
                <dl class="keys">
                    <dt><kbd>{ "Space" }</kbd></dt><dd>{ "play or pause" }</dd>
                    <dt><kbd>{ "→" }</kbd></dt><dd>{ "one step" }</dd>
                    <dt><kbd>{ "←" }</kbd></dt><dd>{ "one step back" }</dd>
                    <dt><kbd>{ "+" }</kbd>{ " / " }<kbd>{ "−" }</kbd></dt><dd>{ "faster / slower" }</dd>
                    <dt><kbd>{ "?" }</kbd></dt><dd>{ "this help" }</dd>
                    <dt><kbd>{ "Esc" }</kbd></dt><dd>{ "close it" }</dd>
                </dl>
                <p>{ "Every button also works with Tab and Enter. Each step is announced in words for screen readers." }</p>
                <button ref={close_ref} onclick={close} data-testid="help-close">{ "close" }</button>
            </div>
        </div>
    }
}
