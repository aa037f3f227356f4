//! `herdlab bench locks`: core's locks on real threads beside `std::sync::Mutex` and
//! `parking_lot::Mutex`.

use std::io::Write;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::native::{self as native_locks, BenchLock, Bound, Form, LockRun};
use crate::mechanisms::BENCH_TIMEOUT;
use crate::output::{progress_line, si, table_lines};
use crate::platform::NativeError;

/// The critical-section lengths of `bench locks`, nanoseconds.
pub const LOCK_CS_NS: [u64; 3] = [0, 100, 1000];
/// How long each `bench locks` row runs.
pub const LOCK_ROW_MS: u64 = 300;
/// The same with `--quick`.
pub const LOCK_QUICK_ROW_MS: u64 = 100;

/// The thread counts of `bench locks`: 1, 2, the cores, and 4x the cores (oversubscribed),
/// without repeats.
pub fn lock_threads() -> Vec<u32> {
    let c = native_locks::cores() as u32;
    let mut v = vec![1, 2, c, 4 * c];
    v.sort_unstable();
    v.dedup();
    v
}

/// What `bench locks` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockBenchConfig {
    /// The locks.
    pub locks: Vec<BenchLock>,
    /// Thread counts.
    pub threads: Vec<u32>,
    /// Critical-section lengths.
    pub cs_ns: Vec<u64>,
    /// Layouts: padded (`true`), packed (`false`).
    pub padded: Vec<bool>,
    /// Milliseconds per row.
    pub row_ms: u64,
    /// How core's machines run: each core lock gets a row per form (the baselines one row).
    pub forms: Vec<Form>,
}

impl LockBenchConfig {
    /// The full run, or `--quick` (shorter rows, same grid).
    pub fn new(quick: bool) -> Self {
        LockBenchConfig {
            locks: BenchLock::ALL.to_vec(),
            threads: lock_threads(),
            cs_ns: LOCK_CS_NS.to_vec(),
            padded: vec![true, false],
            row_ms: if quick {
                LOCK_QUICK_ROW_MS
            } else {
                LOCK_ROW_MS
            },
            forms: vec![Form::Straight],
        }
    }

    /// The rows, in order: layout, then critical section, then threads, then lock (so that the
    /// locks of one setting are side by side).
    pub fn runs(&self) -> Vec<LockRun> {
        let mut v = Vec::new();
        for &padded in &self.padded {
            for &cs_ns in &self.cs_ns {
                for &threads in &self.threads {
                    for &lock in &self.locks {
                        let forms = match lock {
                            BenchLock::Core(_) => &self.forms[..],
                            BenchLock::Std | BenchLock::ParkingLot => &self.forms[..1],
                        };
                        for &form in forms {
                            v.push(LockRun {
                                lock,
                                threads,
                                cs_ns,
                                padded,
                                bound: Bound::Time(Duration::from_millis(self.row_ms)),
                                check_exclusion: false,
                                form,
                            });
                        }
                    }
                }
            }
        }
        v
    }
}

/// One row of `bench locks`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LockBenchRow {
    /// `shmtx`, `ttas`, `spin-yield`, `ticket`, `futex` (core's machines), `std`, `parking_lot`.
    pub lock: String,
    /// How core's machine ran: `straight` (the step table's straight-line form) or `stepped` (one
    /// operation at a time); `library` for std and parking_lot.
    pub form: String,
    /// Threads.
    pub threads: u32,
    /// Busy work inside each critical section, nanoseconds.
    pub cs_ns: u64,
    /// Lock words and the protected counter each on their own 128-byte line (`false`: packed on
    /// one line).
    pub padded: bool,
    /// Acquisitions per second (until the deadline).
    pub ops_per_sec: f64,
    /// The least served thread's fraction of the acquisitions.
    pub min_share: f64,
    /// The most served thread's fraction.
    pub max_share: f64,
    /// Sleeps: `sem_wait`s that went to the kernel plus `futex_wait`s that slept (core's locks);
    /// voluntary context switches (std, parking_lot, whose sleeps are not visible).
    pub sleeps: u64,
    /// `pause`s (core's locks; 0 where unknown).
    pub spins: u64,
    /// `sched_yield`s (core's locks; 0 where unknown).
    pub yields: u64,
    /// Voluntary context switches of all threads (`getrusage(RUSAGE_THREAD)`), for every lock.
    pub nvcsw: u64,
    /// Median time from starting to lock to holding it (one acquisition in 16 timed; the figure
    /// includes one monotonic-clock read, about 20 ns), ns.
    pub wait_p50_ns: u64,
    /// 99th percentile of the same.
    pub wait_p99_ns: u64,
    /// Acquisitions counted (before the deadline).
    pub acquisitions: u64,
    /// Milliseconds measured.
    pub elapsed_ms: f64,
    /// The protected counter matched every acquisition (no lost update: mutual exclusion held).
    pub counter_ok: bool,
}

