//! Live ranges, as `HloLiveRange::CalculateBufferStartEndMap` and
//! `NormalizeAliasedBuffers` compute them: the second step chains the values of each
//! buffer `aliasing.rs` finds. Each value's `end_position` too, which XLA's buffer assigner
//! reads (`LiveRangeInterferes`).

use super::super::buffer::Analysis;
use super::super::id::{IndexVec, InstrId};
use super::super::opcode::Opcode;
use super::super::text::attribute::CallAttribute;
use super::dataflow::{Dataflow, FlowId, PosId};
use super::schedule::Schedule;

/// A value's first and last step, both included.
///
/// ```
/// use xlayout::hlo::{Analysis, LiveRange, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let peak = Peak::new(&Analysis::new(&m));
/// // The entry parameter lives to the end (step 2 = the number of steps).
/// assert_eq!(peak.values.raw()[0].range, LiveRange { start: 0, end: 2 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LiveRange {
    /// The step it is defined at (a parameter: its computation's first step).
    pub start: u32,
    /// The last step it is live at.
    pub end: u32,
}

/// What `HloLiveRange` finds of each value defined at a step (`None` for the others).
pub(crate) struct Liveness {
    /// Its live range, after `NormalizeAliasedBuffers`.
    pub ranges: IndexVec<FlowId, Option<LiveRange>>,
    /// Its `end_position`: the first of its positions (the defining one first, then in
    /// text order) at its last position's step. Neither its uses nor the chaining of a
    /// buffer's values move it, as they move the range's end.
    pub end_position: IndexVec<FlowId, Option<PosId>>,
}

/// The live range of every value defined at a step, the values of each of `buffers`
/// (a value's set representative, as [`aliasing::buffers`] finds them) chained as
/// `NormalizeAliasedBuffers` chains them.
pub(crate) fn live_ranges(
    a: &Analysis<'_, '_>,
    s: &Schedule,
    d: &Dataflow,
    buffers: &IndexVec<FlowId, FlowId>,
) -> Liveness {
    let m = a.module;
    let total = s.end();
    // The step a position of `i` is last live at for being there: its own step, or its
    // computation's end for the root.
    let time = |i: InstrId| -> u32 {
        let own = s.step[i].unwrap_or(0);
        let Some(c) = m.instructions[i].computation else { return own };
        match (m.computations[c].root, s.span[c]) {
            (Some(r), Some((_, end))) if r == i => end,
            _ => own,
        }
    };
    // When an instruction's result is last read: by users that read every index, and by
    // those that read only the top-level one (`get-tuple-element`, `copy`).
    let mut full_use = IndexVec::<InstrId, Option<u32>>::from_elem(None, m.instructions.len());
    let mut top_use = full_use.clone();
    for &c in &s.flattened {
        for u in m.computations[c].instructions {
            let user = &m.instructions[u];
            let Some(step) = s.step[u] else { continue };
            let at = match user.opcode {
                // Passing a value on is not reading it (a root's positions cover it).
                Opcode::Tuple | Opcode::Domain => continue,
                // Module-scoped: the called computation's own uses count instead.
                Opcode::Call => continue,
                // The init value dies when the body starts.
                Opcode::While => {
                    while_body_parameter(a, d, u).and_then(|p| s.step[p]).unwrap_or(step)
                }
                _ => step,
            };
            let reads = match user.opcode {
                Opcode::GetTupleElement | Opcode::Copy => &mut top_use,
                _ => &mut full_use,
            };
            for x in user.operands.iter().filter_map(|o| o.id) {
                reads[x] = Some(reads[x].map_or(at, |r| r.max(at)));
            }
        }
    }
    // Per value: the last position (and which, the defining one first) and the last use.
    let n = d.values.len();
    let mut last_position = IndexVec::<FlowId, u32>::from_elem(0, n);
    let mut end_position = IndexVec::<FlowId, Option<PosId>>::from_elem(None, n);
    for (v, value) in d.values.iter_enumerated() {
        let i = value.instruction;
        if let (Some(base), Some(_)) = (d.base(i), s.step[i]) {
            last_position[v] = time(i);
            end_position[v] = Some(base.plus(value.node.index()));
        }
    }
    let mut last_use = IndexVec::<FlowId, Option<u32>>::from_elem(None, n);
    for (p, &v) in d.value_at.iter_enumerated() {
        let Some(v) = v else { continue };
        let i = d.position_instruction[p];
        if s.step[i].is_some() {
            let t = time(i);
            // XLA keeps the first position at the latest step, in its positions' order:
            // the defining position, then the module's computations and instructions in
            // text order (instruction ids), each instruction's indices in pre-order.
            let later = match end_position[v] {
                None => true,
                Some(_) if t > last_position[v] => true,
                Some(e) => {
                    let def = d.values[v];
                    let is_def = |q: PosId| {
                        d.position_instruction[q] == def.instruction
                            && d.node(def.instruction, q) == def.node
                    };
                    t == last_position[v]
                        && !is_def(e)
                        && (d.position_instruction[p], p) < (d.position_instruction[e], e)
                }
            };
            if later {
                last_position[v] = t;
                end_position[v] = Some(p);
            }
        }
        let mut reads = full_use[i];
        if d.node(i, p) == super::tree::Tree::root() {
            if let Some(t) = top_use[i] {
                reads = Some(reads.map_or(t, |r| r.max(t)));
            }
        }
        if let Some(r) = reads {
            last_use[v] = Some(last_use[v].map_or(r, |l| l.max(r)));
        }
    }
    // Entry parameters donated to an output (by number and index) end at their last use.
    let donated = super::super::text::attribute::donated(&m.input_output_alias);
    let mut ranges: IndexVec<FlowId, Option<LiveRange>> = d
        .values
        .iter_enumerated()
        .map(|(v, value)| {
            let i = value.instruction;
            let step = s.step[i]?;
            let ins = &m.instructions[i];
            let c = ins.computation?;
            let parameter = ins.opcode == Opcode::Parameter;
            let start = if parameter { s.span[c]?.0 } else { step };
            let entry_parameter = parameter && m.entry == Some(c);
            let aliased = || {
                let index: Vec<u64> =
                    d.tree(i).index(value.node).into_iter().map(u64::from).collect();
                ins.parameter_number.is_some_and(|n| donated.contains(&(n, index.as_slice())))
            };
            let end = if entry_parameter && !aliased() {
                total
            } else {
                last_position[v].max(last_use[v].unwrap_or(0))
            };
            Some(LiveRange { start, end: end.max(start) })
        })
        .collect();
    normalize(&mut ranges, buffers);
    for (v, r) in ranges.iter_enumerated() {
        if r.is_none() {
            end_position[v] = None;
        }
    }
    Liveness { ranges, end_position }
}

