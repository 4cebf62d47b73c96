//! Instructions -> buffers: for every result, the memory each array leaf takes (XLA's
//! `ShapeUtil::ArraySize`), the data in it, the padding and why, the layout that would pad
//! least; and which instructions own memory.
//!
//! Every size comes from layout-runtime's checked array: [`CheckedArray::byte_size`](crate::CheckedArray::byte_size)
//! (ArraySize), [`CheckedArray::byte_size_of`](crate::CheckedArray::byte_size_of) (ByteSizeOf) and
//! [`CheckedArray::array_size_walk`](crate::CheckedArray::array_size_walk) (which dimension ArraySize rounds, and to what).

use std::fmt;

use serde::{Serialize, Serializer};

use super::module::{CallContext, Module, ShapeId};
use super::units::ratio;
use crate::{ArrayShape, Shape, TileDim};

/// Bytes of one result or of a sum of results.
///
/// `padding_bytes() = array_bytes - logical_bytes`, split into `tiling_padding_bytes`
/// (elements the tiling adds, at their stored width) and `widening_bytes` (the bits `E(n)`
/// stores beyond the element type's natural width, on the real elements).
///
/// ```
/// use xlayout::hlo::Sizes;
/// let s = Sizes { array_bytes: 96, logical_bytes: 60, tiling_padding_bytes: 36, widening_bytes: 0 };
/// assert_eq!((s.padding_bytes(), s.expansion().as_deref()), (36, Some("1.60")));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    /// The allocation: `ShapeUtil::ArraySize` (first tile, `L(n)`, split configs, `E(n)`).
    pub array_bytes: u64,
    /// The data at its natural width: the dimensions' product (a `<=N` dimension counting
    /// N) times the element's bytes; `E(n)` counts where it packs below the natural width
    /// (⌈count·n/8⌉); `pred` and sub-byte types take a byte per element otherwise, as in
    /// XLA's `ByteSizeOf`.
    pub logical_bytes: u64,
    /// Bytes of the elements tiling adds (`L(n)` included), at their stored width.
    pub tiling_padding_bytes: u64,
    /// Bytes `E(n)` adds by storing elements wider than their type.
    pub widening_bytes: u64,
}

impl Sizes {
    /// `array_bytes - logical_bytes` (0 when split configs make the allocation smaller).
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Sizes::default().padding_bytes(), 0);
    /// ```
    pub fn padding_bytes(&self) -> u64 {
        self.array_bytes.saturating_sub(self.logical_bytes)
    }

    /// `array_bytes / logical_bytes` to three significant figures; `None` without data.
    ///
    /// ```
    /// use xlayout::hlo::Sizes;
    /// let s = Sizes { array_bytes: 512, logical_bytes: 4, ..Sizes::default() };
    /// assert_eq!(s.expansion().as_deref(), Some("128"));
    /// ```
    pub fn expansion(&self) -> Option<String> {
        ratio(self.array_bytes, self.logical_bytes)
    }

    /// The sum, saturating (a total beyond 2⁶⁴ bytes stays at the maximum).
    ///
    /// ```
    /// use xlayout::hlo::Sizes;
    /// let a = Sizes { array_bytes: 2, logical_bytes: 1, tiling_padding_bytes: 1, widening_bytes: 0 };
    /// assert_eq!(a.plus(&a).array_bytes, 4);
    /// ```
    pub fn plus(&self, o: &Sizes) -> Sizes {
        Sizes {
            array_bytes: self.array_bytes.saturating_add(o.array_bytes),
            logical_bytes: self.logical_bytes.saturating_add(o.logical_bytes),
            tiling_padding_bytes: self.tiling_padding_bytes.saturating_add(o.tiling_padding_bytes),
            widening_bytes: self.widening_bytes.saturating_add(o.widening_bytes),
        }
    }
}

