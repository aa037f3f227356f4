//! The frame every simulation widget shows its panels in ([`sim_frame`]): the section
//! (`sim-<id>`), the header, the block's and the replay's problems, the parameter form (controls
//! full), the buttons, the announcement, the status line and the board, wrapped for the page's
//! main simulation. What differs between mechanisms comes in a [`SimFrame`].

use std::rc::Rc;

use yew::prelude::*;

use crate::lesson::grammar::Controls as ControlSet;
use crate::live::snapshot::StatusView;
use crate::live::Live;
use crate::ui::announce::announce;
use crate::ui::block_errors::{block_errors, replay_error};
use crate::ui::controls::{controls, ControlsProps};
use crate::ui::main_sim::main_wrap;
use crate::ui::param_form::ParamForm;
use crate::ui::sim_board::{sim_board, SimBoard};
use crate::ui::status::{status, StatusProps};
use crate::ui::widget_head::widget_head;

/// A mechanism's part of a simulation widget, in the order it shows.
pub struct SimFrame {
    /// The section's own class and its `data-mechanism` (`("lock-sim", "locks")`; none for herd).
    pub mechanism: Option<(&'static str, &'static str)>,
    /// The section's `data-strategy` (accept only).
    pub strategy: Option<&'static str>,
    /// The word before the caption ([`kicker`], or "Counterexample").
    pub kicker: &'static str,
    /// The caption.
    pub caption: String,
    /// The buttons.
    pub controls: ControlsProps,
    /// Between the problems and the form (the herd counterexample's progress).
    pub before_form: Html,
    /// Between the announcement and the status line (the lock schedule's progress).
    pub after_announce: Html,
    /// The status line.
    pub status: Rc<StatusView>,
    /// Between the status line and the board (the lock invariants).
    pub after_status: Html,
    /// The board.
    pub board: SimBoard,
    /// After the board (a note on the form).
    pub after_board: Html,
}

/// What the frame shows of the block itself, whatever its mechanism.
pub struct BlockHead<'a> {
    /// The widget id (`sim-<id>`).
    pub id: &'a str,
    /// What was wrong with the block.
    pub errors: &'a [String],
    /// Which controls it shows.
    pub controls: ControlSet,
    /// Whether it is the lesson's playground (the page's main simulation).
    pub main: bool,
}

/// The usual word before a caption: "Playground" for the page's main simulation.
pub fn kicker(main: bool) -> &'static str {
    if main {
        "Playground"
    } else {
        "Simulation"
    }
}

/// The widget of block `spec` (`keyboard`: the page's keys drive it) over `live`, with what its
/// replay could not reach and its mechanism's `frame`.
pub fn sim_frame(
    spec: BlockHead,
    keyboard: bool,
    live: &Live,
    replay: Option<&str>,
    mut frame: SimFrame,
) -> Html {
    let id = spec.id;
    let main = spec.main;
    let caption_id = format!("sim-{id}-caption");
    let (class, mechanism) = frame.mechanism.unzip();
    let text = live.hold(&mut frame.board);
    let widget = html! {
        <section class={classes!("widget", "sim", class)} data-testid={format!("sim-{id}")} id={format!("sim-{id}")}
            data-widget="sim" data-mechanism={mechanism} data-strategy={frame.strategy}
            ref={live.root.clone()} aria-labelledby={caption_id.clone()}>
            { widget_head(caption_id, frame.kicker, frame.caption, keyboard) }
            { block_errors("simulation", spec.errors) }
            { replay_error(replay) }
            { frame.before_form }
            if spec.controls == ControlSet::Full {
                <ParamForm wid={format!("sim-{id}")} fields={live.model.fields()} form={live.form.clone()} on_edit={live.on_edit.clone()} />
            }
            { controls(&frame.controls) }
            { announce(live.model.announce(), true) }
            { frame.after_announce }
            { status(&StatusProps { status: frame.status }) }
            { frame.after_status }
            { sim_board(frame.board, text, &live.on_thread) }
            { frame.after_board }
        </section>
    };
    main_wrap(main, id, widget)
}
