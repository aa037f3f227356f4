//! Every repository path, Rust name and command that the newcomer's documents name exists.
//!
//! `README.md`, `docs/architecture.md` and `docs/adding-a-mechanism.md` name files in backticks
//! (`core/src/machine/steps.rs`, `web/src/mechanisms/mod.rs`, `python3 web/tools/modgraph.py`…). This
//! test takes every word inside backticks that starts with one of the repository's top-level folders,
//! expands `{a,b}` alternatives, and fails, listing them all, for each path that is not in the working
//! tree. A placeholder (`core/src/mechanisms/<name>/`, `lessons/*.md`) is checked up to the folder
//! before it. Paths the build makes (`dist/`, `web/generated/`, `target/`, `tests/e2e/node_modules/`,
//! `tests/e2e/screenshots/`) are not looked for.
//!
//! Likewise every Rust name they give alone in backticks (`CheckWorld`, `Simulation<M>`,
//! `machine::steps::exec`, `steps!`) must be a word of some Rust file of the workspace, so a renamed
//! type or function shows here. And every command (`cargo xtask <task>`, `herdlab <verb> <sub>
//! --flag…`, in backticks or on a line of a fenced block) must name a task of `xtask/src/main.rs`, a
//! verb of the `herdlab` command, and a subcommand and flags the command's or core's sources name.
//! The tests read the documents and the sources: about two seconds in a debug build.

use std::path::{Path, PathBuf};

/// The documents checked, relative to the repository root.
const DOCS: &[&str] = &[
    "README.md",
    "docs/architecture.md",
    "docs/adding-a-mechanism.md",
];

/// A backticked word naming a path starts with one of these.
const ROOTS: &[&str] = &[
    "core/",
    "web/",
    "native-bench/",
    "xtask/",
    "crates/",
    "tests/",
    "docs/",
    "lessons/",
    ".ci/",
];

/// Made by the build or by setup, never committed.
const BUILT: &[&str] = &[
    "dist/",
    "web/generated/",
    "target/",
    "tests/e2e/node_modules/",
    "tests/e2e/screenshots/",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// The spans between backticks, and every line of a fenced block (a command or a picture) as one
/// span of its own.
fn backticked(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push(line.to_string());
            continue;
        }
        let mut parts = line.split('`');
        parts.next(); // before the first backtick
        while let Some(inside) = parts.next() {
            out.push(inside.to_string());
            parts.next(); // between two spans
        }
    }
    out
}

/// `a/{b,c}/d` → `a/b/d`, `a/c/d` (one level of braces, any number of groups).
fn expand(word: &str) -> Vec<String> {
    match (word.find('{'), word.find('}')) {
        (Some(open), Some(close)) if open < close => {
            let (head, rest) = word.split_at(open);
            let alts = &rest[1..close - open];
            let tail = &rest[close - open + 1..];
            alts.split(',')
                .flat_map(|alt| expand(&format!("{head}{alt}{tail}")))
                .collect()
        }
        _ => vec![word.to_string()],
    }
}

/// The paths a span names: its words that start with a repository folder, trimmed of the
/// punctuation around them, expanded, and cut before the first placeholder.
fn paths_in(span: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in span.split_whitespace() {
        let word =
            word.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';' | '.' | '"' | '\''));
        // `core/src/machine/steps.rs:120` or `…::Item`: the file alone
        let word = word.split("::").next().unwrap_or(word);
        let word = match word.rfind(':') {
            Some(i) if word[i + 1..].chars().all(|c| c.is_ascii_digit()) => &word[..i],
            _ => word,
        };
        if !ROOTS.iter().any(|r| word.starts_with(r)) {
            continue;
        }
        for path in expand(word) {
            let path = match path.find(['<', '*']) {
                // up to the folder that holds the placeholder
                Some(i) => match path[..i].rfind('/') {
                    Some(slash) => path[..=slash].to_string(),
                    None => continue,
                },
                None => path,
            };
            if BUILT.iter().any(|b| path.starts_with(b)) {
                continue;
            }
            out.push(path);
        }
    }
    out
}

