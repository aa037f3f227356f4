//! The state of one lock simulation widget and the reducer that changes it: core's [`Stepper`] over
//! a [`LockSim`] (the engine's one simulator, over [`AnyMachine`]), the play state, the invariants checked after every step (core's `check_state`,
//! and `check_terminal` once nothing can run), and optionally a *script*: a checker schedule
//! expanded into simulator steps, which stepping forward follows.

use std::any::Any;
use std::rc::Rc;

use herdlab_core::check::{SpinSteps, Violation};
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, LockView};
use herdlab_core::mechanisms::locks::{LockParams, LockWorker, Locks};
use herdlab_core::op::Op;
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::stepper::Stepper;
use herdlab_core::sim::{Actor, Sched, StepRecord};
use herdlab_web_engine::{erase, AnyMachine, Erased, FastSim, FastStepper};

use crate::lesson::picks::format_picks;
use crate::live::form::{Field, FormState};
use crate::live::mechanism::SiteMechanism;
use crate::live::model::LiveModel;
use crate::live::playback::{Playback, Player};
use crate::live::sim_model::{Action, MAX_STEPS, RUN_TO_END_LIMIT};
use crate::mechanisms::locks::blocks::format_schedule;
use crate::mechanisms::locks::describe::{
    before, lock_sentence, lock_status_sentence, Before, LockSim,
};

/// A checker schedule made into simulator steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// The checker's schedule (one entry per checker step).
    pub schedule: Vec<u16>,
    /// The thread of each simulator step: a checker step is the thread's pending pauses, then its
    /// next visible operation, and the rest of a spin that operation failed (core's
    /// `SpinSteps::goes_on`); after the schedule, the exits the checker folds into a thread's last
    /// step (as core's `check::replay` runs them).
    pub steps: Vec<u16>,
    /// After the script, go on with the default scheduler (the playground) or stop (a replay).
    pub free_after: bool,
}

impl Script {
    /// Expand `schedule` for a simulation of `p`. Fails, naming the step, where a thread does not
    /// exist or cannot run.
    pub fn expand(p: &LockParams, schedule: &[u16], free_after: bool) -> Result<Script, String> {
        let mut sim = erase(p.simulate());
        let mut steps = Vec::new();
        for (k, &t) in schedule.iter().enumerate() {
            let bad = |why: String| format!("schedule: step {} (thread {t}) {why}", k + 1);
            if t as usize >= sim.threads().len() {
                return Err(bad(format!(
                    "names a thread that does not exist; this run has threads 0-{}",
                    sim.threads().len() - 1
                )));
            }
            // pauses, the visible operation, and the rest of a spin it failed (one checker step)
            loop {
                let ran = sim.threads()[t as usize].machine().next_op();
                sim.step_actor_fast(Actor::Thread(t))
                    .map_err(|e| bad(format!("cannot be replayed: {e}")))?;
                steps.push(t);
                if !SpinSteps::Merged
                    .goes_on(ran, LockWorker::get(sim.threads()[t as usize].machine()))
                {
                    break;
                }
            }
        }
        for t in 0..sim.threads().len() as u16 {
            if sim.threads()[t as usize].machine().next_op() == Op::Exit
                && sim.can_step(Actor::Thread(t))
                && sim.step_actor_fast(Actor::Thread(t)).is_ok()
            {
                steps.push(t);
            }
        }
        Ok(Script {
            schedule: schedule.to_vec(),
            steps,
            free_after,
        })
    }
}

/// A [`LockSim`] as core's lock invariants read it ([`LockView`], as core's typed simulation
/// gives it).
struct Locked<'a>(&'a LockSim);

