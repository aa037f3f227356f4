//! herdlab's lazily loaded bundle: the site's components that the main wasm does not carry (its
//! size budget, README "Size budget"), loaded by a page only when it shows one.
//!
//! Built by trunk as another binary of herdlab-web with the `lazy` feature (index.html:
//! `<link data-trunk rel="rust" data-bin="lazy" data-type="worker" data-bindgen-target="no-modules"
//! data-cargo-features="lazy" …>`: the worker type only makes trunk write `lazy.js` and
//! `lazy_bg.wasm` unhashed and inject nothing; it runs on the page's main thread). The main app's
//! `ui::lazy::Lazy` injects `lazy.js` (which defines the global `wasm_bindgen`), initialises it
//! once, and calls [`mount`] on an empty element of its own; this bundle renders a Yew app of its
//! own there until [`unmount`].
//!
//! A component becomes lazy by one arm in [`mount`]'s match (its module under
//! `#[cfg(feature = "lazy")]` in its folder, so the main bin never compiles it).
//!
//! This bin compiles the crate's module tree (below) so that any component can be mounted; most
//! of it is unused here, hence `dead_code` is allowed in this bin only.
#![allow(dead_code)]

#[path = "../app.rs"]
mod app;
#[path = "../check_proto.rs"]
mod check_proto;
#[path = "../dom.rs"]
mod dom;
#[path = "../lesson/mod.rs"]
mod lesson;
#[path = "../live/mod.rs"]
mod live;
#[path = "../mechanisms/mod.rs"]
mod mechanisms;
#[path = "../pages/mod.rs"]
mod pages;
#[path = "../route.rs"]
mod route;
#[path = "../ui/mod.rs"]
mod ui;

use std::cell::RefCell;
use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;
use yew::prelude::*;

thread_local! {
    /// What is mounted: handle → how to unmount it.
    static MOUNTED: RefCell<BTreeMap<u32, Box<dyn FnOnce()>>> = const { RefCell::new(BTreeMap::new()) };
    static NEXT: RefCell<u32> = const { RefCell::new(1) };
}

/// The main app's Yew and this bundle's each number their roots from 1, and each brands its
/// elements with that number: an event in this bundle's elements would look like the main app's
/// to the main app (its listener on `<body>` runs first) if their numbers met. So this bundle
/// first takes (and drops) this many root numbers: the main app has one root and no portals.
const ROOTS_OF_THE_MAIN_APP: usize = 16;

#[function_component]
fn Nothing() -> Html {
    html! {}
}

fn skip_main_roots() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for _ in 0..ROOTS_OF_THE_MAIN_APP {
        if let Ok(el) = doc.create_element("div") {
            yew::Renderer::<Nothing>::with_root(el).render().destroy();
        }
    }
}

/// Render component `C` with `props` into `host`; the handle to unmount it.
fn keep<C: BaseComponent>(host: web_sys::Element, props: C::Properties) -> u32 {
    let app = yew::Renderer::<C>::with_root_and_props(host, props).render();
    let id = NEXT.with(|n| {
        let mut n = n.borrow_mut();
        *n += 1;
        *n - 1
    });
    MOUNTED.with(|m| m.borrow_mut().insert(id, Box::new(move || app.destroy())));
    id
}

/// Mount the component `what` (with the address's `query`) into `host` (an empty element the
/// page owns); returns the handle for [`unmount`]. An unknown `what` is an error that lists the
/// components this bundle has.
#[wasm_bindgen]
pub fn mount(host: web_sys::Element, what: &str, query: &str) -> Result<u32, JsError> {
    let query = AttrValue::from(query.to_string());
    match what {
        #[cfg(feature = "lazy")]
        "results" => Ok(keep::<pages::results_view::ResultsView>(
            host,
            pages::results_view::ResultsProps { query },
        )),
        // a lesson's block of a lazy-only mechanism (`pages::lazy_widget`)
        #[cfg(feature = "lazy")]
        "sim" | "compare" => Ok(keep::<pages::lazy_widget::LazyWidget>(
            host,
            pages::lazy_widget::LazyWidgetProps {
                compare: what == "compare",
                query,
            },
        )),
        // a lesson's check block of a lazy-only mechanism, or the `#/check` page's check of one
        // (`pages::lazy_widget`)
        #[cfg(feature = "lazy")]
        "check" | "check-page" => Ok(keep::<pages::lazy_widget::LazyCheck>(
            host,
            pages::lazy_widget::LazyCheckProps {
                query,
                page: what == "check-page",
            },
        )),
        // a widget handed over by "Show the timeline" (`ui::shell::handoff`)
        #[cfg(feature = "lazy")]
        "timeline" => Ok(keep::<pages::sim_handoff::HandedSim>(
            host,
            pages::sim_handoff::HandedProps { query },
        )),
        #[cfg(feature = "lazy")]
        "trace" => Ok(keep::<pages::trace::TracePage>(host, ())),
        other => {
            let _ = (host, query);
            Err(JsError::new(&format!(
                "the lazy bundle has no component '{other}'; it has: {}",
                COMPONENTS.join(", ")
            )))
        }
    }
}

/// The components [`mount`] knows.
const COMPONENTS: &[&str] = &[
    #[cfg(feature = "lazy")]
    "results",
    #[cfg(feature = "lazy")]
    "sim",
    #[cfg(feature = "lazy")]
    "compare",
    #[cfg(feature = "lazy")]
    "check",
    #[cfg(feature = "lazy")]
    "check-page",
    #[cfg(feature = "lazy")]
    "timeline",
    #[cfg(feature = "lazy")]
    "trace",
];

/// Unmount what [`mount`] mounted under `handle` (an unknown handle is ignored).
#[wasm_bindgen]
pub fn unmount(handle: u32) {
    if let Some(f) = MOUNTED.with(|m| m.borrow_mut().remove(&handle)) {
        f();
    }
}

fn main() {
    skip_main_roots();
}
