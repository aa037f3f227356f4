//! Every simulator figure quoted in a lesson matches what the simulator gives today.
//!
//! A lesson marks each such figure with an HTML comment right before the number, which the site
//! renders as nothing:
//!
//! ```text
//! <!-- sim: mechanism=herd&workers=8&mode=wake-all&connections=1000&seed=1 metric=wasted_wakeups -->7000
//! ```
//!
//! The marker holds the scenario as a page query (parsed strictly by `Scenario::from_query`), then
//! options:
//! - `metric=EXPR`: what to read from the run's report. `EXPR` is a term or `term/term` (a ratio);
//!   a term is a number, a report field (`wakeups`), an element (`per_worker_connections[0]`), a
//!   field of an element (`per_worker[1].timer_wakeups`), or
//!   `max(field)` / `min(field)` / `count(field=N)` over a list field.
//! - `scale=N`: divide the value by `N` first (`1000` for ns → µs, `1000000` for ns → ms).
//! - `round=N`: the quoted number is the value rounded to `N` decimals (default 0; `-1` rounds to
//!   tens, for "about 50 µs"): it may differ
//!   from the value by at most half a unit of its last place.
//!
//! The report is the JSON of the run: for `accept`, `AcceptReport` (what `herdlab sim accept --json`
//! and the compare widgets print); for `herd` and `locks`, the run's `Metrics` plus per-worker lists
//! `worker_accepted`, `worker_wakeups`, `worker_wasted_wakeups` and `worker_steps`.
//!
//! The number after the marker may have thousands separators (`1,000`) and a decimal part.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use herdlab_core::scenario::Scenario;
use herdlab_core::sim::Status;
use serde_json::{json, Value};

const MAX_STEPS: u64 = 50_000_000;
const OPEN: &str = "<!-- sim:";

/// The lessons, as `web/src/lesson_list.rs` lists them (slug, file); each must mark its figures.
const LESSONS: [(&str, &str); 7] = [
    ("thundering-herd", "thundering-herd.md"),
    ("nginx-shmtx", "nginx-shmtx.md"),
    ("epoll-herd", "epoll-herd.md"),
    ("nginx-accept-mutex", "nginx-accept-mutex.md"),
    ("nginx-thread-pool", "nginx-thread-pool.md"),
    ("go-scheduler", "go-scheduler.md"),
    ("mysql-thread-per-connection", "mysql-thread-per-connection.md"),
];

/// One marked figure.
#[derive(Debug)]
struct Figure {
    file: String,
    line: usize,
    query: String,
    metric: String,
    scale: f64,
    round: i32,
    quoted: f64,
    quoted_text: String,
}

fn parse_figures(file: &str, text: &str) -> Vec<Figure> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(i) = rest.find(OPEN) {
        let start = offset + i;
        let line = text[..start].matches('\n').count() + 1;
        let after = &rest[i + OPEN.len()..];
        let close = after
            .find("-->")
            .unwrap_or_else(|| panic!("{file}:{line}: marker without -->"));
        let body = after[..close].trim();
        let tail = &after[close + 3..];
        let mut words = body.split_whitespace();
        let query = words
            .next()
            .unwrap_or_else(|| panic!("{file}:{line}: empty marker"))
            .to_string();
        let (mut metric, mut scale, mut round) = (None, 1.0, 0);
        for w in words {
            let (k, v) = w
                .split_once('=')
                .unwrap_or_else(|| panic!("{file}:{line}: option '{w}' is not key=value"));
            match k {
                "metric" => metric = Some(v.to_string()),
                "scale" => scale = v.parse().expect("scale is a number"),
                "round" => round = v.parse().expect("round is a whole number"),
                _ => panic!("{file}:{line}: unknown option '{k}'"),
            }
        }
        let number: String = tail
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
            .collect();
        let number = number.trim_end_matches(['.', ',']).to_string();
        assert!(
            !number.is_empty(),
            "{file}:{line}: no number right after the marker"
        );
        out.push(Figure {
            file: file.to_string(),
            line,
            query,
            metric: metric.unwrap_or_else(|| panic!("{file}:{line}: marker without metric=")),
            scale,
            round,
            quoted: number.replace(',', "").parse().expect("a number"),
            quoted_text: number,
        });
        offset += i + OPEN.len() + close + 3;
        rest = &text[offset..];
    }
    out
}

