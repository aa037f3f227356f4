//! MySQL's shared state as a panel: pool mode's groups (listener, the high- and normal-priority
//! queues, the epoll set's ready events, thread/active/waiting counts, `stalled`, the sleepers in
//! `waiting_threads`), or thread-per-connection's thread cache and each connection's thread.

use yew::prelude::*;

use crate::mechanisms::mysql::snapshot::{CacheView, ConnView, GroupView, MysqlStateView};

fn names(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn word(label: &'static str, testid: String, v: String) -> Html {
    html! { <div><dt>{ label }</dt><dd data-testid={testid}>{ v }</dd></div> }
}

fn group_view(i: usize, gv: &GroupView) -> Html {
    let listener = gv.listener.clone().unwrap_or_else(|| "none".into());
    html! {
        <div class={classes!("mysql-group", gv.stalled.then_some("alarm"))} data-testid={format!("mysql-group-{i}")}
            data-listener={listener.clone()} data-queue={gv.queue.to_string()} data-high={gv.high.to_string()}
            data-ready={gv.ready.to_string()} data-threads={gv.threads.to_string()}
            data-active={gv.active.to_string()} data-waiting={gv.waiting.to_string()}
            data-stalled={gv.stalled.to_string()} data-sleepers={gv.sleepers.join(",")}>
            <h5>{ format!("group {i}") }{ if gv.stalled { " (stalled)" } else { "" } }</h5>
            <dl class="mysql-words">
                { word("listener", format!("mysql-listener-{i}"), listener) }
                { word("high_prio_queue", format!("mysql-high-{i}"), gv.high.to_string()) }
                { word("queue", format!("mysql-queue-{i}"), gv.queue.to_string()) }
                { word("ready in epoll", format!("mysql-ready-{i}"), gv.ready.to_string()) }
                { word("thread_count", format!("mysql-threads-{i}"), gv.threads.to_string()) }
                { word("active", format!("mysql-active-{i}"), gv.active.to_string()) }
                { word("waiting (thd_wait)", format!("mysql-waiting-{i}"), gv.waiting.to_string()) }
                { word("connections", format!("mysql-conns-{i}"), gv.connections.to_string()) }
                { word("waiting_threads (front first)", format!("mysql-sleepers-{i}"), names(&gv.sleepers)) }
            </dl>
        </div>
    }
}

fn conn_view(i: usize, c: &ConnView) -> Html {
    let thread = c.thread.clone().unwrap_or_else(|| "none".into());
    html! {
        <li data-testid={format!("mysql-conn-{i}")} data-pending={c.pending.to_string()} data-thread={thread.clone()}>
            { format!("C{i}: {} pending, read by {thread}", c.pending) }
        </li>
    }
}

fn cache_view(c: &CacheView) -> Html {
    html! {
        <div class="mysql-cache" data-testid="mysql-cache" data-blocked={c.blocked.to_string()}
            data-wake={c.wake.to_string()} data-channels={c.channels.to_string()} data-alive={c.alive.to_string()}>
            <h5>{ format!("thread cache (thread_cache_size {})", c.size) }</h5>
            <dl class="mysql-words">
                { word("blocked_pthread_count", "mysql-blocked".into(), c.blocked.to_string()) }
                { word("wake_pthread", "mysql-wake".into(), c.wake.to_string()) }
                { word("channels queued", "mysql-channels".into(), c.channels.to_string()) }
                { word("OS threads alive", "mysql-alive".into(), c.alive.to_string()) }
            </dl>
            <h5>{ "connections" }</h5>
            <ul class="mysql-conns" aria-label="each connection's pending queries and its thread">
                { for c.conns.iter().enumerate().map(|(i, x)| conn_view(i, x)) }
            </ul>
        </div>
    }
}

/// Props of [`mysql_panel`].
#[derive(PartialEq)]
pub struct MysqlPanelProps {
    /// The shared state.
    pub state: std::rc::Rc<MysqlStateView>,
}

/// The panel.
pub fn mysql_panel(p: &MysqlPanelProps) -> Html {
    match &*p.state {
        MysqlStateView::Pool(gs) => html! {
            <section class="panel mysql-panel" aria-label="thread groups">
                <h4>{ "thread groups" }</h4>
                <div class="mysql-groups">{ for gs.iter().enumerate().map(|(i, x)| group_view(i, x)) }</div>
            </section>
        },
        MysqlStateView::PerConnection(c) => html! {
            <section class="panel mysql-panel" aria-label="thread cache">
                <h4>{ "one thread per connection" }</h4>
                { cache_view(c) }
            </section>
        },
    }
}
