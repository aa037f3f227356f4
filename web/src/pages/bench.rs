//! `#/bench`: how many simulation steps per second this browser runs (no stepper, no rendering), on
//! the scenario the registry names ([`crate::mechanisms::bench_query`]).

use gloo_timers::callback::Timeout;
use yew::prelude::*;

use crate::dom;
use crate::mechanisms;

/// How long the benchmark runs, first to warm up (not counted), then counted.
///
/// Why a warm-up: V8 first compiles the wasm with its baseline compiler and then optimises the
/// hot functions in the background, so the first second in a fresh page runs partly unoptimised
/// (measured 2026-12-04, AMD EPYC guest, Chromium 156: ~18.6 M steps/s in the first second,
/// ~20.5 M in the second, ~21.3 M from the third on). A learner's simulation plays for longer
/// than that; `herdlab sim`, its native counterpart, has no such phase. Both figures are shown.
const RUN_MS: f64 = 1000.0;

/// Messages of [`BenchPage`].
pub enum Msg {
    /// Run it now.
    Run,
    /// Run it again.
    Again,
}

/// The page.
pub struct BenchPage {
    /// (steps, ms) of the counted second.
    result: Option<(u64, f64)>,
    /// Steps per second in the warm-up second before it.
    cold: u64,
    _timer: Option<Timeout>,
}

impl BenchPage {
    fn arm(ctx: &Context<Self>) -> Timeout {
        let link = ctx.link().clone();
        // let the "running" text paint first
        Timeout::new(100, move || link.send_message(Msg::Run))
    }
}

impl Component for BenchPage {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        dom::set_title("Simulator speed · herdlab");
        BenchPage {
            result: None,
            cold: 0,
            _timer: Some(Self::arm(ctx)),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Run => {
                let (steps, ms) = mechanisms::bench_run(RUN_MS);
                self.cold = (steps as f64 * 1000.0 / ms).round() as u64;
                self.result = Some(mechanisms::bench_run(RUN_MS));
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
        let q = mechanisms::bench_query();
        html! {
            <article class="bench prose">
                <h1>{ "Simulator speed in this browser" }</h1>
                <p>
                    { "This page runs the herd simulation headless (no history, no drawing): a second to warm up, \
                       then a second counted; a run that ends sooner starts over. Compare the figure with the native \
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
                                    <span data-testid="bench-ms">{ format!("{ms:.0}") }</span>{ " ms; warm-up: " }
                                    <span data-testid="bench-cold-rate">{ self.cold }</span>{ " steps/s." }
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
