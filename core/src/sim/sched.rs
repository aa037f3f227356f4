//! The scheduler: CPUs, their run queues, the three policies, wakeups, blocking and preemption.
//!
//! # Run queues
//! A [`RunQueue`] keeps its threads in queue order (front first: what [`Cpu::run_queue`] shows).
//! With [`SchedPolicy::Fifo`] it is a plain deque. With [`SchedPolicy::Fair`] each entry is keyed
//! by the CPU time its thread had used when it was queued (a queued thread runs nowhere, so its key
//! does not change while it waits) and by its place in the queue, in a min-heap ([`FairQueue`]), so
//! the next thread is the heap's top instead of a scan of the queue that reads every thread's
//! counters. The place is a sequence number: `push_back` takes the next one up,
//! `push_front` the next one down, so sequence order is queue order and ties go to the front-most
//! thread, exactly as the scan did. With [`SchedPolicy::Eevdf`] it is `eevdf.rs`'s queue, and the
//! wake, block, pick and tick paths go to `eevdf.rs`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

#[cfg(feature = "eevdf")]
use super::eevdf::{EevdfQueue, Entry};
use super::{Role, Sched, Simulation, SleepKind};
use crate::machine::Machine;

/// One simulated CPU.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cpu {
    pub(super) current: Option<u16>,
    pub(super) runq: RunQueue,
    pub(super) clock: u64,
    pub(super) slice_start: u64,
}

/// A CPU's run queue (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum RunQueue {
    /// [`SchedPolicy::Fifo`]: the threads, front first.
    Fifo(VecDeque<u16>),
    /// [`SchedPolicy::Fair`].
    Fair(FairQueue),
    /// [`SchedPolicy::Eevdf`] (`eevdf.rs`).
    #[cfg(feature = "eevdf")]
    Eevdf(EevdfQueue),
}

/// The fair run queue: a min-heap of entries keyed by `(cpu_time_ns, seq)`, each packed into one
/// `u128` (CPU time in the high 64 bits, the sequence number biased by 2^39 in the next 48, the
/// thread in the low 16), so comparing two entries is one integer comparison.
#[derive(Clone, Debug, Default)]
pub(super) struct FairQueue {
    heap: BinaryHeap<Reverse<u128>>,
    /// The sequence numbers the next `push_front` and `push_back` take.
    front: i64,
    back: i64,
}

const SEQ_BIAS: i64 = 1 << 39;

impl FairQueue {
    fn insert(&mut self, key: u64, seq: i64, tid: u16) {
        let seq = (seq + SEQ_BIAS) as u128 & ((1 << 48) - 1);
        self.heap
            .push(Reverse((key as u128) << 64 | seq << 16 | tid as u128));
    }
    /// The entries in key order (for equality and hashing: a heap's layout depends on its history).
    fn sorted(&self) -> Vec<u128> {
        let mut v: Vec<u128> = self.heap.iter().map(|r| r.0).collect();
        v.sort_unstable();
        v
    }
}

impl PartialEq for FairQueue {
    fn eq(&self, o: &Self) -> bool {
        self.front == o.front && self.back == o.back && self.sorted() == o.sorted()
    }
}

impl Eq for FairQueue {}

impl Hash for FairQueue {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.front, self.back, self.sorted()).hash(h);
    }
}

