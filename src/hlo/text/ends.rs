//! Where a statement ends when another follows it on the same line. XLA's parser is blind to
//! line ends: `HloModule m ENTRY %e { %a = f32[2]{0} parameter(0) ROOT %n = f32[2]{0}
//! negate(%a) }` on one line is a module to it. The reader takes a statement to end with its
//! line (or with its brackets, when they stay open past it), and, on that line, where XLA's
//! grammar says it ends:
//!
//! - `HloModule name` after its name and the attributes commas chain to it
//!   (`, is_scheduled=true`);
//! - an instruction `[ROOT] name = shape opcode(operands)` after its operand list and the
//!   attributes chained to it (`, dimensions={0}, to_apply=%add`);
//! - a computation's header at the `{` that opens its body (the body's first statement may
//!   follow on the same line);
//! - a `}` after itself and the attributes chained to it (`}, execution_thread="host"`);
//! - a table's name (`FileNames`) after itself, a row of it (`1 "a.py"`, `2 {file_name_id=1
//!   ...}`) after its id and its value.
//!
//! Text between statements is read in "runs": the pieces between blanks outside brackets,
//! strings and comments. After a statement has its required parts, a run continues it only
//! when a `,` or `=` links the two (the previous run ends with one, or the next begins with
//! one); any other run, and a closing bracket that closes nothing (a `}` right after an
//! operand list), starts the next statement. A line that is no statement ends with its line.
//!
//! Each statement's walk stops where it ends, so each byte is walked at most twice (the
//! run at which a statement ends is walked again as the start of the next one).

use std::ops::ControlFlow;

use super::walk::{walk_line, Event, BRACKETS_AND_BLANKS};

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

/// What one line of a statement says about its end.
pub(crate) struct LineEnd {
    /// Where on the line the statement ends before the line does: its text ends before this
    /// offset (blanks before it excepted), and the next statement starts at `resume`.
    pub cut: Option<Cut>,
    /// A string or comment left open on the line (before the cut): its offset and what it is.
    pub unterminated: Option<(usize, &'static str)>,
}

/// A statement that ends before its line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    /// The offset on the line where the statement's text ends (before trailing blanks).
    pub end: usize,
    /// The offset where the next statement starts.
    pub resume: usize,
    /// Whether the statement is a computation's header whose body the cut opened.
    pub opens_body: bool,
}

/// Where a statement is in its grammar, from line to line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Never ends before its line: a table row, an unreadable line.
    Off,
    /// A module header before its name.
    Name,
    /// An instruction reading its result shape (`started`: the shape's run has begun).
    Shape { started: bool },
    /// An instruction after its result shape, before its operand list has closed.
    Operands,
    /// A computation header before the `{` of its body.
    Header,
    /// A table row (`1 "a.py"`, `1 {file_name_id=1 ...}`): its id read, its value not yet.
    Row,
    /// All required parts read; a run continues the statement only when linked.
    Complete,
}

/// The grammar state of one statement, fed its lines in order.
pub(crate) struct Ends {
    phase: Phase,
    /// Bracket depth, across the statement's lines.
    pub depth: usize,
    /// Where a run may start next: just past a blank at depth 0 (or where the statement's
    /// grammar is first looked at); `None` inside a run.
    pending: Option<usize>,
    /// Whether the last run ended with `,` or `=`.
    linked: bool,
}

impl Ends {
    /// The state for a statement of `kind` whose grammar is read from offset `from` of the
    /// line text it is fed with (what [`classify`](super::lex::classify) found: past
    /// `HloModule`, an instruction's `=`, a computation's name, a `}`, a table's name, a row's
    /// id).
    pub fn new(kind: Kind, from: usize) -> Ends {
        let phase = match kind {
            Kind::Module => Phase::Name,
            Kind::Instruction => Phase::Shape { started: false },
            Kind::Computation { .. } => Phase::Header,
            Kind::End | Kind::TableHeader => Phase::Complete,
            Kind::TableRow => Phase::Row,
            Kind::Unreadable => Phase::Off,
        };
        Ends { phase, depth: 0, pending: Some(from), linked: false }
    }

