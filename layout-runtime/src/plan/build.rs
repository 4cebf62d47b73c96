//! Building the index space: the checked layout's tile levels applied, one after another, to
//! the dimensions in physical order. Everything the rest of the plan needs about the space
//! is computed here, once: the registers (one per dimension of every intermediate space),
//! the splits and merges between them (the tile tree), each level's input shape and its
//! pad-reshape-transpose steps, and the final expanded grid with its sizes.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::level::TileLevel;
use crate::error::at;
use crate::{CheckedArray, Error, ErrorKind, Location, TileDim};

/// A register number of an index program.
pub(crate) type Reg = u32;

/// `what` does not fit in `usize`, the type of an index space's sizes.
pub(super) fn overflow(what: &str) -> Error {
    crate::error::overflow(what, "usize")
}

/// One node of the tile tree, in the order the builder made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A `*` merge: `dst = a · size(b) + b`.
    Merge { dst: Reg, a: Reg, b: Reg },
    /// A tile entry: `(q, m) = (src / tile, src % tile)`.
    Split { src: Reg, q: Reg, m: Reg, tile: usize },
}

/// The index space of a checked array: the tile tree and every size derived from it.
///
/// Registers `0..rank` are the logical dimensions; every later register is a dimension of an
/// intermediate space, `sizes[r]` its extent.
#[derive(Clone, Debug)]
pub(crate) struct Space {
    /// The logical dimension sizes (bounds for `<=N`).
    pub dims: Vec<usize>,
    /// Physical axis `p` (0 most major) is logical dimension `to_physical[p]`.
    pub to_physical: Vec<usize>,
    /// The extent of every register.
    pub sizes: Vec<usize>,
    /// The size-1 axes prepended for tiles longer than the space (always index 0).
    pub prepended: Vec<Reg>,
    /// The tile tree, in building order (parents before children).
    pub steps: Vec<Step>,
    /// The tile levels as shapes: input, merge, pad, reshape, transpose.
    pub levels: Vec<TileLevel>,
    /// The registers of the expanded grid, most major first.
    pub axes: Vec<Reg>,
    /// Their extents and row-major strides.
    pub expanded: Vec<usize>,
    pub strides: Vec<usize>,
    /// Elements of the grid (0 when any extent is), then rounded up to `L(n)`.
    pub grid_len: usize,
    pub padded_len: usize,
    pub element_bits: usize,
    pub byte_len: usize,
}