impl RunQueue {
    /// An empty run queue for `policy`.
    pub(super) fn new(policy: SchedPolicy) -> Self {
        match policy {
            SchedPolicy::Fifo => RunQueue::Fifo(VecDeque::new()),
            #[cfg(feature = "eevdf")]
            SchedPolicy::Eevdf => RunQueue::Eevdf(EevdfQueue::default()),
            // (without the feature a world never keeps `Eevdf`: `Simulation::new` makes it fair)
            #[cfg(not(feature = "eevdf"))]
            SchedPolicy::Eevdf => RunQueue::Fair(FairQueue::default()),
            SchedPolicy::Fair => RunQueue::Fair(FairQueue::default()),
        }
    }
    /// Whether no thread waits.
    pub(super) fn is_empty(&self) -> bool {
        match self {
            RunQueue::Fifo(q) => q.is_empty(),
            RunQueue::Fair(f) => f.heap.is_empty(),
            #[cfg(feature = "eevdf")]
            RunQueue::Eevdf(q) => q.is_empty(),
        }
    }
    /// Queue `tid` (which has used `cpu_ns` of CPU time) at the back.
    pub(super) fn push_back(&mut self, tid: u16, cpu_ns: u64) {
        match self {
            RunQueue::Fifo(q) => q.push_back(tid),
            RunQueue::Fair(f) => {
                let seq = f.back;
                f.back += 1;
                f.insert(cpu_ns, seq, tid);
            }
            #[cfg(feature = "eevdf")]
            RunQueue::Eevdf(q) => q.insert(tid, Entry::setup(cpu_ns)),
        }
    }
    /// Queue `tid` (which has used `cpu_ns` of CPU time) at the front.
    pub(super) fn push_front(&mut self, tid: u16, cpu_ns: u64) {
        match self {
            RunQueue::Fifo(q) => q.push_front(tid),
            RunQueue::Fair(f) => {
                f.front -= 1;
                let seq = f.front;
                f.insert(cpu_ns, seq, tid);
            }
            #[cfg(feature = "eevdf")]
            RunQueue::Eevdf(q) => q.insert(tid, Entry::setup(cpu_ns)),
        }
    }
    /// Take `tid` out, wherever it is.
    pub(super) fn remove(&mut self, tid: u16) {
        match self {
            RunQueue::Fifo(q) => q.retain(|&x| x != tid),
            RunQueue::Fair(f) => f.heap.retain(|e| e.0 as u16 != tid),
            #[cfg(feature = "eevdf")]
            RunQueue::Eevdf(q) => {
                q.remove(tid);
            }
        }
    }
    /// The next thread to run: the front (FIFO), or the one that has used the least CPU time
    /// (fair; ties: the front-most).
    pub(super) fn pop_next(&mut self) -> Option<u16> {
        match self {
            RunQueue::Fifo(q) => q.pop_front(),
            RunQueue::Fair(f) => f.heap.pop().map(|e| e.0 as u16),
            #[cfg(feature = "eevdf")]
            RunQueue::Eevdf(q) => {
                let t = q.pick(None)?;
                q.remove(t);
                Some(t)
            }
        }
    }
    /// The threads, front first.
    pub(super) fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        // (the thread in the low 16 bits)
        let low = |e: u64| e as u16;
        let (fifo, fair) = match self {
            RunQueue::Fifo(q) => (Some(q.iter().copied()), None),
            RunQueue::Fair(f) => {
                // queue order is sequence order: the 48 bits above the thread
                let mut v: Vec<u64> = f.heap.iter().map(|e| e.0 as u64).collect();
                v.sort_unstable();
                (None, Some(v.into_iter().map(low)))
            }
            #[cfg(feature = "eevdf")]
            RunQueue::Eevdf(q) => {
                let v: Vec<u64> = q.iter().map(u64::from).collect();
                (None, Some(v.into_iter().map(low)))
            }
        };
        fifo.into_iter().flatten().chain(fair.into_iter().flatten())
    }
}

/// Up to this many leaves, [`RunAt::flush`] scans the leaves instead of replaying matches.
const SCAN_MAX: usize = 8;

/// The low bits of a [`RunAt`] key: the CPU (up to 256 CPUs, the most a world has: `u8` CPUs and
/// the producer's own).
const CPU_BITS: u32 = 8;

/// The latest clock a [`RunAt`] key holds exactly (about 2.3 years of simulated time); a later
/// clock is held as this one, and [`RunAt::earliest`] then reads the exact clocks instead.
const CLOCK_CAP: u64 = (1 << (64 - CPU_BITS)) - 2;

/// A leaf's key: the clock above the CPU, so that the lesser of two keys is the earlier clock, ties
/// to the lower CPU, in one `u64` comparison; `u64::MAX` for an idle CPU (greater than every key
/// of a running one).
#[inline(always)]
fn key(t: u64, cpu: usize) -> u64 {
    if t == u64::MAX {
        u64::MAX
    } else {
        t.min(CLOCK_CAP) << CPU_BITS | cpu as u64
    }
}