impl LockView for Locked<'_> {
    fn worker_count(&self) -> usize {
        self.0.threads().len()
    }
    fn worker(&self, t: usize) -> &LockWorker {
        LockWorker::get(self.0.threads()[t].machine())
    }
    fn word_value(&self, w: usize) -> u32 {
        self.0.word(herdlab_core::op::Word(w as u16))
    }
    fn sem_value(&self) -> u32 {
        self.0.sem_count(0)
    }
    fn sleeps(&self, t: usize) -> bool {
        self.0.threads()[t].sched() == Sched::Asleep
    }
}

/// The invariants on a state: the first broken one of `check_state`, then (when nothing can run)
/// of `check_terminal`.
pub fn violation(p: &LockParams, sim: &LockSim) -> Option<Violation> {
    let view = Locked(sim);
    check_state(p, &view).or_else(|| {
        if sim.runnable().is_empty() {
            check_terminal(p, &view)
        } else {
            None
        }
    })
}

/// One lock simulation with its history, play state and the sentence for the last change.
pub struct LockModel {
    params: LockParams,
    stepper: Stepper<AnyMachine>,
    /// Playing, and how fast.
    pub play: Playback,
    /// The sentence for the screen reader (and the log line).
    pub announce: String,
    script: Option<Rc<Script>>,
    /// The step at which the learner left the script by hand (0-based), if they did.
    deviated: Option<u64>,
    /// The first step (1-based) of this history after which an invariant was broken.
    first_broken: Option<(u64, Violation)>,
    /// The simulation at step 0, for the timeline.
    #[cfg(feature = "timeline")]
    fresh: herdlab_core::sim::Simulation<AnyMachine>,
}

impl LockModel {
    /// A fresh simulation of `params` at step 0.
    pub fn new(params: LockParams) -> Self {
        let sim = erase(params.simulate());
        LockModel {
            params,
            #[cfg(feature = "timeline")]
            fresh: sim.clone(),
            stepper: Stepper::new(sim),
            play: Playback::default(),
            announce: String::new(),
            script: None,
            deviated: None,
            first_broken: None,
        }
    }

    /// At step 0 with a script to follow.
    pub fn scripted(params: LockParams, script: Script) -> Self {
        let mut m = LockModel::new(params);
        m.script = Some(Rc::new(script));
        m
    }

    /// Take `steps` steps, with `picks` (0-based step, actor) taken by hand and the script followed
    /// where there is one. Returns the first step that could not be taken, if any.
    pub fn advance_to(&mut self, steps: u64, picks: &[(u64, Actor)]) -> Option<u64> {
        let mut pi = 0;
        for i in self.position()..steps.min(MAX_STEPS) {
            while pi < picks.len() && picks[pi].0 < i {
                pi += 1;
            }
            let ok = if pi < picks.len() && picks[pi].0 == i {
                self.take(Some(picks[pi].1)).is_ok()
            } else {
                self.take(None).is_ok()
            };
            if !ok {
                return Some(i);
            }
        }
        self.announce = match self.sim().last_step() {
            Some(r) => format!("Opened at {}", self.sentence_for(r, None)),
            None => String::new(),
        };
        None
    }

    /// The scenario.
    pub fn params(&self) -> &LockParams {
        &self.params
    }

    /// The simulation now.
    pub fn sim(&self) -> &LockSim {
        self.stepper.sim()
    }

    /// Steps taken.
    pub fn position(&self) -> u64 {
        self.stepper.position()
    }

    /// The script, if one is loaded.
    pub fn script(&self) -> Option<&Script> {
        self.script.as_deref()
    }

    /// Whether the history so far follows the script.
    pub fn on_script(&self) -> bool {
        self.script.is_some() && self.deviated.is_none()
    }

    /// The invariant broken now, if any.
    pub fn violation(&self) -> Option<Violation> {
        violation(&self.params, self.sim())
    }

    /// The first break of an invariant in this history: the step after which it showed.
    pub fn first_broken(&self) -> Option<&(u64, Violation)> {
        self.first_broken.as_ref()
    }

