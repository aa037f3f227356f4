//! Two to four accept strategies side by side (```` ```herdlab-accept-compare ````): the same
//! scenario, seed and arrival sequence on each, stepped together (or run to the end), with their
//! counters in one table and each side's workers and connection bars on one scale.

use std::rc::Rc;

use yew::prelude::*;

use crate::accept_blocks::AcceptCompareSpec;
use crate::accept_snapshot::{AcceptSimModel, AcceptSnapshot};
use crate::components::announce::announce;
use crate::components::block_errors::block_errors;
use crate::components::compare_table::{compare_table, CompareTableProps};
use crate::components::conn_bars::{conn_bars, ConnBarsProps};
use crate::components::controls::Controls;
use crate::components::counters::CounterGrid;
use crate::components::lanes::Lanes;
use crate::components::status::StatusBar;
use crate::components::widget_head::widget_head;
use crate::pair::{Pair, PairMsg};

/// Props of [`AcceptCompareWidget`].
#[derive(Properties, PartialEq)]
pub struct AcceptCompareProps {
    /// The block.
    pub spec: Rc<AcceptCompareSpec>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

/// The widget.
pub struct AcceptCompareWidget {
    pair: Pair<AcceptSimModel>,
}

impl Component for AcceptCompareWidget {
    type Message = PairMsg;
    type Properties = AcceptCompareProps;

    fn create(ctx: &Context<Self>) -> Self {
        let spec = &ctx.props().spec;
        let sides = spec
            .sides
            .iter()
            .map(|&p| {
                let m = match spec.stop {
                    Some(n) if n > 0 => AcceptSimModel::replayed(p, n, &[]).0,
                    _ => AcceptSimModel::new(p),
                };
                (p.strategy.name().to_string(), m)
            })
            .collect();
        AcceptCompareWidget {
            pair: Pair::new(ctx, sides, ctx.props().keyboard),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: PairMsg) -> bool {
        self.pair.update(ctx.link(), msg)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let spec = &ctx.props().spec;
        let id = &spec.id;
        let pair = &self.pair;
        let snaps: Vec<AcceptSnapshot> = pair.sides.iter().map(AcceptSnapshot::of).collect();
        let names: Vec<AttrValue> = pair
            .sides
            .iter()
            .map(|m| AttrValue::Static(m.params().strategy.name()))
            .collect();
        let scale = snaps
            .iter()
            .flat_map(|s| s.report.per_worker.iter().copied())
            .max()
            .unwrap_or(0);
        let rows = snaps[0]
            .counters
            .iter()
            .enumerate()
            .map(|(i, &(key, _))| (key, snaps.iter().map(|s| s.counters[i].1).collect()))
            .collect::<Vec<_>>();
        let first = &spec.sides[0];
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{}: {} workers on {} CPUs, {} connections, the same seed {} and arrivals, stepped together",
                names.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" against "),
                first.workers,
                first.cpus,
                first.connections,
                first.seed
            )
        });
        let controls = pair.controls(id);
        html! {
            <section class="widget compare accept-compare" data-testid={format!("sim-{id}")} data-widget="compare"
                data-mechanism="accept" ref={pair.root.clone()} aria-labelledby={format!("sim-{id}-caption")}>
                { widget_head(format!("sim-{id}-caption"), "Compare", caption, false) }
                { block_errors("comparison", &spec.errors) }
                <Controls ..controls />
                { announce(&pair.announce, false) }
                { compare_table(&CompareTableProps { names: names.clone(), rows }) }
                <div class="halves">
                    { for pair.sides.iter().zip(&snaps).map(|(m, s)| {
                        let name = m.params().strategy.name();
                        html! {
                            <div class="half" data-testid={format!("sim-{id}-{name}")} data-strategy={name}>
                                <h4 class="half-title">{ name }</h4>
                                <StatusBar status={s.status.clone()} />
                                <Lanes lanes={s.lanes.clone()} compact=true />
                                { conn_bars(&ConnBarsProps { report: s.report.clone(), scale }) }
                                <CounterGrid values={s.counters.clone()} compact=true />
                            </div>
                        }
                    }) }
                </div>
            </section>
        }
    }
}
