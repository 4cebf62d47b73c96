//! Where the memory of an HLO module goes, buffer by buffer.
//!
//! HLO module text as XLA and JAX write it (`--xla_dump_to` files, `compiled.as_text()`,
//! TPU and GPU dumps, fragments) is read in stages, each a plain data type:
//!
//! 1. [`decode`]: bytes to text (a line that is not UTF-8 is reported and read lossily);
//! 2. [`Module::parse`]: computations and instructions (name, [`Opcode`], result shape,
//!    operands, the attributes the analyses read, metadata, schedule order), every result
//!    shape read by layout-runtime's parser and checked by its validator, every name
//!    resolved to a typed id ([`InstrId`], [`CompId`], [`ShapeId`]), and a [`Diagnostic`]
//!    with its line for what cannot be read;
//! 3. [`Analysis::new`]: buffers — which instructions own memory, the sizes of every result
//!    (XLA's `ArraySize` and the data in it), why it pads, the layout that would pad least;
//! 4. [`Report::new`]: totals per memory space and computation, top-N lists, groups; rows
//!    and the whole report serialize to JSON.
//!
//! Beside the stages, items are grouped by role in submodules:
//!
//! - [`xla`]: XLA's own files read beside a module (`*-buffer-assignment.txt`,
//!   `*-live-range.txt`, `compiled.memory_analysis()`) and their comparison with this crate's
//!   figures: `xlayout::hlo::xla::BufferAssignment`;
//! - [`rows`]: the row types the reports serialize, one per buffer, value or note:
//!   `xlayout::hlo::rows::Row`;
//! - [`units`]: numbers for people (byte counts in XLA's units, three significant figures).
//!
//! The items of [`xla`] and [`rows`] are also re-exported here, at `xlayout::hlo::Name`:
//! those are the old paths, kept for one release; new code names the by-role path.
//!
//! ```
//! use xlayout::hlo::{decode, Analysis, Module, Report, ReportOptions};
//!
//! let dump = b"HloModule jit_step, is_scheduled=true
//!
//! ENTRY %main (p: s32[8388608,8,4]) -> s32[8388608,8,4] {
//!   %p = s32[8388608,8,4]{2,1,0:T(8,128)} parameter(0)
//!   ROOT %n = s32[8388608,8,4]{2,1,0:T(8,128)} negate(%p), metadata={op_name=\"jit(step)/neg\"}
//! }
//! ";
//! let (text, problems) = decode(dump);
//! assert!(problems.is_empty());
//! let module = Module::parse(&text);
//! let analysis = Analysis::new(&module);
//! let report = Report::new(&analysis, ReportOptions::default());
//! assert_eq!(report.totals.owned.instructions, 2);
//! assert_eq!(report.totals.owned.sizes.array_bytes, 2 * 34_359_738_368);
//!
//! let row = report.row(module.instruction_id("n").unwrap());
//! assert_eq!(row.sizes.unwrap().sizes.logical_bytes, 1_073_741_824);
//! assert_eq!(row.sizes.unwrap().sizes.expansion().unwrap().to_string(), "32.0");
//! assert_eq!(row.causes, ["d2 4 -> 128 (x32.0)"]);
//! assert_eq!(row.best_layout.as_deref(), Some("{0,1,2:T(8,128)}"));
//! ```

mod alloc;
mod buffer;
mod group_by;
mod headline;
mod id;
mod module;
mod names;
mod opcode;
mod peak;
mod read;
mod relayouts;
mod report;
mod sizes;
pub(crate) mod text;
mod work;
pub mod xla;

