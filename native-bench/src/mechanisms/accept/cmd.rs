//! `herdlab sim accept` (core's accept scenarios on the simulator, headless) and `herdlab bench
//! accept` (the same machines on real threads and loopback sockets, [`super::native`], with
//! the simulator's prediction beside each row on request).
//!
//! Both print [`AcceptReport`]s, built by `AcceptReport::from_parts` on both platforms, so the JSON
//! keys and the derived figures (per connection, Jain's index, the busiest share) are the same.

use std::io::Write;
use std::time::{Duration, Instant};

use serde::Serialize;

use herdlab_core::mechanisms::accept::{AcceptParams, AcceptReport, Strategy};
use herdlab_core::sim::Status;

use super::native::{self as native_accept, LoadReport, NativeAcceptConfig};
use crate::mechanisms::locks::native::cores;
use crate::output::{progress_line, si, table_lines};
use crate::platform::NativeError;

/// The default bound on the steps of one accept simulation.
pub const DEFAULT_MAX_STEPS: u64 = 2_000_000_000;
/// Workers of `bench accept`, by default.
pub const BENCH_WORKERS: u32 = 8;
/// New connections per second of `bench accept`, by default.
pub const BENCH_RATE: u32 = 200;
/// Connections per strategy of `bench accept` (3 s each at the default rate).
pub const BENCH_CONNECTIONS: u32 = 600;
/// The same with `--quick` (1 s each).
pub const QUICK_CONNECTIONS: u32 = 200;

/// One simulated strategy: the report, and how the simulation ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimAcceptRow {
    /// The report (`platform: "sim"`).
    #[serde(flatten)]
    pub report: AcceptReport,
    /// `finished`, `stuck` or `running` (the step bound was reached).
    pub status: String,
    /// What is stuck, when `status` is `stuck`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck: Option<String>,
    /// Steps executed.
    pub steps: u64,
}

/// Simulate `p` to its end (or `max_steps`).
pub fn simulate(p: &AcceptParams, max_steps: u64) -> SimAcceptRow {
    let mut sim = p.simulate();
    // the row has no trace hash: the steps need not be hashed
    sim.set_trace(false);
    let steps = sim.run(max_steps);
    let (status, stuck) = match sim.status() {
        Status::Running => ("running".to_string(), None),
        Status::Finished => ("finished".to_string(), None),
        Status::Stuck(why) => ("stuck".to_string(), Some(why.clone())),
    };
    SimAcceptRow {
        report: AcceptReport::from_sim(p, &sim),
        status,
        stuck,
        steps,
    }
}

/// `sim accept`: every strategy asked for, in order.
pub fn run_sim(base: &AcceptParams, strategies: &[Strategy], max_steps: u64) -> Vec<SimAcceptRow> {
    strategies
        .iter()
        .map(|&strategy| simulate(&AcceptParams { strategy, ..*base }, max_steps))
        .collect()
}

/// What `bench accept` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptBenchConfig {
    /// The strategies, in order.
    pub strategies: Vec<Strategy>,
    /// The scenario of every row (its strategy is replaced by each row's); `cpus` is this machine's.
    pub params: AcceptParams,
    /// Client threads (connections open at once) at most.
    pub concurrency: u32,
    /// Request bytes.
    pub request_size: u32,
    /// The load generator's time limit per strategy.
    pub time_limit: Duration,
    /// Simulate each row's parameters too.
    pub compare_sim: bool,
    /// The port on 127.0.0.1; 0: a free one the kernel picks.
    pub port: u16,
    /// The listen backlog asked for (the kernel caps it at `net.core.somaxconn`).
    pub backlog: u32,
}

impl AcceptBenchConfig {
    /// The default run (`quick`: fewer connections).
    pub fn new(quick: bool) -> Self {
        AcceptBenchConfig {
            strategies: Strategy::ALL.to_vec(),
            params: AcceptParams {
                workers: BENCH_WORKERS,
                rate: BENCH_RATE,
                connections: if quick {
                    QUICK_CONNECTIONS
                } else {
                    BENCH_CONNECTIONS
                },
                cpus: machine_cpus(),
                ..AcceptParams::default()
            },
            concurrency: native_accept::DEFAULT_CONCURRENCY,
            request_size: native_accept::DEFAULT_REQUEST_SIZE,
            time_limit: native_accept::DEFAULT_TIME_LIMIT,
            compare_sim: false,
            port: 0,
            backlog: native_accept::DEFAULT_BACKLOG,
        }
    }
}

