//! XLA's `HloDataflowAnalysis` in SSA form, over the flattened computations: which
//! instruction defines the value at each position (instruction, shape index), which
//! positions only pass a value on (`get-tuple-element`, `tuple`, `bitcast`, `call`, the
//! parameters of called computations), and where a `while` or `conditional` merges values
//! (phi values, kept only where more than one value reaches them, as
//! `HloDataflowAnalysis::OptimizePhiValues` leaves them).
//!
//! Like XLA's, this analysis knows nothing of aliasing (which values share a buffer):
//! that is `aliasing.rs`, which liveness uses.

use std::collections::{HashMap, HashSet};

use super::super::buffer::Analysis;
use super::super::id::{id, CompId, IndexVec, InstrId, ShapeId};
use super::super::module::Module;
use super::super::opcode::Opcode;
use super::super::text::attribute::CallAttribute;
use super::super::work;
use super::order;
use super::phi::{PhiGraph, PhiNode};
use super::schedule::Schedule;
use super::tree::{NodeId, Tree};
use super::{NotModelled, Rule};

id! {
    /// A position: one node of the shape of one instruction of a flattened computation
    /// (an instruction's positions are contiguous, in its tree's order).
    pub(crate) PosId
}

id! {
    /// A value of the dataflow.
    pub(crate) FlowId
}

id! {
    /// A distinct shape tree of the dataflow.
    pub(crate) TreeId
}

/// Where the value at a position comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// The instruction defines a value here.
    Def,
    /// The value at another position.
    Fwd(PosId),
    /// A merge of the values at `phi_inputs[start..start + len]`.
    Phi { start: u32, len: u32 },
    /// Not followed (a rule not modelled, or a malformed module).
    Unknown,
}

/// One value: the position that defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flow {
    pub instruction: InstrId,
    pub node: NodeId,
    pub phi: bool,
}

/// How an analysed computation is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Caller {
    /// The entry computation.
    Entry,
    /// By this `call`.
    Call(InstrId),
    /// As a body of `while` instruction `w`, whose first body is `body`.
    WhileBody { w: InstrId, body: Option<CompId> },
    /// As a condition of `while` instruction `w`, whose first body is `body`.
    WhileCondition { w: InstrId, body: Option<CompId> },
    /// As branch `j` of this `conditional`.
    Branch(InstrId, usize),
    /// By more than one instruction (XLA flattens the call graph first, so its dataflow
    /// is not this model's).
    Several,
    /// Inlined (a thread-local computation that is not fused): its parameters define
    /// their values, however many instructions call it.
    Embedded,
}

/// The dataflow of a module's flattened computations.
pub(crate) struct Dataflow {
    /// Distinct shape trees; the first is the tree of an unread shape.
    trees: IndexVec<TreeId, Tree>,
    /// Per instruction of a flattened computation: its tree.
    tree_of: IndexVec<InstrId, Option<TreeId>>,
    /// Per instruction of a flattened computation: its first position.
    base: IndexVec<InstrId, Option<PosId>>,
    /// Per position: its instruction.
    pub position_instruction: IndexVec<PosId, InstrId>,
    /// Per position: the value there (`None` where it was not followed).
    pub value_at: IndexVec<PosId, Option<FlowId>>,
    /// The values, in an order close to XLA's value ids.
    pub values: IndexVec<FlowId, Flow>,
    /// Per computation: how it is called (flattened computations only).
    pub callers: IndexVec<CompId, Option<Caller>>,
    /// Instructions whose dataflow was not followed, or whose operands' values may live
    /// longer than modelled (their operands and results are uncertain).
    pub unsure: Vec<InstrId>,
    /// Parameter look-up: (computation, parameter number) -> instruction.
    parameters: HashMap<(CompId, u64), InstrId>,
}

impl Dataflow {
    /// The tree of instruction `i`; the tree of no size for an instruction outside the
    /// flattened computations.
    pub fn tree(&self, i: InstrId) -> &Tree {
        let t = self.tree_of.get(i).copied().flatten().unwrap_or(TreeId::new(0));
        &self.trees[t]
    }

