//! herdlab-web-engine: the simulator's hot loops as the site runs them, compiled for speed and
//! compiled once.
//!
//! The site (`herdlab-web`) is built for size: the `release-wasm` profile (the workspace's
//! `Cargo.toml`) compiles it with `opt-level = "z"`, so that its wasm stays under its size budget.
//! But the generic code of herdlab-core that the site runs, [`Simulation<M>`] and [`Stepper<M>`]
//! stepping and the checker's [`explore`], is instantiated in the crate that names `M`: compiled
//! inside the site, it would be compiled for size too, and the browser would run fewer steps and
//! check fewer states per second. This crate instantiates those methods here, in a crate the
//! profile compiles for speed; the site calls them through [`FastStepper`], [`FastSim`] and
//! [`check_locks`] instead of core's generic methods.
//!
//! The simulator is compiled once for every machine the site runs, not once per machine: the site
//! simulates [`AnyMachine`], one enum over the machines (the crate's one list of them), which
//! forwards every [`Machine`] method to the machine inside. A mechanism's simulation enters the
//! site through [`erase`]; the site's code that reads a thread's typed state gets it back with
//! [`Erased::of`]. (Instantiated per machine, core's `step_op` and its callers cost the main wasm
//! ~27 KB raw per machine.)
//!
//! Nothing here changes what a step does: every function forwards to core.

use core::hash::{Hash, Hasher};

use herdlab_core::check::{explore, CheckConfig, CheckReport};
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::accept::AcceptThread;
#[cfg(feature = "gmp")]
use herdlab_core::mechanisms::gmp::GmpActor;
use herdlab_core::mechanisms::herd::HerdThread;
use herdlab_core::mechanisms::locks::invariants::{check_state, check_terminal, check_world};
use herdlab_core::mechanisms::locks::{LockParams, LockWorker};
#[cfg(feature = "mysql")]
use herdlab_core::mechanisms::mysql::MysqlActor;
use herdlab_core::mechanisms::pool::PoolActor;
use herdlab_core::op::{AcceptPhase, Op, OpResult};
use herdlab_core::sim::stepper::Stepper;
use herdlab_core::sim::{Actor, Simulation, StepError, StepRecord};

/// A machine the site simulates and the simulation it builds, ready for the site's one simulator.
pub trait Erased: Machine + 'static {
    /// This machine as an [`AnyMachine`].
    fn erase(self) -> AnyMachine;
    /// The machine inside `m`, when it is one of this type.
    fn of(m: &AnyMachine) -> Option<&Self>;
    /// The machine inside `m`, when it is one of this type.
    fn take(m: AnyMachine) -> Option<Self>;
    /// The machine inside `m`, which must be one of this type: a mechanism's site code reads the
    /// simulations it made itself, so anything else is a bug (the panic names the type).
    fn get(m: &AnyMachine) -> &Self {
        match Self::of(m) {
            Some(x) => x,
            // the other machine's Debug is left out: it would bring every machine's Debug code
            // into the site
            None => panic!(
                "expected a {} machine, found another",
                core::any::type_name::<Self>()
            ),
        }
    }
}

/// A copy of `sim` with its machines unwrapped again: the typed simulation, for core's code that
/// reads a mechanism's own simulation (its report, its invariants). Every machine must be an `M`
/// ([`Erased::get`]).
pub fn typed<M: Erased>(sim: &Simulation<AnyMachine>) -> Simulation<M> {
    sim.clone().map_machines(|m| match M::take(m) {
        Some(x) => x,
        None => panic!(
            "expected a {} machine, found another",
            core::any::type_name::<M>()
        ),
    })
}

/// `sim` with its machines wrapped in [`AnyMachine`]: the same simulation, stepped by the one
/// simulator this crate compiles.
pub fn erase<M: Erased>(sim: Simulation<M>) -> Simulation<AnyMachine> {
    sim.map_machines(M::erase)
}

/// How an [`AnyMachine`] variant holds its machine: in place, or boxed (a machine much larger than
/// the others is boxed, so that every thread of every simulation does not carry its size).
trait Slot<T>: Sized {
    fn slot_wrap(t: T) -> Self;
    fn slot_ref(&self) -> &T;
    fn slot_take(self) -> T;
}

impl<T> Slot<T> for T {
    fn slot_wrap(t: T) -> Self {
        t
    }
    fn slot_ref(&self) -> &T {
        self
    }
    fn slot_take(self) -> T {
        self
    }
}

impl<T> Slot<T> for Box<T> {
    fn slot_wrap(t: T) -> Self {
        Box::new(t)
    }
    fn slot_ref(&self) -> &T {
        self
    }
    fn slot_take(self) -> T {
        *self
    }
}

