//! XLA's own memory files beside a module: the buffer assignment
//! (`*-buffer-assignment.txt`, `BufferAssignment::ToString`) and the live ranges
//! (`*-live-range.txt`, `HloLiveRange::ToString`), read as data, and compared with what
//! this crate computes from the module ([`size_differences`]).
//!
//! Both readers take text and never fail: a line they cannot read is a [`Diagnostic`]
//! with its line number (the first [`MAX_LISTED`](super::super::MAX_LISTED), then one that counts
//! the rest), and the rest is still read. A line ends at `\n`, `\r\n` or a lone `\r`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::super::buffer::Analysis;
use super::super::id::{IndexVec, InstrId, ShapeId};
use super::super::peak::tree::Tree;
use super::super::text::attribute::{shape_index, AliasPair};
use super::super::text::diagnostic::{Diagnostic, DiagnosticKind, Listing, MAX_LISTED};
use super::super::text::lines::lines;

/// A line of one of XLA's files that could not be read: a [`Diagnostic`] of kind
/// [`DiagnosticKind::UnreadableLine`], as a module's are. The name of earlier releases, kept
/// for one release.
///
/// ```
/// use xlayout::hlo::{Diagnostic, DiagnosticKind};
/// let b = xlayout::hlo::xla::BufferAssignment::parse("allocation 0: size x:\n");
/// let p: &Diagnostic = &b.problems[0];
/// assert_eq!((p.line, p.kind, p.message.as_str()), (1, DiagnosticKind::UnreadableLine, "unreadable allocation line"));
/// assert_eq!(p.to_string(), "1: unreadable allocation line");
/// ```
pub type DumpProblem = Diagnostic;

/// A dump's problems as its reader meets them: the first [`MAX_LISTED`] listed, the rest
/// counted in one more.
#[derive(Default)]
struct Problems {
    list: Vec<Diagnostic>,
    listing: Listing<1>,
}

impl Problems {
    fn add(&mut self, line: usize, message: impl FnOnce() -> String) {
        if self.listing.admit(0, line) {
            self.list.push(Diagnostic::new(line, DiagnosticKind::UnreadableLine, message()));
        }
    }

    fn into_vec(mut self) -> Vec<Diagnostic> {
        if let Some((_, count, line)) = self.listing.unlisted().next() {
            let message = format!(
                "{count} more unreadable lines from this line on are not listed (the first \
                 {MAX_LISTED} are)"
            );
            let more = Diagnostic::new(line, DiagnosticKind::UnreadableLine, message);
            self.list.push(Diagnostic { more: count, ..more });
        }
        self.list
    }
}

/// One value in an allocation: `<id name{index} (phi) @color> (size=N,offset=N): shape`.
///
/// ```
/// let b = xlayout::hlo::xla::BufferAssignment::parse("allocation 0: size 8:\n value: <7 w.0{1} (phi) @0> (size=8,offset=0): f32[2]{0}\n");
/// let v = &b.allocations[0].values[0];
/// assert_eq!((v.id, v.instruction.as_str(), v.shape_index.as_slice(), v.phi), (7, "w.0", &[1][..], true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssignedValue {
    /// The HloValue id.
    pub id: u64,
    /// The defining instruction.
    pub instruction: String,
    /// Its shape index (XLA prints one only for tuple-shaped instructions: `[]` then).
    pub shape_index: Vec<u64>,
    /// Whether it is a phi value.
    pub phi: bool,
    /// Its size in the allocation.
    pub size: u64,
    /// Its offset in the allocation.
    pub offset: u64,
    /// Its shape as printed.
    pub shape: String,
}

