//! The timeline's model (`herdlab_core::timeline`), built from each mechanism's simulation and
//! from a native trace: its arrows, wasted marks, ticks and lock holds equal the simulation's own
//! counters, its spans tile each thread's lane, the same run gives the same timeline, and the
//! layout stays within its pixel budget. These tests also run compiled for wasm32 under Node.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::machine::Machine;
use herdlab_core::metrics::Metrics;
use herdlab_core::scenario::{Registered, Scenario, Visit};
use herdlab_core::sim::{Note, Status};
use herdlab_core::timeline::{
    describe, layout, Builder, Counts, LaneKind, State, TickKind, Timeline, View, Waker,
};
use herdlab_core::trace;

/// What a run gives: its timeline, the simulation's counters, and what its step records say.
struct Ran {
    tl: Timeline,
    metrics: Metrics,
    status: Status,
    per_thread: Vec<(u64, u64)>,
    lock_notes: u64,
    threads: usize,
}

struct RunIt(u64);
impl Visit for RunIt {
    type Output = Ran;
    fn visit<M: Registered>(self, p: &M::Params) -> Ran {
        let mut sim = M::simulate(p);
        let mut b = Builder::new(&sim);
        let mut lock_notes = 0;
        for _ in 0..self.0 {
            let Some(rec) = sim.step() else { break };
            if matches!(rec.note, Note::LockTaken | Note::Relocked) {
                lock_notes += 1;
            }
            b.observe(&sim, &rec);
        }
        Ran {
            tl: b.finish(),
            metrics: *sim.metrics(),
            status: sim.status().clone(),
            per_thread: sim
                .threads()
                .iter()
                .map(|t| (t.metrics().wakeups, t.metrics().wasted_wakeups))
                .collect(),
            lock_notes,
            threads: sim.threads().len(),
        }
    }
}

fn run(query: &str, max_steps: u64) -> Ran {
    let s = Scenario::from_query(query).unwrap();
    s.visit(RunIt(max_steps))
}

/// The counts hold against the simulation's counters, and the lanes are well formed.
fn holds(query: &str, max_steps: u64) -> Ran {
    let r = run(query, max_steps);
    let c = r.tl.counts();
    let m = &r.metrics;
    assert_eq!(c.wakeups, m.wakeups, "{query}: arrows vs wakeups");
    assert_eq!(c.wasted, m.wasted_wakeups, "{query}: wasted");
    assert_eq!(c.syscalls, m.syscalls, "{query}: syscall ticks");
    assert_eq!(c.eagain, m.eagain, "{query}: EAGAIN ticks");
    assert_eq!(c.accepts, m.connections_accepted, "{query}: accept ticks");
    assert_eq!(c.holds, r.lock_notes, "{query}: lock holds");
    assert_eq!(r.tl.steps.len() as u64, m.steps, "{query}: steps");
    // per thread: its arrows and wasted marks are its own counters
    for (i, &(w, x)) in r.per_thread.iter().enumerate() {
        let mine: Vec<_> =
            r.tl.arrows
                .iter()
                .filter(|a| a.wakee == i as u16 && a.counted)
                .collect();
        assert_eq!(mine.len() as u64, w, "{query}: thread {i} wakeups");
        assert_eq!(
            mine.iter().filter(|a| a.wasted).count() as u64,
            x,
            "{query}: thread {i} wasted"
        );
    }
    for lane in &r.tl.lanes {
        for w in lane.spans.windows(2) {
            assert!(w[0].to <= w[1].from, "{query}: {:?} overlaps", lane.kind);
            if let LaneKind::Thread(_) = lane.kind {
                // a thread's spans tile its life: one ends where the next begins
                assert_eq!(w[0].to, w[1].from, "{query}: gap on {:?}", lane.kind);
                assert_ne!(
                    w[0].state, w[1].state,
                    "{query}: unmerged on {:?}",
                    lane.kind
                );
            }
        }
        for s in &lane.spans {
            assert!(s.from <= s.to, "{query}: backwards span");
            assert!(s.to <= r.tl.end);
        }
        for w in lane.ticks.windows(2) {
            assert!(w[0].at <= w[1].at);
        }
    }
    // a wasted arrow's wakee lane shows the waste
    for a in r.tl.arrows.iter().filter(|a| a.wasted && a.until > a.at) {
        let lane = r.tl.thread_lane(a.wakee).unwrap();
        assert!(
            lane.spans
                .iter()
                .any(|s| s.state == State::Wasted && s.from >= a.at && s.to <= a.until),
            "{query}: wasted arrow {a:?} without a wasted span"
        );
    }
    assert_eq!(
        r.tl.lanes
            .iter()
            .filter(|l| matches!(l.kind, LaneKind::Thread(_)))
            .count(),
        r.threads
    );
    r
}

