//! The parameter form's state: what the learner typed in each field, and what was refused.
//! A refused value stays in its field with its error; the simulation keeps the last good scenario.
//! The form works for any [`SiteMechanism`]: its fields, and core's getter, setter and validation.

pub use crate::live::field::{Field, FieldKind, Hint};
use crate::live::mechanism::SiteMechanism;

/// The form: one raw text and one error per field of [`SiteMechanism::FIELDS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormState {
    /// What each field holds.
    pub raw: Vec<String>,
    /// Each field's refusal, if any.
    pub errors: Vec<Option<String>>,
}

fn try_field<M: SiteMechanism>(p: &M::Params, key: &str, value: &str) -> Result<M::Params, String> {
    let mut t = *p;
    M::set(&mut t, key, value.trim()).map_err(|e| e.message)?;
    let errs = M::validate(&t);
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
    pub fn of<M: SiteMechanism>(p: &M::Params) -> Self {
        FormState {
            raw: M::FIELDS
                .iter()
                .map(|f| M::get(p, f.key).unwrap_or_default())
                .collect(),
            errors: vec![None; M::FIELDS.len()],
        }
    }

    /// The refusal shown for `key`, if any.
    #[cfg(test)]
    pub fn error_of<M: SiteMechanism>(&self, key: &str) -> Option<String> {
        self.error_in(M::FIELDS, key)
    }

    /// The refusal shown for `key` of a form of `fields`, if any.
    pub fn error_in(&self, fields: &[Field], key: &str) -> Option<String> {
        let i = fields.iter().position(|f| f.key == key)?;
        self.errors.get(i).cloned().flatten()
    }

    /// The learner set `key` to `value`. Returns the new scenario when it is valid and differs from
    /// `good`; otherwise the field keeps the text and shows why it was refused. Fields refused
    /// earlier are tried again, since a combination may have become valid.
    pub fn edit<M: SiteMechanism>(
        &mut self,
        key: &str,
        value: &str,
        good: &M::Params,
    ) -> Option<M::Params> {
        let idx = M::FIELDS.iter().position(|f| f.key == key)?;
        self.raw[idx] = value.to_string();
        let mut cand = *good;
        match try_field::<M>(&cand, key, value) {
            Ok(t) => {
                cand = t;
                self.errors[idx] = None;
            }
            Err(e) => self.errors[idx] = Some(e),
        }
        for (j, f) in M::FIELDS.iter().enumerate() {
            if j != idx && self.errors[j].is_some() {
                if let Ok(t) = try_field::<M>(&cand, f.key, &self.raw[j]) {
                    cand = t;
                    self.errors[j] = None;
                }
            }
        }
        (cand != *good).then_some(cand)
    }
}