/// One `allocation N: size S, ...:` block.
///
/// ```
/// let b = xlayout::hlo::xla::BufferAssignment::parse("allocation 2: size 64, maybe-live-out:\n value: <5 n @0> (size=40,offset=0): f32[10]{0}\n");
/// let a = &b.allocations[0];
/// assert_eq!((a.index, a.size, a.maybe_live_out, a.values[0].size), (2, 64, true, 40));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Allocation {
    /// N.
    pub index: u64,
    /// S.
    pub size: u64,
    /// The attributes as written (`parameter 0, shape |f32[2]| at ShapeIndex {}`, ...).
    pub attributes: String,
    /// `parameter N`: an entry parameter.
    pub parameter: Option<u64>,
    /// `at ShapeIndex {..}`: the shape index in that parameter.
    pub parameter_index: Vec<u64>,
    /// `maybe-live-out`.
    pub maybe_live_out: bool,
    /// `thread-local`.
    pub thread_local: bool,
    /// `constant`.
    pub constant: bool,
    /// The values it holds.
    pub values: Vec<AssignedValue>,
}

/// XLA's buffer assignment.
///
/// ```
/// use xlayout::hlo::xla::BufferAssignment;
/// let text = "BufferAssignment:\nallocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}:\n value: <3 p @0> (size=64,offset=0): f32[16]{0}\n";
/// let b = BufferAssignment::parse(text);
/// assert_eq!((b.allocations[0].size, b.allocations[0].parameter), (64, Some(0)));
/// assert_eq!(b.allocations[0].values[0].instruction, "p");
/// assert!(b.problems.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BufferAssignment {
    /// The allocations, in file order.
    pub allocations: Vec<Allocation>,
    /// Lines that could not be read.
    pub problems: Vec<Diagnostic>,
}

impl BufferAssignment {
    /// Reads `BufferAssignment::ToString` text (other lines are skipped).
    pub fn parse(text: &str) -> BufferAssignment {
        let mut b = BufferAssignment::default();
        let mut problems = Problems::default();
        for (n, line) in lines(text).enumerate() {
            let mut problem = |message: &str| problems.add(n + 1, || message.to_string());
            if let Some(rest) = line.strip_prefix("allocation ") {
                match allocation(rest) {
                    Some(a) => b.allocations.push(a),
                    None => problem("unreadable allocation line"),
                }
            } else if let Some(rest) = line.trim_start().strip_prefix("value: ") {
                match (value(rest), b.allocations.last_mut()) {
                    (Some(v), Some(a)) => a.values.push(v),
                    (Some(_), None) => problem("a value before any allocation"),
                    (None, _) => problem("unreadable value line"),
                }
            }
        }
        b.problems = problems.into_vec();
        b
    }

    /// `compiled.memory_analysis()`'s figures as XLA's allocations give them
    /// (`PopulateBufferStatsFromAllocations`): parameters are arguments, allocations marked
    /// `maybe-live-out` outputs, parameters in the module's `input_output_alias` aliased
    /// (the file does not say which are), and the rest temporaries but for constants and
    /// thread-local ones, which count nowhere.
    ///
    /// ```
    /// use xlayout::hlo::xla::BufferAssignment;
    /// use xlayout::hlo::Module;
    /// let m = Module::parse("HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\n");
    /// let b = BufferAssignment::parse("allocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}, maybe-live-out:\nallocation 1: size 4, constant:\nallocation 2: size 128, preallocated-temp:\n");
    /// let x = b.memory_analysis(&m.input_output_alias);
    /// assert_eq!((x.argument_bytes, x.output_bytes, x.alias_bytes, x.temp_bytes, x.allocated_bytes), (64, 64, 64, 128, 192));
    /// ```
    pub fn memory_analysis(&self, input_output_alias: &[AliasPair]) -> MemoryAnalysis {
        let aliased = |a: &Allocation| {
            a.parameter.is_some_and(|p| {
                input_output_alias
                    .iter()
                    .any(|x| x.operand == p && x.operand_index == a.parameter_index)
            })
        };
        MemoryAnalysis::of(self.allocations.iter().map(|a| Kinds {
            size: a.size,
            parameter: a.parameter.is_some(),
            aliased: aliased(a),
            live_out: a.maybe_live_out,
            temp: a.parameter.is_none() && !a.maybe_live_out && !a.constant && !a.thread_local,
        }))
    }

