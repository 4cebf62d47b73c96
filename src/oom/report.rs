//! Report text -> [`OomReport`]: the header (memory space, used and capacity, the usage
//! and requirement breakdowns, `HLO temp` with its utilization), the runtime's own message
//! (`Attempting to reserve ...`), the entries, and every problem met, with its line and
//! entry number. One pass over the lines.

use memchr::memmem::Finder;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::entry::{Entry, Printed};
use super::header::{hlo_temp, part, runtime, split_note, HloTemp, Part, Runtime};
use super::join::Joined;
use super::lines::read_lines;
use super::problem::{Problem, ProblemKind, Problems};
use super::row::EntryRow;
use crate::hlo::{decode, quote, Percent, Sizes, MODULE_CANDIDATE_BUDGET};

/// Which compiler wrote the report.
///
/// ```
/// use xlayout::oom::{Kind, OomReport};
/// assert_eq!(OomReport::parse("BufferAssignment OOM Debugging.\n").kind, Kind::Gpu);
/// assert_eq!(OomReport::parse("Out of memory allocating 64 bytes.\n").kind, Kind::Cpu);
/// assert_eq!(OomReport::parse("").kind, Kind::Unknown);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// XLA:TPU's `Ran out of memory in memory space ...` with `Largest program
    /// allocations`.
    Tpu,
    /// XLA:GPU's `BufferAssignment OOM Debugging.` with `Peak buffers`.
    Gpu,
    /// XLA:CPU's runtime, failing to allocate a buffer (`RESOURCE_EXHAUSTED: Out of memory
    /// allocating 549755813888 bytes.`, PJRT's `MaybeOwningCpuMemory::Allocate`): no
    /// entries, the size asked for in [`OomReport::allocating`].
    Cpu,
    /// The TPU runtime's failure to reserve or allocate device memory when the program
    /// runs (`Attempting to reserve 10.51G at the bottom of memory. That was not possible.
    /// There are 8.97G free, ...`): no entries, the figures in [`OomReport::runtime`].
    Runtime,
    /// Neither header was found (entries alone, pasted).
    #[default]
    Unknown,
}

impl Kind {
    /// What wrote the report, in words, as the command's table and the HTML view title it.
    ///
    /// ```
    /// use xlayout::oom::Kind;
    /// assert_eq!(Kind::Cpu.what(), "XLA:CPU out of memory");
    /// ```
    pub fn what(self) -> &'static str {
        match self {
            Kind::Tpu => "TPU out-of-memory report",
            Kind::Gpu => "XLA:GPU buffer assignment report",
            Kind::Cpu => "XLA:CPU out of memory",
            Kind::Runtime => "TPU runtime out of memory",
            Kind::Unknown => "report",
        }
    }
}

/// The listed entries added up.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("1. Size: 512B\n   Shape: f32[10]{0:T(128)}\n");
/// let t = &r.totals;
/// assert_eq!((t.sizes.array_bytes, t.padding_percent.unwrap().value(), t.utilization_percent.unwrap().value()), (512, 92.2, 7.8));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Entries read.
    pub entries: usize,
    /// Entries whose shape was read (the sums are over these).
    pub recomputed: usize,
    /// Their exact bytes.
    pub sizes: Sizes,
    /// How much of the listed memory is padding, as a percentage (one decimal).
    pub padding_percent: Option<Percent>,
    /// Their data over their size, as a percentage (one decimal): the listed entries'
    /// utilization.
    pub utilization_percent: Option<Percent>,
    /// Entries whose printed numbers all agree with their shape.
    pub agreeing: usize,
    /// Whether a sum reached 2⁶⁴ − 1 bytes and stopped there: it is then at least what it
    /// says, and the percentages say nothing.
    pub saturated: bool,
}

