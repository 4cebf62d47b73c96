//! [`Assignment`]'s steps in order, as `BufferAssigner::CreateAssignment` runs them: the
//! global pass, the heap of the temporaries, the thread-local pass, then
//! `CombineTempAllocations` (the temporaries moved to the end of the list by XLA's
//! `std::partition` and laid end to end) and `memory_analysis()`'s sums; or, where a rule
//! is not modelled, the bounds.

use super::super::buffer::Analysis;
use super::super::id::{CompId, IndexVec, InstrId, ValueId};
use super::super::module::{CallContext, Module};
use super::super::opcode::Opcode;
use super::super::peak::dataflow::{Dataflow, FlowId};
use super::super::peak::liveness::Liveness;
use super::super::peak::notes::{Bound, NotModelled, Rule};
use super::super::peak::schedule::Schedule;
use super::super::peak::tree::NodeId;
use super::super::peak::PeakValue;
use super::super::xla::assignment::{Kinds, MemoryAnalysis};
use super::assign::{assign, Slot};
use super::heap::{align, heap};
use super::model::{Assignment, PlacedValue, PredictedAllocation};
use super::share::Sharing;
use super::timeline::temp_peak;
use super::values::{Budget, Ctx, Facts};
use crate::Shape;

/// What the peak's stages found, which the prediction reads.
pub(crate) struct Stages<'x> {
    pub s: &'x Schedule,
    pub d: &'x Dataflow,
    /// Each value's buffer representative.
    pub sets: &'x IndexVec<FlowId, FlowId>,
    pub live: &'x Liveness,
    /// Each value's place in the peak's values, if it has a live range.
    pub value_of: &'x IndexVec<FlowId, Option<ValueId>>,
    /// The peak's values.
    pub values: &'x IndexVec<ValueId, PeakValue>,
}

impl Assignment {
    /// The prediction for the module `a` analysed, from the peak's stages; `notes` are the
    /// rules the peak (and the dataflow of thread-local computations) did not follow.
    pub(crate) fn predict(
        a: &Analysis<'_, '_>,
        x: &Stages<'_>,
        notes: Vec<NotModelled>,
    ) -> Assignment {
        let (s, d) = (x.s, x.d);
        let mut notes = notes;
        for &i in &x.s.refused_calls {
            NotModelled::add(&mut notes, Rule::Unfollowed, Some(i));
        }
        if !cpu_layouts(a) {
            NotModelled::add(&mut notes, Rule::NotCpu, None);
        }
        let facts = Facts::new(a, d, x.sets);
        let elements = d.values.len() + d.value_at.len() + a.module.instructions.len();
        let mut budget = Budget::new(elements);
        let mut share = Sharing::new(a, d, &facts);
        let ctx = Ctx { a, d, facts: &facts, live: x.live };
        let predicted = assign(ctx, s, &mut share, &mut budget).and_then(|mut assigned| {
            let at = assigned.slots.iter().position(|k| k.heap)?;
            if assigned.deferred.is_empty() {
                assigned.slots.remove(at);
            } else {
                let h = heap(ctx, &mut share, &mut budget, &assigned.deferred)?;
                assigned.slots[at] =
                    Slot { size: h.size, heap: true, values: h.values, ..Slot::default() };
                return Some((assigned.slots, Some(h.algorithm)));
            }
            Some((assigned.slots, None))
        });
        let mut out = match predicted {
            Some((slots, algorithm)) => combine(d, x.value_of, slots, algorithm),
            None => {
                NotModelled::add(&mut notes, Rule::AssignmentBudget, None);
                Assignment::default()
            }
        };
        if !notes.is_empty() {
            out.bounds = Some(bounds(a, d, &facts));
        }
        let lived = |v: ValueId| x.values.get(v).map(|p| (p.range.start, p.range.end, p.sizes));
        out.temp_peak = temp_peak(&out.steps(x.s.end() as usize, &lived));
        notes.sort_by_key(|n| n.rule);
        out.not_modelled = notes;
        out
    }
}

