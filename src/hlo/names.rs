//! Names that many rows share, written once: a row names a computation or a source file by
//! its number in a table of names that its report writes once (`computations`,
//! `source_files`), so that a long name costs its length once, not once per row; and where a
//! person reads a name beside others (a table's cell, a page's tooltip), at most
//! [`NAME_CHARS`] characters of it, with its length said.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use super::id::InstrId;
use super::module::Module;
use super::text::diagnostic::clip;

/// Characters of a shared name shown where a person reads it among others (a table's
/// cell, the tooltip of a step of the page's timeline): a longer one is cut there, and its
/// length said.
pub const NAME_CHARS: usize = 100;

/// `name` as a table or a page shows it: whole when it has at most [`NAME_CHARS`]
/// characters, else its first [`NAME_CHARS`] and how long it is.
///
/// ```
/// use xlayout::hlo::{shown, NAME_CHARS};
/// assert_eq!(shown("main.20"), "main.20");
/// let long = "c".repeat(70_000);
/// assert_eq!(shown(&long), format!("{}... (70000 bytes of text)", "c".repeat(NAME_CHARS)));
/// ```
pub fn shown(name: &str) -> Cow<'_, str> {
    clip(name, NAME_CHARS)
}

/// The names of a module's computations in text order: the table that a row's
/// `computation` (a [`CompId`](super::CompId), written as its number) indexes.
///
/// ```
/// use xlayout::hlo::{ComputationNames, Module};
/// let m = Module::parse("%c {\n  ROOT %x = f32[2]{0} parameter(0)\n}\n\nENTRY %e {\n  ROOT %y = f32[2]{0} parameter(0)\n}\n");
/// assert_eq!(serde_json::to_string(&ComputationNames(&m)).unwrap(), r#"["c","e"]"#);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ComputationNames<'a, 't>(pub &'a Module<'t>);

impl Serialize for ComputationNames<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let computations = &self.0.computations;
        let mut seq = s.serialize_seq(Some(computations.len()))?;
        for c in computations.iter() {
            seq.serialize_element(c.name)?;
        }
        seq.end()
    }
}

/// Where a source file's name is written in the module text: an instruction's own
/// `source_file`, or a row of the `FileNames` table that stack frames share.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Written<'t> {
    Own(Cow<'t, str>),
    Row(u64),
}

/// The source files of a module's instructions, each once, numbered in the order the
/// instructions first name them: the table a row's `source_file` indexes. Built in one
/// pass; an instruction's file is found by its `FileNames` row, never by hashing the
/// name, so a long file name that every instruction's stack frame names costs its length
/// once.
///
/// ```
/// use xlayout::hlo::{Module, SourceFiles};
/// let m = Module::parse("%a = f32[2]{0} parameter(0), metadata={source_file=\"m.py\" source_line=3}\n%b = f32[2]{0} negate(%a), metadata={source_file=\"n.py\" source_line=4}\n%c = f32[2]{0} negate(%b), metadata={source_file=\"m.py\" source_line=9}\n");
/// let files = SourceFiles::new(&m);
/// assert_eq!(files.names(), ["m.py", "n.py"]);
/// assert_eq!(files.of(&m, m.instruction_id("c").unwrap()), Some((0, 9)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SourceFiles<'t> {
    names: Vec<Cow<'t, str>>,
    number: HashMap<Written<'t>, u32>,
}

impl<'t> SourceFiles<'t> {
    /// The source files of `m`'s instructions.
    pub fn new(m: &Module<'t>) -> SourceFiles<'t> {
        let mut files = SourceFiles::default();
        for i in m.instructions.ids() {
            let Some((written, _)) = written(m, i) else { continue };
            if files.number.contains_key(&written) {
                continue;
            }
            let name = match &written {
                Written::Own(name) => name.clone(),
                Written::Row(row) => m.sources.file_names[row].clone(),
            };
            // Fewer files than instructions, which an id of 32 bits counts.
            let number = files.names.len() as u32;
            files.names.push(name);
            files.number.insert(written, number);
        }
        files
    }

    /// The names, by number.
    pub fn names(&self) -> &[Cow<'t, str>] {
        &self.names
    }

    /// The number of the file instruction `i` comes from in `m` (the module the table was
    /// made of), and the line in it; `None` when its metadata names no source.
    pub fn of(&self, m: &Module<'t>, i: InstrId) -> Option<(u32, u64)> {
        let (written, line) = written(m, i)?;
        Some((*self.number.get(&written)?, line))
    }
}

/// Where instruction `i`'s source file is written, and its line: its own `source_file` and
/// `source_line`, or else the innermost frame of its `stack_frame_id`, as
/// [`Module::source`] takes them.
fn written<'t>(m: &Module<'t>, i: InstrId) -> Option<(Written<'t>, u64)> {
    let md = m.metadata(i);
    if let (Some(file), Some(line)) = (&md.source_file, md.source_line) {
        return Some((Written::Own(file.clone()), line));
    }
    let (row, line, _) = m.sources.frame_row(md.stack_frame_id?)?;
    Some((Written::Row(row), line))
}

impl Serialize for SourceFiles<'_> {
    /// As the list of names.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.names.serialize(s)
    }
}
