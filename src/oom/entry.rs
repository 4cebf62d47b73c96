//! One entry of a report (`N. Size: ...` of a TPU report, `Buffer N:` of XLA:GPU's) and
//! its numbers recomputed from its shape: the bytes, whether they agree with what the
//! report printed after its own rounding, why it pads, the layout that would pad least,
//! and, for a shape printed without tiles, the TPU default tiling that reproduces the
//! printed size.

use serde::Serialize;

use super::label;
use crate::hlo::{Cause, ShapeFacts, Sizes};
use crate::memory::units::{iec_bytes, oom_bytes, printed_bytes};
use crate::memory::{best::BestLayout, ratio::Ratio};
use crate::{ArrayShape, Shape, Tile};

/// A size as the report printed it, and the bytes it stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Printed {
    /// As printed (`32.00G`, `64.0K`, `15.00GiB`, `0B`).
    pub text: String,
    /// The number it reads as (`32.00G` is 34359738368), if it reads as one; `16.00E`,
    /// which stands for counts up to 2⁶⁴ − 1 but is 2⁶⁴ itself, reads as 2⁶⁴ − 1.
    pub bytes: Option<u64>,
    /// Whether the report rounded it: printed in a unit above bytes, so `bytes` is the
    /// printed number, and the true count anywhere that prints the same
    /// ([`Printed::range`]).
    pub rounded: bool,
}

impl Printed {
    /// Reads a printed size.
    ///
    /// ```
    /// use xlayout::oom::Printed;
    /// let g = Printed::new("1.00G");
    /// assert_eq!((g.bytes, g.rounded), (Some(1 << 30), true));
    /// assert_eq!(Printed::new("512B").rounded, false);
    /// assert_eq!(Printed::new("2.00E").bytes, Some(1 << 61)); // the largest unit xlayout prints
    /// assert_eq!(Printed::new("16.00E").bytes, Some(u64::MAX)); // what XLA prints for it
    /// assert_eq!(Printed::new("17.00E").bytes, None); // beyond 64 bits
    /// assert_eq!(Printed::new("unknown size").bytes, None);
    /// ```
    pub fn new(text: &str) -> Printed {
        let text = text.trim();
        let mut p = Printed { text: text.to_string(), bytes: None, rounded: false };
        // A figure past 2^64 - 1 whose rounding reaches below it stands for 2^64 - 1.
        p.bytes = match (printed_bytes(text), p.range()) {
            (Some(b), Some((low, _))) => {
                u64::try_from(b).ok().or((low < u64::MAX).then_some(u64::MAX))
            }
            _ => None,
        };
        p.rounded = p.bytes.is_some() && unit_size(text) > 1;
        p
    }

    /// The byte counts that would print as this text: the number plus or minus half of
    /// its last printed digit (`9.40G` is 9.395G to 9.405G). `None` if it is no number.
    ///
    /// ```
    /// use xlayout::oom::Printed;
    /// assert_eq!(Printed::new("1.5K").range(), Some((1485, 1587)));
    /// assert_eq!(Printed::new("512B").range(), Some((512, 512)));
    /// ```
    pub fn range(&self) -> Option<(u64, u64)> {
        let b = printed_bytes(&self.text)?;
        let number = self.text.trim_end_matches(|c: char| c.is_ascii_alphabetic()).trim();
        let decimals = number.split_once('.').map_or(0, |(_, f)| f.len()) as u32;
        // Half a last digit, in bytes: (unit size) / 10^decimals / 2.
        let half = unit_size(&self.text) / (2 * 10u128.pow(decimals));
        let clamp = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
        Some((clamp(b.saturating_sub(half)), clamp(b + half)))
    }
}

/// The bytes of the unit a printed size ends in (`G`, `GiB`: 2³⁰; `B` or none: 1).
fn unit_size(text: &str) -> u128 {
    match text.trim_end_matches(['i', 'B', 'b']).chars().last() {
        Some('K' | 'k') => 1u128 << 10,
        Some('M' | 'm') => 1 << 20,
        Some('G' | 'g') => 1 << 30,
        Some('T' | 't') => 1 << 40,
        Some('P' | 'p') => 1 << 50,
        Some('E' | 'e') => 1 << 60,
        _ => 1,
    }
}

