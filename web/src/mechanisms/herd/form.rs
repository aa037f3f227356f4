//! The herd's parameter form: its fields, in display order, over core's setter and validation.

use herdlab_core::mechanisms::herd::{Primitive, Variant, WakeMode};
use herdlab_core::sim::arrivals::ArrivalPattern;

use crate::live::form::{Field, FieldKind};

/// The herd form's fields, in display order.
pub const HERD_FIELDS: [Field; 11] = [
    Field {
        key: "workers",
        label: "workers",
        kind: FieldKind::Number("1-64"),
        hint: None,
    },
    Field {
        key: "cpus",
        label: "CPUs",
        kind: FieldKind::Number("1-16"),
        hint: None,
    },
    Field {
        key: "mode",
        label: "mode",
        kind: FieldKind::Choice(&WakeMode::NAMES),
        hint: None,
    },
    Field {
        key: "arrival",
        label: "arrival",
        kind: FieldKind::Choice(&ArrivalPattern::NAMES),
        hint: None,
    },
    Field {
        key: "burst",
        label: "burst",
        kind: FieldKind::Number("1-1024"),
        hint: None,
    },
    Field {
        key: "rate",
        label: "rate (per s)",
        kind: FieldKind::Number("1-10000000"),
        hint: None,
    },
    Field {
        key: "connections",
        label: "connections",
        kind: FieldKind::Number("1-1000000"),
        hint: None,
    },
    Field {
        key: "service",
        label: "service (ns)",
        kind: FieldKind::Number("0-100000000"),
        hint: None,
    },
    Field {
        key: "seed",
        label: "seed",
        kind: FieldKind::Number("0-18446744073709551615"),
        hint: None,
    },
    Field {
        key: "variant",
        label: "variant",
        kind: FieldKind::Choice(&Variant::NAMES),
        hint: None,
    },
    Field {
        key: "primitive",
        label: "primitive",
        kind: FieldKind::Choice(&Primitive::NAMES),
        hint: None,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::form::FormState;
    use herdlab_core::mechanisms::herd::{Herd, HerdParams};

    #[test]
    fn refuses_and_keeps_last_good() {
        let good = HerdParams::default();
        let mut f = FormState::of::<Herd>(&good);
        assert_eq!(f.edit::<Herd>("workers", "999", &good), None);
        let e = f.errors[0].clone().unwrap_or_default();
        assert!(e.contains("1-64"), "{e}");
        assert_eq!(f.raw[0], "999");
        let next = f.edit::<Herd>("workers", "16", &good).expect("valid");
        assert_eq!(next.workers, 16);
        assert!(f.errors[0].is_none());
    }

    #[test]
    fn combination_retried() {
        let good = HerdParams {
            mode: WakeMode::LifoExclusive,
            ..Default::default()
        };
        let mut f = FormState::of::<Herd>(&good);
        assert_eq!(f.edit::<Herd>("primitive", "futex", &good), None);
        assert!(f.errors[10]
            .as_deref()
            .unwrap_or("")
            .contains("lifo-exclusive"));
        let next = f
            .edit::<Herd>("mode", "exclusive", &good)
            .expect("both now valid");
        assert_eq!(next.primitive, Primitive::Futex);
        assert_eq!(next.mode, WakeMode::Exclusive);
        assert!(f.errors.iter().all(Option::is_none));
    }
}
