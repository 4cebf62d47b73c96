//! What XLA's buffer assigner reads of the dataflow: each value's size (XLA:CPU's
//! `CpuExecutable::ShapeSizeBytes`), position list and uses, each `HloBuffer`'s values
//! (`HloAliasAnalysis`: the sets [`aliasing`](super::super::peak) found, in the order of their
//! first value's id), its size (`BufferAssignment::HloBufferSize`: its largest value) and
//! whether it lives out of the module, and who uses each instruction.

use crate::Shape;

use super::super::buffer::Analysis;
use super::super::id::{id, IndexVec, InstrId};
use super::super::opcode::Opcode;
use super::super::peak::dataflow::{Dataflow, FlowId, PosId};
use super::super::peak::liveness::Liveness;
use super::super::peak::tree::{NodeId, Tree};
use super::super::work;

id! {
    /// An `HloBuffer`: values that XLA puts at one address.
    pub(crate) BufId
}

/// Lists per id, stored end to end (compressed rows): `rows[k]` is `items[start[k]..start[k + 1]]`.
pub(crate) struct Rows<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Rows<T> {
    /// The rows of `pairs` (row, item), `n` rows, each row's items in the order given.
    /// Linear: a counting sort.
    pub fn new(n: usize, pairs: &[(usize, T)]) -> Rows<T> {
        let mut start = vec![0u32; n + 1];
        for &(r, _) in pairs {
            start[r + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut items: Vec<Option<T>> = vec![None; pairs.len()];
        for &(r, item) in pairs {
            items[next[r] as usize] = Some(item);
            next[r] += 1;
        }
        Rows { start, items: items.into_iter().flatten().collect() }
    }

    /// Row `k`.
    pub fn row(&self, k: usize) -> &[T] {
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// What every step of the prediction reads: the module analysed, its dataflow, the facts
/// of its values and buffers, their live ranges.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a, 'm, 't> {
    pub a: &'a Analysis<'m, 't>,
    pub d: &'a Dataflow,
    pub facts: &'a Facts,
    pub live: &'a Liveness,
}

/// One use of a value (`HloUse`): operand `slot` of `user` reads it at node `index` of
/// that operand's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Use {
    pub user: InstrId,
    pub slot: usize,
    pub node: NodeId,
}

/// The values, buffers and users XLA's buffer assigner works with.
pub(crate) struct Facts {
    /// Per value: its size in bytes; `None` where XLA gives none (an unread shape, an
    /// unbounded dimension).
    pub size: IndexVec<FlowId, Option<u64>>,
    /// Per value: its buffer.
    pub buffer: IndexVec<FlowId, BufId>,
    /// Per buffer: its values, by id.
    members: Rows<FlowId>,
    /// Per buffer: its size (its largest value; 0 for values without a size).
    pub buffer_size: IndexVec<BufId, u64>,
    /// Per buffer: whether a value of it is at the entry's root (`BufferLivesOut`).
    pub live_out: IndexVec<BufId, bool>,
    /// Per value: its positions, the defining one first.
    positions: Rows<PosId>,
    /// Per instruction: the instructions that use it, each once, in text order.
    users: Rows<InstrId>,
}

impl Facts {
    /// The facts of the values `d` found, `sets` mapping each value to the representative
    /// of its buffer (the smallest value in it). Linear in values, positions and operands.
    pub fn new(a: &Analysis<'_, '_>, d: &Dataflow, sets: &IndexVec<FlowId, FlowId>) -> Facts {
        let m = a.module;
        let n = d.values.len();
        // Buffers numbered in the order of their first value, as `CreateBuffers` numbers them.
        let mut number = IndexVec::<FlowId, Option<BufId>>::from_elem(None, n);
        let mut count = 0usize;
        let buffer: IndexVec<FlowId, BufId> = d
            .values
            .ids()
            .map(|v| {
                *number[sets[v]].get_or_insert_with(|| {
                    count += 1;
                    BufId::new(count - 1)
                })
            })
            .collect();
        let pairs: Vec<(usize, FlowId)> = d.values.ids().map(|v| (buffer[v].index(), v)).collect();
        let members = Rows::new(count, &pairs);
        let size: IndexVec<FlowId, Option<u64>> =
            d.values.iter().map(|f| value_size(a, d, f.instruction, f.node)).collect();
        let mut buffer_size = IndexVec::<BufId, u64>::from_elem(0, count);
        for (v, &b) in buffer.iter_enumerated() {
            buffer_size[b] = buffer_size[b].max(size[v].unwrap_or(0));
        }
        let mut live_out = IndexVec::<BufId, bool>::from_elem(false, count);
        if let Some(root) = m.entry.and_then(|e| m.computations[e].root) {
            for k in 0..d.tree(root).len() {
                if let Some(v) = d.value(root, NodeId::new(k)) {
                    live_out[buffer[v]] = true;
                }
            }
        }
        // Positions: the defining one first, then the others in text order (XLA gathers them
        // computation by computation, instruction by instruction, index by index).
        let mut at: Vec<(InstrId, PosId, FlowId)> = d
            .value_at
            .iter_enumerated()
            .filter_map(|(p, v)| Some((d.position_instruction[p], p, (*v)?)))
            .collect();
        at.sort_unstable_by_key(|&(i, p, _)| (i, p));
        work::count(at.len());
        let defining = |v: FlowId| {
            let f = d.values[v];
            d.base(f.instruction).map(|b| b.plus(f.node.index()))
        };
        let mut pairs: Vec<(usize, PosId)> =
            d.values.ids().filter_map(|v| Some((v.index(), defining(v)?))).collect();
        pairs.extend(
            at.iter().filter(|&&(_, p, v)| Some(p) != defining(v)).map(|&(_, p, v)| (v.index(), p)),
        );
        let positions = Rows::new(n, &pairs);
        let mut pairs: Vec<(usize, InstrId)> = Vec::new();
        let mut operands: Vec<InstrId> = Vec::new();
        for (u, ins) in m.instructions.iter_enumerated() {
            work::count(ins.operands.len());
            operands.clear();
            operands.extend(ins.operands.iter().filter_map(|o| o.id));
            operands.sort_unstable();
            operands.dedup();
            pairs.extend(operands.iter().map(|o| (o.index(), u)));
        }
        let users = Rows::new(m.instructions.len(), &pairs);
        Facts { size, buffer, members, buffer_size, live_out, positions, users }
    }

    /// The number of buffers.
    pub fn buffers(&self) -> usize {
        self.buffer_size.len()
    }

    /// The values of buffer `b`, by id.
    pub fn members(&self, b: BufId) -> &[FlowId] {
        self.members.row(b.index())
    }

    /// The positions of value `v`, the defining one first.
    pub fn positions(&self, v: FlowId) -> &[PosId] {
        self.positions.row(v.index())
    }

    /// The instructions that use `i`, each once.
    pub fn users(&self, i: InstrId) -> &[InstrId] {
        self.users.row(i.index())
    }

    /// `HloValue::GetUses`: for each position of `v` and each user of its instruction,
    /// every operand slot that reads the position, unless the user only passes it on (a
    /// `tuple`, or a `get-tuple-element` or `copy` of an element) and is not a root `v` is
    /// at.
    pub fn uses(&self, a: &Analysis<'_, '_>, d: &Dataflow, v: FlowId) -> Vec<Use> {
        let m = a.module;
        let positions = self.positions(v);
        let is_root = |i: InstrId| {
            m.instructions[i].computation.and_then(|c| m.computations[c].root) == Some(i)
        };
        let roots: Vec<InstrId> =
            positions.iter().map(|&p| d.position_instruction[p]).filter(|&i| is_root(i)).collect();
        let mut uses = Vec::new();
        for &p in positions {
            let i = d.position_instruction[p];
            let node = d.node(i, p);
            for &u in self.users(i) {
                let user = &m.instructions[u];
                work::count(user.operands.len());
                for (slot, o) in user.operands.iter().enumerate() {
                    if o.id == Some(i) && (may_use(user.opcode, node) || roots.contains(&u)) {
                        uses.push(Use { user: u, slot, node });
                    }
                }
            }
        }
        uses
    }
}

/// `MayUseOperandValue`: a `get-tuple-element` or `copy` reads only the top-level value of
/// its operand, a `tuple` or `domain` none; everything else reads what it is given.
pub(crate) fn may_use(user: Opcode<'_>, node: NodeId) -> bool {
    match user {
        Opcode::GetTupleElement | Opcode::Copy => node == Tree::root(),
        Opcode::Tuple | Opcode::Domain => false,
        _ => true,
    }
}

/// The subshape at `node` of instruction `i`'s result.
pub(crate) fn subshape<'m>(
    a: &'m Analysis<'_, '_>,
    d: &Dataflow,
    i: InstrId,
    node: NodeId,
) -> Option<&'m Shape> {
    let shape = a.module.shape(i)?;
    d.tree(i).index(node).iter().try_fold(shape, |s, &k| match s {
        Shape::Tuple(e) => e.get(k as usize),
        _ => None,
    })
}

