//! The scheduler's memory laid out as Go lays its own out, for the native runtime
//! ([`super::native`]).
//!
//! The native platform's world puts every word alone on a 128-byte line and makes every store
//! `SeqCst` (an `xchg` on x86): right for the lock benchmarks, where each word is a lock or a
//! counter that threads fight over, but not what Go's scheduler pays. Go's `schedt` keeps
//! `sched.lock`, `midle`, `pidle`, `npidle`, `nmspinning`, `needspinning` and the global queue's
//! head, tail and size within a line or two; a P's `runqhead` and `runqtail` sit side by side and
//! its `runq` is one array of 256 slots; a G is one struct. And Go writes most of these with plain
//! stores (under `sched.lock`: the global queue, `pidle`, `midle`; `gp.schedlink`, `gp.sched`,
//! `pp.m`, `mp.nextp`; a ring slot) or `StoreRel` (`runqtail`), keeping a locked instruction for
//! its atomic read-modify-writes (`casgstatus`, `runnext`, `runqhead`, `nmspinning`, `npidle`)
//! and its `atomic.Store`s (`needspinning`, a note).
//!
//! [`GoMemory`] holds the table's words that way, and nothing of the algorithm: the table issues
//! the same operations on the same word numbers, in the same order; only where a word lives and how
//! strongly a store to it is ordered differ from the world's.
//!
//! # Layout (128-byte lines of 32 words)
//! - line 0: `nmspinning`, `npidle`, `pidle`, `midle`, the global queue's head, tail and size,
//!   `needspinning` (Go's `schedt`);
//! - line 1: the harness's own `live` and `done` (Go has neither: they end the program);
//! - each P: a line of `runqhead`, `runqtail`, `runnext`, `pp.m` and (the workloads with sysmon)
//!   its syscall and preemption words, then its ring, 32 slots to a line;
//! - each G: its four words at the start of its own 64 bytes (Go's `g` is one struct; two Gs never
//!   share a 64-byte line);
//! - the Ms' `park` and `nextp` words stay in the platform's world (a futex word each, on its own
//!   line: what `NativeWorld::fail` wakes when a run fails), as does `sched.lock`'s futex word
//!   ([`super::native`]).
//!
//! # Orderings
//! Loads and read-modify-writes are `SeqCst` everywhere (on x86 a plain `mov` and a locked
//! instruction, as Go's `atomic.Load` and its `Cas`/`Xadd`). A store is `Release` (a plain `mov`
//! on x86) to the words Go writes with a plain store or `StoreRel`: `pidle`, `midle`, the global
//! queue's head and tail, a ring slot, `runqtail`, `pp.m`, `gp.schedlink` and `gp.sched`; every
//! other store stays `SeqCst`. None of the table's protocols needs a store-load order after one of
//! these: each way a G becomes visible to a spinning M ends in a read-modify-write before the
//! submitter reads `nmspinning` (`globrunqput` adds to the queue's size under the lock, `runqput`
//! and `goready` swap the G into `runnext` with a CAS; the G a `runnext` CAS kicks into the ring is
//! published with a release store, as Go's `runqput` does, while the new G in `runnext` is what
//! keeps the spinner from parking), and a spinning M drops `nmspinning` with a read-modify-write
//! before it re-checks the queues; the other relaxed words are written and read under
//! `sched.lock`, or are read outside it only as a hint that is checked again under it (`pidle` in
//! `exitsyscall`), as Go reads them.

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::{Release, SeqCst};

use herdlab_core::mechanisms::gmp::machine::{
    DONE, GHEAD, GSIZE, GTAIL, G_WORDS, LIVE, MIDLE, NEEDSPIN, NMSPINNING, NPIDLE, PIDLE, X_WORDS,
};
use herdlab_core::mechanisms::gmp::GmpConfig;
use herdlab_core::op::Word;

use crate::platform::mem::Padded;

