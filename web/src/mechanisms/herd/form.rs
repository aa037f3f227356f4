//! The herd's parameter form: its fields, in display order, over core's setter and validation.

use herdlab_core::herd::{HerdParams, Primitive, Variant, WakeMode};
use herdlab_core::scenario::{set_herd_param, validate_herd, ParamError};
use herdlab_core::sim::arrivals::ArrivalPattern;

use crate::live::form::{Field, FieldKind, FormParams};

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

impl FormParams for HerdParams {
    const FIELDS: &'static [Field] = &HERD_FIELDS;
    fn value_of(&self, key: &str) -> String {
        herd_value_of(self, key)
    }
    fn set(&mut self, key: &str, value: &str) -> Result<(), ParamError> {
        set_herd_param(self, key, value)
    }
    fn validate(&self) -> Vec<ParamError> {
        validate_herd(self)
    }
}

/// The text of a herd field for these parameters.
fn herd_value_of(p: &HerdParams, key: &str) -> String {
    match key {
        "workers" => p.workers.to_string(),
        "cpus" => p.cpus.to_string(),
        "mode" => p.mode.name().to_string(),
        "arrival" => p.arrival.name().to_string(),
        "burst" => p.burst.to_string(),
        "rate" => p.rate.to_string(),
        "connections" => p.connections.to_string(),
        "service" => p.service_ns.to_string(),
        "seed" => p.seed.to_string(),
        "variant" => p.variant.name().to_string(),
        "primitive" => p.primitive.name().to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::form::FormState;

    #[test]
    fn refuses_and_keeps_last_good() {
        let good = HerdParams::default();
        let mut f = FormState::of(&good);
        assert_eq!(f.edit("workers", "999", &good), None);
        let e = f.errors[0].clone().unwrap_or_default();
        assert!(e.contains("1-64"), "{e}");
        assert_eq!(f.raw[0], "999");
        let next = f.edit("workers", "16", &good).expect("valid");
        assert_eq!(next.workers, 16);
        assert!(f.errors[0].is_none());
    }

    #[test]
    fn combination_retried() {
        let good = HerdParams {
            mode: WakeMode::LifoExclusive,
            ..Default::default()
        };
        let mut f = FormState::of(&good);
        assert_eq!(f.edit("primitive", "futex", &good), None);
        assert!(f.errors[10]
            .as_deref()
            .unwrap_or("")
            .contains("lifo-exclusive"));
        let next = f.edit("mode", "exclusive", &good).expect("both now valid");
        assert_eq!(next.primitive, Primitive::Futex);
        assert_eq!(next.mode, WakeMode::Exclusive);
        assert!(f.errors.iter().all(Option::is_none));
    }
}
