//! XLA's post orders, which fix the ids of its values (`HloDataflowAnalysis` numbers them
//! computation by computation, instruction by instruction) and the order its buffer
//! assigner takes buffers of one size in (`ComparePosition`): the instructions of a
//! computation (`HloComputation::MakeInstructionPostOrder`) and the computations of a module
//! (`HloModule::MakeComputationPostOrder`).
//!
//! XLA walks its instructions in memory, whose order the text does not keep; these walk
//! them in post order, the order a program builds them in, which is as near as the text
//! gets (a known, rare source of difference in the order of equal buffers).

use super::super::id::{CompId, IndexVec, InstrId};
use super::super::module::Module;
use super::super::opcode::Opcode;
use super::super::text::attribute::{CallAttribute, FusionKind};
use super::super::work;

/// The instructions of computation `c` in XLA's post order: from each instruction no
/// other uses (in text order), operands first, in operand order.
pub(crate) fn post_order(m: &Module<'_>, c: CompId) -> Vec<InstrId> {
    let range = m.computations[c].instructions;
    let local = |i: Option<InstrId>| i.and_then(|i| range.offset(i));
    let mut used = vec![false; range.len()];
    for i in range {
        for o in &m.instructions[i].operands {
            if let Some(k) = local(o.id) {
                used[k] = true;
            }
        }
    }
    let mut seen = vec![false; range.len()];
    let mut order = Vec::with_capacity(range.len());
    let mut stack: Vec<(InstrId, usize)> = Vec::new();
    for (k, root) in range.iter().enumerate() {
        if used[k] {
            continue;
        }
        stack.push((root, 0));
        seen[k] = true;
        while let Some(&mut (i, ref mut slot)) = stack.last_mut() {
            if *slot < m.instructions[i].operands.len() {
                let o = m.operand(i, *slot);
                *slot += 1;
                if let Some(k) = local(o) {
                    if !seen[k] {
                        seen[k] = true;
                        stack.push((range.get(k).expect("an offset in the range"), 0));
                    }
                }
                continue;
            }
            order.push(i);
            stack.pop();
        }
    }
    // Instructions only reachable through a cycle (malformed): in text order.
    order.extend(range.iter().zip(&seen).filter(|(_, &s)| !s).map(|(i, _)| i));
    order
}

/// The computations `i` calls, in XLA's order (`called_computations()`): a `while`'s body
/// before its condition, whatever order the text names them in; the others as written.
pub(crate) fn called_computations<'m>(
    m: &'m Module<'_>,
    i: InstrId,
) -> impl Iterator<Item = CompId> + 'm {
    let ins = &m.instructions[i];
    let body = ins.called_by(CallAttribute::Body).filter(|_| ins.opcode == Opcode::While);
    body.into_iter()
        .chain(ins.called.iter().filter_map(move |c| c.id).filter(move |&c| Some(c) != body))
}

/// How a computation's callees are met: in the post order of its instructions, or in the
/// reverse of it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Callees {
    /// `MakeComputationPostOrder` (the order of XLA's value ids).
    PostOrder,
    /// `CallGraph::VisitNodes`, which meets callees in the order their callers are in
    /// memory: XLA's passes build a computation's fusions consumers first, so the reverse of
    /// the post order is as near as the text gets.
    Reversed,
}

/// The computations of `m` in XLA's post order (`MakeComputationPostOrder`), and the
/// instructions of each in theirs ([`post_order`]), found on the way: each computation is
/// walked once.
pub(crate) struct PostOrders {
    /// For each computation no instruction calls (in text order), the computations it calls
    /// (deepest first, each instruction's callees in XLA's order, instructions met as
    /// [`Callees`] says), then itself. A computation is listed once, where it is first
    /// finished; one reached again while it is being walked (a cycle, which XLA rejects) is
    /// not walked again.
    pub computations: Vec<CompId>,
    /// Each computation's instructions in post order.
    pub instructions: IndexVec<CompId, Vec<InstrId>>,
}