/// `CpuExecutable::ShapeSizeBytes` of the value at `node` of `i`: `ByteSizeOf` with 8-byte
/// pointers (a tuple's index table, an opaque handle), plus 4 bytes per dimension of a
/// dynamic array for its sizes.
fn value_size(a: &Analysis<'_, '_>, d: &Dataflow, i: InstrId, node: NodeId) -> Option<u64> {
    let bytes = d.tree(i).nodes.get(node)?.sizes?.bytes;
    match subshape(a, d, i, node) {
        Some(Shape::Array(s)) if s.dims.iter().any(|dim| dim.is_dynamic()) => {
            bytes.checked_add(4 * s.dims.len() as u64)
        }
        _ => Some(bytes),
    }
}

/// Steps the buffer assigner and the heap simulator may take: XLA's own searches are
/// quadratic at worst (every buffer tried against every allocation, every chunk against
/// every other live at once), which a real module never nears and a hostile one can. Past
/// the budget the prediction stops and says so.
pub(crate) struct Budget(u64);

/// Steps per value, position and instruction of the module, beyond a fixed floor.
const BUDGET_PER_ELEMENT: u64 = 256;

impl Budget {
    /// The budget of a module with `elements` values, positions and instructions.
    pub fn new(elements: usize) -> Budget {
        let budget = BUDGET_PER_ELEMENT.saturating_mul(elements as u64).saturating_add(1 << 24);
        #[cfg(test)]
        let budget = TEST_BUDGET.with(|b| b.get()).unwrap_or(budget);
        Budget(budget)
    }

    /// Takes `steps`; `false` once the budget is spent.
    pub fn spend(&mut self, steps: usize) -> bool {
        work::count(steps);
        self.0 = self.0.saturating_sub(steps as u64);
        self.0 > 0
    }
}

#[cfg(test)]
thread_local! {
    /// A budget that replaces the real one on this thread: a test makes a real module's
    /// prediction stop, to see what is said then.
    pub(crate) static TEST_BUDGET: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}
