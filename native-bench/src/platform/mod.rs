//! Platforms that execute `herdlab_core`'s primitive operations.
//!
//! The simulated platform lives in `herdlab_core::sim`; this crate adds the native one
//! ([`native`]), which runs the very same [`herdlab_core::machine::Machine`] values on real OS
//! threads: every [`herdlab_core::op::Op`] becomes the real thing (an atomic word, `futex(2)`, a
//! `std::sync::Mutex`/`Condvar`, a blocking `accept(2)`, a spin on the monotonic clock,
//! `clock_nanosleep(2)`), and the
//! event world ([`net`], Linux only), where the event-driven operations run on real loopback TCP
//! sockets and real epoll instances.
//!
//! Both worlds' threads implement core's typed primitives (`herdlab_core::machine::steps::Ops`),
//! and both run a stepped machine through the one executor, [`exec`]: each [`herdlab_core::op::Op`]
//! calls its typed method, so an operation means the same in the straight-line form and the stepped
//! one, in the lock world and in the event world.
//!
//! Generic: names no mechanism.

#[cfg(target_os = "linux")]
pub mod affinity;
pub(crate) mod futex;
#[cfg(unix)]
pub mod interrupt;
pub mod kernel;
#[cfg(unix)]
pub mod limits;
pub mod mem;
pub mod native;
#[cfg(target_os = "linux")]
pub mod net;
pub mod scratch;
mod sem;
mod sleep;
pub mod wake;

/// The one executor of the stepped form on this platform: core's, over a thread's `Ops`.
pub use herdlab_core::machine::steps::exec;

pub use sleep::{sleep_median_ns, sleep_ns, timer_slack_ns};

pub use native::{
    drive, supported, thread_nvcsw, thread_state, EventGate, NativeError, NativeWorld,
    ThreadReport, ThreadSlot, WorldSpec, GATE_TIMEOUT, WAIT_TIMEOUT,
};
