//! The listening sockets of an accept scenario: each one's wait queue, head first (epoll entries
//! and blocked `accept` callers, with the exclusive flag), and its accept queue; then the last
//! wake walk.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::WalkView;
use crate::mechanisms::accept::snapshot::ListenerView;
use crate::ui::last_walk::{last_walk, LastWalkProps};

/// What [`listener_panel`] shows (a view function, not a component: it has no state of its own).
pub struct ListenerPanelProps {
    /// The sockets.
    pub listeners: Rc<Vec<ListenerView>>,
    /// The last walk of one of them.
    pub walk: Option<WalkView>,
}

/// The listening sockets.
pub fn listener_panel(p: &ListenerPanelProps) -> Html {
    let many = p.listeners.len() > 1;
    html! {
        <section class="panel listener-panel">
            <h4>{ if many { "listening sockets (SO_REUSEPORT group)" } else { "listening socket" } }</h4>
            <p class="legend">{ "wait queue (sk_wq), head first: epN is epoll N's entry, wN a thread blocked in accept; X exclusive, N not" }</p>
            { for p.listeners.iter().map(|l| {
                let l_idx = l.idx;
                html! {
                    <div class="listener" data-testid={format!("listener-{}", l.idx)}
                        data-queued={l.queued.to_string()}>
                        <p class="listener-name"><strong>{ format!("listener L{}", l.idx) }</strong></p>
                        <ol class="wq" aria-label={format!("wait queue of listener {}", l.idx)}>
                            if l.entries.is_empty() {
                                <li class="empty">{ "no entries" }</li>
                            }
                            { for l.entries.iter().enumerate().map(|(pos, e)| html! {
                                <li class={classes!("wq-entry", if e.exclusive { "x" } else { "n" }, e.kind)}
                                    data-testid={format!("listener-{l_idx}-entry-{pos}")}
                                    data-waiter={e.short.clone()} data-kind={e.kind}
                                    data-exclusive={e.exclusive.to_string()}>
                                    { &e.short }<b class="flag">{ if e.exclusive { "X" } else { "N" } }</b>
                                </li>
                            }) }
                        </ol>
                        <ol class="aq" data-testid={format!("accept-queue-{}", l.idx)}
                            aria-label={format!("accept queue of listener {}", l.idx)}>
                            if l.queue.is_empty() {
                                <li class="empty">{ "accept queue empty" }</li>
                            }
                            { for l.queue.iter().map(|c| html! { <li class="conn">{ format!("#{c}") }</li> }) }
                            if l.queued > l.queue.len() {
                                <li class="more">{ format!("+{} more", l.queued - l.queue.len()) }</li>
                            }
                        </ol>
                    </div>
                }
            }) }
            { for p.walk.as_ref().map(|w| last_walk(&LastWalkProps { walk: w.clone() })) }
        </section>
    }
}
