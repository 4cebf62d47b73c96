//! What the command line says, parsed by clap: one variant of [`Command`] per mode, each with
//! its own arguments. The doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// XLA's array shapes and tiled layouts: exact text, sizes, offsets and pictures
///
/// With no command, shows a demo: the memory maps of two tiled layouts,
/// and one shape explained.
#[derive(Debug, Parser)]
#[command(name = "xlayout", version, after_help = SCRIPTING, verbatim_doc_comment)]
pub struct Cli {
    /// The mode; none shows the demo.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The rules every scripting command follows, shown under the command list.
const SCRIPTING: &str = "\
The scripting commands (canon, bytes, offset, index) answer each input on its own line,
`ok <answer>` or `err <message>`, in the order of the inputs; a blank input is answered
`err empty input`. With no inputs, or with `-` among them, they read one input per line of
standard input. A SHAPE of `-` is the first line of standard input. A command that
reads standard input from a terminal says so on standard error first.

Exit status: 0 when every input was answered ok, 1 when any input was an error, 2 for a
usage error or when an input cannot be read or the output cannot be written. A closed
output pipe (`xlayout canon < shapes.txt | head -1`) ends the command quietly, status 0.";

/// One mode of the command, run by `run` in lib.rs. The doc comments are `--help` text, kept
/// verbatim: clap (without its terminal-size feature) does not wrap lines.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// XLA's printed form of each shape
    ///
    /// Answers `ok <the shape as XLA prints it>` or `err <why it is invalid>`
    /// per input. Tuples, tokens and buffers are shapes too.
    #[command(verbatim_doc_comment)]
    Canon(Inputs),
    /// XLA's byte size of each array shape (ShapeUtil::ArraySize)
    ///
    /// Answers `ok <bytes>` or `err <why there is no size>` per input.
    Bytes(Inputs),
    /// The element offset in memory of each logical index
    ///
    /// Answers `ok <offset>` per INDEX, or `err` for an index outside the shape.
    Offset(Offsets),
    /// The logical index stored at each element offset, or `padding`
    ///
    /// Answers `ok I,J,..`, `ok padding`, or `err` for an offset beyond the grid.
    Index(Indices),
    /// Sizes, physical order, tiles and padding of a shape, for a person
    Explain(Explain),
    /// The offset of every element of a 2-D slice, and the padding positions
    ///
    /// Draws the slice as a grid of memory offsets with lines between tiles:
    /// its first 32 rows and 32 columns, or the part --origin and --window pick;
    /// the padding list stops after 64 positions. With --svg: a picture of the
    /// slice beside its memory order (any window of it, or one cell per tile).
    #[command(verbatim_doc_comment)]
    Map(Map),
    /// Where the memory of HLO modules goes, buffer by buffer
    ///
    /// Reads every instruction of every computation, sizes each result as
    /// XLA allocates it (ShapeUtil::ArraySize) against its data, says which
    /// dimension pads and which order of the same dimensions would pad less,
    /// and sums the buffers instructions own (not fused instructions, bitcast,
    /// get-tuple-element, tuple, while, ...) per memory space and computation.
    /// The headline names each figure: what XLA:CPU allocates for a scheduled
    /// module, predicted from its text (as `xlayout peak` finds it), XLA's own
    /// allocation total when its buffer assignment is beside the module, and
    /// the sum of every owned buffer, which is neither. Lines it cannot read go to standard error with
    /// file:line; the rest is still read. Exit status 1 for such a line or a
    /// shape XLA rejects, or when --max-expansion or --budget is exceeded.
    #[command(verbatim_doc_comment)]
    Hlo(Hlo),
    /// The peak memory of scheduled HLO modules, and what is live there
    ///
    /// Computes, without running anything, the live range of every value of a
    /// scheduled module (is_scheduled=true) by the rules of XLA's buffer
    /// assigner (HloLiveRange over HloDataflowAnalysis), and from them what
    /// XLA:CPU's buffer assignment allocates: arguments + outputs - aliased +
    /// temporaries, as compiled.memory_analysis() counts them (bounds where a
    /// rule is not modelled). Then XLA's live-range peak, step and bytes, the
    /// values live there largest first with a cumulative column, and the
    /// largest live total over all steps, with padding and without. With XLA's
    /// buffer assignment and live ranges beside the module
    /// (`*-buffer-assignment.txt`, `*-live-range.txt`) XLA's own figures are
    /// shown too, and a prediction that differs is an error. For CI, --budget
    /// makes the exit status 1 when the allocation exceeds it.
    #[command(verbatim_doc_comment)]
    Peak(Peak),
    /// Out-of-memory reports explained, entry by entry
    ///
    /// Reads XLA's out-of-memory reports as pasted (TPU `Ran out of memory in
    /// memory space ...` with `Largest program allocations`, XLA:GPU's
    /// `BufferAssignment OOM Debugging ... Peak buffers`; log prefixes and
    /// Windows line ends are fine) and recomputes each entry from its shape:
    /// exact bytes, whether the printed sizes agree after the report's rounding,
    /// the true expansion, which dimension pads, the layout that would pad least,
    /// and for a shape printed without tiles the TPU default tiling that gives
    /// the printed size (marked inferred). An entry it cannot read is reported
    /// on standard error with its number and left out; exit status 1 then,
    /// and when the text holds no out-of-memory report at all.
    #[command(verbatim_doc_comment)]
    Oom(Oom),
    /// Whether a reshape or transpose keeps every element where it is
    ///
    /// Compares the two index maps, tiles included (XLA's open-source
    /// ReshapeIsBitcast and TransposeIsBitcast look at minor_to_major only):
    /// every element, in row-major order of TO, at the same offset in both, and
    /// both buffers the same size. When not, says the first element that moves
    /// and the bytes a copy would move, and which layout of TO (its tiles kept)
    /// would make it a bitcast. Exit status 0 for a bitcast, 1 for not, 2 for a
    /// shape that cannot be read.
    #[command(verbatim_doc_comment)]
    Bitcast(Bitcast),
    /// Where HLO modules move bytes to change layouts
    ///
    /// Lists every instruction that only moves elements (copy, transpose,
    /// reshape, bitcast, copy-start; fusion bodies included) with its operand's
    /// and result's shapes, whether it keeps every element where it was (tiles
    /// included), the bytes it reads and writes when it does not, and the
    /// result layout that would make it free; per module, the total bytes moved
    /// to change layouts, the largest moves first.
    #[command(verbatim_doc_comment)]
    Relayouts(Relayouts),
}

