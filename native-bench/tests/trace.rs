//! `herdlab bench … --trace FILE` and `--svg FILE` on the real binary (issue #14 §2-§4): the trace
//! parses with core's reader and agrees with the benchmark's own counters; the lock trace shows
//! mutual exclusion; the charts are well-formed XML with one series per strategy and the values as
//! text; bad paths are refused (exit 2) and unwritable ones are exit 1 with the OS's error; an
//! interrupted run still writes its trace, marked partial.
#![cfg(target_os = "linux")]

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use herdlab_core::scenario::Scenario;
use herdlab_core::trace::{parse, Kind, Run, Trace};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_herdlab");

/// A folder of its own under the system's temp folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("herdlab-trace-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn herdlab(args: &[&str]) -> Output {
    let out = Command::new(BIN).args(args).output().unwrap();
    eprintln!(
        "herdlab {}: {:?}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn read_trace(p: &Path) -> Trace {
    let bytes = std::fs::read(p).unwrap();
    parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every run's scenario is one the site can simulate.
fn scenarios_parse(t: &Trace) {
    for r in &t.runs {
        let (_, errs) = Scenario::from_query_lenient(&r.scenario);
        assert!(
            !r.scenario.contains("mechanism=unknown"),
            "{}: {}",
            r.label,
            r.scenario
        );
        // the lenient parse reads every key (a bench's row may lie outside the site's ranges,
        // such as 128 threads: then the key is named)
        for e in errs {
            assert!(
                r.scenario.contains(&format!("{}=", e.field)),
                "{}: {e:?}",
                r.scenario
            );
        }
    }
}

/// gmp: per thread, every `park` (an M about to sleep on its note: core's only futex wait) is
/// followed by that wait's `sleep` or `eagain` (the note already set), and every `unpark` (a
/// `notewakeup`: core's only futex wake) by its `notify`; no sleep, EAGAIN or notify comes
/// without one. Only a truncated run may end a thread between the two: the run is cut at a time,
/// and a wait's `sleep` is stamped when it began, after its `park` (so it can fall past the cut
/// while its `park` does not). Returns the parks.
fn parks_pair(r: &Run) -> usize {
    let threads: BTreeSet<u16> = r.events.iter().map(|e| e.thread).collect();
    let mut parks = 0;
    for t in threads {
        let mut pending: Option<Kind> = None;
        for e in r.events.iter().filter(|e| e.thread == t) {
            match (pending, e.kind) {
                (
                    _,
                    Kind::Wasted
                    | Kind::Wake
                    | Kind::Lock
                    | Kind::Unlock
                    | Kind::Work
                    | Kind::Steal,
                ) => {}
                (None, Kind::Park) => {
                    parks += 1;
                    pending = Some(Kind::Park);
                }
                (None, Kind::Unpark) => pending = Some(Kind::Unpark),
                (Some(Kind::Park), Kind::Sleep | Kind::Eagain)
                | (Some(Kind::Unpark), Kind::Notify) => pending = None,
                (p, k) => panic!(
                    "{}: thread {t}: {k:?} at {} ns after {p:?}",
                    r.label, e.t_ns
                ),
            }
        }
        assert!(
            pending.is_none() || r.truncated.is_some(),
            "{}: thread {t} ends after a {pending:?} without its wait or wake",
            r.label
        );
    }
    parks
}

/// A key of a run's scenario (`threads=3`).
fn scenario_key<'a>(r: &'a Run, key: &str) -> &'a str {
    r.scenario
        .split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("{}: no {key} in {}", r.label, r.scenario))
}

