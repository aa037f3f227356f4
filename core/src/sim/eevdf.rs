//! [`SchedPolicy::Eevdf`](super::SchedPolicy::Eevdf): Linux's fair class since 6.6, Earliest
//! Eligible Virtual Deadline First, as 6.12-6.18 run it for threads of equal weight (nice 0).
//!
//! # The model
//! Every thread has a *virtual runtime* `vr`, which grows with the CPU time it uses (equal weights:
//! one virtual nanosecond per nanosecond), and a *virtual deadline*. A CPU's *virtual time* `V` is
//! the average `vr` of the threads on its run queue, the running one included. A thread's *lag*
//! is `V − vr`: positive when it has had less than its share.
//!
//! | event | what happens (`kernel/sched/fair.c`) |
//! |---|---|
//! | pick | among the *eligible* threads (`vr ≤ V`, lag ≥ 0), the earliest deadline (`pick_eevdf`); ties to the lower thread |
//! | a thread is picked | it may run until `vr` reaches its deadline (`RUN_TO_PARITY`: `vprot` = the deadline; equal slices) |
//! | `vr` reaches the deadline | a new deadline `vr + slice` and a new pick, which may keep it (`update_deadline`) |
//! | sleep | the lag is saved, bounded by ±2 slices (`update_entity_lag`); a thread that sleeps with negative lag stays queued, *delayed*, counted in `V` but never run, until a pick meets it eligible and drops it with lag 0 (`DELAY_DEQUEUE`, `DELAY_ZERO`) |
//! | wakeup | placed at `vr = V − lag·(n+1)/n` for `n` threads already queued (`PLACE_LAG`), deadline `vr + slice` (`place_entity`); a delayed thread is requeued where it was, on its old CPU, with lag 0 if its lag has turned positive (`ttwu_runnable`, `requeue_delayed_entity`) |
//! | wakeup preemption | unless the running thread is eligible and inside its protected slice, the woken thread preempts it when a pick would choose the woken thread (`check_preempt_wakeup_fair`) |
//!
//! The slice is `sched_base_slice`, 0.75 ms × (1 + log2(min(CPUs, 8))), the same scaling as CFS's
//! wakeup granularity ([`super::wakeup_granularity_ns`] × 3/4). What it leaves out: weights, custom
//! slices and `PREEMPT_SHORT` (every thread has the same slice), the tick (a deadline is checked
//! after every step, not at the next tick), and load balancing (a thread changes CPU only when it
//! wakes, as everywhere in this simulator).
//!
//! # What it changes against [`SchedPolicy::Fair`](super::SchedPolicy::Fair)
//! The fair policy orders by the CPU time a thread has used in its whole life, so a thread that
//! happened to use more waits behind every other, however long it slept. Here a thread that slept
//! comes back at the CPU's virtual time, with at most its bounded lag, and its deadline is one
//! slice on: threads that wake to do a little work run roughly in the order they woke.
//!
//! # Invariants
//! - `sum` is the sum of `vr` over the queued entries, delayed ones included; `by_deadline` and
//!   `ents` hold the same threads.
//! - A delayed entry's thread is asleep; every other entry's thread is runnable and queued.
//! - A CPU with no running thread has no delayed entry (a pick drops the delayed entries it meets
//!   before the CPU goes idle).

use std::collections::{BTreeMap, BTreeSet};

use super::sched::RunQueue;
use super::{Sched, Simulation};
use crate::machine::Machine;

/// One queued thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Entry {
    /// Its virtual runtime.
    pub(super) vr: i64,
    /// Its virtual deadline.
    pub(super) deadline: i64,
    /// Asleep, queued only until a pick drops it (`DELAY_DEQUEUE`).
    pub(super) delayed: bool,
}

impl Entry {
    /// A thread queued at the setup, before [`Simulation::eev_init`] gives it its deadline.
    pub(super) fn setup(cpu_ns: u64) -> Self {
        Entry {
            vr: cpu_ns as i64,
            deadline: cpu_ns as i64,
            delayed: false,
        }
    }
}

