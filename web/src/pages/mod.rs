//! The site's pages, one per route (`crate::route`).

pub mod bench;
pub mod check;
pub mod check_widget;
pub mod glossary;
pub mod home;
pub mod lesson;
pub mod not_found;
#[cfg(feature = "timeline")]
pub mod trace;
