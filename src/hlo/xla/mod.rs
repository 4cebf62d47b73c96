//! XLA's own files, read beside a module: the buffer assignment
//! (`*-buffer-assignment.txt`, `BufferAssignment::ToString`), the live ranges
//! (`*-live-range.txt`), `compiled.memory_analysis()`, the lines of them that could not be
//! read, and where XLA's sizes differ from this crate's.
//!
//! ```
//! use xlayout::hlo::xla::BufferAssignment;
//! let text = "BufferAssignment:\nallocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}:\n value: <3 p @0> (size=64,offset=0): f32[16]{0}\n";
//! let b = BufferAssignment::parse(text);
//! assert_eq!(b.allocations[0].size, 64);
//! assert!(b.problems.is_empty());
//! ```

pub(super) mod assignment;

pub use assignment::{
    dumps_beside, size_differences, Allocation, AssignedValue, BufferAssignment, DumpLive,
    DumpProblem, DumpRange, LiveRangeDump, MemoryAnalysis, SizeDifference,
};
