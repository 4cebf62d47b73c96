//! Buffers -> reports: one row per instruction, totals of the memory instructions own (per
//! memory space and per computation), top-N lists, and groups.

use std::collections::{BTreeMap, HashMap};

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::buffer::{Analysis, Ownership};
use super::group_by::GroupBy;
use super::id::{CompId, IndexVec, InstrId};
use super::names::{ComputationNames, SourceFiles};
use super::sizes::{LeafKind, Sizes};
use super::text::diagnostic::Diagnostic;
use super::work::Counted;

/// The version of the machine-readable report (JSON keys, TSV columns). It changes only
/// when a key or column is renamed or removed, or a value changes meaning.
///
/// 2: every TSV and CSV column is the JSON key of the same field (`memory_spaces`,
/// `causes`, `group_by`; `oom`'s rows are its JSON `entries`, flat); an instruction row
/// always has every key (`null` where its shape was not read); `oom`'s percentages are
/// numbers and its printed sizes say whether they were `rounded`.
///
/// 3: the headline is what XLA:CPU allocates, predicted (`allocated_bytes`,
/// `argument_bytes`, `output_bytes`, `alias_bytes`, `temp_bytes`, `allocation_exact`, ...);
/// XLA's live-range peak is named for what it is: `peak_step` and `peak_bytes` are
/// `live_range_peak_step` and `live_range_peak_bytes` (and `peak`'s other `peak_*` keys
/// `live_range_peak_*`, its TSV column `peak_step` `live_range_peak_step`; `hlo`'s
/// `peak_exact` `live_range_peak_exact`).
/// Also in 3: `oom --hlo` writes what the dump says of an instruction (its opcode, shape, `op_name`
/// and source) once, in the dump's table `dump.named` by instruction name (after the
/// reports), not in every entry that names it: `hlo_opcode`, `hlo_shape`, `hlo_op_name` and
/// `hlo_source` left the entries and the TSV and CSV columns (`hlo_found`, `hlo_line`,
/// `hlo_bytes` and `hlo_same_shape` stay).
///
/// 4: a name that many rows share is written once, in a table of names beside the rows, and
/// a row gives its number there (the JSON's rows) or the name cut to
/// [`NAME_CHARS`](super::NAME_CHARS) characters with its length said (TSV, CSV, tables): a
/// row's `computation` (`hlo`, `peak`, `relayouts`) is the index of its name in the file's
/// `computations`; `hlo`'s `source` is `source_file`, the index of the file in the file's
/// `source_files`, and `source_line`; an `oom` entry's `memory_space` is the index of its
/// name in the report's `memory_spaces`.
pub const REPORT_VERSION: u32 = 4;

/// What a report lists.
///
/// ```
/// let o = xlayout::hlo::ReportOptions::default();
/// assert_eq!((o.top, o.min_bytes, o.group_by), (20, 0, None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportOptions {
    /// Entries per top list and groups listed.
    pub top: usize,
    /// Buffers smaller than this are left out of the top lists.
    pub min_bytes: u64,
    /// Group owned buffers.
    pub group_by: Option<GroupBy>,
    /// With [`GroupBy::Op`]: keep this many leading parts of the `op_name` path
    /// (`jit(f)/layer/dot` has 3); `None` drops the last part.
    pub op_depth: Option<usize>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { top: 20, min_bytes: 0, group_by: None, op_depth: None }
    }
}

/// A sum of owned buffers and how many instructions it covers.
///
/// ```
/// use xlayout::hlo::{Sizes, Sum};
/// let mut s = Sum::default();
/// s.add(&Sizes { array_bytes: 512, logical_bytes: 40, tiling_padding_bytes: 472, widening_bytes: 0 });
/// assert_eq!((s.instructions, s.sizes.padding_bytes()), (1, 472));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sum {
    /// Instructions added.
    pub instructions: u64,
    /// Their bytes.
    #[serde(flatten)]
    pub sizes: Sizes,
    /// Whether a figure of the sum reached 2⁶⁴ − 1 bytes and stopped there: it is then at
    /// least what it says (a hostile module can own more than 64 bits count).
    pub saturated: bool,
}

