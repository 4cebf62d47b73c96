//! The prediction as plain data: what XLA:CPU's buffer assignment allocates for a module
//! ([`Assignment`], `compiled.memory_analysis()`'s four figures and their sum), and the
//! allocations themselves ([`PredictedAllocation`]: which values share each, at which
//! offsets).

use serde::Serialize;

use super::super::id::{InstrId, ValueId};
use super::super::peak::notes::{Bound, NotModelled};
use super::super::xla::assignment::MemoryAnalysis;
use super::heap::HeapAlgorithm;

/// One value in a predicted allocation, at its offset.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  ROOT %n = f32[16]{0} negate(%p)\n}\n");
/// let a = Peak::new(&Analysis::new(&m)).assignment;
/// // The output's allocation comes first (buffers are taken largest, then live-out, first).
/// let v = &a.allocations[1].values[0];
/// assert_eq!((m.instructions[v.instruction].name, v.offset, v.size), ("p", 0, 64));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacedValue {
    /// Its defining instruction.
    pub instruction: InstrId,
    /// Its shape index in that instruction's result.
    pub shape_index: Vec<u32>,
    /// Whether it is a phi value of a `while` or `conditional`.
    pub phi: bool,
    /// The value in [`Peak::values`](crate::hlo::Peak::values), if it has a live range
    /// (the values of a reduction's or sort's computation have none).
    pub value: Option<ValueId>,
    /// Its offset in the allocation.
    pub offset: u64,
    /// The bytes it takes there (its buffer's size).
    pub size: u64,
}

/// One allocation of the predicted buffer assignment, as XLA's `BufferAllocation` has it.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  ROOT %n = f32[16]{0} negate(%p)\n}\n");
/// let a = Peak::new(&Analysis::new(&m)).assignment;
/// let (n, p) = (&a.allocations[0], &a.allocations[1]);
/// assert_eq!((p.parameter, p.size, n.maybe_live_out, n.temp), (Some(0), 64, true, false));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PredictedAllocation {
    /// Its index: its place in XLA's list (after the temporaries are combined).
    pub index: usize,
    /// Its size in bytes.
    pub size: u64,
    /// The entry parameter it holds.
    pub parameter: Option<u64>,
    /// The shape index in that parameter.
    pub parameter_index: Vec<u64>,
    /// The parameter is in `input_output_alias`: an output may be written over it.
    pub aliased_with_output: bool,
    /// A constant's.
    pub constant: bool,
    /// A value of a computation run inside one instruction (never counted).
    pub thread_local: bool,
    /// It holds a value that is at the entry computation's root (an output).
    pub maybe_live_out: bool,
    /// The preallocated temporaries: the heap and the tuples' index tables, end to end.
    pub temp: bool,
    /// Its values, by offset then instruction.
    pub values: Vec<PlacedValue>,
}

/// What XLA:CPU's buffer assignment allocates for a scheduled module, predicted from its
/// text (the steps are in `spec/xla-allocation.md` and the `hlo::alloc` module's source):
/// `compiled.memory_analysis()`'s arguments, outputs, aliased bytes and temporaries, and
/// `allocated_bytes`, the memory the program needs (arguments + outputs − aliased +
/// temporaries).
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// // `a` ends where the output `c` starts, which may write over it (`add` is element-wise):
/// // it goes in `c`'s allocation. `b` is live with `a`, so it is a temporary, in the heap.
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[1024]{0} parameter(0)\n  %a = f32[1024]{0} exponential(%p)\n  %b = f32[1024]{0} negate(%p)\n  ROOT %c = f32[1024]{0} add(%a, %b)\n}\n");
/// let a = Peak::new(&Analysis::new(&m)).assignment;
/// assert_eq!((a.argument_bytes, a.output_bytes, a.alias_bytes, a.temp_bytes), (4096, 4096, 0, 4096));
/// assert_eq!(a.allocated_bytes, 12_288);
/// assert!(a.exact());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// Arguments + outputs − aliased + temporaries: what the program allocates.
    pub allocated_bytes: u64,
    /// The entry parameters' allocations (`argument_size_in_bytes`).
    pub argument_bytes: u64,
    /// The allocations holding an output (`output_size_in_bytes`), the root tuple's index
    /// table and a donated parameter that receives an output included.
    pub output_bytes: u64,
    /// Parameters an output is written over (`alias_size_in_bytes`), counted in both of
    /// the above.
    pub alias_bytes: u64,
    /// The temporaries (`temp_size_in_bytes`): the heap and the tuples' index tables.
    pub temp_bytes: u64,
    /// The heap simulator's part of the temporaries.
    pub heap_bytes: u64,
    /// The order of XLA's heap that packed it (none without temporaries).
    pub heap_algorithm: Option<HeapAlgorithm>,
    /// The most the temporaries hold at once (each buffer counted once), and the first
    /// step they do: at most `temp_bytes`, which also pays for where XLA's heap packs them.
    pub temp_peak: TempPeak,
    /// The allocations, in XLA's order.
    pub allocations: Vec<PredictedAllocation>,
    /// Rules the prediction needs that are not modelled; empty when it is XLA's.
    pub not_modelled: Vec<NotModelled>,
    /// When `not_modelled` is not empty: where `allocated_bytes` lies.
    pub bounds: Option<Bound>,
}

impl Assignment {
    /// Whether the prediction follows XLA's rules everywhere (nothing is not modelled).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
    /// assert!(!Peak::new(&Analysis::new(&m)).assignment.exact()); // not scheduled
    /// ```
    pub fn exact(&self) -> bool {
        self.not_modelled.is_empty()
    }

    /// The four figures of `compiled.memory_analysis()` and their sum, as XLA's file would
    /// give them ([`BufferAssignment::memory_analysis`](crate::hlo::xla::BufferAssignment::memory_analysis)).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
    /// let x = Peak::new(&Analysis::new(&m)).assignment.memory_analysis();
    /// assert_eq!((x.argument_bytes, x.output_bytes, x.alias_bytes, x.allocated_bytes), (8, 8, 0, 16));
    /// ```
    pub fn memory_analysis(&self) -> MemoryAnalysis {
        MemoryAnalysis {
            allocated_bytes: self.allocated_bytes,
            argument_bytes: self.argument_bytes,
            output_bytes: self.output_bytes,
            alias_bytes: self.alias_bytes,
            temp_bytes: self.temp_bytes,
        }
    }
}

/// The most the temporaries hold at once, and the first step they do.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  %a = f32[16]{0} exponential(%p)\n  %b = f32[16]{0} negate(%p)\n  ROOT %c = f32[16]{0} add(%a, %b)\n}\n");
/// let p = Peak::new(&Analysis::new(&m)).assignment.temp_peak;
/// assert_eq!((p.step, p.bytes), (2, 64));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TempPeak {
    /// The first step with it.
    pub step: u32,
    /// The bytes.
    pub bytes: u64,
}
