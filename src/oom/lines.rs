//! A pasted report's lines as the compiler wrote them, whatever carried them: Windows line
//! ends dropped; the log prefix a logger put before each line (`2020-05-04 09:05:40.719745:
//! E    1578 tensorflow/.../xla_util.cc:76] `, glog's `E1111 07:35:00.272763 140408571
//! file.py:81] `, or glog's time and thread without a file) taken off; any other prefix that
//! every line carries taken off too, even where it differs from line to line only in its
//! digits and colour codes (`[worker-3] `; a Ray worker's `\x1b[36m(MeshHostWorker
//! pid=489)\x1b[0m `, and in a copy from an issue thread `71[36m(MeshHostWorker pid=489)[0m `,
//! its escapes lost and the line numbers kept); and a report pasted as a JSON string
//! (`"Ran out of memory ...\n\nTotal hbm usage ..."`) unescaped into its lines. The rest
//! then reads the same whatever logged or quoted it.

use std::borrow::Cow;

/// Each line of `text` (numbered from 1) without its line end and log prefix. A line ends
/// at `\n`, `\r\n` or a lone `\r`, as the HLO reader splits lines.
///
/// ```
/// let text = "2020-05-04 09:05:40.719745: E    1578 tensorflow/compiler/xla/xla_client/xla_util.cc:76]      Shape: u32[12582912,1]{1,0:T(8,128)}\r\nE1111 07:35:00.272763 140408571025152 error_handling.py:81] Compilation failure\nplain";
/// let lines: Vec<_> = xlayout::oom::message_lines(text).collect();
/// assert_eq!(lines, [(1, "     Shape: u32[12582912,1]{1,0:T(8,128)}"), (2, "Compilation failure"), (3, "plain")]);
/// // A report saved with lone carriage returns reads line by line too.
/// let lines: Vec<_> = xlayout::oom::message_lines("a\rb\r").collect();
/// assert_eq!(lines, [(1, "a"), (2, "b")]);
/// ```
pub fn message_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    crate::hlo::lines(text).enumerate().map(|(i, line)| (i + 1, strip_log_prefix(line)))
}

/// The lines a report is read from: [`message_lines`], then the lines of a JSON-escaped
/// report unescaped (each keeps the number of the line it came from), then a prefix every
/// non-blank line shares taken off. Linear in the text.
///
/// ```
/// let text = "[worker-3] Ran out of memory in memory space hbm.\n[worker-3]   1. Size: 512B\n";
/// let lines = xlayout::oom::report_lines(text);
/// assert_eq!((lines[0].1.as_ref(), lines[1].1.as_ref()), ("Ran out of memory in memory space hbm.", "  1. Size: 512B"));
/// let quoted = xlayout::oom::report_lines(r#"{"error": "Ran out of memory in memory space hbm.\n  1. Size: 512B"}"#);
/// assert_eq!((quoted[1].0, quoted[1].1.as_ref()), (1, "  1. Size: 512B\"}"));
/// ```
pub fn report_lines(text: &str) -> Vec<(usize, Cow<'_, str>)> {
    read_lines(text).collect()
}

/// [`report_lines`] one at a time, none held: the text is read twice (once for the shared
/// prefix, once for the lines), so that a report of ten million lines costs no list of
/// them.
pub(crate) fn read_lines(text: &str) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    let escaped = is_json_escaped(text);
    let prefix = shared_prefix(|| unescaped(text, escaped).map(|(_, l)| l));
    unescaped(text, escaped).map(move |(n, line)| {
        if prefix == 0 || line.trim().is_empty() {
            return (n, line);
        }
        // What the shared prefix hid may be a logger's prefix of its own.
        let line = match line {
            Cow::Borrowed(l) => Cow::Borrowed(strip_log_prefix(after_units(l, prefix))),
            Cow::Owned(l) => Cow::Owned(strip_log_prefix(after_units(&l, prefix)).to_string()),
        };
        (n, line)
    })
}

/// [`message_lines`], a line of a JSON-escaped report (`escaped`) that holds `\\n` split
/// into the lines it stands for, unescaped.
fn unescaped(text: &str, escaped: bool) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    Unescaped { lines: message_lines(text), escaped, rest: Vec::new().into_iter() }
}

/// The iterator of [`unescaped`]: a line as it is, or the parts of an escaped one (the
/// first returned, the others kept for the calls that follow).
struct Unescaped<'t, L> {
    lines: L,
    escaped: bool,
    rest: std::vec::IntoIter<(usize, Cow<'t, str>)>,
}

