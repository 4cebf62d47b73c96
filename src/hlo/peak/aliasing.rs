//! XLA's aliasing rules (`HloAliasAnalysis`): which values of the dataflow share one buffer.
//! A `while`'s init value, condition and body parameters, body root and result; a
//! `conditional`'s branch roots and result; an in-place operation's output and the operand
//! it updates (`GetInPlaceInputOutputPairs`, fusions followed into their fused
//! computations); and the module's `input_output_alias`. Only liveness uses it, to chain
//! the values of a buffer.

use std::collections::{HashMap, HashSet};

use crate::limits::MAX_NESTING;

use super::super::buffer::Analysis;
use super::super::id::{CompId, IndexVec, InstrId, ShapeId};
use super::super::module::Module;
use super::super::opcode::Opcode;
use super::super::text::attribute::{AliasPair, CallAttribute};
use super::super::work;
use super::dataflow::{Caller, Dataflow, FlowId};
use super::schedule::Schedule;

/// Bounds the nesting of fusions followed for in-place pairs.
const MAX_FUSION_DEPTH: usize = 16;

/// An instruction and a shape index in its result.
type Place = (InstrId, Vec<u64>);

/// `HloDataflowAnalysis::GetInPlaceInputOutputPairs` for the instructions of a module, with
/// the pairs of each fused computation worked out once.
pub(crate) struct InPlace<'a, 'm, 't> {
    a: &'a Analysis<'m, 't>,
    /// In-place pairs of fusions already worked out, by (fused computation, result shape).
    fusions: HashMap<(CompId, Option<ShapeId>), Vec<AliasPair>>,
    /// Where values come from through tuples.
    tuples: Tuples,
    /// The pairs of instructions asked about one output at a time, by output index, by
    /// (instruction, depth): a custom-call with n outputs each written over an operand is
    /// asked n times, and looking through its n pairs each time was quadratic.
    by_output: HashMap<(InstrId, usize), HashMap<Vec<u64>, Vec<AliasPair>>>,
}

impl<'a, 'm, 't> InPlace<'a, 'm, 't> {
    /// The in-place pairs of the instructions of the module `a` analysed.
    pub fn new(a: &'a Analysis<'m, 't>) -> Self {
        InPlace {
            a,
            fusions: HashMap::new(),
            tuples: Tuples::new(a.module),
            by_output: HashMap::new(),
        }
    }

    /// The pairs of instruction `i` for its output at `output`, in order.
    pub fn at(&mut self, i: InstrId, output: &[u64]) -> Vec<AliasPair> {
        self.pairs_at(i, output, 0)
    }

    fn pairs_at(&mut self, i: InstrId, output: &[u64], depth: usize) -> Vec<AliasPair> {
        let key = (i, depth.min(MAX_FUSION_DEPTH));
        if !self.by_output.contains_key(&key) {
            // Most instructions have no pairs, and finding that again costs a step: only
            // those with pairs are kept (an entry per instruction of a module was a tenth of
            // what its prediction held).
            let pairs = self.pairs(i, depth);
            if pairs.is_empty() {
                work::count(1);
                return Vec::new();
            }
            let mut map: HashMap<Vec<u64>, Vec<AliasPair>> = HashMap::new();
            for p in pairs {
                work::count(1);
                map.entry(p.output.clone()).or_default().push(p);
            }
            self.by_output.insert(key, map);
        }
        let pairs = self.by_output[&key].get(output);
        work::count(1 + pairs.map_or(0, Vec::len));
        pairs.cloned().unwrap_or_default()
    }

    /// Which operand (and index in it) each output index of instruction `i` is computed
    /// in place of.
    pub fn of(&mut self, i: InstrId) -> Vec<AliasPair> {
        self.pairs(i, 0)
    }

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
        let aliasing = || ins.output_to_operand_aliasing.to_vec();
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

