//! Several runs' counters side by side, one column per run (`cmp-<run>-<key>`, the plain number).

use yew::prelude::*;

/// What [`compare_table`] shows (a view function, not a component: it has no state of its own).
pub struct CompareTableProps {
    /// The runs' names (column headings and test ids).
    pub names: Vec<AttrValue>,
    /// (key, one value per run), in order.
    pub rows: Vec<(&'static str, Vec<u64>)>,
}

/// The table.
pub fn compare_table(p: &CompareTableProps) -> Html {
    html! {
        <table class="diff compare-table">
            <caption>{ "counters side by side (same seed, same arrivals)" }</caption>
            <thead>
                <tr>
                    <th scope="col">{ "counter" }</th>
                    { for p.names.iter().map(|n| html! { <th scope="col">{ n.clone() }</th> }) }
                </tr>
            </thead>
            <tbody>
                { for p.rows.iter().map(|(key, vals)| {
                    let lo = vals.iter().copied().min().unwrap_or(0);
                    let hi = vals.iter().copied().max().unwrap_or(0);
                    html! {
                        <tr>
                            <th scope="row" data-key={*key}>{ crate::ui::counters::counter_label(key) }</th>
                            { for p.names.iter().zip(vals).map(|(n, &v)| html! {
                                <td data-testid={format!("cmp-{n}-{key}")}
                                    class={classes!((lo != hi && v == hi).then_some("most"), (lo != hi && v == lo).then_some("least"))}>{ v }</td>
                            }) }
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}
