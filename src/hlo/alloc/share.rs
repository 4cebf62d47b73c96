//! `HloDataflowAnalysis::CanShareOperandBufferWithUser`: whether an instruction may write
//! its result into the memory of an operand it reads, as XLA's buffer assigner
//! (`LiveRangeInterferes`) and heap simulator ask it, with XLA's element-wise rules
//! (`HloInstruction::IsElementwiseOnOperand`, `HloFusionInstruction::IsElementwiseImpl`,
//! `AreTransitiveUsesElementwiseOrTuple`). No `AliasInfo` hint: XLA:CPU gives none.

use std::collections::{HashMap, HashSet, VecDeque};

use super::super::buffer::Analysis;
use super::super::id::{CompId, InstrId};
use super::super::opcode::Opcode;
use super::super::peak::aliasing::InPlace;
use super::super::peak::dataflow::{Dataflow, FlowId};
use super::super::peak::tree::NodeId;
use super::super::text::attribute::{AliasPair, CallAttribute, FusionKind};
use super::super::work;
use super::values::{may_use, subshape, Facts};

/// `HloInstruction::IsOpElementwise`: the opcodes that compute each element of their result
/// from the same element of each operand.
const ELEMENTWISE: [&str; 57] = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atanh",
    "round-nearest-afz",
    "round-nearest-even",
    "ceil",
    "clz",
    "convert",
    "bitcast-convert",
    "copy",
    "cosine",
    "cosh",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "imag",
    "is-finite",
    "log",
    "log-plus-one",
    "not",
    "negate",
    "popcnt",
    "real",
    "reduce-precision",
    "rsqrt",
    "logistic",
    "sign",
    "sine",
    "sinh",
    "sqrt",
    "cbrt",
    "tan",
    "tanh",
    "add",
    "atan2",
    "compare",
    "complex",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "power",
    "remainder",
    "subtract",
    "and",
    "or",
    "xor",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "stochastic-convert",
    "select",
    "clamp",
];

/// XLA's buffer-sharing rules over one module, with what they work out per fused
/// computation kept.
pub(crate) struct Sharing<'a, 'm, 't> {
    a: &'a Analysis<'m, 't>,
    d: &'a Dataflow,
    facts: &'a Facts,
    in_place: InPlace<'a, 'm, 't>,
    /// Per (fused computation, parameter): the fusion is element-wise on that operand.
    elementwise_on: HashMap<(CompId, u64), bool>,
    /// Per fused computation: every instruction in it is element-wise.
    elementwise: HashMap<CompId, bool>,
    /// Per (fused computation, parameter): `AreTransitiveUsesElementwiseOrTuple`.
    transitive: HashMap<(CompId, u64), bool>,
}

impl<'a, 'm, 't> Sharing<'a, 'm, 't> {
    pub fn new(a: &'a Analysis<'m, 't>, d: &'a Dataflow, facts: &'a Facts) -> Self {
        Sharing {
            a,
            d,
            facts,
            in_place: InPlace::new(a),
            elementwise_on: HashMap::new(),
            elementwise: HashMap::new(),
            transitive: HashMap::new(),
        }
    }

    /// `CanShareOperandBufferWithUser(operand, operand_index, user, user_index)`: whether
    /// the value of `user` at `user_node` may take the memory of the value of `operand` (an
    /// operand of `user`) at `operand_node`.
    pub fn can_share(
        &mut self,
        operand: InstrId,
        operand_node: NodeId,
        user: InstrId,
        user_node: NodeId,
    ) -> bool {
        let (a, d) = (self.a, self.d);
        let m = a.module;
        let o = &m.instructions[operand];
        let u = &m.instructions[user];
        if o.opcode == Opcode::Constant {
            return false;
        }
        let (Some(os), Some(us)) =
            (subshape(a, d, operand, operand_node), subshape(a, d, user, user_node))
        else {
            return false;
        };
        let equal = os == us;
        let value = d.value(operand, operand_node);
        if equal && value.is_some_and(|v| self.must_alias(v, user, user_node)) {
            return true;
        }
        if !equal {
            return false;
        }
        let slots: Vec<usize> = u
            .operands
            .iter()
            .enumerate()
            .filter(|(_, x)| x.id == Some(operand))
            .map(|(k, _)| k)
            .collect();
        let Some(&first) = slots.first() else { return false };
        match u.opcode {
            Opcode::Fusion
                if matches!(u.fusion_kind, Some(FusionKind::Loop | FusionKind::Input)) =>
            {
                let Some((c, _)) = self.fused_parameter(user, first) else { return false };
                return self.transitive_uses_elementwise(c, first as u64);
            }
            Opcode::Fusion if u.fusion_kind == Some(FusionKind::Output) => {
                if let Some(r) = self.output_fusion_add(user, first) {
                    return r;
                }
            }
            Opcode::While | Opcode::Conditional => return true,
            Opcode::DynamicUpdateSlice | Opcode::Scatter | Opcode::SetDimensionSize => {
                return slots == [0];
            }
            Opcode::Other("triangular-solve") => return slots == [1],
            Opcode::Other("sort") => {
                if self.facts.users(operand).len() != 1 {
                    return false;
                }
                if u.operands.len() == 1 {
                    return true;
                }
                let index = d.tree(user).index(user_node);
                return slots.len() == 1 && index.first().map(|&k| k as usize) == Some(first);
            }
            Opcode::Call => return self.call_shares(operand, operand_node, user),
            _ => {}
        }
        self.elementwise_on_operand(user, first)
    }