impl AcceptBenchConfig {
    /// Why the run cannot fit its time limit, refused before it starts: its arrival schedule
    /// (core's, the one the load generator follows) runs past `time_limit`, so the generator would
    /// stop early every time. `None` when it fits (or the arrival pattern is not native, which
    /// the run itself refuses).
    pub fn beyond_time_limit(&self) -> Option<String> {
        let p = &self.params;
        let last_ns = *native_accept::arrival_times(p).ok()?.last()?;
        let limit_s = self.time_limit.as_secs();
        if last_ns <= limit_s.saturating_mul(1_000_000_000) {
            return None;
        }
        let span_s = last_ns as f64 / 1e9;
        let longer = if span_s.ceil() as u64 <= native_accept::MAX_TIME_LIMIT_S {
            format!(", or a --time-limit of at least {}", span_s.ceil() as u64)
        } else {
            format!(
                " (the longest --time-limit, {} s, is too short)",
                native_accept::MAX_TIME_LIMIT_S
            )
        };
        Some(format!(
            "--time-limit: {} connections at {}/s ({} arrivals) arrive over {span_s:.1} s, more \
             than the time limit of {limit_s} s; allowed: a schedule within it: about {} \
             connections at this rate, a --rate of at least {}{longer}",
            p.connections,
            p.rate,
            p.arrival.name(),
            u64::from(p.rate).saturating_mul(limit_s).max(1),
            u64::from(p.connections).div_ceil(limit_s.max(1)),
        ))
    }
}

/// This machine's available CPUs, as the simulator takes them (1-16).
pub fn machine_cpus() -> u32 {
    (cores() as u32).clamp(1, 16)
}

/// One row of `bench accept`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AcceptBenchRow {
    /// The measured report (`platform: "native"`).
    #[serde(flatten)]
    pub report: AcceptReport,
    /// The load generator's side.
    pub load: LoadReport,
    /// The workers' involuntary context switches (preemptions).
    pub preemptions: u64,
    /// The listen backlog in effect: the one asked for, capped by `net.core.somaxconn`.
    pub backlog: u32,
    /// Connections the kernel could not queue because an accept queue was full while the row ran
    /// (`TcpExt: ListenOverflows` in `/proc/net/netstat`: system-wide, every listening socket of
    /// this network namespace counts, so other programs' overflows would add to it); `"unknown"`
    /// when the file cannot be read.
    #[serde(serialize_with = "count_or_unknown")]
    pub listen_overflows: Option<u64>,
    /// Every drop at a listening socket over the same time (`TcpExt: ListenDrops`: the overflows
    /// and the rest, system-wide); `"unknown"` when it cannot be read.
    #[serde(serialize_with = "count_or_unknown")]
    pub listen_drops: Option<u64>,
    /// The simulator's report for the same parameters (`--compare-sim`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim: Option<AcceptReport>,
}

/// A count the system may not tell: the number, or the string `"unknown"` (never a 0 it did not
/// measure).
fn count_or_unknown<S: serde::Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(n) => s.serialize_u64(*n),
        None => s.serialize_str("unknown"),
    }
}

/// `net.core.somaxconn`, the most a listen backlog can be, when this machine tells it.
pub fn somaxconn() -> Option<u32> {
    #[cfg(target_os = "linux")]
    return crate::platform::net::somaxconn();
    #[cfg(not(target_os = "linux"))]
    None
}

/// The listen backlog `listen(2)` gives for `asked` on this machine, and `net.core.somaxconn` when
/// it cut it down.
pub fn effective_backlog(asked: u32) -> (u32, Option<u32>) {
    match somaxconn() {
        Some(max) if asked > max => (max, Some(max)),
        _ => (asked, None),
    }
}

