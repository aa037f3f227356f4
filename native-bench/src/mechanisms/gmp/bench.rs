//! `herdlab bench gmp`: core's G/M/P table on real threads (`herdlab`), the Go 1.0 single-queue
//! variant of the same table (`herdlab-2012`), and tokio's multi-thread runtime (`tokio`) with
//! the same worker count, on the same goroutine shapes, in one process, in rounds.
//!
//! The shapes are one async code ([`main_task`], [`outside_task`], over the [`Spawner`] shim:
//! spawn and yield; their oneshot channels are tokio's, executor-neutral), run on tokio and on
//! herdlab, where each task is a Rust future polled by the M that runs its G on core's table
//! ([`run_herdlab`], [`super::task`]). Shapes (tokio's `rt_multi_threaded` benches at their sizes,
//! divided by `--shrink`; in parentheses core's workload of the same shape, the scenario the
//! simulator runs for `--compare-sim`):
//! - `spawn_many`: 10,000 tasks spawned from outside the workers (tokio: from the `block_on`
//!   thread, through its inject queue; herdlab: core's spawner outside every P, `globrunqput`
//!   and `startIdle`), each does its work and exits (core's `spawn-many`);
//! - `spawn_many_task`: the like-for-like one: one task (Go's `main`) spawns 9,999 tasks from a
//!   worker (core's `fan-out`);
//! - `yield_many`: 200 tasks spawned from outside, each yielding 1,000 times, then working: a
//!   task that wakes itself and is pending, which tokio's `yield_now` defers behind the worker's
//!   local queue and herdlab runs as Go's `goyield` (the tail of the P's own ring, no lock, no
//!   `wakep`; core's `goyield-many`);
//! - `gosched_many`: the same with Go's `runtime.Gosched` on herdlab (the *global* queue under
//!   `sched.lock`, then `wakep`; core's `yield-many`); tokio has one yield, `yield_now`, and runs
//!   it here too, so this row's factor is Gosched's cost against tokio's yield;
//! - `ping_pong`: one task spawns 1,000 pair tasks; each spawns its partner, sends it a token and
//!   waits for one back (two oneshot channels on both: on herdlab a waiting receiver's G parks,
//!   `gopark`, and the sender's wake is `goready`): 2,001 tasks;
//! - `chained_spawn`: each task does its work and spawns the next, 1,000 in all (core's `chain`).
//!
//! Each round runs every (runtime, shape, workers) cell once, the cells rotated by one place each
//! round so that none always runs first. The time of a run is from the first task starting to the
//! last one ending (herdlab: M0 starting `main` to the `done = 1` store; tokio: the first task's
//! start to the last task's end, both on the monotonic clock), so neither runtime's start-up nor
//! shutdown is counted. Rows give the median and the 10th/90th percentiles over rounds, and for
//! herdlab the median per run of its steals, parks and spins. Every run checks that each task ran
//! exactly once.
//!
//! `--compare-sim` simulates each herdlab cell (seeds 1 to 8) on as many CPUs as this machine has,
//! and puts the simulator's steals and parks beside the native ones. Three things make the two
//! sides run the same program at the same pace, and a fourth starts them alike (below):
//! - `sched.lock` is Go's `lock2` on both: it spins, yields, then sleeps (core's `LOCK2`). The
//!   simulator's lock used to sleep at once: a spawner that found the lock taken lost its CPU
//!   to an M, and with 3 threads on 2 CPUs the Ms ran the global queue dry and parked 50 to 90
//!   times a run (`spawn_many`, 2 workers), where the native runtime parks about once.
//! - Each simulated G's work includes what a G costs natively beyond the simulator's charge for
//!   its table steps ([`calibrate`], before the rounds: a one-P fan-out timed natively and in
//!   the simulator, the difference of their per-G run phases; `--g-code-ns` sets it): the task
//!   slot, the waker, the poll, the caches a G's turn misses. Charged at 1 ns, the simulated Ms
//!   ran each G several times faster than the native ones, drained the queue faster than the
//!   spawner filled it, and stole from each other 20 to 70 times a run where the native runtime
//!   steals about never. Measured as a G's poll alone (before 2026-12-06), it left 20 to 45 ns a
//!   G uncharged, and `spawn_many_task` simulated 132 to 244 steals a run in the 6 of 8
//!   processes where the poll measured 50 ns, against a native 1 ([`calibrate`] says more).
//!   The spawn phase is not fitted: a simulated `newproc` costs 114 ns, a native one 136 to 204
//!   ns on the 2-vCPU guest. Fitting it too (the model's atomic read-modify-write at
//!   `atomic_fit_ns`, 18 to 28 ns there; `--atomic-ns`) brings those steals back (152 and 205 a
//!   run): at one worker a native G's run costs about a native `newproc`, so a simulated M1
//!   fitted to both keeps pace with `main`, while at two workers the native M1 does not
//!   (presumably each G it runs was written on `main`'s CPU, a cost the simulator has only in
//!   its coherence model, which overshoots: 91 steals a run at 20 ns a miss).
//! - In the yield shapes each simulated G also works when it resumes after a yield: what a
//!   task's poll costs natively beyond the simulator's charge for the table's steps
//!   ([`calibrate`]: a one-P `yield_many` timed natively and simulated, the difference per
//!   yield; `--poll-ns` sets it; core's `GmpParams::poll_ns`). Without it a simulated
//!   `yield_many` at 2 workers took 2.7 ms where the native one takes about 12: a yield cost the
//!   simulator 26 ns and the native runtime about 90 at one worker.
//! - The simulator's wake of a thread onto an idle CPU (`cross_cpu_wake_ns`) takes what it takes
//!   here (`platform::wake::idle_cpu_wake_ns`, the median of measurements before the rounds and
//!   after each; `--wake-ns` sets it):
//!   15 to 24 µs on the 2-vCPU guest, whose idle virtual CPUs the host must schedule again,
//!   against the model's default of 5 µs. `chained_spawn` at 2 workers shows it: each `go`
//!   wakes the idle M, which finds nothing and parks; how often it goes round that circle
//!   depends on the wake, and on whether `main`'s `wakep` lands while the M is still entering
//!   `notesleep` (then it does not sleep at all: core's `futex_wait` entry step, which gmp's
//!   worlds take). With both, 25.2 simulated parks per 1,000 goroutines against 20.0 native
//!   (2026-12-05, 10 processes of 31 rounds; 7.0 without the entry step).
//! - A wake onto an idle CPU also costs the waker (`wake_ipi_ns`, core's `wake-ipi` feature):
//!   measured from the same wakes as the latency (`platform::wake::idle_cpu_wake`, the waker's
//!   `futex_wake` against one on a word nobody waits on; `--wake-ipi-ns` sets it). 5.8 to 6.4 µs
//!   on the 2-vCPU guest in 8 processes (2026-12-06), where the model charged 80 ns: the IPI
//!   exits to the host. A native `chained_spawn` trace shows it as the gap between `main`'s M
//!   taking a parked M off `midle` (`unpark`) and its `futex_wake` returning (`notify 1`): 7.2 to
//!   14.6 µs, against 0.4 to 0.5 µs when the M had not yet slept (`notify 0`). Re-simulating
//!   those 8 processes' rows with and without it (their own calibrations, seeds 1 to 8), per
//!   1,000 goroutines: `yield_many` steals 9.1 → 12.7 (native 19.9), `ping_pong` steals 0.42 →
//!   0.61 (0.83), `spawn_many_task` steals 0.04 → 0.20 (0.20), `gosched_many` steals 3.1 → 2.0
//!   (6.6), `chained_spawn` parks 22.4 → 26.6 (14.4). It is the machine's cost, so it is on;
//!   it does not close the gaps that remain.
//! - A timed sleep ends as late as the thread's timer slack lets Linux fire it (`timer_slack_ns`,
//!   core's `timer-slack` feature; `platform::timer_slack_ns` reads this thread's, which the Ms
//!   inherit: 50 µs unless something set it; `--timer-slack-ns` sets it). It matters for Go's
//!   `usleep(3)` before an M steals a running victim's `runnext`, which the table now sleeps as Go
//!   does, where it used to spin 3 µs: 74 µs median for a 3 µs `nanosleep` on the 2-vCPU guest.
//!   `chained_spawn` at 2 workers, 12 processes per build interleaved (2026-12-06): parks per
//!   1,000 goroutines 13.2 native and 31.0 simulated with the spin, 2.5 and 2.2 with the sleep
//!   (the median process's ratio 2.02 → 1.03), and herdlab's time over tokio's 1.23 → 1.09.
//!   Each `--compare-sim` also times that sleep here (`runnext_sleep_native_ns`, the median of
//!   51 before the rounds) beside the simulator's (`runnext_sleep_sim_ns`: the call, the 3 µs,
//!   the slack and a wake from idle): 72 and 73 µs against 69 and 78 in two runs.
//!
//! The native runs start when every M but the one that starts the program sleeps on its note
//! (`native::run_tasks`): before, a chain could end on M0 while M1 was still starting. The
//! simulated runs of `--compare-sim` start the same way (`GmpParams::simulate_gated`: each idle
//! M steps into its `notesleep` until it sleeps, then the starter takes its first step). Without
//! that, the simulated Ms' first `futex_wait` raced `main`'s first `go`: with the call's entry
//! step, `wakep` found M1 still entering it and M1 came back at once, without the wake's 15-25 µs,
//! met `main`'s ring with a few dozen Gs and kept pace with the spawns, stealing each time it ran
//! dry (`spawn_many_task`, 2 workers: a median of 8 to 20 steals a simulated run depending on the
//! measured G code, against a native 1). A native M1 wakes when `main` has spawned 170 to 260
//! Gs and steals once, if the ring has not yet overflowed, or never (traced 2026-12-05 with a
//! scratch print at each steal: 93 runs).
//!
//! `yield_many`'s steals at 2 workers are not comparable yet (a few a run on either side, and
//! the native ones about three times the simulated). Traced (`--trace`: each steal is an event,
//! 2026-12-06, 3 runs), the native ones come from the start: the spawner injects all 200 Gs
//! through the global queue in about 85 µs and wakes both idle Ms, and then how the Gs divide
//! depends on when each M gets a CPU. In one run M1 recorded its wake at 179 µs and its next
//! event at 1,890 µs (3 threads runnable on 2 vCPUs, then presumably the host), so M0 alone took
//! the Gs off the global queue (`sched.lock` 204 times in the run, M1's 6; a scratch count of
//! the takes per M in 12 other runs: all 200 by one M in several, 54 to 146 or nearer even in
//! the rest)
//! and M1 started by stealing half of M0's ring; the
//! halves then even out by further steals through the run (at 1.9 and 15.6 ms of a 15.8 ms run).
//! In another both Ms took from the queue alternately from 177 and 232 µs, and the steals came
//! only in the last 0.5 ms. The simulator (seeds 1 to 8, this machine's measured costs) always
//! runs the second case: its spawner is done by 34 µs, both Ms run from about 30 µs and take one
//! G each per 61 scheduling rounds in turn, 100 apiece, and its 0 to 3 steals come in the last
//! 140 µs. Its CPU scheduler runs a woken thread as soon as a CPU is free; a guest whose vCPU the
//! host deschedules for milliseconds is outside the model.
//!
//! `--coherence-miss-ns N` adds the simulator's cache-coherence cost (core's
//! `COHERENCE_MISS_NS` is 50 ns, a source-backed figure). It is off by default: on this 2-vCPU
//! guest it makes `spawn_many` at 2 workers park 100 to 115 times a simulated run, against a
//! native median of 0 (each
//! miss charged in full and in order, so a lock holder that walks a batch of Gs holds it far
//! longer than a CPU that overlaps the misses).

