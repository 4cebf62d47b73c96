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

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct};
use xlayout::hlo::{module_files, units, Percent, Ratio, Stage};

use super::args::{Format, Stage as StageArg, Units};
use super::io::{self, Failure, Out};
use super::Status;

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

/// One cell of a row: a field's value as serde hands it over.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    /// A [`Ratio`]: printed to three significant figures.
    Ratio(f64),
    /// A [`Percent`]: printed to one decimal.
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
            Cell::Ratio(x) => f.write_str(&three_figures(*x)),
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

/// A ratio's serialized number back as its three significant figures (`3.2` -> `3.20`,
/// `128` -> `128`, `12300` -> `12300`): the number is the nearest `f64` to those figures,
/// so rounding it to three figures gives them back.
fn three_figures(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let e = x.abs().log10().floor() as i32;
    let decimals = (2 - e).max(0) as usize;
    let text = format!("{x:.decimals$}");
    // Near a power of ten log10 may land one off: keep three figures either way.
    let digits = text.bytes().filter(u8::is_ascii_digit).skip_while(|d| *d == b'0').count();
    if digits > 3 && decimals > 0 {
        return format!("{x:.prec$}", prec = decimals - 1);
    }
    if digits < 3 && text.contains('.') {
        return format!("{x:.prec$}", prec = decimals + 1);
    }
    text
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

/// A cell for CSV: a text that begins with `=`, `+`, `-`, `@` (or a tab or carriage
/// return) gets a `'` before it, as OWASP's advice for CSV injection and the
/// spreadsheet-safe CSV writers have it, so a spreadsheet shows it as text instead of
/// running it as a formula; the CSV writer then quotes it. Numbers and `-` (no value) are
/// left as they are.
fn csv_field(cell: &Cell) -> String {
    let text = cell.to_string();
    let risky = matches!(cell, Cell::Text(_) | Cell::List(_))
        && text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky {
        format!("'{text}")
    } else {
        text
    }
}

/// One CSV record as RFC 4180 quotes it (a field with a comma, a quote or a line end is
/// put in quotes, its quotes doubled); a field made inert by [`csv_field`] is quoted too.
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

/// A TSV field: backslashes, tabs and line ends escaped (`\\`, `\t`, `\n`, `\r`), and every
/// other control character as `\xNN` (`\u{NNNN}` beyond ASCII), so every row is one line of
/// tab-separated printable fields.
fn tsv_escape(field: &str, out: &mut String) {
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

/// The fields of a row (a struct or map of scalars and lists of scalars), in order: the
/// keys as serde names them, the values as [`Cell`]s.
pub fn flat<T: Serialize + ?Sized>(row: &T) -> Result<Vec<(String, Cell)>, Failure> {
    let mut cells = Vec::new();
    row.serialize(Flat(&mut cells)).map_err(|e| Failure::Output(std::io::Error::other(e.0)))?;
    Ok(cells)
}

/// Why a value is not a flat row.
#[derive(Debug)]
pub struct NotFlat(String);

impl fmt::Display for NotFlat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotFlat {}

impl ser::Error for NotFlat {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NotFlat(msg.to_string())
    }
}

fn not_flat<T>(what: &str) -> Result<T, NotFlat> {
    Err(NotFlat(format!("a row field holds {what}, which no cell can")))
}

/// Serializes a row: a struct's fields, or a map's entries (what `#[serde(flatten)]`
/// makes), into `(key, cell)` pairs.
struct Flat<'c>(&'c mut Vec<(String, Cell)>);

macro_rules! not_a_row {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), NotFlat> { not_flat("a scalar as a whole row") })*
    };
}

impl<'c> ser::Serializer for Flat<'c> {
    type Ok = ();
    type Error = NotFlat;
    type SerializeSeq = Impossible<(), NotFlat>;
    type SerializeTuple = Impossible<(), NotFlat>;
    type SerializeTupleStruct = Impossible<(), NotFlat>;
    type SerializeTupleVariant = Impossible<(), NotFlat>;
    type SerializeMap = FlatMap<'c>;
    type SerializeStruct = FlatMap<'c>;
    type SerializeStructVariant = Impossible<(), NotFlat>;

    not_a_row!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), NotFlat> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotFlat> {
        not_flat("a list as a whole row")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<FlatMap<'c>, NotFlat> {
        Ok(FlatMap { cells: self.0, key: None })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<FlatMap<'c>, NotFlat> {
        Ok(FlatMap { cells: self.0, key: None })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotFlat> {
        not_flat("an enum with data")
    }
}

/// The fields of a row being serialized.
struct FlatMap<'c> {
    cells: &'c mut Vec<(String, Cell)>,
    key: Option<String>,
}