    /// Rule 2: value `v` (the operand's) is read by `user` at an operand slot whose
    /// in-place output is `user_node`.
    fn must_alias(&mut self, v: FlowId, user: InstrId, user_node: NodeId) -> bool {
        let (a, d) = (self.a, self.d);
        let m = a.module;
        let index: Vec<u64> = d.tree(user).index(user_node).into_iter().map(u64::from).collect();
        let pairs: Vec<AliasPair> = self.in_place.at(user, &index);
        let u = &m.instructions[user];
        let is_root = u.computation.and_then(|c| m.computations[c].root) == Some(user);
        let at_user = || self.facts.positions(v).iter().any(|&p| d.position_instruction[p] == user);
        pairs.iter().any(|p| {
            let Some(o) = usize::try_from(p.operand).ok().and_then(|k| u.operand(k)) else {
                return false;
            };
            let Some(node) = d.tree(o).at(&p.operand_index) else { return false };
            d.value(o, node) == Some(v) && (may_use(u.opcode, node) || (is_root && at_user()))
        })
    }

    /// The fused computation of fusion `user` and its parameter `slot`.
    fn fused_parameter(&self, user: InstrId, slot: usize) -> Option<(CompId, InstrId)> {
        let c = self.a.module.instructions[user].called_by(CallAttribute::Calls)?;
        Some((c, self.d.parameter(c, slot as u64)?))
    }

    /// A `kOutput` fusion whose root is `add(dot or convolution, X)` shares the operand
    /// read only as `X`; `None` for another root.
    fn output_fusion_add(&self, user: InstrId, slot: usize) -> Option<bool> {
        let m = self.a.module;
        let c = m.instructions[user].called_by(CallAttribute::Calls)?;
        let root = m.computations[c].root?;
        let add = &m.instructions[root];
        if add.opcode.as_str() != "add" {
            return None;
        }
        let matched = add.operands.iter().position(|o| {
            o.id.is_some_and(|i| matches!(m.instructions[i].opcode.as_str(), "dot" | "convolution"))
        });
        let Some(matched) = matched else { return Some(false) };
        let other = if matched == 0 { 1 } else { 0 };
        let Some(param) = self.d.parameter(c, slot as u64) else { return Some(false) };
        let uses: Vec<(InstrId, usize)> = self
            .facts
            .users(param)
            .iter()
            .flat_map(|&u| {
                let ops = &m.instructions[u].operands;
                (0..ops.len()).filter(move |&k| ops[k].id == Some(param)).map(move |k| (u, k))
            })
            .collect();
        Some(uses == [(root, other)])
    }

    /// Rule 9: a `call` shares its operand's value when that value has exactly two uses,
    /// the call and its computation's root, which is element-wise on it.
    fn call_shares(&mut self, operand: InstrId, operand_node: NodeId, user: InstrId) -> bool {
        let (a, d) = (self.a, self.d);
        let Some(v) = d.value(operand, operand_node) else { return false };
        let defined = d.values[v];
        if defined.instruction != operand || defined.node != operand_node {
            return false;
        }
        let uses = self.facts.uses(a, d, v);
        let callee = a.module.instructions[user].sequential_callees().next().map(|(_, c)| c);
        let Some(root) = callee.and_then(|c| a.module.computations[c].root) else {
            return false;
        };
        let by_caller = uses.iter().any(|u| u.user == user);
        let by_root = uses
            .iter()
            .filter(|u| u.user == root)
            .map(|u| u.slot)
            .collect::<Vec<_>>()
            .into_iter()
            .any(|slot| self.elementwise_on_operand(root, slot));
        uses.len() == 2 && by_caller && by_root
    }

