//! `xlayout oom`: [`xlayout::oom::OomReport`] for each report, joined to an HLO dump with
//! `--hlo`, printed as a table for people or as TSV, CSV or JSON for scripts. No analysis
//! happens here.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;
use xlayout::hlo::{clip, decode, Diagnostic, InstrId, Module, REPORT_VERSION};
use xlayout::oom::{
    join, join_problems, Entry, EntryRow, Joined, Named, OomReport, Printed, SHAPE_CHARS,
};

use super::args::{Oom, Units};
use super::dump;
use super::io::{self, Failure, Out, Stdin};
use super::output::{
    self, aligned, chosen_format, human, names, row_table, warn, ByName, Cell, Column, Emitter,
    Fields, FileReport, Head, Rows,
};
use super::Status;

/// The TSV and CSV header: `file`, then the keys of an entry's JSON record ([`EntryRow`]).
/// A contract with scripts.
pub const COLUMNS: &[&str] = &[
    "file",
    "entry",
    "line",
    "memory_space",
    "shape",
    "printed_size",
    "printed_bytes",
    "printed_rounded",
    "size_bytes",
    "logical_bytes",
    "padding_bytes",
    "expansion",
    "agrees",
    "inferred_tiling",
    "recomputed_shape",
    "instruction",
    "opcode",
    "op_name",
    "source",
    "label",
    "label_truncated",
    "operator",
    "allocation_type",
    "printed_unpadded",
    "printed_padding",
    "printed_expansion",
    "expected_size",
    "expected_unpadded",
    "expected_padding",
    "expected_expansion",
    "size_agrees",
    "unpadded_agrees",
    "padding_agrees",
    "expansion_agrees",
    "causes",
    "best_layout",
    "best_bytes",
    "hlo_found",
    "hlo_line",
    "hlo_bytes",
    "hlo_same_shape",
];

/// A TSV row: the report's file, then an entry's record.
#[derive(Serialize)]
struct FileRow<'a> {
    file: &'a str,
    #[serde(flatten)]
    row: EntryRow<'a>,
}

/// One report: in JSON its file and the report with what the dump says of its entries; a
/// table; a row per entry.
#[derive(Serialize)]
struct ReportJson<'a, R> {
    file: &'a str,
    #[serde(flatten)]
    report: R,
    #[serde(skip)]
    read: &'a OomReport,
    #[serde(skip)]
    dump: Option<(&'a Module<'a>, &'a [Option<Joined<'a>>])>,
    #[serde(skip)]
    args: &'a Oom,
}

/// The dump `--hlo` names, in the JSON output: after the reports, as `named` holds the
/// instructions their entries name (each once).
#[derive(Serialize)]
struct DumpJson<'a> {
    file: &'a str,
    module: Option<&'a str>,
    instructions: usize,
    diagnostics: &'a [Diagnostic],
    named: Named<'a>,
}

