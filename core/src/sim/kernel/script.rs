//! A scripted machine for the kernel model's unit tests: it asks for its operations in order,
//! one a step (the next once the last completed), then exits. With the world those tests share
//! ([`world`]) and a step by hand ([`step`]).

use crate::cost::CostModel;
use crate::machine::Machine;
use crate::op::{Op, OpResult};
use crate::sim::accept::AcceptModel;
use crate::sim::arrivals::{ArrivalPattern, Arrivals};
#[cfg(any(feature = "mutex-spin", feature = "futex-entry"))]
use crate::sim::{Actor, Note, Simulation};
use crate::sim::{SchedPolicy, WorldSpec};

/// A FIFO world of `words` words, `mutexes` mutexes and `cpus` CPUs, costing `cost` with no
/// jitter, and nothing else.
pub(crate) fn world(words: u16, mutexes: u8, cpus: u8, cost: CostModel) -> WorldSpec {
    WorldSpec {
        words,
        mutexes,
        condvars: 0,
        sems: 0,
        network: false,
        accept: AcceptModel::default(),
        cpus,
        cost: CostModel {
            jitter_pct: 0,
            ..cost
        },
        arrivals: Arrivals::new(ArrivalPattern::Burst, 0, 1, 1, 1),
        seed: 1,
        net: None,
        sched: SchedPolicy::Fifo,
    }
}

/// Step thread `t` by hand: what happened.
#[cfg(any(feature = "mutex-spin", feature = "futex-entry"))]
pub(crate) fn step(s: &mut Simulation<Script>, t: u16) -> Note {
    s.step_actor(Actor::Thread(t)).expect("runnable").note
}

/// The operations, and how many have completed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Script(pub(crate) Vec<Op>, pub(crate) usize);

impl Machine for Script {
    fn next_op(&self) -> Op {
        self.0.get(self.1).copied().unwrap_or(Op::Exit)
    }
    fn complete(&mut self, _: OpResult) {
        self.1 += 1;
    }
    fn line(&self) -> u16 {
        1
    }
    fn listing(&self) -> &'static [&'static str] {
        &["the script"]
    }
}
