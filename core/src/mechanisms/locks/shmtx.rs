//! nginx's `ngx_shmtx`: CAS on a pid word, exponential spin, then a semaphore (or `sched_yield`).
//!
//! Follows `src/core/ngx_shmtx.c` (nginx 1.31.x; `shared/reference/nginx-shmtx.md` §3). Shared words:
//! [`LOCK`] (0 free, else the holder's pid) and [`WAIT`] (processes announced as about to sleep; read as
//! signed, may be −1 for a moment). The semaphore [`SEM`] starts at 0.
//!
//! # Lock states ([`Lock`])
//! Each state is one row of the step table below, which is the code: the [`steps!`](crate::steps)
//! macro compiles it to the stepped form (the simulator, the checker, the site) and to the
//! straight-line form ([`Shmtx::lock_run`], the native benchmark). Each state names its line of the
//! listing ([`Ln`]); where a variant moves a line, its listing says so.
//!
//! | state | line | op | next |
//! |---|---|---|---|
//! | `L1Load` | L1 | load `lock` | `L1Cas` if 0 (`L1Store` in `plain-load-store`), else spin (more than one CPU) or L3/L4 |
//! | `L1Cas` | L1 | CAS `lock` 0 → pid | acquired, or spin / L3 / L4 |
//! | `L1Store` | L1 | store pid in `lock` | acquired (the bug: no CAS) |
//! | `Pause{n,i}` | Spin | `pause` (the i-th of n) | `Pause{n,i+1}`, then `ProbeLoad{n}` |
//! | `ProbeLoad{n}` | Probe | load `lock` | `ProbeCas{n}` if 0, else `Pause{2n,0}` while 2n < spin, else L3/L4 |
//! | `ProbeCas{n}`, `ProbeStore{n}` | Probe | CAS 0 → pid (store) | acquired, or as `ProbeLoad` failing |
//! | `Announce` | Announce | `wait += 1` | `RecheckLoad` |
//! | `RecheckLoad` | Recheck | load `lock` | `RecheckCas` if 0, else `SemWait` |
//! | `RecheckCas`, `RecheckStore` | Recheck | CAS 0 → pid (store) | `Undo` on success, `SemWait` otherwise |
//! | `Undo` | Undo | `wait −= 1` | acquired (the 1.7.10 fix) |
//! | `SemWait` | Sleep | `sem_wait` | `L1Load`: being woken does not hand the lock over |
//! | `Yield` | Yield | `sched_yield` (no semaphore) | `L1Load` |
//!
//! # Unlock states ([`Unlock`])
//! | state | line | op | next |
//! |---|---|---|---|
//! | `Release` | Release | CAS `lock` pid → 0 | `WaitLoad` on success (with a semaphore), else done |
//! | `WaitLoad` | WakeLoop | load `wait` | `WaitCas{w}` if w > 0 (signed), else done |
//! | `WaitCas{w}` | WakeOne | CAS `wait` w → w−1 | `Post` on success, `WaitLoad` otherwise |
//! | `Post` | WakeOne | `sem_post` | done |
//!
//! # Trylock states ([`Try`])
//! `Load` (load `lock`; busy unless 0) → `Cas` (CAS 0 → pid; held or busy), or `Store` in
//! `plain-load-store`.
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

use crate::machine::steps::{exec, Call, Next, Ops, Stopped};
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

