//! nginx's `ngx_shmtx`: CAS on a pid word, exponential spin, then a semaphore (or `sched_yield`).
//!
//! Follows `src/core/ngx_shmtx.c` (nginx 1.31.x; `shared/reference/nginx-shmtx.md` §3). Shared words:
//! [`LOCK`] (0 free, else the holder's pid) and [`WAIT`] (processes announced as about to sleep; read as
//! signed, may be −1 for a moment). The semaphore [`SEM`] starts at 0.
//!
//! # Lock states
//! | state | op | next |
//! |---|---|---|
//! | `L1Load` | load `lock` | `L1Cas` if 0, else spin (more than one CPU) or `L3` |
//! | `L1Cas` | CAS `lock` 0 → pid | acquired, or spin / `L3` |
//! | `Pause{n,i}` | `pause` (the i-th of n) | `Pause{n,i+1}`, then `ProbeLoad{n}` |
//! | `ProbeLoad{n}`, `ProbeCas{n}` | load, CAS 0 → pid | acquired, or `Pause{2n,0}` while 2n < spin, else `L3` |
//! | `Announce` | `wait += 1` | `RecheckLoad` |
//! | `RecheckLoad`, `RecheckCas` | load, CAS 0 → pid | `Undo` on success, `SemWait` otherwise |
//! | `Undo` | `wait −= 1` | acquired (the 1.7.10 fix) |
//! | `SemWait` | `sem_wait` | `L1Load`: being woken does not hand the lock over |
//! | `Yield` | `sched_yield` (no semaphore) | `L1Load` |
//!
//! # Unlock states
//! `Release` (CAS `lock` pid → 0; only on success go on) → `WaitLoad` (`w = wait`; stop if `w <= 0`
//! signed) → `WaitCas{w}` (CAS `wait` w → w−1; reload on failure) → `Post` (`sem_post`).
//!
//! # Invariants (checked by [`super::invariants`])
//! 1. Mutual exclusion: at most one thread in its critical section, and `lock` holds its pid.
//! 2. Wakeup accounting: with A the threads that announced and neither undid it nor returned from
//!    `sem_wait`, and F the unlockers between their `wait` CAS and their `sem_post`:
//!    `wait + semval + |F| == |A|` in every state.
//! 3. No lost wakeup / deadlock: never does every unfinished thread sleep in `sem_wait`.
//!
//! Why no wakeup is lost: the waiter writes `wait` and then reads `lock`; the unlocker writes `lock` and
//! then reads `wait`. Both are full-barrier read-modify-writes, so either the waiter sees the lock free
//! or the unlocker sees `wait > 0` and posts; the semaphore remembers a post made before the `sem_wait`.
//!
//! # Broken variants ([`ShmtxVariant`])
//! Each is one change to the correct code, with the invariant that catches it.

use serde::{Deserialize, Serialize};

use crate::op::{Op, OpResult, SemId, Word};

/// The lock word: 0 when free, else the holder's pid.
pub const LOCK: Word = Word(0);
/// The number of announced sleepers (signed).
pub const WAIT: Word = Word(1);
/// The semaphore.
pub const SEM: SemId = SemId(0);

/// nginx's default spin for shared-zone mutexes (`ngx_shmtx_create`).
pub const NGINX_SPIN: u32 = 2048;

/// The correct lock or one of its broken variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShmtxVariant {
    /// nginx's current code.
    Correct,
    /// nginx ≤ 1.7.9: no `wait −= 1` when the re-check wins; stray posts pile up (breaks invariant 2).
    NoWaitDecrement,
    /// Announce after re-checking the lock: an unlock in the gap sees `wait == 0` (lost wakeup).
    AnnounceAfterCheck,
    /// The unlocker reads `wait` before releasing the lock: the mirrored lost wakeup.
    UnlockReadsWaitFirst,
    /// The lock is taken by a plain load and then a store, not a CAS: two holders.
    PlainLoadStore,
    /// The seed's printed listing: no `return` after the re-check's decrement, so the new holder
    /// goes on to `sem_wait` and sleeps holding the lock (deadlock).
    SeedListing,
}

