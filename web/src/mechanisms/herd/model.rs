//! The herd's model: the generic [`SimModel`] over core's herd (its simulation and its link).

use herdlab_core::mechanisms::herd::Herd;

use crate::live::sim_model::SimModel;

/// The herd's simulation model.
pub type HerdModel = SimModel<Herd>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::picks::parse_picks;
    use crate::live::playback::Player;
    use crate::live::sim_model::Action;
    use herdlab_core::mechanisms::herd::{HerdParams, WakeMode};
    use herdlab_core::sim::Actor;

    fn p() -> HerdParams {
        HerdParams {
            workers: 4,
            cpus: 1,
            mode: WakeMode::Exclusive,
            connections: 3,
            ..Default::default()
        }
    }

    #[test]
    fn step_back_and_link_replay() {
        let mut m = HerdModel::new(p());
        for _ in 0..5 {
            assert!(m.apply(Action::Step));
        }
        assert!(m.apply(Action::StepActor(Actor::Network)));
        m.apply(Action::Step);
        let hash = m.sim().trace_hash();
        let q = m.link_query();
        assert!(q.contains("&step=7"), "{q}");
        assert!(q.contains("&picks=5:n"), "{q}");
        let picks = parse_picks("5:n").unwrap_or_default();
        let (r, bad) = HerdModel::replayed(p(), 7, &picks);
        assert_eq!(bad, None);
        assert_eq!(r.sim().trace_hash(), hash);
        assert_eq!(r.last_walk(), m.last_walk());
        m.apply(Action::Back);
        assert_eq!(m.position(), 6);
        m.apply(Action::Reset);
        assert_eq!(m.position(), 0);
        assert!(m.last_walk().is_none());
    }

    /// The timeline's seek lands where stepping does, forward and back, and its timeline holds
    /// the run's counters.
    #[cfg(feature = "timeline")]
    #[test]
    fn seek_lands_where_stepping_does_and_the_timeline_counts_the_run() {
        let mut end = HerdModel::new(p());
        end.apply(Action::RunToEnd);
        let total = end.position();
        let (far, near) = (total * 3 / 4, total / 4);
        assert!(near > 0 && far > near, "{total} steps");
        let mut stepped = HerdModel::new(p());
        for _ in 0..far {
            stepped.apply(Action::Step);
        }
        let mut m = HerdModel::new(p());
        assert!(m.apply(Action::Seek(far)));
        assert_eq!(m.position(), far);
        assert_eq!(m.sim().trace_hash(), stepped.sim().trace_hash());
        assert!(m.apply(Action::Seek(near)));
        assert_eq!(m.position(), near);
        for _ in near..far {
            m.apply(Action::Step);
        }
        assert_eq!(m.sim().trace_hash(), stepped.sim().trace_hash());
        // the timeline runs ahead from step 0 to the run's end: its counters are the finished run's
        let cache = crate::live::timeline::Cache::default();
        let tl = cache.get(&m).expect("a simulation model has a timeline");
        assert_eq!(tl.steps.len() as u64, total);
        assert_eq!(tl.counts().wakeups, end.sim().metrics().wakeups);
        assert_eq!(tl.counts().wasted, end.sim().metrics().wasted_wakeups);
        // the same model gives the same timeline (cached)
        assert!(std::rc::Rc::ptr_eq(&tl, &cache.get(&m).unwrap()));
    }

    #[test]
    fn a_scripted_counterexample_steps_to_its_lost_wakeup_and_stops() {
        use crate::mechanisms::herd::blocks::{herd_actors, herd_check_defaults};
        use herdlab_core::mechanisms::herd::Variant;
        let p = HerdParams {
            variant: Variant::BrokenSleeper,
            ..herd_check_defaults()
        };
        // the schedule `herdlab check herd --variant broken-sleeper` prints
        let script = herd_actors(&p, &[0, 0, 1, 1, 2, 0, 0, 1, 1]);
        let mut m = HerdModel::scripted(p, script.clone());
        assert!(m.on_script() && m.can_step());
        for i in 0..9 {
            assert!(!m.script_done(), "step {i}");
            assert_eq!(m.sim().metrics().lost_wakeups, 0, "step {i}");
            assert!(m.apply(Action::Step));
        }
        assert!(m.script_done());
        assert!(m.sim().metrics().lost_wakeups > 0);
        assert!(
            m.announce.contains("last step of the counterexample"),
            "{}",
            m.announce
        );
        assert!(!m.can_step());
        m.apply(Action::Step);
        assert_eq!(m.position(), 9, "the replay stops at its end");
        assert!(m
            .link_query()
            .ends_with("&follow=picks&step=9&picks=0:t0,1:t0,2:t1,3:t1,4:n,5:t0,6:t0,7:t1,8:t1"));
        // back, and a step by hand leaves the script; reset follows it again
        m.apply(Action::Back);
        assert!(m.on_script() && m.can_step());
        m.apply(Action::Reset);
        m.apply(Action::StepActor(Actor::Thread(1)));
        assert!(!m.on_script());
        m.apply(Action::Reset);
        m.apply(Action::RunToEnd);
        assert!(m.script_done() && m.sim().metrics().lost_wakeups > 0);
        m.apply(Action::Reset);
        m.apply(Action::NextWakeup);
        assert!(m.on_script());
    }

    #[test]
    fn walk_is_recorded() {
        let mut m = HerdModel::new(p());
        m.apply(Action::NextWakeup);
        let w = m.last_walk().expect("a walk woke someone");
        assert_eq!(w.budget, 1);
        assert!(w.visits.iter().any(|v| v.ret > 0));
    }

    #[test]
    fn play_advances_and_stops_at_the_end() {
        let mut m = HerdModel::new(p());
        m.play.speed = crate::live::playback::SPEEDS.len() - 1;
        m.apply(Action::TogglePlay);
        assert!(m.play.playing);
        let mut frames = 0;
        while m.play.playing && frames < 10_000 {
            m.advance(16.7, &mut || false);
            frames += 1;
        }
        assert!(!m.play.playing);
        assert_eq!(m.sim().metrics().connections_accepted, 3);
        assert!(!m.apply(Action::Faster));
        m.apply(Action::RunToEnd);
        assert!(!m.can_step());
    }

    #[test]
    fn bad_picks_stop_the_replay() {
        let (m, bad) = HerdModel::replayed(p(), 10, &[(0, Actor::Thread(99))]);
        assert_eq!(bad, Some(0));
        assert_eq!(m.position(), 0);
    }

    #[test]
    fn random_actions_never_panic() {
        use crate::mechanisms::herd::snapshot::Snapshot;
        use herdlab_core::mechanisms::herd::{Primitive, Variant};
        use herdlab_core::sim::arrivals::ArrivalPattern;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..60 {
            let primitive = [Primitive::Accept, Primitive::Futex, Primitive::Condvar][case % 3];
            let p = HerdParams {
                workers: 1 + rnd(64) as u32,
                cpus: 1 + rnd(16) as u32,
                mode: if primitive == Primitive::Accept && rnd(3) == 0 {
                    WakeMode::LifoExclusive
                } else if rnd(2) == 0 {
                    WakeMode::WakeAll
                } else {
                    WakeMode::Exclusive
                },
                arrival: [
                    ArrivalPattern::OnDemand,
                    ArrivalPattern::Burst,
                    ArrivalPattern::Poisson,
                ][rnd(3) as usize],
                burst: 1 + rnd(1024) as u32,
                rate: 1 + rnd(10_000_000) as u32,
                connections: 1 + rnd(50) as u32,
                service_ns: rnd(100_000),
                variant: if primitive == Primitive::Accept && rnd(2) == 0 {
                    Variant::BrokenSleeper
                } else {
                    Variant::Correct
                },
                primitive,
                seed: rnd(u64::MAX),
            };
            assert!(herdlab_core::scenario::validate_herd(&p).is_empty());
            let mut m = HerdModel::new(p);
            for _ in 0..400 {
                let a = match rnd(9) {
                    0 => Action::Back,
                    1 => Action::StepActor(Actor::Thread(rnd(70) as u16)),
                    2 => Action::Connect,
                    3 => Action::NextWakeup,
                    4 => Action::StepActor(Actor::Network),
                    _ => Action::Step,
                };
                m.apply(a);
                let _ = Snapshot::of(&m);
            }
            let q = m.link_query();
            let picks = crate::lesson::picks::parse_picks(q.split("picks=").nth(1).unwrap_or(""))
                .unwrap_or_default();
            let (r, bad) = HerdModel::replayed(p, m.position(), &picks);
            assert_eq!(bad, None, "case {case}");
            assert_eq!(r.sim().trace_hash(), m.sim().trace_hash(), "case {case}");
            m.apply(Action::RunToEnd);
        }
    }

    /// The generic step sentences (`crate::live::describe`) over a whole herd run.
    #[test]
    fn sentences_for_a_whole_run() {
        let p = HerdParams {
            workers: 3,
            cpus: 1,
            connections: 2,
            ..Default::default()
        };
        let mut sim = p.simulate();
        let mut saw_wasted = false;
        while let Some(rec) = sim.step() {
            let s = crate::live::describe::step_sentence(&sim, &rec);
            assert!(s.starts_with(&format!("step {}: ", rec.step)), "{s}");
            saw_wasted |= s.contains("wasted");
        }
        assert!(saw_wasted);
        assert!(crate::live::describe::status_sentence(sim.status(), "x").is_some());
        assert_eq!(crate::live::describe::fmt_ns(999), "999 ns");
        let p = HerdParams {
            workers: 2,
            connections: 2,
            primitive: herdlab_core::mechanisms::herd::Primitive::Futex,
            ..Default::default()
        };
        let mut sim = p.simulate();
        let mut saw_code = false;
        while let Some(rec) = sim.step() {
            saw_code |= crate::live::describe::step_sentence(&sim, &rec)
                .contains("ran t = tickets.load() (tickets held");
        }
        assert!(saw_code);
        assert_eq!(crate::live::describe::fmt_ns(12_345), "12.3 µs");
    }
}

