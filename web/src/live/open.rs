//! Where a simulation widget opens ([`Start`], [`Opening`]): at its block's `stop`, or for the
//! playground at the page address's `step` with the learner's `picks`, and the sentence for a step
//! the run could not reach. Pure: no browser types.

use herdlab_core::sim::Actor;

use crate::lesson::grammar::{PlaygroundInit, SimBlock};
use herdlab_core::mechanism::Mechanism;

use crate::live::sim_model::{SimModel, SimRun, Simulated};

/// What a widget opens with: its model, what could not be replayed, and whether it plays at once.
pub struct Opening<M> {
    /// The model, at its opening step.
    pub model: M,
    /// The sentence for a step the run could not reach (shown as `replay-error`).
    pub replay_error: Option<String>,
    /// Play at once (no step asked for), unless motion is reduced.
    pub autoplay: bool,
}

/// The sentence for a replay that stopped short: `asked` was asked for, the run could not go past
/// step `at`; `with_picks` when the learner's picks were replayed too.
pub fn short_replay(asked: u64, at: u64, with_picks: bool) -> String {
    format!(
        "step: asked for step {asked}, but the run could not go past step {at}{}; it opens there.",
        if with_picks { " with these picks" } else { "" }
    )
}

/// The scenario, step and picks a widget opens at.
pub struct Start<'a, P> {
    /// The scenario.
    pub params: P,
    /// The step to open at (`None`: step 0, playing).
    pub step: Option<u64>,
    /// The learner's manual picks to replay (0-based step, actor).
    pub picks: &'a [(u64, Actor)],
    /// Whether the picks are a run to follow (`follow=picks`): they name every step from 0, and
    /// stepping forward takes them again after a step back.
    pub follow: bool,
}

impl<'a, P: Copy> Start<'a, P> {
    /// Where `block` opens: with the playground's `init`, its scenario, its step (else the
    /// block's `stop`) and its picks; else the block's scenario at its `stop`.
    pub fn of(block: &SimBlock<P>, init: Option<&'a PlaygroundInit<P>>) -> Self {
        match init {
            Some(i) => Start {
                params: i.params,
                step: i.step.or(block.stop),
                picks: &i.picks,
                follow: i.follow,
            },
            None => Start {
                params: block.params,
                step: block.stop,
                picks: &[],
                follow: false,
            },
        }
    }
}

impl<P: Copy> Start<'_, P> {
    /// The model of mechanism `M` replayed to the step, and the sentence for a step it could not
    /// reach. With `follow`, picks that name every step from 0 become the run the model follows
    /// (as a check block's replay follows its counterexample), opened at the step or else at their
    /// end; picks that skip a step are replayed as plain picks, and the sentence says why.
    pub fn replayed<M: Simulated + Mechanism<Params = P>>(&self) -> Opening<SimModel<M>> {
        let mut model = SimModel::new(self.params);
        let (replay_error, autoplay) = open_run(&mut model, self.step, self.picks, self.follow);
        Opening {
            model,
            replay_error,
            autoplay,
        }
    }
}

/// Step `run` (fresh, at step 0) to `step` with `picks`, following them where `follow` asks and
/// they name every step from 0 ([`Start::replayed`]): the sentence for what could not be done, and
/// whether it plays at once. Not generic, so the site carries it once for every mechanism.
fn open_run(
    run: &mut SimRun,
    step: Option<u64>,
    picks: &[(u64, Actor)],
    follow: bool,
) -> (Option<String>, bool) {
    let mut skipped = None;
    if follow {
        match script_of(picks) {
            Ok(script) => {
                let end = script.len() as u64;
                let want = step.unwrap_or(end);
                run.follow(script);
                let bad = run.replay(want.min(end), picks);
                let said = match bad {
                    Some(at) => Some(short_replay(want, at, true)),
                    None if want > end => Some(format!(
                        "step: asked for step {want}, but the picks to follow end at step {end}; it opens there."
                    )),
                    None => None,
                };
                return (said, false);
            }
            Err(at) => {
                skipped = Some(format!(
                    "follow: the picks do not name step {at}, so they are not a run to follow; they are replayed as picks."
                ))
            }
        }
    }
    let bad = match step {
        Some(n) if n > 0 => run.replay(n, picks),
        _ => None,
    };
    let short = bad.map(|at| short_replay(step.unwrap_or(0), at, !picks.is_empty()));
    let said = match (skipped, short) {
        (Some(a), Some(b)) => Some(format!("{a} {b}")),
        (a, b) => a.or(b),
    };
    (said, step.is_none())
}

/// The actors of `picks` when they name every step from 0 in order (a run to follow), else the
/// first step they do not name (0 for no picks: an empty run would stop the widget at step 0).
pub fn script_of(picks: &[(u64, Actor)]) -> Result<Vec<Actor>, u64> {
    if picks.is_empty() {
        return Err(0);
    }
    picks
        .iter()
        .enumerate()
        .map(|(i, &(step, a))| {
            if step == i as u64 {
                Ok(a)
            } else {
                Err(i as u64)
            }
        })
        .collect()
}

impl<P: Copy> Start<'_, P> {
    /// The model of mechanism `M`: following `script` (who takes each step of a check block's
    /// counterexample) from step 0 where there is one, else [`Start::replayed`].
    pub fn opening<M: Simulated + Mechanism<Params = P>>(
        &self,
        script: Option<&[Actor]>,
    ) -> Opening<SimModel<M>> {
        match script {
            Some(script) => Opening {
                model: SimModel::scripted(self.params, script.to_vec()),
                replay_error: None,
                autoplay: self.step.is_none(),
            },
            None => self.replayed(),
        }
    }
}

/// `params` replayed to `step` with `picks` (a fresh model for no step or step 0), and the first
/// step that could not be taken.
fn replay<M: Simulated>(
    params: M::Params,
    step: Option<u64>,
    picks: &[(u64, Actor)],
) -> (SimModel<M>, Option<u64>) {
    match step {
        Some(n) if n > 0 => SimModel::replayed(params, n, picks),
        _ => (SimModel::new(params), None),
    }
}

/// `params` stepped to `stop` (a side of a comparison): as far as the run goes, without a word
/// for a step it could not reach.
pub fn stopped_at<M: Simulated>(params: M::Params, stop: Option<u64>) -> SimModel<M> {
    replay::<M>(params, stop, &[]).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_replay_sentence_names_the_picks_only_when_there_are_some() {
        assert_eq!(
            short_replay(40, 12, false),
            "step: asked for step 40, but the run could not go past step 12; it opens there."
        );
        assert_eq!(
            short_replay(40, 12, true),
            "step: asked for step 40, but the run could not go past step 12 with these picks; it opens there."
        );
    }
}