/// A CPU's EEVDF run queue (the running thread is not in it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct EevdfQueue {
    /// The entries in pick order: deadline, then thread.
    by_deadline: BTreeSet<(i64, u16)>,
    ents: BTreeMap<u16, Entry>,
    /// The sum of the entries' `vr`.
    sum: i128,
    /// How many entries are delayed.
    delayed: u32,
    /// `V` when the queue last emptied, for a thread that wakes onto the idle CPU.
    pub(super) last_v: i64,
    /// The CPU's last tick (its clock ÷ [`TICK_NS`]) at which the deadline was checked.
    tick: u64,
    /// A reschedule is pending (`TIF_NEED_RESCHED`): taken after the running thread's step.
    resched: bool,
}

/// The most threads a world may have for debug builds to check the run queues after every step
/// (`Simulation::eev_check`): the check reads every thread and entry.
#[cfg(debug_assertions)]
const CHECKED_THREADS: usize = 128;

/// The scheduler tick: 4 ms, `CONFIG_HZ=250` (Debian's and Fedora's kernels, and the guest the
/// benchmarks were measured on).
pub const TICK_NS: u64 = 4_000_000;

impl EevdfQueue {
    /// Queue `tid`.
    pub(super) fn insert(&mut self, tid: u16, e: Entry) {
        self.by_deadline.insert((e.deadline, tid));
        self.sum += e.vr as i128;
        self.delayed += e.delayed as u32;
        if let Some(old) = self.ents.insert(tid, e) {
            // (a thread is queued once: replace, never count twice)
            self.by_deadline.remove(&(old.deadline, tid));
            self.sum -= old.vr as i128;
            self.delayed -= old.delayed as u32;
        }
    }
    /// Take `tid` out, if it is queued.
    pub(super) fn remove(&mut self, tid: u16) -> Option<Entry> {
        let e = self.ents.remove(&tid)?;
        self.by_deadline.remove(&(e.deadline, tid));
        self.sum -= e.vr as i128;
        self.delayed -= e.delayed as u32;
        if self.ents.is_empty() {
            self.last_v = e.vr;
        }
        Some(e)
    }
    /// `tid`'s entry.
    pub(super) fn get(&self, tid: u16) -> Option<&Entry> {
        self.ents.get(&tid)
    }
    /// Whether no runnable thread is queued (delayed entries are asleep).
    pub(super) fn is_empty(&self) -> bool {
        self.ents.len() as u32 == self.delayed
    }
    /// The sum of `vr` and the count of the threads on the queue, with the running thread's `vr`.
    pub(super) fn load(&self, cur: Option<i64>) -> (i128, i128) {
        let n = self.ents.len() as i128;
        match cur {
            Some(v) => (self.sum + v as i128, n + 1),
            None => (self.sum, n),
        }
    }
    /// `V` (the floor of the average), with the running thread's `vr`; `last_v` for an empty queue.
    pub(super) fn avg(&self, cur: Option<i64>) -> i64 {
        let (s, n) = self.load(cur);
        if n == 0 {
            self.last_v
        } else {
            s.div_euclid(n) as i64
        }
    }
    /// How many threads are on the queue, the running one (if `cur`) included.
    pub(super) fn count(&self, cur: bool) -> i64 {
        self.ents.len() as i64 + cur as i64
    }
    /// EEVDF's pick among the queued entries and the running thread `cur` (its `vr` and deadline,
    /// if it stays on the queue): the eligible entry with the earliest deadline (ties: a queued
    /// one before the running one, then the lower thread). `None`: the running thread (or nothing
    /// to run).
    pub(super) fn pick(&self, cur: Option<(i64, i64)>) -> Option<u16> {
        let (s, n) = self.load(cur.map(|c| c.0));
        let eligible = |vr: i64| (vr as i128) * n <= s;
        let best = self
            .by_deadline
            .iter()
            .find(|&&(_, t)| eligible(self.ents[&t].vr));
        match (best, cur) {
            (Some(&(d, _)), Some((cvr, cd))) if eligible(cvr) && cd < d => None,
            (Some(&(_, t)), _) => Some(t),
            // (none eligible but the running thread: it stays; an empty queue: nothing)
            (None, _) => None,
        }
    }
    /// The runnable entries in pick order (for the view: a delayed entry's thread is asleep).
    pub(super) fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.by_deadline
            .iter()
            .map(|&(_, t)| t)
            .filter(|t| !self.ents[t].delayed)
    }
}

