//! `#/bench`: how many simulation steps per second this browser runs (no stepper, no rendering).

use gloo_timers::callback::Timeout;
use herdlab_core::herd::{HerdParams, WakeMode};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_web_engine::FastSim;
use yew::prelude::*;

use crate::dom;

/// How long the benchmark runs.
const RUN_MS: f64 = 1000.0;
/// Steps between clock reads.
const CHUNK: u64 = 10_000;

/// The scenario measured (the same one the native throughput benchmark runs).
pub fn bench_params() -> HerdParams {
    HerdParams {
        workers: 64,
        cpus: 2,
        mode: WakeMode::WakeAll,
        arrival: ArrivalPattern::Poisson,
        rate: 1_000_000,
        connections: 1_000_000,
        seed: 1,
        ..Default::default()
    }
}

/// Messages of [`BenchPage`].
pub enum Msg {
    /// Run it now.
    Run,
    /// Run it again.
    Again,
}

/// The page.
pub struct BenchPage {
    result: Option<(u64, f64)>,
    _timer: Option<Timeout>,
}

impl BenchPage {
    fn arm(ctx: &Context<Self>) -> Timeout {
        let link = ctx.link().clone();
        // let the "running" text paint first
        Timeout::new(100, move || link.send_message(Msg::Run))
    }
}

/// Step the scenario in chunks for about [`RUN_MS`]; a run that ends early starts over.
fn run() -> (u64, f64) {
    let mut sim = bench_params().simulate();
    let t0 = dom::now_ms();
    let mut steps = 0u64;
    loop {
        let mut n = 0;
        while n < CHUNK && sim.step_fast().is_some() {
            n += 1;
        }
        steps += n;
        let el = dom::now_ms() - t0;
        if el >= RUN_MS {
            return (steps, el.max(0.001));
        }
        if n < CHUNK {
            if n == 0 && sim.metrics().steps == 0 {
                return (steps, el.max(0.001));
            }
            sim = bench_params().simulate();
        }
    }
}

impl Component for BenchPage {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        dom::set_title("Simulator speed · herdlab");
        BenchPage {
            result: None,
            _timer: Some(Self::arm(ctx)),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Run => {
                self.result = Some(run());
                self._timer = None;
            }
            Msg::Again => {
                self.result = None;
                self._timer = Some(Self::arm(ctx));
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let q = Scenario::Herd(bench_params()).to_query();
        html! {
            <article class="bench prose">
                <h1>{ "Simulator speed in this browser" }</h1>
                <p>
                    { "This page runs the herd simulation headless (no history, no drawing) for about one second and \
                       counts its steps; a run that ends sooner starts over. Compare the figure with the native \
                       rate of the same scenario." }
                </p>
                <p class="scenario"><code>{ q }</code></p>
                { match self.result {
                    None => html! { <p data-testid="bench-status" aria-live="polite">{ "running…" }</p> },
                    Some((steps, ms)) => {
                        let rate = (steps as f64 * 1000.0 / ms).round() as u64;
                        html! {
                            <div aria-live="polite">
                                <p class="bench-result">
                                    <span data-testid="bench-rate">{ rate }</span>{ " steps per second" }
                                </p>
                                <p>
                                    <span data-testid="bench-steps">{ steps }</span>{ " steps in " }
                                    <span data-testid="bench-ms">{ format!("{ms:.0}") }</span>{ " ms." }
                                </p>
                                <button onclick={ctx.link().callback(|_| Msg::Again)}>{ "run again" }</button>
                            </div>
                        }
                    }
                } }
                <p><a href="#/">{ "← home" }</a></p>
            </article>
        }
    }
}
