//! Step tables: a machine written once, compiled to a stepped form and a straight-line form.
//!
//! A step table lists a machine's states. Each state names its pseudocode line, its one primitive
//! operation and its transition, an expression that names the next state ([`Next::Go`]) or finishes
//! ([`Next::Done`]). From that one table [`steps!`](crate::steps) emits:
//!
//! - the **stepped form**, for the simulator, the checker, the site and the step-back: `op(&cx)` (the
//!   [`Op`] of the state's primitive), `complete(&mut cx, result)` (decode the [`OpResult`] as that
//!   primitive's typed value and take the transition) and `line(&cx)`;
//! - the **straight-line form**, for the native platform: `run(&mut cx, &mut p)`, a loop over a local
//!   state that calls the typed primitive on any [`Ops`] (`p.load(w) -> u32`, `p.cas(w, old, new) ->
//!   bool`, …) and feeds its value to the same transition. Nothing is stored between steps, every
//!   transition is an expression naming a constant state, and the primitives inline into their arms,
//!   so the compiler sees the fast path as straight code (the way `parking_lot` inlines its
//!   `raw_mutex` fast path). Each step still ends in an indirect jump to the next state's arm:
//!   measured with LLVM 22 (rustc 1.95) on scratch tables of 5 to 313 states, with and without
//!   fields on the states, `run` never turned a constant transition into a direct jump. With up to
//!   14 states each arm ended in its own jump; with 43 and more, all shared one jump table (about
//!   11 instructions a step in gmp's 321-state `Sched`, where the state's fields are reloaded too).
//!
//! Both forms run the same transition expressions on the same typed values, so they issue the same
//! sequence of operations: the `*_forms_agree` tests check it for every table against
//! [`Recorder`], which feeds seeded results.
//!
//! A result that does not answer its primitive (a `Value` for a `cas`) is a bug in the platform: the
//! stepped form's decode panics with a message naming the state, the primitive and the result.
//!
//! # Writing a table
//! ```
//! use herdlab_core::machine::steps::{Next::{self, Done, Go}, Ops, Recorder};
//! use herdlab_core::op::{Op, OpResult, Word};
//!
//! /// The context: what the transitions read and write besides the state.
//! #[derive(Clone, Debug, PartialEq)]
//! pub struct Spin { taken: u32 }
//!
//! herdlab_core::steps! {
//!     /// A test-and-set spinlock.
//!     pub enum Tas(m: Spin) -> (), line &'static str {
//!         /// Test the lock word.
//!         Test @ "while lock != 0" => load(Word(0)) => |v|
//!             if v == 0 { Go(Tas::Take) } else { Go(Tas::Test) };
//!         /// Try to take it.
//!         Take @ "if cas(lock, 0, 1)" => cas(Word(0), 0, 1) => |ok|
//!             if ok { m.taken += 1; Done(()) } else { Go(Tas::Test) };
//!     }
//! }
//!
//! // Stepped: one operation at a time.
//! let mut m = Spin { taken: 0 };
//! assert_eq!(Tas::Test.op(&m), Op::Load(Word(0)));
//! assert_eq!(Tas::Test.line(&m), "while lock != 0");
//! let next = Tas::Test.complete(&mut m, OpResult::Value(0));
//! assert_eq!(next, Go(Tas::Take));
//! assert_eq!(Tas::Take.complete(&mut m, OpResult::Cas { ok: true, actual: 0 }), Done(()));
//! // Straight-line: the whole lock in one call, here against a recorder whose word is free.
//! let mut p = Recorder::new(1, 100);
//! p.fix_loads(0);
//! p.fix_cas(true);
//! assert_eq!(Tas::Test.run(&mut m, &mut p), Ok((Tas::Take, ())));
//! assert_eq!(p.ops(), &[Op::Load(Word(0)), Op::Cas { word: Word(0), expected: 0, new: 1 }]);
//! assert_eq!(m.taken, 2);
//! ```

use crate::op::{
    CondId, EpId, Fd, Interest, ListenerId, MutexId, Op, OpResult, Ready, SemId, WakeCount, Word,
};
use crate::rng::Rng;

/// What a transition leads to: another state, or the end of the table's run with a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Next<S, R> {
    /// Go on in this state.
    Go(S),
    /// The run is over (a lock is held, an unlock is done, a trylock answered).
    Done(R),
}

/// Why a straight-line run stopped early: the state it was about to leave and the platform's error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped<S, E> {
    /// The state whose primitive failed (its transition was not taken).
    pub state: S,
    /// What the platform said.
    pub error: E,
}

/// What a read of a connection returned ([`Ops::read_next`], [`Ops::recv`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Read {
    /// A request from this connection.
    Request(u32),
    /// The client closed this connection; it is closed on this side too.
    Eof(u32),
    /// Nothing was there (`EAGAIN`; only [`Ops::read_next`]).
    Nothing,
}

