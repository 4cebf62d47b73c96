//! XLA's own layout-pair functions, ported as they are (`xla/shape_util.cc`): what XLA's
//! open-source code answers. They look at minor_to_major and dimension sizes only — **tiles
//! are ignored** (XLA linearises with `IndexUtil::MultidimensionalIndexToLinearIndex`, which
//! knows no tiles; the tile-aware answer is a closed platform callback). For the physical
//! truth with tiles, use [`reshape_is_bitcast`](crate::algebra::reshape_is_bitcast) and its
//! siblings, which equal these on untiled layouts.
//!
//! Where XLA `CHECK`s (and aborts on) its input, these return an error or `None`.
//!
//! ```
//! use layout_runtime::algebra::{self, xla};
//! use layout_runtime::ArrayShape;
//! let a: ArrayShape = "f32[4,128]{1,0:T(8,128)}".parse()?;
//! let b: ArrayShape = "f32[4,1,128]{2,1,0:T(8,128)}".parse()?;
//! assert!(xla::reshape_is_bitcast(&a, &b, false)?); // XLA's open function ignores the tiles
//! assert!(!algebra::reshape_is_bitcast(&a, &b, false)?); // with them, 4 rows become 4 tiles
//! # Ok::<(), layout_runtime::Error>(())
//! ```

mod dims;

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

pub use dims::{
    append_minor_dimension, delete_dimensions, dimensions_unmodified_by_reshape,
    drop_degenerate_dimensions, has_degenerate_dimensions, insert_dimensions_at_index,
    inserted_or_deleted_1_sized_dimensions, is_effectively_most_major_dimension,
    make_shape_with_descending_layout_and_same_physical_layout, move_dim_to_major,
    move_shape_dim_to_major, permute_dimensions, permute_dimensions_ignoring_layout,
    prepend_major_dimension, reorder_logical_dimensions, reshape_leaves_dimensions_unmodified,
    InsertedOrDeleted,
};

use super::permutation::{
    common_factors, compose_permutations, inverse_permutation, is_permutation, permute,
};
use crate::{ArrayShape, Error, ErrorKind, Layout};

/// minor_to_major as a permutation of `0..rank` (the default layout when there is none);
/// an error when it is not one.
pub(crate) fn layout_perm(shape: &ArrayShape) -> Result<Vec<usize>, Error> {
    let layout = shape.layout_or_default();
    let rank = shape.rank();
    let m2m: Vec<usize> =
        layout.minor_to_major.iter().map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
    if m2m.len() != rank || !is_permutation(&m2m) {
        return Err(Error::new(
            ErrorKind::MinorToMajorDuplicate,
            format!("minor_to_major {layout} of `{shape}` is not a permutation of its {rank} dimensions"),
        ));
    }
    Ok(m2m)
}

pub(crate) fn out_of_range(what: &str, value: usize, limit: usize) -> Error {
    Error::new(ErrorKind::IndexOutOfBounds, format!("{what} {value} is not below {limit}"))
}

/// The storage sizes of the dimensions (bounds for `<=N`); an error for `?`.
fn bounds(shape: &ArrayShape) -> Result<Vec<u64>, Error> {
    shape.dims.iter().map(|d| d.bound()).collect::<Option<Vec<u64>>>().ok_or_else(|| {
        Error::new(ErrorKind::NotStaticArray, format!("`{shape}` has an unbounded `?` dimension"))
    })
}

/// `IndexUtil::MultidimensionalIndexToLinearIndex`: the position of `index` in memory order
/// by minor_to_major alone (tiles ignored), in u128 so that no valid shape overflows.
fn untiled_linear(dims: &[u64], m2m: &[usize], index: &[u64]) -> u128 {
    let (mut linear, mut scale) = (0u128, 1u128);
    for &d in m2m {
        linear += u128::from(index[d]) * scale;
        scale = scale.saturating_mul(u128::from(dims[d]));
    }
    linear
}

/// The row-major index of position `k` of a shape with these dimensions.
fn unravel(dims: &[u64], mut k: u128) -> Vec<u64> {
    let mut index = vec![0u64; dims.len()];
    for (i, &d) in dims.iter().enumerate().rev() {
        if d > 0 {
            index[i] = (k % u128::from(d)) as u64;
            k /= u128::from(d);
        }
    }
    index
}

