//! Words of shared memory: the one meaning of the memory operations.
//!
//! [`Words`] holds the words and its methods *are* the semantics of [`Op::Load`], [`Op::Store`],
//! [`Op::Cas`], [`Op::FetchAdd`] and [`Op::Swap`] on a platform whose memory is plain values: the
//! simulator ([`crate::sim::Simulation`], over a `Vec`) and the checker
//! ([`crate::check::CheckWorld`], over an inline array) both execute them here, so a schedule the
//! checker finds replays in the simulator with the same values. [`Words::exec`] answers an `Op` with
//! the [`OpResult`] the stepped form expects and an [`Access`] saying what happened (for notes,
//! counters and [`BusyTime`]).
//!
//! ```
//! use herdlab_core::op::{Op, OpResult, Word};
//! use herdlab_core::sim::Words;
//!
//! let mut m = Words::new([0u32; 2]);
//! let a = m.exec(Op::Cas { word: Word(1), expected: 0, new: 7 }).unwrap();
//! assert_eq!((a.result, a.old, a.new), (OpResult::Cas { ok: true, actual: 0 }, 0, 7));
//! let a = m.exec(Op::Cas { word: Word(1), expected: 0, new: 9 }).unwrap();
//! assert_eq!((a.result, a.ok, m.load(Word(1))), (OpResult::Cas { ok: false, actual: 7 }, false, 7));
//! assert_eq!(m.exec(Op::FetchAdd(Word(1), 1)).unwrap().result, OpResult::Value(7));
//! assert_eq!(m.exec(Op::Swap(Word(1), 0)).unwrap().result, OpResult::Value(8));
//! assert_eq!(m.exec(Op::Pause), None);
//! ```
//!
//! # Cache coherence ([`Coherence`], cargo feature `coherence`)
//! The simulator can also charge what a real CPU pays for a cache line another CPU wrote: with a
//! non-zero `CostModel::coherence_miss_ns`, each
//! line (by default each word is a line of its own; [`crate::sim::Simulation::set_cache_lines`] groups words
//! into lines) keeps the set of CPUs that hold a valid copy, a MESI-like model:
//!
//! | state of line `l` for CPU `c` | holders of `l` | MESI |
//! |---|---|---|
//! | sole holder | exactly `{c}` | Modified / Exclusive |
//! | one of several | `c` and others | Shared |
//! | no valid copy | without `c` | Invalid |
//!
//! - a **load** by `c` without a valid copy is a miss; `c` joins the holders (a load by a holder
//!   costs nothing extra);
//! - a **store or read-modify-write** (a failed CAS included: `lock cmpxchg` takes the line for
//!   writing whatever it finds) by `c` when `c` is not the sole holder is a miss (a transfer, or
//!   the invalidation of the other copies); `c` becomes the sole holder.
//!
//! Invariant: every line has at least one holder; at the start every CPU holds every line (the
//! memory was set up before the run, no transfer is charged for the first touch of a load). Every
//! miss counts in [`crate::sim::Simulation::coherence_misses`]. A miss of a load or of a
//! read-modify-write adds `coherence_miss_ns` to the access's cost (before the jitter): the CPU
//! waits for the line. A plain store's miss changes the holders but costs nothing more: the store
//! waits in the CPU's store buffer while the line comes, and the CPU goes on (x86-TSO; Intel's
//! Optimization Reference Manual, "store buffer"; a locked read-modify-write drains the buffer and
//! waits, a plain `mov` store does not). Only the memory operations of [`Words::exec`] take part: a
//! futex call's read of its word is part of the system call's cost. CPUs are told apart modulo
//! 64 (a `u64` of holders per line): CPUs 64 apart share a bit. With `coherence_miss_ns` = 0 (the
//! default) nothing is tracked and nothing changes. Built without the `coherence` feature (the
//! site's main bundle) there is no knob: `CostModel` has no `coherence_miss_ns` (JSON that gives
//! one is read and the value ignored), [`Coherence`] is empty and every access costs what it did
//! before, with the same code. The checker ([`crate::check::CheckWorld`]) has no time and no coherence.