impl Command {
    /// The command's name and what it reads from standard input, when an argument is `-`
    /// (for the notice given when standard input is a terminal).
    pub fn reads(&self) -> (&'static str, &'static str) {
        const LINES: &str = "its inputs, one a line,";
        match self {
            Command::Canon(_) => ("canon", LINES),
            Command::Bytes(_) => ("bytes", LINES),
            Command::Offset(_) => ("offset", LINES),
            Command::Index(_) => ("index", LINES),
            Command::Explain(_) => ("explain", "the shape"),
            Command::Map(_) => ("map", "the shape"),
            Command::Hlo(_) => ("hlo", "HLO module text"),
            Command::Peak(_) => ("peak", "HLO module text"),
            Command::Oom(a) if a.hlo.as_deref() == Some(std::path::Path::new("-")) => {
                ("oom", "the --hlo dump")
            }
            Command::Oom(_) => ("oom", "an out-of-memory report"),
            Command::Bitcast(_) => ("bitcast", "the shapes"),
            Command::Relayouts(_) => ("relayouts", "HLO module text"),
        }
    }
}

/// The SHAPE argument's help, the same for every command that takes one.
const SHAPE: &str = "\
The shape as XLA prints it, e.g. 'f32[3,5]{1,0:T(2,2)}',
or `-` for the first line of standard input";

/// The inputs of `canon` and `bytes`.
#[derive(Debug, Args)]
pub struct Inputs {
    /// Shapes as XLA prints them, e.g. 'f32[3,5]{1,0:T(2,2)}';
    /// `-` is the lines of standard input
    #[arg(value_name = "SHAPE", default_value = "-", verbatim_doc_comment)]
    pub shapes: Vec<String>,
}

