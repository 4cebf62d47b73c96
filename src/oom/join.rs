//! `--hlo DUMP`: each entry's instruction looked up in the module the report is about, for
//! its full shape, its metadata and the line of the user's program it comes from.

use serde::Serialize;

use super::report::OomReport;
use crate::hlo::{InstrId, Module};

/// What the module says about an entry's instruction.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, OomReport};
/// let m = Module::parse("%f.1 = f32[8]{0} negate(%x)\n");
/// let j = join(&OomReport::parse("1. Size: 32B\n   XLA label: f.1 = negate(x)\n"), &m);
/// assert_eq!(j[0].as_ref().map(|j| (j.opcode, j.shape)), Some(("negate", "f32[8]{0}")));
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
    /// Its whole `op_name`.
    pub op_name: Option<String>,
    /// `file:line` in the user's program (metadata, or the stack-frame tables).
    pub source: Option<String>,
}

/// For each entry of `report`, in order, the instruction of `module` its label names, if
/// the module has one of that name.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, OomReport};
/// let m = Module::parse("ENTRY %e {\n  ROOT %copy.4 = s32[64,8]{1,0:T(8,128)} parameter(0), metadata={op_name=\"jit(f)/x\" source_file=\"f.py\" source_line=3}\n}\n");
/// let r = OomReport::parse("1. Size: 256.0K\n   XLA label: %copy.4 = s32[64,8]{1,0:T(8,128)} parameter(0), meta...\n");
/// let j = join(&r, &m);
/// assert_eq!(j[0].as_ref().map(|j| (j.line, j.source.as_deref())), Some((2, Some("f.py:3"))));
/// ```
pub fn join<'m>(report: &OomReport, module: &'m Module<'_>) -> Vec<Option<Joined<'m>>> {
    report
        .entries
        .iter()
        .map(|e| {
            let i = module.instruction_id(e.instruction.as_deref()?)?;
            let ins = &module.instructions[i];
            Some(Joined {
                id: i,
                line: ins.line,
                computation: module.computation_name(i),
                opcode: ins.opcode.as_str(),
                shape: ins.shape_text,
                op_name: ins.metadata.op_name.as_ref().map(|o| o.to_string()),
                source: module.source(i).map(|s| format!("{}:{}", s.file, s.line)),
            })
        })
        .collect()
}