    /// The sum of the allocations' sizes.
    ///
    /// ```
    /// let b = xlayout::hlo::xla::BufferAssignment::parse("allocation 0: size 8, constant:\nallocation 1: size 4, thread-local:\n");
    /// assert_eq!(b.total_bytes(), 12);
    /// ```
    pub fn total_bytes(&self) -> u64 {
        self.allocations.iter().fold(0u64, |t, a| t.saturating_add(a.size))
    }
}

/// `compiled.memory_analysis()`'s figures, as a buffer-assignment file gives them
/// ([`BufferAssignment::memory_analysis`]).
///
/// ```
/// let x = xlayout::hlo::xla::BufferAssignment::parse("allocation 0: size 8, maybe-live-out:\n").memory_analysis(&[]);
/// assert_eq!((x.output_bytes, x.allocated_bytes), (8, 8));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemoryAnalysis {
    /// Arguments + outputs − aliased + temporaries.
    pub allocated_bytes: u64,
    /// `argument_size_in_bytes`.
    pub argument_bytes: u64,
    /// `output_size_in_bytes`.
    pub output_bytes: u64,
    /// `alias_size_in_bytes`.
    pub alias_bytes: u64,
    /// `temp_size_in_bytes`.
    pub temp_bytes: u64,
}

/// What `memory_analysis()` asks of one allocation.
pub(crate) struct Kinds {
    pub size: u64,
    pub parameter: bool,
    /// A parameter an output is written over.
    pub aliased: bool,
    pub live_out: bool,
    pub temp: bool,
}

impl MemoryAnalysis {
    /// `PopulateBufferStatsFromAllocations` over `allocations`: the sums, and arguments +
    /// outputs − aliased + temporaries.
    pub(crate) fn of(allocations: impl Iterator<Item = Kinds>) -> MemoryAnalysis {
        let mut x = MemoryAnalysis::default();
        let add = |t: &mut u64, yes: bool, size: u64| {
            if yes {
                *t = t.saturating_add(size);
            }
        };
        for k in allocations {
            add(&mut x.argument_bytes, k.parameter, k.size);
            add(&mut x.output_bytes, k.live_out, k.size);
            add(&mut x.alias_bytes, k.parameter && k.aliased, k.size);
            add(&mut x.temp_bytes, k.temp, k.size);
        }
        x.allocated_bytes = x
            .argument_bytes
            .saturating_add(x.output_bytes)
            .saturating_sub(x.alias_bytes)
            .saturating_add(x.temp_bytes);
        x
    }
}

/// `N: size S, attributes:`.
fn allocation(rest: &str) -> Option<Allocation> {
    let (index, rest) = rest.split_once(": size ")?;
    let rest = rest.trim_end().strip_suffix(':')?;
    let (size, attributes) = match rest.split_once(',') {
        Some((s, a)) => (s, a.trim()),
        None => (rest, ""),
    };
    // Shapes between `|` may hold commas: flags are read with them blanked out.
    let mut plain = String::with_capacity(attributes.len());
    for (k, piece) in attributes.split('|').enumerate() {
        if k % 2 == 0 {
            plain.push_str(piece);
        }
    }
    let flags: Vec<&str> = plain.split(',').map(str::trim).collect();
    let parameter =
        flags.iter().find_map(|f| f.strip_prefix("parameter ").and_then(|n| n.trim().parse().ok()));
    let parameter_index = plain
        .split_once("at ShapeIndex ")
        .and_then(|(_, r)| Some(&r[..=r.find('}')?]))
        .and_then(shape_index)
        .unwrap_or_default();
    Some(Allocation {
        index: index.trim().parse().ok()?,
        size: size.trim().parse().ok()?,
        attributes: attributes.to_string(),
        parameter,
        parameter_index,
        maybe_live_out: flags.contains(&"maybe-live-out"),
        thread_local: flags.contains(&"thread-local"),
        constant: flags.contains(&"constant"),
        values: Vec::new(),
    })
}