/// The parameter of the body of `while` instruction `w`.
fn while_body_parameter(a: &Analysis<'_, '_>, d: &Dataflow, w: InstrId) -> Option<InstrId> {
    let body = a.module.instructions[w].called_by(CallAttribute::Body)?;
    d.parameter(body, 0).filter(|&i| d.base(i).is_some())
}

/// `NormalizeAliasedBuffers`: the values of one buffer, sorted by (start, end, id), each
/// ending where the next starts (and the next ending no earlier than this one did).
fn normalize(ranges: &mut IndexVec<FlowId, Option<LiveRange>>, buffer: &IndexVec<FlowId, FlowId>) {
    let mut by_buffer: Vec<(FlowId, u32, u32, FlowId)> = ranges
        .iter_enumerated()
        .filter_map(|(v, r)| r.map(|r| (buffer[v], r.start, r.end, v)))
        .collect();
    by_buffer.sort_unstable();
    for pair in by_buffer.windows(2) {
        let (b1, _, _, v1) = pair[0];
        let (b2, _, _, v2) = pair[1];
        if b1 != b2 {
            continue;
        }
        // Read from `ranges`: the previous step of the chain may have moved v1's end.
        let (Some(r1), Some(r2)) = (ranges[v1], ranges[v2]) else { continue };
        ranges[v2] = Some(LiveRange { start: r2.start, end: r1.end.max(r2.end) });
        ranges[v1] = Some(LiveRange { start: r1.start, end: r1.end.min(r2.start) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_chains_the_values_of_a_buffer() {
        let r = |start, end| Some(LiveRange { start, end });
        let mut ranges = IndexVec::from_raw(vec![r(0, 1), r(1, 5), r(3, 4), r(2, 9)]);
        let buffer = IndexVec::from_raw([0, 0, 0, 3].map(FlowId::new).to_vec());
        normalize(&mut ranges, &buffer);
        assert_eq!(ranges.raw(), [r(0, 1), r(1, 3), r(3, 5), r(2, 9)]);
    }
}
