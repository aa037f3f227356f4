//! herdlab's native G is a Rust future: the Gs' code for core's G/M/P table on real threads.
//!
//! A G is a `Pin<Box<dyn Future<Output = ()> + Send>>` in a slot of its own ([`Tasks`]); the
//! scheduler is core's `Sched` table in its straight-line form, unchanged. The seam is core's
//! [`GCode`]: each M's actor is made with
//! [`GmpActor::with_code`](herdlab_core::mechanisms::gmp::GmpActor::with_code), and when the
//! table asks for the running G's action at a new step (`Workload::action` in the simulator),
//! the M polls that G's future once and answers with what the poll did, one action per table step:
//! - each [`spawn`] made during the poll → [`GAct::Spawn`] (`newproc` into the M's `runnext`,
//!   the table's path);
//! - each waker of another G woken during the poll → [`GAct::Ready`] (`goready` through the G's
//!   wait word: a token if that G is not parked yet, which its park then finds, so a wake before
//!   the park is not lost);
//! - then `Poll::Ready` → [`GAct::Exit`]; `Pending` after waking its own waker ([`yield_now`],
//!   or any future that does what tokio's `yield_now` does) → [`GAct::GoYield`] (`goyield`: the
//!   tail of the P's own ring, no lock, no `wakep`), or [`GAct::Yield`] after [`gosched`]
//!   (`Gosched`: the global queue under `sched.lock`, then `wakep`); `Pending` at a
//!   [`syscall_sleep`] → [`GAct::Syscall`] (`entersyscall`, the M's thread blocked in the kernel
//!   while sysmon may retake its P, `exitsyscall`; the G is polled again after it); any other
//!   `Pending` → [`GAct::Park`] (`gopark`, unless a token came, then it is polled again at once).
//!
//! The future is dropped inside the poll's context, so a wake its drop makes (a dropped oneshot
//! sender) is an action of the G too.
//!
//! # Ownership of a G's future
//! Only the M that runs G g (`_Grunning`, `m.curg = g`) polls g's future: the table hands a G to
//! exactly one M at a time (core's invariant `conservation`, which the checker proves on its
//! presets). The slot is an `AtomicRefCell` all the same, so that this holds without `unsafe`:
//! the M borrows it around the poll (a compare-and-swap of its flag in, a plain release store
//! out), and a borrow that finds it taken fails the run, naming the G, rather than waiting: two
//! Ms polling one G at once would be the table's bug. What it costs: one locked instruction per
//! poll, where a goroutine switch on the table takes about four of its own (its two status
//! changes, `runqget`'s CAS). A `std::sync::Mutex` here cost two (its unlock is a swap, for the
//! waiters it never has): with `perf` (2-vCPU KVM guest, Linux 6.18.44, 2026-12-03, `herdlab
//! bench gmp --workers 1 --shapes yield_many`) about half of the poll path's time and a tenth of
//! the run. The spawner (`spawn_many`,
//! `yield_many`) fills the slots before the run; a G's [`spawn`] fills the child's slot before
//! the table makes the child runnable.
//!
//! # Wakes from outside a poll
//! A waker is `Send + Sync`. Woken outside every poll of this runtime (a foreign thread, a timer),
//! the waking thread is core's injector
//! ([`GmpActor::injector`](herdlab_core::mechanisms::gmp::GmpActor::injector): a thread outside every P, not
//! an M) and runs its rows straight-line on the run's words, the way Go readies a G from a
//! thread without a P: the G's wait word first (`EMPTY → TOKEN`, the CAS the table's `SendPost`
//! makes: a G that has not parked yet finds the token at its park and is polled again); a G
//! already parked is taken off it (`PARKED → EMPTY`) and `injectglist`ed with no P: `_Grunnable`,
//! `globrunqputbatch` under `sched.lock`, then `startIdle` takes an idle P and `startm`s a parked
//! M for it (`notewakeup` of its note), so the G runs even when every G waits and every M sleeps
//! in `stopm`. The simulator and the checker step the same rows (core's `foreign-wake`
//! workload). A wake before the run starts does nothing (every G is polled at its first run
//! anyway); an injection that fails fails the run. Never a silent loss.
//!
//! Because any thread may hold a waker, `checkdead` stays silent on these runs (as Go's does in
//! a program built as a library, whose host's threads call in): a run whose every G waits for a
//! wake that never comes ends at the platform's wait timeout, with an error.
//!
//! Limits: the Gs are core's words, so a run has a fixed number of Gs (each id runs once), given
//! up front ([`Tasks::new`]); a spawn past it fails the run. The G ids are handed out in spawn
//! order (the roots first; a poll's spawns when the poll returns). A future blocks its thread
//! only through [`syscall_sleep`] (the table's blocking syscall, `herdlab bench gmp
//! --blocking`), wires itself to its thread with [`lock_os_thread`] (`--locked`); and reads its connection on the netpoller with
//! [`net_read`] (`--netpoll`).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use atomic_refcell::AtomicRefCell;