/// A table run inside another table's state (a `call(Sub, place)` row of [`steps!`](crate::steps)):
/// the sub-table's state lives in `Cx` (the place the row names), so the calling state stays put
/// while the sub-table steps, and takes its transition with the sub-table's outcome. The caller's
/// transition that enters the row starts the sub-table (as `Shmtx::start_trylock` does).
pub trait Call<Cx> {
    /// What the sub-table finishes with.
    type Out;
    /// Stepped form: the operation of the sub-table's next step.
    fn op(cx: &Cx) -> Op;
    /// Stepped form: deliver a result; `Some` with the outcome when the sub-table finished.
    fn complete(cx: &mut Cx, r: OpResult) -> Option<Self::Out>;
    /// Straight-line form: run the sub-table from where it is to its end.
    fn run<P: Ops + ?Sized>(cx: &mut Cx, p: &mut P) -> Result<Self::Out, P::Error>;
}

/// The typed primitives a straight-line run calls: one method per [`Op`] a table may name, with the
/// value that [`Op`]'s [`OpResult`] carries. Each method has the meaning of its `Op` (see
/// [`crate::op`]). A platform returns `Err` only when it cannot go on (a failed system call, an
/// aborted run); the run then stops in the state it was in.
///
/// The native platform implements these on real atomics and system calls; [`Recorder`] implements
/// them for tests; [`exec`] turns an [`Op`] into a call of the matching method, so a stepped machine
/// runs on any `Ops` too.
pub trait Ops {
    /// What stops a run.
    type Error;
    /// [`Op::Load`].
    fn load(&mut self, w: Word) -> Result<u32, Self::Error>;
    /// [`Op::Store`].
    fn store(&mut self, w: Word, v: u32) -> Result<(), Self::Error>;
    /// [`Op::Cas`]: true when the word held `expected` and now holds `new`.
    fn cas(&mut self, w: Word, expected: u32, new: u32) -> Result<bool, Self::Error>;
    /// [`Op::FetchAdd`]: the old value.
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, Self::Error>;
    /// [`Op::Swap`]: the old value.
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, Self::Error>;
    /// [`Op::SemWait`].
    fn sem_wait(&mut self, s: SemId) -> Result<(), Self::Error>;
    /// [`Op::SemPost`].
    fn sem_post(&mut self, s: SemId) -> Result<(), Self::Error>;
    /// [`Op::FutexWait`]: true after a real sleep, false when the word already differed (`EAGAIN`).
    fn futex_wait(&mut self, w: Word, expected: u32) -> Result<bool, Self::Error>;
    /// [`Op::FutexWake`]: how many sleepers were woken.
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, Self::Error>;
    /// [`Op::MutexLock`].
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), Self::Error>;
    /// [`Op::MutexUnlock`].
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), Self::Error>;
    /// [`Op::CondWait`].
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), Self::Error>;
    /// [`Op::CondNotify`].
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), Self::Error>;
    /// [`Op::Work`].
    fn work(&mut self, ns: u64) -> Result<(), Self::Error>;
    /// [`Op::Pause`]: one spin-loop hint.
    fn pause(&mut self) -> Result<(), Self::Error>;
    /// [`Op::Yield`].
    fn sched_yield(&mut self) -> Result<(), Self::Error>;
    /// [`Op::Now`]: nanoseconds on the platform's clock.
    fn now(&mut self) -> Result<u64, Self::Error>;
    /// Any other operation (the network's, `AwaitEvent`), executed as the stepped form would.
    fn other(&mut self, op: Op) -> Result<OpResult, Self::Error>;
    /// [`Op::Accept`]: the connection, or `None` once the listener is shut down. By default
    /// through [`Ops::other`].
    #[inline(always)]
    fn accept(&mut self, l: ListenerId) -> Result<Option<u32>, Self::Error> {
        Ok(decode::accept(self.other(Op::Accept(l))?, "Ops::accept"))
    }
    /// [`Op::AcceptNb`]: the connection, or `None` on `EAGAIN`. By default through [`Ops::other`].
    #[inline(always)]
    fn accept_nb(&mut self, l: ListenerId) -> Result<Option<u32>, Self::Error> {
        Ok(decode::accept_nb(
            self.other(Op::AcceptNb(l))?,
            "Ops::accept_nb",
        ))
    }
    /// [`Op::EpollAdd`]. By default through [`Ops::other`].
    #[inline(always)]
    fn epoll_add(&mut self, ep: EpId, fd: Fd, interest: Interest) -> Result<(), Self::Error> {
        let r = self.other(prim::epoll_add(ep, fd, interest))?;
        decode::epoll_add(r, "Ops::epoll_add");
        Ok(())
    }
    /// [`Op::EpollDel`]. By default through [`Ops::other`].
    #[inline(always)]
    fn epoll_del(&mut self, ep: EpId, fd: Fd) -> Result<(), Self::Error> {
        let r = self.other(prim::epoll_del(ep, fd))?;
        decode::epoll_del(r, "Ops::epoll_del");
        Ok(())
    }
    /// [`Op::EpollWait`]: what was reported (empty when the timeout expired). By default through
    /// [`Ops::other`].
    #[inline(always)]
    fn epoll_wait(&mut self, ep: EpId, timeout_ns: Option<u64>) -> Result<Ready, Self::Error> {
        let r = self.other(prim::epoll_wait(ep, timeout_ns))?;
        Ok(decode::epoll_wait(r, "Ops::epoll_wait"))
    }
    /// [`Op::ReadNext`]. By default through [`Ops::other`].
    #[inline(always)]
    fn read_next(&mut self) -> Result<Read, Self::Error> {
        Ok(decode::read_next(
            self.other(Op::ReadNext)?,
            "Ops::read_next",
        ))
    }
    /// [`Op::Recv`]. By default through [`Ops::other`].
    #[inline(always)]
    fn recv(&mut self, c: u32) -> Result<Read, Self::Error> {
        Ok(decode::recv(self.other(Op::Recv(c))?, "Ops::recv"))
    }
    /// [`Op::Respond`]. By default through [`Ops::other`].
    #[inline(always)]
    fn respond(&mut self, c: u32) -> Result<(), Self::Error> {
        decode::respond(self.other(Op::Respond(c))?, "Ops::respond");
        Ok(())
    }
    /// [`Op::Sleep`]. By default through [`Ops::other`].
    #[inline(always)]
    fn sleep(&mut self, ns: u64) -> Result<(), Self::Error> {
        decode::sleep(self.other(Op::Sleep(ns))?, "Ops::sleep");
        Ok(())
    }
    /// [`Op::AwaitEvent`]: true for an event, false when there are no more. By default through
    /// [`Ops::other`].
    #[inline(always)]
    fn await_event(&mut self) -> Result<bool, Self::Error> {
        Ok(decode::await_event(
            self.other(Op::AwaitEvent)?,
            "Ops::await_event",
        ))
    }
}

