//! MySQL's parameters, its key table ([`Mysql`] implements [`Mechanism`]), the simulation it
//! starts and the report of a run (the `herdlab sim mysql --json` keys).

use serde::{Deserialize, Serialize};

use super::invariants;
use super::machine::{
    Clients, ConnThread, Mode, MysqlActor, MysqlConfig, MysqlVariant, Timer, Worker, ALIVE,
    MAX_CONNECTIONS, MAX_GROUPS, MAX_GROUP_THREADS, NUM_WORKERS,
};
use crate::check::Violation;
use crate::cost::CostModel;
use crate::mechanism::{Key, KeyKind, Mechanism};
use crate::scenario::ParamError;
use crate::sim::accept::AcceptModel;
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
use crate::sim::{Role, SchedPolicy, Simulation, WorldSpec};

/// A simulation of a MySQL scenario.
pub type MysqlSim = Simulation<MysqlActor>;

/// Clock events after the last query in the checker's scenarios.
pub const CHECK_DRAIN: u32 = 2;

/// Closed loop: the load generator's threads that receive the responses, on the server's CPUs
/// (`herdlab bench mysql`'s two client threads).
pub const CLOSED_CLIENT_THREADS: u32 = 2;

/// The closed loop's arrival stream at most (a mean gap of 10 ns): think times below
/// `connections` × 10 ns are drawn longer than asked.
pub const MAX_CLOSED_RATE: u32 = 100_000_000;

/// Where a closed loop's load generator runs ([`MysqlParams::run_closed_on`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ClientCpus {
    /// Its receiving threads on the server's CPUs: a woken one may preempt a server thread (a
    /// load generator that shares the machine's CPUs with the server; the sending side runs
    /// apart either way, see [`MysqlParams::config_closed`]).
    #[default]
    Shared,
    /// Each of its threads on a CPU of its own, none of the server's
    /// ([`Simulation::threads_on_own_cpus`]): a load generator pinned away from the server.
    Apart,
}

impl ClientCpus {
    /// [`ClientCpus::Apart`] if `apart`, else [`ClientCpus::Shared`].
    pub fn apart_if(apart: bool) -> Self {
        if apart {
            ClientCpus::Apart
        } else {
            ClientCpus::Shared
        }
    }
}

/// The modelled stack of one OS thread (`thread_stack`, 1 MiB by default in 8.0).
pub const STACK_BYTES: u64 = 1 << 20;

/// The parameters of a MySQL scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct MysqlParams {
    /// `thread_handling`.
    pub mode: Mode,
    /// Client connections (1-4096).
    pub connections: u32,
    /// `thread_pool_size`: thread groups (1-7 in the simulator).
    pub groups: u32,
    /// Simulated CPUs.
    pub cpus: u32,
    /// `thread_pool_stall_limit`, ms.
    pub stall_ms: u32,
    /// `thread_pool_oversubscribe`.
    pub oversubscribe: u32,
    /// `thread_pool_high_prio_tickets` (0 disables the high-priority queue).
    pub tickets: u32,
    /// `thread_pool_max_threads`.
    pub max_threads: u32,
    /// Thread slots per group (the model's cap).
    pub group_threads: u32,
    /// `max_connections` (+1 for an account with `CONNECTION_ADMIN`).
    pub max_connections: u32,
    /// `thread_cache_size` (autosized 8 + max_connections/100 = 9 at the default 151).
    pub cache_size: u32,
    /// Queries a connection sends before the client closes and reconnects.
    pub queries_per_conn: u32,
    /// Statements per transaction.
    pub txn_statements: u32,
    /// Queries in the run.
    pub queries: u32,
    /// Queries per second over all clients (Poisson).
    pub rate: u32,
    /// CPU time of a query, µs.
    pub cpu_us: u32,
    /// Percent of queries that take the hot row lock.
    pub lock_pct: u32,
    /// CPU time of one long query (the first of group 0), ms; 0: none.
    pub long_ms: u32,
    /// Which code runs.
    pub variant: MysqlVariant,
    /// The seed.
    pub seed: u64,
    /// Pool: model the logins (1): every connection's `add_connection` queues its login with
    /// `queue_put` at the start, which wakes or creates a worker when the group has no active
    /// thread, and a worker handles it before the connection's socket is armed; 0: connections
    /// start logged in (the lessons' and `--compare-sim`'s scenarios).
    pub logins: u32,
    /// The simulated kernel's scheduler: [`SchedPolicy::Fair`] (least CPU time first, the
    /// lessons' and the site's scenarios) or [`SchedPolicy::Eevdf`] (Linux 6.6 and later; what
    /// `bench mysql --compare-sim` runs on such a kernel; `--sched`). Not one of the scenario's
    /// keys ([`SCHEDS`]).
    pub sched: SchedPolicy,
}