/// An out-of-memory report, read.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("E1000: Ran out of memory in memory space vmem. Used 17.13M of 16.00M vmem.\n");
/// assert_eq!((r.error_code.as_deref(), r.memory_space.as_deref(), r.capacity.unwrap().bytes), (Some("E1000"), Some("vmem"), Some(16 << 20)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OomReport {
    /// Which compiler wrote it.
    pub kind: Kind,
    /// An error code before the message (`E1000`).
    pub error_code: Option<String>,
    /// `Ran out of memory in memory space hbm`: `hbm`.
    pub memory_space: Option<String>,
    /// The memory spaces of the report's sections (`hbm`, `vmem`), each once, in the order
    /// they come: an entry's [`memory_space`](Entry::memory_space) is an index here, so a
    /// section's name is written once however many entries it lists.
    ///
    /// ```
    /// let r = xlayout::oom::OomReport::parse("Largest program allocations in vmem:\n1. Size: 4B\n2. Size: 4B\n");
    /// assert_eq!((r.memory_spaces.as_slice(), r.entries[1].memory_space), (&[String::from("vmem")][..], Some(0)));
    /// ```
    pub memory_spaces: Vec<String>,
    /// `Used 36.16G of 15.48G hbm`: the first.
    pub used: Option<Printed>,
    /// ... and the second.
    pub capacity: Option<Printed>,
    /// `Exceeded hbm capacity by 20.67G`.
    pub exceeded: Option<Printed>,
    /// The size a failed allocation asked for: XLA:GPU's `Out of memory while trying to
    /// allocate N bytes`, XLA:CPU's `Out of memory allocating N bytes.`
    ///
    /// ```
    /// let r = xlayout::oom::OomReport::parse("jaxlib._jax.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 549755813888 bytes.\n");
    /// assert_eq!((r.kind, r.missing()), (xlayout::oom::Kind::Cpu, None));
    /// assert_eq!(r.allocating.unwrap().bytes, Some(512 << 30));
    /// ```
    pub allocating: Option<Printed>,
    /// The TPU runtime's `Attempting to reserve ...` or `Attempting to allocate ...`.
    pub runtime: Option<Runtime>,
    /// `Total hbm usage >= 36.67G`.
    pub total_usage: Option<Printed>,
    /// Its breakdown (`reserved`, `program`, `arguments`).
    pub usage: Vec<Part>,
    /// `Program hbm requirement 36.16G`.
    pub program_requirement: Option<Printed>,
    /// Its breakdown (`global`, `scoped`, `HLO temp`, ...).
    pub requirement: Vec<Part>,
    /// The `HLO temp` line, read.
    pub hlo_temp: Option<HloTemp>,
    /// XLA:GPU's `BufferAssignment stats`.
    pub stats: Vec<Part>,
    /// The entries, in report order.
    pub entries: Vec<Entry>,
    /// The entries listed with no size at all, numbered in report order: older TPU vmem
    /// reports list their `scoped` allocations by `XLA label:` and `Allocation type:` alone
    /// (no number, no `Size:`). Nothing to recompute or add up; what they name is read.
    ///
    /// ```
    /// let r = xlayout::oom::OomReport::parse("Ran out of memory in memory space vmem.\nLargest program allocations in vmem:\n\n  XLA label: register allocator spill slots\n  Allocation type: scoped\n\n  XLA label: %fusion.3 = f32[8]{0} fusion(%p), kind=kLoop\n  Allocation type: scoped\n");
    /// let s: Vec<_> = r.sizeless.iter().map(|e| (e.number, e.instruction.as_deref(), e.allocation_type.as_deref())).collect();
    /// assert_eq!(s, [(1, None, Some("scoped")), (2, Some("fusion.3"), Some("scoped"))]);
    /// assert_eq!((r.entries.len(), r.missing()), (0, None));
    /// ```
    pub sizeless: Vec<Entry>,
    /// The entries added up.
    pub totals: Totals,
    /// What could not be read.
    pub problems: Vec<Problem>,
}

/// Where in the report a line is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Usage,
    Requirement,
    Stats,
    Entries,
}

