//! One live MySQL simulation (```` ```herdlab-sim ```` with `mechanism=mysql`): the mysql kind of
//! [`crate::ui::shell::sim_shell::SimShell`], which owns its [`MysqlSimModel`]; this file shows a
//! lane per thread, the groups or the thread cache, the listing and the counters.

use herdlab_core::mechanisms::mysql::{Mode, Mysql, MysqlParams};
use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::live::open::{Opening, Start};
use crate::live::Live;
use crate::mechanisms::mysql::blocks::MysqlMainInit;
use crate::mechanisms::mysql::model::MysqlSimModel;
use crate::mechanisms::mysql::panel::{mysql_panel, MysqlPanelProps};
use crate::mechanisms::mysql::snapshot::MysqlSnapshot;
use crate::ui::replay_progress::counterexample_progress;
use crate::ui::shell::sim_frame::{kicker, SimFrame};
use crate::ui::shell::sim_shell::{SimKind, SimProps};
use crate::ui::sim_board::SimBoard;
use crate::ui::status::invariant_status;

/// The mysql kind of simulation widget.
pub struct MysqlSim;

/// A caption for a block without one.
pub fn mysql_caption(p: &MysqlParams) -> String {
    let mode = match p.mode {
        Mode::PerConnection => format!(
            "one thread per connection, thread_cache_size {}, reconnecting every {} quer{}",
            p.cache_size,
            p.queries_per_conn,
            if p.queries_per_conn == 1 { "y" } else { "ies" }
        ),
        Mode::Pool => format!(
            "thread pool of {} group{}, stall limit {} ms",
            p.groups,
            if p.groups == 1 { "" } else { "s" },
            p.stall_ms
        ),
    };
    format!(
        "{mode} ({}): {} connection{}, {} quer{} of {} µs, {} CPU{}",
        p.variant.name(),
        p.connections,
        if p.connections == 1 { "" } else { "s" },
        p.queries,
        if p.queries == 1 { "y" } else { "ies" },
        p.cpu_us,
        p.cpus,
        if p.cpus == 1 { "" } else { "s" },
    )
}

impl SimKind for MysqlSim {
    type Params = MysqlParams;
    type Init = MysqlMainInit;
    /// A check block's counterexample: who takes each step.
    type Counterexample = Vec<Actor>;
    type Model = MysqlSimModel;

    fn open(props: &SimProps<Self>) -> Opening<MysqlSimModel> {
        Start::of(&props.spec, props.init.as_deref())
            .opening::<Mysql>(props.counterexample.as_deref().map(Vec::as_slice))
    }

    fn frame(props: &SimProps<Self>, live: &Live, m: &MysqlSimModel, _: &Callback<()>) -> SimFrame {
        let spec = &props.spec;
        let snap = MysqlSnapshot::of(m);
        let main = props.main();
        let mut controls = live.controls(&spec.id, main);
        controls.run_to_end = true;
        let progress = counterexample_progress(m, &snap.invariant.name, " is broken");
        SimFrame {
            mechanism: Some(("mysql-sim", "mysql")),
            strategy: None,
            kicker: kicker(main),
            caption: spec
                .caption
                .clone()
                .unwrap_or_else(|| mysql_caption(m.params())),
            controls,
            before_form: progress.unwrap_or_default(),
            after_announce: Html::default(),
            status: snap.status.clone(),
            after_status: invariant_status("mysql-invariant", &snap.invariant),
            board: SimBoard {
                class: Some("mysql-board"),
                many: snap.lanes.len() > 16,
                lanes: snap.lanes.clone(),
                under_lanes: Html::default(),
                counters: snap.counters.clone(),
                queues: mysql_panel(&MysqlPanelProps {
                    state: snap.state.clone(),
                }),
                code: snap.code.clone(),
            },
            after_board: Html::default(),
        }
    }
}
