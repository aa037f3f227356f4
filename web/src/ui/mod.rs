//! Generic components, one per file: they show the plain views of [`crate::live::snapshot`] (and
//! a mechanism's own views, passed in as data) and turn clicks and keys into
//! [`crate::live::sim_model::Action`]s. No file here names a mechanism; a mechanism's own panels are
//! in its folder under [`crate::mechanisms`].

pub mod announce;
pub mod block_errors;
pub mod code_panel;
pub mod compare_table;
pub mod controls;
pub mod counters;
pub mod cpus;
pub mod diff_table;
pub mod help;
pub mod lanes;
pub mod last_walk;
pub mod lazy;
pub mod main_sim;
pub mod param_form;
pub mod predict;
pub mod replay_progress;
pub mod shell;
pub mod sim_board;
pub mod status;
#[cfg(feature = "timeline")]
pub mod timeline;
pub mod wait_queue;
pub mod widget_head;
pub mod words;
pub mod worker_bars;
