//! `herdlab bench herd`: the herd variants on real threads, per thread count.

use std::io::Write;
use std::time::Instant;

use crate::mechanisms::BENCH_TIMEOUT;

use serde::Serialize;

use super::native::{self as native_herd, Variant};
use crate::output::{progress_line, table_lines};
use crate::platform::NativeError;

/// The thread counts of a full run.
pub const DEFAULT_THREADS: [u32; 4] = [2, 8, 32, 128];
/// The thread counts of `--quick`.
pub const QUICK_THREADS: [u32; 3] = [2, 8, 32];
/// Events per row of a full run.
pub const DEFAULT_EVENTS: u32 = 200;
/// Events per row of `--quick`.
pub const QUICK_EVENTS: u32 = 50;

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
            let row = BenchRow::from_report(v, &r);
            let mut p = v.params(n);
            p.connections = events;
            crate::trace::run_done(
                &format!("{} N={n}", v.label()),
                &format!(
                    "mechanism=herd&{}",
                    <super::Herd as herdlab_core::mechanism::Mechanism>::to_query(&p)
                ),
            );
            #[cfg(unix)]
            crate::platform::interrupt::measured(&row);
            rows.push(row);
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

#[cfg(test)]
mod tests {
    use super::*;

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
