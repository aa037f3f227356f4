//! Connections per worker as bars on a shared scale (`bar-<i>`, its text the plain number), with
//! Jain's fairness index, the busiest worker's share and the accept latency, from core's report.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::describe::fmt_ns;
use crate::mechanisms::accept::snapshot::ReportView;

/// What [`conn_bars`] shows (a view function, not a component: it has no state of its own).
pub struct ConnBarsProps {
    /// The report.
    pub report: Rc<ReportView>,
    /// The count a full bar stands for (shared by the sides of a comparison).
    pub scale: u64,
}

/// The bars.
pub fn conn_bars(p: &ConnBarsProps) -> Html {
    let r = &p.report;
    let scale = p.scale.max(1);
    html! {
        <div class="conn-bars">
            <table class="bars">
                <caption>{ "connections accepted per worker" }</caption>
                <tbody>
                    { for r.per_worker.iter().enumerate().map(|(i, &n)| html! {
                        <tr key={i}>
                            <th scope="row">{ format!("w{i}") }</th>
                            <td>
                                <span class="bar took" style={format!("width: {:.1}%", (n as f64 * 100.0 / scale as f64).min(100.0))}></span>
                                <span class="n" data-testid={format!("bar-{i}")}>{ n }</span>
                            </td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <p class="fairness">
                { "Jain's index " }<b data-testid="jain-index">{ format!("{:.3}", r.jain) }</b>
                { format!(" (1 = even, 1/n = one worker takes all) · busiest worker {:.0}% · accept latency p50 {} · p99 {}",
                    r.busiest * 100.0, fmt_ns(r.p50), fmt_ns(r.p99)) }
                { if r.mutex_hold_ns > 0 { format!(" · accept mutex held {}", fmt_ns(r.mutex_hold_ns)) } else { String::new() } }
            </p>
        </div>
    }
}
