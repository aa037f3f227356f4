//! The scheduler's invariants (`go-gmp.md` §5), over the simulator's state: the simulator checks
//! them after every step ([`super::GmpParams::run`]) and the checker on every state it explores
//! ([`check`], over [`SimModel`]); a counterexample replays in the simulator ([`replay`]) to the same
//! broken invariant.
//!
//! | name | holds |
//! |---|---|
//! | `conservation` | with `sched.lock` free: every runnable G is in exactly one place (a P's `runnext`, a P's ring between head and tail, the global queue, or one M's (or the spawner's) hands between taking and running or publishing it); every running G is exactly one M's `curg` and in no queue; a waiting G is in the "waiting" place: parked on its wait word, or in one M's hands between `gopark`'s status change and its unlock function, or between a `goready`'s take and its status change, and in no queue; a G parked on its wait word is waiting; idle and dead Gs are nowhere |
//! | `ownership` | `pp.m == mp ⇔ mp.p == pp`; an idle P (its bit in `pidle`) has no owner, an empty ring and no `runnext` |
//! | `queue-bounds` | `0 ≤ tail − head ≤ len(runq)` for every P; with the lock free, the global queue's `size` is its list's length and `npidle` the number of idle bits |
//! | `spinning` | `nmspinning` = Ms with `m.spinning` + `wakep` increments not yet handed to an M + `nextp` words started spinning |
//! | `lost-wakeup` | never a runnable G queued and a P idle while every M that holds a P is inside a G's computation and no M will look: none spinning, none between readying a G and the end of its `wakep`, none in the park re-check, none woken and not yet running (Go tolerates work waiting briefly in a busy P's queue while that P's M is between Gs: `wakep` is best effort, see the tests) |
//! | `ownership` (syscalls) | a P in `_Psyscall` has no owner, is not idle, no M's `p`, and is the `oldp` of an M whose G is in the syscall (an M whose P was retaken keeps a stale `oldp`) |
//! | `syscall-retake` | a P sysmon has seen in the same syscall for a whole tick is not left with its blocked M while Gs wait in its local queue (retake's bound: one tick) |
//! | `preemption` | a G at a preemption point with sysmon's request for its slice pending does not run on while Gs wait (the async signal's bound: one slice) |
//! | `starvation` | where no sysmon runs in a `syscall`/`hog`/`pair` world, a P runs at most [`RUNNEXT_BOUND`] inherited `execute`s in a row while Gs wait in its ring (with sysmon the bound is 10 ms of time) |
//! | `locked-thread` | (`locked` workload) a running G locked to an M (`gp.lockedm`) runs on that M; `m.lockedg` and `gp.lockedm` name each other; a locked M asleep in `stoplockedm` holds no P; a locked G handed to its M (`startlockedm` set the M's `nextp`) is counted by `conservation` as in that M's hands |
//! | `stuck` (end) | when nothing can run, every G ran to its end and every M exited, or `checkdead` threw (the program's outcome, [`super::GmpReport::fatal`]) |
//! | `conservation` (netpoll) | a G parked on the poller (`pd.rg` = the G) is waiting and in no queue; a waiting G is parked on its wait word or its `pollDesc`, or in one M's hands (`gopark`'s window, or the list a `netpoll` returned, until `injectglist`) |
//! | `lost-wakeup` (netpoll) | an M blocked in `netpoll` is not on `midle` and is not looking, unless a `netpollBreak` or an event is on its way (the ready list is not empty) |
//! | `deadlock-report` | `checkdead` throws only when no G waits on the network: a G parked on the poller, or an answer on its way, is no deadlock (Go: the blocked poller is not on `midle`, so it never counts as idle) |

use super::machine::{gstatus, wait, GmpActor, Sched, DONE, GHEAD, GSIZE, NMSPINNING, NONE};
use super::machine::{pd, NPIDLE, PIDLE, SCHED_LOCK, SPIN_BIT};
use super::params::{GmpParams, GmpSim};
use crate::check::{CheckConfig, CheckReport, SimModel, Violation};
use crate::machine::Machine;

fn v(invariant: &str, message: String) -> Option<Violation> {
    Some(Violation {
        invariant: invariant.to_string(),
        message,
    })
}

fn ms(sim: &GmpSim) -> impl Iterator<Item = &GmpActor> {
    sim.threads().iter().map(|t| t.machine())
}