/// Whether each printed number of an entry is what its shape gives, after the report's
/// rounding (`None`: not printed).
///
/// ```
/// let r = xlayout::oom::OomReport::parse("1. Size: 4.0K\n   Shape: f32[8,100]{1,0:T(8,128)}\n   Unpadded size: 4.0K\n");
/// let a = r.entries[0].recomputed.as_ref().unwrap().agrees;
/// assert_eq!((a.size, a.unpadded, a.padding, a.all()), (Some(true), Some(false), None, false)); // 3200 bytes is 3.1K
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Agreement {
    /// `Size:`.
    pub size: Option<bool>,
    /// `Unpadded size:`.
    pub unpadded: Option<bool>,
    /// `Extra memory due to padding:`.
    pub padding: Option<bool>,
    /// `(N.Nx expansion)`.
    pub expansion: Option<bool>,
}

impl Agreement {
    /// Every printed number agrees.
    ///
    /// ```
    /// assert!(xlayout::oom::Agreement::default().all()); // nothing printed, nothing wrong
    /// ```
    pub fn all(&self) -> bool {
        [self.size, self.unpadded, self.padding, self.expansion].iter().all(|a| *a != Some(false))
    }
}

/// An entry's numbers recomputed from its shape.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("  1. Size: 32.00G\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n     Unpadded size: 1.00G\n     Extra memory due to padding: 31.00G (32.0x expansion)\n     XLA label: %copy.4 = s32[8388608,8,4]{2,1,0:T(8,128)} copy(%x)\n");
/// let x = r.entries[0].recomputed.as_ref().unwrap();
/// assert_eq!((x.expansion.unwrap().to_string(), x.expansion_one_decimal.as_deref(), x.inferred_tiling.as_deref()), (String::from("32.0"), Some("32.0"), None));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Recomputed {
    /// The shape the numbers are of: the printed one, or with the inferred tiling.
    pub shape: String,
    /// The TPU default tiling (`(8,128)`, `(8,128)(2,1)`, `(8,128)(4,1)`; for a scalar or
    /// a vector `(128)`, `(256)` or `(1024)`) that reproduces the printed size of a shape
    /// printed without tiles, when the shape as printed does not: inferred, not printed.
    pub inferred_tiling: Option<String>,
    /// Exact bytes (`ShapeUtil::ArraySize` and the data).
    pub sizes: Sizes,
    /// `size / data` (printed to three significant figures).
    pub expansion: Option<Ratio>,
    /// The expansion as the report prints it, to one decimal (`1.0` for 1.045).
    pub expansion_one_decimal: Option<String>,
    /// What the report would print for these numbers.
    pub expected: Expected,
    /// Whether the printed numbers are these.
    pub agrees: Agreement,
    /// Why it pads, per padded dimension.
    pub causes: Vec<Cause>,
    /// The order of the same dimensions and tiles that pads least, when it saves 10%.
    pub best_layout: Option<BestLayout>,
}

/// The texts a report would print for the recomputed numbers.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("  1. Size: 32.00G\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n     Unpadded size: 1.00G\n     Extra memory due to padding: 31.00G (32.0x expansion)\n     XLA label: %copy.4 = s32[8388608,8,4]{2,1,0:T(8,128)} copy(%x)\n");
/// let e = &r.entries[0].recomputed.as_ref().unwrap().expected;
/// assert_eq!((e.size.as_str(), e.unpadded.as_str(), e.padding.as_str()), ("32.00G", "1.00G", "31.00G"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Expected {
    /// For `Size:`.
    pub size: String,
    /// For `Unpadded size:`.
    pub unpadded: String,
    /// For `Extra memory due to padding:`.
    pub padding: String,
}

