//! The verifier: `ShapeUtil::ValidateShape` (`xla/shape_util.cc`) and
//! `LayoutUtil::ValidateLayoutForShape` (`xla/layout_util.cc`), check for check and in XLA's
//! order, so that the first error reported is the one XLA reports.
//!
//! Messages begin with XLA's own wording (so they can be looked up in XLA's sources) and go on
//! to say, in plain words, which part is wrong and why. Every error carries a [`Path`] to the
//! most specific part of the shape, which the parser turns into a byte range.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::{ArrayShape, Error, ErrorKind, Layout, Location, Path, Shape, TileDim};

impl Shape {
    /// `ShapeUtil::ValidateShape`: `Ok` exactly when XLA accepts the shape; otherwise the
    /// first error in XLA's order of checks.
    ///
    /// The order is XLA's: for each array (tuples in element order, depth first) the element
    /// type and the int64 size limit first, then the layout: minor_to_major length, range and
    /// uniqueness, `L`, `#`, `*`, the tiles (in order, entries left to right), `E`, and the
    /// split configs. A shape without a layout is valid as far as the layout goes.
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Location, Shape};
    ///
    /// // The parser accepts a zero tile entry and a negative `E`; the verifier does not,
    /// // and reports the tile first, as XLA does.
    /// let s = Shape::parse_unvalidated("f32[3,5]{1,0:T(0)E(-1)}")?;
    /// let err = s.validate().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidTileDimension);
    /// assert_eq!(err.path().unwrap().location, Location::TileDim { tile: 0, dim: 0 });
    /// assert!(err.message().starts_with("layout has invalid tiles"));
    ///
    /// assert!(Shape::parse_unvalidated("f32[3,5]{0,1:T(8,128)}")?.validate().is_ok());
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        let mut sink = Sink { errors: Vec::new(), all: false };
        validate_shape(self, &mut Vec::new(), &mut sink);
        match sink.errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every error the verifier can find, XLA's first one first (the one [`Shape::validate`]
    /// returns). Checks go on after an error wherever the later checks still mean something:
    /// every zero tile entry, every bad split config and every bad array of a tuple is
    /// reported. Empty exactly when the shape is valid.
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Location, Shape};
    ///
    /// let s = Shape::parse_unvalidated("f32[3,5]{1,0:T(0,2)(0)E(-1)}")?;
    /// let errors = s.validate_all();
    /// let kinds: Vec<_> = errors.iter().map(|e| e.kind()).collect();
    /// assert_eq!(
    ///     kinds,
    ///     [
    ///         ErrorKind::InvalidTileDimension, // tile 0, entry 0
    ///         ErrorKind::InvalidTileDimension, // tile 1, entry 0
    ///         ErrorKind::NegativeElementSize,
    ///     ]
    /// );
    /// assert_eq!(errors[1].path().unwrap().location, Location::TileDim { tile: 1, dim: 0 });
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn validate_all(&self) -> Vec<Error> {
        let mut sink = Sink { errors: Vec::new(), all: true };
        validate_shape(self, &mut Vec::new(), &mut sink);
        sink.errors
    }
}

/// Collects errors; in first-error mode it tells the checks to stop after the first one.
struct Sink {
    errors: Vec<Error>,
    all: bool,
}

impl Sink {
    /// Whether no further checks are wanted.
    fn done(&self) -> bool {
        !self.all && !self.errors.is_empty()
    }

    fn push(&mut self, indices: &[usize], location: Location, kind: ErrorKind, message: String) {
        let path = Path { tuple_indices: indices.to_vec(), location };
        self.errors.push(Error::new(kind, message).with_path(path));
    }
}

