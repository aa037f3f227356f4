//! The controller of simulations side by side ([`Pair`]: two, or more where a mechanism's
//! comparison has more sides), over any `dyn` [`LiveModel`]: same buttons, same keys, stepped together,
//! one announcement for all.

use gloo_events::EventListener;
use yew::html::Scope;
use yew::prelude::*;

use crate::dom::{self, Shortcut};
use crate::live::frame_loop::{advance_within, FrameLoop};
use crate::live::keys::key_action;
use crate::live::model::LiveModel;
use crate::live::sim_model::Action;

/// Messages of a side-by-side widget.
pub enum PairMsg {
    /// A shared button.
    Act(Action),
    /// An animation frame.
    Frame(f64),
    /// A keyboard shortcut.
    Key(Shortcut),
}

/// The models and their widget state (one type for every mechanism: the models are trait objects).
pub struct Pair {
    /// The models, in order (left, right for two).
    pub sides: Vec<Box<dyn LiveModel>>,
    /// Each side's name in the announcement ("left", "right", or a strategy).
    labels: Vec<String>,
    frames: FrameLoop,
    /// What the last action did, on both sides.
    pub announce: String,
    /// The shared buttons.
    pub on_action: Callback<Action>,
    _keys: Option<EventListener>,
    /// The widget's root element.
    pub root: NodeRef,
}

impl Pair {
    /// Open with these models, each named by its label in the announcement.
    pub fn new<C>(
        ctx: &Context<C>,
        sides: Vec<(String, Box<dyn LiveModel>)>,
        keyboard: bool,
    ) -> Self
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
        let (labels, sides) = sides.into_iter().unzip();
        Pair {
            sides,
            labels,
            frames: FrameLoop::default(),
            announce: String::new(),
            on_action: ctx.link().callback(PairMsg::Act),
            _keys: keys,
            root,
        }
    }

    /// The first side (left).
    pub fn left(&self) -> &dyn LiveModel {
        &*self.sides[0]
    }

    /// Any side plays.
    pub fn playing(&self) -> bool {
        self.sides.iter().any(|m| m.play().playing)
    }

    /// Any side can step.
    pub fn can_step(&self) -> bool {
        self.sides.iter().any(|m| m.can_step())
    }

    /// Any side can step back.
    pub fn can_back(&self) -> bool {
        self.sides.iter().any(|m| m.position() > 0)
    }

    fn sync_play<C: Component<Message = PairMsg>>(&mut self, link: &Scope<C>) {
        self.frames.sync(self.playing(), link, PairMsg::Frame);
    }

    fn say(&mut self) {
        self.announce = self
            .labels
            .iter()
            .zip(&self.sides)
            .map(|(l, m)| format!("{l}: {}", m.announce()))
            .collect::<Vec<_>>()
            .join(" · ");
    }

    /// Handle a message; whether to render again.
    pub fn update<C>(&mut self, link: &Scope<C>, msg: PairMsg) -> bool
    where
        C: Component<Message = PairMsg>,
    {
        match msg {
            PairMsg::Act(Action::TogglePlay) => {
                let a = if self.playing() {
                    Action::Pause
                } else {
                    Action::TogglePlay
                };
                for m in &mut self.sides {
                    m.apply(a);
                }
                self.say();
                self.sync_play(link);
                true
            }
            PairMsg::Act(a) => {
                let mut changed = false;
                for m in &mut self.sides {
                    changed |= m.apply(a);
                }
                self.say();
                self.sync_play(link);
                changed
            }
            PairMsg::Key(s) => match key_action(s) {
                Some(a) => self.update(link, PairMsg::Act(a)),
                None => false,
            },
            PairMsg::Frame(ts) => {
                let (dt, budget) = self.frames.tick(ts);
                let share = budget / self.sides.len().max(1) as f64;
                let (mut changed, mut cut) = (false, false);
                for m in &mut self.sides {
                    let (c, k) = advance_within(&mut **m, dt, share);
                    changed |= c;
                    cut |= k;
                }
                self.frames.cut = cut;
                if !self.playing() {
                    self.say();
                }
                self.sync_play(link);
                changed
            }
        }
    }
}
