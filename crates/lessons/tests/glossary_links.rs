//! Every `[words](glossary:<id>)` link in the lessons names an entry of `lessons/glossary.md`, and
//! every lesson's HTML has its links turned into term elements, as `cargo xtask lessons` does.
#![cfg(feature = "split")]

use std::path::PathBuf;

use herdlab_lessons::{glossary, list, markdown};

fn lessons_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../lessons")
}

fn read(file: &str) -> String {
    std::fs::read_to_string(lessons_dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn every_glossary_link_names_an_entry() {
    let terms = glossary::parse(&read(glossary::FILE)).expect("the glossary parses");
    assert!(terms.len() >= 20, "{} entries", terms.len());
    let mut linked = 0;
    let mut missing = Vec::new();
    for (slug, file) in list::LESSON_FILES {
        for id in glossary::links(&read(file)) {
            linked += 1;
            if !terms.iter().any(|t| t.id == id) {
                missing.push(format!("{slug}: glossary:{id}"));
            }
        }
    }
    assert!(missing.is_empty(), "links to no entry: {missing:?}");
    assert!(linked >= 40, "only {linked} glossary links in the lessons");
}

#[test]
fn every_lesson_link_becomes_a_term_with_a_tooltip() {
    let terms = glossary::parse(&read(glossary::FILE)).unwrap();
    for (slug, file) in list::LESSON_FILES {
        let src = read(file);
        let want = glossary::links(&src).len();
        let mut n = 0;
        for seg in markdown::segments(&src) {
            if let markdown::Segment::Html(h) = seg {
                let out = glossary::link_terms(&h, &terms, &mut n)
                    .unwrap_or_else(|e| panic!("{slug}: {e}"));
                assert!(!out.contains("href=\"glossary:"), "{slug}");
            }
        }
        assert_eq!(n, want, "{slug}: every link became a term");
    }
}