/// A thread's EEVDF state while it is not in a queue (running or asleep); its `vr` is its CPU
/// time plus `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct EevThread {
    /// `vr` − the thread's CPU time (set when it is placed).
    off: i64,
    /// Its virtual deadline.
    deadline: i64,
    /// While it runs: the `vr` up to which a wakeup does not preempt it (`RUN_TO_PARITY`).
    vprot: i64,
    /// While it sleeps: its lag (`vlag`), replayed when it wakes.
    vlag: i64,
}

/// A switch takes the pending reschedule with it.
fn q_resched_clear(q: &mut EevdfQueue) {
    q.resched = false;
}

impl<M: Machine> Simulation<M> {
    /// `sched_base_slice` for this world's CPUs (see the module docs).
    fn eev_slice(&self) -> i64 {
        (self.wakeup_gran_ns / 10 * 7) as i64
    }
    /// Thread `tid`'s virtual runtime.
    fn eev_vr(&self, tid: u16) -> i64 {
        self.threads[tid as usize].metrics.busy_ns as i64 + self.eev[tid as usize].off
    }
    fn eev_q(&self, cpu: u8) -> &EevdfQueue {
        match &self.cpus[cpu as usize].runq {
            RunQueue::Eevdf(q) => q,
            _ => unreachable!("an EEVDF thread on a CPU of another policy"),
        }
    }
    fn eev_q_mut(&mut self, cpu: u8) -> &mut EevdfQueue {
        match &mut self.cpus[cpu as usize].runq {
            RunQueue::Eevdf(q) => q,
            _ => unreachable!("an EEVDF thread on a CPU of another policy"),
        }
    }
    /// The running thread of `cpu` and its `(vr, deadline)`.
    fn eev_cur(&self, cpu: u8) -> Option<(u16, (i64, i64))> {
        let c = self.cpus[cpu as usize].current?;
        Some((c, (self.eev_vr(c), self.eev[c as usize].deadline)))
    }

    /// The setup: every thread at `vr` 0 with a full slice, the queued ones in their queues.
    pub(super) fn eev_init(&mut self) {
        let slice = self.eev_slice();
        let t = EevThread {
            off: 0,
            deadline: slice,
            vprot: slice,
            vlag: 0,
        };
        self.eev = vec![t; self.threads.len()];
        for c in 0..self.cpus.len() {
            let queued: Vec<u16> = self.cpus[c].runq.iter().collect();
            let mut q = EevdfQueue::default();
            for tid in queued {
                q.insert(
                    tid,
                    Entry {
                        vr: 0,
                        deadline: slice,
                        delayed: false,
                    },
                );
            }
            self.cpus[c].runq = RunQueue::Eevdf(q);
        }
    }

