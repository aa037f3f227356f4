//! A simulation widget handed to the lazily loaded bundle: in the main bundle (built without the
//! timeline) "Show the timeline" replaces the widget by `<Lazy what="timeline" query=…>`
//! (`crate::ui::lazy::Lazy`), whose query is [`query`]: the widget's state as its "copy link"
//! query (parameters, step, picks) and the block's own keys below. The lazy bundle reads it back
//! ([`parse`]) and opens the same widget there at that state with its timeline open
//! (`crate::pages::sim_handoff`), so the stepper and the timeline are one cursor.

#[cfg(any(test, feature = "lazy"))]
use herdlab_core::scenario::url_decode;
use herdlab_core::scenario::url_encode;

use crate::lesson::grammar::Controls;

/// The block's keys added to the state's query (no scenario has a parameter of these names).
#[cfg(any(test, feature = "lazy"))]
const KEYS: &[&str] = &["widget", "controls", "caption", "slug", "main", "keyboard"];

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
}

/// `h` as the query of `<Lazy what="timeline">`.
pub fn query(h: &Handed) -> String {
    let controls = match h.controls {
        Controls::Full => "full",
        Controls::Step => "step",
    };
    format!(
        "{}&widget={}&controls={controls}&caption={}&slug={}&main={}&keyboard={}",
        h.state,
        url_encode(&h.id),
        url_encode(&h.caption),
        url_encode(&h.slug),
        h.main,
        h.keyboard
    )
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
            _ => h.keyboard = v == "true",
        }
    }
    h.state = state.join("&");
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
        };
        assert_eq!(parse(&query(&h)), h);
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