impl Sum {
    /// Adds one instruction's bytes.
    ///
    /// ```
    /// use xlayout::hlo::{Sizes, Sum};
    /// let mut s = Sum::default();
    /// let eight_e = Sizes { array_bytes: 1 << 63, logical_bytes: 1 << 63, ..Sizes::default() };
    /// s.add(&eight_e);
    /// s.add(&eight_e);
    /// assert_eq!((s.sizes.array_bytes, s.saturated), (u64::MAX, true));
    /// ```
    pub fn add(&mut self, sizes: &Sizes) {
        self.instructions += 1;
        let (sum, saturated) = self.sizes.plus_saturating(sizes);
        self.sizes = sum;
        self.saturated |= saturated;
    }

    /// Adds another sum.
    ///
    /// ```
    /// use xlayout::hlo::Sum;
    /// let mut a = Sum { instructions: 2, ..Sum::default() };
    /// a.merge(&a.clone());
    /// assert_eq!(a.instructions, 4);
    /// ```
    pub fn merge(&mut self, other: &Sum) {
        self.instructions += other.instructions;
        let (sum, saturated) = self.sizes.plus_saturating(&other.sizes);
        self.sizes = sum;
        self.saturated |= saturated || other.saturated;
    }
}

/// A sum with what it is the sum of (a memory space, a computation, a group key).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Keyed<K> {
    /// What was summed.
    pub key: K,
    /// The sum.
    #[serde(flatten)]
    pub sum: Sum,
}

/// The memory instructions own: in all, per memory space, per computation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Instructions read.
    pub instructions: u64,
    /// Instructions whose result shape was not read (invalid).
    pub unread_shapes: u64,
    /// Owning instructions with a leaf XLA gives no size (unbounded dimension): their other
    /// leaves are counted.
    pub unsized_owners: u64,
    /// All owned memory.
    pub owned: Sum,
    /// Per memory space (`S(n)`), ascending; an instruction with leaves in two spaces
    /// counts in both.
    pub by_memory_space: Vec<Keyed<i64>>,
    /// Per computation that owns any memory, in text order (`-`: outside any computation).
    pub by_computation: Vec<Keyed<String>>,
}

impl Totals {
    /// Adds the totals of another file (per-computation sums are kept per file, so they
    /// are not merged).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions, Totals};
    /// let m = Module::parse("%a = f32[2]{0} parameter(0)\n");
    /// let a = Analysis::new(&m);
    /// let r = Report::new(&a, ReportOptions::default());
    /// let mut all = Totals::default();
    /// all.merge(&r.totals);
    /// all.merge(&r.totals);
    /// assert_eq!((all.owned.instructions, all.owned.sizes.array_bytes), (2, 16));
    /// ```
    ///
    /// Linear in both lists of spaces: to add up many files, [`RunningTotals`].
    pub fn merge(&mut self, other: &Totals) {
        self.add_counts(other);
        self.by_memory_space.extend_from_slice(&other.by_memory_space);
        sum_by_space(&mut self.by_memory_space);
    }

    /// Adds the counts and the owned sum of another file (not its memory spaces).
    fn add_counts(&mut self, other: &Totals) {
        self.instructions += other.instructions;
        self.unread_shapes += other.unread_shapes;
        self.unsized_owners += other.unsized_owners;
        self.owned.merge(&other.owned);
    }
}

/// Puts `spaces` in order of space, each space once with the sums of all its entries.
/// Runs of entries already in order cost a pass each: the stable sort finds the runs and
/// merges them in place (no map of every space beside the list), then each space's sums are
/// added into its first.
fn sum_by_space(spaces: &mut Vec<Keyed<i64>>) {
    spaces.sort_by_key(|k| k.key);
    spaces.dedup_by(|later, kept| {
        let same = later.key == kept.key;
        if same {
            kept.sum.merge(&later.sum);
        }
        same
    });
}

