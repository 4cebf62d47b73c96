//! Module text -> [`Module`]: computations, instructions (with their result shapes read by
//! layout-runtime's parser and checked by its validator), the stack-frame tables, the call
//! graph, and every problem met, with its line.

// std's hasher (SipHash, randomly keyed): the keys are a dump's text, and a fast fixed hash
// would let a hostile dump make every look-up collide.
use std::collections::HashMap;
use std::ops::Range;

use crate::{Error, Shape};
use serde::Serialize;

use super::diagnostic::{quote, Diagnostic, DiagnosticKind};
use super::instruction::{self, Called};
use super::lex::{split_name, Kind, Statement, Statements, TABLES};
use super::metadata::{Metadata, SourceLocation, SourceTables};

/// The index of a distinct result shape in [`Module::shapes`].
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} negate(%a)\n");
/// assert_eq!(m.instructions[0].shape, m.instructions[1].shape);
/// assert_eq!(m.shapes.len(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ShapeId(pub u32);

/// How a computation is called, as XLA's call graph says (`CallContext`).
///
/// ```
/// use xlayout::hlo::{CallContext, Module};
/// let text = "%f (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  %a = f32[2]{0} parameter(0)\n  ROOT %x = f32[2]{0} fusion(%a), kind=kLoop, calls=%f\n}\n";
/// let m = Module::parse(text);
/// assert_eq!(m.computations[0].context, CallContext::Embedded);
/// assert_eq!(m.computations[1].context, CallContext::Root);
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
    /// Its instructions, as indices into [`Module::instructions`].
    pub instructions: Range<usize>,
    /// How it is called.
    pub context: CallContext,
    /// Whether a `fusion` instruction calls it: XLA gives such a computation no buffers at
    /// all, where other inlined computations (a sort's comparator, a reducer) still get
    /// their constants allocated.
    pub is_fusion: bool,
}

/// One instruction: what the dump says about it, with its result shape read and checked.
#[derive(Clone, Debug, Serialize)]
pub struct Instruction<'t> {
    /// The line it starts on.
    pub line: usize,
    /// The name, without `%`.
    pub name: &'t str,
    /// The opcode (`fusion`, `custom-call`, `get-tuple-element`, ...).
    pub opcode: &'t str,
    /// Whether it is its computation's `ROOT`.
    pub is_root: bool,
    /// The result shape as written.
    pub shape_text: &'t str,
    /// The result shape, if the parser and the validator accept it.
    pub shape: Option<ShapeId>,
    /// The names of its operands, without `%`.
    pub operands: Vec<&'t str>,
    /// `parameter(N)`: N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter_number: Option<u64>,
    /// The computations it calls.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub called: Vec<Called<'t>>,
    /// Everything after the operand list, as written (`kind=kLoop, calls=%f, ...`).
    pub attributes: &'t str,
    /// Its `metadata={...}`.
    pub metadata: Metadata<'t>,
    /// Its computation, as an index into [`Module::computations`]; `None` for an
    /// instruction outside any computation (a snippet).
    pub computation: Option<usize>,
    /// Its place in its computation (the schedule order in a scheduled module), from 0.
    pub position: usize,
}

/// A whole HLO module as text reads: header, stack-frame tables, computations and
/// instructions, distinct result shapes, and what could not be read.
///
/// Reading never fails: a line that cannot be read becomes a [`Diagnostic`] and the rest
/// is still read. Fragments (no `HloModule` line, no `ENTRY`, instructions outside any
/// computation) are read as they are.
///
/// ```
/// use xlayout::hlo::Module;
/// let text = "HloModule jit_f, is_scheduled=true\n\nENTRY %main (p: f32[8,128]) -> f32[8,128] {\n  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n  ROOT %n = f32[8,128]{1,0:T(8,128)} negate(%p), metadata={op_name=\"jit(f)/neg\"}\n}\n";
/// let m = Module::parse(text);
/// assert_eq!((m.name, m.is_scheduled, m.entry), (Some("jit_f"), true, Some(0)));
/// let n = &m.instructions[1];
/// assert_eq!((n.name, n.opcode, n.is_root, n.line), ("n", "negate", true, 5));
/// assert_eq!(n.operands, ["p"]);
/// assert_eq!(n.metadata.op_name.as_deref(), Some("jit(f)/neg"));
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
    /// The computations, in text order.
    pub computations: Vec<Computation<'t>>,
    /// The `ENTRY` computation.
    pub entry: Option<usize>,
    /// Every instruction, in text order.
    pub instructions: Vec<Instruction<'t>>,
    /// The distinct valid result shapes, indexed by [`ShapeId`].
    pub shapes: Vec<Shape>,
    /// The stack-frame tables.
    pub sources: SourceTables<'t>,
    /// What could not be read, in line order.
    pub diagnostics: Vec<Diagnostic>,
    /// The number of lines.
    pub lines: usize,
    /// Computation names to indices.
    by_name: HashMap<&'t str, usize>,
}