impl ShmtxVariant {
    /// Every variant, the correct one first.
    pub const ALL: [ShmtxVariant; 6] = [
        ShmtxVariant::Correct,
        ShmtxVariant::NoWaitDecrement,
        ShmtxVariant::AnnounceAfterCheck,
        ShmtxVariant::UnlockReadsWaitFirst,
        ShmtxVariant::PlainLoadStore,
        ShmtxVariant::SeedListing,
    ];

    /// The CLI/URL name.
    pub fn name(self) -> &'static str {
        match self {
            ShmtxVariant::Correct => "correct",
            ShmtxVariant::NoWaitDecrement => "no-wait-decrement",
            ShmtxVariant::AnnounceAfterCheck => "announce-after-check",
            ShmtxVariant::UnlockReadsWaitFirst => "unlock-reads-wait-first",
            ShmtxVariant::PlainLoadStore => "plain-load-store",
            ShmtxVariant::SeedListing => "seed-listing",
        }
    }

    /// Parse a CLI/URL name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }

    /// One line on what goes wrong.
    pub fn story(self) -> &'static str {
        match self {
            ShmtxVariant::Correct => "nginx's code: announce, re-check, sleep; unlock, then wake",
            ShmtxVariant::NoWaitDecrement => {
                "nginx <= 1.7.9: a waiter that wins its re-check leaves wait raised, so an unlock posts for nobody and stray posts pile up"
            }
            ShmtxVariant::AnnounceAfterCheck => {
                "announces after re-checking: an unlock between the two sees wait == 0 and posts nothing, and the waiter sleeps with the lock free"
            }
            ShmtxVariant::UnlockReadsWaitFirst => {
                "reads wait before releasing the lock: a waiter that announces in between is never posted"
            }
            ShmtxVariant::PlainLoadStore => {
                "takes the lock with a load and a store instead of one CAS: two threads both see 0 and both take it"
            }
            ShmtxVariant::SeedListing => {
                "the seed's listing without the return after the decrement: the new holder sleeps in sem_wait holding the lock"
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(clippy::enum_variant_names)] // L1…L4 are nginx's own step names
#[repr(u8)]
enum L {
    L1Load,
    L1Take,
    Pause { n: u32, i: u32 },
    ProbeLoad { n: u32 },
    ProbeTake { n: u32 },
    Announce,
    RecheckLoad,
    RecheckTake,
    Undo,
    SemWait,
    Yield,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
enum U {
    Release,
    WaitLoad,
    WaitCas { w: u32 },
    Post,
}

/// What a lock or unlock step led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Progress {
    /// More steps to go.
    Pending,
    /// The lock is held (after a lock step) or released (after an unlock step).
    Finished,
}

/// What a trylock step led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TryOutcome {
    /// The CAS is still to come.
    Pending,
    /// The lock is now held by this thread.
    Acquired,
    /// The lock was held by someone else (or the CAS lost a race): `ngx_shmtx_trylock` returned 0.
    Busy,
}

/// The configuration of one `ngx_shmtx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShmtxConfig {
    /// `mtx->spin` (2048 in nginx; the checker uses small values to keep the state space small).
    pub spin: u32,
    /// `ngx_ncpu`: spinning (L2) is skipped on one CPU.
    pub ncpu: u32,
    /// Whether `sem_init` succeeded (else L4: `sched_yield`).
    pub semaphore: bool,
    /// Which code runs.
    pub variant: ShmtxVariant,
}

/// One thread's view of an `ngx_shmtx`: where it is in lock or unlock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shmtx {
    cfg: ShmtxConfig,
    pid: u32,
    lock: L,
    unlock: U,
    announced: bool,
}

impl Shmtx {
    /// The lock as used by the thread whose pid is `pid` (non-zero).
    pub fn new(cfg: ShmtxConfig, pid: u32) -> Self {
        Shmtx {
            cfg,
            pid,
            lock: L::L1Load,
            unlock: U::Release,
            announced: false,
        }
    }

