//! The plain text a lesson's Markdown gives the lesson list: its title and its summary. Used by the
//! site's build script (which compiles every lesson's title and summary in, see `web/build.rs`) and
//! by the tests.

/// The text of the first `# ` heading (`fallback` when there is none).
pub fn title(source: &str, fallback: &str) -> String {
    source
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| strip_inline(t.trim()))
        .unwrap_or_else(|| fallback.to_string())
}

/// The first paragraph after the title, as plain text.
pub fn summary(source: &str) -> String {
    let mut lines = source.lines();
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
        if para.is_empty() && (t.starts_with('#') || t.starts_with("```") || t.starts_with('<')) {
            continue;
        }
        para.push(t);
    }
    strip_inline(&para.join(" "))
}

/// Drop the Markdown emphasis and code markers from a line (an `_` inside a word, as in
/// `ngx_shmtx`, is kept).
fn strip_inline(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let word = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    chars
        .iter()
        .enumerate()
        .filter(|&(i, c)| match c {
            '*' | '`' => false,
            '_' => word(i.checked_sub(1)) && word(Some(i + 1)),
            _ => true,
        })
        .map(|(_, c)| *c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_summary_text() {
        let md = "intro\n# The *big* `ngx_shmtx` lock\n\n## sub\n\nFirst _para_ line,\nngx_shmtx_t wraps.\n\nSecond.\n";
        assert_eq!(title(md, "x"), "The big ngx_shmtx lock");
        assert_eq!(title("no heading", "slug"), "slug");
        assert_eq!(summary(md), "First para line, ngx_shmtx_t wraps.");
    }
}
