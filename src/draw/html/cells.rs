//! Small pieces of the page's tables, shared by its sections.

use crate::memory::units::iec_bytes;

/// A byte count as a table cell: readable text, the exact count to sort by and hover.
pub(super) fn bytes_cell(n: u64) -> String {
    format!("<td class=\"num\" data-value=\"{n}\" title=\"{n} bytes\">{}</td>", iec_bytes(n))
}

/// `part / whole` as a percentage with one decimal, `-` without a whole.
pub(super) fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return String::from("-");
    }
    let tenths = (u128::from(part) * 1000 + u128::from(whole) / 2) / u128::from(whole);
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// A name cut to `n` characters with an ellipsis.
pub(super) fn cut(name: &str, n: usize) -> String {
    if name.chars().count() > n {
        name.chars().take(n - 1).chain(['\u{2026}']).collect()
    } else {
        name.to_string()
    }
}
