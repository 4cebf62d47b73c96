//! Text to statements: which lines make up each module header, computation header, `}`,
//! instruction and table row, whatever the indentation, however many lines an instruction
//! takes (a `backend_config` printed as indented JSON ends with a lone `}`), with brackets
//! inside `"strings"` and `/* comments */` not counted.
//!
//! Every byte is looked at a bounded number of times: a string or comment left open is
//! taken to end with its line (and reported), and a statement whose brackets never close
//! ends where the next statement visibly starts, so no input makes the reader go back.

use std::ops::ControlFlow;

use super::diagnostic::{quote, Diagnostic, DiagnosticKind};

/// What a statement is, from its first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `HloModule name, attributes...`
    Module,
    /// `[ENTRY] name [(signature) -> result] {`: the statement text ends before the `{`
    /// when `opens_body`.
    Computation { opens_body: bool },
    /// `}` closing a computation.
    End,
    /// `[ROOT] name = shape opcode(operands), attributes...`
    Instruction,
    /// `FileNames`, `FunctionNames`, `FileLocations`, `StackFrames`.
    TableHeader,
    /// `1 "file.py"` or `1 {file_name_id=1 ...}` under a table header.
    TableRow,
    /// Anything else: reported and skipped.
    Unreadable,
}

/// One statement: the line it starts on (from 1), the byte column of its first character
/// (from 1), and its text, from its first non-blank character to the end of its last line
/// (line ends inside it kept).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Statement<'t> {
    pub line: usize,
    pub column: usize,
    pub text: &'t str,
    pub kind: Kind,
}

impl Statement<'_> {
    /// The line and byte column (both from 1) of byte `offset` of the statement's text.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let before = &self.text.as_bytes()[..offset.min(self.text.len())];
        match memchr::memrchr(b'\n', before) {
            None => (self.line, self.column + before.len()),
            Some(nl) => {
                let lines = memchr::memchr_iter(b'\n', before).count();
                (self.line + lines, before.len() - nl)
            }
        }
    }
}

/// The names of the tables XLA prints after the module header.
pub(crate) const TABLES: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// The statements of a text, in order; problems met on the way go to `diagnostics`.
pub(crate) struct Statements<'t> {
    text: &'t str,
    /// Byte offset of the next line to read, and its number.
    pos: usize,
    line: usize,
    in_table: bool,
    pub diagnostics: Vec<Diagnostic>,
}

/// One line: its number, its text without the line end, the offset of the next line.
#[derive(Clone, Copy)]
struct Line<'t> {
    number: usize,
    start: usize,
    text: &'t str,
    next: usize,
}

impl<'t> Statements<'t> {
    pub fn new(text: &'t str) -> Self {
        Statements { text, pos: 0, line: 1, in_table: false, diagnostics: Vec::new() }
    }

    /// The number of lines read so far (all of them once the iterator is done).
    pub fn lines_read(&self) -> usize {
        self.line - 1
    }

    fn peek_line(&self) -> Option<Line<'t>> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text.as_bytes()[self.pos..];
        let (len, next) = match memchr::memchr(b'\n', rest) {
            Some(n) => (n, self.pos + n + 1),
            None => (rest.len(), self.text.len()),
        };
        let mut text = &self.text[self.pos..self.pos + len];
        if let Some(t) = text.strip_suffix('\r') {
            text = t; // Windows line ends
        }
        Some(Line { number: self.line, start: self.pos, text, next })
    }

    fn advance(&mut self, line: &Line<'t>) {
        self.pos = line.next;
        self.line = line.number + 1;
    }

    /// Scans `text` (part of line `number`, starting at byte column `column` from 1) for
    /// brackets, and reports a string or comment it leaves open.
    fn scan(&mut self, text: &str, number: usize, column: usize, depth: &mut usize) -> Scan {
        let scan = scan_line(text, depth);
        if let Some((at, what)) = scan.unterminated {
            self.diagnostics.push(
                Diagnostic::new(
                    number,
                    DiagnosticKind::Unterminated,
                    format!("{what} not closed on its line; taken to end with the line"),
                )
                .at_column(column + at),
            );
        }
        scan
    }
}