macro_rules! any_machine {
    ($($(#[$attr:meta])* $variant:ident: $machine:ty => $store:ty),* $(,)?) => {
        /// Any machine the site simulates (see the crate's documentation). Equal when the same
        /// variant holds equal machines; hashes as the machine inside (so a simulation's
        /// `hash_logical` is the same as its typed form's).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum AnyMachine {
            $(
                #[doc = concat!("A [`", stringify!($machine), "`].")]
                $(#[$attr])*
                $variant($store),
            )*
        }

        $(
            $(#[$attr])*
            impl Erased for $machine {
                fn erase(self) -> AnyMachine {
                    AnyMachine::$variant(<$store as Slot<$machine>>::slot_wrap(self))
                }
                #[allow(unreachable_patterns)]
                fn of(m: &AnyMachine) -> Option<&Self> {
                    match m {
                        AnyMachine::$variant(x) => Some(Slot::<$machine>::slot_ref(x)),
                        _ => None,
                    }
                }
                #[allow(unreachable_patterns)]
                fn take(m: AnyMachine) -> Option<Self> {
                    match m {
                        AnyMachine::$variant(x) => Some(Slot::<$machine>::slot_take(x)),
                        _ => None,
                    }
                }
            }
        )*

        impl Hash for AnyMachine {
            fn hash<H: Hasher>(&self, h: &mut H) {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.hash(h), )*
                }
            }
        }

        impl Machine for AnyMachine {
            #[inline]
            fn next_op(&self) -> Op {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.next_op(), )*
                }
            }
            #[inline]
            fn complete(&mut self, result: OpResult) {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.complete(result), )*
                }
            }
            #[inline]
            fn line(&self) -> u16 {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.line(), )*
                }
            }
            fn listing(&self) -> &'static [&'static str] {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.listing(), )*
                }
            }
            fn kernel_line(&self, phase: AcceptPhase) -> u16 {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.kernel_line(phase), )*
                }
            }
            #[inline]
            fn serves_measured_event(&self) -> bool {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.serves_measured_event(), )*
                }
            }
            #[inline]
            fn is_done(&self) -> bool {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.is_done(), )*
                }
            }
            fn in_failed_spin(&self) -> bool {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.in_failed_spin(), )*
                }
            }
            fn skip_pauses(&mut self) -> u32 {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.skip_pauses(), )*
                }
            }
            #[inline]
            fn holds_word_lock(&self) -> Option<herdlab_core::op::Word> {
                match self {
                    $( $(#[$attr])* AnyMachine::$variant(m) => m.holds_word_lock(), )*
                }
            }
        }
    };
}

// One line per machine the site runs; a machine much larger than the herd's (24 bytes) is boxed.
any_machine!(
    Herd: HerdThread => HerdThread,
    Accept: AcceptThread => Box<AcceptThread>,
    Lock: LockWorker => Box<LockWorker>,
    Pool: PoolActor => Box<PoolActor>,
    // Go's scheduler is on the site in the lazily loaded bundle only (herdlab-web's `lazy`
    // feature turns this one on): the main wasm does not carry its step table.
    #[cfg(feature = "gmp")]
    Gmp: GmpActor => Box<GmpActor>,
    // MySQL's connection handling: lazy-only too.
    #[cfg(feature = "mysql")]
    Mysql: MysqlActor => Box<MysqlActor>,
);

/// [`Stepper`]'s stepping methods, compiled in this crate (see the crate's documentation).
pub trait FastStepper {
    /// [`Stepper::step`].
    fn step_fast(&mut self) -> Option<StepRecord>;
    /// [`Stepper::step_actor`].
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError>;
    /// [`Stepper::step_to_next_wakeup`].
    fn step_to_next_wakeup_fast(&mut self, max_steps: u64) -> u64;
    /// [`Stepper::step_back`].
    fn step_back_fast(&mut self) -> bool;
    /// [`Stepper::seek_back`].
    fn seek_back_fast(&mut self, target: u64);
}

impl FastStepper for Stepper<AnyMachine> {
    fn step_fast(&mut self) -> Option<StepRecord> {
        self.step()
    }
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError> {
        self.step_actor(actor)
    }
    fn step_to_next_wakeup_fast(&mut self, max_steps: u64) -> u64 {
        self.step_to_next_wakeup(max_steps)
    }
    fn step_back_fast(&mut self) -> bool {
        self.step_back()
    }
    fn seek_back_fast(&mut self, target: u64) {
        self.seek_back(target)
    }
}

/// [`Simulation`]'s stepping methods, compiled in this crate (see the crate's documentation).
pub trait FastSim {
    /// [`Simulation::step`].
    fn step_fast(&mut self) -> Option<StepRecord>;
    /// [`Simulation::step_actor`].
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError>;
    /// [`Simulation::run`].
    fn run_fast(&mut self, max_steps: u64) -> u64;
}

