//! A scripted machine for the kernel model's unit tests: it asks for its operations in order,
//! one a step (the next once the last completed), then exits.

use crate::machine::Machine;
use crate::op::{Op, OpResult};

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