    /// The thread the script names for the next step, if the script applies there.
    fn script_next(&self) -> Option<u16> {
        let s = self.script.as_ref()?;
        if self.deviated.is_some() {
            return None;
        }
        s.steps.get(self.position() as usize).copied()
    }

    /// Whether the script ends the run here (a replay stops at the end of its counterexample).
    fn at_script_end(&self) -> bool {
        self.script.as_ref().is_some_and(|s| {
            !s.free_after && self.deviated.is_none() && self.position() >= s.steps.len() as u64
        })
    }

    /// Whether a default step can be taken.
    pub fn can_step(&self) -> bool {
        if self.position() >= MAX_STEPS || self.at_script_end() {
            return false;
        }
        match self.script_next() {
            Some(t) => self.sim().can_step(Actor::Thread(t)),
            None => self.sim().next_actor().is_some(),
        }
    }

    /// Take one step: `actor` (by hand), or the script's or the default scheduler's.
    fn take(&mut self, actor: Option<Actor>) -> Result<(StepRecord, Option<Before>), String> {
        if self.position() >= MAX_STEPS {
            return Err(self.stopped_sentence());
        }
        let pos = self.position();
        let scripted = self.script_next();
        let rec_before;
        let rec = match (actor, scripted) {
            (Some(a), s) => {
                if self.script.is_some() && self.deviated.is_none() && s != thread_of(a) {
                    self.deviated = Some(pos);
                }
                rec_before = thread_of(a).and_then(|t| before(self.sim(), t));
                self.stepper
                    .step_actor_fast(a)
                    .map_err(|e| format!("Cannot step: {e}."))?
            }
            (None, Some(t)) => {
                rec_before = before(self.sim(), t);
                self.stepper
                    .step_actor_fast(Actor::Thread(t))
                    .map_err(|e| format!("Cannot step: {e}."))?
            }
            (None, None) => {
                if self.at_script_end() {
                    return Err(self.stopped_sentence());
                }
                rec_before = match self.sim().next_actor() {
                    Some(Actor::Thread(t)) => before(self.sim(), t),
                    _ => None,
                };
                self.stepper
                    .step_fast()
                    .ok_or_else(|| self.stopped_sentence())?
            }
        };
        if self.first_broken.is_none() {
            if let Some(v) = self.violation() {
                self.first_broken = Some((self.position(), v));
            }
        }
        Ok((rec, rec_before))
    }

    fn sentence_for(&self, rec: &StepRecord, b: Option<&Before>) -> String {
        let mut s = lock_sentence(&self.params, self.sim(), rec, b);
        if let Some((at, v)) = &self.first_broken {
            if *at == self.position() {
                s.push_str(&format!(
                    ". Invariant broken: {}: {}",
                    v.invariant, v.message
                ));
            }
        }
        if let Some(end) = lock_status_sentence(&self.params, self.sim().status()) {
            s.push_str(". ");
            s.push_str(&end);
        } else if self.at_script_end() {
            s.push_str(". That was the last step of the counterexample.");
        }
        s
    }

    fn stopped_sentence(&self) -> String {
        if self.position() >= MAX_STEPS {
            return format!(
                "This page keeps at most {MAX_STEPS} steps of history; press Reset to start over."
            );
        }
        if self.at_script_end() {
            return match self.violation() {
                Some(v) => format!(
                    "End of the counterexample, at step {}: {} is broken: {}.",
                    self.position(),
                    v.invariant,
                    v.message
                ),
                None => format!("End of the counterexample, at step {}.", self.position()),
            };
        }
        lock_status_sentence(&self.params, self.sim().status())
            .unwrap_or_else(|| "Nothing can run now.".to_string())
    }

