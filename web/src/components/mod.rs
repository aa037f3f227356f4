//! The view: one component per file. Components hold no simulation logic; they show snapshots
//! ([`crate::snapshot`]) and turn clicks and keys into [`crate::model::Action`]s.

pub mod accept_queue;
pub mod announce;
pub mod bench;
pub mod block_errors;
pub mod check_page;
pub mod check_widget;
pub mod code_panel;
pub mod compare;
pub mod controls;
pub mod counters;
pub mod cpus;
pub mod diff_table;
pub mod help;
pub mod home;
pub mod invariant_status;
pub mod lanes;
pub mod last_walk;
pub mod lesson_page;
pub mod lock_compare;
pub mod lock_widget;
pub mod lock_words;
pub mod main_sim;
pub mod not_found;
pub mod param_form;
pub mod predict;
pub mod sim_widget;
pub mod status;
pub mod wait_queue;
pub mod widget_head;
pub mod worker_bars;
