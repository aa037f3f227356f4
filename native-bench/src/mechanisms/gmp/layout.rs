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
//! - each G: its four words at the start of its own 128 bytes (Go's `g` is one struct of some
//!   400 bytes: two Gs never share a line, nor the pair of lines adjacent-line prefetch fetches
//!   together; with 64-byte blocks two Ms running neighbouring Gs slowed each other);
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
    DONE, GHEAD, GSIZE, GTAIL, LIVE, MIDLE, NEEDSPIN, NMSPINNING, NPIDLE, PIDLE,
};
use herdlab_core::mechanisms::gmp::GmpConfig;
use herdlab_core::op::Word;

/// 32-bit words in one 128-byte line.
pub const LINE: u32 = 32;
/// Words of one G's block (128 bytes).
const G_BLOCK: u32 = 32;
/// An entry's bit: a store to the word is `Release` (else `SeqCst`).
pub const REL: u32 = 1 << 31;
/// An entry's bit: the word lives in the platform's world, not here.
pub const IN_WORLD: u32 = 1 << 30;
/// An entry's bit: the harness watches the word: stores to `done` (for the end's time) and,
/// when the run is traced, compare-and-swaps on a P's `runqhead` and `runnext` (a steal is one
/// by an M that does not own the P: the trace's `steal` events).
pub const WATCH: u32 = 1 << 29;
/// An entry's slot (word index into [`GoMemory`]'s lines).
pub const SLOT: u32 = WATCH - 1;

/// Entries of [`GoMemory::map`]: one per word number a [`Word`] can hold, so that a word's
/// entry is found without a bounds check.
pub const MAP_WORDS: usize = 1 << 16;

/// Bytes of a line (the alignment of line 0, so that each line is one 128-byte line).
const LINE_BYTES: usize = 128;

/// The table's words in Go's layout (module docs), and where each word is: one entry per word
/// (its slot here and its bits: [`REL`], [`IN_WORLD`], [`WATCH`]), so that an operation finds
/// its word with one load from a small table. Made once per run, before the Ms start.
#[derive(Debug)]
pub struct GoMemory {
    /// The words, one flat slice whose line 0 starts on a 128-byte boundary: an entry's slot is
    /// its index here (the skip to that boundary included), so an operation finds its word with
    /// one bounds check and no division.
    pub lines: Box<[AtomicU32]>,
    /// The entry of every word number, stored with its [`IN_WORLD`] bit flipped ([`lookup`]
    /// reads it): indexed by a [`Word`]'s 16 bits, so no bounds check, and allocated zeroed
    /// (the pages no word uses are never touched: no 256 KiB written before each run), a 0
    /// reading as a word in the world.
    ///
    /// [`lookup`]: GoMemory::lookup
    pub map: Box<[u32; MAP_WORDS]>,
    /// The first word of the Gs (the world keeps `sched.lock`'s futex word at this index).
    g_lo: u32,
    /// The table's words (`words_needed`): the map's entries past them are [`IN_WORLD`].
    words: u32,
}

impl GoMemory {
    /// The memory of `cfg`'s table, zeroed; the Ps' `runqhead` and `runnext` watched when the
    /// run is traced (`crate::trace::enabled`).
    pub fn new(cfg: &GmpConfig) -> Self {
        Self::with_steals_watched(cfg, crate::trace::enabled())
    }

