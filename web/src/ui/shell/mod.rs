//! The shells every mechanism's widgets are made of: one simulation ([`sim_shell`], framed by
//! [`sim_frame`]) and simulations side by side ([`compare_shell`], framed by [`compare_frame`]);
//! [`handoff`]: a simulation handed to the lazily loaded bundle for its timeline;
//! [`side_by_side`]: the comparison kind of two settings of one simulated scenario, and
//! [`replay`]: a check block's counterexample in its mechanism's widget.

pub mod compare_frame;
pub mod compare_shell;
pub mod handoff;
pub mod replay;
pub mod side_by_side;
pub mod sim_frame;
pub mod sim_shell;