/// The schedulers a mysql scenario may run on ([`MysqlParams::sched`]; `--sched` of `herdlab sim
/// mysql` and `bench mysql`). Not a scenario key: the site's main bundle carries every
/// mechanism's key table, and this one did not fit its size budget.
pub const SCHEDS: [&str; 2] = ["fair", "eevdf"];

/// The scheduler of [`SCHEDS`] named `s`.
pub fn sched_from_name(s: &str) -> Option<SchedPolicy> {
    SCHEDS
        .contains(&s)
        .then(|| SchedPolicy::from_name(s))
        .flatten()
}

impl Default for MysqlParams {
    fn default() -> Self {
        MysqlParams {
            mode: Mode::Pool,
            connections: 64,
            groups: 2,
            cpus: 2,
            stall_ms: 500,
            oversubscribe: 3,
            tickets: u32::MAX,
            max_threads: 100_000,
            group_threads: MAX_GROUP_THREADS,
            max_connections: 151,
            cache_size: 9,
            queries_per_conn: 1_000_000,
            txn_statements: 1,
            queries: 400,
            rate: 20_000,
            cpu_us: 50,
            lock_pct: 0,
            long_ms: 0,
            variant: MysqlVariant::Correct,
            seed: 1,
            logins: 0,
            sched: SchedPolicy::Fair,
        }
    }
}

/// MySQL's connection handling, as a mechanism.
pub struct Mysql;

const fn range(
    name: &'static str,
    lo: u64,
    hi: u64,
    unit: &'static str,
    help: &'static str,
) -> Key {
    Key {
        name,
        kind: KeyKind::Range { lo, hi, unit },
        help,
    }
}

const KEYS: &[Key] = &[
    Key {
        name: "mode",
        kind: KeyKind::OneOf(&Mode::NAMES),
        help: "thread_handling: one thread per connection (with the thread cache) or the pool",
    },
    range(
        "connections",
        1,
        MAX_CONNECTIONS as u64,
        "",
        "client connections",
    ),
    range(
        "groups",
        1,
        MAX_GROUPS as u64,
        "",
        "thread_pool_size: thread groups",
    ),
    range("cpus", 1, 64, "", "simulated CPUs"),
    range(
        "stall_ms",
        10,
        60_000,
        "ms",
        "thread_pool_stall_limit: the timer's tick",
    ),
    range(
        "oversubscribe",
        1,
        1000,
        "",
        "thread_pool_oversubscribe: soft cap 1 + this per group",
    ),
    range(
        "tickets",
        0,
        u32::MAX as u64,
        "",
        "thread_pool_high_prio_tickets (0: no high-priority queue)",
    ),
    range("max_threads", 1, 100_000, "", "thread_pool_max_threads"),
    range(
        "group_threads",
        2,
        MAX_GROUP_THREADS as u64,
        "",
        "thread slots per group (the model's cap)",
    ),
    range(
        "max_connections",
        1,
        100_000,
        "",
        "max_connections (+1 for CONNECTION_ADMIN)",
    ),
    range(
        "cache_size",
        0,
        16384,
        "",
        "thread_cache_size (autosized 8 + max_connections/100)",
    ),
    range(
        "queries_per_conn",
        1,
        1_000_000,
        "",
        "queries before the client reconnects (churn)",
    ),
    range("txn_statements", 1, 100, "", "statements per transaction"),
    range("queries", 1, 1_000_000, "", "queries in the run"),
    range(
        "rate",
        1,
        10_000_000,
        "per second",
        "queries per second over all clients",
    ),
    range("cpu_us", 1, 1_000_000, "µs", "CPU time of a query"),
    range(
        "lock_pct",
        0,
        100,
        "%",
        "queries that take the hot row lock (a blocking wait)",
    ),
    range(
        "long_ms",
        0,
        60_000,
        "ms",
        "one long query in group 0 (0: none)",
    ),
    Key {
        name: "variant",
        kind: KeyKind::OneOf(&MysqlVariant::NAMES),
        help: "the real code or a broken variant",
    },
    range("seed", 0, u64::MAX, "", "the seed"),
    range(
        "logins",
        0,
        1,
        "",
        "pool: 1 queues every connection's login at the start (queue_put); 0: logged in",
    ),
];

