//! Live ranges, as `HloLiveRange::CalculateBufferStartEndMap` and
//! `NormalizeAliasedBuffers` compute them, and the buffers (`HloAliasAnalysis`) whose
//! values the second step chains: while loops, conditionals, in-place operations and the
//! module's `input_output_alias`.

use super::super::buffer::Analysis;
use super::super::lex::split_top_level;
use super::super::module::Module;
use super::dataflow::{attribute, Caller, Dataflow, NONE};
use super::schedule::{sequential_callees, Schedule, NO_STEP};

/// A value's first and last step, both included.
///
/// ```
/// use xlayout::hlo::{Analysis, LiveRange, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let peak = Peak::new(&Analysis::new(&m));
/// // The entry parameter lives to the end (step 2 = the number of steps).
/// assert_eq!(peak.values[0].range, LiveRange { start: 0, end: 2 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LiveRange {
    /// The step it is defined at (a parameter: its computation's first step).
    pub start: u32,
    /// The last step it is live at.
    pub end: u32,
}

/// One `{output}: (parameter, {index})` pair of `input_output_alias` or
/// `output_to_operand_aliasing`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AliasPair {
    pub output: Vec<u64>,
    pub operand: u64,
    pub operand_index: Vec<u64>,
}

/// `{1, 2}` -> `[1, 2]`; `{}` -> `[]`.
pub(crate) fn shape_index(text: &str) -> Option<Vec<u64>> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    inner.split(',').map(str::trim).filter(|p| !p.is_empty()).map(|p| p.parse().ok()).collect()
}

/// The pairs of `{ {0}: (0, {}, may-alias), {1}: (1, {}) }`; unreadable pairs are left out.
pub(crate) fn alias_pairs(text: &str) -> Vec<AliasPair> {
    let t = text.trim();
    let inner = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')).unwrap_or(t);
    split_top_level(inner)
        .into_iter()
        .filter_map(|entry| {
            let close = entry.find('}')?;
            let output = shape_index(&entry[..=close])?;
            let rest = entry[close + 1..].trim().strip_prefix(':')?.trim();
            let rest = rest.strip_prefix('(')?.strip_suffix(')')?;
            let parts = split_top_level(rest);
            let operand = parts.first()?.parse().ok()?;
            let operand_index = shape_index(parts.get(1)?)?;
            Some(AliasPair { output, operand, operand_index })
        })
        .collect()
}

/// Union-find over value ids.
struct Sets(Vec<u32>);

impl Sets {
    fn find(&mut self, mut v: u32) -> u32 {
        while self.0[v as usize] != v {
            let up = self.0[self.0[v as usize] as usize];
            self.0[v as usize] = up;
            v = up;
        }
        v
    }

    fn union(&mut self, a: Option<u32>, b: Option<u32>) {
        if let (Some(a), Some(b)) = (a, b) {
            let (a, b) = (self.find(a), self.find(b));
            if a != b {
                self.0[a.max(b) as usize] = a.min(b);
            }
        }
    }
}

/// Bounds the nesting of fusions followed for in-place pairs.
const MAX_FUSION_DEPTH: usize = 16;

