//! The timeline: a run drawn over time (issue #14 §1). One lane per thread, per CPU, for the
//! network, per sleeping mutex and per lock built on an atomic word (`ngx_shmtx`, spin and ticket
//! locks, the accept mutex: their holder is whoever's machine says so,
//! [`Machine::holds_word_lock`]); on a thread's lane spans of its state ([`State`]: running,
//! runnable, spinning, asleep, woken for nothing), wakeups as [`Arrow`]s from the waker (a thread,
//! the network, or the kernel when a native trace does not say) to the wakee, the wasted ones
//! marked, lock holds as spans on the lock's lane and system calls, accepts and `EAGAIN`s as
//! [`Tick`]s. Every mark carries its step index and its time ([`Point`]).
//!
//! Invariants: a lane's spans are in time order and never overlap (a thread's tile its life); a
//! lock lane's span is one holder's. A word lock that two or more threads hold at once (a broken
//! lock) keeps the lowest-numbered holder's span and adds an [`Overlap`] naming every holder, so
//! the drawing ([`Drawing::overlaps`]) and the words ([`describe`]) show them all.
//!
//! Two sources build the same [`Timeline`]:
//! - a simulation, observed after each step ([`Builder::observe`]): the states come from the
//!   scheduler's view of each thread ([`crate::sim::Sched`]), the arrows and the wasted marks from
//!   the per-thread counters' changes ([`crate::metrics::ThreadMetrics`]), so the timeline's counts
//!   equal the simulation's own counters ([`Timeline::counts`]);
//! - a native trace's run ([`Timeline::from_run`], `docs/trace-format.md`): a step is an event.
//!
//! [`layout`] is the pure part the site draws: a visible window and a width in pixels in, at most
//! a few marks per pixel and lane out (spans shorter than a pixel merge into the state that fills
//! most of it), so 64 lanes × 100,000 steps draw in time proportional to the width.
//!
//! Generic: built on the scheduler's states, the counters, the kernel's mutexes and the
//! [`Machine`] trait (whose `holds_word_lock` a machine answers for its word locks); it names no
//! mechanism. No OS and no web dependencies.

use core::fmt::Write as _;

use crate::machine::Machine;
use crate::op::Op;
use crate::sim::{Actor, Sched, Simulation, StepRecord};
use crate::trace::{Kind, Run};

/// A moment of a run: the step index (0 before the first step; a native trace's event number,
/// from 1) and the time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// The step (or event) index.
    pub step: u64,
    /// Nanoseconds since the run's start.
    pub ns: u64,
}

/// What a thread is doing during a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// On a CPU, doing its work.
    Running,
    /// Woken or preempted, waiting for a CPU.
    Runnable,
    /// On a CPU, spinning: pausing or probing a word it failed to take.
    Spinning,
    /// Asleep in the kernel.
    Asleep,
    /// Woken, and asleep again with nothing done: a wasted wakeup.
    Wasted,
    /// On a CPU lane: the CPU runs a thread ([`Span::who`]). On a lock lane: the lock is held by
    /// a thread ([`Span::who`]).
    Held,
}

impl State {
    /// Every state, in the legend's order.
    pub const ALL: [State; 6] = [
        State::Running,
        State::Runnable,
        State::Spinning,
        State::Asleep,
        State::Wasted,
        State::Held,
    ];

    /// Its name in words (the legend, descriptions).
    pub const fn name(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Runnable => "runnable",
            State::Spinning => "spinning",
            State::Asleep => "asleep",
            State::Wasted => "woken for nothing",
            State::Held => "held",
        }
    }

    /// A one-letter label, for drawing without colour.
    pub const fn letter(self) -> char {
        match self {
            State::Running => 'R',
            State::Runnable => 'r',
            State::Spinning => 'S',
            State::Asleep => 'z',
            State::Wasted => 'W',
            State::Held => 'H',
        }
    }
}

/// A stretch of one state on one lane, from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The state.
    pub state: State,
    /// Where it starts.
    pub from: Point,
    /// Where it ends.
    pub to: Point,
    /// On a CPU or lock lane, the thread running or holding; on a thread lane, the thread itself.
    pub who: u16,
}

/// What a lane shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneKind {
    /// A thread, by index.
    Thread(u16),
    /// The network (arrivals; the waker of wake walks).
    Network,
    /// A lock (a sleeping mutex in a simulation; a lock number in a native trace).
    Lock(u32),
    /// A lock built on an atomic word (`ngx_shmtx`, a spin or ticket lock, the accept mutex), by
    /// its word: its holder is the thread whose machine says it holds it
    /// ([`crate::machine::Machine::holds_word_lock`]). Its spans are the lowest-numbered holder's;
    /// two or more holders at once (a broken lock) are also an [`Overlap`] on the lane.
    WordLock(u16),
    /// A CPU.
    Cpu(u8),
}

impl LaneKind {
    /// Its name in words (`thread 3`, `CPU 0`).
    pub fn name(self) -> String {
        match self {
            LaneKind::Thread(i) => format!("thread {i}"),
            LaneKind::Network => "the network".to_string(),
            LaneKind::Lock(i) => format!("lock {i}"),
            LaneKind::WordLock(w) => format!("the lock at word {w}"),
            LaneKind::Cpu(i) => format!("CPU {i}"),
        }
    }
}

/// A point mark on a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TickKind {
    /// A system call.
    Syscall,
    /// A call that would block returned `EAGAIN`.
    Eagain,
    /// A connection accepted.
    Accept,
    /// A connection (or event) arrived.
    Arrival,
    /// An item of work started (native traces).
    Work,
    /// A wake asked of the kernel (native traces).
    Notify,
    /// Work taken from another thread (native traces).
    Steal,
    /// Parked (native traces).
    Park,
    /// Unparked another thread (native traces).
    Unpark,
}

