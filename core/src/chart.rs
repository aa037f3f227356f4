//! Charts of benchmark rows as SVG text: what `herdlab bench … --svg FILE` writes, and what the
//! site's results page can draw from the same rows (issue #14 §3).
//!
//! Generic over rows: a row is a JSON object (what `herdlab bench … --json` prints), a chart picks
//! an x column (or several columns as categories: `p50`, `p99`), a y column and the columns that
//! name a series ([`ChartSpec`]). Drawn to be read without colour (each series has its own marker
//! and dash pattern, and the legend shows both) and by screen readers (`<title>`, `<desc>` and
//! every value as text). No dependencies but `serde_json`, no OS: it builds for wasm.
//!
//! Names no mechanism.

use core::fmt::Write as _;

use serde_json::Value;

/// The x axis of a chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    /// A numeric column (`threads`, `workers`); `log`: a log2 scale (counts that double).
    Column {
        /// The column.
        key: &'static str,
        /// The axis's label, with its unit.
        label: &'static str,
        /// A log2 scale.
        log: bool,
    },
    /// Several numeric columns of one row as categories along x (`("p50", "p50_ns")`): the y
    /// values are those columns' values.
    Columns {
        /// (category label, column) pairs, in order.
        columns: &'static [(&'static str, &'static str)],
        /// The axis's label.
        label: &'static str,
    },
}

/// One chart of a benchmark's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartSpec {
    /// The chart's title (`wasted wakeups per event vs threads`).
    pub title: &'static str,
    /// The x axis.
    pub x: XAxis,
    /// The y column (unused with [`XAxis::Columns`]).
    pub y: &'static str,
    /// The y axis's label, with its unit.
    pub y_label: &'static str,
    /// The columns whose values, joined with spaces, name a row's series (`["variant"]`,
    /// `["lock", "cs_ns"]`): text as it is, other values as `column=value` (`shmtx cs_ns=0`).
    pub series: &'static [&'static str],
}

/// One series: its name and its points (x, y), in row order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// Its points.
    pub points: Vec<(f64, f64)>,
}

/// A chart ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Its title.
    pub title: String,
    /// The x axis's label.
    pub x_label: String,
    /// The y axis's label.
    pub y_label: String,
    /// The x axis's categories (x values are their indices), if it has categories.
    pub categories: Vec<String>,
    /// A log2 x scale.
    pub log_x: bool,
    /// The series.
    pub series: Vec<Series>,
}

/// A JSON value as a number (numbers, and strings that hold one).
fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
    .filter(|x| x.is_finite())
}

/// A JSON value as a series name's part.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl Chart {
    /// The chart `spec` asks for, from `rows` (JSON objects; rows without its columns are left
    /// out).
    pub fn from_rows(spec: &ChartSpec, rows: &[Value]) -> Chart {
        let mut series: Vec<Series> = Vec::new();
        let mut add =
            |name: String, x: f64, y: f64| match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push((x, y)),
                None => series.push(Series {
                    name,
                    points: vec![(x, y)],
                }),
            };
        for row in rows {
            let name = spec
                .series
                .iter()
                .map(|k| match row.get(*k) {
                    Some(Value::String(v)) => v.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(v) => format!("{k}={}", text(v)),
                })
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            match spec.x {
                XAxis::Column { key, .. } => {
                    if let (Some(x), Some(y)) =
                        (row.get(key).and_then(num), row.get(spec.y).and_then(num))
                    {
                        add(name, x, y);
                    }
                }
                XAxis::Columns { columns, .. } => {
                    for (i, (_, key)) in columns.iter().enumerate() {
                        if let Some(y) = row.get(*key).and_then(num) {
                            add(name.clone(), i as f64, y);
                        }
                    }
                }
            }
        }
        let (x_label, categories, log_x) = match spec.x {
            XAxis::Column { label, log, .. } => (label, Vec::new(), log),
            XAxis::Columns { columns, label } => (
                label,
                columns.iter().map(|c| c.0.to_string()).collect(),
                false,
            ),
        };
        let log_x = log_x && series.iter().flat_map(|s| &s.points).all(|p| p.0 > 0.0);
        Chart {
            title: spec.title.to_string(),
            x_label: x_label.to_string(),
            y_label: spec.y_label.to_string(),
            categories,
            log_x,
            series,
        }
    }
}

