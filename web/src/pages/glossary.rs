//! The glossary page (`#/glossary`, `#/glossary?term=<id>`): every term the lessons use, each with
//! its definition and an anchor (its id) that the lessons' term tooltips link to. Like a lesson, its
//! text is not in the wasm: `cargo xtask lessons` writes it as `lessons/glossary.txt` (see
//! `herdlab_lessons::glossary`), which the page fetches.

use yew::prelude::*;

use crate::dom;
use crate::lesson::catalog::{decode, Block};

/// The slug of the glossary's file (as `herdlab_lessons::glossary::SLUG`).
const SLUG: &str = "glossary";

/// Props of [`GlossaryPage`].
#[derive(Properties, PartialEq)]
pub struct GlossaryProps {
    /// The term to show first (its id), or empty.
    #[prop_or_default]
    pub term: AttrValue,
}

/// The HTML of the glossary file `text`.
fn html_of(text: &str) -> Result<String, String> {
    let blocks = decode(SLUG, text)?;
    Ok(blocks
        .iter()
        .filter_map(|b| match b {
            Block::Html(h) => Some(h.to_string()),
            _ => None,
        })
        .collect())
}

/// The glossary page.
#[function_component(GlossaryPage)]
pub fn glossary_page(p: &GlossaryProps) -> Html {
    let text = use_state(|| None::<Result<AttrValue, String>>);
    {
        let text = text.clone();
        use_effect_with((), move |_| {
            dom::set_title("Glossary · herdlab");
            wasm_bindgen_futures::spawn_local(async move {
                let file = format!("lessons/{SLUG}.txt");
                let got = match dom::fetch_text(&file).await {
                    Ok(t) => html_of(&t)
                        .map(AttrValue::from)
                        .map_err(|e| format!("The file {file} could not be read: {e}")),
                    Err(e) => Err(format!("Fetching {file} failed ({e})")),
                };
                text.set(Some(got));
            });
        });
    }
    {
        let ready = matches!(&*text, Some(Ok(_)));
        use_effect_with((p.term.clone(), ready), |(term, ready)| {
            if *ready && !term.is_empty() {
                dom::show_term(term);
            }
        });
    }
    match &*text {
        None => html! {
            <article class="lesson" aria-busy="true">
                <p class="lesson-loading" data-testid="lesson-loading" role="status">{ "Loading the glossary…" }</p>
            </article>
        },
        Some(Err(why)) => html! {
            <article class="lesson">
                <div class="lesson-error" data-testid="lesson-error" role="alert">
                    <p><strong>{ "The glossary could not be loaded." }</strong></p>
                    <p>{ format!("{why}.") }</p>
                </div>
            </article>
        },
        Some(Ok(h)) => html! {
            <article class="lesson glossary" data-testid="glossary-page">
                <div class="prose">{ Html::from_html_unchecked(h.clone()) }</div>
            </article>
        },
    }
}