impl TickKind {
    /// Its name in words.
    pub const fn name(self) -> &'static str {
        match self {
            TickKind::Syscall => "system call",
            TickKind::Eagain => "EAGAIN",
            TickKind::Accept => "accept",
            TickKind::Arrival => "arrival",
            TickKind::Work => "work",
            TickKind::Notify => "wake request",
            TickKind::Steal => "steal",
            TickKind::Park => "park",
            TickKind::Unpark => "unpark",
        }
    }
}

/// A tick: a point mark on a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tick {
    /// What happened.
    pub kind: TickKind,
    /// When.
    pub at: Point,
}

/// Who woke a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Waker {
    /// A thread (its step woke the wakee).
    Thread(u16),
    /// The network (an arrival's wake walk, a timer).
    Network,
    /// The kernel, on behalf of someone the record does not name.
    Kernel,
}

impl Waker {
    /// Its name in words.
    pub fn name(self) -> String {
        match self {
            Waker::Thread(i) => format!("thread {i}"),
            Waker::Network => "the network".to_string(),
            Waker::Kernel => "the kernel".to_string(),
        }
    }
}

/// A wakeup: `waker` woke `wakee` at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arrow {
    /// Who woke it.
    pub waker: Waker,
    /// The thread woken.
    pub wakee: u16,
    /// When.
    pub at: Point,
    /// The wakee went back to sleep with nothing done.
    pub wasted: bool,
    /// When the wakee next slept (or the run's end, if it did not).
    pub until: Point,
    /// A wakeup the run counts as one ([`crate::metrics::Metrics::wakeups`]: a wake from a sleep
    /// waiting for work, or a timer's); false for the others (a lock's or a read's hand-off).
    pub counted: bool,
}

/// One lane: its spans and ticks, each in time order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// What it shows.
    pub kind: LaneKind,
    /// Its spans, in order, not overlapping.
    pub spans: Vec<Span>,
    /// Its ticks, in order.
    pub ticks: Vec<Tick>,
}

/// Two or more threads holding one word lock at once (a broken lock: mutual exclusion lost),
/// on the lock's lane, from the step that made the set of holders to the step that changed it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Overlap {
    /// The lock's lane (an index into [`Timeline::lanes`]).
    pub lane: usize,
    /// Where it starts.
    pub from: Point,
    /// Where it ends.
    pub to: Point,
    /// The holders, in thread order (at least two).
    pub holders: Vec<u16>,
}

impl Overlap {
    /// The holders in words: `threads 0 and 2`, `threads 0, 1 and 3`.
    pub fn holders_in_words(&self) -> String {
        let names: Vec<String> = self.holders.iter().map(u16::to_string).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                format!("threads {} and {last}", rest.join(", "))
            }
            Some((last, _)) => format!("thread {last}"),
            None => String::new(),
        }
    }
}

/// The totals of a timeline, to hold against the run's own counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Wakeup arrows the run counts ([`Arrow::counted`]).
    pub wakeups: u64,
    /// The other wakeup arrows (hand-offs of a lock, a read, an event).
    pub other_wakeups: u64,
    /// Arrows marked wasted.
    pub wasted: u64,
    /// System-call ticks.
    pub syscalls: u64,
    /// `EAGAIN` ticks.
    pub eagain: u64,
    /// Accept ticks.
    pub accepts: u64,
    /// Lock holds (spans on the sleeping mutexes' lanes).
    pub holds: u64,
    /// Word-lock holds (spans on [`LaneKind::WordLock`] lanes).
    pub word_lock_holds: u64,
    /// Times a word lock had two or more holders at once ([`Timeline::overlaps`]).
    pub overlaps: u64,
    /// Spans on thread lanes.
    pub thread_spans: u64,
}

/// A run over time (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// The lanes: threads first, then the network (if any), the locks (sleeping mutexes, then
    /// word locks in the order they were first held), the CPUs.
    pub lanes: Vec<Lane>,
    /// The wakeups, in time order.
    pub arrows: Vec<Arrow>,
    /// Word locks held by two or more threads at once, in the order they ended (a correct lock
    /// has none).
    pub overlaps: Vec<Overlap>,
    /// Each step's time: `steps[k - 1]` is step `k`'s.
    pub steps: Vec<u64>,
    /// The run's end.
    pub end: Point,
}