/// The totals of many files, added up as they come, in time n log n in the memory spaces
/// they bring, where [`Totals::merge`] in a loop would put every space seen so far in order
/// again for each file (quadratic when each file brings spaces of its own). The spaces of
/// each file are appended; they are put in order when the list has doubled since they last
/// were, and once more at the end, so the list holds at most twice the spaces there are and
/// each space is sorted a logarithmic number of times.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Report, ReportOptions, RunningTotals};
/// let mut all = RunningTotals::default();
/// for k in [3, 1, 3] {
///     let text = format!("%a = f32[2]{{0:S({k})}} parameter(0)\n");
///     let m = Module::parse(&text);
///     let a = Analysis::new(&m);
///     all.add(&Report::new(&a, ReportOptions::default()).totals);
/// }
/// let t = all.into_totals();
/// let spaces: Vec<_> = t.by_memory_space.iter().map(|k| (k.key, k.sum.instructions)).collect();
/// assert_eq!((t.instructions, spaces), (3, vec![(1, 1), (3, 2)]));
/// ```
#[derive(Clone, Debug, Default)]
pub struct RunningTotals {
    /// The sums; its spaces in order up to `ordered`, appended after.
    sum: Totals,
    /// How many of the spaces are in order, each once.
    ordered: usize,
}

impl RunningTotals {
    /// Adds the totals of one file (per-computation sums are kept per file, so they are
    /// not added).
    pub fn add(&mut self, t: &Totals) {
        self.sum.add_counts(t);
        let spaces = &mut self.sum.by_memory_space;
        spaces.extend_from_slice(&t.by_memory_space);
        if spaces.len() >= 2 * self.ordered.max(32) {
            sum_by_space(spaces);
            self.ordered = spaces.len();
        }
    }

    /// The totals of every file added, their memory spaces in order.
    pub fn into_totals(mut self) -> Totals {
        sum_by_space(&mut self.sum.by_memory_space);
        self.sum
    }
}

/// One instruction as a report row: what the dump says, the sizes of its whole result, and
/// what it owns. The JSON keys and TSV columns are these field names. Names that many rows
/// share (a computation's, a source file's) are numbers in the report's tables
/// (`computations`, `source_files`), each name written once.
#[derive(Clone, Debug, Serialize)]
pub struct Row<'a> {
    /// The line it starts on.
    pub line: usize,
    /// Its computation, by number: the index of its name in the module's computations
    /// ([`ComputationNames`](super::ComputationNames), the report's `computations`);
    /// `None` outside any.
    pub computation: Option<CompId>,
    /// Its name, without `%`.
    pub instruction: &'a str,
    /// Its opcode, as written.
    pub opcode: &'a str,
    /// Its result shape as written.
    pub shape: &'a str,
    /// The memory spaces of its array leaves.
    pub memory_spaces: Vec<i64>,
    /// Sizes of the whole result (every leaf with a size); `None` when the shape was not
    /// read (its keys are then `null`).
    #[serde(flatten, serialize_with = "row_sizes")]
    pub sizes: Option<RowSizes>,
    /// Whether it owns memory.
    pub owns_buffer: bool,
    /// Why or why not.
    pub ownership: Ownership,
    /// The `ArraySize` of the leaves it owns.
    pub owned_bytes: u64,
    /// Its `op_name`.
    pub op_name: Option<&'a str>,
    /// The file of its source, by number: the index of its name in the report's
    /// [`source_files`](Report::source_files).
    pub source_file: Option<u32>,
    /// The line of its source in that file.
    pub source_line: Option<u64>,
    /// Why it pads, per padded dimension (`{1}: ` before a tuple leaf's reasons).
    pub causes: Vec<String>,
    /// A layout that pads at least 10% less (the first such leaf's, for a tuple).
    pub best_layout: Option<String>,
    /// That layout's `ArraySize`.
    pub best_bytes: Option<u64>,
}

