//! One tile level as numpy shapes: what the builder records for each level (`build`) and
//! the recipe prints (`recipe`), below both.

use alloc::vec;
use alloc::vec::Vec;

/// One tile level of the equivalent pad-reshape-transpose recipe; see
/// [`PadReshapeTranspose`](super::PadReshapeTranspose).
///
/// ```
/// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let recipe = s.plan()?.pad_reshape_transpose();
/// let level = &recipe.levels[0];
/// assert_eq!(level.input_shape, [3, 5]);
/// assert_eq!(level.pad_to, [4, 6]);
/// assert_eq!(level.reshape_to, [2, 2, 3, 2]);
/// assert_eq!(level.transpose, [0, 2, 1, 3]);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileLevel {
    /// The tile's sizes after removing its `*` entries (most major first).
    pub tile: Vec<usize>,
    /// The shape this level applies to: the physical shape for the first level, the
    /// previous level's result after it (before any leading axes this level adds).
    pub input_shape: Vec<usize>,
    /// Leading size-1 axes to add first (`expand_dims`): the tile is longer than the array.
    pub expand_dims: usize,
    /// The shape after merging every `*` axis into the next one (a plain row-major
    /// reshape); equal to the incoming shape (with the added axes) when the tile has no `*`.
    pub merged_shape: Vec<usize>,
    /// The shape after padding each covered axis at its end to a multiple of its tile entry.
    pub pad_to: Vec<usize>,
    /// The shape after splitting each covered axis into (tile count, tile entry).
    pub reshape_to: Vec<usize>,
    /// The axis permutation (numpy `transpose` argument) that puts all tile counts before
    /// all in-tile axes; its result has the shape of the next level's input.
    pub transpose: Vec<usize>,
}

impl TileLevel {
    /// [`TileLevel::input_shape`] with the leading size-1 axes this level adds.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[10]{0:T(2,4)}".parse()?;
    /// let plan = s.plan()?;
    /// let level = &plan.tile_levels()[0];
    /// assert_eq!((level.input_shape.as_slice(), level.expand_dims), (&[10][..], 1));
    /// assert_eq!(level.with_leading_axes(), [1, 10]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn with_leading_axes(&self) -> Vec<usize> {
        let mut shape = vec![1; self.expand_dims];
        shape.extend_from_slice(&self.input_shape);
        shape
    }
}
