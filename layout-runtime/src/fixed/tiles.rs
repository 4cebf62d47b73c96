//! Tile-level access: a [`TiledLayout`]'s tiles in memory order, each a contiguous
//! [`StaticView`] of the tile's own layout ([`TileLayout`]), with the logical index of its
//! first element.

use core::fmt;
use core::marker::PhantomData;
use core::slice::{ChunksExact, ChunksExactMut};

use super::{
    Constants, InlineLayout, Inverse, LogicalIndex, StaticLayout, StaticView, StaticViewMut,
    StorageArray, TypedLayout,
};
use crate::TileDim;

/// A [`TypedLayout`] whose first tile level keeps each tile contiguous in memory (later tile
/// levels rearrange elements only inside a tile): [`Buffer::tiles`](super::Buffer::tiles)
/// walks its tiles in memory order. Each tile is itself a small static layout,
/// [`TiledLayout::Tile`]: the first tile's sizes as a row-major array of its own, with the
/// later tile levels. Its axes are the layout's most minor physical axes (after `*` merges),
/// in physical order, so for the usual `{n-1,..,1,0}` layouts `tile[[r, c]]` is the element
/// at `origin + (r, c)`.
///
/// ```
/// use layout_runtime::fixed::{StaticLayout, TiledLayout};
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// type Tile = <Fig1 as TiledLayout>::Tile;
/// assert_eq!((Fig1::TILE_COUNT, Tile::TEXT), (6, "f32[2,2]{1,0}"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no contiguous tiles to walk",
    label = "no tile access",
    note = "tile access needs a layout of whole elements with a first tile level (`T(8,128)`, \
            `T(8,128)(2,1)`); later levels must stay inside a tile (no wider than the first)"
)]
pub trait TiledLayout: TypedLayout {
    /// The layout of one tile ([`TileLayout<Self>`] for what `layout!` generates).
    type Tile: TypedLayout<Elem = Self::Elem>;
    /// The number of tiles: [`StaticLayout::GRID_LEN`] over the tile's
    /// [`StaticLayout::PADDED_LEN`].
    const TILE_COUNT: usize = Self::GRID_LEN / <Self::Tile as StaticLayout>::PADDED_LEN;
}

/// What `layout!` writes for the tile of a [`TiledLayout`]: the tile layout's constants and
/// index arithmetic (in [`Constants`]), which [`TileLayout`] turns into a [`StaticLayout`].
#[doc(hidden)]
pub trait TileSpec: TypedLayout {
    /// The tile's logical index.
    type TileIndex: LogicalIndex;
    /// One tile's inline storage.
    type TileStorage: StorageArray<Item = Self::Elem>;
    /// The tile layout's constants and index arithmetic.
    const TILE: Constants<TileLayout<Self>>;
}

/// The layout of one tile of `L`, as a static layout of its own: the first tile's sizes as a
/// row-major array, with `L`'s later tile levels. What [`TiledLayout::Tile`] is for the
/// layouts `layout!` generates whose tile is no [`MatrixTile`] (a tile of another rank than
/// 2, later levels other than one `(K,1)`): `layout!` writes its index arithmetic.
///
/// ```
/// use layout_runtime::fixed::{StaticLayout, TileLayout};
/// # use layout_runtime::__doc_layouts::F32x8T2x2 as Vector;
/// // Vector is `f32[8]{0:T(2,2)}`: 2x2 tiles over a vector, each tile's second row padding.
/// assert_eq!(TileLayout::<Vector>::TEXT, "f32[2,2]{1,0}");
/// assert_eq!(TileLayout::<Vector>::default().offset([1, 0]), 2);
/// ```
pub struct TileLayout<L>(PhantomData<L>);

impl<L> TileLayout<L> {
    /// The tile layout of `L` (zero-sized).
    pub const NEW: Self = TileLayout(PhantomData);
}

impl<L: TileSpec> fmt::Debug for TileLayout<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TileLayout({})", L::TILE.text)
    }
}

// Not one of the "other types" a compiler error about a missing layout lists: the user's
// own layouts are what such an error is about.
#[diagnostic::do_not_recommend]
impl<L: TileSpec> StaticLayout for TileLayout<L> {
    type Index = L::TileIndex;
    const CONSTANTS: Constants<Self> = L::TILE;
}

#[diagnostic::do_not_recommend]
impl<L: TileSpec> TypedLayout for TileLayout<L> {
    type Elem = L::Elem;
    type Storage = L::TileStorage;
}

// As a MatrixTile: one tile, held inline.
#[diagnostic::do_not_recommend]
impl<L: TileSpec> InlineLayout for TileLayout<L> {}

