//! The lessons: the list compiled into the site (each lesson's slug, title and summary, written by
//! `build.rs`), and the lesson files the page fetches at run time (`lessons/<slug>.txt`, written by
//! `cargo xtask lessons`, format in `herdlab_lessons::file`): the lesson's HTML and widget blocks.

use std::rc::Rc;

use crate::lesson::parts::Shape;

/// One piece of a lesson, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// Rendered HTML of plain Markdown.
    Html(Rc<str>),
    /// The body of a widget block of this shape; the mechanism is the one its fence kind fixes
    /// (the per-mechanism fence kinds of [`FENCE_KINDS`]), else the one its body names.
    Widget(Shape, Option<&'static str>, Rc<str>),
    /// The body of a ```` ```herdlab-predict ```` block.
    Predict(Rc<str>),
}

/// The widget kinds of a lesson file (`herdlab-<kind>` fences): one per shape, and the older
/// per-mechanism kinds, still read, each fixing its mechanism (lessons now write
/// ```` ```herdlab-sim ```` with `mechanism=` instead).
pub const FENCE_KINDS: [(&str, Shape, Option<&str>); 5] = [
    ("sim", Shape::Sim, None),
    ("compare", Shape::Compare, None),
    ("check", Shape::Check, None),
    ("accept", Shape::Sim, Some("accept")),
    ("accept-compare", Shape::Compare, Some("accept")),
];

/// The block of kind `kind` (a lesson file's block header) holding `text`.
fn block_of(kind: &str, text: Rc<str>) -> Option<Block> {
    match kind {
        "html" => Some(Block::Html(text)),
        "predict" => Some(Block::Predict(text)),
        _ => FENCE_KINDS
            .iter()
            .find(|(k, _, _)| *k == kind)
            .map(|&(_, shape, mechanism)| Block::Widget(shape, mechanism, text)),
    }
}

/// One lesson, as the lesson list knows it.
#[derive(Debug)]
pub struct Lesson {
    /// The slug in `#/lesson/<slug>`.
    pub slug: &'static str,
    /// The text of its first `# ` heading.
    pub title: &'static str,
    /// The first paragraph after the title, as plain text.
    pub summary: &'static str,
    /// The version tag of its lesson file (see `herdlab_lessons::list::version_tag`).
    pub version: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// The first line of a lesson file starts with this and the format this site reads
/// (`herdlab_lessons::file`'s `MAGIC` and `FORMAT`).
const MAGIC: &str = "herdlab-lesson";
const FORMAT: &str = "1";

/// The lesson with this slug.
pub fn find(slug: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.slug == slug)
}

impl Lesson {
    /// Where its lesson file is, relative to the page.
    pub fn file(&self) -> String {
        format!("lessons/{}.txt", self.slug)
    }

    /// The address the page fetches its lesson file from.
    pub fn url(&self) -> String {
        format!("{}?v={}", self.file(), self.version)
    }
}