#[test]
fn every_path_the_documents_name_exists() {
    let root = root();
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc))
            .unwrap_or_else(|e| panic!("{doc}: cannot read it: {e}"));
        for span in backticked(&text) {
            for path in paths_in(&span) {
                checked += 1;
                if !root.join(&path).exists() {
                    missing.push(format!("{doc}: `{path}` (in `{span}`)"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named in the documents that do not exist:\n  {}",
        missing.join("\n  ")
    );
    // the documents do name paths: a reader that found none would pass on anything
    assert!(checked >= 60, "only {checked} paths found in {DOCS:?}");
}

/// The Rust names a span gives, when it is one name (`CheckWorld`, `Simulation<M>`,
/// `machine::steps::exec`, `steps!`, `Op::syscall`, `PoolParams::run`): each `::` segment, without
/// generics, `!` or `()`. A span with anything else in it (a command, a path, a key=value) gives none.
fn rust_names(span: &str) -> Vec<String> {
    let bare = match span.find('<') {
        Some(i) if span.ends_with('>') => &span[..i],
        _ => span,
    };
    let bare = bare.trim_end_matches("()").trim_end_matches('!');
    let ident = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let segments: Vec<&str> = bare.split("::").collect();
    if segments.iter().all(|w| ident(w)) {
        segments.into_iter().map(str::to_string).collect()
    } else {
        Vec::new()
    }
}

/// This test's own file, whose examples would otherwise vouch for themselves.
const THIS_FILE: &str = "xtask/tests/doc_paths.rs";

/// Every Rust file under `dir` (relative to the root), outside what the build makes, but this one.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                if !matches!(
                    e.file_name().to_str(),
                    Some("target" | "node_modules" | ".git" | "dist" | "generated")
                ) {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|x| x == "rs") && !path.ends_with(THIS_FILE) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out
}

/// The text of every Rust file under `dir`, joined.
fn sources_under(dir: &str) -> String {
    rust_files(dir)
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect()
}

/// Every word of every Rust file of the workspace.
fn source_words() -> std::collections::HashSet<String> {
    ["core", "web", "native-bench", "xtask", "crates"]
        .iter()
        .map(|dir| sources_under(dir))
        .flat_map(|text| {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_rust_name_the_documents_give_exists() {
    let root = root();
    let words = source_words();
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for span in backticked(&text) {
            for name in rust_names(&span) {
                checked += 1;
                if !words.contains(&name) {
                    missing.push(format!("{doc}: `{name}` (in `{span}`)"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "names in the documents that no Rust file of the workspace says:\n  {}",
        missing.join("\n  ")
    );
    assert!(checked >= 100, "only {checked} names found in {DOCS:?}");
}

/// What is wrong with the commands a span or a fenced line gives: `cargo xtask <task>` must be a task
/// of `xtask/src/main.rs`; `herdlab <verb> [<subcommand>] [--flag…]` must use a verb of the command,
/// and a subcommand and flags that the command's or core's sources name as strings (a flag either
/// as itself or as the parameter key it is made from, `-` read as `_`).
fn command_problems(span: &str, xtask_main: &str, cli_sources: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = span
        .split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    for (i, w) in words.iter().enumerate() {
        if *w == "xtask" && i > 0 && words[i - 1] == "cargo" {
            if let Some(task) = words.get(i + 1) {
                if !xtask_main.contains(&format!("Some(\"{task}\")")) {
                    out.push(format!("`cargo xtask {task}`: no such task"));
                }
            }
        }
        if *w == "herdlab" && i == 0 {
            let Some(verb) = words.get(1) else { continue };
            if !["sim", "bench", "check", "completions", "help"].contains(verb) {
                out.push(format!("`herdlab {verb}`: no such command"));
                continue;
            }
            for (j, arg) in words.iter().enumerate().skip(2) {
                let (name, what) = match arg.strip_prefix("--") {
                    Some(flag) => (flag, "flag"),
                    None if j == 2 => (*arg, "subcommand"),
                    None => continue, // a value
                };
                // A flag may be written as its parameter key (`KeyFlag::Key("net_ns")` is `--net-ns`).
                let key = name.replace('-', "_");
                let as_key = what == "flag" && cli_sources.contains(&format!("\"{key}\""));
                if !as_key && !cli_sources.contains(&format!("\"{name}\"")) {
                    out.push(format!("`herdlab {verb}`: no {what} `{name}`"));
                }
            }
        }
    }
    out
}

#[test]
fn every_command_the_documents_give_exists() {
    let root = root();
    let xtask_main = std::fs::read_to_string(root.join("xtask/src/main.rs")).unwrap();
    let cli_sources = sources_under("native-bench/src") + &sources_under("core/src");
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for span in backticked(&text) {
            if span.contains("herdlab ") || span.contains("cargo xtask") {
                checked += 1;
            }
            for p in command_problems(&span, &xtask_main, &cli_sources) {
                problems.push(format!("{doc}: {p} (in `{span}`)"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "commands in the documents that do not exist:\n  {}",
        problems.join("\n  ")
    );
    assert!(checked >= 15, "only {checked} commands found in {DOCS:?}");
}

#[test]
fn the_reader_finds_expands_and_cuts() {
    let spans = backticked(
        "see `core/src/{sim,check}/` and `python3 web/tools/modgraph.py`, not `cargo`.\n```sh\nrun it\n```",
    );
    assert_eq!(
        spans,
        [
            "core/src/{sim,check}/",
            "python3 web/tools/modgraph.py",
            "cargo",
            "run it"
        ]
    );
    assert_eq!(paths_in(&spans[0]), ["core/src/sim/", "core/src/check/"]);
    assert_eq!(paths_in(&spans[1]), ["web/tools/modgraph.py"]);
    assert!(paths_in(&spans[2]).is_empty());
    assert_eq!(
        paths_in("core/src/mechanisms/<name>/params.rs"),
        ["core/src/mechanisms/"]
    );
    assert_eq!(paths_in("lessons/*.md"), ["lessons/"]);
    assert_eq!(paths_in("core/src/op.rs:12"), ["core/src/op.rs"]);
    assert!(paths_in("web/generated/lessons/x.txt").is_empty());
    // a missing path is reported
    assert!(!root().join(&paths_in("core/src/nowhere.rs")[0]).exists());

    assert_eq!(rust_names("Simulation<M>"), ["Simulation"]);
    assert_eq!(
        rust_names("machine::steps::exec"),
        ["machine", "steps", "exec"]
    );
    assert_eq!(rust_names("steps!"), ["steps"]);
    assert_eq!(rust_names("Words::exec()"), ["Words", "exec"]);
    assert!(rust_names("cargo xtask test").is_empty());
    assert!(rust_names("mechanism=pool").is_empty());
    assert!(rust_names("core/src/op.rs").is_empty());
    let words = source_words();
    assert!(words.contains("CheckWorld"));
    let main = "Some(\"test\") => test(&ctx),";
    let cli = "\"sim\" \"herd\" \"workers\"";
    assert!(command_problems("cargo xtask test", main, cli).is_empty());
    assert_eq!(command_problems("cargo xtask tset", main, cli).len(), 1);
    assert!(command_problems(
        "herdlab sim herd --workers 8 # a comment --bogus",
        main,
        cli
    )
    .is_empty());
    assert_eq!(
        command_problems("herdlab sim hred --wrokers 8", main, cli),
        [
            "`herdlab sim`: no subcommand `hred`",
            "`herdlab sim`: no flag `wrokers`"
        ]
    );
    assert_eq!(command_problems("herdlab simulate", main, cli).len(), 1);
    assert!(!words.contains(&format!("{}{}", "CheckWorld", "Typo")));
}