/// A row's sizes as keys of the row, each `null` when the shape was not read: a row has
/// the same keys whatever its instruction.
fn row_sizes<S: Serializer>(sizes: &Option<RowSizes>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Keys {
        array_bytes: Option<u64>,
        logical_bytes: Option<u64>,
        padding_bytes: Option<u64>,
        tiling_padding_bytes: Option<u64>,
        widening_bytes: Option<u64>,
        expansion: Option<crate::memory::ratio::Ratio>,
        unsized_leaves: Option<usize>,
    }
    let z = sizes.map(|r| r.sizes);
    Keys {
        array_bytes: z.map(|z| z.array_bytes),
        logical_bytes: z.map(|z| z.logical_bytes),
        padding_bytes: z.map(|z| z.padding_bytes()),
        tiling_padding_bytes: z.map(|z| z.tiling_padding_bytes),
        widening_bytes: z.map(|z| z.widening_bytes),
        expansion: z.and_then(|z| z.expansion()),
        unsized_leaves: sizes.map(|r| r.unsized_leaves),
    }
    .serialize(s)
}

/// The sizes in a [`Row`].
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RowSizes {
    /// The bytes.
    #[serde(flatten)]
    pub sizes: Sizes,
    /// Leaves without a size.
    pub unsized_leaves: usize,
}

/// A module's report: totals, the top lists (instruction ids), groups.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
/// let text = "ENTRY %main {\n  %a = f32[10]{0:T(128)} parameter(0)\n  %b = f32[1000]{0:T(128)} negate(%a)\n  %c = f32[10]{0:T(128)} slice(%b), slice={[0:10]}\n}\n";
/// let m = Module::parse(text);
/// let a = Analysis::new(&m);
/// let r = Report::new(&a, ReportOptions::default());
/// assert_eq!(r.totals.owned.instructions, 3);
/// assert_eq!(r.totals.owned.sizes.array_bytes, 512 + 4096 + 512);
/// let names = |list: &[xlayout::hlo::InstrId]| -> Vec<&str> { list.iter().map(|&i| m.instructions[i].name).collect() };
/// assert_eq!(names(&r.top_allocated), ["b", "a", "c"]); // b, then a and c in file order
/// assert_eq!(names(&r.top_expansion), ["a", "c", "b"]); // 12.8x, 12.8x, 1.02x
/// ```
#[derive(Clone, Debug)]
pub struct Report<'a, 't> {
    /// What the report is of (borrowed for as long as the report: a shared borrow of the
    /// analysis shortens to it, so one lifetime serves both).
    pub analysis: &'a Analysis<'a, 't>,
    /// What it lists.
    pub options: ReportOptions,
    /// The totals.
    pub totals: Totals,
    /// Owning instructions by owned bytes, largest first (ties in file order).
    pub top_allocated: Vec<InstrId>,
    /// Owning instructions by padding bytes, largest first; only those that pad.
    pub top_padding: Vec<InstrId>,
    /// Owning instructions by expansion, largest first (ties: larger first); only those
    /// that pad.
    pub top_expansion: Vec<InstrId>,
    /// Groups of owned buffers by [`ReportOptions::group_by`], largest first.
    pub groups: Vec<Keyed<String>>,
    /// The source files of the module's instructions, each once: a row's `source_file`
    /// indexes them.
    pub source_files: SourceFiles<'t>,
}

