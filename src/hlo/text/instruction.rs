//! One instruction: the [`Instruction`] type, and its statement,
//! `[ROOT] name = shape opcode(operands), key=value, ...`, read in two steps around its
//! result shape (which layout-runtime's parser reads): the head (`ROOT`, name, where the
//! shape starts) and the tail (opcode, operands, attributes).

use std::ops::ControlFlow;

use serde::Serialize;

use super::super::id::{CompId, InstrId, ShapeId};
use super::super::opcode::Opcode;
use super::attribute::{alias_pairs, AliasPair, CallAttribute, FusionKind};
use super::lex::{is_name_byte, keyword, split_name};
use super::metadata::Metadata;
use super::walk::{for_each_top_level, matching_close, walk, Event, BRACKETS_BLANKS_AND_COMMAS};

/// The part before the result shape.
pub(crate) struct Head<'t> {
    pub is_root: bool,
    pub name: &'t str,
    /// Byte offset of the shape in the statement.
    pub shape_at: usize,
    /// The shape as written: up to the first blank outside brackets, strings and comments.
    pub shape_text: &'t str,
    /// How deep its tuples (and `b(...)` buffers) nest, as the shape parser counts them:
    /// `(` outside the `[...]` of dimensions and the `{...}` of a layout.
    pub nesting: usize,
    /// The subshapes the analyses expand the shape into (each one a buffer in XLA: a
    /// tuple's is its index table) and their shape indices' entries (a subshape at tuple
    /// depth `d` has `d`), counted from the text as [`Head::nesting`] is: the shape and
    /// each element of each tuple (an element per `,` in the tuple, and one more unless
    /// the tuple is `()`). Saturating.
    pub expanse: Expanse,
}

/// What the analyses expand a shape into: see [`Head::expanse`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Expanse {
    /// Subshapes: the shape itself, and every element of every tuple in it.
    pub subshapes: u64,
    /// Shape-index entries of all the subshapes (the tuple depth of each, summed).
    pub entries: u64,
}

impl Expanse {
    /// One more subshape, at tuple depth `depth`.
    fn add(&mut self, depth: usize) {
        self.subshapes = self.subshapes.saturating_add(1);
        self.entries = self.entries.saturating_add(depth as u64);
    }
}

/// Reads `[ROOT] name =` and finds the extent of the shape text.
pub(crate) fn head(text: &str) -> Option<Head<'_>> {
    let (keyword, rest) = keyword(text);
    let (name, after) = split_name(rest)?;
    let value = after.strip_prefix('=')?;
    let value = value.trim_start();
    let shape_at = text.len() - value.len();
    // Open tuple brackets, and open brackets of other kinds (and `(` inside them).
    let (mut tuples, mut other, mut nesting) = (0usize, 0usize, 0usize);
    let mut expanse = Expanse { subshapes: 1, entries: 0 };
    // Where the innermost tuple opened last opens: a `)` with only blanks after it closes
    // `()`, which has no element.
    let mut opened = 0;
    let len = walk(value, &BRACKETS_BLANKS_AND_COMMAS, |at, e, depth| {
        match e {
            Event::Byte(b) if depth == 0 && b.is_ascii_whitespace() => {
                return ControlFlow::Break(())
            }
            Event::Byte(b'(') if other == 0 => {
                tuples += 1;
                nesting = nesting.max(tuples);
                // Its first element.
                expanse.add(tuples);
                opened = at;
            }
            Event::Byte(b',') if other == 0 && tuples > 0 => expanse.add(tuples),
            Event::Byte(b'(' | b'[' | b'{') => other += 1,
            Event::Byte(b')') if other == 0 => {
                if tuples > 0 && value[opened + 1..at].trim().is_empty() {
                    // `()`: no first element after all.
                    expanse.subshapes -= 1;
                    expanse.entries -= tuples as u64;
                }
                tuples = tuples.saturating_sub(1);
            }
            Event::Byte(b')' | b']' | b'}') => other = other.saturating_sub(1),
            _ => {}
        }
        ControlFlow::Continue(())
    })
    .unwrap_or(value.len());
    let shape_text = &value[..len];
    Some(Head { is_root: keyword == Some("ROOT"), name, shape_at, shape_text, nesting, expanse })
}

