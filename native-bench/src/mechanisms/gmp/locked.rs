//! `herdlab bench gmp --locked`: what `runtime.LockOSThread` costs on core's table run on real
//! threads. 9 goroutines, Rust futures (`shape`): main spawns 8; each computes 1 µs and calls
//! `runtime.Gosched` ([`task::gosched`]) 200 times (to the global queue), computes once more and
//! exits. In the `herdlab-locked` rows the first of them calls `LockOSThread`
//! ([`task::lock_os_thread`]) first, so each of its 200 returns needs its own M: that M parks in
//! `stoplockedm` after every `Gosched` (handing its P off), and the M that later picks the G from
//! the global queue hands its P to it (`startlockedm`) and parks itself. `herdlab` is the same
//! code with no G locked. Every run checks that each goroutine ran to its end once per return,
//! and that the locked one ran only on its own thread (`native::run_tasks`).

use serde::Serialize;

use herdlab_core::mechanisms::gmp::{GmpParams, GmpVariant, Workload};

use super::native;
use super::task::{self, Tasks};
use crate::output::titled_table;
use crate::platform::mem::spin_for;

/// Goroutines per run, main included.
pub const TASKS: u32 = 9;
/// Each goroutine's `Gosched` calls.
pub const YIELDS: u32 = 200;
/// Each goroutine's computation between two yields, ns.
pub const WORK_NS: u64 = 1_000;
/// The goroutines that lock their thread in the `herdlab-locked` rows.
pub const LOCKED: u32 = 1;

/// One row of `bench gmp --locked`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LockedRow {
    /// `herdlab` (no G locked) or `herdlab-locked`.
    pub runtime: &'static str,
    /// Always `locked`.
    pub shape: &'static str,
    /// Workers (GOMAXPROCS).
    pub workers: u32,
    /// Goroutines per run, main included.
    pub tasks: u32,
    /// Goroutines that called `LockOSThread`.
    pub locked: u32,
    /// Each goroutine's `Gosched` calls.
    pub yields: u32,
    /// Each computation, ns.
    pub work_ns: u64,
    /// Runs.
    pub rounds: u32,
    /// The median run, ns.
    pub median_ns: u64,
    /// The 10th percentile, ns.
    pub p10_ns: u64,
    /// The 90th percentile, ns.
    pub p90_ns: u64,
    /// The median `startlockedm`s per run (an M handed its P to a locked G's M).
    pub locked_handoffs: u64,
    /// The median `stoplockedm`s per run (the locked M handed its P off and slept).
    pub lockedm_parks: u64,
    /// The median `handoffp`s that started an M per run.
    pub handoffs: u64,
    /// The median wakeups of parked Ms (`notewakeup`) per run.
    pub futex_wakes: u64,
    /// The median `stopm`s per run.
    pub parks: u64,
    /// The runs of the locked goroutines per run (each on its own M, checked).
    pub locked_runs: u64,
}

/// The scenario of a row: `locked` goroutines lock their M; one M more than the Ps and the
/// locked Ms.
pub fn params(workers: u32, locked: u32) -> GmpParams {
    GmpParams {
        gomaxprocs: workers,
        threads: (workers + LOCKED + 2).min(32),
        cpus: workers,
        goroutines: TASKS,
        work_ns: WORK_NS as u32,
        yields: YIELDS,
        ring: 16,
        workload: Workload::Locked,
        locked,
        variant: GmpVariant::Correct,
        ..GmpParams::default()
    }
}

/// The shape as futures: main spawns tasks 2..=9; the first `locked` of them lock their thread,
/// then each computes and calls `Gosched` [`YIELDS`] times, computes once more and exits.
async fn shape(locked: u32) {
    for k in 2..=TASKS {
        task::spawn(async move {
            if k < 2 + locked {
                task::lock_os_thread();
            }
            for _ in 0..YIELDS {
                spin_for(WORK_NS);
                task::gosched().await;
            }
            spin_for(WORK_NS);
        });
    }
}

/// One run of the shape on herdlab's runtime, `locked` goroutines locked.
pub fn run_herdlab(workers: u32, locked: u32) -> Result<native::GmpRun, String> {
    let gs = Tasks::new(TASKS);
    gs.root(shape(locked));
    native::run_tasks(&params(workers, locked), &gs).map_err(|e| e.to_string())
}

fn stats(mut v: Vec<u64>) -> (u64, u64, u64) {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.1), at(0.9))
}

/// Run the shape `rounds` times per (row, workers), the two rows in rotating order.
pub fn run(workers: &[u32], rounds: u32) -> Result<Vec<LockedRow>, String> {
    let names = ["herdlab", "herdlab-locked"];
    let mut rows = Vec::new();
    for &w in workers {
        let mut runs: Vec<Vec<native::GmpRun>> = vec![Vec::new(), Vec::new()];
        for round in 0..rounds.max(1) {
            for k in 0..2 {
                let i = (k + round as usize) % 2;
                let locked = [0, LOCKED][i];
                let r = run_herdlab(w, locked)?;
                runs[i].push(r);
            }
        }
        for (i, name) in names.iter().enumerate() {
            let rs = &runs[i];
            let med = |f: &dyn Fn(&native::GmpRun) -> u64| stats(rs.iter().map(f).collect()).0;
            let (median_ns, p10_ns, p90_ns) = stats(rs.iter().map(|r| r.wall_ns).collect());
            rows.push(LockedRow {
                runtime: name,
                shape: "locked",
                workers: w,
                tasks: TASKS,
                locked: [0, LOCKED][i],
                yields: YIELDS,
                work_ns: WORK_NS,
                rounds: rounds.max(1),
                median_ns,
                p10_ns,
                p90_ns,
                locked_handoffs: med(&|r| r.counts.locked_handoffs),
                lockedm_parks: med(&|r| r.counts.lockedm_parks),
                handoffs: med(&|r| r.counts.handoffs),
                futex_wakes: med(&|r| r.counts.futex_wakes),
                parks: med(&|r| r.counts.parks),
                locked_runs: med(&|r| r.locked_runs),
            });
        }
    }
    Ok(rows)
}

/// The rows as a table.
pub fn render(rows: &[LockedRow]) -> String {
    let us = |ns: u64| format!("{:.1}", ns as f64 / 1e3);
    let head = [
        "runtime",
        "workers",
        "median_us",
        "p10_us",
        "p90_us",
        "locked_handoffs",
        "lockedm_parks",
        "handoffs",
        "futex_wakes",
        "parks",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.runtime.to_string(),
                r.workers.to_string(),
                us(r.median_ns),
                us(r.p10_ns),
                us(r.p90_ns),
                r.locked_handoffs.to_string(),
                r.lockedm_parks.to_string(),
                r.handoffs.to_string(),
                r.futex_wakes.to_string(),
                r.parks.to_string(),
            ]
        })
        .collect();
    let title = format!(
        "bench gmp --locked: {TASKS} goroutines, each computing {} us and calling Gosched {YIELDS} times; herdlab-locked: {LOCKED} of them called LockOSThread first",
        WORK_NS / 1_000
    );
    titled_table(&title, &head, &cells)
}