/// The layout of one tile of `L` when that is a matrix stored row by row, its rows
/// interleaved in groups of `GROUP` (one later tile level `(GROUP,1)`, as TPU tiles of 16- and
/// 8-bit elements have; `GROUP` 1: no later level), `S` being one tile's inline storage: what
/// [`TiledLayout::Tile`] is for most layouts `layout!` generates (`T(8,128)`,
/// `T(8,128)(2,1)`, `T(32,128)(4,1)`), with no code of their own. Other tiles are a
/// [`TileLayout`].
///
/// ```
/// use layout_runtime::fixed::{MatrixTile, StaticLayout, TiledLayout};
/// # use layout_runtime::__doc_layouts::F32x16x256T8x128T2x1 as Pairs;
/// // Pairs is `f32[16,256]{1,0:T(8,128)(2,1)}`.
/// type Tile = <Pairs as TiledLayout>::Tile;
/// assert_eq!(Tile::TEXT, "f32[8,128]{1,0:T(2,1)}");
/// assert_eq!(Tile::default().offset([3, 2]), 256 + 2 * 2 + 1); // row pair 1, column 2, row 1 of the pair
/// assert_eq!(Tile::default().index_of(261), Some([3, 2]));
/// ```
pub struct MatrixTile<L, S, const ROWS: usize, const COLS: usize, const GROUP: usize>(
    PhantomData<(L, S)>,
);

/// `Clone`, `Copy`, `Default`, `PartialEq`, `Eq` and `Hash` of a zero-sized layout type
/// with generic parameters `$params` (none of which needs those traits itself).
macro_rules! unit_traits {
    ($ty:ty, $value:expr, [$($params:tt)*]) => {
        impl<$($params)*> Clone for $ty {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<$($params)*> Copy for $ty {}

        impl<$($params)*> Default for $ty {
            fn default() -> Self {
                $value
            }
        }

        impl<$($params)*> PartialEq for $ty {
            fn eq(&self, _: &Self) -> bool {
                true
            }
        }

        impl<$($params)*> Eq for $ty {}

        impl<$($params)*> core::hash::Hash for $ty {
            fn hash<H: core::hash::Hasher>(&self, _: &mut H) {}
        }
    };
}

unit_traits!(TileLayout<L>, TileLayout(PhantomData), [L]);
unit_traits!(
    MatrixTile<L, S, R, C, K>,
    MatrixTile(PhantomData),
    [L, S, const R: usize, const C: usize, const K: usize]
);

impl<L: TiledLayout, S, const R: usize, const C: usize, const K: usize> fmt::Debug
    for MatrixTile<L, S, R, C, K>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MatrixTile({})", L::CONSTANTS.tile_text)
    }
}

#[diagnostic::do_not_recommend]
impl<L, S, const R: usize, const C: usize, const K: usize> StaticLayout
    for MatrixTile<L, S, R, C, K>
where
    L: TiledLayout,
    S: StorageArray<Item = L::Elem>,
{
    type Index = [usize; 2];
    const CONSTANTS: Constants<Self> = Constants {
        layout: MatrixTile(PhantomData),
        offset_unchecked: Self::matrix_offset,
        index_of: Self::matrix_index_of,
        inverse: Inverse::NONE,
        dims: &[R, C],
        minor_to_major: &[1, 0],
        tiles: if K > 1 { &[&[TileDim::Size(K as u64), TileDim::Size(1)]] } else { &[] },
        element_type: L::ELEMENT_TYPE,
        element_bits: L::ELEMENT_BITS,
        text: L::CONSTANTS.tile_text,
        tile_text: "",
        grid_len: R * C,
        padded_len: R * C,
        byte_len: R * C * L::ELEMENT_BITS / 8,
        xla_byte_size: Some((R * C * L::ELEMENT_BITS / 8) as u64),
    };
}

impl<L, S, const R: usize, const C: usize, const K: usize> MatrixTile<L, S, R, C, K> {
    /// [`StaticLayout::offset_unchecked`].
    #[inline]
    fn matrix_offset(self, [r, c]: [usize; 2]) -> usize {
        // Row group, column, row in the group: `[R / K][C][K]`.
        (r / K).wrapping_mul(C).wrapping_add(c).wrapping_mul(K).wrapping_add(r % K)
    }

    /// [`StaticLayout::index_of`].
    #[inline]
    fn matrix_index_of(self, offset: usize) -> Option<[usize; 2]> {
        (offset < R * C).then(|| [offset / (C * K) * K + offset % K, offset / K % C])
    }
}

#[diagnostic::do_not_recommend]
impl<L, S, const R: usize, const C: usize, const K: usize> TypedLayout for MatrixTile<L, S, R, C, K>
where
    L: TiledLayout,
    S: StorageArray<Item = L::Elem>,
{
    type Elem = L::Elem;
    type Storage = S;
}