/// gmp: every M but the one that starts the program (M0 with `main`; for the shapes spawned from
/// outside, the spawner, thread `threads`, and then every M) is asleep on its note before the
/// starter's first event, as the simulator's Ms are. Returns the Ms checked.
fn ms_asleep_before_the_start(r: &Run) -> usize {
    let threads: u16 = scenario_key(r, "threads").parse().unwrap();
    let external = matches!(
        scenario_key(r, "workload"),
        "spawn-many" | "yield-many" | "goyield-many"
    );
    let starter = if external { threads } else { 0 };
    let start = r
        .events
        .iter()
        .find(|e| e.thread == starter)
        .unwrap_or_else(|| panic!("{}: the starter {starter} did nothing", r.label))
        .t_ns;
    let others: Vec<u16> = (0..threads).filter(|&m| m != starter).collect();
    for &m in &others {
        assert!(
            r.events
                .iter()
                .any(|e| e.thread == m && e.kind == Kind::Sleep && e.t_ns <= start),
            "{}: M{m} was not asleep when the run started at {start} ns (its first events: {:?})",
            r.label,
            r.events
                .iter()
                .filter(|e| e.thread == m)
                .take(3)
                .collect::<Vec<_>>()
        );
    }
    others.len()
}

/// Per thread, a lock is followed by its unlock before the next lock, and no two threads' holds
/// (lock to unlock, both recorded while held) overlap.
fn holds_are_exclusive(r: &Run) -> usize {
    let mut holds: Vec<(u64, u64, u16)> = Vec::new();
    let mut open: std::collections::HashMap<u16, u64> = Default::default();
    for e in &r.events {
        match e.kind {
            Kind::Lock => {
                assert!(
                    open.insert(e.thread, e.t_ns).is_none(),
                    "{}: thread {} locked twice",
                    r.label,
                    e.thread
                );
            }
            Kind::Unlock => {
                let t0 = open
                    .remove(&e.thread)
                    .unwrap_or_else(|| panic!("{}: unlock without lock", r.label));
                holds.push((t0, e.t_ns, e.thread));
            }
            _ => {}
        }
    }
    holds.sort();
    for w in holds.windows(2) {
        assert!(
            w[1].0 >= w[0].1,
            "{}: thread {} locked at {} while thread {} held it until {}",
            r.label,
            w[1].2,
            w[1].0,
            w[0].2,
            w[0].1
        );
    }
    holds.len()
}