/// `CombineTempAllocations` and `memory_analysis()`'s sums over `slots` (in the order they
/// were made).
fn combine(
    d: &Dataflow,
    value_of: &IndexVec<FlowId, Option<ValueId>>,
    mut slots: Vec<Slot>,
    heap_algorithm: Option<super::heap::HeapAlgorithm>,
) -> Assignment {
    // libstdc++'s `std::partition` (the bidirectional two-pointer one): the first
    // temporary from the left swapped with the last other allocation from the right.
    let (mut first, mut last) = (0usize, slots.len());
    loop {
        while first != last && !slots[first].is_temp() {
            first += 1;
        }
        if first == last {
            break;
        }
        last -= 1;
        while first != last && slots[last].is_temp() {
            last -= 1;
        }
        if first == last {
            break;
        }
        slots.swap(first, last);
        first += 1;
    }
    let temps = slots.split_off(first);
    let heap_bytes = temps.iter().find(|t| t.heap).map_or(0, |t| t.size);
    let placed = |values: &[(FlowId, u64, u64)], base: u64| -> Vec<PlacedValue> {
        let mut values: Vec<PlacedValue> = values
            .iter()
            .map(|&(v, offset, size)| {
                let f = d.values[v];
                PlacedValue {
                    instruction: f.instruction,
                    shape_index: d.tree(f.instruction).index(f.node),
                    phi: f.phi,
                    value: value_of.get(v).copied().flatten(),
                    offset: base.saturating_add(offset),
                    size,
                }
            })
            .collect();
        values.sort_by(|x, y| {
            (x.offset, x.instruction, &x.shape_index).cmp(&(
                y.offset,
                y.instruction,
                &y.shape_index,
            ))
        });
        values
    };
    let mut allocations: Vec<PredictedAllocation> = slots
        .iter()
        .enumerate()
        .map(|(index, k)| PredictedAllocation {
            index,
            size: k.size,
            parameter: k.parameter.as_ref().map(|p| p.0),
            parameter_index: k.parameter.as_ref().map_or_else(Vec::new, |p| p.1.clone()),
            aliased_with_output: k.aliased,
            constant: k.constant,
            thread_local: k.thread_local,
            maybe_live_out: k.maybe_live_out,
            temp: false,
            values: placed(&k.values, 0),
        })
        .collect();
    if !temps.is_empty() {
        // End to end: each piece at the end of the last rounded up to the alignment.
        let mut size = 0u64;
        let mut values = Vec::new();
        for (k, t) in temps.iter().enumerate() {
            let base = if k == 0 { 0 } else { align(size) };
            values.extend(placed(&t.values, base));
            size = base.saturating_add(t.size);
        }
        values.sort_by(|x, y| {
            (x.offset, x.instruction, &x.shape_index).cmp(&(
                y.offset,
                y.instruction,
                &y.shape_index,
            ))
        });
        allocations.push(PredictedAllocation {
            index: allocations.len(),
            size,
            parameter: None,
            parameter_index: Vec::new(),
            aliased_with_output: false,
            constant: false,
            thread_local: false,
            maybe_live_out: false,
            temp: true,
            values,
        });
    }
    let x = MemoryAnalysis::of(allocations.iter().map(|a| Kinds {
        size: a.size,
        parameter: a.parameter.is_some(),
        aliased: a.aliased_with_output,
        live_out: a.maybe_live_out,
        temp: a.temp,
    }));
    Assignment {
        allocated_bytes: x.allocated_bytes,
        argument_bytes: x.argument_bytes,
        output_bytes: x.output_bytes,
        alias_bytes: x.alias_bytes,
        temp_bytes: x.temp_bytes,
        heap_bytes,
        heap_algorithm,
        temp_peak: Default::default(),
        allocations,
        not_modelled: Vec::new(),
        bounds: None,
    }
}