/// The Gs of the global queue, walked from its head (`None` if the list is cyclic or too long).
pub fn global_queue(sim: &GmpSim) -> Option<Vec<u32>> {
    let cfg = ms(sim).next()?.cx.cfg;
    let mut out = Vec::new();
    let mut g = sim.word(GHEAD);
    while g != 0 {
        if g > cfg.gs || out.len() > cfg.gs as usize {
            return None;
        }
        out.push(g);
        g = sim.word(cfg.link(g));
    }
    Some(out)
}

/// The invariants checked after every step.
pub fn check_state(sim: &GmpSim) -> Option<Violation> {
    let cfg = ms(sim).next()?.cx.cfg;
    if ms(sim).any(|m| m.initializing()) {
        return None;
    }
    let lock_free = sim.mutex_owner(SCHED_LOCK.0).is_none();
    let pidle = sim.word(PIDLE);
    // ownership and queue bounds
    for p in 0..cfg.procs {
        let owner = sim.word(cfg.owner(p));
        if owner != 0 {
            let m = owner - 1;
            let mp = sim.threads().get(m as usize).map(|t| t.machine().cx.p);
            if mp != Some(p) {
                return v("ownership", format!("P{p}.m is M{m} but M{m}.p is {mp:?}"));
            }
        }
        let h = sim.word(cfg.head(p));
        let t = sim.word(cfg.tail(p));
        let len = t.wrapping_sub(h);
        if len > cfg.ring {
            return v(
                "queue-bounds",
                format!("P{p}'s ring holds tail − head = {len} > {} slots", cfg.ring),
            );
        }
        if pidle & (1 << p) != 0 {
            let next = sim.word(cfg.runnext(p));
            if owner != 0 || len != 0 || next != 0 {
                return v(
                    "ownership",
                    format!(
                        "P{p} is idle but has owner {owner}, {len} Gs in its ring, runnext {next}"
                    ),
                );
            }
        }
    }
    for (i, m) in ms(sim).enumerate() {
        if m.cx.p != NONE && sim.word(cfg.owner(m.cx.p)) != i as u32 + 1 {
            return v(
                "ownership",
                format!(
                    "M{i}.p is P{} but P{}.m is {}",
                    m.cx.p,
                    m.cx.p,
                    sim.word(cfg.owner(m.cx.p))
                ),
            );
        }
    }
    // Ps in a syscall (_Psyscall): no owner, not idle, held as `oldp` by at most one M, whose G
    // is in the syscall
    if cfg.workload.sysmon_world() {
        for p in 0..cfg.procs {
            let holders: Vec<usize> = ms(sim)
                .enumerate()
                .filter(|(_, m)| m.cx.oldp == p)
                .map(|(i, _)| i)
                .collect();
            if sim.word(cfg.psys(p)) == 1 {
                let owner = sim.word(cfg.owner(p));
                if owner != 0 || pidle & (1 << p) != 0 {
                    return v(
                        "ownership",
                        format!(
                            "P{p} is in _Psyscall but has owner {owner} or is on the idle list"
                        ),
                    );
                }
                if let Some(&i) = ms(sim)
                    .enumerate()
                    .find(|(_, m)| m.cx.p == p)
                    .map(|(i, _)| i)
                    .as_ref()
                {
                    return v(
                        "ownership",
                        format!("P{p} is in _Psyscall but M{i}.p is P{p}"),
                    );
                }
                // held as `oldp` by an M whose G is in the syscall (an M whose P was retaken keeps
                // a stale `oldp` and may take the P back from a later syscall: Go's CAS allows it)
                let blocked = holders.iter().any(|&i| {
                    let g = sim.threads()[i].machine().cx.curg;
                    g != 0 && sim.word(cfg.status(g)) == gstatus::SYSCALL
                });
                if !blocked {
                    return v(
                        "ownership",
                        format!("P{p} is in _Psyscall and no M holds it as oldp"),
                    );
                }
            }
        }
        if let Some(bad) = retake_and_preemption(sim) {
            return Some(bad);
        }
    }
    if let Some(bad) = locked_thread(sim) {
        return Some(bad);
    }
    // spinning accounting
    let spinning = ms(sim).filter(|m| m.cx.spinning).count() as u32;
    let pending = ms(sim).filter(|m| m.cx.pending_spin).count() as u32;
    let handed = (0..cfg.threads)
        .filter(|&m| sim.word(cfg.nextp(m)) & SPIN_BIT != 0)
        .count() as u32;
    let nms = sim.word(NMSPINNING);
    if nms != spinning + pending + handed {
        return v(
            "spinning",
            format!("nmspinning is {nms} but {spinning} Ms spin, {pending} wakep increments are in flight and {handed} Ms were started spinning"),
        );
    }
    // the global queue, the counts and conservation: only with the lock free
    let mut queued = 0u32;
    if lock_free {
        let gq = match global_queue(sim) {
            Some(q) => q,
            None => {
                return v(
                    "queue-bounds",
                    "the global queue's list is cyclic or holds a non-G".to_string(),
                )
            }
        };
        let size = sim.word(GSIZE);
        if size as usize != gq.len() {
            return v(
                "queue-bounds",
                format!(
                    "sched.runq.size is {size} but the list holds {} Gs",
                    gq.len()
                ),
            );
        }
        let npidle = sim.word(NPIDLE);
        if npidle != pidle.count_ones() {
            return v(
                "queue-bounds",
                format!(
                    "npidle is {npidle} but {} Ps are on the idle list",
                    pidle.count_ones()
                ),
            );
        }
        // per G: how many places hold it, and whether one is a curg (names only on a violation)
        let n = cfg.gs as usize + 1;
        let mut count = vec![0u32; n];
        let mut running = vec![false; n];
        let mut waiting = vec![false; n];
        let mut put = |g: u32| {
            if let Some(c) = count.get_mut(g as usize) {
                *c += 1;
            }
        };
        for p in 0..cfg.procs {
            let next = sim.word(cfg.runnext(p));
            if next != 0 {
                put(next);
                queued += 1;
            }
            let h = sim.word(cfg.head(p));
            let t = sim.word(cfg.tail(p));
            let mut i = h;
            while i != t {
                put(sim.word(cfg.slot(p, i)));
                queued += 1;
                i = i.wrapping_add(1);
            }
        }
        for &g in &gq {
            put(g);
            queued += 1;
        }
        for (i, m) in ms(sim).enumerate() {
            // startlockedm handed the G to its locked M (its `nextp` set, not yet taken)
            if m.cx.lockedg != 0 && i < cfg.threads as usize && sim.word(cfg.nextp(i as u32)) != 0 {
                put(m.cx.lockedg);
            }
            for &g in &m.cx.hand {
                put(g);
            }
            if m.cx.curg != 0 {
                put(m.cx.curg);
                if let Some(r) = running.get_mut(m.cx.curg as usize) {
                    *r = true;
                }
            }
            for g in [m.cx.parking, m.cx.readying, m.cx.np.first]
                .into_iter()
                .chain(m.cx.np.list.iter().copied())
            {
                if let Some(w) = waiting.get_mut(g as usize).filter(|_| g != 0) {
                    *w = true;
                }
            }
        }
        for g in 1..n {
            let status = sim.word(cfg.status(g as u32));
            let parked = sim.word(cfg.wait(g as u32)) == wait::PARKED
                || (cfg.workload.netpoll_world() && sim.word(cfg.pd(g as u32)) == pd::PARKED);
            let ok = match status {
                gstatus::RUNNABLE => count[g] == 1 && !running[g],
                gstatus::RUNNING | gstatus::SYSCALL => count[g] == 1 && running[g],
                gstatus::WAITING => count[g] == 0 && (parked || waiting[g]),
                _ => count[g] == 0 && !parked,
            } && !(parked && status != gstatus::WAITING);
            if !ok {
                return v(
                    "conservation",
                    format!(
                        "G{g} has status {status} and is in {:?}",
                        places(sim, g as u32, &gq)
                    ),
                );
            }
        }
    }
    // deadlock-report: checkdead found a runnable G while no M runs (a lost G), or threw
    // while a G waits on the network
    if let Some(m) = ms(sim).find(|m| m.cx.fatal == super::machine::fatal::RUNNABLE_G) {
        return v(
            "deadlock-report",
            format!(
                "M{} threw \"checkdead: runnable g\": every M is idle while a G is runnable",
                m.cx.id
            ),
        );
    }
    // deadlock-report: checkdead threw while a G waits on the network
    if cfg.workload.netpoll_world() {
        if let Some(m) = ms(sim).find(|m| m.cx.fatal != 0) {
            let net = (1..=cfg.gs).find(|&g| sim.word(cfg.pd(g)) == pd::PARKED);
            if let Some(g) = net {
                return v(
                    "deadlock-report",
                    format!(
                        "M{} threw \"{}\" while G{g} waits on the poller for an answer the network will deliver (no M blocks in netpoll)",
                        m.cx.id,
                        super::machine::fatal::text(m.cx.fatal).unwrap_or("")
                    ),
                );
            }
        }
    }
    // lost wakeup
    if lock_free && queued > 0 && pidle != 0 && sim.word(DONE) == 0 {
        // sysmon will retake a P stuck in a syscall and hand it off
        let retaker = cfg.sysmon() && (0..cfg.procs).any(|p| sim.word(cfg.psys(p)) == 1);
        let looking = retaker
            || (cfg.workload.netpoll_world()
                && sim.word(cfg.in_netpoll()) == 1
                && sim.word(cfg.rdy()) != 0)
            || (0..cfg.actors()).any(|i| {
                let m = &sim.threads()[i as usize].machine();
                if m.cx.is_peer() {
                    return false;
                }
                let poller_back = m.cx.np.blocking && !matches!(m.at, Some(Sched::NpSleep));
                poller_back
                    || m.cx.spinning
                    || m.cx.lk_handing
                    || m.cx.pending_spin
                    || m.cx.waking
                    || m.cx.dancing
                    || (m.cx.p != NONE && m.cx.curg == 0)
                    || sim.word(cfg.nextp(i)) != 0
                    || sim.word(cfg.park(i)) != 0
                    || matches!(m.at, Some(Sched::StopNextpClear { .. } | Sched::AcquireP))
            });
        // …while every M holding a P is inside a G's computation (the G waits behind it)
        let behind = (0..cfg.actors()).all(|i| {
            let m = &sim.threads()[i as usize].machine();
            m.cx.p == NONE || matches!(m.at, Some(Sched::GWork | Sched::GSlice))
        });
        if !looking && behind {
            return v(
                "lost-wakeup",
                format!("{queued} runnable Gs are queued and Ps {pidle:#b} idle while every busy M computes, and no M spins, wakes or re-checks"),
            );
        }
    }
    None
}

