//! What a report groups owned buffers by, and the stable names of the groupings.

use serde::Serialize;

/// What to group owned buffers by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The `op_name` path without its last part (the layer, not the primitive); see
    /// [`ReportOptions::op_depth`](super::ReportOptions::op_depth).
    Op,
    /// The opcode.
    Opcode,
    /// The result shape as written.
    Shape,
}

impl GroupBy {
    /// The grouping's name, as `--by` takes it and the JSON writes it (`"op"`, `"opcode"`,
    /// `"shape"`): a stable name, kept for as long as the grouping exists.
    ///
    /// ```
    /// use xlayout::hlo::GroupBy;
    /// assert_eq!(GroupBy::Opcode.as_str(), "opcode");
    /// assert_eq!(GroupBy::Op.to_string(), "op");
    /// ```
    pub const fn as_str(self) -> &'static str {
        // No `_` arm: a new grouping does not compile until it is given its name here.
        match self {
            GroupBy::Op => "op",
            GroupBy::Opcode => "opcode",
            GroupBy::Shape => "shape",
        }
    }
}

/// Writes [`GroupBy::as_str`].
impl std::fmt::Display for GroupBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::GroupBy;

    /// Every grouping's name is its `Debug` text in lower case (what the table's title and
    /// the page printed before `as_str` existed) and its name in the JSON.
    #[test]
    fn every_grouping_is_named_as_its_debug_text_and_its_json() {
        for by in [GroupBy::Op, GroupBy::Opcode, GroupBy::Shape] {
            assert_eq!(by.as_str(), format!("{by:?}").to_lowercase());
            assert_eq!(serde_json::to_string(&by).unwrap(), format!("\"{}\"", by.as_str()));
        }
    }
}
