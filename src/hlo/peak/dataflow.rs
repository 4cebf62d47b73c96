//! XLA's `HloDataflowAnalysis` in SSA form, over the flattened computations: which
//! instruction defines the value at each position (instruction, shape index), which
//! positions only pass a value on (`get-tuple-element`, `tuple`, `bitcast`, `call`, the
//! parameters of called computations), and where a `while` or `conditional` merges values
//! (phi values, kept only where more than one value reaches them, as
//! `HloDataflowAnalysis::OptimizePhiValues` leaves them).

use std::cell::RefCell;
use std::collections::HashMap;

use super::super::buffer::Analysis;
use super::super::lex::split_top_level;
use super::super::module::Module;
use super::liveness::AliasPair;
use super::phi::PhiGraph;
use super::schedule::{is_async, sequential_callees, Schedule};
use super::tree::Tree;
use super::{NotModelled, Rule};

/// No position, value or tree.
pub(crate) const NONE: u32 = u32::MAX;

/// Where the value at a position comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// The instruction defines a value here.
    Def,
    /// The value at another position.
    Fwd(u32),
    /// A merge of the values at `phi_inputs[start..start + len]`.
    Phi(u32, u32),
    /// Not followed (a rule not modelled, or a malformed module).
    Unknown,
}

/// One value: the position that defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    pub instruction: u32,
    pub node: u32,
    pub phi: bool,
}

/// A fusion's fused computation and result shape: what its in-place pairs depend on.
pub(crate) type FusionKey = (usize, Option<u32>);

/// How a flattened computation is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Caller {
    /// The entry computation.
    Entry,
    /// By this `call`.
    Call(u32),
    /// As the body of this `while`.
    WhileBody(u32),
    /// As the condition of this `while`.
    WhileCondition(u32),
    /// As branch `j` of this `conditional`.
    Branch(u32, u32),
    /// By more than one instruction (XLA flattens the call graph first, so its dataflow
    /// is not this model's).
    Several,
}

/// The dataflow of a module's flattened computations.
pub(crate) struct Dataflow<'t> {
    /// Distinct shape trees; `trees[0]` is the tree of an unread shape.
    pub trees: Vec<Tree>,
    /// Per instruction: its tree (NONE outside flattened computations).
    pub tree_of: Vec<u32>,
    /// Per instruction: its first position (NONE outside flattened computations).
    pub base: Vec<u32>,
    /// Per position: its instruction.
    pub position_instruction: Vec<u32>,
    /// Per position: the value there (NONE where it was not followed).
    pub value_at: Vec<u32>,
    /// The values, in an order close to XLA's value ids.
    pub values: Vec<Value>,
    /// Per computation: how it is called (flattened computations only).
    pub callers: Vec<Option<Caller>>,
    /// Per computation: its root instruction.
    pub roots: Vec<Option<u32>>,
    /// Instructions whose dataflow was not followed, or whose operands' values may live
    /// longer than modelled (their operands and results are uncertain).
    pub unsure: Vec<u32>,
    /// Every instruction's operands, resolved once: `operand_ids[operand_start[i]..]`.
    operand_ids: Vec<u32>,
    operand_start: Vec<u32>,
    /// The module text's lifetime (operands are resolved from its names).
    text: std::marker::PhantomData<&'t str>,
    /// Parameter lookup: (computation, parameter number) -> instruction.
    parameters: HashMap<(usize, u64), u32>,
    /// In-place pairs of fusions already worked out, by (fused computation, result shape).
    pub(crate) fusion_pairs: RefCell<HashMap<FusionKey, Vec<AliasPair>>>,
}

impl<'t> Dataflow<'t> {
    /// The tree of instruction `i`; the tree of no size for an instruction outside the
    /// flattened computations.
    pub fn tree(&self, i: u32) -> &Tree {
        let t = self.tree_of.get(i as usize).copied().unwrap_or(NONE);
        self.trees.get(t as usize).unwrap_or(&self.trees[0])
    }