impl Timeline {
    /// The totals (see [`Counts`]).
    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            wakeups: self.arrows.iter().filter(|a| a.counted).count() as u64,
            other_wakeups: self.arrows.iter().filter(|a| !a.counted).count() as u64,
            wasted: self.arrows.iter().filter(|a| a.wasted).count() as u64,
            overlaps: self.overlaps.len() as u64,
            ..Counts::default()
        };
        for l in &self.lanes {
            match l.kind {
                LaneKind::Thread(_) => c.thread_spans += l.spans.len() as u64,
                LaneKind::Lock(_) => c.holds += l.spans.len() as u64,
                LaneKind::WordLock(_) => c.word_lock_holds += l.spans.len() as u64,
                _ => {}
            }
            for t in &l.ticks {
                match t.kind {
                    TickKind::Syscall => c.syscalls += 1,
                    TickKind::Eagain => c.eagain += 1,
                    TickKind::Accept => c.accepts += 1,
                    _ => {}
                }
            }
        }
        c
    }

    /// The lane of thread `i`, if there is one.
    pub fn thread_lane(&self, i: u16) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.kind == LaneKind::Thread(i))
    }

    /// The time of step `k` (0: the start; past the end: the end).
    pub fn ns_of_step(&self, k: u64) -> u64 {
        match k {
            0 => 0,
            k => self
                .steps
                .get(k as usize - 1)
                .copied()
                .unwrap_or(self.end.ns),
        }
    }

    /// The last step taken at or before `ns` (0 when none): where a click at `ns` seeks.
    pub fn step_at(&self, ns: u64) -> u64 {
        self.steps.partition_point(|&t| t <= ns) as u64
    }

    /// Build the timeline of a native trace's run: each event is a step. A thread is running
    /// from its first event, asleep from `sleep` to `wake` (the arrow's waker is `wake`'s
    /// argument when it names a thread of the run, else the kernel); `wasted` marks the arrow that
    /// woke the thread and turns its awake spans since into [`State::Wasted`]; `lock`/`unlock`
    /// are a hold on the lock's lane; `park` puts it asleep until its next event; the other
    /// kinds are ticks.
    pub fn from_run(run: &Run) -> Timeline {
        let threads = run.threads.min(crate::trace::MAX_THREADS) as usize;
        let mut lanes: Vec<Lane> = (0..threads)
            .map(|i| Lane {
                kind: LaneKind::Thread(i as u16),
                spans: Vec::new(),
                ticks: Vec::new(),
            })
            .collect();
        let mut open: Vec<Option<(State, Point)>> = vec![None; threads];
        let mut last_wake: Vec<Option<usize>> = vec![None; threads];
        let mut slept: Vec<bool> = vec![false; threads];
        let mut locks: Vec<(u32, Holder, Lane)> = Vec::new();
        let mut arrows = Vec::new();
        let mut steps = Vec::with_capacity(run.events.len());
        let mut now = Point::default();
        for (i, e) in run.events.iter().enumerate() {
            now = Point {
                step: i as u64 + 1,
                ns: e.t_ns.max(now.ns),
            };
            steps.push(now.ns);
            let t = e.thread as usize;
            if t >= threads {
                continue;
            }
            let lane = &mut lanes[t];
            let who = e.thread;
            let set = |lane: &mut Lane, open: &mut Option<(State, Point)>, s: State| {
                if let Some((old, from)) = *open {
                    if old == s {
                        return;
                    }
                    if from != now {
                        lane.spans.push(Span {
                            state: old,
                            from,
                            to: now,
                            who,
                        });
                    }
                }
                *open = Some((s, now));
            };
            if open[t].is_none() {
                open[t] = Some((State::Running, now));
            }
            let tick = |lane: &mut Lane, kind| lane.ticks.push(Tick { kind, at: now });
            match e.kind {
                Kind::Sleep | Kind::Park => {
                    set(lane, &mut open[t], State::Asleep);
                    if let Some(a) = last_wake[t] {
                        let a: &mut Arrow = &mut arrows[a];
                        if !slept[t] {
                            a.until = now;
                        }
                    }
                    slept[t] = true;
                    if e.kind == Kind::Park {
                        tick(lane, TickKind::Park);
                    }
                }
                Kind::Wake => {
                    set(lane, &mut open[t], State::Running);
                    let waker = match e.arg {
                        Some(w) if (w as usize) < threads => Waker::Thread(w as u16),
                        _ => Waker::Kernel,
                    };
                    last_wake[t] = Some(arrows.len());
                    slept[t] = false;
                    arrows.push(Arrow {
                        waker,
                        wakee: who,
                        at: now,
                        wasted: false,
                        until: now,
                        counted: true,
                    });
                }
                Kind::Wasted => {
                    if let Some(a) = last_wake[t] {
                        mark_wasted(lane, &mut open[t], &mut arrows[a], now);
                    }
                }
                Kind::Lock | Kind::Unlock => {
                    let id = e.arg.unwrap_or(0);
                    let k = match locks.iter().position(|l| l.0 == id) {
                        Some(k) => k,
                        None => {
                            locks.push((
                                id,
                                None,
                                Lane {
                                    kind: LaneKind::Lock(id),
                                    spans: Vec::new(),
                                    ticks: Vec::new(),
                                },
                            ));
                            locks.len() - 1
                        }
                    };
                    let (_, held, l) = &mut locks[k];
                    if let Some((h, from)) = held.take() {
                        l.spans.push(Span {
                            state: State::Held,
                            from,
                            to: now,
                            who: h,
                        });
                    }
                    if e.kind == Kind::Lock {
                        *held = Some((who, now));
                    }
                }
                Kind::Accept => tick(lane, TickKind::Accept),
                Kind::Eagain => tick(lane, TickKind::Eagain),
                Kind::Steal => tick(lane, TickKind::Steal),
                Kind::Unpark => tick(lane, TickKind::Unpark),
                Kind::Notify => tick(lane, TickKind::Notify),
                Kind::Work => {
                    if matches!(open[t], Some((State::Asleep, _))) {
                        set(lane, &mut open[t], State::Running);
                    }
                    tick(lane, TickKind::Work)
                }
                Kind::Syscall => tick(lane, TickKind::Syscall),
            }
        }
        for (t, o) in open.into_iter().enumerate() {
            if let Some((s, from)) = o {
                lanes[t].spans.push(Span {
                    state: s,
                    from,
                    to: now,
                    who: t as u16,
                });
            }
        }
        for (_, held, mut l) in locks {
            if let Some((h, from)) = held {
                l.spans.push(Span {
                    state: State::Held,
                    from,
                    to: now,
                    who: h,
                });
            }
            lanes.push(l);
        }
        for a in &mut arrows {
            if a.until == a.at {
                a.until = now;
            }
        }
        Timeline {
            lanes,
            arrows,
            overlaps: Vec::new(),
            steps,
            end: now,
        }
    }
}

/// Who holds a lock, since when.
type Holder = Option<(u16, Point)>;

/// The thread woken by `arrow` slept again with nothing done at `now`: mark the arrow and turn
/// its lane's awake spans since the wakeup into [`State::Wasted`].
fn mark_wasted(lane: &mut Lane, open: &mut Option<(State, Point)>, arrow: &mut Arrow, now: Point) {
    arrow.wasted = true;
    if arrow.until == arrow.at {
        arrow.until = now;
    }
    if let Some((s, from)) = open {
        if *s != State::Asleep && *from >= arrow.at {
            *s = State::Wasted;
        }
    }
    for sp in lane.spans.iter_mut().rev() {
        if sp.from < arrow.at {
            break;
        }
        if sp.state != State::Asleep {
            sp.state = State::Wasted;
        }
    }
    // merge neighbours that are now both wasted
    let n = lane.spans.len();
    let mut k = n;
    while k > 1 && lane.spans[k - 1].from >= arrow.at {
        k -= 1;
    }
    let mut merged: Vec<Span> = Vec::new();
    for sp in lane.spans.drain(k.saturating_sub(1)..) {
        match merged.last_mut() {
            Some(m) if m.state == sp.state && m.to == sp.from => m.to = sp.to,
            _ => merged.push(sp),
        }
    }
    lane.spans.extend(merged);
}

