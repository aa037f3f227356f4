//! `cargo xtask lessons`: split each `lessons/<slug>.md` into HTML and widget blocks and write the
//! lesson files the site fetches, `web/generated/lessons/<slug>.txt` (format in
//! `herdlab_lessons::file`). Trunk runs it before every build (a `pre_build` hook in `Trunk.toml`)
//! and `index.html` copies the folder into `dist/lessons/`; the folder is ignored by git.
//!
//! The splitter is the site's own (crate `herdlab-lessons`, `crates/lessons/`, also used by the
//! site's build script and tests), so the site carries no Markdown parser and no lesson text in its wasm. A file is rewritten only when its content
//! changes (so that `trunk serve`'s watcher is not woken for nothing), and files of lessons that no
//! longer exist are removed.

use std::fs;
use std::path::Path;

use crate::Ctx;

use herdlab_lessons::{file, list, markdown};

pub use file::GENERATED_DIR;

/// Writes every lesson file; returns how many were (re)written.
pub fn write(ctx: &Ctx) -> Result<usize, String> {
    let out = ctx.root.join(GENERATED_DIR);
    fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut changed = 0;
    let mut keep = Vec::new();
    for (slug, file) in list::LESSON_FILES {
        let src_path = ctx.root.join("lessons").join(file);
        let src = fs::read_to_string(&src_path)
            .map_err(|e| format!("cannot read lesson {}: {e}", src_path.display()))?;
        let text = file::encode(slug, &markdown::segments(&src));
        let name = format!("{slug}.txt");
        if write_if_changed(&out.join(&name), &text)? {
            changed += 1;
        }
        keep.push(name);
    }
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
        "lessons: {} lesson files in {GENERATED_DIR}/ ({changed} written or removed)",
        keep.len()
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