use std::future::Future;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Instant;

use clap::ArgMatches;
use serde::Serialize;

use herdlab_core::cost::CostModel;
use herdlab_core::mechanisms::gmp::machine::RUNNEXT_STEAL_SLEEP_NS;
use herdlab_core::mechanisms::gmp::params::MAX_WORDS;
use herdlab_core::mechanisms::gmp::{GmpParams, GmpVariant, Workload};

use super::native::{self, ring_for, GmpRun};
use super::task::{self, Tasks};
use crate::cli::{self, list, ranged, subcommand, switch, CliError};
use crate::output::{print_json, progress_line, table_lines};
use crate::platform::limits::{exit_on_panic, probe_threads};
use crate::platform::mem::spin_for;
use crate::platform::wake::{idle_cpu_wake, IdleWake};
use crate::platform::NativeError;

/// The most workers a row may use: the model's GOMAXPROCS (at most 16; the bench's shapes fit its
/// words on 16 Ps of 256 slots), so that a machine of 16 cores or more runs a row on all of them.
pub const MAX_WORKERS: u32 = 16;

/// The most rounds.
pub const MAX_ROUNDS: u64 = 1_000;

/// A runtime of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// Core's table, `variant=correct`.
    Herdlab,
    /// Core's table, `variant=single-queue` (Go 1.0, the design the 2012 document replaced).
    Herdlab2012,
    /// tokio's multi-thread runtime.
    Tokio,
}

impl Runtime {
    /// Every runtime.
    pub const ALL: [Runtime; 3] = [Runtime::Herdlab, Runtime::Herdlab2012, Runtime::Tokio];
    /// The row's `runtime`.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Herdlab => "herdlab",
            Runtime::Herdlab2012 => "herdlab-2012",
            Runtime::Tokio => "tokio",
        }
    }
    /// Parse a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// A shape of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Spawned from outside the workers (`spawn-many`).
    SpawnMany,
    /// Main spawns the others from a worker (`fan-out`).
    SpawnManyTask,
    /// Spawned from outside, each yielding as tokio's `yield_now` (`goyield-many`).
    YieldMany,
    /// Spawned from outside, each calling `Gosched` on herdlab (`yield-many`).
    GoschedMany,
    /// Pairs handing a token back and forth (`ping-pong`).
    PingPong,
    /// Each spawns the next (`chain`).
    ChainedSpawn,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 6] = [
        Shape::SpawnMany,
        Shape::SpawnManyTask,
        Shape::YieldMany,
        Shape::GoschedMany,
        Shape::PingPong,
        Shape::ChainedSpawn,
    ];
    /// The row's `shape`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::SpawnMany => "spawn_many",
            Shape::SpawnManyTask => "spawn_many_task",
            Shape::YieldMany => "yield_many",
            Shape::GoschedMany => "gosched_many",
            Shape::PingPong => "ping_pong",
            Shape::ChainedSpawn => "chained_spawn",
        }
    }
    /// Tasks per run (main included) and yields per task, at tokio's sizes divided by `shrink`.
    pub fn size(self, shrink: u32) -> (u32, u32) {
        let d = |n: u32, least: u32| (n / shrink.max(1)).max(least);
        match self {
            Shape::SpawnMany | Shape::SpawnManyTask => (d(10_000, 2), 0),
            Shape::YieldMany | Shape::GoschedMany => (d(200, 2), d(1_000, 1)),
            Shape::PingPong => (1 + 2 * d(1_000, 1), 0),
            Shape::ChainedSpawn => (d(1_000, 2), 0),
        }
    }
    /// Parse a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == s)
    }
    /// Whether the tasks are spawned from outside the workers.
    pub fn external(self) -> bool {
        self.workload().external()
    }
    /// Whether each task yields (`yield_many`, `gosched_many`).
    pub fn yields(self) -> bool {
        matches!(self, Shape::YieldMany | Shape::GoschedMany)
    }
    /// Core's workload of the same shape (the simulator's scenario for `--compare-sim`).
    pub fn workload(self) -> Workload {
        match self {
            Shape::SpawnMany => Workload::SpawnMany,
            Shape::SpawnManyTask => Workload::FanOut,
            Shape::YieldMany => Workload::GoyieldMany,
            Shape::GoschedMany => Workload::YieldMany,
            Shape::PingPong => Workload::PingPong,
            Shape::ChainedSpawn => Workload::Chain,
        }
    }
}

/// What `bench gmp` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmpBenchConfig {
    /// Worker counts (GOMAXPROCS; tokio's `worker_threads`).
    pub workers: Vec<u32>,
    /// Runtimes.
    pub runtimes: Vec<Runtime>,
    /// Shapes.
    pub shapes: Vec<Shape>,
    /// tokio's sizes divided by this (1: tokio's own).
    pub shrink: u32,
    /// Each task's busy work, ns.
    pub work_ns: u64,
    /// Rounds.
    pub rounds: u32,
    /// Add the simulator's figures for each herdlab cell.
    pub compare_sim: bool,
    /// `--compare-sim`: the simulator's cost of a memory access that misses in its coherence
    /// model (`--coherence-miss-ns`; 0, the default: off; core's `COHERENCE_MISS_NS` is 50).
    pub coherence_miss_ns: u64,
    /// `--compare-sim`: what one G costs natively beyond the simulator's charge for its table
    /// steps, ns, added to each simulated G's work (`--g-code-ns`; none: measured on this
    /// machine before the rounds, [`calibrate`]).
    pub g_code_ns: Option<u64>,
    /// `--compare-sim`: what a task's poll after a yield costs natively beyond the simulator's
    /// charge for its table steps, ns, worked by each simulated G of the yield shapes when it
    /// resumes (`--poll-ns`; none: measured on this machine before the rounds, [`calibrate`]).
    pub poll_ns: Option<u64>,
    /// `--compare-sim`: the simulator's atomic read-modify-write, ns (`--atomic-ns`; none: the
    /// model's own, 15; [`calibrate`] reports the cost that would make a simulated `newproc`
    /// cost a native one, `atomic_fit_ns`).
    pub atomic_ns: Option<u64>,
    /// `--compare-sim`: how long a thread asleep on a futex takes to run once woken onto an idle
    /// CPU, ns, the simulator's `cross_cpu_wake_ns` (`--wake-ns`; none: measured on this machine
    /// before the rounds, `platform::wake::idle_cpu_wake_ns`).
    pub wake_ns: Option<u64>,
    /// `--compare-sim`: what a wake onto an idle CPU costs the waker, ns, the simulator's
    /// `wake_ipi_ns` (`--wake-ipi-ns`; none: measured on this machine with `wake_ns`,
    /// `platform::wake::idle_cpu_wake`).
    pub wake_ipi_ns: Option<u64>,
    /// `--compare-sim`: how late a timed sleep ends, ns, the simulator's `timer_slack_ns`
    /// (`--timer-slack-ns`; none: this thread's own, `platform::timer_slack_ns`, which the Ms
    /// inherit).
    pub timer_slack_ns: Option<u64>,
}

impl GmpBenchConfig {
    /// The defaults (`quick`: workers 1 and 2, 5 rounds; else 1, 2 and the cores, 31 rounds).
    pub fn new(quick: bool) -> Self {
        let cores = std::thread::available_parallelism()
            .map_or(2, |n| n.get() as u32)
            .min(MAX_WORKERS);
        let mut workers = vec![1, 2];
        if !quick && cores > 2 {
            workers.push(cores);
        }
        GmpBenchConfig {
            workers,
            runtimes: Runtime::ALL.to_vec(),
            shapes: Shape::ALL.to_vec(),
            shrink: 1,
            work_ns: 0,
            rounds: if quick { 5 } else { 31 },
            compare_sim: false,
            coherence_miss_ns: 0,
            g_code_ns: None,
            poll_ns: None,
            atomic_ns: None,
            wake_ns: None,
            wake_ipi_ns: None,
            timer_slack_ns: None,
        }
    }
}

/// One row of `bench gmp`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GmpRow {
    /// `herdlab`, `herdlab-2012` or `tokio`.
    pub runtime: &'static str,
    /// `spawn_many_task` or `chained_spawn`.
    pub shape: &'static str,
    /// Workers (GOMAXPROCS; tokio's worker threads).
    pub workers: u32,
    /// Tasks per run, main included.
    pub tasks: u32,
    /// `yield_many` and `gosched_many`: each task's yields (0 for the other shapes).
    pub yields: u32,
    /// Each task's work, ns.
    pub work_ns: u64,
    /// The slots of each P's ring (herdlab; null for tokio, whose rings have 256).
    pub ring: Option<u32>,
    /// Runs (one per round): the rounds done, fewer than asked in an interrupted run's rows.
    pub rounds: u32,
    /// The median run, ns.
    pub median_ns: u64,
    /// The 10th percentile, ns.
    pub p10_ns: u64,
    /// The 90th percentile, ns.
    pub p90_ns: u64,
    /// This row's median over tokio's on the same shape and workers in the same run (null
    /// without a tokio row to divide by).
    pub x_tokio: Option<f64>,
    /// `herdlab-2012` rows: the median over `herdlab`'s on the same shape and workers in the same
    /// run, Go 1.0's one queue against today's scheduler (null on other rows, or without a
    /// `herdlab` row).
    pub x_herdlab: Option<f64>,
    /// herdlab: the median steals per run (null for tokio).
    pub steals: Option<u64>,
    /// herdlab: the median parks (`stopm`s) per run.
    pub parks: Option<u64>,
    /// herdlab: the median spins (Ms becoming spinning) per run.
    pub spins: Option<u64>,
    /// herdlab: the median global-queue takes per run.
    pub global_queue_gets: Option<u64>,
    /// `--compare-sim`: the simulator's figures for the same scenario (herdlab rows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim: Option<SimFigures>,
}

/// Simulator seeds `--compare-sim` runs for each herdlab cell (seeds 1 to this): one seed's run is
/// one interleaving, and the steals and parks of one run vary with the seed as a native run's do
/// with the machine (`spawn_many_task` at 2 workers: 11 to 45 steals over seeds 1-8).
pub const SIM_SEEDS: u64 = 8;

