//! One live simulation (```` ```herdlab-sim ````): owns a [`SimModel`], maps clicks, keys and
//! animation frames to its actions, and (for the lesson's main simulation) keeps the page address
//! in step with it.

use std::rc::Rc;

use gloo_events::EventListener;
use gloo_render::{request_animation_frame, AnimationFrame};
use herdlab_core::sim::Actor;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::blocks::{Controls as ControlSet, MainInit, SimSpec};
use crate::components::accept_queue::AcceptQueuePanel;
use crate::components::code_panel::CodePanel;
use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::cpus::CpuPanel;
use crate::components::lanes::Lanes;
use crate::components::param_form::ParamForm;
use crate::components::status::StatusBar;
use crate::components::wait_queue::WaitQueuePanel;
use crate::dom::{self, Shortcut};
use crate::form::{FormParams, FormState};
use crate::model::{Action, SimModel};
use crate::playback::Player;
use crate::snapshot::Snapshot;
use herdlab_core::herd::HerdParams;

/// While playing, the main simulation rewrites the address at most this often.
const URL_EVERY_MS: f64 = 1000.0;
/// Stepping stops for a frame after this long, to keep 60 frames per second.
const FRAME_BUDGET_MS: f64 = 8.0;

/// Props of [`SimWidget`].
#[derive(Properties, PartialEq)]
pub struct SimWidgetProps {
    /// The block.
    pub spec: Rc<SimSpec>,
    /// The lesson it is in.
    pub slug: AttrValue,
    /// For the main simulation: what the page address asks for.
    #[prop_or_default]
    pub init: Option<Rc<MainInit>>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
    /// A counterexample to step through (a herd check block's replay): the actor of every step.
    #[prop_or_default]
    pub counterexample: Option<Rc<Vec<Actor>>>,
}

/// Messages of [`SimWidget`].
pub enum Msg {
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
}

/// The widget.
pub struct SimWidget {
    model: SimModel,
    form: FormState,
    raf: Option<AnimationFrame>,
    last_ts: Option<f64>,
    last_url: f64,
    link: Option<AttrValue>,
    link_ref: NodeRef,
    select_link: bool,
    replay_error: Option<String>,
    on_action: Callback<Action>,
    on_thread: Callback<u16>,
    on_network: Callback<()>,
    on_copy: Callback<()>,
    on_edit: Callback<(&'static str, String)>,
    _keys: Option<EventListener>,
    root: NodeRef,
}

impl SimWidget {
    fn main(ctx: &Context<Self>) -> bool {
        ctx.props().init.is_some()
    }

    fn schedule(&mut self, ctx: &Context<Self>) {
        if self.raf.is_none() {
            let link = ctx.link().clone();
            self.raf = Some(request_animation_frame(move |ts| {
                link.send_message(Msg::Frame(ts))
            }));
        }
    }

    /// Keep the frame loop running exactly while playing.
    fn sync_play(&mut self, ctx: &Context<Self>) {
        if self.model.play.playing {
            self.schedule(ctx);
        } else {
            self.raf = None;
            self.last_ts = None;
        }
    }

    fn link_for(&self, ctx: &Context<Self>) -> String {
        format!(
            "{}#/lesson/{}?{}",
            dom::page_base(),
            ctx.props().slug,
            self.model.link_query()
        )
    }

