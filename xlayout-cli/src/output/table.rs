//! The people's tables: byte counts in `--bytes` units, aligned columns, and tables of a
//! report's rows made from the same fields as its TSV, CSV and JSON ([`row_table`]).

use serde::Serialize;
use xlayout::hlo::{shown, units, CompId, Module};

use super::super::args::Units;
use super::super::io::Failure;
use super::cell::Cell;
use super::flat::flat;

/// A byte count in the `--bytes` units.
pub fn human(unit: Units, n: u64) -> String {
    match unit {
        Units::Oom => units::oom_bytes(n),
        Units::Exact => n.to_string(),
        Units::Iec => units::iec_bytes(n),
    }
}

/// A byte count in the `--bytes` units, with the exact count beside it unless exact already.
pub fn both(unit: Units, n: u64) -> String {
    let shown = human(unit, n);
    if shown == n.to_string() {
        shown
    } else {
        format!("{shown} ({n} bytes)")
    }
}

/// `1 line`, `2 lines`.
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn or_dash(s: String) -> String {
    if s.is_empty() {
        String::from("-")
    } else {
        s
    }
}

/// The name of computation number `k` of `m`, as a table shows it ([`shown`]): for the rows
/// whose `computation` is that number.
pub fn computation_names<'m>(m: &'m Module<'_>) -> impl Fn(usize) -> Option<String> + 'm {
    move |k| {
        let c = (k < m.computations.len()).then(|| CompId::new(k))?;
        Some(shown(m.computations[c].name).into_owned())
    }
}

/// Name number `k` of `table`, as a table shows it ([`shown`]).
pub fn names<S: AsRef<str>>(table: &[S]) -> impl Fn(usize) -> Option<String> + '_ {
    move |k| table.get(k).map(|name| shown(name.as_ref()).into_owned())
}

/// A table cell holds at most this many characters (a tuple's shape can be megabytes long;
/// every row would be padded to it).
const MAX_CELL: usize = 1000;

/// `cell`, cut to [`MAX_CELL`] characters (`...` at the end of a cut one), and its width.
fn clipped(cell: &str) -> (&str, &'static str, usize) {
    match cell.char_indices().nth(MAX_CELL) {
        Some((end, _)) => (&cell[..end], "...", MAX_CELL + 3),
        None => (cell, "", cell.chars().count()),
    }
}

/// Columns padded to their widest cell; the last column is not padded. Cells are cut to
/// [`MAX_CELL`] characters.
pub fn aligned(rows: &[Vec<String>], indent: &str) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width =
        |c: usize| rows.iter().filter_map(|r| r.get(c)).map(|s| clipped(s).2).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut s = String::new();
    for row in rows {
        s += indent;
        for (c, cell) in row.iter().enumerate() {
            let (text, cut, len) = clipped(cell);
            s += text;
            s += cut;
            if c + 1 < row.len() {
                // Padded by hand: a width in a format string is limited to 16 bits.
                s.extend(std::iter::repeat(' ').take(widths[c] - len + 2));
            }
        }
        s += "\n";
    }
    s
}

/// A column of a table for people, made from a row's fields as [`flat`] gives them: a
/// label, and the key (or keys) of the row it shows.
pub enum Column<'f> {
    /// A field as its cell prints (`-` for no value).
    Field(&'static str, &'static str),
    /// A byte count in the `--bytes` units.
    Bytes(&'static str, &'static str),
    /// A ratio with an `x` after it.
    Times(&'static str, &'static str),
    /// A cell made from several fields.
    Made(&'static str, &'f dyn Fn(&Fields) -> String),
}

impl Column<'_> {
    fn label(&self) -> &'static str {
        match self {
            Column::Field(l, _)
            | Column::Bytes(l, _)
            | Column::Times(l, _)
            | Column::Made(l, _) => l,
        }
    }
}

/// A row's fields by name, for a table's columns.
pub struct Fields(Vec<(String, Cell)>);

impl Fields {
    /// The cell of field `key`. A key the row does not have is a column written wrong, not
    /// a value to leave out: it fails every test that draws the table (in a build without
    /// debug assertions it reads as no value, `-`).
    pub fn get(&self, key: &str) -> &Cell {
        let found = self.0.iter().find(|(k, _)| k == key);
        debug_assert!(
            found.is_some(),
            "a table column reads `{key}`, which is not a key of its row: {:?}",
            self.0.iter().map(|(k, _)| k).collect::<Vec<_>>()
        );
        found.map_or(&Cell::Null, |(_, c)| c)
    }

    /// The text of field `key`.
    pub fn text(&self, key: &str) -> String {
        self.get(key).to_string()
    }

    /// The number of field `key`, if it is one.
    pub fn number(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Cell::Int(n) => u64::try_from(*n).ok(),
            _ => None,
        }
    }
}

/// The `why` of a table: a list's texts joined with `, ` (`-` for none).
pub fn why(f: &Fields, key: &str) -> String {
    match f.get(key) {
        Cell::List(items) => {
            or_dash(items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
        }
        other => other.to_string(),
    }
}

/// The `better layout` of a table: a layout and its size in `unit` (`-` for none).
pub fn better(f: &Fields, layout: &str, bytes: &str, unit: Units) -> String {
    match (f.get(layout), f.number(bytes)) {
        (Cell::Text(l), Some(n)) => format!("{l} {}", human(unit, n)),
        _ => String::from("-"),
    }
}

/// Rows as an aligned table under a header of the columns' labels: the people's view of
/// the same rows TSV, CSV and JSON write, through the same [`flat`] serialization.
pub fn row_table<R: Serialize>(
    rows: impl IntoIterator<Item = R>,
    columns: &[&Column<'_>],
    unit: Units,
) -> Result<String, Failure> {
    let mut lines = vec![columns.iter().map(|c| c.label().to_string()).collect::<Vec<_>>()];
    for row in rows {
        let fields = Fields(flat(&row)?);
        lines.push(
            columns
                .iter()
                .map(|c| match *c {
                    Column::Field(_, key) => fields.text(key),
                    Column::Bytes(_, key) => {
                        fields.number(key).map_or_else(|| fields.text(key), |n| human(unit, n))
                    }
                    Column::Times(_, key) => match fields.get(key) {
                        Cell::Null => String::from("-"),
                        cell => format!("{cell}x"),
                    },
                    Column::Made(_, make) => make(&fields),
                })
                .collect(),
        );
    }
    Ok(aligned(&lines, "  "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        name: &'static str,
        bytes: u64,
    }

    #[test]
    fn a_table_of_rows() {
        let columns = [&Column::Field("who", "name"), &Column::Bytes("size", "bytes")];
        let rows = [Row { name: "a", bytes: 2048 }, Row { name: "bb", bytes: 7 }];
        let table = row_table(rows, &columns, Units::Oom).unwrap();
        assert_eq!(table, "  who  size\n  a    2.0K\n  bb   7B\n");
    }

    /// A column that names no key of the row is a mistake the tests catch (a debug
    /// assertion: the tests' builds have them).
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a table column reads `nmae`")]
    fn a_column_of_no_key_fails() {
        let columns = [&Column::Field("who", "nmae")];
        let _ = row_table([Row { name: "a", bytes: 1 }], &columns, Units::Oom);
    }
}