/// A word lock's lane as the builder keeps it.
#[derive(Clone, Debug)]
struct WordLock {
    word: u16,
    lane: usize,
    held: Option<u16>,
    from: Point,
    /// Its holders after the step being observed, in thread order (the first is the one its
    /// spans show).
    next: Vec<u16>,
    /// Two or more holders since when (an [`Overlap`] being drawn).
    overlap: Option<(Vec<u16>, Point)>,
}

/// What the builder remembers of a thread between steps.
#[derive(Clone, Copy, Debug)]
struct Seen {
    state: Option<State>,
    from: Point,
    /// Its scheduler state after the last step it was looked at (`None` before the first).
    sched: Option<Sched>,
    /// The word lock it held then.
    holds: Option<u16>,
    wakeups: u64,
    wasted: u64,
    eagain: u64,
    accepted: u64,
    last_wake: Option<usize>,
}

/// Builds a [`Timeline`] from a simulation, one step at a time: [`Builder::new`] before the first
/// step, [`Builder::observe`] after each, [`Builder::finish`] at the end.
#[derive(Clone, Debug)]
pub struct Builder {
    tl: Timeline,
    seen: Vec<Seen>,
    cpus: Vec<(Option<u16>, Point)>,
    mutexes: Vec<(Option<u16>, Point)>,
    /// Word locks seen so far: the word, its lane, its holder and since when (lanes are added as
    /// a lock is first held, after the mutexes' lanes, before the CPUs').
    word_locks: Vec<WordLock>,
    /// Look at every thread on every step (see [`Builder::exhaustive`]).
    exhaustive: bool,
    /// Index of the first CPU lane, and of the first lock lane.
    cpu_lane: usize,
    lock_lane: usize,
    network_lane: Option<usize>,
    syscalls: u64,
    arrivals: u64,
    now: Point,
}

/// A thread's state as the timeline shows it.
fn state_of<M: Machine>(sched: Sched, m: &M) -> Option<State> {
    match sched {
        Sched::OnCpu => Some(if m.in_failed_spin() || m.next_op() == Op::Pause {
            State::Spinning
        } else {
            State::Running
        }),
        Sched::Queued => Some(State::Runnable),
        Sched::Asleep => Some(State::Asleep),
        Sched::Done => None,
    }
}

impl Builder {
    /// Start from the simulation as it is (normally before its first step).
    pub fn new<M: Machine>(sim: &Simulation<M>) -> Builder {
        let mut lanes = Vec::new();
        let n = sim.threads().len();
        for i in 0..n {
            lanes.push(Lane {
                kind: LaneKind::Thread(i as u16),
                spans: Vec::new(),
                ticks: Vec::new(),
            });
        }
        let network_lane = sim.has_network().then(|| {
            lanes.push(Lane {
                kind: LaneKind::Network,
                spans: Vec::new(),
                ticks: Vec::new(),
            });
            lanes.len() - 1
        });
        let lock_lane = lanes.len();
        for m in 0..sim.mutexes() {
            lanes.push(Lane {
                kind: LaneKind::Lock(u32::from(m)),
                spans: Vec::new(),
                ticks: Vec::new(),
            });
        }
        let cpu_lane = lanes.len();
        for c in 0..sim.cpus().len() {
            lanes.push(Lane {
                kind: LaneKind::Cpu(c as u8),
                spans: Vec::new(),
                ticks: Vec::new(),
            });
        }
        let now = Point {
            step: sim.metrics().steps,
            ns: sim.now_ns(),
        };
        let seen = sim
            .threads()
            .iter()
            .map(|t| Seen {
                state: state_of(t.sched(), t.machine()),
                from: now,
                sched: None,
                holds: None,
                wakeups: t.metrics().wakeups,
                wasted: t.metrics().wasted_wakeups,
                eagain: t.metrics().eagain,
                accepted: t.metrics().accepted,
                last_wake: None,
            })
            .collect();
        Builder {
            tl: Timeline {
                lanes,
                arrows: Vec::new(),
                overlaps: Vec::new(),
                steps: Vec::new(),
                end: now,
            },
            seen,
            cpus: sim.cpus().iter().map(|c| (c.current(), now)).collect(),
            mutexes: (0..sim.mutexes())
                .map(|m| (sim.mutex_owner(m), now))
                .collect(),
            word_locks: Vec::new(),
            exhaustive: false,
            cpu_lane,
            lock_lane,
            network_lane,
            syscalls: sim.metrics().syscalls,
            arrivals: sim.metrics().connections_arrived,
            now,
        }
    }

    /// Look at every thread on every step, not only those the step may have changed (the
    /// step's actor and the threads whose scheduler state or counters changed): slower, the
    /// same timeline; for tests of that shortcut.
    pub fn exhaustive(mut self) -> Builder {
        self.exhaustive = true;
        self
    }