/// [`PostOrders`] of `m`, callees met as `callees` says.
pub(crate) fn post_orders(m: &Module<'_>, callees: Callees) -> PostOrders {
    let n = m.computations.len();
    let mut called = IndexVec::<CompId, bool>::from_elem(false, n);
    for ins in &m.instructions {
        for c in ins.called.iter().filter_map(|c| c.id) {
            called[c] = true;
        }
    }
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    let mut state = IndexVec::<CompId, State>::from_elem(State::New, n);
    let mut order = Vec::with_capacity(n);
    // The computations each computation calls, in the order they are met.
    let mut instructions_of = IndexVec::<CompId, Vec<InstrId>>::from_elem(Vec::new(), n);
    let mut callees_of = |c: CompId| -> Vec<CompId> {
        let instructions = post_order(m, c);
        let calls = |i: &&InstrId| !m.instructions[**i].called.is_empty();
        let list = if callees == Callees::Reversed {
            // Custom fusions last, consumers first; the rest in post order.
            let custom = |i: &&InstrId| m.instructions[**i].fusion_kind == Some(FusionKind::Custom);
            let early = instructions.iter().filter(calls).filter(|i| !custom(i));
            let late = instructions.iter().rev().filter(calls).filter(custom);
            early.chain(late).flat_map(|&i| called_computations(m, i)).collect()
        } else {
            instructions.iter().filter(calls).flat_map(|&i| called_computations(m, i)).collect()
        };
        instructions_of[c] = instructions;
        list
    };
    // A frame: a computation, its callees and the next of them.
    let mut stack: Vec<(CompId, Vec<CompId>, usize)> = Vec::new();
    for root in m.computations.ids().filter(|&c| !called[c]) {
        state[root] = State::Open;
        stack.push((root, callees_of(root), 0));
        while let Some((c, list, next)) = stack.last_mut() {
            work::count(1);
            let Some(&t) = list.get(*next) else {
                let c = *c;
                stack.pop();
                state[c] = State::Done;
                order.push(c);
                continue;
            };
            *next += 1;
            if state[t] == State::New {
                state[t] = State::Open;
                stack.push((t, callees_of(t), 0));
            }
        }
    }
    PostOrders { computations: order, instructions: instructions_of }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computations_in_post_order_of_their_first_call() {
        // The entry calls f before g in its post order (f's result feeds g's): f's own
        // callee r comes first, then f, g, and the entry last; h is called by nothing.
        let m = Module::parse(
            "%r {\n  ROOT %x = f32[] parameter(0)\n}\n\n%g {\n  ROOT %y = f32[] parameter(0)\n}\n\n%f {\n  %p = f32[4]{0} parameter(0)\n  ROOT %z = f32[] reduce(%p, %p), to_apply=%r\n}\n\nENTRY %e {\n  %a = f32[4]{0} parameter(0)\n  %b = f32[] fusion(%a), kind=kLoop, calls=%f\n  ROOT %c = f32[] fusion(%b), kind=kLoop, calls=%g\n}\n\n%h {\n  ROOT %w = f32[] parameter(0)\n}\n",
        );
        let names: Vec<&str> = post_orders(&m, Callees::PostOrder)
            .computations
            .into_iter()
            .map(|c| m.computations[c].name)
            .collect();
        assert_eq!(names, ["r", "f", "g", "e", "h"]);
        // Each computation's instructions, found on the way, are its post order.
        let orders = post_orders(&m, Callees::Reversed);
        for c in m.computations.ids() {
            assert_eq!(orders.instructions[c], post_order(&m, c));
        }
        let e = orders.computations[3];
        let entry: Vec<&str> =
            orders.instructions[e].iter().map(|&i| m.instructions[i].name).collect();
        assert_eq!(entry, ["a", "b", "c"]);
    }
}