/// The arguments of `offset`.
#[derive(Debug, Args)]
pub struct Offsets {
    #[arg(help = SHAPE)]
    pub shape: String,
    /// Logical indices, e.g. `2,3`, or the empty string for a scalar;
    /// `-` is the (remaining) lines of standard input
    #[arg(value_name = "INDEX", default_value = "-", allow_negative_numbers = true)]
    #[arg(verbatim_doc_comment)]
    pub indices: Vec<String>,
}

/// The arguments of `index`.
#[derive(Debug, Args)]
pub struct Indices {
    #[arg(help = SHAPE)]
    pub shape: String,
    /// Element offsets, e.g. `17`;
    /// `-` is the (remaining) lines of standard input
    #[arg(value_name = "OFFSET", default_value = "-", allow_negative_numbers = true)]
    #[arg(verbatim_doc_comment)]
    pub offsets: Vec<String>,
}

/// The arguments of `explain`.
#[derive(Debug, Args)]
pub struct Explain {
    #[arg(help = SHAPE)]
    pub shape: String,
}

/// The arguments of `map`.
#[derive(Debug, Args)]
pub struct Map {
    #[arg(help = SHAPE)]
    pub shape: String,
    /// The leading indices that pick the 2-D slice of a shape of rank > 2
    /// [default: all 0]
    #[arg(long, value_name = "I,J,..", value_parser = leading_index, verbatim_doc_comment)]
    pub at: Option<LeadingIndex>,
    /// Draw a standalone SVG picture instead: the slice beside its memory order,
    /// tiles coloured and framed, padding hatched; to FILE, or to standard output
    /// when FILE is `-` or left out
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    #[arg(verbatim_doc_comment)]
    pub svg: Option<PathBuf>,
    #[arg(long, value_name = "ROWS,COLS", value_parser = pair, help = window_help())]
    pub window: Option<Pair>,
    /// Draw from this cell of the slice (row, column) [default: 0,0]; with --svg,
    /// rows and columns past the array are its first-level padding (the text map
    /// draws the elements only)
    #[arg(long, value_name = "ROW,COL", value_parser = pair, verbatim_doc_comment)]
    pub origin: Option<Pair>,
    /// With --svg: one cell per first-level tile, showing the tile's first offset
    #[arg(long, requires = "svg")]
    pub tiles: bool,
}

/// `map --window`'s help, from the sizes the maps apply.
fn window_help() -> String {
    use xlayout::draw::{DEFAULT_CELLS, DEFAULT_ROWS as rows, MAX_CELLS, MAX_MEMORY_ROW};
    let side = crate::map::DEFAULT_SIDE;
    format!(
        "Draw ROWS rows and COLS columns of cells from --origin (elements, or tiles
with --tiles) [default: the text map, {side} rows and {side} columns; --svg, the
whole slice when it has at most {DEFAULT_CELLS} elements ({MAX_CELLS} tiles with --tiles),
else its top-left corner of at most that many: {rows} rows of a wide slice, more of
a narrow one]. At most {MAX_CELLS} cells: a larger window keeps its first
{MAX_MEMORY_ROW} columns and as many rows as fit, and says so"
    )
}

/// `--window`'s and `--origin`'s value: two numbers.
#[derive(Clone, Copy, Debug)]
pub struct Pair(pub usize, pub usize);

fn pair(text: &str) -> Result<Pair, String> {
    match super::parse_index(text).map_err(|e| e.0)?[..] {
        [a, b] => Ok(Pair(a, b)),
        _ => Err(format!("`{text}` is not two numbers: write them like `8,128`")),
    }
}

/// `--at`'s value: the indices of the dimensions before the last two.
#[derive(Clone, Debug)]
pub struct LeadingIndex(pub Vec<usize>);

fn leading_index(text: &str) -> Result<LeadingIndex, String> {
    super::parse_index(text).map(LeadingIndex).map_err(|e| e.0)
}

