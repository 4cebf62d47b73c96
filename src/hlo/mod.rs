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
mod assignment;
mod attribute;
mod best;
mod buffer;
mod decode;
mod diagnostic;
mod dump;
mod ends;
mod group_by;
mod headline;
mod id;
pub(crate) mod instruction;
pub(crate) mod lex;
mod lines;
mod metadata;
mod mlir;
mod module;
mod names;
mod opcode;
mod peak;
mod ratio;
mod read;
mod relayouts;
mod report;
mod sizes;
pub mod units;
mod walk;
mod work;

pub use alloc::{
    AllocatedBuffer, AllocationRow, AllocationSummary, Assignment, HeapAlgorithm, PlacedRow,
    PlacedValue, PredictedAllocation, StepAllocated, TempPeak, ALIGNMENT,
};
pub use assignment::{
    dumps_beside, size_differences, Allocation, AssignedValue, BufferAssignment, DumpLive,
    DumpProblem, DumpRange, LiveRangeDump, MemoryAnalysis, SizeDifference,
};
pub use attribute::{AliasPair, CallAttribute, FusionKind};
pub use best::{best_layout, BestLayout, MAX_CANDIDATES, MODULE_CANDIDATE_BUDGET};
pub use buffer::{defines_leaf, Analysis, BufferFacts, Ownership};
pub use decode::{decode, decode_owned};
pub use diagnostic::{clip, Diagnostic, DiagnosticKind, MAX_LISTED};
pub(crate) use diagnostic::{quote, Listing};
pub use dump::{module_files, Stage};
pub use group_by::GroupBy;
pub use headline::ReportWithPeak;
pub use id::{CompId, Id, IdRange, IndexVec, InstrId, ShapeId, ValueId, MAX_ITEMS};
pub use instruction::{Called, Instruction, Operand};
pub use lines::lines;
pub use metadata::{unescape, Metadata, SourceLocation, SourceTables};
pub use mlir::NOT_HLO;
pub use module::{CallContext, Computation, Module};
pub use names::{shown, ComputationNames, SourceFiles, NAME_CHARS};
pub use opcode::Opcode;
pub use peak::{
    Bound, Bounds, HighWater, HighWaterRows, LiveRange, Mark, MarkRow, NodeSizes, NotModelled,
    NotModelledRow, Peak, PeakOptions, PeakRow, PeakSplit, PeakSummary, PeakValue, Rule, StepLive,
    XlaPeak,
};
pub use ratio::{Percent, Ratio};
pub use read::MODULE_SHAPE_INDEX_BUDGET;
pub use relayouts::{Relayout, Relayouts, MODULE_COMPARE_BUDGET, MODULE_LAYOUT_BUDGET};
pub use report::{
    op_prefix, Keyed, Report, ReportOptions, Row, RowSizes, RunningTotals, Sum, Totals,
    REPORT_VERSION,
};
pub use sizes::{Cause, Leaf, LeafKind, ShapeFacts, Sizes};
#[doc(hidden)]
pub use work::__steps;
