//! Two to four accept strategies side by side (```` ```herdlab-accept-compare ````): the same
//! scenario, seed and arrival sequence on each, stepped together (or run to the end), with their
//! counters in one table and each side's workers and connection bars on one scale: the accept
//! kind of [`crate::ui::shell::compare_shell::CompareShell`]; this file says how its sides open and what each half shows.

use yew::prelude::*;

use crate::live::open::stopped_at;
use crate::live::pair::Pair;
use crate::mechanisms::accept::blocks::AcceptCompareSpec;
use crate::mechanisms::accept::conn_bars::{conn_bars, ConnBarsProps};
use crate::mechanisms::accept::snapshot::{AcceptSimModel, AcceptSnapshot};
use crate::ui::compare_table::{compare_table, CompareTableProps};
use crate::ui::counters::{counters, CounterProps};
use crate::ui::lanes::{lanes, LanesProps};
use crate::ui::shell::compare_frame::CompareFrame;
use crate::ui::shell::compare_shell::CompareKind;
use crate::ui::status::{status, StatusProps};

/// The accept kind of comparison.
pub struct AcceptCompare;

impl CompareKind for AcceptCompare {
    type Spec = AcceptCompareSpec;
    type Model = AcceptSimModel;

    fn open(spec: &AcceptCompareSpec) -> Vec<(String, AcceptSimModel)> {
        spec.sides
            .iter()
            .map(|&p| (p.strategy.name().to_string(), stopped_at(p, spec.stop)))
            .collect()
    }

    fn frame<'a>(
        spec: &'a AcceptCompareSpec,
        pair: &Pair,
        sides: &[&AcceptSimModel],
    ) -> CompareFrame<'a> {
        let id = &spec.id;
        let snaps: Vec<AcceptSnapshot> = sides.iter().map(|m| AcceptSnapshot::of(m)).collect();
        let names: Vec<AttrValue> = sides
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
        CompareFrame {
            id,
            errors: &spec.errors,
            mechanism: Some(("accept-compare", "accept")),
            caption,
            controls: pair.controls(id),
            table: compare_table(&CompareTableProps { names, rows }),
            halves: html! {
                { for sides.iter().zip(&snaps).map(|(m, s)| {
                    let name = m.params().strategy.name();
                    html! {
                        <div class="half" data-testid={format!("sim-{id}-{name}")} data-strategy={name}>
                            <h4 class="half-title">{ name }</h4>
                            { status(&StatusProps { status: s.status.clone() }) }
                            { lanes(&LanesProps { lanes: s.lanes.clone(), text: None, on_step: None, compact: true }) }
                            { conn_bars(&ConnBarsProps { report: s.report.clone(), scale }) }
                            { counters(&CounterProps { values: s.counters.clone(), compact: true }) }
                        </div>
                    }
                }) }
            },
        }
    }
}
