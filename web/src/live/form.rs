//! The parameter form's state: what the learner typed in each field, and what was refused.
//! A refused value stays in its field with its error; the simulation keeps the last good scenario.
//! The form works for any scenario type with [`FormParams`] (each mechanism's, in its folder).

use herdlab_core::scenario::ParamError;

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

/// Explanations of a choice's values: the mechanism's function from a value to its one-line
/// story (empty for an unknown value).
#[derive(Clone, Copy, Debug)]
pub struct Hint(pub fn(&str) -> &'static str);

impl Hint {
    /// The explanation of `value` (empty for an unknown one).
    pub fn text(self, value: &str) -> &'static str {
        (self.0)(value)
    }
}

impl PartialEq for Hint {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for Hint {}

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
