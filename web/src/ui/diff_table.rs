//! Two runs' counters side by side, with the difference (`diff-<key>`).

use yew::prelude::*;

/// Props of [`diff_table`].
#[derive(Properties, PartialEq)]
pub struct DiffTableProps {
    /// The left column's heading.
    pub left: AttrValue,
    /// The right column's heading.
    pub right: AttrValue,
    /// (key, left value, right value), in order.
    pub rows: Vec<(&'static str, u64, u64)>,
}

/// The rows of [`DiffTableProps`] for two runs' counters (the same keys in the same order).
pub fn diff_rows(
    left: &[(&'static str, u64)],
    right: &[(&'static str, u64)],
) -> Vec<(&'static str, u64, u64)> {
    left.iter()
        .zip(right)
        .map(|(&(key, l), &(_, r))| (key, l, r))
        .collect()
}

/// The table.
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
                            <th scope="row" data-key={key}>{ crate::ui::counters::counter_label(key) }</th>
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

#[cfg(test)]
mod tests {
    use super::diff_rows;

    #[test]
    fn the_rows_pair_each_counter_of_the_left_with_the_right() {
        let left = [("steps", 3), ("wakeups", 1)];
        let right = [("steps", 5), ("wakeups", 0)];
        assert_eq!(
            diff_rows(&left, &right),
            vec![("steps", 3, 5), ("wakeups", 1, 0)]
        );
    }
}