/// Per CPU: its clock while it runs a thread, `u64::MAX` while idle, kept as the leaves of a
/// tournament tree whose every inner node holds the earlier of its two children (ties: the left,
/// lower-numbered one). The root is then the running CPU with the earliest clock, ties to the
/// lowest CPU, exactly what a scan of the leaves finds, without a scan on every step.
///
/// The tree holds keys ([`key`]): the clock in the high bits and the CPU in the low
/// [`CPU_BITS`], so a match is one `u64` comparison (the lower CPU wins a tie by its bits) and a
/// node is one word. A clock past [`CLOCK_CAP`] is held as the cap; [`RunAt::earliest`] finds a
/// capped root, which only happens once every running CPU is past the cap, and then scans the
/// exact clocks (`clock`), so the answer is exact at any clock.
///
/// A step may move a CPU's clock several times (its cost, a context switch, a wakeup): a change
/// only writes its leaf and marks it, and [`RunAt::flush`], once at the end of the step, replays the
/// log2(CPUs) matches above each marked leaf. [`RunAt::earliest`] reads a flushed tree.
///
/// Node `k`'s children are `2k` and `2k + 1`; the leaves are `p..p + n` (`p`, the number of
/// leaves, is `n` rounded up to a power of two; the spare leaves are idle CPUs that never run).
///
/// Up to [`SCAN_MAX`] leaves there are no matches to replay: the flush scans the leaves once,
/// branch-free (7 `min`s for 8 leaves), and writes only the root (the inner nodes stay unused).
/// Almost every step marks one leaf only (the stepping CPU's: the herd at 64 workers on 8 CPUs
/// marks 1.04 a step, a wake walk several), and the scan costs about what one climb of 3 matches
/// and its loop cost.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct RunAt {
    /// The index of the first leaf.
    p: usize,
    /// The key per node; entry 0 is unused.
    node: Vec<u64>,
    /// The exact clock per leaf (`u64::MAX`: idle).
    clock: Vec<u64>,
    /// Bit `c`: CPU `c`'s leaf changed since the last flush (CPUs from 64 up replay at once).
    dirty: u64,
}

impl RunAt {
    /// A tree over these leaves (one per CPU).
    pub(super) fn new(leaves: &[u64]) -> Self {
        let p = leaves.len().max(1).next_power_of_two();
        let clock: Vec<u64> = (0..p)
            .map(|i| leaves.get(i).copied().unwrap_or(u64::MAX))
            .collect();
        let mut node = vec![u64::MAX; 2 * p];
        for (i, &t) in clock.iter().enumerate() {
            node[p + i] = key(t, i);
        }
        let mut tree = RunAt {
            p,
            node,
            clock,
            dirty: 0,
        };
        if p <= SCAN_MAX {
            tree.node[1] = tree.scan();
        } else {
            for k in (1..p).rev() {
                tree.node[k] = tree.node[2 * k].min(tree.node[2 * k + 1]);
            }
        }
        tree
    }

    /// The least leaf key (`u64::MAX` when every CPU is idle). `p` is 1, 2, 4 or 8 here.
    #[inline]
    fn scan(&self) -> u64 {
        let leaves = &self.node[self.p..];
        match self.p {
            1 => scan_leaves::<1>(leaves),
            2 => scan_leaves::<2>(leaves),
            4 => scan_leaves::<4>(leaves),
            _ => scan_leaves::<8>(leaves),
        }
    }

    /// CPU `cpu`'s leaf.
    #[inline]
    pub(super) fn get(&self, cpu: usize) -> u64 {
        self.clock[cpu]
    }

    /// Set CPU `cpu`'s leaf; the tree above it is brought up to date by the next flush.
    #[inline]
    pub(super) fn set(&mut self, cpu: usize, t: u64) {
        self.clock[cpu] = t;
        self.node[self.p + cpu] = key(t, cpu);
        if cpu < 64 {
            self.dirty |= 1 << cpu;
        } else {
            self.replay(cpu);
        }
    }

