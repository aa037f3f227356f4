//! `herdlab bench gmp --netpoll`: goroutines waiting on the network. 64 tasks each make 3
//! requests whose answer comes 200 µs later, computing 20 µs before each. On herdlab's runtime
//! (Rust futures on core's table in the `netpoll` workload's world) a read
//! ([`task::net_read`]) parks its G on the poller; each
//! G's peer is a thread that sleeps the network's delay in the kernel (`clock_nanosleep`), makes
//! the fd readable (pushes it on the ready list) and futex-wakes the blocked poller; the last M
//! with nothing to do blocks in the kernel as THE poller, and `netpollBreak` wakes it. tokio's
//! tasks wait on its timer wheel (`tokio::time::sleep`) for the same delay. Rows: runtime,
//! shape, workers, median_ns, p10_ns, p90_ns and herdlab's poller counters (median per run).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use herdlab_core::mechanisms::gmp::{GmpParams, Workload};

use super::native;
use super::task::{self, Tasks};
use crate::output::{ms3, opt_count, titled_table};
use crate::platform::mem::spin_for;

/// Tasks per run, main included.
pub const TASKS: u32 = 64;
/// Requests per task.
pub const READS: u32 = 3;
/// The network's delay, ns.
pub const NET_NS: u64 = 200_000;
/// Each task's computation after an answer, ns.
pub const WORK_NS: u64 = 20_000;

/// One row of `bench gmp --netpoll`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetpollRow {
    /// `herdlab` or `tokio`.
    pub runtime: &'static str,
    /// Always `netpoll`.
    pub shape: &'static str,
    /// Workers (GOMAXPROCS; tokio's worker threads).
    pub workers: u32,
    /// Tasks per run, main included.
    pub tasks: u32,
    /// Requests per task.
    pub reads: u32,
    /// The network's delay, ns.
    pub net_ns: u64,
    /// Runs.
    pub rounds: u32,
    /// The median run, ns.
    pub median_ns: u64,
    /// The 10th percentile, ns.
    pub p10_ns: u64,
    /// The 90th percentile, ns.
    pub p90_ns: u64,
    /// herdlab: `netpoll` calls per run (median; null for tokio).
    pub netpoll_polls: Option<u64>,
    /// herdlab: Gs parked on the poller per run.
    pub netpoll_parks: Option<u64>,
    /// herdlab: blocking polls per run.
    pub netpoll_blocks: Option<u64>,
    /// herdlab: `netpollBreak`s per run.
    pub netpoll_breaks: Option<u64>,
}

/// The scenario of a herdlab row: one M more than the Ps (the poller's).
pub fn params(workers: u32) -> GmpParams {
    GmpParams {
        gomaxprocs: workers,
        threads: (workers + 1).min(32),
        cpus: workers,
        goroutines: TASKS,
        rounds: READS,
        net_ns: NET_NS as u32,
        work_ns: WORK_NS as u32,
        workload: Workload::Netpoll,
        ..GmpParams::default()
    }
}

/// One tokio run: main spawns the others from a worker; each waits and computes.
fn run_tokio(rt: &tokio::runtime::Runtime) -> u64 {
    let start = Instant::now();
    rt.block_on(async {
        let main = tokio::spawn(async {
            let mut hs = Vec::new();
            for _ in 1..TASKS {
                hs.push(tokio::spawn(async {
                    for _ in 0..READS {
                        spin_for(WORK_NS);
                        tokio::time::sleep(Duration::from_nanos(NET_NS)).await;
                    }
                }));
            }
            for _ in 0..READS {
                spin_for(WORK_NS);
                tokio::time::sleep(Duration::from_nanos(NET_NS)).await;
            }
            for h in hs {
                let _ = h.await;
            }
        });
        let _ = main.await;
    });
    start.elapsed().as_nanos() as u64
}

/// One task of the shape on herdlab: compute, read (the peer answers after the delay), READS
/// times.
async fn reader() {
    for _ in 0..READS {
        spin_for(WORK_NS);
        task::net_read().await;
    }
}

/// One herdlab run: main spawns the other tasks, then reads as they do.
pub fn run_herdlab(workers: u32) -> Result<native::GmpRun, String> {
    let gs = Tasks::new(TASKS);
    gs.root(async {
        for _ in 1..TASKS {
            task::spawn(reader());
        }
        reader().await;
    });
    native::run_tasks(&params(workers), &gs).map_err(|e| e.to_string())
}

fn stats(mut v: Vec<u64>) -> (u64, u64, u64) {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.1), at(0.9))
}

/// Run the shape `rounds` times per (runtime, workers), the runtimes in rotating order.
pub fn run(workers: &[u32], rounds: u32) -> Result<Vec<NetpollRow>, String> {
    let mut rows = Vec::new();
    for &w in workers {
        let rt = Arc::new(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(w as usize)
                .enable_time()
                .build()
                .map_err(|e| format!("cannot start tokio's runtime: {e}"))?,
        );
        let (mut times, mut counts) = (vec![Vec::new(); 2], vec![Vec::new(); 4]);
        for round in 0..rounds.max(1) {
            for k in 0..2 {
                if (k + round as usize) % 2 == 1 {
                    times[1].push(run_tokio(&rt));
                } else {
                    let r = run_herdlab(w)?;
                    times[0].push(r.wall_ns);
                    let c = &r.counts;
                    for (i, n) in [
                        c.netpoll_polls,
                        c.netpoll_parks,
                        c.netpoll_blocks,
                        c.netpoll_breaks,
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        counts[i].push(n);
                    }
                }
            }
        }
        for (i, name) in ["herdlab", "tokio"].into_iter().enumerate() {
            let (median_ns, p10_ns, p90_ns) = stats(times[i].clone());
            let med = |k: usize| (i == 0).then(|| stats(counts[k].clone()).0);
            rows.push(NetpollRow {
                runtime: name,
                shape: "netpoll",
                workers: w,
                tasks: TASKS,
                reads: READS,
                net_ns: NET_NS,
                rounds: rounds.max(1),
                median_ns,
                p10_ns,
                p90_ns,
                netpoll_polls: med(0),
                netpoll_parks: med(1),
                netpoll_blocks: med(2),
                netpoll_breaks: med(3),
            });
        }
    }
    Ok(rows)
}

/// The rows as a table.
pub fn render(rows: &[NetpollRow]) -> String {
    let (opt, ms) = (opt_count, ms3);
    let head = [
        "runtime",
        "workers",
        "median_ms",
        "p10_ms",
        "p90_ms",
        "polls",
        "parks",
        "blocks",
        "breaks",
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
                opt(r.netpoll_polls),
                opt(r.netpoll_parks),
                opt(r.netpoll_blocks),
                opt(r.netpoll_breaks),
            ]
        })
        .collect();
    let title = format!(
        "bench gmp --netpoll: {TASKS} tasks, each {READS} requests answered after {} us, computing {} us before each",
        NET_NS / 1_000,
        WORK_NS / 1_000
    );
    titled_table(&title, &head, &cells)
}