use crate::platform::mem::Padded;
use std::task::{Context, Poll, Wake, Waker};
use sync_wrapper::SyncWrapper;

use herdlab_core::mechanisms::gmp::machine::MCounts;
use herdlab_core::mechanisms::gmp::{GAct, GCode, GmpConfig};

use super::native::RunMem;
use crate::platform::native::{NativeError, WAIT_TIMEOUT};

/// A G's code.
pub type BoxFut = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// `f` in a future at least 128 bytes larger, the room left uninitialised (its state
/// holds it across the await): boxed one after another, two futures of one type then keep their
/// hot words (the state, the loop's counters) a whole 128-byte line pair apart, so two Ms
/// polling neighbouring Gs at once do not write one line. No alignment is asked (an aligned
/// allocation per spawn cost `spawn_many_task` twice its time).
async fn spaced<F: Future<Output = ()>>(f: F) {
    let room = std::mem::MaybeUninit::<[u8; 128]>::uninit();
    f.await;
    std::hint::black_box(&room);
}

/// A G's slot: its future (taken at its exit) and its waker (made at its first poll).
#[derive(Default)]
struct Slot {
    /// (Only ever reached through `&mut`: a `SyncWrapper` makes the slot `Sync` for the
    /// `AtomicRefCell` while the future itself need only be `Send`.)
    fut: Option<SyncWrapper<BoxFut>>,
    waker: Option<Waker>,
    /// The G's yields, `Yield` and `GoYield` (counted here, under the slot's lock, not on a
    /// shared counter).
    yields: u32,
}

/// The Gs of one run: a slot per G id (1..=`max`), the ids handed out, the run's memory (for a
/// wake from outside), the yields made, the first failure.
pub struct Tasks {
    /// One 128-byte line per slot: two Ms polling neighbouring Gs at once would otherwise
    /// write the same line on every poll (the borrow flag, the yield count) and pass it back and
    /// forth. Measured (2-vCPU guest, idle, 2026-12-04, `herdlab bench gmp --workers 2 --shapes
    /// yield_many`): a run took either ~8 ms or ~25 ms, by which Ms drew which Gs; padded, ~8 ms
    /// (tokio ~6-9 ms). The futures, boxed side by side, are spaced the same way ([`spaced`]):
    /// without that a process still settled at ~8 or ~16 ms (medians of 9 processes, herdlab /
    /// tokio: 0.98x, 0.83-1.77, against 0.81x, 0.71-1.34, spaced).
    slots: Box<[Padded<AtomicRefCell<Slot>>]>,
    /// The last id handed out.
    last: AtomicU32,
    max: u32,
    /// The table's memory, scenario and world, set when the run starts.
    run: OnceLock<RunMem>,
    failure: Mutex<Option<String>>,
    /// Foreign wakes running core's injector now ([`Tasks::foreign_wake`]).
    inflight: AtomicU32,
    /// What the injectors counted (their `goready`s, their M wakes).
    injected: Mutex<MCounts>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("max", &self.max)
            .field("spawned", &self.spawned())
            .finish()
    }
}