/// Where `allocated_bytes` lies whatever the rules not modelled decide: at least the entry
/// parameters (each an allocation of its own), at most every value of the global
/// computations in an allocation of its own, each rounded up to the alignment (`upper` is
/// `None` when a value has no size). Each value counts at the smaller of XLA:CPU's size and
/// its `ArraySize` (with tiling padding) in the lower bound and at the larger in the upper
/// one, so that the bounds also hold a backend that pads (a TPU module's).
fn bounds(a: &Analysis<'_, '_>, d: &Dataflow, facts: &Facts) -> Bound {
    let m = a.module;
    let (mut lower, mut upper) = (0u64, Some(0u64));
    let padded = |i: InstrId, node: NodeId| {
        d.tree(i).nodes.get(node).and_then(|n| n.sizes).map(|s| s.array_bytes)
    };
    for (v, f) in d.values.iter_enumerated() {
        let ins = &m.instructions[f.instruction];
        if d.base(f.instruction).is_none() || thread_local(ins.computation, m) {
            continue;
        }
        let (cpu, array) = (facts.size[v], padded(f.instruction, f.node));
        let parameter = ins.opcode == Opcode::Parameter && ins.computation == m.entry;
        if parameter {
            lower = lower.saturating_add(cpu.unwrap_or(0).min(array.unwrap_or(u64::MAX)));
        }
        let largest = cpu.zip(array).map(|(c, x)| c.max(x));
        upper =
            upper.zip(largest).map(|(u, s)| u.saturating_add(if parameter { s } else { align(s) }));
    }
    // Positions whose value was not followed may each be a value of their own.
    for (p, v) in d.value_at.iter_enumerated() {
        if v.is_none() {
            let i = d.position_instruction[p];
            let n = d.tree(i).nodes.get(d.node(i, p)).and_then(|n| n.sizes);
            let size = n.map(|s| s.bytes.max(s.array_bytes));
            upper = upper.zip(size).map(|(u, s)| u.saturating_add(align(s)));
        }
    }
    Bound { lower, upper: upper.map(|u| u.max(lower)) }
}

/// Whether computation `c` is thread-local (its values' allocations count nowhere).
fn thread_local(c: Option<CompId>, m: &Module<'_>) -> bool {
    c.map_or(true, |c| m.computations[c].context == CallContext::Embedded)
}

/// Whether every layout is one XLA:CPU gives (no tiles, the default memory space).
fn cpu_layouts(a: &Analysis<'_, '_>) -> bool {
    fn cpu(shape: &Shape) -> bool {
        match shape {
            Shape::Array(s) | Shape::Buffer(s) => {
                s.layout.as_ref().map_or(true, |l| l.tiles.is_empty() && l.memory_space == 0)
            }
            Shape::Tuple(e) => e.iter().all(cpu),
            Shape::Token | Shape::Opaque => true,
        }
    }
    a.module.shapes.iter().all(cpu)
}

#[cfg(test)]
mod tests {
    use crate::hlo::{Analysis, Bound, Module, Peak, Rule};

    #[test]
    fn a_search_stopped_at_its_budget_says_so_and_bounds_the_total() {
        let text = "HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  %a = f32[16]{0} negate(%p)\n  %b = f32[16]{0} exponential(%a)\n  ROOT %c = f32[16]{0} add(%a, %b)\n}\n";
        let m = Module::parse(text);
        let a = Analysis::new(&m);
        let whole = Peak::new(&a).assignment;
        assert!(whole.exact());
        super::super::values::TEST_BUDGET.with(|b| b.set(Some(2)));
        let stopped = Peak::new(&a).assignment;
        super::super::values::TEST_BUDGET.with(|b| b.set(None));
        let rules: Vec<Rule> = stopped.not_modelled.iter().map(|n| n.rule).collect();
        assert_eq!(rules, [Rule::AssignmentBudget]);
        assert!(stopped.allocations.is_empty());
        // The parameter at least; every value in its own allocation at most (64 each).
        assert_eq!(stopped.bounds, Some(Bound { lower: 64, upper: Some(256) }));
        let b = stopped.bounds.unwrap();
        assert!(b.lower <= whole.allocated_bytes && whole.allocated_bytes <= b.upper.unwrap());
    }
}
