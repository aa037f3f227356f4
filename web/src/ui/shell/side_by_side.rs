//! Two settings of one scenario side by side ([`TwoSettings`], the comparison kind of every
//! simulated mechanism whose ```` ```herdlab-compare ```` block names a `left` and a `right`
//! setting): both sides open at the block's `stop` on the same seed and step together; each half
//! shows its title, status, invariants line, lanes, the mechanism's own state and its counters,
//! and one table lines the two sides' counters up. A mechanism says only what is its own
//! ([`SideBySide`]: its snapshot, the labels of its sides, the state line and the table's rows).
//!
//! Generic: it names no mechanism.

use std::marker::PhantomData;
use std::rc::Rc;

use herdlab_core::mechanism::Mechanism;
use yew::prelude::*;

use crate::lesson::grammar::CompareBlock;
use crate::lesson::parts::{Placing, Widget};
use crate::live::open::stopped_at;
use crate::live::pair::Pair;
use crate::live::sim_model::{SimModel, Simulated};
use crate::live::snapshot::{LaneView, StatusView};
use crate::ui::counters::{counters, CounterProps};
use crate::ui::diff_table::{diff_table, DiffTableProps};
use crate::ui::lanes::{lanes, LanesProps};
use crate::ui::shell::compare_frame::CompareFrame;
use crate::ui::shell::compare_shell::{compare_part, CompareKind};
use crate::ui::status::{status, StatusProps};

/// One half of a two-setting comparison, as its mechanism draws it (the title is the shell's).
pub struct Half {
    /// The status line.
    pub status: Rc<StatusView>,
    /// The invariants line (none where the mechanism shows none).
    pub invariant: Html,
    /// The lanes, drawn compact.
    pub lanes: Rc<Vec<LaneView>>,
    /// The mechanism's own state, under the lanes.
    pub state: Html,
    /// The side's counters.
    pub counters: Vec<(&'static str, u64)>,
}

/// What a simulated mechanism adds to make its comparison blocks [`TwoSettings`].
pub trait SideBySide: Simulated<Params: PartialEq> + Sized {
    /// Everything a side shows, read from its model once per frame.
    type Snapshot;
    /// The section's class and each half's (`("pool-compare", "pool-half")`); `None`: neither,
    /// and no `data-mechanism`.
    const CLASSES: Option<(&'static str, &'static str)>;
    /// The view of side `m` now.
    fn snapshot(m: &SimModel<Self>) -> Self::Snapshot;
    /// A side's label: the settings of `p` that tell it from `other`.
    fn label(p: &Self::Params, other: &Self::Params) -> String;
    /// Side `s`'s half (`other`: the other side's, for a scale both share).
    fn half(s: &Self::Snapshot, other: &Self::Snapshot) -> Half;
    /// The table's rows: each counter with the left's and the right's value.
    fn rows(left: &Self::Snapshot, right: &Self::Snapshot) -> Vec<(&'static str, u64, u64)>;
}

/// The comparison kind of mechanism `M`'s two-setting blocks.
pub struct TwoSettings<M>(PhantomData<M>);

impl<M: SideBySide> CompareKind for TwoSettings<M> {
    type Spec = CompareBlock<M::Params>;
    type Model = SimModel<M>;

    fn open(spec: &Self::Spec) -> Vec<(String, SimModel<M>)> {
        vec![
            ("left".into(), stopped_at::<M>(spec.left, spec.stop)),
            ("right".into(), stopped_at::<M>(spec.right, spec.stop)),
        ]
    }

    fn frame<'a>(spec: &'a Self::Spec, pair: &Pair, sides: &[&SimModel<M>]) -> CompareFrame<'a> {
        let id = &spec.id;
        let ls = M::snapshot(sides[0]);
        let rs = M::snapshot(sides[sides.len() - 1]);
        let left = M::label(&spec.left, &spec.right);
        let right = M::label(&spec.right, &spec.left);
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{left} (left) against {right} (right), same seed {}, stepped together",
                M::get(&spec.left, "seed").unwrap_or_default()
            )
        });
        let half_class = M::CLASSES.map(|c| c.1);
        let half = |side: &str, label: &str, h: Half| {
            html! {
                <div class={classes!("half", half_class)} data-testid={format!("sim-{id}-{side}")}>
                    <h4 class="half-title">{ format!("{side}: {label}") }</h4>
                    { status(&StatusProps { status: h.status }) }
                    { h.invariant }
                    { lanes(&LanesProps { lanes: h.lanes, text: None, on_step: None, compact: true }) }
                    { h.state }
                    { counters(&CounterProps { values: h.counters, compact: true }) }
                </div>
            }
        };
        CompareFrame {
            id,
            errors: &spec.errors,
            mechanism: M::CLASSES.map(|c| (c.0, <M as Mechanism>::NAME)),
            caption,
            controls: pair.controls(id),
            table: diff_table(&DiffTableProps {
                left: format!("left: {left}").into(),
                right: format!("right: {right}").into(),
                rows: M::rows(&ls, &rs),
            }),
            halves: html! {
                <>
                    { half("left", &left, M::half(&ls, &rs)) }
                    { half("right", &right, M::half(&rs, &ls)) }
                </>
            },
        }
    }
}

/// A lesson's two-setting comparison block of `M`, placed at part `at` (its id made unique).
pub fn two_settings_part<M: SideBySide>(
    mut spec: CompareBlock<M::Params>,
    place: &mut Placing,
    at: usize,
) -> Widget {
    place.widget(&mut spec.id, &mut spec.errors, at);
    compare_part::<TwoSettings<M>>(
        <M as Mechanism>::NAME,
        spec.id.clone(),
        spec.errors.clone(),
        spec,
    )
}
