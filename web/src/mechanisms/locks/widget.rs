//! One live lock simulation (```` ```herdlab-sim ```` with `mechanism=locks`, or a check block's
//! counterexample): the lock kind of [`crate::ui::shell::sim_shell::SimShell`], which owns its [`LockModel`]; this file says
//! how it opens (a checker schedule included) and shows the invariants and the lock words.

use herdlab_core::mechanisms::locks::LockParams;
use yew::prelude::*;

use crate::live::open::{short_replay, Opening};
use crate::live::Live;
use crate::mechanisms::locks::blocks::LockMainInit;
use crate::mechanisms::locks::invariant_status::{invariant_status, InvariantProps};
use crate::mechanisms::locks::model::{LockModel, Script};
use crate::mechanisms::locks::snapshot::LockSnapshot;
use crate::ui::replay_progress::replay_progress;
use crate::ui::shell::sim_frame::{kicker, SimFrame};
use crate::ui::shell::sim_shell::{SimKind, SimProps};
use crate::ui::sim_board::SimBoard;
use crate::ui::words::{words_panel, WordsProps};

/// The lock kind of simulation widget.
pub struct LockSim;

/// The model a lock widget opens with, what could not be replayed, and whether it plays at once.
fn lock_opening(props: &SimProps<LockSim>) -> (LockModel, Option<String>, bool) {
    let spec = &props.spec;
    if let Some(schedule) = &props.counterexample {
        return match Script::expand(&spec.params, schedule, false) {
            Ok(script) => (LockModel::scripted(spec.params, script), None, false),
            Err(e) => (LockModel::new(spec.params), Some(e), false),
        };
    }
    let Some(init) = &props.init else {
        let mut m = LockModel::new(spec.params);
        let bad = spec.stop.and_then(|n| m.advance_to(n, &[]));
        let err = bad.map(|at| format!("stop: the run ends at step {at}; it opens there."));
        return (m, err, spec.stop.is_none());
    };
    if let Some(schedule) = &init.schedule {
        return match Script::expand(&init.params, schedule, true) {
            Ok(script) => {
                let end = script.steps.len() as u64;
                let mut m = LockModel::scripted(init.params, script);
                let want = init.step.unwrap_or(end);
                let err = m
                    .advance_to(want, &[])
                    .map(|at| short_replay(want, at, false));
                (m, err, false)
            }
            Err(e) => (
                LockModel::new(init.params),
                Some(format!("{e}; the playground opens at step 0.")),
                false,
            ),
        };
    }
    let step = init.step.or(spec.stop);
    let mut m = LockModel::new(init.params);
    let err = step
        .and_then(|n| m.advance_to(n, &init.picks))
        .map(|at| short_replay(step.unwrap_or(0), at, !init.picks.is_empty()));
    (m, err, step.is_none())
}

impl SimKind for LockSim {
    type Params = LockParams;
    type Init = LockMainInit;
    /// The checker's schedule.
    type Counterexample = Vec<u16>;
    type Model = LockModel;

    fn open(props: &SimProps<Self>) -> Opening<LockModel> {
        let (model, replay_error, autoplay) = lock_opening(props);
        Opening {
            model,
            replay_error,
            autoplay,
        }
    }

    fn frame(props: &SimProps<Self>, live: &Live, m: &LockModel, _: &Callback<()>) -> SimFrame {
        let spec = &props.spec;
        let snap = LockSnapshot::of(m);
        let id = &spec.id;
        let main = props.main();
        let script = m.script().map(|s| {
            let total = s.steps.len();
            let pos = m.position();
            let text = if !m.on_script() {
                format!("off the schedule: you stepped a thread by hand (step {pos})")
            } else if pos as usize >= total {
                format!(
                    "schedule replayed: step {pos} of {total} ({} checker steps)",
                    s.schedule.len()
                )
            } else {
                format!(
                    "schedule: step {pos} of {total} ({} checker steps, pauses included)",
                    s.schedule.len()
                )
            };
            replay_progress(pos, total, None, text)
        });
        let p = m.params();
        let kicker = if props.counterexample.is_some() && !main {
            "Counterexample"
        } else {
            kicker(main)
        };
        let caption = spec.caption.clone().unwrap_or_else(|| {
            format!(
                "{} ({}): {} threads × {} rounds on {} CPUs",
                p.lock.name(),
                p.variant.name(),
                p.threads,
                p.rounds,
                p.cpus
            )
        });
        let mut controls = live.controls(id, main);
        controls.next_wakeup = false;
        controls.run_to_end = true;
        controls.run_to_end_note = Some(AttrValue::Static(if props.counterexample.is_some() {
            "step to the end of the counterexample"
        } else {
            "step until the run ends (at most 2,000,000 steps at a time)"
        }));
        SimFrame {
            mechanism: Some(("lock-sim", "locks")),
            strategy: None,
            kicker,
            caption,
            controls,
            before_form: Html::default(),
            after_announce: script.unwrap_or_default(),
            status: snap.status.clone(),
            after_status: invariant_status(&InvariantProps {
                inv: snap.invariants.clone(),
            }),
            board: SimBoard {
                class: Some("lock-board"),
                many: snap.lanes.len() > 8,
                lanes: snap.lanes.clone(),
                under_lanes: Html::default(),
                counters: snap.counters.clone(),
                queues: words_panel(&WordsProps {
                    words: snap.words.clone(),
                    compact: false,
                }),
                code: snap.code.clone(),
            },
            after_board: Html::default(),
        }
    }
}