#[test]
fn herd_wake_all_one_connection_wakes_every_worker_and_wastes_all_but_one() {
    let q = "mechanism=herd&workers=4&cpus=2&mode=wake-all&arrival=on-demand&connections=1&seed=1";
    let r = holds(q, 100_000);
    assert_eq!(r.status, Status::Finished);
    let c = r.tl.counts();
    assert_eq!((c.wakeups, c.wasted, c.accepts), (4, 3, 1));
    // the network woke all four, at one step
    assert!(r.tl.arrows.iter().all(|a| a.waker == Waker::Network));
    let at = r.tl.arrows[0].at;
    assert!(r.tl.arrows.iter().all(|a| a.at == at));
    let net =
        r.tl.lanes
            .iter()
            .find(|l| l.kind == LaneKind::Network)
            .unwrap();
    assert_eq!(
        net.ticks
            .iter()
            .filter(|t| t.kind == TickKind::Arrival)
            .count(),
        1
    );
    // the words of a wasted wakeup
    let a = r.tl.arrows.iter().find(|a| a.wasted).unwrap();
    let lane = a.wakee as usize;
    let mid = (a.at.ns + a.until.ns) / 2;
    let text = describe(&r.tl, lane, mid).unwrap();
    assert!(
        text.starts_with(&format!("thread {} woken by the network at ", a.wakee))
            && text.contains("found nothing to do, asleep again after"),
        "{text}"
    );
}

#[test]
fn herd_exclusive_wastes_nothing() {
    let q = "mechanism=herd&workers=4&cpus=2&mode=exclusive&arrival=on-demand&connections=5&seed=1";
    let r = holds(q, 100_000);
    assert_eq!(r.status, Status::Finished);
    let c = r.tl.counts();
    assert_eq!((c.wakeups, c.wasted, c.accepts), (5, 0, 5));
}

#[test]
fn herd_wake_all_default_counts() {
    holds(
        "mechanism=herd&workers=8&mode=wake-all&connections=50&seed=3",
        1_000_000,
    );
}

#[test]
fn locks_counts() {
    let r = holds("mechanism=locks&threads=4", 200_000);
    assert!(r.metrics.steps > 0);
    // spinning shows on some lane of a contended spin lock
    let spins =
        r.tl.lanes
            .iter()
            .flat_map(|l| &l.spans)
            .filter(|s| s.state == State::Spinning)
            .count();
    assert_eq!(spins > 0, r.metrics.spins > 0, "spinning spans vs spins");
}

#[test]
fn accept_counts() {
    for s in ["herd", "exclusive", "accept-mutex", "reuseport"] {
        holds(
            &format!("mechanism=accept&strategy={s}&workers=4&connections=30"),
            300_000,
        );
    }
}

#[test]
fn pool_counts_and_mutex_holds() {
    let r = holds("mechanism=pool", 300_000);
    let c: Counts = r.tl.counts();
    assert!(c.holds > 0, "the pool's queue mutex is held");
    assert!(r
        .tl
        .lanes
        .iter()
        .any(|l| matches!(l.kind, LaneKind::Lock(_))));
}

#[test]
fn gmp_counts() {
    holds("mechanism=gmp", 300_000);
}

#[test]
fn mysql_counts() {
    holds("mechanism=mysql", 300_000);
}

#[test]
fn the_same_run_gives_the_same_timeline() {
    let q = "mechanism=accept&strategy=herd&workers=4&connections=20&seed=7";
    assert_eq!(run(q, 100_000).tl, run(q, 100_000).tl);
}

