//! The pool's shared state as a panel: the task queue (first → … with where `last` points), the
//! signed `waiting` counter, the mutex and the condition variable's sleepers, the done list and
//! the eventfd's counter.

use yew::prelude::*;

use crate::mechanisms::pool::snapshot::{ListView, PoolStateView};

fn list(testid: &'static str, title: &'static str, l: &ListView) -> Html {
    let tasks = l
        .tasks
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(",");
    html! {
        <div class="pool-list" data-testid={testid} data-tasks={tasks} data-last={l.last.clone()}>
            <h5>{ title }</h5>
            <ol class="pool-chain" aria-label={title}>
                <li class="pool-first">{ "first" }</li>
                { for l.tasks.iter().enumerate().map(|(pos, k)| html! {
                    <li class="pool-task" data-testid={format!("{testid}-task-{pos}")}>{ format!("→ task {k}") }</li>
                }) }
                if l.cut { <li class="pool-cut">{ "→ … (cut: too long or a cycle)" }</li> }
                else { <li class="pool-null">{ "→ NULL" }</li> }
            </ol>
            <p class="pool-last">{ "last = " }<code data-testid={format!("{testid}-last")}>{ l.last.clone() }</code></p>
        </div>
    }
}

fn names(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Props of [`pool_panel`].
#[derive(PartialEq)]
pub struct PoolPanelProps {
    /// The shared state.
    pub state: std::rc::Rc<PoolStateView>,
}

/// The panel.
pub fn pool_panel(p: &PoolPanelProps) -> Html {
    let s = &p.state;
    html! {
        <section class="panel pool-panel" aria-label="thread pool state">
            <h4>{ "thread pool" }</h4>
            { list("pool-queue", "task queue (tp->queue)", &s.queue) }
            <dl class="pool-words">
                <div class={classes!("pool-word", (s.waiting < 0).then_some("pool-negative"))}>
                    <dt>{ "waiting" }</dt>
                    <dd data-testid="pool-waiting">{ s.waiting }</dd>
                    <dd class="human">{ if s.waiting < 0 { format!("{} idle thread(s) ready", -s.waiting) } else { format!("{} task(s) nobody took yet", s.waiting) } }</dd>
                </div>
                <div class="pool-word">
                    <dt>{ "mtx" }</dt>
                    <dd data-testid="pool-mutex">{ s.mutex_holder.clone().unwrap_or_else(|| "free".into()) }</dd>
                    <dd class="human">{ format!("waiting for it: {}", names(&s.mutex_waiters)) }</dd>
                </div>
                <div class="pool-word">
                    <dt>{ "cond_wait" }</dt>
                    <dd data-testid="pool-sleepers" data-count={s.cond_sleepers.len().to_string()}>{ names(&s.cond_sleepers) }</dd>
                </div>
                <div class="pool-word">
                    <dt>{ "eventfd" }</dt>
                    <dd data-testid="pool-notify">{ s.notify }</dd>
                </div>
            </dl>
            { list("pool-done", "done list (ngx_thread_pool_done)", &s.done) }
        </section>
    }
}
