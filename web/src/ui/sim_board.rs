//! A simulation widget's board ([`sim_board`]): the lanes, the counters, the mechanism's queues and
//! the code, in the four places the page's grid gives them.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::{CodeView, LaneView};
use crate::ui::code_panel::{code_panel, CodeProps};
use crate::ui::counters::{counters, CounterProps};
use crate::ui::lanes::{lanes, LanesProps};

/// What a board shows.
pub struct SimBoard {
    /// The board's own class (`lock-board`; none for herd).
    pub class: Option<&'static str>,
    /// Many lanes: the board packs them tighter.
    pub many: bool,
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// Under the lanes (accept: the connection bars).
    pub under_lanes: Html,
    /// The counters (`counter-<key>`).
    pub counters: Vec<(&'static str, u64)>,
    /// The mechanism's queues, words and machine.
    pub queues: Html,
    /// The listings.
    pub code: Rc<Vec<CodeView>>,
}

/// The board, its lanes' sentences from `text` where given ([`LanesProps::text`]); `on_thread`
/// steps a lane's thread.
pub fn sim_board(
    board: SimBoard,
    text: Option<Rc<Vec<LaneView>>>,
    on_thread: &Callback<u16>,
) -> Html {
    html! {
        <div class={classes!("board", board.class, board.many.then_some("many"))}>
            <div class="b-lanes">
                { lanes(&LanesProps { lanes: board.lanes, text, on_step: Some(on_thread.clone()), compact: false }) }
                { board.under_lanes }
            </div>
            <div class="b-counters">
                { counters(&CounterProps { values: board.counters, compact: false }) }
            </div>
            <div class="b-queues queues">
                { board.queues }
            </div>
            <div class="b-code">
                { code_panel(&CodeProps { code: board.code }) }
            </div>
        </div>
    }
}
