//! The one output layer of the report commands (`hlo`, `peak`, `oom`): a report is a list
//! of files, each with rows of one serde struct (a library type); [`Emitter::run`] writes
//! them as an aligned table for people, as TSV or CSV rows, or as one JSON value whose
//! envelope (`{"version", "files": [...], ...}`) is serialized by serde, the files written
//! as they are read. A TSV or CSV row is the row struct serialized field by field
//! ([`flat`]), so its column names are the JSON keys of the same struct; numbers stay
//! numbers until a cell is printed ([`Ratio`](xlayout::hlo::Ratio) as its three significant
//! figures).
//!
//! Also here: the `--format` chosen, byte counts in `--bytes` units, aligned text, warnings
//! on standard error, and the files that FILE|DIR arguments name.

mod cell;
mod flat;

use std::cell::RefCell;
use std::fmt;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;

use serde::ser::{self, Serialize, SerializeSeq};
use xlayout::hlo::{module_files, units, Stage};

use super::args::{Format, Stage as StageArg, Units};
use super::io::{self, Failure, Out};
use super::Status;

pub use self::cell::{record, Cell};
pub use self::flat::flat;
#[cfg(test)]
pub use self::flat::keys;

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

/// The files FILE|DIR|- arguments stand for: each directory replaced by its module text of
/// `stage`; status 1 (said on standard error) for a directory without any.
pub fn module_inputs(
    inputs: &[PathBuf],
    stage: StageArg,
) -> Result<(Vec<PathBuf>, Status), Failure> {
    let picked = match stage {
        StageArg::After => Stage::After,
        StageArg::Before => Stage::Before,
        StageArg::All => Stage::All,
    };
    let mut status = 0;
    let mut files: Vec<PathBuf> = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let found = io::list_dir(input, |d| module_files(d, picked))?;
            if found.is_empty() {
                status = 1;
                warn(format_args!(
                    "{}: no module text of stage {} here (see --stage)",
                    input.display(),
                    format!("{stage:?}").to_lowercase()
                ));
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    Ok((files, status))
}

/// `1 line`, `2 lines`.
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

pub fn or_dash(s: String) -> String {
    if s.is_empty() {
        String::from("-")
    } else {
        s
    }
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

/// A line on standard error; if that cannot be written there is nowhere to say so.
pub fn warn(line: fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Writes one report command's output in its `--format`.
pub struct Emitter<'a, 'o> {
    format: Format,
    out: &'a mut Out<'o>,
}

impl<'a, 'o> Emitter<'a, 'o> {
    pub fn new(format: Format, out: &'a mut Out<'o>) -> Emitter<'a, 'o> {
        Emitter { format, out }
    }

    /// Runs the command's loop in `stream` (which reads every input and hands what each
    /// gives to its [`Sink`]). TSV and CSV start with `columns` (every row must have exactly
    /// these fields, in order); JSON is `envelope` serialized, whose list of files
    /// ([`Stream::files`]) runs the loop as it is written.
    pub fn run<E: Serialize>(
        self,
        columns: &'static [&'static str],
        stream: &Stream<'_>,
        envelope: &E,
    ) -> Result<(), Failure> {
        let format = self.format;
        if format == Format::Json {
            let written = self.out.json(envelope);
            if let Some(failure) = stream.failure.take() {
                return Err(failure);
            }
            written?;
            return self.out.text("\n");
        }
        let Some(each) = stream.each.take() else { return Ok(()) };
        let mut sink = Sink { format, target: Target::Text { out: self.out, columns }, files: 0 };
        if matches!(format, Format::Tsv | Format::Csv) {
            let header: Vec<Cell> = columns.iter().map(|c| Cell::Text((*c).to_string())).collect();
            let line = record(format, &header);
            sink.write(&line)?;
        }
        each(&mut sink)
    }
}

/// Where a [`Sink`] writes.
enum Target<'s, 'o> {
    /// Table, TSV or CSV text on standard output.
    Text { out: &'s mut Out<'o>, columns: &'static [&'static str] },
    /// Elements of the JSON list of files.
    Json(&'s mut dyn FnMut(&dyn erased_serde::Serialize) -> Result<(), Failure>),
}

/// What a report command hands each input's results to: a table, rows, a JSON object; each
/// goes out only in its own format (ask [`Sink::wants`] before building one).
pub struct Sink<'s, 'o> {
    format: Format,
    target: Target<'s, 'o>,
    files: usize,
}

impl Sink<'_, '_> {
    /// Whether `format` is the one being written.
    pub fn wants(&self, format: Format) -> bool {
        self.format == format
    }

    fn write(&mut self, text: &str) -> Result<(), Failure> {
        match &mut self.target {
            Target::Text { out, .. } => out.text(text),
            Target::Json(_) => Ok(()),
        }
    }

    /// One input's table, after a blank line from the one before.
    pub fn table(&mut self, text: &str) -> Result<(), Failure> {
        if self.format != Format::Table {
            return Ok(());
        }
        if self.files > 0 {
            self.write("\n")?;
        }
        self.files += 1;
        self.write(text)
    }

    /// Text after the inputs' tables (a total).
    pub fn table_end(&mut self, text: &str) -> Result<(), Failure> {
        if self.format != Format::Table {
            return Ok(());
        }
        self.write(text)
    }

    /// One input's rows, as TSV or CSV records with the emitter's columns. Written in
    /// blocks (standard output is line-buffered; a dump has hundreds of thousands of rows).
    pub fn rows<R: Serialize>(&mut self, rows: impl IntoIterator<Item = R>) -> Result<(), Failure> {
        let format = self.format;
        let Target::Text { out, columns } = &mut self.target else { return Ok(()) };
        if !matches!(format, Format::Tsv | Format::Csv) {
            return Ok(());
        }
        let mut buf = String::new();
        for row in rows {
            let cells = flat(&row)?;
            debug_assert_eq!(
                cells.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
                columns.to_vec(),
                "a row's fields are its report's columns"
            );
            let values: Vec<Cell> = cells.into_iter().map(|(_, v)| v).collect();
            buf += &record(format, &values);
            if buf.len() >= 1 << 16 {
                out.text(&buf)?;
                buf.clear();
            }
        }
        out.text(&buf)
    }

    /// One input's object in the JSON list of files.
    pub fn json(&mut self, value: &dyn erased_serde::Serialize) -> Result<(), Failure> {
        match &mut self.target {
            Target::Json(element) => element(value),
            Target::Text { .. } => Ok(()),
        }
    }
}

/// The list of files in a JSON envelope: serialized as it is made, by running the
/// command's loop ([`Stream::files`]).
pub struct Files<'a, 's>(&'a Stream<'s>);

type Each<'s> = Box<dyn FnOnce(&mut Sink<'_, '_>) -> Result<(), Failure> + 's>;

/// A report command's loop over its inputs, run once: by [`Emitter::run`] for text, or,
/// for JSON, while its [`Files`] are serialized, each [`Sink::json`] becoming an element.
/// A failure to read an input stops it and is kept for [`Emitter::run`] to return.
pub struct Stream<'s> {
    each: RefCell<Option<Each<'s>>>,
    failure: RefCell<Option<Failure>>,
}

impl<'s> Stream<'s> {
    pub fn new(each: impl FnOnce(&mut Sink<'_, '_>) -> Result<(), Failure> + 's) -> Stream<'s> {
        Stream { each: RefCell::new(Some(Box::new(each))), failure: RefCell::new(None) }
    }

    /// The list the loop makes, for the JSON envelope.
    pub fn files(&self) -> Files<'_, 's> {
        Files(self)
    }
}

impl Serialize for Files<'_, '_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::Error as _;
        let stream = self.0;
        let Some(each) = stream.each.borrow_mut().take() else {
            return Err(S::Error::custom("the list of files is written once"));
        };
        let mut seq = s.serialize_seq(None)?;
        let mut error: Option<S::Error> = None;
        let mut element = |value: &dyn erased_serde::Serialize| {
            seq.serialize_element(value).map_err(|e| {
                let stop = Failure::Output(std::io::Error::other(e.to_string()));
                error = Some(e);
                stop
            })
        };
        let mut sink = Sink { format: Format::Json, target: Target::Json(&mut element), files: 0 };
        let result = each(&mut sink);
        if let Some(e) = error {
            return Err(e);
        }
        if let Err(failure) = result {
            *stream.failure.borrow_mut() = Some(failure);
            return Err(S::Error::custom("an input could not be read"));
        }
        seq.end()
    }
}

/// A column of a table for people, made from a row's fields as [`flat`] gives them.
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

/// A row's fields by name, for [`Column::Made`].
pub struct Fields(Vec<(String, Cell)>);

impl Fields {
    /// The cell of field `key` (`Null` if there is none).
    pub fn get(&self, key: &str) -> &Cell {
        self.0.iter().find(|(k, _)| k == key).map_or(&Cell::Null, |(_, c)| c)
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
    let label = |c: &Column<'_>| match c {
        Column::Field(l, _) | Column::Bytes(l, _) | Column::Times(l, _) | Column::Made(l, _) => {
            l.to_string()
        }
    };
    let mut lines = vec![columns.iter().map(|c| label(c)).collect::<Vec<_>>()];
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

/// A value of the JSON envelope that is known only once the list of files before it has
/// been written (a total): serialized as it is then.
pub struct Later<'a, T>(pub &'a RefCell<T>);

impl<T: Serialize> Serialize for Later<'_, T> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.borrow().serialize(s)
    }
}