impl FastSim for Simulation<AnyMachine> {
    fn step_fast(&mut self) -> Option<StepRecord> {
        self.step()
    }
    fn step_actor_fast(&mut self, actor: Actor) -> Result<StepRecord, StepError> {
        self.step_actor(actor)
    }
    fn run_fast(&mut self, max_steps: u64) -> u64 {
        self.run(max_steps)
    }
}

/// The lock invariants over the checking platform, as `herdlab check` runs them: core's
/// [`explore`] of [`check_world`] with [`check_state`] and [`check_terminal`]. (The herd's check,
/// `herd::invariants::check`, is not generic: core compiles it.)
pub fn check_locks(
    p: &LockParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    explore(
        check_world(p),
        cfg,
        &|s| check_state(p, s),
        &|s| check_terminal(p, s),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::accept::AcceptParams;
    use herdlab_core::mechanisms::herd::HerdParams;

    /// The erased simulation of `typed` takes the same steps as `typed` stepped by core's generic
    /// methods: same records, same trace, same logical hash, and every thread's machine the same.
    fn same_run<M: Erased>(typed: Simulation<M>, steps: u64) {
        let mut b = typed.clone();
        let mut a = erase(typed);
        assert_eq!(
            a.step_actor_fast(Actor::Thread(1)),
            b.step_actor(Actor::Thread(1))
        );
        for _ in 0..steps {
            assert_eq!(a.step_fast(), b.step());
        }
        assert_eq!(a.run_fast(steps), b.run(steps));
        assert!(a.metrics().steps > steps, "the run went on");
        assert_eq!(a.trace_hash(), b.trace_hash());
        assert_eq!(a.metrics(), b.metrics());
        let (mut ha, mut hb) = (
            std::collections::hash_map::DefaultHasher::new(),
            std::collections::hash_map::DefaultHasher::new(),
        );
        a.hash_logical(&mut ha);
        b.hash_logical(&mut hb);
        assert_eq!(ha.finish(), hb.finish());
        assert_eq!(a.threads().len(), b.threads().len());
        for (ta, tb) in a.threads().iter().zip(b.threads()) {
            assert_eq!(M::of(ta.machine()), Some(tb.machine()));
            assert_eq!(ta.line(), tb.line());
        }
    }

    /// Every machine of the site runs the same through the one simulator.
    #[test]
    fn same_steps_as_core() {
        let p = HerdParams {
            workers: 4,
            connections: 20,
            ..Default::default()
        };
        same_run(p.simulate(), 200);
        same_run(AcceptParams::default().simulate(), 150);
        same_run(LockParams::default().simulate(), 150);
        same_run(
            herdlab_core::mechanisms::pool::PoolParams::default().simulate(),
            200,
        );

        let (mut a, mut b) = (
            Stepper::new(erase(p.simulate())),
            Stepper::new(p.simulate()),
        );
        for _ in 0..50 {
            assert_eq!(a.step_fast(), b.step());
        }
        assert_eq!(
            a.step_to_next_wakeup_fast(1000),
            b.step_to_next_wakeup(1000)
        );
        assert_eq!(a.step_back_fast(), b.step_back());
        assert_eq!(
            a.step_actor_fast(Actor::Thread(0)).is_ok(),
            b.step_actor(Actor::Thread(0)).is_ok()
        );
        assert_eq!(a.sim().trace_hash(), b.sim().trace_hash());
    }

    /// A machine is found only in its own variant.
    #[test]
    fn of_finds_only_its_own_type() {
        let sim = erase(LockParams::default().simulate());
        let m = sim.threads()[0].machine();
        assert!(LockWorker::of(m).is_some());
        assert!(HerdThread::of(m).is_none());
        assert!(PoolActor::of(m).is_none());
        assert!(AcceptThread::of(m).is_none());
        assert_eq!(LockWorker::get(m), LockWorker::of(m).unwrap());
        assert!(HerdThread::take(m.clone()).is_none());
        // the herd's threads are small: a simulation of 64 does not carry the pool's size
        assert!(size_of::<AnyMachine>() <= 32, "{}", size_of::<AnyMachine>());
        let back: Simulation<LockWorker> = typed(&sim);
        assert_eq!(back, LockParams::default().simulate());
    }

    #[test]
    fn checks_locks_as_core() {
        let p = LockParams {
            threads: 2,
            rounds: 1,
            ..Default::default()
        };
        let cfg = CheckConfig::default();
        let ours = check_locks(&p, &cfg, &mut |_| true);
        let core = explore(
            check_world(&p),
            &cfg,
            &|s| check_state(&p, s),
            &|s| check_terminal(&p, s),
            &mut |_| true,
        );
        assert_eq!(ours.states, core.states);
        assert!(ours.states > 0);
    }
}
