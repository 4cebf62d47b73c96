//! The tiled index space of an array shape (`docs/tiled_layout.md`,
//! `LayoutUtil::LinearIndexForNestedTiling`), built once into a [`Plan`] with every size,
//! stride and divisor precomputed.
//!
//! The map from a logical index to an element offset:
//!
//! 1. put the dimensions in physical order (minor_to_major reversed, most major first);
//! 2. for each tile level, in order: if the tile has more entries than the current space
//!    has dimensions, prepend size-1 dimensions; merge every `*` dimension of the covered
//!    suffix into the next more-minor one (sizes multiply, index `eᵢ·sᵢ₊₁ + eᵢ₊₁`, runs of
//!    `*` chain); split each covered dimension `(s, e)` with tile entry `τ` into an outer
//!    `(⌈s/τ⌉, ⌊e/τ⌋)` and an inner `(τ, e mod τ)`, all outers before all inners;
//! 3. the offset is the row-major position in the final ("expanded") space.
//!
//! Internally the map is a short straight-line program over registers: a merge is one
//! multiply-add, a split one division by a precomputed [`Divider`]. Its inverse (offset to
//! logical index) is the same program run backwards, where a split becomes a multiply-add
//! plus a range check (padding) and a merge becomes a division. Iterators run either
//! program incrementally, so an element costs a few adds and compares, not a division.

//!
//! The files say their job: `build` makes the index space from a checked array (the tile
//! tree, each level's shapes, the grid); `program` turns the tree into the index programs;
//! `tables` tabulates separable maps; `plan` holds them together as a [`Plan`]; `iter` walks them in logical and memory order;
//! `recipe` says the same layout as numpy operations and axis names.

mod build;
mod iter;
mod level;
// The model of this folder, as `peak/model.rs` is of the peak's: this file is its face.
#[allow(clippy::module_inception)]
mod plan;
mod program;
mod recipe;
mod tables;
#[cfg(test)]
mod tests;

pub(crate) use build::{Reg, Space, Step};
pub use iter::{MemoryOrder, RowMajor, RowMajorOffsets};
pub use level::TileLevel;
pub use plan::Plan;
pub use program::IndexProgram;
pub use recipe::PadReshapeTranspose;
