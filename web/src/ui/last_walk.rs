//! The last wake walk: which wait-queue entries it visited, in order, what each wake function
//! returned and the `nr_exclusive` budget left (`last-walk`, `walk-visit-<k>`).

use yew::prelude::*;

use crate::live::snapshot::WalkView;

/// What [`last_walk`] shows (a view function, not a component: it has no state of its own).
pub struct LastWalkProps {
    /// The walk.
    pub walk: WalkView,
}

/// The walk.
pub fn last_walk(p: &LastWalkProps) -> Html {
    let w = &p.walk;
    let budget = if w.budget == 0 {
        "no limit".to_string()
    } else {
        w.budget.to_string()
    };
    let compact = w.visits.len() > 8;
    let woken = w.visits.iter().filter(|v| v.ret > 0).count();
    let summary = format!(
        "visited {} entries (thread, X/N, ret), woke {woken}; budget left at the end: {}",
        w.visits.len(),
        match (w.budget, w.visits.last()) {
            (0, _) => "no limit".to_string(),
            (_, Some(v)) => v.budget_left.to_string(),
            _ => String::new(),
        }
    );
    html! {
        <div class={classes!("walk", w.fresh.then_some("fresh"))} data-testid="last-walk"
            data-listener={w.listener.map(|l| l.to_string())}>
            <p class="walk-head">
                { match w.listener {
                    Some(l) => format!("Last wake walk, listener L{l}'s queue: step {}, nr_exclusive = {budget}", w.step),
                    None => format!("Last wake walk: step {}, nr_exclusive = {budget}", w.step),
                } }
                { if w.fresh { " (this step)" } else { "" } }
            </p>
            if compact {
                <p class="walk-sum">{ summary }</p>
            }
            <ol class={classes!("visits", compact.then_some("compact"))}>
                { for w.visits.iter().enumerate().map(|(k, v)| {
                    let left = if w.budget == 0 { "no limit".to_string() } else { v.budget_left.to_string() };
                    let what = match v.ret {
                        r if r > 0 => "woken",
                        0 => "already running",
                        _ => "stop",
                    };
                    let flag = if v.exclusive { "X" } else { "N" };
                    let full = format!("{} {flag} · {what} (ret {}) · budget left {left}", v.short, v.ret);
                    // keyed by position: Yew lines an unkeyed list up from its end, so a walk of
                    // another length would rewrite every visit
                    html! {
                        <li key={k} class={classes!("visit", (v.ret > 0).then_some("woke"))}
                            data-testid={format!("walk-visit-{k}")}>
                            { if compact { format!("{} {flag} {}", v.short, v.ret) } else { full } }
                        </li>
                    }
                }) }
            </ol>
            <p class="walk-end">{ w.end }</p>
        </div>
    }
}
