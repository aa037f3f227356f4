//! The state of one simulation widget and the reducer that changes it. The simulation itself is
//! core's pure [`Stepper`]; the view only turns a learner's action into an [`Action`] and calls
//! [`SimModel::apply`] (or [`SimModel::advance`] once per animation frame while playing).
//!
//! One model serves every mechanism core simulates ([`Simulated`]), and all but the little that
//! needs the mechanism's type (its parameters, making its simulation) is compiled once for all of
//! them: [`SimModel<M>`] is its parameters and a [`SimRun`], which steps the engine's
//! [`AnyMachine`] simulation and holds the history, the play state and the reducer.

use std::ops::{Deref, DerefMut};

use herdlab_core::scenario::Scenario;
use herdlab_core::sim::stepper::Stepper;
use herdlab_core::sim::{Actor, Simulation, StepRecord};
use herdlab_core::waitqueue::WalkVisit;
use herdlab_web_engine::{erase, AnyMachine, Erased, FastStepper};

use crate::lesson::picks::format_picks;
use crate::live::describe::{status_sentence, step_sentence};
use crate::live::mechanism::SiteMechanism;
use crate::live::playback::{Playback, Player};

pub use crate::lesson::grammar::MAX_STEPS;
/// "Next wakeup" gives up after this many steps.
pub const NEXT_WAKEUP_LIMIT: u64 = 100_000;
/// "Run to the end" gives up after this many steps.
pub const RUN_TO_END_LIMIT: u64 = 2_000_000;
const WALKS_KEPT: usize = 64;

/// One wake walk: which entries the walk visited, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The step that ran it.
    pub step: u64,
    /// The `nr_exclusive` budget it started with (0: no limit).
    pub budget: u32,
    /// The visits, head first.
    pub visits: Vec<WalkVisit>,
    /// The listening socket whose wait queue it walked (0 where there is one).
    pub listener: u8,
}

/// What the learner can do to a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// One step with the default scheduler.
    Step,
    /// One step of this actor (a per-thread button, or the network).
    StepActor(Actor),
    /// Undo one step.
    Back,
    /// Back to step 0.
    Reset,
    /// Step until someone is woken.
    NextWakeup,
    /// Play or pause.
    TogglePlay,
    /// Pause.
    Pause,
    /// One rung up the speed ladder.
    Faster,
    /// One rung down.
    Slower,
    /// Deliver a connection now.
    Connect,
    /// Step until the run ends.
    RunToEnd,
    /// Go to this step (back through the history, or on with the default scheduler): the
    /// timeline's click.
    #[cfg(feature = "timeline")]
    Seek(u64),
}

/// What the timeline replays: the simulation at step 0, the steps taken by hand (for a replay
/// that follows its counterexample, every step of the counterexample) and, for a replay, the
/// step it stops at (the counterexample's end).
#[cfg(feature = "timeline")]
pub type TimelineSource<'a> = (
    &'a herdlab_core::sim::Simulation<herdlab_web_engine::AnyMachine>,
    std::borrow::Cow<'a, [(u64, herdlab_core::sim::Actor)]>,
    Option<u64>,
);

/// A mechanism a [`SimModel`] runs: any [`SiteMechanism`] whose thread machine the engine can run
/// (see herdlab-web-engine). Core's [`Mechanism::simulate`] makes the simulation and the
/// scenario's query makes the link.
pub trait Simulated: SiteMechanism<Thread: Erased> {}

impl<M: SiteMechanism<Thread: Erased>> Simulated for M {}

/// One simulation of mechanism `M` with its history, play state and the sentence for the last
/// change: `M`'s parameters and the [`SimRun`] that does the rest (reached through `Deref`).
pub struct SimModel<M: Simulated> {
    params: M::Params,
    run: SimRun,
}

impl<M: Simulated> Deref for SimModel<M> {
    type Target = SimRun;
    fn deref(&self) -> &SimRun {
        &self.run
    }
}

impl<M: Simulated> DerefMut for SimModel<M> {
    fn deref_mut(&mut self) -> &mut SimRun {
        &mut self.run
    }
}

impl<M: Simulated> SimModel<M> {
    /// A fresh simulation of `params` at step 0.
    pub fn new(params: M::Params) -> Self {
        SimModel {
            params,
            run: SimRun::new(erase(M::simulate(&params)), M::wrap(params), M::FINISHED),
        }
    }

