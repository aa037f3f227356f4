//! Two lock simulations side by side (```` ```herdlab-compare ```` with `mechanism=locks`): same
//! seed and parameters, a different lock on each side, stepped together.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::announce::announce;
use crate::components::block_errors::block_errors;
use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::diff_table::DiffTable;
use crate::components::lanes::Lanes;
use crate::components::lock_words::LockWords;
use crate::components::status::StatusBar;
use crate::components::widget_head::widget_head;
use crate::components::worker_bars::{bar_scale, WorkerBars};
use crate::lock_blocks::LockCompareSpec;
use crate::lock_model::LockModel;
use crate::lock_snapshot::LockSnapshot;
use crate::pair::{Pair, PairMsg};

/// Props of [`LockCompareWidget`].
#[derive(Properties, PartialEq)]
pub struct LockCompareProps {
    /// The block.
    pub spec: Rc<LockCompareSpec>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

/// The widget.
pub struct LockCompareWidget {
    pair: Pair<LockModel>,
}

impl Component for LockCompareWidget {
    type Message = PairMsg;
    type Properties = LockCompareProps;

    fn create(ctx: &Context<Self>) -> Self {
        let spec = &ctx.props().spec;
        let mut left = LockModel::new(spec.left);
        let mut right = LockModel::new(spec.right);
        if let Some(n) = spec.stop {
            left.advance_to(n, &[]);
            right.advance_to(n, &[]);
        }
        LockCompareWidget {
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
        let ls = LockSnapshot::of(pair.left());
        let rs = LockSnapshot::of(pair.right());
        let scale = bar_scale(&ls.lanes, &rs.lanes);
        let name = |m: &LockModel| m.params().lock.name();
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} (left) against {} (right): {} threads × {} rounds on {} CPUs, same seed {}, stepped together",
                spec.left.lock.name(),
                spec.right.lock.name(),
                spec.left.threads,
                spec.left.rounds,
                spec.left.cpus,
                spec.left.seed
            )
        });
        let mut controls = pair.controls(id);
        controls.next_wakeup = false;
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
                data-mechanism="locks" ref={pair.root.clone()} aria-labelledby={format!("sim-{id}-caption")}>
                { widget_head(format!("sim-{id}-caption"), "Compare", caption, false) }
                { block_errors("comparison", &spec.errors) }
                <Controls ..controls />
                { announce(&pair.announce, false) }
                <DiffTable left={format!("left: {}", name(pair.left()))}
                    right={format!("right: {}", name(pair.right()))}
                    rows={ls.counters.iter().zip(rs.counters.iter()).map(|(&(k, l), &(_, r))| (k, l, r)).collect::<Vec<_>>()} />
                <div class="halves">
                    { half("left", pair.left(), &ls) }
                    { half("right", pair.right(), &rs) }
                </div>
            </section>
        }
    }
}
