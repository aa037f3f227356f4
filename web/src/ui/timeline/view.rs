//! The timeline's canvas ([`TimelineView`]): draws what core's `layout` says for the visible
//! window, and turns clicks, drags, the wheel and keys into seeks, zooms and pans.

use std::rc::Rc;

use herdlab_core::timeline::{describe, fmt_ns, layout, LaneKind, State, TickKind, Timeline, View};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, KeyboardEvent, MouseEvent, WheelEvent};
use yew::prelude::*;

/// The width of the lane names, left of the plot.
const LABEL_PX: f64 = 74.0;
/// The height of the time axis, above the lanes.
const AXIS_PX: f64 = 18.0;

/// Props of a [`TimelineView`].
#[derive(Properties, Clone)]
pub struct TimelineProps {
    /// The run.
    pub timeline: Rc<Timeline>,
    /// The step the stepper is at (the cursor).
    pub cursor: u64,
    /// Seek the stepper to a step (a click or a drag); without it the cursor moves here alone.
    #[prop_or_default]
    pub on_seek: Option<Callback<u64>>,
    /// The test id of the section (`timeline`, `trace-timeline`).
    #[prop_or(AttrValue::Static("timeline"))]
    pub testid: AttrValue,
    /// A time window (`from ns`, `to ns`) shared with other views: shown whenever it changes
    /// (`#/trace` links its two timelines so).
    #[prop_or_default]
    pub window: Option<(u64, u64)>,
    /// Told every window this view moves to (a zoom, a pan, a reset), for the views it is linked
    /// with.
    #[prop_or_default]
    pub on_window: Option<Callback<(u64, u64)>>,
}

impl PartialEq for TimelineProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.timeline, &o.timeline)
            && self.cursor == o.cursor
            && self.on_seek == o.on_seek
            && self.testid == o.testid
            && self.window == o.window
            && self.on_window == o.on_window
    }
}

/// What a drag does.
#[derive(Clone, Copy, PartialEq)]
enum Drag {
    /// Moves the cursor (seeks).
    Seek,
    /// Moves the window: from pixel `x` with the window `view`.
    Pan { x: f64, view: View },
}

/// A message of the timeline.
pub enum Msg {
    /// A button pressed at (x, y) over the canvas, Shift held or not.
    Down(f64, f64, bool),
    /// The pointer moved to (x, y).
    Move(f64, f64),
    /// The button released.
    Up,
    /// The pointer left.
    Leave,
    /// The wheel at x: dy, Shift held or not.
    Wheel(f64, f64, bool),
    /// A key on the canvas.
    Key(KeyboardEvent),
}

/// The timeline's canvas, legend and words.
pub struct TimelineView {
    canvas: NodeRef,
    overlay: NodeRef,
    /// What the base canvas shows: the run, the window, the lane, the width.
    drawn: Option<(usize, View, usize, u32)>,
    view: Option<View>,
    lane: usize,
    hover: Option<String>,
    drag: Option<Drag>,
    /// Where this view seeked last (the cursor, until the stepper follows).
    local: Option<u64>,
    last_seek: Option<u64>,
    draw_ms: f64,
    end_ns: u64,
}

fn lane_px(lanes: usize) -> f64 {
    if lanes <= 32 {
        14.0
    } else {
        10.0
    }
}

fn colour(s: State) -> &'static str {
    match s {
        State::Running => "#2b7a3d",
        State::Runnable => "#9dbde6",
        State::Spinning => "#d98c00",
        State::Asleep => "#8a8a8a",
        State::Wasted => "#c0392b",
        State::Held => "#6b5b95",
    }
}

/// The warning colour of a lock held by two or more threads at once (drawn boxed, with the
/// count of holders, so it reads without colour).
const OVERLAP: &str = "#ffd400";

/// The height of a state's bar as a share of the lane (the shape tells the state without colour).
fn height(s: State) -> f64 {
    match s {
        State::Asleep => 0.2,
        State::Runnable => 0.5,
        _ => 0.85,
    }
}

impl TimelineView {
    fn width(&self) -> u32 {
        let w = self
            .canvas
            .cast::<HtmlCanvasElement>()
            .map(|c| c.client_width())
            .unwrap_or(800)
            .max(200) as f64;
        (w - LABEL_PX).max(50.0) as u32
    }

