//! The scheduler's parameters, its key table ([`Gmp`] implements [`Mechanism`]), the simulation it
//! starts and the report of a run (the `herdlab sim gmp --json` keys).

use serde::{Deserialize, Serialize};

use super::invariants;
use super::machine::{GmpActor, GmpConfig, GmpVariant, MCounts, Workload};
use crate::check::Violation;
use crate::cost::CostModel;
use crate::machine::Machine;
use crate::mechanism::{Key, KeyKind, Mechanism};
use crate::scenario::ParamError;
use crate::sim::accept::AcceptModel;
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
use crate::sim::{Actor, MutexSpin, Role, Sched, SchedPolicy, Simulation, WorldSpec};

/// A simulation of a G/M/P scenario.
pub type GmpSim = Simulation<GmpActor>;

/// The most steps an idle M may take into its first sleep at [`GmpParams::simulate_gated`]'s
/// start (it takes two: `futex_wait`'s entry, then its read of the note).
pub const GATE_STEPS: u32 = 8;

/// The most words a world has (core's `Word` is a `u16`): 15,000 Gs of 4 words, 16 Ps of 256
/// slots and 32 Ms fit (64,234 words). A simulated word costs the simulator its value, a futex
/// wait queue and a busy-time slot; a native one a 128-byte line (8 MB at the top).
pub const MAX_WORDS: u32 = u16::MAX as u32;

/// The most goroutines a scenario creates (tokio's largest shape is 10,000 tasks).
pub const MAX_GOROUTINES: u32 = 15_000;

/// The parameters of a G/M/P scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct GmpParams {
    /// GOMAXPROCS, 1-16.
    pub gomaxprocs: u32,
    /// Ms (OS threads) the runtime may use, more than GOMAXPROCS, at most 32.
    pub threads: u32,
    /// Simulated CPUs.
    pub cpus: u32,
    /// What the Gs do.
    pub workload: Workload,
    /// Gs created in all (main included).
    pub goroutines: u32,
    /// Each G's work in nanoseconds.
    pub work_ns: u32,
    /// `yield-many` and `goyield-many`: each G's yields (`runtime.Gosched`, `goyield`).
    pub yields: u32,
    /// Slots of each P's local ring (Go: 256; even, so half is whole).
    pub ring: u32,
    /// Which code runs.
    pub variant: GmpVariant,
    /// The seed.
    pub seed: u64,
    /// `syscall`: each blocking syscall's duration in nanoseconds.
    pub syscall_ns: u32,
    /// `hog`: the call-free loop's run in nanoseconds.
    pub hog_ns: u32,
    /// `pair`: the token's round trips; `netpoll`: each G's reads.
    pub rounds: u32,
    /// `locked`: how many goroutines call `runtime.LockOSThread` (G2, G3, …).
    pub locked: u32,
    /// `netpoll`: the network's delay between a request and its answer, in nanoseconds.
    pub net_ns: u32,
    /// `yield-many` and `goyield-many`: the work each G does when it resumes after a yield, in
    /// nanoseconds (0, the default: none). Not a scenario key (no URL or form sets it): what a
    /// native task's poll costs beyond the table's steps, which `herdlab bench gmp
    /// --compare-sim` measures and `herdlab sim gmp --poll-ns` sets. Left out of JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub poll_ns: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for GmpParams {
    fn default() -> Self {
        GmpParams {
            gomaxprocs: 4,
            threads: 6,
            cpus: 4,
            workload: Workload::FanOut,
            goroutines: 40,
            work_ns: 20_000,
            yields: 10,
            ring: 16,
            variant: GmpVariant::Correct,
            seed: 1,
            syscall_ns: 1_000_000,
            hog_ns: 50_000_000,
            rounds: 20,
            locked: 1,
            net_ns: 100_000,
            poll_ns: 0,
        }
    }
}

/// Go's G/M/P scheduler, as a mechanism.
pub struct Gmp;

const KEYS: &[Key] = &[
    Key {
        name: "gomaxprocs",
        kind: KeyKind::Range {
            lo: 1,
            hi: 16,
            unit: "",
        },
        help: "GOMAXPROCS: the Ps",
    },
    Key {
        name: "threads",
        kind: KeyKind::Range {
            lo: 2,
            hi: 32,
            unit: "",
        },
        help: "Ms (OS threads) the runtime may start, more than gomaxprocs",
    },
    Key {
        name: "cpus",
        kind: KeyKind::Range {
            lo: 1,
            hi: 64,
            unit: "",
        },
        help: "simulated CPUs",
    },
    Key {
        name: "workload",
        kind: KeyKind::OneOf(&Workload::NAMES),
        help: "what the goroutines do",
    },
    Key {
        name: "goroutines",
        kind: KeyKind::Range {
            lo: 1,
            hi: MAX_GOROUTINES as u64,
            unit: "",
        },
        help: "goroutines created in all, main included",
    },
    Key {
        name: "work_ns",
        kind: KeyKind::Range {
            lo: 1,
            hi: 100_000_000,
            unit: "ns",
        },
        help: "each goroutine's computation",
    },
    Key {
        name: "yields",
        kind: KeyKind::Range {
            lo: 0,
            hi: 10_000,
            unit: "",
        },
        help: "yield-many: each goroutine's runtime.Gosched calls; goyield-many: its goyield calls",
    },
    Key {
        name: "ring",
        kind: KeyKind::Range {
            lo: 2,
            hi: 256,
            unit: "",
        },
        help: "slots of each P's local run queue (Go: 256)",
    },
    Key {
        name: "variant",
        kind: KeyKind::OneOf(&GmpVariant::NAMES),
        help: "the runtime's code or a broken variant",
    },
    Key {
        name: "syscall_ns",
        kind: KeyKind::Range {
            lo: 1,
            hi: 1_000_000_000,
            unit: "ns",
        },
        help: "syscall: each blocking system call's duration",
    },
    Key {
        name: "hog_ns",
        kind: KeyKind::Range {
            lo: 1,
            hi: 1_000_000_000,
            unit: "ns",
        },
        help: "hog: the call-free loop's run",
    },
    Key {
        name: "rounds",
        kind: KeyKind::Range {
            lo: 1,
            hi: 10_000,
            unit: "",
        },
        help: "pair: the token's round trips; netpoll: each goroutine's reads",
    },
    Key {
        name: "net_ns",
        kind: KeyKind::Range {
            lo: 1,
            hi: 1_000_000_000,
            unit: "ns",
        },
        help: "netpoll: the network's delay from a request to its answer; foreign-wake: the outside thread's sleep before each wake",
    },
    Key {
        name: "locked",
        kind: KeyKind::Range {
            lo: 0,
            hi: 16,
            unit: "",
        },
        help: "locked: goroutines that call runtime.LockOSThread",
    },
    Key {
        name: "seed",
        kind: KeyKind::Range {
            lo: 0,
            hi: u64::MAX,
            unit: "",
        },
        help: "the seed",
    },
];

