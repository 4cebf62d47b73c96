//! XLA's size functions (`xla/shape_util.cc`): `ShapeUtil::ArraySize` (the allocation, first
//! tile only), `ShapeUtil::ByteSizeOf` / `ByteSizeOfElements` (the data, no padding) and
//! `ShapeUtil::ElementsIn`.
//!
//! All arithmetic is checked: XLA computes in int64, so a result beyond `i64::MAX` (or an
//! intermediate value beyond what XLA could hold) is [`ErrorKind::SizeOverflow`], never a
//! wrapped number. Sizes of the fully expanded nested tiling live elsewhere
//! (`nested_byte_size`); these are XLA's own numbers.

use alloc::format;

use crate::error::{at, INT64};
use crate::{ArrayShape, CheckedArray, Error, ErrorKind, Location, Shape, TileDim};

/// The largest size XLA can express (its sizes are int64).
const LIMIT: u64 = i64::MAX as u64;

fn overflow(what: &str) -> Error {
    crate::error::overflow(what, INT64)
}

fn mul(a: u64, b: u64, what: &str) -> Result<u64, Error> {
    a.checked_mul(b).filter(|&v| v <= LIMIT).ok_or_else(|| overflow(what))
}

/// `RoundUpTo(value, multiple)` for a positive `multiple`.
fn round_up(value: u64, multiple: u64, what: &str) -> Result<u64, Error> {
    mul(value.div_ceil(multiple), multiple, what)
}

/// Bytes of `count` elements of `bits` each, rounded up to whole bytes (⌈count·E/8⌉ with
/// `E(n)`; a whole number of bytes per element otherwise).
fn bytes_of_elements(count: u64, bits: u64) -> Result<u64, Error> {
    let bits = u128::from(count) * u128::from(bits);
    u64::try_from(bits.div_ceil(8))
        .ok()
        .filter(|&b| b <= LIMIT)
        .ok_or_else(|| overflow("byte size"))
}

/// One physical dimension in the walk of [`CheckedArray::array_size_walk`].
///
/// ```
/// use layout_runtime::{ArrayShape, PaddedDim};
/// let a: ArrayShape = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}".parse()?;
/// let d = &a.array_size_walk()?.dims[0];
/// assert_eq!(*d, PaddedDim { dimension: Some(2), size: 40, tile: Some(128), padded: 128 });
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaddedDim {
    /// The logical dimension at this physical position; `None` for a major dimension of
    /// size 1 that a first tile longer than the shape adds.
    pub dimension: Option<usize>,
    /// The size counted: the static size, the bound of `<=N`, or the largest piece of a
    /// split dimension.
    pub size: u64,
    /// The entry of the first tile aligned with this dimension, if the tile reaches it.
    pub tile: Option<u64>,
    /// `size` rounded up to a multiple of `tile` (`size` itself where no tile reaches).
    pub padded: u64,
}

/// The steps of `ShapeUtil::ArraySize`, from [`CheckedArray::array_size_walk`].
///
/// ```
/// use layout_runtime::ArrayShape;
/// let a: ArrayShape = "f32[3,5]{1,0:T(2,2)L(64)}".parse()?;
/// let walk = a.array_size_walk()?;
/// assert_eq!((walk.element_count, walk.aligned_count), (24, 64));
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArraySizeWalk {
    /// The physical dimensions, most minor first; dimensions a long first tile adds come
    /// after the shape's own.
    pub dims: alloc::vec::Vec<PaddedDim>,
    /// The product of the padded sizes.
    pub element_count: u64,
    /// `element_count` rounded up to a multiple of `L(n)` (equal to it without tiles or
    /// without `L`): the elements [`CheckedArray::byte_size`] turns into bytes.
    pub aligned_count: u64,
}

