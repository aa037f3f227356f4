//! `clock_nanosleep(2)` on `CLOCK_MONOTONIC`: what `Op::Sleep` runs on. The deadline is taken
//! once and the call made absolute (`TIMER_ABSTIME`), so a sleep a signal interrupts (`EINTR`)
//! resumes to the same deadline rather than sleeping its whole length again.

use crate::platform::NativeError;

/// Sleep `ns` nanoseconds (0 still enters the kernel once, as `nanosleep` with a zero time does).
#[cfg(target_os = "linux")]
pub fn sleep_ns(ns: u64) -> Result<(), NativeError> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec on this stack frame; CLOCK_MONOTONIC exists on
    // every Linux.
    if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) } != 0 {
        return Err(NativeError::new(format!(
            "clock_gettime(CLOCK_MONOTONIC) failed: {}",
            std::io::Error::last_os_error()
        )));
    }
    let total = now.tv_nsec as u64 + ns % 1_000_000_000;
    let deadline = libc::timespec {
        tv_sec: now.tv_sec + (ns / 1_000_000_000 + total / 1_000_000_000) as libc::time_t,
        tv_nsec: (total % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: `deadline` is a valid timespec on this stack frame for the whole call; with
        // TIMER_ABSTIME the remaining-time argument is unused, so null is allowed.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &deadline,
                std::ptr::null_mut(),
            )
        };
        match r {
            0 => return Ok(()),
            libc::EINTR => continue,
            e => {
                return Err(NativeError::new(format!(
                    "clock_nanosleep failed: {}",
                    std::io::Error::from_raw_os_error(e)
                )))
            }
        }
    }
}

/// Sleep `ns` nanoseconds (`std::thread::sleep`, which is `nanosleep` on other Unixes).
#[cfg(not(target_os = "linux"))]
pub fn sleep_ns(ns: u64) -> Result<(), NativeError> {
    std::thread::sleep(std::time::Duration::from_nanos(ns));
    Ok(())
}

/// The median wall time of `n` sleeps of `ns` nanoseconds ([`sleep_ns`] each, timed from the
/// call to its return): what a short sleep really takes here, timer slack and the wake from
/// idle included (a 3 µs sleep: about 74 µs on the 2-vCPU guest).
pub fn sleep_median_ns(ns: u64, n: usize) -> Result<u64, NativeError> {
    let mut took = Vec::with_capacity(n.max(1));
    for _ in 0..n.max(1) {
        let t = std::time::Instant::now();
        sleep_ns(ns)?;
        took.push(t.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64);
    }
    took.sort_unstable();
    Ok(took[took.len() / 2])
}

/// This thread's timer slack, ns: how late Linux may fire its timed sleeps so that wakeups
/// batch (`prctl(PR_GET_TIMERSLACK)`; 50,000 for a normal thread unless something set it; a
/// thread starts with its creator's). A sleep of 3 µs then takes about 53 µs and a wake from
/// idle. None off Linux, or if the call fails.
#[cfg(target_os = "linux")]
pub fn timer_slack_ns() -> Option<u64> {
    // SAFETY: PR_GET_TIMERSLACK reads this thread's slack and takes no pointer; the unused
    // arguments are zero as prctl(2) asks.
    let r = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    u64::try_from(r).ok()
}

/// This thread's timer slack: none off Linux.
#[cfg(not(target_os = "linux"))]
pub fn timer_slack_ns() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::sleep_ns;

    /// A thread's slack is what prctl(2) gives it: readable, and within what the bench's
    /// `--timer-slack-ns` allows (50 µs unless the test runner changed it).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_timer_slack_reads() {
        let ns = super::timer_slack_ns().expect("prctl(PR_GET_TIMERSLACK)");
        assert!(ns <= 10_000_000, "{ns} ns of slack");
    }
    use std::time::Instant;

    /// The median of short sleeps is at least the sleep asked for (never shorter, whatever the
    /// slack).
    #[test]
    fn a_short_sleeps_median_is_at_least_its_time() {
        let m = super::sleep_median_ns(3_000, 5).unwrap();
        assert!(m >= 3_000, "{m} ns");
    }

    #[test]
    fn sleeps_at_least_its_time() {
        let t = Instant::now();
        sleep_ns(2_000_000).unwrap();
        // a lower bound only: a loaded machine may sleep longer, never shorter
        assert!(t.elapsed().as_nanos() >= 2_000_000);
        sleep_ns(0).unwrap();
    }
}
