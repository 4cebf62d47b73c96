//! One instruction statement, `[ROOT] name = shape opcode(operands), key=value, ...`, read
//! in two steps around its result shape (which layout-runtime's parser reads): the head
//! (`ROOT`, name, where the shape starts) and the tail (opcode, operands, attributes).

use std::ops::ControlFlow;

use super::lex::{
    is_name_byte, keyword, matching_close, split_name, split_top_level, walk, Event,
    BRACKETS_AND_BLANKS,
};
use super::metadata::Metadata;

/// The part before the result shape.
pub(crate) struct Head<'t> {
    pub is_root: bool,
    pub name: &'t str,
    /// Byte offset of the shape in the statement.
    pub shape_at: usize,
    /// The shape as written: up to the first blank outside brackets, strings and comments.
    pub shape_text: &'t str,
    /// How deep its brackets nest.
    pub nesting: usize,
}

/// Reads `[ROOT] name =` and finds the extent of the shape text.
pub(crate) fn head(text: &str) -> Option<Head<'_>> {
    let (keyword, rest) = keyword(text);
    let (name, after) = split_name(rest)?;
    let value = after.strip_prefix('=')?;
    let value = value.trim_start();
    let shape_at = text.len() - value.len();
    let mut nesting = 0;
    let len = walk(value, &BRACKETS_AND_BLANKS, |_, e, depth| match e {
        Event::Byte(b) if depth == 0 && b.is_ascii_whitespace() => ControlFlow::Break(()),
        Event::Byte(b'(' | b'[' | b'{') => {
            nesting = nesting.max(depth + 1);
            ControlFlow::Continue(())
        }
        _ => ControlFlow::Continue(()),
    })
    .unwrap_or(value.len());
    let shape_text = &value[..len];
    Some(Head { is_root: keyword == Some("ROOT"), name, shape_at, shape_text, nesting })
}

/// The part after the result shape.
#[derive(Debug, Default)]
pub(crate) struct Tail<'t> {
    pub opcode: &'t str,
    pub operands: Vec<&'t str>,
    pub parameter_number: Option<u64>,
    pub attributes: &'t str,
    pub metadata: Metadata<'t>,
    pub called: Vec<Called<'t>>,
}

/// A computation an instruction calls, and the attribute that names it.
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("%w = (s32[]) while(%t), condition=%cond, body=%body\n");
/// let called: Vec<_> = m.instructions[0].called.iter().map(|c| (c.attribute, c.computation)).collect();
/// assert_eq!(called, [("condition", "cond"), ("body", "body")]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Called<'t> {
    /// `calls`, `to_apply`, `body`, `condition`, `branch_computations`, ...
    pub attribute: &'t str,
    /// The computation's name, without `%`.
    pub computation: &'t str,
}

/// Whether attribute `key` of an `opcode` instruction names computations.
fn is_call_attribute(key: &str, opcode: &str) -> bool {
    match key {
        "calls"
        | "to_apply"
        | "condition"
        | "body"
        | "branch_computations"
        | "true_computation"
        | "false_computation"
        | "called_computations"
        | "select" => true,
        "scatter" => opcode == "select-and-scatter",
        _ => false,
    }
}

/// Reads `opcode(operands), attributes` (`rest` starts after the shape). `Err` says what
/// is missing.
pub(crate) fn tail(rest: &str) -> Result<Tail<'_>, &'static str> {
    let rest = rest.trim_start();
    let len = rest.bytes().take_while(|&b| is_name_byte(b)).count();
    if len == 0 {
        return Err("no opcode after the result shape");
    }
    let opcode = &rest[..len];
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
    let mut t = Tail { opcode, attributes, ..Tail::default() };
    match opcode {
        "parameter" => t.parameter_number = operand_text.trim().parse().ok(),
        "constant" => {} // a literal, no operands
        _ => {
            t.operands =
                split_top_level(operand_text).into_iter().filter_map(operand_name).collect()
        }
    }
    for attribute in split_top_level(attributes) {
        let Some((key, value)) = attribute.split_once('=') else { continue };
        let key = key.trim();
        let value = value.trim();
        if key == "metadata" {
            t.metadata = Metadata::parse(value);
        } else if is_call_attribute(key, opcode) {
            let names = match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
                Some(inner) => split_top_level(inner),
                None => vec![value],
            };
            for name in names {
                if let Some((computation, _)) = split_name(name) {
                    t.called.push(Called { attribute: key, computation });
                }
            }
        }
    }
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
        assert_eq!(h.nesting, 2);
        let h = head("x=f32[]constant(1)").unwrap();
        assert_eq!((h.name, h.shape_text, h.shape_at), ("x", "f32[]constant(1)", 2));
        assert!(head("= f32[]").is_none());
        assert!(head("x f32[]").is_none());
    }

    #[test]
    fn tail_reads_operands_attributes_and_calls() {
        let t = tail(
            " fusion(f32[2]{0} %a, /*index=1*/%b.2, c), kind=kLoop, calls=%fused.1, \
             metadata={op_name=\"x, y=(z)\" source_line=3}, backend_config={\"k\":\"v, w\"}",
        )
        .unwrap();
        assert_eq!(t.opcode, "fusion");
        assert_eq!(t.operands, ["a", "b.2", "c"]);
        assert_eq!(t.called, [Called { attribute: "calls", computation: "fused.1" }]);
        assert_eq!(t.metadata.op_name.as_deref(), Some("x, y=(z)"));
        assert!(t.attributes.starts_with("kind=kLoop"));
        let t = tail("conditional(%p, %a, %b), branch_computations={%b0, %b1}").unwrap();
        let names: Vec<_> = t.called.iter().map(|c| c.computation).collect();
        assert_eq!(names, ["b0", "b1"]);
        let t = tail("parameter(3), sharding={replicated}").unwrap();
        assert_eq!((t.parameter_number, t.operands.len()), (Some(3), 0));
        let t = tail("constant({ {1, 2}, {3, 4} })").unwrap();
        assert!(t.operands.is_empty());
        let t = tail("add(%a, %b").unwrap(); // truncated
        assert_eq!((t.operands.as_slice(), t.attributes), (&["a", "b"][..], ""));
        assert_eq!(tail("  (x)").unwrap_err(), "no opcode after the result shape");
        assert_eq!(tail(" add %a").unwrap_err(), "no `(` after the opcode");
        let t = tail("select-and-scatter(%o, %s, %i), select=%ge, scatter=%add").unwrap();
        assert_eq!(t.called.len(), 2);
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
