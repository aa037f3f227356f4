//! The queue the sleepers wait on, head first, and the last wake walk over it.

use std::rc::Rc;

use yew::prelude::*;

use crate::snapshot::QueueView;

/// Props of [`WaitQueuePanel`].
#[derive(Properties, PartialEq)]
pub struct WaitQueueProps {
    /// The queue.
    pub queue: Rc<QueueView>,
}

/// The wait queue (or futex / condition-variable queue) and the last walk.
#[function_component(WaitQueuePanel)]
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
                html! {
                    <li class={classes!("wq-entry", if e.exclusive { "x" } else { "n" })}
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
    let walk = q.walk.as_ref().map(|w| {
        let budget = if w.budget == 0 { "no limit".to_string() } else { w.budget.to_string() };
        let compact = w.visits.len() > 8;
        let woken = w.visits.iter().filter(|v| v.ret > 0).count();
        let summary = format!(
            "visited {} entries (thread, X/N, ret), woke {woken}; budget left at the end: {}",
            w.visits.len(),
            match (w.budget, w.visits.last()) {
                (0, _) => "no limit".to_string(),
                (_, Some(v)) => v.budget_left.to_string(),
                _ => String::new(),
            }
        );
        html! {
            <div class={classes!("walk", w.fresh.then_some("fresh"))} data-testid="last-walk">
                <p class="walk-head">
                    { format!("Last wake walk: step {}, nr_exclusive = {budget}", w.step) }
                    { if w.fresh { " (this step)" } else { "" } }
                </p>
                if compact {
                    <p class="walk-sum">{ summary }</p>
                }
                <ol class={classes!("visits", compact.then_some("compact"))}>
                    { for w.visits.iter().enumerate().map(|(k, v)| {
                        let left = if w.budget == 0 { "no limit".to_string() } else { v.budget_left.to_string() };
                        let what = match v.ret {
                            r if r > 0 => "woken",
                            0 => "already running",
                            _ => "stop",
                        };
                        let flag = if v.exclusive { "X" } else { "N" };
                        let full = format!("{} {flag} · {what} (ret {}) · budget left {left}", v.short, v.ret);
                        html! {
                            <li class={classes!("visit", (v.ret > 0).then_some("woke"))}
                                data-testid={format!("walk-visit-{k}")}>
                                { if compact { format!("{} {flag} {}", v.short, v.ret) } else { full } }
                            </li>
                        }
                    }) }
                </ol>
                <p class="walk-end">{ w.end }</p>
            </div>
        }
    });
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
