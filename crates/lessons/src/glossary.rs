//! The glossary (`lessons/glossary.md`) and the lessons' links to it.
//!
//! The glossary is Markdown: a `# Glossary` title, an introduction, then one entry per term, a
//! heading `## <term> {#<id>}`, a paragraph of one line (the short definition, shown in the lessons'
//! tooltips) and optional paragraphs after it. A lesson links a term as `[words](glossary:<id>)`.
//!
//! At build time (`cargo xtask lessons`), [`link_terms`] turns each such link in a lesson's HTML
//! into a term element: a link to the term's entry on the glossary page (`#/glossary?term=<id>`)
//! described by (`aria-describedby`) a tooltip (`role="tooltip"`) that holds the short definition
//! and shows on hover and on keyboard focus (CSS only, no code in the site). [`page_html`] writes
//! the glossary page's HTML, one entry per term with the term's id as its anchor; xtask writes it
//! as the lesson file `glossary.txt` (the format of [`crate::file`](mod@crate::file)), which the
//! site fetches like a lesson. [`links`] lists a lesson's term ids, for the check that every one
//! names an entry.

/// The slug of the glossary's file (`lessons/glossary.txt` in `dist/`).
pub const SLUG: &str = "glossary";

/// The glossary's Markdown file, under `lessons/`.
pub const FILE: &str = "glossary.md";

/// What a lesson's Markdown writes before a term's id in a link's destination.
pub const SCHEME: &str = "glossary:";

/// One glossary entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// Its id (`{#id}` in the heading), the anchor of its entry.
    pub id: String,
    /// The term, as its heading writes it (Markdown).
    pub term: String,
    /// The one-line definition (Markdown).
    pub short: String,
    /// The paragraphs after it (Markdown; may be empty).
    pub more: String,
}

/// The glossary's entries, in file order. A heading without `{#id}` is an error, as are two
/// entries with one id and an entry without a definition.
pub fn parse(src: &str) -> Result<Vec<Term>, String> {
    let mut terms: Vec<Term> = Vec::new();
    let mut in_fence = false;
    for line in src.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence {
            if let Some(head) = line.strip_prefix("## ") {
                let head = head.trim();
                let (term, id) = head
                    .strip_suffix('}')
                    .and_then(|h| h.rsplit_once("{#"))
                    .ok_or_else(|| format!("glossary heading `{head}` has no {{#id}}"))?;
                let id = id.trim().to_string();
                if id.is_empty()
                    || !id
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                {
                    return Err(format!(
                        "glossary id `{id}` (of `{head}`): use a-z, 0-9 and -"
                    ));
                }
                if terms.iter().any(|t| t.id == id) {
                    return Err(format!("glossary id `{id}` is used twice"));
                }
                terms.push(Term {
                    id,
                    term: term.trim().to_string(),
                    short: String::new(),
                    more: String::new(),
                });
                continue;
            }
        }
        let Some(t) = terms.last_mut() else { continue };
        if t.short.is_empty() {
            if !line.trim().is_empty() {
                t.short = line.trim().to_string();
            }
        } else {
            t.more.push_str(line);
            t.more.push('\n');
        }
    }
    if let Some(t) = terms.iter().find(|t| t.short.is_empty()) {
        return Err(format!("glossary entry `{}` has no definition", t.id));
    }
    for t in &mut terms {
        t.more = t.more.trim().to_string();
    }
    Ok(terms)
}

