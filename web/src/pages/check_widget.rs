//! "Find the bug" (```` ```herdlab-check ````): core's model checker explores every interleaving of
//! the block's scenario in a Web Worker (`src/bin/check_worker.rs`), so the page stays responsive;
//! the page shows the state count as the worker reports it, can cancel (terminating the worker),
//! and loads a counterexample into a stepper: its mechanism's widget, through the registry
//! ([`crate::mechanisms::check_replay`]).

use std::rc::Rc;

use herdlab_core::check::{CheckReport, Counterexample, Violation};
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker};
use yew::prelude::*;

use crate::check_proto::{CheckReply, CheckRequest, BROWSER_MAX_STATES, WORKER_URL};
use crate::dom;
use crate::lesson::check::CheckSpec;
use crate::mechanisms;

/// Props of [`CheckWidget`].
#[derive(Properties, PartialEq)]
pub struct CheckProps {
    /// The block.
    pub spec: Rc<CheckSpec>,
    /// The lesson whose playground a counterexample opens in.
    pub slug: AttrValue,
}

/// Messages of [`CheckWidget`].
pub enum Msg {
    /// "Find the bug".
    Start,
    /// "Cancel".
    Cancel,
    /// The worker said something.
    Reply(CheckReply),
    /// The worker failed.
    Failed(String),
}

/// Where the search is.
#[derive(Clone, Debug, PartialEq)]
enum State {
    Idle,
    /// Started: the worker loads, then explores.
    Running {
        states: u64,
    },
    Done {
        report: Rc<CheckReport>,
        ms: f64,
        wall_ms: f64,
    },
    Cancelled {
        states: u64,
    },
    Failed(String),
}

/// The request as the JSON string the worker reads (built with the browser's JSON, so the page's
/// bundle carries no JSON library; the worker reads it with serde).
fn request_json(req: &CheckRequest) -> Option<String> {
    let o = Object::new();
    Reflect::set(&o, &"mechanism".into(), &JsValue::from_str(&req.mechanism)).ok()?;
    Reflect::set(&o, &"query".into(), &JsValue::from_str(&req.query)).ok()?;
    Reflect::set(
        &o,
        &"max_states".into(),
        &JsValue::from_f64(req.max_states as f64),
    )
    .ok()?;
    JSON::stringify(&o).ok()?.as_string()
}

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn num(o: &JsValue, key: &str) -> Result<f64, String> {
    get(o, key)
        .as_f64()
        .ok_or_else(|| format!("the checker's reply has no number {key}"))
}

fn text(o: &JsValue, key: &str) -> String {
    get(o, key).as_string().unwrap_or_default()
}

/// A reply the worker posted (`CheckReply::to_json`), read with the browser's JSON.
fn reply_from_json(s: &str) -> Result<CheckReply, String> {
    let v = JSON::parse(s)
        .map_err(|_| "the checker's worker sent something that is not JSON".to_string())?;
    Ok(match text(&v, "kind").as_str() {
        "ready" => CheckReply::Ready,
        "progress" => CheckReply::Progress {
            states: num(&v, "states")? as u64,
            ms: num(&v, "ms")?,
        },
        "done" => {
            let r = get(&v, "report");
            let c = get(&r, "violation");
            let violation = if c.is_null() || c.is_undefined() {
                None
            } else {
                let inner = get(&c, "violation");
                Some(Counterexample {
                    violation: Violation {
                        invariant: text(&inner, "invariant"),
                        message: text(&inner, "message"),
                    },
                    schedule: Array::from(&get(&c, "schedule"))
                        .iter()
                        .filter_map(|t| t.as_f64())
                        .map(|t| t as u16)
                        .collect(),
                })
            };
            CheckReply::Done {
                report: CheckReport {
                    states: num(&r, "states")? as u64,
                    transitions: num(&r, "transitions")? as u64,
                    max_depth: num(&r, "max_depth")? as u32,
                    complete: get(&r, "complete").as_bool().unwrap_or(false),
                    bounded: get(&r, "bounded").as_bool().unwrap_or(false),
                    violation,
                },
                ms: num(&v, "ms")?,
            }
        }
        "error" => CheckReply::Error {
            message: text(&v, "message"),
        },
        other => {
            return Err(format!(
                "the checker's worker sent an unknown message '{other}'"
            ))
        }
    })
}