/// The FILE|DIR|- arguments of `hlo`, `peak` and `relayouts`.
const MODULES: &str = "\
HLO module text as XLA and JAX write it: files, dump directories (their module
text, picked by --stage), `-` for standard input";

/// The modules a report command reads (`hlo`, `peak`, `relayouts`): files, directories
/// and standard input, and which module text of a directory.
#[derive(Debug, Args)]
pub struct Modules {
    #[arg(value_name = "FILE|DIR|-", default_value = "-", help = MODULES)]
    pub inputs: Vec<PathBuf>,
    /// Which files of a dump directory: after optimizations, before, or all module text
    #[arg(long, value_enum, value_name = "STAGE", default_value_t = Stage::After)]
    pub stage: Stage,
}

/// `--bytes` of the commands whose tables print sizes as TPU reports do by default.
const UNITS: &str = "\
Sizes in the table: as TPU out-of-memory reports print them (`4.00G`, `64.0K`),
exact byte counts, or XLA's HumanReadableNumBytes (`4.00GiB`)";

/// What a report command's lists and rows are: the help of the flags `hlo` and `peak` share
/// ([`Shown`], [`Gates`]) in each command's words. Each flag is declared once; its help
/// names what it cuts or holds in the command it is given to.
pub trait Lists {
    /// `--top`'s help.
    const TOP: &'static str;
    /// `--min-bytes`' help.
    const MIN_BYTES: &'static str;
    /// `--format`'s help: what a row is.
    const FORMAT: &'static str;
    /// `--max-expansion`'s help: which buffers are held to it.
    const MAX_EXPANSION: &'static str;
}

/// The lists of `hlo`: owned buffers, one row per instruction.
#[derive(Debug)]
pub enum HloLists {}

impl Lists for HloLists {
    const TOP: &'static str = "Entries in each top list (and groups listed)";
    const MIN_BYTES: &'static str =
        "Leave buffers smaller than this out of the top lists (`4096`, `64K`, `1.5G`)";
    const FORMAT: &'static str = "\
The output: `table`, aligned for people (the default on a terminal); `tsv`, a
header line, then one row per instruction (the default otherwise; with --by, one
per group); `csv`, the same rows (RFC 4180); `json`, one object with every file's
rows, totals, top lists and peak, exact integers";
    const MAX_EXPANSION: &'static str =
        "Exit status 1 when an owned buffer takes more than X times its data (`4`, `1.5`)";
}

/// The lists of `peak`: the values live at XLA's live-range peak.
#[derive(Debug)]
pub enum PeakLists {}

impl Lists for PeakLists {
    const TOP: &'static str = "Values listed live at the peak (the largest first)";
    const MIN_BYTES: &'static str =
        "Leave values smaller than this out of the list (`4096`, `64K`, `1.5G`)";
    const FORMAT: &'static str = "\
The output: `table`, aligned for people (the default on a terminal); `tsv`, a
header line, then one row per value live at each file's peak (the default
otherwise); `csv`, the same rows (RFC 4180); `json`, one object with every file's
peak, its live values, high-water marks and XLA's own figures, exact integers";
    const MAX_EXPANSION: &'static str = "\
Exit status 1 when a value live at the peak takes more than X times its data with
its tiling padding (`4`, `1.5`)";
}

/// How `hlo` and `peak` show a module: the lists' length and floor, the table's units, the
/// format, and the HTML page.
#[derive(Debug, Args)]
pub struct Shown<L: Lists> {
    #[arg(long, value_name = "N", default_value_t = 20, help = L::TOP)]
    pub top: usize,
    #[arg(long, value_name = "BYTES", value_parser = bytes, default_value = "0")]
    #[arg(help = L::MIN_BYTES)]
    pub min_bytes: u64,
    #[arg(long, value_enum, value_name = "UNITS", default_value_t = Units::Oom, help = UNITS)]
    pub bytes: Units,
    #[arg(long, value_enum, value_name = "FORMAT", help = L::FORMAT, hide_possible_values = true)]
    pub format: Option<Format>,
    /// Also write one self-contained HTML page (what is allocated and a timeline of what it
    /// holds at every step, the buffers live at the temporaries' peak with their values,
    /// totals, sortable top lists, maps of the tiled buffers; a section per module) to
    /// PAGE; `-` writes the page to standard output instead of --format
    #[arg(long, value_name = "PAGE", verbatim_doc_comment)]
    pub html: Option<PathBuf>,
    #[arg(skip)]
    lists: std::marker::PhantomData<L>,
}