#[test]
fn cpu_lanes_run_one_thread_at_a_time_and_match_running_spans() {
    let r = holds(
        "mechanism=herd&workers=6&cpus=2&mode=wake-all&connections=10",
        100_000,
    );
    let cpus: Vec<_> =
        r.tl.lanes
            .iter()
            .filter(|l| matches!(l.kind, LaneKind::Cpu(_)))
            .collect();
    assert_eq!(cpus.len(), 2);
    // every CPU span's thread is on a CPU (running, spinning or wasting) at its start
    for l in cpus {
        for s in &l.spans {
            if s.from == s.to {
                continue;
            }
            let t = r.tl.thread_lane(s.who).unwrap();
            let at = t
                .spans
                .iter()
                .find(|x| x.from <= s.from && s.from < x.to)
                .unwrap();
            assert!(
                matches!(at.state, State::Running | State::Spinning | State::Wasted),
                "CPU {:?} runs thread {} while it is {:?}",
                l.kind,
                s.who,
                at.state
            );
        }
    }
}

#[test]
fn seeking_by_time_finds_the_step() {
    let r = run("mechanism=herd&workers=4&connections=5", 100_000);
    for k in [1u64, 2, 10, r.tl.steps.len() as u64] {
        let ns = r.tl.ns_of_step(k);
        let back = r.tl.step_at(ns);
        assert!(back >= k, "step {k} at {ns} ns seeks to {back}");
        assert_eq!(r.tl.ns_of_step(back), ns);
    }
    assert_eq!(
        r.tl.step_at(0),
        r.tl.steps.iter().filter(|&&t| t == 0).count() as u64
    );
}

#[test]
fn layout_is_bounded_by_the_width_and_covers_the_window() {
    let r = run(
        "mechanism=herd&workers=8&mode=wake-all&connections=200&seed=2",
        2_000_000,
    );
    let end = r.tl.end.ns;
    for width in [50u32, 400] {
        let v = View {
            from_ns: 0,
            to_ns: end,
            width,
        };
        let d = layout(&r.tl, &v);
        for lane in 0..r.tl.lanes.len() as u32 {
            let rects: Vec<_> = d.rects.iter().filter(|x| x.lane == lane).collect();
            // at most a merged pixel and a wide span per pixel
            assert!(
                rects.len() <= 2 * width as usize + 2,
                "lane {lane}: {}",
                rects.len()
            );
            for w in rects.windows(2) {
                assert!(w[0].x0 <= w[1].x0, "left to right");
            }
            let merged: u64 = rects.iter().map(|x| u64::from(x.merged)).sum();
            assert_eq!(
                merged as usize,
                r.tl.lanes[lane as usize].spans.len(),
                "every span drawn once"
            );
        }
        let per_px = d.arrows.len() as f64 / f64::from(width);
        assert!(d.arrows.iter().all(|a| a.x >= 0.0 && a.x <= width as f32));
        assert!(per_px <= 8.0 + r.tl.counts().wasted as f64 / f64::from(width));
    }
    // zoomed in to one span: it is one rectangle across the window
    let lane = &r.tl.lanes[0];
    let s = lane
        .spans
        .iter()
        .find(|s| s.to.ns - s.from.ns > 100)
        .unwrap();
    let v = View {
        from_ns: s.from.ns + 10,
        to_ns: s.to.ns - 10,
        width: 300,
    };
    let d = layout(&r.tl, &v);
    let mine: Vec<_> = d.rects.iter().filter(|x| x.lane == 0).collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].state, s.state);
    assert!(mine[0].x0 <= 0.0 && mine[0].x1 >= 300.0);
}

#[test]
fn zoom_and_pan_keep_the_point_under_the_cursor() {
    let v = View {
        from_ns: 1000,
        to_ns: 2000,
        width: 100,
    };
    let z = v.zoom(0.5, 1500, 10, 10_000);
    assert_eq!((z.from_ns, z.to_ns), (1250, 1750));
    let p = v.pan(-0.25);
    assert_eq!((p.from_ns, p.to_ns), (750, 1750));
    assert_eq!(v.pan(-5.0).from_ns, 0);
    assert_eq!(v.ns_at(50.0), 1500);
    assert_eq!(v.x(1500), 50.0);
}

fn native() -> trace::Run {
    use trace::{Event, Kind};
    let e = |thread, t_ns, kind, arg| Event {
        thread,
        t_ns,
        kind,
        arg,
    };
    trace::Run {
        label: "test".into(),
        scenario: "mechanism=herd&workers=3".into(),
        threads: 3,
        events: vec![
            e(0, 0, Kind::Sleep, Some(0)),
            e(1, 10, Kind::Sleep, Some(0)),
            e(2, 20, Kind::Lock, Some(0)),
            e(2, 30, Kind::Notify, Some(2)),
            e(2, 35, Kind::Unlock, Some(0)),
            e(0, 40, Kind::Wake, Some(2)),
            e(1, 45, Kind::Wake, None),
            e(0, 50, Kind::Accept, Some(1)),
            e(0, 55, Kind::Work, None),
            e(1, 60, Kind::Eagain, None),
            e(1, 70, Kind::Wasted, None),
            e(1, 71, Kind::Sleep, Some(0)),
            e(2, 80, Kind::Sleep, Some(0)),
        ],
        truncated: None,
    }
}