/// The run's report as JSON (see the module docs).
fn report(query: &str) -> Value {
    let scenario = Scenario::from_query(query)
        .unwrap_or_else(|e| panic!("marker query '{query}' does not parse: {e:?}"));
    match scenario {
        Scenario::Accept(p) => serde_json::to_value(p.run_report(MAX_STEPS)).unwrap(),
        Scenario::Herd(p) => {
            let mut sim = p.simulate();
            sim.run(MAX_STEPS);
            assert_eq!(sim.status(), &Status::Finished, "{query}");
            with_workers(serde_json::to_value(sim.metrics()).unwrap(), sim.threads())
        }
        Scenario::Locks(p) => {
            let mut sim = p.simulate();
            sim.run(MAX_STEPS);
            assert_eq!(sim.status(), &Status::Finished, "{query}");
            with_workers(serde_json::to_value(sim.metrics()).unwrap(), sim.threads())
        }
        Scenario::Pool(p) => serde_json::to_value(p.run(MAX_STEPS).1).unwrap(),
        Scenario::Gmp(p) => serde_json::to_value(p.run(MAX_STEPS).1).unwrap(),
        Scenario::Mysql(p) => serde_json::to_value(p.run(MAX_STEPS).1).unwrap(),
    }
}

fn with_workers<M: herdlab_core::machine::Machine>(
    mut v: Value,
    threads: &[herdlab_core::sim::SimThread<M>],
) -> Value {
    let workers: Vec<_> = threads
        .iter()
        .filter(|t| t.role() == herdlab_core::sim::Role::Worker)
        .map(|t| *t.metrics())
        .collect();
    let obj = v.as_object_mut().expect("metrics are an object");
    obj.insert(
        "worker_accepted".into(),
        json!(workers.iter().map(|w| w.accepted).collect::<Vec<_>>()),
    );
    obj.insert(
        "worker_wakeups".into(),
        json!(workers.iter().map(|w| w.wakeups).collect::<Vec<_>>()),
    );
    obj.insert(
        "worker_wasted_wakeups".into(),
        json!(workers.iter().map(|w| w.wasted_wakeups).collect::<Vec<_>>()),
    );
    obj.insert(
        "worker_steps".into(),
        json!(workers.iter().map(|w| w.steps).collect::<Vec<_>>()),
    );
    v
}

fn list<'a>(r: &'a Value, name: &str) -> &'a [Value] {
    r.get(name)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("'{name}' is not a list in the report: {r}"))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

fn term(r: &Value, t: &str) -> f64 {
    if let Ok(x) = t.parse::<f64>() {
        return x;
    }
    for (f, pick) in [("max(", true), ("min(", false)] {
        if let Some(name) = t.strip_prefix(f).and_then(|s| s.strip_suffix(')')) {
            let xs = list(r, name).iter().map(num);
            return if pick {
                xs.fold(f64::MIN, f64::max)
            } else {
                xs.fold(f64::MAX, f64::min)
            };
        }
    }
    if let Some(arg) = t.strip_prefix("count(").and_then(|s| s.strip_suffix(')')) {
        let (name, want) = arg.split_once('=').expect("count(field=N)");
        let want: f64 = want.parse().expect("count(field=N)");
        return list(r, name).iter().filter(|v| num(v) == want).count() as f64;
    }
    if let Some((name, rest)) = t.split_once('[') {
        let (idx, field) = rest.split_once(']').expect("name[i] or name[i].field");
        let i: usize = idx.parse().expect("an index");
        let item = &list(r, name)[i];
        return match field.strip_prefix('.') {
            Some(f) => num(item
                .get(f)
                .unwrap_or_else(|| panic!("no field '{f}' in {item}"))),
            None => num(item),
        };
    }
    num(r
        .get(t)
        .unwrap_or_else(|| panic!("no field '{t}' in the report: {r}")))
}

fn value(r: &Value, metric: &str) -> f64 {
    match metric.split_once('/') {
        Some((a, b)) => term(r, a) / term(r, b),
        None => term(r, metric),
    }
}

fn round_to(x: f64, decimals: i32) -> f64 {
    let m = 10f64.powi(decimals);
    (x * m).round() / m
}

