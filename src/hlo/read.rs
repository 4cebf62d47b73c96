//! Module text -> [`Module`]: statements into computations and instructions (result shapes
//! read by layout-runtime's parser and checked by its validator), the stack-frame tables,
//! then every name resolved to an id (operands, called computations), each computation's
//! root, and the call graph; every problem met is a [`Diagnostic`](super::Diagnostic) with its line.

use std::collections::hash_map::Entry;

use crate::{limits::MAX_NESTING, Error, Shape};

use super::id::{CompId, IdRange, IndexVec, InstrId, ShapeId, MAX_ITEMS};
use super::module::{CallContext, Computation, Module, TextMap};
use super::opcode::Opcode;
use super::text::attribute::alias_pairs;
use super::text::diagnostic::{bounded, quote, DiagnosticKind, Diagnostics};
use super::text::instruction::{self, Expanse, Instruction, Operand};
use super::text::lex::{split_name, Kind, Statement, Statements, TABLES};
use super::text::metadata::Metadata;
use super::text::walk::for_each_top_level;

/// The most shape-index entries (summed over every subshape of every instruction's result
/// shape: a subshape at tuple depth `d` has an index of `d` entries) that the analyses of
/// one module take on. Past it, an instruction's result shape is not read: an
/// [`InvalidShape`](super::DiagnosticKind::InvalidShape) diagnostic at its line names the
/// shape's subshapes, its entries and this budget, and the instruction has no shape (as
/// one nested past [`MAX_NESTING`](crate::limits::MAX_NESTING)).
///
/// The reader counts a shape's subshapes and entries from its text (as it finds the
/// shape's end), so a shape past the budget is refused before it is parsed: its parse
/// hashes each tuple's elements whole, also work per entry. The analyses copy each
/// subshape's index several times: about 45 bytes and 0.13 µs an entry (`xlayout hlo`,
/// release build, a tuple of 1,880 elements nested 63 deep: 3.9 million entries, 176 MiB,
/// 0.5 s), so 2²² entries keep a module near 200 MiB. Real programs are far inside it (the
/// committed JAX, TPU and GPU dumps: 197 entries at most in a module); a tuple of 2.86
/// million leaves (`f32[]`, 20 MB of text) has 2.86 million. A tuple of 150,000 elements
/// nested 63 deep (20 MB) has 312 million: refused.
///
/// ```
/// use xlayout::hlo::{DiagnosticKind, Module, MODULE_SHAPE_INDEX_BUDGET};
/// // 2^11 elements, each 64 levels deep: 2^11 x (1 + 2 + ... + 64) entries.
/// let element = format!("{}f32[]{}", "(".repeat(63), ")".repeat(63));
/// let shape = format!("({})", vec![element; 1 << 11].join(", "));
/// let text = format!("ENTRY %e {{\n  ROOT %t = {shape} parameter(0)\n}}\n");
/// let m = Module::parse(&text);
/// assert!(2080 << 11 > MODULE_SHAPE_INDEX_BUDGET);
/// assert_eq!(m.diagnostics[0].kind, DiagnosticKind::InvalidShape);
/// assert_eq!(m.diagnostics[0].line, 2);
/// assert!(m.diagnostics[0].message.contains("4194304"));
/// assert_eq!(m.instructions.iter().map(|i| i.shape).collect::<Vec<_>>(), [None]);
/// ```
pub const MODULE_SHAPE_INDEX_BUDGET: u64 = 1 << 22;

/// A shape read once: its id, or the diagnostic message and column offset of its error.
type Cached = Result<ShapeId, (String, usize)>;

