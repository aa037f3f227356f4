//! The shells every mechanism's widgets are made of: one simulation ([`sim_shell`], framed by
//! [`sim_frame`]) and simulations side by side ([`compare_shell`], framed by [`compare_frame`]);
//! [`handoff`]: a simulation handed to the lazily loaded bundle for its timeline.

pub mod compare_frame;
pub mod compare_shell;
pub mod handoff;
pub mod sim_frame;
pub mod sim_shell;
