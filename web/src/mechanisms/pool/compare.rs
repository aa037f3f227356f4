//! Two pool simulations side by side (```` ```herdlab-compare ```` with `mechanism=pool`): one
//! scenario and seed, one setting changed (no pool / pool, signal / broadcast, a variant), stepped
//! together: the pool kind of [`CompareShell`](crate::ui::shell::compare_shell::CompareShell).

use yew::prelude::*;

use herdlab_core::mechanisms::pool::PoolParams;

use crate::live::open::stopped_at;
use crate::live::pair::Pair;
use crate::mechanisms::pool::blocks::PoolCompareSpec;
use crate::mechanisms::pool::model::PoolSimModel;
use crate::mechanisms::pool::queue_panel::pool_invariant;
use crate::mechanisms::pool::snapshot::PoolSnapshot;
use crate::ui::counters::{counters, CounterProps};
use crate::ui::diff_table::{diff_rows, diff_table, DiffTableProps};
use crate::ui::lanes::{lanes, LanesProps};
use crate::ui::shell::compare_frame::CompareFrame;
use crate::ui::shell::compare_shell::CompareKind;
use crate::ui::status::{status, StatusProps};

/// The pool kind of comparison.
pub struct PoolCompare;

/// A side's label: the settings that tell the two sides apart.
pub fn side_label(p: &PoolParams, other: &PoolParams) -> String {
    let mut parts = Vec::new();
    if p.offload != other.offload || p == other {
        parts.push(if p.offload { "pool" } else { "no pool" }.to_string());
    }
    if p.wake != other.wake {
        parts.push(p.wake.name().to_string());
    }
    if p.variant != other.variant {
        parts.push(p.variant.name().to_string());
    }
    parts.join(", ")
}

impl CompareKind for PoolCompare {
    type Spec = PoolCompareSpec;
    type Model = PoolSimModel;

    fn open(spec: &PoolCompareSpec) -> Vec<(String, PoolSimModel)> {
        vec![
            ("left".into(), stopped_at(spec.left, spec.stop)),
            ("right".into(), stopped_at(spec.right, spec.stop)),
        ]
    }

    fn frame<'a>(
        spec: &'a PoolCompareSpec,
        pair: &Pair,
        sides: &[&PoolSimModel],
    ) -> CompareFrame<'a> {
        let id = &spec.id;
        let ls = PoolSnapshot::of(sides[0]);
        let rs = PoolSnapshot::of(sides[sides.len() - 1]);
        let left = side_label(&spec.left, &spec.right);
        let right = side_label(&spec.right, &spec.left);
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{left} (left) against {right} (right), same seed {}, stepped together",
                spec.left.seed
            )
        });
        let half = |side: &str, label: &str, s: &PoolSnapshot| {
            html! {
                <div class="half pool-half" data-testid={format!("sim-{id}-{side}")}>
                    <h4 class="half-title">{ format!("{side}: {label}") }</h4>
                    { status(&StatusProps { status: s.status.clone() }) }
                    { pool_invariant(&s.invariant) }
                    { lanes(&LanesProps { lanes: s.lanes.clone(), on_step: None, compact: true }) }
                    <p class="pool-half-state">
                        { "queue " }<b data-testid="pool-queue-len">{ s.state.queue.tasks.len() }</b>
                        { " · waiting " }<b data-testid="pool-waiting">{ s.state.waiting }</b>
                        { " · done list " }<b>{ s.state.done.tasks.len() }</b>
                        { " · eventfd " }<b data-testid="pool-notify">{ s.state.notify }</b>
                    </p>
                    { counters(&CounterProps { values: s.counters.clone(), compact: true }) }
                </div>
            }
        };
        CompareFrame {
            id,
            errors: &spec.errors,
            mechanism: Some(("pool-compare", "pool")),
            caption,
            controls: pair.controls(id),
            table: html! {
                { diff_table(&DiffTableProps { left: format!("left: {left}").into(), right: format!("right: {right}").into(),
                    rows: diff_rows(&ls.counters, &rs.counters) }) }
            },
            halves: html! {
                <>
                    { half("left", &left, &ls) }
                    { half("right", &right, &rs) }
                </>
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::pool::Wake;

    #[test]
    fn sides_are_labelled_by_what_differs() {
        let p = PoolParams::default();
        let no = PoolParams {
            offload: false,
            ..p
        };
        assert_eq!(side_label(&no, &p), "no pool");
        assert_eq!(side_label(&p, &no), "pool");
        let b = PoolParams {
            wake: Wake::Broadcast,
            ..p
        };
        assert_eq!(side_label(&b, &p), "broadcast");
        assert_eq!(side_label(&p, &p), "pool");
    }
}