    /// [`GoMemory::new`], the Ps' `runqhead` and `runnext` watched ([`WATCH`]) when `steals`.
    pub fn with_steals_watched(cfg: &GmpConfig, steals: bool) -> Self {
        let steal = if steals { WATCH } else { 0 };
        let words = cfg.words_needed();
        let g_lo = [cfg.status(1), cfg.link(1), cfg.wait(1), cfg.sched(1)]
            .iter()
            .map(|w| u32::from(w.0))
            .min()
            .unwrap_or(words);
        // unknown words (the Ms' park and nextp) stay in the world: entries are stored
        // flipped, so an untouched 0 reads as one
        let mut map = vec![0u32; MAP_WORDS];
        let mut set = |w: Word, slot: u32, bits: u32| {
            if let Some(e) = map.get_mut(w.0 as usize) {
                *e = (slot | bits) ^ IN_WORLD;
            }
        };
        // Go's schedt, then the harness's two words on the next line
        for (i, (w, bits)) in [
            (NMSPINNING, 0),
            (NPIDLE, 0),
            (PIDLE, REL),
            (MIDLE, REL),
            (GHEAD, REL),
            (GTAIL, REL),
            (GSIZE, 0),
            (NEEDSPIN, 0),
        ]
        .into_iter()
        .enumerate()
        {
            set(w, i as u32, bits);
        }
        set(LIVE, LINE, 0);
        set(DONE, LINE + 1, WATCH);
        let mut next = 2 * LINE;
        let sysmon = cfg.workload.sysmon_world();
        for p in 0..cfg.procs {
            set(cfg.head(p), next, steal);
            set(cfg.tail(p), next + 1, REL);
            set(cfg.runnext(p), next + 2, steal);
            set(cfg.owner(p), next + 3, REL);
            if sysmon {
                set(cfg.psys(p), next + 4, 0);
                set(cfg.pschedtick(p), next + 5, 0);
                set(cfg.psyscalltick(p), next + 6, 0);
                set(cfg.ppreempt(p), next + 7, 0);
            }
            next += LINE;
            for i in 0..cfg.ring {
                set(cfg.slot(p, i), next + i, REL);
            }
            next += cfg.ring.div_ceil(LINE) * LINE;
        }
        for g in 1..=cfg.gs {
            set(cfg.status(g), next, 0);
            set(cfg.link(g), next + 1, REL);
            set(cfg.wait(g), next + 2, 0);
            set(cfg.sched(g), next + 3, REL);
            next += G_BLOCK;
        }
        // one line more than needed, so that line 0 can start on a 128-byte boundary whatever
        // the allocator's alignment (4 bytes for `AtomicU32`)
        let slots = (next.div_ceil(LINE) + 1) * LINE;
        let lines: Box<[AtomicU32]> = (0..slots).map(|_| AtomicU32::new(0)).collect();
        let addr = lines.as_ptr() as usize;
        let skip = ((LINE_BYTES - addr % LINE_BYTES) % LINE_BYTES / 4) as u32;
        for e in map[..words as usize]
            .iter_mut()
            .filter(|e| **e & IN_WORLD != 0)
        {
            *e += skip;
        }
        GoMemory {
            lines,
            map: match map.into_boxed_slice().try_into() {
                Ok(map) => map,
                Err(_) => unreachable!("the map was made with MAP_WORDS entries"),
            },
            g_lo,
            words,
        }
    }

    /// Where `w` lives: its entry, or `None` when the table has no such word.
    #[inline(always)]
    pub fn entry(&self, w: Word) -> Option<u32> {
        (u32::from(w.0) < self.words).then(|| Self::lookup(&self.map, w))
    }

    /// `w`'s entry in `map` (a [`GoMemory::map`]): [`IN_WORLD`] for a word that is not here.
    #[inline(always)]
    pub fn lookup(map: &[u32; MAP_WORDS], w: Word) -> u32 {
        map[usize::from(w.0)] ^ IN_WORLD
    }

    /// The word at an entry that is not [`IN_WORLD`].
    #[inline(always)]
    pub fn at(lines: &[AtomicU32], e: u32) -> &AtomicU32 {
        &lines[(e & SLOT) as usize]
    }

    /// Store `v` at an entry that is not [`IN_WORLD`], with its ordering.
    #[inline(always)]
    pub fn store(lines: &[AtomicU32], e: u32, v: u32) {
        if e & REL != 0 {
            Self::at(lines, e).store(v, Release);
        } else {
            Self::at(lines, e).store(v, SeqCst);
        }
    }

    /// The index after the last word below the first G's: where the world keeps `sched.lock`'s
    /// futex word (the world holds the words below it, of which the table uses the Ms').
    pub fn lock_word(&self) -> Word {
        Word(self.g_lo as u16)
    }

