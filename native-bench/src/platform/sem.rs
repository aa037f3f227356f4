//! Process-private POSIX semaphores (`sem_init`, `sem_trywait`, `sem_timedwait`, `sem_post`):
//! what `Op::SemWait` and `Op::SemPost` run on in the lock world.

#[cfg(target_os = "linux")]
mod imp {
    use crate::platform::NativeError;
    use std::cell::UnsafeCell;
    use std::mem::MaybeUninit;
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    pub enum SemOutcome {
        /// `sem_trywait` took a unit.
        Took,
        /// The count was 0: `sem_timedwait` slept (or found a unit posted meanwhile) and took one.
        Slept,
        TimedOut,
    }

    /// A process-private POSIX semaphore. It is initialised in place ([`Sem::init`]) once it sits
    /// where it will stay (the world's heap block), because a `sem_t` must not be moved or copied
    /// after `sem_init`.
    pub struct Sem {
        sem: UnsafeCell<MaybeUninit<libc::sem_t>>,
        live: bool,
    }

    // SAFETY: a sem_t is made to be used by many threads at once through a pointer (sem_wait,
    // sem_post and sem_getvalue are thread-safe); the Rust side only ever hands out that pointer,
    // and `live` is written only through `&mut self` (init) before the Sem is shared.
    unsafe impl Sync for Sem {}
    // SAFETY: a process-private sem_t is not tied to the thread that initialised it.
    unsafe impl Send for Sem {}

    impl core::fmt::Debug for Sem {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("Sem")
                .field("live", &self.live)
                .field("value", &self.value())
                .finish()
        }
    }

    fn errno_msg(e: &std::io::Error) -> String {
        format!("{}: {e}", e.raw_os_error().unwrap_or(0))
    }

    impl Sem {
        pub fn new() -> Self {
            Sem {
                sem: UnsafeCell::new(MaybeUninit::uninit()),
                live: false,
            }
        }

        fn ptr(&self) -> *mut libc::sem_t {
            self.sem.get().cast()
        }

        /// `sem_init(sem, 0, 0)`: shared between the threads of this process, count 0.
        pub fn init(&mut self) -> Result<(), NativeError> {
            // SAFETY: `ptr()` points to sem_t-sized, aligned storage owned by `self`, which the
            // caller does not move afterwards; it is not yet initialised (`live` is false), so no
            // thread can be using it; pshared = 0 and value = 0 are valid arguments.
            let r = unsafe { libc::sem_init(self.ptr(), 0, 0) };
            if r != 0 {
                let e = std::io::Error::last_os_error();
                return Err(NativeError::new(format!(
                    "sem_init() failed ({})",
                    errno_msg(&e)
                )));
            }
            self.live = true;
            Ok(())
        }

        pub fn wait(&self, timeout: Duration) -> Result<SemOutcome, NativeError> {
            debug_assert!(self.live);
            // SAFETY: the semaphore was initialised by init (worlds only hold initialised ones)
            // and is not destroyed while `&self` is borrowed.
            if unsafe { libc::sem_trywait(self.ptr()) } == 0 {
                return Ok(SemOutcome::Took);
            }
            let e = std::io::Error::last_os_error();
            if !matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EINTR)) {
                return Err(NativeError::new(format!(
                    "sem_trywait() failed ({})",
                    errno_msg(&e)
                )));
            }
            let start = Instant::now();
            loop {
                let left = timeout.saturating_sub(start.elapsed());
                if left.is_zero() {
                    return Ok(SemOutcome::TimedOut);
                }
                // sem_timedwait takes an absolute CLOCK_REALTIME deadline; a clock step only makes
                // it return early with ETIMEDOUT, which the monotonic check above then retries
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default();
                let at = now + left;
                let ts = libc::timespec {
                    tv_sec: at.as_secs() as libc::time_t,
                    tv_nsec: at.subsec_nanos() as libc::c_long,
                };
                // SAFETY: as above for the semaphore; `ts` is a valid timespec on this stack frame
                // for the duration of the call.
                let r = unsafe { libc::sem_timedwait(self.ptr(), &ts) };
                if r == 0 {
                    return Ok(SemOutcome::Slept);
                }
                let e = std::io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) | Some(libc::ETIMEDOUT) => continue,
                    _ => {
                        return Err(NativeError::new(format!(
                            "sem_timedwait() failed ({})",
                            errno_msg(&e)
                        )))
                    }
                }
            }
        }

        pub fn post(&self) -> Result<(), NativeError> {
            debug_assert!(self.live);
            // SAFETY: the semaphore was initialised and is not destroyed while `&self` is borrowed.
            if unsafe { libc::sem_post(self.ptr()) } == 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            // nginx logs the same failure as "sem_post() failed while wake shmtx"
            Err(NativeError::new(format!(
                "sem_post() failed while wake shmtx ({})",
                errno_msg(&e)
            )))
        }

        pub fn value(&self) -> Option<i32> {
            if !self.live {
                return None;
            }
            let mut v: libc::c_int = 0;
            // SAFETY: the semaphore is initialised (`live`); `v` is a valid int to write to.
            let r = unsafe { libc::sem_getvalue(self.ptr(), &mut v) };
            (r == 0).then_some(v)
        }
    }

    impl Drop for Sem {
        fn drop(&mut self) {
            if self.live {
                // SAFETY: initialised and, with `&mut self`, used by no thread any more (nobody can
                // be blocked in it: every waiter borrows the world, and the borrow has ended).
                unsafe {
                    libc::sem_destroy(self.ptr());
                }
                self.live = false;
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use crate::platform::NativeError;
    use std::time::Duration;

    fn unsupported() -> NativeError {
        crate::platform::supported().unwrap_err()
    }

    #[allow(dead_code)] // the same shape as on Linux; never made here
    pub enum SemOutcome {
        Took,
        Slept,
        TimedOut,
    }

    /// No semaphores off Linux: making one fails.
    #[derive(Debug)]
    pub struct Sem;

    impl Sem {
        pub fn new() -> Self {
            Sem
        }
        pub fn init(&mut self) -> Result<(), NativeError> {
            Err(unsupported())
        }
        pub fn wait(&self, _: Duration) -> Result<SemOutcome, NativeError> {
            Err(unsupported())
        }
        pub fn post(&self) -> Result<(), NativeError> {
            Err(unsupported())
        }
        pub fn value(&self) -> Option<i32> {
            None
        }
    }
}

pub use imp::{Sem, SemOutcome};
