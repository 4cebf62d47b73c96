//! The model of a module: [`Module`], its [`Computation`]s and instructions, each vector
//! indexed by its own id type, every name resolved to an id when the text is read
//! ([`Module::parse`], in `read.rs`).

use std::collections::HashMap;

use crate::Shape;
use serde::Serialize;

use super::id::{CompId, IdRange, IndexVec, InstrId, ShapeId};
use super::text::attribute::AliasPair;
use super::text::diagnostic::Diagnostic;
use super::text::instruction::Instruction;
use super::text::metadata::{Metadata, SourceLocation, SourceTables};

/// A map keyed by a dump's text. Its hash is seeded at random per process (foldhash's
/// `RandomState`): a hostile dump cannot aim at collisions it does not know, which it could
/// with a fixed seed; std's SipHash, also random, costs the reader 7% more instructions.
pub(crate) type TextMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// How a computation is called, as XLA's call graph says (`CallContext`).
///
/// ```
/// use xlayout::hlo::{CallContext, Module};
/// let text = "%f (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  %a = f32[2]{0} parameter(0)\n  ROOT %x = f32[2]{0} fusion(%a), kind=kLoop, calls=%f\n}\n";
/// let m = Module::parse(text);
/// let context: Vec<_> = m.computations.iter().map(|c| c.context).collect();
/// assert_eq!(context, [CallContext::Embedded, CallContext::Root]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallContext {
    /// Called by nothing: the entry computation, or a computation of a fragment.
    Root,
    /// Run as a step of the program (`while` bodies and conditions, `conditional`
    /// branches, `call`, async computations): its instructions allocate.
    Sequential,
    /// Inlined into its caller (fused computations, reducers of `reduce`, `sort`,
    /// `scatter`, `map`, `all-reduce`, custom-call computations): nothing inside allocates.
    Embedded,
    /// Called both ways. XLA itself rejects this before assigning buffers; counted as
    /// sequential here.
    Both,
}

/// One computation: its name, where it is, its instructions.
#[derive(Clone, Debug, Serialize)]
pub struct Computation<'t> {
    /// The name, without `%`.
    pub name: &'t str,
    /// Whether it is marked `ENTRY`.
    pub is_entry: bool,
    /// The line of its header.
    pub line: usize,
    /// The header after the name: `(p: f32[2]) -> f32[2]`, maybe with
    /// `execution_thread=...`; empty in the short form (`name {`).
    pub signature: &'t str,
    /// Its instructions.
    pub instructions: IdRange<InstrId>,
    /// Its root: the instruction marked `ROOT` (the first, if several are), or else the
    /// last, as XLA's parser takes it; `None` for an empty computation.
    pub root: Option<InstrId>,
    /// How it is called.
    pub context: CallContext,
    /// Whether a `fusion` instruction calls it: XLA gives such a computation no buffers at
    /// all, where other inlined computations (a sort's comparator, a reducer) still get
    /// their constants allocated.
    pub is_fusion: bool,
}

/// A whole HLO module as text reads: header, stack-frame tables, computations and
/// instructions, distinct result shapes, and what could not be read.
///
/// Reading never fails: a line that cannot be read becomes a [`Diagnostic`] and the rest
/// is still read. Fragments (no `HloModule` line, no `ENTRY`, instructions outside any
/// computation) are read as they are.
///
/// ```
/// use xlayout::hlo::{Module, Opcode};
/// let text = "HloModule jit_f, is_scheduled=true\n\nENTRY %main (p: f32[8,128]) -> f32[8,128] {\n  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n  ROOT %n = f32[8,128]{1,0:T(8,128)} negate(%p), metadata={op_name=\"jit(f)/neg\"}\n}\n";
/// let m = Module::parse(text);
/// assert_eq!((m.name, m.is_scheduled, m.entry), (Some("jit_f"), true, m.computation_id("main")));
/// let n = m.instruction("n").unwrap();
/// assert_eq!((n.name, n.opcode, n.is_root, n.line), ("n", Opcode::Other("negate"), true, 5));
/// assert_eq!(n.operands[0].id, m.instruction_id("p"));
/// assert_eq!(m.metadata(m.instruction_id("n").unwrap()).op_name.as_deref(), Some("jit(f)/neg"));
/// assert!(m.diagnostics.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Module<'t> {
    /// The name on the `HloModule` line.
    pub name: Option<&'t str>,
    /// The `HloModule` line after the name (`is_scheduled=true, entry_computation_layout=...`).
    pub header: &'t str,
    /// Whether the header says `is_scheduled=true`: instructions are then in schedule order.
    pub is_scheduled: bool,
    /// The header's `input_output_alias={...}`: outputs of the entry computation that are
    /// (donated) parameters' buffers.
    pub input_output_alias: Vec<AliasPair>,
    /// The computations, in text order.
    pub computations: IndexVec<CompId, Computation<'t>>,
    /// The `ENTRY` computation.
    pub entry: Option<CompId>,
    /// Every instruction, in text order.
    pub instructions: IndexVec<InstrId, Instruction<'t>>,
    /// The distinct valid result shapes.
    pub shapes: IndexVec<ShapeId, Shape>,
    /// The stack-frame tables.
    pub sources: SourceTables<'t>,
    /// What could not be read, in line order: at most [`MAX_LISTED`](super::MAX_LISTED) of
    /// each kind, then one diagnostic that counts the rest of that kind.
    pub diagnostics: Vec<Diagnostic>,
    /// The number of lines (a line ends at `\n`, `\r\n` or a lone `\r`).
    pub lines: usize,
    /// Computation names to ids (the first of each name).
    pub(crate) computation_ids: TextMap<&'t str, CompId>,
    /// Instruction names to ids (the first of each name): the module's one name table.
    pub(crate) instruction_ids: TextMap<&'t str, InstrId>,
    /// The `metadata={...}` that say something, by instruction, in id order: kept beside
    /// the instructions, not in each, so that an instruction without any costs nothing.
    pub(crate) metadata: Vec<(InstrId, Metadata<'t>)>,
}

