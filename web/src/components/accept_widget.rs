//! One live accept simulation (```` ```herdlab-accept ````): owns a [`AcceptSimModel`] through the
//! shared controller ([`Live`]), and shows the workers, their epoll instances, the listening
//! sockets, the last wake walk, the accept mutex, the network, the code and the counters. For the
//! lesson's playground the page address follows it (`mechanism=accept&…`).

use std::rc::Rc;

use herdlab_core::accept::{AcceptParams, Strategy};
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::accept_blocks::{AcceptMainInit, AcceptSimSpec};
use crate::accept_snapshot::{AcceptSimModel, AcceptSnapshot};
use crate::blocks::Controls as ControlSet;
use crate::components::announce::announce;
use crate::components::block_errors::{block_errors, replay_error};
use crate::components::code_panel::CodePanel;
use crate::components::conn_bars::{conn_bars, ConnBarsProps};
use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::cpus::CpuPanel;
use crate::components::epoll_panel::{epoll_panel, EpollPanelProps};
use crate::components::lanes::Lanes;
use crate::components::listener_panel::{listener_panel, ListenerPanelProps};
use crate::components::lock_words::LockWords;
use crate::components::main_sim::main_wrap;
use crate::components::network_panel::{network_panel, NetworkPanelProps};
use crate::components::param_form::ParamForm;
use crate::components::status::StatusBar;
use crate::components::widget_head::widget_head;
use crate::form::FormParams;
use crate::live::{Live, LiveMsg, Place};
use crate::model::Action;

/// Props of [`AcceptWidget`].
#[derive(Properties, PartialEq)]
pub struct AcceptWidgetProps {
    /// The block.
    pub spec: Rc<AcceptSimSpec>,
    /// The lesson it is in.
    pub slug: AttrValue,
    /// For the playground: what the page address asks for.
    #[prop_or_default]
    pub init: Option<Rc<AcceptMainInit>>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

/// The widget.
pub struct AcceptWidget {
    live: Live<AcceptSimModel>,
    replay_error: Option<String>,
    on_network: Callback<()>,
}

/// A caption for a block without one.
pub fn accept_caption(p: &AcceptParams) -> String {
    format!(
        "{}: {} workers on {} CPUs, {} connection{} ({} arrivals)",
        p.strategy.name(),
        p.workers,
        p.cpus,
        p.connections,
        if p.connections == 1 { "" } else { "s" },
        p.arrival.name()
    )
}

impl Component for AcceptWidget {
    type Message = LiveMsg;
    type Properties = AcceptWidgetProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let spec = &props.spec;
        let (params, step, picks) = match &props.init {
            Some(i) => (i.params, i.step.or(spec.stop), i.picks.clone()),
            None => (spec.params, spec.stop, Vec::new()),
        };
        let (model, bad) = match step {
            Some(n) if n > 0 => AcceptSimModel::replayed(params, n, &picks),
            _ => (AcceptSimModel::new(params), None),
        };
        let replay_error = bad.map(|at| {
            format!(
                "step: asked for step {}, but the run could not go past step {at}{}; it opens there.",
                step.unwrap_or(0),
                if picks.is_empty() { "" } else { " with these picks" }
            )
        });
        AcceptWidget {
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
            main: ctx.props().init.is_some(),
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
        let snap = AcceptSnapshot::of(m);
        let id = &spec.id;
        let main = props.init.is_some();
        let caption_id = format!("sim-{id}-caption");
        let full = spec.controls == ControlSet::Full;
        let mut controls = live.controls(id, main);
        controls.run_to_end = true;
        let p = m.params();
        let caption = spec.caption.clone().unwrap_or_else(|| accept_caption(p));
        let kicker = if main { "Playground" } else { "Simulation" };
        let scale = snap.report.per_worker.iter().copied().max().unwrap_or(0);
        let widget = html! {
            <section class="widget sim accept-sim" data-testid={format!("sim-{id}")} id={format!("sim-{id}")}
                data-widget="sim" data-mechanism="accept" data-strategy={p.strategy.name()}
                ref={live.root.clone()} aria-labelledby={caption_id.clone()}>
                { widget_head(caption_id, kicker, caption, props.keyboard) }
                { block_errors("simulation", &spec.errors) }
                { replay_error(self.replay_error.as_deref()) }
                if full {
                    <ParamForm wid={format!("sim-{id}")} fields={AcceptParams::FIELDS} form={live.form.clone()} on_edit={live.on_edit.clone()} />
                }
                <Controls ..controls />
                { announce(&m.announce, true) }
                <StatusBar status={snap.status.clone()} />
                <div class={classes!("board", "accept-board", (snap.lanes.len() > 16).then_some("many"))}>
                    <div class="b-lanes">
                        <Lanes lanes={snap.lanes.clone()} on_step={Some(live.on_thread.clone())} />
                        { conn_bars(&ConnBarsProps { report: snap.report.clone(), scale }) }
                    </div>
                    <div class="b-counters">
                        <CounterGrid values={snap.counters.clone()} />
                    </div>
                    <div class="b-queues queues">
                        { listener_panel(&ListenerPanelProps { listeners: snap.listeners.clone(), walk: snap.walk.clone() }) }
                        { epoll_panel(&EpollPanelProps { epolls: snap.epolls.clone() }) }
                        <div class="side-panels">
                            if let Some(words) = &snap.mutex {
                                <LockWords words={words.clone()} />
                            }
                            { network_panel(&NetworkPanelProps { net: snap.net.clone(), on_network: self.on_network.clone() }) }
                            <CpuPanel cpus={snap.cpus.clone()} />
                        </div>
                    </div>
                    <div class="b-code">
                        <CodePanel code={snap.code.clone()} />
                    </div>
                </div>
                if p.strategy != Strategy::AcceptMutex && full {
                    <p class="note">{ "The accept mutex code, accept_mutex_delay and worker_connections' overload test matter with strategy accept-mutex only; reorder_every with exclusive only." }</p>
                }
            </section>
        };
        main_wrap(main, id, widget)
    }
}