/// The term ids a lesson's Markdown links to (`[words](glossary:<id>)`), in order, repeats kept.
pub fn links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(i) = rest.find(&format!("]({SCHEME}")) {
        let after = &rest[i + 2 + SCHEME.len()..];
        let end = after.find([')', ' ', '"']).unwrap_or(after.len());
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

/// The link to a term's entry on the glossary page.
pub fn href(id: &str) -> String {
    format!("#/glossary?term={id}")
}

/// Escape text for HTML.
#[cfg(feature = "split")]
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Markdown of one line as inline HTML (no enclosing `<p>`).
#[cfg(feature = "split")]
fn inline_html(md: &str) -> String {
    let mut s = String::new();
    pulldown_cmark::html::push_html(&mut s, pulldown_cmark::Parser::new(md));
    let s = s.trim();
    let s = s.strip_prefix("<p>").unwrap_or(s);
    s.strip_suffix("</p>").unwrap_or(s).to_string()
}

/// Markdown as HTML.
#[cfg(feature = "split")]
fn block_html(md: &str) -> String {
    let mut s = String::new();
    pulldown_cmark::html::push_html(&mut s, pulldown_cmark::Parser::new(md));
    s
}

/// Turns each link `<a href="glossary:<id>">words</a>` in `html` (a lesson's HTML, as
/// pulldown-cmark writes it) into a term element:
///
/// ```html
/// <span class="term"><a class="term-link" href="#/glossary?term=<id>" data-term="<id>"
///   aria-describedby="term-tip-<n>">words</a><span class="term-tip" role="tooltip"
///   id="term-tip-<n>">the one-line definition</span></span>
/// ```
///
/// `next` numbers the tooltips (carry it across a lesson's HTML blocks, so ids stay unique on the
/// page). An id that names no entry is an error naming it.
#[cfg(feature = "split")]
pub fn link_terms(html: &str, terms: &[Term], next: &mut usize) -> Result<String, String> {
    let open = format!("<a href=\"{SCHEME}");
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find(&open) {
        out.push_str(&rest[..i]);
        let after = &rest[i + open.len()..];
        let q = after
            .find('"')
            .ok_or_else(|| "an unterminated glossary link".to_string())?;
        let id = &after[..q];
        let gt = after[q..]
            .find('>')
            .ok_or_else(|| "an unterminated glossary link".to_string())?;
        let body_start = q + gt + 1;
        let close = after[body_start..]
            .find("</a>")
            .ok_or_else(|| format!("the glossary link to `{id}` is not closed"))?;
        let words = &after[body_start..body_start + close];
        let term = terms
            .iter()
            .find(|t| t.id == id)
            .ok_or_else(|| format!("`{SCHEME}{id}` names no entry of lessons/{FILE}"))?;
        *next += 1;
        let n = *next;
        out.push_str(&format!(
            "<span class=\"term\"><a class=\"term-link\" href=\"{}\" data-term=\"{}\" \
             aria-describedby=\"term-tip-{n}\">{words}</a><span class=\"term-tip\" role=\"tooltip\" \
             id=\"term-tip-{n}\">{}</span></span>",
            href(id),
            escape(id),
            inline_html(&term.short),
        ));
        rest = &after[body_start + close + "</a>".len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The glossary page's HTML: the file's title and introduction, then one entry per term
/// (`<section class="glossary-entry" id="<id>" data-testid="glossary-term-<id>">`: the term as
/// an `h2`, the definition, the paragraphs after it).
#[cfg(feature = "split")]
pub fn page_html(src: &str, terms: &[Term]) -> String {
    let intro = src.split("\n## ").next().unwrap_or("");
    let mut out = block_html(intro);
    out.push_str("<div class=\"glossary-entries\">\n");
    for t in terms {
        out.push_str(&format!(
            "<section class=\"glossary-entry\" id=\"{id}\" data-testid=\"glossary-term-{id}\" tabindex=\"-1\">\
             <h2>{}</h2><p class=\"glossary-short\">{}</p>{}</section>\n",
            inline_html(&t.term),
            inline_html(&t.short),
            block_html(&t.more),
            id = escape(&t.id),
        ));
    }
    out.push_str("</div>\n");
    out
}

#[cfg(all(test, feature = "split"))]
mod tests {
    use super::*;

    const SRC: &str = "# Glossary\n\nIntro.\n\n## Compare-and-swap (CAS) {#cas}\nOne `cmpxchg` instruction.\n\nMore on it.\n\n## Spin {#spin}\nWaiting on the CPU.\n";

    #[test]
    fn parses_entries() {
        let t = parse(SRC).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].id, "cas");
        assert_eq!(t[0].term, "Compare-and-swap (CAS)");
        assert_eq!(t[0].short, "One `cmpxchg` instruction.");
        assert_eq!(t[0].more, "More on it.");
        assert_eq!(t[1].more, "");
        assert!(parse("## X\nno id\n").unwrap_err().contains("no {#id}"));
        assert!(parse("## X {#x}\n\n## Y {#x}\nb\n")
            .unwrap_err()
            .contains("twice"));
        assert!(parse("## X {#x}\n").unwrap_err().contains("no definition"));
    }

    #[test]
    fn links_become_terms_with_tooltips() {
        let terms = parse(SRC).unwrap();
        let md = "A [CAS](glossary:cas) and a *[spin](glossary:spin)*.";
        assert_eq!(links(md), ["cas", "spin"]);
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(md));
        let mut n = 4;
        let out = link_terms(&html, &terms, &mut n).unwrap();
        assert_eq!(n, 6);
        assert!(out.contains("<a class=\"term-link\" href=\"#/glossary?term=cas\" data-term=\"cas\" aria-describedby=\"term-tip-5\">CAS</a><span class=\"term-tip\" role=\"tooltip\" id=\"term-tip-5\">One <code>cmpxchg</code> instruction.</span>"), "{out}");
        assert!(
            out.contains("aria-describedby=\"term-tip-6\">spin</a>"),
            "{out}"
        );
        assert!(!out.contains("glossary:"), "{out}");
        let bad = link_terms("<a href=\"glossary:nope\">x</a>", &terms, &mut n).unwrap_err();
        assert!(bad.contains("glossary:nope"), "{bad}");
    }

    #[test]
    fn page_has_an_anchor_per_term() {
        let terms = parse(SRC).unwrap();
        let page = page_html(SRC, &terms);
        assert!(page.contains("<h1>Glossary</h1>"));
        assert!(page.contains("id=\"cas\" data-testid=\"glossary-term-cas\""));
        assert!(page.contains("<p>More on it.</p>"));
        assert!(page.contains("id=\"spin\""));
    }
}
