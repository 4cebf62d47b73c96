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
standard input. A SHAPE of `-` is the first line of standard input.

Exit status: 0 when every input was answered ok, 1 when any input was an error, 2 for a
usage error or when an input cannot be read or the output cannot be written. A closed
output pipe (`xlayout canon < shapes.txt | head -1`) ends the command quietly, status 0.";

/// One mode of the command, run by `cli::run`. The doc comments are `--help` text, kept
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
    /// Draws the slice as a grid of memory offsets with lines between tiles.
    /// Rows and columns beyond 32 are not drawn; the padding list stops after
    /// 64 positions.
    #[command(verbatim_doc_comment)]
    Map(Map),
    /// Every array shape of HLO dumps: sizes, padding, memory spaces, invalid shapes
    Hlo(Hlo),
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
}

/// `--at`'s value: the indices of the dimensions before the last two.
#[derive(Clone, Debug)]
pub struct LeadingIndex(pub Vec<usize>);

fn leading_index(text: &str) -> Result<LeadingIndex, String> {
    super::parse_index(text).map(LeadingIndex).map_err(|e| e.0)
}

/// The arguments of `hlo`.
#[derive(Debug, Args)]
pub struct Hlo {
    /// HLO dumps (module text as XLA writes it), each reported in turn;
    /// `-` is standard input
    #[arg(value_name = "FILE", default_value = "-", verbatim_doc_comment)]
    pub files: Vec<PathBuf>,
}
