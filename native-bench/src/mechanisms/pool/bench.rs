//! `herdlab bench pool`: core's pool tables on real threads (`nginx`) beside threadpool, rayon and
//! a crossbeam-channel pool, and the event-loop scenario (cache hits with and without the pool).
//!
//! Three tables, one row list (`scenario`):
//! - `throughput`: every pool runs the same tasks (empty, 1 µs, 100 µs of spinning) on T threads,
//!   at most [`WINDOW`] outstanding (a client with that many connections); for nginx the event loop
//!   posts each request's task (`blocking_pct` 100) and completes it through the done list.
//! - `idle`: nginx only, signal and broadcast: one task at a time, posted once every pool thread
//!   sleeps in `cond_wait`, so one post wakes one thread (signal) or all T (broadcast, T-1 wasted).
//! - `event-loop`: nginx only, offload on and off: requests at a steady rate, a share of them
//!   ([`LOOP_BLOCKING_PCT`]; 0 is the baseline without blocking reads) blocking reads that sleep
//!   the task time (on a pool thread, or on the loop itself when the pool is off); the cache hits'
//!   latency (arrival to response, the 5 µs serve spun on the loop). Arrivals keep their schedule
//!   (`start + i × gap`) however late the loop is, so requests queue behind a read.
//!
//! `--task file` ([`TaskKind::File`]): every task of the throughput rows, and every blocking read
//! of the event-loop rows, is one real blocking `pread(2)` of a 4 KiB block of a scratch file
//! (`--file-mib`, at most 64 MiB, in a fresh temp directory, dropped from the page cache before
//! each row and removed on every exit path, Ctrl-C included: `platform::scratch`). The task time
//! is then the read's own; the throughput rows run once per thread count (`task_ns` 0).
//!
//! Wakeups: nginx's are the platform's counts of `cond_wait` returns on the pool threads (a wakeup
//! after which the thread waits again without running a task is wasted); the rivals' are the
//! process's voluntary context switches (`getrusage(RUSAGE_SELF).ru_nvcsw`) during the row minus
//! the submitting thread's own: each sleep of a worker ends in one wakeup. Whether a rival's
//! wakeup found a task is not observable from outside, so their `wasted_per_task` is null.
//! `nvcsw_per_task` is the context-switch count for every pool (nginx: its pool threads').

use serde::Serialize;

use herdlab_core::mechanisms::pool::{PoolParams, Wake};
use herdlab_core::sim::arrivals::ArrivalPattern;

use std::sync::Arc;

use super::native::{self, Feed, Handler, PoolRun, Rival};
use crate::output::table_lines;
use crate::platform::scratch::ScratchFile;

/// Tasks outstanding at most in the throughput rows.
pub const WINDOW: u32 = 64;

/// The task times of the throughput rows, ns.
pub const TASK_NS: [u64; 3] = [0, 1_000, 100_000];

/// The most tasks a row may run.
pub const MAX_TASKS: u32 = 1_000_000;

/// The blocking share of the event-loop rows, percent (0: the baseline).
pub const LOOP_BLOCKING_PCT: [u32; 4] = [0, 5, 10, 20];

/// What a task does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    /// Spin for the task time (throughput rows); sleep it (the event-loop rows' blocking reads).
    Spin,
    /// One blocking `pread(2)` of a 4 KiB block of a scratch file.
    File,
}

impl TaskKind {
    /// Every kind.
    pub const ALL: [TaskKind; 2] = [TaskKind::Spin, TaskKind::File];

    /// The flag's name.
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Spin => "spin",
            TaskKind::File => "file",
        }
    }

    /// Parse a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The scratch file's default size, MiB.
pub const FILE_MIB: u32 = 64;

/// A pool of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchPool {
    /// Core's pool tables on real threads.
    Nginx,
    /// A rival.
    Rival(Rival),
}

impl BenchPool {
    /// Every pool, nginx first.
    pub const ALL: [BenchPool; 4] = [
        BenchPool::Nginx,
        BenchPool::Rival(Rival::Threadpool),
        BenchPool::Rival(Rival::Rayon),
        BenchPool::Rival(Rival::Crossbeam),
    ];