/// Where a herd widget opens (the generic `crate::live::open`, over herd blocks).
#[cfg(test)]
mod open_tests {
    use herdlab_core::mechanisms::herd::HerdParams;
    use herdlab_core::sim::Actor;

    use super::HerdModel;
    use crate::lesson::grammar::PlaygroundInit;
    use crate::live::open::{short_replay, stopped_at, Start};
    use crate::live::sim_model::Action;
    use crate::mechanisms::herd::blocks::parse_sim;
    use herdlab_core::mechanisms::herd::Herd;

    #[test]
    fn a_block_opens_at_its_stop_and_a_playground_at_its_step_else_the_stop() {
        let block = parse_sim("id=a&workers=3&stop=5", "b");
        let s = Start::of(&block, None);
        assert_eq!((s.step, s.picks.len()), (Some(5), 0));
        assert!(s.params == block.params);
        let mut init = PlaygroundInit {
            params: HerdParams {
                workers: 2,
                ..block.params
            },
            step: Some(9),
            picks: vec![(0, Actor::Thread(1))],
            follow: false,
            errors: Vec::new(),
        };
        let s = Start::of(&block, Some(&init));
        assert_eq!((s.step, s.picks.len(), s.params.workers), (Some(9), 1, 2));
        init.step = None;
        assert_eq!(Start::of(&block, Some(&init)).step, Some(5));
    }