/// Brackets in a result shape nest at most this deep (tuples nested some 60 levels): the
/// parser recurses once per level, so hostile nesting must not reach it.
const MAX_NESTING: usize = 64;

/// A shape read once: its id, or the diagnostic message and column offset of its error.
type Cached = Result<ShapeId, (String, usize)>;

impl<'t> Module<'t> {
    /// Reads module text. Linear in the length of the text.
    pub fn parse(text: &'t str) -> Module<'t> {
        let mut b = Builder::default();
        let mut statements = Statements::new(text);
        for s in statements.by_ref() {
            b.statement(s);
        }
        let mut m = b.m;
        if let Some(c) = b.open {
            let name = m.computations[c].name;
            let line = m.computations[c].line;
            m.diagnostics.push(Diagnostic::new(
                line,
                DiagnosticKind::Structure,
                format!("computation `{name}` is not closed by `}}` before the end of the text"),
            ));
            m.computations[c].instructions.end = m.instructions.len();
        }
        m.lines = statements.lines_read();
        m.diagnostics.append(&mut statements.diagnostics);
        m.diagnostics.sort_by_key(Diagnostic::order);
        m.call_graph();
        m
    }

    /// Adds problems found before parsing (those of [`decode`](super::decode)), keeping
    /// the diagnostics in line order.
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
        self.diagnostics.append(&mut problems);
        self.diagnostics.sort_by_key(Diagnostic::order);
    }

    /// The computation called `name` (without `%`).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("ENTRY main {\n}\n");
    /// assert_eq!(m.computation("main").map(|c| c.line), Some(1));
    /// ```
    pub fn computation(&self, name: &str) -> Option<&Computation<'t>> {
        self.computation_index(name).map(|i| &self.computations[i])
    }

    /// The index in [`Module::computations`] of the computation called `name` (the first
    /// of that name).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%f {\n}\n\nENTRY main {\n}\n");
    /// assert_eq!((m.computation_index("main"), m.computation_index("g")), (Some(1), None));
    /// ```
    pub fn computation_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The shape of instruction `i`, if it was read and is valid.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0)\n");
    /// assert_eq!(m.shape(0).unwrap().to_string(), "f32[2]{0}");
    /// ```
    pub fn shape(&self, i: usize) -> Option<&Shape> {
        self.instructions.get(i)?.shape.map(|id| &self.shapes[id.0 as usize])
    }

    /// Where instruction `i` comes from in the user's program: its `source_file` and
    /// `source_line`, or else the innermost frame of its `stack_frame_id`.
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0), metadata={source_file=\"m.py\" source_line=3}\n");
    /// assert_eq!(m.source(0).map(|s| (s.file.into_owned(), s.line)), Some(("m.py".to_string(), 3)));
    /// ```
    pub fn source(&self, i: usize) -> Option<SourceLocation<'t>> {
        let m = &self.instructions.get(i)?.metadata;
        if let (Some(file), Some(line)) = (&m.source_file, m.source_line) {
            return Some(SourceLocation { file: file.clone(), line, function: None });
        }
        self.sources.frame(m.stack_frame_id?)
    }

    /// XLA's call contexts, from the roots (computations nobody calls) along the calls.
    fn call_graph(&mut self) {
        // Node n is computation n; the last node stands for the instructions outside any
        // computation (a snippet), which run as a root does.
        let n = self.computations.len();
        let mut callees: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n + 1];
        let mut called = vec![false; n + 1];
        for ins in &self.instructions {
            let from = ins.computation.unwrap_or(n);
            // XLA's GetInstructionCallContext: these opcodes run their computations as
            // steps of the program; every other caller inlines them.
            let embedded = !matches!(
                ins.opcode,
                "call" | "conditional" | "while" | "async-start" | "async-update" | "async-done"
            );
            for c in &ins.called {
                if let Some(&to) = self.by_name.get(c.computation) {
                    callees[from].push((to, embedded));
                    called[to] = true;
                    if ins.opcode == "fusion" {
                        self.computations[to].is_fusion = true;
                    }
                }
            }
        }
        // Each computation's context changes at most twice (unset -> one -> Both).
        let mut context: Vec<Option<CallContext>> = vec![None; n + 1];
        let mut work: Vec<usize> = Vec::new();
        for (i, c) in called.iter().enumerate() {
            if !c {
                context[i] = Some(CallContext::Root);
                work.push(i);
            }
        }
        while let Some(from) = work.pop() {
            let inside_embedded = context[from] == Some(CallContext::Embedded);
            for &(to, embedded) in &callees[from] {
                let want = if embedded || inside_embedded {
                    CallContext::Embedded
                } else {
                    CallContext::Sequential
                };
                let new = match context[to] {
                    None => want,
                    Some(c) if c == want || c == CallContext::Both => continue,
                    Some(CallContext::Root) => continue,
                    Some(_) => CallContext::Both,
                };
                context[to] = Some(new);
                work.push(to);
            }
        }
        for (c, ctx) in self.computations.iter_mut().zip(context) {
            // Reached by no root: only through a cycle, which XLA rejects; treated as a root.
            c.context = ctx.unwrap_or(CallContext::Root);
        }
    }
}