    /// Take in step `rec`, which `sim` has just taken. A thread's machine changes only when it
    /// steps or is woken, so a thread that is not the step's actor and whose scheduler state and
    /// counters did not change is skipped (64 threads × 100,000 steps: most of the work).
    pub fn observe<M: Machine>(&mut self, sim: &Simulation<M>, rec: &StepRecord) {
        let now = Point {
            step: rec.step,
            ns: rec.time_ns.max(self.now.ns),
        };
        self.now = now;
        // a step taken out of order (after a step back) is ignored: the builder only goes forward
        let want = self.tl.steps.len() as u64 + 1;
        if rec.step >= want {
            self.tl.steps.resize(rec.step as usize, now.ns);
        }
        let waker = match rec.actor {
            Actor::Thread(i) => Waker::Thread(i),
            Actor::Network => Waker::Network,
        };
        let actor_lane = match rec.actor {
            Actor::Thread(i) => Some(i as usize),
            Actor::Network => self.network_lane,
        };
        // system calls and arrivals
        let m = sim.metrics();
        if let Some(l) = actor_lane {
            for _ in self.syscalls..m.syscalls {
                self.tl.lanes[l].ticks.push(Tick {
                    kind: TickKind::Syscall,
                    at: now,
                });
            }
        }
        self.syscalls = m.syscalls;
        if let Some(l) = self.network_lane {
            for _ in self.arrivals..m.connections_arrived {
                self.tl.lanes[l].ticks.push(Tick {
                    kind: TickKind::Arrival,
                    at: now,
                });
            }
        }
        self.arrivals = m.connections_arrived;
        // threads
        let actor = match rec.actor {
            Actor::Thread(i) => Some(i as usize),
            Actor::Network => None,
        };
        let mut holds_changed = false;
        for (i, t) in sim.threads().iter().enumerate() {
            let tm = t.metrics();
            let sched = t.sched();
            let s = &mut self.seen[i];
            if !self.exhaustive
                && actor != Some(i)
                && s.sched == Some(sched)
                && tm.wakeups == s.wakeups
                && tm.wasted_wakeups == s.wasted
                && tm.eagain == s.eagain
                && tm.accepted == s.accepted
            {
                continue;
            }
            s.sched = Some(sched);
            let holds = t.machine().holds_word_lock().map(|w| w.0);
            if holds != s.holds {
                s.holds = holds;
                holds_changed = true;
            }
            let state = state_of(sched, t.machine());
            let lane = &mut self.tl.lanes[i];
            for _ in s.eagain..tm.eagain {
                lane.ticks.push(Tick {
                    kind: TickKind::Eagain,
                    at: now,
                });
            }
            for _ in s.accepted..tm.accepted {
                lane.ticks.push(Tick {
                    kind: TickKind::Accept,
                    at: now,
                });
            }
            s.eagain = tm.eagain;
            s.accepted = tm.accepted;
            // wakeups: each counted one is an arrow; an uncounted one (a hand-off) too
            let woke_uncounted = s.state == Some(State::Asleep)
                && state != Some(State::Asleep)
                && tm.wakeups == s.wakeups;
            let counted = tm.wakeups - s.wakeups;
            for k in 0..counted + u64::from(woke_uncounted) {
                s.last_wake = Some(self.tl.arrows.len());
                self.tl.arrows.push(Arrow {
                    waker,
                    wakee: i as u16,
                    at: now,
                    wasted: false,
                    until: now,
                    counted: k < counted,
                });
            }
            s.wakeups = tm.wakeups;
            // the state
            if state != s.state {
                if let Some(old) = s.state {
                    lane.spans.push(Span {
                        state: old,
                        from: s.from,
                        to: now,
                        who: i as u16,
                    });
                }
                if state == Some(State::Asleep) {
                    if let Some(a) = s.last_wake {
                        let a = &mut self.tl.arrows[a];
                        if a.until == a.at {
                            a.until = now;
                        }
                    }
                }
                s.state = state;
                s.from = now;
            }
            // wasted wakeups: counted when the thread sleeps again
            for _ in s.wasted..tm.wasted_wakeups {
                let mut open = s.state.map(|st| (st, s.from));
                match s.last_wake {
                    Some(a) => {
                        mark_wasted(lane, &mut open, &mut self.tl.arrows[a], now);
                    }
                    None => {
                        // woken before the timeline began: mark what it has of it
                        self.tl.arrows.push(Arrow {
                            waker: Waker::Kernel,
                            wakee: i as u16,
                            at: now,
                            wasted: true,
                            until: now,
                            counted: true,
                        });
                    }
                }
                s.last_wake = None;
            }
            s.wasted = tm.wasted_wakeups;
        }
        // CPUs
        for (c, cpu) in sim.cpus().iter().enumerate() {
            let cur = cpu.current();
            let (held, from) = self.cpus[c];
            if cur != held {
                if let Some(h) = held {
                    self.tl.lanes[self.cpu_lane + c].spans.push(Span {
                        state: State::Held,
                        from,
                        to: now,
                        who: h,
                    });
                }
                self.cpus[c] = (cur, now);
            }
        }
        // mutexes
        for m in 0..self.mutexes.len() {
            let cur = sim.mutex_owner(m as u8);
            let (held, from) = self.mutexes[m];
            if cur != held {
                if let Some(h) = held {
                    self.tl.lanes[self.lock_lane + m].spans.push(Span {
                        state: State::Held,
                        from,
                        to: now,
                        who: h,
                    });
                }
                self.mutexes[m] = (cur, now);
            }
        }
        if holds_changed {
            self.observe_word_locks(now);
        }
    }

    /// Word locks, after a step that changed who holds one: each thread's machine says which it
    /// holds (kept in `seen`); a lock first held gets its lane.
    fn observe_word_locks(&mut self, now: Point) {
        for w in &mut self.word_locks {
            w.next.clear();
        }
        for i in 0..self.seen.len() {
            let Some(word) = self.seen[i].holds else {
                continue;
            };
            let k = match self.word_locks.iter().position(|w| w.word == word) {
                Some(k) => k,
                None => {
                    self.tl.lanes.insert(
                        self.cpu_lane,
                        Lane {
                            kind: LaneKind::WordLock(word),
                            spans: Vec::new(),
                            ticks: Vec::new(),
                        },
                    );
                    self.word_locks.push(WordLock {
                        word,
                        lane: self.cpu_lane,
                        held: None,
                        from: now,
                        next: Vec::new(),
                        overlap: None,
                    });
                    self.cpu_lane += 1;
                    self.word_locks.len() - 1
                }
            };
            self.word_locks[k].next.push(i as u16);
        }
        for w in &mut self.word_locks {
            let first = w.next.first().copied();
            if first != w.held {
                if let Some(h) = w.held {
                    self.tl.lanes[w.lane].spans.push(Span {
                        state: State::Held,
                        from: w.from,
                        to: now,
                        who: h,
                    });
                }
                w.held = first;
                w.from = now;
            }
            let same = matches!(&w.overlap, Some((h, _)) if *h == w.next);
            if !same {
                if let Some((holders, from)) = w.overlap.take() {
                    self.tl.overlaps.push(Overlap {
                        lane: w.lane,
                        from,
                        to: now,
                        holders,
                    });
                }
                if w.next.len() >= 2 {
                    w.overlap = Some((w.next.clone(), now));
                }
            }
        }
    }

