//! The opcodes the analyses branch on, as an enum read once with the instruction; every
//! other opcode is kept as written.

use std::fmt;

use serde::{Serialize, Serializer};

macro_rules! opcodes {
    ($($variant:ident = $text:literal,)*) => {
        /// An instruction's opcode: one of those the analyses name (buffers, the call graph,
        /// the dataflow, aliasing), or [`Opcode::Other`] with the text as written.
        ///
        /// [`Opcode::parse`] never gives `Other` for a named opcode, so a `match` on the enum
        /// sees every `tuple` as [`Opcode::Tuple`].
        ///
        /// ```
        /// use xlayout::hlo::Opcode;
        /// assert_eq!(Opcode::parse("get-tuple-element"), Opcode::GetTupleElement);
        /// assert_eq!(Opcode::parse("negate"), Opcode::Other("negate"));
        /// assert_eq!(Opcode::GetTupleElement.as_str(), "get-tuple-element");
        /// assert_eq!(Opcode::Other("negate").to_string(), "negate");
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode<'t> {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
            /// Any other opcode, as written.
            Other(&'t str),
        }

        impl<'t> Opcode<'t> {
            /// The opcode `text` names.
            pub fn parse(text: &'t str) -> Opcode<'t> {
                match text {
                    $($text => Opcode::$variant,)*
                    _ => Opcode::Other(text),
                }
            }

            /// The opcode as HLO text writes it.
            pub fn as_str(self) -> &'t str {
                match self {
                    $(Opcode::$variant => $text,)*
                    Opcode::Other(text) => text,
                }
            }
        }
    };
}

opcodes! {
    AddDependency = "add-dependency",
    AllGatherDone = "all-gather-done",
    AllGatherStart = "all-gather-start",
    AllReduceDone = "all-reduce-done",
    AllReduceStart = "all-reduce-start",
    AsyncDone = "async-done",
    AsyncStart = "async-start",
    AsyncUpdate = "async-update",
    Bitcast = "bitcast",
    Call = "call",
    CollectivePermute = "collective-permute",
    CollectivePermuteDone = "collective-permute-done",
    CollectivePermuteStart = "collective-permute-start",
    Conditional = "conditional",
    Constant = "constant",
    Copy = "copy",
    CopyDone = "copy-done",
    CopyStart = "copy-start",
    CustomCall = "custom-call",
    Domain = "domain",
    DynamicUpdateSlice = "dynamic-update-slice",
    Fusion = "fusion",
    GetTupleElement = "get-tuple-element",
    OptBarrier = "opt-barrier",
    OptimizationBarrier = "optimization-barrier",
    Parameter = "parameter",
    RaggedAllToAll = "ragged-all-to-all",
    RecvDone = "recv-done",
    Scatter = "scatter",
    SelectAndScatter = "select-and-scatter",
    Send = "send",
    SetDimensionSize = "set-dimension-size",
    Tuple = "tuple",
    While = "while",
}

impl Opcode<'_> {
    /// Whether it runs a computation asynchronously (`async-start`, `async-update`,
    /// `async-done`).
    ///
    /// ```
    /// assert!(xlayout::hlo::Opcode::AsyncDone.is_async());
    /// ```
    pub fn is_async(self) -> bool {
        matches!(self, Opcode::AsyncStart | Opcode::AsyncUpdate | Opcode::AsyncDone)
    }
}

impl fmt::Display for Opcode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Opcode<'_> {
    /// As written.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_opcode_reads_back() {
        for text in ["tuple", "opt-barrier", "optimization-barrier", "while", "add", ""] {
            assert_eq!(Opcode::parse(text).as_str(), text);
        }
        assert!(matches!(Opcode::parse("Tuple"), Opcode::Other("Tuple")));
    }
}
