//! `--hlo DUMP`: each entry's instruction looked up in the module the report is about, for
//! its full shape, its metadata and the line of the user's program it comes from, and
//! whether the dump's instruction is the buffer the report describes (the same shape and
//! size) or not.

use serde::Serialize;

use super::entry::Entry;
use crate::hlo::{InstrId, Module};
use crate::Shape;

/// What the module says about an entry's instruction.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, OomReport};
/// let m = Module::parse("%f.1 = f32[8]{0} negate(%x)\n");
/// let j = join(&OomReport::parse("1. Size: 32B\n   XLA label: f.1 = negate(x)\n").entries, &m);
/// assert_eq!(j[0].as_ref().map(|j| (j.opcode, j.shape, j.bytes)), Some(("negate", "f32[8]{0}", Some(32))));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Joined<'m> {
    /// The instruction.
    #[serde(skip)]
    pub id: InstrId,
    /// Its line in the dump.
    pub line: usize,
    /// Its computation.
    pub computation: Option<&'m str>,
    /// Its opcode.
    pub opcode: &'m str,
    /// Its result shape as the dump writes it (with every layout field).
    pub shape: &'m str,
    /// `ShapeUtil::ArraySize` of that shape (`None`: a tuple, or no size).
    pub bytes: Option<u64>,
    /// Whether it is the shape the report printed for the entry (after an inferred tiling);
    /// `None` when the report printed no readable shape.
    pub same_shape: Option<bool>,
    /// Its whole `op_name`.
    pub op_name: Option<String>,
    /// `file:line` in the user's program (metadata, or the stack-frame tables).
    pub source: Option<String>,
}

impl Joined<'_> {
    /// What differs between the report's entry and the dump's instruction, in words; `None`
    /// when they agree (or there is nothing to compare).
    ///
    /// ```
    /// use xlayout::hlo::Module;
    /// use xlayout::oom::{join, OomReport};
    /// let m = Module::parse("%f.1 = f32[512,512]{1,0} negate(%x)\n");
    /// let r = OomReport::parse("1. Size: 64.0K\n   Shape: f32[128,128]{1,0}\n   XLA label: f.1 = negate(x)\n");
    /// let j = join(&r.entries, &m);
    /// assert_eq!(j[0].as_ref().unwrap().difference(&r.entries[0]).unwrap(),
    ///     "the dump's f.1 is f32[512,512]{1,0} (1048576 bytes), the report's f32[128,128]{1,0} (65536 bytes)");
    /// ```
    pub fn difference(&self, entry: &Entry) -> Option<String> {
        if self.same_shape != Some(false) {
            return None;
        }
        let theirs = entry.recomputed.as_ref()?;
        let name = entry.instruction.as_deref().unwrap_or("-");
        let bytes =
            |n: Option<u64>| n.map_or_else(|| String::from("no size"), |n| format!("{n} bytes"));
        Some(format!(
            "the dump's {name} is {} ({}), the report's {} ({})",
            self.shape,
            bytes(self.bytes),
            theirs.shape,
            bytes(Some(theirs.sizes.array_bytes))
        ))
    }
}

/// For each of a report's `entries`, in order, the instruction of `module` its label names, if
/// the module has one of that name.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, OomReport};
/// let m = Module::parse("ENTRY %e {\n  ROOT %copy.4 = s32[64,8]{1,0:T(8,128)} parameter(0), metadata={op_name=\"jit(f)/x\" source_file=\"f.py\" source_line=3}\n}\n");
/// let r = OomReport::parse("1. Size: 256.0K\n   XLA label: %copy.4 = s32[64,8]{1,0:T(8,128)} parameter(0), meta...\n2. Size: 1K\n   XLA label: gone.1 = add(a, b)\n");
/// let j = join(&r.entries, &m);
/// assert_eq!(j[0].as_ref().map(|j| (j.line, j.source.as_deref(), j.same_shape)), Some((2, Some("f.py:3"), Some(true))));
/// assert!(j[1].is_none()); // gone.1 is not in the dump
/// ```
pub fn join<'m>(entries: &[Entry], module: &'m Module<'_>) -> Vec<Option<Joined<'m>>> {
    entries
        .iter()
        .map(|e| {
            let i = module.instruction_id(e.instruction.as_deref()?)?;
            let ins = &module.instructions[i];
            let dump_shape = module.shape(i);
            let same_shape = e.recomputed.as_ref().map(|x| {
                let printed = x.shape.parse::<Shape>().ok();
                printed.is_some() && printed.as_ref() == dump_shape
            });
            Some(Joined {
                id: i,
                line: ins.line,
                computation: module.computation_name(i),
                opcode: ins.opcode.as_str(),
                shape: ins.shape_text,
                bytes: dump_shape.and_then(|s| s.try_array().ok()).and_then(|a| a.byte_size().ok()),
                same_shape,
                op_name: module.metadata(i).op_name.as_ref().map(|o| o.to_string()),
                source: module.source(i).map(|s| format!("{}:{}", s.file, s.line)),
            })
        })
        .collect()
}