/// The verifier on one array, stopping at XLA's first error: what [`ArrayShape::check`]
/// runs.
pub(crate) fn validate_array_first(a: &ArrayShape) -> Result<(), Error> {
    let mut sink = Sink { errors: Vec::new(), all: false };
    validate_array(a, &[], &mut sink);
    match sink.errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn validate_shape(shape: &Shape, indices: &mut Vec<usize>, sink: &mut Sink) {
    match shape {
        Shape::Array(a) | Shape::Buffer(a) => validate_array(a, indices, sink),
        Shape::Tuple(elements) => {
            // A distinct element found valid is not checked again where it repeats: a tuple
            // of a million equal leaves is checked once. One found invalid is, so that each
            // of its places gets its errors, as before.
            let mut valid = alloc::vec![false; elements.distinct().len()];
            for (i, &id) in elements.ids().iter().enumerate() {
                if sink.done() {
                    return;
                }
                let id = id as usize;
                if valid[id] {
                    continue;
                }
                let before = sink.errors.len();
                indices.push(i);
                validate_shape(&elements.distinct()[id], indices, sink);
                indices.pop();
                valid[id] = sink.errors.len() == before;
            }
        }
        Shape::Token | Shape::Opaque => {}
    }
}

/// `ShapeUtil::HumanString`: the shape without its layout, as XLA puts it in messages.
/// Formatted only when a message is built, so a valid shape costs no allocation.
struct Human<'a>(&'a ArrayShape);

impl core::fmt::Display for Human<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}[", self.0.element_type)?;
        for (i, d) in self.0.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

fn human(a: &ArrayShape) -> Human<'_> {
    Human(a)
}

/// `{1, 1}`: a list as XLA's `absl::StrJoin(..., ", ")` inside braces prints it.
fn braced(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
    format!("{{{}}}", items.join(", "))
}

fn validate_array(a: &ArrayShape, at: &[usize], sink: &mut Sink) {
    // ValidateNonLayoutProperties: the element type, then the int64 size limit.
    if !a.element_type.is_array_type() {
        sink.push(
            at,
            Location::ElementType,
            ErrorKind::ElementType,
            format!(
                "shape has invalid element type: `{}` is not an array element type \
                 (only tuples, `token[]`, `opaque[]` and `b(...)` use it)",
                a.element_type
            ),
        );
        if sink.done() {
            return;
        }
    }
    check_size(a, at, sink);
    if sink.done() {
        return;
    }
    if let Some(layout) = &a.layout {
        validate_layout(&Subject::Array(a), layout, at, sink);
    }
}

/// `ValidateShapeSize`: the product of the bounded dimensions times the byte width of the
/// element type must fit in int64 (`E(n)` is not looked at; `?` dimensions are skipped).
fn check_size(a: &ArrayShape, at: &[usize], sink: &mut Sink) {
    let limit = i64::MAX as u64;
    let overflow = |sink: &mut Sink, location: Location, why: String| {
        sink.push(
            at,
            location,
            ErrorKind::ShapeTooLarge,
            format!("Shape {} size may overflow int64_t. ({why})", human(a)),
        );
    };
    let mut count: u64 = 1;
    for (i, dim) in a.dims.iter().enumerate() {
        let Some(n) = dim.bound() else { continue };
        // A size beyond int64 is not even an XLA dimension: too large whatever the others.
        match count.checked_mul(n).filter(|&c| c <= limit && n <= limit) {
            Some(c) => count = c,
            None => {
                let why = format!(
                    "the element count reaches beyond 2^63-1 at dimension {i}, of size {n}"
                );
                return overflow(sink, Location::Dim(i), why);
            }
        }
    }
    let width = u64::from(a.element_type.byte_width());
    if count.checked_mul(width).filter(|&b| b <= limit).is_none() {
        let why = format!("{count} elements of {width} bytes each are more than 2^63-1 bytes");
        overflow(sink, Location::Shape, why);
    }
}

/// `LayoutUtil::ValidateLayoutForShape`, checks 1 to 10 of the spec (§4.3) in order.
/// What a layout is checked against: an array (every rule), or a layout on its own (every
/// rule that does not need the dimensions' sizes, for a rank of minor_to_major's length).
enum Subject<'a> {
    Array(&'a ArrayShape),
    Alone { rank: usize },
}

impl core::fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Subject::Array(a) => Human(a).fmt(f),
            Subject::Alone { rank } => write!(f, "(a layout alone, rank {rank})"),
        }
    }
}