impl<'t> Iterator for Statements<'t> {
    type Item = Statement<'t>;

    fn next(&mut self) -> Option<Statement<'t>> {
        loop {
            let line = self.peek_line()?;
            self.advance(&line);
            let indent = line.text.len() - line.text.trim_start().len();
            let t = line.text[indent..].trim_end();
            if t.is_empty() {
                self.in_table = false;
                continue;
            }
            if t.starts_with("//") {
                continue;
            }
            let kind = classify(t, self.in_table);
            self.in_table = matches!(kind, Kind::TableHeader | Kind::TableRow);
            let start = line.start + indent;
            let mut end = start + t.len();
            let mut depth = 0usize;
            let scan = self.scan(t, line.number, indent + 1, &mut depth);
            let mut kind = kind;
            if let Kind::Computation { .. } = kind {
                // The header's own brackets close on its line; the `{` left open is the body.
                if depth == 1 && scan.last == Some(b'{') {
                    let brace = t.rfind('{').expect("the last significant byte is `{`");
                    end = start + t[..brace].trim_end().len();
                    kind = Kind::Computation { opens_body: true };
                    return Some(Statement {
                        line: line.number,
                        column: indent + 1,
                        text: &self.text[start..end],
                        kind,
                    });
                }
                if depth == 0 {
                    return Some(Statement {
                        line: line.number,
                        column: indent + 1,
                        text: &self.text[start..end],
                        kind,
                    });
                }
            }
            // Continuation lines, while brackets are open.
            while depth > 0 {
                let Some(next) = self.peek_line() else {
                    self.diagnostics.push(Diagnostic::new(
                        line.number,
                        DiagnosticKind::Unclosed,
                        format!(
                            "{depth} bracket(s) of this statement are still open at the end of \
                             the text (is the file truncated?): {}",
                            quote(t)
                        ),
                    ));
                    break;
                };
                let n_indent = next.text.len() - next.text.trim_start().len();
                let nt = next.text[n_indent..].trim_end();
                if looks_like_a_start(nt) {
                    self.diagnostics.push(Diagnostic::new(
                        line.number,
                        DiagnosticKind::Unclosed,
                        format!(
                            "{depth} bracket(s) of this statement are still open where line {} \
                             starts another; read up to there: {}",
                            next.number,
                            quote(t)
                        ),
                    ));
                    break;
                }
                self.advance(&next);
                if !nt.is_empty() {
                    self.scan(nt, next.number, n_indent + 1, &mut depth);
                    end = next.start + n_indent + nt.len();
                }
            }
            return Some(Statement {
                line: line.number,
                column: indent + 1,
                text: &self.text[start..end],
                kind,
            });
        }
    }
}

/// What a line (without indentation) starts, given whether a table is being read.
fn classify(t: &str, in_table: bool) -> Kind {
    if let Some(rest) = t.strip_prefix("HloModule") {
        if rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_whitespace() || c == ',') {
            return Kind::Module;
        }
    }
    if let Some(rest) = t.strip_prefix('}') {
        let rest = rest.trim_start();
        if rest.is_empty() || rest.starts_with("//") {
            return Kind::End;
        }
    }
    if TABLES.contains(&t) {
        return Kind::TableHeader;
    }
    if in_table && t.starts_with(|c: char| c.is_ascii_digit()) {
        return Kind::TableRow;
    }
    let (keyword, rest) = keyword(t);
    let Some((_, after)) = split_name(rest) else {
        return Kind::Unreadable;
    };
    match (after.as_bytes().first(), keyword) {
        (Some(b'='), Some("ENTRY")) => Kind::Unreadable,
        (Some(b'='), _) => Kind::Instruction,
        (Some(b'(' | b'{'), Some("ROOT")) => Kind::Unreadable,
        (Some(b'(' | b'{'), _) => Kind::Computation { opens_body: false },
        _ => Kind::Unreadable,
    }
}