use crate::op::{Op, OpResult, Word};

/// Words of memory (also futex words), over any storage of `u32`s: a `Vec<u32>` in the simulator,
/// a `[u32; N]` in the checker (so the world stays `Copy`). Word `i` starts as the storage holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Words<S>(S);

/// What one memory operation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The word.
    pub word: Word,
    /// The value the word held before (for a load, the value read; for a CAS, the actual value).
    pub old: u32,
    /// The value it holds after (`old` when nothing was written).
    pub new: u32,
    /// For a CAS: whether it succeeded; true for every other operation.
    pub ok: bool,
    /// What the operation returns to the machine.
    pub result: OpResult,
}

impl<S: AsRef<[u32]> + AsMut<[u32]>> Words<S> {
    /// Words held in `storage`.
    pub fn new(storage: S) -> Self {
        Words(storage)
    }
    /// Every word, by index.
    pub fn as_slice(&self) -> &[u32] {
        self.0.as_ref()
    }
    /// [`Op::Load`]: the word's value.
    #[inline]
    pub fn load(&self, w: Word) -> u32 {
        self.0.as_ref()[w.0 as usize]
    }
    /// [`Op::Store`]: write `v`; returns the old value.
    #[inline]
    pub fn store(&mut self, w: Word, v: u32) -> u32 {
        core::mem::replace(&mut self.0.as_mut()[w.0 as usize], v)
    }
    /// [`Op::Cas`]: if the word holds `expected`, write `new`. Returns whether it did and the value
    /// the word held.
    #[inline]
    pub fn cas(&mut self, w: Word, expected: u32, new: u32) -> (bool, u32) {
        let slot = &mut self.0.as_mut()[w.0 as usize];
        let actual = *slot;
        let ok = actual == expected;
        if ok {
            *slot = new;
        }
        (ok, actual)
    }
    /// [`Op::FetchAdd`]: add `d` (wrapping); returns the old value.
    #[inline]
    pub fn fetch_add(&mut self, w: Word, d: u32) -> u32 {
        let slot = &mut self.0.as_mut()[w.0 as usize];
        let old = *slot;
        *slot = old.wrapping_add(d);
        old
    }
    /// [`Op::Swap`]: write `v`; returns the old value.
    #[inline]
    pub fn swap(&mut self, w: Word, v: u32) -> u32 {
        self.store(w, v)
    }

    /// Execute a memory operation ([`Op::is_memory`]); `None` for every other operation.
    #[inline]
    pub fn exec(&mut self, op: Op) -> Option<Access> {
        let (word, old, new, ok, result) = match op {
            Op::Load(w) => {
                let v = self.load(w);
                (w, v, v, true, OpResult::Value(v))
            }
            Op::Store(w, v) => (w, self.store(w, v), v, true, OpResult::Done),
            Op::Cas {
                word,
                expected,
                new,
            } => {
                let (ok, actual) = self.cas(word, expected, new);
                let now = if ok { new } else { actual };
                (word, actual, now, ok, OpResult::Cas { ok, actual })
            }
            Op::FetchAdd(w, d) => {
                let old = self.fetch_add(w, d);
                (w, old, old.wrapping_add(d), true, OpResult::Value(old))
            }
            Op::Swap(w, v) => {
                let old = self.swap(w, v);
                (w, old, v, true, OpResult::Value(old))
            }
            _ => return None,
        };
        Some(Access {
            word,
            old,
            new,
            ok,
            result,
        })
    }
}

/// How long each word has held a non-zero value: a generic per-word counter (for a lock word, its
/// hold time). Fed with every write ([`BusyTime::wrote`]); a word becomes busy when a write takes it
/// from zero to non-zero, and idle when one takes it back to zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BusyTime {
    /// Per word: nanoseconds of finished busy periods, and the start of the current one.
    words: Vec<(u64, Option<u64>)>,
}

impl BusyTime {
    /// A counter for `words` words, all idle.
    pub fn new(words: usize) -> Self {
        BusyTime {
            words: vec![(0, None); words],
        }
    }

