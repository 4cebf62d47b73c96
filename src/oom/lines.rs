//! A pasted report's lines as the compiler wrote them: Windows line ends dropped, and the
//! log prefix a logger put before each line (`2020-05-04 09:05:40.719745: E    1578
//! tensorflow/.../xla_util.cc:76] `, or glog's `E1111 07:35:00.272763 140408571 file.py:81] `)
//! taken off, so the rest reads the same whatever logged it.

/// Each line of `text` (numbered from 1) without its line end and log prefix.
///
/// ```
/// let text = "2020-05-04 09:05:40.719745: E    1578 tensorflow/compiler/xla/xla_client/xla_util.cc:76]      Shape: u32[12582912,1]{1,0:T(8,128)}\r\nE1111 07:35:00.272763 140408571025152 error_handling.py:81] Compilation failure\nplain";
/// let lines: Vec<_> = xlayout::oom::message_lines(text).collect();
/// assert_eq!(lines, [(1, "     Shape: u32[12582912,1]{1,0:T(8,128)}"), (2, "Compilation failure"), (3, "plain")]);
/// ```
pub fn message_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n').enumerate().map(|(i, line)| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        (i + 1, strip_log_prefix(line))
    })
}

/// Loggers write at most this much before the message.
const MAX_PREFIX: usize = 512;

/// `line` without a log prefix, if it has one of the forms loggers write before XLA's
/// messages: a time, a level, a thread id, then `file:line] `.
fn strip_log_prefix(line: &str) -> &str {
    let b = line.as_bytes();
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    // `2020-05-04 09:05:40...` (TensorFlow's logger) or `E1111 07:35:00...` (glog).
    let dated =
        b.len() > 10 && digits(&b[0..4]) && b[4] == b'-' && digits(&b[5..7]) && b[7] == b'-';
    let glog = b.len() > 6
        && matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && digits(&b[1..5])
        && b[5] == b' ';
    if !(dated || glog) {
        return line;
    }
    let window = &line[..floor_char_boundary(line, MAX_PREFIX.min(line.len()))];
    let Some(close) = window.find("] ") else { return line };
    // The part before `]` ends in `file:line`.
    let before = &window[..close];
    let Some((file, number)) = before.rsplit_once(':') else { return line };
    if !digits(number.as_bytes()) || file.ends_with(char::is_whitespace) || file.is_empty() {
        return line;
    }
    &line[close + 2..]
}

/// The largest char boundary at or below `i`.
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_logger_prefixes_are_taken_off() {
        assert_eq!(
            strip_log_prefix("2023-01-01 10:00:00: W external/xla/x.cc:12] msg ] x"),
            "msg ] x"
        );
        assert_eq!(strip_log_prefix("  1. Size: 32.00G"), "  1. Size: 32.00G");
        assert_eq!(
            strip_log_prefix("E1000: XLA:TPU compile permanent error."),
            "E1000: XLA:TPU compile permanent error."
        );
        assert_eq!(strip_log_prefix("2023-01-01 no bracket here"), "2023-01-01 no bracket here");
        assert_eq!(strip_log_prefix("I0101 [x] y"), "I0101 [x] y");
        assert_eq!(strip_log_prefix("é"), "é");
        let long = format!("2023-01-01 {}x.cc:1] m", "é".repeat(400));
        assert_eq!(strip_log_prefix(&long), long); // the prefix is too long to be one
    }
}