/// 32-bit words in one 128-byte line.
const LINE: u32 = 32;
/// Words of one G's block (64 bytes).
const G_BLOCK: u32 = 16;
/// An entry's bit: the word lives in the platform's world, not here.
pub const IN_WORLD: u32 = 1 << 30;
/// An entry's bit: a store to the word is `Release` (else `SeqCst`).
const REL: u32 = 1 << 31;
/// An entry's slot (word index into [`GoMemory`]'s lines).
const SLOT: u32 = IN_WORLD - 1;

/// The table's words in Go's layout (module docs). Made once per run, before the Ms start.
#[derive(Debug)]
pub struct GoMemory {
    lines: Box<[Padded<[AtomicU32; LINE as usize]>]>,
    /// The entry of every word below the first G's.
    low: Box<[u32]>,
    /// The first G's first word, and the slot of its block.
    g_lo: u32,
    g_slot: u32,
    /// Per word of a G's four: [`REL`] or 0.
    g_rel: [u32; G_WORDS as usize],
    /// The first syscall/preemption word (the end of the words when the workload has none).
    x_lo: u32,
    /// Per P: the slot of its syscall and preemption words (in its header line).
    x_slot: Box<[u32]>,
    /// The words of the table.
    words: u32,
}

impl GoMemory {
    /// The memory of `cfg`'s table, zeroed.
    pub fn new(cfg: &GmpConfig) -> Self {
        let words = cfg.words_needed();
        let g_lo = [cfg.status(1), cfg.link(1), cfg.wait(1), cfg.sched(1)]
            .iter()
            .map(|w| u32::from(w.0))
            .min()
            .unwrap_or(words);
        let x_lo = if cfg.workload.sysmon_world() {
            u32::from(cfg.psys(0).0)
        } else {
            words
        };
        let mut low = vec![IN_WORLD; g_lo as usize];
        let mut set = |w: Word, slot: u32, rel: bool| {
            if let Some(e) = low.get_mut(w.0 as usize) {
                *e = slot | if rel { REL } else { 0 };
            }
        };
        // Go's schedt, then the harness's two words on the next line
        for (i, (w, rel)) in [
            (NMSPINNING, false),
            (NPIDLE, false),
            (PIDLE, true),
            (MIDLE, true),
            (GHEAD, true),
            (GTAIL, true),
            (GSIZE, false),
            (NEEDSPIN, false),
        ]
        .into_iter()
        .enumerate()
        {
            set(w, i as u32, rel);
        }
        set(LIVE, LINE, false);
        set(DONE, LINE + 1, false);
        let mut next = 2 * LINE;
        let mut x_slot = Vec::with_capacity(cfg.procs as usize);
        for p in 0..cfg.procs {
            set(cfg.head(p), next, false);
            set(cfg.tail(p), next + 1, true);
            set(cfg.runnext(p), next + 2, false);
            set(cfg.owner(p), next + 3, true);
            x_slot.push(next + 4);
            next += LINE;
            for i in 0..cfg.ring {
                set(cfg.slot(p, i), next + i, true);
            }
            next += cfg.ring.div_ceil(LINE) * LINE;
        }
        // (the Ms' words stay IN_WORLD)
        let mut g_rel = [0; G_WORDS as usize];
        for (w, rel) in [
            (cfg.status(1), false),
            (cfg.link(1), true),
            (cfg.wait(1), false),
            (cfg.sched(1), true),
        ] {
            if let Some(r) = g_rel.get_mut((u32::from(w.0) - g_lo) as usize) {
                *r = if rel { REL } else { 0 };
            }
        }
        let g_slot = next;
        next += cfg.gs * G_BLOCK;
        let lines = next.div_ceil(LINE) as usize;
        GoMemory {
            lines: (0..lines).map(|_| Padded::default()).collect(),
            low: low.into_boxed_slice(),
            g_lo,
            g_slot,
            g_rel,
            x_lo,
            x_slot: x_slot.into_boxed_slice(),
            words,
        }
    }