impl Oom {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let mut status = 0;
        // The dump is read once, before the reports (it may be standard input, then the
        // reports cannot be).
        let dump = match &self.hlo {
            Some(path) => {
                let (name, bytes) = io::read_file(path, stdin)?;
                let (text, problems) = decode(&bytes);
                Some((name, text.into_owned(), problems))
            }
            None => None,
        };
        let module = dump.as_ref().map(|(name, text, problems)| {
            let mut m = Module::parse(text);
            m.add_diagnostics(problems.clone());
            status |= dump::diagnostics(name, &m);
            m
        });
        let mut dump_json = dump.as_ref().zip(module.as_ref()).map(|((name, _, _), m)| DumpJson {
            file: name,
            module: m.name,
            instructions: m.instructions.len(),
            diagnostics: &m.diagnostics,
            named: Named::new(m),
        });
        let head = Head { version: REPORT_VERSION, list: "reports", columns: COLUMNS };
        let mut emit = Emitter::begin(chosen_format(self.format), head, out)?;
        for input in &self.inputs {
            let (name, bytes) = io::read_file(input, stdin)?;
            let report = OomReport::from_bytes(&bytes);
            status |= dump::problems(&name, &report.problems);
            if let Some(why) = report.missing() {
                status = 1;
                warn(format_args!("{name}: {why}"));
            }
            let joined = module.as_ref().map(|m| join(&report.entries, m));
            if let Some(j) = &joined {
                // Notes, not problems of the report: the status stays.
                for p in join_problems(&report.entries, j) {
                    warn(format_args!("{name}:{}: {}", p.line, p.message));
                }
                if let Some(d) = dump_json.as_mut() {
                    d.named.add(j);
                }
            }
            emit.file(&ReportJson {
                file: &name,
                report: report.with_dump(joined.as_deref()),
                read: &report,
                dump: module.as_ref().zip(joined.as_deref()),
                args: self,
            })?;
        }
        emit.end_with("dump", &dump_json, String::new)?;
        Ok(status)
    }

    /// The table of one report, its sizes in `--bytes` units or as the report writes them;
    /// with `dump`, the module and each entry's instruction in it.
    fn table(
        &self,
        name: &str,
        r: &OomReport,
        dump: Option<(&Module<'_>, &[Option<Joined<'_>>])>,
    ) -> Result<String, Failure> {
        let unit = self.bytes.unwrap_or(if r.iec() { Units::Iec } else { Units::Oom });
        let b = |n: u64| human(unit, n);
        let mut s = String::new();
        let what = r.kind.what();
        let _ = write!(s, "{name}: {what}");
        if let Some(c) = &r.error_code {
            let _ = write!(s, " ({c})");
        }
        if let Some(m) = &r.memory_space {
            let _ = write!(s, ", memory space {m}");
        }
        let text = |p: &Option<Printed>| p.as_ref().map(|p| p.text.clone());
        if let (Some(used), Some(cap)) = (text(&r.used), text(&r.capacity)) {
            let _ = write!(s, ": used {used} of {cap}");
            if let Some(x) = text(&r.exceeded) {
                let _ = write!(s, ", {x} over");
            }
        }
        if let Some(a) = &r.allocating {
            let _ = write!(s, ": failed to allocate {} bytes", a.text);
            // The size a person reads, in the table's units (XLA:GPU's own for its reports).
            if let Some(n) = a.bytes.filter(|_| unit != Units::Exact) {
                let _ = write!(s, " ({})", b(n));
            }
        }
        if let Some(x) = &r.runtime {
            let _ = write!(s, ": could not {} {}", x.action, x.requested.text);
            if let Some(m) = &x.memory_space {
                let _ = write!(s, " ({m})");
            }
            let figures: Vec<String> =
                [("free", &x.free), ("reserved", &x.reserved), ("reservable", &x.reservable)]
                    .iter()
                    .filter_map(|(w, p)| p.as_ref().map(|p| format!("{} {w}", p.text)))
                    .collect();
            if !figures.is_empty() {
                let _ = write!(s, "; {}", figures.join(", "));
            }
            if let Some(short) = x.short_by {
                let _ = write!(s, "; short by about {} (the figures are rounded)", b(short));
            }
        }
        if r.missing() == Some("no out-of-memory report found") {
            s += ": no out-of-memory report found";
        }
        s.push('\n');
        if !r.stats.is_empty() {
            s += "BufferAssignment stats:\n";
            let rows: Vec<Vec<String>> = r
                .stats
                .iter()
                .map(|p| {
                    let note = p.note.as_ref().map_or_else(String::new, |n| format!(" {n}"));
                    vec![p.name.clone(), format!("{}{note}", p.size.text)]
                })
                .collect();
            s += &aligned(&rows, "  ");
        }
        if let Some(h) = &r.hlo_temp {
            let _ = write!(s, "HLO temp {}", h.size.text);
            if let Some(u) = &h.utilization {
                let _ = write!(s, ", {u}% utilization printed");
            }
            match (&h.utilization_recomputed, h.utilization_agrees) {
                (Some(x), Some(true)) => {
                    let _ = write!(s, "; Unpadded / Padded = {x}%: agrees");
                }
                (Some(x), _) => {
                    let _ = write!(s, "; Unpadded / Padded = {x}%: does NOT agree");
                }
                _ => {}
            }
            s.push('\n');
        }
        if let Some(why) = r.missing().filter(|w| *w != "no out-of-memory report found") {
            let _ = writeln!(s, "{why}");
        }
        let sizeless = sizeless_table(r, unit)?;
        let t = &r.totals;
        if r.entries.is_empty() {
            return Ok(s + &sizeless);
        }
        let _ = writeln!(s, "{}", t.sentence(b));
        if let Some(overage) = r.overage_sentence(b) {
            let _ = writeln!(s, "{overage}");
        }
        if t.saturated {
            let _ = writeln!(
                s,
                "sums marked >= reached 2^64 - 1 bytes and stopped there: each is at least what \
                 it says (the JSON's \"saturated\": true)"
            );
        }
        let shape = |f: &Fields| match f.get("recomputed_shape") {
            Cell::Null => f.text("shape"),
            cell => cell.to_string(),
        };
        let instruction = |f: &Fields| match f.get("instruction") {
            Cell::Null => f.text("opcode"),
            cell => cell.to_string(),
        };
        let why = |f: &Fields| output::why(f, "causes");
        let better = |f: &Fields| output::better(f, "best_layout", "best_bytes", unit);
        let columns = [
            &Column::Field("#", "entry"),
            &Column::Field("printed", "printed_size"),
            &Column::Bytes("size", "size_bytes"),
            &Column::Bytes("data", "logical_bytes"),
            &Column::Bytes("padding", "padding_bytes"),
            &Column::Times("x", "expansion"),
            &Column::Field("agrees", "agrees"),
            &Column::Made("shape", &shape),
            &Column::Made("instruction", &instruction),
            &Column::Made("why", &why),
            &Column::Made("better layout", &better),
        ];
        let rows = r.entries.iter().map(|e| EntryRow::new(e, None));
        let table = row_table(rows, &columns, unit)?;
        let mut notes = Vec::new();
        let against = dump.map(|(_, j)| join_problems(&r.entries, j)).unwrap_or_default();
        let mut against = against.iter().peekable();
        // Per instruction of the dump, the first entry that names it: it is described there.
        let mut first: HashMap<InstrId, u64> = HashMap::new();
        for (k, e) in r.entries.iter().enumerate() {
            let x = e.recomputed.as_ref();
            let dash = || String::from("-");
            if let Some(t) = x.and_then(|x| x.inferred_tiling.as_ref()) {
                notes.push(format!("entry {}: printed without tiles; the TPU default tiling T{t} gives the printed size (inferred)", e.number));
            }
            if let Some(x) = x {
                let a = x.agrees;
                let mut wrong = Vec::new();
                let mut check =
                    |field: &str, ok: Option<bool>, printed: Option<&str>, want: &str| {
                        if ok == Some(false) {
                            wrong.push(format!(
                                "{field} {} (the shape gives {want})",
                                printed.unwrap_or("-")
                            ));
                        }
                    };
                check("Size", a.size, e.size.as_ref().map(|p| p.text.as_str()), &x.expected.size);
                check(
                    "Unpadded size",
                    a.unpadded,
                    e.unpadded.as_ref().map(|p| p.text.as_str()),
                    &x.expected.unpadded,
                );
                check(
                    "padding",
                    a.padding,
                    e.padding.as_ref().map(|p| p.text.as_str()),
                    &x.expected.padding,
                );
                let one = x.expansion_one_decimal.clone().unwrap_or_else(dash);
                check("expansion", a.expansion, e.printed_expansion.as_deref(), &format!("{one}x"));
                if !wrong.is_empty() {
                    notes.push(format!("entry {}: printed {}", e.number, wrong.join(", ")));
                }
            }
            if e.label_truncated {
                notes.push(format!("entry {}: the label is cut short by the report", e.number));
            }
            if let Some(op) = &e.op_name {
                let source = e.source.as_ref().map_or_else(String::new, |s| format!(" ({s})"));
                notes.push(format!("entry {}: op_name {op}{source}", e.number));
            }
            if let Some((m, joined)) = dump {
                if let Some(j) = joined.get(k).and_then(Option::as_ref) {
                    notes.push(in_the_dump(m, e, j, &mut first));
                }
            }
            // What the dump says against the entries, as on standard error: at most 100 of
            // each kind, then a count.
            while let Some(p) = against.next_if(|p| p.line <= e.line) {
                notes.push(match p.entry {
                    Some(_) => p.message.clone(),
                    None => format!("line {}: {}", p.line, p.message),
                });
            }
        }
        s.push('\n');
        s += &table;
        if !notes.is_empty() {
            s.push('\n');
            for n in notes {
                let _ = writeln!(s, "  {n}");
            }
        }
        Ok(s + &sizeless)
    }
}

