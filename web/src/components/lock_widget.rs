//! One live lock simulation (```` ```herdlab-sim ```` with `mechanism=locks`, or a check block's
//! counterexample): owns a [`LockModel`], maps clicks, keys and animation frames to its actions,
//! and (for the lesson's playground) keeps the page address in step with it.

use std::rc::Rc;

use herdlab_core::locks::LockParams;
use yew::prelude::*;

use crate::blocks::Controls as ControlSet;
use crate::components::announce::announce;
use crate::components::block_errors::{block_errors, replay_error};
use crate::components::code_panel::CodePanel;
use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::invariant_status::InvariantStatus;
use crate::components::lanes::Lanes;
use crate::components::lock_words::LockWords;
use crate::components::main_sim::main_wrap;
use crate::components::param_form::ParamForm;
use crate::components::status::StatusBar;
use crate::components::widget_head::widget_head;
use crate::form::FormParams;
use crate::live::{Live, LiveMsg, Place};
use crate::lock_blocks::{LockMainInit, LockSimSpec};
use crate::lock_model::{LockModel, Script};
use crate::lock_snapshot::LockSnapshot;

/// Props of [`LockWidget`].
#[derive(Properties, PartialEq)]
pub struct LockWidgetProps {
    /// The block.
    pub spec: Rc<LockSimSpec>,
    /// The lesson it is in (where "copy link" leads).
    pub slug: AttrValue,
    /// For the playground: what the page address asks for.
    #[prop_or_default]
    pub init: Option<Rc<LockMainInit>>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
    /// A counterexample to step through (a check block's replay): the checker's schedule.
    #[prop_or_default]
    pub counterexample: Option<Rc<Vec<u16>>>,
}

/// The widget.
pub struct LockWidget {
    live: Live<LockModel>,
    replay_error: Option<String>,
}

/// The model a widget opens with, and what could not be replayed.
fn open(props: &LockWidgetProps) -> (LockModel, Option<String>, bool) {
    let spec = &props.spec;
    if let Some(schedule) = &props.counterexample {
        return match Script::expand(&spec.params, schedule, false) {
            Ok(script) => (LockModel::scripted(spec.params, script), None, false),
            Err(e) => (LockModel::new(spec.params), Some(e), false),
        };
    }
    let Some(init) = &props.init else {
        let mut m = LockModel::new(spec.params);
        let bad = spec.stop.and_then(|n| m.advance_to(n, &[]));
        let err = bad.map(|at| format!("stop: the run ends at step {at}; it opens there."));
        return (m, err, spec.stop.is_none());
    };
    if let Some(schedule) = &init.schedule {
        return match Script::expand(&init.params, schedule, true) {
            Ok(script) => {
                let end = script.steps.len() as u64;
                let mut m = LockModel::scripted(init.params, script);
                let want = init.step.unwrap_or(end);
                let err = m.advance_to(want, &[]).map(|at| {
                    format!("step: asked for step {want}, but the run could not go past step {at}; it opens there.")
                });
                (m, err, false)
            }
            Err(e) => (
                LockModel::new(init.params),
                Some(format!("{e}; the playground opens at step 0.")),
                false,
            ),
        };
    }
    let step = init.step.or(spec.stop);
    let mut m = LockModel::new(init.params);
    let err =
        step.and_then(|n| m.advance_to(n, &init.picks)).map(|at| {
            format!(
            "step: asked for step {}, but the run could not go past step {at}{}; it opens there.",
            step.unwrap_or(0),
            if init.picks.is_empty() { "" } else { " with these picks" }
        )
        });
    (m, err, step.is_none())
}

impl LockWidget {
    fn main(ctx: &Context<Self>) -> bool {
        ctx.props().init.is_some()
    }
}

impl Component for LockWidget {
    type Message = LiveMsg;
    type Properties = LockWidgetProps;

    fn create(ctx: &Context<Self>) -> Self {
        let (model, replay_error, autoplay) = open(ctx.props());
        LockWidget {
            live: Live::new(ctx, model, autoplay, ctx.props().keyboard),
            replay_error,
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
        let snap = LockSnapshot::of(m);
        let id = &spec.id;
        let main = Self::main(ctx);
        let caption_id = format!("sim-{id}-caption");
        let full = spec.controls == ControlSet::Full;
        let script = m.script().map(|s| {
            let total = s.steps.len();
            let pos = m.position();
            let text = if !m.on_script() {
                format!("off the schedule: you stepped a thread by hand (step {pos})")
            } else if pos as usize >= total {
                format!(
                    "schedule replayed: step {pos} of {total} ({} checker steps)",
                    s.schedule.len()
                )
            } else {
                format!(
                    "schedule: step {pos} of {total} ({} checker steps, pauses included)",
                    s.schedule.len()
                )
            };
            html! {
                <p class="replay-progress" data-testid="replay-progress"
                    data-position={pos.to_string()} data-total={total.to_string()}>{ text }</p>
            }
        });
        let p = m.params();
        let kicker = if main {
            "Playground"
        } else if props.counterexample.is_some() {
            "Counterexample"
        } else {
            "Simulation"
        };
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} ({}): {} threads × {} rounds on {} CPUs",
                p.lock.name(),
                p.variant.name(),
                p.threads,
                p.rounds,
                p.cpus
            )
        });
        let mut controls = live.controls(id, main);
        controls.next_wakeup = false;
        controls.run_to_end = true;
        controls.run_to_end_note = Some(AttrValue::Static(if props.counterexample.is_some() {
            "step to the end of the counterexample"
        } else {
            "step until the run ends (at most 2,000,000 steps at a time)"
        }));
        let widget = html! {
            <section class="widget sim lock-sim" data-testid={format!("sim-{id}")} id={format!("sim-{id}")}
                data-widget="sim" data-mechanism="locks" ref={live.root.clone()}
                aria-labelledby={caption_id.clone()}>
                { widget_head(caption_id, kicker, caption, props.keyboard) }
                { block_errors("simulation", &spec.errors) }
                { replay_error(self.replay_error.as_deref()) }
                if full {
                    <ParamForm wid={format!("sim-{id}")} fields={LockParams::FIELDS} form={live.form.clone()} on_edit={live.on_edit.clone()} />
                }
                <Controls ..controls />
                { announce(&m.announce, true) }
                { for script }
                <StatusBar status={snap.status.clone()} />
                <InvariantStatus inv={snap.invariants.clone()} />
                <div class={classes!("board", "lock-board", (snap.lanes.len() > 8).then_some("many"))}>
                    <div class="b-lanes">
                        <Lanes lanes={snap.lanes.clone()} on_step={Some(live.on_thread.clone())} />
                    </div>
                    <div class="b-counters">
                        <CounterGrid values={snap.counters.clone()} />
                    </div>
                    <div class="b-queues queues">
                        <LockWords words={snap.words.clone()} />
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