#[test]
fn a_native_run_makes_the_same_kind_of_timeline() {
    let tl = Timeline::from_run(&native());
    let c = tl.counts();
    assert_eq!(
        (c.wakeups, c.wasted, c.accepts, c.eagain, c.holds),
        (2, 1, 1, 1, 1)
    );
    assert_eq!(tl.steps.len(), 13);
    assert_eq!(tl.end.ns, 80);
    assert_eq!(tl.arrows[0].waker, Waker::Thread(2));
    assert_eq!(tl.arrows[1].waker, Waker::Kernel);
    assert!(tl.arrows[1].wasted && !tl.arrows[0].wasted);
    let t1 = tl.thread_lane(1).unwrap();
    let states: Vec<_> = t1
        .spans
        .iter()
        .map(|s| (s.state, s.from.ns, s.to.ns))
        .collect();
    assert_eq!(
        states,
        vec![
            (State::Asleep, 10, 45),
            (State::Wasted, 45, 71),
            (State::Asleep, 71, 80)
        ]
    );
    let lock = tl
        .lanes
        .iter()
        .find(|l| l.kind == LaneKind::Lock(0))
        .unwrap();
    assert_eq!(lock.spans.len(), 1);
    assert_eq!(
        (
            lock.spans[0].who,
            lock.spans[0].from.ns,
            lock.spans[0].to.ns
        ),
        (2, 20, 35)
    );
    let text = describe(&tl, 1, 50).unwrap();
    assert_eq!(
        text,
        "thread 1 woken by the kernel at 45 ns, found nothing to do, asleep again after 26 ns (steps 7-12)"
    );
    // it reads back from the file's text
    let t = trace::Trace {
        tool: "herdlab 0.1.0".into(),
        date: "2026-12-03T00:00:00Z".into(),
        command: "herdlab bench herd --quick --trace t".into(),
        runs: vec![native()],
        ..trace::Trace::default()
    };
    let back = trace::parse(t.to_text().as_bytes()).unwrap();
    assert_eq!(Timeline::from_run(&back.runs[0]), tl);
}

#[test]
fn time_in_words() {
    use herdlab_core::timeline::fmt_ns;
    assert_eq!(fmt_ns(300), "300 ns");
    assert_eq!(fmt_ns(2_100), "2.1 µs");
    assert_eq!(fmt_ns(12_410_000), "12.41 ms");
    assert_eq!(fmt_ns(3_000_000_000), "3 s");
}

/// Word locks get a lane: its holds are the critical sections each thread entered (the lock
/// word's holder is only known to the machine: `Machine::holds_word_lock`).
#[test]
fn word_lock_holds_are_the_critical_sections() {
    for lock in ["shmtx", "ttas", "spin-yield", "ticket", "futex"] {
        let q = format!("mechanism=locks&lock={lock}&threads=4&cpus=2");
        let Ok(Scenario::Locks(p)) = Scenario::from_query(&q) else {
            panic!("{q} is a locks scenario")
        };
        let mut sim = p.simulate();
        let mut b = Builder::new(&sim);
        while let Some(rec) = sim.step() {
            b.observe(&sim, &rec);
            if rec.step >= 200_000 {
                break;
            }
        }
        let tl = b.finish();
        let lanes: Vec<_> = tl
            .lanes
            .iter()
            .filter(|l| matches!(l.kind, LaneKind::WordLock(_)))
            .collect();
        assert_eq!(lanes.len(), 1, "{q}: one lock lane");
        let lane = lanes[0];
        assert_eq!(lane.kind.name(), "the lock at word 0");
        // it sits after the threads' lanes and before the CPUs'
        let at = tl.lanes.iter().position(|l| l.kind == lane.kind).unwrap();
        assert!(matches!(tl.lanes[at - 1].kind, LaneKind::Thread(_)), "{q}");
        assert!(matches!(tl.lanes[at + 1].kind, LaneKind::Cpu(0)), "{q}");
        for (i, t) in sim.threads().iter().enumerate() {
            let mine = lane.spans.iter().filter(|s| s.who == i as u16).count() as u32;
            assert_eq!(mine, t.machine().acquired(), "{q}: thread {i}'s holds");
            assert!(mine > 0, "{q}: thread {i} held the lock");
        }
        assert_eq!(tl.counts().word_lock_holds, lane.spans.len() as u64);
        // a hold lasts at least the critical section's work, and they never overlap
        for w in lane.spans.windows(2) {
            assert!(w[0].to <= w[1].from, "{q}: holds overlap");
        }
        // described in words
        let s = lane.spans[0];
        let text = describe(&tl, at, s.from.ns).unwrap();
        assert!(
            text.starts_with(&format!("the lock at word 0 held by thread {}", s.who)),
            "{text}"
        );
    }
}

