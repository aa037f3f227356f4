//! The animation-frame loop of a playing widget: asks for the next frame exactly while playing,
//! measures the time between frames, and sets each frame's time budget for stepping.
//!
//! The budget is in time, not in steps, and it adapts: a frame that came late while the stepping
//! before it had spent its whole budget (the simulation is part of why) shrinks it by a quarter;
//! any other frame grows it by [`BUDGET_STEP_MS`]; always within [`FRAME_BUDGET_MS`]. A late
//! frame whose stepping stopped short of the budget leaves it growing: the render alone is too
//! slow, and stepping less would only lose steps. Invariant: the budget is in that range after
//! every [`FrameLoop::tick`].

use gloo_render::{request_animation_frame, AnimationFrame};
use yew::html::Scope;
use yew::Component;

use crate::dom;
use crate::live::model::LiveModel;

/// The least and the most a frame steps for, in milliseconds (of the 16.7 ms of a frame at 60
/// frames per second, the rest is the render's).
pub const FRAME_BUDGET_MS: (f64, f64) = (2.0, 6.0);
/// What an on-time frame adds to the budget.
pub const BUDGET_STEP_MS: f64 = 0.25;
/// A frame later than this after the last one was late.
const LATE_MS: f64 = 20.0;

/// The pending frame, the last frame's timestamp, the stepping budget and whether the last
/// frame's stepping spent it all.
#[derive(Default)]
pub struct FrameLoop {
    raf: Option<AnimationFrame>,
    last_ts: Option<f64>,
    budget: f64,
    /// The last frame's stepping ran out of its budget ([`FrameLoop::spent`]).
    pub cut: bool,
}

impl FrameLoop {
    /// Keep a frame pending exactly while `playing`; `msg` wraps the frame's timestamp.
    pub fn sync<C: Component>(
        &mut self,
        playing: bool,
        link: &Scope<C>,
        msg: fn(f64) -> C::Message,
    ) {
        if playing {
            if self.raf.is_none() {
                let link = link.clone();
                self.raf = Some(request_animation_frame(move |ts| {
                    link.send_message(msg(ts))
                }));
            }
        } else {
            self.raf = None;
            self.last_ts = None;
        }
    }

    /// A frame arrived at `ts`: the milliseconds since the last one, and this frame's budget
    /// for stepping.
    pub fn tick(&mut self, ts: f64) -> (f64, f64) {
        self.raf = None;
        let dt = self.last_ts.map(|l| ts - l).unwrap_or(1000.0 / 60.0);
        self.last_ts = Some(ts);
        let b = if dt > LATE_MS && self.cut {
            self.budget * 0.75
        } else {
            self.budget + BUDGET_STEP_MS
        };
        self.budget = b.clamp(FRAME_BUDGET_MS.0, FRAME_BUDGET_MS.1);
        (dt, self.budget)
    }
}

/// Advance `model` by `dt` milliseconds, stepping for at most about `budget_ms`: whether anything
/// changed, and whether the stepping was cut short by the budget.
pub fn advance_within(model: &mut dyn LiveModel, dt: f64, budget_ms: f64) -> (bool, bool) {
    let start = dom::now_ms();
    let mut cut = false;
    let changed = model.advance_frame(dt, &mut || {
        cut = dom::now_ms() - start > budget_ms;
        cut
    });
    (changed, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On-time frames grow the budget to its most, late ones after a cut stepping shrink it to
    /// its least, late ones after a stepping within budget do not, and it never leaves the range.
    #[test]
    fn the_budget_adapts_within_its_range() {
        let mut f = FrameLoop {
            cut: true,
            ..FrameLoop::default()
        };
        let mut ts = 0.0;
        let mut budgets = Vec::new();
        for _ in 0..30 {
            ts += 16.7;
            budgets.push(f.tick(ts).1);
        }
        assert_eq!(budgets[0], FRAME_BUDGET_MS.0);
        assert_eq!(budgets[1], FRAME_BUDGET_MS.0 + BUDGET_STEP_MS);
        assert_eq!(*budgets.last().unwrap(), FRAME_BUDGET_MS.1);
        let (dt, b) = f.tick(ts + 40.0);
        assert_eq!((dt, b), (40.0, FRAME_BUDGET_MS.1 * 0.75));
        ts += 40.0;
        for _ in 0..10 {
            ts += 33.4;
            let (_, b) = f.tick(ts);
            assert!((FRAME_BUDGET_MS.0..=FRAME_BUDGET_MS.1).contains(&b));
        }
        ts += 50.0;
        assert_eq!(f.tick(ts).1, FRAME_BUDGET_MS.0);
        // the render alone is late: the budget grows again
        f.cut = false;
        ts += 50.0;
        assert_eq!(f.tick(ts).1, FRAME_BUDGET_MS.0 + BUDGET_STEP_MS);
    }
}
