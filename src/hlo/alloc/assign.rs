//! `BufferAssigner::AssignBuffersForComputations`: the buffers of the global computations,
//! largest first, each given an allocation of its own (a constant, an entry parameter, a
//! tuple's index table, a live-out buffer), placed in an allocation it may share
//! (`MaybeAssignBuffer`: an operand's, or a donated parameter's or an output's), or left to
//! the heap (a temporary); then the buffers of the thread-local computations, one
//! allocation each. Every step as `AssignSingleHloBuffer` takes it.

use std::collections::{BTreeSet, HashSet};

use super::super::buffer::Analysis;
use super::super::id::{CompId, IndexVec, InstrId};
use super::super::opcode::Opcode;
use super::super::peak::dataflow::{Dataflow, FlowId};
use super::super::peak::liveness::{LiveRange, Liveness};
use super::super::peak::order::{post_orders, Callees};
use super::super::peak::schedule::Schedule;
use super::super::peak::tree::Tree;
use super::super::text::attribute::donated;
use super::share::Sharing;
use super::values::{subshape, Budget, BufId, Ctx, Facts};
use crate::Shape;

/// An allocation as the assigner builds it (XLA's `BufferAllocation`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Slot {
    pub size: u64,
    /// An entry parameter's number and shape index.
    pub parameter: Option<(u64, Vec<u64>)>,
    /// In `input_output_alias`: an output may be written over it.
    pub aliased: bool,
    pub constant: bool,
    pub thread_local: bool,
    pub tuple: bool,
    pub maybe_live_out: bool,
    /// The heap simulator's allocation of the temporaries.
    pub heap: bool,
    /// Its values: (value, offset, size).
    pub values: Vec<(FlowId, u64, u64)>,
}

impl Slot {
    /// `IsPreallocatedTempBuffer`.
    pub fn is_temp(&self) -> bool {
        self.parameter.is_none() && !self.maybe_live_out && !self.thread_local && !self.constant
    }
}

/// What the assigner found: the allocations in the order it made them (the heap's is
/// added after them, the thread-local ones after that), and the values left to the heap.
pub(crate) struct Assigned {
    pub slots: Vec<Slot>,
    pub deferred: Vec<FlowId>,
}

/// The assigner's state.
struct Assigner<'x, 'a, 'm, 't> {
    a: &'a Analysis<'m, 't>,
    d: &'a Dataflow,
    facts: &'a Facts,
    live: &'a Liveness,
    share: &'x mut Sharing<'a, 'm, 't>,
    budget: &'x mut Budget,
    /// The entry parameters' places an output is written over (`input_output_alias`).
    donated: HashSet<(u64, &'a [u64])>,
    slots: Vec<Slot>,
    /// Per allocation: its values with live ranges, by (start, end).
    index: Vec<BTreeSet<(u32, u32, FlowId)>>,
    slot_of: IndexVec<FlowId, Option<usize>>,
    /// `allocation_indices`: allocations later buffers may reuse, oldest first.
    reuse: Vec<usize>,
    /// Those of them that held no live-out value when they were made.
    quiet_reuse: Vec<usize>,
    deferred: Vec<FlowId>,
}

/// Assigns the buffers of the global computations (`global`: flattened) then those of the
/// thread-local ones `s.embedded`; `None` when the budget ran out.
pub(crate) fn assign<'a, 'm, 't>(
    x: Ctx<'a, 'm, 't>,
    s: &Schedule,
    share: &mut Sharing<'a, 'm, 't>,
    budget: &mut Budget,
) -> Option<Assigned> {
    let Ctx { a, d, facts, live } = x;
    let m = a.module;
    let n = m.computations.len();
    let mut global = IndexVec::<CompId, bool>::from_elem(false, n);
    s.flattened.iter().for_each(|&c| global[c] = true);
    let mut local = IndexVec::<CompId, bool>::from_elem(false, n);
    s.embedded.iter().for_each(|&c| local[c] = true);
    let mut x = Assigner {
        a,
        d,
        facts,
        live,
        share,
        budget,
        donated: donated(&m.input_output_alias),
        slots: Vec::new(),
        index: Vec::new(),
        slot_of: IndexVec::from_elem(None, d.values.len()),
        reuse: Vec::new(),
        quiet_reuse: Vec::new(),
        deferred: Vec::new(),
    };
    // Each instruction's place in the post order of the computations, callers first: the
    // order of a class's buffers is the order of their places.
    let orders = post_orders(m, Callees::Reversed);
    let mut position = IndexVec::<InstrId, u32>::from_elem(u32::MAX, m.instructions.len());
    let mut k = 0u32;
    for &c in orders.computations.iter().rev() {
        for &i in &orders.instructions[c] {
            position[i] = k;
            k += 1;
        }
    }
    drop(orders);
    for b in x.sorted(&global, &position) {
        x.one(b, false)?;
    }
    let locals = x.sorted(&local, &position);
    // The thread-local pass runs after the heap simulation: its allocations follow the
    // heap's, which the caller inserts at `heap_at`.
    let heap_at = x.slots.len();
    for b in locals {
        x.one(b, true)?;
    }
    let mut slots = x.slots;
    // A place for the heap's allocation, filled in by the caller when there is a heap.
    slots.insert(heap_at, Slot { heap: true, ..Slot::default() });
    Some(Assigned { slots, deferred: x.deferred })
}