    /// Replay the matches above every leaf changed since the last flush. Out of line: one copy
    /// of the unrolled scan in the site's wasm, not one in every caller of the step's end (the
    /// main wasm's size budget); natively the compiler kept it out of line anyway.
    #[inline(never)]
    pub(super) fn flush(&mut self) {
        if self.p <= SCAN_MAX {
            if self.dirty != 0 {
                self.dirty = 0;
                self.node[1] = self.scan();
            }
            return;
        }
        while self.dirty != 0 {
            let cpu = self.dirty.trailing_zeros() as usize;
            self.dirty &= self.dirty - 1;
            self.replay(cpu);
        }
    }

    /// Replay the matches above CPU `cpu`'s leaf: the leaf's key climbs in a register and meets
    /// only its siblings.
    #[inline]
    fn replay(&mut self, cpu: usize) {
        let mut k = self.p + cpu;
        let mut cur = self.node[k];
        while k > 1 {
            cur = cur.min(self.node[k ^ 1]);
            k >>= 1;
            self.node[k] = cur;
        }
    }

    /// The running CPU with the earliest clock (ties: the lowest) and that clock; `None` when
    /// every CPU is idle. The tree must be flushed.
    #[inline]
    pub(super) fn earliest(&self) -> Option<(u64, usize)> {
        debug_assert_eq!(self.dirty, 0, "RunAt read before a flush");
        let k = self.node[1];
        if k == u64::MAX {
            return None;
        }
        let t = k >> CPU_BITS;
        if t >= CLOCK_CAP {
            return self.earliest_exact();
        }
        Some((t, (k & ((1 << CPU_BITS) - 1)) as usize))
    }

    /// [`RunAt::earliest`] by a scan of the exact clocks, once every running CPU is past
    /// [`CLOCK_CAP`].
    #[cold]
    #[inline(never)]
    fn earliest_exact(&self) -> Option<(u64, usize)> {
        let mut best: Option<(u64, usize)> = None;
        for (i, &t) in self.clock.iter().enumerate() {
            if t != u64::MAX && best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, i));
            }
        }
        best
    }
}

/// The least of the `N` leaf keys, by the same matches as the tree, played all at once; `N` is a
/// constant so that the matches unroll into straight-line code (each a `min`, a compare and a
/// select, no branch).
#[inline(always)]
fn scan_leaves<const N: usize>(leaves: &[u64]) -> u64 {
    let leaves: &[u64; N] = leaves.try_into().expect("N leaves");
    let mut t: [u64; N] = *leaves;
    let mut n = N;
    while n > 1 {
        n /= 2;
        for i in 0..n {
            t[i] = t[2 * i].min(t[2 * i + 1]);
        }
    }
    t[0]
}

impl Cpu {
    /// The thread it runs.
    pub fn current(&self) -> Option<u16> {
        self.current
    }
    /// Its run queue, front first.
    pub fn run_queue(&self) -> impl Iterator<Item = u16> + '_ {
        self.runq.iter()
    }
    /// Its clock.
    pub fn clock_ns(&self) -> u64 {
        self.clock
    }
}

/// How a CPU chooses among runnable threads (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SchedPolicy {
    /// FIFO run queues, no wakeup preemption.
    #[default]
    Fifo,
    /// Least CPU time first, with CFS-style wakeup preemption.
    Fair,
    /// Linux's fair class since 6.6: Earliest Eligible Virtual Deadline First, with lag kept over
    /// sleep and delayed dequeue (`eevdf.rs`).
    Eevdf,
}

impl SchedPolicy {
    /// Every policy's name, as scenarios spell it.
    pub const NAMES: [&'static str; 3] = ["fifo", "fair", "eevdf"];
    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            SchedPolicy::Fifo => "fifo",
            SchedPolicy::Fair => "fair",
            SchedPolicy::Eevdf => "eevdf",
        }
    }
    /// The policy named `s`.
    ///
    /// ```
    /// use herdlab_core::sim::SchedPolicy;
    /// assert_eq!(SchedPolicy::from_name("eevdf"), Some(SchedPolicy::Eevdf));
    /// assert_eq!(SchedPolicy::from_name("cfs"), None);
    /// ```
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "fifo" => SchedPolicy::Fifo,
            "fair" => SchedPolicy::Fair,
            "eevdf" => SchedPolicy::Eevdf,
            _ => return None,
        })
    }
}

