//! A lesson's outline, read from its HTML blocks: the sections (its `h2` and `h3` headings, given
//! ids for the contents list to link to) and the reading time.

use std::collections::HashSet;

/// Words read per minute, for the reading time.
pub const WORDS_PER_MINUTE: usize = 200;

/// One section heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// 2 or 3.
    pub level: u8,
    /// Its element id (`sec-<words>`), unique in the lesson.
    pub id: String,
    /// Its text, without markup.
    pub text: String,
}

/// `html` without its tags, with the few entities pulldown-cmark writes decoded.
pub fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// The words of `html`'s text.
pub fn words(html: &str) -> usize {
    plain_text(html)
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// Minutes to read `words` words, rounded up, at least 1.
pub fn reading_minutes(words: usize) -> usize {
    words.div_ceil(WORDS_PER_MINUTE).max(1)
}

fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    s.trim_end_matches('-').to_string()
}

/// `html` with an id on each bare `<h2>` and `<h3>`, and those headings in order. `seen` holds
/// the ids given so far in the lesson (a repeated heading gets `-2`, `-3`…).
pub fn outline(html: &str, seen: &mut HashSet<String>) -> (String, Vec<Heading>) {
    let mut out = String::with_capacity(html.len() + 64);
    let mut heads = Vec::new();
    let mut rest = html;
    loop {
        let next = ["<h2>", "<h3>"]
            .iter()
            .filter_map(|t| rest.find(t).map(|i| (i, *t)))
            .min();
        let Some((i, tag)) = next else { break };
        let level = if tag == "<h2>" { 2 } else { 3 };
        let close = format!("</h{level}>");
        let after = &rest[i + tag.len()..];
        let Some(end) = after.find(&close) else { break };
        let inner = &after[..end];
        let text = plain_text(inner)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let base = format!("sec-{}", slug(&text));
        let mut id = base.clone();
        let mut n = 1;
        while !seen.insert(id.clone()) {
            n += 1;
            id = format!("{base}-{n}");
        }
        out.push_str(&rest[..i]);
        out.push_str(&format!("<h{level} id=\"{id}\">{inner}{close}"));
        heads.push(Heading { level, id, text });
        rest = &after[end + close.len()..];
    }
    out.push_str(rest);
    (out, heads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_ids_and_text() {
        let mut seen = HashSet::new();
        let (html, h) = outline(
            "<h1>T</h1><p>x</p><h2>Why <code>accept()</code> &amp; more</h2><h3>Step 1</h3><h2>Why accept() &amp; more</h2>",
            &mut seen,
        );
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].text, "Why accept() & more");
        assert_eq!(h[0].id, "sec-why-accept-more");
        assert_eq!((h[1].level, h[1].id.as_str()), (3, "sec-step-1"));
        assert_eq!(h[2].id, "sec-why-accept-more-2");
        assert!(html
            .contains("<h2 id=\"sec-why-accept-more\">Why <code>accept()</code> &amp; more</h2>"));
        assert!(html.starts_with("<h1>T</h1><p>x</p>"));
    }

    #[test]
    fn reading_time_is_words_over_200() {
        assert_eq!(words("<p>one two, <code>three</code> — four</p>"), 4);
        assert_eq!(reading_minutes(0), 1);
        assert_eq!(reading_minutes(200), 1);
        assert_eq!(reading_minutes(201), 2);
        assert_eq!(reading_minutes(1000), 5);
    }
}