/// The fewest events (steals, or parks) the larger side of a comparison must have summed over its
/// runs for `--compare-sim` to give a ratio: with fewer, one run's luck (a steal more or less at the
/// end of the run) moves the ratio by more than the 25% the issue asks about. Counts are roughly
/// Poisson, so `n` events carry a relative error of about `1/sqrt(n)`: 64 events, 12.5%, half the
/// target's width.
pub const MIN_EVENTS: u64 = 64;

/// How far apart the simulator's and the native rate may be (issue #12: within 25%).
pub const AGREE_WITHIN: f64 = 0.25;

/// The simulator's run of a herdlab cell's scenario (`--compare-sim`), beside the native figures.
///
/// The first eight keys are the contract's, unchanged: the simulator's seed-1 run against the
/// native median per run. The comparison the issue asks for is in the keys after them: both
/// sides' events summed (the simulator over seeds 1 to [`SIM_SEEDS`], native over every round),
/// the rates per 1,000 tasks of those sums, their ratio, and a verdict per figure that says
/// "too few events" rather than give a ratio of two counts that one run's luck decides.
///
/// Both sides count the same events in the same window: the counters are core's `MCounts`,
/// incremented by the same table states (`GrabCas` / `GrabNextCas` for a steal, `StopMidleStore`
/// for a park) from the first step of the run to the last; a park is counted only when an M puts
/// itself on `midle` before the program ended (`StopDone` sees `done` and exits uncounted), and
/// the Ms that start asleep on `midle` are not counted as parks, natively or simulated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimFigures {
    /// The simulator's steals (seed 1).
    pub steals: u64,
    /// Its parks (seed 1).
    pub parks: u64,
    /// Its spins (seed 1).
    pub spins: u64,
    /// Its simulated time, ns (seed 1).
    pub sim_time_ns: u64,
    /// The simulator's steals per 1,000 tasks (seed 1).
    pub steals_per_1k: f64,
    /// Native (median) steals per 1,000 tasks.
    pub native_steals_per_1k: f64,
    /// The simulator's parks per 1,000 tasks (seed 1).
    pub parks_per_1k: f64,
    /// Native (median) parks per 1,000 tasks.
    pub native_parks_per_1k: f64,
    /// The simulator's seeds summed below (1 to this).
    pub seeds: u64,
    /// The simulator's steals, summed over the seeds.
    pub sim_steals_total: u64,
    /// The simulator's parks, summed over the seeds.
    pub sim_parks_total: u64,
    /// The simulator's steals per run, seed by seed.
    pub sim_steals_runs: Vec<u64>,
    /// The simulator's parks per run, seed by seed.
    pub sim_parks_runs: Vec<u64>,
    /// Native runs summed below (the rounds).
    pub native_runs: u64,
    /// Native steals, summed over the runs.
    pub native_steals_total: u64,
    /// Native parks, summed over the runs.
    pub native_parks_total: u64,
    /// Native steals per run, round by round.
    pub native_steals_runs: Vec<u64>,
    /// Native parks per run, round by round.
    pub native_parks_runs: Vec<u64>,
    /// The median run's steals in the simulator (over the seeds) and natively (over the runs),
    /// and the same for parks: what a typical run does on each side. Native counts have rare
    /// runs of hundreds of events (the spawner losing its CPU for a slice) that the sums above
    /// mostly are; beside the medians they show as such.
    pub sim_steals_median_run: u64,
    /// See `sim_steals_median_run`.
    pub native_steals_median_run: u64,
    /// See `sim_steals_median_run`.
    pub sim_parks_median_run: u64,
    /// See `sim_steals_median_run`.
    pub native_parks_median_run: u64,
    /// The simulator's steals per 1,000 tasks over every seed.
    pub sim_steals_per_1k_pooled: f64,
    /// Native steals per 1,000 tasks over every run.
    pub native_steals_per_1k_pooled: f64,
    /// The simulator's parks per 1,000 tasks over every seed.
    pub sim_parks_per_1k_pooled: f64,
    /// Native parks per 1,000 tasks over every run.
    pub native_parks_per_1k_pooled: f64,
    /// Simulator over native, pooled steals per 1,000 tasks (null: too few events, or none on
    /// the native side).
    pub steals_ratio: Option<f64>,
    /// Simulator over native, pooled parks per 1,000 tasks (null as `steals_ratio`).
    pub parks_ratio: Option<f64>,
    /// `within 25%`, `differs`, `too few events` (see [`verdict`]) or `one run dominates` (see
    /// [`one_run_dominates`]).
    pub steals_verdict: &'static str,
    /// The same for parks.
    pub parks_verdict: &'static str,
    /// The fewest events the larger side must have for a ratio ([`MIN_EVENTS`]).
    pub min_events: u64,
    /// The simulator's cost of a coherence miss in these runs, ns (0: the model was off).
    pub coherence_miss_ns: u64,
    /// The simulator's coherence misses (seed 1).
    pub sim_coherence_misses: u64,
    /// What one G cost natively beyond the simulator's charge for its table steps, ns
    /// ([`Calibration::g_code_ns`], or `--g-code-ns`): added to each simulated G's work.
    pub g_code_ns: u64,
    /// `g_code_ns` was measured on this machine (not given with `--g-code-ns`).
    pub g_code_measured: bool,
    /// What each simulated G worked when it resumed after a yield, ns (yield shapes; 0 in the
    /// others): [`Calibration::poll_ns`], or `--poll-ns`.
    pub poll_ns: u64,
    /// `poll_ns` was measured on this machine (not given with `--poll-ns`; in the yield shapes).
    pub poll_measured: bool,
    /// The simulator's atomic read-modify-write in these runs, ns (`--atomic-ns`; the model's
    /// own, 15, by default).
    pub atomic_ns: u64,
    /// How `g_code_ns` and `poll_ns` were measured: a one-P fan-out's phases and a one-P
    /// `yield_many`, native and simulated ([`calibrate`]; null when `--g-code-ns` and
    /// `--poll-ns` gave both).
    pub calibration: Option<Calibration>,
    /// The time from a futex wake to the woken thread running on an idle CPU, ns: the median
    /// of `platform::wake::idle_cpu_wake_ns` measured before the rounds and after each (or
    /// `--wake-ns`, or the cost model's default on a one-CPU machine). The simulator's
    /// `cross_cpu_wake_ns` is it less `context_switch_ns`, which it adds.
    pub wake_ns: u64,
    /// `wake_ns` was measured on this machine.
    pub wake_measured: bool,
    /// What a wake onto an idle CPU costs the waker, ns (the simulator's `wake_ipi_ns`): the
    /// median of `platform::wake::idle_cpu_wake`'s `waker_ns`, measured with `wake_ns` (or
    /// `--wake-ipi-ns`, or 0 on a one-CPU machine).
    pub wake_ipi_ns: u64,
    /// `wake_ipi_ns` was measured on this machine.
    pub wake_ipi_measured: bool,
    /// How long after its deadline a timed sleep ends, ns (the simulator's `timer_slack_ns`):
    /// the native Ms' own (`prctl(PR_GET_TIMERSLACK)`, 50 µs by default on Linux), or
    /// `--timer-slack-ns`. Go's `usleep(3)` before it steals a `runnext` is such a sleep.
    pub timer_slack_ns: u64,
    /// `timer_slack_ns` was read on this machine.
    pub timer_slack_measured: bool,
    /// Go's `usleep(3)` before an M steals a running victim's `runnext`, natively: the median
    /// wall time of 51 sleeps of 3 µs measured before the rounds (`platform::sleep_median_ns`).
    /// Null where not measured.
    pub runnext_sleep_native_ns: Option<u64>,
    /// The same sleep in the simulator, from the call to running again on the idle CPU: the
    /// call's entry (`syscall_ns`), the 3 µs, `timer_slack_ns` and a wake onto an idle CPU
    /// (`wake_ns`).
    pub runnext_sleep_sim_ns: u64,
    /// Each simulated G's work, ns: the row's `work_ns` plus `g_code_ns` (at least 1).
    pub sim_work_ns: u64,
}

/// Whether one run holds more than half of its side's events (of at least 3 runs and
/// [`MIN_EVENTS`] events): the pooled rate is then that run's, not the runs', and a ratio of it
/// says nothing about a typical run. Native counts have such tails: on the 2-vCPU guest,
/// `spawn_many` at 2 workers parks 0-4 times in most runs and 1,141 times in one of 50 (not
/// traced; presumably runs where the spawner lost its CPU to an M, as in the simulator).
pub fn one_run_dominates(runs: &[u64]) -> bool {
    let total: u64 = runs.iter().sum();
    let max = runs.iter().copied().max().unwrap_or(0);
    runs.len() >= 3 && total >= MIN_EVENTS && 2 * max > total
}

/// The verdict on one figure: `too few events` when neither side counted [`MIN_EVENTS`] events
/// in all its runs, else `within 25%` when the pooled rates (events per task over every run)
/// are within [`AGREE_WITHIN`] of each other, measured against the native rate, else `differs`.
/// With the ratio (simulator over native) when there is one: none when too few, or when the
/// native side counted nothing (the simulator then counted at least [`MIN_EVENTS`]: `differs`).
pub fn verdict(
    sim_total: u64,
    sim_tasks: u64,
    native_total: u64,
    native_tasks: u64,
) -> (&'static str, Option<f64>) {
    if sim_total.max(native_total) < MIN_EVENTS {
        return ("too few events", None);
    }
    if native_total == 0 || sim_tasks == 0 || native_tasks == 0 {
        return ("differs", None);
    }
    let ratio = (sim_total as f64 / sim_tasks as f64) / (native_total as f64 / native_tasks as f64);
    if (ratio - 1.0).abs() <= AGREE_WITHIN {
        ("within 25%", Some(ratio))
    } else {
        ("differs", Some(ratio))
    }
}

