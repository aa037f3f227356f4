//! A lesson's measured tables drawn as charts (issue #14 §3), at `cargo xtask lessons` time.
//!
//! A lesson marks a table as chartable with an HTML comment on the line right above it:
//!
//! ```text
//! <!-- chart: x="strategy" y="wakeups / connection|wasted / connection" title="Wakeups per connection" source="Measured: …, `herdlab bench accept`" -->
//! | strategy | wakeups / connection | wasted / connection | … |
//! |---|---|---|---|
//! | herd | 9.21 | 6.60 | … |
//! ```
//!
//! Every value is quoted. `x`: the column along x; `y`: one or more columns, separated by `|`,
//! one series each; a column is named as its header is written (backticks included). `title`: what
//! the chart shows; `source`: where its figures come from (the caption repeats it, so the chart
//! is labelled like every figure in a lesson). Optional: `kind="bar"` or `kind="line"` (by
//! default a numeric x column gives lines, any other grouped bars), `x_label` (by default the x
//! column's header with its unit) and `y_label` (by default the y column's header, or `value` for
//! several, with their common unit).
//!
//! A cell is a number with an optional unit (`9.21`, `389,000`, `11.2 µs`, `5%`); HTML comments
//! (the `<!-- sim: … -->` markers) and backticks are ignored. A y column's cells must all be numbers
//! with one unit, and the y columns must share it. A marker whose table is missing, whose columns
//! the table lacks, or whose cells are not numbers fails the build, naming the lesson file and line
//! (and the table's columns).
//!
//! The marker line becomes a `<figure>` holding the chart as inline SVG (`herdlab_core::chart`,
//! the charts `herdlab bench --svg` writes: one image to screen readers, named by its title and
//! described by every value in words) and a caption; the table stays below it, for screen readers
//! and copy-paste.

use herdlab_core::chart::{escape, svg_figure, Chart, Series};

/// The keys a chart marker takes.
const KEYS: [&str; 7] = ["x", "y", "title", "source", "kind", "x_label", "y_label"];

/// The marker's start.
const START: &str = "<!-- chart:";

/// `src` (the Markdown of lesson file `file`, named in errors) with each chart marker replaced by
/// its figure; and how many charts it drew.
pub fn render(file: &str, src: &str) -> Result<(String, usize), String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::with_capacity(src.len());
    let mut fence: Option<&str> = None;
    let mut charts = 0;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
        } else if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
        } else if t.starts_with(START) {
            let at = |msg: String| format!("{file}:{}: chart: {msg}", i + 1);
            let marker = parse_marker(t).map_err(at)?;
            let table = table_after(&lines, i + 1).ok_or_else(|| {
                at("the marker is not followed by a table (its header row, then `|---|` on the next line)".into())
            })?;
            let figure = figure(file, &marker, &table, i + 1)?;
            out.push_str(&figure);
            out.push_str("\n\n");
            charts += 1;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok((out, charts))
}

/// A chart marker's attributes.
#[derive(Debug, PartialEq)]
pub struct Marker {
    x: String,
    y: Vec<String>,
    title: String,
    source: String,
    kind: Option<Kind>,
    x_label: Option<String>,
    y_label: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Bar,
    Line,
}

/// The attributes of the marker `line` (`<!-- chart: key="value" … -->`).
fn parse_marker(line: &str) -> Result<Marker, String> {
    let body = line
        .trim_end()
        .strip_prefix(START)
        .and_then(|b| b.strip_suffix("-->"))
        .ok_or("a chart marker is one line, `<!-- chart: key=\"value\" … -->`")?;
    let mut rest = body.trim();
    let mut found: Vec<(&str, &str)> = Vec::new();
    while !rest.is_empty() {
        let (key, after) = rest
            .split_once("=\"")
            .ok_or_else(|| format!("expected key=\"value\" at `{rest}`"))?;
        let key = key.trim();
        if key.contains(|c: char| c.is_whitespace() || c == '=') {
            return Err(format!("expected key=\"value\" at `{rest}`"));
        }
        if !KEYS.contains(&key) {
            return Err(format!(
                "unknown key `{key}`; the keys are {}",
                KEYS.join(", ")
            ));
        }
        let (value, after) = after
            .split_once('"')
            .ok_or_else(|| format!("the value of `{key}` has no closing quote"))?;
        if found.iter().any(|(k, _)| *k == key) {
            return Err(format!("`{key}` is given twice"));
        }
        found.push((key, value));
        rest = after.trim_start();
    }
    let get = |k: &str| {
        found
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.trim())
    };
    let need = |k: &str| match get(k) {
        Some(v) if !v.is_empty() => Ok(v.to_string()),
        _ => Err(format!(
            "the marker needs `{k}` (it has {}); x, y, title and source are required",
            if found.is_empty() {
                "none".to_string()
            } else {
                found.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            }
        )),
    };
    let kind = match get("kind") {
        None => None,
        Some("bar") => Some(Kind::Bar),
        Some("line") => Some(Kind::Line),
        Some(other) => return Err(format!("kind \"{other}\" is not one of \"bar\", \"line\"")),
    };
    Ok(Marker {
        x: need("x")?,
        y: need("y")?
            .split('|')
            .map(|c| c.trim().to_string())
            .collect(),
        title: need("title")?,
        source: need("source")?,
        kind,
        x_label: get("x_label").map(str::to_string),
        y_label: get("y_label").map(str::to_string),
    })
}

