//! Tile-level access: the tiles of a [`TiledLayout`] in memory order, each a contiguous
//! [`View`] of the tile's own layout, with the logical index of its first element.

use core::fmt;
use core::marker::PhantomData;
use core::slice::{ChunksExact, ChunksExactMut};

use super::{StaticLayout, TiledLayout, View, ViewMut};

/// The logical index of the first element of tile `k`.
fn origin<L: TiledLayout>(k: usize) -> L::Index {
    // A tile's first element has in-tile coordinates zero, and a tile at count `t` along an
    // axis of size `d` tiled by `s` starts at `t * s < d`: it is never padding, so the layout
    // always has its index.
    L::default()
        .index_of(k * <L::Tile as StaticLayout>::PADDED_LEN)
        .expect("a tile's first element is an element of the array")
}

/// One tile of a [`TiledLayout`], borrowed: see [`Buffer::tiles`](super::Buffer::tiles).
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let buf = Buffer::<Fig1>::from_storage(core::array::from_fn(|o| o as f32));
/// let tile = buf.tiles().nth(1).unwrap(); // the second tile in memory
/// assert_eq!(tile.origin, [0, 2]);
/// assert_eq!(tile.view.as_slice(), [4.0, 5.0, 6.0, 7.0]);
/// assert_eq!(tile.view[[1, 0]], 6.0); // element (1, 2)
/// ```
pub struct Tile<'a, L: TiledLayout> {
    /// The logical index of the tile's first element.
    pub origin: L::Index,
    /// The tile's elements, in the tile's own layout.
    pub view: View<'a, L::Tile>,
}

/// One tile of a [`TiledLayout`], mutably borrowed: see
/// [`Buffer::tiles_mut`](super::Buffer::tiles_mut).
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let mut buf = Buffer::<Fig1>::zeroed();
/// let mut tile = buf.tiles_mut().last().unwrap();
/// tile.view.as_mut_slice().fill(1.0);
/// assert_eq!(buf[[2, 4]], 1.0);
/// ```
pub struct TileMut<'a, L: TiledLayout> {
    /// The logical index of the tile's first element.
    pub origin: L::Index,
    /// The tile's elements, in the tile's own layout.
    pub view: ViewMut<'a, L::Tile>,
}

impl<L: TiledLayout> fmt::Debug for Tile<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tile").field("origin", &self.origin).finish_non_exhaustive()
    }
}

impl<L: TiledLayout> fmt::Debug for TileMut<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TileMut").field("origin", &self.origin).finish_non_exhaustive()
    }
}

/// The tiles of a buffer in memory order; see [`Buffer::tiles`](super::Buffer::tiles).
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// assert_eq!(Buffer::<Fig1>::zeroed().tiles().len(), 6);
/// ```
pub struct Tiles<'a, L: TiledLayout> {
    chunks: ChunksExact<'a, L::Elem>,
    next: usize,
    layout: PhantomData<L>,
}

/// The tiles of a buffer in memory order, writable; see
/// [`Buffer::tiles_mut`](super::Buffer::tiles_mut).
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// assert_eq!(Buffer::<Fig1>::zeroed().tiles_mut().len(), 6);
/// ```
pub struct TilesMut<'a, L: TiledLayout> {
    chunks: ChunksExactMut<'a, L::Elem>,
    next: usize,
    layout: PhantomData<L>,
}

/// The storage length of one tile.
fn tile_len<L: TiledLayout>() -> usize {
    // Never 0 for a layout with tiles: a tile has at least one element.
    <L::Tile as StaticLayout>::PADDED_LEN.max(1)
}

impl<'a, L: TiledLayout> Tiles<'a, L> {
    /// The tiles of `storage` (its grid part: `L(n)` tail padding is no tile).
    pub(super) fn new(storage: &'a [L::Elem]) -> Self {
        let chunks = storage[..L::GRID_LEN].chunks_exact(tile_len::<L>());
        Tiles { chunks, next: 0, layout: PhantomData }
    }
}

impl<'a, L: TiledLayout> TilesMut<'a, L> {
    pub(super) fn new(storage: &'a mut [L::Elem]) -> Self {
        let chunks = storage[..L::GRID_LEN].chunks_exact_mut(tile_len::<L>());
        TilesMut { chunks, next: 0, layout: PhantomData }
    }
}

/// `Iterator` for `$iter`, yielding `$item`s whose view is a `$view` of each chunk.
macro_rules! tile_iterator {
    ($iter:ident, $item:ident, $view:ident) => {
        impl<'a, L: TiledLayout> Iterator for $iter<'a, L> {
            type Item = $item<'a, L>;

            #[inline]
            fn next(&mut self) -> Option<$item<'a, L>> {
                let data = self.chunks.next()?;
                let origin = origin::<L>(self.next);
                self.next += 1;
                // Each chunk is exactly one tile's storage.
                let view = $view::<L::Tile>::new(data).ok()?;
                Some($item { origin, view })
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.chunks.size_hint()
            }
        }
    };
}

tile_iterator!(Tiles, Tile, View);
tile_iterator!(TilesMut, TileMut, ViewMut);

impl<L: TiledLayout> ExactSizeIterator for Tiles<'_, L> {}

impl<L: TiledLayout> ExactSizeIterator for TilesMut<'_, L> {}

impl<L: TiledLayout> fmt::Debug for Tiles<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tiles").field("layout", &L::TEXT).field("next", &self.next).finish()
    }
}

impl<L: TiledLayout> fmt::Debug for TilesMut<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TilesMut").field("layout", &L::TEXT).field("next", &self.next).finish()
    }
}
