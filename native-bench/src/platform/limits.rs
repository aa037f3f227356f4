//! The machine's limits a benchmark can run into, and what to say when it does: a failure whose
//! system error is "too many open files" (EMFILE: the process's `ulimit -n`; ENFILE: the system's
//! table), "resource temporarily unavailable" when starting a thread (the `ulimit -u` thread
//! limit) or "address in use" gets a hint naming the limit, its value and how to raise it
//! ([`hint`], added by [`super::NativeError`]'s `Display`).
//!
//! Generic: names no mechanism.

/// A `getrlimit` result as `(soft, hard)`, `None` for unlimited or unknown.
fn pair(rc: libc::c_int, r: libc::rlimit) -> (Option<u64>, Option<u64>) {
    if rc != 0 {
        return (None, None);
    }
    // rlim_t is u64 on Linux, not on every target
    #[allow(clippy::unnecessary_cast)]
    let v = |x: libc::rlim_t| (x != libc::RLIM_INFINITY).then_some(x as u64);
    (v(r.rlim_cur), v(r.rlim_max))
}

const NO_LIMIT: libc::rlimit = libc::rlimit {
    rlim_cur: 0,
    rlim_max: 0,
};

/// The open-file limit (`ulimit -n`): `(soft, hard)`.
pub fn open_files() -> (Option<u64>, Option<u64>) {
    let mut r = NO_LIMIT;
    // SAFETY: `r` is a valid, writable `rlimit` for the duration of the call.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) };
    pair(rc, r)
}

/// The thread limit (`ulimit -u`, processes and threads of this user): `(soft, hard)`.
pub fn threads() -> (Option<u64>, Option<u64>) {
    let mut r = NO_LIMIT;
    // SAFETY: `r` is a valid, writable `rlimit` for the duration of the call.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut r) };
    pair(rc, r)
}

/// `the open-file limit (ulimit -n) is <soft> (hard limit <hard>): ...` and how to raise it to
/// `want`: with `ulimit -n` up to the hard limit, else the hard limit first (as root).
pub fn open_files_advice(soft: u64, hard: Option<u64>, want: u64) -> String {
    advice(
        "the open-file limit (ulimit -n)",
        ("-n", "nofile"),
        soft,
        hard,
        want,
        "connections",
    )
}

/// `<what> is <soft> (hard limit <hard>): ...` and how to raise it to `want` with `ulimit <flag>`
/// up to the hard limit, else the hard limit first (as root), or to ask for `fewer` of something.
fn advice(
    what: &str,
    (flag, prlimit): (&str, &str),
    soft: u64,
    hard: Option<u64>,
    want: u64,
    fewer: &str,
) -> String {
    let head = format!("{what} is {soft} (hard limit {})", show(hard));
    match hard {
        Some(h) if h <= soft => format!(
            "{head}: the hard limit must rise first, as root (`ulimit -H{} {want}`, \
             `prlimit --{prlimit}={want}:{want} --pid $$`, or /etc/security/limits.conf), or ask \
             for fewer {fewer}",
            &flag[1..]
        ),
        Some(h) => format!(
            "{head}: raise it, e.g. `ulimit {flag} {}` in this shell, or ask for fewer {fewer}",
            want.min(h)
        ),
        None => format!(
            "{head}: raise it, e.g. `ulimit {flag} {want}` in this shell, or ask for fewer {fewer}"
        ),
    }
}

fn show(v: Option<u64>) -> String {
    v.map_or_else(|| "unlimited".to_string(), |n| n.to_string())
}

/// What limit a failure's message (`... (os error N)`) ran into and how to raise it, if it is one
/// of the limits this module knows.
pub fn hint(message: &str) -> Option<String> {
    let os = |n: i32| message.contains(&format!("(os error {n})"));
    if os(libc::EMFILE) {
        let (soft, hard) = open_files();
        let soft = soft.unwrap_or(u64::MAX);
        let want = soft.saturating_mul(4).max(4096);
        return Some(format!(
            "every connection takes a descriptor on each side, and {}",
            open_files_advice(soft, hard, want)
        ));
    }
    if os(libc::ENFILE) {
        return Some(
            "the system's table of open files is full (fs.file-max, /proc/sys/fs/file-max): close \
             other programs, raise it with `sysctl fs.file-max=N` as root, or ask for fewer \
             connections"
                .to_string(),
        );
    }
    if os(libc::EAGAIN) && message.contains("thread") {
        let (soft, hard) = threads();
        let soft = soft.unwrap_or(u64::MAX);
        return Some(advice(
            "the thread limit (ulimit -u, this user's processes and threads)",
            ("-u", "nproc"),
            soft,
            hard,
            soft.saturating_mul(4).max(4096),
            "threads",
        ));
    }
    if os(libc::EADDRINUSE) {
        return Some(
            "the address is taken (another program listens on it, or sockets of an earlier run \
             are in TIME_WAIT): wait a minute or stop the other program"
                .to_string(),
        );
    }
    None
}