/// Execute one operation of a stepped machine on `p`: the one executor of the stepped form on every
/// platform that implements [`Ops`]. Each `Op` calls its typed method and its value is wrapped back
/// into the [`OpResult`] the stepped form expects (a `cas` answers `Cas { ok, actual }`, with
/// `actual` the expected value on success and unknown, 0, on failure: no machine reads it).
#[inline(always)]
pub fn exec<P: Ops + ?Sized>(p: &mut P, op: Op) -> Result<OpResult, P::Error> {
    Ok(match op {
        Op::Load(w) => OpResult::Value(p.load(w)?),
        Op::Store(w, v) => {
            p.store(w, v)?;
            OpResult::Done
        }
        Op::Cas {
            word,
            expected,
            new,
        } => {
            let ok = p.cas(word, expected, new)?;
            OpResult::Cas {
                ok,
                actual: if ok { expected } else { 0 },
            }
        }
        Op::FetchAdd(w, d) => OpResult::Value(p.fetch_add(w, d)?),
        Op::Swap(w, v) => OpResult::Value(p.swap(w, v)?),
        Op::SemWait(s) => {
            p.sem_wait(s)?;
            OpResult::Done
        }
        Op::SemPost(s) => {
            p.sem_post(s)?;
            OpResult::Done
        }
        Op::FutexWait { word, expected } => {
            if p.futex_wait(word, expected)? {
                OpResult::Woken
            } else {
                OpResult::Mismatch
            }
        }
        Op::FutexWake(w, n) => OpResult::Value(p.futex_wake(w, n)?),
        Op::MutexLock(m) => {
            p.mutex_lock(m)?;
            OpResult::Done
        }
        Op::MutexUnlock(m) => {
            p.mutex_unlock(m)?;
            OpResult::Done
        }
        Op::CondWait(c, m) => {
            p.cond_wait(c, m)?;
            OpResult::Woken
        }
        Op::CondNotify(c, n) => {
            p.cond_notify(c, n)?;
            OpResult::Done
        }
        Op::Work(ns) => {
            p.work(ns)?;
            OpResult::Done
        }
        Op::Pause => {
            p.pause()?;
            OpResult::Done
        }
        Op::Yield => {
            p.sched_yield()?;
            OpResult::Done
        }
        Op::Now => OpResult::Time(p.now()?),
        Op::Sleep(ns) => {
            p.sleep(ns)?;
            OpResult::Done
        }
        other => p.other(other)?,
    })
}

/// The [`Op`] of each primitive a table may name (the stepped form's `op`). Each function has the
/// name of the [`Ops`] method that the straight-line form calls.
pub mod prim {
    use crate::op::{CondId, EpId, Fd, Interest, ListenerId, MutexId, Op, SemId, WakeCount, Word};

