//! What a benchmark does when it is interrupted (SIGINT, SIGTERM): it stops at once and says what
//! it had measured.
//!
//! [`install`] (called by the command line before a `bench` subcommand runs) catches both signals.
//! The handler only stores the signal's number (an atomic store, async-signal-safe); a watcher
//! thread sees it within [`POLL`] and then, on the main stderr/stdout:
//! - says `herdlab: interrupted by SIGINT: stopped; the N rows measured so far follow`;
//! - prints the rows measured so far ([`measured`] keeps them as each finishes): with `--json` one
//!   object `{"partial": true, "interrupted_by": "SIGINT", "rows": [...]}`, else one line of JSON
//!   per row after a `partial results` line;
//! - ends the process with status 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as
//!   a shell reports a process the signal killed. Ending the process ends every benchmark thread
//!   at once, and the kernel closes every socket it had (the benchmarks bind 127.0.0.1 only and
//!   write no files).
//!
//! A second signal while the first is handled ends the process at once, with the same status.
//!
//! Generic: names no mechanism.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::SeqCst};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// How often the watcher looks for a signal.
pub const POLL: Duration = Duration::from_millis(20);

/// The signal caught (0: none yet).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Whether the output is JSON (`--json`).
static JSON: AtomicBool = AtomicBool::new(false);
/// The rows measured so far, as JSON.
static ROWS: Mutex<Vec<serde_json::Value>> = Mutex::new(Vec::new());

extern "C" fn on_signal(sig: libc::c_int) {
    if SIGNAL.swap(sig, SeqCst) != 0 {
        // SAFETY: `_exit` is async-signal-safe and takes any status.
        unsafe { libc::_exit(128 + sig) };
    }
}

/// The name of a signal this module catches.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// Catch SIGINT and SIGTERM for the rest of the process (see the module's docs); `json`: the
/// partial results are printed as JSON. Call once, before the benchmark's threads start.
pub fn install(json: bool) {
    JSON.store(json, SeqCst);
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed `sigaction` is a valid empty one; the handler is an `extern "C" fn`
        // that only does async-signal-safe things (an atomic swap, `_exit`); SA_RESTART keeps the
        // benchmark's system calls from failing with EINTR before the watcher ends the process.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
    let watcher = std::thread::Builder::new()
        .name("herdlab-interrupt".into())
        .stack_size(64 * 1024)
        .spawn(|| loop {
            std::thread::sleep(POLL);
            let sig = SIGNAL.load(SeqCst);
            if sig != 0 {
                stop(sig);
            }
        });
    if let Err(e) = watcher {
        // without the watcher a signal still ends the process: the second one, or the default
        // action after this message
        eprintln!("herdlab: cannot watch for SIGINT ({e}); an interrupted run prints nothing");
        reset();
    }
}

/// Put SIGINT and SIGTERM back to their default action (they end the process).
fn reset() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: SIG_DFL is a valid disposition for both signals.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// Whether a stop was asked for (a benchmark may stop early between rows).
pub fn requested() -> bool {
    SIGNAL.load(SeqCst) != 0
}

/// Keep one measured row, to be printed if the run is interrupted.
pub fn measured<T: serde::Serialize>(row: &T) {
    if let Ok(v) = serde_json::to_value(row) {
        ROWS.lock().unwrap_or_else(PoisonError::into_inner).push(v);
    }
}

/// Replace the rows measured so far with `rows` (a benchmark whose rows are summaries over
/// rounds, such as medians, keeps its rows over the rounds done so far).
pub fn replace_measured<T: serde::Serialize>(rows: &[T]) {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .filter_map(|r| serde_json::to_value(r).ok())
        .collect();
    *ROWS.lock().unwrap_or_else(PoisonError::into_inner) = rows;
}

/// The rows measured so far (what `--svg` draws).
pub fn rows() -> Vec<serde_json::Value> {
    ROWS.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// The partial report: the message (stderr) and the results (stdout).
pub fn partial_report(sig: i32, json: bool, rows: &[serde_json::Value]) -> (String, String) {
    let name = signal_name(sig);
    let message = format!(
        "herdlab: interrupted by {name}: stopped; the {} measured so far {}{}",
        if rows.len() == 1 {
            "1 row".to_string()
        } else {
            format!("{} rows", rows.len())
        },
        if rows.len() == 1 { "follows" } else { "follow" },
        if json {
            " (JSON, \"partial\": true)"
        } else {
            ""
        }
    );
    let results = if json {
        serde_json::json!({ "partial": true, "interrupted_by": name, "rows": rows }).to_string()
    } else {
        let mut out = format!("partial results (interrupted by {name}):");
        for r in rows {
            out.push('\n');
            out.push_str(&r.to_string());
        }
        out
    };
    (message, results)
}

/// Print what was measured and end the process with 128 + `sig`.
fn stop(sig: i32) -> ! {
    let rows = ROWS.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let (message, results) = partial_report(sig, JSON.load(SeqCst), &rows);
    let mut err = std::io::stderr().lock();
    // the progress bar's line first ends
    let _ = writeln!(err, "\n{message}");
    let _ = err.flush();
    drop(err);
    // `--trace FILE` and `--svg FILE`: what was finished, marked partial
    crate::trace::interrupted(signal_name(sig));
    crate::charts::interrupted(signal_name(sig));
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{results}");
    let _ = out.flush();
    std::process::exit(128 + sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partial_report_says_what_and_marks_it_partial() {
        let rows = vec![
            serde_json::json!({"threads": 2}),
            serde_json::json!({"threads": 8}),
        ];
        let (m, r) = partial_report(libc::SIGINT, true, &rows);
        assert_eq!(
            m,
            "herdlab: interrupted by SIGINT: stopped; the 2 rows measured so far follow (JSON, \"partial\": true)"
        );
        let v: serde_json::Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["partial"], true);
        assert_eq!(v["interrupted_by"], "SIGINT");
        assert_eq!(v["rows"].as_array().unwrap().len(), 2);
        let (m, r) = partial_report(libc::SIGTERM, false, &rows[..1]);
        assert!(
            m.contains("SIGTERM") && m.contains("the 1 row measured so far follows"),
            "{m}"
        );
        assert_eq!(
            r,
            "partial results (interrupted by SIGTERM):\n{\"threads\":2}"
        );
    }
}
