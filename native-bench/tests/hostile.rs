//! `herdlab bench` on a hostile machine (issue #15, §2), each case on the real binary:
//! - interrupted (SIGINT, SIGTERM) mid-run: it stops at once, exits 130/143, and prints the rows
//!   measured so far, marked partial (`--json`: `"partial": true`);
//! - an open-file limit (`ulimit -n`) too low: refused with the limit named and how to raise it,
//!   exit 1;
//! - one CPU (`taskset -c 0`) and more threads: it finishes and says its rows are oversubscribed.
//!
//! The thread limit (`ulimit -u`) is not enforced for root, so its case runs only as another user.
//! Each test prints what the binary printed (`cargo test -- --nocapture` shows it).
#![cfg(target_os = "linux")]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_herdlab");

/// Wait for `child` at most `limit` (far above what any case needs: a hang guard, not a timing);
/// `None` when it ran past it (it is then killed).
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Start a long `bench herd`, wait until `rows` rows are measured (its progress bar on stderr
/// says so), send `sig`; the exit status, stdout, stderr, and how long it took to exit.
fn interrupt(sig: i32, json: bool, rows: usize) -> (Option<i32>, String, String, Duration) {
    let mut args = vec![
        "bench",
        "herd",
        "--threads",
        "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2",
        "--events",
        "10000",
    ];
    if json {
        args.push("--json");
    }
    let mut child = Command::new(BIN)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let mut out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 256];
        loop {
            match err.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    all.extend_from_slice(&buf[..n]);
                    let _ = tx.send(String::from_utf8_lossy(&all).into_owned());
                }
            }
        }
        String::from_utf8_lossy(&all).into_owned()
    });
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let mark = format!("] {rows}/");
    let started = Instant::now();
    loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(text) if text.contains(&mark) => break,
            Ok(_) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "no progress to {rows} rows ({e:?}): {}",
                    reader.join().unwrap()
                );
            }
        }
    }
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
    let t = Instant::now();
    let status = wait_at_most(&mut child, Duration::from_secs(60)).expect("it exits");
    let took = t.elapsed();
    let stderr = reader.join().unwrap();
    let stdout = out_reader.join().unwrap();
    println!(
        "interrupted after {:.1} s: exit {:?} after {:.0} ms\nstderr (last line): {}\nstdout: {:.400}",
        started.elapsed().as_secs_f64(),
        status.code(),
        took.as_secs_f64() * 1e3,
        stderr.lines().last().unwrap_or_default(),
        stdout
    );
    (status.code(), stdout, stderr, took)
}

#[test]
fn sigint_mid_run_stops_and_prints_the_rows_so_far_marked_partial() {
    let (code, out, err, _took) = interrupt(libc::SIGINT, true, 2);
    assert_eq!(code, Some(130), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["partial"], true);
    assert_eq!(v["interrupted_by"], "SIGINT");
    let rows = v["rows"].as_array().unwrap();
    // the progress bar said 2 rows were done before the signal; the run has 64
    assert!(rows.len() >= 2 && rows.len() < 64, "{} rows", rows.len());
    for r in rows {
        assert_eq!(r["threads"], 2);
        assert_eq!(r["events"], 10000);
    }
    assert!(
        err.contains("herdlab: interrupted by SIGINT: stopped; the "),
        "{err}"
    );
}

#[test]
fn sigterm_mid_run_stops_and_prints_the_rows_so_far_as_partial_results() {
    let (code, out, err, _took) = interrupt(libc::SIGTERM, false, 1);
    assert_eq!(code, Some(143), "{err}");
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("partial results (interrupted by SIGTERM):")
    );
    let rows: Vec<serde_json::Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!rows.is_empty() && rows.len() < 64, "{} rows", rows.len());
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
}

/// Run `herdlab <args>` under `sh -c` with a shell prefix (`ulimit -n 12 &&`, `taskset -c 0`).
fn sh(prefix: &str, args: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{prefix} {BIN} {args}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = wait_at_most(&mut child, Duration::from_secs(120)).expect("it exits");
    let last = err.replace('\r', "\n");
    println!(
        "$ {prefix} herdlab {args}\nexit {:?}\nstderr: {}",
        status.code(),
        last.lines()
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join("\n")
    );
    (status.code(), out, err)
}

#[test]
fn an_open_file_limit_too_low_is_refused_naming_the_limit() {
    // stdio, one listener, 8 epoll instances, the stop eventfd and one connection need 15
    let (code, _, err) = sh(
        "ulimit -n 12 && exec",
        "bench accept --quick --strategy herd --workers 8",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("this run needs at least 15 open files")
            && err.contains("the open-file limit (ulimit -n) is 12"),
        "{err}"
    );
    assert!(err.contains("ulimit -Hn"), "{err}");
}

#[test]
fn one_cpu_and_more_threads_finishes_and_says_it_is_oversubscribed() {
    if Command::new("taskset").arg("-V").output().is_err() {
        println!("taskset is not installed: skipped");
        return;
    }
    let (code, out, err) = sh("exec taskset -c 0", "bench herd --threads 2 --events 50");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(
            "herdlab: note: up to 2 threads on 1 CPU: the rows with more threads than CPUs \
             are oversubscribed"
        ),
        "{err}"
    );
    assert!(out.contains("futex wake-all"), "{out}");
}

#[test]
fn a_thread_limit_too_low_is_refused_naming_the_limit() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        println!("root: the thread limit (ulimit -u) is not enforced for root; skipped");
        return;
    }
    if Command::new("prlimit").arg("-V").output().is_err() {
        println!("prlimit is not installed: skipped");
        return;
    }
    // (dash's ulimit has no -u; prlimit sets RLIMIT_NPROC, which counts this user's threads)
    let (code, _, err) = sh(
        "exec prlimit --nproc=4:4",
        "bench herd --threads 8 --events 50",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the thread limit (ulimit -u, this user's processes and threads) is 4"),
        "{err}"
    );
    assert_eq!(err.matches("the thread limit").count(), 1, "{err}");
}
