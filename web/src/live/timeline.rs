//! A widget's timeline, built from its model (what the site's `TimelineView`, in
//! `crate::ui::timeline`, draws): core's model (`herdlab_core::timeline`) of a [`LiveModel`]'s run
//! from its step-0 simulation with the hand-taken steps, kept until the scenario or the steps
//! change ([`Cache`]). Pure: no browser types. Compiled only with the `timeline` feature.
//!
//! Generic: it names no mechanism.

use std::cell::RefCell;
use std::rc::Rc;

use herdlab_core::timeline::{Builder, Timeline};
use herdlab_web_engine::FastSim;

use crate::live::model::LiveModel;

/// Steps the timeline runs from step 0 (past them, half as many beyond the cursor): the run's end
/// when it ends sooner.
pub const HORIZON: u64 = 100_000;

/// A widget's timeline state: whether it shows, and the one built last (rebuilt when the
/// scenario or the hand-taken steps change, or the cursor passes its end).
#[derive(Default)]
pub struct Cache {
    /// Whether it shows.
    pub open: bool,
    built: RefCell<Option<(String, Rc<Timeline>)>>,
}

impl Cache {
    /// The timeline of `model`'s run (built if needed), `None` for a model without one.
    pub fn get(&self, model: &dyn LiveModel) -> Option<Rc<Timeline>> {
        let (fresh, picks, end) = model.timeline_source()?;
        let pos = model.position();
        let key = format!("{}|{:?}|{end:?}", model.link_query_without_step(), picks);
        if let Some((k, tl)) = &*self.built.borrow() {
            if *k == key && (tl.steps.len() as u64 >= pos || end.is_some()) {
                return Some(tl.clone());
            }
        }
        let mut sim = fresh.clone();
        let mut b = Builder::new(&sim);
        // past the horizon, run half a horizon ahead of the cursor, so playing on rebuilds
        // rarely
        let until = if pos < HORIZON {
            HORIZON
        } else {
            pos + HORIZON / 2
        }
        .min(end.unwrap_or(u64::MAX));
        let mut pi = 0;
        for i in 0..until {
            while pi < picks.len() && picks[pi].0 < i {
                pi += 1;
            }
            let rec = if pi < picks.len() && picks[pi].0 == i {
                sim.step_actor_fast(picks[pi].1).ok()
            } else {
                sim.step_fast()
            };
            match rec {
                Some(r) => b.observe(&sim, &r),
                None => break,
            }
        }
        let tl = Rc::new(b.finish());
        *self.built.borrow_mut() = Some((key, tl.clone()));
        Some(tl)
    }
}

/// A model's link without its `step=`: what the timeline depends on.
trait LinkWithoutStep {
    fn link_query_without_step(&self) -> String;
}

impl LinkWithoutStep for dyn LiveModel + '_ {
    fn link_query_without_step(&self) -> String {
        self.link_query()
            .split('&')
            .filter(|kv| !kv.starts_with("step="))
            .collect::<Vec<_>>()
            .join("&")
    }
}
