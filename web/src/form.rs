//! The parameter form's state: what the learner typed in each field, and what was refused.
//! A refused value stays in its field with its error; the simulation keeps the last good scenario.

use herdlab_core::herd::{HerdParams, Primitive, Variant, WakeMode};
use herdlab_core::scenario::{set_herd_param, validate_herd};
use herdlab_core::sim::arrivals::ArrivalPattern;

/// How a field is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number typed in a text box (`input-<key>`), with its allowed range.
    Number(&'static str),
    /// A choice (`select-<key>`).
    Choice(&'static [&'static str]),
}

/// One field of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The URL key.
    pub key: &'static str,
    /// The label.
    pub label: &'static str,
    /// How it is entered.
    pub kind: FieldKind,
}

/// The form's fields, in display order.
pub const FIELDS: [Field; 11] = [
    Field {
        key: "workers",
        label: "workers",
        kind: FieldKind::Number("1-64"),
    },
    Field {
        key: "cpus",
        label: "CPUs",
        kind: FieldKind::Number("1-16"),
    },
    Field {
        key: "mode",
        label: "mode",
        kind: FieldKind::Choice(&WakeMode::NAMES),
    },
    Field {
        key: "arrival",
        label: "arrival",
        kind: FieldKind::Choice(&ArrivalPattern::NAMES),
    },
    Field {
        key: "burst",
        label: "burst",
        kind: FieldKind::Number("1-1024"),
    },
    Field {
        key: "rate",
        label: "rate (per s)",
        kind: FieldKind::Number("1-10000000"),
    },
    Field {
        key: "connections",
        label: "connections",
        kind: FieldKind::Number("1-1000000"),
    },
    Field {
        key: "service",
        label: "service (ns)",
        kind: FieldKind::Number("0-100000000"),
    },
    Field {
        key: "seed",
        label: "seed",
        kind: FieldKind::Number("0-18446744073709551615"),
    },
    Field {
        key: "variant",
        label: "variant",
        kind: FieldKind::Choice(&Variant::NAMES),
    },
    Field {
        key: "primitive",
        label: "primitive",
        kind: FieldKind::Choice(&Primitive::NAMES),
    },
];

/// The text of a field for these parameters.
pub fn value_of(p: &HerdParams, key: &str) -> String {
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

/// The form: one raw text and one error per field of [`FIELDS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormState {
    /// What each field holds.
    pub raw: Vec<String>,
    /// Each field's refusal, if any.
    pub errors: Vec<Option<String>>,
}

fn try_field(p: &HerdParams, key: &str, value: &str) -> Result<HerdParams, String> {
    let mut t = *p;
    set_herd_param(&mut t, key, value.trim()).map_err(|e| e.message)?;
    let errs = validate_herd(&t);
    if errs.is_empty() {
        Ok(t)
    } else {
        Err(errs
            .iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
            .join("; "))
    }
}

impl FormState {
    /// The form showing `p`.
    pub fn of(p: &HerdParams) -> Self {
        FormState {
            raw: FIELDS.iter().map(|f| value_of(p, f.key)).collect(),
            errors: vec![None; FIELDS.len()],
        }
    }

    /// The learner set `key` to `value`. Returns the new scenario when it is valid and differs from
    /// `good`; otherwise the field keeps the text and shows why it was refused. Fields refused
    /// earlier are tried again, since a combination may have become valid.
    pub fn edit(&mut self, key: &str, value: &str, good: &HerdParams) -> Option<HerdParams> {
        let idx = FIELDS.iter().position(|f| f.key == key)?;
        self.raw[idx] = value.to_string();
        let mut cand = *good;
        match try_field(&cand, key, value) {
            Ok(t) => {
                cand = t;
                self.errors[idx] = None;
            }
            Err(e) => self.errors[idx] = Some(e),
        }
        for (j, f) in FIELDS.iter().enumerate() {
            if j != idx && self.errors[j].is_some() {
                if let Ok(t) = try_field(&cand, f.key, &self.raw[j]) {
                    cand = t;
                    self.errors[j] = None;
                }
            }
        }
        (cand != *good).then_some(cand)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
