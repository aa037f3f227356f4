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

/// The simulator's memory step: the cost of the access, then [`Words::exec`].
impl<M: crate::machine::Machine> crate::sim::Simulation<M> {
    /// Run memory operation `op` for thread `tid` on `cpu`: a plain access (`Load`, `Store`) costs
    /// `plain_ns`, an atomic read-modify-write `atomic_ns`; a failed CAS counts in `cas_failures`
    /// and every write feeds the per-word busy time.
    pub(in crate::sim) fn step_mem(&mut self, tid: u16, cpu: u8, op: Op) -> crate::sim::Note {
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
}