    /// The position of node `node` of instruction `i`.
    pub fn position(&self, i: u32, node: u32) -> u32 {
        self.base[i as usize] + node
    }

    /// The value at node `node` of instruction `i`, if followed (none outside the
    /// flattened computations).
    pub fn value(&self, i: u32, node: u32) -> Option<u32> {
        let base = *self.base.get(i as usize)?;
        if base == NONE || node >= self.tree(i).len() {
            return None;
        }
        let v = *self.value_at.get((base + node) as usize)?;
        (v != NONE).then_some(v)
    }

    /// The instruction operand `slot` of instruction `i` names, in `i`'s computation.
    pub fn operand(&self, _m: &Module<'t>, i: u32, slot: usize) -> Option<u32> {
        let start = self.operand_start[i as usize] as usize;
        let end = self.operand_start[i as usize + 1] as usize;
        let o = *self.operand_ids[start..end].get(slot)?;
        (o != NONE).then_some(o)
    }

    /// Parameter `number` of computation `c`.
    pub fn parameter(&self, c: usize, number: u64) -> Option<u32> {
        self.parameters.get(&(c, number)).copied()
    }

    /// The dataflow of the computations `schedule` flattened. Linear in the number of
    /// positions (nodes of flattened instructions' shapes) and operands.
    pub fn new(a: &Analysis<'_, 't>, s: &Schedule, notes: &mut Vec<NotModelled>) -> Dataflow<'t> {
        let m = a.module;
        let mut names = HashMap::with_capacity(m.instructions.len());
        let mut parameters = HashMap::new();
        for (i, ins) in m.instructions.iter().enumerate() {
            let c = ins.computation.map_or(NONE, |c| c as u32);
            names.entry((c, ins.name)).or_insert(i as u32);
            if let (Some(c), Some(n), "parameter") =
                (ins.computation, ins.parameter_number, ins.opcode)
            {
                parameters.entry((c, n)).or_insert(i as u32);
            }
        }
        // Each operand name looked up once: the passes below read these many times.
        let mut operand_start = Vec::with_capacity(m.instructions.len() + 1);
        let mut operand_ids = Vec::new();
        for ins in &m.instructions {
            operand_start.push(operand_ids.len() as u32);
            let c = ins.computation.map_or(NONE, |c| c as u32);
            operand_ids
                .extend(ins.operands.iter().map(|o| names.get(&(c, *o)).copied().unwrap_or(NONE)));
        }
        operand_start.push(operand_ids.len() as u32);
        drop(names);
        let roots: Vec<Option<u32>> = m
            .computations
            .iter()
            .map(|c| {
                let r = c.instructions.clone();
                let root = r.clone().find(|&i| m.instructions[i].is_root);
                // Without `ROOT` XLA's parser takes the last instruction.
                root.or(r.last()).map(|i| i as u32)
            })
            .collect();
        let mut d = Dataflow {
            trees: vec![Tree::unknown()],
            tree_of: vec![NONE; m.instructions.len()],
            base: vec![NONE; m.instructions.len()],
            position_instruction: Vec::new(),
            value_at: Vec::new(),
            values: Vec::new(),
            callers: vec![None; m.computations.len()],
            roots,
            unsure: Vec::new(),
            operand_ids,
            operand_start,
            text: std::marker::PhantomData,
            parameters,
            fusion_pairs: RefCell::new(HashMap::new()),
        };
        d.find_callers(m, s);
        d.lay_out_positions(a, s);
        let mut b = Sources::new(d.position_instruction.len());
        for &c in &s.flattened {
            for i in m.computations[c].instructions.clone() {
                d.sources(m, i as u32, &mut b, notes);
            }
        }
        if !d.resolve(m, s, &b) {
            NotModelled::add(notes, Rule::PhiBudget, usize::MAX);
        }
        d
    }

    fn find_callers(&mut self, m: &Module<'t>, s: &Schedule) {
        if let Some(e) = m.entry {
            self.callers[e] = Some(Caller::Entry);
        }
        for &c in &s.flattened {
            for i in m.computations[c].instructions.clone() {
                let ins = &m.instructions[i];
                let i = i as u32;
                let callees: Vec<usize> = sequential_callees(m, ins).collect();
                for (j, &callee) in callees.iter().enumerate() {
                    let caller = match ins.opcode {
                        "call" => Caller::Call(i),
                        "conditional" => Caller::Branch(i, j as u32),
                        _ if ins.called.iter().any(|c| {
                            c.attribute == "body"
                                && m.computation_index(c.computation) == Some(callee)
                        }) =>
                        {
                            Caller::WhileBody(i)
                        }
                        _ => Caller::WhileCondition(i),
                    };
                    let slot = &mut self.callers[callee];
                    *slot = match *slot {
                        None => Some(caller),
                        // The same while naming one computation as body and condition.
                        Some(_) => Some(Caller::Several),
                    };
                }
            }
        }
    }

    /// Gives every instruction of a flattened computation its tree and positions.
    fn lay_out_positions(&mut self, a: &Analysis<'_, 't>, s: &Schedule) {
        let m = a.module;
        let mut tree_of_shape: Vec<u32> = vec![NONE; m.shapes.len()];
        for &c in &s.flattened {
            for i in m.computations[c].instructions.clone() {
                let t = match m.instructions[i].shape {
                    Some(id) => {
                        let slot = &mut tree_of_shape[id.0 as usize];
                        if *slot == NONE {
                            *slot = self.trees.len() as u32;
                            let facts = &a.shapes[id.0 as usize];
                            self.trees.push(Tree::new(&m.shapes[id.0 as usize], facts));
                        }
                        *slot
                    }
                    None => 0,
                };
                self.tree_of[i] = t;
                self.base[i] = self.position_instruction.len() as u32;
                let n = self.trees[t as usize].len();
                self.position_instruction.extend(std::iter::repeat(i as u32).take(n as usize));
            }
        }
    }
}

