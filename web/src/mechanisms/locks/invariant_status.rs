//! The lock invariants, checked after every step: "all invariants hold", or the broken one.

use std::rc::Rc;

use yew::prelude::*;

use crate::mechanisms::locks::snapshot::InvariantView;

/// Props of [`invariant_status`].
#[derive(Properties, PartialEq)]
pub struct InvariantProps {
    /// The invariants' state.
    pub inv: Rc<InvariantView>,
}

/// The invariant line (`invariant-status`, with `data-invariant` naming the broken one).
pub fn invariant_status(p: &InvariantProps) -> Html {
    let inv = &p.inv;
    let earlier = inv
        .first
        .as_ref()
        .filter(|(_, v)| inv.now.as_ref().map(|n| &n.invariant) != Some(&v.invariant));
    let (class, name, text) = match &inv.now {
        Some(v) => (
            "broken",
            v.invariant.clone(),
            format!("{} is broken: {}", v.invariant, v.message),
        ),
        None => ("ok", String::new(), "all invariants hold".to_string()),
    };
    html! {
        <div class={classes!("invariants", class)} role="status">
            <p>
                <span class="inv-label">{ "invariants: " }</span>
                <strong data-testid="invariant-status" data-invariant={name}>{ text }</strong>
            </p>
            if let Some((at, v)) = earlier {
                <p class="inv-earlier" data-testid="invariant-first">
                    { format!("{} broke after step {at}: {}", v.invariant, v.message) }
                </p>
            }
            <p class="inv-names">
                { format!("checked after every step: {}", inv.names.join(", ")) }
                { if inv.terminal { " (nothing can run: the terminal ones too)" } else { "" } }
            </p>
        </div>
    }
}
