//! The timeline under every simulation widget (issue #14 §1), and the view the trace page
//! (`#/trace`) draws a native run in: core's model (`herdlab_core::timeline`) drawn on a canvas.
//! One lane per thread, the network, each lock and each CPU; states as shapes and letters as
//! well as colours (readable without colour), wakeup arrows (dashed when wasted), ticks; one
//! cursor with the stepper: a click or a drag seeks there, the stepper's steps move it, and the
//! page address keeps the step. Wheel, `[` `]` zoom; Shift+wheel, Shift+←/→ pan; ↑/↓ choose the
//! lane whose state at the cursor is told in words (aria-live). Compiled only with the `timeline`
//! feature.
//!
//! Generic: it draws the timeline a widget's model gives (`crate::live::timeline::Cache`, built
//! from a `LiveModel`'s step-0 simulation and hand-taken steps) and names no mechanism.

pub mod view;

pub use view::TimelineView;