    /// `load(w)`.
    #[inline(always)]
    pub fn load(w: Word) -> Op {
        Op::Load(w)
    }
    /// `store(w, v)`.
    #[inline(always)]
    pub fn store(w: Word, v: u32) -> Op {
        Op::Store(w, v)
    }
    /// `cas(w, expected, new)`.
    #[inline(always)]
    pub fn cas(word: Word, expected: u32, new: u32) -> Op {
        Op::Cas {
            word,
            expected,
            new,
        }
    }
    /// `fetch_add(w, d)`.
    #[inline(always)]
    pub fn fetch_add(w: Word, d: u32) -> Op {
        Op::FetchAdd(w, d)
    }
    /// `swap(w, v)`.
    #[inline(always)]
    pub fn swap(w: Word, v: u32) -> Op {
        Op::Swap(w, v)
    }
    /// `sem_wait(s)`.
    #[inline(always)]
    pub fn sem_wait(s: SemId) -> Op {
        Op::SemWait(s)
    }
    /// `sem_post(s)`.
    #[inline(always)]
    pub fn sem_post(s: SemId) -> Op {
        Op::SemPost(s)
    }
    /// `futex_wait(w, expected)`.
    #[inline(always)]
    pub fn futex_wait(word: Word, expected: u32) -> Op {
        Op::FutexWait { word, expected }
    }
    /// `futex_wake(w, n)`.
    #[inline(always)]
    pub fn futex_wake(w: Word, n: WakeCount) -> Op {
        Op::FutexWake(w, n)
    }
    /// `mutex_lock(m)`.
    #[inline(always)]
    pub fn mutex_lock(m: MutexId) -> Op {
        Op::MutexLock(m)
    }
    /// `mutex_unlock(m)`.
    #[inline(always)]
    pub fn mutex_unlock(m: MutexId) -> Op {
        Op::MutexUnlock(m)
    }
    /// `cond_wait(c, m)`.
    #[inline(always)]
    pub fn cond_wait(c: CondId, m: MutexId) -> Op {
        Op::CondWait(c, m)
    }
    /// `cond_notify(c, n)`.
    #[inline(always)]
    pub fn cond_notify(c: CondId, n: WakeCount) -> Op {
        Op::CondNotify(c, n)
    }
    /// `work(ns)`.
    #[inline(always)]
    pub fn work(ns: u64) -> Op {
        Op::Work(ns)
    }
    /// `sleep(ns)`.
    #[inline(always)]
    pub fn sleep(ns: u64) -> Op {
        Op::Sleep(ns)
    }
    /// `pause()`.
    #[inline(always)]
    pub fn pause() -> Op {
        Op::Pause
    }
    /// `sched_yield()`.
    #[inline(always)]
    pub fn sched_yield() -> Op {
        Op::Yield
    }
    /// `now()`.
    #[inline(always)]
    pub fn now() -> Op {
        Op::Now
    }
    /// `accept(l)`.
    #[inline(always)]
    pub fn accept(l: ListenerId) -> Op {
        Op::Accept(l)
    }
    /// `accept_nb(l)`.
    #[inline(always)]
    pub fn accept_nb(l: ListenerId) -> Op {
        Op::AcceptNb(l)
    }
    /// `epoll_add(ep, fd, interest)`.
    #[inline(always)]
    pub fn epoll_add(ep: EpId, fd: Fd, interest: Interest) -> Op {
        Op::EpollAdd { ep, fd, interest }
    }
    /// `epoll_del(ep, fd)`.
    #[inline(always)]
    pub fn epoll_del(ep: EpId, fd: Fd) -> Op {
        Op::EpollDel { ep, fd }
    }
    /// `epoll_wait(ep, timeout_ns)`.
    #[inline(always)]
    pub fn epoll_wait(ep: EpId, timeout_ns: Option<u64>) -> Op {
        Op::EpollWait { ep, timeout_ns }
    }
    /// `read_next()`.
    #[inline(always)]
    pub fn read_next() -> Op {
        Op::ReadNext
    }
    /// `recv(c)`.
    #[inline(always)]
    pub fn recv(c: u32) -> Op {
        Op::Recv(c)
    }
    /// `respond(c)`.
    #[inline(always)]
    pub fn respond(c: u32) -> Op {
        Op::Respond(c)
    }
    /// `await_event()`.
    #[inline(always)]
    pub fn await_event() -> Op {
        Op::AwaitEvent
    }
}

/// The typed value of each primitive's [`OpResult`] (the stepped form's `complete`), the inverse of
/// [`exec`]'s wrapping. A result of the wrong kind panics, naming the state, the primitive and the
/// result: it is a platform bug, never a silent fallback.
pub mod decode {
    use super::Read;
    use crate::op::{OpResult, Ready};

    #[cold]
    #[inline(never)]
    fn wrong(state: &str, prim: &str, r: &OpResult) -> ! {
        panic!("{state} issued `{prim}` and was answered {r:?}, which does not answer `{prim}`")
    }

    // `wrong` takes the result by reference and the arms bind it by reference: passed by value,
    // the 16-byte result was copied to a new stack slot before every decode, a wide load right after
    // the narrow stores that built it (a store-forwarding stall, 4 per lock round natively).