impl ArrayShape {
    /// `ShapeUtil::ElementsIn` (with bounds for dynamic dimensions): the product of the
    /// dimension sizes, bounded dimensions counting with their bound. A scalar has one
    /// element; an unbounded `?` dimension is [`ErrorKind::NotStaticArray`]. No layout rule
    /// is involved, so the shape need not be checked.
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let s: ArrayShape = "f32[<=5,3]{1,0:T(8,128)}".parse()?;
    /// assert_eq!(s.element_count()?, 15);
    /// let s: ArrayShape = "f32[?,3]".parse()?;
    /// assert!(s.element_count().is_err());
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn element_count(&self) -> Result<u64, Error> {
        self.bounded_dims()?.into_iter().try_fold(1, |count, d| mul(count, d, "element count"))
    }

    /// [`CheckedArray::byte_size_of`] of this shape, after [`ArrayShape::check`].
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let size_of = |t: &str| t.parse::<ArrayShape>().unwrap().byte_size_of();
    /// assert_eq!(size_of("f32[3,5]{1,0:T(2,2)L(64)}")?, 60);
    /// assert_eq!(size_of("s4[3,5]")?, 15);
    /// assert_eq!(size_of("s4[3,5]{1,0:E(4)}")?, 8);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_size_of(&self) -> Result<u64, Error> {
        self.check()?.byte_size_of()
    }

    /// [`CheckedArray::byte_size`] (XLA's `ShapeUtil::ArraySize`) of this shape, after
    /// [`ArrayShape::check`]: a shape the verifier rejects has no size, and its error is the
    /// verifier's.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ErrorKind, Shape};
    /// let size = |t: &str| t.parse::<ArrayShape>().unwrap().byte_size();
    /// assert_eq!(size("f32[3,5]{1,0:T(2,2)}")?, 96); // 2×3 tiles of 2×2
    /// assert_eq!(size("bf16[7,300]{1,0:T(8,128)(2,1)}")?, 6144);
    /// let bad = Shape::parse_unvalidated("f32[3,5]{1,0:T(0,2)}")?;
    /// assert_eq!(bad.byte_size().unwrap_err().kind(), ErrorKind::InvalidTileDimension);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_size(&self) -> Result<u64, Error> {
        self.check()?.byte_size()
    }

    /// [`CheckedArray::array_size_walk`] of this shape, after [`ArrayShape::check`].
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PaddedDim};
    /// let a: ArrayShape = "s32[8388608,8,4]{2,1,0:T(8,128)}".parse()?;
    /// let walk = a.array_size_walk()?;
    /// // Most minor first: d2 is rounded from 4 to 128, d1 fits the 8 rows, d0 is beyond the tile.
    /// assert_eq!(walk.dims[0], PaddedDim { dimension: Some(2), size: 4, tile: Some(128), padded: 128 });
    /// assert_eq!(walk.dims[1], PaddedDim { dimension: Some(1), size: 8, tile: Some(8), padded: 8 });
    /// assert_eq!(walk.dims[2], PaddedDim { dimension: Some(0), size: 8388608, tile: None, padded: 8388608 });
    /// assert_eq!(walk.aligned_count * 4, a.byte_size()?);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn array_size_walk(&self) -> Result<ArraySizeWalk, Error> {
        self.check()?.array_size_walk()
    }
}

