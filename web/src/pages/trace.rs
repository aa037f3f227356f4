//! `#/trace`: a native run beside its simulation (issue #14 §2). The learner opens a
//! `herdlab-trace 1` file (`herdlab bench <mechanism> … --trace FILE`, docs/trace-format.md) by
//! the file picker or by dropping it on the page; it is read in the browser, never uploaded,
//! parsed by core's one reader (`herdlab_core::trace::parse`, whose errors name the line and the
//! field), and each run is drawn in the timeline beside the simulation of the scenario it carries
//! (the site's query string), run by the site's engine, with the counters side by side and the
//! differences marked. Compiled only with the `timeline` feature. Names no mechanism.

use std::rc::Rc;

use herdlab_core::scenario::Scenario;
use herdlab_core::timeline::{fmt_ns, Builder, Counts, Timeline};
use herdlab_core::trace::{self, Kind, Trace};
use herdlab_web_engine::FastSim;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DragEvent, File, HtmlInputElement};
use yew::prelude::*;

use crate::ui::timeline::TimelineView;

/// The most steps the simulation beside a run takes.
pub const SIM_STEPS: u64 = 300_000;

/// A message of the page.
pub enum Msg {
    /// A file was chosen or dropped.
    Open(File),
    /// Its bytes were read (or could not be).
    Read(String, Result<Vec<u8>, String>),
    /// A run was chosen.
    Run(usize),
    /// One of the two timelines moved to this window (`from ns`, `to ns`).
    Window((u64, u64)),
    /// "Link the two timelines" was checked or unchecked.
    Link(bool),
}

/// One run as the page shows it: the native run's timeline and the simulation's.
struct Shown {
    native: Rc<Timeline>,
    sim: Result<(Rc<Timeline>, herdlab_core::metrics::Metrics), String>,
}

/// The `#/trace` page.
pub struct TracePage {
    name: Option<String>,
    trace: Option<Result<Trace, String>>,
    run: usize,
    shown: Option<Shown>,
    /// The two timelines share one window (both start at 0 ns): zooming or panning either moves
    /// both. On by default.
    linked: bool,
    /// The shared window (`from ns`, `to ns`).
    window: (u64, u64),
}

impl Shown {
    /// The window that shows both runs whole.
    fn whole(&self) -> (u64, u64) {
        let sim = self.sim.as_ref().map_or(0, |(tl, _)| tl.end.ns);
        (0, self.native.end.ns.max(sim).max(1))
    }
}