    /// Write the state into the address (main simulation only; throttled while playing).
    fn write_url(&mut self, ctx: &Context<Self>, force: bool) {
        if !Self::main(ctx) {
            return;
        }
        let now = dom::now_ms();
        if force || !self.model.play.playing || now - self.last_url >= URL_EVERY_MS {
            dom::replace_url(&self.link_for(ctx));
            self.last_url = now;
        }
    }
}

impl Component for SimWidget {
    type Message = Msg;
    type Properties = SimWidgetProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let spec = &props.spec;
        let (params, step, picks) = match &props.init {
            Some(i) => (i.params, i.step.or(spec.stop), i.picks.clone()),
            None => (spec.params, spec.stop, Vec::new()),
        };
        let (mut model, bad) = match (&props.counterexample, step) {
            (Some(script), _) => (SimModel::scripted(params, script.to_vec()), None),
            (None, Some(n)) if n > 0 => SimModel::replayed(params, n, &picks),
            _ => (SimModel::new(params), None),
        };
        let replay_error = bad.map(|at| {
            format!(
                "step: asked for step {}, but the run could not go past step {at}{}; it opens there.",
                step.unwrap_or(0),
                if picks.is_empty() { "" } else { " with these picks" }
            )
        });
        if step.is_none() && !dom::prefers_reduced_motion() {
            model.apply(Action::TogglePlay);
            model.announce.clear();
        }
        let root = NodeRef::default();
        let keys = {
            let link = ctx.link().clone();
            dom::widget_keys(root.clone(), ctx.props().keyboard, move |s| {
                link.send_message(Msg::Key(s))
            })
        };
        let link = ctx.link();
        let mut w = SimWidget {
            form: FormState::of(model.params()),
            model,
            raf: None,
            last_ts: None,
            last_url: 0.0,
            link: None,
            link_ref: NodeRef::default(),
            select_link: false,
            replay_error,
            on_action: link.callback(Msg::Act),
            on_thread: link.callback(|i: u16| Msg::Act(Action::StepActor(Actor::Thread(i)))),
            on_network: link.callback(|_| Msg::Act(Action::StepActor(Actor::Network))),
            on_copy: link.callback(|_| Msg::Copy),
            on_edit: link.callback(|(k, v)| Msg::Edit(k, v)),
            _keys: keys,
            root,
        };
        w.sync_play(ctx);
        w
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Act(a) => {
                let changed = self.model.apply(a);
                self.sync_play(ctx);
                if changed {
                    self.write_url(ctx, false);
                }
                changed
            }
            Msg::Key(s) => {
                let a = match s {
                    Shortcut::PlayPause => Action::TogglePlay,
                    Shortcut::Step => Action::Step,
                    Shortcut::Back => Action::Back,
                    Shortcut::Faster => Action::Faster,
                    Shortcut::Slower => Action::Slower,
                    Shortcut::Help | Shortcut::Close => return false,
                };
                Component::update(self, ctx, Msg::Act(a))
            }
            Msg::Frame(ts) => {
                self.raf = None;
                let dt = self.last_ts.map(|l| ts - l).unwrap_or(1000.0 / 60.0);
                self.last_ts = Some(ts);
                let start = dom::now_ms();
                let changed = self
                    .model
                    .advance(dt, &mut || dom::now_ms() - start > FRAME_BUDGET_MS);
                self.sync_play(ctx);
                if changed {
                    self.write_url(ctx, false);
                }
                changed
            }
            Msg::Edit(key, value) => {
                let good = *self.model.params();
                match self.form.edit(key, &value, &good) {
                    Some(p) => {
                        self.model.rebuild(p);
                        self.model.announce =
                            format!("{key} is now {value}; the simulation restarted at step 0.");
                        self.write_url(ctx, true);
                    }
                    None => {
                        if let Some(e) = self.form.error_of::<HerdParams>(key) {
                            self.model.announce = format!("{key}: {e}");
                        }
                    }
                }
                true
            }
            Msg::Copy => {
                let link = self.link_for(ctx);
                dom::copy_to_clipboard(&link);
                self.link = Some(link.into());
                self.select_link = true;
                self.model.announce = "Link made: it reopens this state (it is on the clipboard if the browser allowed it).".into();
                self.write_url(ctx, true);
                true
            }
        }
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if self.select_link {
            self.select_link = false;
            if let Some(el) = self.link_ref.cast::<HtmlInputElement>() {
                el.select();
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let spec = &props.spec;
        let m = &self.model;
        let snap = Snapshot::of(m);
        let id = &spec.id;
        let main = Self::main(ctx);
        let caption_id = format!("sim-{id}-caption");
        let full = spec.controls == ControlSet::Full;
        let errors = (!spec.errors.is_empty()).then(|| {
            html! {
                <div class="block-error" role="alert" data-testid="block-error">
                    <p>{ "This simulation block has problems; it runs with defaults for them:" }</p>
                    <ul>{ for spec.errors.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
                </div>
            }
        });
        let replay = self.replay_error.as_ref().map(|e| {
            html! {
                <p class="block-error" role="alert" data-testid="replay-error">{ e }</p>
            }
        });
        let progress = m.script().map(|script| {
            let pos = m.position();
            let text = if m.script_done() {
                format!(
                    "counterexample replayed: step {pos} of {}{}",
                    script.len(),
                    if m.sim().metrics().lost_wakeups > 0 {
                        ", and a wakeup is lost"
                    } else {
                        ""
                    }
                )
            } else if m.on_script() {
                format!("counterexample: step {pos} of {}", script.len())
            } else {
                format!("off the counterexample: you stepped by hand (step {pos}); reset to follow it again")
            };
            html! {
                <p class="replay-progress" data-testid="replay-progress"
                    data-position={pos.to_string()} data-total={script.len().to_string()}
                    data-on-script={m.on_script().to_string()}>{ text }</p>
            }
        });
        let widget = html! {
            <section class="widget sim" data-testid={format!("sim-{id}")} id={format!("sim-{id}")}
                data-widget="sim" ref={self.root.clone()}
                aria-labelledby={caption_id.clone()}>
                <header class="widget-head">
                    <p class="caption" id={caption_id}>
                        <span class="kicker">{ if main { "Playground" } else { "Simulation" } }</span>
                        { spec.caption.clone().unwrap_or_else(|| format!("Simulation {id}")) }
                    </p>
                    if props.keyboard {
                        <p class="keys-hint">{ "Keys (here unless you are working in another simulation): space play · → step · ← back · + / − speed · ? help" }</p>
                    }
                </header>
                { for errors }
                { for replay }
                { for progress }
                if full {
                    <ParamForm wid={format!("sim-{id}")} fields={HerdParams::FIELDS} form={self.form.clone()} on_edit={self.on_edit.clone()} />
                }
                <Controls
                    label={format!("controls of simulation {id}")}
                    on_action={self.on_action.clone()}
                    playing={m.play.playing}
                    can_step={m.can_step()}
                    can_back={m.position() > 0}
                    speed={m.play.speed_value()}
                    can_faster={m.play.can_faster()}
                    can_slower={m.play.can_slower()}
                    connect={m.sim().has_network().then_some(m.can_connect())}
                    on_copy={Some(self.on_copy.clone())}
                    link={self.link.clone()}
                    link_ref={self.link_ref.clone()}
                    link_note={if main { "copy a link that reopens this state" } else { "copy a link that opens this state in the playground" }}
                />
                <p class="announce" data-testid="announce" aria-live="polite">{ &m.announce }</p>
                if m.announce.is_empty() {
                    <p class="announce-hint">{ "Press step (or →) to take one step; each step is described here." }</p>
                }
                <StatusBar status={snap.status.clone()} />
                <div class={classes!("board", (snap.lanes.len() > 16).then_some("many"))}>
                    <div class="b-lanes">
                        <Lanes lanes={snap.lanes.clone()} on_step={Some(self.on_thread.clone())} />
                    </div>
                    <div class="b-counters">
                        <CounterGrid values={crate::components::counters::counter_values(&snap.metrics).to_vec()} />
                    </div>
                    <div class="b-queues queues">
                        <WaitQueuePanel queue={snap.queue.clone()} />
                        <AcceptQueuePanel accept={snap.accept.clone()} on_network={Some(self.on_network.clone())} />
                        <CpuPanel cpus={snap.cpus.clone()} />
                    </div>
                    <div class="b-code">
                        <CodePanel code={snap.code.clone()} />
                    </div>
                </div>
            </section>
        };
        if main && id != "main" {
            html! { <div class="main-sim" data-testid="sim-main">{ widget }</div> }
        } else {
            widget
        }
    }
}
