//! The pseudocode, with the line each thread is on.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::CodeView;

/// Props of [`code_panel`].
#[derive(Properties, PartialEq)]
pub struct CodeProps {
    /// The listings: the workers', then the producer's or the network's.
    pub code: Rc<Vec<CodeView>>,
}

/// The code panel.
pub fn code_panel(props: &CodeProps) -> Html {
    html! {
        <section class="panel code-panel">
            <h4>{ "pseudocode: each highlighted line shows who executes it next" }</h4>
            <div class="listings">
            { for props.code.iter().map(|v| html! {
                <figure class="listing">
                    <figcaption>{ v.title }</figcaption>
                    <ol class={classes!("code", v.ran.then_some("ran"))} tabindex="0"
                        aria-label={format!("pseudocode: {}", v.title)}>
                        { for v.lines.iter().map(|l| {
                            let active = !l.threads.is_empty() || v.ran || l.hot;
                            let threads = l.threads.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",");
                            html! {
                                <li class={classes!("line", active.then_some("active"))}
                                    data-testid={format!("{}{}", v.prefix, l.n)}
                                    data-threads={threads}>
                                    <span class="who">{ &l.names }</span>
                                    <span class="ln" aria-hidden="true">{ l.n }</span>
                                    <code>{ l.text }</code>
                                </li>
                            }
                        }) }
                    </ol>
                </figure>
            }) }
            </div>
        </section>
    }
}
