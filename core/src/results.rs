//! Results files: the JSON that `herdlab bench <mechanism> … --json` prints, read back (the site's
//! results page, `#/results`, issue #14 §3). The text comes from strangers (files people share),
//! so [`parse`] refuses anything else with a message naming the problem, the row and the field
//! where there is one, and what is allowed; it never panics and its work is linear in the text.
//!
//! Whose rows a file holds is read from the columns: a mechanism's rows carry every column its
//! charts name ([`crate::mechanism::Mechanism::bench_charts`]). Names no mechanism: the list is
//! the registry's ([`crate::scenario::bench_charts_of`]).
//!
//! ```
//! use herdlab_core::results::parse;
//! let text = r#"[{"variant": "futex wake-all", "threads": 2, "wasted_per_event": 1.0,
//!                 "event_p99_ns": 59786}]"#;
//! let r = parse(text).unwrap();
//! assert_eq!(r.mechanism, "herd");
//! assert_eq!(r.rows.len(), 1);
//! let e = parse(r#"[{"variant": "x", "threads": "two", "wasted_per_event": 1, "event_p99_ns": 5}]"#)
//!     .unwrap_err();
//! assert_eq!(e.field, "row 1, threads");
//! ```

use core::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::chart::{Chart, ChartSpec, XAxis};
use crate::scenario::{bench_charts_of, MECHANISMS};

/// The largest file [`parse`] reads (bytes): `--json` output of any bench is far smaller.
pub const MAX_BYTES: usize = 4 << 20;
/// The most rows [`parse`] takes from one file.
pub const MAX_ROWS: usize = 10_000;

/// A refused file: where (`JSON`, `row 3`, `row 3, threads`, `columns`) and why, with what is
/// allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultsError {
    /// Where the problem is.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// A results file read back: whose rows, and the rows (JSON objects, in file order).
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// The mechanism whose `herdlab bench` printed the rows (`herd`).
    pub mechanism: &'static str,
    /// The rows.
    pub rows: Vec<Value>,
    /// The rows' columns, in the order they first appear in the file.
    pub columns: Vec<String>,
}

/// One row as it is read: an object whose keys appear once each (serde_json's own map keeps the
/// last of a repeated key, silently).
struct Row(Map<String, Value>, Vec<String>);

impl<'de> Deserialize<'de> for Row {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Row, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Row;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a row object ({\"column\": value, …})")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Row, A::Error> {
                let mut m = Map::new();
                let mut order = Vec::new();
                while let Some(k) = a.next_key::<String>()? {
                    if m.contains_key(&k) {
                        return Err(de::Error::custom(format!(
                            "the column \"{}\" appears twice in one row; each column once",
                            shorten(&k)
                        )));
                    }
                    let v: Value = a.next_value()?;
                    order.push(k.clone());
                    m.insert(k, v);
                }
                Ok(Row(m, order))
            }
        }
        d.deserialize_map(V)
    }
}

/// The top level: an array of rows, at most [`MAX_ROWS`].
struct Rows(Vec<Row>);

impl<'de> Deserialize<'de> for Rows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rows, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Rows;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of row objects, as `herdlab bench <mechanism> --json` prints")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Rows, A::Error> {
                let mut rows = Vec::new();
                while let Some(r) = a.next_element::<Row>()? {
                    if rows.len() == MAX_ROWS {
                        return Err(de::Error::custom(format!(
                            "more than {MAX_ROWS} rows; a results file has at most {MAX_ROWS}"
                        )));
                    }
                    rows.push(r);
                }
                Ok(Rows(rows))
            }
        }
        d.deserialize_seq(V)
    }
}

