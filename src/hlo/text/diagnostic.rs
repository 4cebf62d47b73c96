//! What the reader could not read, and where: one [`Diagnostic`] per problem, with its line;
//! after [`MAX_LISTED`] of one kind, one more that counts the rest, so that a file of ten
//! million bad lines costs a counter, not ten million messages.

use std::borrow::Cow;
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
    /// A line that is no statement of HLO text (nor part of one), or no line of the XLA file
    /// being read (`*-buffer-assignment.txt`, `*-live-range.txt`): skipped.
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

impl DiagnosticKind {
    /// Every kind, in declaration order.
    const ALL: [DiagnosticKind; 6] = [
        DiagnosticKind::NotUtf8,
        DiagnosticKind::UnreadableLine,
        DiagnosticKind::InvalidShape,
        DiagnosticKind::Unclosed,
        DiagnosticKind::Unterminated,
        DiagnosticKind::Structure,
    ];

    /// Problems of this kind, in words (plural).
    fn plural(self) -> &'static str {
        match self {
            DiagnosticKind::NotUtf8 => "lines that are not UTF-8",
            DiagnosticKind::UnreadableLine => "unreadable lines",
            DiagnosticKind::InvalidShape => "invalid shapes",
            DiagnosticKind::Unclosed => "statements left unclosed",
            DiagnosticKind::Unterminated => "strings or comments left open",
            DiagnosticKind::Structure => "structure problems",
        }
    }
}

/// At most this many diagnostics of one kind are listed; the rest of that kind are counted
/// in one more diagnostic, whose [`Diagnostic::more`] says how many there are.
///
/// ```
/// use xlayout::hlo::{Module, MAX_LISTED};
/// let text = "junk\n".repeat(250);
/// let m = Module::parse(&text);
/// assert_eq!(m.diagnostics.len(), MAX_LISTED + 1);
/// let last = &m.diagnostics[MAX_LISTED];
/// assert_eq!((last.line, last.more), (101, 150));
/// assert_eq!(last.to_string(), "101: 150 more unreadable lines from this line on are not listed (the first 100 of each kind are)");
/// ```
pub const MAX_LISTED: usize = 100;

/// One reading problem: the line (from 1), the byte column where known (from 1), what it
/// is, and a sentence for a person.
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("HloModule m\nthis is not HLO\n");
/// let d = &m.diagnostics[0];
/// assert_eq!((d.line, d.to_string().as_str()), (2, "2: unreadable line: `this is not HLO`"));
/// assert_eq!(d.more, 0);
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
    /// 0 for a problem; for the diagnostic that follows the first [`MAX_LISTED`] of a kind,
    /// how many more problems of that kind there are, from its line on, not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Diagnostic {
    pub(crate) fn new(line: usize, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic { line, column: None, kind, message: message.into(), more: 0 }
    }

    /// The diagnostic that counts `more` problems of `kind` not listed, the first on `line`.
    fn summary(line: usize, kind: DiagnosticKind, more: usize) -> Self {
        let message = format!(
            "{more} more {} from this line on are not listed (the first {MAX_LISTED} of each kind are)",
            kind.plural()
        );
        Diagnostic { more, ..Diagnostic::new(line, kind, message) }
    }

    /// How many problems this diagnostic stands for: 1, or for a summary the count.
    ///
    /// ```
    /// use xlayout::hlo::Module;
    /// let text = "junk\n".repeat(250);
    /// let m = Module::parse(&text);
    /// assert_eq!(m.diagnostics.iter().map(|d| d.problems()).sum::<usize>(), 250);
    /// ```
    pub fn problems(&self) -> usize {
        self.more.max(1)
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
        located(f, self.line, self.column, &self.message)
    }
}

/// How every line that could not be read is written (a [`Diagnostic`], an out-of-memory
/// report's problem): `line: message` or `line:column: message`.
pub(crate) fn located(
    f: &mut fmt::Formatter<'_>,
    line: usize,
    column: Option<usize>,
    message: &str,
) -> fmt::Result {
    match column {
        Some(c) => write!(f, "{line}:{c}: {message}"),
        None => write!(f, "{line}: {message}"),
    }
}