#[test]
fn bench_herd_trace_counts_match_its_rows_and_the_svg_draws_them() {
    let d = TempDir::new("herd");
    let (t, s) = (d.file("herd.trace"), d.file("herd.svg"));
    let out = herdlab(&[
        "bench",
        "herd",
        "--threads",
        "2,4",
        "--events",
        "20",
        "--json",
        "--trace",
        t.to_str().unwrap(),
        "--svg",
        s.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let trace = read_trace(&t);
    assert_eq!(trace.partial, None);
    assert!(trace
        .command
        .starts_with("herdlab bench herd --threads 2,4"));
    assert_eq!(trace.runs.len(), rows.len());
    scenarios_parse(&trace);
    for (run, row) in trace.runs.iter().zip(&rows) {
        assert_eq!(
            run.label,
            format!("{} N={}", row["variant"].as_str().unwrap(), row["threads"])
        );
        assert_eq!(run.truncated, None, "{}", run.label);
        // every job the row counts, and no other, is a work event
        assert_eq!(
            run.count(Kind::Work) as u64,
            row["work_items"].as_u64().unwrap(),
            "{}",
            run.label
        );
        // a sleep is recorded with its wake
        assert_eq!(
            run.count(Kind::Sleep),
            run.count(Kind::Wake),
            "{}",
            run.label
        );
        if run.label.starts_with("accept") {
            assert_eq!(run.count(Kind::Accept), 20, "{}", run.label);
        }
        // wake-all wastes, wake-one does not
        if run.label.starts_with("futex wake-all N=4") {
            assert!(run.count(Kind::Wasted) > 0, "{}", run.label);
        }
        if run.label.starts_with("futex wake-one") {
            assert_eq!(run.count(Kind::Wasted), 0, "{}", run.label);
        }
    }
    let svg = std::fs::read_to_string(&s).unwrap();
    well_formed(&svg);
    let variants: BTreeSet<&str> = rows
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    // two charts, each with one series per variant
    assert_eq!(svg.matches(r#"class="series""#).count(), 2 * variants.len());
    for v in &variants {
        assert!(svg.contains(&format!(r#"data-series="{v}""#)), "{v}");
    }
    for row in &rows {
        let p99 = row["event_p99_ns"].as_u64().unwrap();
        assert!(svg.contains(&format!(" {} {p99}", row["threads"])), "{p99}");
    }
    assert!(svg.contains("<title") && svg.contains("<desc"));
}

#[test]
fn bench_accept_trace_accepts_every_connection_once() {
    let d = TempDir::new("accept");
    let (t, s) = (d.file("a.trace"), d.file("a.svg"));
    let out = herdlab(&[
        "bench",
        "accept",
        "--strategy",
        "herd,exclusive",
        "--workers",
        "3",
        "--connections",
        "60",
        "--rate",
        "2000",
        "--json",
        "--trace",
        t.to_str().unwrap(),
        "--svg",
        s.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let trace = read_trace(&t);
    scenarios_parse(&trace);
    assert_eq!(trace.runs.len(), 2);
    for (run, row) in trace.runs.iter().zip(&rows) {
        assert_eq!(run.label, row["strategy"].as_str().unwrap());
        assert_eq!(run.truncated, None);
        assert_eq!(
            run.count(Kind::Accept) as u64,
            row["connections_accepted"].as_u64().unwrap()
        );
        assert_eq!(run.count(Kind::Accept), 60);
        // each connection's id once
        let ids: BTreeSet<u32> = run
            .events
            .iter()
            .filter(|e| e.kind == Kind::Accept)
            .map(|e| e.arg.unwrap())
            .collect();
        assert_eq!(ids.len(), 60);
        assert_eq!(
            run.count(Kind::Eagain) as u64,
            row["eagain"].as_u64().unwrap()
        );
        assert_eq!(
            run.count(Kind::Wasted) as u64,
            row["wasted_wakeups"].as_u64().unwrap(),
            "{}",
            run.label
        );
        assert_eq!(run.count(Kind::Sleep), run.count(Kind::Wake));
    }
    let svg = std::fs::read_to_string(&s).unwrap();
    well_formed(&svg);
    // two charts, one series per strategy in each
    assert_eq!(svg.matches(r#"class="series""#).count(), 4);
    assert!(svg.contains(r#"data-series="herd workers=3""#));
    assert!(svg.contains(r#"data-series="exclusive workers=3""#));
}

#[test]
fn bench_locks_trace_shows_mutual_exclusion_and_is_cut_at_its_cap() {
    let d = TempDir::new("locks");
    let t = d.file("l.trace");
    let out = herdlab(&[
        "bench",
        "locks",
        "--locks",
        "shmtx,futex",
        "--threads",
        "3",
        "--cs",
        "0,200",
        "--ms",
        "200",
        "--json",
        "--trace",
        t.to_str().unwrap(),
        "--svg",
        d.file("l.svg").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    // the charts' series are the rows' lock, form, critical section and layout
    let svg = std::fs::read_to_string(d.file("l.svg")).unwrap();
    well_formed(&svg);
    let series: BTreeSet<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} cs_ns={} padded={}",
                r["lock"].as_str().unwrap(),
                r["form"].as_str().unwrap(),
                r["cs_ns"],
                r["padded"]
            )
        })
        .collect();
    assert_eq!(svg.matches(r#"class="series""#).count(), 2 * series.len());
    for name in &series {
        assert!(svg.contains(&format!(r#"data-series="{name}""#)), "{name}");
    }
    let trace = read_trace(&t);
    scenarios_parse(&trace);
    assert_eq!(trace.runs.len(), rows.len());
    assert!(
        trace.runs.iter().any(|r| r.truncated.is_some()),
        "an empty critical section fills the buffers (200 ms per row: 30 ms was not always enough \
         on a loaded machine for one thread to record its 33,333 events)"
    );
    for (run, row) in trace.runs.iter().zip(&rows) {
        let holds = holds_are_exclusive(run);
        assert!(holds > 0, "{}", run.label);
        let acq = row["acquisitions"].as_u64().unwrap() as usize;
        match run.truncated {
            // all of them (the row counts those before its deadline; a thread may finish one
            // more round after it), or a prefix in time, marked
            None => assert!(
                holds >= acq && holds <= acq + 3 * 4,
                "{}: {holds} holds, {acq} acquisitions",
                run.label
            ),
            Some(n) => {
                assert!(n > 0 && holds <= acq, "{}", run.label);
                assert!(run.events.len() <= herdlab_core::trace::MAX_EVENTS_PER_RUN);
            }
        }
        assert!(
            run.scenario.starts_with("mechanism=locks&lock="),
            "{}",
            run.scenario
        );
    }
}

/// gmp: each native run traces its steals, one `steal` event per successful `runqsteal` (a
/// batch taken with `runqgrab`'s compare-and-swap of the victim's `runqhead`, or the victim's
/// `runnext`), on the thief's thread, naming the victim's M: as many as the row's `steals` (one
/// round: the median is the run's). Two workers spread `yield_many`'s 200 goroutines unevenly
/// through the global queue, and `spawn_many_task`'s second M takes from the spawning one, so
/// a few invocations see steals.
#[test]
fn bench_gmp_traces_each_steal_with_its_victim() {
    let d = TempDir::new("gmp-steal");
    let t = d.file("s.trace");
    let mut stolen = 0;
    for _ in 0..5 {
        let out = herdlab(&[
            "bench",
            "gmp",
            "--rounds",
            "1",
            "--workers",
            "2",
            "--shapes",
            "yield_many,spawn_many_task,chained_spawn",
            "--runtimes",
            "herdlab",
            "--json",
            "--trace",
            t.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let trace = read_trace(&t);
        assert_eq!(trace.runs.len(), rows.len());
        for run in &trace.runs {
            let row = rows
                .iter()
                .find(|r| run.label.contains(r["shape"].as_str().unwrap()))
                .unwrap_or_else(|| panic!("no row for {}", run.label));
            assert_eq!(run.truncated, None, "{}", run.label);
            let steals: Vec<_> = run
                .events
                .iter()
                .filter(|e| e.kind == Kind::Steal)
                .collect();
            assert_eq!(
                steals.len() as u64,
                row["steals"].as_u64().unwrap(),
                "{}",
                run.label
            );
            let threads: u32 = scenario_key(run, "threads").parse().unwrap();
            for e in &steals {
                let victim = e.arg.expect("a steal names its victim's M");
                assert!(victim < threads, "{}: victim {victim}", run.label);
                assert_ne!(
                    victim,
                    u32::from(e.thread),
                    "{}: stole from itself",
                    run.label
                );
            }
            stolen += steals.len();
        }
        if stolen > 0 {
            break;
        }
    }
    assert!(stolen > 0, "no steal in 5 invocations of 2-worker runs");
}

/// Regression: each native run began as soon as the Ms' threads had passed the start gate, and
/// an M still starting was not yet asleep on its note. A `chained_spawn` run's 1,000 links (about
/// 200 µs) could end on M0 before M1 first slept: its `notewakeup` found no sleeper, and the run
/// had 0 parks where the simulator, whose Ms start asleep, had several.
#[test]
fn a_gmp_run_starts_only_when_its_idle_ms_are_asleep() {
    let d = TempDir::new("gmp-start");
    let t = d.file("c.trace");
    let out = herdlab(&[
        "bench",
        "gmp",
        "--rounds",
        "3",
        "--workers",
        "2,4",
        "--shapes",
        "chained_spawn,spawn_many",
        "--runtimes",
        "herdlab,herdlab-2012",
        "--json",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let trace = read_trace(&t);
    // 2 runtimes x 2 shapes x 2 worker counts x 3 rounds
    assert_eq!(trace.runs.len(), 24);
    for run in &trace.runs {
        // chain: M0 starts, the other Ms (workers + 1 in all) sleep; spawn_many: every M sleeps
        let workers: usize = scenario_key(run, "gomaxprocs").parse().unwrap();
        let external = scenario_key(run, "workload") == "spawn-many";
        let expect = if external { workers + 1 } else { workers };
        assert_eq!(ms_asleep_before_the_start(run), expect, "{}", run.label);
    }
}

#[test]
fn bench_gmp_and_pool_draw_their_charts_and_trace_their_runs() {
    let d = TempDir::new("gmp-pool");
    let (t, s) = (d.file("g.trace"), d.file("g.svg"));
    let out = herdlab(&[
        "bench",
        "gmp",
        "--quick",
        "--json",
        "--trace",
        t.to_str().unwrap(),
        "--svg",
        s.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let svg = std::fs::read_to_string(&s).unwrap();
    well_formed(&svg);
    let series: BTreeSet<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["runtime"].as_str().unwrap(),
                r["shape"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(svg.matches(r#"class="series""#).count(), series.len());
    let trace = read_trace(&t);
    scenarios_parse(&trace);
    // one run per round of each of core's cells (tokio's are not recorded)
    let cells = rows.iter().filter(|r| r["runtime"] != "tokio").count();
    let rounds = rows[0]["rounds"].as_u64().unwrap() as usize;
    assert_eq!(trace.runs.len(), cells * rounds);
    let (mut parks, mut asleep) = (0, 0);
    for run in &trace.runs {
        parks += parks_pair(run);
        asleep += ms_asleep_before_the_start(run);
    }
    assert!(parks > 0, "no M ever parked in {} runs", trace.runs.len());
    assert!(asleep > 0, "no run had an M to put to sleep first");

    let (t, s) = (d.file("p.trace"), d.file("p.svg"));
    let out = herdlab(&[
        "bench",
        "pool",
        "--quick",
        "--pools",
        "nginx,threadpool",
        "--task-ns",
        "0",
        "--json",
        "--trace",
        t.to_str().unwrap(),
        "--svg",
        s.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let trace = read_trace(&t);
    scenarios_parse(&trace);
    assert_eq!(trace.runs.len(), rows.len());
    for (run, row) in trace.runs.iter().zip(&rows) {
        if row["pool"] != "nginx" {
            continue;
        }
        assert_eq!(run.truncated, None, "{}", run.label);
        // throughput and idle rows: one work event per task a pool thread ran; event-loop
        // rows: the loop's handler runs once per request (a task's blocking read is a sleep)
        let want = if row["scenario"] == "event-loop" {
            row["requests"].as_u64().unwrap()
        } else {
            row["tasks_run"].as_u64().unwrap()
        };
        assert_eq!(run.count(Kind::Work) as u64, want, "{}", run.label);
    }
    let svg = std::fs::read_to_string(&s).unwrap();
    well_formed(&svg);
    assert!(svg.contains(r#"data-series="throughput nginx task_ns=0""#));
    assert!(svg.contains(r#"data-series="throughput threadpool task_ns=0""#));
}

#[test]
fn bad_paths_are_refused_and_unwritable_ones_are_an_os_error() {
    let d = TempDir::new("paths");
    let cases: [(&str, &str); 3] = [
        ("/nonexistent-herdlab/x.trace", "is not an existing folder"),
        ("/tmp", "is a folder"),
        ("", "empty path"),
    ];
    for (path, says) in cases {
        let out = herdlab(&["bench", "herd", "--quick", "--trace", path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert!(
            err.contains("--trace: ")
                && err.contains(says)
                && err.contains("allowed: a file path in an existing folder"),
            "{path}: {err}"
        );
    }
    let out = herdlab(&["bench", "herd", "--svg", "/nonexistent-herdlab/x.svg"]);
    assert_eq!(out.status.code(), Some(2));
    let same = d.file("same");
    let out = herdlab(&[
        "bench",
        "herd",
        "--trace",
        same.to_str().unwrap(),
        "--svg",
        same.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!same.exists());
    // a folder that exists but takes no new file: the OS's error, exit 1, before any run
    let out = herdlab(&["bench", "herd", "--trace", "/proc/self/herdlab.trace"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--trace: cannot write /proc/self/herdlab.trace: "),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // a refused bench (exit 2 after the files were made) leaves none behind
    let t = d.file("refused.trace");
    let out = herdlab(&[
        "bench",
        "accept",
        "--workers",
        "0",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!t.exists());
}

#[test]
fn an_interrupted_run_writes_its_trace_marked_partial() {
    let d = TempDir::new("sigint");
    let (t, s) = (d.file("i.trace"), d.file("i.svg"));
    let mut child = Command::new(BIN)
        .args([
            "bench",
            "herd",
            "--threads",
            "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2",
            "--events",
            "2000",
            "--trace",
            t.to_str().unwrap(),
            "--svg",
            s.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
            let _ = tx.send(String::from_utf8_lossy(&all).into_owned());
        }
        String::from_utf8_lossy(&all).into_owned()
    });
    // wait for 3 rows measured (a hang guard, not a timing)
    let t0 = Instant::now();
    loop {
        let seen = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_default();
        if seen.contains("] 3/") || t0.elapsed() > Duration::from_secs(120) {
            break;
        }
    }
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    let err = reader.join().unwrap();
    eprintln!("{err}");
    assert_eq!(status.code(), Some(130), "{err}");
    let trace = read_trace(&t);
    assert_eq!(trace.partial.as_deref(), Some("SIGINT"));
    assert!(trace.runs.len() >= 3, "{} runs", trace.runs.len());
    assert!(err.contains("(marked partial)"), "{err}");
    let svg = std::fs::read_to_string(&s).unwrap();
    well_formed(&svg);
    assert!(svg.contains("(partial: SIGINT)"));
}

/// A small well-formedness check of the XML the charts are: every tag closed in order, attributes
/// quoted, no stray `<` or `&`.
fn well_formed(xml: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        check_text(&rest[..i]);
        let tag_end = rest[i..].find('>').expect("a tag is closed") + i;
        let tag = &rest[i + 1..tag_end];
        rest = &rest[tag_end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "closing {name}");
            continue;
        }
        assert_eq!(tag.matches('"').count() % 2, 0, "quotes in <{tag}>");
        assert!(!tag.contains('<'), "<{tag}>");
        let name = tag.split_whitespace().next().unwrap().trim_end_matches('/');
        if !tag.ends_with('/') {
            stack.push(name);
        }
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

fn check_text(t: &str) {
    for (i, _) in t.match_indices('&') {
        let ent = &t[i..t[i..].find(';').map_or(t.len(), |j| i + j + 1)];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&ent),
            "entity {ent}"
        );
    }
}

/// `bench mysql --trace --svg`: one run per row; one `work` event per query the server answered
/// (at its first slice of CPU time), one `accept` per connection (by the acceptor, thread 0,
/// each connection once), every sleep (a listener's `epoll_wait`, a per-connection thread's
/// blocking `read`, a group queue's condition variable, the timer's tick) followed by its wake,
/// and every server thread the row says it created has events of its own.
#[test]
fn bench_mysql_traces_its_queries_accepts_and_waits_and_draws_its_rows() {
    let d = TempDir::new("mysql");
    let (t, s) = (d.file("m.trace"), d.file("m.svg"));
    let out = herdlab(&[
        "bench",
        "mysql",
        "--connections",
        "4,16",
        "--queries",
        "300",
        "--think-us",
        "200",
        "--json",
        "--trace",
        t.to_str().unwrap(),
        "--svg",
        s.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 4);
    let trace = read_trace(&t);
    scenarios_parse(&trace);
    assert_eq!(trace.partial, None);
    assert_eq!(trace.runs.len(), rows.len());
    for (run, row) in trace.runs.iter().zip(&rows) {
        let (mode, n) = (
            row["mode"].as_str().unwrap(),
            row["connections"].as_u64().unwrap(),
        );
        assert_eq!(run.label, format!("{mode} connections={n}"));
        assert!(
            run.scenario
                .starts_with(&format!("mechanism=mysql&mode={mode}&connections={n}&")),
            "{}",
            run.scenario
        );
        assert_eq!(run.truncated, None, "{}", run.label);
        let served = row["queries_served"].as_u64().unwrap();
        assert_eq!(served, row["queries_answered"].as_u64().unwrap());
        assert_eq!(run.count(Kind::Work) as u64, served, "{}", run.label);
        let accepts: Vec<(u16, Option<u32>)> = run
            .events
            .iter()
            .filter(|e| e.kind == Kind::Accept)
            .map(|e| (e.thread, e.arg))
            .collect();
        let want: Vec<(u16, Option<u32>)> = (0..n as u32).map(|i| (0, Some(i))).collect();
        assert_eq!(accepts, want, "{}", run.label);
        // per thread, a sleep then its wake
        let threads: BTreeSet<u16> = run.events.iter().map(|e| e.thread).collect();
        for &th in &threads {
            let mut asleep = false;
            for e in run.events.iter().filter(|e| e.thread == th) {
                match e.kind {
                    Kind::Sleep => {
                        assert!(!asleep, "{}: thread {th} slept twice", run.label);
                        asleep = true;
                    }
                    Kind::Wake => {
                        assert!(asleep, "{}: thread {th} woke unslept", run.label);
                        asleep = false;
                    }
                    _ => {}
                }
            }
            assert!(!asleep, "{}: thread {th} never woke", run.label);
        }
        assert!(run.count(Kind::Sleep) > 0, "{}", run.label);
        // the server's created threads: slots 2.. (0 is the acceptor, 1 the pool's timer)
        let created = threads.iter().filter(|&&th| th >= 2).count() as u64;
        assert_eq!(
            created,
            row["threads_created"].as_u64().unwrap(),
            "{}",
            run.label
        );
        if mode == "per-connection" {
            assert_eq!(created, n, "{}: a thread per connection", run.label);
        }
    }
    let svg = std::fs::read_to_string(&s).unwrap();
    well_formed(&svg);
    for mode in ["per-connection", "pool"] {
        assert!(svg.contains(&format!(r#"data-series="{mode}""#)), "{mode}");
    }
}

/// With connection churn the acceptor's `accept` events are the first connections and then every
/// reconnection, each named by its client.
#[test]
fn bench_mysql_traces_each_reconnection_as_an_accept() {
    let d = TempDir::new("mysql-churn");
    let t = d.file("c.trace");
    let out = herdlab(&[
        "bench",
        "mysql",
        "--mode",
        "per-connection",
        "--connections",
        "6",
        "--queries",
        "120",
        "--think-us",
        "200",
        "--queries-per-conn",
        "3",
        "--json",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let row = &rows[0];
    let trace = read_trace(&t);
    let run = &trace.runs[0];
    assert_eq!(run.truncated, None);
    let accepts: Vec<u32> = run
        .events
        .iter()
        .filter(|e| e.kind == Kind::Accept)
        .map(|e| e.arg.unwrap())
        .collect();
    let reconnects = row["reconnects_accepted"].as_u64().unwrap() as usize;
    assert!(reconnects > 0, "{row}");
    assert_eq!(accepts.len(), 6 + reconnects, "{row}");
    assert_eq!(accepts[..6], [0, 1, 2, 3, 4, 5]);
    assert!(accepts.iter().all(|&c| c < 6));
    assert_eq!(
        run.count(Kind::Work) as u64,
        row["queries_served"].as_u64().unwrap()
    );
}
