//! The predicted allocation with names: the headline figures and the allocations as the
//! commands' JSON and Python show them (the keys are a contract, see
//! [`REPORT_VERSION`](crate::hlo::REPORT_VERSION)).

use serde::Serialize;

use super::super::module::Module;
use super::super::peak::notes::{Bound, NotModelledRow};
use super::heap::HeapAlgorithm;
use super::model::Assignment;

/// A value in an allocation, named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacedRow<'a> {
    /// Its defining instruction.
    pub instruction: &'a str,
    /// Its shape index (`[]` for the whole result).
    pub shape_index: Vec<u32>,
    /// Its offset in the allocation.
    pub offset: u64,
    /// The bytes it takes there.
    pub size: u64,
}

/// An allocation, named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AllocationRow<'a> {
    /// Its index in XLA's list.
    pub index: usize,
    /// Its size in bytes.
    pub size: u64,
    /// The entry parameter it holds, and the shape index in it.
    pub parameter: Option<u64>,
    /// The shape index in that parameter.
    pub parameter_index: Vec<u64>,
    /// An output is written over the parameter (`input_output_alias`).
    pub aliased_with_output: bool,
    /// It holds an output.
    pub maybe_live_out: bool,
    /// A constant's.
    pub constant: bool,
    /// A value of a computation run inside one instruction (never counted).
    pub thread_local: bool,
    /// The temporaries.
    pub temp: bool,
    /// Its values.
    pub values: Vec<PlacedRow<'a>>,
}

/// What XLA:CPU allocates for a module, named: the headline of `xlayout peak` and
/// `xlayout hlo`, and in `xlayout.hlo(...)`.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  ROOT %n = f32[16]{0} negate(%p)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).assignment.summary(&m, true);
/// assert_eq!((s.allocated_bytes, s.argument_bytes, s.output_bytes, s.allocation_exact), (128, 64, 64, true));
/// assert_eq!(s.allocations[1].values[0].instruction, "p");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AllocationSummary<'a> {
    /// Arguments + outputs − aliased + temporaries: what the program allocates.
    pub allocated_bytes: u64,
    /// `memory_analysis()`'s `argument_size_in_bytes`.
    pub argument_bytes: u64,
    /// `output_size_in_bytes`.
    pub output_bytes: u64,
    /// `alias_size_in_bytes`.
    pub alias_bytes: u64,
    /// `temp_size_in_bytes`.
    pub temp_bytes: u64,
    /// The heap simulator's part of the temporaries.
    pub heap_bytes: u64,
    /// The order of XLA's heap that packed them.
    pub heap_algorithm: Option<HeapAlgorithm>,
    /// The most the temporaries hold at once (each buffer counted once).
    pub temp_peak_bytes: u64,
    /// The first step they do.
    pub temp_peak_step: u32,
    /// Whether every rule the prediction needs is modelled.
    pub allocation_exact: bool,
    /// The rules not modelled.
    pub allocation_not_modelled: Vec<NotModelledRow<'a>>,
    /// Where `allocated_bytes` lies when a rule is not modelled.
    pub allocation_bounds: Option<Bound>,
    /// The allocations (empty when not asked for).
    pub allocations: Vec<AllocationRow<'a>>,
}

impl Assignment {
    /// The prediction with names; with its allocations listed when `allocations` is set.
    pub fn summary<'a>(&self, m: &'a Module<'_>, allocations: bool) -> AllocationSummary<'a> {
        let allocations = if allocations {
            self.allocations
                .iter()
                .map(|x| AllocationRow {
                    index: x.index,
                    size: x.size,
                    parameter: x.parameter,
                    parameter_index: x.parameter_index.clone(),
                    aliased_with_output: x.aliased_with_output,
                    maybe_live_out: x.maybe_live_out,
                    constant: x.constant,
                    thread_local: x.thread_local,
                    temp: x.temp,
                    values: x
                        .values
                        .iter()
                        .map(|v| PlacedRow {
                            instruction: m.instructions[v.instruction].name,
                            shape_index: v.shape_index.clone(),
                            offset: v.offset,
                            size: v.size,
                        })
                        .collect(),
                })
                .collect()
        } else {
            Vec::new()
        };
        AllocationSummary {
            allocated_bytes: self.allocated_bytes,
            argument_bytes: self.argument_bytes,
            output_bytes: self.output_bytes,
            alias_bytes: self.alias_bytes,
            temp_bytes: self.temp_bytes,
            heap_bytes: self.heap_bytes,
            heap_algorithm: self.heap_algorithm,
            temp_peak_bytes: self.temp_peak.bytes,
            temp_peak_step: self.temp_peak.step,
            allocation_exact: self.exact(),
            allocation_not_modelled: self.not_modelled.iter().map(|n| n.row(m)).collect(),
            allocation_bounds: self.bounds,
            allocations,
        }
    }
}
