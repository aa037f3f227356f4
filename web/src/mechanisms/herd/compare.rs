//! Two simulations side by side (```` ```herdlab-compare ````), same seed, stepped together: the
//! herd's part of the generic [`TwoSettings`](crate::ui::shell::side_by_side::TwoSettings)
//! comparison (each side labelled by its wake mode; its wait queue and its workers' bars, on one
//! scale for both sides, under each half's lanes).

use yew::prelude::*;

use herdlab_core::mechanisms::herd::{Herd, HerdParams};

use crate::mechanisms::herd::model::HerdModel;
use crate::mechanisms::herd::snapshot::Snapshot;
use crate::ui::counters::counter_values;
use crate::ui::diff_table::diff_rows;
use crate::ui::shell::side_by_side::{Half, SideBySide};
use crate::ui::wait_queue::{wait_queue, WaitQueueProps};
use crate::ui::worker_bars::{bar_scale, worker_bars, WorkerBarsProps};

impl SideBySide for Herd {
    type Snapshot = Snapshot;
    const CLASSES: Option<(&'static str, &'static str)> = None;

    fn snapshot(m: &HerdModel) -> Snapshot {
        Snapshot::of(m)
    }

    fn label(p: &HerdParams, _: &HerdParams) -> String {
        p.mode.name().to_string()
    }

    fn half(s: &Snapshot, other: &Snapshot) -> Half {
        let scale = bar_scale(&s.lanes, &other.lanes);
        Half {
            status: s.status.clone(),
            invariant: Html::default(),
            lanes: s.lanes.clone(),
            state: html! {
                <>
                    { wait_queue(&WaitQueueProps { queue: s.queue.clone() }) }
                    { worker_bars(&WorkerBarsProps { lanes: s.lanes.clone(), scale,
                        caption: "per worker: connections taken and wakeups".into(), who: "worker".into(),
                        columns: &["took", "woken"][..], side: AttrValue::default() }) }
                </>
            },
            counters: counter_values(&s.metrics).to_vec(),
        }
    }

    fn rows(l: &Snapshot, r: &Snapshot) -> Vec<(&'static str, u64, u64)> {
        diff_rows(&counter_values(&l.metrics), &counter_values(&r.metrics))
    }
}
