//! A panel of shared memory words, as a mechanism's snapshot lists them ([`WordView`]: for a lock,
//! the lock word, `wait`, the semaphore's count and its sleepers, or the ticket lock's two counters,
//! or the futex word and its queue; for the accept mutex, its word).

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::WordView;

/// Props of [`words_panel`].
#[derive(Properties, PartialEq)]
pub struct WordsProps {
    /// The words.
    pub words: Rc<Vec<WordView>>,
    /// One line instead of a panel (the comparison).
    #[prop_or_default]
    pub compact: bool,
}

/// The words panel.
pub fn words_panel(p: &WordsProps) -> Html {
    let rows = p.words.iter().map(|w| {
        let threads = w
            .threads
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(",");
        html! {
            <div class={classes!("word", w.testid)}>
                <dt>{ w.label }</dt>
                <dd>
                    <output class="value" data-testid={w.testid} data-threads={threads}>{ &w.value }</output>
                    if !p.compact {
                        <span class="note">{ format!(" {}", w.note) }</span>
                    }
                </dd>
            </div>
        }
    });
    html! {
        <section class={classes!("panel", "lock-words", p.compact.then_some("compact"))}>
            if !p.compact {
                <h4>{ "shared memory" }</h4>
            }
            <dl class="words">{ for rows }</dl>
        </section>
    }
}