/// The accept mutex's holds: one per trylock that won, each ended by its unlock.
#[test]
fn accept_mutex_holds_are_the_won_trylocks() {
    let q = "mechanism=accept&strategy=accept-mutex&workers=4&connections=30";
    let Ok(Scenario::Accept(p)) = Scenario::from_query(q) else {
        panic!("{q} is an accept scenario")
    };
    let mut sim = p.simulate();
    let mut b = Builder::new(&sim);
    while let Some(rec) = sim.step() {
        b.observe(&sim, &rec);
        if rec.step >= 300_000 {
            break;
        }
    }
    let tl = b.finish();
    let lane = tl
        .lanes
        .iter()
        .find(|l| matches!(l.kind, LaneKind::WordLock(0)))
        .expect("the accept mutex's lane");
    let mut won = 0;
    for (i, t) in sim.threads().iter().enumerate() {
        let w = t.machine().event().expect("an event worker");
        let mine = lane.spans.iter().filter(|s| s.who == i as u16).count() as u64;
        assert_eq!(mine, w.stats().lock_acquired, "thread {i}'s holds");
        won += mine;
    }
    assert!(won > 0);
    // no other strategy takes a word lock
    for s in ["herd", "exclusive", "reuseport"] {
        let r = holds(
            &format!("mechanism=accept&strategy={s}&workers=4&connections=30"),
            300_000,
        );
        assert_eq!(r.tl.counts().word_lock_holds, 0, "{s}");
    }
}

