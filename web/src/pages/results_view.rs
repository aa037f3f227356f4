//! The body of `#/results` (in the lazy bundle only: `feature = "lazy"`): open one or more files of
//! `herdlab bench <mechanism> … --json` (file picker or drag and drop; read in the browser, never
//! uploaded), read each with core's `results::parse_bytes`, and draw each mechanism's charts with
//! every file's rows overlaid (core's `results::overlay` and `chart::svg_element`: the same charts
//! as `herdlab bench … --svg`), with the numbers as tables. A file that is refused gets a message
//! naming it and the problem, never a blank page.
//!
//! Generic: the mechanism is read from the rows; no mechanism is named here.

use herdlab_core::chart::svg_element;
use herdlab_core::results::{overlay, parse_bytes, Results, MAX_BYTES};
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DragEvent, File, FileList, HtmlInputElement};
use yew::prelude::*;

/// Props of [`ResultsView`].
#[derive(Properties, PartialEq, Clone)]
pub struct ResultsProps {
    /// The address's query (unused for now: the files are the page's input).
    #[prop_or_default]
    pub query: AttrValue,
}

/// One opened file.
struct Run {
    /// Its name, as the charts and tables label it (made unique).
    label: String,
    /// Its rows, or why they were refused.
    outcome: Result<Results, String>,
}

/// Messages of [`ResultsView`].
pub enum Msg {
    /// Files were picked or dropped.
    Files(Vec<File>),
    /// A file was read (its name, and what was read).
    Read(String, Result<Results, String>),
    /// Something is dragged over the drop zone (or left it).
    Drag(bool),
    /// Forget every file.
    Clear,
}

/// The body of the results page.
pub struct ResultsView {
    runs: Vec<Run>,
    dragging: bool,
}

/// The files of a list.
fn files_of(list: Option<FileList>) -> Vec<File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Read `file` whole and parse it.
async fn read(file: File) -> Result<Results, String> {
    let size = file.size();
    if size > MAX_BYTES as f64 {
        return Err(format!(
            "file: {size} bytes; a results file has at most {MAX_BYTES} bytes"
        ));
    }
    let buf = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("the browser could not read it ({e:?})"))?;
    let bytes = js_sys::Uint8Array::new(&buf).to_vec();
    parse_bytes(&bytes).map_err(|e| e.to_string())
}

/// A cell of the table.
fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

impl ResultsView {
    fn unique_label(&self, name: &str) -> String {
        let taken = |l: &str| self.runs.iter().any(|r| r.label == l);
        if !taken(name) {
            return name.to_string();
        }
        (2..)
            .map(|i| format!("{name} ({i})"))
            .find(|l| !taken(l))
            .unwrap_or_default()
    }

    /// The mechanisms of the files read, in the order they were first opened.
    fn mechanisms(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for r in &self.runs {
            if let Ok(res) = &r.outcome {
                if !out.contains(&res.mechanism) {
                    out.push(res.mechanism);
                }
            }
        }
        out
    }

    fn view_group(&self, idx: usize, mechanism: &'static str) -> Html {
        let runs: Vec<(&str, &Results)> = self
            .runs
            .iter()
            .filter_map(|r| match &r.outcome {
                Ok(res) if res.mechanism == mechanism => Some((r.label.as_str(), res)),
                _ => None,
            })
            .collect();
        let pairs: Vec<(&str, &[Value])> =
            runs.iter().map(|(l, r)| (*l, r.rows.as_slice())).collect();
        let charts = overlay(mechanism, &pairs);
        let names: Vec<&str> = runs.iter().map(|(l, _)| *l).collect();
        let title = format!("herdlab bench {mechanism}: {}", names.join(", "));
        let subtitle = if runs.len() > 1 {
            format!(
                "{} runs overlaid, each series named after its file",
                runs.len()
            )
        } else {
            format!("{} rows", runs[0].1.rows.len())
        };
        let svg = svg_element(&format!("r{idx}-"), &title, &subtitle, &charts);
        html! {
            <section class="results-group" data-testid="results-group" data-mechanism={mechanism}>
                <h2>{ format!("herdlab bench {mechanism}") }</h2>
                <div class="results-chart" data-testid="results-chart">
                    { Html::from_html_unchecked(AttrValue::from(svg)) }
                </div>
                { for runs.iter().map(|(label, r)| Self::view_table(label, r)) }
            </section>
        }
    }