fn key(name: &str) -> &'static Key {
    KEYS.iter()
        .find(|k| k.name == name)
        .expect("a key of the table")
}

fn range_u32(name: &str, v: &str) -> Result<u32, ParamError> {
    key(name).parse_u64(v).map(|n| n as u32)
}

fn err(field: &str, message: String) -> ParamError {
    ParamError {
        field: field.to_string(),
        message,
    }
}

impl Mechanism for Gmp {
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        use crate::chart::{ChartSpec, XAxis};
        vec![ChartSpec {
            title: "Time for the whole shape vs workers (median of the rounds)",
            x: XAxis::Column {
                key: "workers",
                label: "workers (Ps, tokio's worker threads)",
                log: false,
            },
            y: "median_ns",
            y_label: "median wall time (ns)",
            series: &["runtime", "shape"],
        }]
    }

    const NAME: &'static str = "gmp";
    const TITLE: &'static str = "Go's G/M/P scheduler";
    type Params = GmpParams;
    type Thread = GmpActor;

    fn simulate_with(p: &GmpParams, cost: CostModel) -> GmpSim {
        p.simulate_with(cost)
    }
    const KEYS: &'static [Key] = KEYS;

    fn set(p: &mut GmpParams, k: &str, v: &str) -> Result<(), ParamError> {
        match k {
            "gomaxprocs" => p.gomaxprocs = range_u32(k, v)?,
            "threads" => p.threads = range_u32(k, v)?,
            "cpus" => p.cpus = range_u32(k, v)?,
            "workload" => p.workload = key(k).parse_name(v, Workload::from_name)?,
            "goroutines" => p.goroutines = range_u32(k, v)?,
            "work_ns" => p.work_ns = range_u32(k, v)?,
            "yields" => p.yields = range_u32(k, v)?,
            "ring" => p.ring = range_u32(k, v)?,
            "variant" => p.variant = key(k).parse_name(v, GmpVariant::from_name)?,
            "seed" => p.seed = key(k).parse_u64(v)?,
            "syscall_ns" => p.syscall_ns = range_u32(k, v)?,
            "hog_ns" => p.hog_ns = range_u32(k, v)?,
            "rounds" => p.rounds = range_u32(k, v)?,
            "locked" => p.locked = range_u32(k, v)?,
            "net_ns" => p.net_ns = range_u32(k, v)?,
            _ => return Err(crate::mechanism::unknown_key(KEYS, k)),
        }
        Ok(())
    }

    fn get(p: &GmpParams, k: &str) -> Option<String> {
        Some(match k {
            "gomaxprocs" => p.gomaxprocs.to_string(),
            "threads" => p.threads.to_string(),
            "cpus" => p.cpus.to_string(),
            "workload" => p.workload.name().to_string(),
            "goroutines" => p.goroutines.to_string(),
            "work_ns" => p.work_ns.to_string(),
            "yields" => p.yields.to_string(),
            "ring" => p.ring.to_string(),
            "variant" => p.variant.name().to_string(),
            "seed" => p.seed.to_string(),
            "syscall_ns" => p.syscall_ns.to_string(),
            "hog_ns" => p.hog_ns.to_string(),
            "rounds" => p.rounds.to_string(),
            "locked" => p.locked.to_string(),
            "net_ns" => p.net_ns.to_string(),
            _ => return None,
        })
    }

    fn validate(p: &GmpParams) -> Vec<ParamError> {
        let mut errs = Vec::new();
        for k in KEYS {
            if let KeyKind::Range { lo, hi, .. } = k.kind {
                let n = match k.name {
                    "gomaxprocs" => p.gomaxprocs as u64,
                    "threads" => p.threads as u64,
                    "cpus" => p.cpus as u64,
                    "goroutines" => p.goroutines as u64,
                    "work_ns" => p.work_ns as u64,
                    "yields" => p.yields as u64,
                    "ring" => p.ring as u64,
                    "syscall_ns" => p.syscall_ns as u64,
                    "hog_ns" => p.hog_ns as u64,
                    "rounds" => p.rounds as u64,
                    "locked" => p.locked as u64,
                    "net_ns" => p.net_ns as u64,
                    _ => continue,
                };
                if !(lo..=hi).contains(&n) {
                    errs.push(err(
                        k.name,
                        format!("{n} is out of range; allowed {lo}-{hi}"),
                    ));
                }
            }
        }
        if !errs.is_empty() {
            return errs;
        }
        if p.ring % 2 != 0 {
            errs.push(err(
                "ring",
                format!(
                    "{} is odd; the ring must be even (runqputslow moves half)",
                    p.ring
                ),
            ));
        }
        if p.workload == Workload::PingPong && p.goroutines % 2 == 0 {
            errs.push(err(
                "goroutines",
                format!(
                    "{} goroutines for ping-pong; the number must be odd (main and 2 per pair)",
                    p.goroutines
                ),
            ));
        }
        if p.workload == Workload::Pair && p.goroutines < 4 {
            errs.push(err(
                "goroutines",
                format!(
                    "{} goroutines for pair; at least 4 (main, a victim, the pair)",
                    p.goroutines
                ),
            ));
        }
        if p.workload == Workload::Locked && p.locked >= p.goroutines {
            errs.push(err(
                "locked",
                format!(
                    "{} locked goroutines of {}; at most goroutines - 1 (main does not lock)",
                    p.locked, p.goroutines
                ),
            ));
        }
        if p.workload == Workload::Locked && p.threads <= p.gomaxprocs + p.locked {
            errs.push(err(
                "threads",
                format!(
                    "{} Ms for {} Ps and {} locked goroutines; locked: there must be more Ms than gomaxprocs + locked (each locked goroutine keeps its own M)",
                    p.threads, p.gomaxprocs, p.locked
                ),
            ));
        }
        if p.workload == Workload::NetpollHog && p.goroutines < 2 {
            errs.push(err(
                "goroutines",
                format!(
                    "{} goroutines for netpoll-hog; at least 2 (main and the hog G2)",
                    p.goroutines
                ),
            ));
        }
        if p.workload == Workload::Deadlock && p.goroutines < 2 {
            errs.push(err(
                "goroutines",
                format!(
                    "{} goroutines for deadlock; at least 2 (main and one it spawns)",
                    p.goroutines
                ),
            ));
        }
        if p.threads <= p.gomaxprocs {
            errs.push(err(
                "threads",
                format!(
                    "{} Ms for {} Ps; there must be more Ms than gomaxprocs",
                    p.threads, p.gomaxprocs
                ),
            ));
        }
        if errs.is_empty() {
            let words = p.config().words_needed();
            if words > MAX_WORDS {
                errs.push(err(
                    "goroutines",
                    format!(
                        "{} goroutines with {} Ps of {} slots and {} Ms need {words} words of simulated memory; at most {MAX_WORDS}",
                        p.goroutines, p.gomaxprocs, p.ring, p.threads
                    ),
                ));
            }
        }
        errs
    }

    fn reset(p: &mut GmpParams, field: &str) {
        let d = GmpParams::default();
        match field {
            "gomaxprocs" => p.gomaxprocs = d.gomaxprocs,
            "threads" => p.threads = (p.gomaxprocs + 2).min(32),
            "cpus" => p.cpus = d.cpus,
            "workload" => p.workload = d.workload,
            "goroutines" => {
                p.goroutines = 1;
                p.ring = 2;
            }
            "work_ns" => p.work_ns = d.work_ns,
            "yields" => p.yields = d.yields,
            "ring" => p.ring = 2,
            "variant" => p.variant = d.variant,
            "seed" => p.seed = d.seed,
            "syscall_ns" => p.syscall_ns = d.syscall_ns,
            "hog_ns" => p.hog_ns = d.hog_ns,
            "rounds" => p.rounds = d.rounds,
            "locked" => p.locked = 0,
            "net_ns" => p.net_ns = d.net_ns,
            _ => {}
        }
    }
}