    /// The first position of `i`, if it is in a flattened computation.
    pub fn base(&self, i: InstrId) -> Option<PosId> {
        self.base.get(i).copied().flatten()
    }

    /// The node of `i` at position `p` (one of `i`'s positions).
    pub fn node(&self, i: InstrId, p: PosId) -> NodeId {
        NodeId::new(p.index() - self.base[i].map_or(0, PosId::index))
    }

    /// The value at node `node` of instruction `i`, if followed (none outside the
    /// flattened computations).
    pub fn value(&self, i: InstrId, node: NodeId) -> Option<FlowId> {
        let base = self.base(i)?;
        if node.index() >= self.tree(i).len() {
            return None;
        }
        self.value_at[base.plus(node.index())]
    }

    /// Parameter `number` of computation `c`.
    pub fn parameter(&self, c: CompId, number: u64) -> Option<InstrId> {
        self.parameters.get(&(c, number)).copied()
    }

    /// The dataflow of the computations `schedule` analyses (the flattened ones, then the
    /// thread-local ones that are not fused). What is not followed is said in `notes`, or
    /// in `embedded_notes` for the thread-local computations (which no step counts).
    /// Linear in the number of positions (nodes of the instructions' shapes) and operands.
    pub fn new(
        a: &Analysis<'_, '_>,
        s: &Schedule,
        notes: &mut Vec<NotModelled>,
        embedded_notes: &mut Vec<NotModelled>,
    ) -> Dataflow {
        let m = a.module;
        let mut parameters = HashMap::new();
        for (i, ins) in m.instructions.iter_enumerated() {
            if let (Some(c), Some(n), Opcode::Parameter) =
                (ins.computation, ins.parameter_number, ins.opcode)
            {
                parameters.entry((c, n)).or_insert(i);
            }
        }
        let mut d = Dataflow {
            trees: IndexVec::from_raw(vec![Tree::unknown()]),
            tree_of: IndexVec::from_elem(None, m.instructions.len()),
            base: IndexVec::from_elem(None, m.instructions.len()),
            position_instruction: IndexVec::new(),
            value_at: IndexVec::new(),
            values: IndexVec::new(),
            callers: IndexVec::from_elem(None, m.computations.len()),
            unsure: Vec::new(),
            parameters,
        };
        d.find_callers(m, s);
        d.lay_out_positions(a, s, notes);
        let mut b = Sources::new(d.position_instruction.len());
        for &c in &s.flattened {
            for i in m.computations[c].instructions {
                d.sources(m, i, &mut b, notes);
            }
        }
        for &c in &s.embedded {
            for i in m.computations[c].instructions {
                d.sources(m, i, &mut b, embedded_notes);
            }
        }
        if let Some(unfinished) = d.resolve(m, s, &b) {
            // The instructions of the phis left: their values may be others' (uncertain).
            if unfinished.is_empty() {
                NotModelled::add(notes, Rule::PhiBudget, None);
            }
            for i in unfinished {
                d.unsure.push(i);
                NotModelled::add(notes, Rule::PhiBudget, Some(i));
            }
        }
        d
    }

    fn find_callers(&mut self, m: &Module<'_>, s: &Schedule) {
        if let Some(e) = m.entry {
            self.callers[e] = Some(Caller::Entry);
        }
        for &c in &s.embedded {
            self.callers[c] = Some(Caller::Embedded);
        }
        for c in s.analysed() {
            for i in m.computations[c].instructions {
                let ins = &m.instructions[i];
                let body = match ins.opcode {
                    Opcode::While => ins.called_by(CallAttribute::Body),
                    _ => None,
                };
                for (j, (attribute, callee)) in ins.sequential_callees().enumerate() {
                    let caller = match ins.opcode {
                        Opcode::Call => Caller::Call(i),
                        Opcode::Conditional => Caller::Branch(i, j),
                        _ if attribute == CallAttribute::Body => Caller::WhileBody { w: i, body },
                        _ => Caller::WhileCondition { w: i, body },
                    };
                    let slot = &mut self.callers[callee];
                    *slot = match *slot {
                        None | Some(Caller::Embedded) => Some(caller),
                        // The same while naming one computation as body and condition.
                        Some(_) => Some(Caller::Several),
                    };
                }
            }
        }
    }

