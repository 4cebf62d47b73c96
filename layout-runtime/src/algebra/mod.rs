//! Between two layouts: is a reshape or a transpose a bitcast (every element stays where it
//! is), which layout of the result makes it one, and how a bitcast decomposes — tiles
//! included.
//!
//! XLA answers these with `ShapeUtil::ReshapeIsBitcast`, `TransposeIsBitcast`,
//! `AlignLayouts`, `PermuteDimensions` and `DecomposeBitcast`, whose open-source versions
//! look at minor_to_major only: for TPU layouts they can say "free" where four copies are
//! needed (jax-ml/jax#24404). Here the answer comes from the exact tiled index map:
//!
//! ```
//! use layout_runtime::algebra::{check_reshape, reshape_bitcast_layout};
//! use layout_runtime::ArrayShape;
//!
//! let x: ArrayShape = "f32[4,128]{1,0:T(8,128)}".parse()?;
//! let y: ArrayShape = "f32[4,1,128]{2,1,0:T(8,128)}".parse()?;
//! let r = check_reshape(&x, &y, false)?;
//! assert!(!r.is_bitcast());
//! assert_eq!(r.to_string(), "element (1,0) of the operand is at offset 128; as element (1,0,0) \
//!     of the result (its row-major position 128) it is at offset 1024");
//! // With the size-1 dimension most major the four rows share one tile again: free.
//! let free = reshape_bitcast_layout(&x, &y)?.unwrap();
//! assert_eq!(free.to_string(), "f32[4,1,128]{2,0,1:T(8,128)}");
//! # Ok::<(), layout_runtime::Error>(())
//! ```
//!
//! Everything is computed from dimensions, orders and tiles, never by visiting elements: each
//! index map becomes a canonical *form* (`form`), and two layouts put every element at the
//! same offset exactly when their forms are equal. On untiled layouts the answers are XLA's
//! (its tests pass as data, `tests/data/algebra/`); [`xla`] has XLA's functions as they are.
//! The one exception to "never visiting": a `*` that merges dimensions in transposed order
//! has no form, and such layouts are compared element by element, up to
//! [`MAX_COMPARED_ELEMENTS`](crate::limits::MAX_COMPARED_ELEMENTS).

mod bitcast;
mod build;
mod decompose;
mod form;
mod permutation;
mod search;
#[cfg(test)]
mod tests;
pub mod xla;

pub use bitcast::{
    check_reshape, check_transpose, reshape_is_bitcast, transpose_is_bitcast, Moved, Reason,
};
pub use decompose::{decompose_bitcast, Decomposition};
pub use permutation::{
    common_factors, compose_permutations, inverse_permutation, is_identity_permutation,
    is_permutation, move_single_element, permute, permute_inverse,
};
pub use search::{layout_orders, reshape_bitcast_layout, transpose_bitcast_layout};
