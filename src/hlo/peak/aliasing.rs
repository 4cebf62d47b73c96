//! XLA's aliasing rules (`HloAliasAnalysis`): which values of the dataflow share one buffer.
//! A `while`'s init value, condition and body parameters, body root and result; a
//! `conditional`'s branch roots and result; an in-place operation's output and the operand
//! it updates (`GetInPlaceInputOutputPairs`, fusions followed into their fused
//! computations); and the module's `input_output_alias`. Only liveness uses it, to chain
//! the values of a buffer.

use std::collections::{HashMap, VecDeque};

use super::super::attribute::{AliasPair, CallAttribute};
use super::super::buffer::Analysis;
use super::super::id::{CompId, IndexVec, InstrId, ShapeId};
use super::super::module::Module;
use super::super::opcode::Opcode;
use super::dataflow::{Caller, Dataflow, FlowId};
use super::schedule::Schedule;

/// Bounds the nesting of fusions followed for in-place pairs.
const MAX_FUSION_DEPTH: usize = 16;

/// `HloDataflowAnalysis::GetInPlaceInputOutputPairs` for the instructions of a module, with
/// the pairs of each fused computation worked out once.
struct InPlace<'a, 'm, 't> {
    a: &'a Analysis<'m, 't>,
    /// In-place pairs of fusions already worked out, by (fused computation, result shape).
    fusions: HashMap<(CompId, Option<ShapeId>), Vec<AliasPair>>,
}

impl InPlace<'_, '_, '_> {
    /// Which operand (and index in it) each output index of instruction `i` is computed
    /// in place of.
    fn pairs(&mut self, i: InstrId, depth: usize) -> Vec<AliasPair> {
        let m = self.a.module;
        let ins = &m.instructions[i];
        let pair = |operand: u64, operand_index: Vec<u64>, output: Vec<u64>| AliasPair {
            output,
            operand,
            operand_index,
        };
        let n = ins.operands.len() as u64;
        let operand_tuple = |slot: usize| -> Option<u64> {
            match m.shape(ins.operand(slot)?)? {
                crate::Shape::Tuple(e) => Some(e.len() as u64),
                _ => None,
            }
        };
        let aliasing = || ins.output_to_operand_aliasing.clone();
        match ins.opcode {
            Opcode::DynamicUpdateSlice => vec![pair(0, vec![], vec![])],
            Opcode::Scatter if n >= 5 => {
                (0..(n - 1) / 2).map(|k| pair(k, vec![], vec![k])).collect()
            }
            Opcode::Scatter => vec![pair(0, vec![], vec![])],
            Opcode::CollectivePermute | Opcode::CollectivePermuteStart if n == 4 => {
                let prefix: Vec<u64> =
                    if ins.opcode == Opcode::CollectivePermute { vec![] } else { vec![1] };
                let mut pairs = vec![pair(1, vec![], prefix.clone())];
                for k in 0..operand_tuple(1).unwrap_or(0) {
                    let mut out = prefix.clone();
                    out.push(k);
                    pairs.push(pair(1, vec![k], out));
                }
                pairs
            }
            Opcode::CustomCall => aliasing(),
            Opcode::AllReduceStart if n == 1 => vec![pair(0, vec![], vec![])],
            Opcode::AllReduceStart => (0..n).map(|k| pair(k, vec![], vec![k])).collect(),
            Opcode::SetDimensionSize => vec![pair(0, vec![], vec![])],
            Opcode::RaggedAllToAll => vec![pair(1, vec![], vec![])],
            Opcode::Fusion if depth < MAX_FUSION_DEPTH => {
                // Fusions of one computation have the same pairs: worked out once.
                let key = ins.called_by(CallAttribute::Calls).map(|c| (c, ins.shape));
                let known = key.and_then(|k| self.fusions.get(&k).cloned());
                let mut pairs = match known {
                    Some(p) => p,
                    None => {
                        let p = self.fusion_pairs(i, depth);
                        if let Some(k) = key {
                            self.fusions.insert(k, p.clone());
                        }
                        p
                    }
                };
                pairs.extend(aliasing());
                pairs
            }
            _ => Vec::new(),
        }
    }

    /// `GetFusionInstructionInPlaceInputOutputPairs`: an output of a fusion aliases the
    /// fusion parameter its fused root (through tuples, `get-tuple-element`s, nested fusions
    /// and one `bitcast`) updates in place.
    fn fusion_pairs(&mut self, i: InstrId, depth: usize) -> Vec<AliasPair> {
        let a = self.a;
        let m = a.module;
        let ins = &m.instructions[i];
        let Some(fused) = ins.called_by(CallAttribute::Calls) else { return Vec::new() };
        let Some(root) = m.computations[fused].root else { return Vec::new() };
        let Some(facts) = a.facts(i) else { return Vec::new() };
        let mut pairs = Vec::new();
        for leaf in &facts.leaves {
            let index: Vec<u64> = leaf.index.iter().map(|&k| k as u64).collect();
            let Some((source, source_index)) = follow_tuples(m, root, index.clone()) else {
                continue;
            };
            let mut input = None;
            for p in self.pairs(source, depth + 1) {
                if p.output != source_index {
                    continue;
                }
                let Some(o) = operand(m, source, p.operand) else { continue };
                let Some(mut found) = follow_tuples(m, o, p.operand_index) else { continue };
                if m.instructions[found.0].opcode == Opcode::Fusion {
                    for nested in self.pairs(found.0, depth + 1) {
                        if nested.output == found.1 {
                            if let Some(o) = operand(m, found.0, nested.operand) {
                                if let Some(f) = follow_tuples(m, o, nested.operand_index) {
                                    found = f;
                                }
                            }
                        }
                    }
                }
                input = Some(found);
            }
            let Some((mut source, index_in)) = input else { continue };
            if m.instructions[source].opcode == Opcode::Bitcast {
                match m.operand(source, 0) {
                    Some(o) => source = o,
                    None => continue,
                }
            }
            let s = &m.instructions[source];
            if let (Opcode::Parameter, Some(number)) = (s.opcode, s.parameter_number) {
                pairs.push(AliasPair { output: index, operand: number, operand_index: index_in });
            }
        }
        pairs
    }
}