crate::line_names! {
    /// The named lines of the `ngx_shmtx` listing: each state of [`Lock`], [`Unlock`] and [`Try`] names
    /// one, and each variant's listing says where its lines are ([`Shmtx::listing`]; a variant may move
    /// a line, as `announce-after-check` moves the announce below the re-check). The master's
    /// listing (`ngx_shmtx_force_unlock`) names the unlock's lines too.
    pub enum Ln {
        /// The listing's first line: where a thread rests once it is done.
        Entry,
        /// L1: `if lock == 0 && cas(lock, 0, pid): break`.
        L1,
        /// L2: `pause()` n times.
        Spin,
        /// L2's probe after the pauses.
        Probe,
        /// L3: `wait += 1`.
        Announce,
        /// L3's re-check of the lock after announcing.
        Recheck,
        /// L3: `wait -= 1; break` (the 1.7.10 fix).
        Undo,
        /// L3: `sem_wait(sem)`.
        Sleep,
        /// L4: `sched_yield()`.
        Yield,
        /// The critical section.
        Critical,
        /// Unlock: `cas(lock, pid, 0)`.
        Release,
        /// Unlock: `w = wait; while w > 0`.
        WakeLoop,
        /// Unlock: `cas(wait, w, w - 1)`, then `sem_post(sem)`.
        WakeOne,
        /// The master's `waitpid`: sleep until a worker dies, then read its pid.
        Reap,
    }
}

/// A listing of `ngx_shmtx` with its named lines.
pub type Listing = crate::machine::listing::Listing<Ln>;

crate::steps! {
    /// Where a thread is in `ngx_shmtx_lock` (the module docs give the table with its invariant).
    #[allow(clippy::enum_variant_names)]
    #[repr(u8)]
    pub enum Lock(m: Shmtx) -> (), line Ln {
        /// L1: read the lock word.
        L1Load @ Ln::L1 => load(LOCK) => |v|
            if v == 0 { Go(m.take(Lock::L1Cas, Lock::L1Store)) } else { m.after_fail(1) };
        /// L1: take it with a CAS.
        L1Cas @ Ln::L1 => cas(LOCK, 0, m.pid) => |ok|
            if ok { Done(()) } else { m.after_fail(1) };
        /// L1 in `plain-load-store`: take it with a store.
        L1Store @ Ln::L1 => store(LOCK, m.pid) => |()| Done(());
        /// L2: the i-th of n pauses.
        Pause {
            /// The pauses in this run (1, 2, 4, …).
            n: u32,
            /// Pauses done so far.
            i: u32,
        } @ Ln::Spin => pause() => |()|
            Go(if i + 1 >= n { Lock::ProbeLoad { n } } else { Lock::Pause { n, i: i + 1 } });
        /// L2: probe the lock after n pauses.
        ProbeLoad {
            /// The pauses before this probe.
            n: u32,
        } @ Ln::Probe => load(LOCK) => |v|
            if v == 0 {
                Go(m.take(Lock::ProbeCas { n }, Lock::ProbeStore { n }))
            } else {
                m.after_fail(2 * n)
            };
        /// L2: take it with a CAS.
        ProbeCas {
            /// The pauses before this probe.
            n: u32,
        } @ Ln::Probe => cas(LOCK, 0, m.pid) => |ok|
            if ok { Done(()) } else { m.after_fail(2 * n) };
        /// L2 in `plain-load-store`: take it with a store.
        ProbeStore {
            /// The pauses before this probe.
            n: u32,
        } @ Ln::Probe => store(LOCK, m.pid) => |()| Done(());
        /// L3: `wait += 1`.
        Announce @ Ln::Announce => fetch_add(WAIT, 1) => |_| {
            m.announced = true;
            Go(if m.variant() == ShmtxVariant::AnnounceAfterCheck { Lock::SemWait } else { Lock::RecheckLoad })
        };
        /// L3: re-check the lock.
        RecheckLoad @ Ln::Recheck => load(LOCK) => |v|
            Go(if v == 0 {
                m.take(Lock::RecheckCas, Lock::RecheckStore)
            } else if m.variant() == ShmtxVariant::AnnounceAfterCheck {
                Lock::Announce
            } else {
                Lock::SemWait
            });
        /// L3: take it with a CAS.
        RecheckCas @ Ln::Recheck => cas(LOCK, 0, m.pid) => |ok| m.rechecked(ok);
        /// L3 in `plain-load-store`: take it with a store.
        RecheckStore @ Ln::Recheck => store(LOCK, m.pid) => |()| m.rechecked(true);
        /// L3: `wait -= 1` after the re-check won.
        Undo @ Ln::Undo => fetch_add(WAIT, u32::MAX) => |_| {
            m.announced = false;
            if m.variant() == ShmtxVariant::SeedListing { Go(Lock::SemWait) } else { Done(()) }
        };
        /// L3: `sem_wait`; being woken does not hand the lock over.
        SemWait @ Ln::Sleep => sem_wait(SEM) => |()| {
            m.announced = false;
            Go(Lock::L1Load)
        };
        /// L4 (no semaphore): `sched_yield`.
        Yield @ Ln::Yield => sched_yield() => |()| Go(Lock::L1Load);
    }
}