/// Escape text for XML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A number as the chart writes it: whole numbers whole, others with up to 3 significant decimals.
pub fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A short tick label (`1.5k`, `2M`).
fn tick(x: f64) -> String {
    let a = x.abs();
    let (v, suffix) = if a >= 1e9 {
        (x / 1e9, "G")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    format!("{}{suffix}", fmt_num((v * 100.0).round() / 100.0))
}

/// A round step for about `n` ticks up to `max`.
fn nice_step(max: f64, n: f64) -> f64 {
    let raw = (max / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Dash patterns, one per series (the first solid).
const DASHES: [&str; 6] = ["", "8 4", "2 3", "10 3 2 3", "4 4", "12 4 2 4 2 4"];
/// Okabe and Ito's palette (told apart by most colour-blind readers, and the markers and dashes
/// tell them apart without colour).
const COLOURS: [&str; 7] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];

/// Series `i`'s marker at (x, y), its colour `c`.
fn marker(i: usize, x: f64, y: f64, c: &str) -> String {
    let r = 4.5;
    match i % 6 {
        0 => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{c}"/>"#),
        1 => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{w}" height="{w}" fill="{c}"/>"#,
            x - r,
            y - r,
            w = 2.0 * r
        ),
        2 => format!(
            r#"<path d="M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{c}"/>"#,
            y - r - 1.0,
            x + r + 1.0,
            y + r,
            x - r - 1.0,
            y + r
        ),
        3 => format!(
            r#"<path d="M{x:.1} {:.1}L{:.1} {y:.1}L{x:.1} {:.1}L{:.1} {y:.1}Z" fill="{c}"/>"#,
            y - r - 1.0,
            x + r + 1.0,
            y + r + 1.0,
            x - r - 1.0
        ),
        4 => format!(
            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" stroke="{c}" stroke-width="2.5"/>"#,
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
        _ => format!(
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="white" stroke="{c}" stroke-width="2"/>"#
        ),
    }
}

/// The chart's width in the SVG.
pub const WIDTH: f64 = 760.0;
/// One chart's height.
pub const HEIGHT: f64 = 380.0;

impl Chart {
    /// The chart's values in words (for the `<desc>` and screen readers).
    pub fn describe(&self) -> String {
        let mut out = format!("{}: {} against {}.", self.title, self.y_label, self.x_label);
        for s in &self.series {
            let _ = write!(out, " {}:", s.name);
            let pts: Vec<String> = s
                .points
                .iter()
                .map(|&(x, y)| format!(" {} {}", self.x_text(x), fmt_num(y)))
                .collect();
            out.push_str(&pts.join(";"));
            out.push('.');
        }
        out
    }

    fn x_text(&self, x: f64) -> String {
        match self.categories.get(x as usize) {
            Some(c) if !self.categories.is_empty() => c.clone(),
            _ => fmt_num(x),
        }
    }

    /// The chart as a `<g>` at vertical offset `top` (of [`WIDTH`] × [`HEIGHT`]): each series a
    /// line through its points.
    pub fn svg_group(&self, top: f64, id: &str) -> String {
        self.draw::<false>(top, id)
    }

    /// The chart as a `<g>` like [`Chart::svg_group`], but each series drawn as bars, grouped by
    /// category (a categorical x such as `strategy`): series `i`'s bar in each group, in its colour
    /// and topped by its marker (the legend shows both, so it reads without colour), each bar with
    /// its value as a tooltip. Needs [`Chart::categories`]; a chart without them is drawn with
    /// lines. (A function of its own, so that code which draws only lines, the site's results
    /// page, does not carry the bars.)
    pub fn svg_bar_group(&self, top: f64, id: &str) -> String {
        if self.categories.is_empty() {
            self.draw::<false>(top, id)
        } else {
            self.draw::<true>(top, id)
        }
    }

    fn draw<const BARS: bool>(&self, top: f64, id: &str) -> String {
        let (l, r, t, b) = (80.0, 200.0, 40.0, 60.0);
        let pw = WIDTH - l - r;
        let ph = HEIGHT - t - b;
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let mut g = format!(
            r#"<g transform="translate(0 {top})" role="img" aria-labelledby="{id}-t {id}-d"><title id="{id}-t">{}</title><desc id="{id}-d">{}</desc>"#,
            escape(&self.title),
            escape(&self.describe())
        );
        let _ = write!(
            g,
            r#"<text x="{:.1}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
            l + pw / 2.0,
            escape(&self.title)
        );
        // scales
        let fx = |x: f64| if self.log_x { x.log2() } else { x };
        let (mut x0, mut x1) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(fx(p.0)), b.max(fx(p.0)))
        });
        if !self.categories.is_empty() {
            x0 = -0.5;
            x1 = self.categories.len() as f64 - 0.5;
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 - x0 < 1e-9 {
            x0 -= 1.0;
            x1 += 1.0;
        }
        let ymax = pts().map(|p| p.1).fold(0.0f64, f64::max);
        let ymin = pts().map(|p| p.1).fold(0.0f64, f64::min);
        let step = nice_step((ymax - ymin).max(1e-9), 5.0);
        let y1 = (ymax / step).ceil() * step;
        let y0 = (ymin / step).floor() * step;
        let y1 = if y1 - y0 < 1e-12 { y0 + 1.0 } else { y1 };
        let sx = |x: f64| l + (fx(x) - x0) / (x1 - x0) * pw;
        let sxc = |x: f64| l + (x - x0) / (x1 - x0) * pw;
        let px = |x: f64| {
            if self.categories.is_empty() {
                sx(x)
            } else {
                sxc(x)
            }
        };
        let sy = |y: f64| t + ph - (y - y0) / (y1 - y0) * ph;
        // grid and y ticks
        let mut v = y0;
        while v <= y1 + step / 2.0 {
            let y = sy(v);
            let _ = write!(
                g,
                r##"<line x1="{l}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">{}</text>"##,
                l + pw,
                l - 6.0,
                y + 4.0,
                tick(v)
            );
            v += step;
        }
        // x ticks: the categories, or every distinct x (at most 16)
        let mut xs: Vec<f64> = if self.categories.is_empty() {
            pts().map(|p| p.0).collect()
        } else {
            (0..self.categories.len()).map(|i| i as f64).collect()
        };
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let every = xs.len().div_ceil(16).max(1);
        let mut last = f64::NEG_INFINITY;
        for x in xs.iter().step_by(every) {
            let xp = px(*x);
            // a label closer than this to the last one drawn would overlap it
            if xp - last < 34.0 {
                continue;
            }
            last = xp;
            if BARS {
                // a category's name in lines that fit its band (about 6 px a character)
                let fit = ((pw / self.categories.len() as f64) / 6.0).max(4.0) as usize;
                let mut lines: Vec<String> = Vec::new();
                for word in self.x_text(*x).split_whitespace() {
                    match lines.last_mut() {
                        Some(l) if l.chars().count() + 1 + word.chars().count() <= fit => {
                            l.push(' ');
                            l.push_str(word);
                        }
                        _ => lines.push(word.to_string()),
                    }
                }
                let _ = write!(
                    g,
                    r##"<line x1="{xp:.1}" y1="{:.1}" x2="{xp:.1}" y2="{:.1}" stroke="#333"/><text y="{:.1}" text-anchor="middle" font-size="11">"##,
                    t + ph,
                    t + ph + 5.0,
                    t + ph + 18.0,
                );
                for (k, line) in lines.iter().enumerate() {
                    let _ = write!(
                        g,
                        r#"<tspan x="{xp:.1}" dy="{}">{}</tspan>"#,
                        if k == 0 { 0 } else { 12 },
                        escape(line)
                    );
                }
                g.push_str("</text>");
                continue;
            }
            let _ = write!(
                g,
                r##"<line x1="{xp:.1}" y1="{:.1}" x2="{xp:.1}" y2="{:.1}" stroke="#333"/><text x="{xp:.1}" y="{:.1}" text-anchor="middle" font-size="11">{}</text>"##,
                t + ph,
                t + ph + 5.0,
                t + ph + 18.0,
                escape(&if self.categories.is_empty() {
                    tick(*x)
                } else {
                    self.x_text(*x)
                })
            );
        }
        // axes and their labels
        let _ = write!(
            g,
            r##"<path d="M{l} {t}V{:.1}H{:.1}" fill="none" stroke="#333"/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">{}</text><text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle" font-size="12">{}</text>"##,
            t + ph,
            l + pw,
            l + pw / 2.0,
            t + ph + if BARS { 52.0 } else { 40.0 },
            escape(&format!(
                "{}{}",
                self.x_label,
                if self.log_x { " (log scale)" } else { "" }
            )),
            t + ph / 2.0,
            escape(&self.y_label)
        );
        // series: a line with its dash pattern, a marker per point with its value as a tooltip
        for (i, s) in self.series.iter().enumerate() {
            let c = COLOURS[i % COLOURS.len()];
            let dash = DASHES[i % DASHES.len()];
            let _ = write!(g, r#"<g class="series" data-series="{}">"#, escape(&s.name));
            if BARS {
                // each category's band holds the series side by side in 80% of its width
                let band = pw / self.categories.len() as f64;
                let bw = band * 0.8 / self.series.len() as f64;
                let base = sy(0.0);
                for &(x, y) in &s.points {
                    let bx = px(x) - band * 0.4 + bw * i as f64;
                    let yt = sy(y);
                    let _ = write!(
                        g,
                        r#"<g><title>{}: {} {}, {} {}</title><rect x="{bx:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{c}" fill-opacity="0.75" stroke="{c}"/>{}</g>"#,
                        escape(&s.name),
                        escape(&self.x_label),
                        escape(&self.x_text(x)),
                        escape(&self.y_label),
                        fmt_num(y),
                        yt.min(base),
                        (bw - 2.0).max(1.0),
                        (yt - base).abs(),
                        marker(i, bx + bw / 2.0 - 1.0, yt, c)
                    );
                }
            } else if s.points.len() > 1 {
                let d: Vec<String> = s
                    .points
                    .iter()
                    .map(|&(x, y)| format!("{:.1},{:.1}", px(x), sy(y)))
                    .collect();
                let _ = write!(
                    g,
                    r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"{}/>"#,
                    d.join(" "),
                    if dash.is_empty() {
                        String::new()
                    } else {
                        format!(r#" stroke-dasharray="{dash}""#)
                    }
                );
            }
            for &(x, y) in s.points.iter().filter(|_| !BARS) {
                let _ = write!(
                    g,
                    "<g><title>{}: {} {}, {} {}</title>{}</g>",
                    escape(&s.name),
                    escape(&self.x_label),
                    escape(&self.x_text(x)),
                    escape(&self.y_label),
                    fmt_num(y),
                    marker(i, px(x), sy(y), c)
                );
            }
            g.push_str("</g>");
            // legend entry: a dash sample and the marker, then the name
            // one line each, closer together when there are many (they stay in the chart's box)
            let gap = ((HEIGHT - t - 10.0) / self.series.len() as f64).clamp(12.0, 22.0);
            let ly = t + 10.0 + gap * i as f64;
            let lx = l + pw + 16.0;
            let sample = if BARS {
                // a swatch of the bar's fill instead of the dash sample
                format!(
                    r#"<rect x="{lx:.1}" y="{:.1}" width="36" height="10" fill="{c}" fill-opacity="0.75" stroke="{c}"/>"#,
                    ly - 5.0
                )
            } else {
                format!(
                    r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{c}" stroke-width="2"{}/>"#,
                    lx + 36.0,
                    if dash.is_empty() {
                        String::new()
                    } else {
                        format!(r#" stroke-dasharray="{dash}""#)
                    }
                )
            };
            let _ = write!(
                g,
                r#"{sample}{}<text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#,
                marker(i, lx + 18.0, ly, c),
                lx + 42.0,
                ly + 4.0,
                escape(&s.name)
            );
        }
        if self.series.is_empty() {
            let _ = write!(
                g,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="13">no rows to draw</text>"#,
                l + pw / 2.0,
                t + ph / 2.0
            );
        }
        g.push_str("</g>");
        g
    }
}

/// An SVG document of `charts` stacked, with a heading `title` (the machine, the command) and
/// `desc` for screen readers (followed by every chart's values in words).
pub fn document(title: &str, subtitle: &str, charts: &[Chart]) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}",
        svg_element("", title, subtitle, charts)
    )
}