/// One entry of a report.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("  1. Size: 32.00G\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n     Unpadded size: 1.00G\n     Extra memory due to padding: 31.00G (32.0x expansion)\n     XLA label: %copy.4 = s32[8388608,8,4]{2,1,0:T(8,128)} copy(%x)\n");
/// let e = &r.entries[0];
/// assert_eq!((e.number, e.instruction.as_deref(), e.opcode.as_deref()), (1, Some("copy.4"), Some("copy")));
/// assert_eq!(e.printed_expansion.as_deref(), Some("32.0"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The number the report gives it (`N. Size:`, `Buffer N:`).
    pub number: u64,
    /// The line it starts on.
    pub line: usize,
    /// The memory space of the report section (`hbm`, `vmem`; `None` unknown), by number:
    /// the index of its name in the report's
    /// [`memory_spaces`](super::OomReport::memory_spaces).
    pub memory_space: Option<u32>,
    /// `Size:`.
    pub size: Option<Printed>,
    /// `Operator:` as printed (`op_type="..." op_name="..." source_file=... source_line=N`).
    pub operator: Option<String>,
    /// `Shape:` (or XLA:GPU's `Entry Parameter Subshape:`) as printed.
    pub shape: Option<String>,
    /// `Unpadded size:`.
    pub unpadded: Option<Printed>,
    /// `Extra memory due to padding:` without its expansion.
    pub padding: Option<Printed>,
    /// The expansion printed after it (`32.0` of `(32.0x expansion)`).
    pub printed_expansion: Option<String>,
    /// `XLA label:` as printed.
    pub label: Option<String>,
    /// Whether the label was cut short (`...`).
    pub label_truncated: bool,
    /// `Allocation type:`.
    pub allocation_type: Option<String>,
    /// The instruction the label names.
    pub instruction: Option<String>,
    /// Its opcode, from the label.
    pub opcode: Option<String>,
    /// `op_name`, from the `Operator:` line or the label's metadata.
    pub op_name: Option<String>,
    /// `source_file:source_line` of the `Operator:` line.
    pub source: Option<String>,
    /// The numbers recomputed from the shape (`None`: no readable shape).
    pub recomputed: Option<Recomputed>,
}

impl Entry {
    pub(crate) fn new(number: u64, line: usize, memory_space: Option<u32>) -> Entry {
        Entry {
            number,
            line,
            memory_space,
            size: None,
            operator: None,
            shape: None,
            unpadded: None,
            padding: None,
            printed_expansion: None,
            label: None,
            label_truncated: false,
            allocation_type: None,
            instruction: None,
            opcode: None,
            op_name: None,
            source: None,
            recomputed: None,
        }
    }

    /// Sets a field from a `Key: value` line; `false` for a key entries do not have.
    pub(crate) fn field(&mut self, key: &str, value: &str) -> bool {
        let value = value.trim();
        match key.to_ascii_lowercase().as_str() {
            "size" => self.size = Some(Printed::new(value)),
            "operator" => {
                let m = crate::hlo::Metadata::parse(value);
                self.op_name = m.op_name.map(|o| o.into_owned());
                self.source = m.source_file.zip(m.source_line).map(|(f, l)| format!("{f}:{l}"));
                self.operator = Some(value.to_string());
            }
            "shape" | "entry parameter subshape" => self.shape = Some(value.to_string()),
            "unpadded size" => self.unpadded = Some(Printed::new(value)),
            "extra memory due to padding" => {
                // `31.00G (32.0x expansion)`
                let (size, rest) = value.split_once('(').unwrap_or((value, ""));
                self.padding = Some(Printed::new(size));
                self.printed_expansion =
                    rest.split_once("x expansion").map(|(x, _)| x.trim().to_string());
            }
            "xla label" => {
                let l = label::read(value);
                self.label_truncated = l.truncated;
                self.instruction = l.name;
                self.opcode = l.opcode;
                if self.op_name.is_none() {
                    self.op_name = l.op_name;
                }
                if self.shape.is_none() {
                    self.shape = l.shape;
                }
                self.label = Some(value.to_string());
            }
            "allocation type" => self.allocation_type = Some(value.to_string()),
            _ => return false,
        }
        true
    }