impl Serialize for Sizes {
    /// `{"array_bytes", "logical_bytes", "padding_bytes", "tiling_padding_bytes",
    /// "widening_bytes", "expansion"}`, exact integers; `expansion` is the
    /// three-significant-figure ratio as a number (`null` without data).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Sizes", 6)?;
        st.serialize_field("array_bytes", &self.array_bytes)?;
        st.serialize_field("logical_bytes", &self.logical_bytes)?;
        st.serialize_field("padding_bytes", &self.padding_bytes())?;
        st.serialize_field("tiling_padding_bytes", &self.tiling_padding_bytes)?;
        st.serialize_field("widening_bytes", &self.widening_bytes)?;
        let expansion: Option<f64> = self.expansion().and_then(|e| e.parse().ok());
        st.serialize_field("expansion", &expansion)?;
        st.end()
    }
}

/// Why one array pads, one reason per padded dimension (and for `L(n)` and `E(n)`).
///
/// ```
/// use xlayout::hlo::Cause;
/// let c = Cause::Dim { dimension: Some(1), size: 10, padded: 128 };
/// assert_eq!(c.to_string(), "d1 10 -> 128 (x12.8)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A dimension rounded up to the first tile's entry (`dimension` `None`: a size-1
    /// major dimension a tile longer than the shape adds).
    Dim {
        /// The logical dimension.
        dimension: Option<usize>,
        /// Its size (a bound or the largest split piece where it has one).
        size: u64,
        /// The size it is rounded to.
        padded: u64,
    },
    /// `L(n)`: the tiled element count rounded up to a multiple of n.
    Alignment {
        /// n.
        multiple: u64,
        /// Elements before.
        elements: u64,
        /// Elements after.
        aligned: u64,
    },
    /// `E(n)` wider than the element type: `bits` stored as `stored_bits`.
    Widening {
        /// The type's own storage: its width, or 8 for `pred` and sub-byte types.
        bits: u64,
        /// n.
        stored_bits: u64,
    },
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = |a: u64, b: u64| ratio(a, b).unwrap_or_else(|| String::from("-"));
        match *self {
            Cause::Dim { dimension: Some(d), size, padded } => {
                write!(f, "d{d} {size} -> {padded} (x{})", x(padded, size))
            }
            Cause::Dim { dimension: None, size, padded } => {
                write!(f, "tile-added dim {size} -> {padded} (x{})", x(padded, size))
            }
            Cause::Alignment { multiple, elements, aligned } => {
                write!(
                    f,
                    "L({multiple}) {elements} -> {aligned} elements (x{})",
                    x(aligned, elements)
                )
            }
            Cause::Widening { bits, stored_bits } => {
                write!(
                    f,
                    "E({stored_bits}) {bits} -> {stored_bits} bits (x{})",
                    x(stored_bits, bits)
                )
            }
        }
    }
}

impl Serialize for Cause {
    /// `{"kind": "dim", "dimension": 1, "size": 10, "padded": 128, "text": "d1 10 -> 128 (x12.8)"}`
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out {
            kind: &'static str,
            #[serde(skip_serializing_if = "Option::is_none")]
            dimension: Option<usize>,
            from: u64,
            to: u64,
            text: String,
        }
        let text = self.to_string();
        let out = match *self {
            Cause::Dim { dimension, size, padded } => {
                Out { kind: "dim", dimension, from: size, to: padded, text }
            }
            Cause::Alignment { elements, aligned, .. } => {
                Out { kind: "alignment", dimension: None, from: elements, to: aligned, text }
            }
            Cause::Widening { bits, stored_bits } => {
                Out { kind: "widening", dimension: None, from: bits, to: stored_bits, text }
            }
        };
        out.serialize(s)
    }
}

/// A layout that pads less: the same dimensions and tiles in another physical order.
///
/// ```
/// use xlayout::hlo::best_layout;
/// let a: xlayout::ArrayShape = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}".parse()?;
/// let best = best_layout(&a, &mut 1_000_000).unwrap().unwrap();
/// assert_eq!((best.layout.as_str(), best.array_bytes), ("{1,2,0:T(8,128)(2,1)}", 1_638_400));
/// # Ok::<(), xlayout::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BestLayout {
    /// The layout, as XLA prints it.
    pub layout: String,
    /// The whole shape with that layout.
    pub shape: String,
    /// Its `ArraySize`.
    pub array_bytes: u64,
}

/// At most this many orders are sized for one shape.
pub const MAX_CANDIDATES: u64 = 5040;