/// The simulator's figures for `p` (each G's work `work_ns` plus `g_code`, what a G costs
/// natively beyond the simulator's charge for its table steps, at least 1 ns as the key allows; a wake onto an
/// idle CPU taking `wake`),
/// beside the native runs' steals and parks (one entry per run, in round order): each seed
/// started as a native run starts, every idle M asleep first ([`GmpParams::simulate_gated`]);
/// seed 1 with every invariant checked after every step ([`GmpParams::run_gated_with`]), seeds 2
/// to [`SIM_SEEDS`] checked at the end ([`GmpParams::run_end_checked_gated_with`]), all under the
/// cost model `base` (the default but for its atomic read-modify-write, `--atomic-ns`, and its
/// coherence miss, `--coherence-miss-ns`; 0: off) with a
/// wake onto an idle CPU taking `wake`. A seed whose run broke an invariant or did not finish is
/// an error.
pub fn sim_figures(
    p: &GmpParams,
    work_ns: u64,
    g: GCost,
    wake: Measured,
    base: CostModel,
    native_steals: &[u64],
    native_parks: &[u64],
) -> Result<SimFigures, String> {
    let p = GmpParams {
        work_ns: work_ns.saturating_add(g.code.ns).clamp(1, 100_000_000) as u32,
        poll_ns: if matches!(p.workload, Workload::YieldMany | Workload::GoyieldMany) {
            g.poll.ns.min(100_000) as u32
        } else {
            0
        },
        ..*p
    };
    let g_code = g.code;
    let tasks = p.goroutines as u64;
    let cost = base.with_idle_wake_ns(wake.ns);
    let coherence_miss_ns = base.coherence_miss_ns;
    let (mut steals_runs, mut parks_runs) = (Vec::new(), Vec::new());
    let mut first = None;
    for seed in 1..=SIM_SEEDS {
        let q = GmpParams { seed, ..p };
        // started as a native run is: the idle Ms asleep before the starter's first step
        let r = if seed == 1 {
            q.run_gated_with(cost, SIM_MAX_STEPS)?.1
        } else {
            q.run_end_checked_gated_with(cost, SIM_MAX_STEPS)?
        };
        if let Some(v) = &r.violation {
            return Err(format!(
                "the simulator broke {} at seed {seed}: {}",
                v.invariant, v.message
            ));
        }
        if r.finished != p.goroutines {
            return Err(format!(
                "the simulator's seed {seed} ran {} of {} goroutines in {} steps",
                r.finished, p.goroutines, SIM_MAX_STEPS
            ));
        }
        steals_runs.push(r.steals);
        parks_runs.push(r.parks);
        first.get_or_insert(r);
    }
    let r = first.expect("at least one seed");
    let per_1k = |n: u64| n as f64 * 1000.0 / tasks as f64;
    let median_of = |v: &[u64]| if v.is_empty() { 0 } else { median(v.to_vec()) };
    let sum = |v: &[u64]| v.iter().sum::<u64>();
    let pooled = |total: u64, runs: u64| total as f64 * 1000.0 / (tasks * runs.max(1)) as f64;
    let (ss, sp) = (sum(&steals_runs), sum(&parks_runs));
    let (ns, np) = (sum(native_steals), sum(native_parks));
    let runs = native_steals.len() as u64;
    let judge = |sim_runs: &[u64], sim_total: u64, native_runs: &[u64], native_total: u64| {
        let (v, ratio) = verdict(sim_total, tasks * SIM_SEEDS, native_total, tasks * runs);
        if v != "too few events" && (one_run_dominates(sim_runs) || one_run_dominates(native_runs))
        {
            ("one run dominates", ratio)
        } else {
            (v, ratio)
        }
    };
    let (steals_verdict, steals_ratio) = judge(&steals_runs, ss, native_steals, ns);
    let (parks_verdict, parks_ratio) = judge(&parks_runs, sp, native_parks, np);
    let (steals_median, parks_median) = (median_of(&steals_runs), median_of(&parks_runs));
    Ok(SimFigures {
        steals: r.steals,
        parks: r.parks,
        spins: r.spins,
        sim_time_ns: r.sim_time_ns,
        steals_per_1k: per_1k(r.steals),
        native_steals_per_1k: per_1k(median_of(native_steals)),
        parks_per_1k: per_1k(r.parks),
        native_parks_per_1k: per_1k(median_of(native_parks)),
        seeds: SIM_SEEDS,
        sim_steals_total: ss,
        sim_parks_total: sp,
        sim_steals_runs: steals_runs,
        sim_parks_runs: parks_runs,
        native_runs: runs,
        native_steals_total: ns,
        native_parks_total: np,
        native_steals_runs: native_steals.to_vec(),
        native_parks_runs: native_parks.to_vec(),
        sim_steals_median_run: steals_median,
        native_steals_median_run: median_of(native_steals),
        sim_parks_median_run: parks_median,
        native_parks_median_run: median_of(native_parks),
        sim_steals_per_1k_pooled: pooled(ss, SIM_SEEDS),
        native_steals_per_1k_pooled: pooled(ns, runs),
        sim_parks_per_1k_pooled: pooled(sp, SIM_SEEDS),
        native_parks_per_1k_pooled: pooled(np, runs),
        steals_ratio,
        parks_ratio,
        steals_verdict,
        parks_verdict,
        min_events: MIN_EVENTS,
        coherence_miss_ns,
        sim_coherence_misses: r.coherence_misses,
        g_code_ns: g_code.ns,
        g_code_measured: g_code.measured,
        poll_ns: u64::from(p.poll_ns),
        poll_measured: p.poll_ns > 0 && g.poll.measured,
        atomic_ns: base.atomic_ns,
        calibration: None,
        wake_ns: wake.ns,
        wake_measured: wake.measured,
        wake_ipi_ns: base.wake_ipi_ns,
        wake_ipi_measured: false,
        timer_slack_ns: base.timer_slack_ns,
        timer_slack_measured: false,
        runnext_sleep_native_ns: None,
        runnext_sleep_sim_ns: cost.timed_sleep_ns(RUNNEXT_STEAL_SLEEP_NS),
        sim_work_ns: u64::from(p.work_ns),
    })
}

/// The most steps one simulated run of `--compare-sim` may take.
const SIM_MAX_STEPS: u64 = 50_000_000;

fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    percentile(&v, 0.5)
}

/// A figure of this machine that `--compare-sim` gives the simulator (a G's cost,
/// [`calibrate`]; a wake onto an idle CPU): measured here or given on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    /// Nanoseconds per G.
    pub ns: u64,
    /// Measured here (not given).
    pub measured: bool,
}

/// What `--compare-sim` learned from one-P fan-outs on this machine ([`calibrate`]): each phase
/// per G, native and simulated. What a G costs natively beyond the simulator's charge for its
/// table steps is their difference in the run phase ([`Calibration::g_code_ns`]): with it an M
/// runs Gs at the native pace. The spawn phase is not fitted; `atomic_fit_ns` says what would
/// fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Calibration {
    /// Goroutines of the one-P fan-out, `main` included (`spawn_many_task`'s, at tokio's size).
    pub goroutines: u32,
    /// Native runs (their medians are the native figures).
    pub runs: u32,
    /// `main`'s poll per spawned G, native median, ns: each spawn's future boxed and its act
    /// recorded (the M's table carries the acts out after the poll). The simulator has no such
    /// step: a `go` there is its `newproc`.
    pub go_code_native_ns: u64,
    /// The rest of phase 1 per spawned G, native median, ns: the table's `newproc` for each act
    /// (`main`'s exit and the first G's schedule with them).
    pub newproc_native_ns: u64,
    /// Phase 1 per spawned G in the simulator (the rows' cost model: `atomic_ns`), ns.
    pub newproc_sim_ns: u64,
    /// The simulator's atomic read-modify-write in it, ns (`--atomic-ns`, or the model's 15).
    pub atomic_ns: u64,
    /// The atomic read-modify-write's cost at which the simulated phase 1 per G would be
    /// `newproc_native_ns`, ns (at least 1): phase 1 is linear in it. Not used: `--atomic-ns`
    /// runs with it (the bench's module docs say what it does to the comparison).
    pub atomic_fit_ns: u64,
    /// Phase 2 (the Gs' runs, one after another on the P's M) per G, native median, ns.
    pub g_run_native_ns: u64,
    /// Phase 2 per G in the simulator with each G's work at 1 ns, that 1 ns left out: what the
    /// simulator charges for the table's steps of one G's run, ns.
    pub g_run_sim_ns: u64,
    /// `yield_many` on 1 worker (200 tasks of 1,000 `goyield`s at tokio's size), native median
    /// per yield, ns: the run's time over its yields.
    pub yield_native_ns: u64,
    /// The same in the simulator, each G's work `g_code_ns()` and no poll cost, ns.
    pub yield_sim_ns: u64,
}

impl Calibration {
    /// What one G costs natively beyond the simulator's charge for its table steps: the run
    /// phases' difference per G, at least 1 ns (the key's least work).
    pub fn g_code_ns(&self) -> u64 {
        self.g_run_native_ns
            .saturating_sub(self.g_run_sim_ns)
            .max(1)
    }

    /// What a task's poll after a yield costs natively beyond the simulator's charge for the
    /// table's steps: the per-yield difference of the one-P `yield_many` runs (0 when the
    /// simulator is the slower).
    pub fn poll_ns(&self) -> u64 {
        self.yield_native_ns.saturating_sub(self.yield_sim_ns)
    }
}

/// What a G costs natively beyond the simulator's charge for its table steps, as
/// `--compare-sim` gives it to the simulator: its code (added to its work) and, in the yield
/// shapes, each poll after a yield (worked when it resumes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GCost {
    /// A G's code, ns.
    pub code: Measured,
    /// A poll after a yield, ns.
    pub poll: Measured,
}

/// Native runs of [`calibrate`] (the median of each phase is the figure).
const CAL_RUNS: usize = 7;
/// Native runs of [`calibrate`] before those, not counted: a process's first runs fault in the
/// pages their 10,000 futures take (on the 2-vCPU guest `main`'s spawns cost 110-240 ns a G in
/// the first three runs of a process and 23-37 ns after).
const CAL_WARMUP: usize = 3;
/// Native runs of [`calibrate`]'s one-P `yield_many` (after one to warm up).
const YIELD_RUNS: usize = 3;
/// How far above the first the second atomic cost [`calibrate`] fits from lies, ns.
const FIT_SPAN_NS: u64 = 30;

