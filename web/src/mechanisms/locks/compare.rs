//! Two lock simulations side by side (```` ```herdlab-compare ```` with `mechanism=locks`): same
//! seed and parameters, a different lock on each side, stepped together: the lock kind of
//! [`crate::ui::shell::compare_shell::CompareShell`]; this file says how its sides open and what each half shows.

use yew::prelude::*;

use crate::live::pair::Pair;
use crate::mechanisms::locks::blocks::LockCompareSpec;
use crate::mechanisms::locks::model::LockModel;
use crate::mechanisms::locks::snapshot::LockSnapshot;
use crate::ui::counters::{counters, CounterProps};
use crate::ui::diff_table::{diff_rows, diff_table, DiffTableProps};
use crate::ui::lanes::{lanes, LanesProps};
use crate::ui::shell::compare_frame::CompareFrame;
use crate::ui::shell::compare_shell::CompareKind;
use crate::ui::status::{status, StatusProps};
use crate::ui::words::{words_panel, WordsProps};
use crate::ui::worker_bars::{bar_scale, worker_bars, WorkerBarsProps};

/// The lock kind of comparison.
pub struct LockCompare;

impl CompareKind for LockCompare {
    type Spec = LockCompareSpec;
    type Model = LockModel;

    fn open(spec: &LockCompareSpec) -> Vec<(String, LockModel)> {
        let mut left = LockModel::new(spec.left);
        let mut right = LockModel::new(spec.right);
        if let Some(n) = spec.stop {
            left.advance_to(n, &[]);
            right.advance_to(n, &[]);
        }
        vec![("left".into(), left), ("right".into(), right)]
    }

    fn frame<'a>(spec: &'a LockCompareSpec, pair: &Pair, sides: &[&LockModel]) -> CompareFrame<'a> {
        let id = &spec.id;
        let (left, right) = (sides[0], sides[sides.len() - 1]);
        let ls = LockSnapshot::of(left);
        let rs = LockSnapshot::of(right);
        let scale = bar_scale(&ls.lanes, &rs.lanes);
        let name = |m: &LockModel| m.params().lock.name();
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} (left) against {} (right): {} threads × {} rounds on {} CPUs, same seed {}, stepped together",
                spec.left.lock.name(),
                spec.right.lock.name(),
                spec.left.threads,
                spec.left.rounds,
                spec.left.cpus,
                spec.left.seed
            )
        });
        let mut controls = pair.controls(id);
        controls.next_wakeup = false;
        let half = |side: &'static str, m: &LockModel, s: &LockSnapshot| {
            html! {
                <div class="half" data-testid={format!("sim-{id}-{side}")} data-lock={name(m)}>
                    <h4 class="half-title">{ format!("{side}: {}", name(m)) }</h4>
                    { status(&StatusProps { status: s.status.clone() }) }
                    { words_panel(&WordsProps { words: s.words.clone(), compact: true }) }
                    { lanes(&LanesProps { lanes: s.lanes.clone(), text: None, on_step: None, compact: true }) }
                    { worker_bars(&WorkerBarsProps { lanes: s.lanes.clone(), scale,
                        caption: "per thread: critical sections entered".into(), who: "thread".into(),
                        columns: &["acquired"][..], side: side.into() }) }
                    { counters(&CounterProps { values: s.counters.clone(), compact: true }) }
                </div>
            }
        };
        CompareFrame {
            id,
            errors: &spec.errors,
            mechanism: Some(("lock-compare", "locks")),
            caption,
            controls,
            table: html! {
                { diff_table(&DiffTableProps { left: format!("left: {}", name(left)).into(),
                    right: format!("right: {}", name(right)).into(),
                    rows: diff_rows(&ls.counters, &rs.counters) }) }
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
