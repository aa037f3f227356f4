//! Where a widget stands in the counterexample it replays ([`replay_progress`], and
//! [`script_progress`] for a simulation following a script).
//!
//! Generic: it names no mechanism.

use yew::prelude::*;

use crate::live::sim_model::SimRun;

/// The line `replay-progress`: step `position` of `total`, whether the history still follows the
/// counterexample (`data-on-script`, where the widget tells), and `text` saying so.
pub fn replay_progress(position: u64, total: usize, on_script: Option<bool>, text: String) -> Html {
    html! {
        <p class="replay-progress" data-testid="replay-progress"
            data-position={position.to_string()} data-total={total.to_string()}
            data-on-script={on_script.map(|on| on.to_string())}>{ text }</p>
    }
}

/// What [`script_progress`] says at step `position` of a counterexample of `total` steps:
/// `on_script` while the history follows it, `done` at its end, where `broken` says what is
/// broken ("cache-count is broken", "a wakeup is lost"), if anything.
fn script_text(
    position: u64,
    total: usize,
    on_script: bool,
    done: bool,
    broken: Option<String>,
) -> String {
    if done {
        format!(
            "counterexample replayed: step {position} of {total}{}",
            broken.map(|b| format!(", and {b}")).unwrap_or_default()
        )
    } else if on_script {
        format!("counterexample: step {position} of {total}")
    } else {
        format!("off the counterexample: you stepped by hand (step {position}); reset to follow it again")
    }
}

/// The `replay-progress` line of a simulation following a counterexample (`run`'s script), or
/// nothing where it follows none; `broken` says what is broken at its end, if anything.
pub fn script_progress(run: &SimRun, broken: Option<String>) -> Option<Html> {
    let total = run.script()?.len();
    let (position, on_script) = (run.position(), run.on_script());
    let text = script_text(position, total, on_script, run.script_done(), broken);
    Some(replay_progress(position, total, Some(on_script), text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_says_where_the_replay_stands() {
        assert_eq!(
            script_text(3, 9, true, false, None),
            "counterexample: step 3 of 9"
        );
        assert_eq!(
            script_text(9, 9, true, true, Some("cache-count is broken".into())),
            "counterexample replayed: step 9 of 9, and cache-count is broken"
        );
        assert_eq!(
            script_text(9, 9, true, true, None),
            "counterexample replayed: step 9 of 9"
        );
        assert_eq!(
            script_text(4, 9, false, false, None),
            "off the counterexample: you stepped by hand (step 4); reset to follow it again"
        );
    }
}
