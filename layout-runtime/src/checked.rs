//! The checked array: what the verifier has established about an [`ArrayShape`], as facts
//! the later stages read instead of checking again (regex-syntax's `Ast` then `Hir`).
//!
//! [`ArrayShape`] holds whatever the text said; [`ArrayShape::check`] runs the verifier and,
//! when XLA accepts the shape, returns a [`CheckedArray`]: the only way to reach the size
//! functions and the [`Plan`](crate::Plan) builder. They keep only the errors a verifier
//! cannot see (an unbounded `?` dimension, a size beyond the integer that must hold it, a
//! trailing `*`).

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::{ArrayShape, Dim, Error, Layout, PrimitiveType, Tile};

/// An array shape that XLA's verifier accepts, with the facts every later stage needs: the
/// physical order as a permutation, tiles whose entries are positive sizes or `*`, the
/// `L(n)` alignment (≥ 1) and the storage width of an element.
///
/// Made only by [`ArrayShape::check`]; it borrows the shape it checked.
///
/// ```
/// use layout_runtime::ArrayShape;
/// let a: ArrayShape = "bf16[16,256]{0,1:T(8,128)(2,1)L(2)}".parse()?;
/// let c = a.check()?;
/// assert_eq!(c.minor_to_major(), [0, 1]);
/// assert_eq!(c.major_to_minor().collect::<Vec<_>>(), [1, 0]);
/// assert_eq!((c.element_bits(), c.tail_padding_alignment()), (16, 2));
/// assert_eq!(c.tiles().len(), 2);
/// assert_eq!(c.byte_size()?, 65536); // 256 rows of 16 elements, padded to 128 each
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedArray<'a> {
    shape: &'a ArrayShape,
    layout: Cow<'a, Layout>,
    minor_to_major: Vec<usize>,
    element_bits: u64,
    tail_padding_alignment: u64,
}

impl ArrayShape {
    /// Runs the verifier (`ShapeUtil::ValidateShape` on this array, XLA's first error first)
    /// and returns the facts later stages build on. A shape without a layout is checked and
    /// used with XLA's default layout.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ErrorKind, Shape};
    /// let a: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// assert_eq!(a.check()?.tiles()[0].to_string(), "(2,2)");
    ///
    /// let bad = Shape::parse_unvalidated("f32[3,5]{1,1}")?;
    /// let e = bad.try_array()?.check().unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::MinorToMajorDuplicate);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn check(&self) -> Result<CheckedArray<'_>, Error> {
        crate::validate::validate_array_first(self)?;
        crate::limits::check_array(self)?;
        let layout = self.layout_or_default();
        // The verifier has established every fact below; these are conversions, not checks.
        let minor_to_major = layout.minor_to_major.iter().map(|&d| d as usize).collect();
        let element_bits = match layout.element_size_in_bits {
            0 => u64::from(self.element_type.byte_width()) * 8,
            e => e as u64,
        };
        let tail_padding_alignment = layout.tail_padding_alignment_in_elements as u64;
        Ok(CheckedArray {
            shape: self,
            layout,
            minor_to_major,
            element_bits,
            tail_padding_alignment,
        })
    }
}

impl<'a> CheckedArray<'a> {
    /// The shape that was checked.
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[3]".parse()?;
    /// assert_eq!(a.check()?.shape(), &a);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn shape(&self) -> &'a ArrayShape {
        self.shape
    }

    /// The element type (an array type: not tuple, token or opaque).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PrimitiveType};
    /// let a: ArrayShape = "s4[8]{0:E(4)}".parse()?;
    /// assert_eq!(a.check()?.element_type(), PrimitiveType::S4);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn element_type(&self) -> PrimitiveType {
        self.shape.element_type
    }

    /// The logical dimensions as written (static, `<=N` or `?`).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, Dim};
    /// let a: ArrayShape = "f32[<=4,3]".parse()?;
    /// assert_eq!(a.check()?.dims(), [Dim::Bounded(4), Dim::Static(3)]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn dims(&self) -> &'a [Dim] {
        &self.shape.dims
    }

    /// The number of logical dimensions.
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[3,5]".parse()?;
    /// assert_eq!(a.check()?.rank(), 2);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.shape.dims.len()
    }

    /// The layout (XLA's default one when the shape has none).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PrimitiveType};
    /// let mut a = ArrayShape::new(PrimitiveType::F32, [3, 5]);
    /// a.layout = None;
    /// assert_eq!(a.check()?.layout().to_string(), "{1,0}");
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// minor_to_major as a permutation of `0..rank`: entry 0 is the most minor logical
    /// dimension.
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[2,3,4]{0,2,1}".parse()?;
    /// assert_eq!(a.check()?.minor_to_major(), [0, 2, 1]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn minor_to_major(&self) -> &[usize] {
        &self.minor_to_major
    }

    /// The physical order, most major first (minor_to_major reversed).
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[2,3,4]{0,2,1}".parse()?;
    /// assert_eq!(a.check()?.major_to_minor().collect::<Vec<_>>(), [1, 2, 0]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn major_to_minor(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.minor_to_major.iter().rev().copied()
    }

    /// The tile levels, first applied first; every tile has at least one entry, and every
    /// entry is a size in `1..=i64::MAX` or `*`.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, TileDim};
    /// let a: ArrayShape = "f32[8,8]{1,0:T(*,4)}".parse()?;
    /// assert_eq!(a.check()?.tiles()[0].dims, [TileDim::Combine, TileDim::Size(4)]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn tiles(&self) -> &[Tile] {
        &self.layout.tiles
    }

    /// `L(n)`: the tiled element count is rounded up to a multiple of this (≥ 1).
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[3]{0:T(2)L(8)}".parse()?;
    /// assert_eq!(a.check()?.tail_padding_alignment(), 8);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn tail_padding_alignment(&self) -> u64 {
        self.tail_padding_alignment
    }

    /// Storage bits per element: `E(n)` when set, else the type's byte width × 8 (so `s4`
    /// without `E` takes 8 bits).
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let bits = |t: &str| t.parse::<ArrayShape>()?.check().map(|c| c.element_bits());
    /// assert_eq!((bits("s4[8]")?, bits("s4[8]{0:E(4)}")?, bits("bf16[2]")?), (8, 4, 16));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn element_bits(&self) -> u64 {
        self.element_bits
    }
}
