//! herdlab's native G is a Rust future: the Gs' code for core's G/M/P table on real threads.
//!
//! A G is a `Pin<Box<dyn Future<Output = ()> + Send>>` in a slot of its own ([`Tasks`]); the
//! scheduler is core's `Sched` table in its straight-line form, unchanged. The seam is core's
//! [`GCode`]: each M's actor is made with [`GmpActor::with_code`], and when the table asks for
//! the running G's action at a new step (`Workload::action` in the simulator), the M polls that
//! G's future once and answers with what the poll did, one action per table step:
//! - each [`spawn`] made during the poll → [`GAct::Spawn`] (`newproc` into the M's `runnext`,
//!   the table's path);
//! - each waker of another G woken during the poll → [`GAct::Ready`] (`goready` through the G's
//!   wait word: a token if that G is not parked yet, which its park then finds, so a wake before
//!   the park is not lost);
//! - then `Poll::Ready` → [`GAct::Exit`]; `Pending` after waking its own waker ([`yield_now`])
//!   → [`GAct::Yield`] (`Gosched`: the global queue under `sched.lock`); any other `Pending` →
//!   [`GAct::Park`] (`gopark`, unless a token came, then it is polled again at once).
//!
//! The future is dropped inside the poll's context, so a wake its drop makes (a dropped oneshot
//! sender) is an action of the G too.
//!
//! # Ownership of a G's future
//! Only the M that runs G g (`_Grunning`, `m.curg = g`) polls g's future: the table hands a G to
//! exactly one M at a time, and core's invariant `conservation` proves it. The slot is a
//! `std::sync::Mutex` all the same, so that this holds without `unsafe`: the M locks it around the
//! poll, uncontended by that invariant (a lock and an unlock: two atomic read-modify-writes, a
//! few nanoseconds beside the table's steps per run of a G). The spawner (`spawn_many`,
//! `yield_many`) fills the slots before the run; a G's [`spawn`] fills the child's slot before
//! the table makes the child runnable.
//!
//! # Wakes from outside a poll
//! A waker is `Send + Sync`. Woken outside every poll of this runtime (a foreign thread, a timer),
//! it puts the token on the G's wait word (`EMPTY → TOKEN`, the same CAS the table's `SendPost`
//! makes): a G that has not parked yet finds it at its park and is polled again, so that wake is
//! not lost. A G already parked would need `goready` from outside every P (Go's `injectglist`
//! without a P); the table has that path only for the spawner's new Gs, not for a foreign wake,
//! so such a wake is not dropped but fails the run with a clear error ([`FOREIGN_PARKED`]).
//!
//! Limits: the Gs are core's words, so a run has a fixed number of Gs (each id runs once), given
//! up front ([`Tasks::new`]); a spawn past it fails the run. The G ids are handed out in spawn
//! order (the spawner's roots first).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use herdlab_core::mechanisms::gmp::machine::wait;
use herdlab_core::mechanisms::gmp::{GAct, GCode, GmpConfig};

use super::layout::{GoMemory, IN_WORLD};

/// A G's code.
pub type BoxFut = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// The error of a foreign wake that found its G parked.
pub const FOREIGN_PARKED: &str = "a waker was woken outside the runtime's Gs after its G parked: \
     goready from outside every P is not implemented for futures (only a wake before the park is)";

/// A G's slot: its future (taken at its exit) and its waker (made at its first poll).
#[derive(Default)]
struct Slot {
    fut: Option<BoxFut>,
    waker: Option<Waker>,
}

/// The Gs of one run: a slot per G id (1..=`max`), the ids handed out, the run's memory (for a
/// wake from outside), the yields made, the first failure.
pub struct Tasks {
    slots: Box<[Mutex<Slot>]>,
    /// The last id handed out.
    last: AtomicU32,
    max: u32,
    /// The table's memory and scenario, set when the run starts.
    mem: OnceLock<(Arc<GoMemory>, GmpConfig)>,
    /// `Yield` actions answered (each a `Gosched`).
    yields: AtomicU32,
    failure: Mutex<Option<String>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("max", &self.max)
            .field("spawned", &self.spawned())
            .finish()
    }
}

/// The poll running on this thread: its runtime, its G and what it did.
struct PollCx {
    tasks: Arc<Tasks>,
    g: u32,
    acts: Vec<GAct>,
    self_woken: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<PollCx>> = const { RefCell::new(None) };
}

impl Tasks {
    /// Room for `max` Gs.
    pub fn new(max: u32) -> Arc<Self> {
        Arc::new(Tasks {
            slots: (0..=max).map(|_| Mutex::new(Slot::default())).collect(),
            last: AtomicU32::new(0),
            max,
            mem: OnceLock::new(),
            yields: AtomicU32::new(0),
            failure: Mutex::new(None),
        })
    }

    /// The Gs spawned so far (roots included).
    pub fn spawned(&self) -> u32 {
        self.last.load(SeqCst).min(self.max)
    }

    /// The `Yield`s answered.
    pub fn yields(&self) -> u32 {
        self.yields.load(SeqCst)
    }

    /// The first failure (a spawn past the room, a poll that panicked, a foreign wake after the
    /// park).
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
        self.slots[g as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .fut = Some(fut);
        Some(g)
    }

    /// A G before the run starts (the first is `main`; with an outside spawner, each is one of
    /// its spawns). Its id.
    pub fn root(&self, fut: impl Future<Output = ()> + Send + 'static) -> Option<u32> {
        self.put(Box::pin(fut))
    }