    #[test]
    fn no_step_opens_fresh_and_plays_a_step_opens_there_still() {
        let block = parse_sim("id=a&workers=3", "b");
        let fresh = Start::of(&block, None).replayed::<Herd>();
        assert_eq!(fresh.model.position(), 0);
        assert!(fresh.autoplay && fresh.replay_error.is_none());
        let zero = Start {
            step: Some(0),
            ..Start::of(&block, None)
        }
        .replayed::<Herd>();
        assert_eq!(zero.model.position(), 0);
        assert!(!zero.autoplay && zero.replay_error.is_none());
        let three = Start {
            step: Some(3),
            ..Start::of(&block, None)
        }
        .replayed::<Herd>();
        assert_eq!(three.model.position(), 3);
        assert!(!three.autoplay && three.replay_error.is_none());
        assert_eq!(stopped_at::<Herd>(block.params, Some(3)).position(), 3);
        assert_eq!(stopped_at::<Herd>(block.params, None).position(), 0);
    }

    #[test]
    fn a_step_past_the_end_opens_at_the_end_and_says_so() {
        let block = parse_sim("id=a&workers=2&connections=1&arrival=on-demand", "b");
        let far = Start {
            step: Some(1_000_000),
            ..Start::of(&block, None)
        }
        .replayed::<Herd>();
        let at = far.model.position();
        assert!(at < 1_000_000);
        assert_eq!(
            far.replay_error.as_deref(),
            Some(short_replay(1_000_000, at, false).as_str())
        );
        assert_eq!(
            stopped_at::<Herd>(block.params, Some(1_000_000)).position(),
            at
        );
    }

