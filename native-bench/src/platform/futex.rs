//! `futex(2)` (`FUTEX_WAIT_PRIVATE`, `FUTEX_WAKE_PRIVATE`) on a world's words: what
//! `Op::FutexWait` and `Op::FutexWake` run on in the lock world.

#[cfg(target_os = "linux")]
mod imp {
    use crate::platform::NativeError;
    use std::sync::atomic::AtomicU32;
    use std::time::Duration;

    pub enum WaitOutcome {
        Woken,
        Mismatch,
        Interrupted,
        TimedOut,
    }

    pub fn futex_wait(
        word: &AtomicU32,
        expected: u32,
        timeout: Duration,
    ) -> Result<WaitOutcome, NativeError> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: `word` is a live, 4-byte-aligned AtomicU32 borrowed for the whole call, so its
        // address is valid and FUTEX_WAIT only reads it atomically; `ts` is a valid timespec on
        // this stack frame for the duration of the call (a relative timeout); FUTEX_WAIT ignores
        // uaddr2 and val3, passed as null and 0.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                expected,
                &ts as *const libc::timespec,
                std::ptr::null::<u32>(),
                0u32,
            )
        };
        if r == 0 {
            return Ok(WaitOutcome::Woken);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) => Ok(WaitOutcome::Mismatch),
            Some(libc::EINTR) => Ok(WaitOutcome::Interrupted),
            Some(libc::ETIMEDOUT) => Ok(WaitOutcome::TimedOut),
            _ => Err(NativeError::new(format!(
                "futex(FUTEX_WAIT_PRIVATE) failed: {e}"
            ))),
        }
    }

    pub fn futex_wake(word: &AtomicU32, n: i32) -> Result<u32, NativeError> {
        // SAFETY: `word` is a live, aligned AtomicU32 borrowed for the call; FUTEX_WAKE only uses
        // its address as the key of the wait queue and ignores timeout, uaddr2 and val3 (null/0).
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                n,
                std::ptr::null::<libc::timespec>(),
                std::ptr::null::<u32>(),
                0u32,
            )
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            Err(NativeError::new(format!(
                "futex(FUTEX_WAKE_PRIVATE) failed: {e}"
            )))
        } else {
            Ok(r as u32)
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use crate::platform::NativeError;
    use std::sync::atomic::AtomicU32;
    use std::time::Duration;

    fn unsupported() -> NativeError {
        crate::platform::supported().unwrap_err()
    }

    #[allow(dead_code)] // the same shape as on Linux; never made here
    pub enum WaitOutcome {
        Woken,
        Mismatch,
        Interrupted,
        TimedOut,
    }

    pub fn futex_wait(_: &AtomicU32, _: u32, _: Duration) -> Result<WaitOutcome, NativeError> {
        Err(unsupported())
    }

    pub fn futex_wake(_: &AtomicU32, _: i32) -> Result<u32, NativeError> {
        Err(unsupported())
    }
}

pub use imp::{futex_wait, futex_wake, WaitOutcome};
