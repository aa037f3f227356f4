//! Which kernel this is, for the simulator's side of a comparison: Linux's fair scheduler has
//! been EEVDF since 6.6, CFS before.
//!
//! ```
//! use herdlab_bench::platform::kernel::{policy_for, release_of};
//! use herdlab_core::sim::SchedPolicy;
//! assert_eq!(release_of("6.18.44-fc-v1272"), Some((6, 18)));
//! assert_eq!(policy_for(Some((6, 18))), SchedPolicy::Eevdf);
//! assert_eq!(policy_for(Some((6, 5))), SchedPolicy::Fair);
//! assert_eq!(policy_for(None), SchedPolicy::Fair);
//! ```

use herdlab_core::sim::SchedPolicy;

/// The major and minor version of a kernel release string (`6.18.44-generic` → `(6, 18)`).
pub fn release_of(s: &str) -> Option<(u32, u32)> {
    let mut parts = s.trim().split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// This machine's kernel release (`/proc/sys/kernel/osrelease`), if it is Linux.
pub fn release() -> Option<(u32, u32)> {
    release_of(&std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?)
}

/// The simulator's policy that models a kernel of this release: [`SchedPolicy::Eevdf`] from
/// Linux 6.6 on, [`SchedPolicy::Fair`] (CFS-like) before it or when the release is unknown.
pub fn policy_for(release: Option<(u32, u32)>) -> SchedPolicy {
    match release {
        Some(r) if r >= (6, 6) => SchedPolicy::Eevdf,
        _ => SchedPolicy::Fair,
    }
}
