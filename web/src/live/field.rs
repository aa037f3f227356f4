//! A form field, as a mechanism lists its own ([`crate::live::mechanism::SiteMechanism::FIELDS`]):
//! its key, label, how it is entered, and where the explanation of a choice's values comes from.

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