impl<'a, 't> Report<'a, 't> {
    /// Sums and ranks, and numbers the source files.
    pub fn new(analysis: &'a Analysis<'a, 't>, options: ReportOptions) -> Self {
        let m = analysis.module;
        let mut totals = Totals { instructions: m.instructions.len() as u64, ..Totals::default() };
        // By space, in order: a module may put every instruction in a space of its own.
        let mut spaces: BTreeMap<Counted<i64>, Sum> = BTreeMap::new();
        let mut per_computation = IndexVec::from_elem(Sum::default(), m.computations.len());
        let mut outside = Sum::default();
        let mut owners: Vec<InstrId> = Vec::new();
        for (i, ins) in m.instructions.iter_enumerated() {
            let b = &analysis.buffers[i];
            let Some(facts) = analysis.facts(i) else {
                totals.unread_shapes += 1;
                continue;
            };
            if !b.ownership.owns() {
                continue;
            }
            owners.push(i);
            totals.owned.add(&b.owned);
            match ins.computation {
                Some(c) => per_computation[c].add(&b.owned),
                None => outside.add(&b.owned),
            }
            if analysis.owned_leaves(i).any(|l| l.sizes.is_none()) {
                totals.unsized_owners += 1;
            }
            // Per memory space: one entry per space the owned leaves are in (a tuple may put
            // every leaf in a space of its own).
            if facts.memory_spaces.len() <= 1 && b.ownership == Ownership::Owns {
                let space = facts.memory_spaces.first().copied().unwrap_or(0);
                spaces.entry(Counted(space)).or_default().add(&b.owned);
            } else {
                let mut by_space: BTreeMap<Counted<i64>, Sizes> = BTreeMap::new();
                for leaf in analysis.owned_leaves(i).filter(|l| l.kind == LeafKind::Array) {
                    let t = by_space.entry(Counted(leaf.memory_space)).or_default();
                    *t = t.plus(&leaf.sizes.unwrap_or_default());
                }
                for (space, s) in by_space {
                    spaces.entry(space).or_default().add(&s);
                }
            }
        }
        totals.by_memory_space =
            spaces.into_iter().map(|(key, sum)| Keyed { key: key.0, sum }).collect();
        if outside.instructions > 0 {
            totals.by_computation.push(Keyed { key: String::from("-"), sum: outside });
        }
        for (c, sum) in m.computations.iter().zip(per_computation.iter()) {
            if sum.instructions > 0 {
                totals.by_computation.push(Keyed { key: c.name.to_string(), sum: *sum });
            }
        }

        let owned = |i: &InstrId| analysis.buffers[*i].owned;
        let listed: Vec<InstrId> =
            owners.iter().copied().filter(|i| owned(i).array_bytes >= options.min_bytes).collect();
        let top_allocated = top(&listed, options.top, |a, b| {
            owned(b).array_bytes.cmp(&owned(a).array_bytes).then(a.cmp(b))
        });
        let padded: Vec<InstrId> =
            listed.iter().copied().filter(|i| owned(i).padding_bytes() > 0).collect();
        let top_padding = top(&padded, options.top, |a, b| {
            owned(b).padding_bytes().cmp(&owned(a).padding_bytes()).then(a.cmp(b))
        });
        let top_expansion = top(&padded, options.top, |a, b| {
            let (x, y) = (owned(a), owned(b));
            // x.array/x.logical vs y.array/y.logical, exactly; no data sorts first.
            let lhs = u128::from(y.array_bytes) * u128::from(x.logical_bytes);
            let rhs = u128::from(x.array_bytes) * u128::from(y.logical_bytes);
            lhs.cmp(&rhs).then(y.array_bytes.cmp(&x.array_bytes)).then(a.cmp(b))
        });
        let groups = match options.group_by {
            None => Vec::new(),
            Some(by) => {
                let mut map: HashMap<String, Sum> = HashMap::new();
                for &i in &owners {
                    let ins = &m.instructions[i];
                    let key = match by {
                        GroupBy::Opcode => ins.opcode.as_str().to_string(),
                        GroupBy::Shape => ins.shape_text.to_string(),
                        GroupBy::Op => {
                            op_prefix(m.metadata(i).op_name.as_deref(), options.op_depth)
                        }
                    };
                    map.entry(key).or_default().add(&analysis.buffers[i].owned);
                }
                let mut groups: Vec<Keyed<String>> =
                    map.into_iter().map(|(key, sum)| Keyed { key, sum }).collect();
                groups.sort_by(|a, b| {
                    b.sum
                        .sizes
                        .array_bytes
                        .cmp(&a.sum.sizes.array_bytes)
                        .then_with(|| a.key.cmp(&b.key))
                });
                groups.truncate(options.top);
                groups
            }
        };
        let source_files = SourceFiles::new(m);
        Report {
            analysis,
            options,
            totals,
            top_allocated,
            top_padding,
            top_expansion,
            groups,
            source_files,
        }
    }

