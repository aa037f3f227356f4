//! The lock's shared words: the lock word, `wait`, the semaphore's count and its sleepers (or the
//! ticket lock's two counters, or the futex word and its queue).

use std::rc::Rc;

use yew::prelude::*;

use crate::live::snapshot::WordView;

/// Props of [`LockWords`].
#[derive(Properties, PartialEq)]
pub struct LockWordsProps {
    /// The words.
    pub words: Rc<Vec<WordView>>,
    /// One line instead of a panel (the comparison).
    #[prop_or_default]
    pub compact: bool,
}

/// The words panel.
#[function_component(LockWords)]
pub fn lock_words(p: &LockWordsProps) -> Html {
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
