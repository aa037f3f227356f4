//! `herdlab bench` on a hostile machine (issue #15, §2), each case on the real binary:
//! - interrupted (SIGINT, SIGTERM) mid-run: it stops at once, exits 130/143, and prints the rows
//!   measured so far, marked partial (`--json`: `"partial": true`);
//! - an open-file limit (`ulimit -n`) too low: refused with the limit named and how to raise it,
//!   exit 1;
//! - one CPU (`taskset -c 0`) and more threads: it finishes and says its rows are oversubscribed;
//! - a port that is taken (`bench accept --port`), by a plain listener or by one with
//!   `SO_REUSEPORT` (which the kernel would let a `SO_REUSEPORT` bind of the same user join):
//!   refused, exit 1, the port named and what to do, the holder never sees a connection;
//! - a listen backlog that overflows (`--backlog 1`, a slow acceptor, a burst): counted from the
//!   kernel's `TcpExt: ListenOverflows` (JSON `listen_overflows`, a column) and named under the
//!   table; a backlog above `net.core.somaxconn`: the effective value is said;
//! - a thread limit (`ulimit -u`) too low, for core's machines, each rival pool of `bench pool` and
//!   tokio's runtime in `bench gmp`:
//!   refused naming the limit, exit 1, no panic. The limit is not enforced for root: as root these
//!   cases run as `nobody` (`setpriv`), one at a time.
//!
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
    interrupt_at(&args, sig, rows)
}

/// Start `herdlab <args>`, wait until its progress bar says `rows` (rows or rounds) are done,
/// send `sig`; the exit status, stdout, stderr, and how long it took to exit.
fn interrupt_at(args: &[&str], sig: i32, rows: usize) -> (Option<i32>, String, String, Duration) {
    let mut child = Command::new(BIN)
        .args(args)
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

/// `bench gmp`'s rows are medians over rounds: interrupted, it prints the rows over the rounds
/// done so far (each row's `rounds` says how many), and `--trace` holds every run finished.
#[test]
fn bench_gmp_interrupted_prints_the_rows_of_the_rounds_done_marked_partial() {
    let dir = std::env::temp_dir().join(format!("herdlab-hostile-gmp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("g.trace");
    let args = [
        "bench",
        "gmp",
        "--quick",
        "--shrink",
        "20",
        "--rounds",
        "1000",
        "--json",
        "--trace",
        trace.to_str().unwrap(),
    ];
    let (code, out, err, _took) = interrupt_at(&args, libc::SIGINT, 2);
    let text = std::fs::read_to_string(&trace);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(130), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["partial"], true);
    assert_eq!(v["interrupted_by"], "SIGINT");
    let rows = v["rows"].as_array().unwrap();
    // every cell: 3 runtimes x 6 shapes x workers 1 and 2, each over the same rounds done
    assert_eq!(rows.len(), 36, "{rows:?}");
    let done = rows[0]["rounds"].as_u64().unwrap();
    assert!((2..1000).contains(&done), "{done} rounds");
    for r in rows {
        assert_eq!(r["rounds"], done, "{r}");
        assert!(r["median_ns"].as_u64().unwrap() > 0, "{r}");
    }
    assert!(
        err.contains("herdlab: interrupted by SIGINT: stopped; the 36 rows measured so far follow"),
        "{err}"
    );
    // the trace: one run per herdlab cell per round, those of the round under way too
    let t = herdlab_core::trace::parse(text.unwrap().as_bytes()).unwrap();
    assert_eq!(t.partial.as_deref(), Some("SIGINT"));
    let runs = t.runs.len() as u64;
    assert!(
        24 * done <= runs && runs <= 24 * (done + 1),
        "{runs} runs, {done} rounds"
    );
}

#[test]
fn bench_gmp_terminated_prints_the_rows_so_far_as_partial_results() {
    let args = [
        "bench", "gmp", "--quick", "--shrink", "20", "--rounds", "1000",
    ];
    let (code, out, err, _took) = interrupt_at(&args, libc::SIGTERM, 1);
    assert_eq!(code, Some(143), "{err}");
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("partial results (interrupted by SIGTERM):")
    );
    let rows: Vec<serde_json::Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 36);
    assert!(rows.iter().all(|r| r["rounds"].as_u64() >= Some(1)));
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

/// The shell prefix (before `exec`'s command) that runs a command without root's privileges: none
/// when this process is not root, else `setpriv` to an unprivileged uid that no other process uses
/// ("nobody" below). `None` (with a line saying why) when this binary cannot run so here.
fn unprivileged() -> Option<&'static str> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("");
    }
    // Not `nobody` (65534) itself: another test run on the same machine (another checkout's, say)
    // may run as nobody at the same time, and its threads would count against this run's limit.
    // A uid of this process's own (no account needs to exist for it) has no other processes.
    // Probed once, under the lock that keeps runs as this uid apart: the probe is a process of
    // the uid too, and one alive while another test's command runs under a thread limit counts
    // against that limit (CI once saw `bench mysql` under `--nproc=2` lose its interrupt watcher
    // to a probe of a concurrent test).
    static PREFIX: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PREFIX
        .get_or_init(|| {
            let _one = one_at_a_time();
            let uid = 40_000 + std::process::id() % 20_000;
            let as_nobody = format!("setpriv --reuid={uid} --regid={uid} --clear-groups");
            let works = Command::new("sh")
                .arg("-c")
                .arg(format!("{as_nobody} {BIN} --help"))
                .output()
                .is_ok_and(|o| o.status.success());
            if !works {
                println!("root, and this binary cannot run as nobody (setpriv): skipped");
                return None;
            }
            Some(as_nobody)
        })
        .as_deref()
}