// A tile is one first-level tile (4 KiB for a TPU's `T(8,128)` of f32): held inline, as a
// scratch tile is, whatever its size (the impl cannot depend on it).
#[diagnostic::do_not_recommend]
impl<L, S, const R: usize, const C: usize, const K: usize> InlineLayout
    for MatrixTile<L, S, R, C, K>
where
    Self: StaticLayout,
{
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
pub struct TileView<'a, L: TiledLayout> {
    /// The logical index of the tile's first element.
    pub origin: L::Index,
    /// The tile's elements, in the tile's own layout.
    pub view: StaticView<'a, L::Tile>,
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
pub struct TileViewMut<'a, L: TiledLayout> {
    /// The logical index of the tile's first element.
    pub origin: L::Index,
    /// The tile's elements, in the tile's own layout.
    pub view: StaticViewMut<'a, L::Tile>,
}

impl<L: TiledLayout> fmt::Debug for TileView<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TileView").field("origin", &self.origin).finish_non_exhaustive()
    }
}

impl<L: TiledLayout> fmt::Debug for TileViewMut<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TileViewMut").field("origin", &self.origin).finish_non_exhaustive()
    }
}

/// Where the next tile starts, logically: an odometer over the tile grid in physical order
/// (most minor axis fastest, as tiles lie in memory), stepping each dimension by its tile
/// size, so that a tile's origin costs an add and a compare, not a division.
#[derive(Clone, Copy)]
enum Origins<L: StaticLayout> {
    /// The next origin, and each dimension's tile size.
    Odometer { next: L::Index, step: L::Index },
    /// A first tile with `*` merges dimensions: the origin of tile `k` is the index stored at
    /// `k` tiles' length.
    Merged { next: usize },
}

impl<L: TiledLayout> Origins<L> {
    fn new() -> Self {
        let tile = L::TILES.first().copied().unwrap_or(&[]);
        let rank = L::RANK;
        let mut step = L::Index::ZERO;
        for (k, &d) in L::MINOR_TO_MAJOR.iter().enumerate() {
            // The k-th most minor physical axis takes the k-th tile entry from the right.
            let Some(entry) = tile.len().checked_sub(k + 1).map(|e| tile[e]) else {
                step.as_mut()[d] = 1;
                continue;
            };
            match entry {
                TileDim::Size(n) => step.as_mut()[d] = usize::try_from(n).unwrap_or(usize::MAX),
                TileDim::Combine => return Origins::Merged { next: 0 },
            }
        }
        debug_assert_eq!(step.as_ref().len(), rank);
        Origins::Odometer { next: L::Index::ZERO, step }
    }

    /// The origin of the next tile, and the odometer one tile on.
    #[inline]
    fn advance(&mut self) -> L::Index {
        match self {
            Origins::Odometer { next, step } => {
                let origin = *next;
                for &d in L::MINOR_TO_MAJOR {
                    let at = &mut next.as_mut()[d];
                    *at += step.as_ref()[d];
                    if *at < L::DIMS[d] {
                        break;
                    }
                    *at = 0;
                }
                origin
            }
            Origins::Merged { next } => {
                // A tile's first element has in-tile coordinates zero, and a tile at count `t`
                // along an axis of size `d` tiled by `s` starts at `t * s < d`: it is never
                // padding, so the layout always has its index.
                let at = L::LAYOUT.index_of(*next * <L::Tile as StaticLayout>::PADDED_LEN);
                *next += 1;
                at.expect("a tile's first element is an element of the array")
            }
        }
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
    origins: Origins<L>,
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
    origins: Origins<L>,
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
        Tiles { chunks, origins: Origins::new() }
    }
}

impl<'a, L: TiledLayout> TilesMut<'a, L> {
    pub(super) fn new(storage: &'a mut [L::Elem]) -> Self {
        let chunks = storage[..L::GRID_LEN].chunks_exact_mut(tile_len::<L>());
        TilesMut { chunks, origins: Origins::new() }
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
                let origin = self.origins.advance();
                // Each chunk is exactly one tile's storage.
                let view = $view::<L::Tile>::new(data).ok()?;
                Some($item { origin, view })
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.chunks.size_hint()
            }
        }

        impl<L: TiledLayout> ExactSizeIterator for $iter<'_, L> {}

        impl<L: TiledLayout> fmt::Debug for $iter<'_, L> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($iter))
                    .field("layout", &L::TEXT)
                    .field("left", &self.chunks.len())
                    .finish()
            }
        }
    };
}

tile_iterator!(Tiles, TileView, StaticView);
tile_iterator!(TilesMut, TileViewMut, StaticViewMut);
