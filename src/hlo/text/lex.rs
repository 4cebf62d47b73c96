//! Text to statements: which lines make up each module header, computation header, `}`,
//! instruction and table row, whatever the indentation, however many lines an instruction
//! takes (a `backend_config` printed as indented JSON ends with a lone `}`), with brackets
//! inside `"strings"` and `/* comments */` not counted; and, where several share a line (a
//! module written on one line, which XLA's parser reads as any other), where each ends by
//! XLA's grammar (`ends.rs`). A line ends at `\n`, `\r\n` or a lone `\r` (`lines.rs`).
//!
//! Every byte is looked at a bounded number of times: a string or comment left open is
//! taken to end with its line (and reported), and a statement whose brackets never close
//! ends where the next statement visibly starts, so no input makes the reader go back.

use super::diagnostic::{quote, DiagnosticKind, Diagnostics};
pub(crate) use super::ends::Kind;
use super::ends::{Cut, Ends};
use super::lines::{count_line_ends, last_line_start, line_at};

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
        match last_line_start(before) {
            None => (self.line, self.column + before.len()),
            Some(start) => (self.line + count_line_ends(before), before.len() - start + 1),
        }
    }
}

/// The names of the tables XLA prints after the module header.
pub(crate) const TABLES: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// The statements of a text, in order; problems met on the way go to `diagnostics`.
pub(crate) struct Statements<'t> {
    text: &'t str,
    /// Byte offset of the next text to read (the start of a line, or where the last
    /// statement ended on its line), and the number of its line.
    pos: usize,
    line: usize,
    /// Where the line holding `pos` starts, and, when `pos` is inside it (a statement ended
    /// before its line did), where it ends and the next starts: found once per line.
    line_start: usize,
    rest_of_line: Option<(usize, usize)>,
    in_table: bool,
    pub diagnostics: Diagnostics,
}

/// One line, or the rest of one: its number, its text without the line end, the offset of
/// the next line, and the byte column (from 1) where the text starts.
#[derive(Clone, Copy)]
struct Line<'t> {
    number: usize,
    start: usize,
    column: usize,
    text: &'t str,
    next: usize,
}

impl<'t> Statements<'t> {
    pub fn new(text: &'t str) -> Self {
        Statements {
            text,
            pos: 0,
            line: 1,
            line_start: 0,
            rest_of_line: None,
            in_table: false,
            diagnostics: Diagnostics::default(),
        }
    }

    /// The number of lines read so far (all of them once the iterator is done).
    pub fn lines_read(&self) -> usize {
        self.line - 1
    }

    #[inline]
    fn peek_line(&self) -> Option<Line<'t>> {
        if self.pos >= self.text.len() {
            return None;
        }
        let (end, next) = match self.rest_of_line {
            Some(known) => known,
            None => {
                let (end, next) = line_at(self.text.as_bytes(), self.pos);
                super::super::work::count(next - self.pos);
                (end, next)
            }
        };
        let column = self.pos - self.line_start + 1;
        let text = &self.text[self.pos..end];
        Some(Line { number: self.line, start: self.pos, column, text, next })
    }

    fn advance(&mut self, line: &Line<'t>) {
        self.pos = line.next;
        self.line = line.number + 1;
        self.line_start = line.next;
        self.rest_of_line = None;
    }

    /// Reads on from offset `at` of `line`'s text, where a statement ended.
    fn resume(&mut self, line: &Line<'t>, at: usize) {
        self.pos = line.start + at;
        self.line = line.number;
        self.line_start = line.start + 1 - line.column;
        self.rest_of_line = Some((line.start + line.text.len(), line.next));
    }

    /// Feeds the statement's line `text` (at byte column `column` of line `number`) from
    /// offset `from` to `ends`, and reports a string or comment it leaves open.
    fn feed(
        &mut self,
        ends: &mut Ends,
        text: &str,
        from: usize,
        number: usize,
        column: usize,
    ) -> Option<Cut> {
        let end = ends.line(text, from);
        if let Some((at, what)) = end.unterminated {
            self.diagnostics.add(number, DiagnosticKind::Unterminated, Some(column + at), || {
                format!("{what} not closed on its line; taken to end with the line")
            });
        }
        end.cut
    }

    /// Where the statement that `cut` ends on `line` ends in the text (before trailing
    /// blanks); reading resumes at the cut when anything but blanks follows it.
    fn cut(&mut self, line: &Line<'t>, cut: Cut) -> usize {
        if !line.text[cut.resume..].trim().is_empty() {
            self.resume(line, cut.resume);
        }
        line.start + line.text[..cut.end].trim_end().len()
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
            let (mut kind, head) = classify(t, self.in_table);
            self.in_table = matches!(kind, Kind::TableHeader | Kind::TableRow);
            let start = line.start + indent;
            let column = line.column + indent;
            let text = self.text;
            let statement = |end: usize, kind: Kind| Statement {
                line: line.number,
                column,
                text: &text[start..end],
                kind,
            };
            // Where the statement ends: on this line, by its grammar (another statement
            // follows), or with the line, or once the brackets it leaves open close.
            let from = indent + head;
            let mut ends = Ends::new(kind, from);
            let trimmed = Line { text: &line.text[..indent + t.len()], ..line };
            if let Some(cut) = self.feed(&mut ends, trimmed.text, from, line.number, line.column) {
                if cut.opens_body {
                    kind = Kind::Computation { opens_body: true };
                }
                let end = self.cut(&trimmed, cut);
                return Some(statement(end, kind));
            }
            let mut end = start + t.len();
            // Continuation lines, while brackets are open.
            while ends.depth > 0 {
                let depth = ends.depth;
                let Some(next) = self.peek_line() else {
                    self.diagnostics.add(line.number, DiagnosticKind::Unclosed, None, || {
                        format!(
                            "{depth} bracket(s) of this statement are still open at the end of \
                             the text (is the file truncated?): {}",
                            quote(t)
                        )
                    });
                    break;
                };
                let n_indent = next.text.len() - next.text.trim_start().len();
                let nt = next.text[n_indent..].trim_end();
                if looks_like_a_start(nt) {
                    self.diagnostics.add(line.number, DiagnosticKind::Unclosed, None, || {
                        format!(
                            "{depth} bracket(s) of this statement are still open where line {} \
                             starts another; read up to there: {}",
                            next.number,
                            quote(t)
                        )
                    });
                    break;
                }
                self.advance(&next);
                if nt.is_empty() {
                    continue;
                }
                let trimmed = Line { text: &next.text[..n_indent + nt.len()], ..next };
                let cut = self.feed(&mut ends, trimmed.text, n_indent, next.number, next.column);
                end = next.start + n_indent + nt.len();
                if let Some(cut) = cut {
                    if cut.opens_body {
                        kind = Kind::Computation { opens_body: true };
                    }
                    end = self.cut(&trimmed, cut);
                    break;
                }
            }
            return Some(statement(end, kind));
        }
    }
}