    /// `w`'s value if it lives here (`None`: in the world, or no such word).
    pub fn load(&self, w: Word) -> Option<u32> {
        self.entry(w)
            .filter(|e| e & IN_WORLD == 0)
            .map(|e| Self::at(&self.lines, e).load(SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::gmp::{GmpConfig, GmpParams, Workload};

    /// A small world of `workload`: 3 Ps, 4 Ms, 9 Gs, a ring of 40.
    fn small(workload: Workload) -> GmpConfig {
        GmpParams {
            gomaxprocs: 3,
            threads: 4,
            goroutines: 9,
            ring: 40,
            workload,
            ..GmpParams::default()
        }
        .config()
    }

    /// Every word of the table has its own place: no two words share a slot, and every slot is
    /// inside the memory.
    #[test]
    fn every_word_has_its_own_slot() {
        for workload in [Workload::FanOut, Workload::Syscall, Workload::YieldMany] {
            let cfg = small(workload);
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
                assert!((e & SLOT) < mem.lines.len() as u32);
                // line 0 on a 128-byte boundary: a word's line is its slot's, counted from it
                let at = GoMemory::at(&mem.lines, e) as *const AtomicU32 as usize;
                let first = mem.entry(NMSPINNING).unwrap() & SLOT;
                let line0 = GoMemory::at(&mem.lines, first) as *const AtomicU32 as usize;
                assert_eq!(line0 % LINE_BYTES, 0);
                assert_eq!(
                    (at - line0) / LINE_BYTES,
                    ((e & SLOT) - first) as usize / LINE as usize
                );
            }
            // only the Ms' park and nextp words and, in sysmon's worlds, its deep-sleep words
            // (`sysmonwait`, `sysmonnote`: a futex word and its flag) stay in the world
            let ms = cfg.threads + 1;
            let deep = if workload.sysmon_world() {
                assert_ne!(mem.entry(cfg.sysmonwait()).unwrap() & IN_WORLD, 0);
                assert_ne!(mem.entry(cfg.sysmonnote()).unwrap() & IN_WORLD, 0);
                2
            } else {
                0
            };
            assert_eq!(here, cfg.words_needed() - 2 * ms - deep, "{workload:?}");
            assert!(mem.entry(Word(cfg.words_needed() as u16)).is_none());
            for m in 0..ms {
                assert_ne!(mem.entry(cfg.park(m)).unwrap() & IN_WORLD, 0);
                assert_ne!(mem.entry(cfg.nextp(m)).unwrap() & IN_WORLD, 0);
            }
            // a store, then a load, through the layout
            let e = mem.entry(cfg.link(9)).unwrap();
            assert_ne!(e & REL, 0);
            GoMemory::store(&mem.lines, e, 7);
            assert_eq!(mem.load(cfg.link(9)), Some(7));
            assert_eq!(mem.entry(cfg.status(9)).unwrap() & REL, 0);
            // the harness watches `done` only (a blocking call is the table's own `Op::Sleep`)
            let watched = (0..cfg.words_needed())
                .filter(|&w| mem.entry(Word(w as u16)).unwrap() & WATCH != 0)
                .count();
            assert_eq!(watched, 1, "{workload:?}");
        }
    }

    /// A traced run's memory watches each P's `runqhead` and `runnext` besides `done` (the
    /// compare-and-swaps that take Gs: the trace's steals), at the same slots as an untraced
    /// run's; an untraced run's watches `done` alone.
    #[test]
    fn a_traced_run_watches_the_ps_heads_and_runnexts() {
        let cfg = small(Workload::YieldMany);
        let (plain, traced) = (
            GoMemory::with_steals_watched(&cfg, false),
            GoMemory::with_steals_watched(&cfg, true),
        );
        let watched = |mem: &GoMemory| -> Vec<Word> {
            (0..cfg.words_needed())
                .map(|w| Word(w as u16))
                .filter(|&w| mem.entry(w).unwrap() & WATCH != 0)
                .collect()
        };
        assert_eq!(watched(&plain), vec![DONE]);
        let mut want: Vec<Word> = (0..cfg.procs)
            .flat_map(|p| [cfg.head(p), cfg.runnext(p)])
            .chain([DONE])
            .collect();
        want.sort();
        assert_eq!(watched(&traced), want);
        // the same place from line 0 (each allocation skips to its own 128-byte boundary)
        let first = |mem: &GoMemory| mem.entry(NMSPINNING).unwrap() & SLOT;
        for w in 0..cfg.words_needed() {
            let w = Word(w as u16);
            let (a, b) = (plain.entry(w).unwrap(), traced.entry(w).unwrap());
            assert_eq!(a & (REL | IN_WORLD), b & (REL | IN_WORLD), "{w:?}");
            if a & IN_WORLD == 0 {
                assert_eq!(
                    (a & SLOT) - first(&plain),
                    (b & SLOT) - first(&traced),
                    "{w:?}"
                );
            }
        }
    }

    /// The simulator's cache lines (core's `cache_lines`, what its coherence cost groups) are
    /// this layout's: two words share a line in core's map exactly when they share a 128-byte
    /// line here (a word the world keeps is alone on its line).
    #[test]
    fn cores_cache_lines_are_this_layouts_lines() {
        use herdlab_core::mechanisms::gmp::cache_lines;
        for workload in [Workload::SpawnMany, Workload::Syscall, Workload::FanOut] {
            let cfg = small(workload);
            let mem = GoMemory::new(&cfg);
            let core = cache_lines(&cfg);
            let first = mem.entry(NMSPINNING).unwrap() & SLOT;
            // here: the line of a word in this memory, or None for one the world keeps
            let here = |w: u32| {
                let e = mem.entry(Word(w as u16)).unwrap();
                (e & IN_WORLD == 0).then(|| ((e & SLOT) - first) / LINE)
            };
            let n = cfg.words_needed();
            for a in 0..n {
                for b in (a + 1)..n {
                    let native = matches!((here(a), here(b)), (Some(x), Some(y)) if x == y);
                    assert_eq!(
                        core[a as usize] == core[b as usize],
                        native,
                        "{workload:?}: words {a} and {b}"
                    );
                }
            }
        }
    }
}
