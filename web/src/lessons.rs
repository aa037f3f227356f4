//! The lessons compiled into the site: a static table, one Markdown file per lesson, split into
//! HTML and widget blocks at build time (`build.rs`, with [`crate::markdown`]'s splitter).

/// One piece of a lesson, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// Rendered HTML of plain Markdown.
    Html(&'static str),
    /// The body of a ```` ```herdlab-sim ```` block.
    Sim(&'static str),
    /// The body of a ```` ```herdlab-compare ```` block.
    Compare(&'static str),
    /// The body of a ```` ```herdlab-predict ```` block.
    Predict(&'static str),
    /// The body of a ```` ```herdlab-check ```` block.
    Check(&'static str),
    /// The body of a ```` ```herdlab-accept ```` block.
    Accept(&'static str),
    /// The body of a ```` ```herdlab-accept-compare ```` block.
    AcceptCompare(&'static str),
}

/// One lesson.
#[derive(Debug)]
pub struct Lesson {
    /// The slug in `#/lesson/<slug>`.
    pub slug: &'static str,
    /// The text of its first `# ` heading.
    pub title: &'static str,
    /// The first paragraph after the title, as plain text.
    pub summary: &'static str,
    /// Its HTML and widget blocks.
    pub blocks: &'static [Block],
}

include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// The lesson with this slug.
pub fn find(slug: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.slug == slug)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::markdown::{segments, Segment};

    /// A lesson's Markdown source (the tests read it; the site does not ship it).
    pub fn source(slug: &str) -> &'static str {
        match slug {
            "thundering-herd" => include_str!("../../lessons/thundering-herd.md"),
            "nginx-shmtx" => include_str!("../../lessons/nginx-shmtx.md"),
            "epoll-herd" => include_str!("../../lessons/epoll-herd.md"),
            "nginx-accept-mutex" => include_str!("../../lessons/nginx-accept-mutex.md"),
            _ => panic!("no lesson {slug}"),
        }
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
                "nginx-accept-mutex"
            ]
        );
    }

    #[test]
    fn blocks_are_the_markdown_split() {
        for l in LESSONS {
            let want: Vec<Block> = segments(source(l.slug))
                .into_iter()
                .map(|s| match s {
                    Segment::Html(h) => Block::Html(h.leak()),
                    Segment::Sim(b) => Block::Sim(b.leak()),
                    Segment::Compare(b) => Block::Compare(b.leak()),
                    Segment::Predict(b) => Block::Predict(b.leak()),
                    Segment::Check(b) => Block::Check(b.leak()),
                    Segment::Accept(b) => Block::Accept(b.leak()),
                    Segment::AcceptCompare(b) => Block::AcceptCompare(b.leak()),
                })
                .collect();
            assert_eq!(l.blocks, want.as_slice(), "{}", l.slug);
            assert_eq!(l.title, crate::lesson_text::title(source(l.slug), l.slug));
        }
    }
}