/// The sources of every position while they are being worked out.
struct Sources {
    src: Vec<Src>,
    phi_inputs: Vec<u32>,
}

impl Sources {
    fn new(positions: usize) -> Sources {
        Sources { src: vec![Src::Def; positions], phi_inputs: Vec::new() }
    }
}

impl<'t> Dataflow<'t> {
    /// Sets the sources of instruction `i`'s positions, as `InitializeInstructionValueSets`
    /// and the `Update*ValueSet` functions of XLA's dataflow say.
    fn sources(&mut self, m: &Module<'t>, i: u32, b: &mut Sources, notes: &mut Vec<NotModelled>) {
        let ins = &m.instructions[i as usize];
        let c = ins.computation.expect("flattened instructions are in a computation");
        let op = |slot: usize| self.operand(m, i, slot);
        let ok = match ins.opcode {
            "parameter" => match self.callers[c] {
                Some(Caller::Entry) => true,
                Some(Caller::Call(call)) => {
                    let slot = ins.parameter_number.and_then(|p| usize::try_from(p).ok());
                    let from = slot.and_then(|p| self.operand(m, call, p));
                    self.forward(b, i, 0, from, 0)
                }
                Some(Caller::Branch(cond, j)) => {
                    let from = self.operand(m, cond, j as usize + 1);
                    self.forward(b, i, 0, from, 0)
                }
                Some(Caller::WhileBody(w) | Caller::WhileCondition(w)) => {
                    let init = self.operand(m, w, 0);
                    let body_root = self.while_body_root(m, w);
                    if body_root == Some(i) {
                        // Passing the parameter through: only the init value reaches it.
                        self.forward(b, i, 0, init, 0)
                    } else {
                        self.merge(b, i, &[init, body_root])
                    }
                }
                Some(Caller::Several) | None => false,
            },
            "get-tuple-element" => {
                let index = attribute(ins.attributes, "index").and_then(|v| v.parse::<u64>().ok());
                let from = op(0);
                let node = from.zip(index).and_then(|(f, k)| self.tree(f).child(0, k));
                self.forward(b, i, 0, from, node.unwrap_or(NONE))
            }
            "tuple" => {
                let children = self.tree(i).nodes[0].children.clone();
                (0..ins.operands.len())
                    .map(|k| {
                        let at = children.get(k).copied().unwrap_or(NONE);
                        self.forward(b, i, at, op(k), 0)
                    })
                    .fold(children.len() == ins.operands.len(), |a, r| a & r)
            }
            "bitcast"
            | "add-dependency"
            | "domain"
            | "opt-barrier"
            | "optimization-barrier"
            | "all-reduce-done" => self.forward(b, i, 0, op(0), 0),
            "copy" => {
                // A copy defines its top-level value; deeper ones are its operand's.
                let r = self.forward(b, i, 0, op(0), 0);
                b.src[self.position(i, 0) as usize] = Src::Def;
                r
            }
            "call" => {
                let callee = sequential_callees(m, ins).next();
                let root = callee.and_then(|c| self.roots[c]);
                self.forward(b, i, 0, root, 0)
            }
            "while" => {
                let body_root = self.while_body_root(m, i);
                self.merge(b, i, &[body_root, op(0)])
            }
            "conditional" => {
                let roots: Vec<Option<u32>> =
                    sequential_callees(m, ins).map(|c| self.roots[c]).collect();
                match roots.as_slice() {
                    [] => false,
                    [one] => self.forward(b, i, 0, *one, 0),
                    _ => self.merge(b, i, &roots),
                }
            }
            "copy-start" => self.forward_child(b, i, 1, op(0), 0),
            "copy-done" => {
                let from = op(0);
                let node = from.and_then(|f| self.tree(f).child(0, 0));
                self.forward(b, i, 0, from, node.unwrap_or(NONE))
            }
            "send" => self.forward_child(b, i, 0, op(0), 0),
            "recv-done" => {
                let from = op(0);
                let node = from.and_then(|f| self.tree(f).child(0, 0));
                self.forward_child(b, i, 0, from, node.unwrap_or(NONE))
            }
            "all-gather-start" if ins.operands.len() == 1 => self.forward_child(b, i, 0, op(0), 0),
            "all-gather-start" => {
                let element = self.tree(i).child(0, 0);
                (0..ins.operands.len())
                    .map(|k| {
                        let at = element.and_then(|e| self.tree(i).child(e, k as u64));
                        self.forward(b, i, at.unwrap_or(NONE), op(k), 0)
                    })
                    .fold(element.is_some(), |a, r| a & r)
            }
            "all-gather-done" | "collective-permute-done" => {
                let from = op(0);
                let node = from.and_then(|f| self.tree(f).child(0, 1));
                let r = self.forward(b, i, 0, from, node.unwrap_or(NONE));
                if !self.tree(i).nodes[0].children.is_empty() {
                    b.src[self.position(i, 0) as usize] = Src::Def;
                }
                r
            }
            "collective-permute-start" if ins.operands.len() == 1 => {
                self.forward_child(b, i, 0, op(0), 0)
            }
            // In-place and multi-operand collective-permute-start, asynchronous
            // computations: their dataflow is not modelled.
            "collective-permute-start" => false,
            o if is_async(o) => false,
            _ => true,
        };
        if !ok {
            self.unsure.push(i);
            let rule = if is_async(ins.opcode) || ins.opcode == "collective-permute-start" {
                Rule::Asynchronous
            } else if ins.opcode == "parameter" {
                Rule::CalledSeveralTimes
            } else {
                Rule::Unfollowed
            };
            NotModelled::add(notes, rule, i as usize);
        }
    }

