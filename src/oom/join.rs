//! `--hlo DUMP`: each entry's instruction looked up in the module the report is about, for
//! its full shape, its metadata and the line of the user's program it comes from, and
//! whether the dump's instruction is the buffer the report describes (the same shape and
//! size) or not.
//!
//! Many entries can name one instruction whose shape or `op_name` is long: what the dump
//! says about an instruction is borrowed from the module per entry ([`Joined`]) and written
//! out once per instruction ([`Named`]), and the sentences about entries quote at most
//! [`SHAPE_CHARS`] characters of a shape, at most
//! [`MAX_LISTED`](crate::hlo::MAX_LISTED) of each kind ([`join_problems`]): the output stays in
//! proportion to the report and the dump.

use std::collections::HashSet;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::entry::Entry;
use super::problem::{Problem, ProblemKind, Problems};
use crate::hlo::{clip, InstrId, Module};
use crate::Shape;

/// At most this many characters of a shape (or of a label's instruction name) are quoted in
/// a sentence about an entry.
pub const SHAPE_CHARS: usize = 200;

/// An instruction of the dump, as the entries that name it see it: every text borrowed from
/// the module, nothing copied, so an entry that names it costs a few words however long
/// its shape or `op_name` is.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::DumpInstruction;
/// let m = Module::parse("%f.1 = f32[8]{0} negate(%x), metadata={op_name=\"jit(f)/neg\"}\n");
/// let d = DumpInstruction::new(&m, m.instruction_id("f.1").unwrap());
/// assert_eq!((d.line, d.opcode, d.shape, d.bytes, d.op_name), (1, "negate", "f32[8]{0}", Some(32), Some("jit(f)/neg")));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DumpInstruction<'m> {
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
    /// Its whole `op_name`.
    pub op_name: Option<&'m str>,
}

impl<'m> DumpInstruction<'m> {
    /// Instruction `i` of `module`.
    ///
    /// ```
    /// use xlayout::hlo::Module;
    /// use xlayout::oom::DumpInstruction;
    /// let m = Module::parse("ENTRY %e {\n  ROOT %t = (f32[2]{0}) parameter(0)\n}\n");
    /// let d = DumpInstruction::new(&m, m.instruction_id("t").unwrap());
    /// assert_eq!((d.computation, d.bytes, d.op_name), (Some("e"), None, None));
    /// ```
    pub fn new(module: &'m Module<'_>, i: InstrId) -> DumpInstruction<'m> {
        let ins = &module.instructions[i];
        DumpInstruction {
            id: i,
            line: ins.line,
            computation: module.computation_name(i),
            opcode: ins.opcode.as_str(),
            shape: ins.shape_text,
            // `as_array`, not `try_array`: the error of the latter quotes the whole shape,
            // a cost per entry of the shape's length.
            bytes: module.shape(i).and_then(Shape::as_array).and_then(|a| a.byte_size().ok()),
            op_name: module.metadata(i).op_name.as_deref(),
        }
    }
}

/// What the module says about an entry's instruction.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, OomReport};
/// let m = Module::parse("%f.1 = f32[8]{0} negate(%x)\n");
/// let j = join(&OomReport::parse("1. Size: 32B\n   XLA label: f.1 = negate(x)\n").entries, &m);
/// let i = j[0].as_ref().unwrap().instruction;
/// assert_eq!((i.opcode, i.shape, i.bytes), ("negate", "f32[8]{0}", Some(32)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Joined<'m> {
    /// The instruction the entry's label names.
    #[serde(flatten)]
    pub instruction: DumpInstruction<'m>,
    /// Whether it is the shape the report printed for the entry (after an inferred tiling);
    /// `None` when the report printed no readable shape.
    pub same_shape: Option<bool>,
}

