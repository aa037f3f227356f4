//! A simulation widget handed to the lazily loaded bundle: in the main bundle (built without the
//! timeline) "Show the timeline" replaces the widget by `<Lazy what="timeline" query=…>`
//! (`crate::ui::lazy::Lazy`), whose query is [`query`]: the widget's state as its "copy link"
//! query (parameters, step, picks) and the block's own keys below. The lazy bundle reads it back
//! ([`parse`]) and opens the same widget there at that state with its timeline open
//! (`crate::pages::sim_handoff`), so the stepper and the timeline are one cursor.
//!
//! A check block's counterexample replay is handed over as a replay: its check block tells it
//! (a [`Replayed`] context) the counterexample, which the query carries (`replay`, `check`,
//! `invariant`, `message`), and the bundle makes the same replay again (the registry's
//! `replay_widget`) and steps it to the handed state ([`restore`]).
//!
//! "Hide the timeline" hands the widget back: the bundle sends its state (the same "copy link"
//! query) up to the main bundle's `Lazy` ([`BACK_EVENT`]), and the main widget opens its own
//! block again and [`restore`]s that state (parameters, step, picks; a replay stays a replay).

#[cfg(any(test, feature = "lazy"))]
use herdlab_core::scenario::url_decode;
use herdlab_core::scenario::url_encode;
use herdlab_core::sim::Actor;

use crate::lesson::grammar::Controls;
use crate::lesson::picks::parse_picks;
use crate::live::model::LiveModel;
use crate::live::sim_model::Action;

/// The block's keys added to the state's query (no scenario has a parameter of these names).
#[cfg(any(test, feature = "lazy"))]
const KEYS: &[&str] = &[
    "widget",
    "controls",
    "caption",
    "slug",
    "main",
    "keyboard",
    "replay",
    "check",
    "invariant",
    "message",
];

/// The name of the DOM event (a `CustomEvent`, bubbling, its `detail` the widget's state query)
/// by which the lazily loaded bundle hands a widget back to the main bundle's `Lazy`.
pub const BACK_EVENT: &str = "herdlab-lazy";

/// A check block's counterexample, told ([`tell`]) to the replay widget under it
/// (`sim-<check>-replay`), so that "Show the timeline" hands it over as the same replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The check block's id (the replay is `sim-<id>-replay`).
    pub check: String,
    /// The checker's schedule: the thread of each checker step, comma-separated.
    pub schedule: String,
    /// The broken invariant.
    pub invariant: String,
    /// What the checker saw.
    pub message: String,
}

thread_local! {
    /// The counterexamples the page's check blocks found, the newest last.
    static TOLD: std::cell::RefCell<Vec<Replayed>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A check block found `r`: its replay widget hands it over as a replay ([`told`]). A plain
/// list rather than a Yew context, which would cost the main wasm a component.
pub fn tell(r: Replayed) {
    TOLD.with(|t| {
        let mut t = t.borrow_mut();
        t.retain(|o| o.check != r.check);
        t.push(r);
    });
}

/// The counterexample replayed by the widget `sim-<id>`, if it is a check block's replay.
pub fn told(id: &str) -> Option<Replayed> {
    TOLD.with(|t| {
        t.borrow()
            .iter()
            .rev()
            .find(|r| id.strip_suffix("-replay") == Some(r.check.as_str()))
            .cloned()
    })
}

/// What the lazy bundle opens: the widget's block and place, and its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handed {
    /// The state's query, as "copy link" makes it (`mechanism=…&…&step=…&picks=…`).
    pub state: String,
    /// The block's id (`sim-<id>`).
    pub id: String,
    /// Its controls.
    pub controls: Controls,
    /// Its caption.
    pub caption: String,
    /// The lesson it is in.
    pub slug: String,
    /// Whether it is the lesson's playground (the page address follows it).
    pub main: bool,
    /// Whether the page's keyboard shortcuts drive it.
    pub keyboard: bool,
    /// A check block's replay: its counterexample.
    pub replay: Option<Replayed>,
}