/// The shell prefix that runs a command under a thread limit of `n` (`RLIMIT_NPROC`, which counts
/// the user's processes and threads), and the lock that keeps such runs apart: the limit is not
/// enforced for root, so as root the command runs as `nobody`, whose other processes would count
/// too. `None` (with a line saying why) when this machine cannot.
fn under_thread_limit(n: u32) -> Option<(String, std::sync::MutexGuard<'static, ()>)> {
    if Command::new("prlimit").arg("-V").output().is_err() {
        println!("prlimit is not installed: skipped");
        return None;
    }
    let user = unprivileged()?;
    // (dash's ulimit has no -u; prlimit sets RLIMIT_NPROC)
    Some((
        format!("exec {user} prlimit --nproc={n}:{n}"),
        one_at_a_time(),
    ))
}

/// Held by every test that runs the binary as another user: as `nobody`, their processes would
/// count against each other's thread limit.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn a_privileged_port_says_what_the_kernel_said() {
    let start = std::fs::read_to_string("/proc/sys/net/ipv4/ip_unprivileged_port_start")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(1024);
    if start <= 80 {
        println!("port 80 is not privileged here (ip_unprivileged_port_start {start}): skipped");
        return;
    }
    let Some(user) = unprivileged() else {
        return;
    };
    let _one = one_at_a_time();
    let (code, out, err) = sh(
        &format!("exec {user}"),
        "bench accept --quick --strategy herd --port 80",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "herdlab: bench accept: herd: bind(127.0.0.1:80): Permission denied (os error 13): \
             ports below {start} (net.ipv4.ip_unprivileged_port_start) need root or \
             CAP_NET_BIND_SERVICE; pick another --port, or --port 0"
        )),
        "{err}"
    );
    assert_eq!(out, "");
}

#[test]
fn a_thread_limit_too_low_is_refused_naming_the_limit() {
    let Some((prefix, _one)) = under_thread_limit(4) else {
        return;
    };
    let (code, _, err) = sh(&prefix, "bench herd --threads 8 --events 50");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the thread limit (ulimit -u, this user's processes and threads) is 4"),
        "{err}"
    );
    assert_eq!(err.matches("the thread limit").count(), 1, "{err}");
}

