//! The search engine: depth-first exploration with a visited set, then breadth-first for the
//! shortest counterexample.
//!
//! # Protocol
//! 1. Push the initial state; remember its hash.
//! 2. Depth-first: take the top state's next runnable thread, step a copy of the state with it (one
//!    transition), and skip the copy if its hash was seen. Otherwise it is a new distinct state: check
//!    the invariants on it, and, if no thread can run, the terminal invariants; push it.
//! 3. Stop at the first violation, when [`CheckConfig::max_states`] distinct states are reached, or
//!    when everything reachable was seen (the run is then *complete*: the invariants hold in every
//!    reachable state, under the bounds below).
//! 4. After a violation, search breadth-first from the initial state (same limits) for the nearest
//!    violating state, and return the schedule leading there: no shorter schedule breaks an invariant.
//!
//! # Bounds, each beside its knob
//! - [`CheckConfig::max_states`]: distinct states; a search that hits it reports `complete: false`.
//! - [`CheckConfig::max_depth`]: steps along one schedule; deeper states are not expanded.
//! - [`CheckConfig::preemption_bound`]: the most switches away from a thread that could still run, along
//!   one schedule (CHESS-style). With a bound, a state first reached with more preemptions is not
//!   revisited with fewer, so a bounded search is for finding bugs, not for proofs.
//!
//! States are identified by a 64-bit hash (FxHash-style); two different states with the same hash
//! would wrongly be merged, with a probability around `n² / 2⁶⁵` for `n` states.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use serde::{Deserialize, Serialize};

/// A system the engine can explore.
pub trait Model: Clone + Hash {
    /// Number of threads.
    fn thread_count(&self) -> usize;
    /// Whether thread `t` may take a step.
    fn is_runnable(&self, t: usize) -> bool;
    /// Take one step of thread `t`.
    fn step(&mut self, t: usize);
}

impl<M: crate::machine::Machine + Copy> Model for super::CheckWorld<M> {
    fn thread_count(&self) -> usize {
        self.threads().len()
    }
    fn is_runnable(&self, t: usize) -> bool {
        super::CheckWorld::is_runnable(self, t)
    }
    fn step(&mut self, t: usize) {
        super::CheckWorld::step(self, t)
    }
}

/// A broken invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The invariant's name (`mutual-exclusion`, `lost-wakeup`, …).
    pub invariant: String,
    /// What was seen.
    pub message: String,
}

/// A violation with the schedule that reaches it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The broken invariant.
    pub violation: Violation,
    /// The threads to step, in order, from the initial state.
    pub schedule: Vec<u16>,
}

/// Limits of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckConfig {
    /// The most distinct states to visit.
    pub max_states: u64,
    /// The longest schedule to expand.
    pub max_depth: u32,
    /// The most preemptions along one schedule (`None`: unbounded).
    pub preemption_bound: Option<u32>,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_states: 20_000_000,
            max_depth: 100_000,
            preemption_bound: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckReport {
    /// Distinct states visited.
    pub states: u64,
    /// Transitions taken (steps tried, including those that led to a seen state).
    pub transitions: u64,
    /// The longest schedule explored.
    pub max_depth: u32,
    /// True when every reachable state (within the depth and preemption bounds) was visited.
    pub complete: bool,
    /// True when a preemption bound was in force: a complete bounded search is not a proof.
    pub bounded: bool,
    /// The shortest counterexample, if an invariant broke.
    pub violation: Option<Counterexample>,
}

/// A fast, deterministic hasher for state identity (the FxHash mixing step).
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const FX_K: u64 = 0xf135_7aea_2e62_a9c5;

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.write_u64(v);
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(FX_K);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The hash that identifies a state.
pub fn state_hash<S: Hash>(s: &S) -> u64 {
    let mut h = FxHasher::default();
    s.hash(&mut h);
    h.finish()
}

