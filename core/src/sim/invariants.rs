//! The invariants the simulator checks after every step (see the module docs of [`super`]).

use super::Simulation;
use crate::machine::Machine;

impl<M: Machine> Simulation<M> {
    /// The no-lost-wakeup check (module docs of [`super`]), after every step. The cheap test (does
    /// every worker sleep?) goes first: the queues are read only when it holds.
    pub(super) fn check_invariants(&mut self) {
        let all_asleep = self.network && self.workers > 0 && self.asleep_workers == self.workers;
        if all_asleep {
            let waiting = self
                .k
                .listeners
                .iter()
                .find_map(|l| l.queue.front().copied());
            // in the event-driven world a worker also wakes for its timer or its connections'
            // clients
            let timer_pending = self
                .net
                .as_ref()
                .is_some_and(|n| !n.timers.is_empty() || !n.client.is_empty());
            if let (Some(conn), false) = (waiting, timer_pending) {
                if !self.lost_episode {
                    self.lost_episode = true;
                    self.metrics.lost_wakeups += 1;
                    if self.first_violation.is_none() {
                        self.first_violation = Some((self.metrics.steps, conn));
                    }
                }
                return;
            }
        }
        if self.asleep_workers < self.workers {
            self.lost_episode = false;
        }
    }
}
