//! An entry as one flat record: what the report printed, what the shape gives, and (with a
//! dump) what the module says. The JSON of a report lists its entries as these records and
//! the command's TSV and CSV rows are the same records, so every field has one name.

use serde::Serialize;

use super::entry::{Entry, Printed};
use super::join::Joined;
use crate::memory::ratio::Ratio;

/// One entry of an out-of-memory report, flat: its fields are the JSON keys of
/// `entries[]` and the columns of `xlayout oom --format tsv` (a contract with scripts, see
/// [`REPORT_VERSION`](crate::hlo::REPORT_VERSION)). `None` is JSON's `null` (`-` in TSV):
/// not printed, no readable shape, or no dump given.
///
/// ```
/// use xlayout::oom::{EntryRow, OomReport};
/// let r = OomReport::parse("1. Size: 5.00M\n   Shape: bf16[16,1280,40]{2,1,0}\n   Unpadded size: 1.56M\n");
/// let row = EntryRow::new(&r.entries[0], None);
/// assert_eq!((row.printed_size, row.printed_bytes, row.printed_rounded), (Some("5.00M"), Some(5_242_880), Some(true)));
/// assert_eq!((row.size_bytes, row.logical_bytes, row.inferred_tiling), (Some(5_242_880), Some(1_638_400), Some("(8,128)(2,1)")));
/// assert_eq!((row.agrees, row.expansion.unwrap().to_string()), (Some(true), String::from("3.20")));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntryRow<'a> {
    /// The number the report gives it (`N. Size:`, `Buffer N:`).
    pub entry: u64,
    /// The line of the report it starts on.
    pub line: usize,
    /// The memory space of its section, by number: the index of its name (`hbm`, `vmem`)
    /// in the report's `memory_spaces`, which writes each name once.
    pub memory_space: Option<u32>,
    /// `Shape:` as printed.
    pub shape: Option<&'a str>,
    /// `Size:` as printed.
    pub printed_size: Option<&'a str>,
    /// The bytes `Size:` reads as.
    pub printed_bytes: Option<u64>,
    /// Whether `Size:` is a rounded figure (printed in a unit above bytes).
    pub printed_rounded: Option<bool>,
    /// The shape's exact `ShapeUtil::ArraySize` (with an inferred tiling where there is one).
    pub size_bytes: Option<u64>,
    /// Its data at natural width.
    pub logical_bytes: Option<u64>,
    /// `size_bytes - logical_bytes`.
    pub padding_bytes: Option<u64>,
    /// `size_bytes / logical_bytes` (printed to three significant figures).
    pub expansion: Option<Ratio>,
    /// Whether every figure the report printed is what the shape gives, after its rounding.
    pub agrees: Option<bool>,
    /// The TPU default tiling that reproduces the printed size of a shape printed without
    /// tiles (inferred, not printed).
    pub inferred_tiling: Option<&'a str>,
    /// The shape the figures are of: the printed one, or with the inferred tiling.
    pub recomputed_shape: Option<&'a str>,
    /// The instruction the label names.
    pub instruction: Option<&'a str>,
    /// Its opcode, from the label.
    pub opcode: Option<&'a str>,
    /// `op_name`, from the `Operator:` line or the label.
    pub op_name: Option<&'a str>,
    /// `source_file:source_line` of the `Operator:` line.
    pub source: Option<&'a str>,
    /// `XLA label:` as printed.
    pub label: Option<&'a str>,
    /// Whether the report cut the label short (`...`).
    pub label_truncated: bool,
    /// `Operator:` as printed.
    pub operator: Option<&'a str>,
    /// `Allocation type:`.
    pub allocation_type: Option<&'a str>,
    /// `Unpadded size:` as printed.
    pub printed_unpadded: Option<&'a str>,
    /// `Extra memory due to padding:` as printed (without the expansion).
    pub printed_padding: Option<&'a str>,
    /// The expansion printed after it (`32.0` of `(32.0x expansion)`).
    pub printed_expansion: Option<&'a str>,
    /// What the report would print as `Size:` for the shape.
    pub expected_size: Option<&'a str>,
    /// ... as `Unpadded size:`.
    pub expected_unpadded: Option<&'a str>,
    /// ... as `Extra memory due to padding:`.
    pub expected_padding: Option<&'a str>,
    /// ... as the expansion (one decimal).
    pub expected_expansion: Option<&'a str>,
    /// Whether the printed `Size:` is `expected_size` (`None`: not printed, or no shape).
    pub size_agrees: Option<bool>,
    /// Whether the printed `Unpadded size:` is `expected_unpadded`.
    pub unpadded_agrees: Option<bool>,
    /// Whether the printed padding is `expected_padding`.
    pub padding_agrees: Option<bool>,
    /// Whether the printed expansion is `expected_expansion`.
    pub expansion_agrees: Option<bool>,
    /// Why it pads, per padded dimension.
    pub causes: Vec<String>,
    /// The order of the same dimensions and tiles that pads least, when it saves 10%.
    pub best_layout: Option<&'a str>,
    /// That layout's `ArraySize`.
    pub best_bytes: Option<u64>,
    /// With a dump: whether the label's instruction is in it (what the dump says of it, its
    /// opcode, shape, `op_name` and source, is in the dump's table of named instructions,
    /// once per instruction: [`Named`](super::Named)).
    pub hlo_found: Option<bool>,
    /// Its line in the dump.
    pub hlo_line: Option<usize>,
    /// The `ArraySize` of its shape in the dump.
    pub hlo_bytes: Option<u64>,
    /// Whether the dump's shape is the report's (after an inferred tiling).
    pub hlo_same_shape: Option<bool>,
}