/// What makes `hlo` and `peak` exit with status 1 for CI, beside a module they cannot read:
/// an allocation over budget, a buffer that expands too much, a prediction that is not what
/// XLA's own buffer assignment says.
#[derive(Debug, Args)]
pub struct Gates<L: Lists> {
    /// Exit status 1 when what a file allocates (XLA:CPU's buffer assignment, predicted)
    /// exceeds BYTES (`16G`), or may (its bounds straddle BYTES), saying by how much; also
    /// when a module has no allocation to hold to it (not scheduled, or no ENTRY computation)
    #[arg(long, value_name = "BYTES", value_parser = bytes, verbatim_doc_comment)]
    pub budget: Option<u64>,
    #[arg(long, value_name = "X", value_parser = ratio, help = L::MAX_EXPANSION)]
    pub max_expansion: Option<Ratio>,
    /// XLA's buffer assignment to compare with (its allocation total in the headline; a
    /// prediction that follows every rule and differs from it is an error), instead of
    /// the `*-buffer-assignment.txt` beside the module (one module file only)
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub buffer_assignment: Option<PathBuf>,
    #[arg(skip)]
    lists: std::marker::PhantomData<L>,
}

/// The arguments of `hlo`.
#[derive(Debug, Args)]
pub struct Hlo {
    #[command(flatten)]
    pub modules: Modules,
    #[command(flatten)]
    pub shown: Shown<HloLists>,
    /// Group the owned buffers: by op_name path without its last part (op), by opcode, or
    /// by shape
    #[arg(long, value_enum, value_name = "KEY", verbatim_doc_comment)]
    pub by: Option<By>,
    /// With --by op: group by the first N parts of op_name
    #[arg(long, value_name = "N")]
    pub op_depth: Option<usize>,
    #[command(flatten)]
    pub gates: Gates<HloLists>,
    /// (Moved: the peak is its own command, `xlayout peak`.)
    #[arg(long, hide = true)]
    pub peak: bool,
}

/// The arguments of `peak`.
#[derive(Debug, Args)]
pub struct Peak {
    #[command(flatten)]
    pub modules: Modules,
    #[command(flatten)]
    pub shown: Shown<PeakLists>,
    #[command(flatten)]
    pub gates: Gates<PeakLists>,
}

/// `oom --format`'s help.
const OOM_FORMAT: &str = "\
The output: `table`, aligned for people (the default on a terminal); `tsv`, a
header line, then one row per entry of each report (the default otherwise);
`csv`, the same rows (RFC 4180); `json`, one object with every report's header
figures and entries, exact integers";

/// The arguments of `oom`.
#[derive(Debug, Args)]
pub struct Oom {
    /// Report text as pasted (any prefix on every line, a JSON string): files, `-` for
    /// standard input
    #[arg(value_name = "REPORT|-", default_value = "-", verbatim_doc_comment)]
    pub inputs: Vec<PathBuf>,
    /// The HLO module the report is about (a dump's module text): each entry's label
    /// joined to its instruction (full shape, op_name, source line), with a word where
    /// the dump's instruction has another shape or is missing; the dump's own reading
    /// problems on standard error (exit status 1)
    #[arg(long, value_name = "DUMP", verbatim_doc_comment)]
    pub hlo: Option<PathBuf>,
    /// Sizes in the table: as the report writes them (the default: `4.00G` for TPU
    /// reports, `4.00GiB` for XLA:GPU's), `oom` (`4.00G`), exact byte counts, or `iec`
    /// (`4.00GiB`)
    #[arg(long, value_enum, value_name = "UNITS", verbatim_doc_comment)]
    pub bytes: Option<Units>,
    #[arg(long, value_enum, value_name = "FORMAT", help = OOM_FORMAT, hide_possible_values = true)]
    pub format: Option<Format>,
}

