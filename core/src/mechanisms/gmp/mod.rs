//! Go's G/M/P scheduler (`src/runtime/proc.go`): goroutines (G) multiplexed onto OS threads (M) by
//! processors (P), each P with a 256-slot lock-free ring and a one-slot `runnext`, a global queue
//! under `sched.lock`, work stealing, spinning Ms and the park protocol; blocking syscalls whose
//! P sysmon retakes and hands off, and sysmon's preemption of a G that runs 10 ms.
//!
//! Follows `shared/reference/go-gmp.md` (Go 1.26 `proc.go`): `newproc` → `runqput(next=true)`
//! (§3.1-3.2), `runqget` (§3.3), `schedule` / `findRunnable` in its order — 1-in-61 global check,
//! local, global batch (`globrunqgetbatch`), spinning limit, `stealWork` (4 passes in a random
//! coprime order, half of a victim's ring, its `runnext` only on the last pass after `usleep(3)`),
//! the re-check under the lock with `needspinning`, `releasep` + `pidleput`, the delicate dance
//! (drop spinning, then re-check every queue) and `stopm` (§3.4-3.6); `wakep` / `startm` (§3.7);
//! `Gosched`, `gopark` and `goready` (§3.3, §3.8); `injectglist` with no P (§3.12);
//! `entersyscall` / `exitsyscall`, `sysmon` with its deep sleep, `retake`, `handoffp`,
//! `preemptone` (§3.9-3.11, below, in Go 1.25's form); the netpoller, `injectglist` with a P
//! and `checkdead` (§3.5 steps 8 and 13, §3.12, §3.14, below).
//!
//! ```
//! use herdlab_core::mechanisms::gmp::{GmpParams, Workload};
//! // GOMAXPROCS=1: main spawns 3 goroutines, each runs once; nobody steals, nobody spins
//! let p = GmpParams { gomaxprocs: 1, threads: 2, goroutines: 4, workload: Workload::FanOut, ..Default::default() };
//! let (_, r) = p.run(u64::MAX);
//! assert_eq!((r.finished, r.context_switches, r.steals, r.violation), (4, 4, 0, None));
//! ```
//!
//! # Memory (words, [`machine::GmpConfig`] lays them out)
//! Globals: `nmspinning`, `npidle`, `pidle` (the idle Ps as a bit mask, `idlepMask`), `midle` (the
//! parked Ms as a bit mask), the global queue's `head`, `tail`, `size` (Gs linked through their
//! `schedlink` word), the live-G count, the end flag, `needspinning`. Per P: `runqhead`,
//! `runqtail` (free-running u32), `runnext`, `m` (owner + 1), the ring. Per M (and one slot for
//! the spawner): `park` (the note it sleeps on, a futex word) and `nextp` (P + 1, with
//! [`machine::SPIN_BIT`] when started spinning). Per G: its status, `schedlink`, its wait word
//! (its channel: empty, a token, or the G parked on it, [`machine::wait`]) and `sched` (where it
//! resumes). `sched.lock` is the simulator's sleeping mutex. A world has at most 65,535 words
//! (`Word` is a `u16`, [`params::MAX_WORDS`]): 16 Ps of 256 slots, 32 Ms and 15,000 Gs fit.
//!
//! # Threads
//! Each M is one [`steps!`](crate::steps) table, [`machine::Sched`]; subroutines (`runqput`,
//! `wakep`) are states with a continuation register. A G's code is [`Workload::action`]: work,
//! `go f()`, return, `runtime.Gosched()`, receive a token (`gopark` unless it came), send one
//! (`goready` if the receiver is parked).
//!
//! **A G's code from the platform** ([`GCode`], the seam): an M made with
//! [`GmpActor::with_code`] asks its [`GCode`] instead of [`Workload::action`], with the same
//! question (G `g`'s action at its step `pc`) and the same table behind it. The simulator and the
//! checker never give one, so their steps, traces and state counts are the workload's. Natively
//! (`herdlab bench gmp`) each G is a Rust future: the M that `execute`s G g polls g's future
//! once per new `pc` past its last poll, and answers with what that poll did, one action per
//! step: each spawn a [`GAct::Spawn`] (`newproc` into `runnext`), each wake of another G a
//! [`GAct::Ready`] (the wait word's token, or `goready` if it parked), then [`GAct::Exit`]
//! (ready), [`GAct::GoYield`] (pending after waking itself: `goyield`; [`GAct::Yield`],
//! `Gosched`, when the future asked for it) or [`GAct::Park`]
//! (pending: `gopark`, unless a wake's token is already there, when it is polled again). What the
//! provider may rely on is in [`GCode`]'s docs: it is asked only about the G in `_Grunning` on
//! this M, and a G's `pc` only grows (with a provider every G resumes at its saved `pc`, as the
//! `resumes` workloads do).
//!
//! With `spawn-many`, `yield-many` and `goyield-many` one more thread runs the same table: the spawner, outside
//! every P and not an M (tokio's `block_on` thread, whose spawns go through its inject queue). Go
//! has no `go` without a P; its nearest path is `injectglist` with no P (netpoll and timer results
//! found by a P-less M): each G made runnable goes on the global queue under `sched.lock`
//! (`globrunqputbatch`), then `startIdle` takes an idle P (`pidlegetSpinning`, which sets
//! `needspinning` when there is none) and `startm(pp, spinning=false)`. Every P starts idle and
//! every M parked; the spawner holds the program open until its last spawn.
//!
//! `Gosched` is `goschedImpl`: `_Grunning → _Grunnable`, `dropg`, `globrunqput` under the lock (the
//! *global* queue), `wakep`, `schedule`. `goyield` (`goyield_m`, which `semrelease`'s hand-off
//! calls) is the local one: `_Grunning → _Grunnable`, `dropg`, `runqput(pp, gp, next=false)` (the
//! tail of the P's own ring; `runqputslow` moves half of a full ring and the G to the global
//! queue), `schedule`, with no lock and no `wakep`. tokio's `yield_now` defers the task behind its
//! worker's local queue, as `goyield` does, so a native future that wakes itself and is pending
//! goyields (`yield-many` keeps Go's `Gosched` for the lesson and `herdlab bench gmp`'s
//! `gosched_many`). One difference shows at once: a goyielding G is taken again from its own ring
//! before the global queue is looked at (but at every 61st `schedtick`), so a G queued globally
//! meanwhile waits; Gosched's G goes behind it. With `poll_ns` (not a scenario key:
//! `herdlab bench gmp --compare-sim` measures what a native task's poll costs) a yielding G
//! works that long each time it resumes, before its next yield. `gopark` (`park_m`): `_Grunning → _Gwaiting`, `dropg`, then the unlock function: a CAS
//! of the G's wait word from empty to parked, which fails if the token came meanwhile (the G then
//! runs on at once, as when `unlockf` returns false); a receive that finds the token takes it
//! without parking. `goready` (`ready`): take the G off its wait word, `_Gwaiting → _Grunnable`,
//! `runqput(pp, gp, next=true)` (the readier's `runnext`) and `wakep`.
//!
//! # Blocking syscalls, sysmon, preemption (`syscall`, `hog`, `pair`)
//! These follow Go ≤ 1.25's `proc.go` (the fact sheet's §3.9-3.11 and the source of
//! `reentersyscall`, `exitsyscall`, `exitsyscallfast`, `exitsyscall0`, `handoffp`, `sysmon`,
//! `retake`, `preemptone`): `entersyscall` sets the G `_Gsyscall`, unwires the P (`pp.m = 0`,
//! `m.oldp = pp`, `m.p = 0`) and stores `_Psyscall` ([`GmpConfig::psys`]); the call itself is
//! the M asleep in the kernel for `syscall_ns` ([`Op::Sleep`](crate::op::Op::Sleep)), off every
//! CPU; `exitsyscall` CASes
//! `oldp` back from `_Psyscall` (fast path, `syscalltick++`), else takes an idle P, else
//! (`exitsyscall0`) puts the G on the global queue and the M in `stopm`. Go 1.26 keeps the P
//! `_Prunning` and wired during the syscall and has sysmon freeze the G with its `_Gscan` bit
//! (`setBlockOnExitSyscall`) before `takeP`; the hand-off seen from outside is the same, the
//! model keeps the older, simpler CAS on the P's status.
//!
//! sysmon is its own thread (no P, not an M of `threads`): it sleeps 20 µs (`usleep`, a timed
//! [`Op::Sleep`](crate::op::Op::Sleep) off every CPU), doubling the sleep after 50 rounds in a row
//! that retook nothing, up to 10 ms; each round it runs `retake` over
//! every P: a P whose `schedtick` has not moved for 10 ms (`forcePreemptNS`) gets a preemption
//! request ([`GmpConfig::ppreempt`]: the slice's tick, so a stale request is ignored); a P in
//! `_Psyscall` whose `syscalltick` is new is only recorded (each syscall gets a tick), else it is
//! left alone only if its queue is empty, some P spins or idles and the syscall is younger than
//! 10 ms; otherwise sysmon CASes it `_Psyscall → _Pidle`, bumps `syscalltick` and `handoffp`s it:
//! local or global work → `startm(pp, false)`; nobody spinning or idle → `startm(pp, true)`;
//! under the lock global work or the last running P → `startm`; else `pidleput`. sysmon's clock
//! is the sum of its sleeps (so the checker's states stay finite: ages saturate at 10 ms; a deep
//! sleep adds nothing to it) and it stops when the program ends.
//!
//! **Deep sleep** (`sysmon` in `proc.go`): after its `usleep`, when `npidle == gomaxprocs` (every
//! P idle; Go also when a stop-the-world waits, which the model has not) sysmon takes
//! `sched.lock`, tests again, sets `sched.sysmonwait` ([`GmpConfig::sysmonwait`]), unlocks and
//! sleeps on `sched.sysmonnote` ([`GmpConfig::sysmonnote`], a futex word: `notetsleep`). It does
//! not look at any P until an M wakes it: `entersyscall` (`entersyscall_sysmon`), and
//! `exitsyscallfast_pidle` / `exitsyscall0` when they got an idle P, each under `sched.lock`:
//! `if sysmonwait { sysmonwait = false; notewakeup(&sysmonnote) }` (`sysmon_wakes`). `startm` and
//! `wakep` do not wake it (as in Go: a G started on an idle P then runs up to sysmon's next
//! wake before any preemption). Woken, sysmon locks, clears `sysmonwait` and the note, resets its
//! backoff (`idle = 0`, 20 µs: the wake came from a syscall) and runs `retake`. Go's
//! `notetsleep` also ends at the next timer or after 60 s (`forcegcperiod / 2`); the model has
//! no timers and no such timeout. When the program ends, the last G's M sets the note and wakes
//! it (the model's stand-in for the process exit), so it sees `done` and stops. Counted in
//! `sysmon_deep_sleeps`.
//!
//! | sysmon state | what it does | next |
//! |---|---|---|
//! | `SmSleep` | `usleep(delay)` ([`Op::Sleep`](crate::op::Op::Sleep)) | `SmDone` |
//! | `SmDone` | `done`? stop; else every age grows by the sleep | `SmIdle` |
//! | `SmIdle`, `SmDeepLock`, `SmDeepCheck` | `npidle == gomaxprocs`, then again under the lock | `SmWaitSet`, else `retake` (`SmFlag`) |
//! | `SmWaitSet`, `SmWaitUnlock` | `sysmonwait = 1`; unlock | `SmNoteSleep` |
//! | `SmNoteSleep` | `futex_wait(sysmonnote, 0)` | `SmWokeLock` |
//! | `SmWokeLock` … `SmWokeUnlock` | lock; `sysmonwait = 0`; `sysmonnote = 0`; backoff reset; unlock | `SmWokeDone` |
//! | `SmWokeDone` | `done`? stop; else `retake` | `SmFlag` |
//! | `SmFlag` … | `retake` over every P (above) | `SmSleep` |
//!
//! Invariants of the deep sleep (what the tests check): sysmon takes no step between its
//! `futex_wait` on the note and an M's `notewakeup`; it sleeps deep only with every P idle and
//! `sysmonwait = 1`; every deep sleep is ended by one `notewakeup` (an M's, or the end's).
//!
//! A long computation runs in slices (`hog`: [`machine::HOG_SLICE_NS`]); after each slice comes a
//! preemption point: the `hog` is a call-free loop, so only the async signal (`SIGURG`, Go 1.14)
//! stops it there; the `pair`'s turns make calls, so the prologue's check does. A G that finds a
//! request for its slice runs `gopreempt_m` (`goschedImpl`: the global queue, `wakep`,
//! `schedule`).
//!
//! A blocked M and a sleeping sysmon hold no CPU (timed sleeps in the simulated kernel), so any
//! number of CPUs will do: 1 P on 2 CPUs makes the same hand-offs as on one CPU per thread.
//! `startm` with no parked M (Go would create one) puts the P back idle (`no_m`).
//!
//! The checker has no time: a timed sleep (sysmon's `usleep`, a blocking syscall) is a yield
//! point that may end at any moment, so every order of a sleeper's wakeup against the other
//! threads' steps is explored (sysmon's own clock, the sum of its sleeps, still bounds its ages).
//!
//! # LockOSThread (`locked`)
//! `runtime.LockOSThread` (the fact sheet's §3.13; `proc.go`'s `dolockOSThread`, `schedule`,
//! `stoplockedm`, `startlockedm`, `gdestroy`) wires a G and its M to each other: `m.lockedg` and
//! `gp.lockedm` ([`GmpConfig::lockedg`], [`GmpConfig::lockedm`]: words after the Gs, with
//! `sched.nmidlelocked`, [`GmpConfig::nmidlelocked`]; only the `locked` workload's world has them).
//! A program keeps a G on one OS thread when that thread carries state the OS ties to it: a GUI
//! toolkit's main thread, a cgo library's thread-local state, a namespace or credentials set with
//! a per-thread system call. From then on:
//! - `schedule` on an M with `lockedg` (its G just yielded) runs `stoplockedm`: `releasep`,
//!   `handoffp` of the P (the same `handoffp` sysmon runs, returning through [`machine::HoRet`]),
//!   `incidlelocked(1)`, and sleeps on `m.park`; woken with a P in `nextp`, it takes it and
//!   executes its G (a new time slice);
//! - any other M whose `findRunnable` (and `resetspinning`) ends with a G whose `lockedm` is set
//!   runs `startlockedm`: `incidlelocked(-1)`, `releasep`, the P into the locked M's `nextp`,
//!   `notewakeup`, then `stopm` itself, and, woken, `schedule` from the top;
//! - a G that exits locked clears both words and its thread exits (Go 1.10+: the thread's state
//!   may be unusual, so it is not reused): `mexit`'s `releasep` and `handoffp`, then the M's
//!   table ends (`locked_exits`).
//!
//! So each return of a locked G (after a `Gosched` here) costs two M switches where an unlocked
//! G costs none: its M parks handing the P off (`lockedm_parks`, a `handoffp` that wakes an M),
//! and the M that picks it hands the P back and parks (`locked_handoffs`, a wakeup of the locked
//! M). The `locked` workload: main spawns G2..GN, the first `locked` of them call
//! `LockOSThread`, then each computes `work_ns` and calls `Gosched` `yields` times, computes once
//! more and exits; every locked G but the last calls `UnlockOSThread` after the first half of its
//! yields (rounded up), the last one exits locked.
//!
//! `runtime.UnlockOSThread` (`dounlockOSThread`, with `lockedExt` back at 0: the model has no
//! nesting count) clears `m.lockedg`, then `gp.lockedm`, on the M the G runs on. Nothing else
//! changes at once: the G runs on; at its next stop its M's `schedule` no longer sees
//! `m.lockedg`, so the M looks for work like any other instead of `stoplockedm`, and the M that
//! later picks the G finds `gp.lockedm == 0` and runs it itself. Counted in `unlocks`.
//!
//! | state | what it does | next |
//! |---|---|---|
//! | `LkLockM`, `LkLockG` | `m.lockedg = gp`; `gp.lockedm = m` | the G goes on |
//! | `LkUnlockM`, `LkUnlockG` | `UnlockOSThread`: `m.lockedg = 0`; `gp.lockedm = 0` | the G goes on, and runs on any M from its next stop |
//! | `LkStopOwner` | `stoplockedm`: `releasep` | `handoffp` (`HoNext` …) |
//! | `LkIdleInc` | `incidlelocked(1)` | `LkSleep` |
//! | `LkSleep`, `LkWoke`, `LkClear` | `notesleep(&m.park)`; `noteclear` | `LkNextp` |
//! | `LkNextp`, `LkNextpClear`, `LkAcquire` | `acquirep(m.nextp)`; `m.nextp = 0` | `Exec` of `m.lockedg` |
//! | `LkCheck` | after `findRunnable`: `gp.lockedm`? | `Exec`, or `LkIdleDec` |
//! | `LkIdleDec`, `LkRelease`, `LkGive`, `LkPark`, `LkWake` | `startlockedm`: `incidlelocked(-1)`; `releasep`; `mp.nextp = pp`; `notewakeup(&mp.park)` | `stopm` (`StopLock`) |
//! | `LkExitG`, `LkExitM`, `LkExitLive`, `LkExitOwner` | a locked G's exit: both words cleared; the last G ends the program, else `mexit`: `releasep` | `handoffp`, then the thread ends |
//! | `LkNoMDone`, `LkNoMUnlock`, `LkNoMYield` | a locked M's `startm` found no idle M: unless the program ended, unlock, yield, try again | `StLock` |
//!
//! Invariants (`locked-thread`, and `conservation`'s extra place): a running G whose `lockedm`
//! is set runs on that M; `gp.lockedm = m` implies `m.lockedg = gp` (except between
//! `dounlockOSThread`'s two stores, on the G's own M); a locked M asleep in
//! `stoplockedm` holds no P; a locked G that `startlockedm` handed over (the locked M's `nextp`
//! set, not yet taken) is in that M's hands, so `conservation` still finds every G in exactly
//! one place. `lost-wakeup` counts an M inside its `handoffp` as looking.
//!
//! Where the model differs: Go's `startm` starts a new thread (`newm`) when no M is idle; the
//! model's Ms are a fixed set, and a `handoffp` that finds none puts the P back idle (`no_m`).
//! For a locked M's `handoffp` that lost wakeup is real here (seen natively: every unlocked M
//! was still on its way to `stopm`, after a `startlockedm`, when the locked M handed its P off,
//! and the run stalled), so that `startm` waits instead (unlock, yield, lock, `mget` again,
//! `locked_no_m`) until one of them parks, which the rule "more Ms than `gomaxprocs + locked`"
//! guarantees. `incidlelocked` is a bare `fetch_add` (Go takes `sched.lock` for it and
//! `checkdead` reads it there); the model has no nesting count (`lockedExt`, `lockedInt`: one
//! `LockOSThread`, one `UnlockOSThread`), no template thread and no locked syscalls.
//!
//! The checker's presets ([`GmpParams::locked_preset`]: main and G2, which locks, computes, calls
//! `Gosched` once, computes and exits): 1 P and 3 Ms proven complete (15,268 states); 2 Ps and
//! 4 Ms proven up to 2 preemptions (116,797 states; 392,239 up to 3). `locked-runs-anywhere`
//! breaks `locked-thread` in 68 steps: M0 locks G2, G2 yields, M0 hands its P to M1, which takes
//! G2 from the global queue and runs it.
//! # The netpoller and `checkdead` (`netpoll`, `deadlock`)
//! Follows `netpoll.go` and `findRunnable` in `proc.go` (fact sheet §3.5 steps 8 and 13, §3.12,
//! §3.14). A G's read (`GAct::NetWait`) sends a request to its *peer* (the other end of its
//! connection: one more thread per G, after the Ms, the spawner and sysmon), then
//! `netpollblock`s: `cas(pd.rg, pdNil, pdWait)`, `gopark` (`_Gwaiting`, `dropg`, the M
//! schedules) whose commit `cas(pd.rg, pdWait, gp)` publishes the G on its `pollDesc`
//! ([`machine::pd`]) and counts it in `netpollWaiters`; a commit that finds `pdReady` (the
//! poller came first) runs the G on. After the park, `pd.rg.Swap(pdNil)` consumes the readiness
//! (`GAct::NetDone`). The peer sleeps `net_ns` (a timer of the simulated kernel; natively
//! `clock_nanosleep`), then the kernel makes the fd readable: it pushes the fd on the epoll
//! instance's ready list ([`GmpConfig::rdy`], a list through the fds' link words, also the futex
//! word a blocked `epoll_wait` sleeps on) and wakes the sleeper.
//!
//! `netpoll(delay)` takes the whole ready list (`epoll_wait`), and per fd: the break eventfd
//! clears `netpollWakeSig`; a connection's `pollDesc` goes to `pdReady`, and a G parked there
//! joins the returned list (`netpollunblock`). The scheduler polls in findRunnable's step 8 (after
//! the local and global queues: waiters, nobody blocked in netpoll, `pollingNet` won; the first G
//! runs, `injectglist` takes the rest) and step 13 (after the release of the P and the dance,
//! before `stopm`: with waiters and `lastpoll.Swap(0) != 0` the M becomes THE poller and blocks;
//! woken, `lastpoll` is set again, `pidleget` under the lock: a P → run the first G, inject the
//! rest; none → inject all to the global queue and `stopm`). `injectglist`: every G runnable;
//! without a P all to the global queue and `startIdle(n)`; with one, `min(npidle, n)` to the
//! global queue and an M each, the rest `runqput(pp, gp, false)`. `netpollBreak` (CAS
//! `netpollWakeSig` 0→1, write the eventfd: push fd `gs + 1`, wake) where `startm` finds no
//! parked M while an M blocks in netpoll (Go would start a thread; `wakeNetPoller` is Go's
//! caller for timers, which the model lacks), and at the program's end (the blocked poller is
//! not on `midle`). `sched.lastpoll` is kept as the flag [`GmpConfig::in_netpoll`].
//!
//! | state | what it does | next |
//! |---|---|---|
//! | `NwReq`, `NwReqWake` | the request to the peer (a store, a futex wake) | `NwWait` |
//! | `NwWait` … `NwAdd` | `netpollblock`: `pdWait`, save `pc`, `_Gwaiting`, commit, `netpollWaiters++` | `schedule`, or the G on (`NwResumeRun`) |
//! | `NwDone` | `pd.rg.Swap(pdNil)` | the G's next action |
//! | `NpWaiters`, `NpLastLoad`, `NpPolling` | step 8's tests | `NpTake`, else the spinning check |
//! | `NpTake`, `NpSleep`, `NpLink`, `NpBrkRead`, `NpPdLoad`, `NpPdCas` | `netpoll`: the ready list, `netpollunblock` | `NpPollDone` or `NpLastpoll` |
//! | `NpBWaiters`, `NpBSwap` | step 13's tests: THE poller | `NpTake` (blocking), else `stopm` |
//! | `NpLastpoll` … `NpBUnlockNone` | after the blocking poll: `pidleget` | run the first G, or inject and `stopm` |
//! | `NpAdjust`, `InjStatus`, `InjNpidle`, `NpFirstStatus` | `netpollAdjustWaiters`, `injectglist`, run the first | `execute` |
//! | `NbLast` … `NbWake` | `netpollBreak` | back to `wakep`'s caller or the end |
//! | `PeerWait` … `PeerWake` | a peer: request, delay, readable, wake | exits after `rounds` answers |
//! | `CdScan`, `CdFatal` | `checkdead` | the M stops; the program's outcome |
//!
//! `checkdead` runs in `stopm` after `mput`, under the lock, when every M is on `midle` (the
//! run count `mcount − nmidle` is 0; an M blocked in netpoll or a syscall is not on `midle`): a
//! runnable G → "checkdead: runnable g"; a waiting G → "all goroutines are asleep - deadlock!"
//! (the report's `fatal`, `herdlab sim gmp` exit 1); no G → nothing (the end). Not with the
//! outside spawner, nor where sysmon runs (Go's `incidlelocked` bracket around retake, which
//! keeps a P in sysmon's hands from looking idle, is not modelled).
//!
//! Invariants of the netpoller: a G parked on its `pollDesc` is `_Gwaiting` and in no queue,
//! and a waiting G is on its wait word, its `pollDesc`, or in one M's hands (`gopark`'s window,
//! the list a `netpoll` returned until `injectglist`) (`conservation`); the blocked poller is not
//! "looking" for `lost-wakeup` unless a break or an answer is on the ready list; every answer
//! runs its G (`netpoll_ready == netpoll_parks` at the end, the tests); `checkdead` throws only
//! when no G waits on the network, and never finds a runnable G (`deadlock-report`). The
//! variant `no-blocking-netpoll` drops step 13: the last M parks, and `checkdead` reports a
//! deadlock while answers sit in the ready list (its preset: 1 P, 2 Ms, main reads once; the
//! checker's shortest counterexample is 53 steps). The runtime's code is proven on the netpoll
//! preset ([`GmpParams::action_preset`]: 1 P, 2 Ms, 2 Gs of one read, 2 peers: 311,944 states)
//! and on 2 Ps, 3 Ms and one G (143,390); 2 Ps with 2 Gs did not finish in 400 s of a release
//! build (the peers' timers multiply the orders).
//!
//! # sysmon's network poll (`netpoll-hog`)
//! Go's sysmon, after its sleep (and its deep-sleep test), polls the network when nobody has
//! for more than 10 ms: `lastpoll := sched.lastpoll.Load(); if lastpoll != 0 && lastpoll +
//! 10ms < now { sched.lastpoll.CompareAndSwap(lastpoll, now); list := netpoll(0); if
//! !list.empty() { injectglist(&list); netpollAdjustWaiters(delta) } }` (`proc.go`'s
//! `sysmon`), then runs `retake`. `lastpoll` is stored (`now`) only by an M back from the
//! blocking `netpoll` of findRunnable's step 13 and by sysmon itself: the non-blocking
//! `netpoll(0)` of step 8 leaves it, so "nobody polled" means nobody blocked in the poller
//! and sysmon did not poll, for 10 ms. sysmon takes no `pollingNet` and does not test
//! `netpollAnyWaiters`. Without a P, its `injectglist` puts every G found on the global queue
//! under `sched.lock` and `startIdle`s an M per G for an idle P: the same rows as the blocking
//! poller without a P and the injector of `foreign-wake` (`InjStatus`, `globrunqputbatch` through
//! `SlowLock` …, `startIdle` through `WakeLock` …), not a second copy; like the injector, its
//! `startm` that finds no parked M waits for one (`IjNoMDone` …), where Go would start a thread.
//!
//! It matters when every P computes: a `findRunnable` reaches its own `netpoll(0)` only after
//! the local and global queues came up empty, so while a call-free hog holds the only P, each
//! preemption puts the hog on the global queue and the next `findRunnable` takes it back
//! before any poll. The `netpoll-hog` workload (main spawns the hog G2, which runs `hog_ns` in
//! slices and then reads like the others; every G reads `rounds` times) has both the poller
//! and sysmon. On 1 P and 2 Ms, with a 50 ms hog and main's answer after 100 µs, sysmon's poll
//! finds main after 10 ms of its clock (its sleep has grown to milliseconds by then), injects
//! it, and main runs at the hog's next preemption (it ends at about 14.7 ms); the variant
//! `no-sysmon-netpoll` (counted, not caught: the G waits, it is not lost) leaves main's answer
//! in the kernel until the hog ends and parks on its own read, 50 ms (the tests,
//! `core/tests/gmp_sysmon_netpoll.rs`). Counted in `sysmon_netpolls` (also in
//! `netpoll_polls`) and `sysmon_injected`.
//!
//! The model's `lastpoll`: the flag [`GmpConfig::in_netpoll`] (`lastpoll == 0`) as before, and
//! in a world with sysmon a stamp ([`GmpConfig::lastpoll_stamp`], the world's last word) that an
//! M back from the blocking poll increments before clearing the flag; sysmon measures the
//! stamp's age on its own clock from the round it first saw it (as `retake` measures
//! `schedtick`), saturating just past 10 ms so the checker's states stay finite. sysmon's own
//! `CompareAndSwap(lastpoll, now)` only restarts that age: nobody else reads the time, and a
//! stamp sysmon bumped every 10 ms would grow without bound while it runs alone (the checker
//! found such runs past depth 100,000 on the preset). The other netpoll worlds (no sysmon) have no stamp and take no extra step: their
//! state counts and traces are as before.
//!
//! | state | what it does | next |
//! |---|---|---|
//! | `SmNpLast`, `SmNpStamp` | `lastpoll != 0`; the stamp unchanged for more than 10 ms: `lastpoll = now` (sysmon's age back to 0) | `netpoll(0)` (`NpTake` …), else `retake` |
//! | (`np_polled`) | nothing found → `retake`; else `netpollAdjustWaiters`, `injectglist` with no P | `SmFlag` |
//! | `NpStamp` | an M back from the blocking poll: `lastpoll = now` (the stamp, then the flag) | `NpLastpoll` |
//!
//! The checker proves the runtime's code on the `netpoll-hog` preset
//! ([`GmpParams::action_preset`]: 1 P, 2 Ms, main and a hog of 2 slices, one read each, sysmon
//! and 2 peers) up to 2 preemptions: 6,150,897 states, complete, about 30 s of a release build
//! (`herdlab check gmp --workload netpoll-hog --preemption-bound 2`); that search reaches
//! sysmon's poll and its `injectglist` of a found G (schedules of 658 and 673 steps).
//!
//! # A wake from outside every P (`foreign-wake`)
//! A G parked on its wait word may be readied by a thread that is neither an M nor holds a P: a
//! foreign thread, a timer (natively: any thread that wakes a parked future's waker). Go readies
//! Gs found by such a thread with `injectglist` when `getg().m.p == 0` (§3.12): every G
//! `_Grunnable`, `globrunqputbatch` under `sched.lock`, then `startIdle(n)`: per G, under the
//! lock, `pidlegetSpinning` (none: `needspinning = 1`, stop) and `startm(pp, false)`, which
//! wakes a parked M for it. The model's *injector* is that thread (one more actor, after every
//! other, [`GmpConfig::injector_id`]): it sleeps `net_ns` (a timed sleep: any moment in the
//! checker), then G1 to GN in turn: a G that has not parked gets the token on its wait word
//! (its receive takes it, as a send before the park), a parked one is taken off it and
//! injected, through the spawner's own rows (`globrunqput`, then `startIdle(1)`: no second
//! copy). Natively each foreign wake runs the same rows once for its G on the waking thread
//! ([`GmpActor::injector`]). The `foreign-wake` workload: main spawns G2..GN, every G computes,
//! receives (parks, unless its token came while it computed) and exits. Since a thread outside the runtime may still wake a G, a world
//! with one ([`GmpConfig::foreign_wakes`]) has no `checkdead` (Go's is silent in a program built
//! as a library, whose host's threads call in).
//!
//! | state | what it does | next |
//! |---|---|---|
//! | `IjSleep` | the outside thread's sleep (`net_ns`) | `IjLoad` |
//! | `IjLoad`, `IjPost` | the G's wait word: empty → CAS in the token | the next G, or the end |
//! | `IjTake`, `IjStatus` | parked → CAS it off; `casgstatus(gp, _Gwaiting, _Grunnable)` | `globrunqput` (`SlowLock` …), `startIdle(1)` (`WakeLock` …), the next G |
//! | `IjNoMDone` … `IjNoMLock`, `IjGivePidle` | `startm` found no parked M: unless the program ended (the P back idle), unlock, yield, lock, `mget` again | `WakeMidle` |
//!
//! Where the model differs: Go's `startm` creates a thread (`newm`) when no M is idle. The
//! model's Ms are a fixed set, and an M that has done its last re-check of the queues may still
//! be on its way to `stopm`: giving the P back there (`no_m`, as the Ms' own `wakep` does) would
//! leave the injected G queued while every M sleeps (the checker found that on the preset: both
//! Ms past their last re-check, neither on `midle` yet). So the injector's `startm` waits instead, holding the P, until one of them parks
//! (there are more Ms than Ps, so an M without a P always ends in `stopm`), as a locked M's
//! `handoffp` does (`locked_no_m`).
//!
//! Invariants: `conservation` counts a G between the injector's take and its status change as
//! waiting in its hands, and a runnable G in them until it is on the global queue;
//! `lost-wakeup` counts the injector as looking until its `startIdle` ends. The variant
//! `inject-without-startm` skips `startIdle`: with every M asleep in `stopm` the injected G
//! waits on the global queue while the P idles, which the checker finds on the preset
//! ([`GmpParams::action_preset`] of `foreign-wake`: 1 P, 2 Ms, main and G2) in 72 steps; the
//! runtime's code is proven there (768,139 states, about a minute of a debug build).
//!
//! # Invariants ([`invariants`], §5 of the fact sheet)
//! `conservation`, `ownership`, `queue-bounds`, `spinning`, `lost-wakeup`, the bounded-liveness
//! checks of the sysmon worlds `syscall-retake`, `preemption` and `starvation`, `locked-thread`
//! (LockOSThread, above), and `stuck` at the end; the table is in [`invariants`].
//!
//! The sysmon presets ([`GmpParams::action_preset`] of `syscall`, `hog`, `pair`: 1 P, 2 Ms,
//! sysmon) are proven up to 2 preemptions of the schedule (268,393, 214,163 and 453,517 states
//! with the deep sleep, a debug build in about a minute and a half: `herdlab check gmp
//! --workload syscall --preemption-bound 2`); unbounded, sysmon's clock and the Ms' steps
//! multiply past 3 million states before the search ends.
//!
//! The checker proves each G action on a tiny preset ([`GmpParams::action_preset`]: ping-pong
//! 638 states, spawn-many 63,461, yield-many 47,043, goyield-many 66,457), and the scheduler for 2 Ps, 3 Ms and 3 Gs
//! (fan-out, ring of 2:
//! [`GmpParams::check_preset`]): 7,433,578 states, 19,937,057 transitions, complete, in about a
//! minute of a release build (`cargo run -p herdlab-core --release --example gmp_check
//! variant=correct`); the tests prove the 2-G preset (329,483 states) in debug.
//!
//! `lost-wakeup` only counts Gs that wait behind a *computing* M. Stronger ("never a queued G and
//! an idle P with nobody looking") is false in the runtime itself, and the checker finds the race
//! in 121 steps: M0's `wakep` wins the CAS on `nmspinning`, finds no idle P (M1 has just taken it
//! back in the dance) and sets `needspinning`; M1's `becomeSpinning` clears it, M1 steals G2,
//! its `resetspinning` → `wakep` sees M0's in-flight increment and returns; M0 undoes it; M1
//! finishes G2, reads `nmspinning` = 1 at its spinning check (still M0's increment), does not spin
//! and parks, so G3 waits in M0's `runnext` while P1 idles, until M0's G exits. `wakep` is best
//! effort; the owner always runs its own queue.
//!
//! # Variants ([`GmpVariant`])
//! `reversed-dance` → `lost-wakeup`; `wakep-no-spin-test` (a herd of Ms: more `futex_wakes`,
//! `parks`), `no-spin-limit` (more `spins`), `steal-one` (more `steals`), `no-fairness` (no
//! 1-in-61 check: the global queue waits for an empty local one) are counted, not caught: they
//! waste, they do not lose. `single-queue` is the Go 1.0 design the 2012 doc replaced (one global
//! queue under one lock, every G through it), correct and proven like the runtime, for comparison.
//! `no-syscall-retake` → `syscall-retake` (main spawns G2 and blocks: 35 steps);
//! `no-async-preemption` → `preemption` (the hog passes its safe point with the request pending:
//! a few hundred steps, sysmon must sleep 10 ms of its clock first: 318 before the timed sleep,
//! not re-measured since); `runnext-without-sysmon` →
//! `starvation` (the pair runs 5 Gs from runnext on one slice while G2 waits: 183 steps). The
//! last two are starvation bounds written as state invariants: the checker has no time, so
//! `preemption` says "a request pending at a preemption point is honoured there" and
//! `starvation` "without sysmon, at most 4 inherited executes in a row while the ring waits"
//! (with sysmon the bound is its 10 ms, which only the simulator's clock sees).
//! `locked-runs-anywhere` (`schedule` skips `startlockedm` and runs a locked G on whichever M
//! picked it) → `locked-thread` (68 steps on [`GmpParams::locked_preset`]).
//! `no-sysmon-netpoll` (sysmon never polls the network) is counted, not caught: on
//! `netpoll-hog` an answered G waits in the kernel for the hog's whole run instead of 10 ms.
//!
//! # What seed 003 (the 2012 design doc's translation) gets wrong (fact sheet §7)
//! - An idle or syscalling M holds *no* P (the translation says it needs one).
//! - The per-P queue is a 256-slot lock-free ring plus `runnext` (LIFO, inheriting the time slice),
//!   not a mutex-protected list; new Gs go to `runnext`, the old one is kicked to the tail.
//! - Stealing is 4 passes over all Ps in a random coprime order taking half, `runnext` last; the
//!   global queue is checked every 61 ticks and between local and stealing.
//! - Spinning Ms actively steal, are limited to half the busy Ps, and park by dropping spinning
//!   *before* re-checking every queue; there is no P-less "type 2" spinning.
//! - Deadlock detection (`checkdead`) counts running Ms, not idle Ps.
//!
//! # Model limits (not modelled yet)
//! Timers (so `netpoll`'s delay is always −1 or 0, and `wakeNetPoller` has no caller),
//! LockOSThread's nesting (its limits are above), `entersyscallblock`, sysmon's deep
//! sleep's timeout (the next timer, 60 s), a stop-the-world
//! (`gcwaiting`),
//! Go 1.26's scan-bit retake (above). sysmon runs only in the `syscall`,
//! `hog`, `pair` and `netpoll-hog` worlds (the other workloads' Gs never run 10 ms nor block, so it would only
//! tick; their figures are as pinned before it existed). A G's channel is one token on its wait word (a oneshot),
//! not Go's `hchan` with its lock and wait queues. The ring is a parameter (Go: 256, the bench
//! uses 256; the checker's presets 2); `runqputslow` moves half of it.
//! Ms beyond `threads` are never created: `startm` with no parked M puts the P back (counted in
//! `no_m`).

pub mod invariants;
pub mod machine;
pub mod params;
pub mod phases;

pub use machine::{
    GAct, GCode, GCodeRef, GmpActor, GmpConfig, GmpVariant, HoRet, Mcx, Sched, Workload, LISTING,
};
pub use params::{cache_lines, Gmp, GmpParams, GmpReport, GmpSim, COHERENCE_MISS_NS, LOCK2};
pub use phases::FanOutPhases;
