//! The epoll instances of an accept scenario: for each, who owns it, how the listener is
//! registered, its ready list and the threads asleep in its `epoll_wait` (`epoll-<e>`).

use std::rc::Rc;

use yew::prelude::*;

use crate::mechanisms::accept::snapshot::EpollView;

/// What [`epoll_panel`] shows (a view function, not a component: it has no state of its own).
pub struct EpollPanelProps {
    /// The instances.
    pub epolls: Rc<Vec<EpollView>>,
}

fn join<T: ToString>(xs: &[T]) -> String {
    xs.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

/// The epoll instances.
pub fn epoll_panel(p: &EpollPanelProps) -> Html {
    if p.epolls.is_empty() {
        return Html::default();
    }
    html! {
        <section class="panel epoll-panel">
            <h4>{ "epoll instances: ready list (rdllist) and sleepers (newest first)" }</h4>
            <ul class="epolls">
                { for p.epolls.iter().map(|e| {
                    let sleepers = e.sleepers.iter().map(|t| format!("w{t}")).collect::<Vec<_>>();
                    let listener = match e.listener {
                        "exclusive" => "listener: EPOLLEXCLUSIVE",
                        "level" => "listener: level-triggered",
                        _ => "listener: not registered",
                    };
                    html! {
                        <li class={classes!("epoll", (!e.ready.is_empty()).then_some("ready"))}
                            data-testid={format!("epoll-{}", e.idx)}
                            data-listener={e.listener}
                            data-ready={e.ready.join(",")}
                            data-sleepers={join(&e.sleepers)}>
                            <strong>{ format!("epoll {}", e.idx) }</strong>
                            <span class="owner">{ format!(" ({})", e.owner) }</span>
                            <span class="reg">{ format!(" · {listener} · {} connection(s)", e.conns) }</span>
                            <span class="rdl">
                                { " · ready: " }
                                { if e.ready.is_empty() { "empty".to_string() } else { e.ready.join(" ") } }
                            </span>
                            <span class="sleepers">
                                { " · asleep in epoll_wait: " }
                                { if sleepers.is_empty() { "nobody".to_string() } else { sleepers.join(" ") } }
                            </span>
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}