    /// The timeline so far, every open span closed at the latest step.
    pub fn timeline(&self) -> Timeline {
        let mut tl = self.tl.clone();
        self.close(&mut tl);
        tl
    }

    /// The finished timeline (moved out, not copied: a long run's spans are megabytes).
    pub fn finish(mut self) -> Timeline {
        let mut tl = core::mem::replace(
            &mut self.tl,
            Timeline {
                lanes: Vec::new(),
                arrows: Vec::new(),
                overlaps: Vec::new(),
                steps: Vec::new(),
                end: Point::default(),
            },
        );
        self.close(&mut tl);
        tl
    }

    /// Close `tl`'s open spans, holds and overlaps at the latest step.
    fn close(&self, tl: &mut Timeline) {
        let now = self.now;
        tl.end = now;
        for (i, s) in self.seen.iter().enumerate() {
            if let Some(st) = s.state {
                tl.lanes[i].spans.push(Span {
                    state: st,
                    from: s.from,
                    to: now,
                    who: i as u16,
                });
            }
        }
        for (c, &(held, from)) in self.cpus.iter().enumerate() {
            if let Some(h) = held {
                tl.lanes[self.cpu_lane + c].spans.push(Span {
                    state: State::Held,
                    from,
                    to: now,
                    who: h,
                });
            }
        }
        for (m, &(held, from)) in self.mutexes.iter().enumerate() {
            if let Some(h) = held {
                tl.lanes[self.lock_lane + m].spans.push(Span {
                    state: State::Held,
                    from,
                    to: now,
                    who: h,
                });
            }
        }
        for w in &self.word_locks {
            if let Some(h) = w.held {
                tl.lanes[w.lane].spans.push(Span {
                    state: State::Held,
                    from: w.from,
                    to: now,
                    who: h,
                });
            }
            if let Some((holders, from)) = &w.overlap {
                tl.overlaps.push(Overlap {
                    lane: w.lane,
                    from: *from,
                    to: now,
                    holders: holders.clone(),
                });
            }
        }
        for a in &mut tl.arrows {
            if a.until == a.at && !a.wasted {
                a.until = now;
            }
        }
    }
}

/// Run `sim` for at most `max_steps` steps (or until it stops) and return its timeline and the
/// steps taken.
pub fn run<M: Machine>(sim: &mut Simulation<M>, max_steps: u64) -> (Timeline, u64) {
    let mut b = Builder::new(sim);
    let mut n = 0;
    while n < max_steps {
        match sim.step() {
            Some(rec) => b.observe(sim, &rec),
            None => break,
        }
        n += 1;
    }
    (b.finish(), n)
}

/// The visible window: times `from_ns..to_ns` drawn across `width` pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// The left edge's time.
    pub from_ns: u64,
    /// The right edge's time (more than `from_ns`).
    pub to_ns: u64,
    /// The width in pixels (at least 1).
    pub width: u32,
}

impl View {
    /// The x of time `ns` (may fall outside `0..width`).
    pub fn x(&self, ns: u64) -> f64 {
        let span = self.to_ns.saturating_sub(self.from_ns).max(1) as f64;
        (ns as f64 - self.from_ns as f64) * f64::from(self.width.max(1)) / span
    }

    /// The time at x.
    pub fn ns_at(&self, x: f64) -> u64 {
        let span = self.to_ns.saturating_sub(self.from_ns).max(1) as f64;
        let t = self.from_ns as f64 + x.max(0.0) * span / f64::from(self.width.max(1));
        t.round() as u64
    }

    /// Zoomed by `factor` (below 1: in) around time `at`, at least `min_ns` wide, clamped to
    /// `0..end_ns` where it can be.
    pub fn zoom(&self, factor: f64, at: u64, min_ns: u64, end_ns: u64) -> View {
        let w = (self.to_ns - self.from_ns) as f64;
        let nw = (w * factor)
            .max(min_ns.max(1) as f64)
            .min(end_ns.max(1) as f64 * 1.05);
        let left = (at as f64 - (at as f64 - self.from_ns as f64) * nw / w.max(1.0)).max(0.0);
        let from = left as u64;
        View {
            from_ns: from,
            to_ns: from + nw.max(1.0) as u64,
            width: self.width,
        }
    }

    /// Moved by `frac` of its width (negative: left), not before 0.
    pub fn pan(&self, frac: f64) -> View {
        let w = self.to_ns - self.from_ns;
        let d = (w as f64 * frac) as i64;
        let from = (self.from_ns as i64 + d).max(0) as u64;
        View {
            from_ns: from,
            to_ns: from + w,
            width: self.width,
        }
    }
}

/// A rectangle to draw: `state` over pixels `x0..x1` of lane `lane` (an index into
/// [`Timeline::lanes`]); `who` as in [`Span`]; `merged` spans shorter than a pixel fell into it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// The lane.
    pub lane: u32,
    /// Left pixel.
    pub x0: f32,
    /// Right pixel.
    pub x1: f32,
    /// The state (of a merged pixel: the state that fills most of it).
    pub state: State,
    /// The thread, as in [`Span::who`].
    pub who: u16,
    /// How many spans it stands for.
    pub merged: u32,
}

