//! Splitting a lesson's Markdown into HTML segments and live-widget segments. This runs at build
//! time (`cargo xtask lessons` writes the segments into the lesson files the site fetches, see
//! [`crate::file`](mod@crate::file)), so the site itself carries no Markdown parser. The splitter,
//! `segments`, needs the `split` feature (pulldown-cmark); [`Segment`] does not.

#[cfg(feature = "split")]
use pulldown_cmark::{html, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// One piece of a lesson, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// Rendered HTML of plain Markdown.
    Html(String),
    /// The body of a ```` ```herdlab-sim ```` block.
    Sim(String),
    /// The body of a ```` ```herdlab-compare ```` block.
    Compare(String),
    /// The body of a ```` ```herdlab-predict ```` block.
    Predict(String),
    /// The body of a ```` ```herdlab-check ```` block.
    Check(String),
    /// The body of a ```` ```herdlab-accept ```` block.
    Accept(String),
    /// The body of a ```` ```herdlab-accept-compare ```` block.
    AcceptCompare(String),
}

impl Segment {
    /// The segment's kind, as the lesson files name it (`html`, or the info string without
    /// `herdlab-`), and its text.
    pub fn parts(&self) -> (&'static str, &str) {
        match self {
            Segment::Html(s) => ("html", s),
            Segment::Sim(s) => ("sim", s),
            Segment::Compare(s) => ("compare", s),
            Segment::Predict(s) => ("predict", s),
            Segment::Check(s) => ("check", s),
            Segment::Accept(s) => ("accept", s),
            Segment::AcceptCompare(s) => ("accept-compare", s),
        }
    }
}

#[cfg(feature = "split")]
#[derive(Clone, Copy)]
enum Kind {
    Sim,
    Compare,
    Predict,
    Check,
    Accept,
    AcceptCompare,
}

#[cfg(feature = "split")]
fn kind_of(info: &str) -> Option<Kind> {
    match info.split_whitespace().next().unwrap_or("") {
        "herdlab-sim" => Some(Kind::Sim),
        "herdlab-compare" => Some(Kind::Compare),
        "herdlab-predict" => Some(Kind::Predict),
        "herdlab-check" => Some(Kind::Check),
        "herdlab-accept" => Some(Kind::Accept),
        "herdlab-accept-compare" => Some(Kind::AcceptCompare),
        _ => None,
    }
}

/// The segments of `src`: HTML between the widget blocks, and each widget block's body.
#[cfg(feature = "split")]
pub fn segments(src: &str) -> Vec<Segment> {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    let mut out = Vec::new();
    let mut pending: Vec<Event<'_>> = Vec::new();
    let mut widget: Option<(Kind, String)> = None;
    for ev in Parser::new_ext(src, opts) {
        if let Some((kind, body)) = widget.as_mut() {
            match ev {
                Event::Text(t) => body.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let body = std::mem::take(body);
                    out.push(match kind {
                        Kind::Sim => Segment::Sim(body),
                        Kind::Compare => Segment::Compare(body),
                        Kind::Predict => Segment::Predict(body),
                        Kind::Check => Segment::Check(body),
                        Kind::Accept => Segment::Accept(body),
                        Kind::AcceptCompare => Segment::AcceptCompare(body),
                    });
                    widget = None;
                }
                _ => {}
            }
            continue;
        }
        if let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) = &ev {
            if let Some(kind) = kind_of(info) {
                flush(&mut pending, &mut out);
                widget = Some((kind, String::new()));
                continue;
            }
        }
        pending.push(ev);
    }
    flush(&mut pending, &mut out);
    out
}

#[cfg(feature = "split")]
fn flush(pending: &mut Vec<Event<'_>>, out: &mut Vec<Segment>) {
    if pending.is_empty() {
        return;
    }
    let mut s = String::new();
    html::push_html(&mut s, pending.drain(..));
    // a code block scrolls sideways when narrow: it must be reachable from the keyboard
    let s = s.replace("<pre>", "<pre tabindex=\"0\">");
    if !s.trim().is_empty() {
        out.push(Segment::Html(s));
    }
}

#[cfg(all(test, feature = "split"))]
mod tests {
    use super::*;

    #[test]
    fn splits_blocks() {
        let md = "# T\n\nSome *text*.\n\n```herdlab-sim\nid=a&workers=2\n```\n\nMore.\n\n```text\ncode\n```\n\n```herdlab-predict\nq: x?\noptions: a | b\n```\n";
        let s = segments(md);
        assert_eq!(s.len(), 4);
        assert!(
            matches!(&s[0], Segment::Html(h) if h.contains("<h1>T</h1>") && h.contains("<em>text</em>"))
        );
        assert_eq!(s[1], Segment::Sim("id=a&workers=2\n".into()));
        assert!(matches!(&s[2], Segment::Html(h) if h.contains("<code") && h.contains("More")));
        assert!(matches!(&s[3], Segment::Predict(b) if b.contains("options: a | b")));
    }
}
