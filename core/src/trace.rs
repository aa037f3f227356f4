//! herdlab's trace files: what a native run (`herdlab bench <mechanism> … --trace FILE`) did, per
//! thread and over time, written by the command and read by the site (issue #14 §2). The format is
//! `docs/trace-format.md`; this module is its one writer ([`Trace::to_text`]) and its one reader
//! ([`parse`]), used by both platforms.
//!
//! A trace is text, one line per header field and one per event (`<thread> <delta ns> <kind>
//! [<arg>]`): small decimal integers, the time as the nanoseconds since the run's previous event.
//! Text because a person can read it with `head`, `grep` and `awk`, a diff shows what changed,
//! and a line-oriented reader is small, easy to bound and easy to fuzz; the deltas keep it
//! compact (most events are a few hundred nanoseconds apart: 3 digits, not 10).
//!
//! Bounded: at most [`MAX_EVENTS_PER_RUN`] events per run, [`MAX_RUNS`] runs and
//! [`MAX_FILE_BYTES`] bytes in a file; the writer cuts what exceeds them and says so (a run's
//! `truncated N` line), the reader refuses a file over them. Every refusal is a [`TraceError`]
//! that names the line, the field and what is allowed.
//!
//! No OS and no web dependencies: this module builds for `wasm32-unknown-unknown`. It names no
//! mechanism: a run's scenario is the site's query string (`mechanism=…&…`, what
//! `crate::scenario::Scenario::from_query` reads), kept as text.

use core::fmt::{self, Write as _};

/// The first word of a trace file.
pub const FORMAT: &str = "herdlab-trace";
/// The version this module writes.
pub const VERSION: u32 = 1;
/// The versions this module reads.
pub const READS: &[u32] = &[1];
/// The most events one run keeps (the writer cuts the rest and marks the run `truncated`).
pub const MAX_EVENTS_PER_RUN: usize = 100_000;
/// The most runs (rows) one file holds.
pub const MAX_RUNS: usize = 1024;
/// The largest file the reader takes and the writer writes.
pub const MAX_FILE_BYTES: usize = 32 << 20;
/// The longest text of a header field (a CPU's model, a run's label, a scenario, a command).
pub const MAX_TEXT: usize = 1024;
/// The most threads one run has (thread numbers are `0..threads`).
pub const MAX_THREADS: u32 = 4096;
/// The longest line the reader takes (a header field's key, space and [`MAX_TEXT`] bytes).
pub const MAX_LINE: usize = MAX_TEXT + 16;

/// What happened to a thread at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// It went to sleep in the kernel (a futex, semaphore or condition-variable wait, an
    /// `epoll_wait`); the argument is what it waits on (a word, a semaphore, a condvar), if known.
    Sleep,
    /// It woke from that sleep; the argument is the waker's thread, if known.
    Wake,
    /// A wakeup that found nothing to do: the thread goes back to sleep with no work done since it
    /// was woken (the definition of `crate::metrics`).
    Wasted,
    /// It accepted a connection; the argument is the connection's number in the run.
    Accept,
    /// A call that would have blocked returned at once: a futex whose word had changed, an
    /// `accept` with no connection queued (`EAGAIN`).
    Eagain,
    /// It acquired a lock; the argument is the lock's number.
    Lock,
    /// It released a lock; the argument is the lock's number.
    Unlock,
    /// It took work from another thread's queue; the argument is the victim's thread.
    Steal,
    /// It parked (gave up its processor and went idle).
    Park,
    /// It unparked another thread; the argument is that thread.
    Unpark,
    /// It asked the kernel to wake others (a futex wake, a semaphore post, a condvar notify),
    /// recorded when the call returned; the argument is how many a futex wake woke, or how many
    /// a condvar's `notify_one`s asked for (none for `notify_all` and a post).
    Notify,
    /// It started one item of work (an event, a request, a task, a critical section).
    Work,
    /// Another system call; the argument is its number on the writer's machine, if known.
    Syscall,
}