/// At most this many orders are sized for a whole module: bounded time on any input.
pub const MODULE_CANDIDATE_BUDGET: u64 = 2_000_000;

/// The order of the same dimensions under the same tiles (and every other layout field)
/// with the smallest `ArraySize`, as E0102 of XLA's error docs suggests trying; ties go to
/// the order that moves fewest dimensions, then to the smallest minor_to_major.
///
/// Only the dimensions under first-tile entries larger than 1 change the size (the others
/// multiply in unchanged), so the search sizes every choice of which dimensions go there
/// — n!/(n-m)! orders for rank n and m such entries, each with [`ArrayShape::byte_size`]
/// — and keeps the other dimensions in their order. It is exact at any rank.
///
/// `Ok(None)`: nothing to search (no tiling padding, or a split config, whose physical
/// dimension numbers an order change would move). `Err(reason)`: not searched, because it
/// needs more than [`MAX_CANDIDATES`] orders or more than `budget` remain; `budget` is
/// reduced by the orders sized.
///
/// ```
/// use xlayout::hlo::best_layout;
/// let a: xlayout::ArrayShape = "s32[8388608,8,4]{2,1,0:T(8,128)}".parse().unwrap();
/// let mut budget = 100;
/// let best = best_layout(&a, &mut budget)?.unwrap();
/// assert_eq!((best.shape.as_str(), best.array_bytes), ("s32[8388608,8,4]{0,1,2:T(8,128)}", 1_073_741_824));
/// assert_eq!(budget, 94); // 3 x 2 orders sized
/// let a: xlayout::ArrayShape = "f32[8,128]{1,0:T(8,128)}".parse().unwrap();
/// assert_eq!(best_layout(&a, &mut budget)?, None); // nothing pads
/// # Ok::<(), String>(())
/// ```
pub fn best_layout(a: &ArrayShape, budget: &mut u64) -> Result<Option<BestLayout>, String> {
    let Ok((size, walk)) = a.check().and_then(|c| Ok((c.byte_size()?, c.array_size_walk()?)))
    else {
        return Ok(None);
    };
    if walk.dims.iter().all(|d| d.padded == d.size) {
        return Ok(None);
    }
    let layout = a.layout_or_default();
    if !layout.split_configs.is_empty() {
        return Ok(None);
    }
    let Some(tile) = layout.tiles.first() else { return Ok(None) };
    let rank = a.rank();
    // Physical positions (from the most minor) under a tile entry > 1.
    let n = tile.dims.len();
    let under: Vec<usize> = (0..n.min(rank))
        .filter(|&p| !matches!(tile.dims[n - 1 - p], TileDim::Size(0 | 1)))
        .collect();
    let m = under.len();
    let mut count: u64 = 1;
    for k in 0..m {
        count = count.saturating_mul((rank - k) as u64);
    }
    if count > MAX_CANDIDATES {
        return Err(format!(
            "not searched: {count} orders (rank {rank}, {m} tile entries above 1) exceed the limit of {MAX_CANDIDATES}"
        ));
    }
    if count > *budget {
        return Err(String::from("not searched: the module's search budget is spent"));
    }
    *budget -= count;

    let original: Vec<i64> = layout.minor_to_major.clone();
    let mut search = Search {
        under: &under,
        original: &original,
        trial: a.clone(),
        best: None,
        chosen: Vec::with_capacity(m),
        used: vec![false; rank],
    };
    search.visit();
    let Some((bytes, _, order)) = search.best else { return Ok(None) };
    if bytes >= size || order == original {
        return Ok(None);
    }
    let mut winner = a.clone();
    if let Some(l) = winner.layout.as_mut() {
        l.minor_to_major = order;
    }
    if winner.check().is_err() {
        return Ok(None);
    }
    let layout = winner.layout_or_default().to_string();
    Ok(Some(BestLayout { layout, shape: winner.to_string(), array_bytes: bytes }))
}

/// The depth-first walk of [`best_layout`] over injective choices of dimensions for the
/// positions under tile entries above 1.
struct Search<'a> {
    under: &'a [usize],
    original: &'a [i64],
    trial: ArrayShape,
    /// (bytes, dimensions moved, minor_to_major) of the best order so far.
    best: Option<(u64, usize, Vec<i64>)>,
    chosen: Vec<i64>,
    used: Vec<bool>,
}