    /// The query that reopens this state: the scenario, then `schedule` and `step` while the
    /// history follows a script, else `step` and the learner's `picks`.
    pub fn link_query(&self) -> String {
        let mut q = Scenario::Locks(self.params).to_query();
        match &self.script {
            Some(s) if self.deviated.is_none() => {
                q.push_str(&format!(
                    "&schedule={}&step={}",
                    format_schedule(&s.schedule),
                    self.position()
                ));
            }
            _ => {
                q.push_str(&format!("&step={}", self.position()));
                let picks = self.stepper.picks();
                if !picks.is_empty() {
                    q.push_str("&picks=");
                    q.push_str(&format_picks(picks));
                }
            }
        }
        q
    }

    /// Start over with new parameters (the play state and speed are kept; a script is dropped).
    pub fn rebuild(&mut self, params: LockParams) {
        self.params = params;
        let sim = erase(params.simulate());
        #[cfg(feature = "timeline")]
        {
            self.fresh = sim.clone();
        }
        self.stepper = Stepper::new(sim);
        self.script = None;
        self.deviated = None;
        self.first_broken = None;
    }

    fn after_back(&mut self) {
        let pos = self.position();
        if self.deviated.is_some_and(|d| pos <= d) {
            self.deviated = None;
        }
        if self.first_broken.as_ref().is_some_and(|(at, _)| *at > pos) {
            self.first_broken = None;
        }
    }

    /// Apply one action. Returns whether anything changed.
    pub fn apply(&mut self, action: Action) -> bool {
        match action {
            Action::Step => {
                let broken_before = self.first_broken.is_some();
                match self.take(None) {
                    Ok((rec, b)) => {
                        self.announce = self.sentence_for(&rec, b.as_ref());
                        if !broken_before && self.first_broken.is_some() {
                            self.play.playing = false;
                        }
                    }
                    Err(e) => {
                        self.play.playing = false;
                        self.announce = e;
                    }
                }
            }
            Action::StepActor(actor) => match self.take(Some(actor)) {
                Ok((rec, b)) => self.announce = self.sentence_for(&rec, b.as_ref()),
                Err(e) => self.announce = e,
            },
            Action::Back => {
                if self.stepper.step_back_fast() {
                    self.after_back();
                    self.announce = match self.sim().last_step() {
                        Some(r) => format!("Back to {}", self.sentence_for(r, None)),
                        None => "Back to step 0.".to_string(),
                    };
                } else {
                    self.announce = "Already at step 0.".to_string();
                }
            }
            Action::Reset => {
                self.stepper = Stepper::new(erase(self.params.simulate()));
                self.deviated = None;
                self.first_broken = None;
                self.play.playing = false;
                self.announce = "Reset to step 0.".to_string();
            }
            Action::RunToEnd => {
                self.play.playing = false;
                let start = self.position();
                let mut n = 0;
                while n < RUN_TO_END_LIMIT && self.take(None).is_ok() {
                    n += 1;
                }
                let end = if self.can_step() {
                    "the run goes on.".to_string()
                } else {
                    let mut e = LockModel::stopped_sentence(self);
                    if let Some((at, v)) = &self.first_broken {
                        if *at > start && !e.contains(&v.invariant) {
                            e = format!(
                                "{} broke after step {at}: {}. {e}",
                                v.invariant, v.message
                            );
                        }
                    }
                    e
                };
                self.announce = format!("Ran {n} steps, to step {}: {end}", start + n);
            }
            Action::TogglePlay => self.toggle_play(),
            Action::Pause => return self.pause(),
            Action::Faster | Action::Slower => return self.change_speed(action == Action::Faster),
            #[cfg(feature = "timeline")]
            Action::Seek(target) => {
                self.play.playing = false;
                let pos = self.position();
                if target < pos {
                    self.stepper.seek_back_fast(target);
                    self.after_back();
                } else {
                    let mut n = pos;
                    while n < target.min(pos + RUN_TO_END_LIMIT) && self.take(None).is_ok() {
                        n += 1;
                    }
                }
                self.announce = match self.sim().last_step() {
                    Some(r) => format!("At {}", self.sentence_for(r, None)),
                    None => "At step 0.".to_string(),
                };
            }
            Action::NextWakeup | Action::Connect => return false,
        }
        true
    }
}

