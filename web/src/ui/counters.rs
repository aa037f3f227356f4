//! The counters, each a plain number in `counter-<key>`: the simulator's ([`counter_values`]) or
//! the ones a mechanism's snapshot lists.

use yew::prelude::*;

use herdlab_core::metrics::Metrics;

use crate::live::describe::fmt_ns;

/// The counters shown, in order, with their values.
pub fn counter_values(m: &Metrics) -> [(&'static str, u64); 11] {
    [
        ("steps", m.steps),
        ("wakeups", m.wakeups),
        ("wasted_wakeups", m.wasted_wakeups),
        ("context_switches", m.context_switches),
        ("connections_accepted", m.connections_accepted),
        ("connections_arrived", m.connections_arrived),
        ("sim_time_ns", m.sim_time_ns),
        ("cpu_time_ns", m.cpu_time_ns),
        ("syscalls", m.syscalls),
        ("spins", m.spins),
        ("lost_wakeups", m.lost_wakeups),
    ]
}

/// Props of [`CounterGrid`].
#[derive(Properties, PartialEq)]
pub struct CounterProps {
    /// The counters, in order: (key, value).
    pub values: Vec<(&'static str, u64)>,
    /// One line of small print instead of a grid of cards.
    #[prop_or_default]
    pub compact: bool,
}

/// The counters.
#[function_component(CounterGrid)]
pub fn counters(props: &CounterProps) -> Html {
    if props.compact {
        return html! {
            <p class="counter-line">
                { for props.values.iter().map(|&(key, v)| html! {
                    <span class="c"><code>{ key }</code>{ " " }<b data-testid={format!("counter-{key}")}>{ v }</b></span>
                }) }
            </p>
        };
    }
    html! {
        <dl class="counters">
            { for props.values.iter().map(|&(key, v)| html! {
                <div class={classes!("counter", (key == "wasted_wakeups" && v > 0).then_some("hot"),
                        (key == "lost_wakeups" && v > 0).then_some("alarm"))}>
                    <dt>{ key }</dt>
                    <dd data-testid={format!("counter-{key}")}>{ v }</dd>
                    if key.ends_with("_ns") { <dd class="human">{ fmt_ns(v) }</dd> }
                </div>
            }) }
        </dl>
    }
}