/// Run every strategy of `cfg` natively (and simulated, with `compare_sim`), printing progress on
/// stderr when `progress`.
pub fn run_bench(
    cfg: &AcceptBenchConfig,
    progress: bool,
) -> Result<Vec<AcceptBenchRow>, NativeError> {
    native_accept::supported()?;
    let total = cfg.strategies.len();
    let mut rows = Vec::with_capacity(total);
    let mut err = std::io::stderr();
    let t0 = Instant::now();
    for &strategy in &cfg.strategies {
        if progress {
            let _ = write!(
                err,
                "{}",
                progress_line(
                    rows.len(),
                    total,
                    &format!(
                        "{} ({} connections at {}/s)",
                        strategy.name(),
                        cfg.params.connections,
                        cfg.params.rate
                    )
                )
            );
            let _ = err.flush();
        }
        let params = AcceptParams {
            strategy,
            ..cfg.params
        };
        let run = native_accept::run(&NativeAcceptConfig {
            params,
            concurrency: cfg.concurrency,
            request_size: cfg.request_size,
            time_limit: cfg.time_limit,
            port: cfg.port,
            backlog: cfg.backlog,
        })
        .map_err(|e| NativeError(format!("{}: {e}", strategy.name())))?;
        // the load generator runs on this machine's CPUs: the prediction models local clients
        let predicted = AcceptParams {
            local_clients: true,
            ..params
        };
        let sim = cfg
            .compare_sim
            .then(|| simulate(&predicted, DEFAULT_MAX_STEPS).report);
        let row = AcceptBenchRow {
            report: run.report,
            load: run.load,
            preemptions: run.preemptions,
            backlog: effective_backlog(cfg.backlog).0,
            listen_overflows: run.listen_overflows,
            listen_drops: run.listen_drops,
            sim,
        };
        crate::trace::run_done(
            strategy.name(),
            &format!(
                "mechanism=accept&{}",
                <super::Accept as herdlab_core::mechanism::Mechanism>::to_query(&params)
            ),
        );
        #[cfg(unix)]
        crate::platform::interrupt::measured(&row);
        rows.push(row);
    }
    if progress {
        let _ = writeln!(
            err,
            "{}",
            progress_line(
                total,
                total,
                &format!("done in {:.1} s", t0.elapsed().as_secs_f64())
            )
        );
    }
    Ok(rows)
}

fn us(ns: u64) -> String {
    if ns >= 10_000_000 {
        format!("{:.0}ms", ns as f64 / 1e6)
    } else if ns >= 1_000_000 {
        format!("{:.1}ms", ns as f64 / 1e6)
    } else {
        format!("{:.1}us", ns as f64 / 1e3)
    }
}

fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

/// `x` beside its relative difference from `base` (`9.00 (-3%)`).
fn vs(x: f64, base: f64, digits: usize) -> String {
    let s = format!("{x:.digits$}");
    if base.abs() < 1e-9 {
        if x.abs() < 1e-9 {
            s
        } else {
            format!("{s} (n/a)")
        }
    } else {
        format!("{s} ({:+.0}%)", (x - base) / base * 100.0)
    }
}

const HEAD: [&str; 11] = [
    "strategy",
    "platform",
    "wakeups/conn",
    "wasted/conn",
    "EAGAIN/conn",
    "busiest",
    "Jain",
    "conn/s",
    "accept p50",
    "accept p99",
    "per worker",
];

fn cells(r: &AcceptReport, label: &str, base: Option<&AcceptReport>) -> Vec<String> {
    let rel = |x: f64, b: fn(&AcceptReport) -> f64, d: usize| match base {
        Some(n) => vs(x, b(n), d),
        None => format!("{x:.d$}"),
    };
    vec![
        label.to_string(),
        r.platform.clone(),
        rel(r.wakeups_per_connection, |n| n.wakeups_per_connection, 2),
        rel(r.wasted_per_connection, |n| n.wasted_per_connection, 2),
        rel(r.eagain_per_connection, |n| n.eagain_per_connection, 2),
        rel(r.busiest_share, |n| n.busiest_share, 2),
        format!("{:.3}", r.jain_index),
        si(r.connections_per_sec),
        us(r.accept_p50_ns),
        us(r.accept_p99_ns),
        list(&r.per_worker_connections),
    ]
}

