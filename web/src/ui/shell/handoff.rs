//! A simulation widget handed to the lazily loaded bundle: in the main bundle (built without the
//! timeline) "Show the timeline" replaces the widget by `<Lazy what="timeline" query=…>`
//! (`crate::ui::lazy::Lazy`), whose query is [`query`]: the widget's state as its "copy link"
//! query (parameters, step, picks) and the block's own keys below. The lazy bundle reads it back
//! ([`parse`]) and opens the same widget there at that state with its timeline open
//! (`crate::pages::sim_handoff`), so the stepper and the timeline are one cursor.
//!
//! A check block's counterexample replay is handed over as a replay: its check block tells
//! ([`tell`]) the counterexample, which the query carries (`replay`, `check`, `invariant`,
//! `message`; read back as a `Replayed`), and the bundle makes the same replay again (the
//! registry's `replay_widget`) and steps it to the handed state ([`restore`]).
//!
//! "Hide the timeline" hands the widget back: the bundle sends its state (the same "copy link"
//! query) up to the main bundle's `Lazy` ([`BACK_EVENT`]), and the main widget opens its own
//! block again and [`restore`]s that state (parameters, step, picks; a replay stays a replay).

#[cfg(any(test, feature = "lazy"))]
use herdlab_core::scenario::url_decode;
use herdlab_core::scenario::{query_pairs, url_encode};

use crate::lesson::grammar::Controls;
use crate::lesson::picks::parse_picks;
use crate::live::model::LiveModel;
use crate::live::open::script_of;
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

/// A check block's counterexample, as the lazily loaded bundle reads it from the handed query
/// ([`Replayed::of`]).
#[cfg(any(test, feature = "lazy"))]
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

#[cfg(any(test, feature = "lazy"))]
impl Replayed {
    /// The counterexample of a handed query's `replay` part ([`Handed::replay`]).
    pub fn of(part: &str) -> Replayed {
        let mut r = Replayed {
            check: String::new(),
            schedule: String::new(),
            invariant: String::new(),
            message: String::new(),
        };
        for pair in part.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = url_decode(v);
            match k {
                "replay" => r.schedule = v,
                "check" => r.check = v,
                "invariant" => r.invariant = v,
                _ => r.message = v,
            }
        }
        r
    }
}

thread_local! {
    /// The counterexamples the page's check blocks found: the check block's id, and the
    /// counterexample as [`query`] adds it (`&replay=…&check=…&invariant=…&message=…`).
    static TOLD: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Check block `check` found `c`: its replay widget (`sim-<check>-replay`) hands it over as a
/// replay ([`told`]). A plain list rather than a Yew context, which would cost the main wasm a
/// component.
// not inlined: the check block's result stays small enough to be inlined itself (main wasm size)
#[inline(never)]
pub fn tell(check: &str, c: &herdlab_core::check::Counterexample) {
    let schedule: Vec<String> = c.schedule.iter().map(u16::to_string).collect();
    let q = format!(
        "&replay={}&check={}&invariant={}&message={}",
        schedule.join(","),
        url_encode(check),
        url_encode(&c.violation.invariant),
        url_encode(&c.violation.message)
    );
    TOLD.with(|t| {
        let mut t = t.borrow_mut();
        t.retain(|o| o.0 != check);
        t.push((check.to_string(), q));
    });
}

/// The counterexample replayed by the widget `sim-<id>` as [`query`] adds it, if it is a check
/// block's replay.
pub fn told(id: &str) -> Option<String> {
    let check = id.strip_suffix("-replay")?;
    TOLD.with(|t| {
        t.borrow()
            .iter()
            .find(|o| o.0 == check)
            .map(|o| o.1.clone())
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
    /// A check block's replay: its counterexample (read back by [`parse`]), as [`told`] gives
    /// it to [`query`].
    pub replay: Option<String>,
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
        q.push_str(r);
    }
    q
}

/// Step `m` (just opened from its block) to `state`, a "copy link" query of the same widget:
/// its parameters (each through the form: an edit to the value a field has changes nothing),
/// then from step 0 its `step` steps, taking `picks` by hand and the model's own default (a
/// replay's next scripted actor) otherwise; with `follow=picks` the model follows the picks from
/// then on ([`LiveModel::follow`]).
pub fn restore(m: &mut dyn LiveModel, state: &str) {
    let mut form = m.form();
    let (mut step, mut picks, mut follow) = (0u64, Vec::new(), false);
    for (k, v) in query_pairs(state) {
        match k.as_str() {
            "step" => step = v.parse().unwrap_or(0),
            "picks" => picks = parse_picks(&v).unwrap_or_default(),
            "follow" => follow = v == "picks",
            _ => {
                m.edit(&mut form, &k, &v);
            }
        }
    }
    m.apply(Action::Reset);
    if let Some(script) = follow.then(|| script_of(&picks).ok()).flatten() {
        m.follow(script);
    }
    let mut picks = picks.into_iter().peekable();
    for i in 0..step {
        let a = picks
            .next_if(|p| p.0 == i)
            .map_or(Action::Step, |p| Action::StepActor(p.1));
        if !m.apply(a) {
            break;
        }
    }
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
    let mut replay = String::new();
    let mut state = Vec::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if !KEYS.contains(&k) {
            state.push(pair);
            continue;
        }
        if matches!(k, "replay" | "check" | "invariant" | "message") {
            replay.push('&');
            replay.push_str(pair);
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
            _ => h.keyboard = v == "true",
        }
    }
    h.state = state.join("&");
    if !replay.is_empty() {
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
        // a check block's replay: its counterexample told, carried, and read back
        use herdlab_core::check::{Counterexample, Violation};
        tell(
            "check-1",
            &Counterexample {
                violation: Violation {
                    invariant: "lost-wakeup".into(),
                    message: "thread 1 sleeps & nobody wakes it".into(),
                },
                schedule: vec![0, 1, 1, 0],
            },
        );
        assert_eq!(told("check-1"), None, "only the replay widget is told");
        let r = Handed {
            id: "check-1-replay".into(),
            replay: told("check-1-replay"),
            ..h.clone()
        };
        assert!(r.replay.is_some());
        let back = parse(&query(&r));
        assert_eq!(back, r);
        assert_eq!(
            Replayed::of(back.replay.as_deref().unwrap()),
            Replayed {
                check: "check-1".into(),
                schedule: "0,1,1,0".into(),
                invariant: "lost-wakeup".into(),
                message: "thread 1 sleeps & nobody wakes it".into(),
            }
        );
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
