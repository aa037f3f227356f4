//! One live simulation (```` ```herdlab-sim ````): owns a [`SimModel`], maps clicks, keys and
//! animation frames to its actions, and (for the lesson's main simulation) keeps the page address
//! in step with it.

use std::rc::Rc;

use herdlab_core::herd::HerdParams;
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::blocks::{Controls as ControlSet, MainInit, SimSpec};
use crate::components::accept_queue::AcceptQueuePanel;
use crate::components::announce::announce;
use crate::components::block_errors::{block_errors, replay_error};
use crate::components::code_panel::CodePanel;
use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::cpus::CpuPanel;
use crate::components::lanes::Lanes;
use crate::components::main_sim::main_wrap;
use crate::components::param_form::ParamForm;
use crate::components::status::StatusBar;
use crate::components::wait_queue::WaitQueuePanel;
use crate::components::widget_head::widget_head;
use crate::form::FormParams;
use crate::live::{Live, LiveMsg, Place};
use crate::model::{Action, SimModel};
use crate::snapshot::Snapshot;

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

/// The widget.
pub struct SimWidget {
    live: Live<SimModel>,
    replay_error: Option<String>,
    on_network: Callback<()>,
}

impl SimWidget {
    fn main(ctx: &Context<Self>) -> bool {
        ctx.props().init.is_some()
    }
}

impl Component for SimWidget {
    type Message = LiveMsg;
    type Properties = SimWidgetProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let spec = &props.spec;
        let (params, step, picks) = match &props.init {
            Some(i) => (i.params, i.step.or(spec.stop), i.picks.clone()),
            None => (spec.params, spec.stop, Vec::new()),
        };
        let (model, bad) = match (&props.counterexample, step) {
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
        SimWidget {
            live: Live::new(ctx, model, step.is_none(), props.keyboard),
            replay_error,
            on_network: ctx
                .link()
                .callback(|_| LiveMsg::Act(Action::StepActor(Actor::Network))),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: LiveMsg) -> bool {
        let at = Place {
            slug: &ctx.props().slug,
            main: Self::main(ctx),
        };
        self.live.update(ctx.link(), &at, msg)
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        self.live.rendered();
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let spec = &props.spec;
        let live = &self.live;
        let m = &live.model;
        let snap = Snapshot::of(m);
        let id = &spec.id;
        let main = Self::main(ctx);
        let caption_id = format!("sim-{id}-caption");
        let full = spec.controls == ControlSet::Full;
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
        let mut controls = live.controls(id, main);
        controls.connect = m.sim().has_network().then_some(m.can_connect());
        let caption = spec
            .caption
            .clone()
            .unwrap_or_else(|| format!("Simulation {id}"));
        let kicker = if main { "Playground" } else { "Simulation" };
        let widget = html! {
            <section class="widget sim" data-testid={format!("sim-{id}")} id={format!("sim-{id}")}
                data-widget="sim" ref={live.root.clone()}
                aria-labelledby={caption_id.clone()}>
                { widget_head(caption_id, kicker, caption, props.keyboard) }
                { block_errors("simulation", &spec.errors) }
                { replay_error(self.replay_error.as_deref()) }
                { for progress }
                if full {
                    <ParamForm wid={format!("sim-{id}")} fields={HerdParams::FIELDS} form={live.form.clone()} on_edit={live.on_edit.clone()} />
                }
                <Controls ..controls />
                { announce(&m.announce, true) }
                <StatusBar status={snap.status.clone()} />
                <div class={classes!("board", (snap.lanes.len() > 16).then_some("many"))}>
                    <div class="b-lanes">
                        <Lanes lanes={snap.lanes.clone()} on_step={Some(live.on_thread.clone())} />
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
        main_wrap(main, id, widget)
    }
}