fn key(name: &str) -> &'static Key {
    KEYS.iter()
        .find(|k| k.name == name)
        .expect("a key of the table")
}

fn range_u32(name: &str, v: &str) -> Result<u32, ParamError> {
    key(name).parse_u64(v).map(|n| n as u32)
}

impl Mechanism for Mysql {
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        use crate::chart::{ChartSpec, XAxis};
        vec![
            ChartSpec {
                title: "Queries per second vs connections",
                x: XAxis::Column {
                    key: "connections",
                    label: "client connections",
                    log: true,
                },
                y: "qps",
                y_label: "queries per second",
                series: &["mode"],
            },
            ChartSpec {
                title: "Latency, 95th percentile, vs connections",
                x: XAxis::Column {
                    key: "connections",
                    label: "client connections",
                    log: true,
                },
                y: "p95_ns",
                y_label: "p95 latency (ns)",
                series: &["mode"],
            },
            ChartSpec {
                title: "Most server threads at once vs connections",
                x: XAxis::Column {
                    key: "connections",
                    label: "client connections",
                    log: true,
                },
                y: "os_threads_max",
                y_label: "server threads",
                series: &["mode"],
            },
            ChartSpec {
                title: "Query latency percentiles, per mode",
                x: XAxis::Columns {
                    columns: &[("p50", "p50_ns"), ("p95", "p95_ns"), ("p99", "p99_ns")],
                    label: "percentile",
                },
                y: "",
                y_label: "send to answer (ns)",
                series: &["mode", "connections"],
            },
        ]
    }

    const NAME: &'static str = "mysql";
    const TITLE: &'static str = "MySQL's connection handling";
    type Params = MysqlParams;
    type Thread = MysqlActor;

    fn simulate_with(p: &MysqlParams, cost: CostModel) -> MysqlSim {
        p.simulate_with(cost)
    }
    const KEYS: &'static [Key] = KEYS;

    fn set(p: &mut MysqlParams, k: &str, v: &str) -> Result<(), ParamError> {
        match k {
            "mode" => p.mode = key(k).parse_name(v, Mode::from_name)?,
            "connections" => p.connections = range_u32(k, v)?,
            "groups" => p.groups = range_u32(k, v)?,
            "cpus" => p.cpus = range_u32(k, v)?,
            "stall_ms" => p.stall_ms = range_u32(k, v)?,
            "oversubscribe" => p.oversubscribe = range_u32(k, v)?,
            "tickets" => p.tickets = range_u32(k, v)?,
            "max_threads" => p.max_threads = range_u32(k, v)?,
            "group_threads" => p.group_threads = range_u32(k, v)?,
            "max_connections" => p.max_connections = range_u32(k, v)?,
            "cache_size" => p.cache_size = range_u32(k, v)?,
            "queries_per_conn" => p.queries_per_conn = range_u32(k, v)?,
            "txn_statements" => p.txn_statements = range_u32(k, v)?,
            "queries" => p.queries = range_u32(k, v)?,
            "rate" => p.rate = range_u32(k, v)?,
            "cpu_us" => p.cpu_us = range_u32(k, v)?,
            "lock_pct" => p.lock_pct = range_u32(k, v)?,
            "long_ms" => p.long_ms = range_u32(k, v)?,
            "variant" => p.variant = key(k).parse_name(v, MysqlVariant::from_name)?,
            "seed" => p.seed = key(k).parse_u64(v)?,
            "logins" => p.logins = range_u32(k, v)?,
            _ => return Err(crate::mechanism::unknown_key(KEYS, k)),
        }
        Ok(())
    }

    fn get(p: &MysqlParams, k: &str) -> Option<String> {
        Some(match k {
            "mode" => p.mode.name().to_string(),
            "connections" => p.connections.to_string(),
            "groups" => p.groups.to_string(),
            "cpus" => p.cpus.to_string(),
            "stall_ms" => p.stall_ms.to_string(),
            "oversubscribe" => p.oversubscribe.to_string(),
            "tickets" => p.tickets.to_string(),
            "max_threads" => p.max_threads.to_string(),
            "group_threads" => p.group_threads.to_string(),
            "max_connections" => p.max_connections.to_string(),
            "cache_size" => p.cache_size.to_string(),
            "queries_per_conn" => p.queries_per_conn.to_string(),
            "txn_statements" => p.txn_statements.to_string(),
            "queries" => p.queries.to_string(),
            "rate" => p.rate.to_string(),
            "cpu_us" => p.cpu_us.to_string(),
            "lock_pct" => p.lock_pct.to_string(),
            "long_ms" => p.long_ms.to_string(),
            "variant" => p.variant.name().to_string(),
            "seed" => p.seed.to_string(),
            "logins" => p.logins.to_string(),
            _ => return None,
        })
    }

    fn validate(p: &MysqlParams) -> Vec<ParamError> {
        let mut errs = Vec::new();
        for k in KEYS {
            if let KeyKind::Range { .. } = k.kind {
                if let Some(v) = Self::get(p, k.name) {
                    if let Err(e) = k.parse_u64(&v) {
                        errs.push(e);
                    }
                }
            }
        }
        if p.connections > p.max_connections.saturating_add(1) {
            errs.push(ParamError {
                field: "connections".to_string(),
                message: format!(
                    "{} exceeds max_connections + 1 ({}): the rest would be refused with ER_CON_COUNT_ERROR",
                    p.connections,
                    p.max_connections.saturating_add(1)
                ),
            });
        }
        errs
    }

    fn reset(p: &mut MysqlParams, field: &str) {
        let d = MysqlParams::default();
        if let Some(v) = Self::get(&d, field) {
            let _ = Self::set(p, field, &v);
        }
    }
}