impl GmpParams {
    /// The configuration every M carries.
    pub fn config(&self) -> GmpConfig {
        GmpConfig {
            procs: self.gomaxprocs.clamp(1, 16),
            ring: self.ring.clamp(2, 256),
            threads: self.threads.clamp(self.gomaxprocs.clamp(1, 16) + 1, 32),
            gs: self.goroutines.clamp(1, MAX_GOROUTINES),
            workload: self.workload,
            work_ns: self.work_ns as u64,
            yields: self.yields.min(10_000),
            poll_ns: u64::from(self.poll_ns),
            variant: self.variant,
            seed: self.seed,
            syscall_ns: self.syscall_ns as u64,
            hog_ns: self.hog_ns as u64,
            rounds: self.rounds.min(10_000),
            locked: self.locked.min(16),
            net_ns: self.net_ns as u64,
            foreign_wakes: self.workload.foreign(),
        }
    }

    /// The Ms: M0 starts `main`, the others wait on `midle`; with an outside spawner
    /// ([`Workload::external`]) every M waits and the spawner (the last thread) starts.
    pub fn threads(&self) -> Vec<(GmpActor, Role)> {
        let cfg = self.config();
        (0..cfg.actors())
            .map(|i| (GmpActor::new(cfg, i), Role::Worker))
            .collect()
    }

