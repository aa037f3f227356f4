//! The listening socket's accept queue and the arrivals still to come.

use std::rc::Rc;

use yew::prelude::*;

use crate::mechanisms::herd::snapshot::AcceptView;

/// Props of [`accept_queue`].
#[derive(Properties, PartialEq)]
pub struct AcceptQueueProps {
    /// The accept queue.
    pub accept: Rc<AcceptView>,
    /// Step the network by hand (no button when absent).
    #[prop_or_default]
    pub on_network: Option<Callback<()>>,
}

/// The accept queue (connection ids, oldest first).
pub fn accept_queue(props: &AcceptQueueProps) -> Html {
    let a = &props.accept;
    let sent = a.total.saturating_sub(a.remaining);
    if !a.network {
        return html! {
            <section class="panel aq-panel">
                <h4>{ "jobs" }</h4>
                <p class="arrivals" data-testid="arrivals">{ format!("delivered to the producer: {sent} of {}", a.total) }</p>
            </section>
        };
    }
    let button = props.on_network.as_ref().map(|cb| {
        let cb = cb.clone();
        html! {
            <button data-testid="step-network" disabled={!a.can_step}
                aria-label="step network: deliver the next connection now"
                onclick={Callback::from(move |_| cb.emit(()))}>{ "step network" }</button>
        }
    });
    html! {
        <section class={classes!("panel", "aq-panel", a.ran_last.then_some("ran"))}>
            <h4>{ "accept queue (oldest first)" }</h4>
            <ol class="aq" data-testid="accept-queue" aria-label="accept queue">
                if a.conns.is_empty() {
                    <li class="empty">{ "empty" }</li>
                } else {
                    { for a.conns.iter().map(|c| html! { <li key={*c as usize} class="conn">{ format!("#{c}") }</li> }) }
                    if a.more > 0 { <li class="more">{ format!("+{} more", a.more) }</li> }
                }
            </ol>
            <p class="arrivals" data-testid="arrivals">{ format!("connections sent: {sent} of {}", a.total) }</p>
            { for button }
        </section>
    }
}