fn thread_of(a: Actor) -> Option<u16> {
    match a {
        Actor::Thread(t) => Some(t),
        Actor::Network => None,
    }
}

impl Player for LockModel {
    type Rec = (StepRecord, Option<Before>);
    fn playback(&mut self) -> &mut Playback {
        &mut self.play
    }
    fn step_once(&mut self) -> Option<Self::Rec> {
        let broken_before = self.first_broken.is_some();
        let r = self.take(None).ok()?;
        if !broken_before && self.first_broken.is_some() {
            // stop at the first broken invariant: that state is the lesson
            self.play.playing = false;
            self.announce = self.sentence_for(&r.0, r.1.as_ref());
            return None;
        }
        Some(r)
    }
    fn can_step(&self) -> bool {
        LockModel::can_step(self)
    }
    fn position(&self) -> u64 {
        LockModel::position(self)
    }
    fn sentence(&self, rec: &Self::Rec) -> String {
        self.sentence_for(&rec.0, rec.1.as_ref())
    }
    fn stopped_sentence(&self) -> String {
        if let Some((at, v)) = &self.first_broken {
            if *at == self.position() {
                return format!(
                    "Paused at step {at}: {} is broken: {}.",
                    v.invariant, v.message
                );
            }
        }
        LockModel::stopped_sentence(self)
    }
    fn say(&mut self, s: String) {
        self.announce = s;
    }
}

