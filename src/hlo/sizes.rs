//! Result shapes -> bytes: for every leaf, the memory it takes (XLA's `ShapeUtil::ArraySize`),
//! the data in it, the padding and why, and the layout that would pad least.
//!
//! Every size comes from layout-runtime's checked array: [`CheckedArray::byte_size`](crate::CheckedArray::byte_size)
//! (ArraySize), [`CheckedArray::byte_size_of`](crate::CheckedArray::byte_size_of) (ByteSizeOf) and
//! [`CheckedArray::array_size_walk`](crate::CheckedArray::array_size_walk) (which dimension ArraySize rounds, and to what).

use std::fmt;

use serde::{Serialize, Serializer};

use crate::memory::best::{best_layout, BestLayout};
use crate::memory::ratio::Ratio;
use crate::memory::units::ratio;
use crate::{ArrayShape, Shape};

/// Bytes of one result or of a sum of results.
///
/// `padding_bytes() = array_bytes - logical_bytes`, split into `tiling_padding_bytes`
/// (elements the tiling adds, at their stored width) and `widening_bytes` (the bits `E(n)`
/// stores beyond the element type's natural width, on the real elements).
///
/// ```
/// use xlayout::hlo::Sizes;
/// let s = Sizes { array_bytes: 96, logical_bytes: 60, tiling_padding_bytes: 36, widening_bytes: 0 };
/// assert_eq!((s.padding_bytes(), s.expansion().unwrap().to_string()), (36, String::from("1.60")));
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

    /// `array_bytes / logical_bytes` (printed to three significant figures); `None` without
    /// data.
    ///
    /// ```
    /// use xlayout::hlo::Sizes;
    /// let s = Sizes { array_bytes: 512, logical_bytes: 4, ..Sizes::default() };
    /// assert_eq!(s.expansion().unwrap().to_string(), "128");
    /// ```
    pub fn expansion(&self) -> Option<Ratio> {
        Ratio::new(self.array_bytes, self.logical_bytes)
    }

    /// The sum, saturating (a total beyond 2⁶⁴ bytes stays at the maximum).
    ///
    /// ```
    /// use xlayout::hlo::Sizes;
    /// let a = Sizes { array_bytes: 2, logical_bytes: 1, tiling_padding_bytes: 1, widening_bytes: 0 };
    /// assert_eq!(a.plus(&a).array_bytes, 4);
    /// ```
    pub fn plus(&self, o: &Sizes) -> Sizes {
        self.plus_saturating(o).0
    }

    /// The sum, saturating, and whether it is saturated: a field is 2⁶⁴ − 1, reached by
    /// this sum or by a part that was saturated itself (a tuple whose leaves add up past 64
    /// bits reads as 2⁶⁴ − 1; no allocation counts that many bytes exactly). The sum is then
    /// at least what it says: what a total that says so is built from.
    ///
    /// ```
    /// use xlayout::hlo::Sizes;
    /// let half = Sizes { array_bytes: 1 << 63, ..Sizes::default() };
    /// assert_eq!(half.plus_saturating(&Sizes::default()), (half, false));
    /// let (sum, saturated) = half.plus_saturating(&half);
    /// assert_eq!((sum.array_bytes, saturated), (u64::MAX, true));
    /// assert!(Sizes::default().plus_saturating(&sum).1);
    /// ```
    pub fn plus_saturating(&self, o: &Sizes) -> (Sizes, bool) {
        let mut saturated = false;
        let mut add = |a: u64, b: u64| {
            let sum = a.saturating_add(b);
            saturated |= sum == u64::MAX;
            sum
        };
        let sum = Sizes {
            array_bytes: add(self.array_bytes, o.array_bytes),
            logical_bytes: add(self.logical_bytes, o.logical_bytes),
            tiling_padding_bytes: add(self.tiling_padding_bytes, o.tiling_padding_bytes),
            widening_bytes: add(self.widening_bytes, o.widening_bytes),
        };
        (sum, saturated)
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
        st.serialize_field("expansion", &self.expansion())?;
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
    /// A layout that would pad at least 10% less (boxed: most leaves have none, and a
    /// leaf is 48 bytes smaller for it, out of 208).
    pub best: Option<Box<BestLayout>>,
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
                    leaf.best = Some(Box::new(best))
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
        // Most shapes have one leaf: no room for more (a leaf is some 200 bytes).
        leaves.shrink_to_fit();
        let mut total = Sizes::default();
        let mut unsized_leaves = 0;
        let mut memory_spaces = Vec::new();
        for l in &leaves {
            match &l.sizes {
                Some(s) => total = total.plus(s),
                None => unsized_leaves += 1,
            }
            if l.kind == LeafKind::Array {
                memory_spaces.push(l.memory_space);
            }
        }
        // Sorted, then each once: a tuple may put every leaf in a space of its own.
        memory_spaces.sort_unstable_by_key(|&s| super::work::Counted(s));
        memory_spaces.dedup();
        ShapeFacts { leaves, total, unsized_leaves, memory_spaces }
    }
}

/// Tuples nest a few levels in practice; the shape parser stops deeper ones already (this
/// guards shapes built in code).
const MAX_TUPLE_DEPTH: usize = crate::limits::MAX_NESTING;

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

#[cfg(test)]
mod tests {
    /// A tuple's every leaf is one of these (a hostile dump holds a million in one shape).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_leaf_is_small() {
        assert_eq!(std::mem::size_of::<super::Leaf>(), 160);
    }
}
