//! The pool's parameters, its key table ([`Pool`] implements [`Mechanism`]), the simulation it
//! starts and the report of a run.

use serde::{Deserialize, Serialize};

use super::invariants;
use super::machine::{
    words, EventLoop, Injector, PoolActor, PoolConfig, PoolThread, PoolVariant, Wake, MAX_SLOTS,
};
use crate::check::Violation;
use crate::cost::CostModel;
use crate::machine::Machine;
use crate::mechanism::{Key, KeyKind, Mechanism};
use crate::scenario::ParamError;
use crate::sim::accept::AcceptModel;
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
use crate::sim::{Role, SchedPolicy, Simulation, WorldSpec};

/// A simulation of a pool scenario.
pub type PoolSim = Simulation<PoolActor>;

/// The parameters of a pool scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct PoolParams {
    /// Pool threads (T), 1-64.
    pub threads: u32,
    /// `max_queue`, 0-65536.
    pub max_queue: u32,
    /// Whether blocking reads go to the pool.
    pub offload: bool,
    /// Signal or broadcast.
    pub wake: Wake,
    /// The blocking read's time in microseconds.
    pub task_us: u32,
    /// Percent of requests that need a blocking read.
    pub blocking_pct: u32,
    /// How requests arrive.
    pub arrival: ArrivalPattern,
    /// Requests per second (poisson, steady).
    pub rate: u32,
    /// Requests per burst (burst).
    pub burst: u32,
    /// Requests in the run.
    pub requests: u32,
    /// Task objects the event loop reuses round robin (a connection's task).
    pub slots: u32,
    /// Simulated CPUs.
    pub cpus: u32,
    /// `ngx_spinlock`'s spin.
    pub spin: u32,
    /// Spurious wakeups to inject.
    pub spurious: u32,
    /// Which code runs.
    pub variant: PoolVariant,
    /// The seed.
    pub seed: u64,
}

impl Default for PoolParams {
    fn default() -> Self {
        PoolParams {
            threads: 4,
            max_queue: 65536,
            offload: true,
            wake: Wake::Signal,
            task_us: 1000,
            blocking_pct: 10,
            arrival: ArrivalPattern::Poisson,
            rate: 5000,
            burst: 8,
            requests: 200,
            slots: MAX_SLOTS,
            cpus: 4,
            spin: 2048,
            spurious: 0,
            variant: PoolVariant::Correct,
            seed: 1,
        }
    }
}

/// nginx's thread pool, as a mechanism.
pub struct Pool;

const KEYS: &[Key] = &[
    Key {
        name: "threads",
        kind: KeyKind::Range {
            lo: 1,
            hi: 64,
            unit: "",
        },
        help: "pool threads (thread_pool threads=)",
    },
    Key {
        name: "max_queue",
        kind: KeyKind::Range {
            lo: 0,
            hi: 65536,
            unit: "",
        },
        help: "thread_pool max_queue=: posts are refused once waiting >= max_queue",
    },
    Key {
        name: "offload",
        kind: KeyKind::Switch,
        help: "blocking reads go to the pool (off: the event loop reads itself)",
    },
    Key {
        name: "wake",
        kind: KeyKind::OneOf(&Wake::NAMES),
        help: "how a post wakes a pool thread",
    },
    Key {
        name: "task_us",
        kind: KeyKind::Range {
            lo: 1,
            hi: 1_000_000,
            unit: "µs",
        },
        help: "the blocking read's time",
    },
    Key {
        name: "blocking_pct",
        kind: KeyKind::Range {
            lo: 0,
            hi: 100,
            unit: "%",
        },
        help: "share of requests that need a blocking read (the rest are cache hits)",
    },
    Key {
        name: "arrival",
        kind: KeyKind::OneOf(&ArrivalPattern::NAMES),
        help: "how requests arrive",
    },
    Key {
        name: "rate",
        kind: KeyKind::Range {
            lo: 1,
            hi: 10_000_000,
            unit: "per second",
        },
        help: "requests per second (poisson, steady)",
    },
    Key {
        name: "burst",
        kind: KeyKind::Range {
            lo: 1,
            hi: 1000,
            unit: "",
        },
        help: "requests per burst (burst)",
    },
    Key {
        name: "requests",
        kind: KeyKind::Range {
            lo: 1,
            hi: 1_000_000,
            unit: "",
        },
        help: "requests in the run",
    },
    Key {
        name: "slots",
        kind: KeyKind::Range {
            lo: 1,
            hi: MAX_SLOTS as u64,
            unit: "",
        },
        help: "task objects, reused round robin (a connection keeps one)",
    },
    Key {
        name: "cpus",
        kind: KeyKind::Range {
            lo: 1,
            hi: 64,
            unit: "",
        },
        help: "simulated CPUs",
    },
    Key {
        name: "spin",
        kind: KeyKind::Range {
            lo: 1,
            hi: 2048,
            unit: "",
        },
        help: "ngx_spinlock's spin on the done list (nginx: 2048)",
    },
    Key {
        name: "spurious",
        kind: KeyKind::Range {
            lo: 0,
            hi: 16,
            unit: "",
        },
        help: "spurious wakeups to inject (POSIX allows them)",
    },
    Key {
        name: "variant",
        kind: KeyKind::OneOf(&PoolVariant::NAMES),
        help: "nginx's code or a broken variant",
    },
    Key {
        name: "seed",
        kind: KeyKind::Range {
            lo: 0,
            hi: u64::MAX,
            unit: "",
        },
        help: "the seed",
    },
];

