//! The queue the sleepers wait on, head first, and the last wake walk over it.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::QueueView;
use crate::ui::last_walk::{last_walk, LastWalkProps};

/// Props of [`wait_queue`].
#[derive(Properties, PartialEq)]
pub struct WaitQueueProps {
    /// The queue.
    pub queue: Rc<QueueView>,
}

/// The wait queue (or futex / condition-variable queue) and the last walk.
pub fn wait_queue(props: &WaitQueueProps) -> Html {
    let q = &props.queue;
    let entries = if q.entries.is_empty() {
        html! { <li class="empty">{ "empty: nobody is queued" }</li> }
    } else {
        html! {
            { for q.entries.iter().enumerate().map(|(pos, e)| {
                let flag = if e.exclusive { "X" } else { "N" };
                let title = format!(
                    "position {pos}: {} ({})",
                    e.short,
                    if e.exclusive { "exclusive" } else { "not exclusive" }
                );
                // keyed by position: Yew lines an unkeyed list up from its end, so a queue that
                // grows or shrinks would rewrite every entry; keyed by thread, the entries that
                // come and go on every wake-all (about 30 a frame at full speed) are made and
                // dropped instead of rewritten in place (and every later position's counter with
                // them). By position, only the entries whose thread changed get new text.
                html! {
                    <li key={pos} class={classes!("wq-entry", if e.exclusive { "x" } else { "n" })}
                        data-testid={format!("wq-entry-{pos}")}
                        data-thread={e.thread.to_string()}
                        data-exclusive={e.exclusive.to_string()}
                        title={title}>
                        { &e.short }
                        <b class="flag">{ flag }</b>
                    </li>
                }
            }) }
        }
    };
    let walk = q
        .walk
        .as_ref()
        .map(|w| last_walk(&LastWalkProps { walk: w.clone() }));
    let mutex = q.mutex.as_ref().map(|(owner, waiters)| {
        html! {
            <p class="mutex">
                { format!("mutex m: {}", owner.as_deref().map(|o| format!("held by {o}")).unwrap_or_else(|| "free".into())) }
                { if waiters.is_empty() { String::new() } else { format!(" · waiting for it: {}", waiters.join(" ")) } }
            </p>
        }
    });
    let words = q.words.map(|(t, w)| {
        let stop = t & 0x8000_0000 != 0;
        html! {
            <p class="words">
                { format!("tickets = {}{} · waiters = {w}", t & 0x7FFF_FFFF, if stop { " + STOP" } else { "" }) }
            </p>
        }
    });
    html! {
        <section class="panel wq-panel">
            <h4>{ q.title }</h4>
            <p class="legend">{ "X: exclusive (WQ_FLAG_EXCLUSIVE), N: not exclusive" }</p>
            <ol class="wq" data-testid="wait-queue" aria-label={q.title}>{ entries }</ol>
            { for walk }
            { for mutex }
            { for words }
        </section>
    }
}