    fn view(&self, tl: &Timeline) -> View {
        let width = self.width();
        match self.view {
            Some(v) => View { width, ..v },
            None => View {
                from_ns: 0,
                to_ns: tl.end.ns.max(1),
                width,
            },
        }
    }

    fn cursor(&self, ctx: &Context<Self>) -> u64 {
        match (&ctx.props().on_seek, self.local) {
            (None, Some(l)) => l,
            (Some(_), Some(l)) if self.drag == Some(Drag::Seek) => l,
            _ => ctx.props().cursor,
        }
    }

    /// Move the cursor to pixel `x`: the stepper follows at once, or when the drag ends
    /// (`commit` false while dragging: a seek of the stepper re-renders the whole widget).
    fn seek(&mut self, ctx: &Context<Self>, x: f64, commit: bool) {
        let tl = &ctx.props().timeline;
        let v = self.view(tl);
        let ns = v.ns_at(x - LABEL_PX);
        self.local = Some(tl.step_at(ns));
        if commit {
            self.commit(ctx);
        }
    }

    /// Seek the stepper to the local cursor.
    fn commit(&mut self, ctx: &Context<Self>) {
        let Some(step) = self.local else { return };
        if self.last_seek == Some(step) {
            return;
        }
        self.last_seek = Some(step);
        if let Some(cb) = &ctx.props().on_seek {
            cb.emit(step);
        }
    }

    fn lane_at(&self, tl: &Timeline, y: f64) -> Option<usize> {
        let l = ((y - AXIS_PX) / lane_px(tl.lanes.len())).floor();
        (l >= 0.0 && (l as usize) < tl.lanes.len()).then_some(l as usize)
    }

    fn zoom(&mut self, tl: &Timeline, factor: f64, at: u64) {
        let v = self.view(tl);
        self.view = Some(v.zoom(factor, at, 50, tl.end.ns.max(1)));
    }

    fn pan(&mut self, tl: &Timeline, frac: f64) {
        let v = self.view(tl);
        self.view = Some(v.pan(frac));
    }

