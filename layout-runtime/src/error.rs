//! Errors: a kind to match on, a sentence for a person, and where in the text it happened.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

/// What went wrong, as a class. Each kind is one rule of XLA's parser or verifier (or one
/// limit of this crate); the [`Error`] message says the details.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text does not follow the grammar (a token is missing, misplaced or unexpected,
    /// a layout field is out of order or repeated).
    Syntax,
    /// An identifier where an element type belongs is no XLA type name.
    UnknownType,
    /// An integer literal does not fit in int64 (XLA would silently wrap it).
    IntegerOutOfRange,
    /// A dimension size is negative (or a `<=` bound is).
    NegativeDimension,
    /// `token` or `opaque` written with dimensions (XLA's parser aborts on it).
    DimensionsOnNonArray,
    /// `b(...)` around something that is not an array shape.
    BufferOfNonArray,
    /// The number of minor_to_major entries is not the rank.
    LayoutRank,
    /// `P(...)`: a physical shape, only meaningful for sparse arrays.
    PhysicalShape,
    /// A `D(...)` entry is not one of `D`, `C`, `S`, `H`.
    DimLevelType,
    /// `L(n)` with n < 1 (XLA aborts on it).
    TailPaddingAlignment,
    /// A negative tile entry other than `*` (XLA aborts on it).
    NegativeTileDimension,
    /// The array's byte size may overflow int64 (`ShapeUtil::ValidateShape`).
    ShapeTooLarge,
    /// A minor_to_major entry is not in `[0, rank)`.
    MinorToMajorOutOfBounds,
    /// A minor_to_major entry appears twice.
    MinorToMajorDuplicate,
    /// `#(t)`: an index type on a dense array.
    IndexPrimitiveType,
    /// `*(t)`: a pointer type on a dense array.
    PointerPrimitiveType,
    /// A tile with no entries.
    EmptyTile,
    /// A tile entry that is neither positive nor `*`.
    InvalidTileDimension,
    /// `E(n)` with n < 0.
    NegativeElementSize,
    /// A split config names a physical dimension out of range.
    SplitConfigDimension,
    /// Two split configs name the same physical dimension.
    SplitConfigDuplicate,
    /// Split indices that are not strictly increasing and positive.
    SplitConfigIndices,
    /// A split index not below the size of its dimension.
    SplitConfigIndexOutOfBounds,
    /// A `*` as the last entry of a tile: nothing to combine it with (no meaning in the
    /// tiled-layout document, so no offsets or sizes can be computed).
    TrailingCombine,
    /// XLA's `ShapeUtil::ArraySize` has no defined value for a first tile containing `*`
    /// (it computes with −2⁶³ as if it were a size); use the nested-grid size instead.
    CombinedDimension,
    /// The operation needs a static array shape and got a tuple, token, opaque, buffer or
    /// a dynamic dimension.
    NotStaticArray,
    /// A size or offset does not fit in the integer type that must hold it.
    SizeOverflow,
    /// A logical index has the wrong rank or an entry out of range.
    IndexOutOfBounds,
    /// A buffer's length does not match what its shape needs.
    BufferLength,
    /// The element type does not match what the operation needs.
    ElementType,
    /// Two shapes that must agree (element type, dimensions) do not.
    ShapeMismatch,
    /// Tuples nested deeper than [`limits::MAX_NESTING`](crate::limits::MAX_NESTING).
    NestingTooDeep,
    /// More dimensions (or minor_to_major entries, tile entries, split configs) than
    /// [`limits::MAX_RANK`](crate::limits::MAX_RANK).
    RankTooLarge,
    /// More tile levels than [`limits::MAX_TILE_LEVELS`](crate::limits::MAX_TILE_LEVELS).
    TooManyTileLevels,
}

