//! The mechanisms the site teaches, one folder each, and the one registry of them.
//!
//! Generic code (the lesson page, the check widget and page, the shells, the live models and the
//! form) knows a mechanism only through [`SiteMechanism`] (core's `Mechanism` with the site's part;
//! defined in `crate::live::mechanism`, below the layers that use it) and the functions the
//! `registry!` line below makes. Adding a mechanism
//! to the site is its folder (its blocks, form, model, snapshot, widgets and a `SiteMechanism`
//! impl) and one name in that line.

use herdlab_core::check::Counterexample;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::scenario::{Registered, Scenario};
use yew::prelude::*;

use crate::lesson::check::CheckSpec;
use crate::lesson::grammar::named_mechanism;
use crate::lesson::parts::{Placing, Widget};
pub use crate::live::mechanism::SiteMechanism;

pub mod accept;
/// Lazy-only: in the lazily loaded bundle (`src/bin/lazy.rs`), never in the main wasm.
#[cfg(feature = "lazy")]
pub mod gmp;
pub mod herd;
pub mod locks;
/// Lazy-only: in the lazily loaded bundle (`src/bin/lazy.rs`), never in the main wasm.
#[cfg(feature = "lazy")]
pub mod mysql;
pub mod pool;

/// The one list of the site's mechanisms: every function below goes through it.
macro_rules! registry {
    ($($(#[$a:meta])* $m:ty),+ $(,)?) => {
        /// The mechanisms' names, in registry order.
        pub const NAMES: &[&str] = &[$($(#[$a])* <$m as Mechanism>::NAME),+];

        /// The mechanism a widget block is for: the one it names, else the default.
        fn widget_mechanism(named: Option<&str>) -> &'static str {
            $($(#[$a])* if named == Some(<$m as Mechanism>::NAME) {
                return <$m as Mechanism>::NAME;
            })+
            $($(#[$a])* if <$m>::DEFAULT_WIDGET {
                return <$m as Mechanism>::NAME;
            })+
            NAMES[0]
        }

        /// A simulation block of `mechanism` (`None`: the one it names, else the default).
        pub fn sim_widget(
            mechanism: Option<&str>,
            body: &str,
            fallback_id: &str,
            query: &str,
            place: &mut Placing,
            at: usize,
        ) -> Widget {
            let name = widget_mechanism(mechanism.map(str::to_string).or_else(|| named_mechanism(body)).as_deref());
            $($(#[$a])* if name == <$m as Mechanism>::NAME {
                return <$m>::sim_widget(body, fallback_id, query, place, at);
            })+
            unreachable!("widget_mechanism names a registered mechanism")
        }

        /// A comparison block of `mechanism` (`None`: the one it names, else the default).
        pub fn compare_widget(
            mechanism: Option<&str>,
            body: &str,
            fallback_id: &str,
            place: &mut Placing,
            at: usize,
        ) -> Widget {
            let name = widget_mechanism(mechanism.map(str::to_string).or_else(|| named_mechanism(body)).as_deref());
            $($(#[$a])* if name == <$m as Mechanism>::NAME {
                return <$m>::compare_widget(body, fallback_id, place, at);
            })+
            unreachable!("widget_mechanism names a registered mechanism")
        }

        /// A check block (or the `#/check?…` page's query): the checkable mechanism it names, else
        /// the default check (which reports a `mechanism` it does not take).
        pub fn check_block(body: &str, fallback_id: &str) -> CheckSpec {
            let named = named_mechanism(body);
            $($(#[$a])* if named.as_deref() == Some(<$m as Mechanism>::NAME) {
                if let Some(spec) = <$m>::check_block(body, fallback_id) {
                    return spec;
                }
            })+
            $($(#[$a])* if <$m>::DEFAULT_CHECK {
                if let Some(spec) = <$m>::check_block(body, fallback_id) {
                    return spec;
                }
            })+
            unreachable!("one mechanism takes the checks that name no other")
        }

        /// Whether `name`'s site folder makes check blocks (the tests hold these to the check
        /// worker's list, `check_proto::CHECKED`).
        #[cfg(test)]
        fn makes_checks(name: &str) -> bool {
            $($(#[$a])* if name == <$m as Mechanism>::NAME {
                return <$m>::check_block("", "x").is_some();
            })+
            false
        }

        /// The lesson whose playground opens `s`'s counterexamples.
        pub fn lesson_of(s: &Scenario) -> &'static str {
            $($(#[$a])* if <$m>::unwrap(s).is_some() {
                return <$m>::LESSON;
            })+
            unreachable!("every scenario is a registered mechanism's")
        }

        /// What a check of `s` explores, for a check block without a caption.
        pub fn check_caption(s: &Scenario) -> String {
            $($(#[$a])* if let Some(p) = <$m>::unwrap(s) {
                return <$m>::check_caption(p);
            })+
            String::new()
        }

        /// The invariants the checker's worker checks for `s`.
        pub fn check_invariants(s: &Scenario) -> Vec<&'static str> {
            $($(#[$a])* if let Some(p) = <$m>::unwrap(s) {
                return <$m>::check_invariants(p);
            })+
            Vec::new()
        }

        /// A counterexample of `s` found by check block `id`, replayed (see
        /// [`SiteMechanism::check_replay`]).
        pub fn check_replay(s: &Scenario, c: &Counterexample, id: &str, slug: &AttrValue) -> Html {
            $($(#[$a])* if let Some(p) = <$m>::unwrap(s) {
                return <$m>::check_replay(*p, c, id, slug);
            })+
            Html::default()
        }

        /// The replay widget alone of a counterexample of `s` found by check block `id` (see
        /// [`SiteMechanism::replay_widget`]). Only the lazily loaded bundle makes it alone.
        #[cfg(feature = "timeline")]
        pub fn replay_widget(
            s: &Scenario,
            c: &Counterexample,
            id: &str,
            slug: &AttrValue,
        ) -> Option<Html> {
            $($(#[$a])* if let Some(p) = <$m>::unwrap(s) {
                return <$m>::replay_widget(*p, c, id, slug);
            })+
            None
        }

        /// The query of the scenario the `#/bench` page measures (the first mechanism's that has
        /// one).
        pub fn bench_query() -> String {
            $($(#[$a])* if let Some(q) = <$m>::bench_query() {
                return q;
            })+
            String::new()
        }

        /// The engine's simulation of `s`, when the site runs its mechanism (the trace page).
        #[cfg(feature = "timeline")]
        pub fn simulate(
            s: &Scenario,
        ) -> Option<herdlab_core::sim::Simulation<herdlab_web_engine::AnyMachine>> {
            $(if let Some(p) = <$m>::unwrap(s) {
                return Some(herdlab_web_engine::erase(<$m as Mechanism>::simulate(p)));
            })+
            None
        }

        /// One measuring run of the `#/bench` scenario for about `run_ms`.
        pub fn bench_run(run_ms: f64) -> (u64, f64) {
            $($(#[$a])* if let Some(r) = <$m>::bench_run(run_ms) {
                return r;
            })+
            (0, 0.0)
        }
    };
}

registry!(
    herdlab_core::mechanisms::herd::Herd,
    herdlab_core::mechanisms::locks::Locks,
    herdlab_core::mechanisms::accept::Accept,
    herdlab_core::mechanisms::pool::Pool,
    #[cfg(feature = "lazy")]
    herdlab_core::mechanisms::gmp::Gmp,
    #[cfg(feature = "lazy")]
    herdlab_core::mechanisms::mysql::Mysql,
);

/// The mechanisms whose site folder lives in the lazily loaded bundle only (docs/architecture.md,
/// "The site's two bundles"): the main app's registry lacks them, and the lesson page hands their
/// blocks to `ui::lazy::Lazy`.
pub const LAZY_ONLY: &[&str] = &["gmp", "mysql"];

#[cfg(test)]
mod tests {
    use super::*;

    /// Core's mechanisms the site does not show yet, each with its reason (none now: gmp and
    /// mysql are lazy-only, [`LAZY_ONLY`]).
    const NOT_ON_SITE: &[&str] = &[];

    /// The main app's registry is core's mechanisms but those not on the site and the lazy-only
    /// ones ([`LAZY_ONLY`]); the lazy bundle's (the `lazy` feature) has the lazy-only ones too.
    #[test]
    fn the_registry_lists_every_mechanism_of_core_once() {
        let lazy = cfg!(feature = "lazy");
        let on_site: Vec<&str> = herdlab_core::scenario::MECHANISMS
            .iter()
            .copied()
            .filter(|m| !NOT_ON_SITE.contains(m))
            .filter(|m| lazy || !LAZY_ONLY.contains(m))
            .collect();
        assert_eq!(NAMES.to_vec(), on_site);
        for m in LAZY_ONLY {
            assert!(
                herdlab_core::scenario::MECHANISMS.contains(m) && !NOT_ON_SITE.contains(m),
                "{m}"
            );
            assert_eq!(NAMES.contains(m), lazy, "{m} is in the lazy bundle only");
        }
    }

    /// The mechanisms whose folder makes check blocks are the ones the check worker checks
    /// (`check_proto::CHECKED`, which the `#/check` page and the check blocks' messages list),
    /// and the lazy bundle's registry has every one of them.
    #[test]
    fn the_checked_mechanisms_are_those_that_make_check_blocks() {
        use crate::check_proto::CHECKED;
        for m in NAMES {
            assert_eq!(makes_checks(m), CHECKED.contains(m), "{m}");
        }
        for m in CHECKED {
            assert!(herdlab_core::scenario::MECHANISMS.contains(m), "{m}");
            assert!(NAMES.contains(m) || LAZY_ONLY.contains(m), "{m}");
            if cfg!(feature = "lazy") {
                assert!(NAMES.contains(m), "{m} is in the lazy bundle's registry");
            }
        }
    }

    #[test]
    fn widget_blocks_go_to_the_mechanism_they_name_else_the_herd() {
        assert_eq!(widget_mechanism(Some("locks")), "locks");
        assert_eq!(widget_mechanism(None), "herd");
        assert_eq!(widget_mechanism(Some("bogus")), "herd");
        let mut place = Placing::default();
        let w = sim_widget(None, "id=a&mechanism=locks", "x", "", &mut place, 0);
        assert_eq!((w.mechanism, w.id.as_str()), ("locks", "a"));
        let w = sim_widget(None, "id=b&workers=2", "x", "", &mut place, 1);
        assert_eq!(w.mechanism, "herd");
        let w = sim_widget(Some("accept"), "id=c", "x", "", &mut place, 2);
        assert_eq!(w.mechanism, "accept");
    }

    #[test]
    fn check_blocks_are_lock_checks_unless_they_name_the_herd() {
        let k = check_block("mechanism=herd&frob=1", "z");
        assert!(matches!(k.scenario, Scenario::Herd(_)));
        assert_eq!(k.errors.len(), 2, "{:?}", k.errors);
        let k = check_block("mechanism=futex&frob=1", "z");
        assert!(matches!(k.scenario, Scenario::Locks(_)));
        assert!(
            k.errors[0].contains("allowed: locks, herd"),
            "{:?}",
            k.errors
        );
        let k = check_block("mechanism=accept", "z");
        assert!(matches!(k.scenario, Scenario::Locks(_)), "{k:?}");
        assert_eq!(lesson_of(&k.scenario), "nginx-shmtx");
    }
}