/// The blocks of lesson `slug` from the text of its lesson file (format in `herdlab_lessons::file`); an
/// error says what is wrong with it.
pub fn decode(slug: &str, file: &str) -> Result<Vec<Block>, String> {
    let (head, mut rest) = file.split_once('\n').unwrap_or((file, ""));
    let head: Vec<&str> = head.split(' ').collect();
    if head[0] != MAGIC {
        return Err(format!(
            "it is not a lesson file (it does not start with `{MAGIC}`)"
        ));
    }
    let [_, format, got, count] = head[..] else {
        return Err(format!(
            "it is not a lesson file (its first line is not `{MAGIC} <format> <slug> <blocks>`)"
        ));
    };
    if format != FORMAT {
        return Err(format!(
            "it has format {}, and this site reads format {FORMAT} (the site and its lesson \
             files come from different builds)",
            herdlab_core::mechanism::shown(format)
        ));
    }
    if got != slug {
        return Err(format!(
            "it holds lesson '{}', not '{slug}'",
            herdlab_core::mechanism::shown(got)
        ));
    }
    let mut blocks = Vec::new();
    while !rest.is_empty() {
        let n = blocks.len() + 1;
        let bad = |why: &str| format!("block {n} {why}");
        let (line, after) = rest
            .split_once('\n')
            .ok_or_else(|| bad("has no header line"))?;
        let (kind, len) = line
            .split_once(' ')
            .ok_or_else(|| bad("has no `<kind> <length>` header"))?;
        let len: usize = len.parse().map_err(|_| bad("has a bad length"))?;
        let text = after
            .get(..len)
            .ok_or_else(|| bad("is cut short (the file ends inside it)"))?;
        rest = after[len..]
            .strip_prefix('\n')
            .ok_or_else(|| bad("is longer than its header says"))?;
        let text: Rc<str> = text.into();
        blocks.push(match block_of(kind, text) {
            Some(b) => b,
            None => {
                return Err(bad(&format!(
                    "is of an unknown kind, '{}'",
                    herdlab_core::mechanism::shown(kind)
                )))
            }
        });
    }
    if count != blocks.len().to_string() {
        return Err(format!(
            "it is cut short ({} of its {} blocks)",
            blocks.len(),
            herdlab_core::mechanism::shown(count)
        ));
    }
    Ok(blocks)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use herdlab_lessons::markdown::{segments, Segment};

    /// A lesson's Markdown source (the tests read it; the site does not ship it).
    pub fn source(slug: &str) -> &'static str {
        match slug {
            "thundering-herd" => include_str!("../../../lessons/thundering-herd.md"),
            "nginx-shmtx" => include_str!("../../../lessons/nginx-shmtx.md"),
            "epoll-herd" => include_str!("../../../lessons/epoll-herd.md"),
            "nginx-accept-mutex" => include_str!("../../../lessons/nginx-accept-mutex.md"),
            "nginx-thread-pool" => include_str!("../../../lessons/nginx-thread-pool.md"),
            "go-scheduler" => include_str!("../../../lessons/go-scheduler.md"),
            "mysql-thread-per-connection" => {
                include_str!("../../../lessons/mysql-thread-per-connection.md")
            }
            "mysql-thread-pool" => include_str!("../../../lessons/mysql-thread-pool.md"),
            _ => panic!("no lesson {slug}"),
        }
    }

    /// The blocks the site shows for these segments.
    fn blocks_of(segs: Vec<Segment>) -> Vec<Block> {
        segs.into_iter()
            .map(|s| {
                let (kind, text) = s.parts();
                block_of(kind, text.into()).unwrap_or_else(|| panic!("segment kind {kind}"))
            })
            .collect()
    }

    #[test]
    fn titles_and_summaries() {
        let l = find("thundering-herd").expect("lesson exists");
        assert_eq!(l.title, "The thundering herd");
        assert!(l.summary.starts_with("How one new connection"));
        assert!(!l.summary.contains('\n'));
        let l = find("nginx-shmtx").expect("lesson exists");
        assert_eq!(l.title, "nginx's shared-memory lock");
        assert!(
            l.summary.starts_with("How nginx's ngx_shmtx lets"),
            "{}",
            l.summary
        );
        assert_eq!(
            LESSONS.iter().map(|l| l.slug).collect::<Vec<_>>(),
            [
                "thundering-herd",
                "nginx-shmtx",
                "epoll-herd",
                "nginx-accept-mutex",
                "nginx-thread-pool",
                "go-scheduler",
                "mysql-thread-per-connection",
                "mysql-thread-pool"
            ]
        );
        assert_eq!(
            herdlab_lessons::list::LESSON_FILES
                .iter()
                .map(|(slug, file)| (slug.to_string(), file.to_string()))
                .collect::<Vec<_>>(),
            LESSONS
                .iter()
                .map(|l| (l.slug.to_string(), format!("{}.md", l.slug)))
                .collect::<Vec<_>>()
        );
        for l in LESSONS {
            assert_eq!(
                l.title,
                herdlab_lessons::text::title(source(l.slug), l.slug)
            );
            assert_eq!(l.url(), format!("lessons/{}.txt?v={}", l.slug, l.version));
            assert_eq!(l.version.len(), 16);
        }
        assert_eq!(
            LESSONS
                .iter()
                .map(|l| l.version)
                .collect::<std::collections::HashSet<_>>()
                .len(),
            LESSONS.len(),
            "each lesson file has its own version tag"
        );
    }

    /// What `cargo xtask lessons` writes decodes to the Markdown split, block for block.
    #[test]
    fn lesson_files_decode_to_the_markdown_split() {
        assert_eq!(herdlab_lessons::file::FORMAT.to_string(), FORMAT);
        assert_eq!(herdlab_lessons::file::MAGIC, MAGIC);
        for l in LESSONS {
            let segs = segments(source(l.slug));
            let file = herdlab_lessons::file::encode(l.slug, &segs);
            let got = decode(l.slug, &file).unwrap_or_else(|e| panic!("{}: {e}", l.slug));
            assert_eq!(got, blocks_of(segs), "{}", l.slug);
            assert!(got.len() > 5, "{}", l.slug);
        }
        // Every kind, line breaks, and text that is not ASCII.
        let md = "# T\n\ntext\n\n```herdlab-sim\nid=a&caption=\"q\" \\ \t \u{1} \u{e9}\n```\n\n\
                  ```herdlab-compare\nid=b\n```\n\n```herdlab-predict\nq: x?\n```\n\n\
                  ```herdlab-check\nid=c\n```\n\n```herdlab-accept\nid=d\n```\n\n\
                  ```herdlab-accept-compare\nid=e\n```\n";
        let segs = segments(md);
        assert_eq!(segs.len(), 7);
        let file = herdlab_lessons::file::encode("x", &segs);
        assert!(file.starts_with("herdlab-lesson 1 x 7\nhtml "), "{file}");
        assert_eq!(decode("x", &file), Ok(blocks_of(segs)));
        assert_eq!(
            decode("x", &herdlab_lessons::file::encode("x", &[])),
            Ok(vec![])
        );
    }

    /// build.rs tags each lesson file with the hash of its Markdown and of the code that writes it.
    #[test]
    fn version_tags_follow_the_sources() {
        for l in LESSONS {
            let [markdown, glossary, file] = herdlab_lessons::WRITER_SOURCES;
            assert!(markdown.contains("pub fn segments") && file.contains("pub fn encode"));
            assert!(glossary.contains("pub fn link_terms"));
            let [charts, chart] = herdlab_lessons::CHART_SOURCES;
            assert!(charts.contains("chart:") && chart.contains("pub fn svg_figure"));
            let parts = [
                source(l.slug),
                markdown,
                glossary,
                file,
                charts,
                chart,
                herdlab_lessons::GLOSSARY_SOURCE,
            ];
            assert_eq!(
                l.version,
                herdlab_lessons::list::version_tag(&parts),
                "{}",
                l.slug
            );
        }
        assert_ne!(
            herdlab_lessons::list::version_tag(&["ab", "c"]),
            herdlab_lessons::list::version_tag(&["a", "bc"])
        );
    }

    /// The generated folder is what trunk copies into dist/lessons/, and git ignores it.
    #[test]
    fn the_generated_folder_is_copied_and_ignored() {
        let dir = herdlab_lessons::file::GENERATED_DIR;
        assert!(dir.ends_with("/lessons"), "dist/lessons/ is named after it");
        assert!(include_str!("../../../index.html").contains(&format!(
            r#"<link data-trunk rel="copy-dir" href="{dir}" />"#
        )));
        let ignored = dir.trim_end_matches("/lessons");
        assert!(include_str!("../../../.gitignore")
            .lines()
            .any(|l| l == format!("/{ignored}")));
        assert!(include_str!("../../../Trunk.toml").contains(
            r#"command_arguments = ["run", "--quiet", "--package", "xtask", "--", "lessons"]"#
        ));
    }

    #[test]
    fn bad_lesson_files_are_refused_with_a_reason() {
        let err = |file: &str| decode("x", file).expect_err(file);
        assert!(err("<!doctype html>\n<p>404</p>").contains("not a lesson file"));
        assert!(err("").contains("not a lesson file"));
        assert!(err("herdlab-lessons 1 x 0\n").contains("does not start with"));
        assert!(err("herdlab-lesson 1 x\n").contains("first line is not"));
        assert!(err("herdlab-lesson 2 x 0\n").contains("format 2"));
        assert!(err("herdlab-lesson 1 y 0\n").contains("'y', not 'x'"));
        assert!(err("herdlab-lesson 1 x 1\nvideo 1\nv\n")
            .contains("block 1 is of an unknown kind, 'video'"));
        assert!(err("herdlab-lesson 1 x 1\nhtml 10\n<p>a</p>\n").contains("block 1 is cut short"));
        assert!(err("herdlab-lesson 1 x 1\nhtml 2\n<p>a</p>\n").contains("longer than"));
        assert!(err("herdlab-lesson 1 x 1\nhtml two\n<p>\n").contains("bad length"));
        assert!(err("herdlab-lesson 1 x 1\nhtml\n").contains("header"));
        // a length that ends inside a character
        assert!(err("herdlab-lesson 1 x 1\nhtml 1\n\u{e9}\n").contains("cut short"));
        assert!(err("herdlab-lesson 1 x 2\nhtml 1\na\n").contains("1 of its 2 blocks"));
        assert_eq!(
            decode("x", "herdlab-lesson 1 x 2\nhtml 8\n<p>a</p>\nsim 4\nid=a\n"),
            Ok(vec![
                Block::Html("<p>a</p>".into()),
                Block::Widget(Shape::Sim, None, "id=a".into())
            ])
        );
    }

    #[test]
    fn the_herd_lesson_has_its_widgets() {
        let s = segments(source("thundering-herd"));
        let sims = s.iter().filter(|x| matches!(x, Segment::Sim(_))).count();
        let cmp = s
            .iter()
            .filter(|x| matches!(x, Segment::Compare(_)))
            .count();
        let pr = s
            .iter()
            .filter(|x| matches!(x, Segment::Predict(_)))
            .count();
        assert!(sims >= 7, "{sims}");
        assert_eq!(cmp, 1);
        assert_eq!(pr, 5, "a predict before each result the lesson reveals");
        let checks: Vec<&String> = s
            .iter()
            .filter_map(|x| match x {
                Segment::Check(b) => Some(b),
                _ => None,
            })
            .collect();
        assert_eq!(checks.len(), 1);
        assert!(checks[0].contains("id=find-lost-wakeup&mechanism=herd"));
    }

    #[test]
    fn the_lock_lesson_has_its_widgets() {
        let s = segments(source("nginx-shmtx"));
        let count = |f: fn(&Segment) -> bool| s.iter().filter(|x| f(x)).count();
        assert!(count(|x| matches!(x, Segment::Sim(_))) >= 8);
        assert_eq!(count(|x| matches!(x, Segment::Check(_))), 3);
        assert_eq!(count(|x| matches!(x, Segment::Compare(_))), 2);
        assert_eq!(count(|x| matches!(x, Segment::Predict(_))), 4);
    }

    #[test]
    fn the_accept_lessons_have_the_blocks_the_tests_use() {
        let body = |slug: &str, f: fn(&Segment) -> Option<&String>| -> Vec<String> {
            segments(source(slug))
                .iter()
                .filter_map(|x| f(x).cloned())
                .collect()
        };
        fn accept(x: &Segment) -> Option<&String> {
            match x {
                Segment::Accept(b) => Some(b),
                _ => None,
            }
        }
        fn compare(x: &Segment) -> Option<&String> {
            match x {
                Segment::AcceptCompare(b) => Some(b),
                _ => None,
            }
        }
        for (slug, ids, cmp) in [
            (
                "epoll-herd",
                ["epoll-intro", "epoll-playground"],
                "compare-epoll",
            ),
            (
                "nginx-accept-mutex",
                ["mutex-intro", "mutex-playground"],
                "compare-mutex",
            ),
        ] {
            let sims = body(slug, accept);
            for id in ids {
                assert!(
                    sims.iter().any(|b| b.contains(&format!("id={id}&"))),
                    "{slug}: {id} in {sims:?}"
                );
            }
            assert!(sims
                .iter()
                .any(|b| b.contains("main=true") && b.contains("controls=full")));
            assert!(body(slug, compare)
                .iter()
                .any(|b| b.contains(&format!("id={cmp}&"))));
        }
        let s = segments("```herdlab-accept\nid=a\n```\n\n```herdlab-accept-compare\nid=b\n```\n");
        assert_eq!(
            s,
            [
                Segment::Accept("id=a\n".into()),
                Segment::AcceptCompare("id=b\n".into())
            ]
        );
    }
}
