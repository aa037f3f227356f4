//! Two G/M/P simulations side by side (```` ```herdlab-compare ```` with `mechanism=gmp`): one
//! scenario and seed, the runtime's code on one side and a variant on the other (or two
//! variants), stepped together: gmp's part of the generic
//! [`TwoSettings`](crate::ui::shell::side_by_side::TwoSettings) comparison (its sides' labels, the
//! queues' line under each half's lanes, and the table's rows). The lesson's comparisons are the
//! 2012 design against today's (`single-queue`), steal half against steal one (`steal-one`), and
//! `wakep` with and without its spinning test (`wakep-no-spin-test`).

use yew::prelude::*;

use herdlab_core::mechanisms::gmp::{Gmp, GmpParams};

use crate::mechanisms::gmp::model::GmpSimModel;
use crate::mechanisms::gmp::snapshot::{GmpSnapshot, GmpStateView};
use crate::ui::shell::side_by_side::{Half, SideBySide};
use crate::ui::status::invariant_status;

/// A side's label: its variant's name, and what else tells it from `other` (a comparison of
/// one variant on two scenarios names them by their Ps).
pub fn side_label(p: &GmpParams, other: &GmpParams) -> String {
    let mut parts = vec![p.variant.name().to_string()];
    if p.gomaxprocs != other.gomaxprocs {
        parts.push(format!("GOMAXPROCS {}", p.gomaxprocs));
    }
    parts.join(", ")
}

/// The table's rows: every counter either side shows, in the order of the left side's, with
/// both sides' values (0 where a side has no such counter).
pub fn compare_rows(l: &GmpSnapshot, r: &GmpSnapshot) -> Vec<(&'static str, u64, u64)> {
    let value = |s: &GmpSnapshot, k: &str| {
        s.counters
            .iter()
            .find(|(c, _)| *c == k)
            .map_or(0, |&(_, v)| v)
    };
    let mut keys: Vec<&'static str> = l.counters.iter().map(|&(k, _)| k).collect();
    for &(k, _) in &r.counters {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|k| (k, value(l, k), value(r, k)))
        .collect()
}

/// A one-line summary of a side's queues: each P's runnext and ring (an idle P holds neither),
/// the global queue, the spinning Ms and the idle Ps.
fn state_line(s: &GmpStateView) -> Html {
    let ps: Vec<String> =
        s.ps.iter()
            .enumerate()
            .map(|(i, p)| match (p.idle, p.runnext) {
                (true, _) => format!("P{i} idle"),
                (false, 0) => format!("P{i}: ring {}", p.ring.len()),
                (false, g) => format!("P{i}: runnext G{g}, ring {}", p.ring.len()),
            })
            .collect();
    let ps = ps.join(" · ");
    html! {
        <p class="gmp-half-state">
            { ps }
            { " · global " }<b data-testid="gmp-global-size">{ s.global_size }</b>
            { " · spinning " }<b>{ s.nmspinning }</b>
            { " · idle Ps " }<b>{ s.npidle }</b>
        </p>
    }
}

impl SideBySide for Gmp {
    type Snapshot = GmpSnapshot;
    const CLASSES: Option<(&'static str, &'static str)> = Some(("gmp-compare", "gmp-half"));

    fn snapshot(m: &GmpSimModel) -> GmpSnapshot {
        GmpSnapshot::of(m)
    }

    fn label(p: &GmpParams, other: &GmpParams) -> String {
        side_label(p, other)
    }

    fn half(s: &GmpSnapshot, _: &GmpSnapshot) -> Half {
        Half {
            status: s.status.clone(),
            invariant: invariant_status("gmp-invariant", &s.invariant),
            lanes: s.lanes.clone(),
            state: state_line(&s.state),
            counters: s.counters.clone(),
        }
    }

    fn rows(l: &GmpSnapshot, r: &GmpSnapshot) -> Vec<(&'static str, u64, u64)> {
        compare_rows(l, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::sim_model::Action;
    use crate::mechanisms::gmp::blocks::parse_gmp_compare;
    use herdlab_core::mechanisms::gmp::GmpVariant;

    #[test]
    fn sides_are_labelled_by_their_variant() {
        let p = GmpParams::default();
        let one = GmpParams {
            variant: GmpVariant::StealOne,
            ..p
        };
        assert_eq!(side_label(&p, &one), "correct");
        assert_eq!(side_label(&one, &p), "steal-one");
        let more = GmpParams {
            gomaxprocs: p.gomaxprocs + 1,
            threads: p.threads + 1,
            ..p
        };
        assert_eq!(
            side_label(&more, &p),
            format!("correct, GOMAXPROCS {}", p.gomaxprocs + 1)
        );
    }

    /// Both sides run to their end: the rows are core's reports of the two scenarios (the
    /// lesson's steal-one comparison: one steal of 4 goroutines against 4 steals of one).
    #[test]
    fn the_rows_are_cores_reports_of_both_sides() {
        let c = parse_gmp_compare(
            "id=c&mechanism=gmp&left=correct&right=steal-one&gomaxprocs=2&threads=3&cpus=2&goroutines=9&ring=8",
            "x",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let end = |p: GmpParams| {
            let mut m = GmpSimModel::new(p);
            m.apply(Action::RunToEnd);
            GmpSnapshot::of(&m)
        };
        let (l, r) = (end(c.left), end(c.right));
        let rows = compare_rows(&l, &r);
        let get = |k: &str| rows.iter().find(|x| x.0 == k).map(|x| (x.1, x.2));
        assert_eq!(get("steals"), Some((l.report.steals, r.report.steals)));
        assert_eq!(
            get("global_queue_gets"),
            Some((l.report.global_queue_gets, r.report.global_queue_gets))
        );
        assert!(
            r.report.steals > l.report.steals,
            "stealing one at a time takes more steals: {rows:?}"
        );
        assert_eq!(l.report.finished, 9);
        assert_eq!(r.report.finished, 9);
        let keys: Vec<&str> = rows.iter().map(|x| x.0).collect();
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(keys, unique, "each counter once");
    }
}