    /// Draw the lanes, arrows and ticks (not the cursor) when the run, the window, the lane or
    /// the width changed since the last time.
    fn draw_base(&mut self, ctx: &Context<Self>) {
        let Some(canvas) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        let t0 = crate::dom::now_ms();
        let tl = &ctx.props().timeline;
        let lanes = tl.lanes.len();
        let lp = lane_px(lanes);
        let css_w = canvas.client_width().max(200) as u32;
        let h = (AXIS_PX + lp * lanes as f64 + 2.0) as u32;
        if canvas.width() != css_w {
            canvas.set_width(css_w);
        }
        if canvas.height() != h {
            canvas.set_height(h);
        }
        let v = self.view(tl);
        let key = (Rc::as_ptr(tl) as usize, v, self.lane, css_w);
        if self.drawn == Some(key) {
            return;
        }
        self.drawn = Some(key);
        let Ok(Some(c)) = canvas.get_context("2d") else {
            return;
        };
        let Ok(c) = c.dyn_into::<CanvasRenderingContext2d>() else {
            return;
        };
        c.clear_rect(0.0, 0.0, f64::from(css_w), f64::from(h));
        c.set_font("10px sans-serif");
        // lane names and guides
        for (i, l) in tl.lanes.iter().enumerate() {
            let y = AXIS_PX + lp * i as f64;
            if i == self.lane {
                c.set_fill_style_str("#eef3fb");
                c.fill_rect(0.0, y, f64::from(css_w), lp);
            }
            c.set_fill_style_str("#222");
            let name = match l.kind {
                LaneKind::Thread(t) => format!("thread {t}"),
                LaneKind::Network => "network".to_string(),
                LaneKind::Lock(k) => format!("lock {k}"),
                LaneKind::WordLock(w) => format!("lock (word {w})"),
                LaneKind::Cpu(k) => format!("CPU {k}"),
            };
            let _ = c.fill_text(&name, 2.0, y + lp - 2.0);
        }
        let d = layout(tl, &v);
        // the rects, one path per state
        for s in State::ALL {
            c.begin_path();
            let hs = height(s);
            for r in d.rects.iter().filter(|r| r.state == s) {
                let y = AXIS_PX + lp * f64::from(r.lane);
                let bh = (lp - 2.0) * hs;
                let x0 = LABEL_PX + f64::from(r.x0).max(0.0);
                let x1 = LABEL_PX + f64::from(r.x1).min(f64::from(v.width));
                if x1 <= x0 {
                    continue;
                }
                c.rect(x0, y + (lp - bh) / 2.0, (x1 - x0).max(1.0), bh);
            }
            c.set_fill_style_str(colour(s));
            c.fill();
        }
        // letters on wide rects, stripes on spinning and wasted ones
        c.set_fill_style_str("#fff");
        for r in &d.rects {
            let w = f64::from(r.x1 - r.x0);
            let y = AXIS_PX + lp * f64::from(r.lane);
            let x0 = LABEL_PX + f64::from(r.x0).max(0.0);
            if w >= 12.0 && height(r.state) > 0.5 {
                let text = if r.state == State::Held {
                    r.who.to_string()
                } else {
                    r.state.letter().to_string()
                };
                let _ = c.fill_text(&text, x0 + 2.0, y + lp - 3.0);
            }
        }
        c.set_stroke_style_str("rgba(255,255,255,0.7)");
        c.set_line_width(1.0);
        c.begin_path();
        for r in d
            .rects
            .iter()
            .filter(|r| matches!(r.state, State::Spinning | State::Wasted))
        {
            let y = AXIS_PX + lp * f64::from(r.lane);
            let x0 = LABEL_PX + f64::from(r.x0).max(0.0);
            let x1 = LABEL_PX + f64::from(r.x1).min(f64::from(v.width));
            let mut x = x0 + 2.0;
            while x < x1 {
                c.move_to(x, y + 2.0);
                c.line_to(
                    x + if r.state == State::Wasted { 3.0 } else { 0.0 },
                    y + lp - 2.0,
                );
                x += 5.0;
            }
        }
        c.stroke();
        // broken locks: two or more holders at once, a boxed warning band saying how many
        for o in &d.overlaps {
            let y = AXIS_PX + lp * f64::from(o.lane);
            let x0 = LABEL_PX + f64::from(o.x0).max(0.0);
            let x1 = LABEL_PX + f64::from(o.x1).min(f64::from(v.width));
            if x1 <= x0 {
                continue;
            }
            let w = (x1 - x0).max(2.0);
            c.set_fill_style_str(OVERLAP);
            c.fill_rect(x0, y + 1.0, w, lp - 2.0);
            c.set_stroke_style_str("#000");
            c.stroke_rect(x0, y + 1.0, w, lp - 2.0);
            c.set_fill_style_str("#000");
            let text = format!("{} holders", o.holders);
            if w >= 8.0 * text.len() as f64 * 0.6 {
                let _ = c.fill_text(&text, x0 + 2.0, y + lp - 3.0);
            } else if w >= 5.0 {
                let _ = c.fill_text("!", x0 + 1.0, y + lp - 3.0);
            }
        }
        // ticks
        c.set_line_width(1.0);
        for kind in [
            TickKind::Syscall,
            TickKind::Eagain,
            TickKind::Accept,
            TickKind::Arrival,
            TickKind::Work,
            TickKind::Notify,
            TickKind::Steal,
            TickKind::Park,
            TickKind::Unpark,
        ] {
            c.begin_path();
            let (len, col) = match kind {
                TickKind::Eagain => (0.5, "#c0392b"),
                TickKind::Accept | TickKind::Arrival => (1.0, "#000"),
                _ => (0.3, "#444"),
            };
            for t in d.ticks.iter().filter(|t| t.kind == kind) {
                let y = AXIS_PX + lp * f64::from(t.lane);
                let x = LABEL_PX + f64::from(t.x);
                c.move_to(x, y);
                c.line_to(x, y + lp * len);
            }
            c.set_stroke_style_str(col);
            c.stroke();
        }
        // arrows: solid, then dashed (wasted)
        for wasted in [false, true] {
            c.begin_path();
            for a in d.arrows.iter().filter(|a| a.wasted == wasted) {
                let x = LABEL_PX + f64::from(a.x);
                let yf = AXIS_PX + lp * (f64::from(a.from) + 0.5);
                let yt = AXIS_PX + lp * (f64::from(a.to) + 0.5);
                if a.from == a.to {
                    c.move_to(x - 3.0, yt - lp / 2.0);
                    c.line_to(x, yt);
                    c.line_to(x + 3.0, yt - lp / 2.0);
                    continue;
                }
                c.move_to(x, yf);
                c.line_to(x, yt);
                let dir = if yt > yf { -1.0 } else { 1.0 };
                c.move_to(x - 3.0, yt + 4.0 * dir);
                c.line_to(x, yt);
                c.line_to(x + 3.0, yt + 4.0 * dir);
            }
            if wasted {
                let dash = js_sys::Array::of2(&JsValue::from(3.0), &JsValue::from(2.0));
                let _ = c.set_line_dash(&dash);
                c.set_stroke_style_str("#c0392b");
            } else {
                c.set_stroke_style_str("#1b3f8b");
            }
            c.stroke();
            let _ = c.set_line_dash(&js_sys::Array::new());
        }
        // the axis
        c.set_fill_style_str("#fff");
        c.fill_rect(0.0, 0.0, f64::from(css_w), AXIS_PX - 2.0);
        c.set_fill_style_str("#222");
        let _ = c.fill_text(&fmt_ns(v.from_ns), LABEL_PX, 12.0);
        let end = fmt_ns(v.to_ns);
        let _ = c.fill_text(&end, f64::from(css_w) - 8.0 * end.len() as f64, 12.0);
        self.draw_ms = crate::dom::now_ms() - t0;
        let _ = canvas.set_attribute("data-draw-ms", &format!("{:.2}", self.draw_ms));
        let _ = canvas.set_attribute("data-from-ns", &v.from_ns.to_string());
        let _ = canvas.set_attribute("data-to-ns", &v.to_ns.to_string());
    }