    /// Gives every instruction of an analysed computation its tree and positions.
    fn lay_out_positions(
        &mut self,
        a: &Analysis<'_, '_>,
        s: &Schedule,
        notes: &mut Vec<NotModelled>,
    ) {
        let m = a.module;
        let mut tree_of_shape =
            IndexVec::<ShapeId, Option<TreeId>>::from_elem(None, m.shapes.len());
        for c in s.analysed() {
            for i in m.computations[c].instructions {
                let t = match m.instructions[i].shape {
                    Some(id) => *tree_of_shape[id].get_or_insert_with(|| {
                        self.trees.push(Tree::new(&m.shapes[id], &a.shapes[id]))
                    }),
                    None => TreeId::new(0),
                };
                let n = self.trees[t].len();
                if self.position_instruction.len().saturating_add(n) > super::super::id::MAX_ITEMS {
                    // More positions than ids can number: this instruction is not followed.
                    NotModelled::add(notes, Rule::Unfollowed, Some(i));
                    continue;
                }
                self.tree_of[i] = Some(t);
                self.base[i] = Some(self.position_instruction.next_id());
                for _ in 0..n {
                    self.position_instruction.push(i);
                }
            }
        }
    }
}

/// The sources of every position while they are being worked out.
struct Sources {
    src: IndexVec<PosId, Src>,
    phi_inputs: Vec<PosId>,
}

impl Sources {
    fn new(positions: usize) -> Sources {
        Sources { src: IndexVec::from_elem(Src::Def, positions), phi_inputs: Vec::new() }
    }

    /// The inputs of a phi.
    fn inputs(&self, start: u32, len: u32) -> &[PosId] {
        let start = start as usize;
        &self.phi_inputs[start..start + len as usize]
    }
}