    /// A fresh simulation.
    pub fn simulate(&self) -> GmpSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model. Its words are grouped into cache lines as
    /// the native runtime lays them out ([`cache_lines`]), which matters only when
    /// `cost.coherence_miss_ns` is non-zero (with core's `coherence` feature).
    pub fn simulate_with(&self, cost: CostModel) -> GmpSim {
        let cfg = self.config();
        let world = WorldSpec {
            words: cfg.words_needed().min(MAX_WORDS) as u16,
            mutexes: 1,
            condvars: 0,
            sems: 0,
            network: false,
            accept: AcceptModel::default(),
            cpus: self.cpus.clamp(1, 64) as u8,
            cost,
            arrivals: Arrivals::new(ArrivalPattern::Burst, 1, 1, 1, self.seed),
            seed: self.seed,
            net: None,
            sched: SchedPolicy::Fifo,
        };
        let mut sim = Simulation::new(world, self.threads());
        // `sched.lock` is Go's runtime lock: it spins, yields, then sleeps
        sim.set_mutex_spin(LOCK2);
        // an M's `notesleep` reads its note inside the call, as Linux's `futex_wait` does
        sim.set_futex_entry(true);
        if cost.charges_coherence() {
            sim.set_cache_lines(&cache_lines(&cfg));
        }
        sim
    }

    /// [`GmpParams::simulate_with`], started as `herdlab bench gmp` starts a native run: every
    /// idle M (all but M0 with `main`, or all of them when the spawner outside every P starts
    /// the program) first takes its steps into `notesleep` until it sleeps in the kernel, and
    /// only then does the starter take its first step.
    ///
    /// Why: the Ms start in `stopm`, on `midle`, but their `futex_wait` is a call like any other.
    /// With the futex's entry step (gmp's worlds ask for it: the word is read a step after the
    /// call starts), an idle M is still entering the call when `main`'s first `go` runs `wakep`;
    /// its `startm` finds it on `midle` and sets its note, and the M returns at once, without the
    /// wake's latency. It then arrives at `main`'s ring when it holds a few dozen Gs, steals half,
    /// runs them, finds the ring refilled, steals again: `spawn_many_task` at 2 workers stole 8 to
    /// 20 times a simulated run where a native run, whose idle Ms are asleep before `main` starts
    /// (`native::run_inner` waits for it), steals once or not at all: its M1 wakes 15-25 µs after
    /// the first `go` and finds the ring about to overflow. The idle Ms' sleep costs the
    /// simulated clock a few µs before `main` starts (their CPUs, and the starter's where an M
    /// queued on it had to run first); the native figure leaves the gate out of its time.
    ///
    /// An idle M that does not sleep within [`GATE_STEPS`] of its own steps is an error (it
    /// would be the table's bug: nothing else runs meanwhile).
    pub fn simulate_gated(&self, cost: CostModel) -> Result<GmpSim, String> {
        let mut sim = self.simulate_with(cost);
        let cfg = self.config();
        let starter_is_m0 = !cfg.workload.external();
        for id in 0..cfg.threads {
            if id == 0 && starter_is_m0 {
                continue;
            }
            let mut n = 0;
            while sim.threads()[id as usize].sched() != Sched::Asleep {
                if n == GATE_STEPS {
                    return Err(format!(
                        "the start gate: M{id} did not sleep in {GATE_STEPS} steps"
                    ));
                }
                sim.step_actor(Actor::Thread(id as u16))
                    .map_err(|e| format!("the start gate: M{id}: {e}"))?;
                n += 1;
            }
        }
        Ok(sim)
    }

    /// The defaults with a cache line moved between CPUs costing [`COHERENCE_MISS_NS`] (the
    /// simulator's coherence model: a G, its queue words and the global queue written on one
    /// CPU and read on another): what `herdlab bench gmp --compare-sim --coherence-miss-ns 50`
    /// simulates (its default is 0: see the bench's module docs). Without core's `coherence`
    /// feature there is no such cost: the defaults.
    pub fn native_cost() -> CostModel {
        #[allow(unused_mut)]
        let mut cost = CostModel::default();
        #[cfg(feature = "coherence")]
        {
            cost.coherence_miss_ns = COHERENCE_MISS_NS;
        }
        cost
    }

    /// Run to the end (at most `max_steps` steps), checking the invariants after every step; the
    /// report carries the first violation.
    pub fn run(&self, max_steps: u64) -> (GmpSim, GmpReport) {
        self.run_with(CostModel::default(), max_steps)
    }

    /// [`GmpParams::run`] under the cost model `cost` (the report's `coherence_misses` counts
    /// its coherence misses).
    pub fn run_with(&self, cost: CostModel, max_steps: u64) -> (GmpSim, GmpReport) {
        self.run_sim(self.simulate_with(cost), max_steps)
    }

    /// [`GmpParams::run_with`] from [`GmpParams::simulate_gated`]'s start (the idle Ms asleep
    /// before the starter's first step, as a native run of `herdlab bench gmp` starts).
    pub fn run_gated_with(
        &self,
        cost: CostModel,
        max_steps: u64,
    ) -> Result<(GmpSim, GmpReport), String> {
        Ok(self.run_sim(self.simulate_gated(cost)?, max_steps))
    }

