//! One live simulation (```` ```herdlab-sim ````, or a herd check block's counterexample): the
//! herd kind of [`crate::ui::shell::sim_shell::SimShell`], which owns its [`HerdModel`]; this file says how it opens and shows
//! the wait queue, the accept queue and the CPUs.

use herdlab_core::mechanisms::herd::{Herd, HerdParams};
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::live::open::{Opening, Start};
use crate::live::Live;
use crate::mechanisms::herd::accept_queue::{accept_queue, AcceptQueueProps};
use crate::mechanisms::herd::blocks::MainInit;
use crate::mechanisms::herd::model::HerdModel;
use crate::mechanisms::herd::snapshot::Snapshot;
use crate::ui::counters::counter_values;
use crate::ui::cpus::{cpus, CpuProps};
use crate::ui::replay_progress::counterexample_progress;
use crate::ui::shell::sim_frame::{kicker, SimFrame};
use crate::ui::shell::sim_shell::{SimKind, SimProps};
use crate::ui::sim_board::SimBoard;
use crate::ui::wait_queue::{wait_queue, WaitQueueProps};

/// The herd kind of simulation widget.
pub struct HerdSim;

impl SimKind for HerdSim {
    type Params = HerdParams;
    type Init = MainInit;
    /// The actor of every step.
    type Counterexample = Vec<Actor>;
    type Model = HerdModel;

    fn open(props: &SimProps<Self>) -> Opening<HerdModel> {
        Start::of(&props.spec, props.init.as_deref())
            .opening::<Herd>(props.counterexample.as_deref().map(Vec::as_slice))
    }

    fn frame(
        props: &SimProps<Self>,
        live: &Live,
        m: &HerdModel,
        on_network: &Callback<()>,
    ) -> SimFrame {
        let spec = &props.spec;
        let snap = Snapshot::of(m);
        let id = &spec.id;
        let main = props.main();
        let lost = if m.sim().metrics().lost_wakeups > 0 {
            "a wakeup is lost"
        } else {
            ""
        };
        let progress = counterexample_progress(m, lost, "");
        let mut controls = live.controls(id, main);
        controls.connect = m.sim().has_network().then_some(m.can_connect());
        SimFrame {
            mechanism: None,
            strategy: None,
            kicker: kicker(main),
            caption: spec
                .caption
                .clone()
                .unwrap_or_else(|| format!("Simulation {id}")),
            controls,
            before_form: progress.unwrap_or_default(),
            after_announce: Html::default(),
            status: snap.status.clone(),
            after_status: Html::default(),
            board: SimBoard {
                class: None,
                many: snap.lanes.len() > 16,
                lanes: snap.lanes.clone(),
                under_lanes: Html::default(),
                counters: counter_values(&snap.metrics).to_vec(),
                queues: html! {
                    <>
                        { wait_queue(&WaitQueueProps { queue: snap.queue.clone() }) }
                        { accept_queue(&AcceptQueueProps { accept: snap.accept.clone(), on_network: Some(on_network.clone()) }) }
                        { cpus(&CpuProps { cpus: snap.cpus.clone() }) }
                    </>
                },
                code: snap.code.clone(),
            },
            after_board: Html::default(),
        }
    }
}