crate::steps! {
    /// Where a thread is in `ngx_shmtx_unlock` (or the master's `ngx_shmtx_force_unlock`).
    #[repr(u8)]
    pub enum Unlock(m: Shmtx) -> (), line Ln {
        /// `cas(lock, pid, 0)`: only a successful release goes on to wake.
        Release @ Ln::Release => cas(LOCK, m.pid, 0) => |ok|
            if m.reads_first() || !ok || !m.cfg.semaphore { Done(()) } else { Go(Unlock::WaitLoad) };
        /// `w = wait`; nothing to wake while `w <= 0` (signed).
        WaitLoad @ Ln::WakeLoop => load(WAIT) => |w|
            if (w as i32) > 0 { Go(Unlock::WaitCas { w }) } else { m.done_waking() };
        /// `cas(wait, w, w - 1)`; reload on failure.
        WaitCas {
            /// The value of `wait` read.
            w: u32,
        } @ Ln::WakeOne => cas(WAIT, w, w.wrapping_sub(1)) => |ok|
            Go(if ok { Unlock::Post } else { Unlock::WaitLoad });
        /// `sem_post(sem)`.
        Post @ Ln::WakeOne => sem_post(SEM) => |()| m.done_waking();
    }
}

crate::steps! {
    /// Where a thread is in `ngx_shmtx_trylock`: `*lock == 0 && CAS(lock, 0, pid)`, never spinning
    /// or sleeping; the outcome is whether the lock is now held.
    #[repr(u8)]
    pub enum Try(m: Shmtx) -> bool, line Ln {
        /// Read the lock word: busy unless 0.
        Load @ Ln::L1 => load(LOCK) => |v|
            if v == 0 { Go(m.take(Try::Cas, Try::Store)) } else { Done(false) };
        /// Take it with a CAS.
        Cas @ Ln::L1 => cas(LOCK, 0, m.pid) => |ok| Done(ok);
        /// In `plain-load-store`: take it with a store.
        Store @ Ln::L1 => store(LOCK, m.pid) => |()| Done(true);
    }
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

/// One thread's view of an `ngx_shmtx`: where it is in lock, unlock or trylock.
///
/// The stepped form ([`Shmtx::lock_op`], [`Shmtx::lock_complete`], …) keeps the state in the
/// struct; the straight-line form ([`Shmtx::lock_run`], [`Shmtx::unlock_run`]) keeps it in a local
/// and runs the same tables to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shmtx {
    cfg: ShmtxConfig,
    pid: u32,
    lock: Lock,
    unlock: Unlock,
    try_: Try,
    announced: bool,
}

impl Shmtx {
    /// The lock as used by the thread whose pid is `pid` (non-zero).
    pub fn new(cfg: ShmtxConfig, pid: u32) -> Self {
        Shmtx {
            cfg,
            pid,
            lock: Lock::L1Load,
            unlock: Unlock::Release,
            try_: Try::Load,
            announced: false,
        }
    }

    /// The lock's configuration.
    pub fn config(&self) -> ShmtxConfig {
        self.cfg
    }