    /// Word `w` changed from `old` to `new` at time `now`.
    #[inline]
    pub fn wrote(&mut self, w: Word, old: u32, new: u32, now: u64) {
        let Some((total, since)) = self.words.get_mut(w.0 as usize) else {
            return;
        };
        if old == 0 && new != 0 {
            *since = Some(now);
        } else if old != 0 && new == 0 {
            if let Some(t) = since.take() {
                *total += now.saturating_sub(t);
            }
        }
    }

    /// How long word `w` has been non-zero up to `now` (0 for a word this counter does not have).
    pub fn busy_ns(&self, w: Word, now: u64) -> u64 {
        self.words.get(w.0 as usize).map_or(0, |&(total, since)| {
            total + since.map_or(0, |t| now.saturating_sub(t))
        })
    }
}

/// Which CPUs hold a valid copy of each cache line (module docs, "Cache coherence"), and the
/// misses counted. Empty unless the simulation's `coherence_miss_ns` is non-zero; without the
/// `coherence` cargo feature it is always empty and never charges.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Coherence {
    /// Per word: its line (index into `holders`); empty: each word is its own line.
    #[cfg(feature = "coherence")]
    line_of: Vec<u32>,
    /// Per line: the CPUs holding a valid copy, one bit each (CPU modulo 64).
    #[cfg(feature = "coherence")]
    holders: Vec<u64>,
    /// Misses so far.
    #[cfg(feature = "coherence")]
    misses: u64,
}

impl Coherence {
    /// The tracker of `words` words, each its own line, every CPU holding every line; `on`: track
    /// at all (a non-zero miss cost, and the `coherence` feature), else an empty tracker.
    pub fn new(words: usize, on: bool) -> Self {
        #[cfg(feature = "coherence")]
        {
            Coherence {
                line_of: Vec::new(),
                holders: if on {
                    vec![u64::MAX; words]
                } else {
                    Vec::new()
                },
                misses: 0,
            }
        }
        #[cfg(not(feature = "coherence"))]
        {
            let _ = (words, on);
            Coherence {}
        }
    }

    /// Whether this tracker tracks (built with the `coherence` feature and switched on).
    pub fn is_on(&self) -> bool {
        #[cfg(feature = "coherence")]
        {
            !self.holders.is_empty()
        }
        #[cfg(not(feature = "coherence"))]
        {
            false
        }
    }

    /// Group words into lines: `line_of[w]` is word `w`'s line (any numbers; words past the end
    /// each get a line of their own). Every CPU holds every line again, and the miss count is
    /// kept. Nothing happens on a tracker that is not on.
    pub fn set_lines(&mut self, line_of: &[u32]) {
        #[cfg(feature = "coherence")]
        {
            if !self.is_on() {
                return;
            }
            let words = self.holders.len().max(self.line_of.len());
            let given = line_of.len().min(words);
            let top = line_of[..given]
                .iter()
                .map(|&l| l as usize + 1)
                .max()
                .unwrap_or(0);
            self.line_of = (0..words)
                .map(|w| match line_of.get(w) {
                    Some(&l) if w < given => l,
                    _ => (top + w) as u32,
                })
                .collect();
            let lines = self
                .line_of
                .iter()
                .map(|&l| l as usize + 1)
                .max()
                .unwrap_or(0);
            self.holders = vec![u64::MAX; lines];
        }
        #[cfg(not(feature = "coherence"))]
        {
            let _ = line_of;
        }
    }

    /// CPU `cpu` accessed word `w` (`write`: a store or a read-modify-write); whether it missed.
    /// Always false on a tracker that is not on.
    #[inline]
    pub fn access(&mut self, cpu: u8, w: Word, write: bool) -> bool {
        #[cfg(feature = "coherence")]
        {
            if self.holders.is_empty() {
                return false;
            }
            let line = match self.line_of.get(w.0 as usize) {
                Some(&l) => l as usize,
                None => w.0 as usize,
            };
            let Some(h) = self.holders.get_mut(line) else {
                return false;
            };
            let me = 1u64 << (cpu % 64);
            let miss = if write { *h != me } else { *h & me == 0 };
            *h = if write { me } else { *h | me };
            self.misses += miss as u64;
            miss
        }
        #[cfg(not(feature = "coherence"))]
        {
            let _ = (cpu, w, write);
            false
        }
    }