/// `locked-thread`: a locked G runs only on its M, the two words name each other, and a locked M
/// asleep in `stoplockedm` holds no P.
fn locked_thread(sim: &GmpSim) -> Option<Violation> {
    let cfg = ms(sim).next()?.cx.cfg;
    if cfg.workload != super::machine::Workload::Locked {
        return None;
    }
    for (i, m) in ms(sim).enumerate() {
        let g = m.cx.curg;
        if g != 0 && sim.word(cfg.status(g)) == gstatus::RUNNING {
            let lm = sim.word(cfg.lockedm(g));
            if lm != 0 && lm != i as u32 + 1 {
                return v(
                    "locked-thread",
                    format!(
                        "G{g} is locked to M{} (LockOSThread) but runs on M{i}",
                        lm - 1
                    ),
                );
            }
        }
        if matches!(m.at, Some(Sched::LkSleep)) && m.cx.p != NONE {
            return v(
                "locked-thread",
                format!("M{i} sleeps in stoplockedm holding P{}", m.cx.p),
            );
        }
    }
    for g in 1..=cfg.gs {
        let lm = sim.word(cfg.lockedm(g));
        // `dounlockOSThread` clears `m.lockedg` first, then `gp.lockedm`: between the two the
        // G runs on that M, which is the only one that reads either word for it
        let unlocking = lm != 0
            && matches!(
                sim.threads()[(lm - 1) as usize].machine().at,
                Some(Sched::LkUnlockG)
            );
        if lm != 0 && !unlocking && sim.word(cfg.lockedg(lm - 1)) != g {
            return v(
                "locked-thread",
                format!(
                    "G{g}.lockedm is M{} but M{}.lockedg is G{}",
                    lm - 1,
                    lm - 1,
                    sim.word(cfg.lockedg(lm - 1))
                ),
            );
        }
    }
    None
}