    #[inline(always)]
    fn variant(&self) -> ShmtxVariant {
        self.cfg.variant
    }

    #[inline(always)]
    fn reads_first(&self) -> bool {
        self.cfg.variant == ShmtxVariant::UnlockReadsWaitFirst
    }

    /// The take after a load found the lock free: a CAS, or in `plain-load-store` a store.
    #[inline(always)]
    fn take<S>(&self, cas: S, store: S) -> S {
        if self.cfg.variant == ShmtxVariant::PlainLoadStore {
            store
        } else {
            cas
        }
    }

    /// After L1 or a probe failed: spin `n` pauses more while `n < spin` (more than one CPU), or go
    /// to L3/L4.
    #[inline(always)]
    fn after_fail(&self, n: u32) -> Next<Lock, ()> {
        Next::Go(if self.cfg.ncpu > 1 && n < self.cfg.spin {
            Lock::Pause { n, i: 0 }
        } else {
            match (self.cfg.semaphore, self.cfg.variant) {
                (false, _) => Lock::Yield,
                (true, ShmtxVariant::AnnounceAfterCheck) => Lock::RecheckLoad,
                (true, _) => Lock::Announce,
            }
        })
    }

    /// After L3's take: `ok` when it won.
    #[inline(always)]
    fn rechecked(&mut self, ok: bool) -> Next<Lock, ()> {
        match (ok, self.cfg.variant) {
            (true, ShmtxVariant::NoWaitDecrement) => {
                // the bug: `wait` stays raised; the thread no longer counts as a sleeper
                self.announced = false;
                Next::Done(())
            }
            (true, ShmtxVariant::AnnounceAfterCheck) => Next::Done(()),
            (true, _) => Next::Go(Lock::Undo),
            (false, ShmtxVariant::AnnounceAfterCheck) => Next::Go(Lock::Announce),
            (false, _) => Next::Go(Lock::SemWait),
        }
    }

    /// The wake part of unlock is over: done, or in `unlock-reads-wait-first` release now.
    #[inline(always)]
    fn done_waking(&self) -> Next<Unlock, ()> {
        if self.reads_first() {
            Next::Go(Unlock::Release)
        } else {
            Next::Done(())
        }
    }

    /// Begin `ngx_shmtx_lock`.
    #[inline(always)]
    pub fn start_lock(&mut self) {
        self.lock = Lock::L1Load;
    }

    /// Begin `ngx_shmtx_trylock` (how the accept mutex is used: `ngx_trylock_accept_mutex`).
    pub fn start_trylock(&mut self) {
        self.try_ = Try::Load;
    }

    /// The next trylock step's operation (a load, then the take).
    pub fn trylock_op(&self) -> Op {
        self.try_.op(self)
    }

    /// Deliver a trylock step's result.
    pub fn trylock_complete(&mut self, r: OpResult) -> TryOutcome {
        match <Try as Call<Shmtx>>::complete(self, r) {
            None => TryOutcome::Pending,
            Some(true) => TryOutcome::Acquired,
            Some(false) => TryOutcome::Busy,
        }
    }

    /// Begin `ngx_shmtx_unlock`.
    #[inline(always)]
    pub fn start_unlock(&mut self) {
        self.unlock = self.unlock_start();
    }

    /// The unlock table's first state: the release, or in `unlock-reads-wait-first` (with a
    /// semaphore) the read of `wait`.
    #[inline(always)]
    fn unlock_start(&self) -> Unlock {
        match self.cfg.variant {
            ShmtxVariant::UnlockReadsWaitFirst if self.cfg.semaphore => Unlock::WaitLoad,
            _ => Unlock::Release,
        }
    }

    /// True between announcing in `wait` and undoing it or returning from `sem_wait` (the set A).
    pub fn is_announced(&self) -> bool {
        self.announced
    }

