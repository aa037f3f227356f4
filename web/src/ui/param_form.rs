//! The parameter form (controls=full). Each field shows its refusal next to it.

use yew::prelude::*;

use crate::live::form::{Field, FieldKind, FormState};

/// Props of [`ParamForm`].
#[derive(Properties, PartialEq)]
pub struct ParamFormProps {
    /// The widget id (for unique element ids).
    pub wid: AttrValue,
    /// The fields (`FormParams::FIELDS` of the scenario type).
    pub fields: &'static [Field],
    /// What the fields hold.
    pub form: FormState,
    /// A field changed: (key, text).
    pub on_edit: Callback<(&'static str, String)>,
}

/// The form.
#[function_component(ParamForm)]
pub fn param_form(p: &ParamFormProps) -> Html {
    html! {
        <fieldset class="params">
            <legend>{ "parameters (a change restarts the simulation at step 0)" }</legend>
            { for p.fields.iter().enumerate().map(|(i, f)| {
                let id = format!("{}-{}", p.wid, f.key);
                let err_id = format!("{id}-error");
                let raw = p.form.raw.get(i).cloned().unwrap_or_default();
                let error = p.form.errors.get(i).cloned().flatten();
                let key = f.key;
                let cb = p.on_edit.clone();
                let input = match f.kind {
                    FieldKind::Number(range) => html! {
                        <>
                            <input id={id.clone()} type="text" inputmode="numeric" autocomplete="off"
                                data-testid={format!("input-{key}")} value={raw}
                                aria-invalid={error.is_some().to_string()}
                                aria-describedby={format!("{id}-hint {err_id}")}
                                oninput={Callback::from(move |e: InputEvent| {
                                    if let Some(el) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                                        cb.emit((key, el.value()));
                                    }
                                })} />
                            <span class="hint" id={format!("{id}-hint")}>{ range }</span>
                        </>
                    },
                    FieldKind::Choice(names) => {
                        let hint = f.hint.map(|h| h.text(&raw));
                        let hint_id = format!("{id}-hint");
                        html! {
                            <>
                                <select id={id.clone()} data-testid={format!("select-{key}")}
                                    aria-invalid={error.is_some().to_string()}
                                    aria-describedby={format!("{hint_id} {err_id}")}
                                    onchange={Callback::from(move |e: Event| {
                                        if let Some(el) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                                            cb.emit((key, el.value()));
                                        }
                                    })}>
                                    { for names.iter().map(|n| html! {
                                        <option value={*n} selected={raw == *n}
                                            title={f.hint.map(|h| h.text(n))}>{ *n }</option>
                                    }) }
                                </select>
                                if let Some(h) = hint {
                                    <span class="hint choice-hint" id={hint_id}
                                        data-testid={format!("hint-{key}")}>{ h }</span>
                                }
                            </>
                        }
                    }
                };
                html! {
                    <div class={classes!("field", error.is_some().then_some("invalid"))}>
                        <label for={id}>{ f.label }</label>
                        { input }
                        <span id={err_id} class="field-error-slot">
                            if let Some(e) = error {
                                <span class="field-error" data-testid={format!("error-{key}")} role="alert">{ e }</span>
                            }
                        </span>
                    </div>
                }
            }) }
        </fieldset>
    }
}