impl MysqlParams {
    /// The checker's pool scenario: one group of at most 2 threads, 2 connections, 2 queries that
    /// all take the hot row lock (so `thd_wait_begin` and `wake_or_create_thread` run), one CPU, a
    /// 10 ms stall limit; [`CHECK_DRAIN`] clock events after the queries.
    pub fn check_preset() -> Self {
        MysqlParams {
            mode: Mode::Pool,
            connections: 2,
            groups: 1,
            cpus: 1,
            stall_ms: 10,
            oversubscribe: 1,
            group_threads: 2,
            queries: 2,
            rate: 1_000_000,
            cpu_us: 1,
            lock_pct: 100,
            ..Default::default()
        }
    }

    /// The checker's login scenario (`no-listener-wake`'s): one group of at most 2 threads, one
    /// connection that logs in ([`MysqlParams::logins`]) and sends one query, one CPU, a 10 ms
    /// stall limit. `queue_put` finds the group's one thread listening (`active == 0`) and must
    /// wake or create a worker for the login.
    pub fn check_preset_login() -> Self {
        MysqlParams {
            connections: 1,
            queries: 1,
            lock_pct: 0,
            logins: 1,
            ..Self::check_preset()
        }
    }

    /// The checker's thread-per-connection scenario: 2 clients that reconnect after every query,
    /// a cache of 1, 4 queries; seed 4 sends them from clients 1, 0, 1, 0. Both clients connect
    /// at the start (a thread each, the cache still empty), so two connections handed to the
    /// cache at once need two reconnections, one per client (a client has one connection on the
    /// server at a time): 4 queries at least.
    pub fn check_preset_cache() -> Self {
        MysqlParams {
            seed: 4,
            mode: Mode::PerConnection,
            connections: 2,
            cpus: 1,
            cache_size: 1,
            queries_per_conn: 1,
            queries: 4,
            rate: 1_000_000,
            cpu_us: 1,
            ..Default::default()
        }
    }

