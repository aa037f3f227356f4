//! `Op::Sleep`, the simulator's timed sleep: the sleeper leaves its CPU (another thread runs
//! there meanwhile), its timer fires at exactly its deadline, and it counts one system call and
//! one voluntary context switch; the checker takes it as a yield point with no time.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::check::{explore, CheckConfig, SimModel};
use herdlab_core::cost::CostModel;
use herdlab_core::machine::Machine;
use herdlab_core::op::{Op, OpResult};
use herdlab_core::sim::accept::AcceptModel;
use herdlab_core::sim::arrivals::{ArrivalPattern, Arrivals};
use herdlab_core::sim::{
    Actor, Note, Role, Sched, SchedPolicy, Simulation, SleepKind, Status, WorldSpec,
};

/// A thread that runs a fixed list of operations, then exits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Script {
    ops: Vec<Op>,
    at: usize,
}

impl Machine for Script {
    fn next_op(&self) -> Op {
        self.ops.get(self.at).copied().unwrap_or(Op::Exit)
    }
    fn complete(&mut self, _: OpResult) {
        self.at += 1;
    }
    fn line(&self) -> u16 {
        1
    }
    fn listing(&self) -> &'static [&'static str] {
        &["the script"]
    }
}

fn world(cpus: u8) -> WorldSpec {
    WorldSpec {
        words: 1,
        mutexes: 0,
        condvars: 0,
        sems: 0,
        network: false,
        accept: AcceptModel::default(),
        cpus,
        cost: CostModel {
            jitter_pct: 0,
            ..CostModel::default()
        },
        arrivals: Arrivals::new(ArrivalPattern::Burst, 0, 1, 1, 1),
        seed: 1,
        net: None,
        sched: SchedPolicy::Fifo,
    }
}

fn script(ops: &[Op]) -> (Script, Role) {
    (
        Script {
            ops: ops.to_vec(),
            at: 0,
        },
        Role::Peer,
    )
}

#[test]
fn a_sleeper_leaves_its_cpu_and_its_timer_fires_at_the_deadline() {
    let cost = world(1).cost;
    // one CPU: thread 0 sleeps 1 ms, thread 1 (queued behind it) works 300 µs meanwhile
    let mut sim = Simulation::new(
        world(1),
        vec![
            script(&[Op::Sleep(1_000_000), Op::Work(10)]),
            script(&[Op::Work(300_000)]),
        ],
    );
    let r = sim.step().unwrap();
    assert_eq!(r.note, Note::Slept { wasted: false });
    let t0 = &sim.threads()[0];
    assert_eq!(
        (t0.sched(), t0.sleep_kind()),
        (Sched::Asleep, SleepKind::Timer)
    );
    let deadline = cost.syscall_ns + 1_000_000;
    assert_eq!(t0.timer(), Some(deadline));
    assert_eq!(sim.metrics().syscalls, 1);
    assert_eq!(t0.metrics().voluntary_switches, 1);
    // the CPU is thread 1's now: it works and exits long before the deadline
    assert_eq!(sim.step().unwrap().actor, Actor::Thread(1));
    assert_eq!(sim.step().unwrap().note, Note::Exited);
    // the timer fires exactly at the deadline, as a step of the sleeper
    let fired = sim.step().unwrap();
    assert_eq!(fired.actor, Actor::Thread(0));
    assert_eq!(fired.time_ns, deadline);
    assert_eq!(fired.note, Note::TimerFired { thread: 0 });
    assert_eq!(sim.threads()[0].timer(), None);
    assert_eq!(sim.threads()[0].sched(), Sched::OnCpu);
    // it runs on from there (its CPU was idle: the model's wakeup cost, then its work)
    assert_eq!(sim.step().unwrap().note, Note::Worked { ns: 10 });
    assert_eq!(sim.step().unwrap().note, Note::Exited);
    assert!(sim.step().is_none());
    assert_eq!(*sim.status(), Status::Finished);
    assert_eq!(
        sim.now_ns(),
        deadline + cost.cross_cpu_wake_ns + cost.context_switch_ns + 10
    );
    // a fired sleep is nobody's wakeup
    assert_eq!(sim.metrics().wakeups, 0);
    assert_eq!(sim.metrics().syscalls, 1);
}

#[test]
fn the_earliest_timer_fires_first_and_a_busy_cpu_queues_the_sleeper() {
    // one CPU: thread 0 sleeps 50 µs, thread 1 sleeps 20 µs, thread 2 computes 1 ms: the
    // timers fire in deadline order, and both sleepers wait in the run queue behind the worker
    let mut sim = Simulation::new(
        world(1),
        vec![
            script(&[Op::Sleep(50_000)]),
            script(&[Op::Sleep(20_000)]),
            script(&[Op::Work(1_000_000)]),
        ],
    );
    let mut fired = Vec::new();
    while let Some(r) = sim.step() {
        if let Note::TimerFired { thread } = r.note {
            fired.push((thread, sim.threads()[thread as usize].sched()));
        }
    }
    assert_eq!(*sim.status(), Status::Finished);
    assert_eq!(fired, [(1, Sched::Queued), (0, Sched::Queued)]);
    assert_eq!(sim.metrics().syscalls, 2);
}

#[test]
fn the_checker_ends_a_sleep_at_any_moment() {
    // thread 0 sleeps, then stores 1; thread 1 stores 2: with no time, both orders of the two
    // stores are reachable (a deadline orders nothing for the checker)
    let w = herdlab_core::op::Word(0);
    let sim = Simulation::new(
        world(2),
        vec![
            script(&[Op::Sleep(1_000_000), Op::Store(w, 1)]),
            script(&[Op::Store(w, 2)]),
        ],
    );
    let finals = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let r = explore(
        SimModel { sim },
        &CheckConfig::default(),
        &|_| None,
        &|m: &SimModel<Script>| {
            finals.borrow_mut().insert(m.sim.word(w));
            None
        },
        &mut |_| true,
    );
    assert!(r.complete);
    assert_eq!(finals.into_inner().into_iter().collect::<Vec<_>>(), [1, 2]);
}