/// The poll running on this thread: its runtime, its G and what it did, in cells of plain values
/// (no destructor to register, no borrow flag: reading or setting one is a single access to the
/// thread's memory). A yield touches only these: its wake sets `SELF_WOKEN`, the answer reads it.
/// The actions a poll makes besides its last (its spawns, its wakes of other Gs, a read, a
/// `LockOSThread`): the first here (`first`: a ping-pong's wake of its partner, a chain's spawn
/// of the next), the others in [`EXTRA`], with the spawned futures; `acts` and `spawns` count
/// them (this poll's entries in [`EXTRA`] are its last ones: a poll inside a poll, of another
/// runtime, pushes after the outer's and takes only its own).
struct PollCx {
    /// The runtime's address (which runtime a waker belongs to; no reference is held); 0: no
    /// poll of herdlab's runs on this thread.
    tasks: Cell<usize>,
    g: Cell<u32>,
    /// [`SELF_WOKEN`], [`GOSCHED`], [`NET_WAIT`].
    flags: Cell<u8>,
    /// A [`syscall_sleep`] of this many ns is pending: the G's next action is the syscall.
    syscall: Cell<Option<u64>>,
    /// This poll's actions before its last: `first`, then `acts - 1` in [`EXTRA`]'s `acts`.
    acts: Cell<u32>,
    /// The first of them (when `acts` is at least 1).
    first: Cell<GAct>,
    /// This poll's futures in [`EXTRA`]'s `spawns` (each for its `GAct::Spawn`, in order; its
    /// id is given after the poll).
    spawns: Cell<u32>,
}

/// The G woke its own waker during the poll (a yield).
const SELF_WOKEN: u8 = 1;
/// The self-wake came from [`gosched`]: the G goes to the global queue.
const GOSCHED: u8 = 2;
/// A [`net_read`] is pending: the burst ends with its `GAct::NetWait`.
const NET_WAIT: u8 = 4;

/// A [`PollCx`]'s values, kept across a poll (the enclosing poll's, restored after it) or read
/// at its end (the poll's own).
#[derive(Clone, Copy)]
struct PollState {
    tasks: usize,
    g: u32,
    flags: u8,
    syscall: Option<u64>,
    acts: u32,
    first: GAct,
    spawns: u32,
}

impl PollCx {
    fn get(&self) -> PollState {
        PollState {
            tasks: self.tasks.get(),
            g: self.g.get(),
            flags: self.flags.get(),
            syscall: self.syscall.get(),
            acts: self.acts.get(),
            first: self.first.get(),
            spawns: self.spawns.get(),
        }
    }
    fn set(&self, s: PollState) {
        self.tasks.set(s.tasks);
        self.g.set(s.g);
        self.flags.set(s.flags);
        self.syscall.set(s.syscall);
        self.acts.set(s.acts);
        self.first.set(s.first);
        self.spawns.set(s.spawns);
    }
    fn flag(&self, f: u8) {
        self.flags.set(self.flags.get() | f);
    }
    /// Add `a` to this poll's actions: the first in a cell, the others in [`EXTRA`].
    fn push(&self, a: GAct) {
        let n = self.acts.get();
        if n == 0 {
            self.first.set(a);
        } else {
            EXTRA.with_borrow_mut(|x| x.acts.push(a));
        }
        self.acts.set(n + 1);
    }
    /// Whether this poll's actions include `a`.
    fn has(&self, a: GAct) -> bool {
        match self.acts.get() {
            0 => false,
            1 => self.first.get() == a,
            n => {
                self.first.get() == a
                    || EXTRA.with_borrow(|x| {
                        let at = x.acts.len().saturating_sub(n as usize - 1);
                        x.acts[at..].contains(&a)
                    })
            }
        }
    }
}

/// The actions and futures a poll makes beyond what [`PollCx`]'s cells hold, of every poll
/// running on this thread (each poll's are the last of them, as its [`PollCx`] counts).
struct Extra {
    acts: Vec<GAct>,
    spawns: Vec<BoxFut>,
}

thread_local! {
    static CURRENT: PollCx = const {
        PollCx {
            tasks: Cell::new(0),
            g: Cell::new(0),
            flags: Cell::new(0),
            syscall: Cell::new(None),
            acts: Cell::new(0),
            first: Cell::new(GAct::Exit),
            spawns: Cell::new(0),
        }
    };
    static EXTRA: RefCell<Extra> = const {
        RefCell::new(Extra {
            acts: Vec::new(),
            spawns: Vec::new(),
        })
    };
}

