//! `herdlab bench <mechanism> … --svg FILE`: the run's rows drawn as charts, offline.
//!
//! The drawing is core's (`herdlab_core::chart`: generic over JSON rows, no dependencies, so the
//! site can draw the same charts from a `--json` file); which charts a benchmark's table is about
//! is the mechanism's (`NativeMechanism::bench_charts`, a list of `ChartSpec`s). The rows are the
//! ones the benchmark hands to `platform::interrupt::measured` as each finishes, so an interrupted
//! run draws what it measured, marked partial. The file is written when the command ends, to the
//! path the user named and nowhere else (created before the benchmark starts: an OS error is exit 1
//! before any time is spent).
//!
//! Generic: names no mechanism.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use herdlab_core::chart::{document, Chart, ChartSpec};
use serde_json::Value;

struct Pending {
    file: File,
    path: PathBuf,
    command: String,
    specs: Vec<ChartSpec>,
}

static PENDING: Mutex<Option<Pending>> = Mutex::new(None);

/// The chart of a benchmark that names none (`bench_charts` empty): the first (in key order)
/// fractional column against the first whole-number column, one series per value of the first
/// text column.
pub fn fallback(rows: &[Value]) -> Vec<Chart> {
    let Some(Value::Object(first)) = rows.first() else {
        return Vec::new();
    };
    let text = first
        .iter()
        .find(|(_, v)| v.is_string())
        .map(|(k, _)| k.clone());
    let int = first
        .iter()
        .find(|(_, v)| v.is_u64())
        .map(|(k, _)| k.clone());
    let float = first
        .iter()
        .find(|(k, v)| v.is_f64() && Some(*k) != int.as_ref())
        .or_else(|| {
            first
                .iter()
                .find(|(k, v)| v.is_number() && Some(*k) != int.as_ref())
        })
        .map(|(k, _)| k.clone());
    let (Some(x), Some(y)) = (int, float) else {
        return Vec::new();
    };
    // the spec's fields are static: the names live as long as the process (a handful, once)
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let (x, y) = (leak(x), leak(y));
    let series: &'static [&'static str] = match text {
        Some(t) => Box::leak(vec![leak(t)].into_boxed_slice()),
        None => &[],
    };
    let spec = ChartSpec {
        title: leak(format!("{y} vs {x}")),
        x: herdlab_core::chart::XAxis::Column {
            key: x,
            label: x,
            log: false,
        },
        y,
        y_label: y,
        series,
    };
    vec![Chart::from_rows(&spec, rows)]
}

/// The SVG of `rows` under `specs` (or [`fallback`]'s chart), titled with the machine and
/// `command`; `partial`: why the rows stop early.
pub fn svg(specs: &[ChartSpec], rows: &[Value], command: &str, partial: Option<&str>) -> String {
    let charts: Vec<Chart> = if specs.is_empty() {
        fallback(rows)
    } else {
        specs.iter().map(|s| Chart::from_rows(s, rows)).collect()
    };
    let m = crate::trace::machine();
    let title = format!(
        "{command}{}",
        partial.map_or(String::new(), |p| format!(" (partial: {p})"))
    );
    let subtitle = format!(
        "{} rows on {}, {} CPUs, {}; {}",
        rows.len(),
        m.cpu,
        m.cores,
        m.kernel,
        crate::trace::utc_now()
    );
    document(&title, &subtitle, &charts)
}

/// Start: create `path` (empty until the end) for the charts `specs` of `command`. An error is
/// the OS's, with the path.
pub fn begin(path: &Path, command: &str, specs: Vec<ChartSpec>) -> Result<(), String> {
    let file =
        File::create(path).map_err(|e| format!("--svg: cannot write {}: {e}", path.display()))?;
    *PENDING.lock().unwrap_or_else(PoisonError::into_inner) = Some(Pending {
        file,
        path: path.to_path_buf(),
        command: command.to_string(),
        specs,
    });
    Ok(())
}

/// Write the charts of the rows measured so far (if `--svg` was given); `partial` says why they
/// stop early. Returns the path written, or the OS's error.
pub fn finish(partial: Option<&str>) -> Result<Option<PathBuf>, String> {
    let Some(mut p) = PENDING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
    else {
        return Ok(None);
    };
    #[cfg(unix)]
    let rows = crate::platform::interrupt::rows();
    #[cfg(not(unix))]
    let rows: Vec<Value> = Vec::new();
    let text = svg(&p.specs, &rows, &p.command, partial);
    p.file
        .write_all(text.as_bytes())
        .and_then(|()| p.file.flush())
        .map_err(|e| format!("--svg: cannot write {}: {e}", p.path.display()))?;
    Ok(Some(p.path))
}

/// The run was interrupted by `signal`: draw what was measured, marked partial.
pub fn interrupted(signal: &str) {
    match finish(Some(signal)) {
        Ok(Some(p)) => eprintln!(
            "herdlab: the charts of the rows measured before {signal} are in {} (marked partial)",
            p.display()
        ),
        Ok(None) => {}
        Err(e) => eprintln!("herdlab: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_fallback_draws_a_numeric_column_per_text_value() {
        let rows = vec![
            json!({"mode": "a", "n": 1, "qps": 10.5}),
            json!({"mode": "a", "n": 2, "qps": 20.5}),
            json!({"mode": "b", "n": 1, "qps": 5.5}),
        ];
        let c = fallback(&rows);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].series.len(), 2);
        assert_eq!(c[0].series[0].points, vec![(1.0, 10.5), (2.0, 20.5)]);
        assert!(fallback(&[]).is_empty());
    }
}
