//! "Predict, then reveal": the reveal shows only after the learner picks.

use std::rc::Rc;

use yew::prelude::*;

use crate::lesson::predict::PredictSpec;

/// Props of [`PredictWidget`].
#[derive(Properties, PartialEq)]
pub struct PredictProps {
    /// The block.
    pub spec: Rc<PredictSpec>,
    /// Its index in the lesson (for ids).
    pub idx: usize,
}

/// The question.
#[function_component(PredictWidget)]
pub fn predict(p: &PredictProps) -> Html {
    let pick = use_state(|| None::<usize>);
    let s = &p.spec;
    let name = format!("predict-{}", p.idx);
    let verdict = pick.map(|k| {
        let chosen = s.options.get(k).cloned().unwrap_or_default();
        let text = match s.answer {
            Some(a) if a == k => format!("Right: {chosen}."),
            Some(a) => format!(
                "Not quite: you picked {chosen}; the answer is {}.",
                s.options.get(a).cloned().unwrap_or_default()
            ),
            None => format!("You picked {chosen}."),
        };
        let right = s.answer == Some(k);
        html! {
            <>
                <p class={classes!("verdict", if right { "right" } else { "wrong" })}
                    data-testid="predict-verdict" data-correct={right.to_string()}>{ text }</p>
                <p>{ &s.reveal }</p>
            </>
        }
    });
    html! {
        <section class="widget predict" data-testid={name.clone()}>
            if !s.errors.is_empty() {
                <div class="block-error" role="alert" data-testid="block-error">
                    <p>{ "This question block has problems:" }</p>
                    <ul>{ for s.errors.iter().map(|e| html! { <li>{ e }</li> }) }</ul>
                </div>
            }
            <fieldset>
                <legend><span class="kicker">{ "Predict" }</span>{ &s.q }</legend>
                <div class="options">
                    { for s.options.iter().enumerate().map(|(k, o)| {
                        let pick = pick.clone();
                        html! {
                            <label class={classes!("option", (*pick == Some(k)).then_some("picked"))}>
                                <input type="radio" name={name.clone()} value={k.to_string()}
                                    data-testid={format!("predict-option-{k}")}
                                    checked={*pick == Some(k)}
                                    onchange={Callback::from(move |_| pick.set(Some(k)))} />
                                <span>{ o }</span>
                            </label>
                        }
                    }) }
                </div>
            </fieldset>
            <div class="reveal" aria-live="polite" data-testid={if verdict.is_some() { "predict-reveal" } else { "predict-waiting" }}>
                if let Some(v) = verdict {
                    { v }
                } else {
                    <p class="hint">{ "Pick an answer to see the explanation." }</p>
                }
            </div>
        </section>
    }
}