    /// `params` after `steps` steps, with `picks` (0-based step, actor) taken by hand, as
    /// [`Stepper::replay`] does it (this loop also remembers the wake walks on the way). Returns the
    /// first step that could not be replayed, if any.
    pub fn replayed(params: M::Params, steps: u64, picks: &[(u64, Actor)]) -> (Self, Option<u64>) {
        let mut m = Self::new(params);
        let bad = m.run.replay(steps, picks);
        (m, bad)
    }

    /// A fresh simulation of `params` at step 0 that steps through `script` (a counterexample:
    /// one actor per step).
    pub fn scripted(params: M::Params, script: Vec<Actor>) -> Self {
        let mut m = Self::new(params);
        m.run.script = Some(script);
        m
    }

    /// The scenario.
    pub fn params(&self) -> &M::Params {
        &self.params
    }

    /// Start over with new parameters (the play state and speed are kept).
    pub fn rebuild(&mut self, params: M::Params) {
        self.params = params;
        self.run
            .restart(erase(M::simulate(&params)), M::wrap(params));
    }
}

/// A simulation of any mechanism, as the engine runs it, with its history, play state and the
/// sentence for the last change.
pub struct SimRun {
    scenario: Scenario,
    /// What a finished run did ([`SiteMechanism::FINISHED`]).
    finished: &'static str,
    /// The simulation at step 0 (what Reset goes back to).
    fresh: Simulation<AnyMachine>,
    stepper: Stepper<AnyMachine>,
    walks: Vec<Walk>,
    /// A counterexample to step through (a check block's replay): the actor of every step. While
    /// the history follows it, a default step takes its next actor, and the run stops at its end.
    script: Option<Vec<Actor>>,
    /// Playing, and how fast.
    pub play: Playback,
    /// The sentence for the screen reader (and the log line).
    pub announce: String,
    /// Bumped on every change.
    pub revision: u64,
}

impl SimRun {
    /// `sim`, the simulation of `scenario`, at step 0.
    fn new(sim: Simulation<AnyMachine>, scenario: Scenario, finished: &'static str) -> Self {
        SimRun {
            scenario,
            finished,
            fresh: sim.clone(),
            stepper: Stepper::new(sim),
            walks: Vec::new(),
            script: None,
            play: Playback::default(),
            announce: String::new(),
            revision: 0,
        }
    }

    /// Take `steps` steps from step 0 with `picks` taken by hand; the first step that could not be
    /// taken, if any.
    pub(crate) fn replay(&mut self, steps: u64, picks: &[(u64, Actor)]) -> Option<u64> {
        let mut bad = None;
        let mut pi = 0;
        for i in 0..steps.min(MAX_STEPS) {
            while pi < picks.len() && picks[pi].0 < i {
                pi += 1;
            }
            let rec = if pi < picks.len() && picks[pi].0 == i {
                self.stepper.step_actor_fast(picks[pi].1).ok()
            } else {
                self.stepper.step_fast()
            };
            match rec {
                Some(r) => self.record(&r),
                None => {
                    bad = Some(i);
                    break;
                }
            }
        }
        self.announce = match self.sim().last_step() {
            Some(r) => format!("Opened at {}", step_sentence(self.sim(), r)),
            None => String::new(),
        };
        bad
    }

    /// Start over with `sim`, the simulation of `scenario` (the play state and speed are kept; a
    /// counterexample is dropped when the scenario changes: it belongs to its scenario).
    fn restart(&mut self, sim: Simulation<AnyMachine>, scenario: Scenario) {
        if scenario != self.scenario {
            self.script = None;
        }
        self.scenario = scenario;
        self.fresh = sim.clone();
        self.stepper = Stepper::new(sim);
        self.walks.clear();
        self.revision += 1;
    }