    /// In debug builds: the run queues and the threads agree (the module's invariants). After
    /// every step, for worlds of up to [`CHECKED_THREADS`] threads (a check reads them all).
    #[cfg(debug_assertions)]
    pub(super) fn eev_check(&self) {
        if self.policy != super::SchedPolicy::Eevdf || self.threads.len() > CHECKED_THREADS {
            return;
        }
        for (c, cpu) in self.cpus.iter().enumerate() {
            let q = self.eev_q(c as u8);
            let mut sum = 0i128;
            for (&t, e) in &q.ents {
                let th = &self.threads[t as usize];
                assert_eq!(
                    th.cpu as usize, c,
                    "thread {t} queued on CPU {c}, placed on {}",
                    th.cpu
                );
                let want = if e.delayed {
                    Sched::Asleep
                } else {
                    Sched::Queued
                };
                assert_eq!(
                    th.sched, want,
                    "thread {t} on CPU {c} (delayed: {})",
                    e.delayed
                );
                assert!(q.by_deadline.contains(&(e.deadline, t)));
                sum += e.vr as i128;
            }
            assert_eq!(sum, q.sum);
            assert_eq!(q.by_deadline.len(), q.ents.len());
            assert_eq!(
                q.delayed as usize,
                q.ents.values().filter(|e| e.delayed).count()
            );
            if cpu.current.is_none() {
                assert!(q.ents.is_empty(), "CPU {c} idle with queued entries");
            }
        }
        for (t, th) in self.threads.iter().enumerate() {
            let queued = self.eev_q(th.cpu).get(t as u16).is_some();
            match th.sched {
                Sched::Queued => assert!(queued, "thread {t} queued but in no queue"),
                Sched::OnCpu => assert_eq!(self.cpus[th.cpu as usize].current, Some(t as u16)),
                Sched::Done => assert!(!queued),
                Sched::Asleep => {}
            }
        }
    }

    /// Queue the runnable thread `tid`, which leaves `cpu` (preempted, yielding, switched out), as
    /// it is: its `vr` and deadline kept.
    pub(super) fn eev_enqueue(&mut self, cpu: u8, tid: u16) {
        let e = Entry {
            vr: self.eev_vr(tid),
            deadline: self.eev[tid as usize].deadline,
            delayed: false,
        };
        self.eev_q_mut(cpu).insert(tid, e);
    }

    /// Place the woken thread `tid` on `cpu` by its lag: into the queue (`queued`), or as the
    /// idle CPU's running thread.
    pub(super) fn eev_place(&mut self, cpu: u8, tid: u16, queued: bool) {
        let cur = if queued {
            self.eev_cur(cpu).map(|c| c.1 .0)
        } else {
            None
        };
        let q = self.eev_q(cpu);
        let (v, n) = (q.avg(cur), q.count(cur.is_some()));
        let mut lag = self.eev[tid as usize].vlag;
        if n > 0 {
            lag = lag * (n + 1) / n;
        }
        let vr = v - lag;
        let deadline = vr + self.eev_slice();
        let busy = self.threads[tid as usize].metrics.busy_ns as i64;
        let t = &mut self.eev[tid as usize];
        t.off = vr - busy;
        t.deadline = deadline;
        t.vprot = deadline;
        if queued {
            self.eev_q_mut(cpu).insert(
                tid,
                Entry {
                    vr,
                    deadline,
                    delayed: false,
                },
            );
        }
    }

    /// `tid` wakes: whether it sleeps delayed in `cpu`'s queue and stays there to be requeued
    /// ([`Simulation::eev_requeue`]). With more than one CPU for it, a delayed thread leaves the
    /// queue instead, with its lag (positive lag cut to 0, `DELAY_ZERO`), and wakes as any other
    /// (`ttwu_runnable` since 6.13: a delayed task that could run elsewhere is dequeued and goes
    /// through `select_task_rq`); `false` then.
    pub(super) fn eev_wake_delayed(&mut self, cpu: u8, tid: u16) -> bool {
        if !self.eev_q(cpu).get(tid).is_some_and(|e| e.delayed) {
            return false;
        }
        let cpus = self.harness_cpu.map_or(self.cpus.len(), usize::from);
        if cpus <= 1 {
            return true;
        }
        let cur = self.eev_cur(cpu).map(|c| c.1 .0);
        let q = self.eev_q_mut(cpu);
        let v = q.avg(cur);
        let e = q.remove(tid).expect("a delayed thread is queued");
        let limit = 2 * self.eev_slice();
        self.eev[tid as usize].vlag = (v - e.vr).clamp(-limit, 0);
        false
    }