#[test]
fn a_thread_limit_too_low_for_bench_pool_is_refused_naming_it_not_a_panic() {
    let Some((prefix, _one)) = under_thread_limit(6) else {
        return;
    };
    for pool in ["threadpool", "rayon", "crossbeam", "nginx"] {
        let (code, out, err) = sh(
            &prefix,
            &format!("bench pool --quick --pools {pool} --threads 16 --tasks 100"),
        );
        assert_eq!(code, Some(1), "{pool}: {err}");
        assert!(!err.contains("panicked"), "{pool}: {err}");
        let who = match pool {
            "nginx" => "pool thread ".to_string(),
            rival => format!("{rival}'s "),
        };
        assert!(
            err.contains(&format!("herdlab: bench pool: cannot start {who}"))
                && err.contains("Resource temporarily unavailable (os error 11)"),
            "{pool}: {err}"
        );
        assert!(
            err.contains("the thread limit (ulimit -u, this user's processes and threads) is 6"),
            "{pool}: {err}"
        );
        assert_eq!(out, "", "{pool}: no rows");
    }
}

#[test]
fn a_thread_limit_too_low_for_bench_gmp_is_refused_naming_it_not_a_panic() {
    let Some((prefix, _one)) = under_thread_limit(4) else {
        return;
    };
    // tokio's runtime (built first, for every worker count), and herdlab's Ms without tokio
    for (runtimes, who) in [
        ("herdlab,tokio", "cannot start tokio's worker thread "),
        ("herdlab", "herdlab chained_spawn: cannot start thread "),
    ] {
        let (code, out, err) = sh(
            &prefix,
            &format!(
                "bench gmp --quick --workers 8 --runtimes {runtimes} --shapes chained_spawn --rounds 1"
            ),
        );
        assert_eq!(code, Some(1), "{runtimes}: {err}");
        assert!(!err.contains("panicked"), "{runtimes}: {err}");
        assert!(
            err.contains(&format!("herdlab: bench gmp: {who}"))
                && err.contains("Resource temporarily unavailable (os error 11)"),
            "{runtimes}: {err}"
        );
        assert!(
            err.contains("the thread limit (ulimit -u, this user's processes and threads) is 4"),
            "{runtimes}: {err}"
        );
        assert_eq!(out, "", "{runtimes}: no rows");
    }
}

/// `bench mysql` under every thread limit from the harness's first thread (the sampler) to its
/// last (the failure watcher): the server's, the clients' and the harness's threads each refused
/// naming the limit, exit 1, no panic (a pool of one group of 4 connections needs 8 threads: main,
/// the interrupt watcher, the sampler, the timer, a worker, 2 clients, the failure watcher).
#[test]
fn a_thread_limit_too_low_for_bench_mysql_is_refused_naming_it_at_every_thread() {
    let mut who = Vec::new();
    for n in 2..=7 {
        let Some((prefix, _one)) = under_thread_limit(n) else {
            return;
        };
        let (code, out, err) = sh(
            &prefix,
            "bench mysql --mode pool --groups 1 --connections 4 --queries 100",
        );
        assert_eq!(code, Some(1), "{n}: {err}");
        assert!(!err.contains("panicked"), "{n}: {err}");
        assert!(
            err.contains("herdlab: bench mysql: pool with 4 connections: cannot start ")
                && err.contains("Resource temporarily unavailable (os error 11)"),
            "{n}: {err}"
        );
        assert!(
            err.contains(&format!(
                "the thread limit (ulimit -u, this user's processes and threads) is {n}"
            )),
            "{n}: {err}"
        );
        assert_eq!(out, "", "{n}: no rows");
        let what = err.split("cannot start ").nth(1).unwrap_or_default();
        who.push(what[..what.find(':').unwrap_or(0)].to_string());
    }
    // each kind of thread was the one refused at some limit (as root, where the command runs as
    // nobody and counts only its own threads; a user's other processes count against the limit)
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    for w in [
        "the sampler thread",
        "a server thread",
        "a client thread",
        "the failure watcher thread",
    ] {
        assert!(who.iter().any(|x| x == w), "{w}: {who:?}");
    }
}

/// Run `herdlab <args>` directly: the exit status, stdout and stderr.
fn herdlab(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    println!(
        "$ herdlab {}\nexit {:?}\nstderr: {}",
        args.join(" "),
        out.status.code(),
        e.replace('\r', "\n")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('['))
            .collect::<Vec<_>>()
            .join("\n")
    );
    (out.status.code(), o, e)
}