/// The verifier's layout checks on a layout without its array, XLA's first error first: a
/// rank of minor_to_major's length, and no split index bound (that needs the sizes).
pub(crate) fn validate_layout_alone(layout: &Layout) -> Result<(), Error> {
    let mut sink = Sink { errors: Vec::new(), all: false };
    let subject = Subject::Alone { rank: layout.minor_to_major.len() };
    validate_layout(&subject, layout, &[], &mut sink);
    match sink.errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn validate_layout(subject: &Subject<'_>, layout: &Layout, at: &[usize], sink: &mut Sink) {
    let rank = match subject {
        Subject::Array(a) => a.rank(),
        Subject::Alone { rank } => *rank,
    };
    let shape = subject;
    let m2m = &layout.minor_to_major;

    // 1. minor_to_major length = rank.
    if m2m.len() != rank {
        sink.push(
            at,
            Location::Layout,
            ErrorKind::LayoutRank,
            format!(
                "layout minor_to_major field contains {} elements, but shape is rank {}: {}; \
                 shape: {shape} (the layout must list each dimension once)",
                m2m.len(),
                rank,
                braced(m2m)
            ),
        );
        if sink.done() {
            return;
        }
    }

    // 2. every entry in [0, rank).
    let in_range = |v: i64| usize::try_from(v).is_ok_and(|v| v < rank);
    for (i, &v) in m2m.iter().enumerate() {
        if !in_range(v) {
            sink.push(
                at,
                Location::MinorToMajor(i),
                ErrorKind::MinorToMajorOutOfBounds,
                format!(
                    "layout minor_to_major field has out-of-bounds value: {}; shape: {shape} \
                     (entry {i} is {v}, but dimension numbers of a rank-{rank} shape run \
                     from 0 to {})",
                    braced(m2m),
                    rank as i64 - 1
                ),
            );
            if sink.done() {
                return;
            }
        }
    }

    // 3. no entry twice (among the entries that are in range). `seen` makes it linear in
    // the rank: a prefix search per entry is quadratic, and ranks in hostile text are large.
    let mut seen = vec![false; rank];
    let mut permutation = m2m.len() == rank;
    for (i, &v) in m2m.iter().enumerate() {
        if !in_range(v) {
            permutation = false;
            continue;
        }
        if core::mem::replace(&mut seen[v as usize], true) {
            permutation = false;
            sink.push(
                at,
                Location::MinorToMajor(i),
                ErrorKind::MinorToMajorDuplicate,
                format!(
                    "layout minor_to_major field has duplicate values: {}; shape: {shape} \
                     (dimension {v} appears twice; minor_to_major must name each dimension \
                     exactly once)",
                    braced(m2m)
                ),
            );
            if sink.done() {
                return;
            }
        }
    }

    // 4. L >= 1.
    let l = layout.tail_padding_alignment_in_elements;
    if l <= 0 {
        sink.push(
            at,
            Location::TailPadding,
            ErrorKind::TailPaddingAlignment,
            format!(
                "layout tail_padding_alignment_in_elements field is <= 0: {l}; shape: {shape} \
                 (`L(n)` needs n >= 1)"
            ),
        );
        if sink.done() {
            return;
        }
    }

    // 5, 6. No sparse-array type fields on a dense array.
    if let Some(t) = layout.index_primitive_type {
        sink.push(
            at,
            Location::IndexType,
            ErrorKind::IndexPrimitiveType,
            format!(
                "layout has a index_primitive_type, but is not a sparse array: {shape} \
                 (`#({t})` is a legacy sparse-array field)"
            ),
        );
        if sink.done() {
            return;
        }
    }
    if let Some(t) = layout.pointer_primitive_type {
        sink.push(
            at,
            Location::PointerType,
            ErrorKind::PointerPrimitiveType,
            format!(
                "layout has a pointer_primitive_type, but is not a sparse array: {shape} \
                 (`*({t})` is a legacy sparse-array field)"
            ),
        );
        if sink.done() {
            return;
        }
    }

    // 7. (physical shape: the model has no such field.)

    // 8. Tiles: each non-empty, each entry positive or `*`; in order, left to right.
    for (t, tile) in layout.tiles.iter().enumerate() {
        if tile.dims.is_empty() {
            sink.push(
                at,
                Location::Tile(t),
                ErrorKind::EmptyTile,
                format!(
                    "layout has invalid tiles: {shape} (tile {t} is empty `()`; a tile has \
                     at least one entry)"
                ),
            );
            if sink.done() {
                return;
            }
            continue;
        }
        for (d, entry) in tile.dims.iter().enumerate() {
            let value = match *entry {
                TileDim::Combine => continue,
                TileDim::Size(n) if n > 0 && n <= i64::MAX as u64 => continue,
                TileDim::Size(n) => n,
            };
            let why = if value == 0 {
                String::from("a tile entry is a positive size or `*`")
            } else {
                String::from("it does not fit in int64")
            };
            sink.push(
                at,
                Location::TileDim { tile: t, dim: d },
                ErrorKind::InvalidTileDimension,
                format!(
                    "layout has invalid tiles: tile dimension {value} must be positive or \
                     kCombineDimension: {shape} (entry {d} of tile {t} is {value}; {why})"
                ),
            );
            if sink.done() {
                return;
            }
        }
    }

    // 9. E >= 0.
    let e = layout.element_size_in_bits;
    if e < 0 {
        sink.push(
            at,
            Location::ElementSize,
            ErrorKind::NegativeElementSize,
            format!(
                "layout element_size_in_bits field is negative: {e}; shape: {shape} \
                 (`E(n)` needs n >= 0; 0 means the type's own width)"
            ),
        );
        if sink.done() {
            return;
        }
    }

    // 10. Split configs, each on a physical dimension (0 = most major).
    let mut split_seen = vec![false; rank];
    for (s, config) in layout.split_configs.iter().enumerate() {
        let dim = config.dimension;
        let physical = usize::try_from(dim).ok().filter(|&d| d < rank);
        let Some(physical) = physical else {
            sink.push(
                at,
                Location::SplitDim(s),
                ErrorKind::SplitConfigDimension,
                format!(
                    "split config has out-of-bounds physical dimension: {dim}; shape: {shape} \
                     (physical dimensions of a rank-{rank} shape run from 0, the most major, \
                     to {})",
                    rank as i64 - 1
                ),
            );
            if sink.done() {
                return;
            }
            continue;
        };
        if core::mem::replace(&mut split_seen[physical], true) {
            sink.push(
                at,
                Location::SplitDim(s),
                ErrorKind::SplitConfigDuplicate,
                format!(
                    "split config has duplicate physical dimension: {dim}; shape: {shape} \
                     (split config {s} names a dimension an earlier one already splits)"
                ),
            );
            if sink.done() {
                return;
            }
            continue;
        }
        let indices = &config.split_indices;
        let mut previous = 0;
        let bad = indices.iter().position(|&i| {
            let ok = i > previous;
            previous = i;
            !ok
        });
        if let Some(k) = bad {
            sink.push(
                at,
                Location::SplitIndex { split: s, index: k },
                ErrorKind::SplitConfigIndices,
                format!(
                    "split config split indices must be strictly increasing and positive: {}; \
                     shape: {shape} (index {k} of split config {s} is {}{})",
                    braced(indices),
                    indices[k],
                    if k == 0 { String::new() } else { format!(", after {}", indices[k - 1]) }
                ),
            );
            if sink.done() {
                return;
            }
            continue;
        }
        // The size of the physical dimension; only meaningful when minor_to_major is a
        // permutation (otherwise an earlier check has failed already).
        if !permutation {
            continue;
        }
        let logical = m2m[rank - 1 - physical] as usize;
        // An unbounded `?` dimension has XLA's size -2^63, below every split index.
        let Subject::Array(a) = subject else {
            continue; // a layout alone has no sizes to bound its split indices
        };
        let size = a.dims[logical].bound();
        let fits = |i: i64| size.is_some_and(|size| (i as u64) < size);
        if let Some(k) = indices.iter().position(|&i| !fits(i)) {
            let (xla_size, plain) = match size {
                Some(n) => (format!("{n}"), format!("of size {n}")),
                None => {
                    (format!("{}", i64::MIN), String::from("unbounded `?`, which cannot be split"))
                }
            };
            sink.push(
                at,
                Location::SplitIndex { split: s, index: k },
                ErrorKind::SplitConfigIndexOutOfBounds,
                format!(
                    "split config split index is out of bounds: {} (dim size {xla_size}); \
                     shape: {shape} (physical dimension {dim} is logical dimension {logical}, \
                     {plain}; split indices must be below its size)",
                    indices[k]
                ),
            );
            if sink.done() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests;
