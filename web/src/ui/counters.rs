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

/// The words for counter `key`, as the learner reads them: `wasted_wakeups` is "wasted wakeups",
/// `sim_time_ns` "simulated time" (the value carries the unit). The key itself stays in the
/// `data-key` attribute and the test ids.
pub fn counter_label(key: &str) -> String {
    let base = key.strip_suffix("_ns").unwrap_or(key);
    base.split('_')
        .map(|w| match w {
            "sim" => "simulated",
            "cpu" => "CPU",
            "cas" => "CAS",
            "sem" => "semaphore",
            w => w,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether counter `key` counts nanoseconds (shown as a time, the number of nanoseconds beside it).
pub fn is_time(key: &str) -> bool {
    key.ends_with("_ns")
}

/// Props of [`counters`].
#[derive(Properties, PartialEq)]
pub struct CounterProps {
    /// The counters, in order: (key, value).
    pub values: Vec<(&'static str, u64)>,
    /// One line of small print instead of a grid of cards.
    #[prop_or_default]
    pub compact: bool,
}

/// The counters.
pub fn counters(props: &CounterProps) -> Html {
    if props.compact {
        return html! {
            <p class="counter-line">
                { for props.values.iter().map(|&(key, v)| html! {
                    <span class="c" data-key={key}>{ counter_label(key) }{ " " }<b data-testid={format!("counter-{key}")}>{ v }</b>
                        if is_time(key) { { " ns" } }</span>
                }) }
            </p>
        };
    }
    html! {
        <dl class="counters">
            { for props.values.iter().map(|&(key, v)| html! {
                <div class={classes!("counter", (key == "wasted_wakeups" && v > 0).then_some("hot"),
                        (key == "lost_wakeups" && v > 0).then_some("alarm"))} data-key={key}>
                    <dt>{ counter_label(key) }</dt>
                    if is_time(key) {
                        <dd class="human">{ fmt_ns(v) }</dd>
                        <dd class="raw"><span data-testid={format!("counter-{key}")}>{ v }</span>{ " ns" }</dd>
                    } else {
                        <dd data-testid={format!("counter-{key}")}>{ v }</dd>
                    }
                </div>
            }) }
        </dl>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_words() {
        assert_eq!(counter_label("wasted_wakeups"), "wasted wakeups");
        assert_eq!(counter_label("sim_time_ns"), "simulated time");
        assert_eq!(counter_label("cpu_time_ns"), "CPU time");
        assert_eq!(counter_label("cas_failures"), "CAS failures");
        assert_eq!(counter_label("sem_sleeps"), "semaphore sleeps");
        assert_eq!(counter_label("steps"), "steps");
        assert!(is_time("sim_time_ns") && !is_time("syscalls"));
    }
}