/// `ShapeUtil::ReshapeIsBitcast`: whether a reshape from `input` to `output` is a bitcast
/// by XLA's open definition (same element type unless ignored, same element count, and every
/// *unit index* — one coordinate 1, the others 0 — of either side at the same untiled linear
/// position on the other; XLA's source proves this enough for untiled layouts).
///
/// ```
/// use layout_runtime::algebra::xla::reshape_is_bitcast;
/// let (a, b) = ("f32[3,2,2]{1,0,2}".parse()?, "f32[6,2]{0,1}".parse()?);
/// assert!(reshape_is_bitcast(&a, &b, false)?);
/// let c = "f16[6,2]{0,1}".parse()?;
/// assert!(!reshape_is_bitcast(&a, &c, false)? && reshape_is_bitcast(&a, &c, true)?);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn reshape_is_bitcast(
    input: &ArrayShape,
    output: &ArrayShape,
    ignore_element_type: bool,
) -> Result<bool, Error> {
    if !ignore_element_type && input.element_type != output.element_type {
        return Ok(false);
    }
    let (in_dims, out_dims) = (bounds(input)?, bounds(output)?);
    let (in_m2m, out_m2m) = (layout_perm(input)?, layout_perm(output)?);
    let count = |d: &[u64]| d.iter().try_fold(1u128, |acc, &x| acc.checked_mul(u128::from(x)));
    let n = count(&in_dims);
    if n.is_none() || n != count(&out_dims) {
        return Ok(false);
    }
    if n == Some(0) {
        return Ok(true);
    }
    let units_agree = |a_dims: &[u64], a_m2m: &[usize], b_dims: &[u64], b_m2m: &[usize]| {
        (0..a_dims.len()).filter(|&d| a_dims[d] > 1).all(|d| {
            let mut unit = vec![0u64; a_dims.len()];
            unit[d] = 1;
            let k = a_dims[d + 1..].iter().map(|&x| u128::from(x)).product::<u128>();
            untiled_linear(a_dims, a_m2m, &unit)
                == untiled_linear(b_dims, b_m2m, &unravel(b_dims, k))
        })
    };
    Ok(units_agree(&in_dims, &in_m2m, &out_dims, &out_m2m)
        && units_agree(&out_dims, &out_m2m, &in_dims, &in_m2m))
}

/// `ShapeUtil::TransposeIsBitcast`: whether a transpose with `dimension_mapping` (output
/// dimension `i` is input dimension `dimension_mapping[i]`) is a bitcast by XLA's rule:
/// `ComposePermutations(dimension_mapping, output minor_to_major) == input minor_to_major`.
/// Dimension sizes play no part (so moving a size-1 dimension counts as not a bitcast).
///
/// ```
/// use layout_runtime::algebra::xla::transpose_is_bitcast;
/// let (a, b) = ("f32[10,5]{1,0}".parse()?, "f16[5,10]{0,1}".parse()?);
/// assert!(transpose_is_bitcast(&a, &b, &[1, 0], true)?);
/// assert!(!transpose_is_bitcast(&a, &b, &[1, 0], false)?);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn transpose_is_bitcast(
    input: &ArrayShape,
    output: &ArrayShape,
    dimension_mapping: &[usize],
    ignore_element_type: bool,
) -> Result<bool, Error> {
    if !ignore_element_type && input.element_type != output.element_type {
        return Ok(false);
    }
    let (in_m2m, out_m2m) = (layout_perm(input)?, layout_perm(output)?);
    let composed = compose_permutations(dimension_mapping, &out_m2m).ok_or_else(|| {
        Error::new(
            ErrorKind::ShapeMismatch,
            format!(
                "transpose dimensions {dimension_mapping:?} are not a permutation of the {} \
                 dimensions of `{output}`",
                output.rank()
            ),
        )
    })?;
    Ok(composed == in_m2m)
}

/// `ShapeUtil::DeduceTransposeDimensionsForBitcast`: the transpose dimensions under which
/// `input` → `output` is a transpose that is a bitcast (same physical order), if the
/// dimensions permuted that way are the output's.
///
/// ```
/// use layout_runtime::algebra::xla::deduce_transpose_dimensions_for_bitcast as deduce;
/// let a = "f32[5,3]{1,0}".parse()?;
/// assert_eq!(deduce(&a, &"f32[3,5]{0,1}".parse()?)?, Some(vec![1, 0]));
/// assert_eq!(deduce(&a, &"f32[3,5]{1,0}".parse()?)?, None);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn deduce_transpose_dimensions_for_bitcast(
    input: &ArrayShape,
    output: &ArrayShape,
) -> Result<Option<Vec<usize>>, Error> {
    if input.rank() != output.rank() {
        return Ok(None);
    }
    let (in_m2m, out_m2m) = (layout_perm(input)?, layout_perm(output)?);
    let perm = inverse_permutation(&out_m2m)
        .and_then(|inv| compose_permutations(&in_m2m, &inv))
        .unwrap_or_default();
    Ok(match permute(&input.dims, &perm) {
        Some(dims) if dims == output.dims => Some(perm),
        _ => None,
    })
}