    /// True after a failed spin probe and before the next one (`Pause{n, _}` or `ProbeLoad{n}` with
    /// n ≥ 2: the first probe, n = 1, follows L1 and is never merged): see
    /// [`crate::machine::Machine::in_failed_spin`].
    pub fn in_failed_spin(&self) -> bool {
        matches!(self.lock, Lock::Pause { n, .. } | Lock::ProbeLoad { n } if n >= 2)
    }

    /// In a run of pauses, jump to its probe and return how many pauses that skipped (0 when the
    /// next step is not a pause): the state that completing them one by one reaches.
    pub fn skip_pauses(&mut self) -> u32 {
        match self.lock {
            Lock::Pause { n, i } => {
                self.lock = Lock::ProbeLoad { n };
                n - i
            }
            _ => 0,
        }
    }

    /// True between a successful CAS on `wait` and the `sem_post` (the set F).
    pub fn is_posting(&self) -> bool {
        matches!(self.unlock, Unlock::Post)
    }

    /// The state of the lock table (stepped form).
    pub fn lock_state(&self) -> Lock {
        self.lock
    }

    /// The state of the unlock table (stepped form).
    pub fn unlock_state(&self) -> Unlock {
        self.unlock
    }

    /// The next lock step's operation.
    #[inline(always)]
    pub fn lock_op(&self) -> Op {
        self.lock.op(self)
    }

    /// Deliver a lock step's result.
    #[inline(always)]
    pub fn lock_complete(&mut self, r: OpResult) -> Progress {
        let st = self.lock;
        match st.complete(self, r) {
            Next::Go(s) => {
                self.lock = s;
                Progress::Pending
            }
            Next::Done(()) => Progress::Finished,
        }
    }

    /// The next unlock step's operation.
    #[inline(always)]
    pub fn unlock_op(&self) -> Op {
        self.unlock.op(self)
    }

    /// Deliver an unlock step's result.
    #[inline(always)]
    pub fn unlock_complete(&mut self, r: OpResult) -> Progress {
        let st = self.unlock;
        match st.complete(self, r) {
            Next::Go(s) => {
                self.unlock = s;
                Progress::Pending
            }
            Next::Done(()) => Progress::Finished,
        }
    }