/// What a poll did, in order: one action (a yield, a park, an exit), two (a wake or a spawn,
/// then one of those), or more, in [`BURST_ACTS`] (the first given, and how many).
#[derive(Clone, Copy)]
enum Answer {
    One(GAct),
    Two(GAct, GAct),
    Many(GAct, u32),
}

impl Tasks {
    /// Room for `max` Gs.
    pub fn new(max: u32) -> Arc<Self> {
        Arc::new(Tasks {
            slots: (0..=max)
                .map(|_| Padded(AtomicRefCell::new(Slot::default())))
                .collect(),
            last: AtomicU32::new(0),
            max,
            run: OnceLock::new(),
            failure: Mutex::new(None),
            inflight: AtomicU32::new(0),
            injected: Mutex::new(MCounts::default()),
        })
    }

    /// The Gs spawned so far (roots included).
    pub fn spawned(&self) -> u32 {
        self.last.load(SeqCst).min(self.max)
    }

    /// The `Yield`s answered (after the run: it reads every G's slot).
    pub fn yields(&self) -> u64 {
        self.slots
            .iter()
            .map(|s| s.0.try_borrow().map_or(0, |s| u64::from(s.yields)))
            .sum()
    }

    /// The first failure (a spawn past the room, a poll that panicked, a foreign wake whose
    /// injection failed).
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn fail(&self, what: String) {
        let mut f = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        if f.is_none() {
            *f = Some(what);
        }
    }

    /// Give the next G id `fut` (`None`: no room left, the run fails).
    fn put(&self, fut: BoxFut) -> Option<u32> {
        let g = self.last.fetch_add(1, SeqCst) + 1;
        if g > self.max {
            self.fail(format!(
                "more than {} tasks spawned (the run's room)",
                self.max
            ));
            return None;
        }
        match self.slots[g as usize].0.try_borrow_mut() {
            Ok(mut slot) => slot.fut = Some(SyncWrapper::new(fut)),
            Err(_) => {
                self.fail(format!("G{g}'s slot was in use when it was spawned"));
                return None;
            }
        }
        Some(g)
    }

    /// A G before the run starts (the first is `main`; with an outside spawner, each is one of
    /// its spawns). Its id.
    pub fn root(&self, fut: impl Future<Output = ()> + Send + 'static) -> Option<u32> {
        self.put(Box::pin(spaced(fut)))
    }

    /// The run starts on this memory.
    pub(crate) fn attach(&self, run: RunMem) {
        let _ = self.run.set(run);
    }

    /// After the run: wait for the foreign wakes still inside their `injectglist` (its tail
    /// after the G is queued: the lock, an M's note) and take what they counted.
    pub(crate) fn settle(&self) -> Result<MCounts, NativeError> {
        let t0 = std::time::Instant::now();
        while self.inflight.load(SeqCst) != 0 {
            if t0.elapsed() >= WAIT_TIMEOUT {
                return Err(NativeError::new(format!(
                    "a foreign wake's injectglist ran past {} s",
                    WAIT_TIMEOUT.as_secs()
                )));
            }
            std::thread::yield_now();
        }
        Ok(std::mem::take(
            &mut *self.injected.lock().unwrap_or_else(PoisonError::into_inner),
        ))
    }

    /// M `m`'s [`GCode`].
    pub fn code(self: &Arc<Self>) -> Arc<dyn GCode> {
        Arc::new(MCode {
            tasks: self.clone(),
        })
    }

    /// Poll G `g` once (this M runs it) and return what the poll did, in order.
    ///
    /// Its cost beside the table's steps: the slot's lock and unlock (two atomic
    /// read-modify-writes, uncontended) and the thread-local cells; the waker is made once per G
    /// and lent to each poll, no reference count moves. A poll of one action (a yield, a park,
    /// an exit) or of two (a wake of another G or a spawn, then one of those) touches no vector
    /// but the spawn's.
    fn poll(self: &Arc<Self>, g: u32) -> Answer {
        if CURRENT.with(|c| c.tasks.get() != 0) {
            return self.poll_nested(g);
        }
        self.poll_alone(g)
    }