impl Kind {
    /// Every kind, in the order the format's table lists them.
    pub const ALL: [Kind; 13] = [
        Kind::Sleep,
        Kind::Wake,
        Kind::Wasted,
        Kind::Accept,
        Kind::Eagain,
        Kind::Lock,
        Kind::Unlock,
        Kind::Steal,
        Kind::Park,
        Kind::Unpark,
        Kind::Notify,
        Kind::Work,
        Kind::Syscall,
    ];

    /// Its name in a file.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Sleep => "sleep",
            Kind::Wake => "wake",
            Kind::Wasted => "wasted",
            Kind::Accept => "accept",
            Kind::Eagain => "eagain",
            Kind::Lock => "lock",
            Kind::Unlock => "unlock",
            Kind::Steal => "steal",
            Kind::Park => "park",
            Kind::Unpark => "unpark",
            Kind::Notify => "notify",
            Kind::Work => "work",
            Kind::Syscall => "syscall",
        }
    }

    /// The kind of a name.
    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// One event of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// The thread (`0..threads` of its run).
    pub thread: u16,
    /// Nanoseconds since the run's start, on the writer's monotonic clock.
    pub t_ns: u64,
    /// What happened.
    pub kind: Kind,
    /// Its argument (see [`Kind`]), if it has one.
    pub arg: Option<u32>,
}

/// The machine a trace was recorded on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MachineInfo {
    /// The CPU's model name (`/proc/cpuinfo`'s `model name`), or `unknown`.
    pub cpu: String,
    /// The CPUs the run could use.
    pub cores: u32,
    /// The kernel (`uname -sr`), or `unknown`.
    pub kernel: String,
}

/// One run (one row of the benchmark's table).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// The row's label, as the table names it (`futex wake-all N=8`).
    pub label: String,
    /// The scenario as the site's query string (`mechanism=herd&workers=8&…`).
    pub scenario: String,
    /// Threads in the run (events name `0..threads`).
    pub threads: u32,
    /// The events, in time order.
    pub events: Vec<Event>,
    /// Events recorded but not kept (over a cap), if any: the events kept are then every event up
    /// to the time of the last one kept.
    pub truncated: Option<u64>,
}

/// A whole trace file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The tool that wrote it and its version (`herdlab 0.1.0`).
    pub tool: String,
    /// The machine.
    pub machine: MachineInfo,
    /// When, UTC, ISO 8601 (`2026-12-02T22:55:31Z`).
    pub date: String,
    /// The command line that recorded it.
    pub command: String,
    /// `Some(why)` when the run was cut short (`SIGINT`): the runs are those finished before.
    pub partial: Option<String>,
    /// The runs, in the order they ran.
    pub runs: Vec<Run>,
}