    /// Straight-line form of `ngx_shmtx_lock`: run the lock table from its start to the lock held.
    /// On a platform error the stepped state is left where the run stopped.
    ///
    /// The fast path's rows (L1's load, then its CAS) run first, each with its state named here,
    /// and the table's `run` goes on from wherever they lead otherwise. Why: in `run` the next
    /// state is a value that goes round the table's loop, and the compiler does not thread a
    /// constant state through a loop's first `match`, so every step was an indirect jump through
    /// the table's jump table, with the state stored and reloaded (measured with callgrind: 129
    /// instructions per uncontended round of `herdlab bench locks` for shmtx, 61 for std, the same
    /// driver around both). A row whose state is a constant folds to its typed primitive and its
    /// branch. The rows are the table's own (`op`, `complete`, through [`exec`]): the same
    /// primitives, transitions and final state as `run`, which `core/tests/lock_forms.rs` checks.
    #[inline(always)]
    pub fn lock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        // every way out below rests the stepped state where the run stopped, so the start state
        // need not be stored first ([`Shmtx::start_lock`])
        let mut at = Lock::L1Load;
        let mut next = self.lock_row(at, p)?;
        if matches!(next, Next::Go(Lock::L1Cas)) {
            at = Lock::L1Cas;
            next = self.lock_row(at, p)?;
        }
        let from = match next {
            Next::Done(()) => {
                self.lock = at;
                return Ok(());
            }
            Next::Go(s) => s,
        };
        match from.run(self, p) {
            Ok((last, ())) => {
                self.lock = last;
                Ok(())
            }
            Err(Stopped { state, error }) => {
                self.lock = state;
                Err(error)
            }
        }
    }

    /// One row of the lock table, its state `st` known where it is called: its operation, then its
    /// transition. On a platform error the stepped state rests in `st`.
    #[inline(always)]
    fn lock_row<P: Ops + ?Sized>(
        &mut self,
        st: Lock,
        p: &mut P,
    ) -> Result<Next<Lock, ()>, P::Error> {
        match exec(p, st.op(self)) {
            Ok(r) => Ok(st.complete(self, r)),
            Err(e) => {
                self.lock = st;
                Err(e)
            }
        }
    }

    /// Straight-line form of `ngx_shmtx_unlock`: run the unlock table from its start to the end,
    /// its fast path's rows (the releasing CAS, the load of `wait`) first, as [`Shmtx::lock_run`].
    #[inline(always)]
    pub fn unlock_run<P: Ops + ?Sized>(&mut self, p: &mut P) -> Result<(), P::Error> {
        // as in `lock_run`, the state is stored on every way out of the fast path's rows
        let start = self.unlock_start();
        if start == Unlock::Release {
            let mut at = Unlock::Release;
            let mut next = self.unlock_row(at, p)?;
            if matches!(next, Next::Go(Unlock::WaitLoad)) {
                at = Unlock::WaitLoad;
                next = self.unlock_row(at, p)?;
            }
            match next {
                Next::Done(()) => {
                    self.unlock = at;
                    return Ok(());
                }
                Next::Go(s) => self.unlock = s,
            }
        } else {
            self.unlock = start;
        }
        <Unlock as Call<Shmtx>>::run(self, p)
    }

    /// One row of the unlock table, as [`Shmtx::lock_row`].
    #[inline(always)]
    fn unlock_row<P: Ops + ?Sized>(
        &mut self,
        st: Unlock,
        p: &mut P,
    ) -> Result<Next<Unlock, ()>, P::Error> {
        match exec(p, st.op(self)) {
            Ok(r) => Ok(st.complete(self, r)),
            Err(e) => {
                self.unlock = st;
                Err(e)
            }
        }
    }

    /// The line of [`Shmtx::listing`] the next lock step executes.
    pub fn lock_line(&self) -> u16 {
        self.named_listing().of(self.lock.line(self))
    }

    /// The line the next unlock step executes.
    pub fn unlock_line(&self) -> u16 {
        self.named_listing().of(self.unlock.line(self))
    }

    /// The name of the line the next unlock step executes (the master's force_unlock shows it in its
    /// own listing).
    pub fn unlock_line_name(&self) -> Ln {
        self.unlock.line(self)
    }

    /// This variant's listing, with its named lines.
    pub fn named_listing(&self) -> &'static Listing {
        match self.cfg.variant {
            ShmtxVariant::Correct => &LISTING_CORRECT,
            ShmtxVariant::NoWaitDecrement => &LISTING_B3,
            ShmtxVariant::AnnounceAfterCheck => &LISTING_B1,
            ShmtxVariant::UnlockReadsWaitFirst => &LISTING_B2,
            ShmtxVariant::PlainLoadStore => &LISTING_B7,
            ShmtxVariant::SeedListing => &LISTING_B5,
        }
    }

    /// The pseudocode of this variant, lock and unlock inside a worker's round loop.
    pub fn listing(&self) -> &'static [&'static str] {
        self.named_listing().text
    }
}

/// `ngx_shmtx_trylock` as a sub-table ([`Call`]) of a thread that holds a [`Shmtx`]: the outcome is
/// whether the lock is now held; it is ready for the next trylock afterwards. Start it with
/// [`Shmtx::start_trylock`].
impl Call<Shmtx> for Try {
    type Out = bool;
    #[inline(always)]
    fn op(cx: &Shmtx) -> Op {
        cx.try_.op(cx)
    }
    #[inline(always)]
    fn complete(cx: &mut Shmtx, r: OpResult) -> Option<bool> {
        let st = cx.try_;
        match st.complete(cx, r) {
            Next::Go(s) => {
                cx.try_ = s;
                None
            }
            Next::Done(held) => {
                cx.try_ = Try::Load;
                Some(held)
            }
        }
    }
    #[inline(always)]
    fn run<P: Ops + ?Sized>(cx: &mut Shmtx, p: &mut P) -> Result<bool, P::Error> {
        match cx.try_.run(cx, p) {
            Ok((_, held)) => {
                cx.try_ = Try::Load;
                Ok(held)
            }
            Err(Stopped { state, error }) => {
                cx.try_ = state;
                Err(error)
            }
        }
    }
}