fn key(name: &str) -> &'static Key {
    KEYS.iter()
        .find(|k| k.name == name)
        .expect("a key of the table")
}

fn range_u32(name: &str, v: &str) -> Result<u32, ParamError> {
    key(name).parse_u64(v).map(|n| n as u32)
}

impl Mechanism for Pool {
    fn bench_charts() -> Vec<crate::chart::ChartSpec> {
        use crate::chart::{ChartSpec, XAxis};
        const THREADS: XAxis = XAxis::Column {
            key: "threads",
            label: "pool threads",
            log: false,
        };
        vec![
            ChartSpec {
                title: "Tasks per second vs pool threads",
                x: THREADS,
                y: "tasks_per_sec",
                y_label: "tasks per second",
                series: &["scenario", "pool", "task_ns"],
            },
            ChartSpec {
                title: "Task wait (post to dequeue), 99th percentile, vs pool threads",
                x: THREADS,
                y: "wait_p99_ns",
                y_label: "p99 wait (ns)",
                series: &["scenario", "pool", "task_ns"],
            },
        ]
    }

    const NAME: &'static str = "pool";
    const TITLE: &'static str = "nginx's thread pool";
    type Params = PoolParams;
    type Thread = PoolActor;
    const KEYS: &'static [Key] = KEYS;

    fn simulate_with(p: &PoolParams, cost: CostModel) -> PoolSim {
        p.simulate_with(cost)
    }

    fn set(p: &mut PoolParams, k: &str, v: &str) -> Result<(), ParamError> {
        match k {
            "threads" => p.threads = range_u32(k, v)?,
            "max_queue" => p.max_queue = range_u32(k, v)?,
            "offload" => p.offload = key(k).parse_switch(v)?,
            "wake" => p.wake = key(k).parse_name(v, Wake::from_name)?,
            "task_us" => p.task_us = range_u32(k, v)?,
            "blocking_pct" => p.blocking_pct = range_u32(k, v)?,
            "arrival" => p.arrival = key(k).parse_name(v, ArrivalPattern::from_name)?,
            "rate" => p.rate = range_u32(k, v)?,
            "burst" => p.burst = range_u32(k, v)?,
            "requests" => p.requests = range_u32(k, v)?,
            "slots" => p.slots = range_u32(k, v)?,
            "cpus" => p.cpus = range_u32(k, v)?,
            "spin" => p.spin = range_u32(k, v)?,
            "spurious" => p.spurious = range_u32(k, v)?,
            "variant" => p.variant = key(k).parse_name(v, PoolVariant::from_name)?,
            "seed" => p.seed = key(k).parse_u64(v)?,
            _ => return Err(crate::mechanism::unknown_key(KEYS, k)),
        }
        Ok(())
    }

    fn get(p: &PoolParams, k: &str) -> Option<String> {
        Some(match k {
            "threads" => p.threads.to_string(),
            "max_queue" => p.max_queue.to_string(),
            "offload" => if p.offload { "on" } else { "off" }.to_string(),
            "wake" => p.wake.name().to_string(),
            "task_us" => p.task_us.to_string(),
            "blocking_pct" => p.blocking_pct.to_string(),
            "arrival" => p.arrival.name().to_string(),
            "rate" => p.rate.to_string(),
            "burst" => p.burst.to_string(),
            "requests" => p.requests.to_string(),
            "slots" => p.slots.to_string(),
            "cpus" => p.cpus.to_string(),
            "spin" => p.spin.to_string(),
            "spurious" => p.spurious.to_string(),
            "variant" => p.variant.name().to_string(),
            "seed" => p.seed.to_string(),
            _ => return None,
        })
    }