/// The running worker and the handlers it calls.
struct Job {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// The widget.
pub struct CheckWidget {
    state: State,
    job: Option<Job>,
    started: f64,
}

impl CheckWidget {
    fn spawn(&self, ctx: &Context<Self>) -> Result<Job, String> {
        let worker = Worker::new(WORKER_URL).map_err(|e| {
            format!(
                "the checker's worker could not start ({}); run `herdlab check` natively instead",
                e.as_string().unwrap_or_else(|| format!("{e:?}"))
            )
        })?;
        let link = ctx.link().clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let msg = match e.data().as_string().map(|s| reply_from_json(&s)) {
                Some(Ok(r)) => Msg::Reply(r),
                Some(Err(e)) => Msg::Failed(e),
                None => Msg::Failed("the checker's worker sent something that is not text".into()),
            };
            link.send_message(msg);
        });
        let link = ctx.link().clone();
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |e: ErrorEvent| {
            e.prevent_default();
            link.send_message(Msg::Failed(format!(
                "the checker's worker failed: {}",
                e.message()
            )));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Job {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    fn running(&self) -> bool {
        matches!(self.state, State::Running { .. })
    }
}

impl Component for CheckWidget {
    type Message = Msg;
    type Properties = CheckProps;

    fn create(_ctx: &Context<Self>) -> Self {
        CheckWidget {
            state: State::Idle,
            job: None,
            started: 0.0,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Start => {
                if self.running() {
                    return false;
                }
                self.job = None;
                match self.spawn(ctx) {
                    Ok(job) => {
                        self.job = Some(job);
                        self.started = dom::now_ms();
                        self.state = State::Running { states: 0 };
                    }
                    Err(e) => self.state = State::Failed(e),
                }
            }
            Msg::Cancel => {
                let State::Running { states } = self.state else {
                    return false;
                };
                self.job = None;
                self.state = State::Cancelled { states };
            }
            Msg::Reply(CheckReply::Ready) => {
                let Some(job) = &self.job else { return false };
                let scenario = ctx.props().spec.scenario;
                let req = CheckRequest {
                    // a mechanism the worker cannot check is refused there, with a check-error
                    mechanism: scenario.mechanism().to_string(),
                    query: scenario.to_query(),
                    max_states: BROWSER_MAX_STATES,
                };
                let sent = request_json(&req)
                    .map(|json| job.worker.post_message(&JsValue::from_str(&json)).is_ok());
                if sent != Some(true) {
                    self.job = None;
                    self.state =
                        State::Failed("could not send the request to the checker's worker".into());
                } else {
                    return false;
                }
            }
            Msg::Reply(CheckReply::Progress { states, .. }) => {
                if !self.running() {
                    return false;
                }
                self.state = State::Running { states };
            }
            Msg::Reply(CheckReply::Done { report, ms }) => {
                if !self.running() {
                    return false;
                }
                self.job = None;
                self.state = State::Done {
                    report: Rc::new(report),
                    ms,
                    wall_ms: dom::now_ms() - self.started,
                };
            }
            Msg::Reply(CheckReply::Error { message }) | Msg::Failed(message) => {
                if !self.running() {
                    return false;
                }
                self.job = None;
                self.state = State::Failed(message);
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let spec = &props.spec;
        let id = &spec.id;
        let running = self.running();
        let start = ctx.link().callback(|_: MouseEvent| Msg::Start);
        let cancel = ctx.link().callback(|_: MouseEvent| Msg::Cancel);
        let status = match &self.state {
            State::Idle => html! {},
            State::Running { states } => html! {
                <p class="check-progress" data-testid="check-progress" data-states={states.to_string()}>
                    { if *states == 0 {
                        "exploring… (the count shows every 65,536 states)".to_string()
                    } else {
                        format!("exploring… {states} states so far")
                    } }
                </p>
            },
            State::Cancelled { states } => html! {
                <p class="check-progress" data-testid="check-progress" data-states={states.to_string()}>
                    { format!("cancelled after {states} states; nothing was proved") }
                </p>
            },
            State::Failed(e) => html! {
                <p class="block-error" role="alert" data-testid="check-error">{ e }</p>
            },
            State::Done {
                report,
                ms,
                wall_ms,
            } => result(props, report, *ms, *wall_ms),
        };
        html! {
            <section class="widget check" data-testid={format!("check-{id}")} id={format!("check-{id}")}
                aria-labelledby={format!("check-{id}-caption")}>
                <header class="widget-head">
                    <p class="caption" id={format!("check-{id}-caption")}>
                        <span class="kicker">{ "Find the bug" }</span>
                        { spec.caption.clone().unwrap_or_else(|| mechanisms::check_caption(&spec.scenario)) }
                    </p>
                </header>
                if !spec.errors.is_empty() {
                    <div class="block-error" role="alert" data-testid="block-error">
                        <p>{ "This check block has problems; it runs with defaults for them:" }</p>
                        <ul>{ for spec.errors.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
                    </div>
                }
                <p class="check-invariants">
                    { format!("Invariants: {}.", mechanisms::check_invariants(&spec.scenario).join(", ")) }
                </p>
                <div class="controls" role="group" aria-label={format!("check {id}")}>
                    <button data-testid="find-bug" class="play" disabled={running} onclick={start}>
                        { if matches!(self.state, State::Idle) { "find the bug" } else { "search again" } }
                    </button>
                    <button data-testid="check-cancel" disabled={!running} onclick={cancel}>{ "cancel" }</button>
                </div>
                <div aria-live="polite">{ status }</div>
            </section>
        }
    }
}

fn result(props: &CheckProps, r: &CheckReport, ms: f64, wall_ms: f64) -> Html {
    let spec = &props.spec;
    let rate = if ms > 0.0 {
        (r.states as f64 * 1000.0 / ms).round() as u64
    } else {
        0
    };
    let verdict = match &r.violation {
        Some(c) => html! {
            <p class="verdict wrong" data-testid="check-verdict" data-invariant={c.violation.invariant.clone()}>
                <strong>{ c.violation.invariant.clone() }</strong>{ format!(": {}", c.violation.message) }
                { format!(" (shortest schedule: {} checker steps)", c.schedule.len()) }
            </p>
        },
        None if r.complete => html! {
            <p class="verdict right" data-testid="check-verdict" data-invariant="">
                { "no violation: the invariants hold in every reachable state" }
                { if r.bounded { " (within the preemption bound)" } else { "" } }
            </p>
        },
        None => html! {
            <p class="verdict" data-testid="check-verdict" data-invariant="">
                { format!("no violation in the first {} states, but the search stopped there: nothing is proved", r.states) }
            </p>
        },
    };
    // the replay is told its counterexample, so that "Show the timeline" hands it over as one
    let replay = r.violation.as_ref().map(|c| {
        crate::ui::shell::handoff::tell(&spec.id, c);
        mechanisms::check_replay(&spec.scenario, c, &spec.id, &props.slug)
    });
    html! {
        <div class="check-result" data-testid="check-result"
            data-complete={r.complete.to_string()} data-ms={format!("{ms:.0}")}
            data-wall-ms={format!("{wall_ms:.0}")}>
            { verdict }
            <dl class="counters check-numbers">
                <div class="counter"><dt>{ "states" }</dt><dd data-testid="check-states">{ r.states }</dd></div>
                <div class="counter"><dt>{ "transitions" }</dt><dd data-testid="check-transitions">{ r.transitions }</dd></div>
                <div class="counter"><dt>{ "max depth" }</dt><dd data-testid="check-depth">{ r.max_depth }</dd></div>
                <div class="counter"><dt>{ "time (ms)" }</dt><dd data-testid="check-ms">{ format!("{ms:.0}") }</dd></div>
                <div class="counter"><dt>{ "states/s" }</dt><dd data-testid="check-rate">{ rate }</dd></div>
            </dl>
            <p class="check-wall">
                { format!("The search took {ms:.0} ms in this browser's worker; {wall_ms:.0} ms from the click, with the worker's start.") }
                { if r.complete { "" } else { " It stopped before it saw every state." } }
            </p>
            { for replay }
        </div>
    }
}