impl Search<'_> {
    fn visit(&mut self) {
        if self.chosen.len() < self.under.len() {
            for d in 0..self.used.len() {
                if !self.used[d] {
                    self.used[d] = true;
                    self.chosen.push(d as i64);
                    self.visit();
                    self.chosen.pop();
                    self.used[d] = false;
                }
            }
            return;
        }
        // Fill the other positions with the remaining dimensions in their order.
        let mut rest = self.original.iter().copied().filter(|&d| !self.used[d as usize]);
        let order: Vec<i64> = (0..self.original.len())
            .map(|p| match self.under.iter().position(|&u| u == p) {
                Some(i) => self.chosen[i],
                None => rest.next().expect("one dimension per position"),
            })
            .collect();
        if let Some(l) = self.trial.layout.as_mut() {
            l.minor_to_major.clone_from(&order);
        }
        if let Ok(bytes) = self.trial.byte_size() {
            let moved = order.iter().zip(self.original).filter(|(a, b)| a != b).count();
            let key = (bytes, moved, order);
            if self.best.as_ref().map_or(true, |b| key < *b) {
                self.best = Some(key);
            }
        }
    }
}

/// What kind of leaf of a result shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeafKind {
    /// An array (or a `b(...)` buffer of one).
    Array,
    /// `token[]`: no memory.
    Token,
    /// `opaque[]`: a runtime handle, counted as no memory.
    Opaque,
}

/// One leaf of a result shape (the result itself when it is not a tuple).
#[derive(Clone, Debug, Serialize)]
pub struct Leaf {
    /// Its tuple index (`[]` for a non-tuple result, `[1, 0]` for `{1,0}`).
    pub index: Vec<usize>,
    /// Array, token or opaque.
    pub kind: LeafKind,
    /// `S(n)`.
    pub memory_space: i64,
    /// Its bytes; `None` when XLA defines no size (an unbounded `?` dimension, `*` in the
    /// first tile): then `no_size` says why.
    pub sizes: Option<Sizes>,
    /// Why there is no size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_size: Option<String>,
    /// Why it pads.
    pub causes: Vec<Cause>,
    /// A layout that would pad at least 10% less.
    pub best: Option<BestLayout>,
    /// Why no better layout was searched for, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_not_searched: Option<String>,
}

impl Leaf {
    fn array(index: Vec<usize>, a: &ArrayShape, budget: &mut u64) -> Leaf {
        let layout = a.layout_or_default();
        let mut leaf = Leaf::empty(index, LeafKind::Array);
        leaf.memory_space = layout.memory_space;
        let natural = if layout.element_size_in_bits == 0 {
            None
        } else {
            let mut plain = a.clone();
            if let Some(l) = plain.layout.as_mut() {
                l.element_size_in_bits = 0;
            }
            Some(plain)
        };
        // One check of the shape; every size and the walk come from the checked array.
        let sizes = a.check().and_then(|c| {
            let plain = match &natural {
                Some(p) => p.check()?.byte_size_of()?,
                None => c.byte_size_of()?,
            };
            Ok((c.byte_size()?, c.byte_size_of()?, plain, c.array_size_walk()?))
        });
        let (array, data, plain, walk) = match sizes {
            Ok(s) => s,
            Err(e) => {
                leaf.sizes = None;
                leaf.no_size = Some(e.message().to_string());
                return leaf;
            }
        };
        let logical = data.min(plain);
        leaf.sizes = Some(Sizes {
            array_bytes: array,
            logical_bytes: logical,
            tiling_padding_bytes: array.saturating_sub(data),
            widening_bytes: data - logical,
        });
        for d in walk.dims.iter().filter(|d| d.padded != d.size) {
            leaf.causes.push(Cause::Dim { dimension: d.dimension, size: d.size, padded: d.padded });
        }
        if walk.aligned_count != walk.element_count {
            leaf.causes.push(Cause::Alignment {
                multiple: layout.tail_padding_alignment_in_elements as u64,
                elements: walk.element_count,
                aligned: walk.aligned_count,
            });
        }
        if data > logical {
            let bits = 8 * u64::from(a.element_type.byte_width());
            leaf.causes
                .push(Cause::Widening { bits, stored_bits: layout.element_size_in_bits as u64 });
        }
        if array > data {
            match best_layout(a, budget) {
                Ok(Some(best))
                    if best.array_bytes.saturating_mul(10) <= array.saturating_mul(9) =>
                {
                    leaf.best = Some(best)
                }
                Ok(_) => {}
                Err(why) => leaf.best_not_searched = Some(why),
            }
        }
        leaf
    }