/// `ngx_shmtx_unlock` as a sub-table ([`Call`]) of a thread that holds a [`Shmtx`] (the accept
/// mutex's unlock, the master's force_unlock). Start it with [`Shmtx::start_unlock`].
impl Call<Shmtx> for Unlock {
    type Out = ();
    #[inline(always)]
    fn op(cx: &Shmtx) -> Op {
        cx.unlock.op(cx)
    }
    #[inline(always)]
    fn complete(cx: &mut Shmtx, r: OpResult) -> Option<()> {
        match cx.unlock_complete(r) {
            Progress::Pending => None,
            Progress::Finished => Some(()),
        }
    }
    #[inline(always)]
    fn run<P: Ops + ?Sized>(cx: &mut Shmtx, p: &mut P) -> Result<(), P::Error> {
        match cx.unlock.run(cx, p) {
            Ok((last, ())) => {
                cx.unlock = last;
                Ok(())
            }
            Err(Stopped { state, error }) => {
                cx.unlock = state;
                Err(error)
            }
        }
    }
}

/// The critical section's line in every variant's listing.
pub const CRITICAL_LINE: u16 = LISTING_CORRECT.lines[Ln::Critical as usize];

/// One variant's listing: the shared lines, with the eight that variants change given as
/// `([name], text)` pairs (lines 4, 8, 10, 11, 12, 18, 19 and 20).
macro_rules! variant_listing {
    ($name:ident: $l4:tt, $l8:tt, $l10:tt, $l11:tt, $l12:tt, $l18:tt, $l19:tt, $l20:tt) => {
        const $name: Listing = crate::listing![Ln;
            ([Ln::Entry], "for each round {                             // worker"),
            ([], "  // lock (ngx_shmtx_lock)"),
            ([], "  loop {"),
            $l4,
            ([], "    if ncpu > 1:                              // L2: exponential spin"),
            ([], "      for n = 1, 2, 4, ... while n < spin:"),
            ([Ln::Spin], "        pause() n times"),
            $l8,
            ([], "    if semaphore:                             // L3"),
            $l10,
            $l11,
            $l12,
            ([Ln::Sleep], "      sem_wait(sem)                           // sleep until posted, then retry"),
            ([Ln::Yield], "    else: sched_yield()                       // L4"),
            ([], "  }"),
            ([Ln::Critical], "  critical_section()"),
            ([], "  // unlock (ngx_shmtx_unlock)"),
            $l18,
            $l19,
            $l20,
            ([], "}"),
        ];
    };
}

