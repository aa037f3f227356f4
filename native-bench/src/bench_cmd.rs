//! `herdlab bench herd`: the herd variants on real threads, per thread count; `herdlab bench
//! locks`: core's locks on real threads beside `std::sync::Mutex` and `parking_lot::Mutex`.

use std::io::Write;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::native_herd::{self, Variant};
use crate::native_locks::{self, BenchLock, Bound, Form, LockRun};
use crate::platform::NativeError;

/// The thread counts of a full run.
pub const DEFAULT_THREADS: [u32; 4] = [2, 8, 32, 128];
/// The thread counts of `--quick`.
pub const QUICK_THREADS: [u32; 3] = [2, 8, 32];
/// Events per row of a full run.
pub const DEFAULT_EVENTS: u32 = 200;
/// Events per row of `--quick`.
pub const QUICK_EVENTS: u32 = 50;
/// The longest a whole benchmark may take.
pub const BENCH_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// One row of the benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// The variant's label (`futex wake-all`, …, `accept`).
    pub variant: String,
    /// Worker threads.
    pub threads: u32,
    /// Events measured.
    pub events: u32,
    /// Wakeups per event.
    pub wakeups_per_event: f64,
    /// Wasted wakeups per event.
    pub wasted_per_event: f64,
    /// The workers' voluntary context switches per event.
    pub nvcsw_per_event: f64,
    /// Median time from an event to the start of its work, nanoseconds.
    pub event_p50_ns: u64,
    /// 99th percentile of the same.
    pub event_p99_ns: u64,
    /// Jobs handled (`Work` operations) in the run; equals `events` when nothing was lost or
    /// duplicated.
    pub work_items: u64,
}

impl BenchRow {
    /// The row of one run.
    pub fn from_report(variant: Variant, r: &native_herd::RunReport) -> Self {
        BenchRow {
            variant: variant.label().to_string(),
            threads: r.threads,
            events: r.events,
            wakeups_per_event: r.per_event(r.wakeups),
            wasted_per_event: r.per_event(r.wasted_wakeups),
            nvcsw_per_event: r.per_event(r.nvcsw),
            event_p50_ns: r.latency_quantile(0.50),
            event_p99_ns: r.latency_quantile(0.99),
            work_items: r.work_items,
        }
    }
}

pub(crate) fn progress_line(done: usize, total: usize, what: &str) -> String {
    const WIDTH: usize = 20;
    let filled = (done * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    // padded with spaces so a shorter line overwrites a longer one (no terminal escapes)
    format!(
        "\r{:<72}",
        format!(
            "[{}{}] {done}/{total} {what}",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled)
        )
    )
}

/// Run every variant at every thread count (`events` each), printing progress on stderr when
/// `progress`.
pub fn run(threads: &[u32], events: u32, progress: bool) -> Result<Vec<BenchRow>, NativeError> {
    crate::platform::supported()?;
    let deadline = Instant::now() + BENCH_TIMEOUT;
    let total = threads.len() * Variant::ALL.len();
    let mut rows = Vec::with_capacity(total);
    let mut err = std::io::stderr();
    for &n in threads {
        for v in Variant::ALL {
            if progress {
                let _ = write!(
                    err,
                    "{}",
                    progress_line(rows.len(), total, &format!("{} N={n}", v.label()))
                );
                let _ = err.flush();
            }
            if Instant::now() > deadline {
                return Err(NativeError(format!(
                    "the benchmark ran past {} s",
                    BENCH_TIMEOUT.as_secs()
                )));
            }
            let r = native_herd::run(v, n, events)
                .map_err(|e| NativeError(format!("{} N={n}: {e}", v.label())))?;
            rows.push(BenchRow::from_report(v, &r));
        }
    }
    if progress {
        let _ = writeln!(err, "{}", progress_line(total, total, "done"));
    }
    Ok(rows)
}

/// The rows as an aligned table.
pub fn render(rows: &[BenchRow]) -> String {
    let head = [
        "variant",
        "threads",
        "events",
        "wakeups/event",
        "wasted/event",
        "nvcsw/event",
        "p50 ns",
        "p99 ns",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                r.variant.clone(),
                r.threads.to_string(),
                r.events.to_string(),
                format!("{:.2}", r.wakeups_per_event),
                format!("{:.2}", r.wasted_per_event),
                format!("{:.2}", r.nvcsw_per_event),
                r.event_p50_ns.to_string(),
                r.event_p99_ns.to_string(),
            ]
        })
        .collect();
    let line = table_lines(&head, &cells);
    let mut out = line(&head.map(String::from));
    for c in &cells {
        out.push_str(&line(c));
    }
    out
}

/// The line maker of an aligned table with columns `head` over `cells`: the first column
/// left-aligned, the others right-aligned, each as wide as its widest cell.
pub(crate) fn table_lines<C: AsRef<[String]>>(
    head: &[&str],
    cells: &[C],
) -> impl Fn(&[String]) -> String {
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for c in cells {
        for (i, s) in c.as_ref().iter().enumerate() {
            w[i] = w[i].max(s.len());
        }
    }
    move |c: &[String]| {
        let mut s = format!("{:<w0$}", c[0], w0 = w[0]);
        for i in 1..c.len() {
            s.push_str(&format!("  {:>wi$}", c[i], wi = w[i]));
        }
        s.push('\n');
        s
    }
}

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
        rows.push(row);
    }
    if progress {
        let _ = writeln!(err, "{}", progress_line(total, total, "done"));
    }
    Ok(rows)
}

pub(crate) fn si(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_bar_fills() {
        let s = progress_line(10, 20, "futex wake-all N=32");
        assert!(s.starts_with("\r[##########          ] 10/20 futex wake-all N=32"));
        assert!(progress_line(0, 0, "x").contains("[####################]"));
    }

    #[test]
    fn table_is_aligned() {
        let row = BenchRow {
            variant: "futex wake-all".into(),
            threads: 8,
            events: 50,
            wakeups_per_event: 8.0,
            wasted_per_event: 7.0,
            nvcsw_per_event: 8.0,
            event_p50_ns: 12_000,
            event_p99_ns: 40_000,
            work_items: 50,
        };
        let t = render(&[
            row.clone(),
            BenchRow {
                variant: "accept".into(),
                ..row
            },
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
        assert!(lines[1].contains("7.00"));
    }
}