    fn view_table(label: &str, r: &Results) -> Html {
        let caption = format!(
            "{label}: {} rows of herdlab bench {}",
            r.rows.len(),
            r.mechanism
        );
        // a wide table scrolls: the region is focusable so that keys scroll it too
        html! {
            <div class="results-table-wrap" tabindex="0" role="region" aria-label={caption.clone()}>
                <table class="results-table" data-testid="results-table">
                    <caption>{ caption }</caption>
                    <thead><tr>{ for r.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr></thead>
                    <tbody>
                        { for r.rows.iter().map(|row| html! {
                            <tr>{ for r.columns.iter().map(|c| html! { <td>{ cell(row.get(c)) }</td> }) }</tr>
                        }) }
                    </tbody>
                </table>
            </div>
        }
    }
}

impl Component for ResultsView {
    type Message = Msg;
    type Properties = ResultsProps;

    fn create(_ctx: &Context<Self>) -> Self {
        ResultsView {
            runs: Vec::new(),
            dragging: false,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Files(files) => {
                for f in files {
                    let link = ctx.link().clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let name = f.name();
                        let r = read(f).await;
                        link.send_message(Msg::Read(name, r));
                    });
                }
                false
            }
            Msg::Read(name, outcome) => {
                let label = self.unique_label(&name);
                self.runs.push(Run { label, outcome });
                true
            }
            Msg::Drag(on) => {
                let changed = self.dragging != on;
                self.dragging = on;
                changed
            }
            Msg::Clear => {
                self.runs.clear();
                true
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let on_change = link.batch_callback(|e: Event| {
            let input = e.target()?.dyn_into::<HtmlInputElement>().ok()?;
            let files = files_of(input.files());
            input.set_value("");
            Some(Msg::Files(files))
        });
        let on_over = link.callback(|e: DragEvent| {
            e.prevent_default();
            Msg::Drag(true)
        });
        let on_leave = link.callback(|_: DragEvent| Msg::Drag(false));
        let on_drop = link.batch_callback(|e: DragEvent| {
            e.prevent_default();
            let files = files_of(e.data_transfer().and_then(|d| d.files()));
            vec![Msg::Drag(false), Msg::Files(files)]
        });
        let clear = link.callback(|_: MouseEvent| Msg::Clear);
        let errors: Vec<(&str, &str)> = self
            .runs
            .iter()
            .filter_map(|r| {
                r.outcome
                    .as_ref()
                    .err()
                    .map(|e| (r.label.as_str(), e.as_str()))
            })
            .collect();
        let read: Vec<&Run> = self.runs.iter().filter(|r| r.outcome.is_ok()).collect();
        let drop_class = classes!("results-drop", self.dragging.then_some("dragging"));
        html! {
            <div class="results" data-testid="results">
                <p>
                    { "Open the JSON that " }<code>{ "herdlab bench <mechanism> … --json > run.json" }</code>
                    { " printed, on your machine or on two (or before and after a change): each \
                       mechanism's charts are drawn with every file's rows overlaid, the same charts \
                       as " }<code>{ "--svg" }</code>{ ". The files are read here, in your browser, and \
                       never uploaded." }
                </p>
                <div class={drop_class} ondragover={on_over} ondragleave={on_leave} ondrop={on_drop} data-testid="results-drop">
                    <label for="results-file">{ "Results files (JSON): " }</label>
                    <input id="results-file" type="file" multiple=true accept=".json,application/json"
                        onchange={on_change} data-testid="results-file" />
                    <p>{ "or drop them here." }</p>
                </div>
                { for errors.iter().map(|(label, e)| html! {
                    <p class="results-error" role="alert" data-testid="results-error">
                        <strong>{ format!("{label}: ") }</strong>{ format!("not read: {e}") }
                    </p>
                }) }
                if !self.runs.is_empty() {
                    <p class="results-files" data-testid="results-files">
                        { format!("{} file{} read", read.len(), if read.len() == 1 { "" } else { "s" }) }
                        { if read.is_empty() { String::new() } else {
                            format!(": {}", read.iter().map(|r| r.label.clone()).collect::<Vec<_>>().join(", "))
                        } }
                        { " " }
                        <button onclick={clear} data-testid="results-clear">{ "forget all files" }</button>
                    </p>
                }
                { for self.mechanisms().into_iter().enumerate().map(|(i, m)| self.view_group(i, m)) }
            </div>
        }
    }
}