    /// Draw the cursor on the overlay (every render: cheap).
    fn draw_cursor(&mut self, ctx: &Context<Self>) {
        let (Some(base), Some(top)) = (
            self.canvas.cast::<HtmlCanvasElement>(),
            self.overlay.cast::<HtmlCanvasElement>(),
        ) else {
            return;
        };
        let t0 = crate::dom::now_ms();
        let (w, h) = (base.width(), base.height());
        if top.width() != w {
            top.set_width(w);
        }
        if top.height() != h {
            top.set_height(h);
        }
        let Ok(Some(c)) = top.get_context("2d") else {
            return;
        };
        let Ok(c) = c.dyn_into::<CanvasRenderingContext2d>() else {
            return;
        };
        let tl = &ctx.props().timeline;
        let v = self.view(tl);
        c.clear_rect(0.0, 0.0, f64::from(w), f64::from(h));
        c.set_font("10px sans-serif");
        let cursor = self.cursor(ctx);
        let cx = v.x(tl.ns_of_step(cursor));
        if (0.0..=f64::from(v.width)).contains(&cx) {
            c.set_fill_style_str("#000");
            c.fill_rect(LABEL_PX + cx - 1.0, AXIS_PX - 4.0, 2.0, f64::from(h));
            let _ = c.fill_text(&format!("step {cursor}"), LABEL_PX + cx + 3.0, 12.0);
        }
        let _ = top.set_attribute(
            "data-cursor-ms",
            &format!("{:.2}", crate::dom::now_ms() - t0),
        );
    }
}

impl Component for TimelineView {
    type Message = Msg;
    type Properties = TimelineProps;