impl Joined<'_> {
    /// What differs between the report's entry and the dump's instruction, in words; `None`
    /// when they agree (or there is nothing to compare). Each shape is quoted to at most
    /// [`SHAPE_CHARS`] characters.
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
        let name =
            entry.instruction.as_deref().map_or_else(|| "-".into(), |n| clip(n, SHAPE_CHARS));
        let bytes =
            |n: Option<u64>| n.map_or_else(|| String::from("no size"), |n| format!("{n} bytes"));
        Some(format!(
            "the dump's {name} is {} ({}), the report's {} ({})",
            clip(self.instruction.shape, SHAPE_CHARS),
            bytes(self.instruction.bytes),
            clip(&theirs.shape, SHAPE_CHARS),
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
/// assert_eq!(j[0].as_ref().map(|j| (j.instruction.line, j.instruction.op_name, j.same_shape)), Some((2, Some("jit(f)/x"), Some(true))));
/// assert!(j[1].is_none()); // gone.1 is not in the dump
/// ```
pub fn join<'m>(entries: &[Entry], module: &'m Module<'_>) -> Vec<Option<Joined<'m>>> {
    entries
        .iter()
        .map(|e| {
            let i = module.instruction_id(e.instruction.as_deref()?)?;
            let dump_shape = module.shape(i);
            let same_shape = e.recomputed.as_ref().map(|x| {
                let printed = x.shape.parse::<Shape>().ok();
                printed.is_some() && printed.as_ref() == dump_shape
            });
            Some(Joined { instruction: DumpInstruction::new(module, i), same_shape })
        })
        .collect()
}

/// What the dump says against a report's `entries` (joined by [`join`]): each entry whose
/// instruction has another shape in the dump, and each whose label names an instruction the
/// dump does not have, as a [`Problem`] on the entry's line. At most
/// [`MAX_LISTED`](crate::hlo::MAX_LISTED) of each kind are listed; one more per kind counts
/// the rest.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, join_problems, OomReport};
/// let m = Module::parse("%f.1 = f32[512,512]{1,0} negate(%x)\n");
/// let one = "1. Size: 64.0K\n   Shape: f32[128,128]{1,0}\n   XLA label: f.1 = negate(x)\n";
/// let r = OomReport::parse(&format!("{}2. Size: 1K\n   XLA label: gone.2 = add(a, b)\n", one.repeat(150)));
/// let p = join_problems(&r.entries, &join(&r.entries, &m));
/// assert_eq!(p.len(), 102); // 100 of the first kind, a count of the other 50, and gone.2
/// assert_eq!(p[0].message, "entry 1: the dump's f.1 is f32[512,512]{1,0} (1048576 bytes), the report's f32[128,128]{1,0} (65536 bytes)");
/// assert_eq!((p[100].line, p[100].more), (301, 50));
/// assert_eq!(p[100].message, "50 more entries whose instruction has another shape in the dump from this line on are not listed (the first 100 of each kind are)");
/// assert_eq!((p[101].line, p[101].message.as_str()), (451, "entry 2: `gone.2` is not in the dump"));
/// ```
pub fn join_problems(entries: &[Entry], joined: &[Option<Joined<'_>>]) -> Vec<Problem> {
    let mut problems = Problems::default();
    for (e, j) in entries.iter().zip(joined) {
        let (line, number) = (e.line, Some(e.number));
        match (j, e.instruction.as_deref()) {
            (Some(j), _) => {
                if j.same_shape == Some(false) && e.recomputed.is_some() {
                    problems.add(ProblemKind::OtherShape, line, number, || {
                        format!("entry {}: {}", e.number, j.difference(e).unwrap_or_default())
                    });
                }
            }
            (None, Some(name)) => problems.add(ProblemKind::NotInDump, line, number, || {
                format!("entry {}: `{}` is not in the dump", e.number, clip(name, SHAPE_CHARS))
            }),
            (None, None) => {}
        }
    }
    problems.into_vec()
}

/// The dump's instructions that the entries of one or more reports name, each once, in the
/// order first named: the table `xlayout oom --hlo --format json` writes as `dump.named`,
/// an object from each instruction's name to what the dump says of it (the keys of
/// [`DumpInstruction`], and `source`, `file:line` in the user's program). An entry refers to
/// it by its `instruction`, so a shape or `op_name` is written once however many entries
/// name it.
///
/// ```
/// use xlayout::hlo::Module;
/// use xlayout::oom::{join, Named, OomReport};
/// let m = Module::parse("%f.1 = f32[8]{0} negate(%x), metadata={op_name=\"jit(f)/neg\" source_file=\"f.py\" source_line=3}\n");
/// let r = OomReport::parse(&"1. Size: 32B\n   XLA label: f.1 = negate(x)\n".repeat(3));
/// let mut named = Named::new(&m);
/// named.add(&join(&r.entries, &m));
/// assert_eq!(named.len(), 1);
/// assert_eq!(serde_json::to_string(&named).unwrap(), r#"{"f.1":{"line":1,"computation":null,"opcode":"negate","shape":"f32[8]{0}","bytes":32,"op_name":"jit(f)/neg","source":"f.py:3"}}"#);
/// ```
#[derive(Debug)]
pub struct Named<'m> {
    module: &'m Module<'m>,
    ids: Vec<InstrId>,
    seen: HashSet<InstrId>,
}

impl<'m> Named<'m> {
    /// No instruction yet, of `module`.
    pub fn new(module: &'m Module<'m>) -> Named<'m> {
        Named { module, ids: Vec::new(), seen: HashSet::new() }
    }

    /// Adds the instructions a report's entries name (from [`join`] on the same module) that
    /// are not in the table yet.
    pub fn add(&mut self, joined: &[Option<Joined<'_>>]) {
        for j in joined.iter().flatten() {
            let id = j.instruction.id;
            if self.seen.insert(id) {
                self.ids.push(id);
            }
        }
    }

    /// How many instructions the table has.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

impl Serialize for Named<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Row<'m> {
            #[serde(flatten)]
            instruction: DumpInstruction<'m>,
            source: Option<String>,
        }
        let m = self.module;
        let mut map = s.serialize_map(Some(self.ids.len()))?;
        for &i in &self.ids {
            let row = Row {
                instruction: DumpInstruction::new(m, i),
                source: m.source(i).map(|s| format!("{}:{}", s.file, s.line)),
            };
            map.serialize_entry(m.instructions[i].name, &row)?;
        }
        map.end()
    }
}
