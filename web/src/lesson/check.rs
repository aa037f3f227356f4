//! A parsed ```` ```herdlab-check ```` block (or the `#/check?…` page), whatever its mechanism: the
//! registry (`crate::mechanisms`) parses it with the mechanism it names.

use herdlab_core::scenario::Scenario;

/// A parsed ```` ```herdlab-check ```` block (or the `#/check?…` page).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSpec {
    /// The widget id (`check-<id>`; its replay is `sim-<id>-replay`).
    pub id: String,
    /// The scenario to explore.
    pub scenario: Scenario,
    /// The caption, decoded.
    pub caption: Option<String>,
    /// What was wrong with the block.
    pub errors: Vec<String>,
}