    /// The row's `pool`.
    pub fn name(self) -> &'static str {
        match self {
            BenchPool::Nginx => "nginx",
            BenchPool::Rival(r) => r.name(),
        }
    }

    /// Parse a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == s)
    }

    /// `nginx, threadpool, rayon, crossbeam`.
    pub fn names() -> String {
        Self::ALL.map(|p| p.name()).join(", ")
    }
}

/// What `bench pool` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolBenchConfig {
    /// Thread counts of the throughput rows.
    pub threads: Vec<u32>,
    /// Tasks per throughput row (fewer for long tasks: at most 200 ms of work per thread).
    pub tasks: u32,
    /// Pools of the throughput rows.
    pub pools: Vec<BenchPool>,
    /// Task times of the throughput rows, ns.
    pub task_ns: Vec<u64>,
    /// Pool threads of the idle and event-loop rows.
    pub idle_threads: u32,
    /// Tasks of the idle rows.
    pub idle_tasks: u32,
    /// Requests of the event-loop rows.
    pub loop_requests: u32,
    /// Add the simulator's wakeups beside nginx's rows.
    pub compare_sim: bool,
    /// What a task does.
    pub task: TaskKind,
    /// The scratch file's size, MiB (`--task file`).
    pub file_mib: u32,
}

/// The machine's cores.
pub fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as u32
}

impl PoolBenchConfig {
    /// The defaults (`quick`: small).
    pub fn new(quick: bool) -> Self {
        let c = cores();
        let mut threads = if quick {
            vec![1, 2]
        } else {
            vec![1, 2, (4 * c).min(native::MAX_THREADS)]
        };
        threads.dedup();
        PoolBenchConfig {
            threads,
            tasks: if quick { 2_000 } else { 20_000 },
            pools: BenchPool::ALL.to_vec(),
            task_ns: TASK_NS.to_vec(),
            idle_threads: if quick { 4 } else { (4 * c).clamp(4, 16) },
            idle_tasks: if quick { 200 } else { 1_000 },
            loop_requests: if quick { 2_000 } else { 10_000 },
            compare_sim: false,
            task: TaskKind::Spin,
            file_mib: FILE_MIB,
        }
    }
}

/// One row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PoolBenchRow {
    /// `throughput`, `idle` or `event-loop`.
    pub scenario: &'static str,
    /// `nginx`, `threadpool`, `rayon` or `crossbeam`.
    pub pool: &'static str,
    /// Pool threads.
    pub threads: u32,
    /// The task's busy time, ns (0 for `file` tasks: the read takes what it takes).
    pub task_ns: u64,
    /// What a task does: `spin`, `sleep` (the event-loop rows' blocking reads) or `file` (one
    /// `pread` of a 4 KiB block).
    pub task: &'static str,
    /// Event-loop rows: percent of requests that are blocking reads; null for the other rows.
    pub blocking_pct: Option<u32>,
    /// nginx: `signal` or `broadcast`; null for the rivals.
    pub wake: Option<&'static str>,
    /// nginx: blocking reads go to the pool; null for the rivals.
    pub offload: Option<bool>,
    /// Requests taken (nginx) or tasks submitted (rivals).
    pub requests: u32,
    /// Tasks posted (nginx: successful posts, exit tasks not counted).
    pub tasks_posted: u64,
    /// nginx's throughput and idle rows: requests whose post was refused with "task already active" (its task object, reused
    /// round robin over 100, was still in flight: nginx drops such a post); 0 for the rivals.
    pub already_active: u64,
    /// Tasks completed.
    pub tasks_done: u64,
    /// Tasks whose handler ran on a pool thread.
    pub tasks_run: u64,
    /// Wall time, ns.
    pub wall_ns: u64,
    /// Completed tasks per second.
    pub tasks_per_sec: f64,
    /// Task wait (post to dequeue), median, ns.
    pub wait_p50_ns: u64,
    /// Task wait, 99th percentile, ns.
    pub wait_p99_ns: u64,
    /// Wakeups per completed task (see the module doc).
    pub wakeups_per_task: f64,
    /// Wasted wakeups per completed task (nginx only).
    pub wasted_per_task: Option<f64>,
    /// Voluntary context switches of the pool's threads per completed task.
    pub nvcsw_per_task: f64,
    /// Event-loop rows: cache hits' latency, median, ns.
    pub cache_p50_ns: Option<u64>,
    /// Event-loop rows: cache hits' latency, 99th percentile, ns.
    pub cache_p99_ns: Option<u64>,
    /// `--compare-sim`: the simulator's wakeups per task in the same scenario.
    pub sim_wakeups_per_task: Option<f64>,
    /// `--compare-sim`: the simulator's wasted wakeups per task.
    pub sim_wasted_per_task: Option<f64>,
}