/// An arrow to draw at pixel `x`, from lane `from` (the waker's) to lane `to` (the wakee's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawArrow {
    /// The pixel.
    pub x: f32,
    /// The waker's lane (the network's, or the wakee's own for the kernel).
    pub from: u32,
    /// The wakee's lane.
    pub to: u32,
    /// A wasted wakeup.
    pub wasted: bool,
}

/// A tick to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawTick {
    /// The lane.
    pub lane: u32,
    /// The pixel.
    pub x: f32,
    /// What it marks.
    pub kind: TickKind,
}

/// A word lock held by two or more threads at once ([`Overlap`]), to draw over pixels `x0..x1`
/// of its lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawOverlap {
    /// The lock's lane.
    pub lane: u32,
    /// Left pixel.
    pub x0: f32,
    /// Right pixel (at least one pixel right of `x0`).
    pub x1: f32,
    /// The most holders at once among the overlaps it stands for.
    pub holders: u16,
    /// Its first overlap (an index into [`Timeline::overlaps`]).
    pub first: u32,
}

/// What to draw for one view (see [`layout`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawing {
    /// The state rectangles, lane by lane, left to right.
    pub rects: Vec<Rect>,
    /// Word locks with two or more holders at once, each at least a pixel wide (overlaps that
    /// meet in one pixel of a lane merged).
    pub overlaps: Vec<DrawOverlap>,
    /// The arrows, at most one per pixel and wakee lane.
    pub arrows: Vec<DrawArrow>,
    /// The ticks, at most one per pixel, lane and kind.
    pub ticks: Vec<DrawTick>,
}

/// What to draw of `tl` in `view`: per lane, the spans that meet the window, those shorter than a
/// pixel merged into one rectangle per pixel (its state the one that fills most of it; where more
/// than 8 spans end in one pixel, the state of the middle one); the arrows and ticks in the
/// window, one per pixel and lane. The spans' work is bounded by the width times the lanes (a
/// binary search per crowded pixel), whatever the zoom.
pub fn layout(tl: &Timeline, view: &View) -> Drawing {
    let mut d = Drawing::default();
    if view.to_ns <= view.from_ns || view.width == 0 {
        return d;
    }
    let ns_per_px = (view.to_ns - view.from_ns) as f64 / f64::from(view.width);
    for (li, lane) in tl.lanes.iter().enumerate() {
        let li = li as u32;
        let first = lane.spans.partition_point(|s| s.to.ns < view.from_ns);
        // a pixel being filled: its x, and time per state
        let mut px: Option<(i64, [u64; 6], u16, u32)> = None;
        let flush = |d: &mut Drawing, px: &mut Option<(i64, [u64; 6], u16, u32)>| {
            if let Some((x, fill, who, n)) = px.take() {
                let (k, _) = fill
                    .iter()
                    .enumerate()
                    .max_by_key(|&(k, v)| (*v, core::cmp::Reverse(k)))
                    .unwrap_or((0, &0));
                push_rect(
                    d,
                    Rect {
                        lane: li,
                        x0: x as f32,
                        x1: x as f32 + 1.0,
                        state: State::ALL[k],
                        who,
                        merged: n,
                    },
                );
            }
        };
        let spans = &lane.spans;
        let mut i = first;
        while i < spans.len() {
            let sp = &spans[i];
            if sp.from.ns > view.to_ns {
                break;
            }
            let x0 = view.x(sp.from.ns);
            let x1 = view.x(sp.to.ns);
            if x1 - x0 < 1.0 {
                let x = x0.floor() as i64;
                // the spans that end inside this pixel: many are sampled at their middle one, so
                // the work per lane is bounded by the pixels, not the spans
                let edge = view.ns_at(x as f64 + 1.0);
                let j = (i + spans[i..].partition_point(|s| s.to.ns < edge)).max(i + 1);
                let (pick, weight, n) = if j - i > 8 {
                    (
                        &spans[(i + j) / 2],
                        edge.saturating_sub(sp.from.ns) + 1,
                        (j - i) as u32,
                    )
                } else {
                    (sp, sp.to.ns - sp.from.ns + 1, 1)
                };
                let k = State::ALL
                    .iter()
                    .position(|s| *s == pick.state)
                    .unwrap_or(0);
                match &mut px {
                    Some((px_x, fill, _, m)) if *px_x == x => {
                        fill[k] += weight;
                        *m += n;
                    }
                    _ => {
                        flush(&mut d, &mut px);
                        let mut fill = [0; 6];
                        fill[k] = weight;
                        px = Some((x, fill, pick.who, n));
                    }
                }
                i += n as usize;
                continue;
            }
            i += 1;
            {
                flush(&mut d, &mut px);
                push_rect(
                    &mut d,
                    Rect {
                        lane: li,
                        x0: x0.max(-1.0) as f32,
                        x1: x1.min(f64::from(view.width) + 1.0) as f32,
                        state: sp.state,
                        who: sp.who,
                        merged: 1,
                    },
                );
            }
        }
        flush(&mut d, &mut px);
        // ticks
        let first = lane.ticks.partition_point(|t| t.at.ns < view.from_ns);
        let mut last: Option<(i64, TickKind)> = None;
        for t in &lane.ticks[first..] {
            if t.at.ns > view.to_ns {
                break;
            }
            let x = view.x(t.at.ns);
            let key = (x.floor() as i64, t.kind);
            if last == Some(key) {
                continue;
            }
            last = Some(key);
            d.ticks.push(DrawTick {
                lane: li,
                x: x as f32,
                kind: t.kind,
            });
        }
    }
    let lane_of = |k: LaneKind| tl.lanes.iter().position(|l| l.kind == k);
    let thread_lanes: Vec<u32> = (0..tl.lanes.len())
        .filter(|&i| matches!(tl.lanes[i].kind, LaneKind::Thread(_)))
        .map(|i| i as u32)
        .collect();
    let network = lane_of(LaneKind::Network);
    let first = tl.arrows.partition_point(|a| a.at.ns < view.from_ns);
    let mut seen: Vec<i64> = vec![i64::MIN; thread_lanes.len()];
    for a in &tl.arrows[first..] {
        if a.at.ns > view.to_ns {
            break;
        }
        let Some(&to) = thread_lanes.get(a.wakee as usize) else {
            continue;
        };
        let x = view.x(a.at.ns);
        let px = x.floor() as i64;
        let slot = &mut seen[a.wakee as usize];
        if *slot == px && !a.wasted {
            continue;
        }
        *slot = px;
        let from = match a.waker {
            Waker::Thread(w) => thread_lanes.get(w as usize).copied().unwrap_or(to),
            Waker::Network => network.map_or(to, |n| n as u32),
            Waker::Kernel => to,
        };
        d.arrows.push(DrawArrow {
            x: x as f32,
            from,
            to,
            wasted: a.wasted,
        });
    }
    // broken locks: every overlap in the window, at least a pixel wide, neighbours merged
    for (k, o) in tl.overlaps.iter().enumerate() {
        if o.to.ns < view.from_ns || o.from.ns > view.to_ns {
            continue;
        }
        let x0 = view.x(o.from.ns).max(-1.0) as f32;
        let x1 = (view.x(o.to.ns).min(f64::from(view.width) + 1.0) as f32).max(x0 + 1.0);
        let holders = o.holders.len() as u16;
        let lane = o.lane as u32;
        if let Some(last) = d
            .overlaps
            .iter_mut()
            .rev()
            .find(|m| m.lane == lane && m.x1 >= x0 && m.x0 <= x1)
        {
            last.x0 = last.x0.min(x0);
            last.x1 = last.x1.max(x1);
            last.holders = last.holders.max(holders);
            continue;
        }
        d.overlaps.push(DrawOverlap {
            lane,
            x0,
            x1,
            holders,
            first: k as u32,
        });
    }
    let _ = ns_per_px;
    d
}