    /// Wake `tid`, asleep delayed in `cpu`'s queue: runnable again where it is, with lag 0 if its
    /// lag has turned positive (`DELAY_ZERO`), its `vr` and deadline kept otherwise.
    pub(super) fn eev_requeue(&mut self, cpu: u8, tid: u16) {
        let cur = self.eev_cur(cpu).map(|c| c.1 .0);
        let q = self.eev_q_mut(cpu);
        let v = q.avg(cur);
        let mut e = q.remove(tid).expect("a delayed thread is queued");
        if v < e.vr {
            e.delayed = false;
            q.insert(tid, e);
            let busy = self.threads[tid as usize].metrics.busy_ns as i64;
            let t = &mut self.eev[tid as usize];
            t.off = e.vr - busy;
            t.deadline = e.deadline;
        } else {
            self.eev[tid as usize].vlag = 0;
            self.eev_place(cpu, tid, true);
        }
    }

    /// The running thread `tid` of `cpu` goes to sleep: its lag saved, or, negative, kept in the
    /// queue as a delayed entry.
    pub(super) fn eev_block(&mut self, cpu: u8, tid: u16) {
        let vr = self.eev_vr(tid);
        let limit = 2 * self.eev_slice();
        // (`dequeue_entity` runs `update_curr` first: a deadline passed gets its successor)
        let mut deadline = self.eev[tid as usize].deadline;
        if vr >= deadline {
            deadline = vr + self.eev_slice();
            self.eev[tid as usize].deadline = deadline;
        }
        let q = self.eev_q_mut(cpu);
        let v = q.avg(Some(vr));
        q.last_v = v;
        let lag = (v - vr).clamp(-limit, limit);
        if lag < 0 {
            q.insert(
                tid,
                Entry {
                    vr,
                    deadline,
                    delayed: true,
                },
            );
        } else {
            self.eev[tid as usize].vlag = lag;
        }
    }

    /// The next thread `cpu` runs (its running thread has left): EEVDF's pick, dropping the
    /// delayed entries it meets (lag 0 from then on), and the picked thread's slice protected.
    pub(super) fn eev_pop(&mut self, cpu: u8) -> Option<u16> {
        loop {
            let q = self.eev_q_mut(cpu);
            let tid = q.pick(None)?;
            let e = q.remove(tid).expect("the pick is queued");
            if e.delayed {
                self.eev[tid as usize].vlag = 0;
                continue;
            }
            let t = &mut self.eev[tid as usize];
            t.deadline = e.deadline;
            t.vprot = e.deadline;
            q_resched_clear(self.eev_q_mut(cpu));
            return Some(tid);
        }
    }

    /// `update_curr`'s deadline check for `cpu`'s running thread: once its `vr` has reached its
    /// deadline it gets a new one, and the CPU a pending reschedule.
    fn eev_update_curr(&mut self, cpu: u8) {
        let Some((cur, (vr, deadline))) = self.eev_cur(cpu) else {
            return;
        };
        if vr < deadline {
            return;
        }
        let d = vr + self.eev_slice();
        let t = &mut self.eev[cur as usize];
        t.deadline = d;
        t.vprot = d;
        self.eev_q_mut(cpu).resched = true;
    }