impl Dataflow {
    /// Sets the sources of instruction `i`'s positions, as `InitializeInstructionValueSets`
    /// and the `Update*ValueSet` functions of XLA's dataflow say.
    fn sources(
        &mut self,
        m: &Module<'_>,
        i: InstrId,
        b: &mut Sources,
        notes: &mut Vec<NotModelled>,
    ) {
        let Some(base) = self.base(i) else { return };
        let ins = &m.instructions[i];
        work::count(1 + ins.operands.len());
        let op = |slot: usize| ins.operand(slot);
        let root = Tree::root();
        let first_child = |t: &Tree| t.child(root, 0);
        let ok = match ins.opcode {
            Opcode::Parameter => match ins.computation.and_then(|c| self.callers[c]) {
                Some(Caller::Entry | Caller::Embedded) => true,
                Some(Caller::Call(call)) => {
                    let slot = ins.parameter_number.and_then(|p| usize::try_from(p).ok());
                    let from = slot.and_then(|p| m.operand(call, p));
                    self.forward(b, i, Some(root), from, Some(root))
                }
                Some(Caller::Branch(cond, j)) => {
                    let from = m.operand(cond, j + 1);
                    self.forward(b, i, Some(root), from, Some(root))
                }
                Some(Caller::WhileBody { w, body } | Caller::WhileCondition { w, body }) => {
                    self.while_parameter(m, b, i, w, body)
                }
                Some(Caller::Several) | None => false,
            },
            Opcode::GetTupleElement => {
                let from = op(0);
                let node = from.zip(ins.tuple_index).and_then(|(f, k)| self.tree(f).child(root, k));
                self.forward(b, i, Some(root), from, node)
            }
            Opcode::Tuple => {
                let children = self.tree(i).nodes[root].children.clone();
                (0..ins.operands.len())
                    .map(|k| self.forward(b, i, children.get(k).copied(), op(k), Some(root)))
                    .fold(children.len() == ins.operands.len(), |a, r| a & r)
            }
            Opcode::Bitcast
            | Opcode::AddDependency
            | Opcode::Domain
            | Opcode::OptBarrier
            | Opcode::OptimizationBarrier
            | Opcode::AllReduceDone => self.forward(b, i, Some(root), op(0), Some(root)),
            Opcode::Copy => {
                // A copy defines its top-level value; deeper ones are its operand's.
                let r = self.forward(b, i, Some(root), op(0), Some(root));
                b.src[base] = Src::Def;
                r
            }
            Opcode::Call => {
                let callee = ins.sequential_callees().next();
                let from = callee.and_then(|(_, c)| m.computations[c].root);
                self.forward(b, i, Some(root), from, Some(root))
            }
            Opcode::While => {
                let body = ins.called_by(CallAttribute::Body);
                let body_root = body.and_then(|c| m.computations[c].root);
                self.merge(b, i, &[body_root, op(0)])
            }
            Opcode::Conditional => {
                let roots: Vec<Option<InstrId>> =
                    ins.sequential_callees().map(|(_, c)| m.computations[c].root).collect();
                match roots.as_slice() {
                    [] => false,
                    [one] => self.forward(b, i, Some(root), *one, Some(root)),
                    _ => self.merge(b, i, &roots),
                }
            }
            Opcode::CopyStart => self.forward_child(b, i, 1, op(0), Some(root)),
            Opcode::CopyDone => {
                let from = op(0);
                let node = from.and_then(|f| first_child(self.tree(f)));
                self.forward(b, i, Some(root), from, node)
            }
            Opcode::Send => self.forward_child(b, i, 0, op(0), Some(root)),
            Opcode::RecvDone => {
                let from = op(0);
                let node = from.and_then(|f| first_child(self.tree(f)));
                self.forward_child(b, i, 0, from, node)
            }
            Opcode::AllGatherStart if ins.operands.len() == 1 => {
                self.forward_child(b, i, 0, op(0), Some(root))
            }
            Opcode::AllGatherStart => {
                let element = first_child(self.tree(i));
                (0..ins.operands.len())
                    .map(|k| {
                        let at = element.and_then(|e| self.tree(i).child(e, k as u64));
                        self.forward(b, i, at, op(k), Some(root))
                    })
                    .fold(element.is_some(), |a, r| a & r)
            }
            Opcode::AllGatherDone | Opcode::CollectivePermuteDone => {
                let from = op(0);
                let node = from.and_then(|f| self.tree(f).child(root, 1));
                let r = self.forward(b, i, Some(root), from, node);
                if !self.tree(i).nodes[root].children.is_empty() {
                    b.src[base] = Src::Def;
                }
                r
            }
            Opcode::CollectivePermuteStart if ins.operands.len() == 1 => {
                self.forward_child(b, i, 0, op(0), Some(root))
            }
            // In-place and multi-operand collective-permute-start, asynchronous
            // computations: their dataflow is not modelled.
            Opcode::CollectivePermuteStart => false,
            o if o.is_async() => false,
            _ => true,
        };
        if !ok {
            self.unsure.push(i);
            let rule = match ins.opcode {
                o if o.is_async() || o == Opcode::CollectivePermuteStart => Rule::Asynchronous,
                Opcode::Parameter => Rule::CalledSeveralTimes,
                _ => Rule::Unfollowed,
            };
            NotModelled::add(notes, rule, Some(i));
        }
    }

    /// The parameter `i` of a body or condition of `while` instruction `w` (whose first
    /// body is `body`): the init value, merged with the body root's unless the body passes
    /// the parameter itself through.
    fn while_parameter(
        &self,
        m: &Module<'_>,
        b: &mut Sources,
        i: InstrId,
        w: InstrId,
        body: Option<CompId>,
    ) -> bool {
        let init = m.operand(w, 0);
        let body_root = body.and_then(|c| m.computations[c].root);
        if body_root == Some(i) {
            // Passing the parameter through: only the init value reaches it.
            let root = Some(Tree::root());
            self.forward(b, i, root, init, root)
        } else {
            self.merge(b, i, &[init, body_root])
        }
    }

