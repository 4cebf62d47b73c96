//! What the reader could not read, and where: one [`Diagnostic`] per problem, with its line.

use std::fmt;

use serde::Serialize;

/// The kind of a reading problem. Every kind means part of the input was not understood
/// (or was understood only partly); the rest of the input is still analysed.
///
/// ```
/// use xlayout::hlo::{DiagnosticKind, Module};
/// let m = Module::parse("%x = f32[3]{0:T(0)} negate(%y)\n");
/// assert_eq!(m.diagnostics[0].kind, DiagnosticKind::InvalidShape);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// Bytes that are not UTF-8: the line was decoded with U+FFFD in their place.
    NotUtf8,
    /// A line that is no statement of HLO text (nor part of one): skipped.
    UnreadableLine,
    /// A result shape the parser or XLA's verifier rejects (the message is theirs).
    InvalidShape,
    /// A statement whose brackets are still open where the next statement or the end of
    /// the text starts (a truncated file, or a bracket missing).
    Unclosed,
    /// A `"` string or `/*` comment not closed on its line: it is taken to end there.
    Unterminated,
    /// A `}` that closes no computation, or a computation that is never closed.
    Structure,
}

/// One reading problem: the line (from 1), the byte column where known (from 1), what it
/// is, and a sentence for a person.
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("HloModule m\nthis is not HLO\n");
/// let d = &m.diagnostics[0];
/// assert_eq!((d.line, d.to_string().as_str()), (2, "2: unreadable line: `this is not HLO`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The line, from 1.
    pub line: usize,
    /// The byte column in the line, from 1, where the problem starts (when known).
    pub column: Option<usize>,
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// The explanation.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(line: usize, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic { line, column: None, kind, message: message.into() }
    }

    pub(crate) fn at_column(mut self, column: usize) -> Self {
        self.column = Some(column);
        self
    }

    /// The order diagnostics are listed in: by line; on one line bytes that are not UTF-8
    /// first (they explain what follows), then by column.
    pub(crate) fn order(&self) -> (usize, bool, Option<usize>) {
        (self.line, self.kind != DiagnosticKind::NotUtf8, self.column)
    }
}

/// `line: message` or `line:column: message`, for `file:` to be put in front.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "{}:{c}: {}", self.line, self.message),
            None => write!(f, "{}: {}", self.line, self.message),
        }
    }
}

/// At most this many characters of a line are quoted in a message.
const QUOTE: usize = 80;

/// The start of `text` for a message: its first line, at most [`QUOTE`] characters.
pub(crate) fn quote(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(QUOTE) {
        Some((end, _)) => format!("`{}...`", &line[..end]),
        None => format!("`{line}`"),
    }
}