/// A pipe table as written: its header cells, and each body row's line number (1-based) and
/// cells.
#[derive(Debug)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

/// The cells of a table row (`| a | b |`).
fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_string()).collect()
}

/// The table starting at line index `start` of `lines`, if one does.
fn table_after(lines: &[&str], start: usize) -> Option<Table> {
    let head = lines.get(start)?;
    let delim = lines.get(start + 1)?;
    let is_delim = cells(delim)
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')));
    if !head.trim_start().starts_with('|') || !is_delim {
        return None;
    }
    let rows = lines[start + 2..]
        .iter()
        .enumerate()
        .take_while(|(_, l)| l.trim_start().starts_with('|'))
        .map(|(k, l)| (start + 3 + k, cells(l)))
        .collect();
    Some(Table {
        header: cells(head),
        rows,
    })
}

/// A cell's text without HTML comments and backticks.
fn clean(cell: &str) -> String {
    let mut s = String::new();
    let mut rest = cell;
    while let Some(i) = rest.find("<!--") {
        s.push_str(&rest[..i]);
        rest = rest[i..].find("-->").map_or("", |j| &rest[i + j + 3..]);
    }
    s.push_str(rest);
    s.replace('`', "").trim().to_string()
}

/// A cell as a number and its unit (`11.2 µs` → 11.2, `µs`; `389,000` → 389000, ``), if it is one.
fn number(cell: &str) -> Option<(f64, String)> {
    let s = clean(cell);
    let b = s.as_bytes();
    let mut n = String::new();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        n.push('-');
        i = 1;
    }
    let digits = i;
    while i < b.len() {
        let c = b[i];
        let thousands = c == b','
            && i > digits
            && b[i - 1].is_ascii_digit()
            && b.len() >= i + 4
            && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
            && b.get(i + 4).is_none_or(|d| !d.is_ascii_digit());
        if c.is_ascii_digit() || c == b'.' {
            n.push(c as char);
        } else if !thousands {
            break;
        }
        i += 1;
    }
    let unit = s[i..].trim();
    let unit_ok = unit
        .chars()
        .all(|c| c.is_alphabetic() || c == '%' || c == '/');
    let v: f64 = n.parse().ok()?;
    (unit_ok && v.is_finite()).then(|| (v, unit.to_string()))
}

