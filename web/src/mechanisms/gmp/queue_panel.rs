//! The scheduler's queues as a panel: each P with its owner M, `runnext` and local ring (head
//! first), the global queue under `sched.lock`, `nmspinning`, the idle Ps and the parked Ms.

use yew::prelude::*;

use crate::mechanisms::gmp::snapshot::{GmpStateView, PView};

fn gs(v: &[u32]) -> String {
    v.iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn g_items(v: &[u32]) -> Html {
    if v.is_empty() {
        return html! { <li class="gmp-empty">{ "empty" }</li> };
    }
    html! { { for v.iter().map(|g| html! { <li class="gmp-g">{ format!("G{g}") }</li> }) } }
}

fn p_view(i: usize, p: &PView) -> Html {
    let owner = p.owner.map_or("none".to_string(), |m| format!("M{m}"));
    html! {
        <div class={classes!("gmp-p", p.idle.then_some("gmp-idle"))} data-testid={format!("gmp-p-{i}")}
            data-owner={owner.clone()} data-runnext={p.runnext.to_string()} data-ring={gs(&p.ring)}>
            <h5>{ format!("P{i}") }{ if p.idle { " (idle)" } else if p.syscall { " (_Psyscall: its M is blocked)" } else { "" } }</h5>
            <p class="gmp-owner">{ format!("held by {owner}") }</p>
            <p class="gmp-runnext">{ "runnext: " }
                <code>{ if p.runnext == 0 { "empty".to_string() } else { format!("G{}", p.runnext) } }</code>
            </p>
            <ol class="gmp-ring" aria-label={format!("P{i}'s local run queue, {} slots, head first", p.slots)}>
                { g_items(&p.ring) }
            </ol>
            <p class="gmp-ring-fill">{ format!("ring: {} of {} slots", p.ring.len(), p.slots) }</p>
        </div>
    }
}

fn names(prefix: &str, v: &[u32]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter()
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Props of [`gmp_panel`].
#[derive(PartialEq)]
pub struct GmpPanelProps {
    /// The shared state.
    pub state: std::rc::Rc<GmpStateView>,
}

/// The panel.
pub fn gmp_panel(p: &GmpPanelProps) -> Html {
    let s = &p.state;
    let global = s.global.clone().unwrap_or_default();
    html! {
        <section class="panel gmp-panel" aria-label="scheduler state">
            <h4>{ "Ps and run queues" }</h4>
            <div class="gmp-ps">{ for s.ps.iter().enumerate().map(|(i, p)| p_view(i, p)) }</div>
            <div class="gmp-global" data-testid="gmp-global" data-gs={gs(&global)}
                data-size={s.global_size.to_string()}>
                <h5>{ format!("global queue (sched.runq, size {})", s.global_size) }</h5>
                <ol class="gmp-ring" aria-label="the global run queue, head first">
                    { g_items(&global) }
                    if s.global.is_none() { <li class="gmp-cut">{ "… (cyclic or too long)" }</li> }
                </ol>
            </div>
            <dl class="gmp-words">
                <div><dt>{ "nmspinning" }</dt><dd data-testid="gmp-nmspinning">{ s.nmspinning }</dd></div>
                <div><dt>{ "npidle" }</dt><dd data-testid="gmp-npidle">{ s.npidle }</dd></div>
                <div><dt>{ "parked Ms (midle)" }</dt><dd data-testid="gmp-parked">{ names("M", &s.parked) }</dd></div>
            </dl>
        </section>
    }
}
