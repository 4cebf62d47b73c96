//! Text at bracket depth: the walk that every reader of a statement uses to find brackets,
//! blanks and commas outside `"strings"` and comments, and the splits built on it (the
//! matching bracket, the top-level pieces of a list).

use std::ops::ControlFlow;

use super::lines::line_at;

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
/// Brackets, blanks and commas.
pub(crate) const BRACKETS_BLANKS_AND_COMMAS: [bool; 256] = interest(b" \t\n\r,");
/// Brackets and commas.
pub(crate) const BRACKETS_AND_COMMAS: [bool; 256] = interest(b",");

/// Calls `f(offset, event, depth)` for every bracket of `s`, and every byte `interest`
/// marks, outside `"strings"` (with `\` escapes), `/* comments */` and `// comments`, with
/// the bracket depth outside the byte (an opening bracket gets the depth before it, a
/// closing one the depth after it), until `f` breaks. Strings and comments end with their
/// line at the latest. Returns the offset `f` broke at. Bytes of no interest are skipped
/// with one table look-up each: this loop sees every byte of a dump a few times, and the
/// line end strings and comments stop at is searched for once per line, not once each.
pub(crate) fn walk(
    s: &str,
    interest: &[bool; 256],
    f: impl FnMut(usize, Event, usize) -> ControlFlow<()>,
) -> Option<usize> {
    let reading = Reading { top: interest, inside: interest, one_line: false, depth: 0 };
    walk_counted(s, reading, f)
}

/// [`walk`] on text that is part of one line (no line end in it), which starts at bracket
/// `depth`, stopping at the bytes `top` marks outside brackets and at brackets alone inside
/// them. Strings and comments end with the text at the latest, found without a search: a
/// line of many statements is walked a statement at a time, and a search for its end per
/// statement would read the line once each. Blanks inside brackets (most of a line's, in
/// metadata and operand lists) are passed over as any byte.
pub(crate) fn walk_line(
    s: &str,
    top: &[bool; 256],
    depth: usize,
    f: impl FnMut(usize, Event, usize) -> ControlFlow<()>,
) -> Option<usize> {
    walk_counted(s, Reading { top, inside: &BRACKETS, one_line: true, depth }, f)
}

/// How [`walk_bytes`] reads a text.
#[derive(Clone, Copy)]
struct Reading<'a> {
    /// The bytes it stops at outside brackets, and inside them.
    top: &'a [bool; 256],
    inside: &'a [bool; 256],
    /// Whether the text is part of one line (no line end in it).
    one_line: bool,
    /// The bracket depth at the text's start.
    depth: usize,
}

/// [`walk`], counting the bytes passed as steps.
fn walk_counted(
    s: &str,
    reading: Reading<'_>,
    f: impl FnMut(usize, Event, usize) -> ControlFlow<()>,
) -> Option<usize> {
    let stop = walk_bytes(s, reading, f);
    super::super::work::count(stop.unwrap_or(s.len()));
    stop
}

/// [`walk_counted`], without counting.
fn walk_bytes(
    s: &str,
    reading: Reading<'_>,
    mut f: impl FnMut(usize, Event, usize) -> ControlFlow<()>,
) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut depth = reading.depth;
    // The first line end at or after the last search: a string or comment ends there at the
    // latest. Searched again only once passed, so a line of a million strings is searched
    // once, not once per string.
    let mut eol: Option<usize> = reading.one_line.then_some(b.len());
    let mut line_end = |from: usize| match eol {
        Some(e) if e >= from => e,
        _ => {
            let e = line_at(b, from).0;
            super::super::work::count(e - from);
            *eol.insert(e)
        }
    };
    loop {
        let interest = if depth == 0 { reading.top } else { reading.inside };
        while i < b.len() && !interest[b[i] as usize] {
            i += 1;
        }
        let &c = b.get(i)?;
        // The event at `i`, the depth it is reported with, and where the walk goes on: one
        // call of `f` in the loop, which the compiler can then inline.
        let (event, depth_seen, next) = match c {
            b'"' => {
                // Skip to the closing quote on this line.
                let end = line_end(i + 1);
                let mut j = i + 1;
                loop {
                    match b.get(j) {
                        Some(b'\\') if j < end => j += 2,
                        Some(b'"') if j < end => break,
                        Some(_) if j < end => j += 1,
                        _ => break,
                    }
                }
                if j < end {
                    i = j + 1;
                    continue;
                }
                (Event::Open("string"), depth, end)
            }
            b'/' => match b.get(i + 1) {
                Some(b'*') => {
                    let end = line_end(i + 2);
                    if let Some(n) = memchr::memmem::find(&b[i + 2..end], b"*/") {
                        i = i + 2 + n + 2;
                        continue;
                    }
                    (Event::Open("comment"), depth, end)
                }
                Some(b'/') => (Event::LineComment, depth, line_end(i)),
                _ => {
                    i += 1;
                    continue;
                }
            },
            b'(' | b'[' | b'{' => {
                depth += 1;
                (Event::Byte(c), depth - 1, i + 1)
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                (Event::Byte(c), depth, i + 1)
            }
            _ => (Event::Byte(c), depth, i + 1),
        };
        if f(i, event, depth_seen).is_break() {
            return Some(i);
        }
        i = next;
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

    #[test]
    fn top_level_helpers() {
        assert_eq!(matching_close("(a, (b), \")\", c) rest"), Some(15));
        assert_eq!(matching_close("(a, (b"), None);
        assert_eq!(
            split_top_level(" a, f32[2,3]{1,0} b, {x, y}, \"p,q\" ,"),
            ["a", "f32[2,3]{1,0} b", "{x, y}", "\"p,q\""]
        );
    }
}