/// The `q` quantile of `v` (sorted in place); 0 for none.
pub fn quantile(v: &mut [u64], q: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    let i = ((v.len() as f64 - 1.0) * q).round() as usize;
    v[i.min(v.len() - 1)]
}

/// `n` per `d`, 0 where nothing was done (a row without tasks: the offload-off event loop).
fn per(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

#[allow(clippy::too_many_arguments)]
fn row(
    scenario: &'static str,
    pool: BenchPool,
    threads: u32,
    task_ns: u64,
    task: &'static str,
    wake: Option<Wake>,
    offload: Option<bool>,
    mut r: PoolRun,
) -> PoolBenchRow {
    let nginx = pool == BenchPool::Nginx;
    let (c50, c99) = if r.cache_ns.is_empty() {
        (None, None)
    } else {
        (
            Some(quantile(&mut r.cache_ns, 0.5)),
            Some(quantile(&mut r.cache_ns, 0.99)),
        )
    };
    PoolBenchRow {
        scenario,
        pool: pool.name(),
        threads,
        task_ns,
        task,
        blocking_pct: None,
        wake: wake.map(Wake::name),
        offload,
        requests: r.requests,
        tasks_posted: r.tasks_posted,
        // every throughput and idle request is a blocking read (the event loop's serve cached ones)
        already_active: if nginx && scenario != "event-loop" {
            (r.requests as u64).saturating_sub(r.tasks_posted)
        } else {
            0
        },
        tasks_done: r.tasks_done,
        tasks_run: r.tasks_run,
        wall_ns: r.wall_ns,
        tasks_per_sec: r.tasks_done as f64 * 1e9 / r.wall_ns.max(1) as f64,
        wait_p50_ns: quantile(&mut r.waits_ns, 0.5),
        wait_p99_ns: quantile(&mut r.waits_ns, 0.99),
        wakeups_per_task: per(r.wakeups, r.tasks_done),
        wasted_per_task: nginx.then(|| per(r.wasted, r.tasks_done)),
        nvcsw_per_task: per(r.nvcsw, r.tasks_done),
        cache_p50_ns: c50,
        cache_p99_ns: c99,
        sim_wakeups_per_task: None,
        sim_wasted_per_task: None,
    }
}

/// Tasks of a row: `tasks`, but at most 200 ms of busy work per thread.
pub fn tasks_for(tasks: u32, task_ns: u64, threads: u32) -> u32 {
    if task_ns == 0 {
        return tasks;
    }
    let cap = 200_000_000 * threads as u64 / task_ns;
    (tasks as u64).min(cap.max(100)) as u32
}

/// The simulator's wakeups and wasted wakeups per task for `p` (at most 2000 requests).
fn sim_per_task(p: &PoolParams) -> (f64, f64) {
    let p = PoolParams {
        requests: p.requests.min(2_000),
        ..*p
    };
    let (_, r) = p.run(50_000_000);
    (
        per(r.wakeups, r.tasks_done as u64),
        per(r.wasted_wakeups, r.tasks_done as u64),
    )
}

/// Run the bench; `progress` prints each row's name on stderr.
pub fn run_pool(c: &PoolBenchConfig, progress: bool) -> Result<Vec<PoolBenchRow>, String> {
    let mut rows = Vec::new();
    let say = |s: String| {
        if progress {
            eprintln!("{s}");
        }
    };
    let file = match c.task {
        TaskKind::Spin => None,
        TaskKind::File => {
            say(format!("writing a {} MiB scratch file", c.file_mib));
            Some(Arc::new(
                ScratchFile::create(c.file_mib as u64 * (1 << 20))
                    .map_err(|e| format!("the scratch file: {e}"))?,
            ))
        }
    };
    // each row starts with the file out of the page cache
    let cold = || -> Result<(), String> {
        match &file {
            Some(f) => f
                .drop_cache()
                .map_err(|e| format!("dropping the scratch file's pages: {e}")),
            None => Ok(()),
        }
    };
    let task_ns: &[u64] = if file.is_some() { &[0] } else { &c.task_ns };
    for &t in &c.threads {
        for &task_ns in task_ns {
            let n = tasks_for(c.tasks, task_ns, t);
            for &pool in &c.pools {
                say(format!(
                    "throughput: {} T={t} task {} {task_ns} ns",
                    pool.name(),
                    c.task.name()
                ));
                cold()?;
                let r = match pool {
                    BenchPool::Nginx => {
                        let handler = file.as_deref().map_or(Handler::Spin, Handler::File);
                        let p = native::scenario(t, n, task_ns, 100, true, Wake::Signal);
                        let run = native::run_nginx(&p, task_ns, Feed::Window(WINDOW), handler)
                            .map_err(|e| e.0)?;
                        let mut r = row(
                            "throughput",
                            pool,
                            t,
                            task_ns,
                            handler.name(),
                            Some(Wake::Signal),
                            Some(true),
                            run,
                        );
                        if c.compare_sim {
                            let sp = PoolParams {
                                arrival: ArrivalPattern::Burst,
                                burst: WINDOW,
                                rate: 1_000_000,
                                ..p
                            };
                            let (w, x) = sim_per_task(&sp);
                            r.sim_wakeups_per_task = Some(w);
                            r.sim_wasted_per_task = Some(x);
                        }
                        r
                    }
                    BenchPool::Rival(rv) => row(
                        "throughput",
                        pool,
                        t,
                        task_ns,
                        c.task.name(),
                        None,
                        None,
                        native::run_rival(rv, t, n, task_ns, WINDOW, file.clone())
                            .map_err(|e| e.0)?,
                    ),
                };
                check_row(&r)?;
                traced(
                    &r,
                    &native::scenario(t, n, task_ns, 100, true, Wake::Signal),
                );
                #[cfg(unix)]
                crate::platform::interrupt::measured(&r);
                rows.push(r);
            }
        }
    }
    if c.pools.contains(&BenchPool::Nginx) {
        let t = c.idle_threads;
        for wake in [Wake::Signal, Wake::Broadcast] {
            say(format!("idle: nginx T={t} {}", wake.name()));
            let p = native::scenario(t, c.idle_tasks, 0, 100, true, wake);
            let run = native::run_nginx(&p, 0, Feed::Idle, Handler::Spin).map_err(|e| e.0)?;
            let mut r = row(
                "idle",
                BenchPool::Nginx,
                t,
                0,
                "spin",
                Some(wake),
                Some(true),
                run,
            );
            if c.compare_sim {
                // a request every 100 µs, a 1 µs task: every post finds all threads idle
                let sp = PoolParams {
                    rate: 10_000,
                    task_us: 1,
                    ..p
                };
                let (w, x) = sim_per_task(&sp);
                r.sim_wakeups_per_task = Some(w);
                r.sim_wasted_per_task = Some(x);
            }
            check_row(&r)?;
            traced(&r, &p);
            #[cfg(unix)]
            crate::platform::interrupt::measured(&r);
            rows.push(r);
        }
        let t = cores().clamp(2, 8);
        let handler = file.as_deref().map_or(Handler::Sleep, Handler::File);
        let read_ns = if file.is_some() { 0 } else { LOOP_READ_NS };
        for pct in LOOP_BLOCKING_PCT {
            // without blocking reads offload changes nothing: one baseline row
            let offloads: &[bool] = if pct == 0 { &[true] } else { &[true, false] };
            for &offload in offloads {
                say(format!(
                    "event-loop: nginx T={t} {pct}% {} reads, offload {offload}",
                    handler.name()
                ));
                cold()?;
                let p =
                    native::scenario(t, c.loop_requests, LOOP_READ_NS, pct, offload, Wake::Signal);
                let run = native::run_nginx(&p, LOOP_READ_NS, Feed::Rate(LOOP_RATE), handler)
                    .map_err(|e| e.0)?;
                let mut r = row(
                    "event-loop",
                    BenchPool::Nginx,
                    t,
                    read_ns,
                    handler.name(),
                    Some(Wake::Signal),
                    Some(offload),
                    run,
                );
                r.blocking_pct = Some(pct);
                check_row(&r)?;
                traced(&r, &p);
                #[cfg(unix)]
                crate::platform::interrupt::measured(&r);
                rows.push(r);
            }
        }
    }
    Ok(rows)
}

/// `--trace`: the row's run, labelled as the table names it, with its scenario (a rival pool's is
/// nginx's at the same threads and tasks: the label says what ran).
fn traced(r: &PoolBenchRow, p: &PoolParams) {
    let mut label = format!(
        "{} {} T={} task {} {} ns",
        r.scenario, r.pool, r.threads, r.task, r.task_ns
    );
    if let Some(w) = r.wake {
        label.push_str(&format!(" wake {w}"));
    }
    if let Some(pct) = r.blocking_pct {
        label.push_str(&format!(" {pct}% blocking"));
    }
    if let Some(o) = r.offload {
        label.push_str(&format!(" offload {o}"));
    }
    crate::trace::run_done(
        &label,
        &format!(
            "mechanism=pool&{}",
            <super::Pool as herdlab_core::mechanism::Mechanism>::to_query(p)
        ),
    );
}

/// The blocking read's time in the event-loop rows (a sleep), ns.
pub const LOOP_READ_NS: u64 = 100_000;

/// Requests per second of the event-loop rows.
pub const LOOP_RATE: u32 = 20_000;

/// No task lost or run twice: every posted task ran once and completed once.
fn check_row(r: &PoolBenchRow) -> Result<(), String> {
    if r.tasks_done != r.tasks_posted || r.tasks_run != r.tasks_posted {
        return Err(format!(
            "{} {} T={}: {} tasks posted, {} ran, {} completed",
            r.scenario, r.pool, r.threads, r.tasks_posted, r.tasks_run, r.tasks_done
        ));
    }
    Ok(())
}

fn opt_f(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
}

/// The rows as text tables.
pub fn render_pool(rows: &[PoolBenchRow]) -> String {
    let head = [
        "scenario",
        "pool",
        "T",
        "task ns",
        "task",
        "blocking %",
        "wake",
        "offload",
        "tasks",
        "tasks/s",
        "wait p50",
        "wait p99",
        "wakeups/task",
        "wasted/task",
        "nvcsw/task",
        "cache p50",
        "cache p99",
        "sim wakeups/task",
        "sim wasted/task",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.scenario.to_string(),
                r.pool.to_string(),
                r.threads.to_string(),
                r.task_ns.to_string(),
                r.task.to_string(),
                r.blocking_pct.map_or("-".to_string(), |v| v.to_string()),
                r.wake.unwrap_or("-").to_string(),
                r.offload.map_or("-".to_string(), |o| {
                    if o { "on" } else { "off" }.to_string()
                }),
                r.tasks_done.to_string(),
                format!("{:.0}", r.tasks_per_sec),
                r.wait_p50_ns.to_string(),
                r.wait_p99_ns.to_string(),
                format!("{:.2}", r.wakeups_per_task),
                opt_f(r.wasted_per_task),
                format!("{:.2}", r.nvcsw_per_task),
                r.cache_p50_ns.map_or("-".to_string(), |v| v.to_string()),
                r.cache_p99_ns.map_or("-".to_string(), |v| v.to_string()),
                opt_f(r.sim_wakeups_per_task),
                opt_f(r.sim_wasted_per_task),
            ]
        })
        .collect();
    let line = table_lines(&head, &cells);
    let mut out = line(&head.map(str::to_string));
    for c in &cells {
        out.push_str(&line(c));
    }
    out
}
