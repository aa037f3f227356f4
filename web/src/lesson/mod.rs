//! Lessons: the lesson list and the lesson files' decoder ([`catalog`]), the one grammar every
//! widget block shares ([`grammar`]), and the check block ([`check`]) and predict block
//! ([`predict`]) whatever their mechanism.

pub mod catalog;
pub mod check;
pub mod grammar;
pub mod outline;
pub mod parts;
pub mod picks;
pub mod predict;
pub mod toc;
