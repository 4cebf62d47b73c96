//! Live ranges, as `HloLiveRange::CalculateBufferStartEndMap` and
//! `NormalizeAliasedBuffers` compute them: the second step chains the values of each
//! buffer `aliasing.rs` finds.

use std::collections::HashSet;

use super::super::attribute::CallAttribute;
use super::super::buffer::Analysis;
use super::super::id::{IndexVec, InstrId};
use super::super::opcode::Opcode;
use super::aliasing;
use super::dataflow::{Dataflow, FlowId};
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

/// The live range of every value defined at a step (`None` for the others), after
/// `NormalizeAliasedBuffers`.
pub(crate) fn live_ranges(
    a: &Analysis<'_, '_>,
    s: &Schedule,
    d: &Dataflow,
) -> IndexVec<FlowId, Option<LiveRange>> {
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
    // Per value: the last position and the last use.
    let n = d.values.len();
    let mut last_position = IndexVec::<FlowId, u32>::from_elem(0, n);
    let mut last_use = IndexVec::<FlowId, Option<u32>>::from_elem(None, n);
    for (p, &v) in d.value_at.iter_enumerated() {
        let Some(v) = v else { continue };
        let i = d.position_instruction[p];
        last_position[v] = last_position[v].max(time(i));
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
    let donated: HashSet<(u64, &[u64])> =
        m.input_output_alias.iter().map(|p| (p.operand, p.operand_index.as_slice())).collect();
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
    normalize(&mut ranges, &aliasing::buffers(a, s, d));
    ranges
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