impl Space {
    /// Applies every tile level. The verifier has made the order a permutation, every tile
    /// non-empty and every entry positive or `*`; what can still fail is the plan's own:
    /// an unbounded `?` dimension, a trailing `*`, a size beyond `usize`.
    pub fn new(shape: &CheckedArray<'_>) -> Result<Space, Error> {
        let rank = shape.rank();
        let mut dims = Vec::with_capacity(rank);
        for (i, size) in shape.shape().bounded_dims()?.into_iter().enumerate() {
            dims.push(usize::try_from(size).map_err(|_| {
                overflow(&format!("size of dimension {i}")).with_path(at(Location::Dim(i)))
            })?);
        }
        let to_physical: Vec<usize> = shape.major_to_minor().collect();

        let mut sizes: Vec<usize> = dims.clone();
        let mut prepended: Vec<Reg> = Vec::new();
        let mut steps: Vec<Step> = Vec::new();
        let mut cur: Vec<Reg> = to_physical.iter().map(|&l| l as Reg).collect();
        let mut levels = Vec::with_capacity(shape.tiles().len());
        let new_reg = |sizes: &mut Vec<usize>, size: usize| -> Reg {
            sizes.push(size);
            (sizes.len() - 1) as Reg
        };

        for (t, tile) in shape.tiles().iter().enumerate() {
            let input_shape: Vec<usize> = cur.iter().map(|&r| sizes[r as usize]).collect();
            let n = tile.dims.len();
            let expand_dims = n.saturating_sub(cur.len());
            if expand_dims > 0 {
                let added: Vec<Reg> = (0..expand_dims).map(|_| new_reg(&mut sizes, 1)).collect();
                prepended.extend_from_slice(&added);
                // The newest axis is the most major (the register order of earlier versions,
                // which generated code and programs keep).
                cur.splice(0..0, added.into_iter().rev());
            }
            let split_at = cur.len() - n;
            let mut covered: Vec<(Reg, usize)> = Vec::with_capacity(n);
            let mut pending: Option<Reg> = None;
            for (i, (&td, &r)) in tile.dims.iter().zip(&cur[split_at..]).enumerate() {
                let r = match pending.take() {
                    None => r,
                    Some(a) => {
                        let size =
                            sizes[a as usize].checked_mul(sizes[r as usize]).ok_or_else(|| {
                                overflow("size of a `*`-merged dimension")
                                    .with_path(at(Location::TileDim { tile: t, dim: i }))
                            })?;
                        let dst = new_reg(&mut sizes, size);
                        steps.push(Step::Merge { dst, a, b: r });
                        dst
                    }
                };
                match td {
                    TileDim::Combine if i + 1 == n => {
                        return Err(Error::new(
                            ErrorKind::TrailingCombine,
                            format!(
                                "tile {t} ends with `*`: a `*` merges its dimension into the next \
                                 more-minor one, and the last entry has none, so the layout has \
                                 no defined offsets or sizes"
                            ),
                        )
                        .with_path(at(Location::TileDim { tile: t, dim: i })));
                    }
                    TileDim::Combine => pending = Some(r),
                    TileDim::Size(s) => {
                        let s = usize::try_from(s).map_err(|_| {
                            overflow("tile size")
                                .with_path(at(Location::TileDim { tile: t, dim: i }))
                        })?;
                        covered.push((r, s));
                    }
                }
            }
            let merged_shape: Vec<usize> = cur[..split_at]
                .iter()
                .chain(covered.iter().map(|(r, _)| r))
                .map(|&r| sizes[r as usize])
                .collect();
            let mut outers = Vec::with_capacity(covered.len());
            let mut inners = Vec::with_capacity(covered.len());
            let mut pad_to: Vec<usize> = merged_shape[..split_at].to_vec();
            let mut reshape_to = pad_to.clone();
            for &(src, tau) in &covered {
                let count = sizes[src as usize].div_ceil(tau);
                pad_to.push(count.checked_mul(tau).ok_or_else(|| overflow("padded dimension"))?);
                reshape_to.extend([count, tau]);
                let q = new_reg(&mut sizes, count);
                let m = new_reg(&mut sizes, tau);
                steps.push(Step::Split { src, q, m, tile: tau });
                outers.push(q);
                inners.push(m);
            }
            let k = covered.len();
            let transpose = (0..split_at)
                .chain((0..k).map(|i| split_at + 2 * i))
                .chain((0..k).map(|i| split_at + 2 * i + 1))
                .collect();
            cur.truncate(split_at);
            cur.extend(outers);
            cur.extend(inners);
            levels.push(TileLevel {
                tile: covered.iter().map(|&(_, s)| s).collect(),
                input_shape,
                expand_dims,
                merged_shape,
                pad_to,
                reshape_to,
                transpose,
            });
        }

        // The expanded space, its row-major strides and its size.
        let expanded: Vec<usize> = cur.iter().map(|&r| sizes[r as usize]).collect();
        let empty = expanded.contains(&0);
        let mut strides = vec![0usize; expanded.len()];
        let mut acc: usize = 1;
        for j in (0..expanded.len()).rev() {
            strides[j] = acc;
            acc = match acc.checked_mul(expanded[j]) {
                Some(v) => v,
                None if empty => usize::MAX, // no element can be addressed anyway
                None => return Err(overflow("element count of the tiled grid")),
            };
        }
        let grid_len = if empty { 0 } else { acc };

        // L and E, both checked by the verifier (L ≥ 1, E ≥ 0).
        let align = usize::try_from(shape.tail_padding_alignment())
            .map_err(|_| overflow("tail padding alignment `L`"))?;
        let padded_len = grid_len
            .div_ceil(align)
            .checked_mul(align)
            .ok_or_else(|| overflow("element count rounded up to L"))?;
        let element_bits =
            usize::try_from(shape.element_bits()).map_err(|_| overflow("element size"))?;
        let byte_len = usize::try_from((padded_len as u128 * element_bits as u128).div_ceil(8))
            .map_err(|_| overflow("byte length of the buffer"))?;

        Ok(Space {
            dims,
            to_physical,
            sizes,
            prepended,
            steps,
            levels,
            axes: cur,
            expanded,
            strides,
            grid_len,
            padded_len,
            element_bits,
            byte_len,
        })
    }

    /// The number of registers, with one more for the constant 0 the forward program uses.
    pub fn registers(&self) -> usize {
        self.sizes.len() + 1
    }
}