    /// `sim` run on to the end (at most `max_steps` more steps), every invariant checked after
    /// every step.
    fn run_sim(&self, mut sim: GmpSim, max_steps: u64) -> (GmpSim, GmpReport) {
        let mut violation = invariants::check_state(&sim);
        let mut n = 0;
        // the sysmon worlds also measure the longest wait of a runnable G (few Gs: a scan per step)
        let cfg = self.config();
        let waits = cfg.workload.sysmon_world();
        let mut since: Vec<Option<u64>> = vec![None; cfg.gs as usize + 1];
        let mut max_wait = 0;
        while n < max_steps {
            let Some(rec) = sim.step() else { break };
            n += 1;
            if violation.is_none() {
                violation = invariants::check_state(&sim);
            }
            if waits {
                // the stepping thread's clock (the simulator's `now` is the furthest CPU's, which
                // a CPU that runs ahead of the others may have moved)
                let now = rec.time_ns;
                for g in 1..=cfg.gs {
                    let runnable = sim.word(cfg.status(g)) == super::machine::gstatus::RUNNABLE;
                    let s = &mut since[g as usize];
                    match (runnable, *s) {
                        (true, None) => *s = Some(now),
                        (false, Some(t)) => {
                            max_wait = max_wait.max(now.saturating_sub(t));
                            *s = None;
                        }
                        _ => {}
                    }
                }
            }
        }
        if violation.is_none() && n < max_steps {
            violation = invariants::check_terminal(&sim);
        }
        let mut report = GmpReport::of(&sim, n, violation);
        report.max_wait_ns = max_wait;
        (sim, report)
    }

    /// Run to the end (at most `max_steps` steps) like [`GmpParams::run`], the same steps and the
    /// same counters, but checking the invariants only on the final state (ten to a hundred times
    /// faster on the large scenarios: `bench gmp --compare-sim` sums its figures over several
    /// seeds). A violation that [`invariants::check_terminal`] does not see is missed, and
    /// `max_wait_ns` (measured step by step in the sysmon worlds) stays 0.
    pub fn run_end_checked(&self, max_steps: u64) -> GmpReport {
        self.run_end_checked_with(CostModel::default(), max_steps)
    }

    /// [`GmpParams::run_end_checked`] under the cost model `cost`.
    pub fn run_end_checked_with(&self, cost: CostModel, max_steps: u64) -> GmpReport {
        run_end_checked_sim(self.simulate_with(cost), max_steps)
    }

    /// [`GmpParams::run_end_checked_with`] from [`GmpParams::simulate_gated`]'s start.
    pub fn run_end_checked_gated_with(
        &self,
        cost: CostModel,
        max_steps: u64,
    ) -> Result<GmpReport, String> {
        Ok(run_end_checked_sim(self.simulate_gated(cost)?, max_steps))
    }

    /// The checker's tiny preset for a workload's G action, proven in a second of a debug build:
    /// `ping-pong` (gopark / goready), 1 P, 2 Ms, one pair; `spawn-many` (the spawner outside
    /// every P), 2 Ps, 3 Ms, 1 G; `yield-many` (Gosched), 1 P, 2 Ms, 2 Gs of one yield each; `goyield-many`
    /// (goyield: the P's own ring), the same;
    /// `foreign-wake` (a thread outside every P readies parked Gs), 1 P, 2 Ms, 2 Gs. The
    /// sysmon, `locked` and `netpoll` worlds have their own (below). Other workloads:
    /// [`GmpParams::check_preset`].
    pub fn action_preset(workload: Workload, variant: GmpVariant) -> GmpParams {
        let base = GmpParams {
            workload,
            ..GmpParams::check_preset(variant)
        };
        let one_p = GmpParams {
            gomaxprocs: 1,
            threads: 2,
            cpus: 1,
            ..base
        };
        match workload {
            Workload::PingPong => GmpParams {
                goroutines: 3,
                ..one_p
            },
            Workload::SpawnMany => GmpParams {
                goroutines: 1,
                ..base
            },
            Workload::YieldMany => GmpParams {
                goroutines: 2,
                yields: 1,
                ..one_p
            },
            Workload::GoyieldMany => GmpParams {
                goroutines: 2,
                yields: 1,
                ..one_p
            },
            // main spawns G2 into runnext and blocks in a syscall: sysmon must hand the P off
            Workload::Syscall => GmpParams {
                goroutines: 2,
                cpus: 3,
                ..one_p
            },
            // main spawns the hog G2 and the victims G3, G4: G4 runs from runnext, then the hog
            // (2 slices) while G3 waits in the ring
            Workload::Hog => GmpParams {
                goroutines: 4,
                cpus: 3,
                hog_ns: 2 * super::machine::HOG_SLICE_NS as u32,
                ..one_p
            },
            // main spawns G3, then the victims G2, G5: G5 runs from runnext, then G3, whose
            // partner G4 and it pass the token 3 times while G2 waits in the ring
            Workload::Pair => GmpParams {
                goroutines: 5,
                cpus: 3,
                rounds: 3,
                ..one_p
            },
            Workload::Locked => GmpParams::locked_preset(variant),
            // main spawns G2; each computes, reads once from its connection (parks on the
            // poller) and exits: netpoll(0), the blocking poller, injectglist (1 P, 2 Ms and
            // 2 peers: 311,944 states; 2 Ps and 3 Ms with 2 Gs pass 400 s of a release build)
            Workload::Netpoll => GmpParams {
                goroutines: 2,
                rounds: 1,
                ..one_p
            },
            // main spawns G2 (a hog of 2 slices, then one read) and reads once; sysmon's poll
            // needs 10 ms of its clock, so the checker sees it only on schedules where sysmon
            // sleeps that long while the hog holds the P
            Workload::NetpollHog => GmpParams {
                goroutines: 2,
                rounds: 1,
                cpus: 3,
                hog_ns: 2 * super::machine::HOG_SLICE_NS as u32,
                ..one_p
            },
            // main spawns G2; both park; the injector outside every P readies main, then G2
            // (a token if it has not parked yet, else injectglist with no P: startIdle must
            // wake an M when both sleep in stopm)
            Workload::ForeignWake => GmpParams {
                goroutines: 2,
                ..one_p
            },
            _ => base,
        }
    }

