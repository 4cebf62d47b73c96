//! Bytes to text: a dump is read as bytes, and a line that is not UTF-8 is reported (its
//! line, and the byte where the bad sequence starts) and decoded with U+FFFD in place of
//! the bad bytes, so the rest of the line and of the file are still analysed.

use std::borrow::Cow;

use super::diagnostic::{Diagnostic, DiagnosticKind, Diagnostics};
use super::lines::line_at;

/// The text of `bytes`, borrowed when it is all UTF-8, and one diagnostic per line that
/// is not (the first [`MAX_LISTED`](super::super::MAX_LISTED), then one that counts the rest).
/// One pass over the bytes; a line ends at `\n`, `\r\n` or a lone `\r`.
///
/// ```
/// use xlayout::hlo::{decode, DiagnosticKind};
/// let (text, problems) = decode(b"HloModule m\n%x = f32[2]{0} parameter(0), metadata={op_name=\"\xff\"}\n");
/// assert!(text.contains("op_name=\"\u{fffd}\""));
/// assert_eq!(problems.len(), 1);
/// assert_eq!((problems[0].line, problems[0].column, problems[0].kind), (2, Some(49), DiagnosticKind::NotUtf8));
/// ```
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, Vec<Diagnostic>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut problems = Diagnostics::default();
    // Line number and the byte offset of the line's start, both for the original bytes; the
    // line last reported.
    let (mut line, mut line_start, mut offset) = (1usize, 0usize, 0usize);
    let mut reported = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().as_bytes();
        // A `\r` that ends a valid part is a lone one: a bad sequence follows it.
        let mut from = 0;
        while from < valid.len() {
            let (end, next) = line_at(valid, from);
            if end == valid.len() {
                break;
            }
            line += 1;
            line_start = offset + next;
            from = next;
        }
        text.push_str(chunk.valid());
        offset += valid.len();
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            // One report per line: the first bad byte is where a person should look.
            if std::mem::replace(&mut reported, line) != line {
                let column = offset - line_start + 1;
                problems.add(line, DiagnosticKind::NotUtf8, Some(column), || {
                    format!(
                        "byte {offset} of the file (0x{:02x}) is not UTF-8; the line is read \
                         with U+FFFD in place of each bad sequence",
                        invalid[0]
                    )
                });
            }
            text.push(char::REPLACEMENT_CHARACTER);
            offset += invalid.len();
        }
    }
    (Cow::Owned(text), problems.into_vec())
}

/// [`decode`] of bytes the caller owns, the text in the same memory when it is all UTF-8:
/// a file read whole is held once, not twice (its bytes, then a copy of them as text), and
/// without the room a read of unknown length left at its end. Bytes that are not UTF-8 are
/// decoded into a new string, as [`decode`] does, and dropped.
///
/// ```
/// use xlayout::hlo::decode_owned;
/// let bytes = b"HloModule m\n".to_vec();
/// let at = bytes.as_ptr();
/// let (text, problems) = decode_owned(bytes);
/// assert_eq!((text.as_ptr(), text.as_str(), problems.len()), (at, "HloModule m\n", 0));
/// let (text, problems) = decode_owned(b"a\xffb\n".to_vec());
/// assert_eq!((text.as_str(), problems.len()), ("a\u{fffd}b\n", 1));
/// ```
pub fn decode_owned(mut bytes: Vec<u8>) -> (String, Vec<Diagnostic>) {
    // What a read to the end grew by doubling: up to half of the vector, for the whole run.
    if bytes.capacity() - bytes.len() > bytes.len() / 8 {
        bytes.shrink_to_fit();
    }
    match String::from_utf8(bytes) {
        Ok(text) => (text, Vec::new()),
        Err(e) => {
            let (text, problems) = decode(e.as_bytes());
            (text.into_owned(), problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_each_bad_line_once_and_keeps_line_numbers() {
        let bytes = b"a\xc3\x28b\n\nok\n\xff\xfe x \xff\nlast";
        let (text, problems) = decode(bytes);
        assert_eq!(text, "a\u{fffd}(b\n\nok\n\u{fffd}\u{fffd} x \u{fffd}\nlast");
        let at: Vec<_> = problems.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, [(1, Some(2)), (4, Some(1))]);
        assert!(problems[1].message.starts_with("byte 9 of the file (0xff)"), "{problems:?}");
        let (text, problems) = decode(b"plain\n");
        assert!(matches!(text, Cow::Borrowed("plain\n")) && problems.is_empty());
        // Lone CRs end lines too.
        let (_, problems) = decode(b"a\rb\r\n\xff\r\xfe");
        let at: Vec<_> = problems.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, [(3, Some(1)), (4, Some(1))]);
    }

    #[test]
    fn a_million_bad_lines_cost_a_counter() {
        let (_, problems) = decode(&b"\xff\n".repeat(1_000_000));
        assert_eq!(problems.len(), super::super::super::MAX_LISTED + 1);
        let last = problems.last().unwrap();
        assert_eq!((last.line, last.more, last.kind), (101, 999_900, DiagnosticKind::NotUtf8));
    }
}