/// Operand `slot` (a number from an aliasing table) of instruction `i`.
fn operand(m: &Module<'_>, i: InstrId, slot: u64) -> Option<InstrId> {
    m.operand(i, usize::try_from(slot).ok()?)
}

/// XLA's `FollowTupleIndirection`: through `tuple` operands and `get-tuple-element`s to
/// the instruction (and index in it) a value comes from.
fn follow_tuples(m: &Module<'_>, mut i: InstrId, index: Vec<u64>) -> Option<(InstrId, Vec<u64>)> {
    // Indices are taken off and put on at the front.
    let mut index = VecDeque::from(index);
    // Each step moves to an operand; a malformed cycle stops after as many steps as there
    // are instructions.
    for _ in 0..=m.instructions.len() {
        let ins = &m.instructions[i];
        match ins.opcode {
            Opcode::Tuple if !index.is_empty() => {
                let k = index.pop_front()?;
                i = operand(m, i, k)?;
            }
            Opcode::GetTupleElement => {
                index.push_front(ins.tuple_index?);
                i = m.operand(i, 0)?;
            }
            _ => return Some((i, Vec::from(index))),
        }
    }
    None
}

/// Union-find over the dataflow's values.
struct Sets(IndexVec<FlowId, FlowId>);

impl Sets {
    fn find(&mut self, mut v: FlowId) -> FlowId {
        while self.0[v] != v {
            let up = self.0[self.0[v]];
            self.0[v] = up;
            v = up;
        }
        v
    }

    fn union(&mut self, a: Option<FlowId>, b: Option<FlowId>) {
        if let (Some(a), Some(b)) = (a, b) {
            let (a, b) = (self.find(a), self.find(b));
            if a != b {
                self.0[a.max(b)] = a.min(b);
            }
        }
    }
}

/// `HloAliasAnalysis`'s buffers: each value's set representative (the smallest value of
/// its buffer).
pub(crate) fn buffers(
    a: &Analysis<'_, '_>,
    s: &Schedule,
    d: &Dataflow,
) -> IndexVec<FlowId, FlowId> {
    let m = a.module;
    let mut sets = Sets(d.values.ids().collect());
    let value = |i: Option<InstrId>, index: &[u64]| -> Option<FlowId> {
        let i = i?;
        let node = d.tree(i).at(index)?;
        d.value(i, node)
    };
    // A donated parameter and the output it is donated to.
    if let Some(e) = m.entry {
        let root = m.computations[e].root;
        for p in &m.input_output_alias {
            let parameter = d.parameter(e, p.operand);
            sets.union(value(root, &p.output), value(parameter, &p.operand_index));
        }
    }
    let mut in_place = InPlace { a, fusions: HashMap::new() };
    for &c in &s.flattened {
        for i in m.computations[c].instructions {
            let ins = &m.instructions[i];
            let n = d.tree(i).len();
            let same = |j: Option<InstrId>| j.filter(|&j| d.tree(j).len() == n);
            let mut together = |others: &[Option<InstrId>]| {
                for k in (0..n).map(super::tree::NodeId::new) {
                    for &o in others {
                        sets.union(d.value(i, k), o.and_then(|o| d.value(o, k)));
                    }
                }
            };
            match ins.opcode {
                Opcode::While => {
                    // Init, condition and body parameters, body root and result: one buffer.
                    let mut others = vec![same(ins.operand(0))];
                    for (_, callee) in ins.sequential_callees() {
                        let caller = d.callers[callee];
                        if matches!(
                            caller,
                            Some(Caller::WhileBody { .. } | Caller::WhileCondition { .. })
                        ) {
                            others.push(same(d.parameter(callee, 0)));
                        }
                        if matches!(caller, Some(Caller::WhileBody { w, .. }) if w == i) {
                            others.push(same(m.computations[callee].root));
                        }
                    }
                    together(&others);
                }
                Opcode::Conditional => {
                    let roots: Vec<Option<InstrId>> = ins
                        .sequential_callees()
                        .map(|(_, c)| same(m.computations[c].root))
                        .collect();
                    together(&roots);
                }
                _ => {}
            }
            for p in in_place.pairs(i, 0) {
                let out = value(Some(i), &p.output);
                sets.union(out, value(operand(m, i, p.operand), &p.operand_index));
            }
        }
    }
    d.values.ids().map(|v| sets.find(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_are_followed_through_their_operands() {
        let m = Module::parse(
            "%a = f32[2]{0} parameter(0)\n%t = (f32[2]{0}, (f32[2]{0})) tuple(%a, %u)\n%u = (f32[2]{0}) tuple(%a)\n%g = (f32[2]{0}) get-tuple-element(%t), index=1\n",
        );
        let id = |n| m.instruction_id(n).unwrap();
        assert_eq!(follow_tuples(&m, id("g"), vec![0]), Some((id("a"), vec![])));
        assert_eq!(follow_tuples(&m, id("t"), vec![1]), Some((id("u"), vec![])));
        assert_eq!(follow_tuples(&m, id("t"), vec![2]), None);
    }
}