    /// After a step of `cpu`'s running thread: at a tick (every [`TICK_NS`] of the CPU's clock)
    /// the deadline check; then a pending reschedule: a new pick, which may keep the thread or
    /// switch to a queued one.
    pub(super) fn eev_tick(&mut self, cpu: u8) {
        let tick = self.cpus[cpu as usize].clock / TICK_NS;
        let q = self.eev_q_mut(cpu);
        if tick != q.tick {
            q.tick = tick;
            self.eev_update_curr(cpu);
        }
        let q = self.eev_q_mut(cpu);
        if !std::mem::take(&mut q.resched) {
            return;
        }
        let Some((cur, c)) = self.eev_cur(cpu) else {
            return;
        };
        loop {
            let q = self.eev_q_mut(cpu);
            match q.pick(Some(c)) {
                None => return,
                Some(t) if q.get(t).is_some_and(|e| e.delayed) => {
                    q.remove(t);
                    self.eev[t as usize].vlag = 0;
                }
                Some(_) => break,
            }
        }
        self.eev_enqueue(cpu, cur);
        self.threads[cur as usize].sched = Sched::Queued;
        self.leave_cpu(cpu);
    }

    /// The woken thread `tid`, queued on `cpu`: the deadline check of the running thread, then
    /// `tid` preempts it when it is not inside its protected slice (or is no longer eligible) and
    /// a pick would choose `tid`.
    pub(super) fn eev_preempt_on_wake(&mut self, cpu: u8, tid: u16, at: u64) {
        self.eev_update_curr(cpu);
        let Some((cur, (vr, deadline))) = self.eev_cur(cpu) else {
            return;
        };
        let q = self.eev_q(cpu);
        let (s, n) = q.load(Some(vr));
        let eligible = (vr as i128) * n <= s;
        if eligible && vr < self.eev[cur as usize].vprot {
            return;
        }
        if q.pick(Some((vr, deadline))) != Some(tid) {
            return;
        }
        let e = self
            .eev_q_mut(cpu)
            .remove(tid)
            .expect("the woken thread is queued");
        let t = &mut self.eev[tid as usize];
        t.deadline = e.deadline;
        t.vprot = e.deadline;
        self.eev_enqueue(cpu, cur);
        self.switch_on_wake(cpu, cur, tid, at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(vr: i64, deadline: i64) -> Entry {
        Entry {
            vr,
            deadline,
            delayed: false,
        }
    }

    #[test]
    fn the_pick_is_the_eligible_entry_with_the_earliest_deadline() {
        let mut q = EevdfQueue::default();
        q.insert(1, e(0, 10));
        q.insert(2, e(5, 3));
        // the earliest deadline, but far ahead of V (25 / 3): not eligible
        q.insert(3, e(20, 1));
        assert_eq!(q.avg(None), 8);
        assert_eq!(q.pick(None), Some(2));
        // a running thread with an earlier deadline keeps the CPU; on a tie the queued one wins
        assert_eq!(q.pick(Some((2, 2))), None);
        assert_eq!(q.pick(Some((2, 3))), Some(2));
        // a running thread that is not eligible is not picked, whatever its deadline
        assert_eq!(q.pick(Some((40, 0))), Some(2));
        assert_eq!(q.iter().collect::<Vec<_>>(), [3, 2, 1]);
    }

    #[test]
    fn sums_and_counts_follow_inserts_and_removals() {
        let mut q = EevdfQueue::default();
        q.insert(1, e(4, 10));
        q.insert(2, e(6, 12));
        q.insert(2, e(8, 14)); // queued again: replaced, not counted twice
        assert_eq!(q.load(None), (12, 2));
        assert_eq!(q.load(Some(3)), (15, 3));
        q.insert(
            3,
            Entry {
                vr: 9,
                deadline: 2,
                delayed: true,
            },
        );
        assert_eq!(
            q.iter().collect::<Vec<_>>(),
            [1, 2],
            "a delayed thread is asleep"
        );
        assert!(!q.is_empty());
        q.remove(1);
        q.remove(2);
        assert!(q.is_empty(), "only a delayed entry left: nothing runnable");
        assert_eq!(q.load(None), (9, 1), "but it still counts in V");
        assert_eq!(q.remove(3).map(|e| e.delayed), Some(true));
        assert_eq!(q.remove(3), None);
        assert_eq!(q.last_v, 9, "V when the queue emptied");
        assert_eq!(q.avg(None), 9);
    }
}