    /// The body root of `while` instruction `w`.
    fn while_body_root(&self, m: &Module<'t>, w: u32) -> Option<u32> {
        let ins = &m.instructions[w as usize];
        let body = ins.called.iter().find(|c| c.attribute == "body")?;
        self.roots[m.computation_index(body.computation)?]
    }

    /// The subtree at node `at` of `i` takes the values of the subtree at node `node` of
    /// `from`; false (and those positions unknown) if there is no such operand or the
    /// subtrees differ in size.
    fn forward(&self, b: &mut Sources, i: u32, at: u32, from: Option<u32>, node: u32) -> bool {
        let t = self.tree(i);
        if at == NONE || at >= t.len() {
            return false;
        }
        let n = t.subtree_len(at);
        let target = |k: u32| self.position(i, at + k) as usize;
        match from {
            Some(f)
                if self.base[f as usize] != NONE
                    && node < self.tree(f).len()
                    && self.tree(f).subtree_len(node) == n =>
            {
                for k in 0..n {
                    b.src[target(k)] = Src::Fwd(self.position(f, node + k));
                }
                true
            }
            _ => {
                for k in 0..n {
                    b.src[target(k)] = Src::Unknown;
                }
                false
            }
        }
    }

    /// [`Dataflow::forward`] into child `child` of `i`'s root.
    fn forward_child(
        &self,
        b: &mut Sources,
        i: u32,
        child: u64,
        from: Option<u32>,
        node: u32,
    ) -> bool {
        let at = self.tree(i).child(0, child).unwrap_or(NONE);
        self.forward(b, i, at, from, node)
    }