/// Where in a shape a problem is: the part of the model, independent of any text.
///
/// The parser records the byte range of each of these parts; [`Error::span`] resolves a
/// location to bytes when the shape came from text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Location {
    /// The whole (sub)shape.
    Shape,
    /// The element type name.
    ElementType,
    /// Dimension `i` (logical).
    Dim(usize),
    /// The whole layout `{...}`.
    Layout,
    /// Entry `i` of minor_to_major.
    MinorToMajor(usize),
    /// Tile `i` (0 = first level).
    Tile(usize),
    /// Entry `dim` of tile `tile`.
    TileDim {
        /// Tile level, 0 first.
        tile: usize,
        /// Entry in the tile, 0 most major.
        dim: usize,
    },
    /// The value of `L(n)`.
    TailPadding,
    /// The type of `#(t)`.
    IndexType,
    /// The type of `*(t)`.
    PointerType,
    /// The value of `E(n)`.
    ElementSize,
    /// The value of `S(n)`.
    MemorySpace,
    /// Split config `i` as a whole.
    SplitConfig(usize),
    /// The dimension number of split config `i`.
    SplitDim(usize),
    /// Index `index` of split config `split`.
    SplitIndex {
        /// Which split config.
        split: usize,
        /// Which index in it.
        index: usize,
    },
    /// The value of `M(n)`.
    Metadata,
}

/// A location inside a possibly nested shape: the tuple element path (outermost first),
/// then the part. An array or buffer at the top level has an empty path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    /// Indices into nested tuples, outermost first.
    pub tuple_indices: Vec<usize>,
    /// The part of the array shape at that position.
    pub location: Location,
}

/// The error of every fallible operation of this crate.
///
/// ```
/// use layout_runtime::{ErrorKind, Shape};
/// let err = "f32[3,5]{1,0:T(0,2)}".parse::<Shape>().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidTileDimension);
/// assert_eq!(err.span(), Some(15..16)); // the `0`
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    path: Option<Path>,
    span: Option<Range<usize>>,
}

impl Error {
    /// An error of `kind` with a message.
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::BufferLength, "buffer is 3 bytes, needs 4");
    /// assert_eq!(e.to_string(), "buffer is 3 bytes, needs 4");
    /// ```
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), path: None, span: None }
    }

    /// Attaches the byte range of the offending text.
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::Syntax, "expected `]`").with_span(4..5);
    /// assert_eq!(e.span(), Some(4..5));
    /// ```
    pub fn with_span(mut self, span: Range<usize>) -> Error {
        self.span = Some(span);
        self
    }

    /// Attaches the model location of the problem.
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind, Location, Path};
    /// let at = Path { tuple_indices: vec![], location: Location::Dim(0) };
    /// let e = Error::new(ErrorKind::ShapeTooLarge, "too large").with_path(at.clone());
    /// assert_eq!(e.path(), Some(&at));
    /// ```
    pub fn with_path(mut self, path: Path) -> Error {
        self.path = Some(path);
        self
    }

    /// The class of the error.
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape};
    /// let e = "f32[3,5]{1,1}".parse::<Shape>().unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::MinorToMajorDuplicate);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The sentence for a person: which field, which rule.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let e = "f32[3,5]{1,0:E(-1)}".parse::<Shape>().unwrap_err();
    /// assert!(e.message().contains("element_size_in_bits"));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in the model the problem is, when it concerns one part of a shape.
    ///
    /// ```
    /// use layout_runtime::{Location, Shape};
    /// let e = "f32[3,5]{1,0:T(2,2)(0)}".parse::<Shape>().unwrap_err();
    /// assert_eq!(e.path().unwrap().location, Location::TileDim { tile: 1, dim: 0 });
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.path.as_ref()
    }

    /// The byte range of the offending text, when the error comes from text.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let e = "f31[3]".parse::<Shape>().unwrap_err();
    /// assert_eq!(e.span(), Some(0..3));
    /// ```
    pub fn span(&self) -> Option<Range<usize>> {
        self.span.clone()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
