//! `metadata={op_type="..." op_name="..." source_file="..." source_line=N stack_frame_id=N}`
//! and the tables (`FileNames`, `FunctionNames`, `FileLocations`, `StackFrames`) that a
//! `stack_frame_id` points into.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Serialize;

/// The `metadata={...}` of an instruction: where in the user's program it comes from.
/// Strings are unescaped (borrowed from the dump when they hold no escape).
///
/// ```
/// use xlayout::hlo::Metadata;
/// let m = Metadata::parse(r#"{op_type="dot" op_name="jit(f)/dot_general" source_file="model.py" source_line=12}"#);
/// assert_eq!(m.op_name.as_deref(), Some("jit(f)/dot_general"));
/// assert_eq!((m.source_file.as_deref(), m.source_line), (Some("model.py"), Some(12)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Metadata<'t> {
    /// `op_type`: the framework's operation type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_type: Option<Cow<'t, str>>,
    /// `op_name`: the framework's name path (`jit(step)/layer_3/dot_general`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_name: Option<Cow<'t, str>>,
    /// `source_file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_file: Option<Cow<'t, str>>,
    /// `source_line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_line: Option<u64>,
    /// `stack_frame_id`: a row of the module's `StackFrames` table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_frame_id: Option<u64>,
}

impl<'t> Metadata<'t> {
    /// Reads `{key=value key="value" ...}` (the braces optional). Unknown keys are ignored;
    /// a value that is not what its key needs is left out.
    ///
    /// ```
    /// use xlayout::hlo::Metadata;
    /// let m = Metadata::parse(r#"{op_name="a \"quoted\" (x=[1])" source_line=oops}"#);
    /// assert_eq!(m.op_name.as_deref(), Some(r#"a "quoted" (x=[1])"#));
    /// assert_eq!(m.source_line, None);
    /// ```
    pub fn parse(text: &'t str) -> Metadata<'t> {
        let t = text.trim();
        let t = t.strip_prefix('{').unwrap_or(t);
        let t = t.strip_suffix('}').unwrap_or(t);
        let mut m = Metadata::default();
        for (key, value) in pairs(t) {
            match key {
                "op_type" => m.op_type = Some(value),
                "op_name" => m.op_name = Some(value),
                "source_file" => m.source_file = Some(value),
                "source_line" => m.source_line = value.parse().ok(),
                "stack_frame_id" => m.stack_frame_id = value.parse().ok(),
                _ => {}
            }
        }
        m
    }
}

/// `key=value` pairs separated by blanks; values are `"strings"` (unescaped) or words.
fn pairs(t: &str) -> impl Iterator<Item = (&str, Cow<'_, str>)> {
    let b = t.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let key_start = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = &t[key_start..i];
        if b.get(i) != Some(&b'=') {
            continue; // a word without a value
        }
        i += 1;
        if b.get(i) == Some(&b'"') {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let raw = &t[start..j.min(b.len())];
            i = j + 1;
            return Some((key, unescape(raw)));
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        return Some((key, Cow::Borrowed(&t[start..i])));
    })
}

/// The text of a C-escaped string as XLA prints it (`CEscape`: `\"`, `\\`, `\n`, `\t`,
/// `\r`, `\'` and three-digit octal); borrowed when it has no escape. An unknown escape is
/// kept as written.
pub(crate) fn unescape(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        let simple = match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'"' | b'\'' | b'\\' | b'?' => Some(c),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            i += 2;
            continue;
        }
        let octal = b.get(i + 1..i + 4).filter(|d| d.iter().all(|x| (b'0'..=b'7').contains(x)));
        if let Some(d) = octal {
            let v = d.iter().fold(0u32, |v, x| v * 8 + u32::from(x - b'0'));
            if let Ok(byte) = u8::try_from(v) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// A place in the user's source: file, line and function, from the stack-frame tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceLocation<'t> {
    /// The file name as the table gives it.
    pub file: Cow<'t, str>,
    /// The line.
    pub line: u64,
    /// The function, when the table names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<Cow<'t, str>>,
}

/// The `FileNames`, `FunctionNames`, `FileLocations` and `StackFrames` tables that newer
/// XLA prints after the module header, to resolve a `stack_frame_id` to a source line.
///
/// ```
/// use xlayout::hlo::Module;
/// let text = "HloModule m\n\nFileNames\n1 \"model.py\"\n\nFunctionNames\n1 \"layer\"\n\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=42 end_line=42 column=3 end_column=9}\n\nStackFrames\n1 {file_location_id=1 parent_frame_id=1}\n";
/// let m = Module::parse(text);
/// let at = m.sources.frame(1).unwrap();
/// assert_eq!((at.file.as_ref(), at.line, at.function.as_deref()), ("model.py", 42, Some("layer")));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SourceTables<'t> {
    pub(crate) file_names: HashMap<u64, Cow<'t, str>>,
    pub(crate) function_names: HashMap<u64, Cow<'t, str>>,
    /// id -> (file name id, function name id, line)
    pub(crate) file_locations: HashMap<u64, (u64, Option<u64>, u64)>,
    /// id -> file location id
    pub(crate) stack_frames: HashMap<u64, u64>,
}