    /// Where `w` lives: its entry ([`IN_WORLD`] set: the platform's world), or `None` when the
    /// table has no such word.
    #[inline(always)]
    pub fn entry(&self, w: Word) -> Option<u32> {
        let w = u32::from(w.0);
        if w < self.g_lo {
            self.low.get(w as usize).copied()
        } else if w < self.x_lo {
            let i = w - self.g_lo;
            let k = i % G_WORDS;
            Some((self.g_slot + (i / G_WORDS) * G_BLOCK + k) | self.g_rel[k as usize])
        } else if w < self.words {
            let i = w - self.x_lo;
            self.x_slot
                .get((i / X_WORDS) as usize)
                .map(|s| s + i % X_WORDS)
        } else {
            None
        }
    }

    /// The word at an entry that is not [`IN_WORLD`].
    #[inline(always)]
    pub fn at(&self, e: u32) -> &AtomicU32 {
        let s = e & SLOT;
        &self.lines[(s / LINE) as usize].0[(s % LINE) as usize]
    }

    /// Store `v` at an entry that is not [`IN_WORLD`], with its ordering.
    #[inline(always)]
    pub fn store(&self, e: u32, v: u32) {
        if e & REL != 0 {
            self.at(e).store(v, Release);
        } else {
            self.at(e).store(v, SeqCst);
        }
    }

    /// The word after the last one below the first G's: where the world keeps `sched.lock`'s
    /// futex word (the world holds the words below it, of which the table uses the Ms').
    pub fn lock_word(&self) -> Word {
        Word(self.g_lo as u16)
    }

    /// Whether a store to this entry is `Release`.
    pub fn relaxed_store(e: u32) -> bool {
        e & REL != 0
    }

    /// `w`'s value if it lives here (`None`: in the world, or no such word).
    pub fn load(&self, w: Word) -> Option<u32> {
        self.entry(w)
            .filter(|e| e & IN_WORLD == 0)
            .map(|e| self.at(e).load(SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::gmp::{GmpParams, Workload};

    /// Every word of the table has its own place: no two words share a slot, and every slot is
    /// inside the memory.
    #[test]
    fn every_word_has_its_own_slot() {
        for workload in [Workload::FanOut, Workload::Syscall, Workload::YieldMany] {
            let cfg = GmpParams {
                gomaxprocs: 3,
                threads: 4,
                goroutines: 9,
                ring: 40,
                workload,
                ..GmpParams::default()
            }
            .config();
            let mem = GoMemory::new(&cfg);
            let mut seen = std::collections::HashSet::new();
            let mut here = 0;
            for w in 0..cfg.words_needed() {
                let e = mem.entry(Word(w as u16)).expect("every word has an entry");
                if e & IN_WORLD != 0 {
                    continue;
                }
                here += 1;
                assert!(seen.insert(e & SLOT), "word {w} shares slot {}", e & SLOT);
                assert!(((e & SLOT) / LINE) < mem.lines.len() as u32);
            }
            // only the Ms' park and nextp words (and none of the others) stay in the world
            let ms = cfg.threads + 1;
            assert_eq!(here, cfg.words_needed() - 2 * ms, "{workload:?}");
            assert!(mem.entry(Word(cfg.words_needed() as u16)).is_none());
            for m in 0..ms {
                assert_ne!(mem.entry(cfg.park(m)).unwrap() & IN_WORLD, 0);
                assert_ne!(mem.entry(cfg.nextp(m)).unwrap() & IN_WORLD, 0);
            }
            // a store, then a load, through the layout
            let e = mem.entry(cfg.link(9)).unwrap();
            assert!(GoMemory::relaxed_store(e));
            mem.store(e, 7);
            assert_eq!(mem.load(cfg.link(9)), Some(7));
            assert!(!GoMemory::relaxed_store(mem.entry(cfg.status(9)).unwrap()));
        }
    }
}