    /// The address `herdlab check herd --variant broken-sleeper` prints, read as a playground's
    /// page query over `block`.
    fn checker_link_init(
        query_tail: &str,
    ) -> (
        crate::mechanisms::herd::blocks::MainInit,
        crate::lesson::grammar::SimBlock<HerdParams>,
    ) {
        use crate::mechanisms::herd::blocks::{herd_check_defaults, resolve_main};
        use herdlab_core::mechanisms::herd::Variant;
        use herdlab_core::scenario::Scenario;
        let p = HerdParams {
            variant: Variant::BrokenSleeper,
            ..herd_check_defaults()
        };
        let block = parse_sim("id=main&main=true&workers=3", "b");
        let q = format!("{}{query_tail}", Scenario::Herd(p).to_query());
        let init = resolve_main(&block, &q);
        assert!(init.errors.is_empty(), "{:?}", init.errors);
        (init, block)
    }

    const BROKEN_SLEEPER_PICKS: &str = "0:t0,1:t0,2:t1,3:t1,4:n,5:t0,6:t0,7:t1,8:t1";

    #[test]
    fn a_followed_checker_link_steps_forward_along_its_picks_after_a_step_back() {
        let (init, block) = checker_link_init(&format!(
            "&follow=picks&step=9&picks={BROKEN_SLEEPER_PICKS}"
        ));
        assert!(init.follow);
        let o = Start::of(&block, Some(&init)).replayed::<Herd>();
        assert!(o.replay_error.is_none() && !o.autoplay);
        let mut m = o.model;
        assert_eq!(m.position(), 9);
        assert!(m.script_done() && m.sim().metrics().lost_wakeups > 0);
        let end = m.sim().trace_hash();
        // back to step 2, then forward: the recorded steps again, not the default scheduler's
        for _ in 0..7 {
            m.apply(Action::Back);
        }
        assert!(m.on_script() && m.sim().metrics().lost_wakeups == 0);
        assert!(
            m.link_query().ends_with(&format!(
                "&follow=picks&step=2&picks={BROKEN_SLEEPER_PICKS}"
            )),
            "the link keeps the whole run to follow: {}",
            m.link_query()
        );
        for _ in 0..7 {
            m.apply(Action::Step);
        }
        assert_eq!(m.sim().trace_hash(), end);
        assert!(m.sim().metrics().lost_wakeups > 0);
        // and it stops there, as a check block's replay does
        assert!(!m.can_step());
        // the same link without follow: the same state, but forward is the default scheduler's
        let (plain, block) = checker_link_init(&format!("&step=9&picks={BROKEN_SLEEPER_PICKS}"));
        let mut p = Start::of(&block, Some(&plain)).replayed::<Herd>().model;
        assert_eq!(p.sim().trace_hash(), end);
        assert!(p.script().is_none());
        for _ in 0..7 {
            p.apply(Action::Back);
        }
        for _ in 0..7 {
            p.apply(Action::Step);
        }
        assert_ne!(
            p.sim().trace_hash(),
            end,
            "the default scheduler does not retrace this counterexample (else this test proves nothing)"
        );
    }

