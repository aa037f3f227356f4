//! Two simulations side by side (```` ```herdlab-compare ````), same seed, stepped together: the
//! herd kind of [`CompareShell`]; this file says how its sides open and what each half shows.

use yew::prelude::*;

use crate::blocks::CompareSpec;
use crate::components::compare_frame::CompareFrame;
use crate::components::compare_shell::{CompareKind, CompareShell};
use crate::components::counters::{counter_values, CounterGrid};
use crate::components::diff_table::{diff_rows, DiffTable};
use crate::components::lanes::Lanes;
use crate::components::status::StatusBar;
use crate::components::wait_queue::WaitQueuePanel;
use crate::components::worker_bars::{bar_scale, WorkerBars};
use crate::model::SimModel;
use crate::pair::Pair;
use crate::sim_open::stopped_at;
use crate::snapshot::Snapshot;

/// The herd comparison widget.
pub type CompareWidget = CompareShell<HerdCompare>;

/// The herd kind of comparison.
#[derive(PartialEq)]
pub struct HerdCompare;

impl CompareKind for HerdCompare {
    type Spec = CompareSpec;
    type Model = SimModel;

    fn open(spec: &CompareSpec) -> Vec<(String, SimModel)> {
        vec![
            ("left".into(), stopped_at(spec.left, spec.stop)),
            ("right".into(), stopped_at(spec.right, spec.stop)),
        ]
    }

    fn frame<'a>(spec: &'a CompareSpec, pair: &Pair<SimModel>) -> CompareFrame<'a> {
        let id = &spec.id;
        let ls = Snapshot::of(pair.left());
        let rs = Snapshot::of(pair.right());
        let scale = bar_scale(&ls.lanes, &rs.lanes);
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} (left) against {} (right), same seed {}, stepped together",
                spec.left.mode.name(),
                spec.right.mode.name(),
                spec.left.seed
            )
        });
        let half = |side: &str, m: &SimModel, s: &Snapshot| {
            html! {
                <div class="half" data-testid={format!("sim-{id}-{side}")}>
                    <h4 class="half-title">{ format!("{side}: {}", m.params().mode.name()) }</h4>
                    <StatusBar status={s.status.clone()} />
                    <Lanes lanes={s.lanes.clone()} compact=true />
                    <WaitQueuePanel queue={s.queue.clone()} />
                    <WorkerBars lanes={s.lanes.clone()} scale={scale}
                        caption="per worker: connections taken and wakeups" who="worker"
                        columns={&["took", "woken"][..]} />
                    <CounterGrid values={counter_values(&s.metrics).to_vec()} compact=true />
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
                <DiffTable left={format!("left: {}", spec.left.mode.name())}
                    right={format!("right: {}", spec.right.mode.name())}
                    rows={diff_rows(&counter_values(&ls.metrics), &counter_values(&rs.metrics))} />
            },
            halves: html! {
                <>
                    { half("left", pair.left(), &ls) }
                    { half("right", pair.right(), &rs) }
                </>
            },
        }
    }
}
