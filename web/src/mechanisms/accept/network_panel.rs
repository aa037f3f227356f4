//! The network actor of an accept scenario: connections sent, open, and the pending client
//! actions and `epoll_wait` timeouts, with the button that steps it (`step-network`).

use std::rc::Rc;

use yew::prelude::*;

use crate::mechanisms::accept::snapshot::NetView;

/// What [`network_panel`] shows (a view function, not a component: it has no state of its own).
pub struct NetworkPanelProps {
    /// The network.
    pub net: Rc<NetView>,
    /// Step the network by hand.
    pub on_network: Callback<()>,
}

/// The network.
pub fn network_panel(p: &NetworkPanelProps) -> Html {
    let n = &p.net;
    let cb = p.on_network.clone();
    html! {
        <section class={classes!("panel", "net-panel", n.ran_last.then_some("ran"))}>
            <h4>{ "network, clients and timers" }</h4>
            <p class="arrivals" data-testid="arrivals">
                { format!("connections sent: {} of {} · open: {}", n.sent, n.total, n.open) }
            </p>
            <p class="next-due" data-testid="network-next">{ &n.next }</p>
            <ul class="pending" data-testid="network-pending">
                { for n.pending.iter().map(|s| html! { <li>{ s }</li> }) }
                if n.more > 0 { <li class="more">{ format!("+{} more", n.more) }</li> }
            </ul>
            <button data-testid="step-network" disabled={!n.can_step}
                aria-label="step network / timer: the next arrival, client action or timeout, now"
                onclick={Callback::from(move |_| cb.emit(()))}>{ "step network / timer" }</button>
        </section>
    }
}