/// CFS's wakeup granularity for `cpus` CPUs: 1 ms × (1 + log2(min(cpus, 8)))
/// (`sysctl_sched_wakeup_granularity`, scaled by `SCHED_TUNABLESCALING_LOG`).
///
/// ```
/// use herdlab_core::sim::wakeup_granularity_ns as g;
/// assert_eq!([g(1), g(2), g(4), g(8), g(16)], [1_000_000, 2_000_000, 3_000_000, 4_000_000, 4_000_000]);
/// ```
pub fn wakeup_granularity_ns(cpus: u8) -> u64 {
    let n = cpus.clamp(1, 8) as u32;
    1_000_000 * (1 + (31 - n.leading_zeros()) as u64)
}

impl<M: Machine> Simulation<M> {
    /// The CPU time thread `tid` has used: its key in a fair run queue.
    fn cpu_ns(&self, tid: u16) -> u64 {
        self.threads[tid as usize].metrics.busy_ns
    }

    /// Queue `tid` at the back of `cpu`'s run queue.
    pub(in crate::sim) fn enqueue_back(&mut self, cpu: u8, tid: u16) {
        #[cfg(feature = "eevdf")]
        if self.policy == SchedPolicy::Eevdf {
            return self.eev_enqueue(cpu, tid);
        }
        let key = self.cpu_ns(tid);
        self.cpus[cpu as usize].runq.push_back(tid, key);
    }

    /// Queue `tid` at the front of `cpu`'s run queue.
    fn enqueue_front(&mut self, cpu: u8, tid: u16) {
        #[cfg(feature = "eevdf")]
        if self.policy == SchedPolicy::Eevdf {
            return self.eev_enqueue(cpu, tid);
        }
        let key = self.cpu_ns(tid);
        self.cpus[cpu as usize].runq.push_front(tid, key);
    }

    /// Put a woken thread on a CPU at time `at` (the waker's time).
    pub(in crate::sim) fn wake_thread(&mut self, tid: u16, at: u64, counted: bool) {
        let prev = self.threads[tid as usize].cpu as usize;
        let idle = |c: &Cpu| c.current.is_none() && c.runq.is_empty();
        // (the load generator's own CPUs, if it has any, are no other thread's)
        let h = self.harness_cpu.map(usize::from);
        // (EEVDF: a thread asleep delayed is still queued; on one CPU it wakes where it is)
        #[cfg(feature = "eevdf")]
        let delayed = self.policy == SchedPolicy::Eevdf && self.eev_wake_delayed(prev as u8, tid);
        #[cfg(not(feature = "eevdf"))]
        let delayed = false;
        let target = if delayed {
            None
        } else if idle(&self.cpus[prev]) {
            Some(prev)
        } else if h.is_some_and(|h| prev >= h) {
            None
        } else {
            match h {
                // (the common case: no CPU set apart, the plain search)
                None => self.cpus.iter().position(idle),
                Some(h) => (0..h).find(|&i| idle(&self.cpus[i])),
            }
        };
        let was_worker_sleep = self.threads[tid as usize].role == Role::Worker
            && self.threads[tid as usize].sleep == SleepKind::Work;
        if self.event_sleeper == Some(tid) {
            self.event_sleeper = None;
        }
        {
            let t = &mut self.threads[tid as usize];
            t.sleep = SleepKind::None;
            t.empty_handed = false;
            if counted {
                t.woken_since_work = true;
                t.metrics.wakeups += 1;
            }
        }
        if was_worker_sleep {
            self.asleep_workers -= 1;
            self.idle_since = None;
        }
        if counted {
            self.metrics.wakeups += 1;
        }
        match target {
            Some(c) => {
                #[cfg(feature = "wake-ipi")]
                {
                    self.idle_wakes += 1;
                }
                let cs = self.cost.context_switch_ns;
                let lat = self.cost.cross_cpu_wake_ns;
                let cpu = &mut self.cpus[c];
                cpu.current = Some(tid);
                cpu.clock = cpu.clock.max(at + lat) + cs;
                cpu.slice_start = cpu.clock;
                self.metrics.cpu_time_ns += cs;
                if cpu.clock > self.metrics.sim_time_ns {
                    self.metrics.sim_time_ns = cpu.clock;
                }
                let t = &mut self.threads[tid as usize];
                t.sched = Sched::OnCpu;
                t.cpu = c as u8;
                #[cfg(feature = "eevdf")]
                if self.policy == SchedPolicy::Eevdf {
                    self.eev_place(c as u8, tid, false);
                }
                self.sync_cpu(c);
            }
            #[cfg(feature = "eevdf")]
            None if self.policy == SchedPolicy::Eevdf => {
                if delayed {
                    self.eev_requeue(prev as u8, tid);
                } else {
                    self.eev_place(prev as u8, tid, true);
                }
                self.threads[tid as usize].sched = Sched::Queued;
                self.eev_preempt_on_wake(prev as u8, tid, at);
            }
            None => {
                self.enqueue_back(prev as u8, tid);
                self.threads[tid as usize].sched = Sched::Queued;
                self.maybe_preempt_on_wake(prev as u8, tid, at);
            }
        }
    }