/// One instruction: what the dump says about it, with its result shape read and checked,
/// its operands and called computations resolved to ids, and the attributes the analyses
/// read parsed.
#[derive(Clone, Debug, Serialize)]
pub struct Instruction<'t> {
    /// The line it starts on.
    pub line: usize,
    /// The name, without `%`.
    pub name: &'t str,
    /// The opcode.
    pub opcode: Opcode<'t>,
    /// Whether it is its computation's `ROOT`.
    pub is_root: bool,
    /// The result shape as written.
    pub shape_text: &'t str,
    /// The result shape, if the parser and the validator accept it.
    pub shape: Option<ShapeId>,
    /// Its operands, in order (a boxed slice: no spare capacity kept per instruction).
    pub operands: Box<[Operand<'t>]>,
    /// `parameter(N)`: N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter_number: Option<u64>,
    /// `get-tuple-element`'s `index=N`: N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuple_index: Option<u64>,
    /// The computations it calls.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub called: Box<[Called<'t>]>,
    /// `output_to_operand_aliasing={...}`: outputs that are operands' buffers.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub output_to_operand_aliasing: Box<[AliasPair]>,
    /// A fusion's `kind=`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fusion_kind: Option<FusionKind>,
    /// Everything after the operand list, as written (`kind=kLoop, calls=%f, ...`).
    pub attributes: &'t str,
    /// Its computation; `None` for an instruction outside any computation (a snippet).
    pub computation: Option<CompId>,
    /// Its place in its computation (the schedule order in a scheduled module), from 0.
    pub position: usize,
}

impl Instruction<'_> {
    /// The instruction operand `slot` names, if there is one of that name in this
    /// instruction's computation.
    ///
    /// ```
    /// use xlayout::hlo::Module;
    /// let m = Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} add(%a, %gone)\n");
    /// let b = &m.instructions[m.instruction_id("b").unwrap()];
    /// assert_eq!((b.operand(0), b.operand(1), b.operand(2)), (m.instruction_id("a"), None, None));
    /// ```
    #[inline]
    pub fn operand(&self, slot: usize) -> Option<InstrId> {
        self.operands.get(slot)?.id
    }

    /// The computations it runs as steps of the program before its own step, in XLA's
    /// order: a `call`'s `to_apply` (or `calls`), a `conditional`'s branches, a `while`'s
    /// condition then body (whatever order the text names them in); none for other opcodes.
    ///
    /// ```
    /// use xlayout::hlo::{CallAttribute, Module};
    /// let m = Module::parse("%b {\n}\n%c {\n}\n%w = (s32[]) while(%t), body=%b, condition=%c\n");
    /// let w = &m.instructions.raw()[0];
    /// let order: Vec<_> = w.sequential_callees().map(|(a, c)| (a, m.computations[c].name)).collect();
    /// assert_eq!(order, [(CallAttribute::Condition, "c"), (CallAttribute::Body, "b")]);
    /// ```
    pub fn sequential_callees(&self) -> impl Iterator<Item = (CallAttribute, CompId)> + '_ {
        use CallAttribute as A;
        let order: &'static [CallAttribute] = match self.opcode {
            Opcode::Call => &[A::ToApply, A::Calls],
            Opcode::Conditional => {
                &[A::BranchComputations, A::TrueComputation, A::FalseComputation]
            }
            Opcode::While => &[A::Condition, A::Body],
            _ => &[],
        };
        order.iter().flat_map(move |&a| {
            self.called
                .iter()
                .filter(move |c| c.attribute == a)
                .filter_map(move |c| Some((a, c.id?)))
        })
    }

    /// The first computation it names with `attribute`.
    ///
    /// ```
    /// use xlayout::hlo::{CallAttribute, Module};
    /// let m = Module::parse("%f {\n}\n%x = f32[2]{0} fusion(), kind=kLoop, calls=%f\n");
    /// let x = &m.instructions.raw()[0];
    /// assert_eq!(x.called_by(CallAttribute::Calls), m.computation_id("f"));
    /// ```
    pub fn called_by(&self, attribute: CallAttribute) -> Option<CompId> {
        self.called.iter().find(|c| c.attribute == attribute)?.id
    }
}

