//! The lock playground's parameter form (controls=full): its fields, read and written with core's
//! `set_lock_param` and checked with `validate_locks`.

use crate::live::form::{Field, FieldKind, Hint};

/// `LockKind::name` of every lock, in `LockKind::ALL` order (a test holds them equal).
pub const LOCK_NAMES: [&str; 5] = ["shmtx", "ttas", "spin-yield", "ticket", "futex"];
/// `ShmtxVariant::name` of every variant, in `ShmtxVariant::ALL` order (a test holds them equal).
pub const VARIANT_NAMES: [&str; 6] = [
    "correct",
    "no-wait-decrement",
    "announce-after-check",
    "unlock-reads-wait-first",
    "plain-load-store",
    "seed-listing",
];

/// The lock form's fields, in display order (`input-<key>` / `select-<key>`).
pub const LOCK_FIELDS: [Field; 12] = [
    Field {
        key: "lock",
        label: "lock",
        kind: FieldKind::Choice(&LOCK_NAMES),
        hint: None,
    },
    Field {
        key: "variant",
        label: "variant (shmtx)",
        kind: FieldKind::Choice(&VARIANT_NAMES),
        hint: Some(Hint(variant_story)),
    },
    Field {
        key: "threads",
        label: "threads",
        kind: FieldKind::Number("1-16"),
        hint: None,
    },
    Field {
        key: "rounds",
        label: "rounds",
        kind: FieldKind::Number("1-1000000"),
        hint: None,
    },
    Field {
        key: "cpus",
        label: "CPUs",
        kind: FieldKind::Number("1-16"),
        hint: None,
    },
    Field {
        key: "spin",
        label: "spin (shmtx)",
        kind: FieldKind::Number("1-65536"),
        hint: None,
    },
    Field {
        key: "semaphore",
        label: "semaphore (shmtx)",
        kind: FieldKind::Choice(&["on", "off"]),
        hint: None,
    },
    Field {
        key: "yield",
        label: "yield after (spin-yield)",
        kind: FieldKind::Number("1-65536"),
        hint: None,
    },
    Field {
        key: "cs",
        label: "critical section (ns)",
        kind: FieldKind::Number("0-10000000"),
        hint: None,
    },
    Field {
        key: "crash",
        label: "thread 0 dies holding the lock (shmtx)",
        kind: FieldKind::Choice(&["off", "on"]),
        hint: None,
    },
    Field {
        key: "master",
        label: "master force-unlocks (with crash)",
        kind: FieldKind::Choice(&["on", "off"]),
        hint: None,
    },
    Field {
        key: "seed",
        label: "seed",
        kind: FieldKind::Number("0-18446744073709551615"),
        hint: None,
    },
];

/// The story of `ngx_shmtx` variant `value` (core's `ShmtxVariant::story`; empty for an unknown
/// one).
pub fn variant_story(value: &str) -> &'static str {
    herdlab_core::mechanisms::locks::shmtx::ShmtxVariant::from_name(value)
        .map(|v| v.story())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::form::FormState;
    use herdlab_core::mechanism::Mechanism;
    use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
    use herdlab_core::mechanisms::locks::LockKind;
    use herdlab_core::mechanisms::locks::LockParams;
    use herdlab_core::mechanisms::locks::Locks;
    use herdlab_core::scenario::LOCK_KEYS;

    #[test]
    fn names_match_core() {
        assert_eq!(LOCK_NAMES, LockKind::ALL.map(LockKind::name));
        assert_eq!(VARIANT_NAMES, ShmtxVariant::ALL.map(ShmtxVariant::name));
        let keys: Vec<&str> = LOCK_FIELDS.iter().map(|f| f.key).collect();
        assert_eq!(keys, LOCK_KEYS);
    }

    #[test]
    fn lock_form_refuses_and_retries() {
        let good = LockParams::default();
        let mut f = FormState::of::<Locks>(&good);
        assert_eq!(f.raw[0], "shmtx");
        assert_eq!(f.edit::<Locks>("threads", "17", &good), None);
        assert!(f
            .error_of::<Locks>("threads")
            .unwrap_or_default()
            .contains("1-16"));
        let p = f.edit::<Locks>("threads", "3", &good).expect("valid");
        assert_eq!(p.threads, 3);
        let p2 = f
            .edit::<Locks>("variant", "seed-listing", &p)
            .expect("valid");
        assert_eq!(p2.variant, ShmtxVariant::SeedListing);
        // ttas takes no shmtx variant: refused until the variant goes back to correct
        assert_eq!(f.edit::<Locks>("lock", "ttas", &p2), None);
        assert!(f
            .error_of::<Locks>("lock")
            .unwrap_or_default()
            .contains("variant"));
        let p3 = f
            .edit::<Locks>("variant", "correct", &p2)
            .expect("both valid now");
        assert_eq!(p3.lock, LockKind::Ttas);
        assert_eq!(p3.variant, ShmtxVariant::Correct);
        assert_eq!(
            Hint(variant_story).text("announce-after-check"),
            ShmtxVariant::AnnounceAfterCheck.story()
        );
        assert_eq!(Locks::get(&p3, "semaphore").as_deref(), Some("on"));
    }
}