    /// [`SchedPolicy::Fair`]: the woken thread `tid`, queued on `cpu`, preempts the running thread
    /// when it has used at least the wakeup granularity less CPU time.
    fn maybe_preempt_on_wake(&mut self, cpu: u8, tid: u16, at: u64) {
        if self.policy != SchedPolicy::Fair {
            return;
        }
        let Some(cur) = self.cpus[cpu as usize].current else {
            return;
        };
        let woken = self.threads[tid as usize].metrics.busy_ns;
        let running = self.threads[cur as usize].metrics.busy_ns;
        if woken + self.wakeup_gran_ns >= running {
            return;
        }
        self.cpus[cpu as usize].runq.remove(tid);
        self.enqueue_front(cpu, cur);
        self.switch_on_wake(cpu, cur, tid, at);
    }

    /// The woken thread `tid` (out of the queue) preempts `cpu`'s running thread `cur` (queued).
    #[inline(always)]
    pub(in crate::sim) fn switch_on_wake(&mut self, cpu: u8, cur: u16, tid: u16, at: u64) {
        let cs = self.cost.context_switch_ns;
        let c = &mut self.cpus[cpu as usize];
        c.current = Some(tid);
        c.clock = c.clock.max(at) + cs;
        c.slice_start = c.clock;
        let clock = c.clock;
        self.metrics.cpu_time_ns += cs;
        self.metrics.context_switches += 1;
        self.threads[cur as usize].metrics.involuntary_switches += 1;
        self.metrics.sim_time_ns = self.metrics.sim_time_ns.max(clock);
        self.threads[cur as usize].sched = Sched::Queued;
        self.threads[tid as usize].sched = Sched::OnCpu;
        self.sync_cpu(cpu as usize);
    }

    /// The next thread `cpu` runs from its run queue: the front (FIFO), or the one that has used the
    /// least CPU time (fair; ties: the front-most).
    pub(in crate::sim) fn pop_next(&mut self, cpu: u8) -> Option<u16> {
        #[cfg(feature = "eevdf")]
        if self.policy == SchedPolicy::Eevdf {
            return self.eev_pop(cpu);
        }
        self.cpus[cpu as usize].runq.pop_next()
    }

