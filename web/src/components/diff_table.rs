//! Two runs' counters side by side, with the difference (`diff-<key>`).

use yew::prelude::*;

/// Props of [`DiffTable`].
#[derive(Properties, PartialEq)]
pub struct DiffTableProps {
    /// The left column's heading.
    pub left: AttrValue,
    /// The right column's heading.
    pub right: AttrValue,
    /// (key, left value, right value), in order.
    pub rows: Vec<(&'static str, u64, u64)>,
}

/// The table.
#[function_component(DiffTable)]
pub fn diff_table(p: &DiffTableProps) -> Html {
    html! {
        <table class="diff">
            <caption>{ "counters side by side" }</caption>
            <thead>
                <tr>
                    <th scope="col">{ "counter" }</th>
                    <th scope="col">{ p.left.clone() }</th>
                    <th scope="col">{ p.right.clone() }</th>
                    <th scope="col">{ "right − left" }</th>
                </tr>
            </thead>
            <tbody>
                { for p.rows.iter().map(|&(key, l, r)| {
                    let d = r as i128 - l as i128;
                    html! {
                        <tr>
                            <th scope="row"><code>{ key }</code></th>
                            <td data-testid={format!("left-{key}")}>{ l }</td>
                            <td data-testid={format!("right-{key}")}>{ r }</td>
                            <td data-testid={format!("diff-{key}")}
                                class={classes!(if d < 0 { "less" } else if d > 0 { "more" } else { "same" })}>
                                { if d > 0 { format!("+{d}") } else { d.to_string() } }
                            </td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}
