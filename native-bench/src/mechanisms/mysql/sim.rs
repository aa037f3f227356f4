//! `herdlab sim mysql`: a MySQL scenario run headless on core's simulated platform.

use serde::Serialize;

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::{ClientCpus, Mysql, MysqlParams, MysqlReport};

/// What one headless MySQL simulation reports: core's [`MysqlReport`] first (its first ten
/// fields, `mode` … `rss_bytes`, are the bench contract's keys), then the run's shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimMysqlReport {
    /// Core's report of the run.
    #[serde(flatten)]
    pub report: MysqlReport,
    /// Steps executed.
    pub steps: u64,
    /// `finished` (every query answered) or `running` (the step bound came first).
    pub status: &'static str,
    /// The scenario as a query string (every key present).
    pub scenario: String,
    /// The clients' mean think time as a closed loop, µs (`--think-us`; null: open loop at the
    /// scenario's `rate`).
    pub think_us: Option<u64>,
    /// Whether the closed loop's load generator ran on CPUs of its own (`--clients-apart`).
    pub clients_apart: bool,
    /// The simulated kernel's scheduler (`--sched`: `fair` or `eevdf`).
    pub sched: &'static str,
}

/// Run `p` to the end (at most `max_steps` steps), checking core's invariants after every step;
/// with `think_ns`, the clients are a closed loop of that mean think time
/// ([`MysqlParams::run_closed_on`]), on CPUs of their own if `apart`.
pub fn run_mysql(
    p: &MysqlParams,
    think_ns: Option<u64>,
    apart: bool,
    max_steps: u64,
) -> SimMysqlReport {
    let clients = ClientCpus::apart_if(apart);
    let (sim, report) = match think_ns {
        Some(t) => p.run_closed_on(t, clients, max_steps),
        None => p.run(max_steps),
    };
    let finished = report.queries_done == p.config().queries;
    SimMysqlReport {
        report,
        steps: sim.metrics().steps,
        status: if finished { "finished" } else { "running" },
        scenario: Mysql::to_query(p),
        think_us: think_ns.map(|t| t / 1000),
        clients_apart: apart && think_ns.is_some(),
        sched: p.sched.name(),
    }
}

/// The report as text.
pub fn render_mysql(r: &SimMysqlReport) -> String {
    let p = &r.report;
    let mut out = format!(
        "herdlab sim mysql {}\nthe kernel's scheduler: {} (--sched)\n",
        r.scenario, r.sched
    );
    if let Some(t) = r.think_us {
        out.push_str(&format!(
            "clients: a closed loop, {t} us mean think time (rate unused), {}\n",
            if r.clients_apart {
                "on CPUs of their own"
            } else {
                "receiving on the server's CPUs"
            }
        ));
    }
    out.push_str(&format!(
        "status {}, {} steps, simulated {:.3} ms\n",
        r.status,
        r.steps,
        p.sim_time_ns as f64 / 1e6
    ));
    out.push_str(&format!(
        "mode {}, {} connections: {} of {} queries answered, {:.0} queries/s\n",
        p.mode, p.connections, p.queries_done, p.queries_sent, p.qps
    ));
    out.push_str(&format!(
        "latency p50 {:.1} us, p95 {:.1} us, p99 {:.1} us; inside transactions p99 {:.1} us\n",
        p.p50_ns as f64 / 1e3,
        p.p95_ns as f64 / 1e3,
        p.p99_ns as f64 / 1e3,
        p.txn_p99_ns as f64 / 1e3
    ));
    out.push_str(&format!(
        "threads created {}, most OS threads at once {}, modelled RSS {} MiB, context switches per query {:.2}\n",
        p.threads_created,
        p.os_threads_max,
        p.rss_bytes >> 20,
        p.ctx_switches_per_query
    ));
    if p.mode == "pool" {
        out.push_str(&format!(
            "pool: stalls {}, workers woken from waiting_threads {} (distinct {})\n",
            p.stalls, p.worker_wakeups, p.workers_woken
        ));
    } else {
        out.push_str(&format!(
            "thread cache: {} connections, {} handed to a cached thread\n",
            p.connects, p.cache_hits
        ));
    }
    match &p.violation {
        None => out.push_str("invariants: all held\n"),
        Some(v) => out.push_str(&format!("VIOLATION of {}: {}\n", v.invariant, v.message)),
    }
    out
}
