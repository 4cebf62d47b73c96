//! Whether a reshape or a transpose keeps every element where it is: the tile-aware
//! predicates, with the reason when it does not.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use super::build::form_of;
use super::form::{truncate, Item};
use super::xla::reorder_logical_dimensions;
use crate::limits::MAX_COMPARED_ELEMENTS;
use crate::{ArrayShape, Error, ErrorKind, Plan, PrimitiveType};

/// The first element a reshape or transpose moves: the first in row-major order of the
/// result whose offset differs between the two layouts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Moved {
    /// Its row-major position in the result (the same position in the operand for a
    /// reshape).
    pub position: u64,
    /// Its index in the operand.
    pub from_index: Vec<u64>,
    /// Its index in the result.
    pub to_index: Vec<u64>,
    /// Its element offset in the operand's buffer.
    pub from_offset: u64,
    /// Its element offset in the result's buffer.
    pub to_offset: u64,
}

/// Whether a reshape or transpose is a bitcast and, when not, why: the first thing that
/// differs, in the order the checks run.
///
/// ```
/// use layout_runtime::algebra::{check_reshape, Reason};
/// let a = "f32[4,128]{1,0:T(8,128)}".parse()?;
/// let r = check_reshape(&a, &"f32[4,1,128]{2,1,0:T(8,128)}".parse()?, false)?;
/// let Reason::Moves(m) = &r else { panic!("{r}") };
/// assert_eq!((m.from_index.as_slice(), m.to_index.as_slice()), (&[1, 0][..], &[1, 0, 0][..]));
/// assert_eq!((m.from_offset, m.to_offset), (128, 1024)); // row 1 starts the second tile
/// assert!(check_reshape(&a, &"f32[1,4,128]{2,1,0:T(8,128)}".parse()?, false)?.is_bitcast());
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// Every element keeps its offset and both buffers have the same size.
    Bitcast,
    /// The element types differ, or their storage widths do (`E(n)`).
    ElementType {
        /// The operand's element type and bits per element.
        from: (PrimitiveType, u64),
        /// The result's.
        to: (PrimitiveType, u64),
    },
    /// The two shapes hold different numbers of elements.
    ElementCount {
        /// The operand's element count.
        from: u64,
        /// The result's.
        to: u64,
    },
    /// An element moves (the first one that does).
    Moves(Moved),
    /// Every element keeps its offset but the buffers differ in size: padding at the end
    /// (XLA's verifier rejects a bitcast whose byte sizes differ).
    PaddedSize {
        /// Elements of the operand's buffer, padding included.
        from: u64,
        /// Elements of the result's buffer.
        to: u64,
    },
}

impl Reason {
    /// Whether this is [`Reason::Bitcast`].
    ///
    /// ```
    /// assert!(layout_runtime::algebra::Reason::Bitcast.is_bitcast());
    /// ```
    pub fn is_bitcast(&self) -> bool {
        matches!(self, Reason::Bitcast)
    }
}

fn index_text(index: &[u64]) -> alloc::string::String {
    let parts: Vec<alloc::string::String> = index.iter().map(|i| format!("{i}")).collect();
    format!("({})", parts.join(","))
}

impl fmt::Display for Reason {
    /// One sentence for a person.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Bitcast => f.write_str("every element stays where it is"),
            Reason::ElementType { from, to } => write!(
                f,
                "the element types differ: {} ({} bits) and {} ({} bits)",
                from.0, from.1, to.0, to.1
            ),
            Reason::ElementCount { from, to } => {
                write!(f, "the shapes hold different numbers of elements: {from} and {to}")
            }
            Reason::Moves(m) => write!(
                f,
                "element {} of the operand is at offset {}; as element {} of the result (its \
                 row-major position {}) it is at offset {}",
                index_text(&m.from_index),
                m.from_offset,
                index_text(&m.to_index),
                m.position,
                m.to_offset
            ),
            Reason::PaddedSize { from, to } => write!(
                f,
                "every element keeps its offset, but the buffers differ in size: {from} and {to} \
                 elements with padding"
            ),
        }
    }
}

/// One side of a comparison: its plan, its form (`None` when a `*` leaves it without one)
/// and what it allocates.
pub(crate) struct Side {
    pub plan: Plan,
    pub form: Option<Vec<Item>>,
    pub element_type: PrimitiveType,
    pub bits: u64,
    pub count: u64,
    /// Elements of the buffer: the grid (every tile level, `*` as documented) rounded up to
    /// `L(n)` when the layout is tiled; the element count when it is not (XLA's `ArraySize`
    /// ignores `L` without tiles).
    pub allocated: u64,
}

impl Side {
    pub fn new(shape: &ArrayShape) -> Result<Side, Error> {
        let checked = shape.check()?;
        let plan = Plan::untabulated(&checked)?;
        let count = checked.element_count()?;
        let allocated = if checked.tiles().is_empty() { count } else { plan.padded_len() as u64 };
        let form = if count == 0 { Some(Vec::new()) } else { form_of(plan.space()) };
        Ok(Side {
            element_type: shape.element_type,
            bits: checked.element_bits(),
            count,
            allocated,
            form,
            plan,
        })
    }
}