/// The figure of `marker` over `table` (whose marker is on line `line` of `file`).
fn figure(file: &str, marker: &Marker, table: &Table, line: usize) -> Result<String, String> {
    let at = |l: usize, msg: String| format!("{file}:{l}: chart: {msg}");
    let columns = || {
        table
            .header
            .iter()
            .map(|h| format!("\"{h}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let col = |name: &str| {
        table.header.iter().position(|h| h == name).ok_or_else(|| {
            at(
                line,
                format!(
                    "the table has no column \"{name}\"; its columns are {}",
                    columns()
                ),
            )
        })
    };
    let xi = col(&marker.x)?;
    let yis = marker
        .y
        .iter()
        .map(|y| col(y))
        .collect::<Result<Vec<_>, _>>()?;
    if table.rows.is_empty() {
        return Err(at(line, "the table has no rows".into()));
    }
    let cell = |row: &[String], i: usize| row.get(i).cloned().unwrap_or_default();
    // x: numbers with one unit (lines), or categories (bars)
    let xs: Option<Vec<(f64, String)>> = table
        .rows
        .iter()
        .map(|(_, r)| number(&cell(r, xi)))
        .collect();
    let x_unit = xs.as_ref().and_then(|xs| {
        let u = &xs[0].1;
        xs.iter().all(|(_, v)| v == u).then(|| u.clone())
    });
    let bars = match (marker.kind, &x_unit) {
        (Some(Kind::Bar), _) | (None, None) => true,
        (Some(Kind::Line), None) => {
            let (l, r) = table
                .rows
                .iter()
                .find(|(_, r)| number(&cell(r, xi)).is_none())
                .unwrap_or(&table.rows[0]);
            return Err(at(
                *l,
                format!(
                    "kind=\"line\" needs numbers with one unit in the x column \"{}\"; this row holds \"{}\"",
                    marker.x,
                    cell(r, xi)
                ),
            ));
        }
        (_, Some(_)) => false,
    };
    let mut series = Vec::new();
    let mut y_unit: Option<(String, &str)> = None;
    for (&yi, name) in yis.iter().zip(&marker.y) {
        let mut points = Vec::new();
        for (k, (l, r)) in table.rows.iter().enumerate() {
            let raw = cell(r, yi);
            let (v, unit) = number(&raw).ok_or_else(|| {
                at(
                    *l,
                    format!(
                        "column \"{name}\" of row \"{}\" holds \"{}\", not a number (a number with an optional unit: 9.21, 389,000, 11.2 µs, 5%)",
                        clean(&cell(r, 0)),
                        clean(&raw)
                    ),
                )
            })?;
            match &y_unit {
                None => y_unit = Some((unit, name)),
                Some((u, first)) if *u != unit => {
                    return Err(at(
                        *l,
                        format!(
                            "column \"{name}\" of row \"{}\" is in \"{unit}\", but column \"{first}\" is in \"{u}\"; one chart's y values share a unit",
                            clean(&cell(r, 0))
                        ),
                    ))
                }
                Some(_) => {}
            }
            let x = match (&xs, bars) {
                (Some(xs), false) => xs[k].0,
                _ => k as f64,
            };
            points.push((x, v));
        }
        series.push(Series {
            name: clean(name),
            points,
        });
    }
    let with_unit = |label: String, unit: &str| {
        if unit.is_empty() {
            label
        } else {
            format!("{label} ({unit})")
        }
    };
    let y_unit = y_unit.map(|(u, _)| u).unwrap_or_default();
    let y_label = match &marker.y_label {
        Some(l) => l.clone(),
        None if marker.y.len() == 1 => with_unit(clean(&marker.y[0]), &y_unit),
        None => with_unit("value".into(), &y_unit),
    };
    let chart = Chart {
        title: marker.title.clone(),
        x_label: marker
            .x_label
            .clone()
            .unwrap_or_else(|| with_unit(clean(&marker.x), x_unit.as_deref().unwrap_or(""))),
        y_label,
        categories: if bars {
            table
                .rows
                .iter()
                .map(|(_, r)| clean(&cell(r, xi)))
                .collect()
        } else {
            Vec::new()
        },
        log_x: false,
        series,
    };
    let slug = file
        .rsplit('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".md");
    let svg = svg_figure(&format!("chart-{slug}-{line}-"), &chart, bars);
    Ok(format!(
        r#"<figure class="lesson-chart">{svg}<figcaption>{}. Source: {}</figcaption></figure>"#,
        code_spans(&escape(&marker.title)),
        code_spans(&escape(&marker.source))
    ))
}

/// Escaped text with its `code` spans as `<code>` elements.
fn code_spans(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return s.to_string();
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{p}</code>")
            } else {
                p.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "Intro.\n\n\
        <!-- chart: x=\"strategy\" y=\"wakeups|`wasted`\" title=\"Wakeups\" source=\"measured, `herdlab bench accept`\" -->\n\
        | strategy | wakeups | `wasted` | won / lost |\n\
        |---|---|---|---|\n\
        | herd | <!-- sim: x metric=y -->9.21 | 6.60 | — |\n\
        | exclusive | 1,310 | 0.02 | 1789 / 42 |\n\
        \nAfter.\n";

    #[test]
    fn a_marker_becomes_a_figure_above_its_table() {
        let (out, n) = render("lessons/t.md", TABLE).expect("renders");
        assert_eq!(n, 1);
        assert!(!out.contains("<!-- chart:"));
        let fig = out.lines().nth(2).expect("the figure's line");
        assert!(
            fig.starts_with(r#"<figure class="lesson-chart"><svg "#),
            "{fig}"
        );
        assert!(fig.contains(r#"role="img" aria-labelledby="chart-t-3-c-t chart-t-3-c-d""#));
        assert!(fig.contains(r#"<title id="chart-t-3-c-t">Wakeups</title>"#));
        // the values in words: the sim marker and the thousands separator are read through
        assert!(fig.contains("Wakeups: value against strategy. wakeups: herd 9.21; exclusive 1310. wasted: herd 6.6; exclusive 0.02."), "{fig}");
        assert!(fig.ends_with(
            "<figcaption>Wakeups. Source: measured, <code>herdlab bench accept</code></figcaption></figure>"
        ));
        assert_eq!(fig.matches(r#"fill-opacity="0.75""#).count(), 4 + 2, "bars");
        // a blank line ends the HTML block, then the table as it was
        assert_eq!(out.lines().nth(3), Some(""));
        assert_eq!(
            out.lines().nth(4),
            Some("| strategy | wakeups | `wasted` | won / lost |")
        );
        assert!(out.ends_with("\nAfter.\n"));
        // and Markdown keeps both: the figure raw, the table a table
        let segs = herdlab_lessons::markdown::segments(&out);
        let html = match &segs[..] {
            [herdlab_lessons::markdown::Segment::Html(h)] => h,
            other => panic!("{other:?}"),
        };
        assert!(html.contains("</figure>\n<table>"), "{html}");
    }

    #[test]
    fn a_numeric_x_gives_lines_and_units_label_the_axes() {
        let md = "<!-- chart: x=\"reads\" y=\"mean|p99\" title=\"Latency\" source=\"sim\" -->\n\
            | reads | mean | p99 |\n|:--|--:|--:|\n| 0% | 11.2 µs | 11.5 µs |\n| 5% | 54.7 µs | 999.4 µs |\n";
        let (out, _) = render("lessons/p.md", md).expect("renders");
        assert!(out.contains("<polyline"));
        assert!(out.contains("Latency: value (µs) against reads (%). mean: 0 11.2; 5 54.7. p99: 0 11.5; 5 999.4."), "{out}");
        // kind="bar" draws the same numbers as categories
        let (bars, _) = render(
            "lessons/p.md",
            &md.replace("source=", "kind=\"bar\" source="),
        )
        .expect("renders");
        assert!(
            !bars.contains("<polyline") && bars.contains("mean: 0% 11.2; 5% 54.7."),
            "{bars}"
        );
    }

    fn err(md: &str) -> String {
        render("lessons/e.md", md).expect_err("fails")
    }

    #[test]
    fn a_missing_column_names_the_columns_there_are() {
        let md = TABLE.replace("y=\"wakeups|", "y=\"wakeup|");
        assert_eq!(
            err(&md),
            "lessons/e.md:3: chart: the table has no column \"wakeup\"; its columns are \"strategy\", \"wakeups\", \"`wasted`\", \"won / lost\""
        );
        let md = TABLE.replace("x=\"strategy\"", "x=\"Strategy\"");
        assert!(err(&md).starts_with("lessons/e.md:3: chart: the table has no column \"Strategy\"; its columns are \"strategy\","));
    }

    #[test]
    fn a_cell_that_is_not_a_number_names_its_line() {
        let md = TABLE.replace("y=\"wakeups|`wasted`\"", "y=\"wakeups|won / lost\"");
        assert_eq!(
            err(&md),
            "lessons/e.md:6: chart: column \"won / lost\" of row \"herd\" holds \"—\", not a number (a number with an optional unit: 9.21, 389,000, 11.2 µs, 5%)"
        );
        let md = TABLE.replace("| — |", "| 3 |");
        let md = md.replace("y=\"wakeups|`wasted`\"", "y=\"won / lost\"");
        assert!(err(&md).starts_with("lessons/e.md:7: chart: column \"won / lost\" of row \"exclusive\" holds \"1789 / 42\", not a number"));
        // two figures in one cell, as in "7.99, 0.26"
        let md = TABLE.replace("| 6.60 |", "| 7.99, 0.26 |");
        assert!(err(&md).starts_with(
            "lessons/e.md:6: chart: column \"`wasted`\" of row \"herd\" holds \"7.99, 0.26\""
        ));
        // units that differ
        let md = "<!-- chart: x=\"n\" y=\"t\" title=\"T\" source=\"s\" -->\n| n | t |\n|---|---|\n| 1 | 5 µs |\n| 2 | 1.5 ms |\n";
        assert_eq!(
            err(md),
            "lessons/e.md:5: chart: column \"t\" of row \"2\" is in \"ms\", but column \"t\" is in \"µs\"; one chart's y values share a unit"
        );
        let md = md
            .replace("kind", "")
            .replace("source=\"s\"", "source=\"s\" kind=\"line\"")
            .replace("| 2 |", "| two |")
            .replace("1.5 ms", "7 µs");
        assert!(err(&md).starts_with("lessons/e.md:5: chart: kind=\"line\" needs numbers with one unit in the x column \"n\"; this row holds \"two\""), "{}", err(&md));
    }

    #[test]
    fn bad_markers_say_what_is_allowed() {
        let line = |m: &str| err(&format!("{m}\n| a | b |\n|---|---|\n| 1 | 2 |\n"));
        assert_eq!(
            line("<!-- chart: x=\"a\" y=\"b\" title=\"T\" -->"),
            "lessons/e.md:1: chart: the marker needs `source` (it has x, y, title); x, y, title and source are required"
        );
        assert_eq!(
            line("<!-- chart: x=\"a\" y=\"b\" title=\"T\" source=\"s\" colour=\"red\" -->"),
            "lessons/e.md:1: chart: unknown key `colour`; the keys are x, y, title, source, kind, x_label, y_label"
        );
        assert_eq!(
            line("<!-- chart: x=\"a\" y=\"b\" title=\"T\" source=\"s\" kind=\"pie\" -->"),
            "lessons/e.md:1: chart: kind \"pie\" is not one of \"bar\", \"line\""
        );
        assert_eq!(
            line("<!-- chart: x=a y=\"b\" -->"),
            "lessons/e.md:1: chart: expected key=\"value\" at `x=a y=\"b\"`"
        );
        assert_eq!(
            line("<!-- chart: x=\"a\" y=\"b -->"),
            "lessons/e.md:1: chart: the value of `y` has no closing quote"
        );
        assert_eq!(
            line("<!-- chart: x=\"a\""),
            "lessons/e.md:1: chart: a chart marker is one line, `<!-- chart: key=\"value\" … -->`"
        );
        assert_eq!(
            err("<!-- chart: x=\"a\" y=\"b\" title=\"T\" source=\"s\" -->\n\n| a | b |\n|---|---|\n"),
            "lessons/e.md:1: chart: the marker is not followed by a table (its header row, then `|---|` on the next line)"
        );
        // a marker inside a code block is text, left alone
        let md = "```text\n<!-- chart: nonsense -->\n```\n";
        assert_eq!(render("lessons/e.md", md), Ok((md.to_string(), 0)));
    }

    #[test]
    fn numbers_and_units() {
        assert_eq!(number("389,000"), Some((389000.0, String::new())));
        assert_eq!(number("11.2 µs"), Some((11.2, "µs".into())));
        assert_eq!(number("5%"), Some((5.0, "%".into())));
        assert_eq!(number("-0.5"), Some((-0.5, String::new())));
        assert_eq!(
            number("<!-- sim: a=1,000 -->0.26"),
            Some((0.26, String::new()))
        );
        assert_eq!(number("`1.02`"), Some((1.02, String::new())));
        assert_eq!(number("1,00"), None);
        assert_eq!(number("7.99, 0.26"), None);
        assert_eq!(number("1.02 / 4.01"), None);
        assert_eq!(number("—"), None);
        assert_eq!(number(""), None);
        assert_eq!(number("1.2.3"), None);
    }

    /// Every chart marker in the real lessons renders (each lesson's figures as `cargo xtask
    /// lessons` writes them).
    #[test]
    fn the_lessons_charts_render() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut total = 0;
        for (_, file) in herdlab_lessons::list::LESSON_FILES {
            let src = std::fs::read_to_string(root.join("lessons").join(file)).expect("lesson");
            let (out, n) =
                render(&format!("lessons/{file}"), &src).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                out.matches("<figure class=\"lesson-chart\"><svg").count(),
                n
            );
            assert_eq!(n, src.matches("\n<!-- chart:").count(), "{file}");
            total += n;
        }
        assert!(total >= 3, "the measured tables are charted ({total})");
        let src = std::fs::read_to_string(root.join("lessons/epoll-herd.md")).expect("lesson");
        let (out, _) = render("lessons/epoll-herd.md", &src).expect("renders");
        assert!(out.contains("herd 9.21; shared-epoll 5.24; exclusive 1.31; exclusive, no re-registration 1.18; reuseport 1.29; blocking 1.39."), "the measured wakeups, row for row");
    }
}