    /// `load`: the value.
    #[inline(always)]
    pub fn load(r: OpResult, state: &str) -> u32 {
        match r {
            OpResult::Value(v) => v,
            ref r => wrong(state, "load", r),
        }
    }
    /// `store`.
    #[inline(always)]
    pub fn store(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "store", r),
        }
    }
    /// `cas`: whether it succeeded.
    #[inline(always)]
    pub fn cas(r: OpResult, state: &str) -> bool {
        match r {
            OpResult::Cas { ok, .. } => ok,
            ref r => wrong(state, "cas", r),
        }
    }
    /// `fetch_add`: the old value.
    #[inline(always)]
    pub fn fetch_add(r: OpResult, state: &str) -> u32 {
        match r {
            OpResult::Value(v) => v,
            ref r => wrong(state, "fetch_add", r),
        }
    }
    /// `swap`: the old value.
    #[inline(always)]
    pub fn swap(r: OpResult, state: &str) -> u32 {
        match r {
            OpResult::Value(v) => v,
            ref r => wrong(state, "swap", r),
        }
    }
    /// `sem_wait`.
    #[inline(always)]
    pub fn sem_wait(r: OpResult, state: &str) {
        match r {
            OpResult::Done | OpResult::Woken => {}
            ref r => wrong(state, "sem_wait", r),
        }
    }
    /// `sem_post`.
    #[inline(always)]
    pub fn sem_post(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "sem_post", r),
        }
    }
    /// `futex_wait`: true after a sleep, false on `EAGAIN`.
    #[inline(always)]
    pub fn futex_wait(r: OpResult, state: &str) -> bool {
        match r {
            OpResult::Woken => true,
            OpResult::Mismatch => false,
            ref r => wrong(state, "futex_wait", r),
        }
    }
    /// `futex_wake`: how many were woken.
    #[inline(always)]
    pub fn futex_wake(r: OpResult, state: &str) -> u32 {
        match r {
            OpResult::Value(v) => v,
            ref r => wrong(state, "futex_wake", r),
        }
    }
    /// `mutex_lock`.
    #[inline(always)]
    pub fn mutex_lock(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "mutex_lock", r),
        }
    }
    /// `mutex_unlock`.
    #[inline(always)]
    pub fn mutex_unlock(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "mutex_unlock", r),
        }
    }
    /// `cond_wait`.
    #[inline(always)]
    pub fn cond_wait(r: OpResult, state: &str) {
        match r {
            OpResult::Woken | OpResult::Done => {}
            ref r => wrong(state, "cond_wait", r),
        }
    }
    /// `cond_notify`.
    #[inline(always)]
    pub fn cond_notify(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "cond_notify", r),
        }
    }
    /// `work`.
    #[inline(always)]
    pub fn work(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "work", r),
        }
    }
    /// `sleep`.
    #[inline(always)]
    pub fn sleep(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "sleep", r),
        }
    }
    /// `pause`.
    #[inline(always)]
    pub fn pause(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "pause", r),
        }
    }
    /// `sched_yield`.
    #[inline(always)]
    pub fn sched_yield(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "sched_yield", r),
        }
    }
    /// `now`: the time.
    #[inline(always)]
    pub fn now(r: OpResult, state: &str) -> u64 {
        match r {
            OpResult::Time(t) => t,
            ref r => wrong(state, "now", r),
        }
    }
    /// `accept`: the connection, `None` once the listener is shut down.
    #[inline(always)]
    pub fn accept(r: OpResult, state: &str) -> Option<u32> {
        match r {
            OpResult::Conn(c) => Some(c),
            OpResult::Closed => None,
            ref r => wrong(state, "accept", r),
        }
    }
    /// `accept_nb`: the connection, `None` on `EAGAIN`.
    #[inline(always)]
    pub fn accept_nb(r: OpResult, state: &str) -> Option<u32> {
        match r {
            OpResult::Conn(c) => Some(c),
            OpResult::Again => None,
            ref r => wrong(state, "accept_nb", r),
        }
    }
    /// `epoll_add`.
    #[inline(always)]
    pub fn epoll_add(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "epoll_add", r),
        }
    }
    /// `epoll_del`.
    #[inline(always)]
    pub fn epoll_del(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "epoll_del", r),
        }
    }
    /// `epoll_wait`: what was reported.
    #[inline(always)]
    pub fn epoll_wait(r: OpResult, state: &str) -> Ready {
        match r {
            OpResult::Events(ready) => ready,
            ref r => wrong(state, "epoll_wait", r),
        }
    }
    /// `read_next`: a request, an end of file, or nothing.
    #[inline(always)]
    pub fn read_next(r: OpResult, state: &str) -> Read {
        match r {
            OpResult::Request(c) => Read::Request(c),
            OpResult::Eof(c) => Read::Eof(c),
            OpResult::Again => Read::Nothing,
            ref r => wrong(state, "read_next", r),
        }
    }
    /// `recv`: a request or an end of file.
    #[inline(always)]
    pub fn recv(r: OpResult, state: &str) -> Read {
        match r {
            OpResult::Request(c) => Read::Request(c),
            OpResult::Eof(c) => Read::Eof(c),
            ref r => wrong(state, "recv", r),
        }
    }
    /// `respond`.
    #[inline(always)]
    pub fn respond(r: OpResult, state: &str) {
        match r {
            OpResult::Done => {}
            ref r => wrong(state, "respond", r),
        }
    }
    /// `await_event`: true for an event, false when there are no more.
    #[inline(always)]
    pub fn await_event(r: OpResult, state: &str) -> bool {
        match r {
            OpResult::Done => true,
            OpResult::Closed => false,
            ref r => wrong(state, "await_event", r),
        }
    }
}