    /// Misses counted so far (0 on a tracker that is not on).
    pub fn misses(&self) -> u64 {
        #[cfg(feature = "coherence")]
        {
            self.misses
        }
        #[cfg(not(feature = "coherence"))]
        {
            0
        }
    }
}

/// The simulator's memory step: the cost of the access, then [`Words::exec`].
impl<M: crate::machine::Machine> crate::sim::Simulation<M> {
    /// Run memory operation `op` for thread `tid` on `cpu`: a plain access (`Load`, `Store`) costs
    /// `plain_ns`, an atomic read-modify-write `atomic_ns`, plus `coherence_miss_ns` when a load
    /// or a read-modify-write misses (module docs, "Cache coherence": a store's miss is hidden by
    /// the store buffer); a failed CAS counts in `cas_failures` and every write feeds the per-word
    /// busy time.
    pub(in crate::sim) fn step_mem(&mut self, tid: u16, cpu: u8, op: Op) -> crate::sim::Note {
        #[cfg(feature = "coherence")]
        let cost = self.mem_cost(cpu, op);
        // without the feature, exactly the cost before the coherence model (the main wasm's code)
        #[cfg(not(feature = "coherence"))]
        let cost = match op {
            Op::Load(_) | Op::Store(..) => self.cost.plain_ns,
            _ => self.cost.atomic_ns,
        };
        let c = self.jittered(cost);
        self.charge(cpu, c);
        let a = self
            .k
            .mem
            .exec(op)
            .expect("step_mem runs memory operations only");
        if !a.ok {
            self.metrics.cas_failures += 1;
        }
        if a.new != a.old {
            let now = self.cpus[cpu as usize].clock;
            self.busy.wrote(a.word, a.old, a.new, now);
        }
        self.complete(tid, a.result);
        crate::sim::Note::Memory {
            word: a.word,
            value: a.old,
            ok: a.ok,
        }
    }

    /// The cost of memory operation `op` on `cpu` before the jitter: `plain_ns` or `atomic_ns`,
    /// plus `coherence_miss_ns` when a load or a read-modify-write misses (a plain store's miss
    /// waits in the store buffer: counted, not charged).
    #[cfg(feature = "coherence")]
    fn mem_cost(&mut self, cpu: u8, op: Op) -> u64 {
        let (cost, at) = match op {
            Op::Load(w) => (self.cost.plain_ns, Some((w, false))),
            Op::Store(w, _) => (self.cost.plain_ns, Some((w, true))),
            Op::Cas { word, .. } => (self.cost.atomic_ns, Some((word, true))),
            Op::FetchAdd(w, _) | Op::Swap(w, _) => (self.cost.atomic_ns, Some((w, true))),
            _ => (self.cost.atomic_ns, None),
        };
        let miss = at.is_some_and(|(w, write)| self.coherence.access(cpu, w, write));
        // a plain store's transfer is hidden by the store buffer: the CPU does not wait for it
        if miss && !matches!(op, Op::Store(..)) {
            cost + self.cost.coherence_miss_ns
        } else {
            cost
        }
    }

    /// Group the words into cache lines for the coherence cost (`line_of[w]`: word `w`'s line;
    /// words past its end get a line each; module docs, "Cache coherence"). Call it before the
    /// first step; it does nothing when the cost model's `coherence_miss_ns` is 0 or the
    /// `coherence` feature is off.
    pub fn set_cache_lines(&mut self, line_of: &[u32]) {
        self.coherence.set_lines(line_of);
    }

    /// Loads and writes that missed in the coherence model so far (module docs, "Cache
    /// coherence"): 0 when `coherence_miss_ns` is 0 or the `coherence` feature is off.
    pub fn coherence_misses(&self) -> u64 {
        self.coherence.misses()
    }
}

#[cfg(all(test, feature = "coherence"))]
mod tests {
    use super::*;
    use crate::cost::CostModel;
    use crate::sim::{Role, Simulation};