impl Assigner<'_, '_, '_, '_> {
    /// The buffers whose first value is in a computation `class` marks, in the order
    /// XLA assigns them: size descending, live-out first, the earliest instruction (its
    /// `position` in the post order of the computations, callers first), buffer id.
    fn sorted(
        &self,
        class: &IndexVec<CompId, bool>,
        position: &IndexVec<InstrId, u32>,
    ) -> Vec<BufId> {
        let (m, d, facts) = (self.a.module, self.d, self.facts);
        let mut buffers: Vec<(std::cmp::Reverse<u64>, bool, u32, BufId)> = (0..facts.buffers())
            .map(BufId::new)
            .filter(|&b| {
                let first = facts.members(b)[0];
                m.instructions[d.values[first].instruction].computation.is_some_and(|c| class[c])
            })
            .map(|b| {
                let first = facts.members(b).iter().map(|&v| position[d.values[v].instruction]);
                let pos = first.min().unwrap_or(u32::MAX);
                (std::cmp::Reverse(facts.buffer_size[b]), !facts.live_out[b], pos, b)
            })
            .collect();
        buffers.sort_unstable();
        buffers.into_iter().map(|(.., b)| b).collect()
    }

    /// A new allocation holding buffer `b` at offset 0.
    fn new_slot(&mut self, b: BufId, mut slot: Slot) -> usize {
        let size = self.facts.buffer_size[b];
        slot.size = size;
        slot.maybe_live_out |= self.facts.live_out[b];
        // Room for its members and no more: most buffers are one value, and a list grown by
        // pushing keeps room for four (72 bytes more a slot; a tuple of a million leaves has
        // a million slots).
        slot.values.reserve_exact(self.facts.members(b).len());
        let k = self.slots.len();
        self.slots.push(slot);
        self.index.push(BTreeSet::new());
        for &v in self.facts.members(b) {
            self.place(k, v, size);
        }
        k
    }

    /// `AssignSingleHloBuffer` for buffer `b`; `None` when the budget ran out.
    fn one(&mut self, b: BufId, thread_local: bool) -> Option<()> {
        let (a, d, facts) = (self.a, self.d, self.facts);
        let m = a.module;
        let members = facts.members(b);
        for &v in members {
            let ins = &m.instructions[d.values[v].instruction];
            if ins.opcode == Opcode::Constant {
                self.new_slot(b, Slot { constant: true, ..Slot::default() });
                return Some(());
            }
            let entry = ins.computation.is_some() && ins.computation == m.entry;
            if let (Opcode::Parameter, true, Some(number)) =
                (ins.opcode, entry, ins.parameter_number)
            {
                let index: Vec<u64> = d
                    .tree(d.values[v].instruction)
                    .index(d.values[v].node)
                    .into_iter()
                    .map(u64::from)
                    .collect();
                let aliased = self.donated.contains(&(number, index.as_slice()));
                let k = self.new_slot(
                    b,
                    Slot { parameter: Some((number, index)), aliased, ..Slot::default() },
                );
                if aliased {
                    self.reusable(k);
                }
                return Some(());
            }
        }
        if thread_local {
            self.new_slot(b, Slot { thread_local: true, ..Slot::default() });
            return Some(());
        }
        for &v in members {
            let f = d.values[v];
            if matches!(subshape(a, d, f.instruction, f.node), Some(Shape::Tuple(_))) {
                self.new_slot(b, Slot { tuple: true, ..Slot::default() });
                return Some(());
            }
            if f.node == Tree::root() {
                let ins = &m.instructions[f.instruction];
                for o in ins.operands.iter().filter_map(|o| o.id) {
                    let k = d.value(o, Tree::root()).and_then(|u| self.slot_of[u]);
                    if let Some(k) = k {
                        if self.maybe_assign(k, b)? {
                            return Some(());
                        }
                    }
                }
            }
        }
        // Newest first. A live-out buffer never fits in an allocation that holds a live-out
        // value already (see `maybe_assign`): it tries only the others. Buffers come largest
        // first, so the list's sizes only fall: a live-out buffer, which needs an allocation
        // of exactly its size, stops at the first larger one.
        let list = if facts.live_out[b] { &self.quiet_reuse } else { &self.reuse };
        for r in (0..list.len()).rev() {
            if !self.budget.spend(1) {
                return None;
            }
            let k = if facts.live_out[b] { self.quiet_reuse[r] } else { self.reuse[r] };
            if facts.live_out[b] && self.slots[k].size > facts.buffer_size[b] {
                break;
            }
            if self.maybe_assign(k, b)? {
                return Some(());
            }
        }
        if !facts.live_out[b] {
            self.deferred.extend_from_slice(members);
            return Some(());
        }
        let k = self.new_slot(b, Slot::default());
        self.reusable(k);
        Some(())
    }

