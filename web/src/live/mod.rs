//! The controller of one live simulation widget ([`Live`]), over any `dyn` [`LiveModel`]: maps clicks,
//! keys, form edits and animation frames to the model's actions, makes "copy link", and (for the
//! lesson's main simulation) keeps the page address in step with it. Around it, what every live
//! widget shares whatever its mechanism: the mechanism's site trait ([`mechanism`]), the generic
//! model ([`sim_model`]) and what a widget needs of any model ([`model`]), the form, the plain views
//! of a snapshot, playback, the frame loop, the keys, where a widget opens ([`open`]) and the
//! side-by-side controller ([`pair`]).

pub mod bench;
pub mod describe;
pub mod field;
pub mod form;
pub mod frame_loop;
pub mod keys;
pub mod mechanism;
pub mod model;
pub mod open;
pub mod pair;
pub mod playback;
pub mod sim_model;
pub mod snapshot;
#[cfg(feature = "timeline")]
pub mod timeline;

use std::cell::RefCell;
use std::rc::Rc;

use gloo_events::EventListener;
use herdlab_core::sim::Actor;
use web_sys::HtmlInputElement;
use yew::html::Scope;
use yew::prelude::*;

use crate::dom::{self, Shortcut};
use crate::live::form::FormState;
use crate::live::frame_loop::{advance_within, FrameLoop};
use crate::live::keys::key_action;
use crate::live::model::LiveModel;
use crate::live::sim_model::Action;
use crate::live::snapshot::LaneView;
use crate::ui::sim_board::SimBoard;

/// While playing, the main simulation rewrites the address at most this often (browsers refuse
/// more than about 100 address changes in 10 s). Whenever it stops playing (a pause, the run's end,
/// any manual step) the address is written at once, so it always reopens what is on screen.
const URL_EVERY_MS: f64 = 250.0;

/// What the board showed at its last full redraw, and when (see [`Live::hold`]).
struct Held {
    at: f64,
    lanes: Rc<Vec<LaneView>>,
    queues: Html,
}

/// Messages of a live simulation widget.
pub enum LiveMsg {
    /// A button.
    Act(Action),
    /// An animation frame, with its timestamp.
    Frame(f64),
    /// A form field changed.
    Edit(&'static str, String),
    /// "Copy link".
    Copy,
    /// A keyboard shortcut.
    Key(Shortcut),
    /// Show or hide the timeline (in a build without it, showing it hands the widget to the lazily
    /// loaded bundle: `crate::ui::shell::sim_shell`).
    Timeline(bool),
    /// The lazily loaded bundle handed the widget back at this state (its "copy link" query):
    /// `crate::ui::shell::handoff`.
    #[cfg(not(feature = "timeline"))]
    HandBack(String),
}

/// Where a widget is: its lesson, and whether it is the page's main simulation.
pub struct Place<'a> {
    /// The lesson it is in (where "copy link" leads).
    pub slug: &'a str,
    /// The main simulation (the one the page address follows).
    pub main: bool,
}

/// The model and its widget state (one type for every mechanism: the model is a trait object).
pub struct Live {
    /// The model.
    pub model: Box<dyn LiveModel>,
    /// The parameter form.
    pub form: FormState,
    frames: FrameLoop,
    last_url: f64,
    /// The link made by "copy link".
    pub link: Option<AttrValue>,
    /// The link output.
    pub link_ref: NodeRef,
    select_link: bool,
    /// The buttons.
    pub on_action: Callback<Action>,
    /// A lane's "step this thread".
    pub on_thread: Callback<u16>,
    /// "Copy link".
    pub on_copy: Callback<()>,
    /// A form field.
    pub on_edit: Callback<(&'static str, String)>,
    _keys: Option<EventListener>,
    held: RefCell<Option<Held>>,
    /// The widget's root element.
    pub root: NodeRef,
    /// The timeline: whether it shows, and the one built last.
    #[cfg(feature = "timeline")]
    pub timeline: crate::live::timeline::Cache,
}

impl Live {
    /// Open with `model`, playing if `autoplay` (and motion is welcome).
    pub fn new<C>(
        ctx: &Context<C>,
        mut model: Box<dyn LiveModel>,
        autoplay: bool,
        keyboard: bool,
    ) -> Self
    where
        C: Component<Message = LiveMsg>,
    {
        if autoplay && !dom::prefers_reduced_motion() {
            model.apply(Action::TogglePlay);
            model.announce_mut().clear();
        }
        let root = NodeRef::default();
        let keys = {
            let link = ctx.link().clone();
            dom::widget_keys(root.clone(), keyboard, move |s| {
                link.send_message(LiveMsg::Key(s))
            })
        };
        let link = ctx.link();
        let mut w = Live {
            form: model.form(),
            model,
            frames: FrameLoop::default(),
            last_url: 0.0,
            link: None,
            link_ref: NodeRef::default(),
            select_link: false,
            on_action: link.callback(LiveMsg::Act),
            on_thread: link.callback(|i: u16| LiveMsg::Act(Action::StepActor(Actor::Thread(i)))),
            on_copy: link.callback(|_| LiveMsg::Copy),
            on_edit: link.callback(|(k, v)| LiveMsg::Edit(k, v)),
            _keys: keys,
            held: RefCell::default(),
            root,
            #[cfg(feature = "timeline")]
            timeline: Default::default(),
        };
        w.sync_play(link);
        w
    }