/// Spawn `threads` threads that all exist at once, then let them end and join them: the error of
/// the first that cannot start (every one started before it is joined first).
pub fn probe_threads(threads: u32) -> Result<(), (u32, std::io::Error)> {
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = std::sync::Arc::new(std::sync::Mutex::new(gate));
    let mut hs = Vec::with_capacity(threads as usize);
    let mut failed = None;
    for i in 0..threads {
        let gate = gate.clone();
        // each waits until the sender is dropped (recv fails), then ends
        match std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || drop(gate.lock().map(|g| g.recv())))
        {
            Ok(h) => hs.push(h),
            Err(e) => {
                failed = Some((i, e));
                break;
            }
        }
    }
    drop(release);
    for h in hs {
        let _ = h.join();
    }
    failed.map_or(Ok(()), Err)
}

/// The OS error in a panic message of `unwrap` on an `io::Error` (`... Os { code: 11, ... }`).
pub fn os_error_of(panic: &str) -> Option<std::io::Error> {
    let rest = &panic[panic.find("Os { code: ")? + "Os { code: ".len()..];
    let code = rest[..rest.find(|c: char| !c.is_ascii_digit())?]
        .parse()
        .ok()?;
    Some(std::io::Error::from_raw_os_error(code))
}

/// Run `start` (a library's constructor that panics inside the library when the OS refuses it a
/// thread, such as tokio's runtime builder or `threadpool::ThreadPool::new`) with its panic caught
/// and the panic hook silenced meanwhile: the panic's text, with its OS error as `Display` writes
/// it (`... (os error 11)`, which [`hint`] reads), when it panicked.
pub fn catch_start<T>(start: impl FnOnce() -> T) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(start));
    std::panic::set_hook(hook);
    made.map_err(|payload| {
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        os_error_of(text).map_or_else(|| text.to_string(), |e| e.to_string())
    })
}

/// Run `start` (a library's constructor that panics inside the library when the OS refuses it a
/// thread, and whose half-built state then never unwinds: tokio's runtime builder waits forever
/// for its blocking pool) with a panic hook that ends the process instead: it prints `herdlab:
/// <context>: <the panic's text>` (with the limit's hint), writes `--trace` and `--svg` marked
/// as failed, and exits 1, before any unwinding starts.
pub fn exit_on_panic<T>(context: &str, start: impl FnOnce() -> T) -> T {
    let context = context.to_string();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        let text = os_error_of(text).map_or_else(|| text.to_string(), |e| e.to_string());
        eprintln!(
            "herdlab: {}",
            super::NativeError::new(format!("{context}: {text}"))
        );
        let failed = Some("the benchmark failed");
        for r in [crate::trace::finish(failed), crate::charts::finish(failed)] {
            if let Err(e) = r {
                eprintln!("herdlab: {e}");
            }
        }
        std::process::exit(1);
    }));
    let made = start();
    std::panic::set_hook(hook);
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_is_named_with_its_value_and_how_to_raise_it() {
        let h = hint("accept4 on listener 0: Too many open files (os error 24)").unwrap();
        let (soft, _) = open_files();
        assert!(
            h.contains(&format!(
                "the open-file limit (ulimit -n) is {}",
                show(soft)
            )),
            "{h}"
        );
        assert!(h.contains("ulimit -"), "{h}");
        assert_eq!(
            open_files_advice(64, Some(1024), 256),
            "the open-file limit (ulimit -n) is 64 (hard limit 1024): raise it, e.g. \
             `ulimit -n 256` in this shell, or ask for fewer connections"
        );
        assert_eq!(
            open_files_advice(64, Some(64), 256),
            "the open-file limit (ulimit -n) is 64 (hard limit 64): the hard limit must rise \
             first, as root (`ulimit -Hn 256`, `prlimit --nofile=256:256 --pid $$`, or \
             /etc/security/limits.conf), or ask for fewer connections"
        );
        let h = hint("socket(): Too many open files in system (os error 23)").unwrap();
        assert!(h.contains("fs.file-max"), "{h}");
        let h =
            hint("cannot start thread 3: Resource temporarily unavailable (os error 11)").unwrap();
        assert!(h.contains("ulimit -u"), "{h}");
        assert!(
            hint("bind(127.0.0.1:0): Address already in use (os error 98)")
                .unwrap()
                .contains("taken")
        );
        // a would-block that is not about a thread, and other errors: no hint
        assert_eq!(
            hint("read: Resource temporarily unavailable (os error 11)"),
            None
        );
        assert_eq!(hint("connection reset (os error 104)"), None);
    }
}