/// Time a one-P fan-out's two phases here and in the simulator (core's
/// [`herdlab_core::mechanisms::gmp::FanOutPhases`], whose docs say what they are):
/// `spawn_many_task` at tokio's size (`main` and 9,999 Gs) on 1 worker, `CAL_RUNS` (7) native
/// runs after `CAL_WARMUP` (3), their median per phase; the simulator's seed 1 of the same
/// scenario under `cost`, each G's work 1 ns, from the gated start as the native runs start.
/// The run phases' difference per G is a G's code ([`Calibration::g_code_ns`]). One more
/// simulation, with the atomic read-modify-write `FIT_SPAN_NS` (30) ns dearer, gives the line
/// of phase 1 in that cost (`newproc`'s 7 read-modify-writes a G on average, with every 128th
/// G's `runqputslow`) and so the cost at which it would match the native one
/// (`atomic_fit_ns`, rounded to a whole ns, at least 1). Last, `yield_many` at tokio's size
/// on 1 worker (200 tasks of 1,000 `goyield`s), `YIELD_RUNS` (3) native runs after one, their
/// median time per yield, against the simulator's gated run of it with each G's work the G's
/// code just found: the difference is a poll after a yield ([`Calibration::poll_ns`]).
///
/// Why in a run: a G's code measured alone, its future polled one after another on one thread
/// outside the runtime (before 2026-12-06), cost 46 to 79 ns a G on the 2-vCPU guest, while a
/// G's turn on its M cost 132 to 190 ns natively against the simulator's 55 for the table's
/// steps: in the processes measured both ways, 20 to 45 ns a G went uncharged. In processes
/// where it measured about 50 ns, the simulated M1 of `spawn_many_task` at 2 workers ran Gs as
/// fast as `main` spawned them and stole each time it ran dry (132 to 244 steals a run against
/// a native 1); measured in the run, 0 (8 processes of 31 rounds each way, in turns).
pub fn calibrate(cost: CostModel) -> Result<Calibration, String> {
    let p = params(Runtime::Herdlab, Shape::SpawnManyTask, 1, 1)?;
    let spawned = u64::from(p.goroutines - 1);
    let (mut code, mut spawn, mut run) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..CAL_WARMUP + CAL_RUNS {
        let (_, s) = run_herdlab_shared(&p, Shape::SpawnManyTask, 0)
            .map_err(|e| format!("timing a one-P fan-out: {e}"))?;
        let (start, spawned_at, second, end) = (
            s.start.load(SeqCst),
            s.spawned.load(SeqCst),
            s.second.load(SeqCst),
            s.end.load(SeqCst),
        );
        if start == 0 || spawned_at < start || second < spawned_at || end < second {
            return Err(format!(
                "timing a one-P fan-out: stamps out of order (start {start}, spawned {spawned_at}, second body {second}, end {end})"
            ));
        }
        if k >= CAL_WARMUP {
            code.push((spawned_at - start) / spawned);
            spawn.push((second - spawned_at) / spawned);
            run.push((end - second) / (spawned - 1));
        }
    }
    let newproc_native_ns = median(spawn);
    // a one-P yield_many: the run over its yields, after one run to warm up
    let y = params(Runtime::Herdlab, Shape::YieldMany, 1, 1)?;
    let yields = u64::from(y.goroutines) * u64::from(y.yields.max(1));
    let mut per_yield = Vec::new();
    for k in 0..1 + YIELD_RUNS {
        let r = run_herdlab(&y, Shape::YieldMany, 0)
            .map_err(|e| format!("timing a one-P yield_many: {e}"))?;
        if k >= 1 {
            per_yield.push(r.wall_ns / yields);
        }
    }
    let phases = |atomic_ns: u64| {
        GmpParams { work_ns: 1, ..p }
            .fan_out_phases(CostModel { atomic_ns, ..cost }, SIM_MAX_STEPS)
            .map_err(|e| format!("simulating a one-P fan-out: {e}"))
    };
    let (lo, hi) = (
        phases(cost.atomic_ns)?,
        phases(cost.atomic_ns + FIT_SPAN_NS)?,
    );
    let (at_lo, at_hi) = (lo.spawn_per_g() as f64, hi.spawn_per_g() as f64);
    if at_hi <= at_lo {
        return Err(format!(
            "simulating a one-P fan-out: newproc cost {at_lo} ns a G with atomics at {} ns and {at_hi} ns at {} ns",
            cost.atomic_ns,
            cost.atomic_ns + FIT_SPAN_NS
        ));
    }
    let fit = cost.atomic_ns as f64
        + (newproc_native_ns as f64 - at_lo) * FIT_SPAN_NS as f64 / (at_hi - at_lo);
    let g_run_native_ns = median(run);
    let g_code = g_run_native_ns
        .saturating_sub(lo.run_per_g().saturating_sub(1))
        .max(1);
    let ys = GmpParams {
        work_ns: g_code.min(100_000_000) as u32,
        ..y
    }
    .run_end_checked_gated_with(cost, SIM_MAX_STEPS)
    .map_err(|e| format!("simulating a one-P yield_many: {e}"))?;
    if let Some(v) = &ys.violation {
        return Err(format!(
            "simulating a one-P yield_many: broke {}: {}",
            v.invariant, v.message
        ));
    }
    Ok(Calibration {
        goroutines: p.goroutines,
        runs: CAL_RUNS as u32,
        go_code_native_ns: median(code),
        newproc_native_ns,
        newproc_sim_ns: lo.spawn_per_g(),
        atomic_ns: cost.atomic_ns,
        atomic_fit_ns: fit.round().clamp(1.0, 1_000.0) as u64,
        g_run_native_ns,
        g_run_sim_ns: lo.run_per_g().saturating_sub(1),
        yield_native_ns: median(per_yield),
        yield_sim_ns: ys.sim_time_ns / yields,
    })
}

/// The CPUs of this machine (at most the simulator's 64): what a herdlab cell's threads share
/// natively, whatever the worker count, so what its simulated scenario gets.
pub fn machine_cpus() -> u32 {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get() as u32)
        .clamp(1, 64)
}

/// The scenario of a herdlab cell (tokio's sizes divided by `shrink`), on [`machine_cpus`]
/// simulated CPUs: natively the Ms, and the spawner of the shapes spawned from outside, run on
/// every CPU of the machine (1 worker on a 2-CPU machine: the spawner and M0 run at once), so
/// the simulator's scenario has as many (before, it had one per worker, and at 1 worker the
/// spawner and the M took turns on one CPU, which no native run does).
pub fn params(rt: Runtime, shape: Shape, workers: u32, shrink: u32) -> Result<GmpParams, String> {
    let threads = workers + 1;
    let (tasks, yields) = shape.size(shrink);
    let ring = ring_for(workers, threads, tasks).ok_or_else(|| {
        format!("{tasks} tasks on {workers} workers do not fit the model's {MAX_WORDS} words")
    })?;
    Ok(GmpParams {
        gomaxprocs: workers,
        threads,
        cpus: machine_cpus(),
        workload: shape.workload(),
        goroutines: tasks,
        work_ns: 1,
        yields,
        ring,
        variant: if rt == Runtime::Herdlab2012 {
            GmpVariant::SingleQueue
        } else {
            GmpVariant::Correct
        },
        seed: 1,
        ..GmpParams::default()
    })
}

/// The bench's runtime-neutral shim: what the shapes' code needs of a runtime (spawn, yield);
/// their oneshot channels are tokio's, which work on any executor (a waker and an atomic).
pub trait Spawner: Copy + Send + Sync + 'static {
    /// Spawn a task (from inside a task of this runtime).
    fn spawn(self, f: impl Future<Output = ()> + Send + 'static);
    /// Yield once (tokio: `yield_now`, deferred behind the worker's queue; herdlab: `goyield`,
    /// the tail of its P's ring).
    fn yield_now(self) -> impl Future<Output = ()> + Send;
    /// `runtime.Gosched` (herdlab: the global queue, then `wakep`; tokio has no other yield than
    /// `yield_now`).
    fn gosched(self) -> impl Future<Output = ()> + Send;
    /// Block this thread in the kernel for `ns` (herdlab: the table's blocking syscall, during
    /// which sysmon may hand the P to another M; tokio: the worker thread sleeps, and the tasks
    /// queued on it wait).
    fn block_thread(self, ns: u64) -> impl Future<Output = ()> + Send;
}

/// tokio's spawn and yield.
#[derive(Clone, Copy, Debug)]
pub struct OnTokio;

impl Spawner for OnTokio {
    fn spawn(self, f: impl Future<Output = ()> + Send + 'static) {
        tokio::spawn(f);
    }
    fn yield_now(self) -> impl Future<Output = ()> + Send {
        tokio::task::yield_now()
    }
    fn gosched(self) -> impl Future<Output = ()> + Send {
        tokio::task::yield_now()
    }
    async fn block_thread(self, ns: u64) {
        std::thread::sleep(std::time::Duration::from_nanos(ns))
    }
}

/// herdlab's ([`task::spawn`], [`task::yield_now`], [`task::gosched`]).
#[derive(Clone, Copy, Debug)]
pub struct OnHerdlab;

impl Spawner for OnHerdlab {
    fn spawn(self, f: impl Future<Output = ()> + Send + 'static) {
        task::spawn(f);
    }
    fn yield_now(self) -> impl Future<Output = ()> + Send {
        task::yield_now()
    }
    fn gosched(self) -> impl Future<Output = ()> + Send {
        task::gosched()
    }
    fn block_thread(self, ns: u64) -> impl Future<Output = ()> + Send {
        task::syscall_sleep(ns)
    }
}

/// What the tasks of one run share: the clock, the count of bodies run and left.
pub struct Shared {
    epoch: Instant,
    start: AtomicU64,
    end: AtomicU64,
    /// `spawn_many_task`'s `main` after its last spawn ([`calibrate`]; on herdlab the spawns
    /// are acts of its poll, which the M's table carries out after the poll).
    spawned: AtomicU64,
    /// The second body's stamp (in `spawn_many_task`, the first G after `main`: [`calibrate`]).
    second: AtomicU64,
    ran: AtomicU32,
    left: AtomicU32,
    tasks: u32,
    yields: u32,
    /// The yields are `Gosched` (`gosched_many`).
    gosched: bool,
    work_ns: u64,
    done: tokio::sync::Notify,
}

impl Shared {
    /// A run of `tasks` tasks (main included), each yielding `yields` times (`yield_many`) and
    /// working `work_ns`.
    pub fn new(tasks: u32, yields: u32, work_ns: u64) -> Arc<Self> {
        Self::make(tasks, yields, false, work_ns)
    }
    fn make(tasks: u32, yields: u32, gosched: bool, work_ns: u64) -> Arc<Self> {
        Arc::new(Shared {
            epoch: Instant::now(),
            start: AtomicU64::new(0),
            end: AtomicU64::new(0),
            spawned: AtomicU64::new(0),
            second: AtomicU64::new(0),
            ran: AtomicU32::new(0),
            left: AtomicU32::new(tasks),
            tasks,
            yields,
            gosched,
            work_ns,
            done: tokio::sync::Notify::new(),
        })
    }
    /// A run of `shape`: its yields only if it yields, `Gosched`'s in `gosched_many`.
    pub fn for_shape(shape: Shape, tasks: u32, yields: u32, work_ns: u64) -> Arc<Self> {
        let yields = if shape.yields() { yields } else { 0 };
        Self::make(tasks, yields, shape == Shape::GoschedMany, work_ns)
    }
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
    fn stamp_start(&self) {
        self.start.store(self.now().max(1), SeqCst);
    }
    /// A task's body: work, count, and the last one stamps the end (the second one stamps
    /// `second`).
    fn body(&self) {
        spin_for(self.work_ns);
        if self.ran.fetch_add(1, SeqCst) == 1 {
            self.second.store(self.now(), SeqCst);
        }
        if self.left.fetch_sub(1, SeqCst) == 1 {
            self.end.store(self.now(), SeqCst);
            self.done.notify_one();
        }
    }
    /// The bodies run (each task's exactly once: `tasks`).
    pub fn ran(&self) -> u32 {
        self.ran.load(SeqCst)
    }
    /// From the first start stamp to the last body, ns (at least 1).
    fn elapsed(&self) -> u64 {
        self.end
            .load(SeqCst)
            .saturating_sub(self.start.load(SeqCst))
            .max(1)
    }
}

/// `chained_spawn`: task `k` works and spawns task `k + 1`.
fn link<S: Spawner>(sp: S, s: Arc<Shared>, k: u32) {
    sp.spawn(async move {
        s.body();
        if k < s.tasks {
            link(sp, s, k + 1);
        }
    });
}

