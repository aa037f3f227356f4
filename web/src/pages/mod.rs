//! The site's pages, one per route (`crate::route`).

pub mod bench;
pub mod check;
pub mod check_widget;
pub mod glossary;
pub mod home;
#[cfg(feature = "lazy")]
pub mod lazy_widget;
pub mod lesson;
pub mod not_found;
pub mod results;
#[cfg(feature = "lazy")]
pub mod results_view;
#[cfg(feature = "lazy")]
pub mod sim_handoff;
#[cfg(feature = "timeline")]
pub mod trace;
pub mod trace_route;