    /// `thread_cache_size`'s autosize: 8 + `max_connections`/100, at most 100.
    pub fn autosized_cache(max_connections: u32) -> u32 {
        (8 + max_connections / 100).min(100)
    }

    /// What every thread knows.
    pub fn config(&self) -> MysqlConfig {
        let connections = self.connections.clamp(1, MAX_CONNECTIONS);
        MysqlConfig {
            mode: self.mode,
            connections,
            groups: self.groups.clamp(1, MAX_GROUPS).min(connections),
            group_threads: self.group_threads.clamp(2, MAX_GROUP_THREADS),
            max_threads: self.max_threads.max(1),
            oversubscribe: self.oversubscribe.clamp(1, 1000),
            stall_ns: self.stall_ms.max(10) as u64 * 1_000_000,
            high_prio: self.tickets > 0,
            cache_size: self.cache_size.min(16384),
            queries_per_conn: self.queries_per_conn.max(1),
            txn_statements: self.txn_statements.max(1),
            queries: self.queries.max(1),
            cpu_ns: self.cpu_us.max(1) as u64 * 1000,
            lock_pct: self.lock_pct.min(100),
            long_ns: self.long_ms as u64 * 1_000_000,
            variant: self.variant,
            seed: self.seed,
            think_ns: 0,
            receivers: 0,
            logins: self.mode == Mode::Pool && self.logins > 0,
        }
    }

    /// [`MysqlParams::config`] with the clients as a closed loop of mean think time `think_ns`
    /// ([`MysqlConfig::closed`]; at least 1 ns), as `herdlab bench mysql`'s load generator:
    /// `rate` is then not used (each client sends `1 / think` per second while it waits for
    /// nothing).
    pub fn config_closed(&self, think_ns: u64) -> MysqlConfig {
        let cfg = self.config();
        MysqlConfig {
            think_ns: think_ns.max(1),
            receivers: CLOSED_CLIENT_THREADS.min(cfg.connections),
            ..cfg
        }
    }

    /// Clock-only events after the last query (pool): enough for the timer to keep ticking while
    /// the work could last (the long query, every query's CPU time in a row, four stall limits).
    /// [`MysqlParams::run`] stops once every query is answered, so the rest are never stepped.
    pub fn drain_events(&self) -> u32 {
        let cfg = self.config();
        if cfg.mode != Mode::Pool {
            return 0;
        }
        // the queries' CPU time run one after another bounds how long the work may take
        let span_ns = cfg.long_ns + cfg.queries as u64 * cfg.cpu_ns + 4 * cfg.stall_ns;
        let n = (self.rate.max(1) as u128 * span_ns as u128 / 1_000_000_000) as u64;
        n.clamp(4, 1_000_000) as u32
    }

    /// The threads: the clients (index 0), then the pool's timer and worker slots (group by
    /// group), or the thread-per-connection slots.
    pub fn threads(&self) -> Vec<(MysqlActor, Role)> {
        Self::threads_of(self.config())
    }