/// An operand: the name as written and the instruction it names.
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} negate(f32[2]{0} %a)\n");
/// let o = &m.instructions.raw()[1].operands[0];
/// assert_eq!((o.name, o.id), ("a", m.instruction_id("a")));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Operand<'t> {
    /// The name, without `%`.
    pub name: &'t str,
    /// The instruction of that name in the same computation (the first, if several have
    /// it); `None` when there is none.
    pub id: Option<InstrId>,
}

/// A computation an instruction calls, and the attribute that names it.
///
/// ```
/// use xlayout::hlo::{CallAttribute, Module};
/// let m = Module::parse("%w = (s32[]) while(%t), condition=%cond, body=%body\n");
/// let called: Vec<_> = m.instructions.raw()[0].called.iter().map(|c| (c.attribute, c.name)).collect();
/// assert_eq!(called, [(CallAttribute::Condition, "cond"), (CallAttribute::Body, "body")]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Called<'t> {
    /// `calls`, `to_apply`, `body`, `condition`, `branch_computations`, ...
    pub attribute: CallAttribute,
    /// The computation's name, without `%`.
    pub name: &'t str,
    /// The computation of that name (the first, if several have it); `None` when the
    /// module has none.
    pub id: Option<CompId>,
}

/// The part after the result shape.
#[derive(Debug)]
pub(crate) struct Tail<'t> {
    pub opcode: Opcode<'t>,
    pub operands: Vec<Operand<'t>>,
    pub parameter_number: Option<u64>,
    pub tuple_index: Option<u64>,
    pub attributes: &'t str,
    pub metadata: Metadata<'t>,
    pub called: Vec<Called<'t>>,
    pub output_to_operand_aliasing: Vec<AliasPair>,
    pub fusion_kind: Option<FusionKind>,
}

/// Whether attribute `key` of an `opcode` instruction names computations, and which.
fn call_attribute(key: &str, opcode: Opcode<'_>) -> Option<CallAttribute> {
    match CallAttribute::parse(key)? {
        CallAttribute::Scatter if opcode != Opcode::SelectAndScatter => None,
        a => Some(a),
    }
}

/// Reads `opcode(operands), attributes` (`rest` starts after the shape). `Err` says what
/// is missing. Operands and called computations are left unresolved (`id: None`).
pub(crate) fn tail<'t>(rest: &'t str) -> Result<Tail<'t>, &'static str> {
    tail_into(rest, Vec::new())
}