/// `<id name{index} (phi) @color> (size=N,offset=N): shape`.
fn value(rest: &str) -> Option<AssignedValue> {
    let inner = rest.strip_prefix('<')?;
    let close = inner.find('>')?;
    let (head, tail) = (&inner[..close], &inner[close + 1..]);
    let mut words = head.split_whitespace();
    let id = words.next()?.parse().ok()?;
    let named = words.next()?;
    let phi = words.any(|w| w == "(phi)");
    let (instruction, shape_index) = match named.find('{') {
        Some(b) => (&named[..b], shape_index(&named[b..])?),
        None => (named, Vec::new()),
    };
    let tail = tail.trim_start().strip_prefix("(size=")?;
    let (size, tail) = tail.split_once(",offset=")?;
    let (offset, shape) = tail.split_once("):")?;
    Some(AssignedValue {
        id,
        instruction: instruction.to_string(),
        shape_index,
        phi,
        size: size.parse().ok()?,
        offset: offset.parse().ok()?,
        shape: shape.trim().to_string(),
    })
}

/// One `name{index}:start-end` line.
///
/// ```
/// let d = xlayout::hlo::xla::LiveRangeDump::parse("  BufferLiveRange:\n    t{0,1}:3-7\n");
/// assert_eq!((d.ranges[0].shape_index.as_slice(), d.ranges[0].start, d.ranges[0].end), (&[0, 1][..], 3, 7));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DumpRange {
    /// The defining instruction.
    pub instruction: String,
    /// The shape index.
    pub shape_index: Vec<u64>,
    /// First step.
    pub start: u64,
    /// Last step.
    pub end: u64,
}

/// One line of `Live ranges at N (peak):`.
///
/// ```
/// let d = xlayout::hlo::xla::LiveRangeDump::parse("  Live ranges at 4 (peak):\n    a{}: 8 bytes (cumulative: 8 bytes)\n");
/// assert_eq!((d.live[0].instruction.as_str(), d.live[0].bytes, d.live[0].cumulative_bytes), ("a", 8, 8));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DumpLive {
    /// The defining instruction.
    pub instruction: String,
    /// The shape index.
    pub shape_index: Vec<u64>,
    /// Its bytes.
    pub bytes: u64,
    /// The running total.
    pub cumulative_bytes: u64,
}

/// XLA's live ranges and peak (`HloLiveRange::ToString`).
///
/// ```
/// use xlayout::hlo::xla::LiveRangeDump;
/// let text = "HloLiveRange (max 2):\n  InstructionSequence:\n    0:p\n    1:n\n  BufferLiveRange:\n    p{}:0-2\n    n{}:1-2\n  Live ranges at 1 (peak):\n    p{}: 8 bytes (cumulative: 8 bytes)\n    n{}: 8 bytes (cumulative: 16 bytes)\n  Stack trace breakdown for peak usage: 16 bytes\n";
/// let d = LiveRangeDump::parse(text);
/// assert_eq!((d.max, d.peak_step, d.peak_bytes()), (Some(2), Some(1), Some(16)));
/// assert_eq!(d.sequence, ["p", "n"]);
/// assert_eq!(d.ranges[1].start, 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LiveRangeDump {
    /// `HloLiveRange (max N)`: the number of steps.
    pub max: Option<u64>,
    /// The instruction at each step.
    pub sequence: Vec<String>,
    /// Every value's live range.
    pub ranges: Vec<DumpRange>,
    /// `Live ranges at N (peak)`.
    pub peak_step: Option<u64>,
    /// The values listed there.
    pub live: Vec<DumpLive>,
    /// `Stack trace breakdown for peak usage: N bytes` (XLA groups the digits with spaces).
    pub stack_trace_bytes: Option<u64>,
    /// Lines that could not be read.
    pub problems: Vec<Diagnostic>,
}

