//! What a map needs to know about a shape, read off its [`Plan`]: the 2-D slice (which
//! logical dimensions are rows and columns, the fixed leading indices), how far each tile
//! level reaches in memory, the slice padded to whole first-level tiles, and the extents of
//! a first-level tile along each logical dimension.
//!
//! Nothing here computes a tiled index: offsets and inverse indices come from [`Plan`], tile
//! sizes from its pad-reshape-transpose recipe.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use crate::{ArrayShape, Dim, Error, ErrorKind, PadReshapeTranspose, Plan, TileLevel};

/// A 2-D slice of an array shape and its plan: rows are the second-to-last logical dimension,
/// columns the last (a rank-1 array is one row, a scalar one cell); the dimensions before
/// them are fixed at `lead`.
pub(crate) struct Geometry {
    pub plan: Plan,
    pub recipe: PadReshapeTranspose,
    /// The plan of the same shape with every dimension padded to whole first-level tiles,
    /// when that padding can be drawn in logical coordinates (see [`Geometry::new`]).
    padded: Option<Plan>,
    pub lead: Vec<usize>,
    /// Logical rows and columns of the slice.
    pub rows: usize,
    pub cols: usize,
    /// Rows and columns including first-level padding (equal to `rows`, `cols` without it).
    pub padded_rows: usize,
    pub padded_cols: usize,
    /// For each tile level, the elements of memory one tile of that level spans.
    pub blocks: Vec<usize>,
    /// Whether the padded slice is made of whole first-level tiles (the first tile has no
    /// `*`), so its edges are tile boundaries.
    pub whole_tiles: bool,
    /// The axes that count first-level tiles, when each first-level tile is one contiguous
    /// run of `blocks[0]` elements (then tile `k` in memory order starts at `k * blocks[0]`).
    pub tile_counts: Option<Vec<usize>>,
}

impl Geometry {
    /// The slice of `shape` at the leading indices `at` (all 0 when `None`).
    ///
    /// The padding of the first tile level is drawn by asking the plan of the padded shape
    /// (each logical dimension rounded up to its first-level tile): padding a dimension to a
    /// multiple of its tile entry changes neither the tiled index space nor the offset of any
    /// element, so that plan gives every logical element its own offset and every padding
    /// position of the first level a logical place. This holds when the first tile has no
    /// `*` (a merge pads the merged axis, which has no logical coordinates); the two plans'
    /// index spaces are compared before it is used.
    pub fn new(shape: &ArrayShape, at: Option<&[usize]>) -> Result<Geometry, Error> {
        let plan = shape.plan()?;
        let recipe = plan.pad_reshape_transpose();
        let dims = plan.dims().to_vec();
        let rank = dims.len();
        let lead_len = rank.saturating_sub(2);
        let lead = match at {
            None => vec![0; lead_len],
            Some(at) if at.len() == lead_len => at.to_vec(),
            Some(at) => {
                return Err(Error::new(
                    ErrorKind::IndexOutOfBounds,
                    format!(
                        "the slice needs {lead_len} leading indices (the dimensions before the \
                         last two of a rank-{rank} shape), got {}",
                        at.len()
                    ),
                ))
            }
        };
        if let Some((k, (&i, &d))) = lead.iter().zip(&dims).enumerate().find(|(_, (&i, &d))| i >= d)
        {
            return Err(Error::new(
                ErrorKind::IndexOutOfBounds,
                format!("leading index {k} is {i}, but dimension {k} has size {d}"),
            ));
        }
        let (rows, cols) = match rank {
            0 => (1, 1),
            1 => (1, dims[0]),
            _ => (dims[rank - 2], dims[rank - 1]),
        };
        let (blocks, tile_counts) = block_spans(&plan);
        let whole_tiles = plain_first_level(&recipe).is_some();
        let padded = padded_plan(shape, &plan, &recipe);
        let padded_dims = padded.as_ref().map_or(&dims[..], |p| p.dims());
        let (padded_rows, padded_cols) = match rank {
            0 => (1, 1),
            1 => (1, padded_dims[0]),
            _ => (padded_dims[rank - 2], padded_dims[rank - 1]),
        };
        Ok(Geometry {
            plan,
            recipe,
            padded,
            lead,
            rows,
            cols,
            padded_rows,
            padded_cols,
            whole_tiles,
            blocks,
            tile_counts,
        })
    }

    /// The logical index of row `r`, column `c` of the slice.
    pub fn index(&self, r: usize, c: usize) -> Vec<usize> {
        let mut ix = self.lead.clone();
        match self.plan.rank() {
            0 => {}
            1 => ix.push(c),
            _ => ix.extend([r, c]),
        }
        ix
    }

