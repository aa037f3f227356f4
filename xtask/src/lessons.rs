//! `cargo xtask lessons`: split each `lessons/<slug>.md` into HTML and widget blocks and write the
//! lesson files the site fetches, `web/generated/lessons/<slug>.txt` (format in
//! `herdlab_lessons::file`). Trunk runs it before every build (a `pre_build` hook in `Trunk.toml`)
//! and `index.html` copies the folder into `dist/lessons/`; the folder is ignored by git.
//!
//! The splitter is the site's own (crate `herdlab-lessons`, `crates/lessons/`, also used by the
//! site's build script and tests), so the site carries no Markdown parser and no lesson text in its wasm. A file is rewritten only when its content
//! changes (so that `trunk serve`'s watcher is not woken for nothing), and files of lessons that no
//! longer exist are removed.
//!
//! The glossary (`lessons/glossary.md`) is split here too: each lesson's `[words](glossary:<id>)`
//! links become term elements with a tooltip holding the term's one-line definition
//! (`herdlab_lessons::glossary::link_terms`; a link to an id the glossary lacks fails the build),
//! and the glossary page's HTML is written as `glossary.txt`, in the lesson file format, for the
//! site's `#/glossary` page to fetch.
//!
//! A table marked `<!-- chart: … -->` is drawn as a chart above it, as inline SVG
//! ([`crate::lesson_charts`]; a marker that does not fit its table fails the build).

use std::fs;
use std::path::Path;

use crate::{lesson_charts, Ctx};

use herdlab_lessons::markdown::Segment;
use herdlab_lessons::{file, glossary, list, markdown};

pub use file::GENERATED_DIR;

/// Writes every lesson file; returns how many were (re)written.
pub fn write(ctx: &Ctx) -> Result<usize, String> {
    let out = ctx.root.join(GENERATED_DIR);
    fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut changed = 0;
    let mut keep = Vec::new();
    let mut charts = 0;
    let gloss_path = ctx.root.join("lessons").join(glossary::FILE);
    let gloss_src = fs::read_to_string(&gloss_path)
        .map_err(|e| format!("cannot read the glossary {}: {e}", gloss_path.display()))?;
    let terms =
        glossary::parse(&gloss_src).map_err(|e| format!("lessons/{}: {e}", glossary::FILE))?;
    for (slug, file) in list::LESSON_FILES {
        let src_path = ctx.root.join("lessons").join(file);
        let src = fs::read_to_string(&src_path)
            .map_err(|e| format!("cannot read lesson {}: {e}", src_path.display()))?;
        let (src, n) = lesson_charts::render(&format!("lessons/{file}"), &src)?;
        charts += n;
        let mut tips = 0;
        let segments = markdown::segments(&src)
            .into_iter()
            .map(|seg| match seg {
                Segment::Html(h) => glossary::link_terms(&h, &terms, &mut tips).map(Segment::Html),
                other => Ok(other),
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("lessons/{file}: {e}"))?;
        let text = file::encode(slug, &segments);
        let name = format!("{slug}.txt");
        if write_if_changed(&out.join(&name), &text)? {
            changed += 1;
        }
        keep.push(name);
    }
    let page = vec![Segment::Html(glossary::page_html(&gloss_src, &terms))];
    let name = format!("{}.txt", glossary::SLUG);
    if write_if_changed(&out.join(&name), &file::encode(glossary::SLUG, &page))? {
        changed += 1;
    }
    keep.push(name);
    let entries = fs::read_dir(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !keep.contains(&name) {
            let path = entry.path();
            fs::remove_file(&path)
                .map_err(|e| format!("cannot remove the stale {}: {e}", path.display()))?;
            changed += 1;
        }
    }
    println!(
        "lessons: {} lesson files ({charts} charts) and the glossary ({} terms) in {GENERATED_DIR}/ ({changed} written or removed)",
        keep.len() - 1,
        terms.len()
    );
    Ok(changed)
}

/// Writes `text` to `path` unless the file already holds it; returns whether it wrote.
fn write_if_changed(path: &Path, text: &str) -> Result<bool, String> {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(true)
}