    /// Reads `line` (one line of the statement, from offset `from`) up to where the
    /// statement ends on it, if it does before the line's end.
    pub fn line(&mut self, line: &str, from: usize) -> LineEnd {
        let mut end = LineEnd { cut: None, unterminated: None };
        // Where a `//` comment takes the rest of the line.
        let mut comment = line.len();
        let b = line.as_bytes();
        let _ = walk_line(&line[from..], &BRACKETS_AND_BLANKS, self.depth, |at, e, _| {
            let at = at + from;
            let c = match e {
                Event::Byte(c) => c,
                Event::Open(what) => {
                    end.unterminated.get_or_insert((at, what));
                    return self.run_before(b, at, None, &mut end.cut);
                }
                Event::LineComment => {
                    comment = at;
                    return ControlFlow::Break(());
                }
            };
            // Inside brackets the walk stops at brackets alone.
            if self.depth > 0 {
                self.bracket_inside(c);
                return ControlFlow::Continue(());
            }
            if self.run_before(b, at, Some(c), &mut end.cut).is_break() {
                return ControlFlow::Break(());
            }
            match c {
                b'(' | b'[' | b'{' => self.depth += 1,
                // Closes nothing: after the statement's parts, the next one's `}`.
                b')' | b']' | b'}' if self.phase == Phase::Complete => {
                    end.cut = Some(Cut { end: at, resume: at, opens_body: false });
                    return ControlFlow::Break(());
                }
                b' ' | b'\t' | b'\n' | b'\r' => {
                    if self.pending.is_none() {
                        // A run ends: whether its last byte links it to the next.
                        self.linked = matches!(b[at - 1], b',' | b'=');
                    }
                    self.pending = Some(at + 1);
                }
                _ => {}
            }
            ControlFlow::Continue(())
        });
        // A run that starts after the walk's last stop (the line's last word).
        if end.cut.is_none() && self.depth == 0 {
            let _ = self.run_before(b, comment, None, &mut end.cut);
        }
        // What follows a cut is the next statement's, to report when it is read.
        if let Some(c) = end.cut {
            end.unterminated = end.unterminated.filter(|&(at, _)| at < c.resume);
        }
        end
    }

    /// A bracket inside brackets.
    #[inline(always)]
    fn bracket_inside(&mut self, c: u8) {
        if matches!(c, b'(' | b'[' | b'{') {
            self.depth += 1;
            return;
        }
        self.depth -= 1;
        // An instruction's operand list (the first bracket group after its shape's run)
        // closed: the instruction has its parts.
        if self.depth == 0 && self.phase == Phase::Operands {
            self.phase = Phase::Complete;
        }
    }