    fn empty(index: Vec<usize>, kind: LeafKind) -> Leaf {
        Leaf {
            index,
            kind,
            memory_space: 0,
            sizes: Some(Sizes::default()),
            no_size: None,
            causes: Vec::new(),
            best: None,
            best_not_searched: None,
        }
    }
}

/// What a result shape costs: its leaves, and their sums.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeFacts {
    /// The leaves in tuple order (depth first).
    pub leaves: Vec<Leaf>,
    /// The sum over the leaves that have a size.
    pub total: Sizes,
    /// How many leaves have no size.
    pub unsized_leaves: usize,
    /// The memory spaces of the array leaves, ascending, each once.
    pub memory_spaces: Vec<i64>,
}

impl ShapeFacts {
    /// The facts of `shape`; `budget` bounds the search for better layouts.
    ///
    /// ```
    /// use xlayout::hlo::ShapeFacts;
    /// let s: xlayout::Shape = "(f32[10]{0:T(128)}, token[], s8[256]{0:T(128)S(1)})".parse()?;
    /// let f = ShapeFacts::new(&s, &mut 1000);
    /// assert_eq!((f.total.array_bytes, f.total.logical_bytes), (512 + 256, 40 + 256));
    /// assert_eq!(f.memory_spaces, [0, 1]);
    /// assert_eq!(f.leaves[0].causes[0].to_string(), "d0 10 -> 128 (x12.8)");
    /// # Ok::<(), xlayout::Error>(())
    /// ```
    pub fn new(shape: &Shape, budget: &mut u64) -> ShapeFacts {
        let mut leaves = Vec::new();
        collect(shape, &mut Vec::new(), &mut leaves, budget);
        let mut total = Sizes::default();
        let mut unsized_leaves = 0;
        let mut memory_spaces = Vec::new();
        for l in &leaves {
            match &l.sizes {
                Some(s) => total = total.plus(s),
                None => unsized_leaves += 1,
            }
            if l.kind == LeafKind::Array && !memory_spaces.contains(&l.memory_space) {
                memory_spaces.push(l.memory_space);
            }
        }
        memory_spaces.sort_unstable();
        ShapeFacts { leaves, total, unsized_leaves, memory_spaces }
    }
}

/// Tuples nest a few levels in practice; deeper ones are hostile input and stop here.
const MAX_TUPLE_DEPTH: usize = 64;

fn collect(shape: &Shape, index: &mut Vec<usize>, out: &mut Vec<Leaf>, budget: &mut u64) {
    match shape {
        Shape::Array(a) | Shape::Buffer(a) => out.push(Leaf::array(index.clone(), a, budget)),
        Shape::Token => out.push(Leaf::empty(index.clone(), LeafKind::Token)),
        Shape::Opaque => out.push(Leaf::empty(index.clone(), LeafKind::Opaque)),
        Shape::Tuple(elements) if index.len() < MAX_TUPLE_DEPTH => {
            for (i, e) in elements.iter().enumerate() {
                index.push(i);
                collect(e, index, out, budget);
                index.pop();
            }
        }
        Shape::Tuple(_) => {
            let mut leaf = Leaf::empty(index.clone(), LeafKind::Array);
            leaf.sizes = None;
            leaf.no_size =
                Some(format!("tuples nested deeper than {MAX_TUPLE_DEPTH} are not sized"));
            out.push(leaf);
        }
    }
}