    /// The checker's preset of a variant: the sysmon variants' tiny presets
    /// ([`GmpParams::action_preset`] of `syscall`, `hog` and `pair`), `no-blocking-netpoll`'s
    /// (1 P, 2 Ms, one G that reads once), `inject-without-startm`'s (`foreign-wake`'s: 1 P,
    /// 2 Ms, 2 Gs), else [`GmpParams::check_preset`].
    pub fn variant_preset(variant: GmpVariant) -> GmpParams {
        match variant {
            GmpVariant::NoSyscallRetake => GmpParams::action_preset(Workload::Syscall, variant),
            GmpVariant::NoAsyncPreemption => GmpParams::action_preset(Workload::Hog, variant),
            GmpVariant::RunnextWithoutSysmon => GmpParams::action_preset(Workload::Pair, variant),
            GmpVariant::LockedRunsAnywhere => GmpParams::locked_preset(variant),
            GmpVariant::InjectWithoutStartm => {
                GmpParams::action_preset(Workload::ForeignWake, variant)
            }
            // 1 P, 2 Ms, main alone: it reads once and parks; the M finds nothing and parks
            GmpVariant::NoBlockingNetpoll => GmpParams {
                gomaxprocs: 1,
                threads: 2,
                cpus: 1,
                goroutines: 1,
                ..GmpParams::action_preset(Workload::Netpoll, variant)
            },
            _ => GmpParams::check_preset(variant),
        }
    }

    /// The checker's preset: 2 Ps, 3 Ms, 3 Gs (main spawns two), a ring of 2.
    pub fn check_preset(variant: GmpVariant) -> GmpParams {
        GmpParams {
            gomaxprocs: 2,
            threads: 3,
            cpus: 2,
            workload: Workload::FanOut,
            goroutines: 3,
            work_ns: 1_000,
            yields: 1,
            ring: 2,
            variant,
            seed: 1,
            syscall_ns: 1_000_000,
            hog_ns: 50_000_000,
            rounds: 20,
            net_ns: 100_000,
            locked: 1,
            poll_ns: 0,
        }
    }

    /// The checker's preset of the `locked` workload: 2 Ps, 4 Ms, main and one G that locks
    /// its M, computes, calls `Gosched` once, computes and exits (a ring of 2).
    pub fn locked_preset(variant: GmpVariant) -> GmpParams {
        GmpParams {
            threads: 4,
            workload: Workload::Locked,
            goroutines: 2,
            yields: 1,
            locked: 1,
            ..GmpParams::check_preset(variant)
        }
    }

    /// sysmon's network poll where it matters: 1 P, 2 Ms, `netpoll-hog`: main spawns the hog G2
    /// (50 ms in 100 µs slices, then one read) and reads once, its answer 100 µs later. With
    /// sysmon's poll main is injected after 10 ms; with `no-sysmon-netpoll` it waits for the hog.
    pub fn sysmon_poll_case(variant: GmpVariant) -> GmpParams {
        GmpParams {
            gomaxprocs: 1,
            threads: 2,
            cpus: 2,
            workload: Workload::NetpollHog,
            goroutines: 2,
            rounds: 1,
            work_ns: 5_000,
            net_ns: 100_000,
            hog_ns: 50_000_000,
            ring: 4,
            variant,
            ..GmpParams::default()
        }
    }
}

/// What a run counted. The first eight fields are the `herdlab sim gmp --json` keys.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GmpReport {
    /// Simulator steps.
    pub steps: u64,
    /// Successful steals (`runqsteal` batches and stolen `runnext`s).
    pub steals: u64,
    /// `stopm`s: an M put itself on `midle` to sleep.
    pub parks: u64,
    /// Times an M became spinning (by itself, or started spinning by `wakep`).
    pub spins: u64,
    /// P handoffs: `handoffp`s that started an M for the P (of a P sysmon retook from a
    /// syscall, or one a locked M released in `stoplockedm` or at its exit).
    pub handoffs: u64,
    /// Takes from the global queue that got a G (1-in-61 and batches).
    pub global_queue_gets: u64,
    /// `execute`s: a G switched onto an M.
    pub context_switches: u64,
    /// Simulated time at the end.
    pub sim_time_ns: u64,
    /// `notewakeup`s of parked Ms.
    pub futex_wakes: u64,
    /// `startm` found no parked M.
    pub no_m: u64,
    /// `runtime.Gosched` calls.
    pub yields: u64,
    /// `gopark`s that parked a G.
    pub gparks: u64,
    /// `goready`s of a parked G.
    pub readies: u64,
    /// `entersyscall`s.
    pub syscalls: u64,
    /// `exitsyscall`s that took their old P back (the fast path).
    pub syscall_oldp: u64,
    /// `exitsyscall`s that found no P: the G to the global queue, the M to `stopm`.
    pub syscall_stops: u64,
    /// `exitsyscall`s whose fast path took an idle P instead of the old one.
    pub syscall_pidle: u64,
    /// Ps sysmon retook from a syscall.
    pub retakes: u64,
    /// sysmon's `preemptone` requests (a slice of 10 ms ran out).
    pub preempt_requests: u64,
    /// Gs preempted at a preemption point (to the global queue).
    pub preemptions: u64,
    /// sysmon's deep sleeps (every P idle: `sysmonwait`, asleep on `sysmonnote`).
    pub sysmon_deep_sleeps: u64,
    /// Ms that woke sysmon from its deep sleep (`notewakeup(&sched.sysmonnote)`).
    pub sysmon_wakes: u64,
    /// `netpoll` calls: findRunnable's non-blocking `netpoll(0)` and the blocking poller's.
    pub netpoll_polls: u64,
    /// Gs a `netpoll` found ready and made runnable.
    pub netpoll_ready: u64,
    /// Blocking `netpoll`s (the last M with nothing to do became THE poller).
    pub netpoll_blocks: u64,
    /// `netpollBreak`s (the eventfd written to wake the blocked poller).
    pub netpoll_breaks: u64,
    /// Gs parked on the poller (a read whose answer had not come).
    pub netpoll_parks: u64,
    /// sysmon's network polls (`netpoll-hog`: nobody had polled for 10 ms; also in
    /// `netpoll_polls`).
    pub sysmon_netpolls: u64,
    /// Gs sysmon's polls found ready and injected onto the global queue.
    pub sysmon_injected: u64,
    /// What `checkdead` threw, if it did ("all goroutines are asleep - deadlock!").
    pub fatal: Option<String>,
    /// `syscall`, `hog`, `pair` runs of [`GmpParams::run`]: the longest time a G stayed runnable
    /// before it ran (0 elsewhere).
    pub max_wait_ns: u64,
    /// `LockOSThread` calls.
    pub locks: u64,
    /// `startlockedm`s: an M picked a G locked to another M and handed that M its P.
    pub locked_handoffs: u64,
    /// `stoplockedm`s: a locked M handed its P off and slept until its G could run again.
    pub lockedm_parks: u64,
    /// Threads that exited because their G exited while locked.
    pub locked_exits: u64,
    /// A locked M's `handoffp` found no idle M and tried again (Go would start a new M).
    pub locked_no_m: u64,
    /// `UnlockOSThread` calls (a locked G unwired from its M).
    pub unlocks: u64,
    /// Gs that ran to their end.
    pub finished: u32,
    /// The first broken invariant, if any.
    pub violation: Option<Violation>,
    /// Memory accesses that missed in the simulator's coherence model (0 when the cost model's
    /// `coherence_miss_ns` is 0).
    #[serde(default)]
    pub coherence_misses: u64,
}