pub mod rows {
    //! The rows the reports serialize: one per buffer ([`Row`], its [`RowSizes`]), per value
    //! live at the peak ([`PeakRow`], [`HighWaterRows`]), per mark on the timeline
    //! ([`MarkRow`]), per rule not modelled ([`NotModelledRow`]) and per predicted
    //! allocation and value placed in it ([`AllocationRow`], [`PlacedRow`]). Their keys are
    //! the JSON's and the TSV's columns.
    //!
    //! ```
    //! use xlayout::hlo::rows::Row;
    //! use xlayout::hlo::{decode, Analysis, Module, Report, ReportOptions};
    //! let (text, _) = decode(b"HloModule m\nENTRY %e (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
    //! let module = Module::parse(&text);
    //! let analysis = Analysis::new(&module);
    //! let report = Report::new(&analysis, ReportOptions::default());
    //! let row: Row<'_> = report.row(module.instruction_id("p").unwrap());
    //! assert_eq!(row.sizes.unwrap().sizes.array_bytes, 8);
    //! ```
    pub use super::alloc::{AllocationRow, PlacedRow};
    pub use super::peak::{HighWaterRows, MarkRow, NotModelledRow, PeakRow};
    pub use super::report::{Row, RowSizes};
}

pub use crate::memory::units;

// Every item at its flat path: for the items of `xla` and `rows` these are the paths of
// earlier releases, kept for one release (see the module's doc).
pub use crate::memory::best::{best_layout, BestLayout, MAX_CANDIDATES, MODULE_CANDIDATE_BUDGET};
pub use crate::memory::ratio::{Percent, Ratio};
pub use alloc::{
    AllocatedBuffer, AllocationRow, AllocationSummary, Assignment, HeapAlgorithm, PlacedRow,
    PlacedValue, PredictedAllocation, StepAllocated, TempPeak, ALIGNMENT,
};
pub use buffer::{Analysis, BufferFacts, Ownership};
pub use group_by::GroupBy;
pub use headline::ReportWithPeak;
pub use id::{CompId, Id, IdRange, IndexVec, InstrId, ShapeId, ValueId, MAX_ITEMS};
pub use module::{CallContext, Computation, Module};
/// Not for users: the command cuts names with it.
#[doc(hidden)]
pub use names::shown;
pub use names::{ComputationNames, SourceFiles, NAME_CHARS};
pub use opcode::Opcode;
pub use peak::{
    Bound, Bounds, HighWater, HighWaterRows, LiveRange, Mark, MarkRow, NodeSizes, NotModelled,
    NotModelledRow, Peak, PeakOptions, PeakRow, PeakSplit, PeakSummary, PeakValue, Rule, StepLive,
    XlaPeak,
};
pub use read::MODULE_SHAPE_INDEX_BUDGET;
pub use relayouts::{Relayout, Relayouts, MODULE_COMPARE_BUDGET, MODULE_LAYOUT_BUDGET};
pub use report::{
    Keyed, Report, ReportOptions, Row, RowSizes, RunningTotals, Sum, Totals, REPORT_VERSION,
};
pub use sizes::{Cause, Leaf, LeafKind, ShapeFacts, Sizes};
pub use text::attribute::{AliasPair, CallAttribute, FusionKind};
pub use text::decode::{decode, decode_owned};
/// Not for users: the command cuts long text with it.
#[doc(hidden)]
pub use text::diagnostic::clip;
pub(crate) use text::diagnostic::{located, quote, Listing};
pub use text::diagnostic::{Diagnostic, DiagnosticKind, MAX_LISTED};
pub use text::dump::{module_files, Stage};
pub use text::instruction::{Called, Instruction, Operand};
/// Not for users: the readers split text with it, and the tests count lines with it.
#[doc(hidden)]
pub use text::lines::lines;
pub use text::metadata::{Metadata, SourceLocation, SourceTables};
pub use text::mlir::NOT_HLO;
#[doc(hidden)]
pub use work::__steps;
pub use xla::{
    dumps_beside, size_differences, Allocation, AssignedValue, BufferAssignment, DumpLive,
    DumpProblem, DumpRange, LiveRangeDump, MemoryAnalysis, SizeDifference,
};
