//! Invariants of the accept strategies, for the simulator and the model checker.