impl CheckedArray<'_> {
    /// `ShapeUtil::ElementsIn`: see [`ArrayShape::element_count`].
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[<=5,3]".parse()?;
    /// assert_eq!(a.check()?.element_count()?, 15);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn element_count(&self) -> Result<u64, Error> {
        self.shape().element_count()
    }

    /// `ShapeUtil::ByteSizeOf` for an array (`ByteSizeOfElements`): the bytes of the data
    /// alone. Tiles, `L` and split configs are ignored; `E(n)` packs: ⌈count·n/8⌉ bytes,
    /// otherwise count × the type's byte width (sub-byte types take a byte each).
    ///
    /// Errors: an unbounded `?` dimension ([`ErrorKind::NotStaticArray`]); a size beyond
    /// int64 ([`ErrorKind::SizeOverflow`]).
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let size_of = |t: &str| t.parse::<ArrayShape>()?.check()?.byte_size_of();
    /// assert_eq!(size_of("f32[3,5]{1,0:T(2,2)L(64)}")?, 60);
    /// assert_eq!(size_of("s4[3,5]")?, 15);
    /// assert_eq!(size_of("s4[3,5]{1,0:E(4)}")?, 8);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_size_of(&self) -> Result<u64, Error> {
        bytes_of_elements(self.element_count()?, self.element_bits())
    }

    /// `ShapeUtil::ArraySize`: the bytes XLA allocates for the array.
    ///
    /// Without tiles this is [`CheckedArray::byte_size_of`] (`L` and split configs are then
    /// ignored, as in XLA). With tiles, **only the first tile counts** (XLA assumes later
    /// tiles add no padding): walking the physical dimensions from the most minor, each is
    /// rounded up to a multiple of the tile entry aligned with it from the right (missing
    /// major dimensions count as 1 when the tile is longer than the shape); dimensions beyond
    /// the tile are multiplied in unchanged. A dimension named by a split config counts with
    /// its largest split piece. The count is then rounded up to a multiple of `L(n)`, and
    /// turned into bytes as in [`CheckedArray::byte_size_of`].
    ///
    /// Errors: an unbounded `?` dimension ([`ErrorKind::NotStaticArray`]); a first tile
    /// containing `*` ([`ErrorKind::CombinedDimension`]: XLA's ArraySize treats −2⁶³ as a
    /// number and its result means nothing; the size of the expanded grid, which follows the
    /// tiled-layout document, is [`ArrayShape::nested_byte_size`]); a size beyond int64
    /// ([`ErrorKind::SizeOverflow`]).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ErrorKind};
    /// let size = |t: &str| t.parse::<ArrayShape>()?.check()?.byte_size();
    /// assert_eq!(size("f32[3,5]{1,0:T(2,2)}")?, 96); // 2×3 tiles of 2×2
    /// assert_eq!(size("f32[3,5]{1,0:T(2,2)L(64)}")?, 256); // 24 elements → 64
    /// assert_eq!(size("f32[3,5]{1,0:L(64)}")?, 60); // L without tiles is ignored
    /// assert_eq!(size("u32[]{:T(128)}")?, 512); // a tiled scalar fills a tile
    /// assert_eq!(size("bf16[7,300]{1,0:T(8,128)(2,1)}")?, 6144);
    /// assert_eq!(size("f32[3,5]{1,0:T(*,2)}").unwrap_err().kind(), ErrorKind::CombinedDimension);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_size(&self) -> Result<u64, Error> {
        if self.tiles().is_empty() {
            return self.byte_size_of();
        }
        bytes_of_elements(self.array_size_walk()?.aligned_count, self.element_bits())
    }

    /// The steps of [`CheckedArray::byte_size`] (`ShapeUtil::ArraySize`), one physical
    /// dimension at a time: which size each dimension counts with, which entry of the first
    /// tile is aligned with it and what it is rounded up to; then the element count, and
    /// that count rounded up to `L(n)`. This is what says *why* a layout pads
    /// (`d2 4 -> 128`): with tiles, the size is `aligned_count` elements turned into bytes.
    ///
    /// Without tiles nothing is rounded (`L` and split configs are ignored, as in XLA), and
    /// the dimensions are listed in physical order with their own sizes. The errors are
    /// those of `byte_size`.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PaddedDim};
    /// // A tile longer than the shape adds major dimensions of size 1.
    /// let s: ArrayShape = "u32[]{:T(128)}".parse()?;
    /// let walk = s.check()?.array_size_walk()?;
    /// assert_eq!(walk.dims, [PaddedDim { dimension: None, size: 1, tile: Some(128), padded: 128 }]);
    /// assert_eq!(walk.aligned_count, 128);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn array_size_walk(&self) -> Result<ArraySizeWalk, Error> {
        let dims = self.shape().bounded_dims()?;
        let rank = dims.len();
        let logical = self.minor_to_major();
        let Some(tile) = self.tiles().first() else {
            let mut count: u64 = 1;
            let mut walk = alloc::vec::Vec::with_capacity(rank);
            for &l in logical {
                count = mul(count, dims[l], "element count")?;
                let size = dims[l];
                walk.push(PaddedDim { dimension: Some(l), size, tile: None, padded: size });
            }
            return Ok(ArraySizeWalk { dims: walk, element_count: count, aligned_count: count });
        };

        // The first tile: the verifier has made every entry a positive size or `*`.
        let mut sizes = alloc::vec::Vec::with_capacity(tile.dims.len());
        for (d, entry) in tile.dims.iter().enumerate() {
            match *entry {
                TileDim::Combine => {
                    return Err(Error::new(
                        ErrorKind::CombinedDimension,
                        format!(
                            "XLA's ArraySize has no defined value for a tiling with `*` (entry \
                             {d} of the first tile): it computes with -2^63 as if it were a \
                             size; use nested_byte_size for the size of the tiled grid"
                        ),
                    )
                    .with_path(at(Location::TileDim { tile: 0, dim: d })));
                }
                TileDim::Size(n) => sizes.push(n),
            }
        }

        // LayoutUtil::MaxSplitSize for each logical dimension; the verifier has made each
        // split config name a distinct physical dimension, with increasing indices within it.
        let mut split_size = dims.clone();
        for config in &self.layout().split_configs {
            let l = logical[rank - 1 - config.dimension as usize];
            let (mut largest, mut last) = (0u64, 0u64);
            for &index in &config.split_indices {
                largest = largest.max(index as u64 - last);
                last = index as u64;
            }
            split_size[l] = largest.max(dims[l] - last);
        }

        // ArraySize's walk: the tile aligns with the most-minor physical dimensions.
        let n = sizes.len();
        let mut count: u64 = 1;
        let mut walk = alloc::vec::Vec::with_capacity(n.max(rank));
        for d in 0..n.max(rank) {
            let (dimension, size) =
                if d < rank { (Some(logical[d]), split_size[logical[d]]) } else { (None, 1) };
            let tile = (d < n).then(|| sizes[n - 1 - d]);
            let padded = match tile {
                Some(t) => round_up(size, t, "element count")?,
                None => size,
            };
            count = mul(count, padded, "element count")?;
            walk.push(PaddedDim { dimension, size, tile, padded });
        }
        let aligned = round_up(count, self.tail_padding_alignment(), "element count")?;
        Ok(ArraySizeWalk { dims: walk, element_count: count, aligned_count: aligned })
    }
}