/// Add `r`, or widen the last rectangle when `r` continues it (same lane, state and thread).
fn push_rect(d: &mut Drawing, r: Rect) {
    if let Some(last) = d.rects.last_mut() {
        if last.lane == r.lane && last.state == r.state && last.who == r.who && last.x1 >= r.x0 {
            last.x1 = last.x1.max(r.x1);
            last.merged += r.merged;
            return;
        }
    }
    d.rects.push(r);
}

/// A duration or time in words with its unit (`12.41 ms`, `2.1 µs`, `300 ns`).
pub fn fmt_ns(ns: u64) -> String {
    let f = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{} µs", trim(f / 1e3))
    } else if ns < 1_000_000_000 {
        format!("{} ms", trim(f / 1e6))
    } else {
        format!("{} s", trim(f / 1e9))
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// What lane `lane` shows at time `ns`, in words: its state, since when and until when, and
/// for a thread the wakeup that began it ("thread 3 woken by the network at 12.41 ms, found
/// nothing to do, asleep again after 2.1 µs"). `None` outside the lane's spans.
pub fn describe(tl: &Timeline, lane: usize, ns: u64) -> Option<String> {
    let l = tl.lanes.get(lane)?;
    let i = l.spans.partition_point(|s| s.to.ns < ns);
    let sp = l.spans.get(i).filter(|s| s.from.ns <= ns)?;
    let mut out = String::new();
    let name = l.kind.name();
    match l.kind {
        LaneKind::Thread(t) => {
            let before = tl.arrows.partition_point(|a| a.at.ns <= ns);
            let woke = tl.arrows[..before]
                .iter()
                .rev()
                .find(|a| a.wakee == t)
                .filter(|a| a.until.ns >= ns || a.until == a.at);
            match (sp.state, woke) {
                (State::Wasted, Some(a)) => {
                    let _ = write!(
                        out,
                        "{name} woken by {} at {}, found nothing to do, asleep again after {}",
                        a.waker.name(),
                        fmt_ns(a.at.ns),
                        fmt_ns(a.until.ns.saturating_sub(a.at.ns))
                    );
                }
                (State::Asleep, _) => {
                    let _ = write!(
                        out,
                        "{name} asleep from {} for {}",
                        fmt_ns(sp.from.ns),
                        fmt_ns(sp.to.ns - sp.from.ns)
                    );
                }
                (s, Some(a)) => {
                    let _ = write!(
                        out,
                        "{name} {} from {} for {} (woken by {} at {})",
                        s.name(),
                        fmt_ns(sp.from.ns),
                        fmt_ns(sp.to.ns - sp.from.ns),
                        a.waker.name(),
                        fmt_ns(a.at.ns)
                    );
                }
                (s, None) => {
                    let _ = write!(
                        out,
                        "{name} {} from {} for {}",
                        s.name(),
                        fmt_ns(sp.from.ns),
                        fmt_ns(sp.to.ns - sp.from.ns)
                    );
                }
            }
        }
        LaneKind::Cpu(_) | LaneKind::Lock(_) | LaneKind::WordLock(_) => {
            let verb = if matches!(l.kind, LaneKind::Cpu(_)) {
                "runs"
            } else {
                "held by"
            };
            let both = tl
                .overlaps
                .iter()
                .find(|o| o.lane == lane && o.from.ns <= ns && ns < o.to.ns.max(o.from.ns + 1));
            if let Some(o) = both {
                let _ = write!(
                    out,
                    "{name} {verb} {} at once ({} holders: the lock is broken) from {} for {}",
                    o.holders_in_words(),
                    o.holders.len(),
                    fmt_ns(o.from.ns),
                    fmt_ns(o.to.ns - o.from.ns)
                );
                let _ = write!(out, " (steps {}-{})", o.from.step, o.to.step);
                return Some(out);
            }
            let _ = write!(
                out,
                "{name} {verb} thread {} from {} for {}",
                sp.who,
                fmt_ns(sp.from.ns),
                fmt_ns(sp.to.ns - sp.from.ns)
            );
        }
        LaneKind::Network => return None,
    }
    let _ = write!(out, " (steps {}-{})", sp.from.step, sp.to.step);
    Some(out)
}