/// The entries a report lists without a size (older TPU vmem reports' `scoped` ones): by
/// allocation type, instruction and label, said to carry no size; empty if there are none.
fn sizeless_table(r: &OomReport, unit: Units) -> Result<String, Failure> {
    if r.sizeless.is_empty() {
        return Ok(String::new());
    }
    let n = r.sizeless.len();
    let columns = [
        &Column::Field("#", "entry"),
        &Column::Field("allocation type", "allocation_type"),
        &Column::Field("instruction", "instruction"),
        &Column::Field("label", "label"),
    ];
    let rows = r.sizeless.iter().map(|e| EntryRow::new(e, None));
    Ok(format!(
        "{n} {} listed with no size (by label and allocation type only): nothing to \
         recompute or add up\n\n{}",
        if n == 1 { "entry" } else { "entries" },
        row_table(rows, &columns, unit)?
    ))
}

/// The note that says where entry `e`'s instruction is in the dump `m`: its line, shape,
/// opcode and source for the first entry that names it (each quoted to at most
/// [`SHAPE_CHARS`] characters), the entry that said so for the others.
fn in_the_dump(
    m: &Module<'_>,
    e: &Entry,
    j: &Joined<'_>,
    first: &mut HashMap<InstrId, u64>,
) -> String {
    let d = j.instruction;
    let name = clip(e.instruction.as_deref().unwrap_or("-"), SHAPE_CHARS);
    if let Some(k) = first.get(&d.id) {
        return format!("entry {}: in the dump at line {}: {name}, as entry {k}", e.number, d.line);
    }
    first.insert(d.id, e.number);
    let source = m.source(d.id).map_or_else(String::new, |s| {
        format!(", from {}", clip(&format!("{}:{}", s.file, s.line), SHAPE_CHARS))
    });
    format!(
        "entry {}: in the dump at line {}: {name} = {} {}{source}",
        e.number,
        d.line,
        clip(d.shape, SHAPE_CHARS),
        clip(d.opcode, SHAPE_CHARS)
    )
}

impl<R: Serialize> FileReport for ReportJson<'_, R> {
    fn table(&self) -> Result<String, Failure> {
        self.args.table(self.file, self.read, self.dump)
    }

    fn rows(&self, rows: &mut Rows<'_, '_>) -> Result<(), Failure> {
        let joined = self.dump.map(|(_, j)| j);
        let entries = self.read.entries.iter().enumerate().map(|(k, e)| FileRow {
            file: self.file,
            row: EntryRow::new(e, joined.map(|j| j[k].as_ref())),
        });
        let spaces = names(&self.read.memory_spaces);
        rows.all(entries, &[ByName { column: "memory_space", name: &spaces }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_rows_keys() {
        let r = OomReport::parse("1. Size: 512B\n   Shape: f32[10]{0:T(128)}\n");
        let row = FileRow { file: "f", row: EntryRow::new(&r.entries[0], None) };
        assert_eq!(super::super::output::keys(&row), COLUMNS);
    }
}