/// The arguments of `bitcast`.
#[derive(Debug, Args)]
pub struct Bitcast {
    /// The operand, as XLA prints it, e.g. 'f32[4,128]{1,0:T(8,128)}'; `-` for a line of
    /// standard input
    #[arg(value_name = "FROM", verbatim_doc_comment)]
    pub from: String,
    /// The result; `-` for a line of standard input
    #[arg(value_name = "TO")]
    pub to: String,
    /// A transpose instead of a reshape, with XLA's dimensions: result dimension i is
    /// operand dimension D_i
    #[arg(long, value_name = "D0,D1,...", value_parser = leading_index, verbatim_doc_comment)]
    pub transpose: Option<LeadingIndex>,
    /// The output: `table`, a few lines for a person (the default); `json`, one object;
    /// `tsv` or `csv`, a header line and one row (the JSON keys)
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    #[arg(verbatim_doc_comment)]
    pub format: Option<Format>,
}

/// `relayouts --format`'s help.
const RELAYOUTS_FORMAT: &str = "\
The output: `table`, aligned for people (the default on a terminal); `tsv`, a
header line, then one row per instruction that only moves elements, the most
bytes moved first (the default otherwise); `csv`, the same rows (RFC 4180);
`json`, one object with every file's rows and totals, exact integers";

/// The arguments of `relayouts`.
#[derive(Debug, Args)]
pub struct Relayouts {
    #[command(flatten)]
    pub modules: Modules,
    /// Rows in each file's table (the most bytes moved first); TSV, CSV and JSON have all
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    #[arg(long, value_enum, value_name = "UNITS", default_value_t = Units::Oom, help = UNITS)]
    pub bytes: Units,
    #[arg(long, value_enum, value_name = "FORMAT", help = RELAYOUTS_FORMAT, hide_possible_values = true)]
    pub format: Option<Format>,
}

/// `--by`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// The op_name path without its last part (the layer, not the primitive)
    Op,
    /// The opcode
    Opcode,
    /// The result shape as written
    Shape,
}

/// `--bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Units {
    /// `4.00G`, `64.0K`, `512B`: binary units as TPU out-of-memory reports print them
    Oom,
    /// Exact byte counts
    Exact,
    /// `4.00GiB`, `64.0KiB`: XLA's HumanReadableNumBytes
    Iec,
}

/// `--format` (each command's help says what its rows are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned table for people
    Table,
    /// Tab-separated: a header line, then one row per record
    Tsv,
    /// Comma-separated (RFC 4180): a header line, then one row per record
    Csv,
    /// One JSON object, exact integers
    Json,
}

/// `--stage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Stage {
    /// `*after_optimizations.txt`: the compiled module
    After,
    /// `*before_optimizations.txt`: the module as handed to XLA
    Before,
    /// Every `*.txt` but XLA's reports (buffer assignment, memory usage, live ranges)
    All,
}

/// A decimal ratio, `num / den` exactly (`1.5` is 15/10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ratio {
    pub num: u128,
    pub den: u128,
    /// As typed, for messages.
    pub text: String,
}

fn ratio(text: &str) -> Result<Ratio, String> {
    let bad = || format!("`{text}` is not a ratio: write a number like `4` or `1.5`");
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 18 {
        return Err(bad());
    }
    let whole: u128 = whole.parse::<u64>().map_err(|_| bad())?.into();
    let den = 10u128.pow(fraction.len() as u32);
    let frac: u128 = if fraction.is_empty() { 0 } else { fraction.parse().map_err(|_| bad())? };
    Ok(Ratio { num: whole * den + frac, den, text: text.to_string() })
}

fn bytes(text: &str) -> Result<u64, String> {
    xlayout::hlo::units::parse_bytes(text).ok_or_else(|| {
        format!(
            "`{text}` is not a byte count: write a whole number of bytes with an optional unit, \
             like `16G`, `1.5G` or `4096` (no digit separators, no fraction of a byte)"
        )
    })
}