impl GmpReport {
    /// The report of a simulation as it stands after `steps` steps.
    pub fn of(sim: &GmpSim, steps: u64, violation: Option<Violation>) -> Self {
        let mut c = MCounts::default();
        for t in sim.threads() {
            let m = &t.machine().cx.counts;
            c.steals += m.steals;
            c.parks += m.parks;
            c.spins += m.spins;
            c.global_queue_gets += m.global_queue_gets;
            c.context_switches += m.context_switches;
            c.futex_wakes += m.futex_wakes;
            c.no_m += m.no_m;
            c.yields += m.yields;
            c.gparks += m.gparks;
            c.readies += m.readies;
            c.syscalls += m.syscalls;
            c.syscall_oldp += m.syscall_oldp;
            c.syscall_stops += m.syscall_stops;
            c.syscall_pidle += m.syscall_pidle;
            c.retakes += m.retakes;
            c.handoffs += m.handoffs;
            c.preempt_requests += m.preempt_requests;
            c.preemptions += m.preemptions;
            c.sysmon_deep_sleeps += m.sysmon_deep_sleeps;
            c.sysmon_wakes += m.sysmon_wakes;
            c.locks += m.locks;
            c.locked_handoffs += m.locked_handoffs;
            c.lockedm_parks += m.lockedm_parks;
            c.locked_exits += m.locked_exits;
            c.locked_no_m += m.locked_no_m;
            c.unlocks += m.unlocks;
            c.netpoll_polls += m.netpoll_polls;
            c.netpoll_ready += m.netpoll_ready;
            c.netpoll_blocks += m.netpoll_blocks;
            c.netpoll_breaks += m.netpoll_breaks;
            c.netpoll_parks += m.netpoll_parks;
            c.sysmon_netpolls += m.sysmon_netpolls;
            c.sysmon_injected += m.sysmon_injected;
        }
        let fatal = sim
            .threads()
            .iter()
            .find_map(|t| super::machine::fatal::text(t.machine().cx.fatal))
            .map(str::to_string);
        let cfg = sim.threads()[0].machine().cx.cfg;
        let finished = (1..=cfg.gs)
            .filter(|&g| sim.word(cfg.status(g)) == super::machine::gstatus::DEAD)
            .count() as u32;
        GmpReport {
            steps,
            steals: c.steals,
            parks: c.parks,
            spins: c.spins,
            handoffs: c.handoffs,
            global_queue_gets: c.global_queue_gets,
            context_switches: c.context_switches,
            sim_time_ns: sim.metrics().sim_time_ns,
            futex_wakes: c.futex_wakes,
            no_m: c.no_m,
            yields: c.yields,
            gparks: c.gparks,
            readies: c.readies,
            syscalls: c.syscalls,
            syscall_oldp: c.syscall_oldp,
            syscall_stops: c.syscall_stops,
            syscall_pidle: c.syscall_pidle,
            retakes: c.retakes,
            preempt_requests: c.preempt_requests,
            preemptions: c.preemptions,
            sysmon_deep_sleeps: c.sysmon_deep_sleeps,
            sysmon_wakes: c.sysmon_wakes,
            netpoll_polls: c.netpoll_polls,
            netpoll_ready: c.netpoll_ready,
            netpoll_blocks: c.netpoll_blocks,
            netpoll_breaks: c.netpoll_breaks,
            netpoll_parks: c.netpoll_parks,
            sysmon_netpolls: c.sysmon_netpolls,
            sysmon_injected: c.sysmon_injected,
            fatal,
            max_wait_ns: 0,
            locks: c.locks,
            locked_handoffs: c.locked_handoffs,
            lockedm_parks: c.lockedm_parks,
            locked_exits: c.locked_exits,
            locked_no_m: c.locked_no_m,
            unlocks: c.unlocks,
            finished,
            violation,
            coherence_misses: sim.coherence_misses(),
        }
    }
}