/// `ROOT` or `ENTRY` at the start of `t` (followed by a blank), and the rest.
pub(crate) fn keyword(t: &str) -> (Option<&'static str>, &str) {
    for k in ["ROOT", "ENTRY"] {
        if let Some(rest) = t.strip_prefix(k) {
            if rest.starts_with(|c: char| c.is_ascii_whitespace()) {
                return (Some(k), rest.trim_start());
            }
        }
    }
    (None, t)
}

/// Whether `b` may be part of an HLO name (XLA's names are `[A-Za-z0-9_.-]`).
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// A name at the start of `t` (`%` and name bytes, or, as XLA's lexer has identifiers, a
/// letter or `_` and name bytes) without its `%`, and the text after it with blanks
/// skipped; `None` when there is no name.
pub(crate) fn split_name(t: &str) -> Option<(&str, &str)> {
    let (s, marked) = match t.strip_prefix('%') {
        Some(s) => (s, true),
        None => (t, false),
    };
    let len = s.bytes().take_while(|&b| is_name_byte(b)).count();
    if len == 0 || !(marked || s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')) {
        return None;
    }
    Some((&s[..len], s[len..].trim_start()))
}

/// Whether a line inside an unclosed statement visibly starts a new statement: a module or
/// computation header or an instruction (`name = shape ...`, the shape an element type
/// followed by `[`, or a `(` tuple). Attribute and JSON lines never look like this.
fn looks_like_a_start(t: &str) -> bool {
    if t.starts_with("HloModule ") || keyword(t).0.is_some() {
        return true;
    }
    let Some((_, after)) = split_name(t) else {
        return false;
    };
    if let Some(value) = after.strip_prefix('=') {
        let value = value.trim_start();
        if value.starts_with('(') {
            return true;
        }
        let word = value.bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
        return word > 0 && value.as_bytes().get(word) == Some(&b'[');
    }
    (after.starts_with('(') || after == "{") && t.ends_with('{')
}