#[derive(Default)]
struct IdHasher(u64);
impl Hasher for IdHasher {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
type Seen = HashSet<u64, BuildHasherDefault<IdHasher>>;

struct Frame<S> {
    state: S,
    next: usize,
    last: Option<usize>,
    preemptions: u32,
    depth: u32,
}

fn any_runnable<S: Model>(s: &S) -> bool {
    (0..s.thread_count()).any(|t| s.is_runnable(t))
}

fn violated<S: Model>(
    s: &S,
    check: &dyn Fn(&S) -> Option<Violation>,
    terminal: &dyn Fn(&S) -> Option<Violation>,
) -> Option<Violation> {
    check(s).or_else(|| if any_runnable(s) { None } else { terminal(s) })
}

/// Explore every interleaving of `init`. `check` runs on every distinct state; `terminal` on states
/// where no thread can run (deadlock, lost wakeups, final accounting). `progress` is called every
/// 65,536 states with the number of states so far; returning false cancels the search (the report is
/// then incomplete).
pub fn explore<S: Model>(
    init: S,
    cfg: &CheckConfig,
    check: &dyn Fn(&S) -> Option<Violation>,
    terminal: &dyn Fn(&S) -> Option<Violation>,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    let mut seen = Seen::default();
    seen.reserve(cfg.max_states.min(1 << 20) as usize);
    seen.insert(state_hash(&init));
    let mut report = CheckReport {
        states: 1,
        transitions: 0,
        max_depth: 0,
        complete: false,
        bounded: cfg.preemption_bound.is_some(),
        violation: None,
    };
    if let Some(v) = violated(&init, check, terminal) {
        report.violation = Some(Counterexample {
            violation: v,
            schedule: vec![],
        });
        report.complete = true;
        return report;
    }
    let n = init.thread_count();
    let mut stack = vec![Frame {
        state: init.clone(),
        next: 0,
        last: None,
        preemptions: 0,
        depth: 0,
    }];
    let mut found: Option<(Violation, Vec<u16>)> = None;
    let mut cancelled = false;
    while let Some(top) = stack.last_mut() {
        let t = match (top.next..n).find(|&t| top.state.is_runnable(t)) {
            Some(t) => t,
            None => {
                stack.pop();
                continue;
            }
        };
        top.next = t + 1;
        if top.depth >= cfg.max_depth {
            continue;
        }
        let mut pre = top.preemptions;
        if let Some(last) = top.last {
            if last != t && top.state.is_runnable(last) {
                pre += 1;
            }
        }
        if cfg.preemption_bound.is_some_and(|b| pre > b) {
            continue;
        }
        let mut next = top.state.clone();
        next.step(t);
        report.transitions += 1;
        let depth = top.depth + 1;
        if !seen.insert(state_hash(&next)) {
            continue;
        }
        report.states += 1;
        report.max_depth = report.max_depth.max(depth);
        if report.states % 65_536 == 0 && !progress(report.states) {
            cancelled = true;
            break;
        }
        if let Some(v) = violated(&next, check, terminal) {
            // the depth-first path, kept in case the breadth-first search runs out of room
            let path = stack.iter().map(|f| (f.next - 1) as u16).collect();
            found = Some((v, path));
            break;
        }
        if report.states >= cfg.max_states {
            break;
        }
        stack.push(Frame {
            state: next,
            next: 0,
            last: Some(t),
            preemptions: pre,
            depth,
        });
    }
    let Some((v, path)) = found else {
        report.complete = !cancelled && stack.is_empty();
        return report;
    };
    report.complete = true;
    report.violation = shortest(init, cfg, check, terminal).or(Some(Counterexample {
        violation: v,
        schedule: path,
    }));
    report
}

/// Breadth-first search for the nearest violating state.
fn shortest<S: Model>(
    init: S,
    cfg: &CheckConfig,
    check: &dyn Fn(&S) -> Option<Violation>,
    terminal: &dyn Fn(&S) -> Option<Violation>,
) -> Option<Counterexample> {
    let n = init.thread_count();
    let mut seen = Seen::default();
    seen.insert(state_hash(&init));
    // node i: (parent, thread); node 0 is the initial state
    let mut nodes: Vec<(u32, u16)> = vec![(0, 0)];
    let mut queue = VecDeque::new();
    queue.push_back((init, 0u32, 0u32));
    while let Some((s, idx, depth)) = queue.pop_front() {
        if depth >= cfg.max_depth {
            continue;
        }
        for t in 0..n {
            if !s.is_runnable(t) {
                continue;
            }
            let mut next = s.clone();
            next.step(t);
            if !seen.insert(state_hash(&next)) {
                continue;
            }
            nodes.push((idx, t as u16));
            let me = (nodes.len() - 1) as u32;
            if let Some(v) = violated(&next, check, terminal) {
                let mut schedule = Vec::new();
                let mut i = me;
                while i != 0 {
                    let (parent, th) = nodes[i as usize];
                    schedule.push(th);
                    i = parent;
                }
                schedule.reverse();
                return Some(Counterexample {
                    violation: v,
                    schedule,
                });
            }
            if nodes.len() as u64 >= cfg.max_states {
                return None;
            }
            queue.push_back((next, me, depth + 1));
        }
    }
    None
}
