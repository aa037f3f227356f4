//! The animation-frame loop of a playing widget: asks for the next frame exactly while playing,
//! and measures the time between frames.

use gloo_render::{request_animation_frame, AnimationFrame};
use yew::html::Scope;
use yew::Component;

use crate::dom;
use crate::live::model::LiveModel;

/// Stepping stops for a frame after this long, to keep 60 frames per second.
pub const FRAME_BUDGET_MS: f64 = 8.0;

/// The pending frame and the last frame's timestamp.
#[derive(Default)]
pub struct FrameLoop {
    raf: Option<AnimationFrame>,
    last_ts: Option<f64>,
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

    /// A frame arrived at `ts`: the milliseconds since the last one.
    pub fn tick(&mut self, ts: f64) -> f64 {
        self.raf = None;
        let dt = self.last_ts.map(|l| ts - l).unwrap_or(1000.0 / 60.0);
        self.last_ts = Some(ts);
        dt
    }
}

/// Advance `model` by `dt` milliseconds, stepping for at most about `budget_ms`.
pub fn advance_within(model: &mut dyn LiveModel, dt: f64, budget_ms: f64) -> bool {
    let start = dom::now_ms();
    model.advance_frame(dt, &mut || dom::now_ms() - start > budget_ms)
}
