//! One live accept simulation (```` ```herdlab-accept ````): the accept kind of [`crate::ui::shell::sim_shell::SimShell`], which
//! owns its [`AcceptSimModel`]; this file shows the workers, their epoll instances, the listening
//! sockets, the last wake walk, the accept mutex, the network, the code and the counters. For the
//! lesson's playground the page address follows it (`mechanism=accept&…`).

use std::convert::Infallible;

use herdlab_core::mechanisms::accept::{AcceptParams, Strategy};
use yew::prelude::*;

use crate::lesson::grammar::Controls as ControlSet;
use crate::live::open::{Opening, Start};
use crate::live::Live;
use crate::mechanisms::accept::blocks::AcceptMainInit;
use crate::mechanisms::accept::conn_bars::{conn_bars, ConnBarsProps};
use crate::mechanisms::accept::epoll_panel::{epoll_panel, EpollPanelProps};
use crate::mechanisms::accept::listener_panel::{listener_panel, ListenerPanelProps};
use crate::mechanisms::accept::network_panel::{network_panel, NetworkPanelProps};
use crate::mechanisms::accept::snapshot::{AcceptSimModel, AcceptSnapshot};
use crate::ui::cpus::{cpus, CpuProps};
use crate::ui::replay_progress::counterexample_progress;
use crate::ui::shell::sim_frame::{kicker, SimFrame};
use crate::ui::shell::sim_shell::{SimKind, SimProps};
use crate::ui::sim_board::SimBoard;
use crate::ui::words::{words_panel, WordsProps};

/// The accept kind of simulation widget.
pub struct AcceptSim;

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

impl SimKind for AcceptSim {
    type Params = AcceptParams;
    type Init = AcceptMainInit;
    /// None: no check block replays an accept counterexample.
    type Counterexample = Infallible;
    type Model = AcceptSimModel;

    fn open(props: &SimProps<Self>) -> Opening<AcceptSimModel> {
        Start::of(&props.spec, props.init.as_deref()).replayed()
    }

    fn frame(
        props: &SimProps<Self>,
        live: &Live,
        m: &AcceptSimModel,
        on_network: &Callback<()>,
    ) -> SimFrame {
        let spec = &props.spec;
        let snap = AcceptSnapshot::of(m);
        let main = props.main();
        let full = spec.controls == ControlSet::Full;
        let mut controls = live.controls(&spec.id, main);
        controls.run_to_end = true;
        let p = m.params();
        let scale = snap.report.per_worker.iter().copied().max().unwrap_or(0);
        // a checker's link followed (`follow=picks`): where the learner stands in it
        let progress = counterexample_progress(m, "", "");
        SimFrame {
            mechanism: Some(("accept-sim", "accept")),
            strategy: Some(p.strategy.name()),
            kicker: kicker(main),
            caption: spec.caption.clone().unwrap_or_else(|| accept_caption(p)),
            controls,
            before_form: progress.unwrap_or_default(),
            after_announce: Html::default(),
            status: snap.status.clone(),
            after_status: Html::default(),
            board: SimBoard {
                class: Some("accept-board"),
                many: snap.lanes.len() > 16,
                lanes: snap.lanes.clone(),
                under_lanes: conn_bars(&ConnBarsProps {
                    report: snap.report.clone(),
                    scale,
                }),
                counters: snap.counters.clone(),
                queues: html! {
                    <>
                        { listener_panel(&ListenerPanelProps { listeners: snap.listeners.clone(), walk: snap.walk.clone() }) }
                        { epoll_panel(&EpollPanelProps { epolls: snap.epolls.clone() }) }
                        <div class="side-panels">
                            if let Some(words) = &snap.mutex {
                                { words_panel(&WordsProps { words: words.clone(), compact: false }) }
                            }
                            { network_panel(&NetworkPanelProps { net: snap.net.clone(), on_network: on_network.clone() }) }
                            { cpus(&CpuProps { cpus: snap.cpus.clone() }) }
                        </div>
                    </>
                },
                code: snap.code.clone(),
            },
            after_board: html! {
                if p.strategy != Strategy::AcceptMutex && full {
                    <p class="note">{ "The accept mutex code, accept_mutex_delay and worker_connections' overload test matter with strategy accept-mutex only; reorder_every with exclusive only." }</p>
                }
            },
        }
    }
}
