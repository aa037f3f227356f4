//! The run's status, and the lost-wakeup alarm of the broken variant.

use std::rc::Rc;

use yew::prelude::*;

use herdlab_core::sim::Status;

use crate::live::snapshot::{InvariantView, StatusView};

/// Props of [`status`].
#[derive(Properties, PartialEq)]
pub struct StatusProps {
    /// The status.
    pub status: Rc<StatusView>,
}

/// The status line.
pub fn status(props: &StatusProps) -> Html {
    let s = &props.status;
    let (class, text) = match &s.status {
        Status::Running => ("running", "Running".to_string()),
        Status::Finished => ("finished", "Finished".to_string()),
        Status::Stuck(m) => ("stuck", format!("Stuck: {m}")),
    };
    let lost = (s.broken || s.lost > 0).then(|| {
        let first = match s.first {
            Some((step, conn)) => format!(
                "First lost wakeup at step {step}: connection {conn} waited in the accept queue while every worker slept."
            ),
            None => "No lost wakeup yet: keep playing, or try another seed.".to_string(),
        };
        html! {
            <div class={classes!("lost", (s.lost > 0).then_some("alarm"))} data-testid="lost-wakeups" role="status">
                <strong>{ format!("lost_wakeups: {}", s.lost) }</strong>
                <span>{ format!(" · {first}") }</span>
            </div>
        }
    });
    html! {
        <div class="status-row">
            <p class={classes!("status", class)}>
                <span class="status-label">{ "status: " }</span>
                <span data-testid="status">{ text }</span>
                <span class="at">{ format!(" · step {}", s.position) }</span>
            </p>
            { for lost }
        </div>
    }
}

/// The invariants line `invariant-status` (`data-invariant`: the broken one's name, empty when
/// all hold): "all invariants hold" or "<name> is broken: <message>"; `class` is the board's
/// (`pool-invariant`).
pub fn invariant_status(class: &'static str, v: &InvariantView) -> Html {
    let broken = !v.name.is_empty();
    html! {
        <p class={classes!(class, broken.then_some("alarm"))} data-testid="invariant-status"
            data-invariant={v.name.clone()} role="status">
            { if broken { format!("{} is broken: {}", v.name, v.message) } else { "all invariants hold".to_string() } }
        </p>
    }
}