/// A broken lock (shmtx's `plain-load-store`: a load then a store, not a CAS) lets two threads
/// in at once: the lock's lane keeps one holder's spans and marks each time both held it as an
/// overlap naming both, exactly where the machines say so after each step.
#[test]
fn two_holders_of_a_broken_word_lock_are_overlaps_naming_both() {
    let q = "mechanism=locks&lock=shmtx&variant=plain-load-store&threads=4&cpus=4&rounds=20";
    let Ok(Scenario::Locks(p)) = Scenario::from_query(q) else {
        panic!("{q} is a locks scenario")
    };
    let mut sim = p.simulate();
    let mut b = Builder::new(&sim);
    // from the step records: the holders after each step, and each run of steps with the same
    // two or more holders (what the timeline must mark)
    let mut expected: Vec<(u64, u64, Vec<u16>)> = Vec::new();
    let mut open: Option<(u64, Vec<u16>)> = None;
    let mut steps_with_two = 0u64;
    let mut last = 0;
    while let Some(rec) = sim.step() {
        b.observe(&sim, &rec);
        last = rec.step;
        let holders: Vec<u16> = sim
            .threads()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.machine().holds_word_lock().is_some())
            .map(|(i, _)| i as u16)
            .collect();
        if holders.len() >= 2 {
            steps_with_two += 1;
        }
        if open.as_ref().map(|(_, h)| h) != Some(&holders) {
            if let Some((from, h)) = open.take() {
                expected.push((from, rec.step, h));
            }
            if holders.len() >= 2 {
                open = Some((rec.step, holders));
            }
        }
        if rec.step >= 200_000 {
            break;
        }
    }
    if let Some((from, h)) = open.take() {
        expected.push((from, last, h));
    }
    let tl = b.finish();
    assert!(
        !expected.is_empty(),
        "{q}: the broken lock never had two holders"
    );
    let got: Vec<(u64, u64, Vec<u16>)> = tl
        .overlaps
        .iter()
        .map(|o| (o.from.step, o.to.step, o.holders.clone()))
        .collect();
    assert_eq!(got, expected, "{q}: overlaps");
    assert_eq!(tl.counts().overlaps, expected.len() as u64);
    // every overlap lasts the steps the records say (the last one runs to the end)
    let covered: u64 = got.iter().map(|(f, t, _)| t - f).sum();
    assert_eq!(covered + u64::from(open.is_some()), steps_with_two);
    let lane = tl
        .lanes
        .iter()
        .position(|l| l.kind == LaneKind::WordLock(0))
        .expect("the lock's lane");
    for o in &tl.overlaps {
        assert_eq!(o.lane, lane);
        assert!(o.holders.len() >= 2 && o.holders.windows(2).all(|w| w[0] < w[1]));
        // the lane's span there is the lowest-numbered holder's
        let sp = tl.lanes[lane]
            .spans
            .iter()
            .find(|s| s.from <= o.from && o.from < s.to)
            .expect("a hold under the overlap");
        assert_eq!(sp.who, o.holders[0]);
    }
    // the words name both holders
    let o = &tl.overlaps[0];
    let text = describe(&tl, lane, o.from.ns).unwrap();
    assert!(
        text.starts_with(&format!(
            "the lock at word 0 held by {} at once ({} holders",
            o.holders_in_words(),
            o.holders.len()
        )),
        "{text}"
    );
    if o.holders.len() == 2 {
        assert_eq!(
            o.holders_in_words(),
            format!("threads {} and {}", o.holders[0], o.holders[1])
        );
    }
    // pinned: this seeded run lets two threads in 7 times, each for one step
    assert_eq!((expected.len(), steps_with_two), (7, 7), "{q}");
    // the drawing marks them, each at least a pixel wide, on the lock's lane
    let all = View {
        from_ns: 0,
        to_ns: tl.end.ns.max(1),
        width: 800,
    };
    let d = layout(&tl, &all);
    assert!(!d.overlaps.is_empty() && d.overlaps.len() <= tl.overlaps.len());
    assert!(d.overlaps.len() <= 800);
    for m in &d.overlaps {
        assert_eq!(m.lane as usize, lane);
        assert!(m.x1 - m.x0 >= 1.0 && m.holders >= 2);
    }
    // zoomed onto the first: exactly one mark, over its span
    let near = View {
        from_ns: o.from.ns.saturating_sub(1),
        to_ns: o.to.ns.max(o.from.ns + 2) + 1,
        width: 100,
    };
    let d = layout(&tl, &near);
    assert_eq!(d.overlaps.iter().filter(|m| m.first == 0).count(), 1);
    // a correct lock has none
    let r = run(
        "mechanism=locks&lock=shmtx&threads=4&cpus=4&rounds=20",
        200_000,
    );
    assert_eq!(r.tl.counts().overlaps, 0);
}

/// The builder skips the threads a step cannot have changed (not its actor, same scheduler
/// state and counters): the timeline is the same as looking at every thread on every step, for
/// every mechanism, a broken lock's overlaps included.
#[test]
fn skipping_unchanged_threads_gives_the_same_timeline() {
    struct Both(u64);
    impl Visit for Both {
        type Output = (Timeline, Timeline);
        fn visit<M: Registered>(self, p: &M::Params) -> (Timeline, Timeline) {
            let mut sim = M::simulate(p);
            let mut fast = Builder::new(&sim);
            let mut all = Builder::new(&sim).exhaustive();
            for _ in 0..self.0 {
                let Some(rec) = sim.step() else { break };
                fast.observe(&sim, &rec);
                all.observe(&sim, &rec);
            }
            (fast.finish(), all.finish())
        }
    }
    for q in [
        "mechanism=herd&workers=16&cpus=4&mode=wake-all&connections=40",
        "mechanism=herd&workers=8&mode=exclusive&connections=30&primitive=futex",
        "mechanism=locks&lock=shmtx&threads=4&cpus=2",
        "mechanism=locks&lock=shmtx&variant=plain-load-store&threads=4&cpus=4&rounds=20",
        "mechanism=locks&lock=ticket&threads=4&cpus=2",
        "mechanism=accept&strategy=accept-mutex&workers=4&connections=30",
        "mechanism=pool",
        "mechanism=gmp",
        "mechanism=mysql",
    ] {
        let (fast, all) = Scenario::from_query(q).unwrap().visit(Both(50_000));
        assert!(!all.steps.is_empty(), "{q}");
        assert_eq!(fast, all, "{q}");
    }
}