/// A listener on `127.0.0.1:<free port>`, non-blocking, with `SO_REUSEPORT` when `reuseport`
/// (a stranger the kernel would let this user's `SO_REUSEPORT` sockets join).
fn holder(reuseport: bool) -> std::net::TcpListener {
    use std::os::fd::FromRawFd;
    if !reuseport {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        return l;
    }
    // SAFETY: socket(2) with integers; the descriptor is owned by the listener made from it
    // below, and nothing else.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    assert!(fd >= 0);
    // SAFETY: `fd` is the open socket just made, owned from here on.
    let l = unsafe { std::net::TcpListener::from_raw_fd(fd) };
    let one: libc::c_int = 1;
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 0,
        sin_addr: libc::in_addr {
            s_addr: u32::from(std::net::Ipv4Addr::LOCALHOST).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: `fd` is open; the option value and the address live on this stack frame, and their
    // sizes are passed.
    unsafe {
        assert_eq!(
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_REUSEPORT,
                (&one as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            ),
            0
        );
        assert_eq!(
            libc::bind(
                fd,
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            ),
            0
        );
        assert_eq!(libc::listen(fd, 64), 0);
    }
    l.set_nonblocking(true).unwrap();
    l
}

/// Listening sockets on `port` (any address) in `/proc/net/tcp` (state `0A`: LISTEN).
fn listening_on(port: u16) -> usize {
    let t = std::fs::read_to_string("/proc/net/tcp").unwrap();
    t.lines()
        .skip(1)
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 3
                && f[3] == "0A"
                && f[1].rsplit(':').next() == Some(format!("{port:04X}").as_str())
        })
        .count()
}

/// `bench accept --port P --strategy S` on a port this test holds: exit 1, a message naming the
/// port and what to do, not one connection on the holder, and no socket of the bench left on it.
fn a_taken_port(holder_reuseport: bool, strategy: &str) {
    let held = holder(holder_reuseport);
    let port = held.local_addr().unwrap().port();
    let p = port.to_string();
    let (code, out, err) = herdlab(&[
        "bench",
        "accept",
        "--quick",
        "--strategy",
        strategy,
        "--workers",
        "2",
        "--port",
        &p,
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "herdlab: bench accept: {strategy}: port {port} on 127.0.0.1 is taken: another socket \
             listens on it"
        )) && err.contains("pick another --port, or --port 0 for a free one the kernel picks"),
        "{err}"
    );
    if strategy == "reuseport" {
        assert!(
            err.contains("this run's SO_REUSEPORT bind would even succeed"),
            "{err}"
        );
    }
    assert_eq!(out, "", "no table for a run that never started");
    // the bench never shared the port: nothing reached the holder, only it listens there
    assert!(
        matches!(held.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "a connection reached the holder"
    );
    assert_eq!(listening_on(port), 1);
}

#[test]
fn a_taken_port_is_refused_naming_it() {
    a_taken_port(false, "herd");
    a_taken_port(false, "blocking");
}

#[test]
fn a_taken_port_is_refused_with_reuseport_too_even_when_the_holder_has_so_reuseport() {
    a_taken_port(false, "reuseport");
    // the kernel would let this run's SO_REUSEPORT listeners join the holder's group
    a_taken_port(true, "reuseport");
}

#[test]
fn a_free_port_asked_for_is_used() {
    // a port that was free a moment ago (the kernel's pick, released)
    let port = holder(false).local_addr().unwrap().port();
    let p = port.to_string();
    let (code, out, err) = herdlab(&[
        "bench",
        "accept",
        "--strategy",
        "reuseport",
        "--workers",
        "2",
        "--connections",
        "4",
        "--rate",
        "1000",
        "--port",
        &p,
        "--json",
    ]);
    if err.contains("is taken") {
        println!("another program took port {port} in between: skipped");
        return;
    }
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["connections_accepted"], 4, "{out}");
    assert_eq!(listening_on(port), 0, "the bench's listeners are gone");
}

/// A listen backlog of 1, one blocking acceptor that serves each connection for 20 ms, and 8
/// connections at once: the accept queue (backlog + 1 on Linux) overflows, every time.
const OVERFLOWING: &[&str] = &[
    "bench",
    "accept",
    "--strategy",
    "blocking",
    "--workers",
    "1",
    "--backlog",
    "1",
    "--service-ns",
    "20000000",
    "--connections",
    "8",
    "--concurrency",
    "8",
    "--rate",
    "100000",
    "--arrival",
    "steady",
];

