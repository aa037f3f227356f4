//! `herdlab bench <mechanism> … --trace FILE`: recording what the native run did, per thread and
//! over time, into core's trace format (`herdlab_core::trace`, `docs/trace-format.md`).
//!
//! # How a run is recorded
//! - Each thread that runs core's machines keeps its own [`Recorder`] (in `NativeThread`, in the
//!   event world's `NetThread`): a plain `Vec` of events, no shared lock, no atomic write. With
//!   `--trace` off a thread has no recorder (`None`), and every recording point is one
//!   predictable branch on that `Option`.
//! - The platform records what it sees: sleeps and wakes (futex, semaphore, condvar, `epoll_wait`),
//!   wasted wakes, `EAGAIN`s, accepts, notifies, the sleeping mutex's lock and unlock, work. A
//!   mechanism's native executor records what only it can see (its own lock's acquire and release,
//!   a steal, a park) with one call each: `NativeThread::record(kind, arg)`.
//! - When a thread ends, its recorder hands its buffer over (one lock, once per thread). When a
//!   benchmark finishes a row it calls [`run_done`] with the row's label and scenario: the buffers
//!   handed over since are merged by time into one run. That one call per row is all a mechanism
//!   adds; a benchmark that never calls it writes a trace with no runs.
//! - A thread keeps at most its share of [`MAX_EVENTS_PER_RUN`]; when one is full the run is cut,
//!   for every thread, at the time its buffer filled, and marked `truncated`.
//! - The file is written when the command ends ([`finish`]), also after an error, and when it is
//!   interrupted (`platform::interrupt` calls [`interrupted`]): then marked `partial`, with the
//!   runs finished before. It is written to the path the user named and nowhere else; the path is
//!   checked when the command line is parsed (exit 2) and the file created before the benchmark
//!   starts (an OS error is exit 1, before any time is spent).
//!
//! Generic: names no mechanism.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use herdlab_core::trace::{Event, Kind, MachineInfo, Run, Trace, MAX_EVENTS_PER_RUN};

/// Whether this process records (`--trace` was given).
static ON: AtomicBool = AtomicBool::new(false);
/// The clock every recorder reads.
static EPOCH: OnceLock<Instant> = OnceLock::new();
/// The buffers of threads that ended, the runs, and the file.
static STATE: Mutex<State> = Mutex::new(State {
    ended: Vec::new(),
    runs: Vec::new(),
    file: None,
    command: String::new(),
});

struct State {
    ended: Vec<Buffer>,
    runs: Vec<Run>,
    file: Option<(PathBuf, File)>,
    command: String,
}

/// One thread's events: (time on [`now_ns`]'s clock, kind, argument).
struct Buffer {
    thread: u16,
    threads: u32,
    events: Vec<(u64, Kind, Option<u32>)>,
    dropped: u64,
}

/// Whether recording is on.
#[inline(always)]
pub fn enabled() -> bool {
    ON.load(Relaxed)
}

/// Nanoseconds on the recorders' monotonic clock.
#[inline]
pub fn now_ns() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// One thread's recorder (see the module docs).
pub struct Recorder {
    buf: Buffer,
    cap: usize,
}

impl Recorder {
    /// The recorder of thread `thread` of a run of `threads`, or `None` when recording is off.
    pub fn start(thread: usize, threads: usize) -> Option<Recorder> {
        if !enabled() {
            return None;
        }
        let threads = threads.max(thread + 1);
        let cap = (MAX_EVENTS_PER_RUN / threads).max(1);
        Some(Recorder {
            buf: Buffer {
                thread: thread.min(u16::MAX as usize) as u16,
                threads: threads.min(u32::MAX as usize) as u32,
                events: Vec::with_capacity(cap.min(4096)),
                dropped: 0,
            },
            cap,
        })
    }

    /// Record `kind` at time `t_ns` ([`now_ns`]'s clock).
    #[inline]
    pub fn at(&mut self, t_ns: u64, kind: Kind, arg: Option<u32>) {
        if self.buf.events.len() < self.cap {
            self.buf.events.push((t_ns, kind, arg));
        } else {
            self.buf.dropped += 1;
        }
    }

    /// Record `kind` now (once the buffer is full, only counted: the clock is not read).
    #[inline]
    pub fn now(&mut self, kind: Kind, arg: Option<u32>) {
        if self.buf.events.len() < self.cap {
            self.buf.events.push((now_ns(), kind, arg));
        } else {
            self.buf.dropped += 1;
        }
    }
}

impl Drop for Recorder {
    /// The thread is done: hand the buffer over to the run.
    fn drop(&mut self) {
        let buf = std::mem::replace(
            &mut self.buf,
            Buffer {
                thread: 0,
                threads: 0,
                events: Vec::new(),
                dropped: 0,
            },
        );
        lock().ended.push(buf);
    }
}

/// Record `kind` now on `rec`, if it records (the one branch a recording point costs when off).
#[inline(always)]
pub fn record(rec: &mut Option<Recorder>, kind: Kind, arg: Option<u32>) {
    if let Some(r) = rec {
        r.now(kind, arg);
    }
}