/// The number of runnable Gs in P `p`'s local queue (`runnext` and ring).
fn local_len(sim: &GmpSim, p: u32) -> u32 {
    let Some(cfg) = ms(sim).next().map(|m| m.cx.cfg) else {
        return 0;
    };
    let ring = sim.word(cfg.tail(p)).wrapping_sub(sim.word(cfg.head(p)));
    ring.min(cfg.ring) + (sim.word(cfg.runnext(p)) != 0) as u32
}

/// How many inherited `execute`s in a row a P may run while a G waits in its ring, where nothing
/// bounds the time slice (a syscall, hog or pair world without sysmon).
pub const RUNNEXT_BOUND: u32 = 4;

/// `syscall-retake`, `preemption` and `starvation` (the sysmon worlds' bounded-liveness checks).
fn retake_and_preemption(sim: &GmpSim) -> Option<Violation> {
    let cfg = ms(sim).next()?.cx.cfg;
    // syscall-retake: sysmon saw the same syscall twice and left the P with it, while Gs wait
    // in the P's queue (only its owner adds to it, and the owner is blocked)
    if let Some(sm) = ms(sim).find(|m| m.cx.is_sysmon()) {
        for p in 0..cfg.procs {
            if sm.cx.sm.twice & (1 << p) != 0
                && sim.word(cfg.psys(p)) == 1
                && sim.word(cfg.psyscalltick(p)) == sm.cx.sm.pd_sys[p as usize]
                && local_len(sim, p) > 0
            {
                return v(
                    "syscall-retake",
                    format!(
                        "sysmon has seen P{p}'s syscall for a whole tick and left the P with its blocked M while {} Gs wait in its queue",
                        local_len(sim, p)
                    ),
                );
            }
        }
    }
    for (i, m) in ms(sim).enumerate() {
        // preemption: at a preemption point with a request for this slice, the G runs on
        if m.cx.p != NONE && m.cx.after_slice && matches!(m.at, Some(Sched::GSlice)) {
            let p = m.cx.p;
            let req = sim.word(cfg.ppreempt(p));
            let waiting = local_len(sim, p) + sim.word(GSIZE);
            if req != 0 && req == m.cx.ptick.wrapping_add(1) && waiting > 0 {
                return v(
                    "preemption",
                    format!(
                        "M{i}'s G{} passed a preemption point with sysmon's request for its slice pending and runs on while {waiting} Gs wait",
                        m.cx.curg
                    ),
                );
            }
        }
        // starvation: nothing bounds the inherited slice without sysmon
        if !cfg.sysmon() && m.cx.p != NONE && m.cx.inherits > RUNNEXT_BOUND {
            let p = m.cx.p;
            let ring = sim.word(cfg.tail(p)).wrapping_sub(sim.word(cfg.head(p)));
            if ring > 0 {
                return v(
                    "starvation",
                    format!(
                        "M{i} has run {} Gs in a row from P{p}'s runnext on one time slice while {ring} Gs wait in its ring, and no sysmon ends the slice",
                        m.cx.inherits
                    ),
                );
            }
        }
    }
    None
}