    fn create(ctx: &Context<Self>) -> Self {
        TimelineView {
            canvas: NodeRef::default(),
            overlay: NodeRef::default(),
            drawn: None,
            view: ctx.props().window.map(shared),
            lane: 0,
            hover: None,
            drag: None,
            local: None,
            last_seek: None,
            draw_ms: 0.0,
            end_ns: ctx.props().timeline.end.ns,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        let tl = &ctx.props().timeline;
        if !Rc::ptr_eq(tl, &old.timeline) {
            // a new run: keep the window if it still fits, else show the whole run
            if tl.end.ns < self.end_ns {
                self.view = None;
            }
            self.end_ns = tl.end.ns;
            self.lane = self.lane.min(tl.lanes.len().saturating_sub(1));
            self.local = None;
        }
        if ctx.props().cursor != old.cursor {
            self.last_seek = None;
        }
        if let Some(w) = ctx.props().window {
            if ctx.props().window != old.window || !Rc::ptr_eq(tl, &old.timeline) {
                self.view = Some(shared(w));
            }
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let tl = ctx.props().timeline.clone();
        let before = self.view.map(|v| (v.from_ns, v.to_ns));
        let render = self.handle(ctx, &tl, msg);
        let after = self.view.map(|v| (v.from_ns, v.to_ns));
        if after != before {
            if let Some(cb) = &ctx.props().on_window {
                cb.emit(after.unwrap_or((0, tl.end.ns.max(1))));
            }
        }
        render
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        self.draw_base(ctx);
        self.draw_cursor(ctx);
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        self.html(ctx)
    }
}

/// A shared window as a view (its width is the canvas's, set when drawn).
fn shared((from_ns, to_ns): (u64, u64)) -> View {
    View {
        from_ns,
        to_ns: to_ns.max(from_ns + 1),
        width: 1,
    }
}

impl TimelineView {
    /// A message: whether to render.
    fn handle(&mut self, ctx: &Context<Self>, tl: &Rc<Timeline>, msg: Msg) -> bool {
        let tl = tl.clone();
        match msg {
            Msg::Down(x, y, shift) => {
                if shift || y < AXIS_PX {
                    self.drag = Some(Drag::Pan {
                        x,
                        view: self.view(&tl),
                    });
                } else if x >= LABEL_PX {
                    self.drag = Some(Drag::Seek);
                    if let Some(l) = self.lane_at(&tl, y) {
                        self.lane = l;
                    }
                    self.seek(ctx, x, false);
                } else if let Some(l) = self.lane_at(&tl, y) {
                    self.lane = l;
                }
                true
            }
            Msg::Move(x, y) => {
                match self.drag {
                    Some(Drag::Seek) => self.seek(ctx, x, false),
                    Some(Drag::Pan { x: x0, view }) => {
                        let frac = (x0 - x) / f64::from(view.width.max(1));
                        self.view = Some(view.pan(frac));
                    }
                    None => {}
                }
                let v = self.view(&tl);
                self.hover = match self.lane_at(&tl, y) {
                    Some(l) if x >= LABEL_PX => describe(&tl, l, v.ns_at(x - LABEL_PX)),
                    _ => None,
                };
                true
            }
            Msg::Up => {
                if self.drag.take() == Some(Drag::Seek) {
                    self.commit(ctx);
                }
                true
            }
            Msg::Leave => {
                if self.drag.take() == Some(Drag::Seek) {
                    self.commit(ctx);
                }
                self.hover = None;
                true
            }
            Msg::Wheel(x, dy, shift) => {
                if shift {
                    self.pan(&tl, if dy > 0.0 { 0.1 } else { -0.1 });
                } else {
                    let at = self.view(&tl).ns_at(x - LABEL_PX);
                    self.zoom(&tl, if dy > 0.0 { 1.25 } else { 0.8 }, at);
                }
                true
            }
            Msg::Key(e) => {
                let at = tl.ns_of_step(self.cursor(ctx));
                let handled = match (e.key().as_str(), e.shift_key()) {
                    ("]", _) => {
                        self.zoom(&tl, 0.5, at);
                        true
                    }
                    ("[", _) => {
                        self.zoom(&tl, 2.0, at);
                        true
                    }
                    ("ArrowLeft", true) => {
                        self.pan(&tl, -0.2);
                        true
                    }
                    ("ArrowRight", true) => {
                        self.pan(&tl, 0.2);
                        true
                    }
                    ("ArrowUp", _) => {
                        self.lane = self.lane.saturating_sub(1);
                        true
                    }
                    ("ArrowDown", _) => {
                        self.lane = (self.lane + 1).min(tl.lanes.len().saturating_sub(1));
                        true
                    }
                    ("0", _) | ("Home", _) => {
                        self.view = None;
                        true
                    }
                    _ => false,
                };
                if handled {
                    e.prevent_default();
                    e.stop_propagation();
                }
                handled
            }
        }
    }

    fn html(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let tl = &p.timeline;
        let link = ctx.link();
        let cursor = self.cursor(ctx);
        let cns = tl.ns_of_step(cursor);
        let detail = describe(tl, self.lane, cns).unwrap_or_else(|| {
            let name = tl
                .lanes
                .get(self.lane)
                .map(|l| l.kind.name())
                .unwrap_or_default();
            format!("{name}: nothing at step {cursor}")
        });
        let counts = tl.counts();
        let broken = match counts.overlaps {
            0 => String::new(),
            n => format!(
                " A lock was held by two or more threads at once {n} time{} (a broken lock).",
                if n == 1 { "" } else { "s" }
            ),
        };
        let label = format!(
            "Timeline of {} lanes over {} ({} steps): {} wakeups ({} wasted), cursor at step {cursor}.{broken} \
             ] and [ zoom, Shift with the arrows pans, up and down choose a lane; the lane's state is told below.",
            tl.lanes.len(),
            fmt_ns(tl.end.ns),
            tl.steps.len(),
            counts.wakeups + counts.other_wakeups,
            counts.wasted,
        );
        let onmousedown = link.callback(|e: MouseEvent| {
            Msg::Down(
                f64::from(e.offset_x()),
                f64::from(e.offset_y()),
                e.shift_key(),
            )
        });
        let onmousemove = link
            .callback(|e: MouseEvent| Msg::Move(f64::from(e.offset_x()), f64::from(e.offset_y())));
        let onmouseup = link.callback(|_: MouseEvent| Msg::Up);
        let onmouseleave = link.callback(|_: MouseEvent| Msg::Leave);
        let onwheel = link.callback(|e: WheelEvent| {
            e.prevent_default();
            Msg::Wheel(f64::from(e.offset_x()), e.delta_y(), e.shift_key())
        });
        let onkeydown = link.callback(Msg::Key);
        let v = self.view.unwrap_or(View {
            from_ns: 0,
            to_ns: tl.end.ns.max(1),
            width: 1,
        });
        html! {
            <div class="timeline" data-testid={p.testid.clone()} data-cursor={cursor.to_string()}
                data-steps={tl.steps.len().to_string()} data-lanes={tl.lanes.len().to_string()}
                data-wakeups={(counts.wakeups + counts.other_wakeups).to_string()} data-wasted={counts.wasted.to_string()} data-overlaps={counts.overlaps.to_string()}
                data-view={format!("{}-{}", v.from_ns, v.to_ns)}>
                <div style="position:relative">
                    <canvas ref={self.canvas.clone()} class="timeline-canvas" aria-hidden="true"
                        style="width:100%;display:block" />
                    <canvas ref={self.overlay.clone()} class="timeline-cursor" data-testid="timeline-canvas"
                        tabindex="0" role="img" aria-label={label}
                        style="position:absolute;left:0;top:0;width:100%;height:100%;cursor:crosshair"
                        {onmousedown} {onmousemove} {onmouseup} {onmouseleave} {onwheel} {onkeydown} />
                </div>
                <p class="timeline-detail" data-testid="timeline-detail" aria-live="polite">{ detail }</p>
                <p class="timeline-hover" data-testid="timeline-hover">{ self.hover.clone().unwrap_or_default() }</p>
                { legend() }
            </div>
        }
    }
}

/// The legend: each state's colour, shape and letter, the arrows and the ticks.
fn legend() -> Html {
    html! {
        <ul class="timeline-legend" data-testid="timeline-legend" aria-label="Timeline legend"
            style="display:flex;flex-wrap:wrap;gap:0.8em;list-style:none;padding:0;font-size:0.85em">
            { for State::ALL.iter().map(|s| {
                let h = (height(*s) * 12.0) as u32;
                html! {
                    <li>
                        <span aria-hidden="true" style={format!("display:inline-block;width:14px;height:{h}px;background:{};margin-right:3px;vertical-align:middle", colour(*s))}></span>
                        { format!("{} ({})", s.name(), s.letter()) }
                    </li>
                }
            }) }
            <li>
                <span aria-hidden="true" style={format!("display:inline-block;width:14px;height:10px;background:{OVERLAP};border:1px solid #000;margin-right:3px;vertical-align:middle")}></span>
                { "“2 holders” (!): a lock held by two or more threads at once, a broken lock" }
            </li>
            <li>{ "↓ arrow: a wakeup, from the waker's lane to the woken thread's; dashed: wasted" }</li>
            <li>{ "ticks: system calls (short), EAGAIN (half), accepts and arrivals (tall)" }</li>
            <li>{ "click or drag: go to that step; wheel or [ ]: zoom; Shift+wheel, Shift+drag or Shift+←/→: pan" }</li>
        </ul>
    }
}