/// Whether an instruction owns memory, and if not, why.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Ownership};
/// let m = Module::parse("%p = f32[4]{0} parameter(0)\n%b = f32[2,2]{1,0} bitcast(%p)\n");
/// let a = Analysis::new(&m);
/// assert_eq!((a.buffers[0].ownership, a.buffers[1].ownership), (Ownership::Owns, Ownership::Alias));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// Every leaf of the result is memory this instruction defines.
    Owns,
    /// Some leaves are its own, the others its operands' (`copy-start`, `send`,
    /// `all-gather-start`, `collective-permute-start`, `async-start`, `recv-done`).
    Partial,
    /// Inside a fused (or otherwise embedded) computation: computed in registers or on
    /// the caller's stack, never allocated (except the constants of embedded computations
    /// that are not fusions, which XLA allocates: those own).
    Embedded,
    /// Its result is other instructions' memory (`bitcast`, `get-tuple-element`, `tuple`,
    /// `while`, `conditional`, `call`, `*-done`, ...).
    Alias,
    /// A parameter of a called computation: the caller's operand.
    CallerOperand,
}

impl Ownership {
    /// Whether any of the result is this instruction's own memory.
    ///
    /// ```
    /// assert!(xlayout::hlo::Ownership::Partial.owns());
    /// ```
    pub fn owns(self) -> bool {
        matches!(self, Ownership::Owns | Ownership::Partial)
    }

    /// Its name in the reports (`owns`, `partial`, `embedded`, `alias`, `caller_operand`).
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Ownership::CallerOperand.name(), "caller_operand");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Ownership::Owns => "owns",
            Ownership::Partial => "partial",
            Ownership::Embedded => "embedded",
            Ownership::Alias => "alias",
            Ownership::CallerOperand => "caller_operand",
        }
    }
}

impl Serialize for Ownership {
    /// As [`Ownership::name`].
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Which leaves of its result an instruction defines (allocates), as
/// `HloDataflowAnalysis::InitializeInstructionValueSets` says (tuple index tables left
/// out: they are pointers to other buffers). `first` is the leaf's first tuple index
/// (`None` for a non-tuple result).
///
/// ```
/// use xlayout::hlo::defines_leaf;
/// assert!(defines_leaf("add", None));
/// assert!(!defines_leaf("bitcast", None));
/// // copy-start: {destination, aliased operand, context}
/// assert_eq!([0, 1, 2].map(|i| defines_leaf("copy-start", Some(i))), [true, false, true]);
/// ```
pub fn defines_leaf(opcode: &str, first: Option<usize>) -> bool {
    match opcode {
        "bitcast"
        | "add-dependency"
        | "while"
        | "call"
        | "conditional"
        | "get-tuple-element"
        | "domain"
        | "opt-barrier"
        | "optimization-barrier"
        | "tuple"
        | "copy-done"
        | "all-gather-done"
        | "all-reduce-done"
        | "collective-permute-done"
        | "async-update"
        | "async-done" => false,
        // A copy of a tuple copies only its index table.
        "copy" => first.is_none(),
        // {aliased operands, destination, contexts}: the destination comes from the
        // async computation's root, which is counted there.
        "async-start" => first.map_or(true, |i| i > 1),
        "copy-start" => first != Some(1),
        "all-gather-start" => first.map_or(true, |i| i == 1),
        "collective-permute-start" | "send" | "recv-done" => first != Some(0),
        _ => true,
    }
}

/// The facts of one instruction's result.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BufferFacts {
    /// Whether it owns memory.
    pub ownership: Ownership,
    /// The bytes of the leaves it owns (zero when it owns none).
    pub owned: Sizes,
}

/// A module's buffers: the facts of every distinct result shape and of every instruction.
///
/// ```
/// use xlayout::hlo::{Analysis, Module};
/// let text = "ENTRY %main {\n  %p = u32[12582912,1]{1,0:T(8,128)} parameter(0)\n  ROOT %t = (u32[12582912,1]{1,0:T(8,128)}) tuple(%p)\n}\n";
/// let m = Module::parse(text);
/// let a = Analysis::new(&m);
/// assert_eq!(a.buffers[0].owned.array_bytes, 6_442_450_944);
/// assert_eq!(a.buffers[0].owned.expansion().as_deref(), Some("128"));
/// assert_eq!(a.buffers[1].owned.array_bytes, 0); // the tuple points at %p
/// ```
#[derive(Clone, Debug)]
pub struct Analysis<'m, 't> {
    /// The module analysed.
    pub module: &'m Module<'t>,
    /// Facts per distinct shape, indexed by [`ShapeId`].
    pub shapes: Vec<ShapeFacts>,
    /// Facts per instruction, in the module's order.
    pub buffers: Vec<BufferFacts>,
}

