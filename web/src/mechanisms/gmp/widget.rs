//! One live G/M/P simulation (```` ```herdlab-sim ```` with `mechanism=gmp`): the gmp kind of
//! [`crate::ui::shell::sim_shell::SimShell`], which owns its [`GmpSimModel`]; this file shows a
//! lane per M, the Ps' queues and the global queue, the listing and the counters.

use herdlab_core::mechanisms::gmp::GmpParams;
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::live::open::{Opening, Start};
use crate::live::Live;
use crate::mechanisms::gmp::blocks::GmpMainInit;
use crate::mechanisms::gmp::model::GmpSimModel;
use crate::mechanisms::gmp::queue_panel::{gmp_panel, GmpPanelProps};
use crate::mechanisms::gmp::snapshot::GmpSnapshot;
use crate::ui::replay_progress::counterexample_progress;
use crate::ui::shell::sim_frame::{kicker, SimFrame};
use crate::ui::shell::sim_shell::{SimKind, SimProps};
use crate::ui::sim_board::SimBoard;
use crate::ui::status::invariant_status;

/// The gmp kind of simulation widget.
pub struct GmpSim;

/// A caption for a block without one.
pub fn gmp_caption(p: &GmpParams) -> String {
    format!(
        "{} ({}): {} goroutine{}, GOMAXPROCS={}, {} Ms, {} CPU{}, rings of {}",
        p.workload.name(),
        p.variant.name(),
        p.goroutines,
        if p.goroutines == 1 { "" } else { "s" },
        p.gomaxprocs,
        p.threads,
        p.cpus,
        if p.cpus == 1 { "" } else { "s" },
        p.ring,
    )
}

impl SimKind for GmpSim {
    type Params = GmpParams;
    type Init = GmpMainInit;
    /// Unused: the browser does not check gmp yet (no replays).
    type Counterexample = Vec<Actor>;
    type Model = GmpSimModel;

    fn open(props: &SimProps<Self>) -> Opening<GmpSimModel> {
        Start::of(&props.spec, props.init.as_deref()).replayed()
    }

    fn frame(props: &SimProps<Self>, live: &Live, m: &GmpSimModel, _: &Callback<()>) -> SimFrame {
        let spec = &props.spec;
        let snap = GmpSnapshot::of(m);
        let main = props.main();
        let mut controls = live.controls(&spec.id, main);
        controls.run_to_end = true;
        // a checker's link followed (`follow=picks`): where the learner stands in it
        let progress = counterexample_progress(m, &snap.invariant.name, " is broken");
        SimFrame {
            mechanism: Some(("gmp-sim", "gmp")),
            strategy: None,
            kicker: kicker(main),
            caption: spec
                .caption
                .clone()
                .unwrap_or_else(|| gmp_caption(m.params())),
            controls,
            before_form: progress.unwrap_or_default(),
            after_announce: Html::default(),
            status: snap.status.clone(),
            after_status: invariant_status("gmp-invariant", &snap.invariant),
            board: SimBoard {
                class: Some("gmp-board"),
                many: snap.lanes.len() > 16,
                lanes: snap.lanes.clone(),
                under_lanes: Html::default(),
                counters: snap.counters.clone(),
                queues: gmp_panel(&GmpPanelProps {
                    state: snap.state.clone(),
                }),
                code: snap.code.clone(),
            },
            after_board: Html::default(),
        }
    }
}