    /// The subtree at node `at` of `i` takes the values of the subtree at node `node` of
    /// `from`. False if there is no node `at`; false, with those positions unknown, if
    /// there is no such operand or node, or the subtrees differ in size.
    fn forward(
        &self,
        b: &mut Sources,
        i: InstrId,
        at: Option<NodeId>,
        from: Option<InstrId>,
        node: Option<NodeId>,
    ) -> bool {
        let t = self.tree(i);
        let (Some(base), Some(at)) = (self.base(i), at) else { return false };
        if at.index() >= t.len() {
            return false;
        }
        let n = t.subtree_len(at);
        work::count(n);
        let target = base.plus(at.index());
        let source = from.zip(node).and_then(|(f, node)| {
            let tf = self.tree(f);
            let fits = node.index() < tf.len() && tf.subtree_len(node) == n;
            self.base(f).filter(|_| fits).map(|fb| fb.plus(node.index()))
        });
        match source {
            Some(source) => {
                for k in 0..n {
                    b.src[target.plus(k)] = Src::Fwd(source.plus(k));
                }
                true
            }
            None => {
                for k in 0..n {
                    b.src[target.plus(k)] = Src::Unknown;
                }
                false
            }
        }
    }

    /// [`Dataflow::forward`] into child `child` of `i`'s root.
    fn forward_child(
        &self,
        b: &mut Sources,
        i: InstrId,
        child: u64,
        from: Option<InstrId>,
        node: Option<NodeId>,
    ) -> bool {
        let at = self.tree(i).child(Tree::root(), child);
        self.forward(b, i, at, from, node)
    }

    /// Every position of `i` merges the same node of each of `inputs` (XLA's `Phi`).
    fn merge(&self, b: &mut Sources, i: InstrId, inputs: &[Option<InstrId>]) -> bool {
        let Some(base) = self.base(i) else { return false };
        let n = self.tree(i).len();
        let bases: Option<Vec<PosId>> = inputs
            .iter()
            .map(|f| f.filter(|&f| self.tree(f).len() == n).and_then(|f| self.base(f)))
            .collect();
        // XLA's phi inputs are a set of values: an instruction merged twice (a branch
        // computation listed again) is one input, not one per listing.
        let bases = bases.map(|mut bases| {
            let mut seen = HashSet::with_capacity(bases.len());
            bases.retain(|&f| seen.insert(f));
            bases
        });
        work::count(inputs.len());
        // Phi inputs are numbered by u32: more than that many are not followed.
        let fits = |bases: &Vec<PosId>| {
            let total = n.checked_mul(bases.len()).and_then(|t| t.checked_add(b.phi_inputs.len()));
            total.is_some_and(|t| u32::try_from(t).is_ok())
        };
        let Some(bases) = bases.filter(fits) else {
            for k in 0..n {
                b.src[base.plus(k)] = Src::Unknown;
            }
            return false;
        };
        work::count(n * bases.len());
        for k in 0..n {
            // Both fit in a u32: checked above.
            let start = b.phi_inputs.len() as u32;
            b.phi_inputs.extend(bases.iter().map(|f| f.plus(k)));
            b.src[base.plus(k)] = Src::Phi { start, len: bases.len() as u32 };
        }
        true
    }
}

/// Where following forwards from a position ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Not followed yet.
    Unvisited,
    /// On a cycle of forwards (a malformed module): no value.
    Cycle,
    /// At a position that defines, merges or does not follow its value.
    At(PosId),
}