    /// Begin `ngx_shmtx_lock`.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.lock = L::L1Load;
    }

    /// Begin `ngx_shmtx_trylock`: `*lock == 0 && CAS(lock, 0, pid)`, never spinning or sleeping
    /// (how the accept mutex is used: `ngx_trylock_accept_mutex`).
    pub fn start_trylock(&mut self) {
        self.lock = L::L1Load;
    }

    /// The next trylock step's operation (a load, then the take).
    pub fn trylock_op(&self) -> Op {
        match self.lock {
            L::L1Load => Op::Load(LOCK),
            _ => self.take_op(),
        }
    }

    /// Deliver a trylock step's result.
    pub fn trylock_complete(&mut self, r: OpResult) -> TryOutcome {
        match self.lock {
            L::L1Load => match r {
                OpResult::Value(0) => {
                    self.lock = L::L1Take;
                    TryOutcome::Pending
                }
                _ => TryOutcome::Busy,
            },
            _ => {
                self.lock = L::L1Load;
                if self.took(r) {
                    TryOutcome::Acquired
                } else {
                    TryOutcome::Busy
                }
            }
        }
    }

    /// Begin `ngx_shmtx_unlock`.
    #[inline(always)]
    pub fn start_unlock(&mut self) {
        self.unlock = match self.cfg.variant {
            ShmtxVariant::UnlockReadsWaitFirst if self.cfg.semaphore => U::WaitLoad,
            _ => U::Release,
        };
    }

    /// True between announcing in `wait` and undoing it or returning from `sem_wait` (the set A).
    pub fn is_announced(&self) -> bool {
        self.announced
    }

    /// True after a failed spin probe and before the next one (`Pause{n, _}` or `ProbeLoad{n}` with
    /// n ≥ 2: the first probe, n = 1, follows L1 and is never merged): see
    /// [`crate::machine::Machine::in_failed_spin`].
    pub fn in_failed_spin(&self) -> bool {
        matches!(self.lock, L::Pause { n, .. } | L::ProbeLoad { n } if n >= 2)
    }

    /// In a run of pauses, jump to its probe and return how many pauses that skipped (0 when the
    /// next step is not a pause): the state that completing them one by one reaches.
    pub fn skip_pauses(&mut self) -> u32 {
        match self.lock {
            L::Pause { n, i } => {
                self.lock = L::ProbeLoad { n };
                n - i
            }
            _ => 0,
        }
    }

    /// True between a successful CAS on `wait` and the `sem_post` (the set F).
    pub fn is_posting(&self) -> bool {
        matches!(self.unlock, U::Post)
    }

    #[inline(always)]
    fn plain(&self) -> bool {
        self.cfg.variant == ShmtxVariant::PlainLoadStore
    }

    #[inline(always)]
    fn take_op(&self) -> Op {
        if self.plain() {
            Op::Store(LOCK, self.pid)
        } else {
            Op::Cas {
                word: LOCK,
                expected: 0,
                new: self.pid,
            }
        }
    }

    /// The next lock step's operation.
    #[inline(always)]
    pub fn lock_op(&self) -> Op {
        match self.lock {
            L::L1Load | L::ProbeLoad { .. } | L::RecheckLoad => Op::Load(LOCK),
            L::L1Take | L::ProbeTake { .. } | L::RecheckTake => self.take_op(),
            L::Pause { .. } => Op::Pause,
            L::Announce => Op::FetchAdd(WAIT, 1),
            L::Undo => Op::FetchAdd(WAIT, u32::MAX),
            L::SemWait => Op::SemWait(SEM),
            L::Yield => Op::Yield,
        }
    }

    #[inline(always)]
    fn took(&self, r: OpResult) -> bool {
        match r {
            OpResult::Cas { ok, .. } => ok,
            OpResult::Done => self.plain(),
            _ => false,
        }
    }

    /// After L1 or a probe failed: spin more, or go to L3/L4.
    #[inline(always)]
    fn after_fail(&self, n: Option<u32>) -> L {
        let next_n = match n {
            None => 1,
            Some(n) => n * 2,
        };
        if self.cfg.ncpu > 1 && next_n < self.cfg.spin {
            L::Pause { n: next_n, i: 0 }
        } else {
            self.l3()
        }
    }

    #[inline(always)]
    fn l3(&self) -> L {
        match (self.cfg.semaphore, self.cfg.variant) {
            (false, _) => L::Yield,
            (true, ShmtxVariant::AnnounceAfterCheck) => L::RecheckLoad,
            (true, _) => L::Announce,
        }
    }

    /// Deliver a lock step's result.
    #[inline(always)]
    pub fn lock_complete(&mut self, r: OpResult) -> Progress {
        let v = self.cfg.variant;
        let next = match self.lock {
            L::L1Load => match r {
                OpResult::Value(0) => L::L1Take,
                _ => self.after_fail(None),
            },
            L::L1Take => {
                if self.took(r) {
                    return Progress::Finished;
                }
                self.after_fail(None)
            }
            L::Pause { n, i } => {
                if i + 1 >= n {
                    L::ProbeLoad { n }
                } else {
                    L::Pause { n, i: i + 1 }
                }
            }
            L::ProbeLoad { n } => match r {
                OpResult::Value(0) => L::ProbeTake { n },
                _ => self.after_fail(Some(n)),
            },
            L::ProbeTake { n } => {
                if self.took(r) {
                    return Progress::Finished;
                }
                self.after_fail(Some(n))
            }
            L::Announce => {
                self.announced = true;
                if v == ShmtxVariant::AnnounceAfterCheck {
                    L::SemWait
                } else {
                    L::RecheckLoad
                }
            }
            L::RecheckLoad => match (r, v) {
                (OpResult::Value(0), _) => L::RecheckTake,
                (_, ShmtxVariant::AnnounceAfterCheck) => L::Announce,
                _ => L::SemWait,
            },
            L::RecheckTake => match (self.took(r), v) {
                (true, ShmtxVariant::NoWaitDecrement) => {
                    // the bug: `wait` stays raised; the thread no longer counts as a sleeper
                    self.announced = false;
                    return Progress::Finished;
                }
                (true, ShmtxVariant::AnnounceAfterCheck) => return Progress::Finished,
                (true, _) => L::Undo,
                (false, ShmtxVariant::AnnounceAfterCheck) => L::Announce,
                (false, _) => L::SemWait,
            },
            L::Undo => {
                self.announced = false;
                if v == ShmtxVariant::SeedListing {
                    L::SemWait
                } else {
                    return Progress::Finished;
                }
            }
            L::SemWait => {
                self.announced = false;
                L::L1Load
            }
            L::Yield => L::L1Load,
        };
        self.lock = next;
        Progress::Pending
    }

    /// The next unlock step's operation.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        match self.unlock {
            U::Release => Op::Cas {
                word: LOCK,
                expected: self.pid,
                new: 0,
            },
            U::WaitLoad => Op::Load(WAIT),
            U::WaitCas { w } => Op::Cas {
                word: WAIT,
                expected: w,
                new: w.wrapping_sub(1),
            },
            U::Post => Op::SemPost(SEM),
        }
    }

    /// Deliver an unlock step's result.
    #[inline(always)]
    pub fn unlock_complete(&mut self, r: OpResult) -> Progress {
        let reads_first = self.cfg.variant == ShmtxVariant::UnlockReadsWaitFirst;
        let done_waking = |s: &mut Self| {
            if reads_first {
                s.unlock = U::Release;
                Progress::Pending
            } else {
                Progress::Finished
            }
        };
        match self.unlock {
            U::Release => {
                let ok = matches!(r, OpResult::Cas { ok: true, .. });
                if reads_first || !ok || !self.cfg.semaphore {
                    return Progress::Finished;
                }
                self.unlock = U::WaitLoad;
                Progress::Pending
            }
            U::WaitLoad => match r {
                OpResult::Value(w) if (w as i32) > 0 => {
                    self.unlock = U::WaitCas { w };
                    Progress::Pending
                }
                _ => done_waking(self),
            },
            U::WaitCas { .. } => {
                self.unlock = if matches!(r, OpResult::Cas { ok: true, .. }) {
                    U::Post
                } else {
                    U::WaitLoad
                };
                Progress::Pending
            }
            U::Post => done_waking(self),
        }
    }

    /// The line of [`Shmtx::listing`] the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        let b1 = self.cfg.variant == ShmtxVariant::AnnounceAfterCheck;
        match self.lock {
            L::L1Load | L::L1Take => 4,
            L::Pause { .. } => 7,
            L::ProbeLoad { .. } | L::ProbeTake { .. } => 8,
            L::Announce => {
                if b1 {
                    12
                } else {
                    10
                }
            }
            L::RecheckLoad | L::RecheckTake => {
                if b1 {
                    10
                } else {
                    11
                }
            }
            L::Undo => 12,
            L::SemWait => 13,
            L::Yield => 14,
        }
    }

    /// The line the next unlock step executes.
    pub fn unlock_line(&self) -> u16 {
        let b2 = self.cfg.variant == ShmtxVariant::UnlockReadsWaitFirst;
        match (self.unlock, b2) {
            (U::Release, false) => 18,
            (U::WaitLoad, false) => 19,
            (U::WaitCas { .. } | U::Post, false) => 20,
            (U::WaitLoad, true) => 18,
            (U::WaitCas { .. } | U::Post, true) => 19,
            (U::Release, true) => 20,
        }
    }

    /// The pseudocode of this variant, lock and unlock inside a worker's round loop.
    pub fn listing(&self) -> &'static [&'static str] {
        match self.cfg.variant {
            ShmtxVariant::Correct => LISTING_CORRECT,
            ShmtxVariant::NoWaitDecrement => LISTING_B3,
            ShmtxVariant::AnnounceAfterCheck => LISTING_B1,
            ShmtxVariant::UnlockReadsWaitFirst => LISTING_B2,
            ShmtxVariant::PlainLoadStore => LISTING_B7,
            ShmtxVariant::SeedListing => LISTING_B5,
        }
    }
}