    /// Recomputes the numbers from the shape. `Err` says why there is no shape to read.
    pub(crate) fn recompute(&mut self, budget: &mut u64) -> Result<(), String> {
        let Some(text) = &self.shape else { return Err(String::from("no shape printed")) };
        let shape: Shape = text.parse().map_err(|e: crate::Error| e.message().to_string())?;
        let printed_iec = self.size.as_ref().is_some_and(|s| s.text.ends_with("iB"));
        let mut r = recomputed(&shape, self, printed_iec, budget)?;
        if r.agrees.size == Some(false) {
            if let Shape::Array(a) = &shape {
                if a.layout_or_default().tiles.is_empty() {
                    for (tiling, tiles) in default_tilings(a) {
                        let mut l = a.layout_or_default().into_owned();
                        l.tiles = tiles;
                        let tiled = Shape::Array(a.clone().with_layout(l));
                        if tiled.validate().is_err() {
                            continue;
                        }
                        if let Ok(mut t) = recomputed(&tiled, self, printed_iec, budget) {
                            if t.agrees.size == Some(true) {
                                t.inferred_tiling = Some(tiling.to_string());
                                r = t;
                                break;
                            }
                        }
                    }
                }
            }
        }
        self.recomputed = Some(r);
        Ok(())
    }
}

/// The TPU's default tilings for an untiled array: for a scalar or a vector the
/// one-dimensional tiles its buffers get (`(128)`, `(256)`, `(1024)`, tried in that order);
/// else by element width, `(8,128)` for 32 bits, `(8,128)(2,1)` for 16, `(8,128)(4,1)` for 8.
fn default_tilings(a: &ArrayShape) -> Vec<(&'static str, Vec<Tile>)> {
    let t = |dims: &[u64]| Tile::new(dims.iter().copied());
    if a.dims.len() <= 1 {
        return vec![
            ("(128)", vec![t(&[128])]),
            ("(256)", vec![t(&[256])]),
            ("(1024)", vec![t(&[1024])]),
        ];
    }
    match a.element_type.byte_width() {
        4 => vec![("(8,128)", vec![t(&[8, 128])])],
        2 => vec![("(8,128)(2,1)", vec![t(&[8, 128]), t(&[2, 1])])],
        1 => vec![("(8,128)(4,1)", vec![t(&[8, 128]), t(&[4, 1])])],
        _ => Vec::new(),
    }
}

/// The numbers of `shape` and how they compare with what `e` printed.
fn recomputed(shape: &Shape, e: &Entry, iec: bool, budget: &mut u64) -> Result<Recomputed, String> {
    let facts = match shape {
        // A tuple's buffer is its index table (`ByteSizeOf` with 8-byte pointers): its
        // elements are buffers of their own.
        Shape::Tuple(_) => None,
        _ => Some(ShapeFacts::new(shape, budget)),
    };
    let s = match &facts {
        Some(f) if f.unsized_leaves > 0 => {
            let why = f.leaves.iter().find_map(|l| l.no_size.clone());
            return Err(why.unwrap_or_else(|| String::from("XLA gives it no size")));
        }
        Some(f) => f.total,
        None => {
            let table = shape.byte_size_of(8).map_err(|e| e.message().to_string())?;
            Sizes { array_bytes: table, logical_bytes: table, ..Sizes::default() }
        }
    };
    let human = |n: u64| if iec { iec_bytes(n) } else { oom_bytes(n) };
    let expected = Expected {
        size: human(s.array_bytes),
        unpadded: human(s.logical_bytes),
        padding: human(s.padding_bytes()),
    };
    let one_decimal = (s.logical_bytes > 0)
        .then(|| format!("{:.1}", s.array_bytes as f64 / s.logical_bytes as f64));
    let same = |p: &Option<Printed>, want: &str| p.as_ref().map(|p| p.text == want);
    let agrees = Agreement {
        size: same(&e.size, &expected.size),
        unpadded: same(&e.unpadded, &expected.unpadded),
        padding: same(&e.padding, &expected.padding),
        expansion: e.printed_expansion.as_ref().map(|x| Some(x) == one_decimal.as_ref()),
    };
    let mut causes = Vec::new();
    let mut best_layout = None;
    for leaf in facts.into_iter().flat_map(|f| f.leaves) {
        causes.extend(leaf.causes);
        best_layout = best_layout.or(leaf.best.map(|b| *b));
    }
    Ok(Recomputed {
        shape: shape.to_string(),
        inferred_tiling: None,
        sizes: s,
        expansion: s.expansion(),
        expansion_one_decimal: one_decimal,
        expected,
        agrees,
        causes,
        best_layout,
    })
}
