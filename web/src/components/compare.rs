//! Two simulations side by side (```` ```herdlab-compare ````), same seed, stepped together.

use std::rc::Rc;

use yew::prelude::*;

use crate::blocks::CompareSpec;
use crate::components::announce::announce;
use crate::components::block_errors::block_errors;
use crate::components::controls::Controls;
use crate::components::counters::{counter_values, CounterGrid};
use crate::components::diff_table::DiffTable;
use crate::components::lanes::Lanes;
use crate::components::status::StatusBar;
use crate::components::wait_queue::WaitQueuePanel;
use crate::components::widget_head::widget_head;
use crate::components::worker_bars::{bar_scale, WorkerBars};
use crate::model::SimModel;
use crate::pair::{Pair, PairMsg};
use crate::snapshot::Snapshot;

/// Props of [`CompareWidget`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// The block.
    pub spec: Rc<CompareSpec>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

/// The widget.
pub struct CompareWidget {
    pair: Pair<SimModel>,
}

impl Component for CompareWidget {
    type Message = PairMsg;
    type Properties = CompareProps;

    fn create(ctx: &Context<Self>) -> Self {
        let spec = &ctx.props().spec;
        let (left, right) = match spec.stop {
            Some(n) if n > 0 => (
                SimModel::replayed(spec.left, n, &[]).0,
                SimModel::replayed(spec.right, n, &[]).0,
            ),
            _ => (SimModel::new(spec.left), SimModel::new(spec.right)),
        };
        CompareWidget {
            pair: Pair::new(
                ctx,
                vec![("left".into(), left), ("right".into(), right)],
                ctx.props().keyboard,
            ),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: PairMsg) -> bool {
        self.pair.update(ctx.link(), msg)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let spec = &ctx.props().spec;
        let id = &spec.id;
        let pair = &self.pair;
        let ls = Snapshot::of(pair.left());
        let rs = Snapshot::of(pair.right());
        let scale = bar_scale(&ls.lanes, &rs.lanes);
        let lc = counter_values(&ls.metrics);
        let rc = counter_values(&rs.metrics);
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} (left) against {} (right), same seed {}, stepped together",
                spec.left.mode.name(),
                spec.right.mode.name(),
                spec.left.seed
            )
        });
        let controls = pair.controls(id);
        let half = |side: &str, m: &SimModel, s: &Snapshot| {
            html! {
                <div class="half" data-testid={format!("sim-{id}-{side}")}>
                    <h4 class="half-title">{ format!("{side}: {}", m.params().mode.name()) }</h4>
                    <StatusBar status={s.status.clone()} />
                    <Lanes lanes={s.lanes.clone()} compact=true />
                    <WaitQueuePanel queue={s.queue.clone()} />
                    <WorkerBars lanes={s.lanes.clone()} scale={scale}
                        caption="per worker: connections taken and wakeups" who="worker"
                        columns={&["took", "woken"][..]} />
                    <CounterGrid values={counter_values(&s.metrics).to_vec()} compact=true />
                </div>
            }
        };
        html! {
            <section class="widget compare" data-testid={format!("sim-{id}")} data-widget="compare" ref={pair.root.clone()} aria-labelledby={format!("sim-{id}-caption")}>
                { widget_head(format!("sim-{id}-caption"), "Compare", caption, false) }
                { block_errors("comparison", &spec.errors) }
                <Controls ..controls />
                { announce(&pair.announce, false) }
                <DiffTable left={format!("left: {}", spec.left.mode.name())}
                    right={format!("right: {}", spec.right.mode.name())}
                    rows={lc.iter().zip(rc.iter()).map(|(&(k, l), &(_, r))| (k, l, r)).collect::<Vec<_>>()} />
                <div class="halves">
                    { half("left", pair.left(), &ls) }
                    { half("right", pair.right(), &rs) }
                </div>
            </section>
        }
    }
}
