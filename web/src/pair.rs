//! The controller of two simulations side by side ([`Pair`]), over any [`LiveModel`]: same
//! buttons, same keys, stepped together, one announcement for both.

use gloo_events::EventListener;
use yew::html::Scope;
use yew::prelude::*;

use crate::components::controls::ControlsProps;
use crate::dom::{self, Shortcut};
use crate::frame_loop::{advance_within, FrameLoop, FRAME_BUDGET_MS};
use crate::key_action::key_action;
use crate::live_model::LiveModel;
use crate::model::Action;

/// Messages of a side-by-side widget.
pub enum PairMsg {
    /// A shared button.
    Act(Action),
    /// An animation frame.
    Frame(f64),
    /// A keyboard shortcut.
    Key(Shortcut),
}

/// The two models and their widget state.
pub struct Pair<M: LiveModel> {
    /// The left model.
    pub left: M,
    /// The right model.
    pub right: M,
    frames: FrameLoop,
    /// What the last action did, on both sides.
    pub announce: String,
    /// The shared buttons.
    pub on_action: Callback<Action>,
    _keys: Option<EventListener>,
    /// The widget's root element.
    pub root: NodeRef,
}

impl<M: LiveModel> Pair<M> {
    /// Open with these two models.
    pub fn new<C>(ctx: &Context<C>, left: M, right: M, keyboard: bool) -> Self
    where
        C: Component<Message = PairMsg>,
    {
        let root = NodeRef::default();
        let keys = {
            let link = ctx.link().clone();
            dom::widget_keys(root.clone(), keyboard, move |s| {
                link.send_message(PairMsg::Key(s))
            })
        };
        Pair {
            left,
            right,
            frames: FrameLoop::default(),
            announce: String::new(),
            on_action: ctx.link().callback(PairMsg::Act),
            _keys: keys,
            root,
        }
    }

    /// Either side plays.
    pub fn playing(&self) -> bool {
        self.left.play().playing || self.right.play().playing
    }

    /// Either side can step.
    pub fn can_step(&self) -> bool {
        self.left.can_step() || self.right.can_step()
    }

    /// Either side can step back.
    pub fn can_back(&self) -> bool {
        self.left.position() > 0 || self.right.position() > 0
    }

    /// The shared controls of comparison `id` (with "run to end").
    pub fn controls(&self, id: &str) -> ControlsProps {
        let mut c = ControlsProps::of(
            format!("controls of comparison {id}").into(),
            self.on_action.clone(),
            [self.playing(), self.can_step(), self.can_back()],
            self.left.play(),
        );
        c.run_to_end = true;
        c
    }

    fn sync_play<C: Component<Message = PairMsg>>(&mut self, link: &Scope<C>) {
        self.frames.sync(self.playing(), link, PairMsg::Frame);
    }

    fn say(&mut self) {
        self.announce = format!(
            "left: {} · right: {}",
            self.left.announce(),
            self.right.announce()
        );
    }

    /// Handle a message; whether to render again.
    pub fn update<C>(&mut self, link: &Scope<C>, msg: PairMsg) -> bool
    where
        C: Component<Message = PairMsg>,
    {
        match msg {
            PairMsg::Act(Action::TogglePlay) => {
                if self.playing() {
                    self.left.apply(Action::Pause);
                    self.right.apply(Action::Pause);
                } else {
                    self.left.apply(Action::TogglePlay);
                    self.right.apply(Action::TogglePlay);
                }
                self.say();
                self.sync_play(link);
                true
            }
            PairMsg::Act(a) => {
                let l = self.left.apply(a);
                let r = self.right.apply(a);
                self.say();
                self.sync_play(link);
                l || r
            }
            PairMsg::Key(s) => match key_action(s) {
                Some(a) => self.update(link, PairMsg::Act(a)),
                None => false,
            },
            PairMsg::Frame(ts) => {
                let dt = self.frames.tick(ts);
                let half = FRAME_BUDGET_MS / 2.0;
                let l = advance_within(&mut self.left, dt, half);
                let r = advance_within(&mut self.right, dt, half);
                if !self.playing() {
                    self.say();
                }
                self.sync_play(link);
                l || r
            }
        }
    }
}
