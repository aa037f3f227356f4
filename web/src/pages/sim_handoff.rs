//! In the lazily loaded bundle: a simulation widget handed over by the main bundle
//! (`crate::ui::shell::handoff`), opened at the state it was in with its timeline open. Its
//! block is made again from the handed keys (`id`, `main`, `controls`, `caption`) with the state's
//! query resolved over it as a playground's page query (so the step and picks replay), through
//! the one registry ([`crate::mechanisms::sim_widget`]); a [`Handoff`] context tells its shell
//! whether it keeps the page address. A check block's replay is made again as the same replay
//! ([`crate::mechanisms::replay_widget`], from the handed counterexample) and stepped to the
//! handed state. Names no mechanism.

use herdlab_core::check::{Counterexample, Violation};
use herdlab_core::scenario::{url_encode, Scenario};
use yew::prelude::*;

use crate::lesson::grammar::{named_mechanism, Controls};
use crate::lesson::parts::Placing;
use crate::ui::shell::handoff::parse;
use crate::ui::shell::sim_shell::Handoff;

/// Props of [`HandedSim`].
#[derive(Properties, PartialEq, Clone)]
pub struct HandedProps {
    /// The query `crate::ui::shell::handoff::query` made.
    pub query: AttrValue,
}

/// The handed widget.
#[function_component]
pub fn HandedSim(p: &HandedProps) -> Html {
    let view = use_memo(p.query.clone(), |q| {
        let h = parse(q);
        if let Some(html) = replay(&h) {
            let ctx = Handoff {
                main: false,
                restore: Some(h.state.clone().into()),
            };
            return (ctx, html);
        }
        let controls = match h.controls {
            Controls::Full => "full",
            Controls::Step => "step",
        };
        let mut body = format!("id={}&main&controls={controls}", url_encode(&h.id));
        if !h.caption.is_empty() {
            body.push_str(&format!("&caption={}", url_encode(&h.caption)));
        }
        let mechanism = named_mechanism(&h.state);
        let w = crate::mechanisms::sim_widget(
            mechanism.as_deref(),
            &body,
            "main",
            &h.state,
            &mut Placing::default(),
            0,
        );
        let html = (w.view)(h.id.clone(), h.slug.clone().into(), h.keyboard);
        (
            Handoff {
                main: h.main,
                restore: None,
            },
            html,
        )
    });
    let (ctx, html) = (*view).clone();
    html! {
        <ContextProvider<Handoff> context={ctx}>{ html }</ContextProvider<Handoff>>
    }
}

/// A handed replay made again: its scenario (the state without its step and picks), its
/// counterexample, the same widget. `None` when `h` is no replay (or it cannot be read: the plain
/// widget opens then).
fn replay(h: &crate::ui::shell::handoff::Handed) -> Option<Html> {
    let r = crate::ui::shell::handoff::Replayed::of(h.replay.as_deref()?);
    let scenario: Vec<&str> = h
        .state
        .split('&')
        .filter(|kv| {
            let k = kv.split('=').next().unwrap_or("");
            !matches!(k, "step" | "picks" | "schedule")
        })
        .collect();
    let s = Scenario::from_query(&scenario.join("&")).ok()?;
    let schedule = r
        .schedule
        .split(',')
        .map(|t| t.trim().parse::<u16>().ok())
        .collect::<Option<Vec<u16>>>()?;
    let c = Counterexample {
        violation: Violation {
            invariant: r.invariant.clone(),
            message: r.message.clone(),
        },
        schedule,
    };
    crate::mechanisms::replay_widget(&s, &c, &r.check, &h.slug.clone().into())
}
