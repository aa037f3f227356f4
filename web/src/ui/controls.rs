//! The stepping buttons, the speed ladder and "copy link".

use yew::prelude::*;

use crate::live::pair::Pair;
use crate::live::playback::Playback;
use crate::live::sim_model::Action;
use crate::live::Live;

/// Props of [`controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// What the buttons do.
    pub on_action: Callback<Action>,
    /// Playing now.
    pub playing: bool,
    /// A step can be taken.
    pub can_step: bool,
    /// A step can be undone.
    pub can_back: bool,
    /// Steps per second.
    pub speed: u32,
    /// Not at the top of the ladder.
    pub can_faster: bool,
    /// Not at the bottom.
    pub can_slower: bool,
    /// The connect button: absent (`None`) or enabled or not.
    #[prop_or_default]
    pub connect: Option<bool>,
    /// Show "run to the end".
    #[prop_or_default]
    pub run_to_end: bool,
    /// Its tooltip (default: "step until the run ends").
    #[prop_or_default]
    pub run_to_end_note: Option<AttrValue>,
    /// Show "next wakeup" (the herd's; the locks have none).
    #[prop_or(true)]
    pub next_wakeup: bool,
    /// "Copy link" (absent: no button).
    #[prop_or_default]
    pub on_copy: Option<Callback<()>>,
    /// The link made by "copy link".
    #[prop_or_default]
    pub link: Option<AttrValue>,
    /// Where the link leads, for its label.
    #[prop_or_default]
    pub link_note: AttrValue,
    /// Where the link output goes (so it can be selected).
    #[prop_or_default]
    pub link_ref: NodeRef,
    /// The group's label.
    pub label: AttrValue,
}

impl ControlsProps {
    /// The stepping buttons and the speed ladder of `play`, with no optional buttons.
    pub fn of(
        label: AttrValue,
        on_action: Callback<Action>,
        [playing, can_step, can_back]: [bool; 3],
        play: &Playback,
    ) -> Self {
        ControlsProps {
            on_action,
            playing,
            can_step,
            can_back,
            speed: play.speed_value(),
            can_faster: play.can_faster(),
            can_slower: play.can_slower(),
            connect: None,
            run_to_end: false,
            run_to_end_note: None,
            next_wakeup: true,
            on_copy: None,
            link: None,
            link_note: AttrValue::default(),
            link_ref: NodeRef::default(),
            label,
        }
    }
}

/// The controls.
pub fn controls(p: &ControlsProps) -> Html {
    let act = |a: Action| {
        let cb = p.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a))
    };
    let connect = p.connect.map(|enabled| {
        html! {
            <button data-testid="connect" disabled={!enabled} onclick={act(Action::Connect)}
                title="a connection arrives now (the network takes the next step)">{ "connect" }</button>
        }
    });
    let copy = p.on_copy.as_ref().map(|cb| {
        let cb = cb.clone();
        html! {
            <span class="copy">
                <button data-testid="copy-link" onclick={Callback::from(move |_| cb.emit(()))}
                    title={p.link_note.clone()}>{ "copy link" }</button>
                if let Some(link) = &p.link {
                    <input data-testid="link-output" class="link-output" readonly=true
                        ref={p.link_ref.clone()} value={link.clone()} aria-label="link to this state" />
                }
            </span>
        }
    });
    html! {
        <div class="controls" role="group" aria-label={p.label.clone()}>
            <span class="step-buttons">
                <button data-testid="step-back" disabled={!p.can_back} onclick={act(Action::Back)}
                    aria-label="step back" title="step back (←)">{ "◀ back" }</button>
                <button data-testid="step-forward" disabled={!p.can_step} onclick={act(Action::Step)}
                    aria-label="step forward" title="step (→)">{ "step ▶" }</button>
                <button data-testid="play" class="play" aria-pressed={p.playing.to_string()}
                    disabled={!p.playing && !p.can_step}
                    onclick={act(Action::TogglePlay)} title="play or pause (space)">
                    { if p.playing { "❚❚ pause" } else { "▶ play" } }
                </button>
                if p.next_wakeup {
                    <button data-testid="next-wakeup" disabled={!p.can_step} onclick={act(Action::NextWakeup)}
                        title="step until a sleeper is woken">{ "next wakeup" }</button>
                }
                if p.run_to_end {
                    <button data-testid="run-end" disabled={!p.can_step} onclick={act(Action::RunToEnd)}
                        title={p.run_to_end_note.clone().unwrap_or(AttrValue::Static("step until the run ends"))}>{ "run to end" }</button>
                }
                { for connect }
                <button data-testid="reset" disabled={!p.can_back} onclick={act(Action::Reset)}
                    title="back to step 0">{ "reset" }</button>
            </span>
            <span class="speed-box">
                <button data-testid="speed-down" disabled={!p.can_slower} onclick={act(Action::Slower)}
                    aria-label="slower" title="slower (−)">{ "−" }</button>
                <span class="speed-read" aria-live="off">
                    <output data-testid="speed">{ p.speed }</output>{ " steps/s" }
                </span>
                <button data-testid="speed-up" disabled={!p.can_faster} onclick={act(Action::Faster)}
                    aria-label="faster" title="faster (+)">{ "+" }</button>
            </span>
            { for copy }
        </div>
    }
}

// The controls of the live controllers (here, so that `live` need not know the view).
impl Live {
    /// The controls of widget `id`: the buttons, the speed ladder and "copy link".
    pub fn controls(&self, id: &str, main: bool) -> ControlsProps {
        let m = &self.model;
        let mut c = ControlsProps::of(
            format!("controls of simulation {id}").into(),
            self.on_action.clone(),
            [m.play().playing, m.can_step(), m.position() > 0],
            m.play(),
        );
        c.on_copy = Some(self.on_copy.clone());
        c.link = self.link.clone();
        c.link_ref = self.link_ref.clone();
        c.link_note = if main {
            "copy a link that reopens this state"
        } else {
            "copy a link that opens this state in the playground"
        }
        .into();
        c
    }
}

impl Pair {
    /// The shared controls of comparison `id` (with "run to end").
    pub fn controls(&self, id: &str) -> ControlsProps {
        let mut c = ControlsProps::of(
            format!("controls of comparison {id}").into(),
            self.on_action.clone(),
            [self.playing(), self.can_step(), self.can_back()],
            self.left().play(),
        );
        c.run_to_end = true;
        c
    }
}