impl Shape {
    /// [`ArrayShape::byte_size`] (`ShapeUtil::ArraySize`) of an array shape. XLA aborts on
    /// anything else; here tuples, buffers, `token[]` and `opaque[]` are
    /// [`ErrorKind::NotStaticArray`].
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape};
    /// let s: Shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse()?;
    /// assert_eq!(s.byte_size()?, 335_544_320);
    /// let t: Shape = "(f32[2], s32[])".parse()?;
    /// assert_eq!(t.byte_size().unwrap_err().kind(), ErrorKind::NotStaticArray);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_size(&self) -> Result<u64, Error> {
        self.try_array()?.byte_size()
    }

    /// `ShapeUtil::ByteSizeOf(shape, pointer_size)`: an array's data
    /// ([`ArrayShape::byte_size_of`]); a tuple's index table, `pointer_size` bytes per
    /// element (not its elements' data); `token[]` 0; `opaque[]` `pointer_size`. A buffer
    /// has no definite size in XLA (it aborts): [`ErrorKind::NotStaticArray`].
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let size_of = |t: &str| t.parse::<Shape>().unwrap().byte_size_of(8);
    /// assert_eq!(size_of("f32[10,20]")?, 800);
    /// assert_eq!(size_of("(s32[16,32,64], s8[16,32,64])")?, 16);
    /// assert_eq!(size_of("token[]")?, 0);
    /// assert_eq!(size_of("opaque[]")?, 8);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_size_of(&self, pointer_size: u64) -> Result<u64, Error> {
        match self {
            Shape::Array(a) => a.byte_size_of(),
            Shape::Tuple(elements) => {
                let n = u64::try_from(elements.len()).map_err(|_| overflow("tuple size"))?;
                mul(n, pointer_size, "tuple index table size")
            }
            Shape::Token => Ok(0),
            Shape::Opaque if pointer_size <= LIMIT => Ok(pointer_size),
            Shape::Opaque => Err(overflow("pointer size")),
            Shape::Buffer(_) => self.try_array().map(|_| 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dim, Layout, PaddedDim, PrimitiveType, SplitConfig, Tile};
    use alloc::vec;

    fn tiled(t: PrimitiveType, dims: &[u64], m2m: &[i64], tiles: &[&[u64]]) -> ArrayShape {
        let mut l = Layout::new(m2m.iter().copied());
        l.tiles = tiles.iter().map(|t| Tile::new(t.iter().copied())).collect();
        ArrayShape::new(t, dims.iter().copied()).with_layout(l)
    }

    #[test]
    fn untiled_sizes() {
        let a = ArrayShape::new(PrimitiveType::F32, [10, 20]);
        assert_eq!(a.byte_size(), Ok(800));
        assert_eq!(a.byte_size_of(), Ok(800));
        assert_eq!(a.element_count(), Ok(200));
        let s = ArrayShape::new(PrimitiveType::F64, []);
        assert_eq!((s.byte_size(), s.element_count()), (Ok(8), Ok(1)));
    }

    #[test]
    fn first_tile_only() {
        let a = tiled(PrimitiveType::F32, &[4, 4], &[1, 0], &[&[2, 4], &[3, 1]]);
        assert_eq!(a.byte_size(), Ok(64));
        let a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[2, 2]]);
        assert_eq!((a.byte_size(), a.byte_size_of()), (Ok(96), Ok(60)));
        // A tile longer than the shape pads the missing major dimension.
        let a = tiled(PrimitiveType::F32, &[10], &[0], &[&[2, 4]]);
        assert_eq!(a.byte_size(), Ok(96));
        let a = tiled(PrimitiveType::F32, &[], &[], &[&[256]]);
        assert_eq!(a.byte_size(), Ok(1024));
        let a = tiled(PrimitiveType::F32, &[0, 5], &[1, 0], &[&[8, 128]]);
        assert_eq!(a.byte_size(), Ok(0));
    }

    #[test]
    fn array_size_walk_explains_byte_size() {
        let walk = |a: &ArrayShape| a.array_size_walk().unwrap();
        let d = |dimension, size, tile, padded| PaddedDim { dimension, size, tile, padded };
        // Physical order {0,1}: d0 is most minor and meets the 128.
        let a = tiled(PrimitiveType::F32, &[10, 3], &[0, 1], &[&[8, 128]]);
        let w = walk(&a);
        assert_eq!(w.dims, [d(Some(0), 10, Some(128), 128), d(Some(1), 3, Some(8), 8)]);
        assert_eq!((w.element_count, w.aligned_count), (1024, 1024));
        assert_eq!(a.byte_size(), Ok(4096));
        // A tile of rank 3 on a vector adds two major dimensions of size 1.
        let a = tiled(PrimitiveType::S8, &[5], &[0], &[&[2, 2, 4]]);
        let w = walk(&a);
        assert_eq!(
            w.dims,
            [d(Some(0), 5, Some(4), 8), d(None, 1, Some(2), 2), d(None, 1, Some(2), 2)]
        );
        assert_eq!(a.byte_size(), Ok(32));
        // Split dimensions count with their largest piece; L rounds the total.
        let mut a = tiled(PrimitiveType::F32, &[150, 200], &[1, 0], &[&[8, 128]]);
        let l = a.layout.as_mut().unwrap();
        l.split_configs = vec![SplitConfig { dimension: 1, split_indices: vec![130] }];
        l.tail_padding_alignment_in_elements = 1000;
        let w = walk(&a);
        assert_eq!(w.dims, [d(Some(1), 130, Some(128), 256), d(Some(0), 150, Some(8), 152)]);
        assert_eq!((w.element_count, w.aligned_count), (38912, 39000));
        assert_eq!(a.byte_size(), Ok(156000));
        // Without tiles nothing pads, whatever L says; the order is physical.
        let mut a = ArrayShape::new(PrimitiveType::F32, [3, 5]).with_layout(Layout::new([0, 1]));
        a.layout.as_mut().unwrap().tail_padding_alignment_in_elements = 64;
        let w = walk(&a);
        assert_eq!(w.dims, [d(Some(0), 3, None, 3), d(Some(1), 5, None, 5)]);
        assert_eq!((w.element_count, w.aligned_count), (15, 15));
        // A shape the verifier rejects has no walk; `*` in the first tile has no ArraySize.
        let a = tiled(PrimitiveType::F32, &[3, 5], &[1, 1], &[]);
        assert_eq!(a.array_size_walk().unwrap_err().kind(), ErrorKind::MinorToMajorDuplicate);
        let mut a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[2, 2]]);
        a.layout.as_mut().unwrap().tiles[0].dims[0] = TileDim::Combine;
        assert_eq!(a.array_size_walk().unwrap_err().kind(), ErrorKind::CombinedDimension);
    }

    #[test]
    fn splits_tail_padding_and_element_size() {
        let mut a = tiled(PrimitiveType::F32, &[150, 200, 100], &[0, 1, 2], &[&[8, 128]]);
        let l = a.layout.as_mut().unwrap();
        l.split_configs = vec![
            SplitConfig { dimension: 0, split_indices: vec![30] },
            SplitConfig { dimension: 1, split_indices: vec![40, 130] },
        ];
        assert_eq!(a.byte_size(), Ok(6_881_280));
        assert_eq!(a.byte_size_of(), Ok(12_000_000));

        let mut a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[2, 2]]);
        a.layout.as_mut().unwrap().tail_padding_alignment_in_elements = 7;
        assert_eq!(a.byte_size(), Ok(112));

        let mut a = tiled(PrimitiveType::S4, &[3, 5], &[1, 0], &[&[2, 2]]);
        a.layout.as_mut().unwrap().element_size_in_bits = 4;
        assert_eq!((a.byte_size(), a.byte_size_of()), (Ok(12), Ok(8)));
    }

    #[test]
    fn errors_instead_of_meaningless_numbers() {
        let mut a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[2, 2]]);
        a.layout.as_mut().unwrap().tiles[0].dims[1] = TileDim::Combine;
        let e = a.byte_size().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CombinedDimension);
        assert_eq!(e.path().unwrap().location, Location::TileDim { tile: 0, dim: 1 });
        assert_eq!(a.byte_size_of(), Ok(60)); // ByteSizeOf ignores tiles

        let a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[0, 2]]);
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::InvalidTileDimension);
        let a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[]]);
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::EmptyTile);
        for (m2m, kind) in [
            (&[1, 1][..], ErrorKind::MinorToMajorDuplicate),
            (&[2, 0][..], ErrorKind::MinorToMajorOutOfBounds),
            (&[0][..], ErrorKind::LayoutRank),
        ] {
            let a = tiled(PrimitiveType::F32, &[3, 5], m2m, &[&[2, 2]]);
            assert_eq!(a.byte_size().unwrap_err().kind(), kind);
        }
        let mut a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[2, 2]]);
        a.layout.as_mut().unwrap().tail_padding_alignment_in_elements = 0;
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::TailPaddingAlignment);
        a.layout.as_mut().unwrap().tail_padding_alignment_in_elements = 1;
        a.layout.as_mut().unwrap().element_size_in_bits = -4;
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::NegativeElementSize);
        assert_eq!(a.byte_size_of().unwrap_err().kind(), ErrorKind::NegativeElementSize);
        let mut a = tiled(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[2, 2]]);
        a.layout.as_mut().unwrap().split_configs =
            vec![SplitConfig { dimension: 2, split_indices: vec![1] }];
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::SplitConfigDimension);

        let mut a = ArrayShape::new(PrimitiveType::F32, [3, 5]);
        a.dims[1] = Dim::Unbounded;
        for r in [a.byte_size(), a.byte_size_of(), a.element_count()] {
            let e = r.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NotStaticArray);
            assert_eq!(e.path().unwrap().location, Location::Dim(1));
        }
        a.dims[1] = Dim::Bounded(5);
        assert_eq!(a.byte_size(), Ok(60));

        let t = ArrayShape::new(PrimitiveType::Token, [2]);
        assert_eq!(t.byte_size().unwrap_err().kind(), ErrorKind::ElementType);
        assert_eq!(t.byte_size_of().unwrap_err().kind(), ErrorKind::ElementType);
    }

    #[test]
    fn overflow_is_an_error() {
        // Too large for XLA's verifier: sized only by element count, which checks no rule.
        let a = ArrayShape::new(PrimitiveType::F32, [1 << 62]);
        assert_eq!(a.element_count(), Ok(1 << 62));
        assert_eq!(a.byte_size_of().unwrap_err().kind(), ErrorKind::ShapeTooLarge);
        let a = ArrayShape::new(PrimitiveType::S8, [1 << 62, 4]);
        assert_eq!(a.element_count().unwrap_err().kind(), ErrorKind::SizeOverflow);
        let a = tiled(PrimitiveType::S8, &[(1 << 62) + 1], &[0], &[&[1 << 62]]);
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::SizeOverflow);
        let a = tiled(PrimitiveType::S8, &[3], &[0], &[&[u64::MAX]]);
        assert_eq!(a.byte_size().unwrap_err().kind(), ErrorKind::InvalidTileDimension);
        // Packed bits beyond u64 but bytes within int64.
        let mut a = ArrayShape::new(PrimitiveType::S4, [1 << 62]);
        a.layout.as_mut().unwrap().element_size_in_bits = 8;
        assert_eq!(a.byte_size_of(), Ok(1 << 62));
    }

    #[test]
    fn shape_wrappers() {
        let tuple = Shape::Tuple(
            vec![Shape::Token, Shape::Opaque, Shape::Tuple(crate::Tuple::new())].into(),
        );
        assert_eq!(tuple.byte_size_of(8), Ok(24));
        assert_eq!(Shape::Token.byte_size_of(8), Ok(0));
        assert_eq!(Shape::Opaque.byte_size_of(4), Ok(4));
        let buffer = Shape::Buffer(ArrayShape::new(PrimitiveType::F32, [2]));
        for s in [tuple, Shape::Token, Shape::Opaque, buffer.clone()] {
            assert_eq!(s.byte_size().unwrap_err().kind(), ErrorKind::NotStaticArray);
        }
        assert_eq!(buffer.byte_size_of(8).unwrap_err().kind(), ErrorKind::NotStaticArray);
        let a = Shape::Array(ArrayShape::new(PrimitiveType::C64, [3]));
        assert_eq!((a.byte_size(), a.byte_size_of(8)), (Ok(24), Ok(24)));
    }
}