    /// Every position of `i` merges the same node of each of `inputs` (XLA's `Phi`).
    fn merge(&self, b: &mut Sources, i: u32, inputs: &[Option<u32>]) -> bool {
        let n = self.tree(i).len();
        let sized = |f: &Option<u32>| {
            f.is_some_and(|f| self.base[f as usize] != NONE && self.tree(f).len() == n)
        };
        if !inputs.iter().all(sized) {
            for k in 0..n {
                b.src[self.position(i, k) as usize] = Src::Unknown;
            }
            return false;
        }
        for k in 0..n {
            let start = b.phi_inputs.len() as u32;
            for f in inputs.iter().flatten() {
                b.phi_inputs.push(self.position(*f, k));
            }
            b.src[self.position(i, k) as usize] = Src::Phi(start, inputs.len() as u32);
        }
        true
    }
}

/// The value of `key=value` among an instruction's attributes.
pub(crate) fn attribute<'a>(attributes: &'a str, key: &str) -> Option<&'a str> {
    split_top_level(attributes).into_iter().find_map(|a| {
        let (k, v) = a.split_once('=')?;
        (k.trim() == key).then(|| v.trim())
    })
}

impl<'t> Dataflow<'t> {
    /// Follows forwards to their ends, simplifies the phis as XLA does, and numbers the
    /// values. `false` if the phi simplification stopped at its budget.
    fn resolve(&mut self, m: &Module<'t>, s: &Schedule, b: &Sources) -> bool {
        let n = b.src.len();
        // The end of each forward chain: a Def, Phi or Unknown position (NONE on a cycle).
        const UNSET: u32 = NONE - 1;
        let mut rep = vec![UNSET; n];
        let mut path: Vec<u32> = Vec::new();
        let mut on_path = vec![false; n];
        for start in 0..n as u32 {
            let mut p = start;
            let end = loop {
                if rep[p as usize] != UNSET {
                    break rep[p as usize];
                }
                if on_path[p as usize] {
                    break NONE;
                }
                match b.src[p as usize] {
                    Src::Fwd(q) if q != NONE => {
                        on_path[p as usize] = true;
                        path.push(p);
                        p = q;
                    }
                    Src::Fwd(_) => break NONE,
                    _ => break p,
                }
            };
            if rep[start as usize] == UNSET && path.is_empty() {
                rep[start as usize] = end;
            }
            for q in path.drain(..) {
                rep[q as usize] = end;
                on_path[q as usize] = false;
            }
        }
        // The phi graph: a node per phi position and per position whose value flows into
        // one, created in position order (each phi, then its inputs), as XLA registers
        // phis while its propagation reaches them.
        let mut graph = PhiGraph::default();
        let mut node_at: Vec<u32> = vec![NONE; n];
        let mut position_of: Vec<u32> = Vec::new();
        let mut node = |graph: &mut PhiGraph, position_of: &mut Vec<u32>, p: u32| -> u32 {
            // A value not followed is a node of its own at each use: it matches nothing.
            if p == NONE || b.src[p as usize] == Src::Unknown {
                position_of.push(NONE);
                return graph.add(false);
            }
            if node_at[p as usize] == NONE {
                node_at[p as usize] = graph.add(matches!(b.src[p as usize], Src::Phi(..)));
                position_of.push(p);
            }
            node_at[p as usize]
        };
        for p in 0..n as u32 {
            if let Src::Phi(start, len) = b.src[p as usize] {
                let me = node(&mut graph, &mut position_of, p);
                let inputs = b.phi_inputs[start as usize..(start + len) as usize]
                    .iter()
                    .map(|&q| node(&mut graph, &mut position_of, rep[q as usize]))
                    .collect();
                graph.set_inputs(me, inputs);
            }
        }
        let finished = graph.optimize();
        // Number the values: defined ones in an order close to XLA's ids (computations in
        // text order, instructions in post order), then the phis that survive.
        let mut id_at: Vec<u32> = vec![NONE; n];
        for c in 0..m.computations.len() {
            if s.span[c].is_none() {
                continue;
            }
            for i in self.post_order(m, c) {
                for k in 0..self.tree(i).len() {
                    let p = self.position(i, k);
                    if b.src[p as usize] == Src::Def {
                        id_at[p as usize] = self.values.len() as u32;
                        self.values.push(Value { instruction: i, node: k, phi: false });
                    }
                }
            }
        }
        for p in 0..n as u32 {
            let g = node_at[p as usize];
            if g != NONE && graph.is_phi(g) && graph.resolved(g) == g {
                id_at[p as usize] = self.values.len() as u32;
                let i = self.position_instruction[p as usize];
                let node = p - self.base[i as usize];
                self.values.push(Value { instruction: i, node, phi: true });
            }
        }
        self.value_at = rep
            .iter()
            .map(|&r| {
                if r == NONE || r == UNSET {
                    return NONE;
                }
                match b.src[r as usize] {
                    Src::Phi(..) => {
                        let to = position_of[graph.resolved(node_at[r as usize]) as usize];
                        if to == NONE {
                            NONE
                        } else {
                            id_at[to as usize]
                        }
                    }
                    Src::Unknown => NONE,
                    _ => id_at[r as usize],
                }
            })
            .collect();
        finished
    }

