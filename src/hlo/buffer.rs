//! Instructions -> buffers: which instructions own memory, which leaves of their results,
//! and how many bytes (the leaves' sizes come from [`ShapeFacts`]).

use serde::{Serialize, Serializer};

use super::id::{CompId, IndexVec, InstrId, ShapeId};
use super::module::{CallContext, Module};
use super::opcode::Opcode;
use super::sizes::{Leaf, ShapeFacts, Sizes};
use crate::memory::best::MODULE_CANDIDATE_BUDGET;

/// Whether an instruction owns memory, and if not, why.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Ownership};
/// let m = Module::parse("%p = f32[4]{0} parameter(0)\n%b = f32[2,2]{1,0} bitcast(%p)\n");
/// let a = Analysis::new(&m);
/// let ownership: Vec<_> = a.buffers.iter().map(|b| b.ownership).collect();
/// assert_eq!(ownership, [Ownership::Owns, Ownership::Alias]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// Every leaf of the result is memory this instruction defines.
    Owns,
    /// Some leaves are its own, the others its operands' (`copy-start`, `send`,
    /// `all-gather-start`, `collective-permute-start`, `async-start`, `recv-done`).
    Partial,
    /// Inside a fused (or otherwise embedded) computation: computed in registers or on
    /// the caller's stack, never allocated (except the constants of embedded computations
    /// that are not fusions, which XLA allocates: those own).
    Embedded,
    /// Its result is other instructions' memory (`bitcast`, `get-tuple-element`, `tuple`,
    /// `while`, `conditional`, `call`, `*-done`, ...).
    Alias,
    /// A parameter of a called computation: the caller's operand.
    CallerOperand,
}

impl Ownership {
    /// Whether any of the result is this instruction's own memory.
    ///
    /// ```
    /// assert!(xlayout::hlo::Ownership::Partial.owns());
    /// ```
    pub fn owns(self) -> bool {
        matches!(self, Ownership::Owns | Ownership::Partial)
    }

    /// Its name in the reports (`owns`, `partial`, `embedded`, `alias`, `caller_operand`).
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Ownership::CallerOperand.name(), "caller_operand");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Ownership::Owns => "owns",
            Ownership::Partial => "partial",
            Ownership::Embedded => "embedded",
            Ownership::Alias => "alias",
            Ownership::CallerOperand => "caller_operand",
        }
    }
}

impl Serialize for Ownership {
    /// As [`Ownership::name`].
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Which leaves of its result an instruction defines (allocates), as
/// `HloDataflowAnalysis::InitializeInstructionValueSets` says (tuple index tables left
/// out: they are pointers to other buffers). `first` is the leaf's first tuple index
/// (`None` for a non-tuple result).
pub(crate) fn defines_leaf(opcode: Opcode<'_>, first: Option<usize>) -> bool {
    use Opcode as O;
    match opcode {
        O::Bitcast
        | O::AddDependency
        | O::While
        | O::Call
        | O::Conditional
        | O::GetTupleElement
        | O::Domain
        | O::OptBarrier
        | O::OptimizationBarrier
        | O::Tuple
        | O::CopyDone
        | O::AllGatherDone
        | O::AllReduceDone
        | O::CollectivePermuteDone
        | O::AsyncUpdate
        | O::AsyncDone => false,
        // A copy of a tuple copies only its index table.
        O::Copy => first.is_none(),
        // {aliased operands, destination, contexts}: the destination comes from the
        // async computation's root, which is counted there.
        O::AsyncStart => first.map_or(true, |i| i > 1),
        O::CopyStart => first != Some(1),
        O::AllGatherStart => first.map_or(true, |i| i == 1),
        O::CollectivePermuteStart | O::Send | O::RecvDone => first != Some(0),
        _ => true,
    }
}

/// The facts of one instruction's result.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BufferFacts {
    /// Whether it owns memory.
    pub ownership: Ownership,
    /// The bytes of the leaves it owns (zero when it owns none).
    pub owned: Sizes,
}

/// A module's buffers: the facts of every distinct result shape and of every instruction.
///
/// ```
/// use xlayout::hlo::{Analysis, Module};
/// let text = "ENTRY %main {\n  %p = u32[12582912,1]{1,0:T(8,128)} parameter(0)\n  ROOT %t = (u32[12582912,1]{1,0:T(8,128)}) tuple(%p)\n}\n";
/// let m = Module::parse(text);
/// let a = Analysis::new(&m);
/// let [p, t] = ["p", "t"].map(|n| &a.buffers[m.instruction_id(n).unwrap()]);
/// assert_eq!(p.owned.array_bytes, 6_442_450_944);
/// assert_eq!(p.owned.expansion().unwrap().to_string(), "128");
/// assert_eq!(t.owned.array_bytes, 0); // the tuple points at %p
/// ```
#[derive(Clone, Debug)]
pub struct Analysis<'m, 't> {
    /// The module analysed.
    pub module: &'m Module<'t>,
    /// Facts per distinct shape.
    pub shapes: IndexVec<ShapeId, ShapeFacts>,
    /// Facts per instruction.
    pub buffers: IndexVec<InstrId, BufferFacts>,
}