    /// The rule on a scripted sequence, 2 CPUs: words 0 and 1 share line 0, word 2 is line 1.
    #[test]
    fn a_load_without_a_copy_and_a_write_without_sole_ownership_miss() {
        let mut c = Coherence::new(3, true);
        c.set_lines(&[0, 0, 1]);
        let seq: [(u8, u16, bool, bool); 13] = [
            // (cpu, word, write, miss expected)
            (0, 0, false, false), // every CPU holds every line at the start
            (0, 0, true, true),   // shared: the write invalidates CPU 1's copy
            (0, 1, false, false), // same line, CPU 0 holds it
            (1, 1, false, true),  // CPU 1 lost its copy
            (1, 0, false, false), // same line, now shared
            (1, 0, true, true),   // a CAS on a shared line (failed or not)
            (1, 1, true, false),  // CPU 1 is the sole holder
            (0, 2, true, true),   // line 1: still shared by all
            (0, 2, false, false),
            (1, 2, false, true),
            (0, 2, true, true), // shared by 0 and 1
            (0, 2, true, false),
            (64, 2, false, false), // CPU 64 is CPU 0's bit
        ];
        let mut n = 0;
        for (i, &(cpu, w, write, miss)) in seq.iter().enumerate() {
            assert_eq!(c.access(cpu, Word(w), write), miss, "access {i}");
            n += miss as u64;
            assert_eq!(c.misses(), n, "access {i}");
        }
        assert_eq!(n, 6);
        // a shorter map: words past its end get a line each (word 2 is no longer word 1's)
        c.set_lines(&[0, 0]);
        assert!(c.access(1, Word(1), true));
        assert!(c.access(1, Word(2), true));
        assert!(!c.access(1, Word(0), false));
        assert_eq!(c.misses(), 8);
        // a tracker that is off never misses
        let mut off = Coherence::new(3, false);
        assert!(!off.is_on());
        off.set_lines(&[0, 0, 0]);
        for &(cpu, w, write, _) in &seq {
            assert!(!off.access(cpu, Word(w), write));
        }
        assert_eq!(off.misses(), 0);
    }

    use crate::sim::kernel::script::{world, Script};

    fn sim(miss_ns: u64) -> Simulation<Script> {
        let cost = CostModel {
            coherence_miss_ns: miss_ns,
            ..CostModel::default()
        };
        // thread 0 on CPU 0, thread 1 on CPU 1
        let t0 = Script(vec![Op::Store(Word(0), 1), Op::Load(Word(0))], 0);
        let t1 = Script(vec![Op::Load(Word(0)), Op::Store(Word(0), 2)], 0);
        Simulation::new(
            world(1, 0, 2, cost),
            vec![(t0, Role::Peer), (t1, Role::Peer)],
        )
    }

    /// In the simulator: CPU 0 stores (miss: every CPU held the word), CPU 1 loads it (miss),
    /// CPU 0 loads it again (hit: shared), CPU 1 stores (miss: shared). The load's miss costs
    /// `coherence_miss_ns` on the CPU that missed, the stores' do not (the store buffer); with 0
    /// nothing is tracked.
    #[test]
    fn the_simulator_charges_each_miss_on_the_cpu_that_missed() {
        let mut on = sim(50);
        let mut misses = vec![];
        while on.step().is_some() {
            misses.push(on.coherence_misses());
        }
        // CPU 0's store (1 ns: its miss waits in the store buffer), CPU 1's load (51 ns), CPU 0's
        // load and exit (CPU 0's clock is still behind), CPU 1's store, its exit
        assert_eq!(misses, [1, 2, 2, 2, 3, 3]);
        let mut off = sim(0);
        while off.step().is_some() {}
        assert_eq!(off.coherence_misses(), 0);
        // CPU 1's load waited 50 ns, the stores nothing: the end (CPU 1's clock) is 50 ns later
        assert_eq!(on.now_ns() - off.now_ns(), 50);
        assert_eq!(on.word(Word(0)), off.word(Word(0)));
    }
}
