//! Where a simulation widget opens ([`Start`], [`Opening`]): at its block's `stop`, or for the
//! playground at the page address's `step` with the learner's `picks`, and the sentence for a step
//! the run could not reach. Pure: no browser types.

use herdlab_core::sim::Actor;

use crate::lesson::grammar::{PlaygroundInit, SimBlock};
use herdlab_core::mechanism::Mechanism;

use crate::live::sim_model::{SimModel, Simulated};

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
            },
            None => Start {
                params: block.params,
                step: block.stop,
                picks: &[],
            },
        }
    }
}

impl<P: Copy> Start<'_, P> {
    /// The model of mechanism `M` replayed to the step, and the sentence for a step it could not
    /// reach.
    pub fn replayed<M: Simulated + Mechanism<Params = P>>(&self) -> Opening<SimModel<M>> {
        let (model, bad) = replay::<M>(self.params, self.step, self.picks);
        Opening {
            model,
            replay_error: bad
                .map(|at| short_replay(self.step.unwrap_or(0), at, !self.picks.is_empty())),
            autoplay: self.step.is_none(),
        }
    }
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