impl<'m, 't> Analysis<'m, 't> {
    /// Sizes every distinct shape once, then every instruction.
    pub fn new(module: &'m Module<'t>) -> Self {
        let mut budget = MODULE_CANDIDATE_BUDGET;
        let shapes: IndexVec<ShapeId, ShapeFacts> =
            module.shapes.iter().map(|s| ShapeFacts::new(s, &mut budget)).collect();
        let buffers = module
            .instructions
            .iter()
            .map(|ins| {
                let facts = ins.shape.map(|id| &shapes[id]);
                let ownership = ownership(module, ins.computation, ins.opcode, facts);
                let owned = match facts {
                    Some(f) if ownership.owns() => owned_leaves(ins.opcode, f)
                        .filter_map(|l| l.sizes)
                        .fold(Sizes::default(), |t, s| t.plus(&s)),
                    _ => Sizes::default(),
                };
                BufferFacts { ownership, owned }
            })
            .collect();
        Analysis { module, shapes, buffers }
    }

    /// The facts of instruction `i`'s result shape, if it has a valid one.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module};
    /// let m = Module::parse("%p = f32[3]{0} parameter(0)\n");
    /// let p = m.instruction_id("p").unwrap();
    /// assert_eq!(Analysis::new(&m).facts(p).unwrap().total.array_bytes, 12);
    /// ```
    pub fn facts(&self, i: InstrId) -> Option<&ShapeFacts> {
        self.shapes.get(self.module.instructions.get(i)?.shape?)
    }

    /// The leaves instruction `i` owns (none unless it owns memory).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module};
    /// let m = Module::parse("%c = (f32[8]{0}, f32[8]{0:S(1)}, u32[]) copy-start(%x)\n");
    /// let a = Analysis::new(&m);
    /// let c = m.instruction_id("c").unwrap();
    /// let owned: Vec<_> = a.owned_leaves(c).map(|l| l.index.clone()).collect();
    /// assert_eq!(owned, [vec![0], vec![2]]);
    /// ```
    pub fn owned_leaves(&self, i: InstrId) -> impl Iterator<Item = &Leaf> + '_ {
        let ins = &self.module.instructions[i];
        let owns = self.buffers[i].ownership.owns();
        self.facts(i).filter(|_| owns).into_iter().flat_map(move |f| owned_leaves(ins.opcode, f))
    }
}

fn owned_leaves<'f>(opcode: Opcode<'f>, f: &'f ShapeFacts) -> impl Iterator<Item = &'f Leaf> + 'f {
    f.leaves.iter().filter(move |l| defines_leaf(opcode, l.index.first().copied()))
}

/// Whether an instruction of `opcode` in computation `computation` with result `facts`
/// owns memory.
fn ownership(
    m: &Module<'_>,
    computation: Option<CompId>,
    opcode: Opcode<'_>,
    facts: Option<&ShapeFacts>,
) -> Ownership {
    let context = computation.map(|c| m.computations[c].context);
    if context == Some(CallContext::Embedded) {
        // XLA allocates the constants of inlined computations other than fusions (a sort's
        // comparator, a reducer); the rest of their values live on the caller's stack.
        let fused = computation.is_some_and(|c| m.computations[c].is_fusion);
        if opcode != Opcode::Constant || fused {
            return Ownership::Embedded;
        }
    }
    if opcode == Opcode::Parameter
        && matches!(context, Some(CallContext::Sequential | CallContext::Both))
    {
        return Ownership::CallerOperand;
    }
    let (defined, leaves) = match facts {
        Some(f) => (owned_leaves(opcode, f).count(), f.leaves.len()),
        // No valid shape: decide as for an array result.
        None => (usize::from(defines_leaf(opcode, None)), 1),
    };
    match defined {
        0 => Ownership::Alias,
        n if n == leaves => Ownership::Owns,
        _ => Ownership::Partial,
    }
}

#[cfg(test)]
mod tests {
    use super::{defines_leaf, Opcode};

    #[test]
    fn which_leaves_an_instruction_defines() {
        assert!(defines_leaf(Opcode::parse("add"), None));
        assert!(!defines_leaf(Opcode::Bitcast, None));
        // copy-start: {destination, aliased operand, context}
        assert_eq!(
            [0, 1, 2].map(|i| defines_leaf(Opcode::CopyStart, Some(i))),
            [true, false, true]
        );
    }
}
