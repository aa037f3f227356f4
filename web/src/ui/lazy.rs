//! `<Lazy what=".." query=".." />`: a part of a page that lives in the lazily loaded bundle
//! (`src/bin/lazy.rs`, built by trunk as `lazy.js` + `lazy_bg.wasm`), so the main wasm does not
//! carry its code.
//!
//! The first `Lazy` on a page injects `<script src="./lazy.js">` (wasm-bindgen's no-modules
//! loader, which defines the global `wasm_bindgen`) and calls
//! `wasm_bindgen({module_or_path: "./lazy_bg.wasm"})`, once ([`LOADER`]): the promise is cached,
//! so later `Lazy`s reuse the loaded bundle. Then it calls the bundle's `mount(element, what, query)` on
//! its own empty `<div>` (the bundle renders a Yew app of its own there) and `unmount(handle)` when
//! it goes or its props change. Until then it says "loading…"; a failure (the bundle missing, the
//! network, an unknown `what`) is a message with a "try again" button, never a blank area.
//!
//! A mounted component may send a message back: a bubbling `CustomEvent` named
//! `crate::ui::shell::handoff::BACK_EVENT` whose `detail` is a string, given to `on_message`
//! (a simulation widget handed back by "Hide the timeline").
//!
//! Generic: it knows no component; `what` is looked up by the bundle (its `mount`).

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// Loads the bundle, once per page: injects `./lazy.js` (wasm-bindgen's no-modules loader: a
/// top-level `let wasm_bindgen`, a global binding that is no property of `window`; a function
/// made by the `Function` constructor runs in the global scope, so it sees it), then
/// `wasm_bindgen({module_or_path: "./lazy_bg.wasm"})`. The promise (of `wasm_bindgen`, whose
/// properties are the bundle's exports) is kept on `globalThis.__herdlabLazy`, and forgotten on a
/// failure so that "try again" loads anew (a script that failed is removed). Written in JS, not
/// with web-sys: the main wasm pays a string instead of the bindings.
const LOADER: &str = r#"
const g = globalThis;
if (!g.__herdlabLazy) {
  g.__herdlabLazy = new Promise((ok, bad) => {
    if (typeof wasm_bindgen === 'function') return ok();
    const s = document.createElement('script');
    s.src = './lazy.js';
    s.onload = ok;
    s.onerror = () => { s.remove(); bad(new Error('./lazy.js did not load')); };
    document.head.appendChild(s);
  })
    .then(() => wasm_bindgen({ module_or_path: './lazy_bg.wasm' }))
    .then(() => wasm_bindgen)
    .catch((e) => { delete g.__herdlabLazy; throw e; });
}
return g.__herdlabLazy;
"#;

fn js_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The bundle's exports (the loaded `wasm_bindgen`), or why it could not be loaded.
async fn load() -> Result<JsValue, String> {
    let p: Promise = Function::new_no_args(LOADER)
        .call0(&JsValue::NULL)
        .map_err(|e| js_text(&e))?
        .dyn_into()
        .map_err(|e| js_text(&e))?;
    JsFuture::from(p).await.map_err(|e| js_text(&e))
}

/// Call the export `name` of the loaded bundle with `args`.
fn call(bindgen: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let f: Function = Reflect::get(bindgen, &name.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| format!("the bundle has no {name}()"))?;
    let args: js_sys::Array = args.iter().collect();
    f.apply(&JsValue::NULL, &args).map_err(|e| js_text(&e))
}

/// Props of [`Lazy`].
#[derive(Properties, PartialEq, Clone)]
pub struct LazyProps {
    /// Which component of the bundle (`results`, `trace`, `sim`); the bundle's `mount` lists them.
    pub what: AttrValue,
    /// Its query (the text after `?` in the address), as the component reads it.
    #[prop_or_default]
    pub query: AttrValue,
    /// Told each message the mounted component sends back (see the module docs).
    #[prop_or_default]
    pub on_message: Option<Callback<String>>,
}

