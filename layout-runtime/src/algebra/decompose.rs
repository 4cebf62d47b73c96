//! A bitcast as logical operations: XLA's `DecomposeBitcast`, with tiles.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::bitcast::{reshape_is_bitcast, transpose_is_bitcast};
use super::permutation::{compose_permutations, inverse_permutation};
use super::xla::{
    deduce_transpose_dimensions_for_bitcast, layout_perm,
    make_shape_with_descending_layout_and_same_physical_layout as descending,
};
use crate::{ArrayShape, Error};

/// How a bitcast reads as logical operations (`ShapeUtil::BitcastDecomposition`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decomposition {
    /// A reshape that is a bitcast.
    Reshape,
    /// A transpose that is a bitcast, with XLA's `dimensions`.
    Transpose {
        /// Result dimension `i` is operand dimension `dimensions[i]`.
        dimensions: Vec<usize>,
    },
    /// A transpose to the operand's physical order, a reshape, and a transpose from the
    /// result's physical order (`BitcastDecompositionTrt`).
    TransposeReshapeTranspose {
        /// The first transpose's dimensions.
        transpose1_dimensions: Vec<usize>,
        /// The operand's dimensions in physical order, with the descending layout.
        transpose1_shape: Box<ArrayShape>,
        /// The result's dimensions in physical order, with the descending layout.
        reshape_shape: Box<ArrayShape>,
        /// The second transpose's dimensions.
        transpose2_dimensions: Vec<usize>,
    },
}

/// `n-1, ..., 1, 0`.
fn reverse_iota(n: usize) -> Vec<usize> {
    (0..n).rev().collect()
}

/// A bitcast from `from` to `to` decomposed as XLA's `DecomposeBitcast` does it: a reshape
/// when the reshape is a bitcast (element types ignored), else a transpose when XLA deduces
/// one from the two physical orders and it is a bitcast, else transpose-reshape-transpose
/// when each step is a bitcast. `None` when the element counts differ (XLA's
/// `IsDecomposableBitcast`) or — with tiles, which XLA's open version ignores — when no
/// reshape or transpose keeps the bytes where they are (the bitcast regroups tiles).
/// Untiled, every decomposable bitcast decomposes, exactly as in XLA.
///
/// ```
/// use layout_runtime::algebra::{decompose_bitcast, Decomposition};
/// let d = decompose_bitcast(&"f32[16,3,17]{1,2,0}".parse()?, &"f32[16,51]{0,1}".parse()?)?;
/// let Some(Decomposition::TransposeReshapeTranspose { transpose1_shape, reshape_shape, .. }) = d
/// else { panic!() };
/// assert_eq!(transpose1_shape.to_string(), "f32[16,17,3]{2,1,0}");
/// assert_eq!(reshape_shape.to_string(), "f32[51,16]{1,0}");
/// // Two (8,128) tiles side by side are two 8x128 matrices in memory: the bitcast regroups
/// // columns into tiles, which no reshape or transpose of the row-major order does.
/// let a = "f32[8,256]{1,0:T(8,128)}".parse()?;
/// assert_eq!(decompose_bitcast(&a, &"f32[2,8,128]{2,1,0:T(8,128)}".parse()?)?, None);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn decompose_bitcast(
    from: &ArrayShape,
    to: &ArrayShape,
) -> Result<Option<Decomposition>, Error> {
    if from.element_count()? != to.element_count()? {
        return Ok(None);
    }
    if reshape_is_bitcast(from, to, true)? {
        return Ok(Some(Decomposition::Reshape));
    }
    if let Some(dimensions) = deduce_transpose_dimensions_for_bitcast(from, to)? {
        if transpose_is_bitcast(from, to, &dimensions, true)? {
            return Ok(Some(Decomposition::Transpose { dimensions }));
        }
    }
    let transpose1_shape = descending(from)?;
    let reshape_shape = descending(to)?;
    let compose = |p1: &[usize], p2: &[usize]| compose_permutations(p1, p2).unwrap_or_default();
    let transpose1_dimensions = compose(&layout_perm(from)?, &reverse_iota(from.rank()));
    let to_inverse = inverse_permutation(&layout_perm(to)?).unwrap_or_default();
    let transpose2_dimensions = compose(&reverse_iota(to.rank()), &to_inverse);
    let steps = transpose_is_bitcast(from, &transpose1_shape, &transpose1_dimensions, false)?
        && reshape_is_bitcast(&transpose1_shape, &reshape_shape, true)?
        && transpose_is_bitcast(&reshape_shape, to, &transpose2_dimensions, false)?;
    Ok(steps.then_some(Decomposition::TransposeReshapeTranspose {
        transpose1_dimensions,
        transpose1_shape: Box::new(transpose1_shape),
        reshape_shape: Box::new(reshape_shape),
        transpose2_dimensions,
    }))
}
