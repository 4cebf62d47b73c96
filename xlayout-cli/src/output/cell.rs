//! A row's cells and how a cell is written: as text, as a CSV field (made inert for
//! spreadsheets), as a TSV field (escaped).

use std::fmt::{self, Write as _};

use super::super::args::Format;

/// One cell of a row: a field's value as serde hands it over.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    /// A [`Ratio`](xlayout::hlo::Ratio): printed to its three significant figures
    /// ([`figures`](xlayout::hlo::units::figures)).
    Ratio(f64),
    /// A [`Percent`](xlayout::hlo::Percent): printed to one decimal.
    Percent(f64),
    Text(String),
    List(Vec<Cell>),
}

impl fmt::Display for Cell {
    /// The text of a cell: `-` for null, `yes`/`no`, numbers as they are, a ratio to three
    /// significant figures, a list's elements joined (`,` between numbers, `; ` between
    /// texts, which may hold commas).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => f.write_str("-"),
            Cell::Bool(b) => f.write_str(if *b { "yes" } else { "no" }),
            Cell::Int(n) => write!(f, "{n}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Ratio(x) => f.write_str(&xlayout::hlo::units::figures(*x)),
            Cell::Percent(x) => write!(f, "{x:.1}"),
            Cell::Text(t) => f.write_str(t),
            Cell::List(items) => {
                let numbers = items.iter().all(|c| matches!(c, Cell::Int(_) | Cell::Float(_)));
                let separator = if numbers { "," } else { "; " };
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(separator)?;
                    }
                    write!(f, "{item}")?;
                }
                Ok(())
            }
        }
    }
}

/// One record of script output: CSV (RFC 4180, cells a spreadsheet would take for a
/// formula made inert) or TSV (fields escaped), with its line end.
pub fn record(format: Format, cells: &[Cell]) -> String {
    if format == Format::Csv {
        let fields: Vec<String> = cells.iter().map(csv_field).collect();
        return csv_line(&fields);
    }
    let mut line = String::new();
    for (k, cell) in cells.iter().enumerate() {
        if k > 0 {
            line.push('\t');
        }
        tsv_escape(&cell.to_string(), &mut line);
    }
    line.push('\n');
    line
}

/// A cell for CSV: its text escaped as a TSV field is (backslashes, tabs, line ends, NUL and
/// every other control character: a dump's names and paths may hold any of them, and a
/// spreadsheet or a CSV reader would cut a field at a NUL or take a line end for a row's),
/// then, when it begins with `=`, `+`, `-`, `@`, a `'` before it, as OWASP's advice for CSV
/// injection and the spreadsheet-safe CSV writers have it, so a spreadsheet shows it as
/// text instead of running it as a formula; the CSV writer then quotes it. Numbers and `-`
/// (no value) are left as they are.
fn csv_field(cell: &Cell) -> String {
    let mut text = String::new();
    tsv_escape(&cell.to_string(), &mut text);
    let risky =
        matches!(cell, Cell::Text(_) | Cell::List(_)) && text.starts_with(['=', '+', '-', '@']);
    if risky {
        format!("'{text}")
    } else {
        text
    }
}

/// One CSV record as RFC 4180 quotes it (a field with a comma or a quote is put in quotes,
/// its quotes doubled; [`csv_field`] leaves no line end); a field made inert by
/// [`csv_field`] is quoted too.
fn csv_line(fields: &[String]) -> String {
    let mut line = String::new();
    for (k, f) in fields.iter().enumerate() {
        if k > 0 {
            line.push(',');
        }
        if f.contains([',', '"', '\n', '\r']) || f.starts_with('\'') {
            line.push('"');
            line.push_str(&f.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(f);
        }
    }
    line.push('\n');
    line
}

/// A TSV field (and a CSV field, before it is quoted): backslashes, tabs and line ends
/// escaped (`\\`, `\t`, `\n`, `\r`), and every other control character as `\xNN`
/// (`\u{NNNN}` beyond ASCII), so every row is one line of printable fields.
pub(super) fn tsv_escape(field: &str, out: &mut String) {
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && c.is_ascii() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:04x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
}
