//! What XLA:CPU's buffer assignment allocates for a scheduled module, predicted from its
//! text alone: `compiled.memory_analysis()`'s arguments, outputs, aliased bytes and
//! temporaries, and the allocations themselves.
//!
//! It is built on the peak's stages (one dataflow, one set of aliasing rules, one liveness)
//! and follows `BufferAssigner::CreateAssignment` (`xla/service/buffer_assignment.cc`) step
//! by step, as `spec/xla-allocation.md` reads it:
//!
//! 1. [`values`]: each value's size (`CpuExecutable::ShapeSizeBytes`), each `HloBuffer`'s
//!    values, size and whether it lives out;
//! 2. [`assign`]: the buffers of the global computations largest first
//!    (`AssignBuffersForComputations`): a constant, an entry parameter, a tuple's index
//!    table or a live-out buffer gets an allocation of its own; a buffer that fits in an
//!    operand's, a donated parameter's or an output's allocation without overlapping what
//!    is there ([`share`]: `MaybeAssignBuffer`, `LiveRangeInterferes`,
//!    `CanShareOperandBufferWithUser`) goes there; the rest are temporaries;
//! 3. [`heap`]: the temporaries packed by XLA's heap simulator over the whole module and
//!    the smaller of its two best-fit heaps, offsets aligned to 64 bytes;
//! 4. the buffers of the thread-local computations, one allocation each;
//! 5. [`predict`]: the temporaries' allocations moved to the end of the list
//!    (`std::partition`) and laid end to end (`CombineTempAllocations`), and the sums;
//! 6. [`timeline`]: what the allocations hold at each step, each buffer counted once.
//!
//! Where the module needs a rule the model does not have, [`Assignment::not_modelled`]
//! says which and [`Assignment::bounds`] bounds the total, as the peak does.

mod assign;
mod heap;
mod model;
mod predict;
mod report;
mod share;
mod timeline;
mod values;

pub use heap::{HeapAlgorithm, ALIGNMENT};
pub use model::{Assignment, PlacedValue, PredictedAllocation, TempPeak};
pub(crate) use predict::Stages;
pub use report::{AllocationRow, AllocationSummary, PlacedRow};
pub(crate) use timeline::Lived;
pub use timeline::{AllocatedBuffer, StepAllocated};
