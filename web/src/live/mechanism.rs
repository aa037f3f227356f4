//! What the site knows of a mechanism ([`SiteMechanism`]): core's [`Mechanism`] with its form, how
//! its lesson blocks become widgets, how its check blocks read, read out and replay, and what the
//! `#/bench` page runs. Each mechanism implements it in its folder (`crate::mechanisms::<name>`);
//! the registry (`crate::mechanisms`) lists them.

use herdlab_core::check::Counterexample;
use herdlab_core::scenario::Registered;
use yew::prelude::*;

use crate::lesson::check::CheckSpec;
use crate::lesson::parts::{Placing, Widget};
use crate::live::field::Field;

/// A mechanism on the site: core's [`Mechanism`] (its name, parameters, keys, setter and
/// validation; [`Registered`]: in and out of a [`Scenario`]) with how its lesson blocks become
/// widgets, how its check blocks read, read out and replay, and what the `#/bench` page runs.
pub trait SiteMechanism: Registered<Params: Copy> {
    /// Its parameter form's fields, in display order (their keys are [`Mechanism::KEYS`]' names;
    /// the form reads, sets and validates them with core's [`Mechanism::get`], [`Mechanism::set`]
    /// and [`Mechanism::validate`]).
    const FIELDS: &'static [Field];
    /// Whether a simulation or comparison block that names no mechanism (or an unknown one) is
    /// this mechanism's.
    const DEFAULT_WIDGET: bool = false;
    /// Whether a check block that names no checkable mechanism is this mechanism's.
    const DEFAULT_CHECK: bool = false;
    /// The lesson whose playground opens its counterexamples from the `#/check` page.
    const LESSON: &'static str;
    /// What a finished run did, after "The run finished: " (the status sentence).
    const FINISHED: &'static str = "every connection was handled";
    /// A simulation block (`body`), placed at part `at` of a lesson opened with page `query`.
    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget;
    /// A comparison block (`body`), placed at part `at`.
    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget;
    /// A check block (also the `#/check?…` page's query); `None` where the browser cannot check
    /// this mechanism.
    fn check_block(_body: &str, _fallback_id: &str) -> Option<CheckSpec> {
        None
    }
    /// What a check of `p` explores, for a check block without a caption.
    fn check_caption(_p: &Self::Params) -> String {
        String::new()
    }
    /// The invariants the checker's worker checks for `p`.
    fn check_invariants(_p: &Self::Params) -> Vec<&'static str> {
        Vec::new()
    }
    /// The query of the scenario the `#/bench` page measures, when it is this mechanism's.
    fn bench_query() -> Option<String> {
        None
    }
    /// One measuring run of the `#/bench` scenario for about `run_ms`: the steps and the
    /// milliseconds they took (see [`crate::live::bench::measure`]).
    fn bench_run(_run_ms: f64) -> Option<(u64, f64)> {
        None
    }
    /// A counterexample of check block `id`: its schedule, a link into lesson `slug`'s playground,
    /// and a widget stepping through it.
    fn check_replay(_p: Self::Params, _c: &Counterexample, _id: &str, _slug: &AttrValue) -> Html {
        Html::default()
    }
    /// The widget of [`SiteMechanism::check_replay`] alone (`sim-<id>-replay`, at step 0,
    /// following the counterexample): what "Show the timeline" hands to the lazily loaded
    /// bundle makes again. None where the mechanism has no replay.
    fn replay_widget(
        _p: Self::Params,
        _c: &Counterexample,
        _id: &str,
        _slug: &AttrValue,
    ) -> Option<Html> {
        None
    }
}