    /// The run starts on this memory.
    pub(crate) fn attach(&self, mem: Arc<GoMemory>, cfg: GmpConfig) {
        let _ = self.mem.set((mem, cfg));
    }

    /// M `m`'s [`GCode`].
    pub fn code(self: &Arc<Self>) -> Arc<dyn GCode> {
        Arc::new(MCode {
            tasks: self.clone(),
            burst: Mutex::new(Burst::default()),
        })
    }

    /// Poll G `g` once (this M runs it) and return what the poll did, in order.
    fn poll(self: &Arc<Self>, g: u32, acts: &mut Vec<GAct>) {
        let Some(slot) = self.slots.get(g as usize) else {
            self.fail(format!("the table ran G{g}, which has no slot"));
            acts.push(GAct::Exit);
            return;
        };
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = &mut *slot;
        let Some(fut) = slot.fut.as_mut() else {
            self.fail(format!(
                "G{g} ran with no future (run twice, or never spawned)"
            ));
            acts.push(GAct::Exit);
            return;
        };
        let waker = slot
            .waker
            .get_or_insert_with(|| {
                Waker::from(Arc::new(GWaker {
                    tasks: self.clone(),
                    g,
                }))
            })
            .clone();
        CURRENT.with(|c| {
            *c.borrow_mut() = Some(PollCx {
                tasks: self.clone(),
                g,
                acts: std::mem::take(acts),
                self_woken: false,
            })
        });
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fut.as_mut().poll(&mut Context::from_waker(&waker))
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
            let f = slot.fut.take();
            slot.waker = None;
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(f)));
        }
        let cx = CURRENT
            .with(|c| c.borrow_mut().take())
            .expect("the poll's context");
        *acts = cx.acts;
        acts.push(if done {
            GAct::Exit
        } else if cx.self_woken {
            self.yields.fetch_add(1, Relaxed);
            GAct::Yield
        } else {
            GAct::Park
        });
    }

    /// A wake of G `g` from outside every poll of this runtime: the token on its wait word.
    fn foreign_wake(&self, g: u32) {
        let Some((mem, cfg)) = self.mem.get() else {
            // before the run: every G is polled at its first run anyway
            return;
        };
        let Some(e) = mem.entry(cfg.wait(g)).filter(|e| e & IN_WORLD == 0) else {
            self.fail(format!("G{g}'s wait word is not in the run's memory"));
            return;
        };
        let w = GoMemory::at(&mem.lines, e);
        match w.compare_exchange(wait::EMPTY, wait::TOKEN, SeqCst, SeqCst) {
            Ok(_) | Err(wait::TOKEN) => {}
            Err(_) => self.fail(format!("G{g}: {FOREIGN_PARKED}")),
        }
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
        let inside = CURRENT.with(|c| {
            let mut c = c.borrow_mut();
            match c.as_mut() {
                Some(cx) if Arc::ptr_eq(&cx.tasks, &self.tasks) => {
                    if cx.g == self.g {
                        cx.self_woken = true;
                    } else if !cx.acts.contains(&GAct::Ready(self.g)) {
                        cx.acts.push(GAct::Ready(self.g));
                    }
                    true
                }
                _ => false,
            }
        });
        if !inside {
            self.tasks.foreign_wake(self.g);
        }
    }
}

/// Spawn `fut` as a new G of the runtime whose G is being polled on this thread (`go f()`: the
/// poll's next action is `newproc` of it). Outside a poll of herdlab's runtime it panics.
pub fn spawn(fut: impl Future<Output = ()> + Send + 'static) {
    let fut: BoxFut = Box::pin(fut);
    let tasks = CURRENT.with(|c| c.borrow().as_ref().map(|cx| cx.tasks.clone()));
    let tasks = tasks.expect("herdlab::spawn outside a G of herdlab's runtime");
    if let Some(g) = tasks.put(fut) {
        CURRENT.with(|c| {
            if let Some(cx) = c.borrow_mut().as_mut() {
                cx.acts.push(GAct::Spawn(g));
            }
        });
    }
}

/// `runtime.Gosched()` as a future: the first poll wakes the G's own waker and is pending (the
/// G's `Yield`: the global queue), the next is ready.
pub fn yield_now() -> YieldNow {
    YieldNow(false)
}

/// [`yield_now`]'s future.
#[derive(Debug)]
pub struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// What one poll of the current G answered, and where in its `pc`s it stands.
#[derive(Default)]
struct Burst {
    g: u32,
    base: u32,
    acts: Vec<GAct>,
}

/// One M's [`GCode`]: the actions of its last poll (the M's own: only its thread asks, so the
/// lock is uncontended).
struct MCode {
    tasks: Arc<Tasks>,
    burst: Mutex<Burst>,
}

impl std::fmt::Debug for MCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MCode").field("tasks", &self.tasks).finish()
    }
}

impl GCode for MCode {
    fn action(&self, _c: &GmpConfig, g: u32, pc: u32) -> GAct {
        let mut b = self.burst.lock().unwrap_or_else(PoisonError::into_inner);
        if b.g == g && pc >= b.base {
            if let Some(&a) = b.acts.get((pc - b.base) as usize) {
                return a;
            }
        }
        // a step past the last burst (or another G): the next poll
        b.g = g;
        b.base = pc;
        let mut acts = std::mem::take(&mut b.acts);
        acts.clear();
        self.tasks.poll(g, &mut acts);
        let a = acts[0];
        b.acts = acts;
        a
    }
}
