//! # herdlab-lessons
//!
//! The lessons as the build sees them, shared by `web/build.rs` (which compiles the lesson list
//! into the site: slugs, titles, summaries, version tags) and `cargo xtask lessons` (which splits
//! each `lessons/<slug>.md` and writes the lesson files the site fetches), and by the site's tests.
//! The site itself carries no Markdown parser and no lesson text in its wasm.
//!
//! - [`list`]: every lesson, in reading order, and the version tag of a lesson file;
//! - [`text`]: a lesson's title and summary as plain text;
//! - [`markdown`]: the split of a lesson's Markdown into HTML and widget segments (the splitter,
//!   `markdown::segments`, with the `split` feature);
//! - [`file`](mod@file): the lesson file format;
//! - [`glossary`]: the glossary's entries, the lessons' term links (tooltips) and the glossary page.
//!
//! ```
//! use herdlab_lessons::{list, text};
//! assert_eq!(list::LESSON_FILES[0], ("thundering-herd", "thundering-herd.md"));
//! assert_eq!(text::title("# The *herd*\n\nIt wakes.\n", "x"), "The herd");
//! ```
#![warn(missing_docs)]

pub mod file;
pub mod glossary;
pub mod list;
pub mod markdown;
pub mod text;

/// The source of the code that splits and writes the lesson files ([`markdown`], [`glossary`] and [`file`](mod@file)):
/// part of each lesson file's version tag ([`list::version_tag`]), so that a change to how the
/// files are written gives every file a new tag.
pub const WRITER_SOURCES: [&str; 3] = [
    include_str!("markdown.rs"),
    include_str!("glossary.rs"),
    include_str!("file.rs"),
];

/// The source of the code that draws a lesson's chart markers (`<!-- chart: … -->`) as SVG when
/// `cargo xtask lessons` writes the files (`xtask/src/lesson_charts.rs`, drawing with
/// `core/src/chart.rs`): part of each lesson file's version tag, so that a change to how the charts
/// are drawn gives every file a new tag too.
pub const CHART_SOURCES: [&str; 2] = [
    include_str!("../../../xtask/src/lesson_charts.rs"),
    include_str!("../../../core/src/chart.rs"),
];

/// The glossary's Markdown (`lessons/glossary.md`): the lesson files carry its definitions in their
/// term tooltips, so it is part of every lesson file's version tag.
pub const GLOSSARY_SOURCE: &str = include_str!("../../../lessons/glossary.md");

/// The version tag of the lesson file of a lesson whose Markdown is `source`: [`list::version_tag`]
/// over the Markdown, [`WRITER_SOURCES`], [`CHART_SOURCES`] and [`GLOSSARY_SOURCE`].
pub fn lesson_version(source: &str) -> String {
    let mut parts = vec![source];
    parts.extend(WRITER_SOURCES);
    parts.extend(CHART_SOURCES);
    parts.push(GLOSSARY_SOURCE);
    list::version_tag(&parts)
}