macro_rules! listing {
    ($l4:expr, $l8:expr, $l10:expr, $l11:expr, $l12:expr, $l18:expr, $l19:expr, $l20:expr) => {
        &[
            "for each round {                             // worker",
            "  // lock (ngx_shmtx_lock)",
            "  loop {",
            $l4,
            "    if ncpu > 1:                              // L2: exponential spin",
            "      for n = 1, 2, 4, ... while n < spin:",
            "        pause() n times",
            $l8,
            "    if semaphore:                             // L3",
            $l10,
            $l11,
            $l12,
            "      sem_wait(sem)                           // sleep until posted, then retry",
            "    else: sched_yield()                       // L4",
            "  }",
            "  critical_section()",
            "  // unlock (ngx_shmtx_unlock)",
            $l18,
            $l19,
            $l20,
            "}",
        ]
    };
}

const L4: &str = "    if lock == 0 && cas(lock, 0, pid): break  // L1";
const L8: &str = "        if lock == 0 && cas(lock, 0, pid): break";
const L10: &str = "      wait += 1                               // announce";
const L11: &str = "      if lock == 0 && cas(lock, 0, pid):";
const L12: &str = "        wait -= 1; break                      // the 1.7.10 fix";
const L18: &str = "  if cas(lock, pid, 0):                       // release first";
const L19: &str = "    w = wait; while w > 0 (signed):           // then wake";
const L20: &str = "      if cas(wait, w, w - 1): sem_post(sem); stop";

