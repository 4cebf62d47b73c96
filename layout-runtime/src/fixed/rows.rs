//! Rows as slices: where a layout keeps a row's elements next to each other (row-major, no
//! tiles), or interleaves the rows of a group element by element (one tile level `(K,1)`, as
//! inside a TPU tile), a buffer hands out whole rows or row groups as slices, which a loop
//! walks with no index arithmetic and the compiler vectorizes. Which layouts qualify is
//! decided by the layout's constants, when the code is compiled.

use core::slice::{ChunksExact, ChunksExactMut};

use super::{Buffer, StaticLayout, TypedLayout};
use crate::TileDim;

/// Whether `L` is `{n-1,...,1,0}`: dimension 0 most major.
const fn descending<L: StaticLayout>() -> bool {
    let m2m = L::MINOR_TO_MAJOR;
    let mut k = 0;
    while k < m2m.len() {
        if m2m[k] != m2m.len() - 1 - k {
            return false;
        }
        k += 1;
    }
    true
}

/// Whether each row of `L` (the last dimension) is contiguous and rows follow each other:
/// row-major, no tiles.
const fn rows_contiguous<L: StaticLayout>() -> bool {
    L::TILES.is_empty() && descending::<L>()
}

/// Whether `L` is row-major with one tile level `(K,1)` over rows that `K` divides: groups
/// of `K` rows, each stored as its columns in order, the `K` elements of a column together.
const fn rows_interleaved<L: StaticLayout, const K: usize>() -> bool {
    let r = L::DIMS.len();
    if K == 0 || r < 2 || !descending::<L>() || L::TILES.len() != 1 {
        return false;
    }
    match L::TILES[0] {
        [TileDim::Size(k), TileDim::Size(1)] => *k as usize == K && L::DIMS[r - 2] % K == 0,
        _ => false,
    }
}

/// The length of a row: the last dimension (1 for a scalar), never 0 (a slice of 0 elements
/// has no rows, and `chunks_exact` needs a length).
const fn row_len<L: StaticLayout>() -> usize {
    match L::DIMS.last() {
        Some(&n) if n > 0 => n,
        _ => 1,
    }
}

impl<L: TypedLayout, S: AsRef<[L::Elem]>> Buffer<L, S> {
    /// The rows (the last dimension, leading dimensions in order) as slices in memory order,
    /// for a row-major layout without tiles, such as the tile of a `T(8,128)` layout
    /// (`f32[8,128]{1,0}`). Another layout is a compile error here.
    ///
    /// ```
    /// use layout_runtime::fixed::{Buffer, TiledLayout};
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let buf = Buffer::<Fig1>::from_storage(core::array::from_fn(|o| o as f32));
    /// let tile = buf.tiles().nth(1).unwrap(); // f32[2,2]{1,0}: rows are contiguous
    /// let rows: Vec<&[f32]> = tile.view.rows().collect();
    /// assert_eq!(rows, [[4.0, 5.0], [6.0, 7.0]]);
    /// ```
    ///
    /// ```compile_fail
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let _ = Buffer::<Fig1>::zeroed().rows().count(); // tiled: a row is not contiguous
    /// ```
    #[inline]
    pub fn rows(&self) -> ChunksExact<'_, L::Elem> {
        const {
            assert!(
                rows_contiguous::<L>(),
                "rows() needs a row-major layout without tiles (each row contiguous)"
            )
        };
        self.as_slice()[..L::GRID_LEN].chunks_exact(row_len::<L>())
    }

    /// The rows in groups of `K`, for a row-major layout with one tile level `(K,1)` (the
    /// tile of a `T(8,128)(2,1)` layout is `bf16[8,128]{1,0:T(2,1)}`): group `g` holds rows
    /// `g*K .. g*K+K`, one `[E; K]` per column, `group[c][k]` being row `g*K + k`, column
    /// `c`. So a `(2,1)` tile reads as pairs. Another layout, or a `K` that is not the
    /// layout's, is a compile error here; the elements must accept every bit pattern
    /// (`bytemuck::Pod`: all but `bool` and the narrow integers).
    ///
    /// ```
    /// use layout_runtime::fixed::{StaticView, StaticLayout};
    /// # use layout_runtime::__doc_layouts::F32x4x2T2x1 as Pairs;
    /// // Pairs is `f32[4,2]{1,0:T(2,1)}`: rows 0 and 1 interleave, then rows 2 and 3.
    /// let data: Vec<f32> = (0..8).map(|o| o as f32).collect();
    /// let view = StaticView::<Pairs>::new(&data)?;
    /// let groups: Vec<&[[f32; 2]]> = view.row_groups::<2>().collect();
    /// assert_eq!(groups[1], [[4.0, 5.0], [6.0, 7.0]]); // (2,0) (3,0), then (2,1) (3,1)
    /// assert_eq!(view[[3, 0]], groups[1][0][1]);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    ///
    /// ```compile_fail
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x4x2T2x1 as Pairs;
    /// let _ = Buffer::<Pairs>::zeroed().row_groups::<4>().count(); // the layout's groups are 2
    /// ```
    #[inline]
    pub fn row_groups<const K: usize>(&self) -> RowGroups<'_, L::Elem, K>
    where
        L::Elem: bytemuck::Pod,
    {
        const {
            assert!(
                rows_interleaved::<L, K>(),
                "row_groups::<K>() needs a row-major layout with one tile level (K,1)"
            )
        };
        RowGroups { chunks: self.as_slice()[..L::GRID_LEN].chunks_exact(K * row_len::<L>()) }
    }
}