    fn validate(p: &PoolParams) -> Vec<ParamError> {
        let mut errs = Vec::new();
        let fields: [(&str, u64); 12] = [
            ("threads", p.threads as u64),
            ("max_queue", p.max_queue as u64),
            ("task_us", p.task_us as u64),
            ("blocking_pct", p.blocking_pct as u64),
            ("rate", p.rate as u64),
            ("burst", p.burst as u64),
            ("requests", p.requests as u64),
            ("slots", p.slots as u64),
            ("cpus", p.cpus as u64),
            ("spin", p.spin as u64),
            ("spurious", p.spurious as u64),
            ("seed", p.seed),
        ];
        for (name, v) in fields {
            if let Err(e) = key(name).parse_u64(&v.to_string()) {
                errs.push(e);
            }
        }
        errs
    }

    fn reset(p: &mut PoolParams, field: &str) {
        let d = PoolParams::default();
        match field {
            "threads" => p.threads = d.threads,
            "max_queue" => p.max_queue = d.max_queue,
            "offload" => p.offload = d.offload,
            "wake" => p.wake = d.wake,
            "task_us" => p.task_us = d.task_us,
            "blocking_pct" => p.blocking_pct = d.blocking_pct,
            "arrival" => p.arrival = d.arrival,
            "rate" => p.rate = d.rate,
            "burst" => p.burst = d.burst,
            "requests" => p.requests = d.requests,
            "slots" => p.slots = d.slots,
            "cpus" => p.cpus = d.cpus,
            "spin" => p.spin = d.spin,
            "spurious" => p.spurious = d.spurious,
            "variant" => p.variant = d.variant,
            "seed" => p.seed = d.seed,
            _ => {}
        }
    }
}

impl PoolParams {
    /// The checker's scenario: T = 2 pool threads, 3 requests that all block, over 2 task objects
    /// (the third request reuses the first task), `max_queue = 1`, one CPU, no spin, steady arrivals.
    pub fn check_preset() -> Self {
        PoolParams {
            threads: 2,
            max_queue: 1,
            offload: true,
            wake: Wake::Signal,
            task_us: 1,
            blocking_pct: 100,
            arrival: ArrivalPattern::Steady,
            rate: 1_000_000,
            burst: 1,
            requests: 3,
            slots: 2,
            cpus: 1,
            spin: 1,
            spurious: 0,
            variant: PoolVariant::Correct,
            seed: 1,
        }
    }

    /// What every thread knows.
    pub fn config(&self) -> PoolConfig {
        PoolConfig {
            threads: self.threads.clamp(1, 64),
            max_queue: self.max_queue.min(65536),
            offload: self.offload,
            wake: self.wake,
            task_ns: self.task_us.max(1) as u64 * 1000,
            blocking_pct: self.blocking_pct.min(100),
            slots: self.slots.clamp(1, MAX_SLOTS),
            variant: self.variant,
            spin: self.spin.max(1),
            ncpu: self.cpus.max(1),
            seed: self.seed,
        }
    }

    /// The threads: the event loop (index 0), the pool threads (1..=T), then the injector if any.
    pub fn threads(&self) -> Vec<(PoolActor, Role)> {
        let cfg = self.config();
        let mut v = vec![(PoolActor::Loop(EventLoop::new(cfg)), Role::Producer)];
        for _ in 0..cfg.threads {
            v.push((PoolActor::Thread(PoolThread::new(cfg)), Role::Worker));
        }
        if self.spurious > 0 {
            v.push((
                PoolActor::Injector(Injector::new(self.spurious.min(16), cfg.task_ns)),
                Role::Peer,
            ));
        }
        v
    }

    /// A fresh simulation.
    pub fn simulate(&self) -> PoolSim {
        self.simulate_with(CostModel::default())
    }

