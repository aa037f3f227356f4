//! CPU affinity (`sched_getaffinity(2)`, `sched_setaffinity(2)`): a benchmark's load generator on
//! CPUs set apart from the ones its server runs on.
//!
//! Linux shares a CPU between runnable *threads*, not processes. A load generator of two client
//! threads sharing two CPUs with a server of 1,024 threads gets a sliver of them: its clients
//! send late, fewer queries are in flight, and the server's latency looks better than it is,
//! while the same clients beside a 3-thread pool get more than half of the machine. A
//! benchmark that compares the two must keep its clients off the server's CPUs, as a load
//! generator on another machine would be ([`Split`]).
//!
//! A thread created by `pthread_create` starts with its creator's mask, so pinning the thread
//! that spawns another pins the new one too: [`Pinned`] pins the calling thread and puts its
//! old mask back when dropped (on every exit path).
//!
//! Generic: names no mechanism.

use crate::platform::NativeError;

/// The CPUs the calling thread may run on, in order (its affinity mask).
pub fn allowed() -> Result<Vec<usize>, NativeError> {
    // SAFETY: an all-zero `cpu_set_t` is a valid empty set (a plain bit array).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable `cpu_set_t` of the size passed; pid 0 is the caller.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r != 0 {
        return Err(NativeError(format!(
            "sched_getaffinity: {}",
            std::io::Error::last_os_error()
        )));
    }
    let n = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `CPU_ISSET` reads bit `i` of `set`, which holds `n` bits.
    Ok((0..n)
        .filter(|&i| unsafe { libc::CPU_ISSET(i, &set) })
        .collect())
}

/// Restrict the calling thread to `cpus` (threads it creates afterwards start with the same mask).
pub fn pin(cpus: &[usize]) -> Result<(), NativeError> {
    // SAFETY: an all-zero `cpu_set_t` is a valid empty set (a plain bit array).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let n = 8 * std::mem::size_of::<libc::cpu_set_t>();
    for &c in cpus {
        if c >= n {
            return Err(NativeError(format!(
                "CPU {c} is beyond the {n} a cpu_set_t holds"
            )));
        }
        // SAFETY: `c < n`, a bit of `set`.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid `cpu_set_t` of the size passed; pid 0 is the calling thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r != 0 {
        return Err(NativeError(format!(
            "sched_setaffinity to CPUs {}: {}",
            shown(cpus),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// The calling thread pinned to some CPUs until dropped, when its mask before becomes its mask
/// again.
#[must_use = "the thread's old mask comes back when this is dropped"]
pub struct Pinned {
    before: Vec<usize>,
}

impl Pinned {
    /// Pin the calling thread to `cpus`.
    pub fn to(cpus: &[usize]) -> Result<Self, NativeError> {
        let before = allowed()?;
        pin(cpus)?;
        Ok(Pinned { before })
    }

    /// Move the calling thread (still pinned) to `cpus`.
    pub fn repin(&self, cpus: &[usize]) -> Result<(), NativeError> {
        pin(cpus)
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // (a mask the thread had a moment ago: only a CPU gone offline meanwhile refuses it)
        let _ = pin(&self.before);
    }
}

/// The process's CPUs split between a server and its load generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The server's CPUs (the first of the allowed ones).
    pub server: Vec<usize>,
    /// The load generator's (and the harness's) CPUs: the last `clients` allowed ones.
    pub clients: Vec<usize>,
}

impl Split {
    /// Set the last `clients` of `allowed` apart for the load generator; `None` when `clients`
    /// is 0 (everything shares every CPU). An error when the server would be left no CPU.
    pub fn of(allowed: &[usize], clients: usize) -> Result<Option<Split>, String> {
        if clients == 0 {
            return Ok(None);
        }
        if clients >= allowed.len() {
            return Err(format!(
                "{clients} CPUs for the clients would leave the server none: this process may \
                 run on {} CPUs ({}); allowed: 0 (clients and server share them){}",
                allowed.len(),
                shown(allowed),
                if allowed.len() > 1 {
                    format!(" to {}", allowed.len() - 1)
                } else {
                    String::new()
                }
            ));
        }
        let cut = allowed.len() - clients;
        Ok(Some(Split {
            server: allowed[..cut].to_vec(),
            clients: allowed[cut..].to_vec(),
        }))
    }

    /// The default: the clients' threads (`client_threads`) on CPUs of their own, one each,
    /// while at least half the CPUs stay the server's; on 2 or 3 CPUs one CPU for them; on 1
    /// CPU none (they share it).
    pub fn default_clients(cpus: usize, client_threads: usize) -> usize {
        match cpus {
            0 | 1 => 0,
            2 | 3 => 1,
            n => client_threads.clamp(1, n / 2),
        }
    }
}

/// CPUs as `taskset -c` lists them: `0-3,6`.
pub fn shown(cpus: &[usize]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}-{}", cpus[i], cpus[j])
        } else {
            cpus[i].to_string()
        });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_takes_the_last_cpus_for_the_clients() {
        let s = Split::of(&[0, 1, 2, 3], 2).unwrap().unwrap();
        assert_eq!((s.server, s.clients), (vec![0, 1], vec![2, 3]));
        assert_eq!(Split::of(&[0, 1], 0), Ok(None));
    }

    #[test]
    fn split_refuses_to_leave_the_server_no_cpu() {
        let e = Split::of(&[0, 1], 2).unwrap_err();
        assert!(
            e.contains("allowed: 0 (clients and server share them) to 1"),
            "{e}"
        );
        assert!(e.contains("2 CPUs (0-1)"), "{e}");
        let e = Split::of(&[3], 1).unwrap_err();
        assert!(
            e.ends_with("allowed: 0 (clients and server share them)"),
            "{e}"
        );
    }

    #[test]
    fn default_clients_keep_half_the_cpus_for_the_server() {
        let d: Vec<usize> = [1, 2, 3, 4, 5, 16]
            .map(|n| Split::default_clients(n, 2))
            .into();
        assert_eq!(d, [0, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn cpus_shown_as_ranges() {
        assert_eq!(shown(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(shown(&[5]), "5");
    }

    #[test]
    fn pinned_puts_the_old_mask_back() {
        // on a thread of its own: the test harness's threads keep their masks
        std::thread::spawn(|| {
            let before = allowed().unwrap();
            let first = before[0];
            {
                let _p = Pinned::to(&[first]).unwrap();
                assert_eq!(allowed().unwrap(), vec![first]);
                // a thread spawned now starts with the pinned mask
                let child = std::thread::spawn(|| allowed().unwrap()).join().unwrap();
                assert_eq!(child, vec![first]);
            }
            assert_eq!(allowed().unwrap(), before);
        })
        .join()
        .unwrap();
    }
}