/// Whether `quoted` is `got` rounded to `round` decimals (either way at an exact half: Rust's
/// `{:.2}` prints 0.125 as 0.12).
fn quotes(quoted: f64, got: f64, round: i32) -> bool {
    let half_unit = 0.5 / 10f64.powi(round);
    (got - quoted).abs() <= half_unit + 1e-9
}

fn lessons_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../lessons")
}

fn all_figures() -> Vec<Figure> {
    let mut files: Vec<_> = std::fs::read_dir(lessons_dir())
        .expect("lessons/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            parse_figures(&name, &std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

#[test]
fn every_marked_figure_matches_the_simulator() {
    let figures = all_figures();
    // every lesson quotes simulator figures; a parser that found none would pass vacuously
    assert!(
        figures.len() >= 100,
        "only {} marked figures",
        figures.len()
    );
    for (_, file) in LESSONS {
        let n = figures.iter().filter(|f| f.file == *file).count();
        assert!(n >= 4, "{file}: only {n} marked figures");
    }
    let mut cache: std::collections::HashMap<String, Value> = Default::default();
    let mut wrong = Vec::new();
    for f in &figures {
        let r = cache
            .entry(f.query.clone())
            .or_insert_with(|| report(&f.query));
        let got = value(r, &f.metric) / f.scale;
        if std::env::var_os("LESSON_FIGURES_PRINT").is_some() {
            eprintln!(
                "{}:{}: {} = {got} ({})",
                f.file, f.line, f.metric, f.quoted_text
            );
        }
        if !quotes(f.quoted, got, f.round) {
            wrong.push(format!(
                "{}:{}: the text says {} but the simulator gives {} ({got}) for {} ({}, scale {}, round {})",
                f.file,
                f.line,
                f.quoted_text,
                round_to(got, f.round),
                f.query,
                f.metric,
                f.scale,
                f.round
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn markers_are_parsed_with_their_options_and_number() {
    let text = "a\nb <!-- sim: mechanism=herd&workers=8&seed=1 metric=wakeups/connections_accepted round=1 scale=1 -->9.2 wakeups, \
                and <!-- sim: mechanism=accept&strategy=herd metric=max(per_worker_connections) -->1,000.";
    let fs = parse_figures("t.md", text);
    assert_eq!(fs.len(), 2);
    assert_eq!(fs[0].line, 2);
    assert_eq!(fs[0].query, "mechanism=herd&workers=8&seed=1");
    assert_eq!(fs[0].metric, "wakeups/connections_accepted");
    assert_eq!((fs[0].round, fs[0].quoted), (1, 9.2));
    assert_eq!(fs[1].quoted, 1000.0);
    assert_eq!(fs[1].quoted_text, "1,000");
}

#[test]
fn metric_expressions_read_the_report() {
    let r = json!({"a": 6, "b": 4, "xs": [3, 9, 3], "ws": [{"t": 1}, {"t": 5}]});
    assert_eq!(value(&r, "ws[1].t"), 5.0);
    assert_eq!(value(&r, "a/b"), 1.5);
    assert_eq!(value(&r, "max(xs)"), 9.0);
    assert_eq!(value(&r, "min(xs)"), 3.0);
    assert_eq!(value(&r, "xs[1]"), 9.0);
    assert_eq!(value(&r, "count(xs=3)"), 2.0);
    assert_eq!(round_to(2.0 / 3.0, 2), 0.67);
}

#[test]
fn a_wrong_figure_is_caught() {
    // the real wake-all herd wastes 7 wakeups per connection with 8 workers: 70 for 10
    let q = "mechanism=herd&workers=8&cpus=2&mode=wake-all&arrival=on-demand&connections=10&seed=1";
    let r = report(q);
    assert_eq!(value(&r, "wasted_wakeups"), 70.0);
    assert!(quotes(70.0, value(&r, "wasted_wakeups"), 0));
    assert!(!quotes(69.0, value(&r, "wasted_wakeups"), 0));
    assert!(!quotes(
        7.1,
        value(&r, "wasted_wakeups/connections_accepted"),
        1
    ));
    assert!(quotes(0.12, 0.125, 2) && quotes(0.13, 0.125, 2) && !quotes(0.12, 0.1351, 2));
}