    /// [`Tasks::poll`] inside a poll of another runtime's G on this thread (a future that runs
    /// another runtime to its end): the enclosing poll's context kept aside, and back after.
    #[cold]
    #[inline(never)]
    fn poll_nested(self: &Arc<Self>, g: u32) -> Answer {
        let outer = CURRENT.with(|c| c.get());
        let a = self.poll_alone(g);
        CURRENT.with(|c| c.set(outer));
        a
    }

    /// [`Tasks::poll`] with no poll of this runtime's around it on this thread: it leaves the
    /// context empty (`tasks` 0).
    #[inline(always)]
    fn poll_alone(self: &Arc<Self>, g: u32) -> Answer {
        let Some(slot) = self.slots.get(g as usize) else {
            self.fail(format!("the table ran G{g}, which has no slot"));
            return Answer::One(GAct::Exit);
        };
        let Ok(mut slot) = slot.0.try_borrow_mut() else {
            self.fail(format!(
                "G{g} was polled by two threads at once (the table ran it on two Ms)"
            ));
            return Answer::One(GAct::Exit);
        };
        let Slot {
            fut,
            waker: kept,
            yields,
        } = &mut *slot;
        let Some(f) = fut.as_mut() else {
            self.fail(format!(
                "G{g} ran with no future (run twice, or never spawned)"
            ));
            return Answer::One(GAct::Exit);
        };
        let waker = kept.get_or_insert_with(|| {
            Waker::from(Arc::new(GWaker {
                tasks: self.clone(),
                g,
            }))
        });
        let me = Arc::as_ptr(self) as usize;
        CURRENT.with(|c| {
            c.tasks.set(me);
            c.g.set(g);
            c.flags.set(0);
            c.syscall.set(None);
            c.acts.set(0);
            c.spawns.set(0);
        });
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            f.get_mut().as_mut().poll(&mut Context::from_waker(waker))
        }));
        let done = match r {
            Ok(Poll::Ready(())) => true,
            Ok(Poll::Pending) => false,
            Err(_) => {
                self.fail(format!("G{g}'s future panicked"));
                true
            }
        };
        if done {
            // dropped inside the poll's context: the wakes of its drop are its actions
            let f = fut.take();
            *kept = None;
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(f)));
        }
        let (flags, syscall, acts) = CURRENT.with(|c| {
            c.tasks.set(0);
            (c.flags.get(), c.syscall.get(), c.acts.get())
        });
        let last = if done {
            Some(GAct::Exit)
        } else if flags & NET_WAIT != 0 {
            // the burst ends with the read's `NetWait` (the G parks on its pollDesc unless the
            // answer is there); it is polled again at the read's `NetDone`
            None
        } else if let Some(ns) = syscall {
            // the G blocks its M in the kernel; it is polled again after `exitsyscall` (a wake
            // of its own during this poll changes nothing: it runs on after the call anyway)
            Some(GAct::Syscall(ns))
        } else if flags & SELF_WOKEN != 0 {
            *yields += 1;
            Some(if flags & GOSCHED != 0 {
                GAct::Yield
            } else {
                GAct::GoYield
            })
        } else {
            Some(GAct::Park)
        };
        drop(slot);
        if let (Some(a), 0) = (last, acts) {
            return Answer::One(a);
        }
        let mine = CURRENT.with(|c| c.get());
        match (last, mine.acts, mine.spawns) {
            (Some(a), 1, 0) => Answer::Two(mine.first, a),
            (Some(a), 1, 1) => Answer::Two(self.spawn_one(mine.first), a),
            _ => self.burst(mine, last),
        }
    }

    /// A poll's one spawn, `act` (its future the last in [`EXTRA`]) into its slot: the
    /// `GAct::Spawn` with its id.
    fn spawn_one(&self, act: GAct) -> GAct {
        let f = EXTRA.with_borrow_mut(|x| x.spawns.pop());
        match act {
            GAct::Spawn(_) => self.placed(f),
            _ => self.placed(None),
        }
    }

    /// A spawn's future into its slot: its `GAct::Spawn` with the new id; with no future, or
    /// no room (the run fails), a newproc of nothing.
    fn placed(&self, f: Option<BoxFut>) -> GAct {
        let Some(f) = f else {
            self.fail("a spawn without its future".to_string());
            return GAct::Work(0);
        };
        match self.put(f) {
            Some(g2) => GAct::Spawn(g2),
            None => GAct::Work(0),
        }
    }

    /// A poll's burst of more than two actions (or of its read's `NetWait` alone): its actions
    /// and futures out of [`EXTRA`], each spawned future into its slot (its `GAct::Spawn` takes
    /// the id), `last` after them; the whole burst into [`BURST_ACTS`].
    #[cold]
    #[inline(never)]
    fn burst(&self, mine: PollState, last: Option<GAct>) -> Answer {
        let mut acts = BURST_ACTS.with_borrow_mut(std::mem::take);
        acts.clear();
        // a poll that is not inside another (the usual case) owns all of `EXTRA`: its vectors
        // change hands, nothing is copied or allocated (a spawn of 9,999 tasks in one poll
        // copied 160 KB twice, which the allocator mapped and unmapped each run)
        let mut spawns = EXTRA.with_borrow_mut(|x| {
            let at = x
                .acts
                .len()
                .saturating_sub((mine.acts as usize).saturating_sub(1));
            if at == 0 {
                std::mem::swap(&mut acts, &mut x.acts);
            } else {
                acts.extend(x.acts.drain(at..));
            }
            let at = x.spawns.len().saturating_sub(mine.spawns as usize);
            if at == 0 {
                std::mem::take(&mut x.spawns)
            } else {
                x.spawns.split_off(at)
            }
        });
        if mine.acts > 0 {
            acts.insert(0, mine.first);
        }
        // the spawned futures into their slots, before the table makes them runnable (no
        // thread-local is borrowed: a future that cannot be placed is dropped, and its drop
        // may wake)
        let mut futs = spawns.drain(..);
        for a in acts.iter_mut() {
            if let GAct::Spawn(_) = a {
                *a = self.placed(futs.next());
            }
        }
        drop(futs);
        // the emptied vector back, for the next poll's spawns
        EXTRA.with_borrow_mut(|x| {
            if x.spawns.is_empty() && x.spawns.capacity() < spawns.capacity() {
                x.spawns = spawns;
            }
        });
        acts.extend(last);
        let first = acts.first().copied().unwrap_or(GAct::Park);
        let second = acts.get(1).copied().unwrap_or(first);
        let n = acts.len() as u32;
        BURST_ACTS.with_borrow_mut(|b| *b = acts);
        match n {
            0 | 1 => Answer::One(first),
            // a burst of two is answered from the cells, as the fast path's
            2 => Answer::Two(first, second),
            n => Answer::Many(first, n),
        }
    }

    /// A wake of G `g` from outside every poll of this runtime: this thread is core's injector
    /// for `g` (a token if `g` has not parked, else `injectglist` with no P; module docs).
    fn foreign_wake(&self, g: u32) {
        let Some(run) = self.run.get() else {
            // before the run: every G is polled at its first run anyway
            return;
        };
        self.inflight.fetch_add(1, SeqCst);
        match run.inject(g) {
            Ok(c) => {
                let mut t = self.injected.lock().unwrap_or_else(PoisonError::into_inner);
                t.readies += c.readies;
                t.futex_wakes += c.futex_wakes;
                t.no_m += c.no_m;
            }
            Err(e) => {
                let what = format!("a foreign wake of G{g} failed: {}", e.0);
                self.fail(what.clone());
                run.world.fail(&what);
            }
        }
        self.inflight.fetch_sub(1, SeqCst);
    }
}