impl LiveRangeDump {
    /// Reads `HloLiveRange::ToString` text.
    pub fn parse(text: &str) -> LiveRangeDump {
        #[derive(PartialEq)]
        enum Section {
            None,
            Sequence,
            Ranges,
            Live,
            Tree,
        }
        let mut d = LiveRangeDump::default();
        let mut problems = Problems::default();
        let mut section = Section::None;
        for (n, line) in lines(text).enumerate() {
            let t = line.trim();
            let mut bad = |what: &str| {
                problems.add(n + 1, || format!("unreadable {what}"));
            };
            if let Some(rest) = t.strip_prefix("HloLiveRange (max ") {
                d.max = rest.strip_suffix("):").and_then(|m| m.parse().ok());
                section = Section::None;
            } else if t == "InstructionSequence:" {
                section = Section::Sequence;
            } else if t == "BufferLiveRange:" {
                section = Section::Ranges;
            } else if let Some(rest) = t.strip_prefix("Live ranges at ") {
                d.peak_step = rest.strip_suffix(" (peak):").and_then(|m| m.parse().ok());
                section = Section::Live;
            } else if let Some(rest) = t.strip_prefix("Stack trace breakdown for peak usage: ") {
                let digits: String =
                    rest.trim_end_matches("bytes").chars().filter(|c| !c.is_whitespace()).collect();
                d.stack_trace_bytes = digits.parse().ok();
                section = Section::Tree;
            } else if t.is_empty() || section == Section::Tree || section == Section::None {
                continue;
            } else if section == Section::Sequence {
                match t.split_once(':') {
                    Some((_, name)) => d.sequence.push(name.to_string()),
                    None => bad("instruction sequence line"),
                }
            } else if section == Section::Ranges {
                match range(t) {
                    Some(r) => d.ranges.push(r),
                    None => bad("live range line"),
                }
            } else {
                match live(t) {
                    Some(l) => d.live.push(l),
                    None => bad("peak line"),
                }
            }
        }
        d.problems = problems.into_vec();
        d
    }

    /// XLA's peak bytes: the last `cumulative` of the peak list (0 for an empty list).
    pub fn peak_bytes(&self) -> Option<u64> {
        self.peak_step?;
        Some(self.live.last().map_or(0, |l| l.cumulative_bytes))
    }
}

/// `name{index}` at the start of `t`, and the rest.
fn named_index(t: &str) -> Option<(String, Vec<u64>, &str)> {
    let open = t.find('{')?;
    let close = open + t[open..].find('}')?;
    let index = shape_index(&t[open..=close])?;
    Some((t[..open].to_string(), index, &t[close + 1..]))
}

/// `name{index}:start-end`.
fn range(t: &str) -> Option<DumpRange> {
    let (instruction, shape_index, rest) = named_index(t)?;
    let (start, end) = rest.strip_prefix(':')?.split_once('-')?;
    Some(DumpRange { instruction, shape_index, start: start.parse().ok()?, end: end.parse().ok()? })
}

/// `name{index}: N bytes (cumulative: M bytes)`.
fn live(t: &str) -> Option<DumpLive> {
    let (instruction, shape_index, rest) = named_index(t)?;
    let (bytes, rest) = rest.strip_prefix(": ")?.split_once(" bytes (cumulative: ")?;
    let cumulative = rest.strip_suffix(" bytes)")?;
    Some(DumpLive {
        instruction,
        shape_index,
        bytes: bytes.parse().ok()?,
        cumulative_bytes: cumulative.parse().ok()?,
    })
}

