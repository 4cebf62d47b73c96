//! The flattened instruction sequence, numbered as `HloLiveRange::FlattenSchedule` numbers
//! it: the entry computation's schedule (the order a scheduled module prints it in), with
//! every computation a `call` or `conditional` runs flattened just before the instruction
//! (all branches, in order), and a `while`'s condition then body just before the `while`.
//! A computation already flattened is not flattened again; fused and other embedded
//! computations never are.

use super::super::module::{Instruction, Module};

/// No step: the instruction is in no flattened computation.
pub(crate) const NO_STEP: u32 = u32::MAX;

/// Steps of a module's instructions and spans of its computations.
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    /// The instruction at each step.
    pub sequence: Vec<u32>,
    /// The step of each instruction of the module, or [`NO_STEP`].
    pub step: Vec<u32>,
    /// Each computation's `[start, end)` steps, if flattened.
    pub span: Vec<Option<(u32, u32)>>,
    /// The computations in the order they were finished (each once).
    pub flattened: Vec<usize>,
    /// Instructions that call computations this model does not flatten (`async-start`
    /// and the like): XLA flattens some of them into an asynchronous context.
    pub async_callers: Vec<u32>,
}

/// The computations `ins` runs as steps before its own step, in XLA's order.
pub(crate) fn sequential_callees<'m>(
    m: &'m Module<'_>,
    ins: &'m Instruction<'_>,
) -> impl Iterator<Item = usize> + 'm {
    let attributes: &[&str] = match ins.opcode {
        "call" => &["to_apply", "calls"],
        "conditional" => &["branch_computations", "true_computation", "false_computation"],
        // Condition first, then body, whatever order the text names them in.
        "while" => &["condition", "body"],
        _ => &[],
    };
    attributes.iter().flat_map(move |&a| {
        ins.called
            .iter()
            .filter(move |c| c.attribute == a)
            .filter_map(move |c| m.computation_index(c.computation))
    })
}

/// Whether `opcode` runs a computation asynchronously (not flattened here).
pub(crate) fn is_async(opcode: &str) -> bool {
    matches!(opcode, "async-start" | "async-update" | "async-done")
}

/// A computation being flattened: the next of its instructions to number, and whether the
/// computations that instruction calls have been pushed already.
struct Frame {
    /// The computation; with `next == PENDING`, one not started yet.
    computation: usize,
    next: usize,
    callees_pushed: bool,
    start: u32,
}

/// `Frame::next` of a computation pushed but not started.
const PENDING: usize = usize::MAX;

impl Schedule {
    /// Flattens from `entry`. Iterative, so nesting depth costs no stack; a computation
    /// reached again while it is being flattened (a cycle, which XLA rejects) is skipped.
    pub fn new(m: &Module<'_>, entry: usize) -> Schedule {
        let n = m.computations.len();
        let mut s = Schedule {
            sequence: Vec::new(),
            step: vec![NO_STEP; m.instructions.len()],
            span: vec![None; n],
            flattened: Vec::new(),
            async_callers: Vec::new(),
        };
        let mut open = vec![false; n];
        let mut stack =
            vec![Frame { computation: entry, next: 0, callees_pushed: false, start: 0 }];
        open[entry] = true;
        while let Some(top) = stack.last_mut() {
            if top.next == PENDING {
                // A pushed callee's turn: skip it if it is done or being flattened.
                let c = top.computation;
                if s.span[c].is_some() || open[c] {
                    stack.pop();
                } else {
                    open[c] = true;
                    let start = s.sequence.len() as u32;
                    *top = Frame { computation: c, next: 0, callees_pushed: false, start };
                }
                continue;
            }
            let range = m.computations[top.computation].instructions.clone();
            let Some(i) = range.clone().nth(top.next) else {
                let done = stack.pop().expect("a frame is on the stack");
                s.span[done.computation] = Some((done.start, s.sequence.len() as u32));
                s.flattened.push(done.computation);
                open[done.computation] = false;
                continue;
            };
            let ins = &m.instructions[i];
            if !top.callees_pushed {
                top.callees_pushed = true;
                if is_async(ins.opcode) && !ins.called.is_empty() {
                    s.async_callers.push(i as u32);
                }
                let callees: Vec<usize> = sequential_callees(m, ins).collect();
                // Pushed in reverse: the first callee is flattened first, and whether a
                // later one is already flattened is decided when its turn comes.
                for &c in callees.iter().rev() {
                    let pending =
                        Frame { computation: c, next: PENDING, callees_pushed: true, start: 0 };
                    stack.push(pending);
                }
                continue;
            }
            s.step[i] = s.sequence.len() as u32;
            s.sequence.push(i as u32);
            top.next += 1;
            top.callees_pushed = false;
        }
        s
    }

    /// The number of steps: XLA's `schedule_end_time()`.
    pub fn end(&self) -> u32 {
        self.sequence.len() as u32
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
        let names: Vec<&str> =
            s.sequence.iter().map(|&i| m.instructions[i as usize].name).collect();
        assert_eq!(names, ["a", "i", "q", "c", "p", "t", "w"]);
        assert_eq!(s.span, [Some((4, 6)), Some((2, 4)), Some((0, 7))]);
        assert_eq!(s.end(), 7);
    }

    #[test]
    fn a_computation_is_flattened_once_and_cycles_end() {
        let text = "%f {\n  ROOT %x = s32[] call(), to_apply=%f\n}\n\nENTRY %e {\n  %a = s32[] call(), to_apply=%f\n  ROOT %b = s32[] call(), to_apply=%f\n}\n";
        let m = Module::parse(text);
        let s = Schedule::new(&m, 1);
        let names: Vec<&str> =
            s.sequence.iter().map(|&i| m.instructions[i as usize].name).collect();
        assert_eq!(names, ["x", "a", "b"]);
    }
}