impl OomReport {
    /// Reads a report's bytes as a file or a paste holds them: text that is not UTF-8 is read
    /// with U+FFFD in place of each bad sequence, and each line where that happened is a
    /// [`Problem`] (as the module reader says it of a dump), in line order with the others.
    ///
    /// ```
    /// use xlayout::oom::OomReport;
    /// let r = OomReport::from_bytes(b"1. Size: 4B\n   Shape: f32[]\nnote \xff\n");
    /// assert_eq!(r.entries.len(), 1);
    /// // Line 3 is not a field of entry 1, and it is not UTF-8: two problems.
    /// let at: Vec<_> = r.problems.iter().map(|p| (p.line, p.entry)).collect();
    /// assert_eq!(at, [(3, Some(1)), (3, None)]);
    /// assert!(r.problems[1].message.contains("(0xff) is not UTF-8"), "{:?}", r.problems);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> OomReport {
        let (text, undecoded) = decode(bytes);
        let mut report = OomReport::parse(&text);
        if !undecoded.is_empty() {
            report.problems.extend(undecoded.into_iter().map(|d| Problem {
                line: d.line,
                entry: None,
                message: d.message,
                more: d.more,
            }));
            report.problems.sort_by_key(|p| p.line);
        }
        report
    }

    /// Reads report text as pasted. Never fails: what cannot be read is a [`Problem`];
    /// an entry without a readable size is reported by its number and left out. Linear
    /// in the text.
    ///
    /// ```
    /// use xlayout::oom::OomReport;
    /// let text = "Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.\n\n  Largest program allocations in hbm:\n\n  1. Size: 32.00G\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n     Unpadded size: 1.00G\n     Extra memory due to padding: 31.00G (32.0x expansion)\n     ==========================\n";
    /// let r = OomReport::parse(text);
    /// let e = &r.entries[0];
    /// let x = e.recomputed.as_ref().unwrap();
    /// assert_eq!((x.sizes.array_bytes, x.sizes.logical_bytes), (34_359_738_368, 1_073_741_824));
    /// assert!(x.agrees.all());
    /// assert_eq!(x.causes[0].to_string(), "d2 4 -> 128 (x32.0)");
    /// assert_eq!(x.best_layout.as_ref().unwrap().layout, "{0,1,2:T(8,128)}");
    /// assert_eq!(r.memory_space.as_deref(), Some("hbm"));
    /// ```
    pub fn parse(text: &str) -> OomReport {
        let mut r = OomReport::default();
        let mut section = Section::None;
        let mut entry: Option<Entry> = None;
        let mut entry_space: Option<u32> = None;
        let mut spaces = Spaces::default();
        let mut last_key = String::new();
        let mut budget = MODULE_CANDIDATE_BUDGET;
        let mut problems = Problems::default();
        let needles = Needles::new();
        // The line before was a field of the last sizeless entry.
        let mut in_sizeless = false;
        for (n, line) in read_lines(text) {
            let t = line.trim();
            if t.is_empty() {
                continue;
            }
            let after_sizeless = std::mem::take(&mut in_sizeless);
            if let Some(at) = needles.ran_out.find(t.as_bytes()) {
                r.finish(entry.take(), &mut budget, &mut problems);
                r.header(&t[..at], &t[at + needles.ran_out.needle().len()..]);
                entry_space =
                    r.memory_space.as_deref().map(|m| spaces.number(&mut r.memory_spaces, m));
                section = Section::None;
                continue;
            }
            if let Some(at) =
                needles.reserve.find(t.as_bytes()).or_else(|| needles.allocate.find(t.as_bytes()))
            {
                r.runtime = Some(runtime(&t[at + "Attempting to ".len()..]));
                if r.kind == Kind::Unknown {
                    r.kind = Kind::Runtime;
                }
                continue;
            }
            let allocating = [(&needles.out_of_memory, Kind::Gpu), (&needles.cpu, Kind::Cpu)]
                .into_iter()
                .find_map(|(n, kind)| n.find(t.as_bytes()).map(|at| (at + n.needle().len(), kind)));
            if let Some((at, kind)) = allocating {
                let rest = &t[at..];
                let size = rest.split(" bytes").next().unwrap_or(rest);
                r.allocating = Some(Printed::new(size));
                // XLA:CPU's line says all there is; XLA:GPU's opens a report whose kind the
                // header sets.
                if kind == Kind::Gpu || r.kind == Kind::Unknown {
                    r.kind = kind;
                }
                continue;
            }
            if t.starts_with("BufferAssignment OOM Debugging") {
                r.finish(entry.take(), &mut budget, &mut problems);
                r.kind = Kind::Gpu;
                continue;
            }
            if t == "BufferAssignment stats:" {
                section = Section::Stats;
                continue;
            }
            if t.starts_with("Peak buffers:") {
                r.finish(entry.take(), &mut budget, &mut problems);
                section = Section::Entries;
                entry_space = None;
                continue;
            }
            if let Some(rest) = t.strip_prefix("Largest program allocations in ") {
                r.finish(entry.take(), &mut budget, &mut problems);
                section = Section::Entries;
                entry_space =
                    Some(spaces.number(&mut r.memory_spaces, rest.trim_end_matches(':').trim()));
                continue;
            }
            if t.starts_with("Total ") && t.contains(" usage >= ") {
                r.total_usage =
                    t.split(" >= ").nth(1).map(|s| Printed::new(s.trim_end_matches(':')));
                section = Section::Usage;
                continue;
            }
            if t.starts_with("Program ") && t.contains(" requirement ") {
                let size = t.rsplit(' ').next().unwrap_or("").trim_end_matches(':');
                r.program_requirement = Some(Printed::new(size));
                section = Section::Requirement;
                continue;
            }
            if t.starts_with("Output size") {
                continue;
            }
            if let Some((number, size)) =
                tpu_entry(t, &needles.size).or_else(|| gpu_entry(t).map(|k| (k, "")))
            {
                r.finish(entry.take(), &mut budget, &mut problems);
                let mut e = Entry::new(number, n, entry_space);
                if !size.is_empty() {
                    e.field("size", size);
                }
                entry = Some(e);
                section = Section::Entries;
                last_key.clear();
                continue;
            }
            if t.starts_with("====") {
                r.finish(entry.take(), &mut budget, &mut problems);
                continue;
            }
            if entry.is_none() && section == Section::Entries {
                in_sizeless = r.sizeless_field(t, n, entry_space, after_sizeless);
                if in_sizeless {
                    continue;
                }
            }
            if let Some(e) = entry.as_mut() {
                match t.split_once(':').filter(|(k, _)| is_key(k)) {
                    Some((key, value)) if e.field(key, value) => {
                        last_key = key.to_ascii_lowercase()
                    }
                    _ if matches!(last_key.as_str(), "xla label" | "operator") => {
                        // A long label or operator wrapped onto the next line.
                        let e = entry.as_mut().expect("an entry is open");
                        let field =
                            if last_key == "operator" { &mut e.operator } else { &mut e.label };
                        if let Some(f) = field {
                            f.push(' ');
                            f.push_str(t);
                        }
                    }
                    _ => {
                        let number = e.number;
                        problems.add(ProblemKind::UnreadableLine, n, Some(number), || {
                            format!("entry {number}: unreadable line: {}", quote(t))
                        })
                    }
                }
                continue;
            }
            match section {
                Section::Usage | Section::Requirement => {
                    if let Some(p) = part(t) {
                        if p.name == "HLO temp" {
                            r.hlo_temp = Some(hlo_temp(&p));
                        }
                        if section == Section::Usage {
                            r.usage.push(p)
                        } else {
                            r.requirement.push(p)
                        }
                    }
                }
                Section::Stats => {
                    if let Some((name, value)) = t.split_once(':') {
                        let (size, note) = split_note(value.trim());
                        r.stats.push(Part {
                            name: name.trim().to_string(),
                            size: Printed::new(size),
                            note,
                        });
                    }
                }
                Section::Entries | Section::None => {}
            }
        }
        r.finish(entry.take(), &mut budget, &mut problems);
        r.add_up();
        r.problems = problems.into_vec();
        r
    }

    /// `... memory space hbm. Used X of Y hbm. Exceeded hbm capacity by Z.`, and what
    /// came before the message (an error code).
    fn header(&mut self, before: &str, rest: &str) {
        self.kind = Kind::Tpu;
        let space: String =
            rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        self.memory_space = (!space.is_empty()).then_some(space);
        if let Some(used) = rest.split("Used ").nth(1) {
            let mut words = used.split_whitespace();
            self.used = words.next().map(Printed::new);
            if words.next() == Some("of") {
                self.capacity = words.next().map(Printed::new);
            }
        }
        if let Some(by) = rest.split(" capacity by ").nth(1) {
            self.exceeded =
                by.split_whitespace().next().map(|s| Printed::new(s.trim_end_matches('.')));
        }
        // `E1000: ...` (or `RESOURCE_EXHAUSTED: E1000: ...`).
        self.error_code = before
            .split(|c: char| c == ':' || c.is_whitespace())
            .find(|w| {
                w.len() == 5 && w.starts_with('E') && w[1..].bytes().all(|b| b.is_ascii_digit())
            })
            .map(str::to_string)
            .or(self.error_code.take());
    }

    /// Reads line `t` (line `n`) of a sizeless entry, outside any numbered one: an `XLA
    /// label:` starts one, an `Allocation type:` right after its fields ends it. `false`
    /// for any other line.
    fn sizeless_field(&mut self, t: &str, n: usize, space: Option<u32>, after: bool) -> bool {
        let Some((key, value)) = t.split_once(':') else { return false };
        let open = self.sizeless.last_mut().filter(|e| after && e.allocation_type.is_none());
        match (key.trim().to_ascii_lowercase().as_str(), open) {
            ("xla label", _) => {
                let mut e = Entry::new(self.sizeless.len() as u64 + 1, n, space);
                e.field(key, value);
                self.sizeless.push(e);
                true
            }
            ("allocation type", Some(e)) => e.field(key, value),
            _ => false,
        }
    }

    /// Closes an entry: an entry without a readable size is a problem and left out; one
    /// with a shape is recomputed.
    fn finish(&mut self, entry: Option<Entry>, budget: &mut u64, problems: &mut Problems) {
        let Some(mut e) = entry else { return };
        let (line, number) = (e.line, e.number);
        match &e.size {
            Some(s) if s.bytes.is_some() => {}
            Some(s) => {
                problems.add(ProblemKind::NoSize, line, Some(number), || {
                    format!("entry {number}: {} is not a size; entry left out", quote(&s.text))
                });
                return;
            }
            None => {
                problems.add(ProblemKind::NoSize, line, Some(number), || {
                    format!("entry {number}: no size; entry left out")
                });
                return;
            }
        }
        if let Err(why) = e.recompute(budget) {
            problems.add(ProblemKind::ShapeNotRead, line, Some(number), || {
                let shape =
                    e.shape.as_deref().map_or_else(String::new, |s| format!(" {}", quote(s)));
                format!("entry {number}: shape{shape} not read: {why}")
            });
        }
        self.entries.push(e);
    }

    fn add_up(&mut self) {
        let mut t = Totals { entries: self.entries.len(), ..Totals::default() };
        for e in &self.entries {
            if let Some(x) = &e.recomputed {
                t.recomputed += 1;
                let (sum, saturated) = t.sizes.plus_saturating(&x.sizes);
                t.sizes = sum;
                t.saturated |= saturated;
                if x.agrees.all() {
                    t.agreeing += 1;
                }
            }
        }
        if !t.saturated {
            t.padding_percent = Percent::new(t.sizes.padding_bytes(), t.sizes.array_bytes);
            t.utilization_percent = Percent::new(t.sizes.logical_bytes, t.sizes.array_bytes);
        }
        self.totals = t;
    }

    /// Whether the text holds anything of a report: a header, an entry, the runtime's or a
    /// failed allocation's message, or a line the reader tried and could not read. Text
    /// without any (`hello`) is no report, which the command answers with exit status 1 and
    /// the Python package with an exception.
    ///
    /// ```
    /// use xlayout::oom::OomReport;
    /// assert!(!OomReport::parse("hello\n").found());
    /// assert!(OomReport::parse("Ran out of memory in memory space hbm.\n").found()); // a header
    /// assert!(OomReport::parse("Out of memory allocating 64 bytes.\n").found());
    /// ```
    pub fn found(&self) -> bool {
        self.kind != Kind::Unknown
            || !self.entries.is_empty()
            || !self.sizeless.is_empty()
            || !self.problems.is_empty()
            || self.runtime.is_some()
            || self.allocating.is_some()
    }

    /// Why the text holds no report to explain, if it does not: no report's words at all,
    /// or a report's header with no entry under it (which is what lines look like when a
    /// prefix the reader does not recognise hides where each line starts).
    ///
    /// ```
    /// use xlayout::oom::OomReport;
    /// assert_eq!(OomReport::parse("hello\n").missing(), Some("no out-of-memory report found"));
    /// assert_eq!(OomReport::parse("Ran out of memory in memory space hbm.\n#1  1. Size: 1K\n").missing(),
    ///     Some("a header but no entries: are the lines prefixed?"));
    /// assert_eq!(OomReport::parse("1. Size: 1K\n").missing(), None);
    /// ```
    pub fn missing(&self) -> Option<&'static str> {
        let listed = !(self.entries.is_empty() && self.sizeless.is_empty());
        if listed || self.runtime.is_some() || self.allocating.is_some() {
            return None;
        }
        if !self.found() {
            return Some("no out-of-memory report found");
        }
        if self.problems.is_empty() {
            return Some("a header but no entries: are the lines prefixed?");
        }
        None
    }

    /// Whether the report prints its sizes in XLA:GPU's `GiB` units (rather than the TPU
    /// compiler's `G`): what a table of it should print too.
    ///
    /// ```
    /// use xlayout::oom::OomReport;
    /// assert!(OomReport::parse("Buffer 1:\n  Size: 4.89GiB\n").iec());
    /// assert!(!OomReport::parse("1. Size: 4.89G\n").iec());
    /// ```
    pub fn iec(&self) -> bool {
        let mut sizes = self.entries.iter().filter_map(|e| e.size.as_ref());
        let first = sizes
            .find(|p| p.rounded)
            .or_else(|| self.stats.iter().map(|p| &p.size).find(|p| p.rounded));
        first.is_some_and(|p| p.text.ends_with("iB"))
    }

    /// The report with its entries joined to a dump's instructions (from [`join`](super::join)),
    /// to serialize: the same object as the report's own, each entry record with its `hlo_*`
    /// fields filled.
    ///
    /// ```
    /// use xlayout::hlo::Module;
    /// use xlayout::oom::{join, OomReport};
    /// let m = Module::parse("%f.1 = f32[8]{0} negate(%x)\n");
    /// let r = OomReport::parse("1. Size: 32B\n   Shape: f32[8]{0}\n   XLA label: f.1 = negate(x)\n");
    /// let j = join(&r.entries, &m);
    /// let v = serde_json::to_value(r.with_dump(Some(&j))).unwrap();
    /// assert_eq!((v["entries"][0]["hlo_line"].as_u64(), v["entries"][0]["hlo_same_shape"].as_bool()), (Some(1), Some(true)));
    /// assert!(serde_json::to_value(r.with_dump(None)).unwrap()["entries"][0]["hlo_line"].is_null());
    /// ```
    pub fn with_dump<'a>(
        &'a self,
        joined: Option<&'a [Option<Joined<'a>>]>,
    ) -> impl Serialize + 'a {
        Fields { report: self, joined }
    }
}