/// A G's waker.
struct GWaker {
    tasks: Arc<Tasks>,
    g: u32,
}

impl Wake for GWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let me = Arc::as_ptr(&self.tasks) as usize;
        let inside = CURRENT.with(|c| {
            if c.tasks.get() != me {
                return false;
            }
            if c.g.get() == self.g {
                c.flag(SELF_WOKEN);
            } else if !c.has(GAct::Ready(self.g)) {
                // once per poll: a second wake of the same G readies nothing more
                c.push(GAct::Ready(self.g));
            }
            true
        });
        if !inside {
            self.tasks.foreign_wake(self.g);
        }
    }
}

/// Spawn `fut` as a new G of the runtime whose G is being polled on this thread (`go f()`: the
/// poll's next action is `newproc` of it; its G id is given when the poll returns). Outside a
/// poll of herdlab's runtime it panics.
pub fn spawn(fut: impl Future<Output = ()> + Send + 'static) {
    let fut: BoxFut = Box::pin(spaced(fut));
    let inside = in_poll(|c| {
        EXTRA.with_borrow_mut(|x| x.spawns.push(fut));
        c.spawns.set(c.spawns.get() + 1);
        c.push(GAct::Spawn(0));
    });
    assert!(inside, "herdlab::spawn outside a G of herdlab's runtime");
}

