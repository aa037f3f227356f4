//! One live pool simulation (```` ```herdlab-sim ```` with `mechanism=pool`): the pool kind of
//! [`crate::ui::shell::sim_shell::SimShell`], which owns its [`PoolSimModel`]; this file shows the
//! event loop and the pool threads, the queue, `waiting`, the done list, the eventfd, the code and
//! the counters. For the lesson's playground the page address follows it (`mechanism=pool&…`).

use herdlab_core::mechanisms::pool::{Pool, PoolParams};
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::live::open::{Opening, Start};
use crate::live::Live;
use crate::mechanisms::pool::blocks::PoolMainInit;
use crate::mechanisms::pool::model::PoolSimModel;
use crate::mechanisms::pool::queue_panel::{pool_panel, PoolPanelProps};
use crate::mechanisms::pool::snapshot::PoolSnapshot;
use crate::ui::replay_progress::counterexample_progress;
use crate::ui::shell::sim_frame::{kicker, SimFrame};
use crate::ui::shell::sim_shell::{SimKind, SimProps};
use crate::ui::sim_board::SimBoard;
use crate::ui::status::invariant_status;

/// The pool kind of simulation widget.
pub struct PoolSim;

/// A caption for a block without one.
pub fn pool_caption(p: &PoolParams) -> String {
    format!(
        "{}: {} request{} ({}% blocking, {} µs each), {} pool thread{} ({}), {} CPU{}",
        if p.offload { "thread pool" } else { "no pool" },
        p.requests,
        if p.requests == 1 { "" } else { "s" },
        p.blocking_pct,
        p.task_us,
        p.threads,
        if p.threads == 1 { "" } else { "s" },
        p.wake.name(),
        p.cpus,
        if p.cpus == 1 { "" } else { "s" },
    )
}

impl SimKind for PoolSim {
    type Params = PoolParams;
    type Init = PoolMainInit;
    /// The actor of every step (a check block's counterexample).
    type Counterexample = Vec<Actor>;
    type Model = PoolSimModel;

    fn open(props: &SimProps<Self>) -> Opening<PoolSimModel> {
        Start::of(&props.spec, props.init.as_deref())
            .opening::<Pool>(props.counterexample.as_deref().map(Vec::as_slice))
    }

    fn frame(props: &SimProps<Self>, live: &Live, m: &PoolSimModel, _: &Callback<()>) -> SimFrame {
        let spec = &props.spec;
        let snap = PoolSnapshot::of(m);
        let main = props.main();
        let mut controls = live.controls(&spec.id, main);
        controls.run_to_end = true;
        controls.next_wakeup = true;
        let p = m.params();
        let progress = counterexample_progress(m, &snap.invariant.name, " is broken");
        SimFrame {
            mechanism: Some(("pool-sim", "pool")),
            strategy: None,
            kicker: kicker(main),
            caption: spec.caption.clone().unwrap_or_else(|| pool_caption(p)),
            controls,
            before_form: progress.unwrap_or_default(),
            after_announce: Html::default(),
            status: snap.status.clone(),
            after_status: invariant_status("pool-invariant", &snap.invariant),
            board: SimBoard {
                class: Some("pool-board"),
                many: snap.lanes.len() > 16,
                lanes: snap.lanes.clone(),
                under_lanes: Html::default(),
                counters: snap.counters.clone(),
                queues: pool_panel(&PoolPanelProps {
                    state: snap.state.clone(),
                }),
                code: snap.code.clone(),
            },
            after_board: Html::default(),
        }
    }
}