/// Messages of [`Lazy`].
pub enum Msg {
    /// The bundle loaded (its exports) or did not (why).
    Loaded(Result<JsValue, String>),
    /// The bundle could not show `what` (why).
    Failed(String),
    /// "try again".
    Retry,
}

enum State {
    Loading,
    Ready(JsValue),
    Failed(String),
}

/// A part of a page rendered by the lazily loaded bundle.
pub struct Lazy {
    host: NodeRef,
    state: State,
    /// The bundle's handle of what is mounted in `host`.
    mounted: Option<JsValue>,
    /// Listens on `host` for the component's messages.
    listener: Option<gloo_events::EventListener>,
}

impl Lazy {
    fn start(ctx: &Context<Self>) {
        let link = ctx.link().clone();
        wasm_bindgen_futures::spawn_local(async move {
            link.send_message(Msg::Loaded(load().await));
        });
    }

    fn unmount(&mut self) {
        if let (Some(h), State::Ready(b)) = (self.mounted.take(), &self.state) {
            let _ = call(b, "unmount", &[h]);
        }
    }
}

impl Component for Lazy {
    type Message = Msg;
    type Properties = LazyProps;

    fn create(ctx: &Context<Self>) -> Self {
        Self::start(ctx);
        Lazy {
            host: NodeRef::default(),
            state: State::Loading,
            mounted: None,
            listener: None,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Loaded(Ok(b)) => self.state = State::Ready(b),
            Msg::Loaded(Err(e)) => {
                self.state = State::Failed(format!(
                    "This part of the page is loaded on demand, and it could not be loaded: {e}. \
                     Check the connection (or that the site's lazy.js and lazy_bg.wasm are \
                     served) and try again."
                ))
            }
            Msg::Failed(m) => self.state = State::Failed(m),
            Msg::Retry => {
                self.state = State::Loading;
                Self::start(ctx);
            }
        }
        true
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &LazyProps) -> bool {
        let p = ctx.props();
        if p.what != old.what || p.query != old.query {
            self.unmount();
        }
        self.listener = None;
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        let State::Ready(b) = &self.state else {
            return;
        };
        let Some(el) = self.host.cast::<web_sys::Element>() else {
            return;
        };
        let p = ctx.props();
        if let (None, Some(cb)) = (&self.listener, &p.on_message) {
            let cb = cb.clone();
            self.listener = Some(gloo_events::EventListener::new(
                &el,
                crate::ui::shell::handoff::BACK_EVENT,
                move |e| {
                    let detail = Reflect::get(e, &"detail".into())
                        .ok()
                        .and_then(|d| d.as_string());
                    // the bundle sends it from a task of its own, so this may unmount it
                    if let Some(d) = detail {
                        cb.emit(d);
                    }
                },
            ));
        }
        if self.mounted.is_some() {
            return;
        }
        match call(
            b,
            "mount",
            &[el.into(), p.what.as_str().into(), p.query.as_str().into()],
        ) {
            Ok(h) => self.mounted = Some(h),
            Err(e) => ctx.link().send_message(Msg::Failed(format!(
                "This part of the page ('{}') could not be shown: {e}.",
                p.what
            ))),
        }
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        self.unmount();
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let retry = ctx.link().callback(|_: MouseEvent| Msg::Retry);
        html! {
            <div class="lazy" data-testid="lazy" data-what={p.what.clone()}>
                {
                    match &self.state {
                        State::Loading => html! {
                            <p class="lazy-loading" role="status" data-testid="lazy-loading">{ "loading…" }</p>
                        },
                        State::Failed(m) => html! {
                            <div class="lazy-error" role="alert" data-testid="lazy-error">
                                <p>{ m.clone() }</p>
                                <button onclick={retry} data-testid="lazy-retry">{ "try again" }</button>
                            </div>
                        },
                        State::Ready(_) => html! {},
                    }
                }
                <div class="lazy-host" ref={self.host.clone()}></div>
            </div>
        }
    }
}
