//! Two lock simulations side by side (```` ```herdlab-compare ```` with `mechanism=locks`): same
//! seed and parameters, a different lock on each side, stepped together.

use std::rc::Rc;

use gloo_events::EventListener;
use gloo_render::{request_animation_frame, AnimationFrame};
use yew::prelude::*;

use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::diff_table::DiffTable;
use crate::components::lanes::Lanes;
use crate::components::lock_words::LockWords;
use crate::components::status::StatusBar;
use crate::components::worker_bars::WorkerBars;
use crate::dom::{self, Shortcut};
use crate::lock_blocks::LockCompareSpec;
use crate::lock_model::LockModel;
use crate::lock_snapshot::LockSnapshot;
use crate::model::Action;
use crate::playback::Player;

const FRAME_BUDGET_MS: f64 = 8.0;

/// Props of [`LockCompareWidget`].
#[derive(Properties, PartialEq)]
pub struct LockCompareProps {
    /// The block.
    pub spec: Rc<LockCompareSpec>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

/// Messages of [`LockCompareWidget`].
pub enum Msg {
    /// A shared button.
    Act(Action),
    /// An animation frame.
    Frame(f64),
    /// A keyboard shortcut.
    Key(Shortcut),
}

/// The widget.
pub struct LockCompareWidget {
    left: LockModel,
    right: LockModel,
    raf: Option<AnimationFrame>,
    last_ts: Option<f64>,
    announce: String,
    on_action: Callback<Action>,
    _keys: Option<EventListener>,
    root: NodeRef,
}

impl LockCompareWidget {
    fn playing(&self) -> bool {
        self.left.play.playing || self.right.play.playing
    }

    fn sync_play(&mut self, ctx: &Context<Self>) {
        if self.playing() {
            if self.raf.is_none() {
                let link = ctx.link().clone();
                self.raf = Some(request_animation_frame(move |ts| {
                    link.send_message(Msg::Frame(ts))
                }));
            }
        } else {
            self.raf = None;
            self.last_ts = None;
        }
    }

    fn say(&mut self) {
        self.announce = format!(
            "left: {} · right: {}",
            self.left.announce, self.right.announce
        );
    }
}

impl Component for LockCompareWidget {
    type Message = Msg;
    type Properties = LockCompareProps;

    fn create(ctx: &Context<Self>) -> Self {
        let spec = &ctx.props().spec;
        let mut left = LockModel::new(spec.left);
        let mut right = LockModel::new(spec.right);
        if let Some(n) = spec.stop {
            left.advance_to(n, &[]);
            right.advance_to(n, &[]);
        }
        let root = NodeRef::default();
        let keys = {
            let link = ctx.link().clone();
            dom::widget_keys(root.clone(), ctx.props().keyboard, move |s| {
                link.send_message(Msg::Key(s))
            })
        };
        LockCompareWidget {
            left,
            right,
            raf: None,
            last_ts: None,
            announce: String::new(),
            on_action: ctx.link().callback(Msg::Act),
            _keys: keys,
            root,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Act(Action::TogglePlay) => {
                if self.playing() {
                    self.left.apply(Action::Pause);
                    self.right.apply(Action::Pause);
                } else {
                    self.left.apply(Action::TogglePlay);
                    self.right.apply(Action::TogglePlay);
                }
                self.say();
                self.sync_play(ctx);
                true
            }
            Msg::Act(a) => {
                let l = self.left.apply(a);
                let r = self.right.apply(a);
                self.say();
                self.sync_play(ctx);
                l || r
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
                let half = FRAME_BUDGET_MS / 2.0;
                let start = dom::now_ms();
                let l = self.left.advance(dt, &mut || dom::now_ms() - start > half);
                let start = dom::now_ms();
                let r = self.right.advance(dt, &mut || dom::now_ms() - start > half);
                if !self.playing() {
                    self.say();
                }
                self.sync_play(ctx);
                l || r
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let spec = &ctx.props().spec;
        let id = &spec.id;
        let ls = LockSnapshot::of(&self.left);
        let rs = LockSnapshot::of(&self.right);
        let scale = ls
            .lanes
            .iter()
            .chain(rs.lanes.iter())
            .flat_map(|l| l.bars.iter().copied())
            .max()
            .unwrap_or(0)
            .max(1);
        let name = |m: &LockModel| m.params().lock.name();
        let play = &self.left.play;
        let half = |side: &'static str, m: &LockModel, s: &LockSnapshot| {
            html! {
                <div class="half" data-testid={format!("sim-{id}-{side}")} data-lock={name(m)}>
                    <h4 class="half-title">{ format!("{side}: {}", name(m)) }</h4>
                    <StatusBar status={s.status.clone()} />
                    <LockWords words={s.words.clone()} compact=true />
                    <Lanes lanes={s.lanes.clone()} compact=true />
                    <WorkerBars lanes={s.lanes.clone()} scale={scale}
                        caption="per thread: critical sections entered" who="thread"
                        columns={&["acquired"][..]} side={side} />
                    <CounterGrid values={s.counters.clone()} compact=true />
                </div>
            }
        };
        html! {
            <section class="widget compare lock-compare" data-testid={format!("sim-{id}")} data-widget="compare"
                data-mechanism="locks" ref={self.root.clone()} aria-labelledby={format!("sim-{id}-caption")}>
                <header class="widget-head">
                    <p class="caption" id={format!("sim-{id}-caption")}>
                        <span class="kicker">{ "Compare" }</span>
                        { spec.caption.clone().unwrap_or_else(|| format!(
                            "{} (left) against {} (right): {} threads × {} rounds on {} CPUs, same seed {}, stepped together",
                            spec.left.lock.name(), spec.right.lock.name(), spec.left.threads,
                            spec.left.rounds, spec.left.cpus, spec.left.seed)) }
                    </p>
                </header>
                if !spec.errors.is_empty() {
                    <div class="block-error" role="alert" data-testid="block-error">
                        <p>{ "This comparison block has problems; it runs with defaults for them:" }</p>
                        <ul>{ for spec.errors.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
                    </div>
                }
                <Controls
                    label={format!("controls of comparison {id}")}
                    on_action={self.on_action.clone()}
                    playing={self.playing()}
                    can_step={self.left.can_step() || self.right.can_step()}
                    can_back={self.left.position() > 0 || self.right.position() > 0}
                    speed={play.speed_value()}
                    can_faster={play.can_faster()}
                    can_slower={play.can_slower()}
                    next_wakeup={false}
                    run_to_end=true
                />
                <p class="announce" data-testid="announce" aria-live="polite">{ &self.announce }</p>
                <DiffTable left={format!("left: {}", name(&self.left))}
                    right={format!("right: {}", name(&self.right))}
                    rows={ls.counters.iter().zip(rs.counters.iter()).map(|(&(k, l), &(_, r))| (k, l, r)).collect::<Vec<_>>()} />
                <div class="halves">
                    { half("left", &self.left, &ls) }
                    { half("right", &self.right, &rs) }
                </div>
            </section>
        }
    }
}