/// One pair of `ping_pong`: spawn the partner, send it a token, wait for one back.
async fn pair<S: Spawner>(sp: S, s: Arc<Shared>) {
    let (tx1, rx1) = tokio::sync::oneshot::channel::<()>();
    let (tx2, rx2) = tokio::sync::oneshot::channel::<()>();
    let partner = s.clone();
    sp.spawn(async move {
        let got = rx1.await.is_ok();
        let sent = tx2.send(()).is_ok();
        if got && sent {
            partner.body();
        }
    });
    // each task's body last: the last body stamps the end
    if tx1.send(()).is_ok() && rx2.await.is_ok() {
        s.body();
    }
}

/// The shapes' code, the same on every runtime: `main` of a shape that starts from a task
/// (`spawn_many_task`, `ping_pong`, `chained_spawn`).
pub async fn main_task<S: Spawner>(sp: S, shape: Shape, s: Arc<Shared>) {
    s.stamp_start();
    match shape {
        Shape::PingPong => {
            for _ in 0..s.tasks.saturating_sub(1) / 2 {
                sp.spawn(pair(sp, s.clone()));
            }
            s.body();
        }
        Shape::ChainedSpawn => {
            s.body();
            if s.tasks > 1 {
                link(sp, s.clone(), 2);
            }
        }
        // spawn_many_task (and the outside shapes, were they started from a task)
        _ => {
            for _ in 1..s.tasks {
                let t = s.clone();
                sp.spawn(async move { t.body() });
            }
            s.spawned.store(s.now(), SeqCst);
            s.body();
        }
    }
}

/// The shapes' code: one task of a shape spawned from outside (`spawn_many`: work and exit;
/// `yield_many` and `gosched_many`: yield `yields` times, then work).
pub async fn outside_task<S: Spawner>(sp: S, s: Arc<Shared>) {
    for _ in 0..s.yields {
        if s.gosched {
            sp.gosched().await;
        } else {
            sp.yield_now().await;
        }
    }
    s.body();
}

/// One tokio run: the time from the first task's start (or, spawning from outside, the first
/// spawn) to the last task's end, ns. `tasks` and `yields` as [`Shape::size`] gives them.
pub fn run_tokio(
    rt: &tokio::runtime::Runtime,
    shape: Shape,
    tasks: u32,
    yields: u32,
    work_ns: u64,
) -> Result<u64, String> {
    let s = Shared::for_shape(shape, tasks, yields, work_ns);
    if shape.yields() {
        // spawned from this thread (not a worker): through tokio's inject queue
        s.stamp_start();
        for _ in 0..tasks {
            rt.spawn(outside_task(OnTokio, s.clone()));
        }
    }
    let s2 = s.clone();
    rt.block_on(async move {
        match shape {
            Shape::SpawnMany => {
                // from the block_on thread: every spawn goes through the inject queue
                s2.stamp_start();
                for _ in 0..s2.tasks {
                    tokio::spawn(outside_task(OnTokio, s2.clone()));
                }
            }
            Shape::YieldMany | Shape::GoschedMany => {}
            _ => {
                tokio::spawn(main_task(OnTokio, shape, s2.clone()));
            }
        }
        s2.done.notified().await;
    });
    let ran = s.ran();
    if ran != tasks {
        return Err(format!("tokio: {ran} of {tasks} tasks ran"));
    }
    Ok(s.elapsed())
}

/// One herdlab run of `shape` on the scenario `p` (its Ps, Ms and variant: [`params`]): the same
/// shape code as tokio's ([`main_task`], [`outside_task`]) as Rust futures on core's table
/// ([`native::run_tasks`]); `spawn_many`, `yield_many` and `gosched_many` from core's spawner
/// outside every P. Every task must run exactly once.
pub fn run_herdlab(p: &GmpParams, shape: Shape, work_ns: u64) -> Result<GmpRun, NativeError> {
    run_herdlab_shared(p, shape, work_ns).map(|(r, _)| r)
}

/// [`run_herdlab`], with what the run's tasks shared (its stamps).
fn run_herdlab_shared(
    p: &GmpParams,
    shape: Shape,
    work_ns: u64,
) -> Result<(GmpRun, Arc<Shared>), NativeError> {
    let tasks = p.goroutines;
    let s = Shared::for_shape(shape, tasks, p.yields, work_ns);
    let gs = Tasks::new(tasks);
    if shape.external() {
        for _ in 0..tasks {
            gs.root(outside_task(OnHerdlab, s.clone()));
        }
    } else {
        gs.root(main_task(OnHerdlab, shape, s.clone()));
    }
    let r = native::run_tasks(p, &gs)?;
    let ran = s.ran();
    if ran != tasks {
        return Err(NativeError::new(format!(
            "herdlab: {ran} of {tasks} tasks ran"
        )));
    }
    Ok((r, s))
}

/// tokio's multi-thread runtime of `workers` worker threads. Its builder spawns them and panics
/// inside tokio when one cannot start, and the half-built runtime then never unwinds (its
/// blocking pool waits for the workers that did start). So first a probe of as many threads that
/// all exist at once, which names the limit as the other rivals do; then the builder, for a limit
/// reached between the two (another program of this user starting threads), under a panic hook
/// that says so and ends the process with status 1.
fn start_tokio(workers: u32) -> Result<tokio::runtime::Runtime, String> {
    let limit = |what: String| NativeError::new(what).to_string();
    if let Err((i, e)) = probe_threads(workers) {
        return Err(limit(format!(
            "cannot start tokio's worker thread {i} of {workers}: {e}"
        )));
    }
    exit_on_panic(
        &format!("bench gmp: cannot start tokio's {workers} worker threads"),
        || {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers as usize)
                .build()
        },
    )
    .map_err(|e| limit(format!("cannot start tokio's runtime: {e}")))
}

struct Cell {
    rt: Runtime,
    shape: Shape,
    workers: u32,
    params: Option<GmpParams>,
    times: Vec<u64>,
    steals: Vec<u64>,
    parks: Vec<u64>,
    spins: Vec<u64>,
    gets: Vec<u64>,
}