    fn threads_of(cfg: MysqlConfig) -> Vec<(MysqlActor, Role)> {
        let mut v = vec![(
            MysqlActor::Clients(Clients::new(cfg).connect_at_start()),
            Role::Producer,
        )];
        match cfg.mode {
            Mode::Pool => {
                v.push((MysqlActor::Timer(Timer::new(cfg)), Role::Peer));
                for grp in 0..cfg.groups {
                    for i in 0..cfg.group_threads {
                        let slot = (grp * MAX_GROUP_THREADS + i) as u8;
                        v.push((
                            MysqlActor::Worker(Worker::new(cfg, grp as u8, slot)),
                            Role::Worker,
                        ));
                    }
                }
            }
            Mode::PerConnection => {
                for _ in 0..cfg.slots() {
                    v.push((MysqlActor::Conn(ConnThread::new(cfg)), Role::Worker));
                }
            }
        }
        // closed loop: the load generator's threads that receive the responses, last (the
        // server's threads keep their indices)
        for i in 0..if cfg.closed() { cfg.receivers } else { 0 } {
            v.push((MysqlActor::Clients(Clients::receiver(cfg, i)), Role::Peer));
        }
        v
    }

    /// A fresh simulation.
    pub fn simulate(&self) -> MysqlSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model.
    pub fn simulate_with(&self, cost: CostModel) -> MysqlSim {
        self.simulate_parts(cost, self.drain_events())
    }

    /// A fresh simulation with `drain` clock events after the last query (the checker keeps them
    /// few: each is explored).
    pub fn simulate_drain(&self, drain: u32) -> MysqlSim {
        self.simulate_parts(CostModel::default(), drain)
    }

    fn simulate_parts(&self, cost: CostModel, drain: u32) -> MysqlSim {
        self.simulate_cfg(self.config(), cost, drain, ClientCpus::Shared)
    }

    /// The closed loop's arrival stream: the rate at which every client would send if none
    /// waited for an answer, `connections / think`, at most [`MAX_CLOSED_RATE`] (the stream's
    /// mean gap stays at least 10 ns), and enough arrivals for `queries` sends even when most
    /// clients wait (thinned arrivals are only clock events: each costs a few steps).
    fn closed_arrivals(cfg: &MysqlConfig) -> (u32, u32) {
        let rate = (cfg.connections.max(1) as u128 * 1_000_000_000 / cfg.think_ns.max(1) as u128)
            .clamp(1, MAX_CLOSED_RATE as u128) as u32;
        let total = (cfg.queries as u64 * (cfg.connections as u64 + 1) * 16).min(u32::MAX as u64);
        (rate, total as u32)
    }

    fn simulate_cfg(
        &self,
        cfg: MysqlConfig,
        cost: CostModel,
        drain: u32,
        clients: ClientCpus,
    ) -> MysqlSim {
        let (rate, total) = if cfg.closed() {
            Self::closed_arrivals(&cfg)
        } else {
            (self.rate.max(1), cfg.queries + drain)
        };
        let world = WorldSpec {
            words: cfg.words(),
            mutexes: MAX_GROUPS as u8,
            condvars: (MAX_GROUPS * MAX_GROUP_THREADS) as u8,
            sems: MAX_GROUPS as u8,
            network: false,
            accept: AcceptModel::default(),
            cpus: self.cpus.clamp(1, 64) as u8,
            cost,
            arrivals: Arrivals::new(ArrivalPattern::Poisson, total, 1, rate, self.seed),
            seed: self.seed,
            net: None,
            sched: self.sched,
        };
        let mut sim = Simulation::new(world, Self::threads_of(cfg));
        if cfg.closed() {
            // the closed loop's thinned arrivals wake the clients far more often than a real
            // client wakes: on the server's CPUs they would preempt its threads for nothing
            sim.producer_on_own_cpu();
            if clients == ClientCpus::Apart {
                // the receiving threads are the last ones
                let first = sim.threads().len() - cfg.receivers as usize;
                sim.threads_on_own_cpus(|tid, _| tid >= first);
            }
        }
        sim
    }

    /// Run to the end (at most `max_steps` steps), checking the invariants after every step; the
    /// report carries the first violation.
    pub fn run(&self, max_steps: u64) -> (MysqlSim, MysqlReport) {
        self.run_cfg(self.config(), ClientCpus::Shared, max_steps)
    }

    /// [`MysqlParams::run`] with the clients as a closed loop of mean think time `think_ns`
    /// ([`MysqlParams::config_closed`]): what `herdlab sim mysql --think-us` and `herdlab bench
    /// mysql --compare-sim` run, as the native load generator's clients are.
    pub fn run_closed(&self, think_ns: u64, max_steps: u64) -> (MysqlSim, MysqlReport) {
        self.run_closed_on(think_ns, ClientCpus::Shared, max_steps)
    }