    #[test]
    fn a_followed_link_opens_at_its_step_or_its_end_and_says_what_it_could_not_follow() {
        // no step: at the end of the picks, not playing
        let (init, block) =
            checker_link_init(&format!("&follow=picks&picks={BROKEN_SLEEPER_PICKS}"));
        let o = Start::of(&block, Some(&init)).replayed::<Herd>();
        assert_eq!(o.model.position(), 9);
        assert!(!o.autoplay && o.replay_error.is_none());
        // a step within them: there, still following
        let (init, block) = checker_link_init(&format!(
            "&follow=picks&step=4&picks={BROKEN_SLEEPER_PICKS}"
        ));
        let o = Start::of(&block, Some(&init)).replayed::<Herd>();
        assert_eq!(o.model.position(), 4);
        assert!(o.model.on_script() && o.model.can_step());
        // a step past them: at their end, and said
        let (init, block) = checker_link_init(&format!(
            "&follow=picks&step=20&picks={BROKEN_SLEEPER_PICKS}"
        ));
        let o = Start::of(&block, Some(&init)).replayed::<Herd>();
        assert_eq!(o.model.position(), 9);
        assert_eq!(
            o.replay_error.as_deref(),
            Some("step: asked for step 20, but the picks to follow end at step 9; it opens there.")
        );
        // no picks: nothing to follow, a plain run that can still step (not stuck at step 0)
        let (init, block) = checker_link_init("&follow=picks&step=2");
        let o = Start::of(&block, Some(&init)).replayed::<Herd>();
        assert_eq!(o.model.position(), 2);
        assert!(o.model.script().is_none() && o.model.can_step());
        assert_eq!(
            o.replay_error.as_deref(),
            Some("follow: the picks do not name step 0, so they are not a run to follow; they are replayed as picks.")
        );
        // picks that skip a step are no run to follow: replayed as picks, and said
        let (init, block) = checker_link_init("&follow=picks&step=3&picks=0:t0,2:t1");
        let o = Start::of(&block, Some(&init)).replayed::<Herd>();
        assert_eq!(o.model.position(), 3);
        assert!(o.model.script().is_none());
        assert_eq!(
            o.replay_error.as_deref(),
            Some("follow: the picks do not name step 1, so they are not a run to follow; they are replayed as picks.")
        );
    }

    #[test]
    fn a_followed_state_handed_over_still_follows() {
        use crate::live::model::LiveModel;
        let (init, block) = checker_link_init(&format!(
            "&follow=picks&step=9&picks={BROKEN_SLEEPER_PICKS}"
        ));
        let m = Start::of(&block, Some(&init)).replayed::<Herd>().model;
        let end = m.sim().trace_hash();
        let mut state = m.link_query();
        state = state.replace("&step=9&", "&step=6&");
        // the lazy bundle opens the block afresh and restores the handed state
        let fresh = Start::of(&block, None).replayed::<Herd>().model;
        let mut handed: Box<dyn LiveModel> = Box::new(fresh);
        crate::ui::shell::handoff::restore(&mut *handed, &state);
        assert_eq!(handed.position(), 6);
        while handed.can_step() {
            handed.apply(Action::Step);
        }
        let h = crate::live::model::model_as::<HerdModel>(&*handed);
        assert_eq!(h.position(), 9);
        assert_eq!(h.sim().trace_hash(), end);
    }
}
