//! The one output layer of the report commands (`hlo`, `peak`, `oom`, `relayouts`), pushed
//! to as ripgrep's printer is: [`Emitter::begin`], then [`Emitter::file`] with each input's
//! report, then [`Emitter::end`] (or [`Emitter::end_with`] a total), which alone closes
//! what `begin` opened. Each format is a sink of its own: the people's tables, TSV or CSV
//! rows, one JSON object. A report gives each what it writes ([`FileReport`]): its table,
//! its rows (structs whose fields are the columns, serialized field by field by [`flat`],
//! so a column is named as the JSON key of the same field), and itself as JSON. Numbers stay
//! numbers until a cell is printed.
//!
//! Also here: the `--format` chosen and warnings on standard error; the people's tables are
//! in [`table`].

mod cell;
mod flat;
mod table;

use std::fmt;
use std::io::{IsTerminal, Write as _};

use serde::Serialize;

use super::args::Format;
use super::io::{Failure, Out};

pub use self::cell::{record, Cell};
pub use self::flat::flat;
#[cfg(test)]
pub use self::flat::keys;
pub use self::table::{
    aligned, better, both, computation_names, count, human, names, row_table, why, Column, Fields,
};

/// `--format` as given, or a table on a terminal and TSV otherwise.
pub fn chosen_format(format: Option<Format>) -> Format {
    format.unwrap_or_else(
        || {
            if std::io::stdout().is_terminal() {
                Format::Table
            } else {
                Format::Tsv
            }
        },
    )
}

/// A line on standard error; if that cannot be written there is nowhere to say so.
pub fn warn(line: fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// One input's report, as each format writes it; as JSON it is itself, serialized (an
/// element of the list of files).
pub trait FileReport: Serialize {
    /// The table for people.
    fn table(&self) -> Result<String, Failure>;
    /// Its TSV and CSV rows, each pushed to `rows` (whose columns they must have).
    fn rows(&self, rows: &mut Rows<'_, '_>) -> Result<(), Failure>;
}

/// What a report command's output is made of, beside its files' reports.
#[derive(Clone, Copy, Debug)]
pub struct Head {
    /// The JSON's `version` ([`REPORT_VERSION`](xlayout::hlo::REPORT_VERSION)).
    pub version: u32,
    /// The JSON key of the list of files (`files`; `oom`'s `reports`).
    pub list: &'static str,
    /// The TSV and CSV header: every row's fields, in order.
    pub columns: &'static [&'static str],
}

/// Writes one report command's output in its format: begun, then a file at a time, then
/// ended (`end` and `end_with` take the emitter, so nothing is written after the end, and
/// only they close the JSON object that `begin` opened).
pub struct Emitter<'a, 'o> {
    out: &'a mut Out<'o>,
    sink: Sink,
}

/// The sink of one format.
enum Sink {
    Table(Tables),
    Rows(RowSink),
    Json(Json),
}

impl<'a, 'o> Emitter<'a, 'o> {
    /// Starts the output in `format`: for TSV and CSV the header of `head.columns`; for JSON
    /// `{"version": ..., "<list>": [`.
    pub fn begin(format: Format, head: Head, out: &'a mut Out<'o>) -> Result<Self, Failure> {
        let sink = match format {
            Format::Table => Sink::Table(Tables { files: 0 }),
            Format::Tsv | Format::Csv => Sink::Rows(RowSink { format, columns: head.columns }),
            Format::Json => Sink::Json(Json { files: 0 }),
        };
        match &sink {
            Sink::Table(_) => {}
            Sink::Rows(s) => s.header(out)?,
            Sink::Json(_) => Json::begin(out, head)?,
        }
        Ok(Emitter { out, sink })
    }

    /// One input's report: its table, its rows or its JSON object, whichever is written.
    pub fn file<R: FileReport>(&mut self, report: &R) -> Result<(), Failure> {
        match &mut self.sink {
            Sink::Table(s) => s.file(self.out, report),
            Sink::Rows(s) => s.file(self.out, report),
            Sink::Json(s) => s.file(self.out, report),
        }
    }

    /// Ends the output (closes the JSON object).
    pub fn end(self) -> Result<(), Failure> {
        match self.sink {
            Sink::Json(_) => Json::end(self.out, None::<(&str, &())>),
            Sink::Table(_) | Sink::Rows(_) => Ok(()),
        }
    }

    /// Ends the output with what comes after the files: in JSON `value` under `key`, after
    /// the list of files; in a table `table()`, after the files' tables.
    pub fn end_with<T: Serialize>(
        self,
        key: &'static str,
        value: &T,
        table: impl FnOnce() -> String,
    ) -> Result<(), Failure> {
        match self.sink {
            Sink::Json(_) => Json::end(self.out, Some((key, value))),
            Sink::Table(_) => self.out.text(&table()),
            Sink::Rows(_) => Ok(()),
        }
    }
}

/// The people's tables: each file's, a blank line between two.
struct Tables {
    files: usize,
}

impl Tables {
    fn file<R: FileReport>(&mut self, out: &mut Out<'_>, report: &R) -> Result<(), Failure> {
        let text = report.table()?;
        if self.files > 0 {
            out.text("\n")?;
        }
        self.files += 1;
        out.text(&text)
    }
}

/// TSV or CSV: a header line of the columns, then every file's rows.
struct RowSink {
    format: Format,
    columns: &'static [&'static str],
}

impl RowSink {
    fn header(&self, out: &mut Out<'_>) -> Result<(), Failure> {
        let header: Vec<Cell> = self.columns.iter().map(|c| Cell::Text((*c).to_string())).collect();
        out.text(&record(self.format, &header))
    }