impl<'t, L: Iterator<Item = (usize, &'t str)>> Iterator for Unescaped<'t, L> {
    type Item = (usize, Cow<'t, str>);

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(part) = self.rest.next() {
            return Some(part);
        }
        let (n, line) = self.lines.next()?;
        if !(self.escaped && line.contains("\\n")) {
            return Some((n, Cow::Borrowed(line)));
        }
        let unescaped = json_unescape(line);
        let mut parts = unescaped.split('\n').map(|part| {
            let part = part.strip_suffix('\r').unwrap_or(part);
            (n, Cow::Owned(strip_log_prefix(part).to_string()))
        });
        let first = parts.next();
        self.rest = parts.collect::<Vec<_>>().into_iter();
        first
    }
}

/// Words that begin a report's own lines: a prefix holding one is part of the report.
const REPORT_WORDS: [&str; 12] = [
    "Size",
    "Shape",
    "Buffer",
    "Ran out",
    "Largest",
    "Total",
    "Program",
    "Peak",
    "Attempting",
    "XLA",
    "Operator",
    "Unpadded",
];

/// Whether a line (without its prefixes) reads as a report's own: a header, an entry, a
/// field of one.
fn report_line(line: &str) -> bool {
    let t = line.trim_start();
    let entry = t
        .split_once(". Size:")
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    entry
        || t.starts_with("====")
        || REPORT_WORDS.iter().any(|w| t.starts_with(w))
        || [
            "Extra memory",
            "Allocation type",
            "Entry Parameter",
            "Compilation failure",
            "BufferAssignment",
        ]
        .iter()
        .any(|w| t.starts_with(w))
}

/// Lines looked at to choose where a shared prefix ends, and places it may end tried.
const SAMPLE: usize = 256;
const CUTS: usize = 16;

/// What lines are compared by to find the prefix they share: a character, or a run of
/// digits, whatever they are (a line number, a process id, a time). Colour codes are not
/// compared at all (see [`colour_code`]). So `71\x1b[36m(W pid=489)\x1b[0m ` and
/// `72\x1b[33m(W pid=489)\x1b[0m ` share all of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Char(char),
    Digits,
}

/// The [`Unit`]s of a line, each with the byte offset where it ends.
struct Units<'a> {
    line: &'a str,
    at: usize,
}

fn units(line: &str) -> Units<'_> {
    Units { line, at: 0 }
}

impl Iterator for Units<'_> {
    type Item = (Unit, usize);

    fn next(&mut self) -> Option<(Unit, usize)> {
        let mut rest = &self.line[self.at..];
        while let Some(n) = colour_code(rest) {
            self.at += n;
            rest = &rest[n..];
        }
        let c = rest.chars().next()?;
        if c.is_ascii_digit() {
            self.at += rest.bytes().take_while(u8::is_ascii_digit).count();
            return Some((Unit::Digits, self.at));
        }
        self.at += c.len_utf8();
        Some((Unit::Char(c), self.at))
    }
}

/// The length of the ANSI colour code (SGR) that `s` starts with: `ESC [ 2;36 m`, or the same
/// without its ESC, as a copy from a web page leaves it (`[36m`: then with a number, so that
/// a `[m` of the text is no code).
fn colour_code(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let esc = usize::from(b.first() == Some(&0x1b));
    if b.get(esc) != Some(&b'[') {
        return None;
    }
    let body = b[esc + 1..].iter().take_while(|c| c.is_ascii_digit() || **c == b';').count();
    let end = esc + 1 + body;
    (b.get(end) == Some(&b'm') && (esc == 1 || body > 0)).then_some(end + 1)
}

/// `line` after its first `n` [`Unit`]s (and the colour codes among them); empty when it has
/// fewer (a line that is the prefix alone).
fn after_units(line: &str, n: usize) -> &str {
    match n.checked_sub(1).map(|last| units(line).nth(last)) {
        None => line,
        Some(Some((_, end))) => &line[end..],
        Some(None) => "",
    }
}

/// The [`Unit`]s of `line`, and a space after them: a line compared as if it ended with one.
fn with_end(line: &str) -> impl Iterator<Item = Unit> + '_ {
    units(line).map(|(u, _)| u).chain([Unit::Char(' ')])
}