impl LiveModel for LockModel {
    fn play(&self) -> &Playback {
        &self.play
    }
    fn apply(&mut self, action: Action) -> bool {
        LockModel::apply(self, action)
    }
    fn can_step(&self) -> bool {
        LockModel::can_step(self)
    }
    fn position(&self) -> u64 {
        LockModel::position(self)
    }
    fn advance_frame(&mut self, dt_ms: f64, out_of_time: &mut dyn FnMut() -> bool) -> bool {
        Player::advance(self, dt_ms, out_of_time)
    }
    fn announce(&self) -> &str {
        &self.announce
    }
    fn announce_mut(&mut self) -> &mut String {
        &mut self.announce
    }
    fn link_query(&self) -> String {
        LockModel::link_query(self)
    }
    fn fields(&self) -> &'static [Field] {
        Locks::FIELDS
    }
    fn form(&self) -> FormState {
        FormState::of::<Locks>(&self.params)
    }
    fn edit(&mut self, form: &mut FormState, key: &str, value: &str) -> bool {
        match form.edit::<Locks>(key, value, &self.params) {
            Some(p) => {
                LockModel::rebuild(self, p);
                true
            }
            None => false,
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn has_timeline(&self) -> bool {
        true
    }
    #[cfg(feature = "timeline")]
    fn timeline_source(&self) -> Option<crate::live::model::TimelineSource<'_>> {
        use std::borrow::Cow;
        // following its schedule: the whole schedule (a replay stops at its end)
        Some(match &self.script {
            Some(s) if self.deviated.is_none() => (
                &self.fresh,
                Cow::Owned(
                    s.steps
                        .iter()
                        .enumerate()
                        .map(|(i, &t)| (i as u64, Actor::Thread(t)))
                        .collect(),
                ),
                (!s.free_after).then_some(s.steps.len() as u64),
            ),
            _ => (&self.fresh, Cow::Borrowed(self.stepper.picks()), None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::check::{explore, replay, CheckConfig};
    use herdlab_core::mechanisms::locks::invariants::check_world;
    use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;

    fn check(p: &LockParams) -> Vec<u16> {
        let r = explore(
            check_world(p),
            &CheckConfig::default(),
            &|s| check_state(p, s),
            &|s| check_terminal(p, s),
            &mut |_| true,
        );
        r.violation.expect("a counterexample").schedule
    }

    fn small(variant: ShmtxVariant) -> LockParams {
        LockParams {
            variant,
            threads: 2,
            rounds: 2,
            spin: 4,
            ..Default::default()
        }
    }

    /// The timeline's seek lands where stepping does, forward and back, and the lock model gives
    /// the timeline its run.
    #[cfg(feature = "timeline")]
    #[test]
    fn seek_lands_where_stepping_does() {
        let p = LockParams {
            threads: 3,
            ..Default::default()
        };
        let mut stepped = LockModel::new(p);
        for _ in 0..60 {
            stepped.apply(Action::Step);
        }
        let mut m = LockModel::new(p);
        assert!(m.apply(Action::Seek(60)));
        assert_eq!(m.position(), stepped.position());
        assert_eq!(m.sim().trace_hash(), stepped.sim().trace_hash());
        assert!(m.apply(Action::Seek(10)));
        assert_eq!(m.position(), 10);
        while m.position() < stepped.position() {
            m.apply(Action::Step);
        }
        assert_eq!(m.sim().trace_hash(), stepped.sim().trace_hash());
        let tl = crate::live::timeline::Cache::default()
            .get(&m)
            .expect("the lock model has a timeline");
        assert!(tl.steps.len() as u64 >= m.position());
        assert_eq!(tl.thread_lane(2).map(|l| l.spans.is_empty()), Some(false));
    }

    #[test]
    fn a_script_replays_like_core() {
        for variant in ShmtxVariant::ALL.into_iter().skip(1) {
            let p = small(variant);
            let schedule = check(&p);
            let script = Script::expand(&p, &schedule, false).expect("replays");
            let mut core_sim = p.simulate();
            replay(&mut core_sim, &schedule).expect("core replays");
            let mut m = LockModel::scripted(p, script.clone());
            assert!(m.violation().is_none());
            m.apply(Action::RunToEnd);
            assert_eq!(m.position(), script.steps.len() as u64, "{variant:?}");
            assert_eq!(m.sim().trace_hash(), core_sim.trace_hash(), "{variant:?}");
            assert!(!m.can_step());
            let v = m.violation().expect("broken at the end");
            // the erased simulation's view gives what core's typed one gives
            let core_v = check_state(&p, &core_sim).or_else(|| check_terminal(&p, &core_sim));
            assert_eq!(Some(v.clone()), core_v);
            assert_eq!(Some(v.clone()), violation(&p, &erase(core_sim.clone())));
            assert!(m.announce.contains(&v.invariant), "{}", m.announce);
            // back and forth along the script
            m.apply(Action::Back);
            m.apply(Action::Step);
            assert_eq!(m.sim().trace_hash(), core_sim.trace_hash());
            let q = m.link_query();
            assert!(q.contains("&schedule="), "{q}");
        }
    }

    #[test]
    fn the_lost_wakeup_is_stuck() {
        let p = small(ShmtxVariant::AnnounceAfterCheck);
        let schedule = check(&p);
        let mut m = LockModel::scripted(p, Script::expand(&p, &schedule, false).expect("ok"));
        m.apply(Action::RunToEnd);
        assert_eq!(
            m.violation().map(|v| v.invariant).as_deref(),
            Some("lost-wakeup")
        );
        assert!(matches!(
            m.sim().status(),
            herdlab_core::sim::Status::Stuck(_)
        ));
    }

    #[test]
    fn plain_load_store_link() {
        let p = LockParams {
            variant: ShmtxVariant::PlainLoadStore,
            threads: 2,
            rounds: 1,
            cpus: 2,
            spin: 4,
            yield_after: 4,
            ..Default::default()
        };
        let script = Script::expand(&p, &[0, 1, 0, 1], true).expect("ok");
        let mut m = LockModel::scripted(p, script);
        assert_eq!(m.advance_to(4, &[]), None);
        let v = m.violation().expect("two holders");
        assert_eq!(v.invariant, "mutual-exclusion");
        assert_eq!(m.first_broken().map(|(at, _)| *at), Some(4));
        // free after the script: the run goes on with the default scheduler
        assert!(m.can_step());
        m.apply(Action::Step);
        assert_eq!(m.position(), 5);
        assert!(Script::expand(&p, &[0, 5], true).is_err());
    }

    #[test]
    fn deviation_and_links() {
        let p = small(ShmtxVariant::Correct);
        let mut m = LockModel::new(p);
        for _ in 0..6 {
            m.apply(Action::Step);
        }
        m.apply(Action::StepActor(Actor::Thread(1)));
        let q = m.link_query();
        assert!(q.contains("&step=7&picks=6:t1"), "{q}");
        let mut r = LockModel::new(p);
        assert_eq!(
            r.advance_to(
                7,
                &crate::lesson::picks::parse_picks("6:t1").unwrap_or_default()
            ),
            None
        );
        assert_eq!(r.sim().trace_hash(), m.sim().trace_hash());
        let script = Script::expand(&p, &[0, 0, 1], true).expect("ok");
        let mut s = LockModel::scripted(p, script);
        s.apply(Action::StepActor(Actor::Thread(1)));
        assert!(!s.on_script());
        s.apply(Action::Back);
        assert!(s.on_script());
    }

    #[test]
    fn play_stops_at_the_first_broken_invariant() {
        let p = LockParams {
            variant: ShmtxVariant::NoWaitDecrement,
            threads: 3,
            rounds: 50,
            spin: 8,
            ..Default::default()
        };
        let mut m = LockModel::new(p);
        m.play.speed = crate::live::playback::SPEEDS.len() - 1;
        m.apply(Action::TogglePlay);
        let mut frames = 0;
        while m.play.playing && frames < 1000 {
            m.advance(16.7, &mut || false);
            frames += 1;
        }
        assert!(!m.play.playing);
        if let Some((at, v)) = m.first_broken() {
            assert_eq!(*at, m.position());
            assert!(m.announce.contains(&v.invariant), "{}", m.announce);
        }
    }

    #[test]
    fn random_actions_never_panic() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..40 {
            let lock = herdlab_core::mechanisms::locks::LockKind::ALL[case % 5];
            let p = LockParams {
                lock,
                variant: if lock == herdlab_core::mechanisms::locks::LockKind::Shmtx {
                    ShmtxVariant::ALL[rnd(6) as usize]
                } else {
                    ShmtxVariant::Correct
                },
                threads: 1 + rnd(16) as u32,
                rounds: 1 + rnd(5) as u32,
                cpus: 1 + rnd(16) as u32,
                spin: 1 + rnd(64) as u32,
                semaphore: rnd(2) == 0,
                yield_after: 1 + rnd(8) as u32,
                cs_ns: rnd(3_000), // spinners pause all through a long section: keep runs short
                crash: lock == herdlab_core::mechanisms::locks::LockKind::Shmtx && rnd(4) == 0,
                master: rnd(3) != 0,
                seed: rnd(u64::MAX),
            };
            let mut m = LockModel::new(p);
            for _ in 0..300 {
                let a = match rnd(8) {
                    0 => Action::Back,
                    1 => Action::StepActor(Actor::Thread(rnd(20) as u16)),
                    2 => Action::Reset,
                    _ => Action::Step,
                };
                m.apply(a);
                let _ = crate::mechanisms::locks::snapshot::LockSnapshot::of(&m);
            }
            let q = m.link_query();
            let picks = crate::lesson::picks::parse_picks(q.split("picks=").nth(1).unwrap_or(""))
                .unwrap_or_default();
            let mut r = LockModel::new(p);
            assert_eq!(r.advance_to(m.position(), &picks), None, "case {case}");
            assert_eq!(r.sim().trace_hash(), m.sim().trace_hash(), "case {case}");
            m.apply(Action::RunToEnd);
        }
    }
}
