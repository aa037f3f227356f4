//! Per-worker bars: connections taken and wakeups, on a shared scale.

use std::rc::Rc;

use yew::prelude::*;

use crate::snapshot::LaneView;

/// Props of [`WorkerBars`].
#[derive(Properties, PartialEq)]
pub struct WorkerBarsProps {
    /// The lanes (the producer, if any, is left out).
    pub lanes: Rc<Vec<LaneView>>,
    /// The value a full bar stands for.
    pub scale: u64,
}

fn pct(v: u64, scale: u64) -> String {
    let p = if scale == 0 {
        0.0
    } else {
        v as f64 * 100.0 / scale as f64
    };
    format!("width: {:.1}%", p.min(100.0))
}

/// The bars.
#[function_component(WorkerBars)]
pub fn worker_bars(p: &WorkerBarsProps) -> Html {
    html! {
        <table class="bars">
            <caption>{ "per worker: connections taken and wakeups" }</caption>
            <thead><tr><th scope="col">{ "worker" }</th><th scope="col">{ "took" }</th><th scope="col">{ "woken" }</th></tr></thead>
            <tbody>
                { for p.lanes.iter().filter(|l| l.name.starts_with("worker")).map(|l| html! {
                    <tr key={l.idx as usize}>
                        <th scope="row">{ format!("w{}", l.idx) }</th>
                        <td><span class="bar took" style={pct(l.accepted, p.scale)}></span><span class="n">{ l.accepted }</span></td>
                        <td><span class="bar woken" style={pct(l.wakeups, p.scale)}></span><span class="n">{ l.wakeups }</span></td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
