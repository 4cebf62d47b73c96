//! The flattened instruction sequence, numbered as `HloLiveRange::FlattenSchedule` numbers
//! it: the entry computation's schedule (the order a scheduled module prints it in), with
//! every computation a `call` or `conditional` runs flattened just before the instruction
//! (all branches, in order), and a `while`'s condition then body just before the `while`.
//! A computation already flattened is not flattened again; fused and other embedded
//! computations never are.

use super::super::id::{CompId, IndexVec, InstrId};
use super::super::module::Module;

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
        s
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