    /// The running thread `tid` leaves its CPU to sleep.
    pub(in crate::sim) fn block(&mut self, tid: u16, kind: SleepKind) {
        let wasted = {
            let t = &mut self.threads[tid as usize];
            t.sched = Sched::Asleep;
            t.sleep = kind;
            let wasted = kind == SleepKind::Work && t.woken_since_work;
            if kind == SleepKind::Work {
                t.woken_since_work = false;
                if wasted {
                    t.metrics.wasted_wakeups += 1;
                    // asleep again with nothing done: shown as "woken, found nothing"
                    t.empty_handed = true;
                }
            }
            wasted
        };
        if wasted {
            self.metrics.wasted_wakeups += 1;
        }
        if kind == SleepKind::Lock {
            self.metrics.lock_sleeps += 1;
        }
        if kind == SleepKind::Event {
            self.event_sleeper = Some(tid);
        }
        let cpu = self.threads[tid as usize].cpu;
        #[cfg(feature = "eevdf")]
        if self.policy == SchedPolicy::Eevdf {
            self.eev_block(cpu, tid);
        }
        let role = self.threads[tid as usize].role;
        if role == Role::Worker && kind == SleepKind::Work {
            self.asleep_workers += 1;
            if self.asleep_workers == self.workers {
                self.idle_since = Some(self.cpus[cpu as usize].clock);
            }
        }
        self.leave_cpu(cpu);
    }

    /// The CPU's current thread leaves it (asleep: a voluntary switch; queued: an involuntary
    /// one), and the CPU takes the next from its run queue.
    pub(in crate::sim) fn leave_cpu(&mut self, cpu: u8) {
        self.metrics.context_switches += 1;
        if let Some(out) = self.cpus[cpu as usize].current {
            let t = &mut self.threads[out as usize];
            if t.sched == Sched::Queued {
                t.metrics.involuntary_switches += 1;
            } else {
                t.metrics.voluntary_switches += 1;
            }
        }
        self.cpus[cpu as usize].current = None;
        if let Some(next) = self.pop_next(cpu) {
            let c = &mut self.cpus[cpu as usize];
            c.current = Some(next);
            self.threads[next as usize].sched = Sched::OnCpu;
            let cs = self.cost.context_switch_ns;
            self.charge(cpu, cs);
            self.cpus[cpu as usize].slice_start = self.cpus[cpu as usize].clock;
        }
        self.sync_cpu(cpu as usize);
    }

    /// The learner chose a queued thread: preempt its CPU's current thread and switch it in.
    pub(in crate::sim) fn switch_in(&mut self, tid: u16) {
        let cpu = self.threads[tid as usize].cpu;
        self.cpus[cpu as usize].runq.remove(tid);
        if let Some(cur) = self.cpus[cpu as usize].current.take() {
            self.enqueue_front(cpu, cur);
            self.threads[cur as usize].sched = Sched::Queued;
            self.threads[cur as usize].metrics.involuntary_switches += 1;
        }
        self.metrics.context_switches += 1;
        let c = &mut self.cpus[cpu as usize];
        c.current = Some(tid);
        self.threads[tid as usize].sched = Sched::OnCpu;
        let cs = self.cost.context_switch_ns;
        self.charge(cpu, cs);
        self.cpus[cpu as usize].slice_start = self.cpus[cpu as usize].clock;
    }