    /// The instructions of computation `c` in XLA's post order: from each instruction no
    /// other uses (in text order), operands first, in operand order.
    fn post_order(&self, m: &Module<'t>, c: usize) -> Vec<u32> {
        let range = m.computations[c].instructions.clone();
        let mut used = vec![false; range.len()];
        let local = |i: u32| (i as usize).checked_sub(range.start).filter(|&k| k < range.len());
        for i in range.clone() {
            for slot in 0..m.instructions[i].operands.len() {
                if let Some(k) = self.operand(m, i as u32, slot).and_then(local) {
                    used[k] = true;
                }
            }
        }
        let mut seen = vec![false; range.len()];
        let mut order = Vec::with_capacity(range.len());
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in range.clone().filter(|&i| !used[i - range.start]) {
            stack.push((root as u32, 0));
            seen[root - range.start] = true;
            while let Some(&mut (i, ref mut slot)) = stack.last_mut() {
                if *slot < m.instructions[i as usize].operands.len() {
                    let o = self.operand(m, i, *slot);
                    *slot += 1;
                    if let Some(k) = o.and_then(local) {
                        if !seen[k] {
                            seen[k] = true;
                            stack.push(((range.start + k) as u32, 0));
                        }
                    }
                    continue;
                }
                order.push(i);
                stack.pop();
            }
        }
        // Instructions only reachable through a cycle (malformed): in text order.
        let first = range.start;
        order.extend(range.filter(|&i| !seen[i - first]).map(|i| i as u32));
        order
    }
}