impl Serialize for OomReport {
    /// Every field above by its name, `entries` and `sizeless` as [`EntryRow`] records;
    /// `stats` as `stats`, and `missing` (why no report was found) last.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Fields { report: self, joined: None }.serialize(s)
    }
}

/// A report's fields, with or without a dump joined.
struct Fields<'a> {
    report: &'a OomReport,
    joined: Option<&'a [Option<Joined<'a>>]>,
}

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Rows<'a>(&'a [Entry], Option<&'a [Option<Joined<'a>>]>);
        impl Serialize for Rows<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (k, e) in self.0.iter().enumerate() {
                    let joined = self.1.map(|j| j.get(k).and_then(Option::as_ref));
                    seq.serialize_element(&EntryRow::new(e, joined))?;
                }
                seq.end()
            }
        }
        let r = self.report;
        let mut st = s.serialize_struct("OomReport", 20)?;
        st.serialize_field("kind", &r.kind)?;
        st.serialize_field("error_code", &r.error_code)?;
        st.serialize_field("memory_space", &r.memory_space)?;
        st.serialize_field("memory_spaces", &r.memory_spaces)?;
        st.serialize_field("used", &r.used)?;
        st.serialize_field("capacity", &r.capacity)?;
        st.serialize_field("exceeded", &r.exceeded)?;
        st.serialize_field("allocating", &r.allocating)?;
        st.serialize_field("runtime", &r.runtime)?;
        st.serialize_field("total_usage", &r.total_usage)?;
        st.serialize_field("usage", &r.usage)?;
        st.serialize_field("program_requirement", &r.program_requirement)?;
        st.serialize_field("requirement", &r.requirement)?;
        st.serialize_field("hlo_temp", &r.hlo_temp)?;
        st.serialize_field("stats", &r.stats)?;
        st.serialize_field("entries", &Rows(&r.entries, self.joined))?;
        st.serialize_field("sizeless", &Rows(&r.sizeless, None))?;
        st.serialize_field("totals", &r.totals)?;
        st.serialize_field("problems", &r.problems)?;
        st.serialize_field("missing", &r.missing())?;
        st.end()
    }
}

