//! `herdlab bench gmp --blocking`: the thread-blocking shape (issue 12 §3). 16 tasks: main and
//! every even task block their thread in a 1 ms sleep (`nanosleep(2)`), then the odd ones and
//! the sleepers compute 100 µs each. The tasks are one async code on both runtimes (`shape`,
//! over the bench's [`Spawner`] shim), Rust futures: on herdlab's runtime (core's table in its
//! straight-line form, in the `syscall` workload's world: sysmon a real thread) a sleep is
//! [`task::syscall_sleep`](super::task::syscall_sleep), the table's blocking syscall
//! (`entersyscall`, the M's thread asleep in the kernel, `exitsyscall`), and sysmon retakes the
//! blocked M's P and hands it to a parked M, so the other tasks keep running;
//! `herdlab-no-retake` is the same table with `variant=no-syscall-retake`; on tokio the sleep
//! blocks the worker thread, and tokio has no hand-off: every task queued behind it on that worker
//! waits (tokio's answer is `spawn_blocking` / `block_in_place`, which the task must call itself).

use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use herdlab_core::mechanisms::gmp::{GmpParams, GmpVariant, Workload};

use super::bench::{OnHerdlab, OnTokio, Spawner};
use super::native::{self, GmpRun};
use super::task::Tasks;
use crate::output::{ms3, opt_count, titled_table};
use crate::platform::mem::spin_for;

/// Tasks per run, main included.
pub const TASKS: u32 = 16;
/// Each blocking call, ns.
pub const SLEEP_NS: u64 = 1_000_000;
/// Each task's computation, ns.
pub const WORK_NS: u64 = 100_000;

/// One row of `bench gmp --blocking`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlockingRow {
    /// `herdlab`, `herdlab-no-retake` or `tokio`.
    pub runtime: &'static str,
    /// Always `blocking`.
    pub shape: &'static str,
    /// Workers (GOMAXPROCS; tokio's worker threads).
    pub workers: u32,
    /// Tasks per run, main included.
    pub tasks: u32,
    /// Each blocking sleep, ns.
    pub sleep_ns: u64,
    /// Each task's computation, ns.
    pub work_ns: u64,
    /// Runs.
    pub rounds: u32,
    /// The median run, ns.
    pub median_ns: u64,
    /// The 10th percentile, ns.
    pub p10_ns: u64,
    /// The 90th percentile, ns.
    pub p90_ns: u64,
    /// herdlab: the median Ps sysmon retook per run (null for tokio).
    pub retakes: Option<u64>,
    /// herdlab: the median hand-offs (retaken Ps given to another M) per run.
    pub handoffs: Option<u64>,
}

/// The scenario of a herdlab row: enough Ms for every sleeper at once.
pub fn params(workers: u32, variant: GmpVariant) -> GmpParams {
    let threads = (workers + TASKS / 2 + 2).min(32);
    GmpParams {
        gomaxprocs: workers,
        threads,
        cpus: threads + 1,
        goroutines: TASKS,
        work_ns: WORK_NS as u32,
        syscall_ns: SLEEP_NS as u32,
        workload: Workload::Syscall,
        variant,
        ..GmpParams::default()
    }
}

/// What the tasks of one run share: the bodies left, and who waits for the last.
#[derive(Debug, Default)]
struct Left {
    left: AtomicU32,
    done: tokio::sync::Notify,
}

impl Left {
    fn new() -> Arc<Self> {
        Arc::new(Left {
            left: AtomicU32::new(TASKS),
            done: tokio::sync::Notify::new(),
        })
    }
    /// One task's end; the last one wakes the waiter.
    fn one(&self) {
        if self.left.fetch_sub(1, SeqCst) == 1 {
            self.done.notify_one();
        }
    }
    /// Bodies not run yet (0 when each ran once).
    fn left(&self) -> u32 {
        self.left.load(SeqCst)
    }
}

/// The shape's code, the same on both runtimes: main spawns tasks 2..=16 (each even one blocks
/// its thread, then each computes), then blocks its own thread and ends.
async fn shape<S: Spawner>(sp: S, left: Arc<Left>) {
    for k in 2..=TASKS {
        let l = left.clone();
        sp.spawn(async move {
            if k % 2 == 0 {
                sp.block_thread(SLEEP_NS).await;
            }
            spin_for(WORK_NS);
            l.one();
        });
    }
    sp.block_thread(SLEEP_NS).await;
    left.one();
}

