//! `herdlab bench gmp --blocking`: the thread-blocking shape (issue 12 §3). 16 tasks: main and
//! every even task block their thread in a 1 ms sleep (`nanosleep(2)`, the table's blocking
//! syscall), then the odd ones and the sleepers compute 100 µs each. On herdlab's runtime (core's
//! `syscall` workload in its straight-line form, with sysmon a real thread) the P of a blocked M
//! is retaken and handed to a parked M, so the other tasks keep running; `herdlab-no-retake` is
//! the same table with `variant=no-syscall-retake`; tokio has no hand-off: a task that blocks its
//! worker blocks every task queued behind it on that worker (tokio's answer is
//! `spawn_blocking` / `block_in_place`, which the task must call itself).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use herdlab_core::mechanisms::gmp::{GmpParams, GmpVariant, Workload};

use super::native;
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

/// One tokio run: main spawns the 15 others from a worker and sleeps too.
fn run_tokio(rt: &tokio::runtime::Runtime) -> u64 {
    let start = Instant::now();
    rt.block_on(async {
        let main = tokio::spawn(async {
            let mut hs = Vec::new();
            for k in 2..=TASKS {
                hs.push(tokio::spawn(async move {
                    if k % 2 == 0 {
                        std::thread::sleep(Duration::from_nanos(SLEEP_NS));
                    }
                    spin_for(WORK_NS);
                }));
            }
            std::thread::sleep(Duration::from_nanos(SLEEP_NS));
            for h in hs {
                let _ = h.await;
            }
        });
        let _ = main.await;
    });
    start.elapsed().as_nanos() as u64
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
                    times[2].push(run_tokio(&rt));
                } else {
                    let v = [GmpVariant::Correct, GmpVariant::NoSyscallRetake][i];
                    let r = native::run(&params(w, v), WORK_NS).map_err(|e| e.to_string())?;
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