/// Run the bench (`progress`: a line per round on stderr).
pub fn run_bench(c: &GmpBenchConfig, progress: bool) -> Result<Vec<GmpRow>, String> {
    // measured before the rounds, on a machine the rows do not yet load
    let given = CostModel {
        coherence_miss_ns: c.coherence_miss_ns,
        atomic_ns: c.atomic_ns.unwrap_or(CostModel::default().atomic_ns),
        ..CostModel::default()
    };
    let calibration = if c.compare_sim && (c.g_code_ns.is_none() || c.poll_ns.is_none()) {
        Some(calibrate(given)?)
    } else {
        None
    };
    let measured = |given: Option<u64>, of: fn(&Calibration) -> u64| match (given, calibration) {
        (None, Some(cal)) => Measured {
            ns: of(&cal),
            measured: true,
        },
        (g, _) => Measured {
            ns: g.unwrap_or(0),
            measured: false,
        },
    };
    let g = GCost {
        code: measured(c.g_code_ns, Calibration::g_code_ns),
        poll: measured(c.poll_ns, Calibration::poll_ns),
    };
    let base = given;
    // a wake onto an idle CPU: measured before the rounds and after each, as a virtual
    // machine's can change within a run (the host's halt polling: 2 to 24 µs on the 2-vCPU guest)
    // (and what it costs the waker, from the same wakes)
    let measure_wake = c.compare_sim && (c.wake_ns.is_none() || c.wake_ipi_ns.is_none());
    let mut wakes = Vec::new();
    let wake_sample = |wakes: &mut Vec<IdleWake>| -> Result<(), String> {
        if measure_wake {
            if let Some(w) = idle_cpu_wake().map_err(|e| e.to_string())? {
                wakes.push(w);
            }
        }
        Ok(())
    };
    wake_sample(&mut wakes)?;
    // what Go's usleep(3) before stealing a runnext really takes here (timer slack and all)
    let runnext_sleep = if c.compare_sim {
        Some(
            crate::platform::sleep_median_ns(RUNNEXT_STEAL_SLEEP_NS, 51)
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };
    let mut cells = Vec::new();
    for &w in &c.workers {
        for &shape in &c.shapes {
            for &rt in &c.runtimes {
                let params = match rt {
                    Runtime::Tokio => None,
                    _ => Some(params(rt, shape, w, c.shrink)?),
                };
                cells.push(Cell {
                    rt,
                    shape,
                    workers: w,
                    params,
                    times: Vec::new(),
                    steals: Vec::new(),
                    parks: Vec::new(),
                    spins: Vec::new(),
                    gets: Vec::new(),
                });
            }
        }
    }
    let mut runtimes = Vec::new();
    for &w in &c.workers {
        if !c.runtimes.contains(&Runtime::Tokio) {
            break;
        }
        runtimes.push((w, start_tokio(w)?));
    }
    let n = cells.len();
    for round in 0..c.rounds as usize {
        for k in 0..n {
            let cell = &mut cells[(k + round) % n];
            match cell.params {
                None => {
                    let rt = &runtimes
                        .iter()
                        .find(|(w, _)| *w == cell.workers)
                        .expect("a runtime per worker count")
                        .1;
                    let (tasks, yields) = cell.shape.size(c.shrink);
                    cell.times
                        .push(run_tokio(rt, cell.shape, tasks, yields, c.work_ns)?);
                }
                Some(p) => {
                    let r = run_herdlab(&p, cell.shape, c.work_ns)
                        .map_err(|e| format!("{} {}: {e}", cell.rt.name(), cell.shape.name()))?;
                    cell.times.push(r.wall_ns);
                    cell.steals.push(r.counts.steals);
                    cell.parks.push(r.counts.parks);
                    cell.spins.push(r.counts.spins);
                    cell.gets.push(r.counts.global_queue_gets);
                    crate::trace::run_done(
                        &format!(
                            "{} {} workers={} round {}",
                            cell.rt.name(),
                            cell.shape.name(),
                            cell.workers,
                            round + 1
                        ),
                        &format!(
                            "mechanism=gmp&{}",
                            <super::Gmp as herdlab_core::mechanism::Mechanism>::to_query(&p)
                        ),
                    );
                }
            }
        }
        wake_sample(&mut wakes)?;
        // what an interrupt prints: the rows over the rounds done so far
        #[cfg(unix)]
        crate::platform::interrupt::replace_measured(&summarize(&cells, c, round as u32 + 1));
        if progress {
            eprint!(
                "{}",
                progress_line(round + 1, c.rounds as usize, "rounds of every cell")
            );
        }
    }
    if progress {
        eprintln!();
    }
    let mut rows = summarize(&cells, c, c.rounds);
    // the flag's figure; else the samples' median; else (one CPU: no idle CPU to wake onto, or
    // not asked) the model's own
    let pick = |given: Option<u64>, of: fn(&IdleWake) -> u64, model: u64| match given {
        Some(ns) => Measured {
            ns,
            measured: false,
        },
        None if wakes.is_empty() => Measured {
            ns: model,
            measured: false,
        },
        None => Measured {
            ns: median(wakes.iter().map(of).collect()),
            measured: true,
        },
    };
    let plain = CostModel::default();
    let wake = pick(c.wake_ns, |w| w.latency_ns, plain.idle_wake_ns());
    let ipi = pick(c.wake_ipi_ns, |w| w.waker_ns, plain.wake_ipi_ns);
    // the Ms' timer slack: they inherit this thread's
    let slack = match (c.timer_slack_ns, crate::platform::timer_slack_ns()) {
        (Some(ns), _) => Measured {
            ns,
            measured: false,
        },
        (None, Some(ns)) if c.compare_sim => Measured { ns, measured: true },
        _ => Measured {
            ns: plain.timer_slack_ns,
            measured: false,
        },
    };
    let base = CostModel {
        wake_ipi_ns: ipi.ns,
        timer_slack_ns: slack.ns,
        ..base
    };
    if c.compare_sim {
        for (row, cell) in rows.iter_mut().zip(&cells) {
            if let Some(p) = cell.params {
                let figures = sim_figures(&p, c.work_ns, g, wake, base, &cell.steals, &cell.parks)
                    .map_err(|e| {
                        format!(
                            "--compare-sim {} {}: {e}",
                            cell.rt.name(),
                            cell.shape.name()
                        )
                    })?;
                row.sim = Some(SimFigures {
                    calibration,
                    wake_ipi_measured: ipi.measured,
                    timer_slack_measured: slack.measured,
                    runnext_sleep_native_ns: runnext_sleep,
                    ..figures
                });
            }
        }
    }
    #[cfg(unix)]
    crate::platform::interrupt::replace_measured(&rows);
    Ok(rows)
}

/// The rows of `cells` after `rounds` rounds (without the simulator's figures).
fn summarize(cells: &[Cell], c: &GmpBenchConfig, rounds: u32) -> Vec<GmpRow> {
    let mut rows: Vec<GmpRow> = cells
        .iter()
        .map(|cell| {
            let mut t = cell.times.clone();
            t.sort_unstable();
            let herd = cell.params.is_some();
            let med = |v: &[u64]| herd.then(|| median(v.to_vec()));
            let (steals, parks) = (med(&cell.steals), med(&cell.parks));
            let (tasks, yields) = cell.shape.size(c.shrink);
            GmpRow {
                runtime: cell.rt.name(),
                shape: cell.shape.name(),
                workers: cell.workers,
                tasks,
                yields,
                work_ns: c.work_ns,
                ring: cell.params.map(|p| p.ring),
                rounds,
                median_ns: percentile(&t, 0.5),
                p10_ns: percentile(&t, 0.1),
                p90_ns: percentile(&t, 0.9),
                x_tokio: None,
                x_herdlab: None,
                steals,
                parks,
                spins: med(&cell.spins),
                global_queue_gets: med(&cell.gets),
                sim: None,
            }
        })
        .collect();
    with_factors(&mut rows);
    rows
}

/// Fill each row's `x_tokio` and each `herdlab-2012` row's `x_herdlab`: its median over the
/// other runtime's on the same shape and workers (three decimals).
pub fn with_factors(rows: &mut [GmpRow]) {
    let median_of = |rows: &[GmpRow], rt: &str, r: &GmpRow| {
        rows.iter()
            .find(|o| o.runtime == rt && o.shape == r.shape && o.workers == r.workers)
            .map(|o| o.median_ns)
    };
    let over = |n: u64, d: u64| (n as f64 / d.max(1) as f64 * 1_000.0).round() / 1_000.0;
    for i in 0..rows.len() {
        let r = &rows[i];
        let x_tokio = median_of(rows, "tokio", r).map(|d| over(r.median_ns, d));
        let x_herdlab = (r.runtime == Runtime::Herdlab2012.name())
            .then(|| median_of(rows, Runtime::Herdlab.name(), r))
            .flatten()
            .map(|d| over(r.median_ns, d));
        rows[i].x_tokio = x_tokio;
        rows[i].x_herdlab = x_herdlab;
    }
}

/// The rows as text, with each herdlab row's factor over tokio's on the same shape and workers.
pub fn render(rows: &[GmpRow]) -> String {
    let opt = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |n| n.to_string());
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let factor = r
                .x_tokio
                .map_or_else(|| "-".to_string(), |x| format!("{x:.2}"));
            vec![
                r.runtime.to_string(),
                r.shape.to_string(),
                r.workers.to_string(),
                r.tasks.to_string(),
                r.yields.to_string(),
                opt(r.ring.map(u64::from)),
                r.median_ns.to_string(),
                r.p10_ns.to_string(),
                r.p90_ns.to_string(),
                factor,
                opt(r.steals),
                opt(r.parks),
                opt(r.spins),
                opt(r.global_queue_gets),
            ]
        })
        .collect();
    let head = [
        "runtime",
        "shape",
        "workers",
        "tasks",
        "yields",
        "ring",
        "median_ns",
        "p10_ns",
        "p90_ns",
        "x_tokio",
        "steals",
        "parks",
        "spins",
        "gq_gets",
    ];
    let line = table_lines(&head, &cells);
    let mut out = line(&head.map(String::from));
    for c in &cells {
        out.push_str(&line(c));
    }
    out.push_str(&factor_2012(rows));
    if let Some(s) = rows.iter().find_map(|r| r.sim.as_ref()) {
        out.push_str(&format!(
            "simulator: each G's work {} ns (a G beyond its table steps {} ns, {}, plus --work-ns), each resumption after a yield {} ns of work ({}), an atomic read-modify-write {} ns ({}){}, a wake onto an idle CPU {} ns ({}) costing its waker {} ns ({}), a timed sleep ending {} ns late ({}: timer slack; Go's usleep(3) before stealing a runnext {} µs simulated, {} µs here), sched.lock spinning as Go's lock2, coherence miss {}\n",
            s.sim_work_ns,
            s.g_code_ns,
            if s.g_code_measured {
                "measured here"
            } else {
                "from --g-code-ns"
            },
            rows.iter()
                .filter_map(|r| r.sim.as_ref())
                .map(|s| s.poll_ns)
                .max()
                .unwrap_or(0),
            match &s.calibration {
                Some(_) if rows.iter().any(|r| r.sim.as_ref().is_some_and(|s| s.poll_measured)) => "measured here",
                _ => "from --poll-ns, or no yield shape",
            },
            s.atomic_ns,
            if s.atomic_ns == CostModel::default().atomic_ns {
                "the model's own"
            } else {
                "from --atomic-ns"
            },
            match &s.calibration {
                Some(c) => format!(
                    "; calibrated on a one-P fan-out of {} Gs: a G's run {} ns native vs {} ns of table steps simulated, a newproc {} ns native vs {} ns simulated (equal with atomics at {} ns: --atomic-ns), after {} ns a G of spawning code natively; and on a one-P yield_many: a yield {} ns native vs {} ns simulated",
                    c.goroutines, c.g_run_native_ns, c.g_run_sim_ns, c.newproc_native_ns, c.newproc_sim_ns, c.atomic_fit_ns, c.go_code_native_ns, c.yield_native_ns, c.yield_sim_ns
                ),
                None => String::new(),
            },
            s.wake_ns,
            if s.wake_measured {
                "measured on this machine"
            } else {
                "given"
            },
            s.wake_ipi_ns,
            if s.wake_ipi_measured {
                "measured on this machine"
            } else {
                "given"
            },
            s.timer_slack_ns,
            if s.timer_slack_measured {
                "this machine's"
            } else {
                "given"
            },
            s.runnext_sleep_sim_ns / 1_000,
            s.runnext_sleep_native_ns
                .map_or_else(|| "-".to_string(), |ns| (ns / 1_000).to_string()),
            if s.coherence_miss_ns == 0 {
                "off".to_string()
            } else {
                format!("{} ns", s.coherence_miss_ns)
            },
        ));
    }
    for r in rows {
        if let Some(s) = &r.sim {
            out.push_str(&format!(
                "simulator ({} seeds) vs native ({} run{}), {} {} workers {}: steals/1k {:.1} vs {:.1} ({} vs {} events, median run {} vs {}): {}; parks/1k {:.1} vs {:.1} ({} vs {} events, median run {} vs {}): {}\n",
                s.seeds,
                s.native_runs,
                if s.native_runs == 1 { "" } else { "s" },
                r.runtime,
                r.shape,
                r.workers,
                s.sim_steals_per_1k_pooled,
                s.native_steals_per_1k_pooled,
                s.sim_steals_total,
                s.native_steals_total,
                s.sim_steals_median_run,
                s.native_steals_median_run,
                verdict_text(s.steals_verdict, s.steals_ratio),
                s.sim_parks_per_1k_pooled,
                s.native_parks_per_1k_pooled,
                s.sim_parks_total,
                s.native_parks_total,
                s.sim_parks_median_run,
                s.native_parks_median_run,
                verdict_text(s.parks_verdict, s.parks_ratio),
            ));
        }
    }
    out
}

/// The 2012 design's factor by shape as workers grow: one line per shape with a `herdlab-2012`
/// row beside a `herdlab` row (empty without any).
fn factor_2012(rows: &[GmpRow]) -> String {
    let mut out = String::new();
    let mut shapes: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.x_herdlab.is_some()) {
        if !shapes.contains(&r.shape) {
            shapes.push(r.shape);
        }
    }
    for shape in shapes {
        let mut at: Vec<(u32, f64)> = rows
            .iter()
            .filter(|r| r.shape == shape)
            .filter_map(|r| r.x_herdlab.map(|x| (r.workers, x)))
            .collect();
        at.sort_by_key(|&(w, _)| w);
        let list: Vec<String> = at
            .iter()
            .map(|&(w, x)| format!("{x:.2}x at {w} worker{}", if w == 1 { "" } else { "s" }))
            .collect();
        out.push_str(&format!(
            "herdlab-2012 / herdlab (Go 1.0's one queue over today's), {shape}: {}\n",
            list.join(", ")
        ));
    }
    out
}

/// A figure's verdict as the text line says it.
fn verdict_text(verdict: &str, ratio: Option<f64>) -> String {
    match ratio {
        _ if verdict == "too few events" => {
            format!("too few events to compare (n<{MIN_EVENTS} on both sides)")
        }
        Some(x) => format!("{verdict} (sim/native {x:.2})"),
        None => format!("{verdict} (none natively)"),
    }
}

