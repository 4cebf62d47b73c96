//! What the report commands (`hlo`, its `--peak`, `oom`) share in how they write: the
//! `--format` chosen, byte counts in the `--bytes` units, TSV and CSV records, aligned
//! tables for people, warnings on standard error; and the files `hlo` arguments name.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;

use xlayout::hlo::{module_files, units, Stage};

use super::args::{Format, Hlo, Units};
use super::io::{self, Failure};
use super::Status;

impl Hlo {
    /// `--format`, or a table on a terminal and TSV otherwise.
    pub fn format(&self) -> Format {
        chosen_format(self.format)
    }
    /// The files to read: the arguments, with each directory replaced by the module text
    /// of `--stage` in it; status 1 for a directory without any.
    pub fn files(&self) -> Result<(Vec<PathBuf>, Status), Failure> {
        let stage = match self.stage {
            super::args::Stage::After => Stage::After,
            super::args::Stage::Before => Stage::Before,
            super::args::Stage::All => Stage::All,
        };
        let mut status = 0;
        let mut files: Vec<PathBuf> = Vec::new();
        for input in &self.inputs {
            if input.is_dir() {
                let found = io::list_dir(input, |d| module_files(d, stage))?;
                if found.is_empty() {
                    status = 1;
                    warn(format_args!(
                        "{}: no module text of stage {} here (see --stage)",
                        input.display(),
                        format!("{:?}", self.stage).to_lowercase()
                    ));
                }
                files.extend(found);
            } else {
                files.push(input.clone());
            }
        }
        Ok((files, status))
    }
    pub fn size(&self, n: u64) -> String {
        human(self.bytes, n)
    }
}

/// A byte count in the `--bytes` units.
pub fn human(unit: Units, n: u64) -> String {
    match unit {
        Units::Oom => units::oom_bytes(n),
        Units::Exact => n.to_string(),
        Units::Iec => units::iec_bytes(n),
    }
}

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

/// A field for TSV: tabs, line ends and backslashes escaped, so that every row is one
/// line of tab-separated fields.
pub fn tsv_escape(field: &str) -> std::borrow::Cow<'_, str> {
    if !field.contains(['\t', '\n', '\r', '\\']) {
        return std::borrow::Cow::Borrowed(field);
    }
    let escaped =
        field.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r");
    std::borrow::Cow::Owned(escaped)
}

/// One row of script output: a CSV record, or TSV fields escaped and joined, with its
/// line end.
pub fn record<S: AsRef<str>>(format: Format, fields: &[S]) -> String {
    if format == Format::Csv {
        return csv_line(fields);
    }
    let escaped: Vec<_> = fields.iter().map(|f| tsv_escape(f.as_ref())).collect();
    escaped.join("\t") + "\n"
}

/// One CSV record, quoted as RFC 4180 says.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut w =
        csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    // Writing to memory cannot fail; the bytes are the UTF-8 fields and separators.
    let _ = w.write_record(fields.iter().map(|f| f.as_ref()));
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// Columns padded to their widest cell; the last column is not padded.
pub fn aligned(rows: &[Vec<String>], indent: &str) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut s = String::new();
    for row in rows {
        s += indent;
        for (c, cell) in row.iter().enumerate() {
            if c + 1 == row.len() {
                s += cell;
            } else {
                let _ = write!(s, "{cell:<w$}  ", w = widths[c]);
            }
        }
        s += "\n";
    }
    s
}

/// A line on standard error; if that cannot be written there is nowhere to say so.
pub fn warn(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