/// `HloDataflowAnalysis::GetInPlaceInputOutputPairs`: which operand (and index in it)
/// each output index of instruction `i` is computed in place of.
pub(crate) fn in_place_pairs(
    a: &Analysis<'_, '_>,
    d: &Dataflow<'_>,
    i: u32,
    depth: usize,
) -> Vec<AliasPair> {
    let m = a.module;
    let ins = &m.instructions[i as usize];
    let pair = |operand: u64, operand_index: Vec<u64>, output: Vec<u64>| AliasPair {
        output,
        operand,
        operand_index,
    };
    let n = ins.operands.len() as u64;
    let operand_tuple = |slot: usize| -> Option<u64> {
        match m.shape(d.operand(m, i, slot)? as usize)? {
            crate::Shape::Tuple(e) => Some(e.len() as u64),
            _ => None,
        }
    };
    let aliasing = || {
        attribute(ins.attributes, "output_to_operand_aliasing").map(alias_pairs).unwrap_or_default()
    };
    match ins.opcode {
        "dynamic-update-slice" => vec![pair(0, vec![], vec![])],
        "scatter" if n >= 5 => (0..(n - 1) / 2).map(|k| pair(k, vec![], vec![k])).collect(),
        "scatter" => vec![pair(0, vec![], vec![])],
        "collective-permute" | "collective-permute-start" if n == 4 => {
            let prefix: Vec<u64> =
                if ins.opcode == "collective-permute" { vec![] } else { vec![1] };
            let mut pairs = vec![pair(1, vec![], prefix.clone())];
            for k in 0..operand_tuple(1).unwrap_or(0) {
                let mut out = prefix.clone();
                out.push(k);
                pairs.push(pair(1, vec![k], out));
            }
            pairs
        }
        "custom-call" => aliasing(),
        "all-reduce-start" if n == 1 => vec![pair(0, vec![], vec![])],
        "all-reduce-start" => (0..n).map(|k| pair(k, vec![], vec![k])).collect(),
        "set-dimension-size" => vec![pair(0, vec![], vec![])],
        "ragged-all-to-all" => vec![pair(1, vec![], vec![])],
        "fusion" if depth < MAX_FUSION_DEPTH => {
            // Fusions of one computation have the same pairs: worked out once.
            let fused = ins.called.iter().find(|c| c.attribute == "calls");
            let key = fused
                .and_then(|c| m.computation_index(c.computation))
                .map(|c| (c, ins.shape.map(|s| s.0)));
            let known = key.and_then(|k| d.fusion_pairs.borrow().get(&k).cloned());
            let mut pairs = match known {
                Some(p) => p,
                None => {
                    let p = fusion_pairs(a, d, i, depth);
                    if let Some(k) = key {
                        d.fusion_pairs.borrow_mut().insert(k, p.clone());
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

/// `GetFusionInstructionInPlaceInputOutputPairs`: an output of a fusion aliases the fusion
/// parameter its fused root (through tuples, `get-tuple-element`s, nested fusions and one
/// `bitcast`) updates in place.
fn fusion_pairs(a: &Analysis<'_, '_>, d: &Dataflow<'_>, i: u32, depth: usize) -> Vec<AliasPair> {
    let m = a.module;
    let ins = &m.instructions[i as usize];
    let Some(fused) = ins.called.iter().find(|c| c.attribute == "calls") else { return Vec::new() };
    let Some(root) = m.computation_index(fused.computation).and_then(|c| d.roots[c]) else {
        return Vec::new();
    };
    let Some(facts) = a.facts(i as usize) else { return Vec::new() };
    let mut pairs = Vec::new();
    for leaf in &facts.leaves {
        let index: Vec<u64> = leaf.index.iter().map(|&k| k as u64).collect();
        let Some((source, source_index)) = follow_tuples(m, d, root, index.clone()) else {
            continue;
        };
        let mut input = None;
        for p in in_place_pairs(a, d, source, depth + 1) {
            if p.output != source_index {
                continue;
            }
            let Some(operand) = d.operand(m, source, p.operand as usize) else { continue };
            let Some(mut found) = follow_tuples(m, d, operand, p.operand_index) else { continue };
            if m.instructions[found.0 as usize].opcode == "fusion" {
                for nested in in_place_pairs(a, d, found.0, depth + 1) {
                    if nested.output == found.1 {
                        if let Some(o) = d.operand(m, found.0, nested.operand as usize) {
                            if let Some(f) = follow_tuples(m, d, o, nested.operand_index) {
                                found = f;
                            }
                        }
                    }
                }
            }
            input = Some(found);
        }
        let Some((mut source, index_in)) = input else { continue };
        if m.instructions[source as usize].opcode == "bitcast" {
            match d.operand(m, source, 0) {
                Some(o) => source = o,
                None => continue,
            }
        }
        let s = &m.instructions[source as usize];
        if let ("parameter", Some(number)) = (s.opcode, s.parameter_number) {
            pairs.push(AliasPair { output: index, operand: number, operand_index: index_in });
        }
    }
    pairs
}

/// XLA's `FollowTupleIndirection`: through `tuple` operands and `get-tuple-element`s to
/// the instruction (and index in it) a value comes from.
fn follow_tuples(
    m: &Module<'_>,
    d: &Dataflow<'_>,
    mut i: u32,
    mut index: Vec<u64>,
) -> Option<(u32, Vec<u64>)> {
    // Each step moves to an operand; a malformed cycle stops after as many steps as there
    // are instructions.
    for _ in 0..=m.instructions.len() {
        let ins = &m.instructions[i as usize];
        if ins.opcode == "tuple" && !index.is_empty() {
            i = d.operand(m, i, index.remove(0) as usize)?;
        } else if ins.opcode == "get-tuple-element" {
            index.insert(0, attribute(ins.attributes, "index")?.parse().ok()?);
            i = d.operand(m, i, 0)?;
        } else {
            return Some((i, index));
        }
    }
    None
}

/// The live range of every value defined at a step (`None` for the others), after
/// `NormalizeAliasedBuffers`.
pub(crate) fn live_ranges(
    a: &Analysis<'_, '_>,
    s: &Schedule,
    d: &Dataflow<'_>,
) -> Vec<Option<LiveRange>> {
    let m = a.module;
    let total = s.end();
    let time = |i: u32| -> u32 {
        let c = m.instructions[i as usize].computation.expect("flattened");
        match (d.roots[c], s.span[c]) {
            (Some(r), Some((_, end))) if r == i => end,
            _ => s.step[i as usize],
        }
    };
    // When an instruction's result is last read: by users that read every index, and by
    // those that read only the top-level one (`get-tuple-element`, `copy`).
    let mut full_use = vec![0u32; m.instructions.len()];
    let mut top_use = vec![0u32; m.instructions.len()];
    let mut used = vec![false; m.instructions.len()];
    let mut top_used = vec![false; m.instructions.len()];
    for &c in &s.flattened {
        for u in m.computations[c].instructions.clone() {
            let user = &m.instructions[u];
            let u = u as u32;
            let at = match user.opcode {
                // Passing a value on is not reading it (a root's positions cover it).
                "tuple" | "domain" => continue,
                // Module-scoped: the called computation's own uses count instead.
                "call" => continue,
                // The init value dies when the body starts.
                "while" => {
                    while_body_parameter(m, d, u).map_or(s.step[u as usize], |p| s.step[p as usize])
                }
                _ => s.step[u as usize],
            };
            let top_only = matches!(user.opcode, "get-tuple-element" | "copy");
            for slot in 0..user.operands.len() {
                let Some(x) = d.operand(m, u, slot) else { continue };
                let x = x as usize;
                if top_only {
                    top_use[x] = if top_used[x] { top_use[x].max(at) } else { at };
                    top_used[x] = true;
                } else {
                    full_use[x] = if used[x] { full_use[x].max(at) } else { at };
                    used[x] = true;
                }
            }
        }
    }
    // Per value: the last position and the last use.
    let n = d.values.len();
    let mut last_position = vec![0u32; n];
    let mut last_use: Vec<Option<u32>> = vec![None; n];
    for (p, &v) in d.value_at.iter().enumerate() {
        if v == NONE {
            continue;
        }
        let i = d.position_instruction[p];
        let node = p as u32 - d.base[i as usize];
        let v = v as usize;
        last_position[v] = last_position[v].max(time(i));
        let i = i as usize;
        let mut reads = used[i].then_some(full_use[i]);
        if node == 0 && top_used[i] {
            reads = Some(reads.map_or(top_use[i], |r| r.max(top_use[i])));
        }
        if let Some(r) = reads {
            last_use[v] = Some(last_use[v].map_or(r, |l| l.max(r)));
        }
    }
    let aliases = attribute(m.header, "input_output_alias").map(alias_pairs).unwrap_or_default();
    let mut ranges: Vec<Option<LiveRange>> = d
        .values
        .iter()
        .enumerate()
        .map(|(v, value)| {
            let i = value.instruction as usize;
            if s.step[i] == NO_STEP {
                return None;
            }
            let ins = &m.instructions[i];
            let c = ins.computation?;
            let start = if ins.opcode == "parameter" { s.span[c]?.0 } else { s.step[i] };
            let index: Vec<u64> = d.tree(value.instruction).nodes[value.node as usize]
                .index
                .iter()
                .map(|&k| u64::from(k))
                .collect();
            let entry_parameter = ins.opcode == "parameter" && m.entry == Some(c);
            let aliased = aliases
                .iter()
                .any(|p| Some(p.operand) == ins.parameter_number && p.operand_index == index);
            let end = if entry_parameter && !aliased {
                total
            } else {
                last_position[v].max(last_use[v].unwrap_or(0))
            };
            Some(LiveRange { start, end: end.max(start) })
        })
        .collect();
    normalize(&mut ranges, &buffers(a, s, d, &aliases));
    ranges
}

/// The parameter of the body of `while` instruction `w`.
fn while_body_parameter(m: &Module<'_>, d: &Dataflow<'_>, w: u32) -> Option<u32> {
    let body = m.instructions[w as usize].called.iter().find(|c| c.attribute == "body")?;
    let c = m.computation_index(body.computation)?;
    d.parameter(c, 0).filter(|&i| d.base[i as usize] != NONE)
}

/// `HloAliasAnalysis`'s buffers: each value's set representative.
fn buffers(
    a: &Analysis<'_, '_>,
    s: &Schedule,
    d: &Dataflow<'_>,
    aliases: &[AliasPair],
) -> Vec<u32> {
    let m = a.module;
    let mut sets = Sets((0..d.values.len() as u32).collect());
    let value = |i: Option<u32>, index: &[u64]| -> Option<u32> {
        let i = i?;
        let node = d.tree(i).at(index)?;
        d.value(i, node)
    };
    // A donated parameter and the output it is donated to.
    if let Some(e) = m.entry {
        let root = d.roots[e];
        for p in aliases {
            let parameter = d.parameter(e, p.operand);
            sets.union(value(root, &p.output), value(parameter, &p.operand_index));
        }
    }
    for &c in &s.flattened {
        for i in m.computations[c].instructions.clone() {
            let ins = &m.instructions[i];
            let i = i as u32;
            let n = d.tree(i).len();
            let same = |j: Option<u32>| j.filter(|&j| d.tree(j).len() == n);
            let mut together = |others: &[Option<u32>]| {
                for k in 0..n {
                    for &o in others {
                        sets.union(d.value(i, k), o.and_then(|o| d.value(o, k)));
                    }
                }
            };
            match ins.opcode {
                "while" => {
                    // Init, condition and body parameters, body root and result: one buffer.
                    let callees: Vec<usize> = sequential_callees(m, ins).collect();
                    let parameter = |c: usize| d.parameter(c, 0);
                    let mut others = vec![same(d.operand(m, i, 0))];
                    for &callee in &callees {
                        if matches!(
                            d.callers[callee],
                            Some(Caller::WhileBody(_) | Caller::WhileCondition(_))
                        ) {
                            others.push(same(parameter(callee)));
                        }
                        if d.callers[callee] == Some(Caller::WhileBody(i)) {
                            others.push(same(d.roots[callee]));
                        }
                    }
                    together(&others);
                }
                "conditional" => {
                    let roots: Vec<Option<u32>> =
                        sequential_callees(m, ins).map(|c| same(d.roots[c])).collect();
                    together(&roots);
                }
                _ => {}
            }
            for p in in_place_pairs(a, d, i, 0) {
                let out = value(Some(i), &p.output);
                let operand =
                    usize::try_from(p.operand).ok().and_then(|slot| d.operand(m, i, slot));
                sets.union(out, value(operand, &p.operand_index));
            }
        }
    }
    (0..d.values.len() as u32).map(|v| sets.find(v)).collect()
}

/// `NormalizeAliasedBuffers`: the values of one buffer, sorted by (start, end, id), each
/// ending where the next starts (and the next ending no earlier than this one did).
fn normalize(ranges: &mut [Option<LiveRange>], buffer: &[u32]) {
    let mut by_buffer: Vec<(u32, u32, u32, u32)> = ranges
        .iter()
        .enumerate()
        .filter_map(|(v, r)| r.map(|r| (buffer[v], r.start, r.end, v as u32)))
        .collect();
    by_buffer.sort_unstable();
    for pair in by_buffer.windows(2) {
        let (b1, _, _, v1) = pair[0];
        let (b2, _, _, v2) = pair[1];
        if b1 != b2 {
            continue;
        }
        // Read from `ranges`: the previous step of the chain may have moved v1's end.
        let (Some(r1), Some(r2)) = (ranges[v1 as usize], ranges[v2 as usize]) else { continue };
        ranges[v2 as usize] = Some(LiveRange { start: r2.start, end: r1.end.max(r2.end) });
        ranges[v1 as usize] = Some(LiveRange { start: r1.start, end: r1.end.min(r2.start) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_pairs_as_written() {
        let p = alias_pairs("{ {0}: (0, {}, may-alias), {1, 2}: (1, {3}) }");
        assert_eq!(
            p,
            [
                AliasPair { output: vec![0], operand: 0, operand_index: vec![] },
                AliasPair { output: vec![1, 2], operand: 1, operand_index: vec![3] },
            ]
        );
        assert_eq!(alias_pairs("{{}: (1, {})}")[0].operand, 1);
        assert!(alias_pairs("{ garbage }").is_empty());
    }

    #[test]
    fn normalize_chains_the_values_of_a_buffer() {
        let r = |start, end| Some(LiveRange { start, end });
        let mut ranges = [r(0, 1), r(1, 5), r(3, 4), r(2, 9)];
        normalize(&mut ranges, &[0, 0, 0, 3]);
        assert_eq!(ranges, [r(0, 1), r(1, 3), r(3, 5), r(2, 9)]);
    }
}