impl SerializeMap for FlatMap<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), NotFlat> {
        match key.serialize(ToCell)? {
            Cell::Text(k) => self.key = Some(k),
            _ => return not_flat("a key that is not text"),
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NotFlat> {
        let key = self.key.take().unwrap_or_default();
        self.cells.push((key, value.serialize(ToCell)?));
        Ok(())
    }
    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

impl SerializeStruct for FlatMap<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        self.cells.push((key.to_string(), value.serialize(ToCell)?));
        Ok(())
    }
    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

/// Serializes one field's value into a [`Cell`].
struct ToCell;

impl ser::Serializer for ToCell {
    type Ok = Cell;
    type Error = NotFlat;
    type SerializeSeq = CellList;
    type SerializeTuple = Impossible<Cell, NotFlat>;
    type SerializeTupleStruct = Impossible<Cell, NotFlat>;
    type SerializeTupleVariant = Impossible<Cell, NotFlat>;
    type SerializeMap = Impossible<Cell, NotFlat>;
    type SerializeStruct = Impossible<Cell, NotFlat>;
    type SerializeStructVariant = Impossible<Cell, NotFlat>;

    fn serialize_bool(self, v: bool) -> Result<Cell, NotFlat> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, NotFlat> {
        Ok(Cell::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, NotFlat> {
        Ok(Cell::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(String::from_utf8_lossy(v).into_owned()))
    }
    fn serialize_none(self) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Cell, NotFlat> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Cell, NotFlat> {
        let inner = value.serialize(ToCell)?;
        Ok(match (name, inner) {
            (Ratio::SERDE_NAME, Cell::Float(x)) => Cell::Ratio(x),
            (Percent::SERDE_NAME, Cell::Float(x)) => Cell::Percent(x),
            (_, other) => other,
        })
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<CellList, NotFlat> {
        Ok(CellList(Vec::new()))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotFlat> {
        not_flat("an object")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, NotFlat> {
        not_flat("an object")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotFlat> {
        not_flat("an enum with data")
    }
}

/// A list field's elements.
struct CellList(Vec<Cell>);

impl SerializeSeq for CellList {
    type Ok = Cell;
    type Error = NotFlat;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NotFlat> {
        match value.serialize(ToCell)? {
            Cell::List(_) => not_flat("a list of lists"),
            cell => {
                self.0.push(cell);
                Ok(())
            }
        }
    }
    fn end(self) -> Result<Cell, NotFlat> {
        Ok(Cell::List(self.0))
    }
}

/// The keys of a row type, for a test to compare with its columns.
#[cfg(test)]
pub fn keys<T: Serialize>(row: &T) -> Vec<String> {
    flat(row).unwrap().into_iter().map(|(k, _)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_print_three_figures() {
        for (num, den) in [
            (5_242_880u64, 1_638_400u64),
            (128, 1),
            (1, 3),
            (9995, 1000),
            (12345, 1),
            (1, 1000),
            (1, 1),
            (u64::MAX, 1),
            (1, u64::MAX),
        ] {
            let r = Ratio::new(num, den).unwrap();
            assert_eq!(three_figures(r.value()), r.to_string(), "{num}/{den}");
        }
    }

    #[test]
    fn cells_and_escapes() {
        #[derive(serde::Serialize)]
        struct Inner {
            n: u64,
        }
        #[derive(serde::Serialize)]
        struct Row<'a> {
            text: &'a str,
            none: Option<u64>,
            yes: bool,
            list: Vec<u32>,
            words: Vec<&'a str>,
            #[serde(flatten)]
            inner: Inner,
        }
        let row = Row {
            text: "=1+2\t\0x",
            none: None,
            yes: true,
            list: vec![1, 0],
            words: vec!["a,b", "c"],
            inner: Inner { n: 7 },
        };
        let cells = flat(&row).unwrap();
        let keys: Vec<&str> = cells.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["text", "none", "yes", "list", "words", "n"]);
        let values: Vec<Cell> = cells.into_iter().map(|(_, v)| v).collect();
        assert_eq!(record(Format::Tsv, &values), "=1+2\\t\\x00x\t-\tyes\t1,0\ta,b; c\t7\n");
        assert_eq!(record(Format::Csv, &values), "\"'=1+2\t\0x\",-,yes,\"1,0\",\"a,b; c\",7\n");
        let plain = [Cell::Text("-".into()), Cell::Null, Cell::Text("@x".into()), Cell::Int(-1)];
        assert_eq!(record(Format::Csv, &plain), "\"'-\",-,\"'@x\",-1\n");
        let mut s = String::new();
        tsv_escape("a\u{7f}\u{85}\\", &mut s);
        assert_eq!(s, "a\\x7f\\u{0085}\\\\");
    }
}
