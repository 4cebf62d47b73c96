//! `xlayout relayouts`: [`xlayout::hlo::Relayouts`] for each file — every instruction that
//! only moves elements, whether it keeps them where they were, the bytes it moves when it
//! does not and the result layout that would make it free — printed as a table for people
//! or as TSV, CSV or JSON for scripts. No analysis happens here.

use std::fmt::Write as _;

use serde::Serialize;
use xlayout::hlo::{ComputationNames, Relayout, Relayouts, REPORT_VERSION};

use super::args::Relayouts as RelayoutsArgs;
use super::io::{Failure, Out, Stdin};
use super::load::ModuleFiles;
use super::output::{
    both, chosen_format, computation_names, count, row_table, ByName, Column, Emitter, Fields,
    FileReport, Head, Rows,
};
use super::Status;

/// The TSV and CSV header: `file`, then the keys of a JSON row ([`Relayout`]); one row per
/// instruction, the most bytes moved first (a contract with scripts).
pub const COLUMNS: &[&str] = &[
    "file",
    "line",
    "computation",
    "fused",
    "instruction",
    "opcode",
    "from",
    "to",
    "dimensions",
    "bitcast",
    "reason",
    "read_bytes",
    "written_bytes",
    "moved_bytes",
    "bitcast_layout",
    "op_name",
];

/// A TSV row: the file, then an instruction's row.
#[derive(Serialize)]
struct FileRow<'a> {
    file: &'a str,
    #[serde(flatten)]
    row: &'a Relayout<'a>,
}

/// One file's moves: in JSON its name, the module, the counts and the rows; a table; the
/// rows.
#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a str,
    module: Option<&'a str>,
    /// Instructions that only move elements.
    instructions: usize,
    /// Of those, how many keep every element where it was.
    free: usize,
    /// The bytes moved to change layouts, in all.
    moved_bytes: u64,
    rows: &'a [Relayout<'a>],
    /// The names of the module's computations, by the number a row gives.
    computations: ComputationNames<'a, 'a>,
    #[serde(skip)]
    args: &'a RelayoutsArgs,
}

impl RelayoutsArgs {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let files = ModuleFiles::list(&self.modules, None)?;
        let head = Head { version: REPORT_VERSION, list: "files", columns: COLUMNS };
        let mut emit = Emitter::begin(chosen_format(self.format), head, out)?;
        let status = files.each(stdin, |_, _, m| {
            let r = Relayouts::new(m.module);
            emit.file(&FileJson {
                file: m.name,
                module: m.module.name,
                instructions: r.rows.len(),
                free: r.free,
                moved_bytes: r.moved_bytes,
                rows: &r.rows,
                computations: ComputationNames(m.module),
                args: self,
            })?;
            Ok(0)
        })?;
        emit.end()?;
        Ok(status)
    }

    /// The table of one file: a headline, then the `--top` rows that move the most.
    fn table(&self, f: &FileJson<'_>) -> Result<String, Failure> {
        let mut s = String::new();
        let module =
            f.module.map_or_else(|| String::from("no HloModule line"), |m| format!("module {m}"));
        let _ = writeln!(
            s,
            "{}: {module}; {} only {}: {} every element where it was, {} moved to change layouts",
            f.file,
            count(f.instructions, "instruction"),
            if f.instructions == 1 { "moves elements" } else { "move elements" },
            if f.free == 1 { String::from("1 keeps") } else { format!("{} keep", f.free) },
            both(self.bytes, f.moved_bytes)
        );
        if f.rows.is_empty() {
            return Ok(s);
        }
        let free = |f: &Fields| match f.text("bitcast").as_str() {
            "yes" => String::from("yes"),
            "no" => String::from("no"),
            _ => String::from("?"),
        };
        // The layout that would make a move free, when the row moves and one does.
        let with = |f: &Fields| match f.text("bitcast").as_str() {
            "no" => f.text("bitcast_layout"),
            _ => String::from("-"),
        };
        let name = |f: &Fields| {
            let fused = if f.text("fused") == "yes" { " (fused)" } else { "" };
            format!("{}{fused}", f.text("instruction"))
        };
        let columns = [
            &Column::Bytes("moved", "moved_bytes"),
            &Column::Made("free", &free),
            &Column::Made("instruction", &name),
            &Column::Field("opcode", "opcode"),
            &Column::Field("line", "line"),
            &Column::Field("from", "from"),
            &Column::Field("to", "to"),
            &Column::Made("free with", &with),
            &Column::Field("why", "reason"),
        ];
        let shown = &f.rows[..f.rows.len().min(self.top)];
        s += &row_table(shown, &columns, self.bytes)?;
        if shown.len() < f.rows.len() {
            let _ = writeln!(s, "  ... {} more (--top)", f.rows.len() - shown.len());
        }
        Ok(s)
    }
}

impl FileReport for FileJson<'_> {
    fn table(&self) -> Result<String, Failure> {
        self.args.table(self)
    }

    fn rows(&self, rows: &mut Rows<'_, '_>) -> Result<(), Failure> {
        let named =
            [ByName { column: "computation", name: &computation_names(self.computations.0) }];
        rows.all(self.rows.iter().map(|row| FileRow { file: self.file, row }), &named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xlayout::hlo::Module;

    #[test]
    fn columns_are_the_rows_keys() {
        let m = Module::parse("%p = f32[2]{0} parameter(0)\n%c = f32[2]{0} copy(%p)\n");
        let r = Relayouts::new(&m);
        let row = FileRow { file: "f", row: &r.rows[0] };
        assert_eq!(super::super::output::keys(&row), COLUMNS);
    }
}
