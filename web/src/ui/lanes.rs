//! One compact row per thread: name, state (colour and text), CPU, line, counters, step button.

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::LaneView;

/// Props of [`lanes`].
#[derive(Properties, PartialEq)]
pub struct LanesProps {
    /// The lanes.
    pub lanes: Rc<Vec<LaneView>>,
    /// Where given, each lane's sentence (CPU, line, counters) is the one of the lane with its
    /// index here: playing at full speed, the lanes of the board's last full redraw
    /// ([`crate::live::Live::hold`]), while states, marks and buttons are `lanes`' own.
    pub text: Option<Rc<Vec<LaneView>>>,
    /// Step one thread by hand (no buttons when absent).
    #[prop_or_default]
    pub on_step: Option<Callback<u16>>,
    /// Leave out the per-thread counters (the comparison shows them as bars).
    #[prop_or_default]
    pub compact: bool,
}

/// The threads.
pub fn lanes(props: &LanesProps) -> Html {
    html! {
        <ol class="lanes" aria-label="threads">
            { for props.lanes.iter().map(|l| {
                let state = l.state.as_str();
                let button = props.on_step.as_ref().map(|cb| {
                    let cb = cb.clone();
                    let i = l.idx;
                    html! {
                        <button class="lane-step" data-testid={format!("step-thread-{}", l.idx)}
                            disabled={!l.can_step}
                            aria-label={format!("step {}", l.name)}
                            title={format!("step {} (it runs next)", l.name)}
                            onclick={Callback::from(move |_| cb.emit(i))}>{ "step" }</button>
                    }
                });
                let t = props
                    .text
                    .as_ref()
                    .and_then(|h| h.get(l.idx as usize))
                    .filter(|t| t.idx == l.idx)
                    .unwrap_or(l);
                let marks = l.marks.iter().map(|(class, _)| *class).collect::<Vec<_>>().join(" ");
                let class = classes!("lane", state, marks.clone());
                html! {
                    <li key={l.idx as usize} {class}
                        data-testid={format!("lane-{}", l.idx)} data-state={state}
                        data-marks={marks}>
                        <span class="lane-name">{ &l.name }</span>
                        <span class="badge">{ l.state.label() }</span>
                        { for l.marks.iter().map(|(class, label)| html! {
                            <span class={classes!("mark", *class)} data-testid={format!("mark-{class}")}>{ *label }</span>
                        }) }
                        { for button }
                        <span class="lane-detail">
                            { if props.compact || t.detail.is_empty() {
                                format!("CPU {} · line {}", t.cpu, t.line)
                            } else {
                                format!("CPU {} · line {} · {}", t.cpu, t.line, t.detail)
                            } }
                        </span>
                    </li>
                }
            }) }
        </ol>
    }
}
