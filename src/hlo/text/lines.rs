//! Line ends, one rule for every reader of this crate (modules, XLA's memory dumps,
//! out-of-memory reports): `\n`, `\r\n` and a lone `\r` each end a line. A file saved with
//! old Mac line ends is then read line by line like any other, instead of as one line.

/// The line that starts at byte `from` of `b`: where its text ends, and where the next line
/// starts (both `b.len()` for a last line without a line end). One `memchr2` call.
pub(crate) fn line_at(b: &[u8], from: usize) -> (usize, usize) {
    match memchr::memchr2(b'\n', b'\r', &b[from..]) {
        None => (b.len(), b.len()),
        Some(n) => {
            let end = from + n;
            let crlf = b[end] == b'\r' && b.get(end + 1) == Some(&b'\n');
            (end, end + 1 + usize::from(crlf))
        }
    }
}

/// How many line ends `b` holds (a `\r\n` counts once; a `\r` at the very end counts).
pub(crate) fn count_line_ends(b: &[u8]) -> usize {
    let mut n = 0;
    let mut from = 0;
    while from < b.len() {
        let (end, next) = line_at(b, from);
        n += usize::from(end < b.len());
        from = next;
    }
    n
}

/// The offset just past the last line end in `b`, if it holds one: where the last line of
/// `b` starts.
pub(crate) fn last_line_start(b: &[u8]) -> Option<usize> {
    memchr::memrchr2(b'\n', b'\r', b).map(|i| i + 1)
}

/// The lines of `text`, without their line ends: as [`str::lines`], but a lone `\r` ends a
/// line too. A line end at the very end makes no empty last line.
///
/// ```
/// let lines: Vec<&str> = xlayout::hlo::lines("a\nb\r\nc\rd\r").collect();
/// assert_eq!(lines, ["a", "b", "c", "d"]);
/// assert_eq!(xlayout::hlo::lines("").count(), 0);
/// assert_eq!(xlayout::hlo::lines("\n\n").collect::<Vec<_>>(), ["", ""]);
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        if from >= text.len() {
            return None;
        }
        let (end, next) = line_at(text.as_bytes(), from);
        // Line ends are ASCII: both offsets are on character boundaries.
        let line = &text[from..end];
        from = next;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_end() {
        let b = b"a\r\nb\rc\n\rd";
        assert_eq!(line_at(b, 0), (1, 3));
        assert_eq!(line_at(b, 3), (4, 5));
        assert_eq!(line_at(b, 5), (6, 7));
        assert_eq!(line_at(b, 7), (7, 8)); // `\n\r`: two line ends
        assert_eq!(line_at(b, 8), (9, 9));
        assert_eq!(count_line_ends(b), 4);
        assert_eq!(count_line_ends(b"x\r"), 1);
        assert_eq!(last_line_start(b), Some(8));
        assert_eq!(last_line_start(b"abc"), None);
    }
}
