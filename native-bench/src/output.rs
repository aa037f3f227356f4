//! What every command prints with: aligned tables, progress bars, rates, JSON.
//!
//! Generic: names no mechanism.

use std::process::ExitCode;
use std::time::Instant;

use herdlab_core::sim::Status;

/// Print `v` as JSON on stdout (`pretty`: indented); a failure is reported and is exit 1.
pub fn print_json<T: serde::Serialize>(v: &T, pretty: bool) -> ExitCode {
    match if pretty {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    } {
        Ok(s) => {
            println!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("herdlab: cannot write JSON: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A progress bar line (starts with `\\r`): `done` of `total`, then `what`.
pub fn progress_line(done: usize, total: usize, what: &str) -> String {
    const WIDTH: usize = 20;
    let filled = (done * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    // padded with spaces so a shorter line overwrites a longer one (no terminal escapes)
    format!(
        "\r{:<72}",
        format!(
            "[{}{}] {done}/{total} {what}",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled)
        )
    )
}

/// The line maker of an aligned table with columns `head` over `cells`: the first column
/// left-aligned, the others right-aligned, each as wide as its widest cell.
pub fn table_lines<C: AsRef<[String]>>(head: &[&str], cells: &[C]) -> impl Fn(&[String]) -> String {
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for c in cells {
        for (i, s) in c.as_ref().iter().enumerate() {
            w[i] = w[i].max(s.len());
        }
    }
    move |c: &[String]| {
        let mut s = format!("{:<w0$}", c[0], w0 = w[0]);
        for i in 1..c.len() {
            s.push_str(&format!("  {:>wi$}", c[i], wi = w[i]));
        }
        s.push('\n');
        s
    }
}

/// An aligned table ([`table_lines`]) under a title line: the title, the header, a line per row.
pub fn titled_table<C: AsRef<[String]>>(title: &str, head: &[&str], cells: &[C]) -> String {
    let line = table_lines(head, cells);
    let mut out = format!("{title}\n");
    out.push_str(&line(
        &head.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
    ));
    for c in cells {
        out.push_str(&line(c.as_ref()));
    }
    out
}

/// Nanoseconds as milliseconds, three decimals.
pub fn ms3(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// A count a row may lack (`-`: the runtime does not have it).
pub fn opt_count(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |n| n.to_string())
}

/// A rate with an SI suffix (k, M, G).
pub fn si(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Wall-clock nanoseconds since `t0` (at least 1, so rates stay finite).
pub fn wall_ns_since(t0: Instant) -> u64 {
    (t0.elapsed().as_nanos() as u64).max(1)
}

/// `n` per wall-clock second over `wall_ns`.
pub fn per_sec(n: u64, wall_ns: u64) -> f64 {
    n as f64 * 1e9 / wall_ns as f64
}

/// A simulation's status as the report spells it, with what is stuck.
pub fn status_fields(s: &Status) -> (String, Option<String>) {
    match s {
        Status::Running => ("running".to_string(), None),
        Status::Finished => ("finished".to_string(), None),
        Status::Stuck(why) => ("stuck".to_string(), Some(why.clone())),
    }
}

/// Numbers separated by spaces.
pub fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

/// A report's table: the scenario, the status (and what is stuck), the `body` rows, then the
/// timing, keys aligned.
pub fn table(
    scenario: &str,
    status: &str,
    stuck: Option<&String>,
    body: Vec<(&str, String)>,
    wall_ns: u64,
    steps_per_sec: f64,
) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("scenario", scenario.to_string()),
        ("status", status.to_string()),
    ];
    if let Some(s) = stuck {
        rows.push(("stuck", s.clone()));
    }
    rows.extend(body);
    rows.extend([
        ("wall_ns", wall_ns.to_string()),
        ("steps_per_sec", format!("{steps_per_sec:.0}")),
    ]);
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{k:<w$}  {v}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_bar_fills() {
        let s = progress_line(10, 20, "futex wake-all N=32");
        assert!(s.starts_with("\r[##########          ] 10/20 futex wake-all N=32"));
        assert!(progress_line(0, 0, "x").contains("[####################]"));
    }
}