    fn file<R: FileReport>(&mut self, out: &mut Out<'_>, report: &R) -> Result<(), Failure> {
        let mut rows = Rows { out, format: self.format, columns: self.columns, buf: String::new() };
        report.rows(&mut rows)?;
        rows.out.text(&rows.buf)
    }
}

/// The TSV or CSV records of one file, written in blocks (standard output is
/// line-buffered; a dump has hundreds of thousands of rows).
pub struct Rows<'s, 'o> {
    out: &'s mut Out<'o>,
    format: Format,
    columns: &'static [&'static str],
    buf: String,
}

/// A column whose numbers stand for names the JSON writes once, in a table beside the rows
/// (`computations`, `source_files`, `memory_spaces`): TSV and CSV write the name instead, as
/// a table shows it (cut to [`NAME_CHARS`](xlayout::hlo::NAME_CHARS) characters, its
/// length said), so a script reads the name and a long one costs a bounded cell.
pub struct ByName<'n> {
    /// The column.
    pub column: &'static str,
    /// The name of each number, as a table shows it (`None` for a number of no name).
    pub name: &'n dyn Fn(usize) -> Option<String>,
}

impl Rows<'_, '_> {
    /// Writes `row`, a struct whose fields are the columns (in order), the numbers of its
    /// `named` columns as their names.
    pub fn push<R: Serialize>(&mut self, row: &R, named: &[ByName<'_>]) -> Result<(), Failure> {
        let mut cells = flat(row)?;
        for (key, cell) in &mut cells {
            let Some(n) = named.iter().find(|n| n.column == key) else { continue };
            if let Cell::Int(k) = *cell {
                *cell = usize::try_from(k).ok().and_then(n.name).map_or(Cell::Null, Cell::Text);
            }
        }
        debug_assert_eq!(
            cells.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            self.columns.to_vec(),
            "a row's fields are its report's columns"
        );
        let values: Vec<Cell> = cells.into_iter().map(|(_, v)| v).collect();
        self.buf += &record(self.format, &values);
        if self.buf.len() >= 1 << 16 {
            self.out.text(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes every row of `rows`, the numbers of the `named` columns as their names.
    pub fn all<R: Serialize>(
        &mut self,
        rows: impl IntoIterator<Item = R>,
        named: &[ByName<'_>],
    ) -> Result<(), Failure> {
        rows.into_iter().try_for_each(|row| self.push(&row, named))
    }
}

/// JSON: `{"version": ..., "<list>": [` each file's object `]`, what ends it, `}`: one
/// object, as serde_json writes a struct of those fields, written as it is made (a report of
/// a large dump is never held whole).
struct Json {
    files: usize,
}

impl Json {
    fn begin(out: &mut Out<'_>, head: Head) -> Result<(), Failure> {
        out.text(&format!("{{\"version\":{},\"{}\":[", head.version, head.list))
    }

    fn file<R: Serialize>(&mut self, out: &mut Out<'_>, report: &R) -> Result<(), Failure> {
        if self.files > 0 {
            out.text(",")?;
        }
        self.files += 1;
        out.json(report)
    }

    fn end<T: Serialize>(out: &mut Out<'_>, tail: Option<(&str, &T)>) -> Result<(), Failure> {
        out.text("]")?;
        if let Some((key, value)) = tail {
            out.text(&format!(",\"{key}\":"))?;
            out.json(value)?;
        }
        out.text("}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of one row, for the sinks.
    #[derive(Serialize)]
    struct One {
        name: &'static str,
        n: u64,
    }

    impl FileReport for One {
        fn table(&self) -> Result<String, Failure> {
            Ok(format!("{} has {}\n", self.name, self.n))
        }
        fn rows(&self, rows: &mut Rows<'_, '_>) -> Result<(), Failure> {
            rows.push(self, &[])
        }
    }

    const HEAD: Head = Head { version: 9, list: "files", columns: &["name", "n"] };

    /// Every format, two files and an end: what each sink writes, balanced.
    fn written(format: Format, total: bool) -> String {
        let mut bytes = Vec::new();
        let mut out = Out::new(&mut bytes);
        let mut e = Emitter::begin(format, HEAD, &mut out).unwrap();
        e.file(&One { name: "a", n: 1 }).unwrap();
        e.file(&One { name: "b,\t", n: 2 }).unwrap();
        if total {
            e.end_with("total", &3, || String::from("\nall: 3\n")).unwrap();
        } else {
            e.end().unwrap();
        }
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn each_sink_writes_its_format() {
        assert_eq!(written(Format::Table, true), "a has 1\n\nb,\t has 2\n\nall: 3\n");
        assert_eq!(written(Format::Table, false), "a has 1\n\nb,\t has 2\n");
        assert_eq!(written(Format::Tsv, true), "name\tn\na\t1\nb,\\t\t2\n");
        assert_eq!(written(Format::Csv, false), "name,n\na,1\n\"b,\\t\",2\n");
        let json = r#"{"version":9,"files":[{"name":"a","n":1},{"name":"b,\t","n":2}]"#;
        assert_eq!(written(Format::Json, true), format!("{json},\"total\":3}}\n"));
        assert_eq!(written(Format::Json, false), format!("{json}}}\n"));
        let v: serde_json::Value = serde_json::from_str(&written(Format::Json, true)).unwrap();
        assert_eq!((v["version"].as_u64(), v["total"].as_u64()), (Some(9), Some(3)));
    }

    /// No file: a header alone, an empty list.
    #[test]
    fn no_file_is_an_empty_list() {
        let mut bytes = Vec::new();
        let mut out = Out::new(&mut bytes);
        Emitter::begin(Format::Json, HEAD, &mut out).unwrap().end().unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), "{\"version\":9,\"files\":[]}\n");
    }
}