fn show(run: &trace::Run) -> Shown {
    let native = Rc::new(Timeline::from_run(run));
    let sim = match Scenario::from_query(&run.scenario) {
        Err(e) => Err(format!(
            "its scenario ({}) is not one this site reads: {}",
            run.scenario,
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
        Ok(s) => match crate::mechanisms::simulate(&s) {
            None => Err(format!(
                "the site does not simulate {} yet, so only your run is drawn",
                s.mechanism()
            )),
            Some(mut sim) => {
                let mut b = Builder::new(&sim);
                for _ in 0..SIM_STEPS {
                    match sim.step_fast() {
                        Some(r) => b.observe(&sim, &r),
                        None => break,
                    }
                }
                Ok((Rc::new(b.finish()), *sim.metrics()))
            }
        },
    };
    Shown { native, sim }
}

/// A row of the counters: the name, your run's value, the simulation's.
fn rows(
    t: &trace::Run,
    n: &Counts,
    s: &Counts,
    sim_end: u64,
    steps: usize,
) -> Vec<(&'static str, u64, u64)> {
    vec![
        (
            "wakeups",
            t.count(Kind::Wake) as u64,
            s.wakeups + s.other_wakeups,
        ),
        ("wasted wakeups", n.wasted, s.wasted),
        ("accepts", n.accepts, s.accepts),
        ("EAGAIN", n.eagain, s.eagain),
        ("lock holds", n.holds, s.holds),
        ("events / steps", t.events.len() as u64, steps as u64),
        (
            "duration (ns)",
            t.events.last().map_or(0, |e| e.t_ns),
            sim_end,
        ),
    ]
}

/// Whether two counts differ enough to mark: by more than a tenth of the larger, or one is zero
/// and the other is not.
fn differs(a: u64, b: u64) -> bool {
    let (lo, hi) = (a.min(b), a.max(b));
    (lo == 0) != (hi == 0) || (hi - lo) * 10 > hi
}

impl Component for TracePage {
    type Message = Msg;
    type Properties = ();

    fn create(_ctx: &Context<Self>) -> Self {
        crate::dom::set_title("Your run beside the simulation · herdlab");
        TracePage {
            name: None,
            trace: None,
            run: 0,
            shown: None,
            linked: true,
            window: (0, 1),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Open(file) => {
                let name = file.name();
                self.name = Some(name.clone());
                if file.size() > trace::MAX_FILE_BYTES as f64 {
                    self.trace = Some(Err(format!(
                        "file: {} bytes is too large; a trace is at most {} bytes",
                        file.size(),
                        trace::MAX_FILE_BYTES
                    )));
                    self.shown = None;
                    return true;
                }
                let link = ctx.link().clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let bytes = match JsFuture::from(file.array_buffer()).await {
                        Ok(buf) => Ok(js_sys::Uint8Array::new(&buf).to_vec()),
                        Err(_) => Err("file: the browser could not read it".to_string()),
                    };
                    link.send_message(Msg::Read(name, bytes));
                });
                false
            }
            Msg::Read(name, bytes) => {
                self.name = Some(name);
                self.run = 0;
                self.trace = Some(bytes.and_then(|b| trace::parse(&b).map_err(|e| e.to_string())));
                self.shown = match &self.trace {
                    Some(Ok(t)) if !t.runs.is_empty() => Some(show(&t.runs[0])),
                    _ => None,
                };
                if let Some(s) = &self.shown {
                    self.window = s.whole();
                }
                true
            }
            Msg::Run(i) => {
                if let Some(Ok(t)) = &self.trace {
                    if let Some(r) = t.runs.get(i) {
                        self.run = i;
                        let shown = show(r);
                        self.window = shown.whole();
                        self.shown = Some(shown);
                    }
                }
                true
            }
            Msg::Window(w) => {
                let moved = self.linked && self.window != w;
                self.window = w;
                moved
            }
            Msg::Link(on) => {
                self.linked = on;
                true
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let onchange = link.batch_callback(|e: Event| {
            let input = e.target()?.dyn_into::<HtmlInputElement>().ok()?;
            input.files()?.get(0).map(Msg::Open)
        });
        let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
        let ondrop = link.batch_callback(|e: DragEvent| {
            e.prevent_default();
            e.data_transfer()?.files()?.get(0).map(Msg::Open)
        });
        html! {
            <article class="trace-page" data-testid="trace-page" {ondragover} {ondrop}>
                <h1>{ "Your machine's run beside the simulation" }</h1>
                <p>
                    { "Open a trace written by " }<code>{ "herdlab bench <mechanism> … --trace FILE" }</code>
                    { ". It is read here, in your browser, and never uploaded. Each run is drawn in the \
                       timeline above the simulation of the same parameters, with the counters side by side." }
                </p>
                <p class="trace-drop">
                    <label for="trace-file">{ "Trace file (or drop it on this page): " }</label>
                    <input id="trace-file" type="file" data-testid="trace-file" accept=".trace,.txt,text/plain" {onchange} />
                </p>
                { self.body(ctx) }
            </article>
        }
    }
}

impl TracePage {
    fn body(&self, ctx: &Context<Self>) -> Html {
        let name = self.name.clone().unwrap_or_default();
        let t = match &self.trace {
            None => return html! { <p data-testid="trace-empty">{ "No trace opened yet." }</p> },
            Some(Err(e)) => {
                return html! {
                    <p class="error" role="alert" data-testid="trace-error">
                        { format!("Could not open {name}: {e}") }
                    </p>
                }
            }
            Some(Ok(t)) => t,
        };
        let head = html! {
            <p data-testid="trace-head">
                { format!("{name}: {} run(s), recorded by {} on {} ({} cores, {}) at {}: ",
                    t.runs.len(), t.tool, t.machine.cpu, t.machine.cores, t.machine.kernel, t.date) }
                <code>{ t.command.clone() }</code>
                { t.partial.as_ref().map(|p| format!(" (interrupted: {p}; the runs finished before it)")).unwrap_or_default() }
            </p>
        };
        if t.runs.is_empty() {
            return html! { <>{ head }<p data-testid="trace-no-runs">{ "The file holds no runs." }</p></> };
        }
        let onchange = ctx.link().batch_callback(|e: Event| {
            let input = e.target()?.dyn_into::<web_sys::HtmlSelectElement>().ok()?;
            input.value().parse::<usize>().ok().map(Msg::Run)
        });
        let run = &t.runs[self.run];
        let Some(shown) = &self.shown else {
            return head;
        };
        let n = shown.native.counts();
        // linked: both views show `window` and tell the page every move
        let (window, on_window) = if self.linked {
            (Some(self.window), Some(ctx.link().callback(Msg::Window)))
        } else {
            (None, None)
        };
        let on_link = ctx.link().batch_callback(|e: Event| {
            let input = e.target()?.dyn_into::<HtmlInputElement>().ok()?;
            Some(Msg::Link(input.checked()))
        });
        let link_box = if shown.sim.is_ok() {
            html! {
                <p class="trace-link">
                    <label>
                        <input type="checkbox" data-testid="trace-link" checked={self.linked} onchange={on_link} />
                        { " Link the two timelines (one time window for both: zooming or panning either moves both)" }
                    </label>
                </p>
            }
        } else {
            Html::default()
        };
        let sim_part = match &shown.sim {
            Err(e) => {
                html! { <p data-testid="trace-sim-missing">{ format!("No simulation beside it: {e}.") }</p> }
            }
            Ok((tl, _m)) => {
                let s = tl.counts();
                let rows = rows(run, &n, &s, tl.end.ns, tl.steps.len());
                html! {
                    <>
                        <table class="trace-counters" data-testid="trace-counters">
                            <caption>{ "Counters: your run and the simulation (marked ≠ where they differ by more than a tenth)" }</caption>
                            <thead><tr><th scope="col">{ "counter" }</th><th scope="col">{ "your run" }</th><th scope="col">{ "simulation" }</th><th scope="col">{ "differs" }</th></tr></thead>
                            <tbody>
                                { for rows.into_iter().map(|(k, a, b)| {
                                    let d = differs(a, b);
                                    html! {
                                        <tr class={classes!(d.then_some("differs"))} data-differs={d.to_string()}>
                                            <th scope="row">{ k }</th>
                                            <td>{ a }</td>
                                            <td>{ b }</td>
                                            <td>{ if d { "≠ differs" } else { "" } }</td>
                                        </tr>
                                    }
                                }) }
                            </tbody>
                        </table>
                        <h2>{ format!("The simulation ({} steps, {})", tl.steps.len(), fmt_ns(tl.end.ns)) }</h2>
                        <TimelineView timeline={tl.clone()} cursor={0} testid="trace-sim-timeline"
                            window={window} on_window={on_window.clone()} />
                    </>
                }
            }
        };
        html! {
            <>
                { head }
                <p>
                    <label for="trace-run">{ "Run: " }</label>
                    <select id="trace-run" data-testid="trace-run" {onchange}>
                        { for t.runs.iter().enumerate().map(|(i, r)| html! {
                            <option value={i.to_string()} selected={i == self.run}>{ format!("{} ({} events)", r.label, r.events.len()) }</option>
                        }) }
                    </select>
                </p>
                <p data-testid="trace-scenario">{ "Scenario: " }<code>{ run.scenario.clone() }</code>
                    { run.truncated.map(|k| format!(" ({k} events were cut to keep the file small)")).unwrap_or_default() }
                </p>
                <h2>{ format!("Your run ({} events, {})", run.events.len(), fmt_ns(shown.native.end.ns)) }</h2>
                { link_box }
                <TimelineView timeline={shown.native.clone()} cursor={0} testid="trace-timeline"
                    window={window} on_window={on_window.clone()} />
                { sim_part }
            </>
        }
    }
}