#[test]
fn a_listen_backlog_that_overflows_is_counted_and_named() {
    if netstat_unreadable() {
        return;
    }
    let mut args = OVERFLOWING.to_vec();
    args.push("--json");
    let (code, out, err) = herdlab(&args);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    println!("{out}");
    assert_eq!(v["backlog"], 1);
    let overflows = v["listen_overflows"].as_u64().expect("a count");
    assert!(overflows >= 1, "{out}");
    assert!(v["listen_drops"].as_u64().unwrap() >= 1, "{out}");
    // the overflowed connections were retried, and every one was served
    assert_eq!(v["connections_accepted"], 8, "{out}");
    assert_eq!(v["load"]["responses"], 8, "{out}");
    let (code, out, err) = herdlab(OVERFLOWING);
    assert_eq!(code, Some(0), "{err}");
    println!("{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("blocking: the listen queue overflowed "))
        .unwrap_or_else(|| panic!("no overflow line: {out}"));
    assert!(
        line.contains("times with a backlog of 1:") && line.contains("raise --backlog"),
        "{line}"
    );
    assert!(out.lines().next().unwrap().ends_with("overflows"), "{out}");
}

/// `/proc/net/netstat` has no listen counters here (it has them on Linux with procfs).
fn netstat_unreadable() -> bool {
    let no =
        !std::fs::read_to_string("/proc/net/netstat").is_ok_and(|t| t.contains("ListenOverflows"));
    if no {
        println!("/proc/net/netstat has no ListenOverflows here: skipped");
    }
    no
}

#[test]
fn a_backlog_above_somaxconn_is_said_with_the_effective_value() {
    let Some(max) = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .filter(|&m| m < 65535)
    else {
        println!("net.core.somaxconn is unreadable or 65535: nothing caps the backlog; skipped");
        return;
    };
    let (code, out, err) = herdlab(&[
        "bench",
        "accept",
        "--strategy",
        "herd",
        "--workers",
        "1",
        "--connections",
        "2",
        "--rate",
        "1000",
        "--backlog",
        "65535",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "herdlab: note: --backlog 65535 is capped by net.core.somaxconn \
             (/proc/sys/net/core/somaxconn): the listen backlog is {max}"
        )),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["backlog"], max);
}

#[test]
fn a_thread_limit_too_low_for_bench_accept_fails_naming_it_for_workers_and_clients() {
    let Some((prefix, _one)) = under_thread_limit(4) else {
        return;
    };
    for (args, what) in [
        ("--workers 8", "cannot start worker thread "),
        // the workers start; the load generator's clients cannot all start: fewer clients would
        // be another load, so the run fails rather than go on with them
        ("--workers 1 --concurrency 8", "cannot start client thread "),
    ] {
        let (code, out, err) = sh(
            &prefix,
            &format!("bench accept --quick --strategy herd {args}"),
        );
        assert_eq!(code, Some(1), "{args}: {err}");
        assert!(
            err.contains(&format!("herdlab: bench accept: herd: {what}")),
            "{args}: {err}"
        );
        assert!(
            err.contains("the thread limit (ulimit -u, this user's processes and threads) is 4"),
            "{args}: {err}"
        );
        assert_eq!(out, "", "{args}");
    }
}

#[test]
fn a_run_beyond_its_time_bound_is_refused_up_front_naming_it() {
    let t = Instant::now();
    let (code, out, err) = herdlab(&[
        "bench",
        "accept",
        "--connections",
        "1000",
        "--rate",
        "1",
        "--arrival",
        "steady",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with(
            "herdlab: --time-limit: 1000 connections at 1/s (steady arrivals) arrive over \
             1000.0 s, more than the time limit of 60 s; allowed: a schedule within it: about 60 \
             connections at this rate, a --rate of at least 17 (the longest --time-limit, 600 s, \
             is too short)"
        ),
        "{err}"
    );
    assert_eq!(out, "");
    println!("refused after {:?}", t.elapsed());
}