impl<'m, 't> Analysis<'m, 't> {
    /// Sizes every distinct shape once, then every instruction.
    pub fn new(module: &'m Module<'t>) -> Self {
        let mut budget = MODULE_CANDIDATE_BUDGET;
        let shapes: Vec<ShapeFacts> =
            module.shapes.iter().map(|s| ShapeFacts::new(s, &mut budget)).collect();
        let buffers = module
            .instructions
            .iter()
            .map(|ins| {
                let facts = ins.shape.map(|id| &shapes[id.0 as usize]);
                let ownership = ownership(module, ins.computation, ins.opcode, facts);
                let owned = match facts {
                    Some(f) if ownership.owns() => owned_leaves(ins.opcode, f)
                        .filter_map(|l| l.sizes)
                        .fold(Sizes::default(), |t, s| t.plus(&s)),
                    _ => Sizes::default(),
                };
                BufferFacts { ownership, owned }
            })
            .collect();
        Analysis { module, shapes, buffers }
    }

    /// The facts of instruction `i`'s result shape, if it has a valid one.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module};
    /// let m = Module::parse("%p = f32[3]{0} parameter(0)\n");
    /// assert_eq!(Analysis::new(&m).facts(0).unwrap().total.array_bytes, 12);
    /// ```
    pub fn facts(&self, i: usize) -> Option<&ShapeFacts> {
        let id: ShapeId = self.module.instructions.get(i)?.shape?;
        self.shapes.get(id.0 as usize)
    }

    /// The leaves instruction `i` owns (none unless it owns memory).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module};
    /// let m = Module::parse("%c = (f32[8]{0}, f32[8]{0:S(1)}, u32[]) copy-start(%x)\n");
    /// let a = Analysis::new(&m);
    /// let owned: Vec<_> = a.owned_leaves(0).map(|l| l.index.clone()).collect();
    /// assert_eq!(owned, [vec![0], vec![2]]);
    /// ```
    pub fn owned_leaves(&self, i: usize) -> impl Iterator<Item = &Leaf> + '_ {
        let ins = &self.module.instructions[i];
        let owns = self.buffers[i].ownership.owns();
        self.facts(i).filter(|_| owns).into_iter().flat_map(move |f| owned_leaves(ins.opcode, f))
    }
}

fn owned_leaves<'f>(opcode: &'f str, f: &'f ShapeFacts) -> impl Iterator<Item = &'f Leaf> + 'f {
    f.leaves.iter().filter(move |l| defines_leaf(opcode, l.index.first().copied()))
}

/// Whether an instruction of `opcode` in computation `computation` with result `facts`
/// owns memory.
fn ownership(
    m: &Module<'_>,
    computation: Option<usize>,
    opcode: &str,
    facts: Option<&ShapeFacts>,
) -> Ownership {
    let context = computation.map(|c| m.computations[c].context);
    if context == Some(CallContext::Embedded) {
        // XLA allocates the constants of inlined computations other than fusions (a sort's
        // comparator, a reducer); the rest of their values live on the caller's stack.
        let fused = computation.is_some_and(|c| m.computations[c].is_fusion);
        if opcode != "constant" || fused {
            return Ownership::Embedded;
        }
    }
    if opcode == "parameter" && matches!(context, Some(CallContext::Sequential | CallContext::Both))
    {
        return Ownership::CallerOperand;
    }
    let (defined, leaves) = match facts {
        Some(f) => (owned_leaves(opcode, f).count(), f.leaves.len()),
        // No valid shape: decide as for an array result.
        None => (usize::from(defines_leaf(opcode, None)), 1),
    };
    match defined {
        0 => Ownership::Alias,
        n if n == leaves => Ownership::Owns,
        _ => Ownership::Partial,
    }
}
