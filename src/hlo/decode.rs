//! Bytes to text: a dump is read as bytes, and a line that is not UTF-8 is reported (its
//! line, and the byte where the bad sequence starts) and decoded with U+FFFD in place of
//! the bad bytes, so the rest of the line and of the file are still analysed.

use std::borrow::Cow;

use super::diagnostic::{Diagnostic, DiagnosticKind};

/// The text of `bytes`, borrowed when it is all UTF-8, and one diagnostic per line that
/// is not. One pass over the bytes.
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
    let mut problems: Vec<Diagnostic> = Vec::new();
    // Line number and the byte offset of the line's start, both for the original bytes.
    let (mut line, mut line_start, mut offset) = (1usize, 0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        for nl in memchr::memchr_iter(b'\n', valid.as_bytes()) {
            line += 1;
            line_start = offset + nl + 1;
        }
        text.push_str(valid);
        offset += valid.len();
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            // One report per line: the first bad byte is where a person should look.
            if problems.last().map_or(true, |d| d.line != line) {
                let column = offset - line_start + 1;
                problems.push(
                    Diagnostic::new(
                        line,
                        DiagnosticKind::NotUtf8,
                        format!(
                            "byte {offset} of the file (0x{:02x}) is not UTF-8; the line is read \
                             with U+FFFD in place of each bad sequence",
                            invalid[0]
                        ),
                    )
                    .at_column(column),
                );
            }
            text.push(char::REPLACEMENT_CHARACTER);
            offset += invalid.len();
        }
    }
    (Cow::Owned(text), problems)
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
    }
}
