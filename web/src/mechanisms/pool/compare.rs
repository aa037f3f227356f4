//! Two pool simulations side by side (```` ```herdlab-compare ```` with `mechanism=pool`): one
//! scenario and seed, one setting changed (no pool / pool, signal / broadcast, a variant), stepped
//! together: the pool's part of the generic
//! [`TwoSettings`](crate::ui::shell::side_by_side::TwoSettings) comparison (its sides' labels,
//! and the queue, `waiting`, the done list and the eventfd under each half's lanes).

use yew::prelude::*;

use herdlab_core::mechanisms::pool::{Pool, PoolParams};

use crate::mechanisms::pool::model::PoolSimModel;
use crate::mechanisms::pool::snapshot::PoolSnapshot;
use crate::ui::diff_table::diff_rows;
use crate::ui::shell::side_by_side::{Half, SideBySide};
use crate::ui::status::invariant_status;

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

impl SideBySide for Pool {
    type Snapshot = PoolSnapshot;
    const CLASSES: Option<(&'static str, &'static str)> = Some(("pool-compare", "pool-half"));

    fn snapshot(m: &PoolSimModel) -> PoolSnapshot {
        PoolSnapshot::of(m)
    }

    fn label(p: &PoolParams, other: &PoolParams) -> String {
        side_label(p, other)
    }

    fn half(s: &PoolSnapshot, _: &PoolSnapshot) -> Half {
        Half {
            status: s.status.clone(),
            invariant: invariant_status("pool-invariant", &s.invariant),
            lanes: s.lanes.clone(),
            state: html! {
                <p class="pool-half-state">
                    { "queue " }<b data-testid="pool-queue-len">{ s.state.queue.tasks.len() }</b>
                    { " · waiting " }<b data-testid="pool-waiting">{ s.state.waiting }</b>
                    { " · done list " }<b>{ s.state.done.tasks.len() }</b>
                    { " · eventfd " }<b data-testid="pool-notify">{ s.state.notify }</b>
                </p>
            },
            counters: s.counters.clone(),
        }
    }

    fn rows(l: &PoolSnapshot, r: &PoolSnapshot) -> Vec<(&'static str, u64, u64)> {
        diff_rows(&l.counters, &r.counters)
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