variant_listing!(LISTING_CORRECT:
    ([Ln::L1], "    if lock == 0 && cas(lock, 0, pid): break  // L1"),
    ([Ln::Probe], "        if lock == 0 && cas(lock, 0, pid): break"),
    ([Ln::Announce], "      wait += 1                               // announce"),
    ([Ln::Recheck], "      if lock == 0 && cas(lock, 0, pid):"),
    ([Ln::Undo], "        wait -= 1; break                      // the 1.7.10 fix"),
    ([Ln::Release], "  if cas(lock, pid, 0):                       // release first"),
    ([Ln::WakeLoop], "    w = wait; while w > 0 (signed):           // then wake"),
    ([Ln::WakeOne], "      if cas(wait, w, w - 1): sem_post(sem); stop")
);
variant_listing!(LISTING_B3:
    ([Ln::L1], "    if lock == 0 && cas(lock, 0, pid): break  // L1"),
    ([Ln::Probe], "        if lock == 0 && cas(lock, 0, pid): break"),
    ([Ln::Announce], "      wait += 1                               // announce"),
    ([Ln::Recheck], "      if lock == 0 && cas(lock, 0, pid):"),
    ([Ln::Undo], "        break                                 // BUG (<= 1.7.9): wait stays raised"),
    ([Ln::Release], "  if cas(lock, pid, 0):                       // release first"),
    ([Ln::WakeLoop], "    w = wait; while w > 0 (signed):           // then wake"),
    ([Ln::WakeOne], "      if cas(wait, w, w - 1): sem_post(sem); stop")
);
variant_listing!(LISTING_B1:
    ([Ln::L1], "    if lock == 0 && cas(lock, 0, pid): break  // L1"),
    ([Ln::Probe], "        if lock == 0 && cas(lock, 0, pid): break"),
    ([Ln::Recheck], "      if lock == 0 && cas(lock, 0, pid): break  // BUG: checked first"),
    ([], "      // an unlock here reads wait == 0 and posts nothing"),
    ([Ln::Announce], "      wait += 1                               // BUG: announced after the check"),
    ([Ln::Release], "  if cas(lock, pid, 0):                       // release first"),
    ([Ln::WakeLoop], "    w = wait; while w > 0 (signed):           // then wake"),
    ([Ln::WakeOne], "      if cas(wait, w, w - 1): sem_post(sem); stop")
);
variant_listing!(LISTING_B2:
    ([Ln::L1], "    if lock == 0 && cas(lock, 0, pid): break  // L1"),
    ([Ln::Probe], "        if lock == 0 && cas(lock, 0, pid): break"),
    ([Ln::Announce], "      wait += 1                               // announce"),
    ([Ln::Recheck], "      if lock == 0 && cas(lock, 0, pid):"),
    ([Ln::Undo], "        wait -= 1; break                      // the 1.7.10 fix"),
    ([Ln::WakeLoop], "  w = wait; while w > 0 (signed):             // BUG: wake before releasing"),
    ([Ln::WakeOne], "    if cas(wait, w, w - 1): sem_post(sem); stop"),
    ([Ln::Release], "  cas(lock, pid, 0)")
);
variant_listing!(LISTING_B7:
    ([Ln::L1], "    if lock == 0: lock = pid; break           // BUG: load then store, no CAS"),
    ([Ln::Probe], "        if lock == 0: lock = pid; break       // BUG: no CAS"),
    ([Ln::Announce], "      wait += 1                               // announce"),
    ([Ln::Recheck], "      if lock == 0: lock = pid                // BUG: no CAS"),
    ([Ln::Undo], "        wait -= 1; break                      // the 1.7.10 fix"),
    ([Ln::Release], "  if cas(lock, pid, 0):                       // release first"),
    ([Ln::WakeLoop], "    w = wait; while w > 0 (signed):           // then wake"),
    ([Ln::WakeOne], "      if cas(wait, w, w - 1): sem_post(sem); stop")
);
variant_listing!(LISTING_B5:
    ([Ln::L1], "    if lock == 0 && cas(lock, 0, pid): break  // L1"),
    ([Ln::Probe], "        if lock == 0 && cas(lock, 0, pid): break"),
    ([Ln::Announce], "      wait += 1                               // announce"),
    ([Ln::Recheck], "      if lock == 0 && cas(lock, 0, pid):"),
    ([Ln::Undo], "        wait -= 1                             // BUG (seed listing): no break"),
    ([Ln::Release], "  if cas(lock, pid, 0):                       // release first"),
    ([Ln::WakeLoop], "    w = wait; while w > 0 (signed):           // then wake"),
    ([Ln::WakeOne], "      if cas(wait, w, w - 1): sem_post(sem); stop")
);