/// The reading state between statements.
#[derive(Default)]
struct Builder<'t> {
    m: Module<'t>,
    /// The computation whose body is open.
    open: Option<usize>,
    /// The table whose rows are being read.
    table: Option<&'static str>,
    /// Shapes already read, by their text (when the text alone decides the parse).
    cache: HashMap<&'t str, Cached>,
    /// Distinct valid shapes by their text, to give equal shapes one id.
    ids: HashMap<Shape, ShapeId>,
}

impl<'t> Builder<'t> {
    fn diagnose(&mut self, line: usize, kind: DiagnosticKind, message: String) {
        self.m.diagnostics.push(Diagnostic::new(line, kind, message));
    }

    fn close(&mut self, line: usize, why: &str) {
        if let Some(c) = self.open.take() {
            let name = self.m.computations[c].name;
            let opened = self.m.computations[c].line;
            self.m.computations[c].instructions.end = self.m.instructions.len();
            self.diagnose(
                opened,
                DiagnosticKind::Structure,
                format!("computation `{name}` is not closed by `}}` before {why} at line {line}"),
            );
        }
    }

    fn statement(&mut self, s: Statement<'t>) {
        if s.kind != Kind::TableRow {
            self.table = None;
        }
        match s.kind {
            Kind::Module => self.module(s),
            Kind::Computation { opens_body } => self.computation(s, opens_body),
            Kind::End => match self.open.take() {
                Some(c) => self.m.computations[c].instructions.end = self.m.instructions.len(),
                None => self.diagnose(
                    s.line,
                    DiagnosticKind::Structure,
                    String::from("`}` closes no computation"),
                ),
            },
            Kind::Instruction => self.instruction(s),
            Kind::TableHeader => self.table = TABLES.iter().copied().find(|t| *t == s.text),
            Kind::TableRow => {
                let ok = self.table.is_some_and(|t| self.m.sources.add_row(t, s.text));
                if !ok {
                    let table = self.table.unwrap_or("table");
                    self.diagnose(
                        s.line,
                        DiagnosticKind::UnreadableLine,
                        format!("not a row of the {table} table: {}", quote(s.text)),
                    );
                }
            }
            Kind::Unreadable => self.diagnose(
                s.line,
                DiagnosticKind::UnreadableLine,
                format!("unreadable line: {}", quote(s.text)),
            ),
        }
    }

    fn module(&mut self, s: Statement<'t>) {
        self.close(s.line, "the module header");
        let rest = s.text["HloModule".len()..].trim_start();
        let end = rest.find(|c: char| c == ',' || c.is_whitespace()).unwrap_or(rest.len());
        let header = rest[end..].trim_start();
        let header = header.strip_prefix(',').unwrap_or(header).trim();
        if self.m.name.is_some() {
            self.diagnose(
                s.line,
                DiagnosticKind::Structure,
                String::from(
                    "a second `HloModule` header: what follows is read as part of the first module",
                ),
            );
            return;
        }
        self.m.name = (end > 0).then(|| &rest[..end]);
        self.m.header = header;
        self.m.is_scheduled = super::lex::split_top_level(header).iter().any(|a| {
            a.split_once('=').is_some_and(|(k, v)| k.trim() == "is_scheduled" && v.trim() == "true")
        });
    }

    fn computation(&mut self, s: Statement<'t>, opens_body: bool) {
        self.close(s.line, "the next computation");
        let (keyword, rest) = super::lex::keyword(s.text);
        let Some((name, signature)) = split_name(rest) else {
            return self.diagnose(
                s.line,
                DiagnosticKind::UnreadableLine,
                format!("unreadable line: {}", quote(s.text)),
            );
        };
        if !opens_body {
            self.diagnose(
                s.line,
                DiagnosticKind::UnreadableLine,
                format!(
                    "computation header without the `{{` that opens its body: {}",
                    quote(s.text)
                ),
            );
        }
        let index = self.m.computations.len();
        let is_entry = keyword == Some("ENTRY");
        if is_entry {
            if self.m.entry.is_some() {
                self.diagnose(
                    s.line,
                    DiagnosticKind::Structure,
                    format!("a second ENTRY computation, `{name}`"),
                );
            } else {
                self.m.entry = Some(index);
            }
        }
        let at = self.m.instructions.len();
        self.m.computations.push(Computation {
            name,
            is_entry,
            line: s.line,
            signature,
            instructions: at..at,
            context: CallContext::Root,
            is_fusion: false,
        });
        self.m.by_name.entry(name).or_insert(index);
        if opens_body {
            self.open = Some(index);
        }
    }