/// Where G `g` is (for a violation's message): queues, hands, `curg`, the waiting place.
fn places(sim: &GmpSim, g: u32, gq: &[u32]) -> Vec<String> {
    let Some(cfg) = ms(sim).next().map(|m| m.cx.cfg) else {
        return Vec::new();
    };
    let mut at = Vec::new();
    for p in 0..cfg.procs {
        if sim.word(cfg.runnext(p)) == g {
            at.push(format!("P{p}.runnext"));
        }
        let (h, t) = (sim.word(cfg.head(p)), sim.word(cfg.tail(p)));
        let mut i = h;
        while i != t {
            if sim.word(cfg.slot(p, i)) == g {
                at.push(format!("P{p}.runq[{i}]"));
            }
            i = i.wrapping_add(1);
        }
    }
    if gq.contains(&g) {
        at.push("the global queue".to_string());
    }
    for (i, m) in ms(sim).enumerate() {
        let who = if m.cx.is_spawner() {
            "the spawner".to_string()
        } else {
            format!("M{i}")
        };
        if m.cx.hand.contains(&g) {
            at.push(format!("{who}'s hands"));
        }
        if m.cx.curg == g {
            at.push(format!("{who}.curg"));
        }
        if m.cx.parking == g || m.cx.readying == g {
            at.push(format!("{who}'s hands (waiting)"));
        }
        if m.cx.lockedg == g && i < cfg.threads as usize && sim.word(cfg.nextp(i as u32)) != 0 {
            at.push(format!("{who}'s nextp (handed over by startlockedm)"));
        }
    }
    if sim.word(cfg.wait(g)) == wait::PARKED {
        at.push("parked on its wait word".to_string());
    }
    if cfg.workload.netpoll_world() && sim.word(cfg.pd(g)) == pd::PARKED {
        at.push("parked on its pollDesc".to_string());
    }
    for (i, m) in ms(sim).enumerate() {
        if m.cx.np.first == g || m.cx.np.list.contains(&g) {
            at.push(format!("M{i}'s netpoll list"));
        }
    }
    at
}