    /// The offset of the cell at row `r`, column `c` (padded coordinates), and whether it is
    /// padding. Errors outside the padded slice.
    pub fn offset(&self, r: usize, c: usize) -> Result<(usize, bool), Error> {
        let ix = self.index(r, c);
        match &self.padded {
            Some(padded) if r >= self.rows || c >= self.cols => {
                padded.offset(&ix).map(|o| (o, true))
            }
            _ => self.plan.offset(&ix).map(|o| (o, false)),
        }
    }

    /// The first tile level when it has no `*`: its level and the number of leading size-1
    /// axes it added.
    fn first_level(&self) -> Option<&TileLevel> {
        plain_first_level(&self.recipe)
    }

    /// The extent of a first-level tile along each logical dimension (1 along a dimension the
    /// tile does not cover). Errors for an untiled layout and for a first tile with `*`.
    pub fn tile_extents(&self) -> Result<Vec<usize>, Error> {
        let Some(level) = self.first_level() else {
            let why = if self.recipe.levels.is_empty() {
                "the layout has no tiles"
            } else {
                "its first tile merges dimensions with `*`, so a tile has no extent along each \
                 logical dimension"
            };
            return Err(Error::new(
                ErrorKind::CombinedDimension,
                format!("cannot draw one cell per tile: {why}"),
            ));
        };
        let n = level.merged_shape.len();
        let covered_from = n - level.tile.len().min(n);
        let mut extents = vec![1; self.plan.rank()];
        for (p, &d) in self.recipe.to_physical.iter().enumerate() {
            let axis = level.expand_dims + p;
            if axis >= covered_from {
                extents[d] = level.tile.get(axis - covered_from).copied().unwrap_or(1);
            }
        }
        Ok(extents)
    }
}

/// The first tile level when it has no `*`, i.e. its merged shape is the physical shape
/// (after any leading size-1 axes): then its axes are the logical dimensions.
fn plain_first_level(recipe: &PadReshapeTranspose) -> Option<&TileLevel> {
    let level = recipe.levels.first()?;
    let expected = core::iter::repeat(&1).take(level.expand_dims).chain(&level.input_shape);
    expected.eq(&level.merged_shape).then_some(level)
}

/// The plan of `shape` with each logical dimension padded to whole first-level tiles, when
/// that padding exists and can be drawn (see [`Geometry::new`]).
fn padded_plan(shape: &ArrayShape, plan: &Plan, recipe: &PadReshapeTranspose) -> Option<Plan> {
    let level = plain_first_level(recipe)?;
    let mut dims = plan.dims().to_vec();
    for (p, &d) in recipe.to_physical.iter().enumerate() {
        dims[d] = *level.pad_to.get(level.expand_dims + p)?;
    }
    if dims == plan.dims() {
        return None;
    }
    let mut padded = shape.clone();
    padded.dims = dims.iter().map(|&d| Dim::Static(d as u64)).collect();
    let padded_plan = padded.plan().ok()?;
    (padded_plan.expanded_shape() == plan.expanded_shape()).then_some(padded_plan)
}

/// For each tile level, how many consecutive elements of memory one of its tiles spans:
/// the grid divided by the number of tiles when every later level works inside that level's
/// tile axes (then the index space begins with the axes that count the tiles, and each tile
/// is one contiguous run); otherwise (a later level of higher rank reaches into the counting
/// axes) the tile's own element count, which still marks runs of memory. Also the counting
/// axes of the first level, when its tiles are contiguous.
pub(crate) fn block_spans(plan: &Plan) -> (Vec<usize>, Option<Vec<usize>>) {
    let levels = plan.tile_levels();
    let mut first_counts = None;
    let spans = levels
        .iter()
        .enumerate()
        .map(|(k, level)| {
            let own = product(&level.tile);
            let outer_len = level.transpose.len().saturating_sub(level.tile.len());
            let outer: Vec<usize> =
                level.transpose[..outer_len].iter().map(|&t| level.reshape_to[t]).collect();
            let tiles = product(&outer);
            let contiguous = stays_inside(level, &levels[k + 1..])
                && tiles > 0
                && plan.expanded_shape().starts_with(&outer);
            if !contiguous {
                return own.max(1);
            }
            if k == 0 {
                first_counts = Some(outer);
            }
            (plan.grid_len() / tiles).max(1)
        })
        .collect();
    (spans, first_counts)
}

/// The product of `sizes`, saturating: exact whenever it fits, which it does for the elements
/// of a grid a plan has; a product with a 0 is 0 even when a partial product before the 0
/// would overflow (a 0-row slice under tiles of 2^62 x 2^62 has a grid of 0 elements and a
/// tile of 2^124).
pub(crate) fn product(sizes: &[usize]) -> usize {
    sizes.iter().fold(1usize, |n, &s| n.saturating_mul(s))
}

