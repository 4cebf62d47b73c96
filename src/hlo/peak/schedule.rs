//! The flattened instruction sequence, numbered as `HloLiveRange::FlattenSchedule` numbers
//! it: the entry computation's schedule (the order a scheduled module prints it in), with
//! every computation a `call` or `conditional` runs flattened just before the instruction
//! (all branches, in order), and a `while`'s condition then body just before the `while`.
//! A computation already flattened is not flattened again; fused and other embedded
//! computations never are.
//!
//! Beside the sequence, XLA's classes of computations (`GatherComputationsByAllocationType`):
//! the flattened ones are its global computations, and [`Schedule::embedded`] lists the
//! thread-local ones that are not fused (a `reduce`'s or `sort`'s computation, also inside a
//! fusion), whose values get buffers of their own that no step counts.

use super::super::id::{CompId, IndexVec, InstrId};
use super::super::module::Module;
use super::super::opcode::Opcode;

/// The opcodes whose computations XLA's buffer assigner takes as thread-local.
const INLINING: [&str; 11] = [
    "custom-call",
    "all-reduce",
    "reduce-scatter",
    "all-reduce-start",
    "map",
    "reduce",
    "reduce-window",
    "scatter",
    "select-and-scatter",
    "sort",
    "fusion",
];

/// Steps of a module's instructions and spans of its computations.
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    /// The instruction at each step.
    pub sequence: Vec<InstrId>,
    /// The step of each instruction of the module; `None` for those in no flattened
    /// computation.
    pub step: IndexVec<InstrId, Option<u32>>,
    /// Each computation's `[start, end)` steps, if flattened.
    pub span: IndexVec<CompId, Option<(u32, u32)>>,
    /// The computations in the order they were finished (each once).
    pub flattened: Vec<CompId>,
    /// Instructions that call computations this model does not flatten (`async-start`
    /// and the like): XLA flattens some of them into an asynchronous context.
    pub async_callers: Vec<InstrId>,
    /// The thread-local computations reached from the entry that are not fused, in text
    /// order: XLA gives each of their buffers an allocation of its own.
    pub embedded: Vec<CompId>,
    /// Instructions whose call XLA's buffer assigner refuses (a computation called both
    /// as a step and inlined, or called by an opcode it does not expect).
    pub refused_calls: Vec<InstrId>,
}

/// A computation on the flattening stack.
enum Frame {
    /// Pushed as a callee, not started yet.
    Pending(CompId),
    /// Being flattened: the next of its instructions to number, and whether the
    /// computations that instruction calls have been pushed already.
    Open { computation: CompId, next: usize, callees_pushed: bool, start: u32 },
}

impl Schedule {
    /// Flattens from `entry`. Iterative, so nesting depth costs no stack; a computation
    /// reached again while it is being flattened (a cycle, which XLA rejects) is skipped.
    pub fn new(m: &Module<'_>, entry: CompId) -> Schedule {
        let n = m.computations.len();
        let mut s = Schedule {
            sequence: Vec::new(),
            step: IndexVec::from_elem(None, m.instructions.len()),
            span: IndexVec::from_elem(None, n),
            flattened: Vec::new(),
            async_callers: Vec::new(),
            embedded: Vec::new(),
            refused_calls: Vec::new(),
        };
        let mut open = IndexVec::<CompId, bool>::from_elem(false, n);
        let mut stack =
            vec![Frame::Open { computation: entry, next: 0, callees_pushed: false, start: 0 }];
        open[entry] = true;
        while let Some(top) = stack.last_mut() {
            let (computation, next, callees_pushed) = match top {
                Frame::Pending(c) => {
                    // A pushed callee's turn: skip it if it is done or being flattened.
                    let c = *c;
                    if s.span[c].is_some() || open[c] {
                        stack.pop();
                    } else {
                        open[c] = true;
                        let start = s.end();
                        *top =
                            Frame::Open { computation: c, next: 0, callees_pushed: false, start };
                    }
                    continue;
                }
                Frame::Open { computation, next, callees_pushed, .. } => {
                    (*computation, next, callees_pushed)
                }
            };
            let Some(i) = m.computations[computation].instructions.get(*next) else {
                if let Some(Frame::Open { computation, start, .. }) = stack.pop() {
                    s.span[computation] = Some((start, s.end()));
                    s.flattened.push(computation);
                    open[computation] = false;
                }
                continue;
            };
            let ins = &m.instructions[i];
            if !*callees_pushed {
                *callees_pushed = true;
                if ins.opcode.is_async() && !ins.called.is_empty() {
                    s.async_callers.push(i);
                }
                let callees: Vec<CompId> = ins.sequential_callees().map(|(_, c)| c).collect();
                // Pushed in reverse: the first callee is flattened first, and whether a
                // later one is already flattened is decided when its turn comes.
                stack.extend(callees.into_iter().rev().map(Frame::Pending));
                continue;
            }
            *next += 1;
            *callees_pushed = false;
            s.step[i] = Some(s.end());
            s.sequence.push(i);
        }
        s.classify(m, entry);
        s
    }