/// The numbers of the memory spaces named so far ([`OomReport::memory_spaces`]): each
/// section's name is looked up once, not compared with every name before it.
#[derive(Default)]
struct Spaces(std::collections::HashMap<String, u32>);

impl Spaces {
    /// The number of memory space `name`, added to `table` if it is new.
    fn number(&mut self, table: &mut Vec<String>, name: &str) -> u32 {
        if let Some(&k) = self.0.get(name) {
            return k;
        }
        // Fewer spaces than lines of the report, which 32 bits count.
        let k = table.len() as u32;
        table.push(name.to_string());
        self.0.insert(name.to_string(), k);
        k
    }
}

/// The phrases every line is searched for, each prepared once per report (`str::find`
/// prepares its search again at every call: most of the time of reading a report of many
/// short lines).
struct Needles {
    ran_out: Finder<'static>,
    reserve: Finder<'static>,
    allocate: Finder<'static>,
    out_of_memory: Finder<'static>,
    cpu: Finder<'static>,
    size: Finder<'static>,
}

impl Needles {
    fn new() -> Needles {
        Needles {
            ran_out: Finder::new("Ran out of memory in memory space "),
            reserve: Finder::new("Attempting to reserve "),
            allocate: Finder::new("Attempting to allocate "),
            out_of_memory: Finder::new("Out of memory while trying to allocate "),
            // XLA:CPU (xla/pjrt/cpu/tracked_tfrt_cpu_device_buffer.h):
            // `ResourceExhausted("Out of memory allocating %d bytes.", size)`.
            cpu: Finder::new("Out of memory allocating "),
            size: Finder::new(". Size:"),
        }
    }
}