/// The `<svg>` element of [`document`] (no XML declaration), for a page: its ids start with
/// `prefix`, so several can share a page.
pub fn svg_element(prefix: &str, title: &str, subtitle: &str, charts: &[Chart]) -> String {
    let head = 56.0;
    let h = head + HEIGHT * charts.len() as f64;
    let mut desc = subtitle.to_string();
    for c in charts {
        desc.push(' ');
        desc.push_str(&c.describe());
    }
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{h}" viewBox="0 0 {WIDTH} {h}" role="img" aria-labelledby="{prefix}doc-t {prefix}doc-d" font-family="sans-serif">
<title id="{prefix}doc-t">{}</title>
<desc id="{prefix}doc-d">{}</desc>
<rect width="100%" height="100%" fill="white"/>
<text x="12" y="22" font-size="16" font-weight="bold">{}</text>
<text x="12" y="42" font-size="11">{}</text>
"#,
        escape(title),
        escape(&desc),
        escape(title),
        escape(subtitle)
    );
    for (i, c) in charts.iter().enumerate() {
        out.push_str(&c.svg_group(head + HEIGHT * i as f64, &format!("{prefix}c{i}")));
        out.push('\n');
    }
    out.push_str("</svg>\n");
    out
}

/// One chart as an `<svg>` element of its own, for a page (a lesson's chart, drawn above the table
/// it shows): it scales to its container's width, its ids start with `prefix` (so several can share
/// a page), it is one image to screen readers, named by the chart's title and described by its
/// values in words ([`Chart::describe`]), and it is drawn on white (readable in a dark theme).
/// `bars`: [`Chart::svg_bar_group`], else [`Chart::svg_group`].
pub fn svg_figure(prefix: &str, chart: &Chart, bars: bool) -> String {
    let id = format!("{prefix}c");
    let group = if bars {
        chart.svg_bar_group(0.0, &id)
    } else {
        chart.svg_group(0.0, &id)
    };
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="100%" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{id}-t {id}-d" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>{group}</svg>"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SPEC: ChartSpec = ChartSpec {
        title: "wasted wakeups per event vs threads",
        x: XAxis::Column {
            key: "threads",
            label: "threads",
            log: true,
        },
        y: "wasted_per_event",
        y_label: "wasted wakeups per event",
        series: &["variant"],
    };

    #[test]
    fn rows_become_one_series_per_name_in_row_order() {
        let rows = vec![
            json!({"variant": "wake-all", "threads": 2, "wasted_per_event": 1.0}),
            json!({"variant": "exclusive", "threads": 2, "wasted_per_event": 0.0}),
            json!({"variant": "wake-all", "threads": 8, "wasted_per_event": 7.0}),
            json!({"variant": "broken", "threads": "x"}),
        ];
        let c = Chart::from_rows(&SPEC, &rows);
        assert!(c.log_x);
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.series[0].name, "wake-all");
        assert_eq!(c.series[0].points, vec![(2.0, 1.0), (8.0, 7.0)]);
        assert_eq!(
            c.describe(),
            "wasted wakeups per event vs threads: wasted wakeups per event against threads. \
             wake-all: 2 1; 8 7. exclusive: 2 0."
        );
        let svg = document("t <&>", "sub", &[c]);
        assert!(svg.contains("t &lt;&amp;&gt;"));
        assert_eq!(svg.matches(r#"class="series""#).count(), 2);
        assert!(svg.contains("stroke-dasharray"));
    }

    #[test]
    fn columns_as_categories() {
        const P: ChartSpec = ChartSpec {
            title: "latency",
            x: XAxis::Columns {
                columns: &[("p50", "p50_ns"), ("p99", "p99_ns")],
                label: "percentile",
            },
            y: "",
            y_label: "ns",
            series: &["strategy", "workers"],
        };
        let rows = vec![json!({"strategy": "herd", "workers": 4, "p50_ns": 10, "p99_ns": 90})];
        let c = Chart::from_rows(&P, &rows);
        assert_eq!(c.series[0].name, "herd workers=4");
        assert_eq!(c.series[0].points, vec![(0.0, 10.0), (1.0, 90.0)]);
        assert!(c.describe().contains("herd workers=4: p50 10; p99 90."));
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(fmt_num(3.0), "3");
        assert_eq!(fmt_num(0.125), "0.125");
        assert_eq!(fmt_num(1234.56), "1234.6");
        assert_eq!(tick(1500.0), "1.5k");
        assert_eq!(tick(2_000_000.0), "2M");
    }

    fn categorical() -> Chart {
        Chart {
            title: "wakeups".into(),
            x_label: "strategy".into(),
            y_label: "per connection".into(),
            categories: vec!["herd".into(), "exclusive".into()],
            log_x: false,
            series: vec![
                Series {
                    name: "wakeups".into(),
                    points: vec![(0.0, 9.0), (1.0, 1.5)],
                },
                Series {
                    name: "wasted".into(),
                    points: vec![(0.0, 7.0), (1.0, 0.0)],
                },
            ],
        }
    }

    #[test]
    fn bars_group_by_category() {
        let c = categorical();
        let g = c.svg_bar_group(0.0, "b");
        // one bar per point plus one legend swatch per series, no lines
        assert_eq!(g.matches(r#"fill-opacity="0.75""#).count(), 4 + 2);
        assert!(!g.contains("<polyline"));
        assert!(g.contains("<title>wasted: strategy exclusive, per connection 0</title>"));
        // the plot spans x 80..560 (two bands of 240); y 0..10 maps to 320..40
        // herd's wakeups bar: band 0 starts at 80, 80% of it shared by two series (96 each)
        assert!(
            g.contains(r#"<rect x="104.0" y="68.0" width="94.0" height="252.0""#),
            "{g}"
        );
        // exclusive's wasted bar: zero high, at the baseline
        assert!(
            g.contains(r#"<rect x="440.0" y="320.0" width="94.0" height="0.0""#),
            "{g}"
        );
        // the lines chart of the same data has no bars
        let lines = c.svg_group(0.0, "b");
        assert_eq!(lines.matches("<polyline").count(), 2);
        assert_eq!(
            lines.matches("<rect").count(),
            3,
            "series 1's square markers only"
        );
        // a long category name is wrapped to its band (240 px: 40 characters a line)
        let mut long = categorical();
        long.categories[1] = format!("exclusive, {}", "no re-registration ".repeat(3));
        let g = long.svg_bar_group(0.0, "b");
        assert!(g.contains(r#"<tspan x="440.0" dy="0">exclusive, no re-registration no</tspan><tspan x="440.0" dy="12">re-registration no re-registration</tspan>"#), "{g}");
        // without categories, bars fall back to lines
        let rows = vec![json!({"variant": "a", "threads": 2, "wasted_per_event": 1.0})];
        let n = Chart::from_rows(&SPEC, &rows);
        assert_eq!(n.svg_bar_group(5.0, "x"), n.svg_group(5.0, "x"));
    }

    #[test]
    fn a_figure_is_one_named_image() {
        let svg = svg_figure("l1-", &categorical(), true);
        assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="100%" viewBox="0 0 760 380" role="img" aria-labelledby="l1-c-t l1-c-d""#));
        assert!(svg.contains(r#"<title id="l1-c-t">wakeups</title>"#));
        assert!(svg.contains("wakeups: herd 9; exclusive 1.5. wasted: herd 7; exclusive 0."));
        assert!(
            !svg.contains('\n'),
            "one line, so that Markdown keeps it one HTML block"
        );
        assert!(svg.ends_with("</svg>"));
    }
}
