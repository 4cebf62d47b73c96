//! The manifest of one handler: what Python needs to call it, as one JSON text the library
//! exports (`xlayout_ffi_manifest`), written from the same canonical layout texts the
//! handler's checks were generated from. `xlayout.jax.load` reads it; its `format` changes
//! when a key is renamed or removed.
//!
//! ```text
//! {"format":1,"name":"scale",
//!  "args":[{"name":"x","shape":"f32[?,128]{1,0}"}],
//!  "results":[{"name":"y","shape":"f32[?,128]{1,0}"}],
//!  "attrs":[{"name":"factor","type":"f32"}],
//!  "equal_dims":[["y",0,"x",0]]}
//! ```

use std::fmt::Write;

/// The manifest's format number.
const FORMAT: u32 = 1;

/// What one handler's manifest says.
pub struct Manifest {
    pub name: String,
    /// `(name, canonical shape text)`.
    pub args: Vec<(String, String)>,
    pub results: Vec<(String, String)>,
    /// `(name, XLA type name)`.
    pub attrs: Vec<(String, String)>,
    /// `(name, dim, name, dim)`: two dimensions declared equal.
    pub equal_dims: Vec<(String, usize, String, usize)>,
}

impl Manifest {
    pub fn json(&self) -> String {
        let mut s = format!("{{\"format\":{FORMAT},\"name\":{}", string(&self.name));
        for (key, list, field) in [
            ("args", &self.args, "shape"),
            ("results", &self.results, "shape"),
            ("attrs", &self.attrs, "type"),
        ] {
            let items: Vec<String> = list
                .iter()
                .map(|(name, value)| {
                    format!("{{\"name\":{},\"{field}\":{}}}", string(name), string(value))
                })
                .collect();
            let _ = write!(s, ",\"{key}\":[{}]", items.join(","));
        }
        let links: Vec<String> = self
            .equal_dims
            .iter()
            .map(|(a, i, b, j)| format!("[{},{i},{},{j}]", string(a), string(b)))
            .collect();
        let _ = write!(s, ",\"equal_dims\":[{}]}}", links.join(","));
        s
    }
}

/// A JSON string: quotes, backslashes and control characters escaped (RFC 8259, section 7).
fn string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", u32::from(c));
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_what_python_reads() {
        let m = Manifest {
            name: "scale".into(),
            args: vec![("x".into(), "f32[?,128]{1,0}".into())],
            results: vec![("y".into(), "f32[?,128]{1,0}".into())],
            attrs: vec![("factor".into(), "f32".into())],
            equal_dims: vec![("y".into(), 0, "x".into(), 0)],
        };
        assert_eq!(
            m.json(),
            r#"{"format":1,"name":"scale","args":[{"name":"x","shape":"f32[?,128]{1,0}"}],"results":[{"name":"y","shape":"f32[?,128]{1,0}"}],"attrs":[{"name":"factor","type":"f32"}],"equal_dims":[["y",0,"x",0]]}"#
        );
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\n\u{1}é"), r#""a\"b\\c\u000a\u0001é""#);
    }
}