/// The number of [`Unit`]s of the prefix every non-blank line starts with and that is no
/// part of a report, or 0: the longest common prefix (in units, so that it may differ in its
/// digits and colour codes from line to line), cut after one of its runs of whitespace where
/// the most lines then read as a report's (a logger's own prefix may follow it, taken off
/// too); only when there are two lines or more, and it holds something other than
/// whitespace and none of [`REPORT_WORDS`]. Each line is compared as if it ended with a
/// space, so that a line the logger wrote with nothing after its prefix (and no space)
/// still shares the whole prefix. Linear: each line is compared once against what is left
/// of the prefix (`lines` is called twice: the text is read again, not held), and a bounded
/// sample of lines is tried at a bounded number of places.
fn shared_prefix<S: AsRef<str>, I: Iterator<Item = S>>(lines: impl Fn() -> I) -> usize {
    let mut common: Option<Vec<Unit>> = None;
    let mut count = 0;
    for line in lines() {
        let line = line.as_ref();
        if line.trim().is_empty() {
            continue;
        }
        count += 1;
        match &mut common {
            None => common = Some(with_end(line).take(MAX_PREFIX).collect()),
            Some(c) => {
                let same = c.iter().zip(with_end(line)).take_while(|(a, b)| *a == b).count();
                c.truncate(same);
            }
        }
        if common.as_ref().is_some_and(Vec::is_empty) {
            return 0;
        }
    }
    let Some(common) = common.filter(|_| count >= 2) else { return 0 };
    // What the prefix says, for the checks on its words (a run of digits as one digit).
    let text = |n: usize| -> String {
        common[..n].iter().map(|u| if let Unit::Char(c) = u { *c } else { '0' }).collect()
    };
    // Where the prefix may end: after each run of whitespace in it.
    let space = |u: &Unit| matches!(u, Unit::Char(c) if c.is_whitespace());
    let cuts = (1..=common.len())
        .filter(|&i| space(&common[i - 1]) && common.get(i).map_or(true, |u| !space(u)))
        .take(CUTS);
    let sample: Vec<S> = lines().filter(|l| !l.as_ref().trim().is_empty()).take(SAMPLE).collect();
    let score = |cut: usize| {
        sample
            .iter()
            .filter(|l| report_line(strip_log_prefix(after_units(l.as_ref(), cut))))
            .count()
    };
    let mut best = (score(0), 0);
    for cut in cuts {
        let candidate = text(cut);
        if candidate.trim().is_empty() || REPORT_WORDS.iter().any(|w| candidate.contains(w)) {
            continue;
        }
        let s = score(cut);
        if s > best.0 {
            best = (s, cut);
        }
    }
    best.1
}

/// Whether the text is a report pasted as a JSON (or Python) string: a report's header and
/// a literal `\n` on one line.
fn is_json_escaped(text: &str) -> bool {
    // Only the lines that hold a `\\n` are looked at, each once: the search goes on after
    // the end of the line it found one in.
    let b = text.as_bytes();
    let escape = memchr::memmem::Finder::new("\\n");
    let mut from = 0;
    while let Some(at) = escape.find(&b[from..]).map(|at| from + at) {
        let start = memchr::memrchr(b'\n', &b[from..at]).map_or(from, |i| from + i + 1);
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i);
        let line = &text[start..end];
        if ["Ran out of memory", "BufferAssignment OOM", "Largest program", "Attempting to"]
            .iter()
            .any(|m| line.contains(m))
        {
            return true;
        }
        from = end;
    }
    false
}

/// A JSON string's escapes (`\n`, `\t`, `\r`, `\"`, `\\`, `\/`, `\uXXXX`) replaced by what
/// they stand for; anything else is kept as written.
fn json_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some('u') => {
                let hex: String = chars.clone().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if hex.len() == 4 => {
                        out.push(ch);
                        for _ in 0..4 {
                            chars.next();
                        }
                    }
                    _ => out.push_str("\\u"),
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Loggers write at most this much before the message.
const MAX_PREFIX: usize = 512;

/// `line` without a log prefix, if it has one of the forms loggers write before XLA's
/// messages: a time, a level, a thread id, then `file:line] `; or glog's level, date, time
/// and thread id without the file (`E0412 10:11:12.345 140234 `).
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
    if let Some(close) = window.find("] ") {
        // The part before `]` ends in `file:line`.
        let before = &window[..close];
        if let Some((file, number)) = before.rsplit_once(':') {
            if digits(number.as_bytes()) && !file.ends_with(char::is_whitespace) && !file.is_empty()
            {
                return &line[close + 2..];
            }
        }
    }
    if glog {
        return strip_glog_time(line);
    }
    line
}