/// What [`scan_line`] found on a line.
pub(crate) struct Scan {
    /// The last byte outside strings and comments that is not blank.
    pub last: Option<u8>,
    /// A string or comment left open: its byte offset in the line, and what it is.
    pub unterminated: Option<(usize, &'static str)>,
}

/// Counts brackets on one line into `depth` (never below 0), skipping strings and comments.
pub(crate) fn scan_line(t: &str, depth: &mut usize) -> Scan {
    let mut unterminated = None;
    let mut end = t.len();
    let _ = walk(t, &BRACKETS, |at, e, _| {
        match e {
            Event::Open(what) => unterminated = Some((at, what)),
            Event::LineComment => end = at,
            Event::Byte(b'(' | b'[' | b'{') => *depth += 1,
            Event::Byte(_) => *depth = depth.saturating_sub(1),
        }
        ControlFlow::Continue(())
    });
    // A line that leaves a string or comment open ends inside it: no last byte of its own.
    let last = if unterminated.is_some() { None } else { t[..end].trim_end().bytes().last() };
    Scan { last, unterminated }
}

/// What [`walk`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A byte of interest outside strings and comments.
    Byte(u8),
    /// A string (`"string"`) or comment (`"comment"`) that its line does not close.
    Open(&'static str),
    /// A `//` comment starts (it runs to the end of its line).
    LineComment,
}

/// Bytes [`walk`] stops at: those it handles itself (`"`, `/`), brackets, and `extra`.
const fn interest(extra: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let always = b"\"/()[]{}";
    let mut i = 0;
    while i < always.len() {
        t[always[i] as usize] = true;
        i += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

/// Brackets only.
pub(crate) const BRACKETS: [bool; 256] = interest(b"");
/// Brackets and blanks.
pub(crate) const BRACKETS_AND_BLANKS: [bool; 256] = interest(b" \t\n\r");
/// Brackets and commas.
pub(crate) const BRACKETS_AND_COMMAS: [bool; 256] = interest(b",");

/// Calls `f(offset, event, depth)` for every bracket of `s`, and every byte `interest`
/// marks, outside `"strings"` (with `\` escapes), `/* comments */` and `// comments`, with
/// the bracket depth outside the byte (an opening bracket gets the depth before it, a
/// closing one the depth after it), until `f` breaks. Strings and comments end with their
/// line at the latest. Returns the offset `f` broke at. Bytes of no interest are skipped
/// with one table look-up each: this loop sees every byte of a dump a few times.
pub(crate) fn walk(
    s: &str,
    interest: &[bool; 256],
    mut f: impl FnMut(usize, Event, usize) -> ControlFlow<()>,
) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    let line_end = |from: usize| memchr::memchr(b'\n', &b[from..]).map_or(b.len(), |n| from + n);
    loop {
        while i < b.len() && !interest[b[i] as usize] {
            i += 1;
        }
        let &c = b.get(i)?;
        match c {
            b'"' => {
                // Skip to the closing quote on this line.
                let end = line_end(i + 1);
                let mut j = i + 1;
                let mut closed = false;
                while j < end {
                    match b[j] {
                        b'\\' => j += 2,
                        b'"' => {
                            closed = true;
                            break;
                        }
                        _ => j += 1,
                    }
                }
                if !closed {
                    if f(i, Event::Open("string"), depth).is_break() {
                        return Some(i);
                    }
                    i = end;
                } else {
                    i = j + 1;
                }
                continue;
            }
            b'/' => {
                match b.get(i + 1) {
                    Some(b'*') => {
                        let end = line_end(i + 2);
                        match memchr::memmem::find(&b[i + 2..end], b"*/") {
                            Some(n) => i = i + 2 + n + 2,
                            None => {
                                if f(i, Event::Open("comment"), depth).is_break() {
                                    return Some(i);
                                }
                                i = end;
                            }
                        }
                    }
                    Some(b'/') => {
                        if f(i, Event::LineComment, depth).is_break() {
                            return Some(i);
                        }
                        i = line_end(i);
                    }
                    _ => i += 1,
                }
                continue;
            }
            b'(' | b'[' | b'{' => {
                if f(i, Event::Byte(c), depth).is_break() {
                    return Some(i);
                }
                depth += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if f(i, Event::Byte(c), depth).is_break() {
                    return Some(i);
                }
            }
            _ => {
                if f(i, Event::Byte(c), depth).is_break() {
                    return Some(i);
                }
            }
        }
        i += 1;
    }
}

/// The offset of the bracket closing the one `s` starts with.
pub(crate) fn matching_close(s: &str) -> Option<usize> {
    let mut first = true;
    walk(s, &BRACKETS, |_, e, depth| {
        let is_first = std::mem::take(&mut first);
        match e {
            Event::Byte(b')' | b']' | b'}') if depth == 0 && !is_first => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    })
}

/// The pieces of `s` between commas at bracket depth 0, trimmed; empty pieces dropped.
pub(crate) fn split_top_level(s: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    for_each_top_level(s, |piece| pieces.push(piece));
    pieces
}

/// Calls `f` on each piece [`split_top_level`] gives, without collecting them.
pub(crate) fn for_each_top_level<'a>(s: &'a str, mut f: impl FnMut(&'a str)) {
    let mut piece = |piece: &'a str| {
        let piece = piece.trim();
        if !piece.is_empty() {
            f(piece);
        }
    };
    let mut start = 0;
    let _ = walk(s, &BRACKETS_AND_COMMAS, |at, e, depth| {
        if e == Event::Byte(b',') && depth == 0 {
            piece(&s[start..at]);
            start = at + 1;
        }
        ControlFlow::Continue(())
    });
    piece(&s[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(usize, Kind, &str)> {
        Statements::new(text).map(|s| (s.line, s.kind, s.text)).collect()
    }

    #[test]
    fn statements_of_a_module() {
        let text = "HloModule m, is_scheduled=true\n\nFileNames\n1 \"a.py\"\n\n  %c (p: f32[2]) -> f32[2] {\n    %p = f32[2]{0} parameter(0)\n  ROOT %n = f32[2]{0} negate(%p), backend_config={\n   \"x\": {\"y\": \"}\"}\n  }\n}\n";
        let k = kinds(text);
        assert_eq!(
            k,
            [
                (1, Kind::Module, "HloModule m, is_scheduled=true"),
                (3, Kind::TableHeader, "FileNames"),
                (4, Kind::TableRow, "1 \"a.py\""),
                (6, Kind::Computation { opens_body: true }, "%c (p: f32[2]) -> f32[2]"),
                (7, Kind::Instruction, "%p = f32[2]{0} parameter(0)"),
                (
                    8,
                    Kind::Instruction,
                    "ROOT %n = f32[2]{0} negate(%p), backend_config={\n   \"x\": {\"y\": \"}\"}\n  }"
                ),
                (11, Kind::End, "}"),
            ]
        );
    }

    #[test]
    fn unclosed_statements_end_where_the_next_one_starts() {
        let text =
            "%a = f32[2]{0} add(%x,\n%b = f32[2]{0} negate(%a)\n%c = (f32[2], s32[]) tuple(%b\n";
        let mut s = Statements::new(text);
        let k: Vec<_> = s.by_ref().map(|s| (s.line, s.text)).collect();
        assert_eq!(
            k,
            [
                (1, "%a = f32[2]{0} add(%x,"),
                (2, "%b = f32[2]{0} negate(%a)"),
                (3, "%c = (f32[2], s32[]) tuple(%b")
            ]
        );
        let d: Vec<_> = s.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(d, [(1, DiagnosticKind::Unclosed), (3, DiagnosticKind::Unclosed)]);
        assert!(s.diagnostics[0].message.contains("where line 2 starts another"));
        assert!(s.diagnostics[1].message.contains("end of the text"));
    }

    #[test]
    fn strings_and_comments_end_with_their_line() {
        let mut depth = 0;
        let scan = scan_line("x = f32[2] foo(\"(((\" /* ) */, \"a\\\"(\")", &mut depth);
        assert_eq!((depth, scan.last, scan.unterminated), (0, Some(b')'), None));
        let scan = scan_line("x = f(\"open", &mut depth);
        assert_eq!((depth, scan.unterminated), (1, Some((6, "string"))));
        let mut depth = 0;
        let scan = scan_line("x = f( /* open", &mut depth);
        assert_eq!((depth, scan.unterminated), (1, Some((7, "comment"))));
    }

    #[test]
    fn top_level_helpers() {
        assert_eq!(matching_close("(a, (b), \")\", c) rest"), Some(15));
        assert_eq!(matching_close("(a, (b"), None);
        assert_eq!(
            split_top_level(" a, f32[2,3]{1,0} b, {x, y}, \"p,q\" ,"),
            ["a", "f32[2,3]{1,0} b", "{x, y}", "\"p,q\""]
        );
    }

    #[test]
    fn classification() {
        assert_eq!(classify("ENTRY main.5 {", false), Kind::Computation { opens_body: false });
        assert_eq!(classify("ENTRY %x = f32[] constant(1)", false), Kind::Unreadable);
        assert_eq!(classify("ROOT %x = f32[] constant(1)", false), Kind::Instruction);
        assert_eq!(classify("x   = f32[] constant(1)", false), Kind::Instruction);
        assert_eq!(classify("} // end", false), Kind::End);
        assert_eq!(classify("12 {file_location_id=1}", true), Kind::TableRow);
        assert_eq!(classify("12 {file_location_id=1}", false), Kind::Unreadable);
        assert_eq!(classify("HloModule", false), Kind::Module);
        assert_eq!(classify("HloModulex", false), Kind::Unreadable);
        assert!(looks_like_a_start("%x = f32[2]{0} add(%a, %b)"));
        assert!(looks_like_a_start("t = (f32[2], s32[]) tuple(%a, %b)"));
        assert!(looks_like_a_start("%fused (p: f32[2]) -> f32[2] {"));
        assert!(!looks_like_a_start("dimensions={0}, to_apply=%add"));
        assert!(!looks_like_a_start("replica_groups=[2,4]<=[8], kind=kLoop"));
        assert!(!looks_like_a_start("\"key\": {"));
        assert!(!looks_like_a_start("}"));
    }
}