impl Dataflow {
    /// Follows forwards to their ends, simplifies the phis as XLA does, and numbers the
    /// values. When the phi simplification stopped at its budget: the instructions of the
    /// phis it left, each once.
    fn resolve(&mut self, m: &Module<'_>, s: &Schedule, b: &Sources) -> Option<Vec<InstrId>> {
        let n = b.src.len();
        // The end of each forward chain.
        let mut rep = IndexVec::<PosId, End>::from_elem(End::Unvisited, n);
        let mut path: Vec<PosId> = Vec::new();
        let mut on_path = IndexVec::<PosId, bool>::from_elem(false, n);
        for start in b.src.ids() {
            let mut p = start;
            let end = loop {
                if rep[p] != End::Unvisited {
                    break rep[p];
                }
                if on_path[p] {
                    break End::Cycle;
                }
                match b.src[p] {
                    Src::Fwd(q) => {
                        on_path[p] = true;
                        path.push(p);
                        p = q;
                    }
                    _ => break End::At(p),
                }
            };
            if rep[start] == End::Unvisited && path.is_empty() {
                rep[start] = end;
            }
            work::count(1 + path.len());
            for q in path.drain(..) {
                rep[q] = end;
                on_path[q] = false;
            }
        }
        // The phi graph: a node per phi position and per position whose value flows into
        // one, created in position order (each phi, then its inputs), as XLA registers
        // phis while its propagation reaches them.
        let mut graph = PhiGraph::default();
        let mut node_at = IndexVec::<PosId, Option<PhiNode>>::from_elem(None, n);
        let mut position_of: IndexVec<PhiNode, Option<PosId>> = IndexVec::new();
        let mut node = |graph: &mut PhiGraph, position_of: &mut IndexVec<_, _>, end: End| {
            match end {
                End::At(p) if b.src[p] != Src::Unknown => *node_at[p].get_or_insert_with(|| {
                    position_of.push(Some(p));
                    graph.add(matches!(b.src[p], Src::Phi { .. }))
                }),
                // A value not followed is a node of its own at each use: it matches nothing.
                _ => {
                    position_of.push(None);
                    graph.add(false)
                }
            }
        };
        for p in b.src.ids() {
            if let Src::Phi { start, len } = b.src[p] {
                let me = node(&mut graph, &mut position_of, End::At(p));
                let inputs = b
                    .inputs(start, len)
                    .iter()
                    .map(|&q| node(&mut graph, &mut position_of, rep[q]))
                    .collect();
                graph.set_inputs(me, inputs);
            }
        }
        let unfinished = (!graph.optimize()).then(|| {
            let mut left: Vec<InstrId> = graph
                .live_phis()
                .filter_map(|g| position_of[g])
                .map(|p| self.position_instruction[p])
                .collect();
            left.sort_unstable();
            left.dedup();
            left
        });
        // Number the values: defined ones in an order close to XLA's ids (computations and
        // their instructions in XLA's post orders), then the phis that survive.
        let mut id_at = IndexVec::<PosId, Option<FlowId>>::from_elem(None, n);
        let mut analysed = IndexVec::<CompId, bool>::from_elem(false, m.computations.len());
        s.analysed().for_each(|c| analysed[c] = true);
        let orders = order::post_orders(m, order::Callees::PostOrder);
        for &c in &orders.computations {
            if !analysed[c] {
                continue;
            }
            for &i in &orders.instructions[c] {
                let Some(base) = self.base(i) else { continue };
                for k in 0..self.tree(i).len() {
                    let p = base.plus(k);
                    if b.src[p] == Src::Def {
                        let node = NodeId::new(k);
                        id_at[p] =
                            Some(self.values.push(Flow { instruction: i, node, phi: false }));
                    }
                }
            }
        }
        for p in b.src.ids() {
            if let Some(g) = node_at[p] {
                if graph.is_phi(g) && graph.resolved(g) == g {
                    let i = self.position_instruction[p];
                    let node = self.node(i, p);
                    id_at[p] = Some(self.values.push(Flow { instruction: i, node, phi: true }));
                }
            }
        }
        self.value_at = rep
            .iter()
            .map(|&end| {
                let End::At(r) = end else { return None };
                match b.src[r] {
                    Src::Phi { .. } => {
                        let g = graph.resolved(node_at[r]?);
                        id_at[position_of[g]?]
                    }
                    Src::Unknown => None,
                    _ => id_at[r],
                }
            })
            .collect();
        unfinished
    }
}

#[cfg(test)]
mod tests;