/// `h` as the query of `<Lazy what="timeline">`.
pub fn query(h: &Handed) -> String {
    let controls = match h.controls {
        Controls::Full => "full",
        Controls::Step => "step",
    };
    let mut q = format!(
        "{}&widget={}&controls={controls}&caption={}&slug={}&main={}&keyboard={}",
        h.state,
        url_encode(&h.id),
        url_encode(&h.caption),
        url_encode(&h.slug),
        h.main,
        h.keyboard
    );
    if let Some(r) = &h.replay {
        q.push_str(&format!(
            "&replay={}&check={}&invariant={}&message={}",
            url_encode(&r.schedule),
            url_encode(&r.check),
            url_encode(&r.invariant),
            url_encode(&r.message)
        ));
    }
    q
}

/// Step `m` (just opened from its block) to `state`, a "copy link" query of the same widget:
/// its parameters (each form field whose value differs, through the form), then from step 0 its
/// `step` steps, taking `picks` by hand and the model's own default (a replay's next scripted
/// actor) otherwise. Returns the step it reached.
pub fn restore(m: &mut dyn LiveModel, state: &str) -> u64 {
    let pairs: Vec<(&str, &str)> = state
        .split('&')
        .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
        .collect();
    let get = |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1);
    let now = m.link_query();
    let mut form = m.form();
    for &(k, v) in &pairs {
        if m.fields().iter().any(|f| f.key == k) && !now.split('&').any(|p| p == format!("{k}={v}"))
        {
            m.edit(&mut form, k, v);
        }
    }
    m.apply(Action::Reset);
    let step: u64 = get("step").and_then(|s| s.parse().ok()).unwrap_or(0);
    let picks = parse_picks(get("picks").unwrap_or("")).unwrap_or_default();
    let mut pi = 0;
    for i in 0..step {
        let a: Option<Actor> = match picks.get(pi) {
            Some(&(k, a)) if k == i => {
                pi += 1;
                Some(a)
            }
            _ => None,
        };
        let moved = m.apply(a.map_or(Action::Step, Action::StepActor));
        if !moved {
            break;
        }
    }
    m.position()
}

/// [`query`]'s text read back (keys it does not know stay in the state).
#[cfg(any(test, feature = "lazy"))]
pub fn parse(q: &str) -> Handed {
    let mut h = Handed {
        state: String::new(),
        id: "main".into(),
        controls: Controls::Step,
        caption: String::new(),
        slug: String::new(),
        main: false,
        keyboard: false,
        replay: None,
    };
    let mut replay = Replayed {
        check: String::new(),
        schedule: String::new(),
        invariant: String::new(),
        message: String::new(),
    };
    let mut state = Vec::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if !KEYS.contains(&k) {
            state.push(pair);
            continue;
        }
        let v = url_decode(v);
        match k {
            "widget" => h.id = v,
            "controls" => {
                h.controls = if v == "full" {
                    Controls::Full
                } else {
                    Controls::Step
                }
            }
            "caption" => h.caption = v,
            "slug" => h.slug = v,
            "main" => h.main = v == "true",
            "keyboard" => h.keyboard = v == "true",
            "replay" => replay.schedule = v,
            "check" => replay.check = v,
            "invariant" => replay.invariant = v,
            _ => replay.message = v,
        }
    }
    h.state = state.join("&");
    if !replay.schedule.is_empty() {
        h.replay = Some(replay);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handed_query_reads_back_as_written() {
        let h = Handed {
            state: "mechanism=herd&workers=4&step=17&picks=3:t1,9:net".into(),
            id: "main".into(),
            controls: Controls::Full,
            caption: "Four workers & one listener".into(),
            slug: "thundering-herd".into(),
            main: true,
            keyboard: true,
            replay: None,
        };
        assert_eq!(parse(&query(&h)), h);
        let r = Handed {
            id: "check-1-replay".into(),
            replay: Some(Replayed {
                check: "check-1".into(),
                schedule: "0,1,1,0".into(),
                invariant: "lost-wakeup".into(),
                message: "thread 1 sleeps & nobody wakes it".into(),
            }),
            ..h.clone()
        };
        assert_eq!(parse(&query(&r)), r);
        let h = Handed {
            id: "second one".into(),
            controls: Controls::Step,
            main: false,
            keyboard: false,
            ..h
        };
        let q = query(&h);
        assert!(q.starts_with("mechanism=herd&workers=4&step=17&"), "{q}");
        assert_eq!(parse(&q), h);
    }
}