/// A refused trace: where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The line (1-based), 0 for the file as a whole.
    pub line: usize,
    /// The field (`delta`, `thread`, `kind`, `events`, a header field's name, `file`).
    pub field: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.field, self.message)
        } else {
            write!(f, "line {}: {}: {}", self.line, self.field, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// The header fields, in the order the writer writes them (`partial` only when set).
pub const HEADER_FIELDS: [&str; 7] = [
    "tool", "cpu", "cores", "kernel", "date", "command", "partial",
];

/// A text field as the writer writes it: control characters as spaces, outer spaces trimmed, at
/// most [`MAX_TEXT`] bytes (cut at a character boundary), `-` when empty.
pub fn clean_text(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string();
    if out.len() > MAX_TEXT {
        let mut cut = MAX_TEXT;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out = out.trim_end().to_string();
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// A scenario query as the writer writes it: kept if it is one (`mechanism=` first, no spaces or
/// control characters, at most [`MAX_TEXT`] bytes), else `mechanism=unknown`.
pub fn clean_scenario(s: &str) -> String {
    if scenario_problem(s).is_none() {
        s.to_string()
    } else {
        "mechanism=unknown".to_string()
    }
}

fn scenario_problem(s: &str) -> Option<String> {
    if !s.starts_with("mechanism=") {
        return Some(format!(
            "'{}' is not a scenario; allowed: a query string starting mechanism=",
            shown(s)
        ));
    }
    if s.len() > MAX_TEXT {
        return Some(format!("{} bytes is too long; at most {MAX_TEXT}", s.len()));
    }
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some(
            "spaces or control characters; allowed: a query string without them".to_string(),
        );
    }
    None
}

/// A value shown in a message: at most 40 characters, then `…`.
fn shown(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// The bytes of a run's header lines at most (its label, scenario, threads, events, truncated).
const RUN_HEADER_MAX: usize = 2 * (MAX_TEXT + 12) + 3 * 32;

impl Trace {
    /// The file's text (see `docs/trace-format.md`), at most [`MAX_FILE_BYTES`] bytes.
    ///
    /// It writes a normal form: text fields through [`clean_text`], scenarios through
    /// [`clean_scenario`], each run's events in time order (stable) and at most
    /// [`MAX_EVENTS_PER_RUN`] of them, the runs after the first [`MAX_RUNS`] dropped (with the
    /// events dropped counted in `truncated`); [`parse`] of the text gives that normal form back,
    /// so `parse(&t.to_text())` is `t` for a trace already in it.
    pub fn to_text(&self) -> String {
        self.to_text_within(MAX_FILE_BYTES)
    }

    /// [`Trace::to_text`] with a file-size cap of `max_bytes` (the header must fit): events that
    /// would pass it are cut and counted in their run's `truncated`.
    pub fn to_text_within(&self, max_bytes: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{FORMAT} {VERSION}");
        let _ = writeln!(out, "tool {}", clean_text(&self.tool));
        let _ = writeln!(out, "cpu {}", clean_text(&self.machine.cpu));
        let _ = writeln!(out, "cores {}", self.machine.cores);
        let _ = writeln!(out, "kernel {}", clean_text(&self.machine.kernel));
        let _ = writeln!(out, "date {}", clean_text(&self.date));
        let _ = writeln!(out, "command {}", clean_text(&self.command));
        if let Some(p) = &self.partial {
            let _ = writeln!(out, "partial {}", clean_text(p));
        }
        let runs = &self.runs[..self.runs.len().min(MAX_RUNS)];
        for (i, run) in runs.iter().enumerate() {
            // room for this run's header and every later one's, and `end`
            let reserve = (runs.len() - i) * RUN_HEADER_MAX + 8;
            let budget = max_bytes.saturating_sub(out.len() + reserve);
            let mut order: Vec<&Event> = run.events.iter().collect();
            order.sort_by_key(|e| e.t_ns);
            let threads = run.threads.min(MAX_THREADS);
            let mut body = String::new();
            let mut kept = 0usize;
            let mut prev = 0u64;
            for e in order.iter().filter(|e| u32::from(e.thread) < threads) {
                if kept == MAX_EVENTS_PER_RUN {
                    break;
                }
                let mut line = String::with_capacity(24);
                let _ = write!(line, "{} {} {}", e.thread, e.t_ns - prev, e.kind.name());
                if let Some(a) = e.arg {
                    let _ = write!(line, " {a}");
                }
                line.push('\n');
                if body.len() + line.len() > budget {
                    break;
                }
                body.push_str(&line);
                prev = e.t_ns;
                kept += 1;
            }
            let dropped = run.truncated.unwrap_or(0) + (run.events.len() - kept) as u64;
            let _ = writeln!(out, "run {}", clean_text(&run.label));
            let _ = writeln!(out, "scenario {}", clean_scenario(&run.scenario));
            let _ = writeln!(out, "threads {threads}");
            let _ = writeln!(out, "events {kept}");
            if run.truncated.is_some() || dropped > 0 {
                let _ = writeln!(out, "truncated {dropped}");
            }
            out.push_str(&body);
        }
        out.push_str("end\n");
        out
    }

    /// Events of `kind` over every run.
    pub fn count(&self, kind: Kind) -> usize {
        self.runs.iter().map(|r| r.count(kind)).sum()
    }
}

impl Run {
    /// Events of `kind` in this run.
    pub fn count(&self, kind: Kind) -> usize {
        self.events.iter().filter(|e| e.kind == kind).count()
    }
}

/// The lines of a file: each line's text (without `\n`) and number, refusing one over
/// [`MAX_LINE`] bytes or not UTF-8 before looking further.
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    number: usize,
}

impl<'a> Lines<'a> {
    fn next(&mut self) -> Option<Result<(usize, &'a str), TraceError>> {
        if self.at >= self.bytes.len() {
            return None;
        }
        self.number += 1;
        let rest = &self.bytes[self.at..];
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.at += len + 1;
        let raw = &rest[..len];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.len() > MAX_LINE {
            return Some(Err(TraceError {
                line: self.number,
                field: "line",
                message: format!(
                    "{} bytes long; a line is at most {MAX_LINE} bytes",
                    raw.len()
                ),
            }));
        }
        Some(match core::str::from_utf8(raw) {
            Ok(s) => Ok((self.number, s)),
            Err(e) => Err(TraceError {
                line: self.number,
                field: "line",
                message: format!(
                    "not UTF-8 text (byte {} is not); a trace is UTF-8 text",
                    e.valid_up_to() + 1
                ),
            }),
        })
    }
}

fn err<T>(line: usize, field: &'static str, message: impl Into<String>) -> Result<T, TraceError> {
    Err(TraceError {
        line,
        field,
        message: message.into(),
    })
}

/// A whole number in `lo..=hi`: decimal digits only.
fn number(line: usize, field: &'static str, s: &str, lo: u64, hi: u64) -> Result<u64, TraceError> {
    let ok = !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    match s.parse::<u64>() {
        Ok(n) if ok && (lo..=hi).contains(&n) => Ok(n),
        Ok(n) if ok => err(
            line,
            field,
            format!("{n} is out of range; allowed {lo}-{hi}"),
        ),
        _ => err(
            line,
            field,
            format!("'{}' is not a whole number; allowed {lo}-{hi}", shown(s)),
        ),
    }
}

/// A header line `<key> <value>` split, the value checked as a text field.
fn key_value(s: &str) -> (&str, &str) {
    match s.split_once(' ') {
        Some((k, v)) => (k, v),
        None => (s, ""),
    }
}

fn text(line: usize, field: &'static str, v: &str) -> Result<String, TraceError> {
    if v.is_empty() {
        return err(line, field, "missing value; allowed: text of 1-1024 bytes");
    }
    if v.len() > MAX_TEXT {
        return err(
            line,
            field,
            format!(
                "{} bytes is too long; allowed: text of 1-{MAX_TEXT} bytes",
                v.len()
            ),
        );
    }
    if v.chars().any(char::is_control) {
        return err(line, field, "control characters are not allowed in text");
    }
    Ok(v.to_string())
}

/// Read a trace file. Refuses (naming the line, the field and what is allowed) a file that is not
/// a herdlab trace, a version this module does not read, a file over [`MAX_FILE_BYTES`], a line
/// over [`MAX_LINE`] bytes or not UTF-8, a missing, duplicated, unknown or malformed field, a
/// run whose events are fewer or more than it says, an event of a thread the run does not have,
/// and text after `end` or no `end` (a file cut short). Its time is linear in the input.
pub fn parse(bytes: &[u8]) -> Result<Trace, TraceError> {
    if bytes.len() > MAX_FILE_BYTES {
        return err(
            0,
            "file",
            format!(
                "{} bytes is too large; a trace is at most {MAX_FILE_BYTES} bytes",
                bytes.len()
            ),
        );
    }
    let expected = format!("expected first line '{FORMAT} {VERSION}'");
    let mut lines = Lines {
        bytes,
        at: 0,
        number: 0,
    };
    // the first line: the format and its version
    let first = match lines.next() {
        None => {
            return err(
                0,
                "file",
                format!("empty: not a herdlab trace ({expected})"),
            )
        }
        Some(Err(_)) => {
            return err(1, "format", format!("not a herdlab trace ({expected})"));
        }
        Some(Ok((_, s))) => s,
    };
    let version = match first.split_once(' ') {
        Some((FORMAT, v)) => v,
        _ => {
            return err(
                1,
                "format",
                format!("not a herdlab trace ({expected}, found '{}')", shown(first)),
            )
        }
    };
    let reads = READS
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let version = number(1, "version", version, 0, u64::from(u32::MAX)).map_err(|_| TraceError {
        line: 1,
        field: "version",
        message: format!(
            "'{}' is not a version; this reader reads version {reads}",
            shown(version)
        ),
    })? as u32;
    if !READS.contains(&version) {
        return err(
            1,
            "version",
            format!(
                "this is a version {version} trace; this reader reads version {reads}{}",
                if version > VERSION {
                    " (the file was written by a newer herdlab)"
                } else {
                    ""
                }
            ),
        );
    }

    let mut t = Trace::default();
    let mut seen: [usize; 7] = [0; 7];
    // the header, up to the first `run` or `end`
    let mut pending: Option<(usize, &str)> = loop {
        let (n, s) = match lines.next() {
            None => {
                return err(
                    lines.number,
                    "end",
                    "the file ends in its header (cut short?)",
                )
            }
            Some(r) => r?,
        };
        let (k, v) = key_value(s);
        if k == "run" || k == "end" {
            break Some((n, s));
        }
        let Some(i) = HEADER_FIELDS.iter().position(|f| *f == k) else {
            return err(
                n,
                "header",
                format!(
                    "'{}' is not a header field; allowed: {}, run, end",
                    shown(k),
                    HEADER_FIELDS.join(", ")
                ),
            );
        };
        let field = HEADER_FIELDS[i];
        if seen[i] != 0 {
            return err(
                n,
                field,
                format!(
                    "given twice (first on line {}); allowed: each header field once",
                    seen[i]
                ),
            );
        }
        seen[i] = n;
        match field {
            "tool" => t.tool = text(n, field, v)?,
            "cpu" => t.machine.cpu = text(n, field, v)?,
            "cores" => t.machine.cores = number(n, field, v, 0, u64::from(u32::MAX))? as u32,
            "kernel" => t.machine.kernel = text(n, field, v)?,
            "date" => t.date = text(n, field, v)?,
            "command" => t.command = text(n, field, v)?,
            _ => t.partial = Some(text(n, field, v)?),
        }
    };
    let at = pending.map_or(lines.number, |p| p.0);
    if let Some(i) = (0..6).find(|&i| seen[i] == 0) {
        return err(
            at,
            HEADER_FIELDS[i],
            format!(
                "missing from the header; expected: {} (and partial, optional)",
                HEADER_FIELDS[..6].join(", ")
            ),
        );
    }

    // the runs, then `end`
    loop {
        let (n, s) = match pending.take() {
            Some(p) => p,
            None => match lines.next() {
                None => {
                    return err(
                        lines.number,
                        "end",
                        "the file ends without 'end' (cut short?)",
                    )
                }
                Some(r) => r?,
            },
        };
        let (k, v) = key_value(s);
        match k {
            "end" if v.is_empty() => break,
            "run" => {}
            _ => {
                return err(
                    n,
                    "run",
                    format!("'{}' found; allowed here: run <label>, end", shown(s)),
                )
            }
        }
        if t.runs.len() == MAX_RUNS {
            return err(
                n,
                "run",
                format!("more than {MAX_RUNS} runs; at most {MAX_RUNS}"),
            );
        }
        let mut run = Run {
            label: text(n, "run", v)?,
            ..Run::default()
        };
        // scenario, threads, events, then an optional truncated
        let mut field_line = |want: &'static str| -> Result<(usize, &str), TraceError> {
            match lines.next() {
                None => err(
                    lines.number,
                    want,
                    format!("the file ends before '{want}' (cut short?)"),
                ),
                Some(r) => {
                    let (n, s) = r?;
                    let (k, v) = key_value(s);
                    if k == want {
                        Ok((n, v))
                    } else {
                        err(
                            n,
                            want,
                            format!("expected '{want} …', found '{}'", shown(s)),
                        )
                    }
                }
            }
        };
        let (sn, sv) = field_line("scenario")?;
        if let Some(p) = scenario_problem(sv) {
            return err(sn, "scenario", p);
        }
        run.scenario = sv.to_string();
        let (tn, tv) = field_line("threads")?;
        run.threads = number(tn, "threads", tv, 0, u64::from(MAX_THREADS))? as u32;
        let (en, ev) = field_line("events")?;
        let count = number(en, "events", ev, 0, MAX_EVENTS_PER_RUN as u64)? as usize;
        let mut prev = 0u64;
        let mut first_event = true;
        while run.events.len() < count {
            let (n, s) = match lines.next() {
                None => {
                    return err(
                        lines.number,
                        "events",
                        format!(
                            "run {} says {count} events; the file ends after {} (cut short?)",
                            t.runs.len() + 1,
                            run.events.len()
                        ),
                    )
                }
                Some(r) => r?,
            };
            if first_event {
                first_event = false;
                if let Some(v) = s.strip_prefix("truncated ") {
                    run.truncated = Some(number(n, "truncated", v, 0, u64::MAX)?);
                    continue;
                }
            }
            let mut parts = s.split(' ');
            let thread = parts.next().unwrap_or_default();
            let (Some(delta), Some(kind)) = (parts.next(), parts.next()) else {
                let (k, _) = key_value(s);
                if k == "run" || k == "end" {
                    return err(
                        n,
                        "events",
                        format!(
                            "run {} says {count} events; found {}",
                            t.runs.len() + 1,
                            run.events.len()
                        ),
                    );
                }
                return err(
                    n,
                    "event",
                    format!(
                        "'{}' is not an event; allowed: <thread> <delta ns> <kind> [<arg>]",
                        shown(s)
                    ),
                );
            };
            let arg = parts.next();
            if parts.next().is_some() {
                return err(
                    n,
                    "event",
                    "more than four fields; allowed: <thread> <delta ns> <kind> [<arg>]",
                );
            }
            let hi = u64::from(run.threads).saturating_sub(1);
            if run.threads == 0 {
                return err(n, "thread", "the run has 0 threads; allowed: no events");
            }
            let thread = number(n, "thread", thread, 0, hi)? as u16;
            let delta = number(n, "delta", delta, 0, u64::MAX)?;
            let t_ns = prev.checked_add(delta).ok_or_else(|| TraceError {
                line: n,
                field: "delta",
                message: format!(
                    "the run's time passes {} ns; allowed: a total under 2^64",
                    u64::MAX
                ),
            })?;
            let kind = Kind::from_name(kind).ok_or_else(|| TraceError {
                line: n,
                field: "kind",
                message: format!(
                    "'{}' is not an event kind; allowed: {}",
                    shown(kind),
                    Kind::ALL.map(Kind::name).join(", ")
                ),
            })?;
            let arg = match arg {
                Some(a) => Some(number(n, "arg", a, 0, u64::from(u32::MAX))? as u32),
                None => None,
            };
            run.events.push(Event {
                thread,
                t_ns,
                kind,
                arg,
            });
            prev = t_ns;
        }
        if count == 0 {
            // an empty run may still say how many were cut
            if let Some(Ok((n, s))) = lines.clone_peek() {
                if let Some(v) = s.strip_prefix("truncated ") {
                    lines.next();
                    run.truncated = Some(number(n, "truncated", v, 0, u64::MAX)?);
                }
            }
        }
        t.runs.push(run);
    }
    // nothing but blank lines after `end`
    while let Some(r) = lines.next() {
        let (n, s) = r?;
        if !s.trim().is_empty() {
            return err(
                n,
                "end",
                format!("'{}' after 'end'; nothing may follow it", shown(s)),
            );
        }
    }
    Ok(t)
}

impl<'a> Lines<'a> {
    /// The next line without taking it.
    fn clone_peek(&self) -> Option<Result<(usize, &'a str), TraceError>> {
        Lines {
            bytes: self.bytes,
            at: self.at,
            number: self.number,
        }
        .next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Trace {
        Trace {
            tool: "herdlab 0.1.0".into(),
            machine: MachineInfo {
                cpu: "Example CPU @ 2.0GHz".into(),
                cores: 2,
                kernel: "Linux 6.1.0".into(),
            },
            date: "2026-12-02T22:55:31Z".into(),
            command: "herdlab bench herd --quick --trace t.trace".into(),
            partial: None,
            runs: vec![Run {
                label: "futex wake-all N=2".into(),
                scenario: "mechanism=herd&workers=2".into(),
                threads: 2,
                events: vec![
                    Event {
                        thread: 0,
                        t_ns: 0,
                        kind: Kind::Sleep,
                        arg: Some(0),
                    },
                    Event {
                        thread: 1,
                        t_ns: 150,
                        kind: Kind::Sleep,
                        arg: Some(0),
                    },
                    Event {
                        thread: 0,
                        t_ns: 9000,
                        kind: Kind::Wake,
                        arg: None,
                    },
                    Event {
                        thread: 0,
                        t_ns: 9100,
                        kind: Kind::Work,
                        arg: None,
                    },
                ],
                truncated: None,
            }],
        }
    }

    #[test]
    fn the_sample_reads_back_and_its_text_is_as_documented() {
        let t = sample();
        let text = t.to_text();
        assert_eq!(
            text,
            "herdlab-trace 1\ntool herdlab 0.1.0\ncpu Example CPU @ 2.0GHz\ncores 2\n\
             kernel Linux 6.1.0\ndate 2026-12-02T22:55:31Z\n\
             command herdlab bench herd --quick --trace t.trace\nrun futex wake-all N=2\n\
             scenario mechanism=herd&workers=2\nthreads 2\nevents 4\n0 0 sleep 0\n1 150 sleep 0\n\
             0 8850 wake\n0 100 work\nend\n"
        );
        assert_eq!(parse(text.as_bytes()).unwrap(), t);
    }

    #[test]
    fn foreign_and_newer_files_say_what_they_are() {
        let e = parse(b"hello\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: format: not a herdlab trace (expected first line 'herdlab-trace 1', found 'hello')"
        );
        let e = parse(b"herdlab-trace 2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: version: this is a version 2 trace; this reader reads version 1 (the file was written by a newer herdlab)"
        );
        assert_eq!(parse(b"").unwrap_err().field, "file");
    }

    #[test]
    fn errors_name_line_and_field() {
        let good = sample().to_text();
        let bad = good.replace("1 150 sleep 0", "1 150 snooze 0");
        let e = parse(bad.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.field), (13, "kind"));
        assert!(e.message.contains("allowed: sleep, wake"), "{e}");
        let bad = good.replace("1 150 sleep", "2 150 sleep");
        let e = parse(bad.as_bytes()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 13: thread: 2 is out of range; allowed 0-1"
        );
        let bad = good.replace("cores 2\n", "cores 2\ncores 3\n");
        assert_eq!(
            parse(bad.as_bytes()).unwrap_err().to_string(),
            "line 5: cores: given twice (first on line 4); allowed: each header field once"
        );
        let bad = good.replace("events 4", "events 5");
        let e = parse(bad.as_bytes()).unwrap_err();
        assert_eq!(e.field, "events");
        let cut = &good[..good.len() - 4];
        assert_eq!(parse(cut.as_bytes()).unwrap_err().field, "end");
    }

    #[test]
    fn the_writer_caps_and_marks_truncation() {
        let mut t = sample();
        t.runs[0].events = (0..(MAX_EVENTS_PER_RUN as u64 + 5))
            .map(|i| Event {
                thread: 0,
                t_ns: i,
                kind: Kind::Work,
                arg: None,
            })
            .collect();
        let back = parse(t.to_text().as_bytes()).unwrap();
        assert_eq!(back.runs[0].events.len(), MAX_EVENTS_PER_RUN);
        assert_eq!(back.runs[0].truncated, Some(5));
        // a small file cap
        let text = t.to_text_within(20_000);
        assert!(text.len() <= 20_000, "{}", text.len());
        let back = parse(text.as_bytes()).unwrap();
        let kept = back.runs[0].events.len();
        assert!(kept > 0);
        assert_eq!(
            back.runs[0].truncated,
            Some((MAX_EVENTS_PER_RUN + 5 - kept) as u64)
        );
    }
}