/// A value whose size in XLA's buffer assignment differs from this crate's.
///
/// ```
/// use xlayout::hlo::xla::{size_differences, BufferAssignment};
/// use xlayout::hlo::{Analysis, Module};
/// let m = Module::parse("ENTRY %e {\n  ROOT %n = f32[10]{0} parameter(0)\n}\n");
/// let b = BufferAssignment::parse("allocation 2: size 64:\n value: <5 gone @0> (size=40,offset=0): f32[10]{0}\n");
/// let d = size_differences(&b, &Analysis::new(&m));
/// assert_eq!((d[0].allocation, d[0].module_instruction, d[0].array_bytes), (2, None, None)); // no `gone` here
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SizeDifference {
    /// The allocation holding it.
    pub allocation: u64,
    /// The value.
    pub value: AssignedValue,
    /// The module's instruction of that name, if there is one.
    pub module_instruction: Option<InstrId>,
    /// This crate's `ArraySize` (or index-table size) of the value's shape; `None` when
    /// the instruction, the index or a size is missing.
    pub array_bytes: Option<u64>,
    /// This crate's `ByteSizeOf` of it.
    pub bytes: Option<u64>,
}

/// Every value of `assignment` whose size is not this crate's `ArraySize` of its shape
/// in the module (an instruction of that name, the subshape at its index).
///
/// ```
/// use xlayout::hlo::xla::{size_differences, BufferAssignment};
/// use xlayout::hlo::{Analysis, Module};
/// let m = Module::parse("ENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let a = Analysis::new(&m);
/// let b = BufferAssignment::parse("allocation 0: size 64, parameter 0:\n value: <0 p @0> (size=64,offset=0): f32[10]{0:T(8)}\nallocation 1: size 40:\n value: <1 n @0> (size=40,offset=0): f32[10]{0:T(8)}\n");
/// let d = size_differences(&b, &a);
/// assert_eq!(d.len(), 1); // ArraySize pads 10 elements to 16: 64 bytes, not 40
/// assert_eq!((d[0].value.instruction.as_str(), d[0].array_bytes, d[0].bytes), ("n", Some(64), Some(40)));
/// ```
pub fn size_differences(
    assignment: &BufferAssignment,
    a: &Analysis<'_, '_>,
) -> Vec<SizeDifference> {
    let m = a.module;
    // Each distinct shape's tree built once, when a value first needs it.
    let mut trees: IndexVec<ShapeId, Option<Tree>> = IndexVec::from_elem(None, m.shapes.len());
    let mut out = Vec::new();
    for alloc in &assignment.allocations {
        for v in &alloc.values {
            let i = m.instruction_id(&v.instruction);
            let sizes = i.and_then(|i| {
                let id = m.instructions[i].shape?;
                let tree = trees[id].get_or_insert_with(|| Tree::new(&m.shapes[id], &a.shapes[id]));
                tree.nodes[tree.at(&v.shape_index)?].sizes
            });
            if sizes.map(|s| s.array_bytes) != Some(v.size) {
                out.push(SizeDifference {
                    allocation: alloc.index,
                    value: v.clone(),
                    module_instruction: i,
                    array_bytes: sizes.map(|s| s.array_bytes),
                    bytes: sizes.map(|s| s.bytes),
                });
            }
        }
    }
    out
}