    /// [`MysqlParams::run_closed`] with the load generator's receiving threads where `clients`
    /// says: on the server's CPUs ([`ClientCpus::Shared`], as `run_closed`) or each on a CPU of
    /// its own ([`ClientCpus::Apart`]: `herdlab bench mysql --client-cpus N` with N ≥ 1 pins
    /// its clients away from the server, and its `--compare-sim` runs this). `self.cpus` are
    /// the server's CPUs either way.
    pub fn run_closed_on(
        &self,
        think_ns: u64,
        clients: ClientCpus,
        max_steps: u64,
    ) -> (MysqlSim, MysqlReport) {
        self.run_cfg(self.config_closed(think_ns), clients, max_steps)
    }

    fn run_cfg(
        &self,
        cfg: MysqlConfig,
        clients: ClientCpus,
        max_steps: u64,
    ) -> (MysqlSim, MysqlReport) {
        let mut sim = self.simulate_cfg(cfg, CostModel::default(), self.drain_events(), clients);
        let mut violation = invariants::check_state(&sim);
        let mut peak = 0u32;
        let mut n = 0;
        // the run ends when every query was sent and answered (the clock events after the last
        // query only keep the timer ticking until then)
        while n < max_steps && sim.step().is_some() {
            n += 1;
            if violation.is_none() {
                violation = invariants::check_state(&sim);
            }
            peak = peak.max(match self.mode {
                Mode::Pool => sim.word(NUM_WORKERS) + 1,
                Mode::PerConnection => sim.word(ALIVE),
            });
            let (sent, done) = invariants::progress(&sim);
            if sent == cfg.queries && done == sent as usize {
                break;
            }
        }
        if violation.is_none() {
            violation = invariants::check_terminal(&sim);
        }
        let report = MysqlReport::of(&sim, peak, violation);
        (sim, report)
    }
}

/// What a MySQL run measured. The first ten fields are the `herdlab sim mysql --json` keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MysqlReport {
    /// `per-connection` or `pool`.
    pub mode: String,
    /// Client connections.
    pub connections: u32,
    /// Queries finished per second of simulated time (to the last one).
    pub qps: f64,
    /// Median latency (arrival to response), ns.
    pub p50_ns: u64,
    /// 95th percentile latency, ns.
    pub p95_ns: u64,
    /// 99th percentile latency, ns.
    pub p99_ns: u64,
    /// `Threads_created` (pool: workers created, the first of each group included).
    pub threads_created: u32,
    /// The most OS threads alive at once (pool: workers + the timer).
    pub os_threads_max: u32,
    /// The server's context switches per finished query: the voluntary and involuntary
    /// switches of the server's threads (pool: workers and the timer; per-connection: the
    /// connections' threads), as `getrusage` counts them natively (`ru_nvcsw + ru_nivcsw`) less
    /// the load generator's; the clients' own switches are not the server's.
    pub ctx_switches_per_query: f64,
    /// Modelled: [`STACK_BYTES`] per OS thread at the peak.
    pub rss_bytes: u64,
    /// Of `ctx_switches_per_query`, the voluntary ones (a server thread blocked: `ru_nvcsw`).
    pub ctx_switches_voluntary_per_query: f64,
    /// Queries sent.
    pub queries_sent: u32,
    /// Queries finished.
    pub queries_done: u32,
    /// 99th percentile latency of high-priority events (statements inside a transaction), ns.
    pub high_p99_ns: u64,
    /// 99th percentile latency of the statements inside a transaction (statements 2.. of one),
    /// whichever queue they went to, ns (0: no transactions).
    pub txn_p99_ns: u64,
    /// Pool: distinct workers ever woken from `waiting_threads` (LIFO keeps waking the same hot
    /// few; FIFO wakes every sleeper in turn).
    pub workers_woken: u32,
    /// Pool: stalls the timer declared.
    pub stalls: u32,
    /// Pool: workers woken from `waiting_threads`.
    pub worker_wakeups: u32,
    /// Per-connection: connections handed to a cached thread.
    pub cache_hits: u32,
    /// Per-connection: connections opened (each one is handed to a cached thread or creates one).
    pub connects: u32,
    /// Simulated time at the end, ns.
    pub sim_time_ns: u64,
    /// The first broken invariant, if any.
    pub violation: Option<Violation>,
}