/// At most 40 characters of `s` (a value quoted back in a message).
fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// A JSON value in words, for messages.
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the text \"{}\"", shorten(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// The columns `spec` reads as numbers, and those that name its series.
fn spec_columns(spec: &ChartSpec) -> (Vec<&'static str>, &'static [&'static str]) {
    let numbers = match spec.x {
        XAxis::Column { key, .. } => vec![key, spec.y],
        XAxis::Columns { columns, .. } => columns.iter().map(|c| c.1).collect(),
    };
    (numbers, spec.series)
}

/// Every column the charts of `specs` need.
fn needed(specs: &[ChartSpec]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for s in specs {
        let (nums, series) = spec_columns(s);
        for c in nums.into_iter().chain(series.iter().copied()) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// Read a results file from its bytes (as a browser's file reader gives them): text that is not
/// UTF-8 is refused with the offset of its first bad byte; the rest is [`parse`].
pub fn parse_bytes(bytes: &[u8]) -> Result<Results, ResultsError> {
    if bytes.len() > MAX_BYTES {
        return Err(ResultsError {
            field: "file".into(),
            message: format!(
                "{} bytes; a results file has at most {MAX_BYTES} bytes",
                bytes.len()
            ),
        });
    }
    match core::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => Err(ResultsError {
            field: "file".into(),
            message: format!(
                "byte {} is not UTF-8 text; expected the JSON (UTF-8) that `herdlab bench \
                 <mechanism> --json` prints",
                e.valid_up_to() + 1
            ),
        }),
    }
}

/// Read a results file: the text of `herdlab bench <mechanism> … --json`. Refuses, naming the
/// place and what is allowed: text over [`MAX_BYTES`], text that is not JSON (with line and
/// column), a top level that is not an array, no rows or more than [`MAX_ROWS`], a row that is
/// not an object or repeats a column, rows that are no mechanism's, and a chart column that is
/// not a finite number (a series column that is an array or object).
pub fn parse(text: &str) -> Result<Results, ResultsError> {
    let err = |field: &str, message: String| ResultsError {
        field: field.to_string(),
        message,
    };
    if text.len() > MAX_BYTES {
        return Err(err(
            "file",
            format!(
                "{} bytes; a results file has at most {MAX_BYTES} bytes",
                text.len()
            ),
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(err(
            "file",
            "it is empty; expected the JSON that `herdlab bench <mechanism> --json` prints".into(),
        ));
    }
    let rows = match serde_json::from_str::<Rows>(text) {
        Ok(Rows(rows)) => rows,
        Err(e) => {
            let what = e.to_string();
            // serde_json's message ends with " at line L column C": say it first
            let what = what
                .rsplit_once(" at line ")
                .map_or(what.clone(), |(m, _)| m.to_string());
            // a type error already says what was expected; a syntax error does not
            let expected = if e.is_data() {
                ""
            } else {
                " (expected an array of row objects, as `herdlab bench <mechanism> --json` prints)"
            };
            return Err(err(
                "JSON",
                format!("line {} column {}: {what}{expected}", e.line(), e.column()),
            ));
        }
    };
    if rows.is_empty() {
        return Err(err(
            "JSON",
            "the array has no rows; expected at least one row object".into(),
        ));
    }
    let mut columns: Vec<String> = Vec::new();
    for r in &rows {
        for k in &r.1 {
            if !columns.contains(k) {
                columns.push(k.clone());
            }
        }
    }
    let rows: Vec<Map<String, Value>> = rows.into_iter().map(|r| r.0).collect();
    let mechanism = detect(&rows)?;
    let specs = bench_charts_of(mechanism).unwrap_or_default();
    for (i, row) in rows.iter().enumerate() {
        for spec in &specs {
            let (nums, series) = spec_columns(spec);
            for c in nums {
                match row.get(c) {
                    Some(Value::Number(n)) if n.as_f64().is_some_and(f64::is_finite) => {}
                    Some(v) => {
                        return Err(err(
                            &format!("row {}, {c}", i + 1),
                            format!("{}; allowed: a finite number", kind(v)),
                        ))
                    }
                    None => {
                        return Err(err(
                            &format!("row {}", i + 1),
                            format!(
                                "the column \"{c}\" is missing; every row of `herdlab bench \
                                 {mechanism} --json` has it"
                            ),
                        ))
                    }
                }
            }
            for c in series {
                if let Some(v @ (Value::Array(_) | Value::Object(_))) = row.get(*c) {
                    return Err(err(
                        &format!("row {}, {c}", i + 1),
                        format!("{}; allowed: text, a number, true/false or null", kind(v)),
                    ));
                }
            }
        }
    }
    Ok(Results {
        mechanism,
        rows: rows.into_iter().map(Value::Object).collect(),
        columns,
    })
}

/// Whose rows: the mechanism whose charts' columns the first row has all of (the one needing
/// the most columns when several fit).
fn detect(rows: &[Map<String, Value>]) -> Result<&'static str, ResultsError> {
    let first = &rows[0];
    let mut best: Option<(&'static str, usize)> = None;
    let mut known = Vec::new();
    for name in MECHANISMS {
        let specs = bench_charts_of(name).unwrap_or_default();
        let cols = needed(&specs);
        if cols.is_empty() {
            continue;
        }
        if cols.iter().all(|c| first.contains_key(*c)) && best.is_none_or(|(_, n)| cols.len() > n) {
            best = Some((name, cols.len()));
        }
        known.push(format!("{name} ({})", cols.join(", ")));
    }
    if let Some((name, _)) = best {
        return Ok(name);
    }
    let have: Vec<String> = first.keys().take(12).map(|k| shorten(k)).collect();
    Err(ResultsError {
        field: "columns".into(),
        message: format!(
            "row 1 has the columns [{}], which are no `herdlab bench` output; the benches' rows \
             have: {}",
            have.join(", "),
            known.join("; ")
        ),
    })
}

/// The charts of several runs of one mechanism's bench drawn together: each chart of the
/// mechanism with every run's series (named `<label>: <series>` when there are several runs:
/// two machines, or before and after). `runs`: (label, rows) in order.
pub fn overlay(mechanism: &str, runs: &[(&str, &[Value])]) -> Vec<Chart> {
    let specs = bench_charts_of(mechanism).unwrap_or_default();
    specs
        .iter()
        .map(|spec| {
            let mut out: Option<Chart> = None;
            for (label, rows) in runs {
                let mut c = Chart::from_rows(spec, rows);
                if runs.len() > 1 {
                    for s in &mut c.series {
                        s.name = format!("{label}: {}", s.name);
                    }
                }
                match &mut out {
                    None => out = Some(c),
                    Some(o) => {
                        o.log_x = o.log_x && c.log_x;
                        o.series.extend(c.series);
                    }
                }
            }
            out.unwrap_or_else(|| Chart::from_rows(spec, &[]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERD: &str = r#"[
      {"variant": "futex wake-all", "threads": 2, "wasted_per_event": 1.0, "event_p99_ns": 900},
      {"variant": "futex wake-one", "threads": 2, "wasted_per_event": 0.0, "event_p99_ns": 500},
      {"variant": "futex wake-all", "threads": 8, "wasted_per_event": 7.0, "event_p99_ns": 4000}
    ]"#;

    #[test]
    fn reads_rows_and_finds_the_mechanism() {
        let r = parse(HERD).unwrap();
        assert_eq!(r.mechanism, "herd");
        assert_eq!(r.rows.len(), 3);
        assert_eq!(
            r.columns,
            ["variant", "threads", "wasted_per_event", "event_p99_ns"]
        );
    }

    #[test]
    fn refusals_name_the_place() {
        let e = parse_bytes(b"[\xff]").unwrap_err();
        assert_eq!(e.to_string(), "file: byte 2 is not UTF-8 text; expected the JSON (UTF-8) that `herdlab bench <mechanism> --json` prints");
        let e = parse("").unwrap_err();
        assert_eq!(e.field, "file");
        let e = parse("{\"a\": 1}").unwrap_err();
        assert_eq!(e.field, "JSON");
        assert!(e.message.contains("line 1 column "), "{e}");
        assert!(
            e.message.contains("expected an array of row objects"),
            "{e}"
        );
        let e = parse("[{\"a\": 1},").unwrap_err();
        assert!(e.message.starts_with("line 1 column 10: EOF"), "{e}");
        let e = parse("[1]").unwrap_err();
        assert_eq!(e.field, "JSON");
        assert!(e.message.contains("row object"), "{e}");
        let e = parse("[]").unwrap_err();
        assert!(e.message.contains("no rows"), "{e}");
        let e = parse("[{\"a\": 1, \"a\": 2}]").unwrap_err();
        assert!(e.message.contains("\"a\" appears twice"), "{e}");
        let e = parse("[{\"a\": 1}]").unwrap_err();
        assert_eq!(e.field, "columns");
        assert!(e.message.contains("herd (threads, "), "{e}");
        let bad = HERD.replacen("\"threads\": 8", "\"threads\": \"8\"", 1);
        let e = parse(&bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            "row 3, threads: the text \"8\"; allowed: a finite number"
        );
        let missing = HERD.replacen(", \"event_p99_ns\": 500", "", 1);
        let e = parse(&missing).unwrap_err();
        assert_eq!(e.field, "row 2");
        assert!(e.message.contains("\"event_p99_ns\" is missing"), "{e}");
        let e = parse("[{\"threads\": 1e999}]").unwrap_err();
        assert_eq!(e.field, "JSON");
        let big = format!("[{}]", vec!["{}"; MAX_ROWS + 1].join(","));
        assert!(parse(&big).unwrap_err().message.contains("more than"));
    }

    #[test]
    fn runs_overlay_with_their_labels() {
        let r = parse(HERD).unwrap();
        let one = overlay("herd", &[("a", &r.rows)]);
        assert_eq!(one.len(), 2);
        assert_eq!(one[0].series[0].name, "futex wake-all");
        let two = overlay("herd", &[("a", &r.rows), ("b", &r.rows[..1])]);
        assert_eq!(two[0].series.len(), 3);
        assert_eq!(two[0].series[2].name, "b: futex wake-all");
        assert_eq!(two[0].series[0].points, vec![(2.0, 1.0), (8.0, 7.0)]);
    }
}