/// XLA's buffer assignment and live-range files beside a module file, if they exist:
/// `X-buffer-assignment.txt` and `X-live-range.txt` for `X.txt` (XLA's names), or
/// `buffer_assignment.txt` and `live_range.txt` in the same directory (the names
/// tests/data/hlo uses). With `assignment` given, the live ranges are looked for beside it
/// in the same two ways.
///
/// ```
/// use std::path::Path;
/// let dir = format!("{}/tests/data/hlo/jax_cpu/identity", env!("CARGO_MANIFEST_DIR"));
/// let (b, l) = xlayout::hlo::xla::dumps_beside(&Path::new(&dir).join("after_optimizations.txt"), None);
/// assert!(b.unwrap().ends_with("buffer_assignment.txt") && l.unwrap().ends_with("live_range.txt"));
/// assert_eq!(xlayout::hlo::xla::dumps_beside(Path::new("-"), None), (None, None));
/// ```
pub fn dumps_beside(
    module: &Path,
    assignment: Option<&Path>,
) -> (Option<PathBuf>, Option<PathBuf>) {
    let existing = |p: PathBuf| p.is_file().then_some(p);
    let sibling = |p: &Path, xla: &str, renamed: &str| -> Option<PathBuf> {
        let name = p.file_name()?.to_str()?;
        let stem = name.strip_suffix(".txt")?;
        let stem = stem
            .strip_suffix("-buffer-assignment")
            .or_else(|| stem.strip_suffix("-live-range"))
            .unwrap_or(stem);
        existing(p.with_file_name(format!("{stem}-{xla}.txt")))
            .or_else(|| existing(p.with_file_name(format!("{renamed}.txt"))))
    };
    let assignment = match assignment {
        Some(a) => Some(a.to_path_buf()),
        None => sibling(module, "buffer-assignment", "buffer_assignment"),
    };
    let live = match &assignment {
        Some(a) => sibling(a, "live-range", "live_range"),
        None => sibling(module, "live-range", "live_range"),
    };
    (assignment, live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_attributes_with_tuple_shapes() {
        let b = BufferAssignment::parse(
            "allocation 4: size 16, output shape is |(f32[16], f32[64,16])|, maybe-live-out:\n value: <36 tuple.5{} @0> (size=16,offset=0): (f32[16]{0}, f32[64,16]{1,0})\n value: <41 arg_tuple.3{2} (phi) @0> (size=4096,offset=0): f32[64,16]{1,0}\nallocation x\n value: <oops>\n",
        );
        let a = &b.allocations[0];
        assert_eq!(
            (a.index, a.size, a.maybe_live_out, a.parameter, a.constant),
            (4, 16, true, None, false)
        );
        assert_eq!(a.values[1].shape_index, [2]);
        assert!(a.values[1].phi && !a.values[0].phi);
        assert_eq!(a.values[0].shape, "(f32[16]{0}, f32[64,16]{1,0})");
        let lines: Vec<usize> = b.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [4, 5]);
    }

    /// XLA's files' problems are diagnostics as a module's are: past the first
    /// [`MAX_LISTED`], one more counts the rest, and every problem is counted once.
    #[test]
    fn unreadable_lines_past_the_listed_are_counted() {
        let text: String = (0..130).map(|i| format!("allocation {i}: size x:\n")).collect();
        let b = BufferAssignment::parse(&text);
        assert_eq!(b.problems.len(), MAX_LISTED + 1);
        let last = &b.problems[MAX_LISTED];
        assert_eq!((last.line, last.kind, last.more), (101, DiagnosticKind::UnreadableLine, 30));
        assert_eq!(
            last.to_string(),
            "101: 30 more unreadable lines from this line on are not listed (the first 100 are)"
        );
        assert_eq!(b.problems.iter().map(Diagnostic::problems).sum::<usize>(), 130);
    }

    #[test]
    fn live_range_sections() {
        let d = LiveRangeDump::parse(
            "HloLiveRange (max 3):\n  InstructionSequence:\n    0:a\n  BufferLiveRange:\n    a{}:0-3\n    t{1,0}:1-2\n    junk\n  Live ranges at 0 (peak):\n  Stack trace breakdown for peak usage: 1 408 bytes\n    main (100.0%, total: 1 408 bytes)\n",
        );
        assert_eq!(d.ranges[1].shape_index, [1, 0]);
        assert_eq!((d.peak_bytes(), d.stack_trace_bytes), (Some(0), Some(1408)));
        assert_eq!(
            d.problems,
            [Diagnostic::new(7, DiagnosticKind::UnreadableLine, "unreadable live range line")]
        );
    }
}