    /// A fresh simulation with an explicit cost model.
    pub fn simulate_with(&self, cost: CostModel) -> PoolSim {
        let cfg = self.config();
        let world = WorldSpec {
            words: words(cfg.slots).into(),
            mutexes: 1,
            condvars: 1,
            sems: 0,
            network: false,
            accept: AcceptModel::default(),
            cpus: self.cpus.clamp(1, 64) as u8,
            cost,
            arrivals: Arrivals::new(
                self.arrival,
                self.requests.max(1),
                self.burst,
                self.rate,
                self.seed,
            ),
            seed: self.seed,
            net: None,
            sched: SchedPolicy::Fifo,
        };
        Simulation::new(world, self.threads())
    }

    /// Run to the end (at most `max_steps` steps), checking the invariants after every step; the
    /// report carries the first violation.
    pub fn run(&self, max_steps: u64) -> (PoolSim, PoolReport) {
        let mut sim = self.simulate();
        let mut violation = invariants::check_state(&sim);
        let mut n = 0;
        while n < max_steps && sim.step().is_some() {
            n += 1;
            if violation.is_none() {
                violation = invariants::check_state(&sim);
            }
        }
        if violation.is_none() {
            violation = invariants::check_terminal(&sim);
        }
        let report = PoolReport::of(&sim, violation);
        (sim, report)
    }
}

/// What a pool run counted. The first seven fields are the `herdlab sim pool --json` keys.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolReport {
    /// Tasks posted successfully (the exit tasks of the destroy included).
    pub tasks_posted: u32,
    /// Tasks whose completion ran on the event loop.
    pub tasks_done: u32,
    /// Posts refused with "queue overflow".
    pub overflows: u32,
    /// Pool threads woken from `cond_wait` (by a post or a spurious wakeup).
    pub wakeups: u64,
    /// Of those, wakeups after which the thread went back to `cond_wait` without a task.
    pub wasted_wakeups: u64,
    /// Completion handler calls: eventfd wakes that found a count (one drains k tasks).
    pub notify_wakes: u32,
    /// Simulated time at the end.
    pub sim_time_ns: u64,
    /// Requests that arrived.
    pub requests: u32,
    /// Served from cache on the event loop.
    pub cached: u32,
    /// Blocking reads done on the event loop itself (no pool).
    pub inline_reads: u32,
    /// Posts refused with "task already active".
    pub already_active: u32,
    /// The most tasks one completion handler call took.
    pub max_batch: u32,
    /// Cache hits' latency, median: simulated ns from the request's arrival to its cached response
    /// served on the loop (0 with no cache hit). Waiting behind a blocking read on the loop
    /// (offload off) is what makes it climb.
    pub cache_p50_ns: u64,
    /// Cache hits' latency, 99th percentile, simulated ns (0 with no cache hit).
    pub cache_p99_ns: u64,
    /// Cache hits' latency, mean, simulated ns (0 with no cache hit): it climbs with the share of
    /// requests that block the loop, where the 99th percentile is already one read long.
    pub cache_mean_ns: u64,
    /// The first broken invariant, if any.
    pub violation: Option<Violation>,
}

impl PoolReport {
    /// The report of a simulation as it stands.
    pub fn of(sim: &PoolSim, violation: Option<Violation>) -> Self {
        let lat = sim.event_latency();
        let mut r = PoolReport {
            sim_time_ns: sim.metrics().sim_time_ns,
            cache_p50_ns: lat.percentile(50.0).unwrap_or(0),
            cache_p99_ns: lat.percentile(99.0).unwrap_or(0),
            cache_mean_ns: lat.mean().unwrap_or(0),
            violation,
            ..Default::default()
        };
        for t in sim.threads() {
            match t.machine() {
                PoolActor::Loop(e) => {
                    let c = e.counts();
                    r.tasks_posted = c.tasks_posted;
                    r.tasks_done = c.tasks_done;
                    r.overflows = c.overflows;
                    r.notify_wakes = c.notify_wakes;
                    r.requests = c.requests;
                    r.cached = c.cached;
                    r.inline_reads = c.inline_reads;
                    r.already_active = c.already_active;
                    r.max_batch = c.max_batch;
                }
                PoolActor::Thread(_) => {
                    r.wakeups += t.metrics().wakeups;
                    r.wasted_wakeups += t.metrics().wasted_wakeups;
                }
                PoolActor::Injector(_) => {}
            }
        }
        r
    }
}

/// The machine of thread `i` of a simulation (for tests and views).
pub fn actor(sim: &PoolSim, i: usize) -> &PoolActor {
    sim.threads()[i].machine()
}

/// Whether every thread of the simulation has exited.
pub fn all_exited(sim: &PoolSim) -> bool {
    sim.threads().iter().all(|t| t.machine().is_done())
}