    /// At depth 0, before the walk's stop at `at` (its byte `stop`, if it is one): whether a
    /// run started since the last blank, at a byte the walk passed by or at this one, and if
    /// so whether the statement ends there (`cut`, and a break).
    #[inline(always)]
    fn run_before(
        &mut self,
        b: &[u8],
        at: usize,
        stop: Option<u8>,
        cut: &mut Option<Cut>,
    ) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let Some(mut q) = self.pending else { return ControlFlow::Continue(()) };
        if q < at && b[q] == b'/' {
            q = past_comments(b, q, at);
            self.pending = Some(q);
        }
        let first = if q < at {
            b[q]
        } else if let Some(c) = stop.filter(|&c| !is_blank(c)) {
            c
        } else {
            return ControlFlow::Continue(());
        };
        self.pending = None;
        match self.run_starts(q, first) {
            Some(c) => {
                *cut = Some(c);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    }

    /// A run at depth 0 starts at `at` with byte `first`: whether the statement ends there.
    fn run_starts(&mut self, at: usize, first: u8) -> Option<Cut> {
        match self.phase {
            Phase::Off | Phase::Operands => None,
            Phase::Name => {
                self.phase = Phase::Complete;
                None
            }
            Phase::Shape { started: false } => {
                self.phase = Phase::Shape { started: true };
                None
            }
            Phase::Shape { started: true } => {
                self.phase = Phase::Operands;
                None
            }
            Phase::Header if first == b'{' => {
                // The body opens: the next statement starts after the `{`.
                self.phase = Phase::Off;
                Some(Cut { end: at, resume: at + 1, opens_body: true })
            }
            Phase::Header => None,
            Phase::Row => {
                self.phase = Phase::Complete;
                None
            }
            Phase::Complete => {
                if self.linked || matches!(first, b',' | b'=') {
                    None
                } else {
                    Some(Cut { end: at, resume: at, opens_body: false })
                }
            }
        }
    }
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// `q`, or past the `/* comments */` closed on the line that start there (and the blanks
/// between them): a comment between runs is no run. Stops at `limit` (the walk's next stop,
/// which lies past any comment it skipped).
fn past_comments(b: &[u8], mut q: usize, limit: usize) -> usize {
    while q + 1 < limit && b[q] == b'/' && b[q + 1] == b'*' {
        match memchr::memmem::find(&b[q + 2..limit], b"*/") {
            Some(n) => q += 2 + n + 2,
            None => return limit,
        }
        while q < limit && is_blank(b[q]) {
            q += 1;
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cut of a one-line statement of `kind`, and the depth left open.
    fn split(kind: Kind, t: &str) -> (Option<Cut>, usize) {
        let (classified, from) = super::super::lex::classify(t, kind == Kind::TableRow);
        assert_eq!(std::mem::discriminant(&classified), std::mem::discriminant(&kind), "{t}");
        let mut ends = Ends::new(kind, from);
        let e = ends.line(t, from);
        (e.cut, ends.depth)
    }

    #[test]
    fn each_kind_ends_at_its_grammar() {
        let cut = |end, resume, opens_body| Some(Cut { end, resume, opens_body });
        let t = "HloModule m, is_scheduled=true ENTRY %e {";
        assert_eq!(split(Kind::Module, t).0, cut(31, 31, false));
        assert_eq!(split(Kind::Module, "HloModule m ENTRY").0, cut(12, 12, false));
        assert_eq!(split(Kind::Module, "HloModule m ,a = b").0, None);
        let t = "ENTRY %e (a: f32[2]) -> f32[2]{0} { %a = f32[2]{0} parameter(0)";
        assert_eq!(split(Kind::Computation { opens_body: false }, t).0, cut(34, 35, true));
        assert_eq!(split(Kind::Computation { opens_body: false }, "%f {").0, cut(3, 4, true));
        let t = "%a = (f32[2], s32[]) parameter(0), sharding={replicated} ROOT %b";
        assert_eq!(split(Kind::Instruction, t).0, cut(57, 57, false));
        let t = "%a = f32[2]{0:T(2)} negate (%x), dimensions = {0} }";
        assert_eq!(split(Kind::Instruction, t).0, cut(50, 50, false));
        // A `}` right after the operand list: the end of the computation.
        assert_eq!(split(Kind::Instruction, "ROOT n = f32[2] negate(p)}").0, cut(25, 25, false));
        assert_eq!(split(Kind::End, "}, execution_thread=\"x\" %c {").0, cut(24, 24, false));
        assert_eq!(split(Kind::End, "}}").0, cut(1, 1, false));
        assert_eq!(split(Kind::End, "} // %c {").0, None);
        // Strings and comments are parts of runs; brackets in them do not count.
        let t = "%a = f32[2] custom-call(), custom_call_target=\"x y }\" /* z } */ %b";
        assert_eq!(split(Kind::Instruction, t).0, cut(64, 64, false));
        // A comment between runs is none: `%b` ends the statement, not the comment.
        let t = "%a = f32[2] negate(%x) /* c */%b = f32[2] negate(%a)";
        assert_eq!(split(Kind::Instruction, t).0, cut(30, 30, false));
        assert_eq!(split(Kind::Instruction, "%a = f32[2] negate(%x) /* open").0, None);
    }

    #[test]
    fn open_brackets_carry_to_the_next_line() {
        let t = "%a = f32[2]{0} negate(%x), backend_config={";
        let (mut ends, from) = (Ends::new(Kind::Instruction, 4), 4);
        assert_eq!(ends.line(t, from).cut, None);
        assert_eq!(ends.depth, 1);
        assert_eq!(ends.line("  \"k\": \"}\"", 0).cut, None);
        let e = ends.line("} %b = f32[2]{0} negate(%a)", 0);
        assert_eq!(e.cut, Some(Cut { end: 2, resume: 2, opens_body: false }));
        // A header whose signature spans lines opens its body on the last.
        let mut ends = Ends::new(Kind::Computation { opens_body: false }, 2);
        assert_eq!(ends.line("%c (a: f32[2],", 2).cut, None);
        let e = ends.line(" b: f32[2]) -> f32[2] { ROOT %r = f32[2] add(a, b) }", 0);
        assert_eq!(e.cut, Some(Cut { end: 22, resume: 23, opens_body: true }));
    }

    #[test]
    fn tables_on_one_line() {
        let cut = |at| Some(Cut { end: at, resume: at, opens_body: false });
        assert_eq!(split(Kind::TableHeader, "FileNames 1 \"a.py\"").0, cut(10));
        assert_eq!(split(Kind::TableRow, "1 \"a b.py\" 2 \"b.py\"").0, cut(11));
        let t = "12 {file_location_id=1 parent_frame_id=3} StackFrames";
        assert_eq!(split(Kind::TableRow, t).0, cut(42));
        assert_eq!(split(Kind::TableRow, "1 \"a.py\"").0, None);
    }

    #[test]
    fn what_never_ends_before_its_line() {
        assert_eq!(split(Kind::Unreadable, "\"x\" \"x\" \"x\""), (None, 0));
        // An instruction without its operand list yet: no cut, whatever follows.
        assert_eq!(split(Kind::Instruction, "%p = f32[2] parameter").0, None);
    }
}
