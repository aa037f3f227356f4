//! The frame every comparison shows its sides in ([`compare_frame`]): the section (`sim-<id>`), the
//! header, the block's problems, the shared buttons, the announcement, the counters' table and the
//! halves. What differs between mechanisms comes in a [`CompareFrame`].

use yew::prelude::*;

use crate::live::pair::Pair;
use crate::ui::announce::announce;
use crate::ui::block_errors::block_errors;
use crate::ui::controls::{controls, ControlsProps};
use crate::ui::widget_head::widget_head;

/// A mechanism's part of a comparison.
pub struct CompareFrame<'a> {
    /// The widget id (`sim-<id>`).
    pub id: &'a str,
    /// The block's problems.
    pub errors: &'a [String],
    /// The section's own class and its `data-mechanism` (`("lock-compare", "locks")`; none for
    /// herd).
    pub mechanism: Option<(&'static str, &'static str)>,
    /// The caption.
    pub caption: String,
    /// The shared buttons.
    pub controls: ControlsProps,
    /// The counters of every side, in one table.
    pub table: Html,
    /// The halves, one per side.
    pub halves: Html,
}

/// The comparison over `pair`, with its mechanism's `frame`.
pub fn compare_frame(pair: &Pair, frame: CompareFrame) -> Html {
    let id = frame.id;
    let (class, mechanism) = frame.mechanism.unzip();
    html! {
        <section class={classes!("widget", "compare", class)} data-testid={format!("sim-{id}")} data-widget="compare"
            data-mechanism={mechanism} ref={pair.root.clone()} aria-labelledby={format!("sim-{id}-caption")}>
            { widget_head(format!("sim-{id}-caption"), "Compare", frame.caption, false) }
            { block_errors("comparison", frame.errors) }
            { controls(&frame.controls) }
            { announce(&pair.announce, false) }
            { frame.table }
            <div class="halves">
                { frame.halves }
            </div>
        </section>
    }
}
