//! Attribute values the reader turns into data, so that no analysis reads attribute text:
//! the attributes that name computations, shape indices, and the aliasing tables
//! (`output_to_operand_aliasing`, the header's `input_output_alias`).

use serde::Serialize;

use super::walk::{for_each_top_level, split_top_level};

macro_rules! call_attributes {
    ($($variant:ident = $text:literal,)*) => {
        /// An attribute that names computations.
        ///
        /// ```
        /// use xlayout::hlo::CallAttribute;
        /// assert_eq!(CallAttribute::parse("to_apply"), Some(CallAttribute::ToApply));
        /// assert_eq!(CallAttribute::ToApply.as_str(), "to_apply");
        /// assert_eq!(CallAttribute::parse("dimensions"), None);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CallAttribute {
            $(
                #[doc = concat!("`", $text, "=`")]
                $variant,
            )*
        }

        impl CallAttribute {
            /// The attribute `key` is, if it names computations (`scatter=` only does on
            /// `select-and-scatter`: see [`Instruction`](crate::hlo::Instruction)).
            pub fn parse(key: &str) -> Option<CallAttribute> {
                match key {
                    $($text => Some(CallAttribute::$variant),)*
                    _ => None,
                }
            }

            /// Its key as written.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(CallAttribute::$variant => $text,)*
                }
            }
        }
    };
}

call_attributes! {
    Calls = "calls",
    ToApply = "to_apply",
    Condition = "condition",
    Body = "body",
    BranchComputations = "branch_computations",
    TrueComputation = "true_computation",
    FalseComputation = "false_computation",
    CalledComputations = "called_computations",
    Select = "select",
    Scatter = "scatter",
}

impl Serialize for CallAttribute {
    /// As written.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A fusion's `kind=`: which of XLA's fusion kinds it is. XLA's buffer sharing asks it
/// (`CanShareOperandBufferWithUser`: a loop or input fusion may write its result over an
/// operand it reads element by element).
///
/// ```
/// use xlayout::hlo::{FusionKind, Module};
/// let m = Module::parse("%f {\n}\n%x = f32[2]{0} fusion(), kind=kLoop, calls=%f\n");
/// assert_eq!(m.instructions.raw()[0].fusion_kind, Some(FusionKind::Loop));
/// assert_eq!(FusionKind::parse("kCustom"), Some(FusionKind::Custom));
/// assert_eq!(FusionKind::Output.as_str(), "kOutput");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FusionKind {
    /// `kLoop`.
    Loop,
    /// `kInput`.
    Input,
    /// `kOutput`.
    Output,
    /// `kCustom`.
    Custom,
}

impl FusionKind {
    /// The kind `text` names (`kLoop`, ...).
    pub fn parse(text: &str) -> Option<FusionKind> {
        Some(match text {
            "kLoop" => FusionKind::Loop,
            "kInput" => FusionKind::Input,
            "kOutput" => FusionKind::Output,
            "kCustom" => FusionKind::Custom,
            _ => return None,
        })
    }

    /// As written.
    pub fn as_str(self) -> &'static str {
        match self {
            FusionKind::Loop => "kLoop",
            FusionKind::Input => "kInput",
            FusionKind::Output => "kOutput",
            FusionKind::Custom => "kCustom",
        }
    }
}

impl Serialize for FusionKind {
    /// As written.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One `{output}: (operand, {index})` pair of `input_output_alias` (the operand a
/// parameter number) or `output_to_operand_aliasing` (an operand number): the output at
/// `output` is the operand's buffer at `operand_index`.
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }\n");
/// let p = &m.input_output_alias[0];
/// assert_eq!((p.output.as_slice(), p.operand, p.operand_index.as_slice()), (&[1][..], 0, &[][..]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AliasPair {
    /// The output's shape index.
    pub output: Vec<u64>,
    /// The parameter (or operand) number.
    pub operand: u64,
    /// The shape index in it.
    pub operand_index: Vec<u64>,
}

/// The (parameter, shape index) places of `pairs` that an output is written over: a set,
/// so that asking about every parameter's every value costs a look-up each, not a pass over
/// the pairs (a module can list a pair per parameter).
pub(crate) fn donated(pairs: &[AliasPair]) -> std::collections::HashSet<(u64, &[u64])> {
    pairs.iter().map(|p| (p.operand, p.operand_index.as_slice())).collect()
}

/// `{1, 2}` -> `[1, 2]`; `{}` -> `[]`; `None` for anything else.
pub(crate) fn shape_index(text: &str) -> Option<Vec<u64>> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    inner.split(',').map(str::trim).filter(|p| !p.is_empty()).map(|p| p.parse().ok()).collect()
}

/// The value of attribute `key` in an instruction's attributes as written
/// (`, dimensions={1,0}, metadata={...}`): the text after `key=`, if it is there.
pub(crate) fn attribute<'t>(attributes: &'t str, key: &str) -> Option<&'t str> {
    let mut found = None;
    for_each_top_level(attributes, |piece| {
        if found.is_none() {
            if let Some((k, v)) = piece.split_once('=') {
                if k.trim() == key {
                    found = Some(v.trim());
                }
            }
        }
    });
    found
}

/// `dimensions={1,0}` (a transpose's, a broadcast's): the list; `None` when the attribute is
/// missing or not a list of numbers.
pub(crate) fn dimensions(attributes: &str) -> Option<Vec<u64>> {
    shape_index(attribute(attributes, "dimensions")?)
}

/// The pairs of `{ {0}: (0, {}, may-alias), {1}: (1, {}) }`; unreadable pairs are left out.
pub(crate) fn alias_pairs(text: &str) -> Vec<AliasPair> {
    let t = text.trim();
    let inner = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')).unwrap_or(t);
    split_top_level(inner)
        .into_iter()
        .filter_map(|entry| {
            let close = entry.find('}')?;
            let output = shape_index(&entry[..=close])?;
            let rest = entry[close + 1..].trim().strip_prefix(':')?.trim();
            let rest = rest.strip_prefix('(')?.strip_suffix(')')?;
            let parts = split_top_level(rest);
            let operand = parts.first()?.parse().ok()?;
            let operand_index = shape_index(parts.get(1)?)?;
            Some(AliasPair { output, operand, operand_index })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_pairs_as_written() {
        let p = alias_pairs("{ {0}: (0, {}, may-alias), {1, 2}: (1, {3}) }");
        assert_eq!(
            p,
            [
                AliasPair { output: vec![0], operand: 0, operand_index: vec![] },
                AliasPair { output: vec![1, 2], operand: 1, operand_index: vec![3] },
            ]
        );
        assert_eq!(alias_pairs("{{}: (1, {})}")[0].operand, 1);
        assert!(alias_pairs("{ garbage }").is_empty());
        assert_eq!(shape_index(" {1, 2} "), Some(vec![1, 2]));
        assert_eq!(shape_index("{x}"), None);
    }

    #[test]
    fn dimensions_of_a_transpose() {
        let attributes = ", dimensions={1,0,2}, metadata={op_name=\"a, dimensions={9}\"}";
        assert_eq!(dimensions(attributes), Some(vec![1, 0, 2]));
        assert_eq!(dimensions(", metadata={op_name=\"dimensions={9}\"}"), None);
        assert_eq!(attribute(", kind=kLoop, calls=%f", "calls"), Some("%f"));
    }
}