/// `N. Size: X` -> (N, X); `size` finds `. Size:`.
fn tpu_entry<'t>(t: &'t str, size: &Finder<'_>) -> Option<(u64, &'t str)> {
    let at = size.find(t.as_bytes())?;
    let (number, rest) = (&t[..at], &t[at + size.needle().len()..]);
    Some((number.trim().parse().ok()?, rest.trim()))
}

/// `Buffer N:` -> N.
fn gpu_entry(t: &str) -> Option<u64> {
    t.strip_prefix("Buffer ")?.strip_suffix(':')?.trim().parse().ok()
}

/// Whether `k` reads as a field name: words of letters.
fn is_key(k: &str) -> bool {
    !k.is_empty() && k.len() < 40 && k.bytes().all(|b| b.is_ascii_alphabetic() || b == b' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_and_parts() {
        let p = part("HLO temp         41.19G (24.2% utilization, 0.7% fragmentation (293.84M))")
            .unwrap();
        assert_eq!((p.name.as_str(), p.size.text.as_str()), ("HLO temp", "41.19G"));
        let h = hlo_temp(&p);
        assert_eq!(
            (h.utilization.as_deref(), h.fragmentation.as_deref()),
            (Some("24.2"), Some("0.7"))
        );
        assert_eq!(h.fragmentation_size.unwrap().text, "293.84M");
        assert_eq!((h.unpadded, h.utilization_agrees), (None, None));
        let a = part("arguments       unknown size").unwrap();
        assert_eq!(
            (a.name.as_str(), a.size.text.as_str(), a.size.bytes),
            ("arguments", "unknown size", None)
        );
        assert_eq!(part("2.0K alone"), None);
    }
}