/// The metadata of an instruction that has none.
static NO_METADATA: Metadata<'static> = Metadata {
    op_type: None,
    op_name: None,
    source_file: None,
    source_line: None,
    stack_frame_id: None,
};

impl<'t> Module<'t> {
    /// The computation called `name` (without `%`).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("ENTRY main {\n}\n");
    /// assert_eq!(m.computation("main").map(|c| c.line), Some(1));
    /// ```
    pub fn computation(&self, name: &str) -> Option<&Computation<'t>> {
        self.computation_id(name).map(|c| &self.computations[c])
    }

    /// The id of the computation called `name` (the first of that name).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%f {\n}\n\nENTRY main {\n}\n");
    /// let ids = [m.computation_id("main"), m.computation_id("g")];
    /// assert_eq!(ids.map(|c| c.map(|c| c.index())), [Some(1), None]);
    /// ```
    pub fn computation_id(&self, name: &str) -> Option<CompId> {
        self.computation_ids.get(name).copied()
    }

    /// The instruction called `name` (without `%`; the first of that name in the text).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0)\n");
    /// assert_eq!(m.instruction("a").map(|i| i.line), Some(1));
    /// assert!(m.instruction("b").is_none());
    /// ```
    pub fn instruction(&self, name: &str) -> Option<&Instruction<'t>> {
        self.instruction_id(name).map(|i| &self.instructions[i])
    }

    /// The id of the instruction called `name` (the first of that name in the text).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} negate(%a)\n");
    /// assert_eq!(m.instruction_id("b").map(|i| i.index()), Some(1));
    /// ```
    pub fn instruction_id(&self, name: &str) -> Option<InstrId> {
        self.instruction_ids.get(name).copied()
    }

    /// The instruction operand `slot` of instruction `i` names, if it names one.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} negate(%a)\n");
    /// let b = m.instruction_id("b").unwrap();
    /// assert_eq!(m.operand(b, 0), m.instruction_id("a"));
    /// ```
    #[inline]
    pub fn operand(&self, i: InstrId, slot: usize) -> Option<InstrId> {
        self.instructions[i].operand(slot)
    }

    /// The `metadata={...}` of instruction `i` (the last it has, as XLA reads it); empty
    /// when it has none.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0), metadata={op_name=\"f/a\"}\n%b = f32[2]{0} negate(%a)\n");
    /// let [a, b] = ["a", "b"].map(|n| m.metadata(m.instruction_id(n).unwrap()));
    /// assert_eq!((a.op_name.as_deref(), b.op_name.as_deref()), (Some("f/a"), None));
    /// ```
    pub fn metadata(&self, i: InstrId) -> &Metadata<'t> {
        match self.metadata.binary_search_by_key(&i, |&(j, _)| j) {
            Ok(k) => &self.metadata[k].1,
            Err(_) => &NO_METADATA,
        }
    }

    /// The shape of instruction `i`, if it was read and is valid.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0)\n");
    /// assert_eq!(m.shape(m.instruction_id("a").unwrap()).unwrap().to_string(), "f32[2]{0}");
    /// ```
    pub fn shape(&self, i: InstrId) -> Option<&Shape> {
        self.instructions.get(i)?.shape.map(|id| &self.shapes[id])
    }

    /// Where instruction `i` comes from in the user's program: its `source_file` and
    /// `source_line`, or else the innermost frame of its `stack_frame_id`.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0), metadata={source_file=\"m.py\" source_line=3}\n");
    /// let at = m.source(m.instruction_id("a").unwrap());
    /// assert_eq!(at.map(|s| (s.file.into_owned(), s.line)), Some(("m.py".to_string(), 3)));
    /// ```
    pub fn source(&self, i: InstrId) -> Option<SourceLocation<'t>> {
        self.instructions.get(i)?;
        let m = self.metadata(i);
        if let (Some(file), Some(line)) = (&m.source_file, m.source_line) {
            return Some(SourceLocation { file: file.clone(), line, function: None });
        }
        self.sources.frame(m.stack_frame_id?)
    }

    /// The name of instruction `i`'s computation, if it is in one.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("ENTRY %e {\n  ROOT %a = f32[2]{0} parameter(0)\n}\n");
    /// assert_eq!(m.computation_name(m.instruction_id("a").unwrap()), Some("e"));
    /// ```
    pub fn computation_name(&self, i: InstrId) -> Option<&'t str> {
        self.instructions[i].computation.map(|c| self.computations[c].name)
    }

    /// Adds problems found before parsing (those of [`decode`](super::decode)), keeping
    /// the diagnostics in line order and at most [`MAX_LISTED`](super::MAX_LISTED) of each
    /// kind listed.
    ///
    /// ```
    /// use xlayout::hlo::{decode, Module};
    /// let (text, problems) = decode(b"%a = f32[2]{0} parameter(0)\n\xff\n");
    /// let mut m = Module::parse(&text);
    /// m.add_diagnostics(problems);
    /// let lines: Vec<_> = m.diagnostics.iter().map(|d| d.line).collect();
    /// assert_eq!(lines, [2, 2]); // not UTF-8, and then not HLO either
    /// ```
    pub fn add_diagnostics(&mut self, mut problems: Vec<Diagnostic>) {
        let mut all = std::mem::take(&mut self.diagnostics);
        all.append(&mut problems);
        self.diagnostics = super::text::diagnostic::bounded(all);
    }
}