/// The invariants checked where nothing can run.
pub fn check_terminal(sim: &GmpSim) -> Option<Violation> {
    let cfg = ms(sim).next()?.cx.cfg;
    let not_dead: Vec<u32> = (1..=cfg.gs)
        .filter(|&g| sim.word(cfg.status(g)) != gstatus::DEAD)
        .collect();
    let alive: Vec<usize> = ms(sim)
        .enumerate()
        .filter(|(_, m)| !m.is_done())
        .map(|(i, _)| i)
        .collect();
    if ms(sim).any(|m| m.cx.fatal != 0) {
        // the program died of checkdead's throw: its outcome, not a stuck run
        return None;
    }
    if !not_dead.is_empty() || !alive.is_empty() {
        return v(
            "stuck",
            format!("nothing can run, Gs {not_dead:?} have not finished and Ms {alive:?} have not exited"),
        );
    }
    None
}

/// The checker's state invariants over a [`SimModel`].
pub fn model_state(s: &SimModel<GmpActor>) -> Option<Violation> {
    check_state(&s.sim)
}

/// The checker's terminal invariants over a [`SimModel`].
pub fn model_terminal(s: &SimModel<GmpActor>) -> Option<Violation> {
    check_terminal(&s.sim)
}

/// Model-check a scenario: every interleaving of its Ms.
pub fn check(
    p: &GmpParams,
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(u64) -> bool,
) -> CheckReport {
    let init = SimModel {
        sim: checked_world(p),
    };
    crate::check::explore(init, cfg, &model_state, &model_terminal, progress)
}

/// Replay a counterexample (checker indices are M indices) in a fresh simulation.
pub fn replay(p: &GmpParams, schedule: &[u16]) -> GmpSim {
    SimModel::replay(checked_world(p), schedule)
}

/// The world the checker explores: the scenario's, with `sched.lock` sleeping at once instead
/// of spinning first ([`super::LOCK2`]), and each `futex_wait` one step instead of an entry and
/// a read (`Simulation::set_futex_entry`). Spinning changes when a waiter gets the lock, not which
/// orders of lock holders are possible (a spinner and a woken sleeper both retry against any
/// newcomer), so the table reaches the same states; each spin round would only be one more
/// step to interleave. The entry step reads and writes nothing, so every order of the other
/// threads' steps around it is already an order around the one-step call.
pub fn checked_world(p: &GmpParams) -> GmpSim {
    let mut sim = p.simulate();
    sim.set_mutex_spin(crate::sim::MutexSpin::NONE);
    sim.set_futex_entry(false);
    sim
}

/// The most steps one checker step may take in the full world: a contended `lock`'s spin rounds
/// and yields ([`super::LOCK2`]: 5) and the step that sleeps, or a `futex_wait`'s entry and its
/// read.
const MAX_EXTRA_STEPS: usize = 16;

/// A checker's schedule (M indices, in [`checked_world`]) as the full world
/// ([`GmpParams::simulate`]: `sim gmp`, the site) steps it. Each checker step of M `t` is M `t`'s
/// step in the full world, followed by more steps of M `t` until it stands where the checker's
/// M `t` stands (the same machine, asleep or not): the spin rounds of a contended `sched.lock`
/// and the entry step of a `futex_wait`, which read and write no shared word, so that nobody
/// else's step could have come between them. A step either world refuses ends the translation
/// there (a replay then says where).
pub fn full_schedule(p: &GmpParams, schedule: &[u16]) -> Vec<u16> {
    use crate::sim::{Actor, Sched as Run};
    let (mut checked, mut full) = (checked_world(p), p.simulate());
    let mut out = Vec::with_capacity(schedule.len());
    for &t in schedule {
        out.push(t);
        let actor = Actor::Thread(t);
        if checked.step_actor(actor).is_err() || full.step_actor(actor).is_err() {
            break;
        }
        for _ in 0..MAX_EXTRA_STEPS {
            let (c, f) = (&checked.threads()[t as usize], &full.threads()[t as usize]);
            let asleep = |x: Run| x == Run::Asleep;
            let level = c.machine() == f.machine() && asleep(c.sched()) == asleep(f.sched());
            if level || !matches!(f.sched(), Run::OnCpu | Run::Queued) {
                break;
            }
            if full.step_actor(actor).is_err() {
                return out;
            }
            out.push(t);
        }
    }
    out
}
