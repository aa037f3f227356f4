//! Per-thread bars on a shared scale: the herd's connections taken and wakeups, the locks'
//! acquisitions.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::LaneView;

/// Props of [`worker_bars`].
#[derive(Properties, PartialEq)]
pub struct WorkerBarsProps {
    /// The lanes (those without bars, like the producer, are left out).
    pub lanes: Rc<Vec<LaneView>>,
    /// The value a full bar stands for.
    pub scale: u64,
    /// The table's caption.
    pub caption: AttrValue,
    /// The first column's heading ("worker", "thread").
    pub who: AttrValue,
    /// One heading per bar value (also the bar's class).
    pub columns: &'static [&'static str],
    /// The comparison side, for test ids (`bar-<side>-<thread>-<column>`).
    #[prop_or_default]
    pub side: AttrValue,
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
pub fn worker_bars(p: &WorkerBarsProps) -> Html {
    html! {
        <table class="bars">
            <caption>{ p.caption.clone() }</caption>
            <thead><tr>
                <th scope="col">{ p.who.clone() }</th>
                { for p.columns.iter().map(|c| html! { <th scope="col">{ *c }</th> }) }
            </tr></thead>
            <tbody>
                { for p.lanes.iter().filter(|l| !l.bars.is_empty()).map(|l| html! {
                    <tr key={l.idx as usize}>
                        <th scope="row">{ format!("{}{}", if p.who == "worker" { "w" } else { "t" }, l.idx) }</th>
                        { for p.columns.iter().zip(l.bars.iter()).map(|(c, &v)| html! {
                            <td>
                                <span class={classes!("bar", *c)} style={pct(v, p.scale)}></span>
                                <span class="n" data-testid={(!p.side.is_empty()).then(|| format!("bar-{}-{}-{c}", p.side, l.idx))}>{ v }</span>
                            </td>
                        }) }
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

/// The bar scale shared by two sides: the longest bar of either (at least 1).
pub fn bar_scale(left: &[LaneView], right: &[LaneView]) -> u64 {
    left.iter()
        .chain(right.iter())
        .flat_map(|l| l.bars.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1)
}