impl<L: TypedLayout, S: AsRef<[L::Elem]> + AsMut<[L::Elem]>> Buffer<L, S> {
    /// The rows as mutable slices; see [`Buffer::rows`].
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// for mut tile in buf.tiles_mut() {
    ///     let [i0, _] = tile.origin;
    ///     for (r, row) in tile.view.rows_mut().enumerate() {
    ///         row.fill((i0 + r) as f32); // each element holds its row
    ///     }
    /// }
    /// assert_eq!((buf[[1, 4]], buf[[2, 0]]), (1.0, 2.0));
    /// ```
    #[inline]
    pub fn rows_mut(&mut self) -> ChunksExactMut<'_, L::Elem> {
        const {
            assert!(
                rows_contiguous::<L>(),
                "rows_mut() needs a row-major layout without tiles (each row contiguous)"
            )
        };
        self.as_mut_slice()[..L::GRID_LEN].chunks_exact_mut(row_len::<L>())
    }

    /// The rows in groups of `K`, mutably; see [`Buffer::row_groups`].
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x4x2T2x1 as Pairs;
    /// let mut buf = Buffer::<Pairs>::zeroed();
    /// for pairs in buf.row_groups_mut::<2>() {
    ///     for [upper, lower] in pairs {
    ///         (*upper, *lower) = (1.0, -1.0); // even rows 1, odd rows -1
    ///     }
    /// }
    /// assert_eq!((buf[[2, 1]], buf[[3, 1]]), (1.0, -1.0));
    /// ```
    #[inline]
    pub fn row_groups_mut<const K: usize>(&mut self) -> RowGroupsMut<'_, L::Elem, K>
    where
        L::Elem: bytemuck::Pod,
    {
        const {
            assert!(
                rows_interleaved::<L, K>(),
                "row_groups_mut::<K>() needs a row-major layout with one tile level (K,1)"
            )
        };
        let chunks = self.as_mut_slice()[..L::GRID_LEN].chunks_exact_mut(K * row_len::<L>());
        RowGroupsMut { chunks }
    }
}

/// The row groups of a buffer; see [`Buffer::row_groups`].
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x4x2T2x1 as Pairs;
/// assert_eq!(Buffer::<Pairs>::zeroed().row_groups::<2>().len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct RowGroups<'a, E, const K: usize> {
    chunks: ChunksExact<'a, E>,
}

/// The row groups of a buffer, writable; see [`Buffer::row_groups_mut`].
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x4x2T2x1 as Pairs;
/// assert_eq!(Buffer::<Pairs>::zeroed().row_groups_mut::<2>().len(), 2);
/// ```
#[derive(Debug)]
pub struct RowGroupsMut<'a, E, const K: usize> {
    chunks: ChunksExactMut<'a, E>,
}

impl<'a, E: bytemuck::Pod, const K: usize> Iterator for RowGroups<'a, E, K> {
    type Item = &'a [[E; K]];

    #[inline]
    fn next(&mut self) -> Option<&'a [[E; K]]> {
        // A chunk is K times a row long, and `[E; K]` is K elements with no padding.
        self.chunks.next().map(bytemuck::cast_slice)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<'a, E: bytemuck::Pod, const K: usize> Iterator for RowGroupsMut<'a, E, K> {
    type Item = &'a mut [[E; K]];

    #[inline]
    fn next(&mut self) -> Option<&'a mut [[E; K]]> {
        self.chunks.next().map(bytemuck::cast_slice_mut)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<E: bytemuck::Pod, const K: usize> ExactSizeIterator for RowGroups<'_, E, K> {}

impl<E: bytemuck::Pod, const K: usize> ExactSizeIterator for RowGroupsMut<'_, E, K> {}