    /// `GatherComputationsByAllocationType` from `entry`: a `call`, `conditional`, `while`
    /// or asynchronous instruction's computations are of its own computation's class; those
    /// of the opcodes that inline a computation are thread-local. Fills
    /// [`Schedule::embedded`] (the thread-local ones not fused) and
    /// [`Schedule::refused_calls`]. Linear in the instructions of the computations reached.
    fn classify(&mut self, m: &Module<'_>, entry: CompId) {
        let n = m.computations.len();
        // Per computation: reached as global, as thread-local.
        let mut global = IndexVec::<CompId, bool>::from_elem(false, n);
        let mut local = IndexVec::<CompId, bool>::from_elem(false, n);
        let mut work = vec![(entry, false)];
        global[entry] = true;
        while let Some((c, thread_local)) = work.pop() {
            for i in m.computations[c].instructions {
                let ins = &m.instructions[i];
                if ins.called.is_empty() {
                    continue;
                }
                let inlined = match ins.opcode {
                    Opcode::Call | Opcode::Conditional | Opcode::While => thread_local,
                    o if o.is_async() => thread_local,
                    o if INLINING.contains(&o.as_str()) => true,
                    _ => {
                        self.refused_calls.push(i);
                        continue;
                    }
                };
                for callee in ins.called.iter().filter_map(|c| c.id) {
                    let (mine, other) =
                        if inlined { (&mut local, &global) } else { (&mut global, &local) };
                    if other[callee] {
                        self.refused_calls.push(i);
                    } else if !std::mem::replace(&mut mine[callee], true) {
                        work.push((callee, inlined));
                    }
                }
            }
        }
        self.embedded = m
            .computations
            .iter_enumerated()
            .filter(|(c, k)| local[*c] && !k.is_fusion)
            .map(|(c, _)| c)
            .collect();
    }

    /// The computations whose dataflow is analysed: the flattened ones, then the
    /// thread-local ones that are not fused.
    pub fn analysed(&self) -> impl Iterator<Item = CompId> + '_ {
        self.flattened.iter().chain(&self.embedded).copied()
    }

    /// The number of steps: XLA's `schedule_end_time()`.
    pub fn end(&self) -> u32 {
        // At most one step per instruction, and ids number fewer than `u32::MAX`.
        self.sequence.len() as u32
    }

    /// The instruction at `step`.
    pub fn at(&self, step: u32) -> Option<InstrId> {
        self.sequence.get(usize::try_from(step).ok()?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn while_condition_then_body_then_the_while() {
        let text = "HloModule m, is_scheduled=true\n\n%body (p: (s32[])) -> (s32[]) {\n  %p = (s32[]) parameter(0)\n  ROOT %t = (s32[]) tuple(%x)\n}\n\n%cond (q: (s32[])) -> pred[] {\n  %q = (s32[]) parameter(0)\n  ROOT %c = pred[] constant(true)\n}\n\nENTRY %e (a: s32[]) -> (s32[]) {\n  %a = s32[] parameter(0)\n  %i = (s32[]) tuple(%a)\n  ROOT %w = (s32[]) while(%i), body=%body, condition=%cond\n}\n";
        let m = Module::parse(text);
        let s = Schedule::new(&m, m.entry.unwrap());
        let names: Vec<&str> = s.sequence.iter().map(|&i| m.instructions[i].name).collect();
        assert_eq!(names, ["a", "i", "q", "c", "p", "t", "w"]);
        assert_eq!(s.span.raw(), [Some((4, 6)), Some((2, 4)), Some((0, 7))]);
        assert_eq!(s.end(), 7);
    }

    #[test]
    fn a_computation_is_flattened_once_and_cycles_end() {
        let text = "%f {\n  ROOT %x = s32[] call(), to_apply=%f\n}\n\nENTRY %e {\n  %a = s32[] call(), to_apply=%f\n  ROOT %b = s32[] call(), to_apply=%f\n}\n";
        let m = Module::parse(text);
        let s = Schedule::new(&m, m.entry.unwrap());
        let names: Vec<&str> = s.sequence.iter().map(|&i| m.instructions[i].name).collect();
        assert_eq!(names, ["x", "a", "b"]);
    }
}