fn percentile(sorted: &[u64], pct: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as u64 * pct).div_ceil(100)).max(1) - 1;
    sorted[(i as usize).min(sorted.len() - 1)]
}

impl MysqlReport {
    /// The report of a simulation as it stands; `peak` is the most OS threads seen at once.
    pub fn of(sim: &MysqlSim, peak: u32, violation: Option<Violation>) -> Self {
        let mut r = MysqlReport {
            sim_time_ns: sim.metrics().sim_time_ns,
            os_threads_max: peak,
            rss_bytes: peak as u64 * STACK_BYTES,
            violation,
            ..Default::default()
        };
        let clients = match sim.threads()[0].machine() {
            MysqlActor::Clients(c) => c,
            _ => unreachable!("thread 0 is the clients"),
        };
        r.mode = clients.cfg.mode.name().to_string();
        r.connections = clients.cfg.connections;
        r.queries_sent = clients.sent;
        let mut lat = Vec::new();
        let mut high = Vec::new();
        let mut txn = Vec::new();
        let mut last = 0u64;
        let mut first = u64::MAX;
        let mut record = |f: &super::machine::Finished, high_stream: bool| {
            if let Some(&a) = clients
                .arrivals
                .get(f.stream as usize)
                .and_then(|s| s.get(f.ordinal as usize))
            {
                let l = f.at_ns.saturating_sub(a);
                lat.push(l);
                if high_stream {
                    high.push(l);
                }
                let in_txn = clients
                    .in_txn
                    .get(f.stream as usize)
                    .and_then(|s| s.get(f.ordinal as usize));
                if in_txn == Some(&true) {
                    txn.push(l);
                }
                first = first.min(a);
            }
            last = last.max(f.at_ns);
        };
        let (mut server_switches, mut server_voluntary) = (0u64, 0u64);
        for t in sim.threads() {
            if !matches!(t.machine(), MysqlActor::Clients(_)) {
                let m = t.metrics();
                server_switches += m.voluntary_switches + m.involuntary_switches;
                server_voluntary += m.voluntary_switches;
            }
            match t.machine() {
                MysqlActor::Worker(w) => {
                    r.threads_created += w.born;
                    r.worker_wakeups += w.wakeups;
                    r.workers_woken += u32::from(w.wakeups > 0);
                    for f in &w.done {
                        record(f, f.stream % 2 == 1);
                    }
                }
                MysqlActor::Conn(c) => {
                    for f in &c.done {
                        record(f, false);
                    }
                }
                MysqlActor::Timer(tm) => r.stalls = tm.stalls,
                MysqlActor::Clients(_) => {}
            }
        }
        if clients.cfg.mode == Mode::PerConnection {
            r.threads_created = clients.threads_created;
            r.cache_hits = clients.handed_off;
            r.connects = clients.connects;
        }
        r.queries_done = lat.len() as u32;
        lat.sort_unstable();
        high.sort_unstable();
        txn.sort_unstable();
        r.txn_p99_ns = percentile(&txn, 99);
        r.p50_ns = percentile(&lat, 50);
        r.p95_ns = percentile(&lat, 95);
        r.p99_ns = percentile(&lat, 99);
        r.high_p99_ns = percentile(&high, 99);
        if r.queries_done > 0 && last > first {
            r.qps = r.queries_done as f64 * 1e9 / (last - first) as f64;
            r.ctx_switches_per_query = server_switches as f64 / r.queries_done as f64;
            r.ctx_switches_voluntary_per_query = server_voluntary as f64 / r.queries_done as f64;
        }
        r
    }
}