/// Write a machine once as a step table; emit its stepped and straight-line forms.
///
/// ```text
/// steps! {
///     /// docs
///     pub enum Name(m: Context) -> Outcome, line LineType {
///         /// docs of the state
///         State { field: Type, .. } @ line_expr => primitive(args..) => |value_pattern| transition;
///         /// a state that runs another table to its end (see `Call`)
///         Other @ line_expr => call(SubTable, m.place) => |outcome_pattern| transition;
///         ..
///     }
/// }
/// ```
///
/// In `args`, `line_expr` and `transition`, `m` (the name you chose) is the context and the state's
/// fields are bound by name; `transition` also sees the primitive's typed value through the
/// pattern, and evaluates to a [`Next`]`<Name, Outcome>`. `primitive` is a method of [`Ops`]
/// (`load`, `store`, `cas`, `fetch_add`, `swap`, `sem_wait`, `sem_post`, `futex_wait`, `futex_wake`,
/// `mutex_lock`, `mutex_unlock`, `cond_wait`, `cond_notify`, `work`, `pause`, `sched_yield`, `now`,
/// `accept`, `accept_nb`, `epoll_add`, `epoll_del`, `epoll_wait`, `read_next`, `recv`, `respond`,
/// `await_event`). A `call(Sub, place)` row stays in its state while the table `Sub` (a [`Call`]
/// on the context's `place`) steps, and takes its transition with `Sub`'s outcome.
///
/// It emits the `enum` (`Clone, Copy, Debug, PartialEq, Eq, Hash`) and, on it:
/// - `NAMES`: every state's name in table order;
/// - `name(self)`: this state's name;
/// - `op(self, &m) -> Op`, `complete(self, &mut m, OpResult) -> Next<Name, Outcome>` and
///   `line(self, &m) -> LineType`: the stepped form;
/// - `run(self, &mut m, &mut impl Ops) -> Result<(Name, Outcome), Stopped<Name, Error>>`: the
///   straight-line form, starting in `self`; it returns the state that finished, where the stepped
///   form rests after the same steps.
///
/// See [the module docs](crate::machine::steps) for an example.
#[macro_export]
macro_rules! steps {
    (
        $(#[$meta:meta])*
        $vis:vis enum $S:ident ($m:ident : $Cx:ty) -> $R:ty, line $Ln:ty {
            $(
                $(#[$smeta:meta])*
                $st:ident $({ $($(#[$fmeta:meta])* $f:ident : $ft:ty),* $(,)? })?
                    @ $line:expr => $prim:ident ( $($arg:tt)* ) => |$r:pat_param| $body:expr ;
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $S {
            $( $(#[$smeta])* $st $({ $($(#[$fmeta])* $f: $ft),* })? ),+
        }

        #[allow(unused_variables, clippy::unused_unit, unreachable_patterns, dead_code)]
        impl $S {
            /// Every state's name, in table order.
            $vis const NAMES: &'static [&'static str] = &[$(stringify!($st)),+];

            /// This state's name.
            $vis fn name(self) -> &'static str {
                match self { $( $S::$st $({ $($f),* })? => stringify!($st), )+ }
            }

            /// Stepped form: the operation of this state's step.
            #[inline(always)]
            $vis fn op(self, $m: &$Cx) -> $crate::op::Op {
                match self {
                    $( $S::$st $({ $($f),* })? => $crate::__steps_op!($prim ($($arg)*)), )+
                }
            }

            /// Stepped form: deliver the result of [`Self::op`] and take the transition.
            #[inline(always)]
            $vis fn complete(
                self,
                $m: &mut $Cx,
                result: $crate::op::OpResult,
            ) -> $crate::machine::steps::Next<$S, $R> {
                #[allow(unused_imports)]
                use $crate::machine::steps::Next::{Done, Go};
                let this = self;
                match self {
                    $( $S::$st $({ $($f),* })? => $crate::__steps_complete!(
                        $prim ($($arg)*);
                        this, result, concat!(stringify!($S), "::", stringify!($st));
                        |$r| $body
                    ), )+
                }
            }

            /// The pseudocode line this state's step executes.
            $vis fn line(self, $m: &$Cx) -> $Ln {
                match self { $( $S::$st $({ $($f),* })? => $line, )+ }
            }

            /// Straight-line form: run from this state to the end of the table, calling each
            /// state's typed primitive on `p`. Returns the state whose transition finished (where
            /// the stepped form rests) and the outcome.
            #[inline(always)]
            $vis fn run<P: $crate::machine::steps::Ops + ?Sized>(
                self,
                $m: &mut $Cx,
                p: &mut P,
            ) -> ::core::result::Result<($S, $R), $crate::machine::steps::Stopped<$S, P::Error>> {
                #[allow(unused_imports)]
                use $crate::machine::steps::Next::{Done, Go};
                let mut state = self;
                loop {
                    let next: $crate::machine::steps::Next<$S, $R> = match state {
                        $( $S::$st $({ $($f),* })? => $crate::__steps_run!(
                            $prim ($($arg)*);
                            p, state;
                            |$r| $body
                        ), )+
                    };
                    match next {
                        $crate::machine::steps::Next::Go(s) => state = s,
                        $crate::machine::steps::Next::Done(r) => return Ok((state, r)),
                    }
                }
            }
        }
    };
}

/// [`steps!`](crate::steps)'s stepped `op` of one row (not for direct use).
#[doc(hidden)]
#[macro_export]
macro_rules! __steps_op {
    (call ($Sub:path, $place:expr $(,)?)) => {
        <$Sub as $crate::machine::steps::Call<_>>::op(&$place)
    };
    ($prim:ident ($($arg:expr),* $(,)?)) => {
        $crate::machine::steps::prim::$prim($($arg),*)
    };
}

/// [`steps!`](crate::steps)'s stepped `complete` of one row (not for direct use).
#[doc(hidden)]
#[macro_export]
macro_rules! __steps_complete {
    (call ($Sub:path, $place:expr $(,)?); $this:ident, $result:ident, $name:expr; |$r:pat_param| $body:expr) => {
        match <$Sub as $crate::machine::steps::Call<_>>::complete(&mut $place, $result) {
            ::core::option::Option::Some($r) => $body,
            ::core::option::Option::None => $crate::machine::steps::Next::Go($this),
        }
    };
    ($prim:ident ($($arg:expr),* $(,)?); $this:ident, $result:ident, $name:expr; |$r:pat_param| $body:expr) => {{
        let $r = $crate::machine::steps::decode::$prim($result, $name);
        $body
    }};
}

/// [`steps!`](crate::steps)'s straight-line step of one row (not for direct use).
#[doc(hidden)]
#[macro_export]
macro_rules! __steps_run {
    (call ($Sub:path, $place:expr $(,)?); $p:ident, $state:ident; |$r:pat_param| $body:expr) => {{
        let $r = match <$Sub as $crate::machine::steps::Call<_>>::run(&mut $place, $p) {
            Ok(v) => v,
            Err(error) => {
                return Err($crate::machine::steps::Stopped { state: $state, error })
            }
        };
        $body
    }};
    ($prim:ident ($($arg:expr),* $(,)?); $p:ident, $state:ident; |$r:pat_param| $body:expr) => {{
        let $r = match $p.$prim($($arg),*) {
            Ok(v) => v,
            Err(error) => {
                return Err($crate::machine::steps::Stopped { state: $state, error })
            }
        };
        $body
    }};
}

/// An [`Ops`] for tests: it records every operation and answers each with a seeded pseudo-random
/// result of the kind its primitive expects (loads from a small set of values, CAS outcomes, futex
/// wait outcomes, connections or `EAGAIN`, epoll reports, requests or EOF, events or the end of
/// them), and stops the run
/// with `Err(())` after a budget of operations, so a run that would spin forever ends.
///
/// [`Recorder::results`] gives the answers as [`OpResult`]s, in order, to feed the stepped form the
/// same answers.
#[derive(Clone, Debug)]
pub struct Recorder {
    rng: Rng,
    budget: usize,
    ops: Vec<Op>,
    results: Vec<OpResult>,
    loads: Option<u32>,
    cas: Option<bool>,
    values: Vec<u32>,
}

impl Recorder {
    /// A recorder seeded with `seed` that stops after `budget` operations.
    pub fn new(seed: u64, budget: usize) -> Self {
        Recorder {
            rng: Rng::new(seed),
            budget,
            ops: Vec::new(),
            results: Vec::new(),
            loads: None,
            cas: None,
            values: vec![0, 1, 2, 3, u32::MAX],
        }
    }

    /// Answer every `load` with `v` (instead of a random value).
    pub fn fix_loads(&mut self, v: u32) {
        self.loads = Some(v);
    }

    /// Answer every `cas` with `ok` (instead of a random outcome).
    pub fn fix_cas(&mut self, ok: bool) {
        self.cas = Some(ok);
    }

    /// The values a random `load`, `fetch_add` or `swap` answer is drawn from (default 0, 1, 2, 3
    /// and `u32::MAX`).
    pub fn draw_values_from(&mut self, values: &[u32]) {
        assert!(
            !values.is_empty(),
            "draw_values_from needs at least one value"
        );
        self.values = values.to_vec();
    }

    /// The operations so far.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// The answers so far, as the stepped form receives them.
    pub fn results(&self) -> &[OpResult] {
        &self.results
    }

    fn issue(&mut self, op: Op, r: OpResult) -> Result<(), ()> {
        if self.ops.len() >= self.budget {
            return Err(());
        }
        self.ops.push(op);
        self.results.push(r);
        Ok(())
    }

    fn value(&mut self) -> u32 {
        let i = self.rng.below(self.values.len() as u64) as usize;
        self.values[i]
    }

    fn flip(&mut self) -> bool {
        self.rng.below(2) == 1
    }
}

impl Ops for Recorder {
    type Error = ();
    fn load(&mut self, w: Word) -> Result<u32, ()> {
        let v = match self.loads {
            Some(v) => v,
            None => self.value(),
        };
        self.issue(Op::Load(w), OpResult::Value(v))?;
        Ok(v)
    }
    fn store(&mut self, w: Word, v: u32) -> Result<(), ()> {
        self.issue(Op::Store(w, v), OpResult::Done)
    }
    fn cas(&mut self, w: Word, expected: u32, new: u32) -> Result<bool, ()> {
        let ok = match self.cas {
            Some(ok) => ok,
            None => self.flip(),
        };
        let op = Op::Cas {
            word: w,
            expected,
            new,
        };
        let actual = if ok { expected } else { 0 };
        self.issue(op, OpResult::Cas { ok, actual })?;
        Ok(ok)
    }
    fn fetch_add(&mut self, w: Word, d: u32) -> Result<u32, ()> {
        let v = self.value();
        self.issue(Op::FetchAdd(w, d), OpResult::Value(v))?;
        Ok(v)
    }
    fn swap(&mut self, w: Word, v: u32) -> Result<u32, ()> {
        let old = self.value();
        self.issue(Op::Swap(w, v), OpResult::Value(old))?;
        Ok(old)
    }
    fn sem_wait(&mut self, s: SemId) -> Result<(), ()> {
        self.issue(Op::SemWait(s), OpResult::Done)
    }
    fn sem_post(&mut self, s: SemId) -> Result<(), ()> {
        self.issue(Op::SemPost(s), OpResult::Done)
    }
    fn futex_wait(&mut self, w: Word, expected: u32) -> Result<bool, ()> {
        let woken = self.flip();
        let r = if woken {
            OpResult::Woken
        } else {
            OpResult::Mismatch
        };
        self.issue(Op::FutexWait { word: w, expected }, r)?;
        Ok(woken)
    }
    fn futex_wake(&mut self, w: Word, n: WakeCount) -> Result<u32, ()> {
        let v = self.rng.below(3) as u32;
        self.issue(Op::FutexWake(w, n), OpResult::Value(v))?;
        Ok(v)
    }
    fn mutex_lock(&mut self, m: MutexId) -> Result<(), ()> {
        self.issue(Op::MutexLock(m), OpResult::Done)
    }
    fn mutex_unlock(&mut self, m: MutexId) -> Result<(), ()> {
        self.issue(Op::MutexUnlock(m), OpResult::Done)
    }
    fn cond_wait(&mut self, c: CondId, m: MutexId) -> Result<(), ()> {
        self.issue(Op::CondWait(c, m), OpResult::Woken)
    }
    fn cond_notify(&mut self, c: CondId, n: WakeCount) -> Result<(), ()> {
        self.issue(Op::CondNotify(c, n), OpResult::Done)
    }
    fn work(&mut self, ns: u64) -> Result<(), ()> {
        self.issue(Op::Work(ns), OpResult::Done)
    }
    fn pause(&mut self) -> Result<(), ()> {
        self.issue(Op::Pause, OpResult::Done)
    }
    fn sched_yield(&mut self) -> Result<(), ()> {
        self.issue(Op::Yield, OpResult::Done)
    }
    fn now(&mut self) -> Result<u64, ()> {
        let t = self.ops.len() as u64 * 1000;
        self.issue(Op::Now, OpResult::Time(t))?;
        Ok(t)
    }
    fn other(&mut self, op: Op) -> Result<OpResult, ()> {
        let c = self.rng.below(4) as u32;
        let r = match op {
            Op::Accept(_) if self.flip() => OpResult::Conn(c),
            Op::Accept(_) => OpResult::Closed,
            Op::AcceptNb(_) if self.flip() => OpResult::Conn(c),
            Op::AcceptNb(_) => OpResult::Again,
            Op::EpollWait { ep, .. } => OpResult::Events(Ready {
                listener: self.flip().then_some(ListenerId(ep.0)),
                conns: self.rng.below(3) as u16,
            }),
            Op::ReadNext | Op::Recv(_) => match self.rng.below(3) {
                0 => OpResult::Request(c),
                1 => OpResult::Eof(c),
                _ if op == Op::ReadNext => OpResult::Again,
                _ => OpResult::Request(c),
            },
            Op::AwaitEvent if self.rng.below(4) == 0 => OpResult::Closed,
            _ => OpResult::Done,
        };
        self.issue(op, r)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "issued `cas` and was answered Value(0)")]
    fn a_result_that_does_not_answer_its_primitive_panics_naming_both() {
        decode::cas(OpResult::Value(0), "Lock::L1Cas");
    }

    #[test]
    fn exec_wraps_each_typed_answer_as_the_stepped_form_expects() {
        let mut p = Recorder::new(3, 100);
        for op in [
            Op::Load(Word(0)),
            Op::Cas {
                word: Word(0),
                expected: 0,
                new: 1,
            },
            Op::FutexWait {
                word: Word(1),
                expected: 2,
            },
            Op::Pause,
            Op::Now,
        ] {
            let r = exec(&mut p, op).unwrap();
            assert_eq!(*p.results().last().unwrap(), r, "{op:?}");
            assert_eq!(*p.ops().last().unwrap(), op);
        }
    }

    #[test]
    fn a_recorder_stops_after_its_budget() {
        let mut p = Recorder::new(1, 2);
        assert!(p.pause().is_ok());
        assert!(p.pause().is_ok());
        assert_eq!(p.pause(), Err(()));
        assert_eq!(p.ops().len(), 2);
    }
}