    /// What the output at `index` of `source` (an instruction of a fused computation) is
    /// computed in place of: the last of its pairs for that output whose operand is followed
    /// (through tuples, and one nested fusion).
    fn input(
        &mut self,
        source: InstrId,
        index: &[u64],
        depth: usize,
    ) -> Option<(InstrId, Vec<u64>)> {
        let m = self.a.module;
        let mut input = None;
        for p in self.pairs_at(source, index, depth + 1) {
            let Some(o) = operand(m, source, p.operand) else { continue };
            let Some(mut found) = self.tuples.follow(m, o, &p.operand_index) else { continue };
            if m.instructions[found.0].opcode == Opcode::Fusion {
                for nested in self.pairs_at(found.0, &found.1.clone(), depth + 1) {
                    if let Some(o) = operand(m, found.0, nested.operand) {
                        if let Some(f) = self.tuples.follow(m, o, &nested.operand_index) {
                            found = f;
                        }
                    }
                }
            }
            input = Some(found);
        }
        input
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
        // The input of each (source, index) the leaves reach, worked out once: every leaf
        // of a wide result may come from one instruction with many pairs.
        let mut inputs: HashMap<Place, Option<Place>> = HashMap::new();
        for leaf in &facts.leaves {
            let index: Vec<u64> = leaf.index.iter().map(|&k| k as u64).collect();
            let Some(key) = self.tuples.follow(m, root, &index) else { continue };
            let input = match inputs.get(&key) {
                Some(known) => known.clone(),
                None => {
                    let found = self.input(key.0, &key.1, depth);
                    inputs.insert(key, found.clone());
                    found
                }
            };
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

/// A shape index kept as its last element and the index before it (shared): the indices of
/// a chain of `get-tuple-element`s cost one entry each. 0 is the empty index.
type PathId = u32;

/// Where an instruction's whole value comes from through `get-tuple-element`s, worked out
/// at most once per instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Unvisited,
    /// Being worked out (on the stack): reached again, it is a cycle.
    Open,
    /// The instruction and the index in it; `None` when not followed.
    Done(Option<(InstrId, PathId)>),
}

/// XLA's `FollowTupleIndirection` over a module: through `tuple` operands and
/// `get-tuple-element`s to the instruction (and index in it) a value comes from.
///
/// Following from `i` with index `I` goes as following with the empty index does (each
/// `get-tuple-element` puts its index in front, each tuple takes the first off) up to where
/// that stops, at `(j, J)`; then, if `j` is a tuple and `J` empty, on from `j` with `I`,
/// else it ends at `(j, J ++ I)`. So each instruction's origin with the empty index is
/// worked out once, and a query costs its index's length: a long chain of
/// `get-tuple-element`s read by every leaf of a wide tuple is walked once, not per leaf.
struct Tuples {
    origin: IndexVec<InstrId, Origin>,
    /// Index entries: (the index before, the last element, the length).
    paths: Vec<(PathId, u64, u32)>,
}

impl Tuples {
    fn new(m: &Module<'_>) -> Tuples {
        Tuples {
            origin: IndexVec::from_elem(Origin::Unvisited, m.instructions.len()),
            paths: vec![(0, 0, 0)],
        }
    }

    /// The instruction and index `index` of `i` comes from; `None` through a missing
    /// operand or index, a cycle, or an index deeper than shapes nest (a malformed module).
    fn follow(&mut self, m: &Module<'_>, mut i: InstrId, mut index: &[u64]) -> Option<Place> {
        loop {
            work::count(1);
            let (j, path) = self.origin(m, i)?;
            match index.split_first() {
                Some((&k, rest)) if path == 0 && m.instructions[j].opcode == Opcode::Tuple => {
                    i = operand(m, j, k)?;
                    index = rest;
                }
                _ => {
                    let mut out = self.path(path);
                    out.extend_from_slice(index);
                    return Some((j, out));
                }
            }
        }
    }

    /// The elements of a path.
    fn path(&self, mut p: PathId) -> Vec<u64> {
        let mut out = vec![0; self.paths[p as usize].2 as usize];
        for slot in out.iter_mut().rev() {
            let (before, last, _) = self.paths[p as usize];
            *slot = last;
            p = before;
        }
        out
    }

    /// Where `i`'s whole value comes from: itself, unless it is a `get-tuple-element`.
    /// Iterative: a chain of any length costs no stack.
    fn origin(&mut self, m: &Module<'_>, start: InstrId) -> Option<(InstrId, PathId)> {
        let mut stack = vec![start];
        while let Some(&i) = stack.last() {
            work::count(1);
            if let Origin::Done(_) = self.origin[i] {
                stack.pop();
                continue;
            }
            self.origin[i] = Origin::Open;
            let ins = &m.instructions[i];
            let (o, t) = match (ins.opcode, ins.operand(0), ins.tuple_index) {
                (Opcode::GetTupleElement, Some(o), Some(t)) => (o, t),
                (Opcode::GetTupleElement, ..) => {
                    self.origin[i] = Origin::Done(None);
                    continue;
                }
                _ => {
                    self.origin[i] = Origin::Done(Some((i, 0)));
                    continue;
                }
            };
            // The value is element t of o's.
            let done = match self.origin[o] {
                Origin::Unvisited => {
                    stack.push(o);
                    continue;
                }
                Origin::Open => None, // a cycle
                Origin::Done(None) => None,
                Origin::Done(Some((j, 0))) if m.instructions[j].opcode == Opcode::Tuple => {
                    // Element t of a tuple: its operand t's origin.
                    match operand(m, j, t).map(|e| (e, self.origin[e])) {
                        None | Some((_, Origin::Open)) => None,
                        Some((e, Origin::Unvisited)) => {
                            stack.push(e);
                            continue;
                        }
                        Some((_, Origin::Done(r))) => r,
                    }
                }
                Origin::Done(Some((j, path))) => {
                    let len = self.paths[path as usize].2;
                    // Deeper than shapes nest: the shapes do not match (a malformed module).
                    (len < MAX_NESTING as u32).then(|| {
                        self.paths.push((path, t, len + 1));
                        (j, (self.paths.len() - 1) as PathId)
                    })
                }
            };
            self.origin[i] = Origin::Done(done);
        }
        match self.origin[start] {
            Origin::Done(r) => r,
            _ => None,
        }
    }
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
    let mut in_place = InPlace::new(a);
    for c in s.analysed() {
        for i in m.computations[c].instructions {
            let ins = &m.instructions[i];
            let n = d.tree(i).len();
            let same = |j: Option<InstrId>| j.filter(|&j| d.tree(j).len() == n);
            let mut together = |others: &[Option<InstrId>]| {
                // Each instruction once: a conditional may list one branch a million times.
                let mut seen = HashSet::with_capacity(others.len());
                let others: Vec<InstrId> =
                    others.iter().flatten().copied().filter(|&o| seen.insert(o)).collect();
                work::count(others.len() + n * others.len());
                for k in (0..n).map(super::tree::NodeId::new) {
                    for &o in &others {
                        sets.union(d.value(i, k), d.value(o, k));
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
            for p in in_place.of(i) {
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
        let mut t = Tuples::new(&m);
        assert_eq!(t.follow(&m, id("g"), &[0]), Some((id("a"), vec![])));
        assert_eq!(t.follow(&m, id("t"), &[1]), Some((id("u"), vec![])));
        assert_eq!(t.follow(&m, id("t"), &[2]), None);
        assert_eq!(t.follow(&m, id("g"), &[]), Some((id("u"), vec![])));
        assert_eq!(t.follow(&m, id("t"), &[]), Some((id("t"), vec![])));
    }

    #[test]
    fn chains_of_get_tuple_element_end_where_the_indices_lead() {
        // g2 = gte(g1, 1), g1 = gte(p, 0): element {0, 1} of p; c1, c2: a cycle.
        let m = Module::parse(
            "%p = ((f32[2]{0}, f32[2]{0})) parameter(0)\n%g1 = (f32[2]{0}, f32[2]{0}) get-tuple-element(%p), index=0\n%g2 = f32[2]{0} get-tuple-element(%g1), index=1\n%c1 = f32[2]{0} get-tuple-element(%c2), index=0\n%c2 = (f32[2]{0}) get-tuple-element(%c1), index=0\n%t = (f32[2]{0}, f32[2]{0}) tuple(%c1, %g2)\n",
        );
        let id = |n| m.instruction_id(n).unwrap();
        let mut t = Tuples::new(&m);
        assert_eq!(t.follow(&m, id("g2"), &[]), Some((id("p"), vec![0, 1])));
        assert_eq!(t.follow(&m, id("g1"), &[7]), Some((id("p"), vec![0, 7])));
        assert_eq!(t.follow(&m, id("t"), &[1, 3]), Some((id("p"), vec![0, 1, 3])));
        assert_eq!(t.follow(&m, id("c2"), &[]), None);
        assert_eq!(t.follow(&m, id("t"), &[0]), None);
        // A chain longer than shapes nest is not followed.
        let mut text = String::from("%g0 = f32[1]{0} parameter(0)\n");
        for k in 1..=70 {
            text += &format!("%g{k} = f32[1]{{0}} get-tuple-element(%g{}), index=0\n", k - 1);
        }
        let m = Module::parse(&text);
        let mut t = Tuples::new(&m);
        let g = |k: usize| m.instruction_id(&format!("g{k}")).unwrap();
        assert_eq!(t.follow(&m, g(64), &[]), Some((g(0), vec![0; 64])));
        assert_eq!(t.follow(&m, g(65), &[]), None);
        assert_eq!(t.follow(&m, g(70), &[]), None);
    }
}