/// Yield as tokio's `yield_now` does: the first poll wakes the G's own waker and is pending,
/// the next is ready. The G's `GoYield` (Go's `goyield`): the tail of its P's own ring, no lock
/// and no `wakep`, as tokio puts the task behind its worker's local queue. Any future that wakes
/// its own waker and returns `Pending` yields the same way.
pub fn yield_now() -> YieldNow {
    YieldNow {
        polled: false,
        gosched: false,
    }
}

/// Read from this G's connection, as a future: the table's `GAct::NetWait` (send the request to
/// the G's peer, then `netpollblock`: park on the `pollDesc` until a `netpoll` finds the answer,
/// unless it is there already), then, when the G runs again, `GAct::NetDone` (consume the
/// readiness). Only in the `netpoll` workload's world, whose peer per G answers each request
/// after `net_ns` and serves exactly `rounds` of them: each G of such a run reads `rounds` times.
/// Outside a poll of herdlab's runtime it panics.
pub fn net_read() -> NetRead {
    NetRead { sent: false }
}

/// [`net_read`]'s future.
#[derive(Debug)]
pub struct NetRead {
    sent: bool,
}

impl Future for NetRead {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.sent {
            assert!(
                in_poll(|p| p.push(GAct::NetDone)),
                "herdlab::net_read outside a G of herdlab's runtime"
            );
            Poll::Ready(())
        } else {
            self.sent = true;
            assert!(
                in_poll(|p| {
                    p.push(GAct::NetWait);
                    p.flag(NET_WAIT);
                }),
                "herdlab::net_read outside a G of herdlab's runtime"
            );
            Poll::Pending
        }
    }
}

/// `runtime.LockOSThread()`: wire the G that is being polled on this thread and the M that
/// polls it (the table's `LockOSThread` rows, when the poll returns): from then on the G runs
/// only on this M, and this M runs only this G (`startlockedm`, `stoplockedm`), until
/// [`unlock_os_thread`] or the G's end, when the M exits with it. The run's scenario must be
/// the `locked` workload's world (its lock words). Outside a poll of herdlab's runtime it panics.
pub fn lock_os_thread() {
    if !in_poll(|p| p.push(GAct::LockOSThread)) {
        panic!("herdlab::lock_os_thread outside a G of herdlab's runtime");
    }
}

/// `runtime.UnlockOSThread()`: undo [`lock_os_thread`] (the table's `dounlockOSThread` rows,
/// when the poll returns); the G runs on any M again. Outside a poll of herdlab's runtime it
/// panics.
pub fn unlock_os_thread() {
    if !in_poll(|p| p.push(GAct::UnlockOSThread)) {
        panic!("herdlab::unlock_os_thread outside a G of herdlab's runtime");
    }
}

/// `runtime.Gosched()` as a future: as [`yield_now`], but the G's `Yield`: the *global* queue
/// under `sched.lock`, then `wakep` (`goschedImpl`). Outside a poll of herdlab's runtime it
/// yields as [`yield_now`] (the flag is this runtime's).
pub fn gosched() -> YieldNow {
    YieldNow {
        polled: false,
        gosched: true,
    }
}

/// A blocking system call that sleeps `ns` in the kernel, as a future. On herdlab's runtime the
/// G's next action is the table's [`GAct::Syscall`]: `entersyscall`, a real `nanosleep(2)` of the
/// M's thread (sysmon may retake the P meanwhile and hand it to another M), `exitsyscall`; then
/// the G is polled again and the future is ready. Elsewhere (outside a poll of this runtime) it
/// blocks the calling thread for `ns`, as the call would.
pub fn syscall_sleep(ns: u64) -> SyscallSleep {
    SyscallSleep { ns, polled: false }
}