/// `ShapeUtil::IsReshapeOrTransposeBitcast`: equal shapes (element type aside), a reshape
/// that is a bitcast, or a transpose that is one (XLA checks the deduced transpose from
/// `b` to `a`).
///
/// ```
/// use layout_runtime::algebra::xla::is_reshape_or_transpose_bitcast;
/// let (a, b) = ("f32[10,5]{1,0}".parse()?, "f32[5,10]{0,1}".parse()?);
/// assert!(is_reshape_or_transpose_bitcast(&a, &b, false)?);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn is_reshape_or_transpose_bitcast(
    a: &ArrayShape,
    b: &ArrayShape,
    ignore_element_type: bool,
) -> Result<bool, Error> {
    if !ignore_element_type && a.element_type != b.element_type {
        return Ok(false);
    }
    if a.dims == b.dims && a.layout_or_default() == b.layout_or_default() {
        return Ok(true);
    }
    if reshape_is_bitcast(a, b, true)? {
        return Ok(true);
    }
    match deduce_transpose_dimensions_for_bitcast(a, b)? {
        Some(dims) => transpose_is_bitcast(b, a, &dims, true),
        None => Ok(false),
    }
}

/// `ShapeUtil::AlignLayouts`: `output`'s dimensions with a dense layout (minor_to_major
/// only, as XLA builds it) under which the reshape from `input` is a bitcast, if XLA's rule
/// finds one: every group of input dimensions that the reshape merges or splits
/// ([`common_factors`]) must be physically consecutive and in descending order; the output
/// then takes the groups in the input's physical order, each descending, and its size-1
/// dimensions most major, in descending order. Tiles are ignored.
///
/// ```
/// use layout_runtime::algebra::xla::align_layouts;
/// let a = "f32[3,8,5,7,11]{3,2,1,0,4}".parse()?;
/// let b = align_layouts(&a, &"f32[4,3,2,7,5,11]".parse()?)?.unwrap();
/// assert_eq!(b.to_string(), "f32[4,3,2,7,5,11]{4,3,2,1,0,5}");
/// assert_eq!(align_layouts(&a, &"f32[4,3,2,5,77]".parse()?)?, None);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn align_layouts(input: &ArrayShape, output: &ArrayShape) -> Result<Option<ArrayShape>, Error> {
    let m2m = match align_minor_to_major(input, output)? {
        Some(m2m) => m2m,
        None => return Ok(None),
    };
    let layout = Layout::new(m2m.into_iter().map(|d| d as i64));
    Ok(Some(ArrayShape { layout: Some(layout), ..output.clone() }))
}

/// The minor_to_major of [`align_layouts`].
fn align_minor_to_major(
    input: &ArrayShape,
    output: &ArrayShape,
) -> Result<Option<Vec<usize>>, Error> {
    if has_degenerate_dimensions(input) || has_degenerate_dimensions(output) {
        let inner = align_minor_to_major(
            &drop_degenerate_dimensions(input)?,
            &drop_degenerate_dimensions(output)?,
        )?;
        let Some(inner) = inner else { return Ok(None) };
        let kept: Vec<usize> =
            (0..output.rank()).filter(|&d| output.dims[d].bound() != Some(1)).collect();
        let mut m2m: Vec<usize> = inner.into_iter().filter_map(|d| kept.get(d).copied()).collect();
        m2m.extend((0..output.rank()).rev().filter(|&d| output.dims[d].bound() == Some(1)));
        return Ok(Some(m2m));
    }
    let (in_dims, out_dims) = (bounds(input)?, bounds(output)?);
    let in_m2m = layout_perm(input)?;
    let Some(factors) = common_factors(&in_dims, &out_dims) else { return Ok(None) };
    let mut input_to_factor = vec![usize::MAX; input.rank()];
    for pos in 0..factors.len().saturating_sub(1) {
        let (start, end) = (factors[pos].0, factors[pos + 1].0);
        let Some(mut physical) = in_m2m.iter().position(|&d| d == start) else {
            // A group with no input dimension (only when the shapes are empty).
            continue;
        };
        for (i, factor) in input_to_factor.iter_mut().enumerate().take(end).skip(start) {
            // The group continues in the next more minor positions: its first dimension is
            // its most major one (a descending, row-major group).
            if i > start {
                if physical == 0 || in_m2m[physical - 1] != i {
                    return Ok(None);
                }
                physical -= 1;
            }
            *factor = pos;
        }
    }
    let mut m2m = Vec::with_capacity(output.rank());
    let mut input_minor = 0;
    while m2m.len() < output.rank() {
        let Some(&pos) = in_m2m.get(input_minor).and_then(|&d| input_to_factor.get(d)) else {
            return Ok(None);
        };
        let (Some(start), Some(end)) = (factors.get(pos), factors.get(pos + 1)) else {
            return Ok(None);
        };
        m2m.extend((start.1..end.1).rev());
        input_minor += (end.0 - start.0).max(1);
    }
    m2m.truncate(output.rank());
    Ok(Some(m2m))
}