/// The row-major index of position `k` in `dims`.
pub(crate) fn unravel(dims: &[usize], mut k: usize) -> Vec<u64> {
    let mut index = alloc::vec![0u64; dims.len()];
    for (i, &d) in dims.iter().enumerate().rev() {
        if d > 0 {
            index[i] = (k % d) as u64;
            k /= d;
        }
    }
    index
}

/// Whether the two sides are a bitcast, without finding the first element that moves: the
/// checks of [`compare`], a comparison of forms for the maps.
pub(crate) fn same(a: &Side, b: &Side, ignore_element_type: bool) -> Result<bool, Error> {
    if !ignore_element_type && (a.element_type, a.bits) != (b.element_type, b.bits) {
        return Ok(false);
    }
    if a.count != b.count || a.allocated != b.allocated {
        return Ok(false);
    }
    match (&a.form, &b.form) {
        (Some(fa), Some(fb)) => Ok(fa == fb),
        _ => Ok(first_moved(a, b)?.is_none()),
    }
}

/// The first row-major position whose offsets differ, if any.
fn first_moved(a: &Side, b: &Side) -> Result<Option<usize>, Error> {
    let n = usize::try_from(a.count).map_err(|_| too_large(a.count))?;
    if let (Some(fa), Some(fb)) = (&a.form, &b.form) {
        if fa == fb {
            return Ok(None);
        }
        // The forms of the first `len` elements agree for len = 1 (offset 0 on both sides)
        // and not for `n`: bisect for the shortest prefix that differs; its last element
        // is the first that moves.
        let (mut same, mut differ) = (1usize, n);
        while differ - same > 1 {
            let mid = same + (differ - same) / 2;
            if truncate(mid, fa.clone()) == truncate(mid, fb.clone()) {
                same = mid;
            } else {
                differ = mid;
            }
        }
        return Ok(Some(differ - 1));
    }
    if n > MAX_COMPARED_ELEMENTS {
        return Err(too_large(a.count));
    }
    Ok(a.plan.row_major_offsets().zip(b.plan.row_major_offsets()).position(|(x, y)| x != y))
}

fn too_large(count: u64) -> Error {
    Error::new(
        ErrorKind::WorkLimit,
        format!(
            "a `*` merges dimensions in transposed order, so the two layouts can only be \
             compared element by element, and {count} elements are more than this crate's \
             limit of {MAX_COMPARED_ELEMENTS}"
        ),
    )
}

/// How the result's elements relate to the operand's.
#[derive(Clone, Copy)]
pub(crate) enum Relation<'d> {
    /// The same row-major position.
    Reshape,
    /// The operand was reordered into the result's dimension order with these dimensions.
    Transpose(&'d [usize]),
}

/// Compares the operand side `a` with the result side `b`.
pub(crate) fn compare(
    a: &Side,
    b: &Side,
    ignore_element_type: bool,
    relation: Relation<'_>,
) -> Result<Reason, Error> {
    if !ignore_element_type && (a.element_type, a.bits) != (b.element_type, b.bits) {
        return Ok(Reason::ElementType {
            from: (a.element_type, a.bits),
            to: (b.element_type, b.bits),
        });
    }
    if a.count != b.count {
        return Ok(Reason::ElementCount { from: a.count, to: b.count });
    }
    if let Some(k) = first_moved(a, b)? {
        let to_index = unravel(b.plan.dims(), k);
        // `a_index` indexes `a`'s plan: the operand's own index for a reshape, the result's
        // for a transpose (whose `a` is the operand reordered like the result).
        let (a_index, from_index) = match relation {
            Relation::Reshape => {
                let i = unravel(a.plan.dims(), k);
                (i.clone(), i)
            }
            Relation::Transpose(dimensions) => {
                let mut from_index = alloc::vec![0u64; to_index.len()];
                for (&d, &i) in dimensions.iter().zip(&to_index) {
                    from_index[d] = i;
                }
                (to_index.clone(), from_index)
            }
        };
        let offset = |plan: &Plan, index: &[u64]| -> Result<u64, Error> {
            let index: Vec<usize> = index.iter().map(|&i| i as usize).collect();
            Ok(plan.offset(&index)? as u64)
        };
        return Ok(Reason::Moves(Moved {
            position: k as u64,
            from_offset: offset(&a.plan, &a_index)?,
            to_offset: offset(&b.plan, &to_index)?,
            from_index,
            to_index,
        }));
    }
    if a.allocated != b.allocated {
        return Ok(Reason::PaddedSize { from: a.allocated, to: b.allocated });
    }
    Ok(Reason::Bitcast)
}

