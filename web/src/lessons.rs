//! The lessons compiled into the site: a static table, one Markdown file per lesson.

/// One lesson.
pub struct Lesson {
    /// The slug in `#/lesson/<slug>`.
    pub slug: &'static str,
    /// The Markdown source.
    pub source: &'static str,
}

/// Every lesson that exists, in reading order.
pub const LESSONS: &[Lesson] = &[Lesson {
    slug: "thundering-herd",
    source: include_str!("../../lessons/thundering-herd.md"),
}];

/// The lesson with this slug.
pub fn find(slug: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.slug == slug)
}

impl Lesson {
    /// The text of the first `# ` heading (the slug when there is none).
    pub fn title(&self) -> String {
        self.source
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(|t| strip_inline(t.trim()))
            .unwrap_or_else(|| self.slug.to_string())
    }

    /// The first paragraph after the title, as plain text.
    pub fn summary(&self) -> String {
        let mut lines = self.source.lines();
        for l in lines.by_ref() {
            if l.starts_with("# ") {
                break;
            }
        }
        let mut para = Vec::new();
        for l in lines {
            let t = l.trim();
            if t.is_empty() {
                if para.is_empty() {
                    continue;
                }
                break;
            }
            if para.is_empty() && (t.starts_with('#') || t.starts_with("```") || t.starts_with('<'))
            {
                continue;
            }
            para.push(t);
        }
        strip_inline(&para.join(" "))
    }
}

/// Drop the Markdown emphasis and code markers from a line.
fn strip_inline(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '*' | '`' | '_'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn herd_title_and_summary() {
        let l = find("thundering-herd").expect("lesson exists");
        assert_eq!(l.title(), "The thundering herd");
        assert!(l.summary().starts_with("How one new connection"));
        assert!(!l.summary().contains('\n'));
    }
}