/// Which problems of `K` kinds a reader lists: the first [`MAX_LISTED`] of each kind; past
/// those, per kind, a count and the first line, so that a problem costs a counter and its
/// message is never formatted. The one rule of every reader's bounded problem list (the
/// module's diagnostics, an out-of-memory report's problems).
#[derive(Debug)]
pub(crate) struct Listing<const K: usize> {
    /// Per kind: how many were listed.
    listed: [usize; K],
    /// Per kind: the problems past those (count, first line).
    more: [(usize, usize); K],
}

impl<const K: usize> Default for Listing<K> {
    fn default() -> Self {
        Listing { listed: [0; K], more: [(0, 0); K] }
    }
}

impl<const K: usize> Listing<K> {
    /// Whether a problem of kind `k` on `line` is listed; if not, it is counted.
    pub fn admit(&mut self, k: usize, line: usize) -> bool {
        if self.listed[k] < MAX_LISTED {
            self.listed[k] += 1;
            true
        } else {
            self.count(k, line, 1);
            false
        }
    }

    /// Counts `more` problems of kind `k` not listed, the first on `line`.
    pub fn count(&mut self, k: usize, line: usize, more: usize) {
        let (count, first) = &mut self.more[k];
        *first = if *count == 0 { line } else { (*first).min(line) };
        *count += more;
    }

    /// Per kind with problems not listed: (kind, how many, the first one's line).
    pub fn unlisted(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        self.more.iter().enumerate().filter(|(_, m)| m.0 > 0).map(|(k, &(n, first))| (k, n, first))
    }
}

/// Diagnostics as a reader finds them, at most [`MAX_LISTED`] of each kind kept: past that
/// a problem costs a counter, and its message is never formatted.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    list: Vec<Diagnostic>,
    listing: Listing<6>,
}

impl Diagnostics {
    /// Adds a problem of `kind` on `line`; `message` is called only when it is listed.
    pub fn add(
        &mut self,
        line: usize,
        kind: DiagnosticKind,
        column: Option<usize>,
        message: impl FnOnce() -> String,
    ) {
        if self.listing.admit(kind as usize, line) {
            self.list.push(Diagnostic { column, ..Diagnostic::new(line, kind, message()) });
        }
    }

    /// Adds a diagnostic made already (a summary adds its count).
    pub fn push(&mut self, d: Diagnostic) {
        if d.more > 0 {
            self.listing.count(d.kind as usize, d.line, d.more);
        } else {
            let (line, kind, column) = (d.line, d.kind, d.column);
            self.add(line, kind, column, || d.message);
        }
    }

    /// The listed diagnostics and one summary per kind with more, in line order.
    pub fn into_vec(mut self) -> Vec<Diagnostic> {
        for (k, count, first) in self.listing.unlisted() {
            self.list.push(Diagnostic::summary(first, DiagnosticKind::ALL[k], count));
        }
        self.list.sort_by_key(Diagnostic::order);
        self.list
    }
}

/// `list` in line order, at most [`MAX_LISTED`] of each kind listed (the first by line) and
/// the rest counted.
pub(crate) fn bounded(mut list: Vec<Diagnostic>) -> Vec<Diagnostic> {
    list.sort_by_key(Diagnostic::order);
    let mut d = Diagnostics::default();
    for x in list {
        d.push(x);
    }
    d.into_vec()
}

/// At most this many characters of a line are quoted in a message.
const QUOTE: usize = 80;

/// The start of `text` for a message: its first line, at most [`QUOTE`] characters.
pub(crate) fn quote(text: &str) -> String {
    crate::limits::quote(super::lines::lines(text).next().unwrap_or("").trim(), QUOTE)
}

/// `text` for a sentence or a table: whole when it has at most `max_chars` characters, else
/// its first `max_chars` and how long it is, so that a sentence written once per entry or row
/// stays short however long the text (a tuple's shape, an `op_name`). Costs at most
/// `max_chars` characters of reading, whatever the length of `text`.
///
/// ```
/// use xlayout::hlo::clip;
/// assert_eq!(clip("f32[8]{0}", 20), "f32[8]{0}");
/// assert_eq!(clip("(f32[1]{0}, f32[1]{0}, f32[1]{0})", 10), "(f32[1]{0}... (33 bytes of text)");
/// ```
pub fn clip(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => Cow::Owned(format!("{}... ({} bytes of text)", &text[..end], text.len())),
        None => Cow::Borrowed(text),
    }
}
