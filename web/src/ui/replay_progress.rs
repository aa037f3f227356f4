//! Where a widget stands in the counterexample it replays: [`replay_progress`] draws the line,
//! [`counterexample_progress`] writes it for every widget over the generic model (herd, pool,
//! mysql: one text, one place).

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

/// The words of [`counterexample_progress`]: at step `pos` of a counterexample of `total` steps,
/// `done` (replayed to its end) or still `on` it (else stepped off it by hand); at the end,
/// `broken` then `more` say what went wrong ("a wakeup is lost", "cache-count" " is broken"),
/// nothing when `broken` is empty.
pub fn progress_text(
    pos: u64,
    total: usize,
    done: bool,
    on: bool,
    broken: &str,
    more: &str,
) -> String {
    if done {
        let (and, more) = if broken.is_empty() {
            ("", "")
        } else {
            (", and ", more)
        };
        format!("counterexample replayed: step {pos} of {total}{and}{broken}{more}")
    } else if on {
        format!("counterexample: step {pos} of {total}")
    } else {
        format!(
            "off the counterexample: you stepped by hand (step {pos}); reset to follow it again"
        )
    }
}

/// The `replay-progress` line of a widget whose model `run` replays a counterexample (none
/// without one); `broken` and `more` as in [`progress_text`].
pub fn counterexample_progress(run: &SimRun, broken: &str, more: &str) -> Option<Html> {
    let script = run.script()?;
    let (pos, on) = (run.position(), run.on_script());
    let text = progress_text(pos, script.len(), run.script_done(), on, broken, more);
    Some(replay_progress(pos, script.len(), Some(on), text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_states_in_words() {
        assert_eq!(
            progress_text(7, 7, true, true, "a wakeup is lost", ""),
            "counterexample replayed: step 7 of 7, and a wakeup is lost"
        );
        assert_eq!(
            progress_text(7, 7, true, true, "cache-count", " is broken"),
            "counterexample replayed: step 7 of 7, and cache-count is broken"
        );
        assert_eq!(
            progress_text(7, 7, true, true, "", " is broken"),
            "counterexample replayed: step 7 of 7"
        );
        assert_eq!(
            progress_text(3, 7, false, true, "x", " is broken"),
            "counterexample: step 3 of 7"
        );
        assert_eq!(
            progress_text(4, 7, false, false, "", ""),
            "off the counterexample: you stepped by hand (step 4); reset to follow it again"
        );
    }
}