impl LockBenchRow {
    /// The row of one run.
    pub fn from_report(run: &LockRun, r: &native_locks::LockRunReport) -> Self {
        let c = r.counters();
        let (min_share, max_share) = r.shares();
        let sleeps = match run.lock {
            BenchLock::Core(_) => c.sem_sleeps + c.futex_sleeps,
            BenchLock::Std | BenchLock::ParkingLot => r.nvcsw(),
        };
        LockBenchRow {
            lock: run.lock.name().to_string(),
            form: match run.lock {
                BenchLock::Core(_) => run.form.name().to_string(),
                BenchLock::Std | BenchLock::ParkingLot => "library".to_string(),
            },
            threads: run.threads,
            cs_ns: run.cs_ns,
            padded: run.padded,
            ops_per_sec: r.ops_per_sec(),
            min_share,
            max_share,
            sleeps,
            spins: c.pauses,
            yields: c.yields,
            nvcsw: r.nvcsw(),
            wait_p50_ns: r.wait_quantile(0.50),
            wait_p99_ns: r.wait_quantile(0.99),
            acquisitions: r.total(),
            elapsed_ms: r.elapsed_ns as f64 / 1e6,
            counter_ok: r.counter_ok(),
        }
    }
}

/// Run every row of `cfg`, printing progress on stderr when `progress`.
pub fn run_locks(cfg: &LockBenchConfig, progress: bool) -> Result<Vec<LockBenchRow>, NativeError> {
    let runs = cfg.runs();
    let deadline = Instant::now() + BENCH_TIMEOUT;
    let total = runs.len();
    let mut rows = Vec::with_capacity(total);
    let mut err = std::io::stderr();
    for run in &runs {
        let what = format!(
            "{}{} N={} cs={} {}",
            run.lock.name(),
            match (run.lock, run.form) {
                (BenchLock::Core(_), Form::Stepped) => " (stepped)",
                _ => "",
            },
            run.threads,
            run.cs_ns,
            if run.padded { "padded" } else { "packed" }
        );
        if progress {
            let _ = write!(err, "{}", progress_line(rows.len(), total, &what));
            let _ = err.flush();
        }
        if Instant::now() > deadline {
            return Err(NativeError(format!(
                "the benchmark ran past {} s",
                BENCH_TIMEOUT.as_secs()
            )));
        }
        let r = native_locks::run(run).map_err(|e| NativeError(format!("{what}: {e}")))?;
        let row = LockBenchRow::from_report(run, &r);
        if !row.counter_ok {
            return Err(NativeError(format!(
                "{what}: the protected counter is {} after {} acquisitions: two threads were inside together",
                r.protected_counter,
                r.total_all()
            )));
        }
        crate::trace::run_done(&what, &run.scenario());
        #[cfg(unix)]
        crate::platform::interrupt::measured(&row);
        rows.push(row);
    }
    if progress {
        let _ = writeln!(err, "{}", progress_line(total, total, "done"));
    }
    Ok(rows)
}

/// The lock rows as an aligned table.
pub fn render_locks(rows: &[LockBenchRow]) -> String {
    let head = [
        "lock",
        "threads",
        "cs_ns",
        "layout",
        "ops/s",
        "min_share",
        "max_share",
        "sleeps",
        "spins",
        "yields",
        "nvcsw",
        "wait_p50",
        "wait_p99",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                if r.form == Form::Stepped.name() {
                    format!("{} (stepped)", r.lock)
                } else {
                    r.lock.clone()
                },
                r.threads.to_string(),
                r.cs_ns.to_string(),
                if r.padded { "padded" } else { "packed" }.to_string(),
                si(r.ops_per_sec),
                format!("{:.3}", r.min_share),
                format!("{:.3}", r.max_share),
                si(r.sleeps as f64),
                si(r.spins as f64),
                si(r.yields as f64),
                si(r.nvcsw as f64),
                r.wait_p50_ns.to_string(),
                r.wait_p99_ns.to_string(),
            ]
        })
        .collect();
    let line = table_lines(&head, &cells);
    let mut out = line(&head.map(String::from));
    let mut last: Option<(bool, u64, u32)> = None;
    for (r, c) in rows.iter().zip(&cells) {
        let key = (r.padded, r.cs_ns, r.threads);
        if last.is_some_and(|k| k != key) {
            out.push('\n');
        }
        last = Some(key);
        out.push_str(&line(c));
    }
    out
}