/// What a line (without indentation) starts, given whether a table is being read; and where
/// in it the statement's grammar goes on after its head (`ends.rs`): past `HloModule`, a
/// `}`, a table's name or a row's id, a computation's name, an instruction's `=`.
pub(crate) fn classify(t: &str, in_table: bool) -> (Kind, usize) {
    let blank_or_end = |rest: &str| rest.bytes().next().map_or(true, |b| b.is_ascii_whitespace());
    if let Some(rest) = t.strip_prefix("HloModule") {
        if blank_or_end(rest) || rest.starts_with(',') {
            return (Kind::Module, "HloModule".len());
        }
    }
    // A `}` alone, or followed by its attributes (`}, execution_thread="host"`) or by the
    // next statement on the same line.
    if t.starts_with('}') {
        return (Kind::End, 1);
    }
    // A table's name alone, or followed by its rows on the same line.
    if let Some(name) = TABLES.iter().find(|n| t.strip_prefix(**n).is_some_and(blank_or_end)) {
        return (Kind::TableHeader, name.len());
    }
    if in_table && t.starts_with(|c: char| c.is_ascii_digit()) {
        let id = t.bytes().position(|b| b.is_ascii_whitespace()).unwrap_or(t.len());
        return (Kind::TableRow, id);
    }
    let (keyword, rest) = keyword(t);
    let Some((_, after)) = split_name(rest) else {
        return (Kind::Unreadable, 0);
    };
    let head = t.len() - after.len();
    match (after.as_bytes().first(), keyword) {
        (Some(b'='), Some("ENTRY")) => (Kind::Unreadable, 0),
        (Some(b'='), _) => (Kind::Instruction, head + 1),
        (Some(b'(' | b'{'), Some("ROOT")) => (Kind::Unreadable, 0),
        (Some(b'(' | b'{'), _) => (Kind::Computation { opens_body: false }, head),
        _ => (Kind::Unreadable, 0),
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
        let diagnostics = s.diagnostics.into_vec();
        let d: Vec<_> = diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(d, [(1, DiagnosticKind::Unclosed), (3, DiagnosticKind::Unclosed)]);
        assert!(diagnostics[0].message.contains("where line 2 starts another"));
        assert!(diagnostics[1].message.contains("end of the text"));
    }

    #[test]
    fn strings_and_comments_end_with_their_line() {
        let t = "x = f32[2] foo(\"(((\" /* ) */, \"a\\\"(\")";
        let (mut ends, from) = (Ends::new(Kind::Instruction, 3), 3);
        let e = ends.line(t, from);
        assert_eq!((ends.depth, e.cut, e.unterminated), (0, None, None));
        let t = "x = f32[2] f(\"open";
        let (mut ends, from) = (Ends::new(Kind::Instruction, 3), 3);
        assert_eq!((ends.line(t, from).unterminated, ends.depth), (Some((13, "string")), 1));
        let t = "x = f32[2] f( /* open";
        let (mut ends, from) = (Ends::new(Kind::Instruction, 3), 3);
        assert_eq!((ends.line(t, from).unterminated, ends.depth), (Some((14, "comment")), 1));
    }

    #[test]
    fn classification() {
        assert_eq!(classify("ENTRY main.5 {", false).0, Kind::Computation { opens_body: false });
        assert_eq!(classify("ENTRY %x = f32[] constant(1)", false).0, Kind::Unreadable);
        assert_eq!(classify("ROOT %x = f32[] constant(1)", false).0, Kind::Instruction);
        assert_eq!(classify("x   = f32[] constant(1)", false).0, Kind::Instruction);
        assert_eq!(classify("} // end", false).0, Kind::End);
        assert_eq!(classify("12 {file_location_id=1}", true).0, Kind::TableRow);
        assert_eq!(classify("12 {file_location_id=1}", false).0, Kind::Unreadable);
        assert_eq!(classify("HloModule", false).0, Kind::Module);
        assert_eq!(classify("HloModulex", false).0, Kind::Unreadable);
        assert!(looks_like_a_start("%x = f32[2]{0} add(%a, %b)"));
        assert!(looks_like_a_start("t = (f32[2], s32[]) tuple(%a, %b)"));
        assert!(looks_like_a_start("%fused (p: f32[2]) -> f32[2] {"));
        assert!(!looks_like_a_start("dimensions={0}, to_apply=%add"));
        assert!(!looks_like_a_start("replica_groups=[2,4]<=[8], kind=kLoop"));
        assert!(!looks_like_a_start("\"key\": {"));
        assert!(!looks_like_a_start("}"));
    }
}