    pub(in crate::sim) fn maybe_preempt(&mut self, cpu: u8) {
        #[cfg(feature = "eevdf")]
        if self.policy == SchedPolicy::Eevdf {
            return self.eev_tick(cpu);
        }
        let slice = self.cost.time_slice_ns;
        let c = &self.cpus[cpu as usize];
        if let Some(cur) = c.current {
            if !c.runq.is_empty() && c.clock - c.slice_start >= slice {
                self.enqueue_back(cpu, cur);
                self.threads[cur as usize].sched = Sched::Queued;
                self.leave_cpu(cpu);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The scan the tree replaces: the least clock below `u64::MAX`, ties to the lowest CPU.
    fn scan(v: &[u64]) -> Option<(u64, usize)> {
        let (mut ct, mut ci) = (u64::MAX, usize::MAX);
        for (i, &t) in v.iter().enumerate() {
            if t < ct {
                (ct, ci) = (t, i);
            }
        }
        (ci != usize::MAX).then_some((ct, ci))
    }

    #[test]
    fn run_at_tree_finds_what_the_scan_found() {
        let mut rng = Rng::new(11);
        for n in 1..=13usize {
            let mut v: Vec<u64> = (0..n).map(|_| u64::MAX).collect();
            let mut tree = RunAt::new(&v);
            assert_eq!(tree.earliest(), None);
            for _ in 0..400 {
                let cpu = rng.below(n as u64) as usize;
                // small clocks so that ties are frequent; a quarter of the changes idle the CPU
                let t = if rng.below(4) == 0 {
                    u64::MAX
                } else {
                    rng.below(6)
                };
                v[cpu] = t;
                tree.set(cpu, t);
                assert_eq!(tree.get(cpu), t);
                // several changes may come between two flushes
                if rng.below(3) == 0 {
                    continue;
                }
                tree.flush();
                assert_eq!(tree.earliest(), scan(&v), "{v:?}");
                assert_eq!(RunAt::new(&v), tree, "a tree is a function of its leaves");
            }
        }
    }

    #[test]
    fn run_at_is_exact_past_the_clock_cap() {
        // clocks past the cap, equal ones among them, and ordinary ones, on 3 and 12 CPUs
        for n in [3usize, 12] {
            let big = [
                CLOCK_CAP - 1,
                CLOCK_CAP,
                CLOCK_CAP + 1,
                CLOCK_CAP + 7,
                u64::MAX - 1,
            ];
            let mut rng = Rng::new(5);
            let mut v: Vec<u64> = vec![u64::MAX; n];
            let mut tree = RunAt::new(&v);
            for _ in 0..500 {
                let cpu = rng.below(n as u64) as usize;
                let t = match rng.below(6) {
                    0 => u64::MAX,
                    1 => rng.below(4),
                    _ => big[rng.below(big.len() as u64) as usize],
                };
                v[cpu] = t;
                tree.set(cpu, t);
                tree.flush();
                assert_eq!(tree.earliest(), scan(&v), "{v:?}");
            }
        }
    }

    /// The scan the keyed queue replaces: a deque, and the least key first, ties to the front.
    #[derive(Default)]
    struct Scan(VecDeque<(u16, u64)>);

    impl Scan {
        fn pop(&mut self) -> Option<u16> {
            let i = self
                .0
                .iter()
                .enumerate()
                .min_by_key(|&(i, &(_, k))| (k, i))
                .map(|(i, _)| i)?;
            self.0.remove(i).map(|(t, _)| t)
        }
    }

    #[test]
    fn fair_ties_go_to_the_front_most() {
        let mut q = RunQueue::new(SchedPolicy::Fair);
        q.push_back(1, 5);
        q.push_back(2, 3);
        q.push_front(3, 3);
        q.push_back(4, 3);
        assert_eq!(q.iter().collect::<Vec<_>>(), [3, 1, 2, 4]);
        q.remove(2);
        assert_eq!(q.iter().collect::<Vec<_>>(), [3, 1, 4]);
        let order: Vec<u16> = std::iter::from_fn(|| q.pop_next()).collect();
        assert_eq!(order, [3, 4, 1]);
        assert!(q.is_empty());
    }

    #[test]
    fn fair_queue_pops_what_the_scan_popped() {
        let mut rng = Rng::new(7);
        for _ in 0..200 {
            let mut q = RunQueue::new(SchedPolicy::Fair);
            let mut scan = Scan::default();
            let mut next = 0u16;
            for _ in 0..60 {
                match rng.below(5) {
                    0 | 1 => {
                        let k = rng.below(4);
                        q.push_back(next, k);
                        scan.0.push_back((next, k));
                        next += 1;
                    }
                    2 => {
                        let k = rng.below(4);
                        q.push_front(next, k);
                        scan.0.push_front((next, k));
                        next += 1;
                    }
                    3 => {
                        if let Some(&(t, _)) = scan.0.get(rng.below(4) as usize) {
                            q.remove(t);
                            scan.0.retain(|&(x, _)| x != t);
                        }
                    }
                    _ => assert_eq!(q.pop_next(), scan.pop()),
                }
                let order: Vec<u16> = scan.0.iter().map(|&(t, _)| t).collect();
                assert_eq!(q.iter().collect::<Vec<_>>(), order);
            }
        }
    }
}