/// Whether a reshape from `from` to `to` keeps every element where it is: each element,
/// counted in row-major logical order, at the same offset in both layouts, both buffers the
/// same size, the same element type and storage width (unless `ignore_element_type`).
/// Tiles count: this is the physical truth XLA's TPU backend decides with a closed callback.
/// For untiled layouts it is XLA's `ShapeUtil::ReshapeIsBitcast` (which [`xla`](super::xla)
/// has as XLA wrote it), except that different `E(n)` widths count as different types.
///
/// Computed from dimensions, orders and tiles (a canonical form of each index map), not by
/// visiting elements; only a layout whose `*` merges dimensions in transposed order is
/// compared element by element, up to [`MAX_COMPARED_ELEMENTS`].
///
/// Errors: a shape the verifier rejects, an unbounded `?` dimension, sizes beyond `usize`,
/// [`ErrorKind::WorkLimit`].
///
/// ```
/// use layout_runtime::algebra::check_reshape;
/// let b = "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}".parse()?;
/// let r = check_reshape(&"bf16[16,128]{1,0:T(8,128)(2,1)}".parse()?, &b, false)?;
/// assert!(r.is_bitcast(), "{r}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn check_reshape(
    from: &ArrayShape,
    to: &ArrayShape,
    ignore_element_type: bool,
) -> Result<Reason, Error> {
    let (a, b) = (Side::new(from)?, Side::new(to)?);
    compare(&a, &b, ignore_element_type, Relation::Reshape)
}

/// [`check_reshape`], as a boolean.
///
/// ```
/// use layout_runtime::algebra::reshape_is_bitcast;
/// let a = "f32[3,4]{1,0}".parse()?;
/// assert!(reshape_is_bitcast(&a, &"f32[6,2]{1,0}".parse()?, false)?);
/// assert!(!reshape_is_bitcast(&a, &"f32[6,2]{0,1}".parse()?, false)?);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn reshape_is_bitcast(
    from: &ArrayShape,
    to: &ArrayShape,
    ignore_element_type: bool,
) -> Result<bool, Error> {
    Ok(check_reshape(from, to, ignore_element_type)?.is_bitcast())
}

/// The operand with its dimensions in the result's order (`dims[i] = from.dims[dimensions[i]]`),
/// the physical order kept: a transpose is a bitcast exactly when this and the result have the
/// same index map. An error when `dimensions` is no permutation giving `to`'s dimensions.
pub(crate) fn transposed_operand(
    from: &ArrayShape,
    to: &ArrayShape,
    dimensions: &[usize],
) -> Result<ArrayShape, Error> {
    let reordered = reorder_logical_dimensions(from, dimensions)?;
    if reordered.dims != to.dims {
        return Err(Error::new(
            ErrorKind::ShapeMismatch,
            format!(
                "a transpose with dimensions {dimensions:?} of `{from}` has dimensions {:?}, not \
                 those of `{to}`",
                reordered.dims.iter().map(|d| format!("{d}")).collect::<Vec<_>>()
            ),
        ));
    }
    Ok(reordered)
}

/// Whether a transpose with XLA's `dimensions` (result dimension `i` is operand dimension
/// `dimensions[i]`) keeps every element where it is, with the reason when not; the
/// conditions of [`check_reshape`]. For untiled layouts this is XLA's `TransposeIsBitcast`
/// whenever no dimension of size 1 moves; when one does, XLA's layout-only rule says "no"
/// where the memory is in fact the same (and XLA's own `ReshapeIsBitcast`, which
/// `IsReshapeOrTransposeBitcast` asks first, says "yes", as this does).
///
/// Errors: those of [`check_reshape`], and [`ErrorKind::ShapeMismatch`] when `dimensions` is
/// no permutation taking `from`'s dimensions to `to`'s.
///
/// ```
/// use layout_runtime::algebra::check_transpose;
/// let a = "f32[10,5]{1,0:T(8,128)}".parse()?;
/// assert!(check_transpose(&a, &"f32[5,10]{0,1:T(8,128)}".parse()?, &[1, 0], false)?.is_bitcast());
/// assert!(!check_transpose(&a, &"f32[5,10]{1,0:T(8,128)}".parse()?, &[1, 0], false)?.is_bitcast());
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn check_transpose(
    from: &ArrayShape,
    to: &ArrayShape,
    dimensions: &[usize],
    ignore_element_type: bool,
) -> Result<Reason, Error> {
    let reordered = transposed_operand(from, to, dimensions)?;
    let (a, b) = (Side::new(&reordered)?, Side::new(to)?);
    compare(&a, &b, ignore_element_type, Relation::Transpose(dimensions))
}

/// [`check_transpose`], as a boolean.
///
/// ```
/// use layout_runtime::algebra::transpose_is_bitcast;
/// let (a, b) = ("f32[1,5]{1,0}".parse()?, "f32[5,1]{1,0}".parse()?);
/// assert!(transpose_is_bitcast(&a, &b, &[1, 0], false)?); // XLA's rule says no: a size-1 dimension moved
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn transpose_is_bitcast(
    from: &ArrayShape,
    to: &ArrayShape,
    dimensions: &[usize],
    ignore_element_type: bool,
) -> Result<bool, Error> {
    let reordered = transposed_operand(from, to, dimensions)?;
    same(&Side::new(&reordered)?, &Side::new(to)?, ignore_element_type)
}