fn lock() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Merge buffers into one run: events by time (then thread), the time from the run's first event,
/// cut at the earliest time a buffer filled (every thread's events after it dropped and counted).
fn merge(label: &str, scenario: &str, bufs: Vec<Buffer>) -> Run {
    let threads = bufs.iter().map(|b| b.threads).max().unwrap_or(0);
    let cut = bufs
        .iter()
        .filter(|b| b.dropped > 0)
        .map(|b| b.events.last().map_or(0, |e| e.0))
        .min();
    let mut dropped: u64 = bufs.iter().map(|b| b.dropped).sum();
    let mut events: Vec<Event> = Vec::new();
    for b in &bufs {
        for &(t, kind, arg) in &b.events {
            if cut.is_some_and(|c| t > c) {
                dropped += 1;
                continue;
            }
            events.push(Event {
                thread: b.thread,
                t_ns: t,
                kind,
                arg,
            });
        }
    }
    events.sort_by_key(|e| (e.t_ns, e.thread));
    let t0 = events.first().map_or(0, |e| e.t_ns);
    for e in &mut events {
        e.t_ns -= t0;
    }
    Run {
        label: label.to_string(),
        scenario: scenario.to_string(),
        threads,
        events,
        truncated: (dropped > 0).then_some(dropped),
    }
}

/// A benchmark finished a row: the buffers of the threads that ended since the last row become
/// one run, labelled as the row's table names it, with its scenario as the site's query string.
/// Does nothing when recording is off.
pub fn run_done(label: &str, scenario: &str) {
    if !enabled() {
        return;
    }
    let mut s = lock();
    let bufs = std::mem::take(&mut s.ended);
    let run = merge(label, scenario, bufs);
    s.runs.push(run);
}

/// The runs recorded so far (for tests).
pub fn runs() -> Vec<Run> {
    lock().runs.clone()
}

/// Start recording into `path` (created now, empty until the end), for the command line
/// `command`. An error is the OS's, with the path.
pub fn begin(path: &Path, command: &str) -> Result<(), String> {
    let f =
        File::create(path).map_err(|e| format!("--trace: cannot write {}: {e}", path.display()))?;
    let mut s = lock();
    s.file = Some((path.to_path_buf(), f));
    s.command = command.to_string();
    s.runs.clear();
    s.ended.clear();
    EPOCH.get_or_init(Instant::now);
    ON.store(true, Relaxed);
    Ok(())
}

/// Write the file (if recording): `partial` says why the runs stop early (`SIGINT`, an error).
/// Returns the path written, or the OS's error.
pub fn finish(partial: Option<&str>) -> Result<Option<PathBuf>, String> {
    if !enabled() {
        return Ok(None);
    }
    ON.store(false, Relaxed);
    let mut s = lock();
    let Some((path, mut f)) = s.file.take() else {
        return Ok(None);
    };
    let t = Trace {
        tool: format!("herdlab {}", env!("CARGO_PKG_VERSION")),
        machine: machine(),
        date: utc_now(),
        command: s.command.clone(),
        partial: partial.map(str::to_string),
        runs: std::mem::take(&mut s.runs),
    };
    f.write_all(t.to_text().as_bytes())
        .and_then(|()| f.flush())
        .map_err(|e| format!("--trace: cannot write {}: {e}", path.display()))?;
    Ok(Some(path))
}

/// The run was interrupted by `signal`: write what was recorded, marked partial (the interrupt
/// handler's one call; errors go to stderr).
pub fn interrupted(signal: &str) {
    match finish(Some(signal)) {
        Ok(Some(p)) => eprintln!(
            "herdlab: the trace of the runs finished before {signal} is in {} (marked partial)",
            p.display()
        ),
        Ok(None) => {}
        Err(e) => eprintln!("herdlab: {e}"),
    }
}

/// This machine: the CPU's model, the CPUs this process may use, the kernel.
pub fn machine() -> MachineInfo {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|r| format!("{} {}", os_name(), r.trim()))
        .unwrap_or_else(|_| os_name().to_string());
    MachineInfo {
        cpu,
        cores: crate::cli::cpus() as u32,
        kernel,
    }
}

fn os_name() -> &'static str {
    match std::env::consts::OS {
        "linux" => "Linux",
        other => other,
    }
}

/// Now, UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (the proleptic Gregorian calendar,
/// Howard Hinnant's `civil_from_days`).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(thread: u16, events: &[(u64, Kind)], dropped: u64) -> Buffer {
        Buffer {
            thread,
            threads: 3,
            events: events.iter().map(|&(t, k)| (t, k, None)).collect(),
            dropped,
        }
    }

    #[test]
    fn buffers_merge_by_time_from_the_first_event() {
        let r = merge(
            "row",
            "mechanism=herd",
            vec![
                buf(0, &[(100, Kind::Sleep), (400, Kind::Wake)], 0),
                buf(2, &[(150, Kind::Work)], 0),
            ],
        );
        assert_eq!(r.threads, 3);
        assert_eq!(r.truncated, None);
        let got: Vec<(u16, u64, Kind)> = r
            .events
            .iter()
            .map(|e| (e.thread, e.t_ns, e.kind))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0, Kind::Sleep),
                (2, 50, Kind::Work),
                (0, 300, Kind::Wake)
            ]
        );
    }

    #[test]
    fn a_full_buffer_cuts_every_thread_at_its_time_and_counts_what_it_drops() {
        let r = merge(
            "row",
            "mechanism=herd",
            vec![
                buf(0, &[(10, Kind::Work), (20, Kind::Work)], 5),
                buf(
                    1,
                    &[(15, Kind::Work), (25, Kind::Work), (30, Kind::Work)],
                    0,
                ),
            ],
        );
        assert_eq!(r.events.len(), 3); // 10, 15, 20
        assert_eq!(r.truncated, Some(5 + 2));
        assert!(r.events.iter().all(|e| e.t_ns <= 10));
    }

    #[test]
    fn dates_are_utc_iso() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_796_251_331), "2026-12-02T22:42:11Z");
    }
}