/// [`tail`], collecting the operands into `operands` (emptied first): a reader passes
/// the same vector for every instruction and copies the operands out at their exact
/// length, one allocation each, where a vector per instruction would grow and shrink.
pub(crate) fn tail_into<'t>(
    rest: &'t str,
    mut operands: Vec<Operand<'t>>,
) -> Result<Tail<'t>, &'static str> {
    operands.clear();
    let rest = rest.trim_start();
    let len = rest.bytes().take_while(|&b| is_name_byte(b)).count();
    if len == 0 {
        return Err("no opcode after the result shape");
    }
    let opcode = Opcode::parse(&rest[..len]);
    let after = rest[len..].trim_start();
    if !after.starts_with('(') {
        return Err("no `(` after the opcode");
    }
    let (operand_text, attributes) = match matching_close(after) {
        Some(close) => {
            let attributes = after[close + 1..].trim_start();
            (&after[1..close], attributes.strip_prefix(',').unwrap_or(attributes).trim())
        }
        // Unclosed (already reported as such): what there is are operands.
        None => (&after[1..], ""),
    };
    let mut t = Tail {
        opcode,
        operands,
        parameter_number: None,
        tuple_index: None,
        attributes,
        metadata: Metadata::default(),
        called: Vec::new(),
        output_to_operand_aliasing: Vec::new(),
        fusion_kind: None,
    };
    match opcode {
        Opcode::Parameter => t.parameter_number = operand_text.trim().parse().ok(),
        Opcode::Constant => {} // a literal, no operands
        _ => for_each_top_level(operand_text, |piece| {
            if let Some(name) = operand_name(piece) {
                t.operands.push(Operand { name, id: None });
            }
        }),
    }
    // The first `index=` and `output_to_operand_aliasing=` count, as the last `metadata=`.
    let (mut index_seen, mut aliasing_seen) = (false, false);
    for_each_top_level(attributes, |attribute| {
        let Some((key, value)) = attribute.split_once('=') else { return };
        let key = key.trim();
        let value = value.trim();
        if key == "metadata" {
            t.metadata = Metadata::parse(value);
        } else if key == "index" && !std::mem::replace(&mut index_seen, true) {
            if opcode == Opcode::GetTupleElement {
                t.tuple_index = value.parse().ok();
            }
        } else if key == "kind" && opcode == Opcode::Fusion {
            t.fusion_kind = t.fusion_kind.or(FusionKind::parse(value));
        } else if key == "output_to_operand_aliasing"
            && !std::mem::replace(&mut aliasing_seen, true)
        {
            t.output_to_operand_aliasing = alias_pairs(value);
        } else if let Some(attribute) = call_attribute(key, opcode) {
            let mut add = |name: &'t str| {
                if let Some((name, _)) = split_name(name) {
                    t.called.push(Called { attribute, name, id: None });
                }
            };
            match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
                Some(inner) => for_each_top_level(inner, &mut add),
                None => add(value),
            }
        }
    });
    Ok(t)
}