    /// Keep the frame loop running exactly while playing.
    fn sync_play<C: Component<Message = LiveMsg>>(&mut self, link: &Scope<C>) {
        self.frames
            .sync(self.model.play().playing, link, LiveMsg::Frame);
    }

    fn link_for(&self, at: &Place) -> String {
        format!(
            "{}#/lesson/{}?{}",
            dom::page_base(),
            at.slug,
            self.model.link_query()
        )
    }

    /// Write the state into the address (main simulation only; throttled while playing).
    pub fn write_url(&mut self, at: &Place, force: bool) {
        if !at.main {
            return;
        }
        let now = dom::now_ms();
        if force || !self.model.play().playing || now - self.last_url >= URL_EVERY_MS {
            dom::replace_url(&self.link_for(at));
            self.last_url = now;
        }
    }

    /// What of board `b` to draw as it was: playing at full speed within
    /// [`playback::TEXT_EVERY_MS`] of the last full redraw ([`playback::Playback::holds_text`]), the queues (put back in `b`) and the lanes whose sentences the lanes show
    /// (returned; states, marks and buttons stay `b`'s); otherwise nothing, and `b` is remembered
    /// as the last full redraw.
    pub fn hold(&self, b: &mut SimBoard) -> Option<Rc<Vec<LaneView>>> {
        let now = dom::now_ms();
        let mut held = self.held.borrow_mut();
        if let Some(h) = &*held {
            if self.model.play().holds_text(now - h.at) {
                b.queues = h.queues.clone();
                return Some(h.lanes.clone());
            }
        }
        *held = Some(Held {
            at: now,
            lanes: b.lanes.clone(),
            queues: b.queues.clone(),
        });
        None
    }

    /// Handle a message; whether to render again.
    pub fn update<C>(&mut self, link: &Scope<C>, at: &Place, msg: LiveMsg) -> bool
    where
        C: Component<Message = LiveMsg>,
    {
        if !matches!(msg, LiveMsg::Frame(_)) {
            // whatever it changes shows at once, in full
            *self.held.get_mut() = None;
        }
        match msg {
            LiveMsg::Act(a) => {
                let was_playing = self.model.play().playing;
                let changed = self.model.apply(a);
                self.sync_play(link);
                let stopped = was_playing && !self.model.play().playing;
                if changed || stopped {
                    self.write_url(at, stopped);
                }
                changed || stopped
            }
            LiveMsg::Key(s) => match key_action(s) {
                Some(a) => self.update(link, at, LiveMsg::Act(a)),
                None => false,
            },
            LiveMsg::Frame(ts) => {
                let (dt, budget) = self.frames.tick(ts);
                let (changed, cut) = advance_within(&mut *self.model, dt, budget);
                self.frames.cut = cut;
                self.sync_play(link);
                let stopped = !self.model.play().playing;
                if changed || stopped {
                    self.write_url(at, stopped);
                }
                changed
            }
            LiveMsg::Edit(key, value) => {
                if self.model.edit(&mut self.form, key, &value) {
                    *self.model.announce_mut() =
                        format!("{key} is now {value}; the simulation restarted at step 0.");
                    self.write_url(at, true);
                } else if let Some(e) = self.form.error_in(self.model.fields(), key) {
                    *self.model.announce_mut() = format!("{key}: {e}");
                }
                true
            }
            #[cfg(feature = "timeline")]
            LiveMsg::Timeline(open) => {
                self.timeline.open = open;
                true
            }
            #[cfg(not(feature = "timeline"))]
            LiveMsg::Timeline(_) | LiveMsg::HandBack(_) => false,
            LiveMsg::Copy => {
                let link = self.link_for(at);
                dom::copy_to_clipboard(&link);
                self.link = Some(link.into());
                self.select_link = true;
                *self.model.announce_mut() = "Link made: it reopens this state (it is on the clipboard if the browser allowed it).".into();
                self.write_url(at, true);
                true
            }
        }
    }

    /// After a render: select a link just made.
    pub fn rendered(&mut self) {
        if self.select_link {
            self.select_link = false;
            if let Some(el) = self.link_ref.cast::<HtmlInputElement>() {
                el.select();
            }
        }
    }
}