/// Whether each of the `later` levels applies only to axes that came out of `level`'s tile
/// entries (the trailing `level.tile.len()` axes after it, as those levels reshape them).
fn stays_inside(level: &TileLevel, later: &[TileLevel]) -> bool {
    let mut inner = level.tile.len();
    for next in later {
        // The tile's written length: its sizes plus its `*` entries, each of which removed
        // one axis when merging.
        let stars =
            (next.input_shape.len() + next.expand_dims).saturating_sub(next.merged_shape.len());
        let written = next.tile.len() + stars;
        if next.expand_dims > 0 || written > inner {
            return false;
        }
        inner = inner - written + 2 * next.tile.len();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(text: &str, at: Option<&[usize]>) -> Result<Geometry, Error> {
        let shape: crate::Shape = text.parse()?;
        Geometry::new(shape.try_array()?, at)
    }

    #[test]
    fn figure_1_padding_has_logical_places() {
        let g = geometry("f32[3,5]{1,0:T(2,2)}", None).unwrap();
        assert_eq!((g.rows, g.cols, g.padded_rows, g.padded_cols), (3, 5, 4, 6));
        assert_eq!(g.offset(2, 3).unwrap(), (17, false));
        // Row 3 is padding below row 2: offsets 14 and 15 in the first tile column (the
        // tiled-layout document's memory strip), column 5 is padding right of column 4.
        assert_eq!(g.offset(3, 0).unwrap(), (14, true));
        assert_eq!(g.offset(0, 5).unwrap(), (9, true));
        assert!(g.offset(4, 0).is_err());
        assert_eq!(g.blocks, [4]);
        assert_eq!(g.tile_extents().unwrap(), [2, 2]);
    }

    #[test]
    fn nested_levels_span_their_memory() {
        let g = geometry("bf16[16,256]{1,0:T(8,128)(2,1)}", None).unwrap();
        assert_eq!(g.blocks, [1024, 2]);
        assert_eq!(g.tile_counts, Some(vec![2, 2]));
        assert_eq!((g.padded_rows, g.padded_cols), (16, 256));
        // An inner level that pads: a (3,3) tile occupies 4x4 positions.
        let g = geometry("f32[3,3]{1,0:T(3,3)(2,2)}", None).unwrap();
        assert_eq!(g.blocks, [16, 4]);
    }

    #[test]
    fn a_later_level_reaching_into_the_tile_counts() {
        // f32[3]{0:T(3,2)(1,*,4,1)}: the second tile covers all four axes (1,2,3,2) of the
        // first level's output and merges a tile-count axis into an in-tile one, so a (3,2)
        // tile is no contiguous run; its own 6 elements are what the frames use.
        let g = geometry("f32[3]{0:T(3,2)(1,*,4,1)}", None).unwrap();
        assert_eq!(g.blocks[0], 6);
        assert_eq!(g.tile_counts, None);
        assert_eq!(g.tile_extents().unwrap(), [2]); // still a tile along dimension 0
    }

    #[test]
    fn transposed_and_sliced() {
        // Dimension 0 is minor: the tile (2,4) covers physical (d1, d0), so it is 4 along
        // d0 and 2 along d1.
        let g = geometry("f32[2,3,5]{1,2,0:T(2,4)}", Some(&[1])).unwrap();
        assert_eq!(g.tile_extents().unwrap(), [1, 4, 2]);
        assert_eq!((g.rows, g.cols, g.padded_rows, g.padded_cols), (3, 5, 4, 6));
        assert_eq!(g.index(2, 3), [1, 2, 3]);
        assert!(geometry("f32[2,3,5]", Some(&[2])).is_err());
        assert!(geometry("f32[2,3,5]", Some(&[0, 0])).is_err());
    }

    #[test]
    fn merges_have_no_logical_padding() {
        let g = geometry("f32[3,5]{1,0:T(*,2)(2)}", None);
        // `*` first: no per-dimension extents, no logical padding (memory still has it).
        let g = match g {
            Ok(g) => g,
            Err(e) => panic!("{}", e.message()),
        };
        assert_eq!((g.padded_rows, g.padded_cols), (3, 5));
        assert_eq!(g.tile_extents().unwrap_err().kind(), ErrorKind::CombinedDimension);
        let g = geometry("f32[3,5]", None).unwrap();
        assert!(g.blocks.is_empty());
        assert!(g.tile_extents().is_err());
    }

    #[test]
    fn tiles_longer_than_the_array() {
        // T(2,2) on a rank-1 array: a leading size-1 axis is added and padded to 2, which no
        // logical dimension shows; the column padding is drawn.
        let g = geometry("f32[3]{0:T(2,2)}", None).unwrap();
        assert_eq!((g.rows, g.cols, g.padded_rows, g.padded_cols), (1, 3, 1, 4));
        assert_eq!(g.tile_extents().unwrap(), [2]);
        // Element 3 of the padded row: tile 1, position 1 (offsets 4, 5 hold elements 2, 3).
        assert_eq!(g.offset(0, 3).unwrap(), (5, true));
    }
}
