//! An entry's `XLA label:` as a report prints it: the instruction, in the old form
//! `%name = shape opcode(...)` or the new `name = opcode(...)`, often cut short with `...`.
//! Read with the HLO reader's own statement parts ([`crate::hlo`]), so the label grammar
//! is the dump grammar.

use crate::hlo::text::instruction::{head, tail};
use crate::Shape;

/// What a label says about its instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Label {
    /// The instruction's name, without `%`.
    pub name: Option<String>,
    /// Its opcode.
    pub opcode: Option<String>,
    /// Its result shape, in the old form.
    pub shape: Option<String>,
    /// `op_name` of its metadata, if the label got that far.
    pub op_name: Option<String>,
    /// Whether the report cut the label short (`...` at its end).
    pub truncated: bool,
}

/// Whether a printed field ends in the `...` (or `…`) XLA cuts long text with.
pub(crate) fn is_truncated(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with("...") || t.ends_with('…')
}

/// Reads a label. A label that is only an opcode (XLA:GPU's `XLA Label: fusion`) gives
/// the opcode.
pub(crate) fn read(text: &str) -> Label {
    let text = text.trim();
    let truncated = is_truncated(text);
    let mut label = Label { truncated, ..Label::default() };
    let Some(h) = head(text) else {
        // No `name =`: a bare opcode, or something else.
        if !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            label.opcode = Some(text.to_string());
        }
        return label;
    };
    label.name = Some(h.name.to_string());
    let value = &text[h.shape_at..];
    // The old form has the result shape before the opcode.
    let rest = match Shape::parse_prefix(value) {
        Ok((_, len)) if value[len..].starts_with(char::is_whitespace) => {
            label.shape = Some(value[..len].to_string());
            &value[len..]
        }
        _ => value,
    };
    if let Ok(t) = tail(rest) {
        label.opcode = Some(t.opcode.to_string());
        label.op_name = t.metadata.op_name.map(|o| o.into_owned());
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_new_truncated_and_bare_labels() {
        let old = read("%copy.40488 = s32[8388608,8,4]{2,1,0:T(8,128)} copy(s32[8388608,8,4]{0,2,1:T(4,128)} %get-tuple-element.32429), metadata={op_type=\"FloorMod\" op_name=\"slicewise_79/cic_update/FloorMod\"}");
        assert_eq!(old.name.as_deref(), Some("copy.40488"));
        assert_eq!(old.shape.as_deref(), Some("s32[8388608,8,4]{2,1,0:T(8,128)}"));
        assert_eq!(old.opcode.as_deref(), Some("copy"));
        assert_eq!(old.op_name.as_deref(), Some("slicewise_79/cic_update/FloorMod"));
        assert!(!old.truncated);
        let new = read("broadcast.6042.remat3 = broadcast(bitcast.26), dimensions={2,3}");
        assert_eq!(
            (new.name.as_deref(), new.opcode.as_deref(), new.shape),
            (Some("broadcast.6042.remat3"), Some("broadcast"), None)
        );
        let cut = read("%fusion.47701.remat4 = u32[12582912,1]{1,0:T(8,128)} fusion(u32[]{:T(256)} %add.45656.remat6, u32[]{:T(256)} %add.45646....");
        assert_eq!(
            (cut.name.as_deref(), cut.opcode.as_deref(), cut.truncated),
            (Some("fusion.47701.remat4"), Some("fusion"), true)
        );
        let bare = read("fusion");
        assert_eq!((bare.name, bare.opcode.as_deref()), (None, Some("fusion")));
        assert_eq!(read("= ??"), Label::default());
        assert_eq!(read(""), Label::default());
    }
}