    fn instruction(&mut self, s: Statement<'t>) {
        let Some(head) = instruction::head(s.text) else {
            return self.diagnose(
                s.line,
                DiagnosticKind::UnreadableLine,
                format!("unreadable line: {}", quote(s.text)),
            );
        };
        let (shape, shape_len) = if head.nesting > MAX_NESTING {
            let (line, column) = s.position(head.shape_at);
            self.m.diagnostics.push(
                Diagnostic::new(
                    line,
                    DiagnosticKind::InvalidShape,
                    format!(
                        "the result shape's brackets nest {} deep; shapes nested deeper than \
                         {MAX_NESTING} are not read",
                        head.nesting
                    ),
                )
                .at_column(column),
            );
            (None, head.shape_text.len())
        } else {
            self.shape(&s, head.shape_at, head.shape_text)
        };
        let rest = &s.text[head.shape_at + shape_len..];
        let tail = match instruction::tail(rest) {
            Ok(t) => t,
            Err(why) => {
                return self.diagnose(
                    s.line,
                    DiagnosticKind::UnreadableLine,
                    format!("instruction `{}` not read: {why}: {}", head.name, quote(s.text)),
                )
            }
        };
        let position = match self.open {
            Some(c) => self.m.instructions.len() - self.m.computations[c].instructions.start,
            None => 0,
        };
        self.m.instructions.push(Instruction {
            line: s.line,
            name: head.name,
            opcode: tail.opcode,
            is_root: head.is_root,
            shape_text: head.shape_text,
            shape,
            operands: tail.operands,
            parameter_number: tail.parameter_number,
            called: tail.called,
            attributes: tail.attributes,
            metadata: tail.metadata,
            computation: self.open,
            position,
        });
    }

    /// The shape at `at` in the statement: its id (or `None`, reported) and the length
    /// of its text. A shape is parsed once per distinct text when what follows it (a
    /// blank, then the opcode) cannot change the parse.
    fn shape(&mut self, s: &Statement<'t>, at: usize, text: &'t str) -> (Option<ShapeId>, usize) {
        let after = s.text[at + text.len()..].trim_start();
        let cacheable = after.starts_with(|c: char| c.is_ascii_alphabetic());
        let found = if cacheable { self.cache.get(text).cloned() } else { None };
        let (result, len) = match found {
            Some(r) => (r, text.len()),
            None => {
                let (r, len) = self.read_shape(&s.text[at..], text);
                if cacheable && len == text.len() {
                    self.cache.insert(text, r.clone());
                }
                (r, len)
            }
        };
        match result {
            Ok(id) => (Some(id), len),
            Err((message, offset)) => {
                let (line, column) = s.position(at + offset);
                self.m.diagnostics.push(
                    Diagnostic::new(
                        line,
                        DiagnosticKind::InvalidShape,
                        format!("invalid shape `{text}`: {message}"),
                    )
                    .at_column(column),
                );
                (None, len)
            }
        }
    }

    /// Parses and validates the shape `rest` starts with; on a syntax error the shape is
    /// taken to be `text`. Errors come with the offset they point at.
    fn read_shape(&mut self, rest: &'t str, text: &'t str) -> (Cached, usize) {
        match Shape::parse_prefix(rest) {
            Ok((shape, len)) => match shape.validate() {
                Ok(()) => {
                    let next = ShapeId(self.m.shapes.len() as u32);
                    let id = *self.ids.entry(shape).or_insert_with_key(|shape| {
                        self.m.shapes.push(shape.clone());
                        next
                    });
                    (Ok(id), len)
                }
                Err(e) => {
                    // Parsing the shape's own text again locates the validator's error.
                    let located: Error = rest[..len].parse::<Shape>().err().unwrap_or(e);
                    let offset = located.span().map_or(0, |r| r.start);
                    (Err((located.message().to_string(), offset)), len)
                }
            },
            Err(e) => {
                let offset = e.span().map_or(0, |r| r.start.min(rest.len()));
                (Err((e.message().to_string(), offset)), text.len())
            }
        }
    }
}