    /// What the timeline replays: the simulation at step 0 and the steps taken by hand; while
    /// the history follows a counterexample, the whole counterexample, where the run stops.
    #[cfg(feature = "timeline")]
    pub fn timeline_source(&self) -> TimelineSource<'_> {
        use std::borrow::Cow;
        match &self.script {
            Some(script) if self.on_script() => (
                &self.fresh,
                Cow::Owned(crate::lesson::picks::script_picks(script)),
                Some(script.len() as u64),
            ),
            _ => (&self.fresh, Cow::Borrowed(self.stepper.picks()), None),
        }
    }

    /// Follow `script` from now on (a handed-over state's `follow=picks`): a default step takes
    /// its next actor while the history follows it, and the run stops at its end.
    pub fn follow(&mut self, script: Vec<Actor>) {
        self.script = Some(script);
    }

    /// The counterexample this model steps through, if any.
    pub fn script(&self) -> Option<&[Actor]> {
        self.script.as_deref()
    }

    /// Whether the history so far is the script's beginning (every step taken as the script says).
    pub fn on_script(&self) -> bool {
        let Some(script) = &self.script else {
            return false;
        };
        let pos = self.position() as usize;
        let picks = self.stepper.picks();
        pos <= script.len()
            && picks.len() == pos
            && picks
                .iter()
                .all(|&(i, a)| script.get(i as usize) == Some(&a))
    }

    /// The script's next actor, while the history follows the script and it has steps left.
    fn script_next(&self) -> Option<Actor> {
        if !self.on_script() {
            return None;
        }
        self.script.as_ref()?.get(self.position() as usize).copied()
    }

    /// Whether the history follows the script to its end (the replay stops there).
    pub fn script_done(&self) -> bool {
        self.on_script() && self.script.as_ref().map(Vec::len) == Some(self.position() as usize)
    }

    /// The simulation now.
    pub fn sim(&self) -> &Simulation<AnyMachine> {
        self.stepper.sim()
    }

    /// Steps taken.
    pub fn position(&self) -> u64 {
        self.stepper.position()
    }

    /// The newest wake walk at or before this step.
    pub fn last_walk(&self) -> Option<&Walk> {
        self.walks.last()
    }

    /// Whether a default step can be taken.
    pub fn can_step(&self) -> bool {
        if self.script_done() {
            return false;
        }
        if let Some(a) = self.script_next() {
            return self.sim().can_step(a);
        }
        self.position() < MAX_STEPS && self.sim().next_actor().is_some()
    }

    /// Whether "connect" can deliver a connection now.
    pub fn can_connect(&self) -> bool {
        self.position() < MAX_STEPS && self.sim().can_step(Actor::Network)
    }

    /// The query that reopens this state: the scenario, `step` and the learner's `picks`; while
    /// the history follows a run to follow (a counterexample), `follow=picks` and the whole run
    /// as the picks, so the link reopens it still following it.
    pub fn link_query(&self) -> String {
        let mut q = self.scenario.to_query();
        if let Some(script) = self.script.as_deref().filter(|_| self.on_script()) {
            q.push_str(&format!(
                "&follow=picks&step={}&picks={}",
                self.position(),
                format_picks(&crate::lesson::picks::script_picks(script))
            ));
            return q;
        }
        q.push_str(&format!("&step={}", self.position()));
        let picks = self.stepper.picks();
        if !picks.is_empty() {
            q.push_str("&picks=");
            q.push_str(&format_picks(picks));
        }
        q
    }

    fn record(&mut self, rec: &StepRecord) {
        let walk = self.stepper.sim().last_walk();
        if !walk.is_empty() {
            if self.walks.len() >= WALKS_KEPT {
                self.walks.remove(0);
            }
            self.walks.push(Walk {
                step: rec.step,
                budget: self.stepper.sim().last_walk_budget(),
                visits: walk.to_vec(),
                listener: self.stepper.sim().last_walk_listener(),
            });
        }
    }

    fn step_once(&mut self) -> Option<StepRecord> {
        if self.position() >= MAX_STEPS || self.script_done() {
            return None;
        }
        let rec = match self.script_next() {
            Some(a) => self.stepper.step_actor_fast(a).ok()?,
            None => self.stepper.step_fast()?,
        };
        self.record(&rec);
        Some(rec)
    }

    fn sentence(&self, rec: &StepRecord) -> String {
        let mut s = step_sentence(self.sim(), rec);
        if let Some(end) = status_sentence(self.sim().status(), self.finished) {
            s.push_str(". ");
            s.push_str(&end);
        }
        if self.script_done() {
            s.push_str(". That was the last step of the counterexample");
            if self.sim().metrics().lost_wakeups > 0 {
                s.push_str(": a wakeup is lost");
            }
        }
        s
    }

    fn stopped_sentence(&self) -> String {
        if self.script_done() {
            return format!(
                "End of the counterexample, at step {}{}. Step a thread by hand to go on.",
                self.position(),
                if self.sim().metrics().lost_wakeups > 0 {
                    ": a wakeup is lost"
                } else {
                    ""
                }
            );
        }
        if self.position() >= MAX_STEPS {
            return format!(
                "This page keeps at most {MAX_STEPS} steps of history; press Reset to start over."
            );
        }
        status_sentence(self.sim().status(), self.finished)
            .unwrap_or_else(|| "Nothing can run now.".to_string())
    }

    /// Apply one action. Returns whether anything changed.
    pub fn apply(&mut self, action: Action) -> bool {
        self.revision += 1;
        match action {
            Action::Step => match self.step_once() {
                Some(rec) => self.announce = self.sentence(&rec),
                None => {
                    self.play.playing = false;
                    self.announce = self.stopped_sentence();
                }
            },
            Action::StepActor(actor) => {
                if self.position() >= MAX_STEPS {
                    self.announce = self.stopped_sentence();
                    return true;
                }
                match self.stepper.step_actor_fast(actor) {
                    Ok(rec) => {
                        self.record(&rec);
                        self.announce = self.sentence(&rec);
                    }
                    Err(e) => self.announce = format!("Cannot step: {e}."),
                }
            }
            Action::Connect => {
                if self.can_connect() {
                    return self.apply(Action::StepActor(Actor::Network));
                }
                self.announce = "No connection is left to send.".to_string();
            }
            Action::Back => {
                if self.stepper.step_back_fast() {
                    let pos = self.position();
                    self.walks.retain(|w| w.step <= pos);
                    self.announce = match self.sim().last_step() {
                        Some(r) => format!("Back to {}", step_sentence(self.sim(), r)),
                        None => "Back to step 0.".to_string(),
                    };
                } else {
                    self.announce = "Already at step 0.".to_string();
                }
            }
            Action::Reset => {
                let (sim, scenario) = (self.fresh.clone(), self.scenario);
                self.restart(sim, scenario);
                self.play.playing = false;
                self.announce = "Reset to step 0.".to_string();
            }
            Action::NextWakeup => {
                // the scripted loop records its walks as it steps; the stepper's does not
                let scripted = self.script.is_some();
                let n = if scripted {
                    let start = self.sim().metrics().wakeups;
                    let mut n = 0;
                    while n < NEXT_WAKEUP_LIMIT && self.step_once().is_some() {
                        n += 1;
                        if self.sim().metrics().wakeups > start {
                            break;
                        }
                    }
                    n
                } else {
                    self.stepper.step_to_next_wakeup_fast(
                        NEXT_WAKEUP_LIMIT.min(MAX_STEPS - self.position()),
                    )
                };
                self.announce = match self.sim().last_step().copied() {
                    Some(rec) if n > 0 => {
                        if !scripted {
                            self.record(&rec);
                        }
                        format!("{} ({n} steps on)", self.sentence(&rec))
                    }
                    _ => self.stopped_sentence(),
                };
            }
            Action::RunToEnd => {
                self.play.playing = false;
                let start = self.position();
                let mut n = 0;
                while n < RUN_TO_END_LIMIT && self.step_once().is_some() {
                    n += 1;
                }
                self.announce = if self.can_step() {
                    format!("Ran {n} steps, to step {}; the run goes on.", start + n)
                } else {
                    format!(
                        "Ran {n} steps, to step {}. {}",
                        start + n,
                        self.stopped_sentence()
                    )
                };
            }
            #[cfg(feature = "timeline")]
            Action::Seek(target) => {
                self.play.playing = false;
                let pos = self.position();
                if target < pos {
                    self.stepper.seek_back_fast(target);
                    self.walks.retain(|w| w.step <= target);
                } else {
                    let mut n = pos;
                    while n < target.min(pos + RUN_TO_END_LIMIT) && self.step_once().is_some() {
                        n += 1;
                    }
                }
                self.announce = match self.sim().last_step() {
                    Some(r) => format!("At {}", step_sentence(self.sim(), r)),
                    None => "At step 0.".to_string(),
                };
            }
            Action::TogglePlay => self.toggle_play(),
            Action::Pause => return self.pause(),
            Action::Faster | Action::Slower => return self.change_speed(action == Action::Faster),
        }
        true
    }
}

impl Player for SimRun {
    type Rec = StepRecord;
    fn playback(&mut self) -> &mut Playback {
        &mut self.play
    }
    fn step_once(&mut self) -> Option<StepRecord> {
        SimRun::step_once(self)
    }
    fn can_step(&self) -> bool {
        SimRun::can_step(self)
    }
    fn position(&self) -> u64 {
        SimRun::position(self)
    }
    fn sentence(&self, rec: &StepRecord) -> String {
        SimRun::sentence(self, rec)
    }
    fn stopped_sentence(&self) -> String {
        SimRun::stopped_sentence(self)
    }
    fn say(&mut self, s: String) {
        self.revision += 1;
        self.announce = s;
    }
}