/// The name an operand ends with: `%x`, `f32[2]{0} %x`, `/*index=5*/x.1` all name `x`
/// (`x.1`); `None` for a piece that ends in no name (a literal).
fn operand_name(piece: &str) -> Option<&str> {
    let b = piece.as_bytes();
    let end = b.len();
    let start = end - b.iter().rev().take_while(|&&c| is_name_byte(c)).count();
    if start == end {
        return None;
    }
    // A name is the whole last word: `]x` or `}x` would be part of something else.
    match start.checked_sub(1).map(|i| b[i]) {
        None | Some(b'%' | b'/' | b' ' | b'\t' | b'\n' | b'\r') => Some(&piece[start..end]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_finds_the_shape() {
        let h = head("ROOT %t.1   =   (f32[2]{0}, /*index=1*/ s32[]) tuple(%a, %b)").unwrap();
        assert!(h.is_root);
        assert_eq!((h.name, h.shape_text), ("t.1", "(f32[2]{0}, /*index=1*/ s32[])"));
        assert_eq!(h.nesting, 1);
        let h = head("%t = ((f32[2]{0:T(2)}), b(s32[])) tuple(%a)").unwrap();
        assert_eq!(h.nesting, 2);
        let h = head("x=f32[]constant(1)").unwrap();
        assert_eq!((h.name, h.shape_text, h.shape_at), ("x", "f32[]constant(1)", 2));
        assert!(head("= f32[]").is_none());
        assert!(head("x f32[]").is_none());
    }

    #[test]
    fn head_counts_the_subshapes_and_index_entries() {
        let expanse = |text: &str| {
            let h = head(text).unwrap();
            (h.expanse.subshapes, h.expanse.entries)
        };
        // Indices {}, {0}, {1}, {1,0}, {1,1}, {2}: 6 subshapes, 0+1+1+2+2+1 entries; the
        // commas of dimensions, layouts and comments, and the `(` of a tile, are none.
        let text = "%t = (f32[2,3]{1,0}, /*index=1,2*/ (s4[64]{0:E(4)}, token[]), \
                    f32[10,2]{1,0:T(8,128)}) parameter(0)";
        assert_eq!(expanse(text), (6, 7));
        assert_eq!(expanse("%a = f32[2]{0} parameter(0)"), (1, 0));
        // `()` has no element, `(())` one.
        assert_eq!(expanse("%a = () tuple()"), (1, 0));
        assert_eq!(expanse("%a = (( ), (f32[])) tuple()"), (4, 4));
        // 63 levels inside the outer tuple, twice: depths 1..=64 each.
        let element = format!("{}f32[]{}", "(".repeat(63), ")".repeat(63));
        let text = format!("%t = ({element}, {element}) parameter(0)");
        assert_eq!(expanse(&text), (1 + 2 * 64, 2 * (64 * 65 / 2)));
    }

    #[test]
    fn tail_reads_operands_attributes_and_calls() {
        let t = tail(
            " fusion(f32[2]{0} %a, /*index=1*/%b.2, c), kind=kLoop, calls=%fused.1, \
             metadata={op_name=\"x, y=(z)\" source_line=3}, backend_config={\"k\":\"v, w\"}",
        )
        .unwrap();
        assert_eq!(t.opcode, Opcode::Fusion);
        assert_eq!(names(&t.operands), ["a", "b.2", "c"]);
        assert_eq!(
            t.called,
            [Called { attribute: CallAttribute::Calls, name: "fused.1", id: None }]
        );
        assert_eq!(t.metadata.op_name.as_deref(), Some("x, y=(z)"));
        assert!(t.attributes.starts_with("kind=kLoop"));
        let t = tail("conditional(%p, %a, %b), branch_computations={%b0, %b1}").unwrap();
        let called: Vec<_> = t.called.iter().map(|c| c.name).collect();
        assert_eq!(called, ["b0", "b1"]);
        let t = tail("parameter(3), sharding={replicated}").unwrap();
        assert_eq!((t.parameter_number, t.operands.len()), (Some(3), 0));
        let t = tail("constant({ {1, 2}, {3, 4} })").unwrap();
        assert!(t.operands.is_empty());
        let t = tail("add(%a, %b").unwrap(); // truncated
        assert_eq!((names(&t.operands), t.attributes), (vec!["a", "b"], ""));
        assert_eq!(tail("  (x)").unwrap_err(), "no opcode after the result shape");
        assert_eq!(tail(" add %a").unwrap_err(), "no `(` after the opcode");
        let t = tail("select-and-scatter(%o, %s, %i), select=%ge, scatter=%add").unwrap();
        assert_eq!(t.called.len(), 2);
        let t = tail("scatter(%o, %i, %u), to_apply=%add, scatter=%x").unwrap();
        assert_eq!(t.called.len(), 1);
        let t = tail("get-tuple-element(%t), index=3, index=4").unwrap();
        assert_eq!(t.tuple_index, Some(3));
        let t = tail("get-tuple-element(%t), index=x, index=4").unwrap();
        assert_eq!(t.tuple_index, None);
        let t = tail(
            "custom-call(%a, %b), output_to_operand_aliasing={{0}: (1, {})}, \
             output_to_operand_aliasing={{1}: (0, {})}",
        )
        .unwrap();
        assert_eq!(
            t.output_to_operand_aliasing,
            [AliasPair { output: vec![0], operand: 1, operand_index: vec![] }]
        );
    }

    /// Every instruction of a module is one of these: its size is most of what reading a
    /// module costs per instruction (a hostile dump is hundreds of thousands of them).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn an_instruction_is_small() {
        assert_eq!(std::mem::size_of::<Instruction<'_>>(), 184);
    }

    fn names<'a>(operands: &[Operand<'a>]) -> Vec<&'a str> {
        operands.iter().map(|o| o.name).collect()
    }

    #[test]
    fn operand_names() {
        assert_eq!(operand_name("%x"), Some("x"));
        assert_eq!(operand_name("(f32[2], s32[]) %t"), Some("t"));
        assert_eq!(operand_name("{1,2}"), None);
        assert_eq!(operand_name("f32[2]"), None);
        assert_eq!(operand_name("7"), Some("7"));
    }
}