const LISTING_CORRECT: &[&str] = listing!(L4, L8, L10, L11, L12, L18, L19, L20);
const LISTING_B3: &[&str] = listing!(
    L4,
    L8,
    L10,
    L11,
    "        break                                 // BUG (<= 1.7.9): wait stays raised",
    L18,
    L19,
    L20
);
const LISTING_B1: &[&str] = listing!(
    L4,
    L8,
    "      if lock == 0 && cas(lock, 0, pid): break  // BUG: checked first",
    "      // an unlock here reads wait == 0 and posts nothing",
    "      wait += 1                               // BUG: announced after the check",
    L18,
    L19,
    L20
);
const LISTING_B2: &[&str] = listing!(
    L4,
    L8,
    L10,
    L11,
    L12,
    "  w = wait; while w > 0 (signed):             // BUG: wake before releasing",
    "    if cas(wait, w, w - 1): sem_post(sem); stop",
    "  cas(lock, pid, 0)"
);
const LISTING_B7: &[&str] = listing!(
    "    if lock == 0: lock = pid; break           // BUG: load then store, no CAS",
    "        if lock == 0: lock = pid; break       // BUG: no CAS",
    L10,
    "      if lock == 0: lock = pid                // BUG: no CAS",
    L12,
    L18,
    L19,
    L20
);
const LISTING_B5: &[&str] = listing!(
    L4,
    L8,
    L10,
    L11,
    "        wait -= 1                             // BUG (seed listing): no break",
    L18,
    L19,
    L20
);