impl<'a> EntryRow<'a> {
    /// The record of `e`; `joined` is `None` without a dump, `Some(None)` when the dump has
    /// no instruction of the label's name.
    ///
    /// ```
    /// use xlayout::oom::{EntryRow, OomReport};
    /// let r = OomReport::parse("1. Size: 32B\n   XLA label: gone.1 = negate(x)\n");
    /// assert_eq!(EntryRow::new(&r.entries[0], Some(None)).hlo_found, Some(false));
    /// assert_eq!(EntryRow::new(&r.entries[0], None).hlo_found, None);
    /// ```
    pub fn new(e: &'a Entry, joined: Option<Option<&'a Joined<'a>>>) -> EntryRow<'a> {
        let x = e.recomputed.as_ref();
        let text = |p: &'a Option<Printed>| p.as_ref().map(|p| p.text.as_str());
        let j = joined.flatten();
        EntryRow {
            entry: e.number,
            line: e.line,
            memory_space: e.memory_space,
            shape: e.shape.as_deref(),
            printed_size: text(&e.size),
            printed_bytes: e.size.as_ref().and_then(|p| p.bytes),
            printed_rounded: e.size.as_ref().filter(|p| p.bytes.is_some()).map(|p| p.rounded),
            size_bytes: x.map(|x| x.sizes.array_bytes),
            logical_bytes: x.map(|x| x.sizes.logical_bytes),
            padding_bytes: x.map(|x| x.sizes.padding_bytes()),
            expansion: x.and_then(|x| x.expansion),
            agrees: x.map(|x| x.agrees.all()),
            inferred_tiling: x.and_then(|x| x.inferred_tiling.as_deref()),
            recomputed_shape: x.map(|x| x.shape.as_str()),
            instruction: e.instruction.as_deref(),
            opcode: e.opcode.as_deref(),
            op_name: e.op_name.as_deref(),
            source: e.source.as_deref(),
            label: e.label.as_deref(),
            label_truncated: e.label_truncated,
            operator: e.operator.as_deref(),
            allocation_type: e.allocation_type.as_deref(),
            printed_unpadded: text(&e.unpadded),
            printed_padding: text(&e.padding),
            printed_expansion: e.printed_expansion.as_deref(),
            expected_size: x.map(|x| x.expected.size.as_str()),
            expected_unpadded: x.map(|x| x.expected.unpadded.as_str()),
            expected_padding: x.map(|x| x.expected.padding.as_str()),
            expected_expansion: x.and_then(|x| x.expansion_one_decimal.as_deref()),
            size_agrees: x.and_then(|x| x.agrees.size),
            unpadded_agrees: x.and_then(|x| x.agrees.unpadded),
            padding_agrees: x.and_then(|x| x.agrees.padding),
            expansion_agrees: x.and_then(|x| x.agrees.expansion),
            causes: x.map_or_else(Vec::new, |x| x.causes.iter().map(ToString::to_string).collect()),
            best_layout: x.and_then(|x| x.best_layout.as_ref()).map(|b| b.layout.as_str()),
            best_bytes: x.and_then(|x| x.best_layout.as_ref()).map(|b| b.array_bytes),
            hlo_found: joined.filter(|_| e.instruction.is_some()).map(|j| j.is_some()),
            hlo_line: j.map(|j| j.instruction.line),
            hlo_bytes: j.and_then(|j| j.instruction.bytes),
            hlo_same_shape: j.and_then(|j| j.same_shape),
        }
    }
}
