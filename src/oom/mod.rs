//! Out-of-memory reports explained.
//!
//! When XLA's TPU compiler runs out of memory it prints the largest allocations with
//! their sizes rounded (`Size: 32.00G`, `(32.0x expansion)`), their shapes, sometimes
//! without tiles, and their labels, often cut short; XLA:GPU prints `BufferAssignment OOM
//! Debugging ... Peak buffers`. [`OomReport::parse`] reads such a report as pasted (log
//! prefixes, Windows line ends, old and new header and label forms) into entries, and
//! recomputes each entry's numbers from its shape with the same code as
//! [`xlayout::hlo`](crate::hlo): the exact bytes, whether the printed ones agree after
//! the report's rounding, the cause per padded dimension, the layout that pads least,
//! and for a shape printed without tiles the TPU default tiling that reproduces its size.
//! [`join`] finds each entry's instruction in the module's dump; [`Named`] is the table of
//! those instructions, each once, that the JSON refers to.
//!
//! Reading is a pure function from text to data, linear in the text, and never fails:
//! what cannot be read is a [`Problem`] with its line and entry number.
//!
//! ```
//! use xlayout::oom::OomReport;
//! // An older VMEM report: no tiles in the shape, one decimal of rounding.
//! let r = OomReport::parse("Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.\n  Largest program allocations in vmem:\n  1. Size: 5.00M\n     Shape: bf16[16,1280,40]{2,1,0}\n     Unpadded size: 1.56M\n");
//! let x = r.entries[0].recomputed.as_ref().unwrap();
//! assert_eq!(x.inferred_tiling.as_deref(), Some("(8,128)(2,1)"));
//! assert_eq!((x.sizes.array_bytes, x.sizes.logical_bytes), (5_242_880, 1_638_400));
//! assert_eq!(x.best_layout.as_ref().unwrap().layout, "{1,2,0:T(8,128)(2,1)}");
//! assert_eq!(r.memory_spaces[r.entries[0].memory_space.unwrap() as usize], "vmem");
//! ```

mod entry;
mod header;
mod join;
mod label;
mod lines;
mod overage;
mod problem;
mod report;
mod row;

pub use entry::{Agreement, Entry, Expected, Printed, Recomputed};
pub use header::{HloTemp, Part, Runtime};
pub use join::{join, join_problems, DumpInstruction, Joined, Named, SHAPE_CHARS};
pub use lines::{message_lines, report_lines};
pub use problem::Problem;
pub use report::{Kind, OomReport, Totals};
pub use row::EntryRow;
