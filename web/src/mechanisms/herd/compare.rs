//! Two simulations side by side (```` ```herdlab-compare ````), same seed, stepped together: the
//! herd kind of [`crate::ui::shell::compare_shell::CompareShell`]; this file says how its sides open and what each half shows.

use yew::prelude::*;

use crate::live::open::stopped_at;
use crate::live::pair::Pair;
use crate::mechanisms::herd::blocks::CompareSpec;
use crate::mechanisms::herd::model::HerdModel;
use crate::mechanisms::herd::snapshot::Snapshot;
use crate::ui::counters::{counter_values, counters, CounterProps};
use crate::ui::diff_table::{diff_rows, diff_table, DiffTableProps};
use crate::ui::lanes::{lanes, LanesProps};
use crate::ui::shell::compare_frame::CompareFrame;
use crate::ui::shell::compare_shell::CompareKind;
use crate::ui::status::{status, StatusProps};
use crate::ui::wait_queue::{wait_queue, WaitQueueProps};
use crate::ui::worker_bars::{bar_scale, worker_bars, WorkerBarsProps};

/// The herd kind of comparison.
pub struct HerdCompare;

impl CompareKind for HerdCompare {
    type Spec = CompareSpec;
    type Model = HerdModel;

    fn open(spec: &CompareSpec) -> Vec<(String, HerdModel)> {
        vec![
            ("left".into(), stopped_at(spec.left, spec.stop)),
            ("right".into(), stopped_at(spec.right, spec.stop)),
        ]
    }

    fn frame<'a>(spec: &'a CompareSpec, pair: &Pair, sides: &[&HerdModel]) -> CompareFrame<'a> {
        let id = &spec.id;
        let (left, right) = (sides[0], sides[sides.len() - 1]);
        let ls = Snapshot::of(left);
        let rs = Snapshot::of(right);
        let scale = bar_scale(&ls.lanes, &rs.lanes);
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} (left) against {} (right), same seed {}, stepped together",
                spec.left.mode.name(),
                spec.right.mode.name(),
                spec.left.seed
            )
        });
        let half = |side: &str, m: &HerdModel, s: &Snapshot| {
            html! {
                <div class="half" data-testid={format!("sim-{id}-{side}")}>
                    <h4 class="half-title">{ format!("{side}: {}", m.params().mode.name()) }</h4>
                    { status(&StatusProps { status: s.status.clone() }) }
                    { lanes(&LanesProps { lanes: s.lanes.clone(), on_step: None, compact: true }) }
                    { wait_queue(&WaitQueueProps { queue: s.queue.clone() }) }
                    { worker_bars(&WorkerBarsProps { lanes: s.lanes.clone(), scale,
                        caption: "per worker: connections taken and wakeups".into(), who: "worker".into(),
                        columns: &["took", "woken"][..], side: AttrValue::default() }) }
                    { counters(&CounterProps { values: counter_values(&s.metrics).to_vec(), compact: true }) }
                </div>
            }
        };
        CompareFrame {
            id,
            errors: &spec.errors,
            mechanism: None,
            caption,
            controls: pair.controls(id),
            table: html! {
                { diff_table(&DiffTableProps { left: format!("left: {}", spec.left.mode.name()).into(),
                    right: format!("right: {}", spec.right.mode.name()).into(),
                    rows: diff_rows(&counter_values(&ls.metrics), &counter_values(&rs.metrics)) }) }
            },
            halves: html! {
                <>
                    { half("left", left, &ls) }
                    { half("right", right, &rs) }
                </>
            },
        }
    }
}
