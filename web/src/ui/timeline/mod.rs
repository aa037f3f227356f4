//! The timeline under every simulation widget (issue #14 §1), and the view the trace page
//! (`#/trace`) draws a native run in: core's model (`herdlab_core::timeline`) drawn on a canvas.
//! One lane per thread, the network, each lock and each CPU; states as shapes and letters as
//! well as colours (readable without colour), wakeup arrows (dashed when wasted), ticks; one
//! cursor with the stepper: a click or a drag seeks there, the stepper's steps move it, and the
//! page address keeps the step. Wheel, `[` `]` zoom; Shift+wheel, Shift+←/→ pan; ↑/↓ choose the
//! lane whose state at the cursor is told in words (aria-live). Compiled only with the `timeline`
//! feature.
//!
//! Generic: it reads a [`LiveModel`]'s step-0 simulation and hand-taken steps and names no
//! mechanism.

pub mod view;

use std::cell::RefCell;
use std::rc::Rc;

use herdlab_core::timeline::{Builder, Timeline};
use herdlab_web_engine::FastSim;

use crate::live::model::LiveModel;

pub use view::TimelineView;

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