    /// `IsElementwiseOnOperand(slot)`.
    pub fn elementwise_on_operand(&mut self, i: InstrId, slot: usize) -> bool {
        let m = self.a.module;
        let ins = &m.instructions[i];
        match ins.opcode {
            Opcode::Fusion => match ins.called_by(CallAttribute::Calls) {
                Some(c) => self.fusion_elementwise_on(c, slot as u64),
                None => false,
            },
            Opcode::DynamicUpdateSlice => slot == 0,
            _ => self.elementwise_opcode(i),
        }
    }

    /// `IsElementwise()`: element-wise on every operand.
    fn elementwise(&mut self, i: InstrId) -> bool {
        let m = self.a.module;
        let ins = &m.instructions[i];
        match ins.opcode {
            Opcode::Fusion => match ins.called_by(CallAttribute::Calls) {
                Some(c) => self.fusion_elementwise(c),
                None => false,
            },
            Opcode::DynamicUpdateSlice => false,
            _ => self.elementwise_opcode(i),
        }
    }

    /// The opcode's rule (`bitcast-convert` only between types of one width).
    fn elementwise_opcode(&self, i: InstrId) -> bool {
        let m = self.a.module;
        let ins = &m.instructions[i];
        let name = ins.opcode.as_str();
        if name == "bitcast-convert" {
            let width = |j: Option<InstrId>| {
                j.and_then(|j| m.shape(j))
                    .and_then(|s| s.as_array())
                    .map(|s| s.element_type.bit_width())
            };
            return width(Some(i)).is_some() && width(Some(i)) == width(ins.operand(0));
        }
        ELEMENTWISE.contains(&name)
    }

    /// A fusion is element-wise when every fused instruction but its parameters is.
    fn fusion_elementwise(&mut self, c: CompId) -> bool {
        if let Some(&known) = self.elementwise.get(&c) {
            return known;
        }
        // Assumed not while it is worked out: a fusion calling itself (malformed) ends.
        self.elementwise.insert(c, false);
        let m = self.a.module;
        let mut all = true;
        for j in m.computations[c].instructions {
            work::count(1);
            if m.instructions[j].opcode != Opcode::Parameter && !self.elementwise(j) {
                all = false;
                break;
            }
        }
        self.elementwise.insert(c, all);
        all
    }

    /// `HloFusionInstruction::IsElementwiseImpl(parameter)`: a breadth-first walk from
    /// the fused parameter meets only users element-wise on what they read.
    fn fusion_elementwise_on(&mut self, c: CompId, parameter: u64) -> bool {
        if let Some(&known) = self.elementwise_on.get(&(c, parameter)) {
            return known;
        }
        self.elementwise_on.insert((c, parameter), false);
        let Some(p) = self.d.parameter(c, parameter) else { return false };
        let m = self.a.module;
        let mut visited = HashSet::from([p]);
        let mut queue = VecDeque::from([p]);
        let mut result = true;
        'walk: while let Some(x) = queue.pop_front() {
            for &u in self.facts.users(x) {
                work::count(1);
                if visited.contains(&u) {
                    continue;
                }
                let slots: Vec<usize> = m.instructions[u]
                    .operands
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.id == Some(x))
                    .map(|(k, _)| k)
                    .collect();
                let on_operand = slots.iter().all(|&k| self.elementwise_on_operand(u, k));
                if self.elementwise(u) || on_operand {
                    visited.insert(u);
                    queue.push_back(u);
                    continue;
                }
                result = false;
                break 'walk;
            }
        }
        self.elementwise_on.insert((c, parameter), result);
        result
    }

    /// `AreTransitiveUsesElementwiseOrTuple` from fused parameter `parameter` of `c`.
    fn transitive_uses_elementwise(&mut self, c: CompId, parameter: u64) -> bool {
        if let Some(&known) = self.transitive.get(&(c, parameter)) {
            return known;
        }
        let Some(p) = self.d.parameter(c, parameter) else { return false };
        let m = self.a.module;
        let mut visited = HashSet::new();
        let mut stack = vec![p];
        let mut result = true;
        'walk: while let Some(x) = stack.pop() {
            visited.insert(x);
            for &u in self.facts.users(x) {
                let ins = &m.instructions[u];
                work::count(1 + ins.operands.len());
                for k in 0..ins.operands.len() {
                    if ins.operands[k].id == Some(x)
                        && ins.opcode != Opcode::Tuple
                        && !self.elementwise_on_operand(u, k)
                    {
                        result = false;
                        break 'walk;
                    }
                }
                if !visited.contains(&u) {
                    stack.push(u);
                }
            }
        }
        self.transitive.insert((c, parameter), result);
        result
    }
}