    /// The owning instructions whose owned bytes expand more than `num / den` times
    /// (exactly: `array × den > num × logical`), in file order.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
    /// let m = Module::parse("%a = f32[10]{0:T(128)} parameter(0)\n%b = f32[100]{0:T(128)} parameter(1)\n");
    /// let a = Analysis::new(&m);
    /// let r = Report::new(&a, ReportOptions::default());
    /// assert_eq!(r.expanding_more_than(128, 100), [m.instruction_id("a").unwrap()]); // 12.8x; 1.28x is not above 1.28
    /// ```
    pub fn expanding_more_than(&self, num: u128, den: u128) -> Vec<InstrId> {
        let a = self.analysis;
        a.buffers
            .iter_enumerated()
            .filter(|(_, b)| {
                b.ownership.owns()
                    && u128::from(b.owned.array_bytes).saturating_mul(den)
                        > u128::from(b.owned.logical_bytes).saturating_mul(num)
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The report row of instruction `i`.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
    /// let m = Module::parse("%p = bf16[16,1280,40]{2,1,0:T(8,128)(2,1)} parameter(0), metadata={op_name=\"x\" source_file=\"m.py\" source_line=7}\n");
    /// let a = Analysis::new(&m);
    /// let report = Report::new(&a, ReportOptions::default());
    /// let r = report.row(m.instruction_id("p").unwrap());
    /// assert_eq!(r.sizes.unwrap().sizes.array_bytes, 5_242_880);
    /// assert_eq!(r.causes, ["d2 40 -> 128 (x3.20)"]);
    /// assert_eq!(r.best_layout.as_deref(), Some("{1,2,0:T(8,128)(2,1)}"));
    /// assert_eq!((r.owns_buffer, r.op_name), (true, Some("x")));
    /// assert_eq!((r.source_file, r.source_line, &*report.source_files.names()[0]), (Some(0), Some(7), "m.py"));
    /// ```
    pub fn row(&self, i: InstrId) -> Row<'a> {
        let a = self.analysis;
        let m = a.module;
        let ins = &m.instructions[i];
        let facts = a.facts(i);
        let buffer = &a.buffers[i];
        let mut causes = Vec::new();
        let mut best = None;
        if let Some(f) = facts {
            for leaf in &f.leaves {
                let prefix = if leaf.index.is_empty() {
                    String::new()
                } else {
                    let index: Vec<String> = leaf.index.iter().map(ToString::to_string).collect();
                    format!("{{{}}}: ", index.join(","))
                };
                causes.extend(leaf.causes.iter().map(|c| format!("{prefix}{c}")));
                if best.is_none() && leaf.kind == LeafKind::Array {
                    best = leaf.best.as_deref();
                }
            }
        }
        let source = self.source_files.of(m, i);
        Row {
            line: ins.line,
            computation: ins.computation,
            instruction: ins.name,
            opcode: ins.opcode.as_str(),
            shape: ins.shape_text,
            memory_spaces: facts.map(|f| f.memory_spaces.clone()).unwrap_or_default(),
            sizes: facts.map(|f| RowSizes { sizes: f.total, unsized_leaves: f.unsized_leaves }),
            owns_buffer: buffer.ownership.owns(),
            ownership: buffer.ownership,
            owned_bytes: buffer.owned.array_bytes,
            op_name: m.metadata(i).op_name.as_deref(),
            source_file: source.map(|(file, _)| file),
            source_line: source.map(|(_, line)| line),
            causes,
            best_layout: best.map(|b| b.layout.clone()),
            best_bytes: best.map(|b| b.array_bytes),
        }
    }

    /// The module's diagnostics.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.analysis.module.diagnostics
    }
}

/// The first `n` of `items` in `order`, without sorting all of them.
fn top(
    items: &[InstrId],
    n: usize,
    order: impl Fn(&InstrId, &InstrId) -> std::cmp::Ordering,
) -> Vec<InstrId> {
    let mut v = items.to_vec();
    if n == 0 {
        return Vec::new();
    }
    if v.len() > n {
        v.select_nth_unstable_by(n - 1, &order);
        v.truncate(n);
    }
    v.sort_by(&order);
    v
}

/// The `op_name` group key: the first `depth` parts of the path, or all but the last.
pub(crate) fn op_prefix(op_name: Option<&str>, depth: Option<usize>) -> String {
    let Some(name) = op_name.filter(|n| !n.is_empty()) else {
        return String::from("-");
    };
    // `/` inside brackets (`transpose(jvp(a/b))`) does not split the path.
    let mut cuts = Vec::new();
    let mut level = 0i32;
    for (i, c) in name.char_indices() {
        match c {
            '(' | '[' | '{' => level += 1,
            ')' | ']' | '}' => level -= 1,
            '/' if level <= 0 => cuts.push(i),
            _ => {}
        }
    }
    let end = match depth {
        None => cuts.last().copied().unwrap_or(name.len()),
        Some(d) => cuts.get(d.saturating_sub(1)).copied().filter(|_| d > 0).unwrap_or(name.len()),
    };
    name[..end].to_string()
}

impl Serialize for Report<'_, '_> {
    /// `{"module", "is_scheduled", "entry", "lines", "totals", "top": {"allocated",
    /// "padding", "expansion"}, "groups"?, "instructions", "diagnostics", "computations",
    /// "source_files"}`; rows as [`Row`], the names they share in the last two.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Rows<'r, 'a, 't>(&'r Report<'a, 't>, &'r [InstrId]);
        impl Serialize for Rows<'_, '_, '_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.1.len()))?;
                for &i in self.1 {
                    seq.serialize_element(&self.0.row(i))?;
                }
                seq.end()
            }
        }
        #[derive(Serialize)]
        struct Top<'r, 'a, 't> {
            allocated: Rows<'r, 'a, 't>,
            padding: Rows<'r, 'a, 't>,
            expansion: Rows<'r, 'a, 't>,
        }
        let a = self.analysis;
        let m = a.module;
        let all: Vec<InstrId> = m.instructions.ids().collect();
        let mut st = s.serialize_struct("Report", 11)?;
        st.serialize_field("module", &m.name)?;
        st.serialize_field("is_scheduled", &m.is_scheduled)?;
        st.serialize_field("entry", &m.entry.map(|e| m.computations[e].name))?;
        st.serialize_field("lines", &m.lines)?;
        st.serialize_field("totals", &self.totals)?;
        st.serialize_field(
            "top",
            &Top {
                allocated: Rows(self, &self.top_allocated),
                padding: Rows(self, &self.top_padding),
                expansion: Rows(self, &self.top_expansion),
            },
        )?;
        if let Some(by) = self.options.group_by {
            st.serialize_field("group_by", &by)?;
            st.serialize_field("groups", &self.groups)?;
        }
        st.serialize_field("instructions", &Rows(self, &all))?;
        st.serialize_field("diagnostics", &m.diagnostics)?;
        st.serialize_field("computations", &ComputationNames(m))?;
        st.serialize_field("source_files", &self.source_files)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::op_prefix;

    #[test]
    fn the_op_name_group_key() {
        let op = Some("jit(f)/layer_3/attention/dot_general");
        assert_eq!(op_prefix(op, None), "jit(f)/layer_3/attention");
        assert_eq!(op_prefix(op, Some(2)), "jit(f)/layer_3");
        assert_eq!(op_prefix(Some("a[0]"), None), "a[0]");
        assert_eq!(op_prefix(None, None), "-");
    }
}