fn table(head: &[&str], rows: Vec<Vec<String>>) -> String {
    let line = table_lines(head, &rows);
    let mut out = line(&head.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for c in &rows {
        out.push_str(&line(c));
    }
    out
}

/// The strategy's label with the settings that change its behaviour.
fn label(r: &AcceptReport) -> String {
    if r.strategy == Strategy::Exclusive.name() {
        format!("{} (reorder {})", r.strategy, r.reorder_every)
    } else {
        r.strategy.clone()
    }
}

/// The `bench accept` rows as a table; with the simulation's row under each measured one, its
/// per-connection figures and busiest share followed by their difference from the measurement.
pub fn render_bench(rows: &[AcceptBenchRow]) -> String {
    let mut cs = Vec::new();
    for r in rows {
        let mut c = cells(&r.report, &label(&r.report), None);
        c.push(count(r.listen_overflows));
        cs.push(c);
        if let Some(s) = &r.sim {
            let mut c = cells(s, "", Some(&r.report));
            c.push(String::new());
            cs.push(c);
        }
    }
    let head: Vec<&str> = HEAD.iter().copied().chain(["overflows"]).collect();
    let mut out = table(&head, cs);
    if let Some(r) = rows.first() {
        let p = &r.report;
        out.push_str(&format!(
            "\n{} workers, {} connections per strategy at {}/s, {} request(s) each, {} cpus",
            p.workers,
            p.connections,
            p.rate,
            p.requests_per_connection,
            machine_cpus()
        ));
        out.push_str(
            ";\naccept p50/p99: from the client's connect() returning to the server's accept4() \
             returning, 0 when the server accepted first",
        );
        if rows.iter().any(|r| r.sim.is_some()) {
            out.push_str(";\nsim rows: the simulator's prediction for the same parameters, (±%) its difference from the measurement");
        }
        out.push_str(
            ";\noverflows: connections the kernel dropped on a full accept queue during the row \
             (TcpExt ListenOverflows, system-wide)",
        );
        out.push('\n');
    }
    for r in rows {
        if let Some(n @ 1..) = r.listen_overflows {
            out.push_str(&overflow_line(&r.report.strategy, n, r.backlog));
        }
    }
    out
}

fn count(v: Option<u64>) -> String {
    v.map_or_else(|| "unknown".to_string(), |n| n.to_string())
}

/// The line under the table for a row whose accept queue overflowed `n` times at `backlog`.
fn overflow_line(strategy: &str, n: u64, backlog: u32) -> String {
    let max = count(somaxconn().map(u64::from));
    format!(
        "{strategy}: the listen queue overflowed {n} times with a backlog of {backlog}: those \
         clients' SYNs or handshakes were dropped and retried a second or more later (their accept \
         latency includes it); raise --backlog (up to net.core.somaxconn, {max} here; `sysctl -w \
         net.core.somaxconn=N` as root raises that)\n"
    )
}

/// The `sim accept` rows as a table.
pub fn render_sim(rows: &[SimAcceptRow]) -> String {
    let mut out = table(
        &HEAD,
        rows.iter()
            .map(|r| cells(&r.report, &label(&r.report), None))
            .collect(),
    );
    for r in rows {
        if r.status != "finished" {
            out.push_str(&format!(
                "{}: {} after {} steps{}\n",
                r.report.strategy,
                r.status,
                r.steps,
                r.stuck
                    .as_ref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default()
            ));
        }
    }
    out
}

/// Warnings of the load generator, one line each (printed on stderr beside the table).
pub fn warnings(rows: &[AcceptBenchRow]) -> Vec<String> {
    rows.iter()
        .flat_map(|r| r.load.warnings(&r.report.strategy, r.report.connections))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sim_runs_every_strategy_to_the_end() {
        let p = AcceptParams {
            connections: 20,
            ..AcceptParams::default()
        };
        let rows = run_sim(&p, &Strategy::ALL, DEFAULT_MAX_STEPS);
        assert_eq!(rows.len(), 6);
        for r in &rows {
            assert_eq!(r.status, "finished", "{r:?}");
            assert_eq!(r.report.connections_accepted, 20);
            assert_eq!(r.report.platform, "sim");
        }
        let t = render_sim(&rows);
        assert_eq!(t.lines().count(), 7, "{t}");
        assert!(t.contains("exclusive (reorder 16)"), "{t}");
    }

    #[test]
    fn differences_are_relative_to_the_measurement() {
        assert_eq!(vs(9.0, 10.0, 2), "9.00 (-10%)");
        assert_eq!(vs(0.0, 0.0, 2), "0.00");
        assert_eq!(vs(1.0, 0.0, 2), "1.00 (n/a)");
        assert_eq!(us(12_345), "12.3us");
        assert_eq!(us(2_500_000), "2.5ms");
    }
}