impl<'t> SourceTables<'t> {
    /// Whether no table had any row.
    ///
    /// ```
    /// assert!(xlayout::hlo::Module::parse("").sources.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.file_names.is_empty() && self.stack_frames.is_empty()
    }

    /// The innermost source location of stack frame `id` (the frame the instruction's
    /// metadata names; its parents are its callers).
    ///
    /// ```
    /// assert!(xlayout::hlo::Module::parse("").sources.frame(1).is_none());
    /// ```
    pub fn frame(&self, id: u64) -> Option<SourceLocation<'t>> {
        let (file, line, function) = self.frame_row(id)?;
        Some(SourceLocation {
            file: self.file_names.get(&file)?.clone(),
            line,
            function: function.and_then(|f| self.function_names.get(&f)).cloned(),
        })
    }

    /// The innermost location of stack frame `id` as the tables number it: the `FileNames`
    /// row of its file, its line and the `FunctionNames` row of its function; the file is
    /// not looked up or copied (rows that share a file share its number).
    pub(crate) fn frame_row(&self, id: u64) -> Option<(u64, u64, Option<u64>)> {
        let location = self.stack_frames.get(&id)?;
        let &(file, function, line) = self.file_locations.get(location)?;
        self.file_names.contains_key(&file).then_some((file, line, function))
    }

    /// Reads one row of table `table` (`1 "name"` or `1 {key=value ...}`); `false` when it
    /// is not a row of that table.
    pub(crate) fn add_row(&mut self, table: &str, row: &'t str) -> bool {
        let digits = row.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(id) = row[..digits].parse::<u64>() else {
            return false;
        };
        let rest = row[digits..].trim();
        match table {
            "FileNames" | "FunctionNames" => {
                let Some(inner) = rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
                    return false;
                };
                let map = if table == "FileNames" {
                    &mut self.file_names
                } else {
                    &mut self.function_names
                };
                map.insert(id, unescape(inner));
                true
            }
            "FileLocations" | "StackFrames" => {
                let Some(inner) = rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) else {
                    return false;
                };
                let mut fields: HashMap<&str, u64> = HashMap::new();
                for (k, v) in pairs(inner) {
                    if let Ok(v) = v.parse() {
                        fields.insert(k, v);
                    }
                }
                if table == "StackFrames" {
                    let Some(&location) = fields.get("file_location_id") else {
                        return false;
                    };
                    self.stack_frames.insert(id, location);
                } else {
                    let (Some(&file), Some(&line)) =
                        (fields.get("file_name_id"), fields.get("line"))
                    else {
                        return false;
                    };
                    let function = fields.get("function_name_id").copied();
                    self.file_locations.insert(id, (file, function, line));
                }
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_with_hostile_strings() {
        let m = Metadata::parse(
            r#"{op_type="x" op_name="a}b=c \"d\" [e" source_file="/p a/f.py" source_line=7 stack_frame_id=3 preserve_layout=true}"#,
        );
        assert_eq!(m.op_name.as_deref(), Some("a}b=c \"d\" [e"));
        assert_eq!(m.source_file.as_deref(), Some("/p a/f.py"));
        assert_eq!((m.source_line, m.stack_frame_id), (Some(7), Some(3)));
        // Truncated: the open string runs to the end.
        let m = Metadata::parse(r#"{op_name="never closed"#);
        assert_eq!(m.op_name.as_deref(), Some("never closed"));
        let m = Metadata::parse(r#"{op_name="ends in \"#);
        assert_eq!(m.op_name.as_deref(), Some("ends in \\"));
        assert_eq!(Metadata::parse(""), Metadata::default());
    }

    #[test]
    fn unescape_reads_xla_escapes_and_borrows_plain_text() {
        assert_eq!(unescape(r#"a\"b\\c\td\101"#), "a\"b\\c\td\u{41}");
        assert!(matches!(unescape("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn unescape_keeps_unknown_escapes() {
        assert_eq!(unescape(r"a\qb\"), "a\\qb\\");
        assert_eq!(unescape(r"\777x"), "\\777x"); // beyond a byte: kept as written
        assert_eq!(unescape(r"\303\251"), "é"); // octal bytes of UTF-8
    }

    #[test]
    fn table_rows() {
        let mut t = SourceTables::default();
        assert!(t.add_row("FileNames", "1 \"a.py\""));
        assert!(t.add_row("FileLocations", "4 {file_name_id=1 line=9}"));
        assert!(t.add_row("StackFrames", "2 {file_location_id=4 parent_frame_id=1}"));
        assert!(!t.add_row("StackFrames", "x {file_location_id=4}"));
        assert!(!t.add_row("FileNames", "3 a.py"));
        assert!(!t.add_row("FileLocations", "5 {line=9}"));
        let at = t.frame(2).unwrap();
        assert_eq!((at.file.as_ref(), at.line, at.function), ("a.py", 9, None));
        assert!(t.frame(1).is_none());
    }
}