const ABOUT: &str = "\
Run core's G/M/P table (the straight-line form of its Sched table) on real threads:
each M an OS thread, the Ps' rings, runnext, idle masks and nmspinning real atomics
in Go's layout and orderings, sched.lock Go's futex lock, parked Ms on their futex
words, each task a Rust future polled by the M that runs its goroutine (runtime
herdlab); the same table as Go 1.0's one global queue (herdlab-2012); and tokio's
multi-thread runtime with the same worker count (tokio), all running the same async
shape code. Shapes, tokio's rt_multi_threaded benches at their
sizes (divided by --shrink): spawn_many (10,000 tasks spawned from outside the
workers: tokio's block_on thread, herdlab's spawner outside every P), spawn_many_task
(one task spawns 9,999 from a worker), yield_many (200 tasks spawned from outside,
1,000 yields each, a task waking itself: tokio's yield_now behind the worker's local
queue, herdlab's goyield to the tail of its P's ring), gosched_many (the same with Go's
Gosched on herdlab: the global queue under sched.lock, then wakep; tokio's yield_now
again), ping_pong (1,000 pairs, one token there and back over oneshot
channels: on herdlab gopark and goready) and chained_spawn (each of 1,000 tasks spawns the next). Rounds
rotate the cells; rows give the median and p10/p90 over rounds, herdlab's steals,
parks, spins and global-queue takes (median per run), and each row's factor over tokio
(x_tokio); a line per shape below the rows gives herdlab-2012 over herdlab at each worker
count (x_herdlab in --json). --compare-sim adds the simulator's steals and parks per 1,000 tasks for
each herdlab row's scenario: summed over seeds 1-8 of the simulator and every native round,
beside each side's median run, with a verdict per figure (within 25%, differs, too few events to compare when neither
side counted 64, or one run dominates when a single run holds more than half of a side's).
The simulator runs sched.lock as Go's lock2 (spin, yield, sleep), as the native runtime does,
each simulated goroutine's work includes what a goroutine costs here beyond the simulator's
charge for the scheduler's steps (a one-P fan-out timed here and simulated before the rounds,
the difference of their runs per goroutine; --g-code-ns sets it), and a simulated
wake onto an idle CPU takes what one takes here (measured before the rounds and after each;
--wake-ns) and costs its waker what it costs here (the IPI, from the same wakes;
--wake-ipi-ns), and a timed sleep (Go's usleep(3) before it steals a runnext) ends as
late as this machine's timer slack lets it (--timer-slack-ns). Every run checks that each
task ran exactly once.
Defaults: workers 1, 2 and the cores (at most 16), tokio's sizes, 0 ns of work, 31 rounds;
--quick: workers 1 and 2, 5 rounds. --blocking runs the thread-blocking shape instead (16
tasks, one async code on both runtimes; main and every even task sleep 1 ms in the kernel, then
each computes 100 us): herdlab (a sleep is the table's blocking syscall: sysmon retakes the
sleeper's P and hands it to a parked M), herdlab-no-retake (the same table,
variant no-syscall-retake) and tokio (a blocked worker blocks its queue), with rows of runtime,
shape, workers, median_ns, p10_ns, p90_ns and herdlab's retakes and handoffs. --locked runs
what runtime.LockOSThread costs instead (9 tasks, each computing 1 us and calling
Gosched 200 times): herdlab (none locked) and herdlab-locked (one locked: every return of it
needs its own M, startlockedm and stoplockedm), with rows of runtime, shape, workers, locked,
median_ns, p10_ns, p90_ns, locked_handoffs, lockedm_parks, handoffs, futex_wakes and parks;
each run checks the locked goroutine ran only on its own thread. --netpoll runs the network
shape instead (64 tasks, each 3 requests answered after 200 us, 20 us of work before each; the reads as futures on the netpoller):
herdlab (each read parks on the netpoller; a peer thread per task sleeps the delay in the
kernel and wakes the poller) and tokio (its timer), with herdlab's netpoll_polls,
netpoll_parks, netpoll_blocks and netpoll_breaks. Give at most one of --blocking, --locked
and --netpoll.";

/// `herdlab bench gmp`.
pub fn command() -> clap::Command {
    subcommand(
        "gmp",
        "Run core's G/M/P table on real threads beside the Go 1.0 variant and tokio",
        ABOUT,
        "herdlab bench gmp --quick --workers 2 --json",
        [
            switch("quick", "small: workers 1 and 2, 5 rounds"),
            cli::json(),
            list(
                "workers",
                "worker counts, comma-separated (default 1, 2 and the cores)",
                format!("a comma-separated list of counts, each 1-{MAX_WORKERS}"),
                |s| {
                    s.parse::<u32>()
                        .ok()
                        .filter(|n| (1..=MAX_WORKERS).contains(n))
                },
            ),
            list(
                "runtimes",
                "the runtimes, comma-separated (default all)",
                "a comma-separated list of herdlab, herdlab-2012, tokio".to_string(),
                Runtime::from_name,
            ),
            list(
                "shapes",
                "the shapes, comma-separated (default all)",
                "a comma-separated list of spawn_many, spawn_many_task, yield_many, gosched_many, ping_pong, chained_spawn".to_string(),
                Shape::from_name,
            ),
            ranged(
                "shrink",
                "divide tokio's sizes by this (default 1: 10,000 spawns, 200 x 1,000 yields, 1,000 pairs, 1,000 links)",
                1,
                100,
            ),
            ranged(
                "work-ns",
                "each task's busy work, ns (default 0)",
                0,
                100_000,
            ),
            ranged("rounds", "rounds (default 31; --quick 5)", 1, MAX_ROUNDS),
            switch(
                "compare-sim",
                "add the simulator's steals and parks (per 1,000 tasks) beside each herdlab row",
            ),
            ranged(
                "coherence-miss-ns",
                "--compare-sim: the simulator's cost of a cache line moved between CPUs, ns (default 0: off; 50 is a typical server's)",
                0,
                10_000,
            ),
            ranged(
                "wake-ns",
                "--compare-sim: how long a thread asleep on a futex takes to run once woken onto an idle CPU, ns, for the simulator (default: measured on this machine before the rounds)",
                1,
                1_000_000,
            ),
            ranged(
                "wake-ipi-ns",
                "--compare-sim: what a futex wake costs the waker for each thread it wakes onto an idle CPU (the IPI), ns, for the simulator (default: measured on this machine with --wake-ns's wakes; 0: off)",
                0,
                1_000_000,
            ),
            ranged(
                "timer-slack-ns",
                "--compare-sim: how late a timed sleep ends (Linux's timer slack), ns, for the simulator (default: this machine's, prctl(PR_GET_TIMERSLACK), 50000 unless set; 0: at its deadline)",
                0,
                10_000_000,
            ),
            ranged(
                "g-code-ns",
                "--compare-sim: what one G costs beyond the simulator's charge for the scheduler's steps, ns, added to each simulated G's work (default: measured on this machine before the rounds, from a one-P fan-out timed here and simulated; 0: off)",
                0,
                100_000,
            ),
            ranged(
                "poll-ns",
                "--compare-sim: what a task's poll after a yield costs beyond the simulator's charge for the scheduler's steps, ns, worked by each simulated G of yield_many and gosched_many when it resumes (default: measured on this machine before the rounds, from a one-P yield_many timed here and simulated; 0: off)",
                0,
                100_000,
            ),
            ranged(
                "atomic-ns",
                "--compare-sim: the simulator's atomic read-modify-write, ns (default: the model's own, 15; the calibration reports as atomic_fit_ns the cost at which a simulated newproc costs what a native one does here)",
                1,
                1_000,
            ),
            switch(
                "blocking",
                "the thread-blocking shape instead: 16 tasks, 9 of them sleeping 1 ms in the kernel (herdlab, herdlab-no-retake, tokio)",
            ),
            switch(
                "locked",
                "LockOSThread's cost instead: 9 goroutines yielding 200 times, none or one of them locked to its thread (herdlab, herdlab-locked)",
            ),
            switch(
                "netpoll",
                "the network shape instead: 64 tasks, each 3 requests answered after 200 us (herdlab's netpoller, tokio's timer)",
            ),
        ],
    )
}

/// Parse `bench gmp`'s flags.
pub fn config(m: &ArgMatches) -> Result<GmpBenchConfig, CliError> {
    let mut c = GmpBenchConfig::new(cli::on(m, "quick"));
    if let Some(w) = cli::value::<Vec<u32>>(m, "workers") {
        c.workers = w;
    }
    if let Some(r) = cli::value::<Vec<Runtime>>(m, "runtimes") {
        c.runtimes = r;
    }
    if let Some(s) = cli::value::<Vec<Shape>>(m, "shapes") {
        c.shapes = s;
    }
    if let Some(n) = cli::value::<u64>(m, "shrink") {
        c.shrink = n as u32;
    }
    if let Some(n) = cli::value::<u64>(m, "work-ns") {
        c.work_ns = n;
    }
    if let Some(n) = cli::value::<u64>(m, "rounds") {
        c.rounds = n as u32;
    }
    c.compare_sim = cli::on(m, "compare-sim");
    if let Some(n) = cli::value::<u64>(m, "coherence-miss-ns") {
        c.coherence_miss_ns = n;
    }
    c.g_code_ns = cli::value::<u64>(m, "g-code-ns");
    c.poll_ns = cli::value::<u64>(m, "poll-ns");
    c.atomic_ns = cli::value::<u64>(m, "atomic-ns");
    c.wake_ns = cli::value::<u64>(m, "wake-ns");
    c.wake_ipi_ns = cli::value::<u64>(m, "wake-ipi-ns");
    c.timer_slack_ns = cli::value::<u64>(m, "timer-slack-ns");
    c.workers.dedup();
    for &w in &c.workers {
        for &s in &c.shapes {
            if let Err(e) = params(Runtime::Herdlab, s, w, c.shrink) {
                return cli::err(format!("--shrink: {e}; shrink more or use fewer workers"));
            }
        }
    }
    Ok(c)
}

/// Run `bench gmp`.
pub fn run(m: &ArgMatches) -> Result<ExitCode, CliError> {
    let c = config(m)?;
    let json = cli::on(m, "json");
    let shapes: Vec<&str> = ["blocking", "locked", "netpoll"]
        .into_iter()
        .filter(|f| cli::on(m, f))
        .collect();
    if shapes.len() > 1 {
        return cli::err(format!(
            "--{} are separate shapes (allowed: one of --blocking, --locked, --netpoll); give one",
            shapes.join(" and --")
        ));
    }
    if cli::on(m, "blocking") {
        return Ok(match super::blocking::run(&c.workers, c.rounds) {
            Ok(rows) if json => print_json(&rows, true),
            Ok(rows) => {
                print!("{}", super::blocking::render(&rows));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("herdlab: bench gmp --blocking: {e}");
                ExitCode::FAILURE
            }
        });
    }
    if cli::on(m, "locked") {
        return Ok(match super::locked::run(&c.workers, c.rounds) {
            Ok(rows) if json => print_json(&rows, true),
            Ok(rows) => {
                print!("{}", super::locked::render(&rows));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("herdlab: bench gmp --locked: {e}");
                ExitCode::FAILURE
            }
        });
    }
    if cli::on(m, "netpoll") {
        return Ok(match super::netpoll::run(&c.workers, c.rounds) {
            Ok(rows) if json => print_json(&rows, true),
            Ok(rows) => {
                print!("{}", super::netpoll::render(&rows));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("herdlab: bench gmp --netpoll: {e}");
                ExitCode::FAILURE
            }
        });
    }
    // the progress bar on stderr, with --json too (as the other benchmarks)
    Ok(match run_bench(&c, true) {
        Ok(rows) => {
            if json {
                print_json(&rows, true)
            } else {
                print!("{}", render(&rows));
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("herdlab: bench gmp: {e}");
            ExitCode::FAILURE
        }
    })
}