/// `E0412 10:11:12.345678 140234 message` -> `message`: glog's level and date, a time, and
/// a thread id, without the file; `line` itself when it is not of that form.
fn strip_glog_time(line: &str) -> &str {
    let mut words = line.splitn(4, ' ');
    let (_, time, thread) = (words.next(), words.next(), words.next());
    let time_ok = time.is_some_and(|t| {
        let t = t.as_bytes();
        t.len() >= 8
            && t[2] == b':'
            && t[5] == b':'
            && t.iter()
                .enumerate()
                .all(|(i, c)| matches!(i, 2 | 5) || c.is_ascii_digit() || (i == 8 && *c == b'.'))
    });
    if !time_ok || thread.is_none() {
        return line;
    }
    // The thread id may be padded with spaces before it: `E0412 10:11:12.345   1578 msg`.
    let after_time = line.get(6 + time.map_or(0, str::len)..).unwrap_or("");
    let rest = after_time.trim_start_matches(' ');
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !rest[digits..].starts_with(' ') {
        return line;
    }
    &rest[digits + 1..]
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
                                                   // glog's time and thread without a file.
        assert_eq!(strip_log_prefix("E0412 10:11:12.345 140234   1. Size: 1K"), "  1. Size: 1K");
        assert_eq!(strip_log_prefix("E0412 10:11:12.345678    77 x"), "x");
        assert_eq!(strip_log_prefix("E0412 10:11 x"), "E0412 10:11 x");
        assert_eq!(strip_log_prefix("E0412 10:11:12.3 x y"), "E0412 10:11:12.3 x y");
    }

    #[test]
    fn a_prefix_on_every_line() {
        // The prefix as the first line writes it.
        let p = |t: &str| match shared_prefix(|| t.lines()) {
            0 => String::new(),
            n => {
                let first = t.lines().next().unwrap();
                first[..first.len() - after_units(first, n).len()].to_string()
            }
        };
        assert_eq!(p("[w3] Ran out\n[w3]   1. Size: 1K\n\n[w3] Shape: f32[]"), "[w3] ");
        assert_eq!(p("[w3] Ran out"), ""); // one line: nothing to compare
        assert_eq!(p("  Ran out\n  Total"), ""); // indentation only
        assert_eq!(p("Buffer 1:\nBuffer 2:"), ""); // the report's own words
        assert_eq!(p("[w3]Ran out\n[w3]Total"), ""); // no whitespace ends it
        assert_eq!(p("é é Ran out\né é Total"), "é é ");
        // The place where most lines read as a report's: `host | ` not `host `.
        assert_eq!(p("host | Ran out\nhost |   1. Size: 1K"), "host | ");
        // A logger's prefix after it is left to the logger's rule.
        let logged = "[w] 2020-05-04 09:05:40.719745: E 1 x.cc:76] Ran out\n[w] 2020-05-04 09:05:40.719899: E 1 x.cc:76] Total";
        assert_eq!(p(logged), "[w] ");
        assert_eq!(p("[w] hello\n[w] there"), ""); // nothing reads as a report
                                                   // Differing in digits and colour codes only, a line that is the prefix alone among
                                                   // them (as the first line writes it).
        let ray = "9[2m[36m(W pid=489)[0m Ran out\n10[2m[33m(W pid=5)[0m\n11\x1b[36m(W pid=5)\x1b[0m   1. Size: 1K";
        assert_eq!(p(ray), "9[2m[36m(W pid=489)[0m ");
        // The prefix is 11 units: 9 ( W space p i d = 489 ) space.
        let cut = shared_prefix(|| ray.lines());
        assert_eq!((cut, after_units("10[2m[33m(W pid=5)[0m", cut)), (11, ""));
        // Digits that differ in a word are still a prefix's, as long as it holds no report words.
        assert_eq!(p("run7 Ran out\nrun12 Total hbm"), "run7 ");
        // `[m` with no number is text, not a colour code.
        assert_eq!(
            (colour_code("[m x"), colour_code("\x1b[m x"), colour_code("[1;36mx")),
            (None, Some(3), Some(6))
        );
    }

    #[test]
    fn json_strings() {
        assert_eq!(json_unescape(r#"a\nb\t\"c\"\\d\/\u00e9\u12"#), "a\nb\t\"c\"\\d/é\\u12");
        assert_eq!(json_unescape("end\\"), "end\\");
        assert!(!is_json_escaped("C:\\new\\path Ran out"));
        assert!(is_json_escaped("\"Ran out of memory in memory space hbm.\\n\""));
    }
}
