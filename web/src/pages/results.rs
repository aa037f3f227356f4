//! `#/results`: benchmark results files (`herdlab bench <mechanism> … --json`) opened and drawn as
//! charts. The heading is here; the page's body (file picker, charts, tables) is
//! `results_view::ResultsView` in the lazily loaded bundle ([`crate::ui::lazy::Lazy`]), so the
//! main wasm carries none of it.

use yew::prelude::*;

use crate::dom;
use crate::ui::lazy::Lazy;

/// The page; `query`: the address's query, handed to the bundle's view.
pub fn results_page(query: &str) -> Html {
    dom::set_title("Results · herdlab");
    html! {
        <article class="results-page" data-testid="results-page">
            <h1>{ "Your benchmark results as charts" }</h1>
            <Lazy what="results" query={AttrValue::from(query.to_string())} />
        </article>
    }
}