/// Inside a poll of this runtime on this thread, `f` on its context, and true; else false.
fn in_poll(f: impl FnOnce(&PollCx)) -> bool {
    CURRENT.with(|c| {
        if c.tasks.get() == 0 {
            return false;
        }
        f(c);
        true
    })
}

/// [`syscall_sleep`]'s future.
#[derive(Debug)]
pub struct SyscallSleep {
    ns: u64,
    polled: bool,
}

impl Future for SyscallSleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.polled {
            return Poll::Ready(());
        }
        self.polled = true;
        let ns = self.ns;
        if in_poll(|p| p.syscall.set(Some(ns))) {
            Poll::Pending
        } else {
            std::thread::sleep(std::time::Duration::from_nanos(ns));
            Poll::Ready(())
        }
    }
}

/// [`yield_now`]'s and [`gosched`]'s future.
#[derive(Debug)]
pub struct YieldNow {
    polled: bool,
    gosched: bool,
}

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.polled {
            Poll::Ready(())
        } else {
            self.polled = true;
            if self.gosched {
                in_poll(|p| p.flag(GOSCHED));
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// What the last poll on this thread answered: the runtime, the G, the `pc` of its first
/// action, how many actions, the first and the second (a burst of one or two, a yield's or a
/// ping-pong's, needs no more); a longer burst's actions are in [`BURST_ACTS`]. An M is one
/// thread, so this is the M's own (no lock).
struct Burst {
    tasks: Cell<usize>,
    g: Cell<u32>,
    base: Cell<u32>,
    len: Cell<u32>,
    first: Cell<GAct>,
    /// The second action of a burst of two.
    second: Cell<GAct>,
}

impl Burst {
    /// The action at `pc` of G `g` of runtime `tasks`, if the last poll made it.
    #[inline(always)]
    fn at(&self, tasks: usize, g: u32, pc: u32) -> Option<GAct> {
        if self.tasks.get() != tasks || self.g.get() != g {
            return None;
        }
        let i = pc.checked_sub(self.base.get())?;
        match (self.len.get(), i) {
            (n, i) if i >= n => None,
            (_, 0) => Some(self.first.get()),
            (2, _) => Some(self.second.get()),
            _ => BURST_ACTS.with_borrow(|v| v.get(i as usize).copied()),
        }
    }
}

thread_local! {
    static BURST: Burst = const {
        Burst {
            tasks: Cell::new(0),
            g: Cell::new(0),
            base: Cell::new(0),
            len: Cell::new(0),
            first: Cell::new(GAct::Exit),
            second: Cell::new(GAct::Exit),
        }
    };
    /// The actions of the last poll's burst, when more than one.
    static BURST_ACTS: RefCell<Vec<GAct>> = const { RefCell::new(Vec::new()) };
}

/// An M's [`GCode`]: polls on the M's thread, and answers from the burst of the last poll.
struct MCode {
    tasks: Arc<Tasks>,
}

impl std::fmt::Debug for MCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MCode").field("tasks", &self.tasks).finish()
    }
}

impl GCode for MCode {
    fn action(&self, _c: &GmpConfig, g: u32, pc: u32) -> GAct {
        let me = Arc::as_ptr(&self.tasks) as usize;
        if let Some(a) = BURST.with(|b| b.at(me, g, pc)) {
            return a;
        }
        // a step past the last burst (or another G): the next poll (no thread-local is borrowed
        // while the future runs: a future may run another runtime's G code)
        let answer = self.tasks.poll(g);
        let (first, second, len) = match answer {
            Answer::One(a) => (a, a, 1),
            Answer::Two(a, b) => (a, b, 2),
            Answer::Many(a, n) => (a, a, n),
        };
        BURST.with(|b| {
            b.tasks.set(me);
            b.g.set(g);
            b.base.set(pc);
            b.len.set(len);
            b.first.set(first);
            b.second.set(second);
        });
        first
    }
}