/// One tokio run: from `block_on`'s start to the last task's end.
fn run_tokio(rt: &tokio::runtime::Runtime) -> Result<u64, String> {
    let start = Instant::now();
    let left = Left::new();
    let l2 = left.clone();
    rt.block_on(async move {
        tokio::spawn(shape(OnTokio, l2.clone()));
        l2.done.notified().await;
    });
    let ns = start.elapsed().as_nanos() as u64;
    match left.left() {
        0 => Ok(ns),
        n => Err(format!("tokio: {n} of {TASKS} tasks did not run")),
    }
}

/// One herdlab run of the same code as futures on core's table (`variant`: the retake or not):
/// from M0 starting main to the last G's exit.
pub fn run_herdlab(workers: u32, variant: GmpVariant) -> Result<GmpRun, String> {
    let left = Left::new();
    let gs = Tasks::new(TASKS);
    gs.root(shape(OnHerdlab, left.clone()));
    let r = native::run_tasks(&params(workers, variant), &gs).map_err(|e| e.to_string())?;
    match left.left() {
        0 => Ok(r),
        n => Err(format!("herdlab: {n} of {TASKS} tasks did not run")),
    }
}

fn stats(mut v: Vec<u64>) -> (u64, u64, u64) {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.1), at(0.9))
}

/// Run the shape `rounds` times per (runtime, workers), the runtimes in rotating order.
pub fn run(workers: &[u32], rounds: u32) -> Result<Vec<BlockingRow>, String> {
    let names = ["herdlab", "herdlab-no-retake", "tokio"];
    let mut rows = Vec::new();
    for &w in workers {
        let rt = Arc::new(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(w as usize)
                .build()
                .map_err(|e| format!("cannot start tokio's runtime: {e}"))?,
        );
        let mut times = vec![Vec::new(); 3];
        let mut retakes = vec![Vec::new(); 2];
        let mut handoffs = vec![Vec::new(); 2];
        for round in 0..rounds.max(1) {
            for k in 0..3 {
                let i = (k + round as usize) % 3;
                if i == 2 {
                    times[2].push(run_tokio(&rt)?);
                } else {
                    let v = [GmpVariant::Correct, GmpVariant::NoSyscallRetake][i];
                    let r = run_herdlab(w, v)?;
                    times[i].push(r.wall_ns);
                    retakes[i].push(r.counts.retakes);
                    handoffs[i].push(r.counts.handoffs);
                }
            }
        }
        for (i, name) in names.iter().enumerate() {
            let (median_ns, p10_ns, p90_ns) = stats(times[i].clone());
            let med = |v: &Vec<Vec<u64>>| v.get(i).map(|x| stats(x.clone()).0);
            rows.push(BlockingRow {
                runtime: name,
                shape: "blocking",
                workers: w,
                tasks: TASKS,
                sleep_ns: SLEEP_NS,
                work_ns: WORK_NS,
                rounds: rounds.max(1),
                median_ns,
                p10_ns,
                p90_ns,
                retakes: med(&retakes),
                handoffs: med(&handoffs),
            });
        }
    }
    Ok(rows)
}

/// The rows as a table.
pub fn render(rows: &[BlockingRow]) -> String {
    let (opt, ms) = (opt_count, ms3);
    let head = [
        "runtime",
        "workers",
        "median_ms",
        "p10_ms",
        "p90_ms",
        "retakes",
        "handoffs",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.runtime.to_string(),
                r.workers.to_string(),
                ms(r.median_ns),
                ms(r.p10_ns),
                ms(r.p90_ns),
                opt(r.retakes),
                opt(r.handoffs),
            ]
        })
        .collect();
    let title = format!(
        "bench gmp --blocking: {TASKS} tasks, main and every even one sleep {} ms in the kernel, each computes {} us",
        SLEEP_NS / 1_000_000,
        WORK_NS / 1_000
    );
    titled_table(&title, &head, &cells)
}
