//! herdlab-web: placeholder entry point, replaced by the real app.
use yew::prelude::*;

#[function_component(App)]
fn app() -> Html {
    html! { <main><h1>{ "herdlab" }</h1></main> }
}

fn main() {
    yew::Renderer::<App>::new().render();
}
