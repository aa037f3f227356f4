//! "No such lesson" / "no such page", with the way home.

use yew::prelude::*;

use crate::lesson::catalog::LESSONS;

/// Props of [`not_found`].
#[derive(Properties, PartialEq)]
pub struct NotFoundProps {
    /// What was asked for.
    pub what: AttrValue,
    /// Whether it was a lesson slug.
    #[prop_or_default]
    pub lesson: bool,
}

/// The page.
pub fn not_found(p: &NotFoundProps) -> Html {
    html! {
        <article class="not-found" data-testid="not-found">
            <h1>{ if p.lesson { "No such lesson" } else { "No such page" } }</h1>
            <p>
                { if p.lesson { "There is no lesson called " } else { "Nothing lives at " } }
                <code>{ p.what.clone() }</code>{ "." }
            </p>
            <p>{ "The lessons that exist: " }
                { for LESSONS.iter().map(|l| html! {
                    <a href={format!("#/lesson/{}", l.slug)}>{ l.title }</a>
                }) }
            </p>
            <p><a href="#/" data-testid="home-link">{ "← back to the home page" }</a></p>
        </article>
    }
}
