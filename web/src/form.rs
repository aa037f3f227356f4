//! The parameter form's state: what the learner typed in each field, and what was refused.
//! A refused value stays in its field with its error; the simulation keeps the last good scenario.
//! The form works for any scenario type with [`FormParams`] (the herd's here, the locks' in
//! `crate::lock_form`).

use herdlab_core::herd::{HerdParams, Primitive, Variant, WakeMode};
use herdlab_core::scenario::{set_herd_param, validate_herd, ParamError};
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
    /// For a choice: where a one-line explanation of each value comes from (shown under the field
    /// and as the options' titles).
    pub hint: Option<Hint>,
}

/// Explanations of a choice's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// `ShmtxVariant::story` (core).
    ShmtxVariant,
    /// `MutexVariant::story` (core): the accept mutex's code.
    MutexVariant,
    /// The accept strategies (`crate::accept_form::strategy_story`).
    Strategy,
}

impl Hint {
    /// The explanation of `value` (empty for an unknown one).
    pub fn text(self, value: &str) -> &'static str {
        match self {
            Hint::ShmtxVariant => herdlab_core::locks::shmtx::ShmtxVariant::from_name(value)
                .map(|v| v.story())
                .unwrap_or(""),
            Hint::MutexVariant => herdlab_core::accept::MutexVariant::from_name(value)
                .map(|v| v.story())
                .unwrap_or(""),
            Hint::Strategy => crate::accept_form::strategy_story(value),
        }
    }
}

/// A scenario the parameter form can edit.
pub trait FormParams: Copy + PartialEq {
    /// The form's fields, in display order.
    const FIELDS: &'static [Field];
    /// The text of a field for these parameters.
    fn value_of(&self, key: &str) -> String;
    /// Set one field from its text (core's parser for the scenario).
    fn set(&mut self, key: &str, value: &str) -> Result<(), ParamError>;
    /// Check the combinations (core's validation).
    fn validate(&self) -> Vec<ParamError>;
}

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

/// The form: one raw text and one error per field of [`FormParams::FIELDS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormState {
    /// What each field holds.
    pub raw: Vec<String>,
    /// Each field's refusal, if any.
    pub errors: Vec<Option<String>>,
}

fn try_field<P: FormParams>(p: &P, key: &str, value: &str) -> Result<P, String> {
    let mut t = *p;
    t.set(key, value.trim()).map_err(|e| e.message)?;
    let errs = t.validate();
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
    pub fn of<P: FormParams>(p: &P) -> Self {
        FormState {
            raw: P::FIELDS.iter().map(|f| p.value_of(f.key)).collect(),
            errors: vec![None; P::FIELDS.len()],
        }
    }

    /// The refusal shown for `key`, if any.
    pub fn error_of<P: FormParams>(&self, key: &str) -> Option<String> {
        let i = P::FIELDS.iter().position(|f| f.key == key)?;
        self.errors.get(i).cloned().flatten()
    }

    /// The learner set `key` to `value`. Returns the new scenario when it is valid and differs from
    /// `good`; otherwise the field keeps the text and shows why it was refused. Fields refused
    /// earlier are tried again, since a combination may have become valid.
    pub fn edit<P: FormParams>(&mut self, key: &str, value: &str, good: &P) -> Option<P> {
        let idx = P::FIELDS.iter().position(|f| f.key == key)?;
        self.raw[idx] = value.to_string();
        let mut cand = *good;
        match try_field(&cand, key, value) {
            Ok(t) => {
                cand = t;
                self.errors[idx] = None;
            }
            Err(e) => self.errors[idx] = Some(e),
        }
        for (j, f) in P::FIELDS.iter().enumerate() {
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