impl<'t> Module<'t> {
    /// Reads module text. Linear in the length of the text.
    pub fn parse(text: &'t str) -> Module<'t> {
        let mut b = Builder::default();
        if let Some(d) = super::text::mlir::not_hlo(text) {
            b.m.lines = text.lines().count();
            b.m.diagnostics.push(d);
            return b.m;
        }
        let mut statements = Statements::new(text);
        for s in statements.by_ref() {
            b.statement(s);
        }
        if let Some(c) = b.open {
            let name = b.m.computations[c].name;
            let line = b.m.computations[c].line;
            b.diagnose(line, DiagnosticKind::Structure, || {
                format!("computation `{name}` is not closed by `}}` before the end of the text")
            });
            let end = b.m.instructions.len();
            b.m.computations[c].instructions.set_end(end);
        }
        b.resolve();
        let mut m = b.m;
        m.lines = statements.lines_read();
        // The two lists hold different kinds: each is bounded already.
        let mut diagnostics = b.problems.into_vec();
        diagnostics.append(&mut statements.diagnostics.into_vec());
        m.diagnostics = bounded(diagnostics);
        call_graph(&mut m);
        m
    }
}

/// XLA's call contexts, from the roots (computations nobody calls) along the calls; and
/// which computations fusions call.
fn call_graph(m: &mut Module<'_>) {
    // Calls from each computation, and from the instructions outside any (a snippet, which
    // runs as a root does).
    let mut callees: IndexVec<CompId, Vec<(CompId, bool)>> =
        IndexVec::from_elem(Vec::new(), m.computations.len());
    let mut outside: Vec<(CompId, bool)> = Vec::new();
    let mut called = IndexVec::<CompId, bool>::from_elem(false, m.computations.len());
    for ins in &m.instructions {
        // XLA's GetInstructionCallContext: these opcodes run their computations as
        // steps of the program; every other caller inlines them.
        let embedded = !matches!(ins.opcode, Opcode::Call | Opcode::Conditional | Opcode::While)
            && !ins.opcode.is_async();
        for to in ins.called.iter().filter_map(|c| c.id) {
            match ins.computation {
                Some(from) => callees[from].push((to, embedded)),
                None => outside.push((to, embedded)),
            }
            called[to] = true;
            if ins.opcode == Opcode::Fusion {
                m.computations[to].is_fusion = true;
            }
        }
    }
    // Each computation's context changes at most twice (unset -> one -> Both).
    let mut context: IndexVec<CompId, Option<CallContext>> =
        IndexVec::from_elem(None, m.computations.len());
    let mut work: Vec<CompId> = Vec::new();
    fn relax(
        from: CallContext,
        calls: &[(CompId, bool)],
        context: &mut IndexVec<CompId, Option<CallContext>>,
        work: &mut Vec<CompId>,
    ) {
        for &(to, embedded) in calls {
            let want = if embedded || from == CallContext::Embedded {
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
    for (c, &is_called) in called.iter_enumerated() {
        if !is_called {
            context[c] = Some(CallContext::Root);
            work.push(c);
        }
    }
    relax(CallContext::Root, &outside, &mut context, &mut work);
    while let Some(from) = work.pop() {
        let ctx = context[from].unwrap_or(CallContext::Root);
        relax(ctx, &callees[from], &mut context, &mut work);
    }
    for (c, ctx) in m.computations.iter_mut().zip(context.iter()) {
        // Reached by no root: only through a cycle, which XLA rejects; treated as a root.
        c.context = ctx.unwrap_or(CallContext::Root);
    }
}

/// How many operands the reader copies out of its reused operand vector; longer lists
/// take the vector itself.
const SHORT_OPERAND_LIST: usize = 64;

/// The reading state between statements.
#[derive(Default)]
struct Builder<'t> {
    m: Module<'t>,
    /// The computation whose body is open.
    open: Option<CompId>,
    /// The table whose rows are being read.
    table: Option<&'static str>,
    /// Shapes already read, by their text (when the text alone decides the parse).
    cache: TextMap<&'t str, Cached>,
    /// Distinct valid shapes, to give equal shapes one id.
    ids: ShapeIds,
    /// The shape-index entries of the instructions' shapes so far: at most
    /// [`MODULE_SHAPE_INDEX_BUDGET`].
    entries: u64,
    /// Names the module's table gives to an instruction of another computation: the first
    /// instruction of each such name in each computation (names are scoped per
    /// computation, as in XLA's parser; a name used in two computations is rare).
    shadowed: TextMap<(Option<CompId>, &'t str), InstrId>,
    /// Whether the reader stopped at [`MAX_ITEMS`] instructions or computations.
    full: bool,
    /// What could not be read.
    problems: Diagnostics,
    /// The operands of the instruction being read (one vector reused for all of them).
    operands: Vec<Operand<'t>>,
}

impl<'t> Builder<'t> {
    /// Reports a problem; `message` is only formatted when the problem is listed.
    fn diagnose(&mut self, line: usize, kind: DiagnosticKind, message: impl FnOnce() -> String) {
        self.problems.add(line, kind, None, message);
    }

    fn close(&mut self, line: usize, why: &str) {
        if let Some(c) = self.open.take() {
            let name = self.m.computations[c].name;
            let opened = self.m.computations[c].line;
            let end = self.m.instructions.len();
            self.m.computations[c].instructions.set_end(end);
            self.diagnose(opened, DiagnosticKind::Structure, || {
                format!("computation `{name}` is not closed by `}}` before {why} at line {line}")
            });
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
                Some(c) => {
                    let end = self.m.instructions.len();
                    self.m.computations[c].instructions.set_end(end);
                }
                None => self.diagnose(s.line, DiagnosticKind::Structure, || {
                    String::from("`}` closes no computation")
                }),
            },
            Kind::Instruction => self.instruction(s),
            Kind::TableHeader => self.table = TABLES.iter().copied().find(|t| *t == s.text),
            Kind::TableRow => {
                let ok = self.table.is_some_and(|t| self.m.sources.add_row(t, s.text));
                if !ok {
                    let table = self.table.unwrap_or("table");
                    self.diagnose(s.line, DiagnosticKind::UnreadableLine, || {
                        format!("not a row of the {table} table: {}", quote(s.text))
                    });
                }
            }
            Kind::Unreadable => self.diagnose(s.line, DiagnosticKind::UnreadableLine, || {
                format!("unreadable line: {}", quote(s.text))
            }),
        }
    }

    fn module(&mut self, s: Statement<'t>) {
        self.close(s.line, "the module header");
        let rest = s.text["HloModule".len()..].trim_start();
        let end = rest.find(|c: char| c == ',' || c.is_whitespace()).unwrap_or(rest.len());
        let header = rest[end..].trim_start();
        let header = header.strip_prefix(',').unwrap_or(header).trim();
        if self.m.name.is_some() {
            self.diagnose(s.line, DiagnosticKind::Structure, || {
                String::from(
                    "a second `HloModule` header: what follows is read as part of the first module",
                )
            });
            return;
        }
        self.m.name = (end > 0).then(|| &rest[..end]);
        self.m.header = header;
        let mut aliases = None;
        for_each_top_level(header, |a| {
            let Some((k, v)) = a.split_once('=') else { return };
            match k.trim() {
                "is_scheduled" if v.trim() == "true" => self.m.is_scheduled = true,
                // The first one counts.
                "input_output_alias" if aliases.is_none() => aliases = Some(alias_pairs(v)),
                _ => {}
            }
        });
        self.m.input_output_alias = aliases.unwrap_or_default();
    }

    fn computation(&mut self, s: Statement<'t>, opens_body: bool) {
        self.close(s.line, "the next computation");
        let (keyword, rest) = super::text::lex::keyword(s.text);
        let Some((name, signature)) = split_name(rest) else {
            return self.diagnose(s.line, DiagnosticKind::UnreadableLine, || {
                format!("unreadable line: {}", quote(s.text))
            });
        };
        if !opens_body {
            self.diagnose(s.line, DiagnosticKind::UnreadableLine, || {
                format!(
                    "computation header without the `{{` that opens its body: {}",
                    quote(s.text)
                )
            });
        }
        if self.is_full(s.line) {
            return;
        }
        let index = self.m.computations.next_id();
        let is_entry = keyword == Some("ENTRY");
        if is_entry {
            if self.m.entry.is_some() {
                self.diagnose(s.line, DiagnosticKind::Structure, || {
                    format!("a second ENTRY computation, `{name}`")
                });
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
            instructions: IdRange::new(at, at),
            root: None,
            context: CallContext::Root,
            is_fusion: false,
        });
        self.m.computation_ids.entry(name).or_insert(index);
        if opens_body {
            self.open = Some(index);
        }
    }

    fn instruction(&mut self, s: Statement<'t>) {
        let Some(head) = instruction::head(s.text) else {
            return self.diagnose(s.line, DiagnosticKind::UnreadableLine, || {
                format!("unreadable line: {}", quote(s.text))
            });
        };
        let (shape, shape_len) = if head.nesting > MAX_NESTING {
            let (line, column) = s.position(head.shape_at);
            self.problems.add(line, DiagnosticKind::InvalidShape, Some(column), || {
                format!(
                    "the result shape's tuples nest {} deep; tuples nested deeper than \
                     {MAX_NESTING} are not read",
                    head.nesting
                )
            });
            (None, head.shape_text.len())
        } else if !self.within_budget(&s, head.shape_at, head.expanse) {
            (None, head.shape_text.len())
        } else {
            self.shape(&s, head.shape_at, head.shape_text)
        };
        let rest = &s.text[head.shape_at + shape_len..];
        let tail = match instruction::tail_into(rest, std::mem::take(&mut self.operands)) {
            Ok(t) => t,
            Err(why) => {
                return self.diagnose(s.line, DiagnosticKind::UnreadableLine, || {
                    format!("instruction `{}` not read: {why}: {}", head.name, quote(s.text))
                })
            }
        };
        if self.is_full(s.line) {
            return;
        }
        let position = match self.open {
            Some(c) => self.m.instructions.len() - self.m.computations[c].instructions.start(),
            None => 0,
        };
        // Copied out of the reused vector at their exact length; a long list (a conditional
        // naming its branch a million times) is handed over instead, and shrunk in place,
        // rather than held twice.
        let mut list = tail.operands;
        let operands: Box<[Operand<'t>]> = if list.len() > SHORT_OPERAND_LIST {
            std::mem::take(&mut list).into_boxed_slice()
        } else {
            Box::from(list.as_slice())
        };
        self.operands = list;
        let id = self.m.instructions.push(Instruction {
            line: s.line,
            name: head.name,
            opcode: tail.opcode,
            is_root: head.is_root,
            shape_text: head.shape_text,
            shape,
            operands,
            parameter_number: tail.parameter_number,
            tuple_index: tail.tuple_index,
            called: tail.called.into_boxed_slice(),
            output_to_operand_aliasing: tail.output_to_operand_aliasing.into_boxed_slice(),
            fusion_kind: tail.fusion_kind,
            attributes: tail.attributes,
            computation: self.open,
            position,
        });
        // Most instructions of a hostile dump, and some of every dump, say nothing here:
        // only those that do take room.
        if tail.metadata != Metadata::default() {
            self.m.metadata.push((id, tail.metadata));
        }
        match self.m.instruction_ids.entry(head.name) {
            Entry::Vacant(e) => {
                e.insert(id);
            }
            Entry::Occupied(e) => {
                if self.m.instructions[*e.get()].computation != self.open {
                    self.shadowed.entry((self.open, head.name)).or_insert(id);
                }
            }
        }
    }

    /// Whether the model holds as many instructions or computations as ids can number
    /// (reported once; what follows is not read).
    fn is_full(&mut self, line: usize) -> bool {
        let full = self.m.instructions.len() >= MAX_ITEMS - 1
            || self.m.computations.len() >= MAX_ITEMS - 1;
        if full && !std::mem::replace(&mut self.full, true) {
            self.diagnose(line, DiagnosticKind::Structure, || {
                format!(
                    "more than {} instructions or computations: the rest is not read",
                    MAX_ITEMS - 1
                )
            });
        }
        full
    }

    /// Resolves every name to an id, once: operands (in their own computation), called
    /// computations, and each computation's root.
    fn resolve(&mut self) {
        let m = &mut self.m;
        for i in m.instructions.ids() {
            let scope = m.instructions[i].computation;
            let mut operands = std::mem::take(&mut m.instructions[i].operands);
            for o in &mut operands {
                o.id = match m.instruction_ids.get(o.name) {
                    Some(&first) if m.instructions[first].computation == scope => Some(first),
                    Some(_) => self.shadowed.get(&(scope, o.name)).copied(),
                    None => None,
                };
                if o.id.is_none() && m.name.is_some() {
                    // XLA's parser rejects the module ("instruction does not exist"); the
                    // report goes on, and the analyses treat the operand as absent. A
                    // fragment (no `HloModule` line) names operands outside it by design.
                    let ins = &m.instructions[i];
                    self.problems.add(ins.line, DiagnosticKind::Structure, None, || {
                        format!(
                            "operand {} of {} is not an instruction of its computation",
                            quote(o.name),
                            quote(ins.name)
                        )
                    });
                }
            }
            let ins = &mut m.instructions[i];
            ins.operands = operands;
            for c in &mut ins.called {
                c.id = m.computation_ids.get(c.name).copied();
            }
        }
        for c in m.computations.iter_mut() {
            let range = c.instructions;
            // Without `ROOT` XLA's parser takes the last instruction.
            c.root = range.iter().find(|&i| m.instructions[i].is_root).or(range.last());
        }
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
                self.problems.add(line, DiagnosticKind::InvalidShape, Some(column), || {
                    format!("invalid shape {}: {message}", quote(text))
                });
                (None, len)
            }
        }
    }

    /// Whether the analyses can take on a shape of expanse `e` as one more instruction's
    /// result within the module's [`MODULE_SHAPE_INDEX_BUDGET`] (then it is taken from the
    /// budget); if not, says so at the shape, which is not parsed.
    fn within_budget(&mut self, s: &Statement<'t>, at: usize, e: Expanse) -> bool {
        let total = self.entries.saturating_add(e.entries);
        if total <= MODULE_SHAPE_INDEX_BUDGET {
            self.entries = total;
            return true;
        }
        let (line, column) = s.position(at);
        let before = self.entries;
        self.problems.add(line, DiagnosticKind::InvalidShape, Some(column), || {
            format!(
                "the result shape has {} subshapes with {} shape-index entries ({before} in \
                 the module before it); the analyses take at most \
                 {MODULE_SHAPE_INDEX_BUDGET} entries a module: not read",
                e.subshapes, e.entries
            )
        });
        false
    }

    /// Parses and validates the shape `rest` starts with; on a syntax error the shape is
    /// taken to be `text`. Errors come with the offset they point at.
    fn read_shape(&mut self, rest: &'t str, text: &'t str) -> (Cached, usize) {
        match Shape::parse_prefix(rest) {
            Ok((shape, len)) => match shape.validate() {
                Ok(()) => (Ok(self.ids.id(shape, &mut self.m.shapes)), len),
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

/// Shape ids by shape, each shape stored once (in the module): keyed by the shape's hash
/// (seeded per process, so a dump cannot aim at collisions), with the rare shapes whose
/// hash another shape has kept in a map of their own.
#[derive(Default)]
struct ShapeIds {
    hasher: foldhash::fast::RandomState,
    by_hash: std::collections::HashMap<u64, ShapeId, foldhash::fast::RandomState>,
    collided: TextMap<Shape, ShapeId>,
}

impl ShapeIds {
    /// The id of `shape`, stored in `shapes` if it is new.
    fn id(&mut self, shape: Shape, shapes: &mut IndexVec<ShapeId, Shape>) -> ShapeId {
        use std::hash::BuildHasher;
        match self.by_hash.entry(self.hasher.hash_one(&shape)) {
            Entry::Vacant(e) => *e.insert(shapes.push(exact(shape))),
            Entry::Occupied(e) if shapes[*e.get()] == shape => *e.get(),
            Entry::Occupied(_) => match self.collided.get(&shape) {
                Some(&id) => id,
                None => {
                    let id = shapes.push(exact(shape.clone()));
                    self.collided.insert(shape, id);
                    id
                }
            },
        }
    }
}

/// `shape` with every vector in it at its exact length: the parser's vectors grow by
/// doubling (each dimension list keeps room for four), and a distinct shape is kept for the
/// whole run. Shrinking is done once per distinct shape.
fn exact(mut shape: Shape) -> Shape {
    shape.shrink_to_fit();
    shape
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_whose_hashes_collide_keep_their_own_ids() {
        use std::hash::BuildHasher;
        let mut ids = ShapeIds::default();
        let mut shapes = IndexVec::new();
        let (a, b): (Shape, Shape) = ("f32[2]{0}".parse().unwrap(), "s8[3]{0}".parse().unwrap());
        let ia = ids.id(a.clone(), &mut shapes);
        // As if `b` hashed as `a` does.
        let hb = ids.hasher.hash_one(&b);
        ids.by_hash.insert(hb, ia);
        let ib = ids.id(b.clone(), &mut shapes);
        assert_ne!(ia, ib);
        assert_eq!((ids.id(b.clone(), &mut shapes), ids.id(a.clone(), &mut shapes)), (ib, ia));
        assert_eq!(shapes.raw(), [a, b]);
    }

    /// A distinct shape is kept at its exact length: no room the parser's doubling left.
    #[test]
    fn distinct_shapes_are_kept_at_their_exact_length() {
        let m = Module::parse(
            "%t = (f32[1]{0}, f32[2]{0}, f32[3]{0}, f32[4]{0}, f32[5,6]{1,0:T(2,128)}) parameter(0)\n",
        );
        let Shape::Tuple(elements) = &m.shapes.raw()[0] else { panic!("{:?}", m.shapes) };
        assert_eq!((elements.len(), elements.distinct().len()), (5, 5));
        let Shape::Array(a) = &elements[4] else { panic!("{elements:?}") };
        let l = a.layout.as_ref().unwrap();
        let capacities = [a.dims.capacity(), l.minor_to_major.capacity(), l.tiles.capacity()];
        assert_eq!(capacities, [2, 2, 1]);
        assert_eq!(l.tiles[0].dims.capacity(), 2);
    }

    #[test]
    fn names_resolve_in_their_own_computation() {
        // `p` and `x` in both computations; `y` used before it is defined; `gone` nowhere.
        let text = "%f {\n  %p = f32[2]{0} parameter(0)\n  ROOT %x = f32[2]{0} negate(%p)\n}\n\n\
                    ENTRY %e {\n  %p = f32[2]{0} parameter(0)\n  %x = f32[2]{0} add(%p, %y)\n  \
                    %y = f32[2]{0} negate(%p)\n  %z = f32[2]{0} add(%x, %gone), to_apply=%f\n  \
                    %p = f32[2]{0} parameter(1)\n  %w = f32[2]{0} negate(%p)\n}\n";
        let m = Module::parse(text);
        let at = |k: usize| InstrId::new(k);
        let operands = |k: usize| -> Vec<Option<InstrId>> {
            m.instructions[at(k)].operands.iter().map(|o| o.id).collect()
        };
        assert_eq!(operands(1), [Some(at(0))]); // f's p
        assert_eq!(operands(3), [Some(at(2)), Some(at(4))]); // e's p, and y below
        assert_eq!(operands(5), [Some(at(3)), None]);
        // The first p of e, as in XLA's parser; the module's table: the first in the text.
        assert_eq!(operands(7), [Some(at(2))]);
        assert_eq!((m.instruction_id("p"), m.instruction_id("x")), (Some(at(0)), Some(at(1))));
        assert_eq!(m.instructions[at(5)].called[0].id, m.computation_id("f"));
        let roots: Vec<_> = m.computations.iter().map(|c| c.root).collect();
        assert_eq!(roots, [Some(at(1)), Some(at(7))]); // ROOT, or else the last
    }

    #[test]
    fn the_budget_of_shape_index_entries_is_the_modules() {
        // 1,100 elements nested 64 deep: 2.29 million entries, read; twice is past the
        // budget, so the second instruction is not read; a refused shape takes nothing
        // from the budget, so a small one after it still is.
        let element = format!("{}f32[]{}", "(".repeat(63), ")".repeat(63));
        let shape = format!("({})", vec![element; 1100].join(", "));
        let text = format!(
            "ENTRY %e {{\n  %a = {shape} parameter(0)\n  %b = {shape} parameter(1)\n  \
             %c = (f32[], (f32[])) parameter(2)\n  ROOT %d = f32[] constant(1)\n}}\n"
        );
        let m = Module::parse(&text);
        let shapes: Vec<bool> = m.instructions.iter().map(|i| i.shape.is_some()).collect();
        assert_eq!(shapes, [true, false, true, true]);
        let problems: Vec<_> = m.diagnostics.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(problems, [(3, Some(8))]);
        let entries = 1100 * 2080;
        assert_eq!(
            m.diagnostics[0].message,
            format!(
                "the result shape has {} subshapes with {entries} shape-index entries ({entries} \
                 in the module before it); the analyses take at most 4194304 entries a \
                 module: not read",
                1 + 1100 * 64
            )
        );
    }
}