    /// `MaybeAssignBuffer`: puts buffer `b` at offset 0 of allocation `k` if it fits and no
    /// value of it is live with one already there; `None` when the budget ran out.
    ///
    /// XLA tries every pair of values; here each of `b`'s values is tried against those of
    /// the allocation whose live ranges reach its own. The values of an allocation overlap
    /// each other at one step at most (that is what placing them there required), so by
    /// start their ends rise too, and the walk back from the last one starting before a
    /// value ends stops at the first one ending before it starts: what it skips could not
    /// interfere.
    fn maybe_assign(&mut self, k: usize, b: BufId) -> Option<bool> {
        let (a, d, facts) = (self.a, self.d, self.facts);
        let size = facts.buffer_size[b];
        let slot = &self.slots[k];
        let readonly = (slot.parameter.is_some() && !slot.aliased) || slot.constant;
        let reusable = !slot.tuple && !slot.thread_local;
        if size > slot.size || readonly || !reusable {
            return Some(false);
        }
        if facts.live_out[b] && slot.size != size {
            return Some(false);
        }
        // Two live-out buffers never share: each has a value live at the program's last
        // step (its root's, chained to the end) that starts before it, so they overlap there
        // and neither starts where the other ends. Said at once, not found pair by pair.
        if facts.live_out[b] && slot.maybe_live_out {
            return Some(false);
        }
        for &new in facts.members(b) {
            if !self.budget.spend(1) {
                return None;
            }
            let Some(r) = self.live.ranges[new] else { return Some(false) };
            let reaching: Vec<FlowId> = self.index[k]
                .range(..=(r.end, u32::MAX, FlowId::new(u32::MAX as usize - 1)))
                .rev()
                .take_while(|&&(_, end, _)| end >= r.start)
                .map(|&(.., v)| v)
                .collect();
            if !self.budget.spend(reaching.len()) {
                return None;
            }
            for old in reaching {
                if self.interferes(new, old) {
                    return Some(false);
                }
            }
            // A copy never writes over its own operand.
            let ins = &a.module.instructions[d.values[new].instruction];
            if ins.opcode == Opcode::Copy {
                for o in ins.operands.iter().filter_map(|o| o.id) {
                    let n = d.tree(o).len();
                    if !self.budget.spend(n) {
                        return None;
                    }
                    let read = (0..n).any(|node| {
                        let v = d.value(o, super::super::peak::tree::NodeId::new(node));
                        v.and_then(|v| self.slot_of[v]) == Some(k)
                    });
                    if read {
                        return Some(false);
                    }
                }
            }
        }
        let live_out = facts.live_out[b];
        self.slots[k].maybe_live_out |= live_out;
        for &v in facts.members(b) {
            self.place(k, v, size);
        }
        Some(true)
    }

    /// Adds allocation `k` to the list later buffers may reuse.
    fn reusable(&mut self, k: usize) {
        self.reuse.push(k);
        if !self.slots[k].maybe_live_out {
            self.quiet_reuse.push(k);
        }
    }

    /// Puts value `v` at offset 0 of allocation `k`.
    fn place(&mut self, k: usize, v: FlowId, size: u64) {
        self.slots[k].values.push((v, 0, size));
        self.slot_of[v] = Some(k);
        if let Some(r) = self.live.ranges[v] {
            self.index[k].insert((r.start, r.end, v));
        }
    }

    /// `LiveRangeInterferes(x, y)`: the live ranges overlap, unless one ends where the
    /// other starts and the later one may write over the earlier (`can_share_as_operand`).
    fn interferes(&mut self, x: FlowId, y: FlowId) -> bool {
        let range = |v: FlowId| self.live.ranges[v];
        let (Some(r1), Some(r2)) = (range(x), range(y)) else { return true };
        if r1.start > r2.end || r2.start > r1.end {
            return false;
        }
        if r1.end == r2.start {
            !self.shares_as_operand(y, x, r1)
        } else if r2.end == r1.start {
            !self.shares_as_operand(x, y, r2)
        } else {
            true
        }
    }

    /// Whether `user` may take the memory of `operand` (whose range is `_range`) at the
    /// step one ends and the other starts: XLA asks about `operand`'s last position.
    fn shares_as_operand(&mut self, user: FlowId, operand: FlowId, _range: LiveRange) -> bool {
        let d = self.d;
        let Some(end) = self.live.end_position[operand] else { return false };
        let p = d.position_instruction[end];
        let u = d.values[user];
        let ins = &self.a.module.instructions[u.instruction];
        ins.opcode != Opcode::Copy
            && ins.operands.iter().any(|o| o.id == Some(p))
            && self.share.can_share(p, d.node(p, end), u.instruction, u.node)
    }
}