/// The extra cost of a memory access that misses in the simulator's coherence model, for the
/// scheduler compared with its native runs (`herdlab bench gmp --compare-sim
/// --coherence-miss-ns 50`, [`GmpParams::native_cost`]): a cache line moved from another core's cache, 20-115 ns on
/// current servers (nviennot/core-to-core-latency's single-socket table: 48 ns on a Xeon Gold
/// 6242, 68 ns on a Ryzen 9 7950X, 115 ns on an EPYC 7773X) and 36 ns one way on the 2-vCPU
/// AMD EPYC guest the bench ran on; a round figure inside both (`cost.rs`'s table). Not fitted to
/// the comparison.
pub const COHERENCE_MISS_NS: u64 = 50;

/// `sched.lock`'s wait when another M holds it, as Go's runtime lock (`lock2`) waits: 4 rounds
/// of busy waiting of 30 `PAUSE`s each, one `osyield`, then sleep on the lock's futex word
/// (`active_spin`, `active_spin_cnt`, `passive_spin` in `runtime/lock_futex.go`; the same counts
/// in Go 1.24's `lock_spinbit.go`). The simulator's mutex takes it as its spin phase
/// ([`crate::sim::MutexSpin`]); the native runtime's `lock_slow` spins the same counts. Before it,
/// the simulated lock slept at once: a spawner that found the lock taken lost its CPU to an M
/// on a 2-CPU machine, and the Ms then ran the global queue dry and parked, dozens of times a
/// run where the native runtime parked none.
pub const LOCK2: MutexSpin = MutexSpin {
    rounds: 4,
    pauses: 30,
    yields: 1,
};

/// 32-bit words in one 128-byte line of the native runtime's layout.
const LINE_WORDS: u32 = 32;

/// Each word's cache line (`line_of[w]`) as the native runtime lays the words out (Go's layout,
/// `herdlab-bench`'s `gmp::layout`, 128-byte lines of 32 words): `schedt`'s eight words
/// (`nmspinning`, `npidle`, `pidle`, `midle`, the global queue's head, tail and size,
/// `needspinning`) on one line; the harness's `live` and `done` on the next; each P's `runqhead`,
/// `runqtail`, `runnext`, `pp.m` (and in the sysmon worlds its syscall and preemption words) on
/// one line, then its ring, 32 slots to a line; each G's four words on a line of their own; every
/// other word (the Ms' `park` and `nextp`, sysmon's and the poller's words) alone on its line.
pub fn cache_lines(cfg: &GmpConfig) -> Vec<u32> {
    use super::machine::{
        DONE, GHEAD, GSIZE, GTAIL, LIVE, MIDLE, NEEDSPIN, NMSPINNING, NPIDLE, PIDLE,
    };
    let words = cfg.words_needed().min(MAX_WORDS) as usize;
    let mut line_of = vec![u32::MAX; words];
    let mut next = 0u32;
    let put = |line_of: &mut Vec<u32>, group: &[crate::op::Word], next: &mut u32| {
        for w in group {
            if let Some(l) = line_of.get_mut(w.0 as usize) {
                *l = *next;
            }
        }
        *next += 1;
    };
    put(
        &mut line_of,
        &[
            NMSPINNING, NPIDLE, PIDLE, MIDLE, GHEAD, GTAIL, GSIZE, NEEDSPIN,
        ],
        &mut next,
    );
    put(&mut line_of, &[LIVE, DONE], &mut next);
    let sysmon = cfg.workload.sysmon_world();
    for p in 0..cfg.procs {
        let mut head = vec![cfg.head(p), cfg.tail(p), cfg.runnext(p), cfg.owner(p)];
        if sysmon {
            head.extend([
                cfg.psys(p),
                cfg.pschedtick(p),
                cfg.psyscalltick(p),
                cfg.ppreempt(p),
            ]);
        }
        put(&mut line_of, &head, &mut next);
        let slots: Vec<_> = (0..cfg.ring).map(|i| cfg.slot(p, i)).collect();
        for chunk in slots.chunks(LINE_WORDS as usize) {
            put(&mut line_of, chunk, &mut next);
        }
    }
    for g in 1..=cfg.gs {
        put(
            &mut line_of,
            &[cfg.status(g), cfg.link(g), cfg.wait(g), cfg.sched(g)],
            &mut next,
        );
    }
    for l in line_of.iter_mut().filter(|l| **l == u32::MAX) {
        *l = next;
        next += 1;
    }
    line_of
}

/// Whether every M of the simulation has exited.
pub fn all_exited(sim: &GmpSim) -> bool {
    sim.threads().iter().all(|t| t.machine().is_done())
}

/// `sim` run on to the end (at most `max_steps` more steps), the invariants checked on the final
/// state only ([`GmpParams::run_end_checked_with`]).
fn run_end_checked_sim(mut sim: GmpSim, max_steps: u64) -> GmpReport {
    let mut n = 0;
    while n < max_steps && sim.step().is_some() {
        n += 1;
    }
    let violation = if n < max_steps {
        invariants::check_state(&sim).or_else(|| invariants::check_terminal(&sim))
    } else {
        invariants::check_state(&sim)
    };
    GmpReport::of(&sim, n, violation)
}
