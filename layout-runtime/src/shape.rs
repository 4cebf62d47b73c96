//! The model: shapes, dimensions, layouts, tiles, as XLA has them (`xla/shape.h`,
//! `xla/layout.h`). Field names are XLA's.

use alloc::vec::Vec;

use alloc::format;

use crate::{Dim, Error, ErrorKind, Location, Path, PrimitiveType, TileDim, Tuple};

/// One level of tiling, `(8,128)`: entries from most major to most minor. It applies to the
/// most-minor suffix of the (already tiled) index space.
///
/// ```
/// use layout_runtime::{Tile, TileDim};
/// let t = Tile::new([8, 128]);
/// assert_eq!(t.dims, [TileDim::Size(8), TileDim::Size(128)]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tile {
    /// The entries, most major first.
    pub dims: Vec<TileDim>,
}

impl Tile {
    /// A tile of plain sizes.
    ///
    /// ```
    /// let t = layout_runtime::Tile::new([2, 1]);
    /// assert_eq!(t.dims.len(), 2);
    /// ```
    pub fn new(sizes: impl IntoIterator<Item = u64>) -> Tile {
        Tile { dims: sizes.into_iter().map(TileDim::Size).collect() }
    }
}

/// A split of one *physical* dimension (0 = most major) at the given indices
/// (`SC(d:i,j)`); only [`ArrayShape::byte_size`] looks at it.
///
/// ```
/// let sc = layout_runtime::SplitConfig { dimension: 1, split_indices: vec![4, 5] };
/// assert_eq!(sc.dimension, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SplitConfig {
    /// The physical dimension, 0 = most major.
    pub dimension: i64,
    /// Where it is split; valid when strictly increasing, positive and below the size.
    pub split_indices: Vec<i64>,
}

/// An array layout (`xla::Layout`): physical order, tiling and the fields XLA prints.
///
/// Fields hold what the text says, even when the verifier will reject it (a duplicated
/// minor_to_major entry, a zero tile): [`Shape::validate`] says whether XLA accepts it.
///
/// ```
/// use layout_runtime::{Layout, Tile};
/// let mut l = Layout::new([1, 0]);
/// l.tiles.push(Tile::new([2, 2]));
/// assert_eq!(l.to_string(), "{1,0:T(2,2)}");
/// assert_eq!(l.major_to_minor(), vec![0, 1]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Logical dimension numbers, most minor first.
    pub minor_to_major: Vec<i64>,
    /// Tiling levels, first applied first (`T(..)(..)`).
    pub tiles: Vec<Tile>,
    /// `L(n)`: the tiled element count is rounded up to a multiple of n (default 1).
    pub tail_padding_alignment_in_elements: i64,
    /// `#(t)`: a legacy sparse-array field; never valid on dense arrays.
    pub index_primitive_type: Option<PrimitiveType>,
    /// `*(t)`: a legacy sparse-array field; never valid on dense arrays.
    pub pointer_primitive_type: Option<PrimitiveType>,
    /// `E(n)`: storage bits per element; 0 means the type's natural width.
    pub element_size_in_bits: i64,
    /// `S(n)`: the memory space (0 default device memory, 1 fast memory, 5 pinned host...).
    pub memory_space: i64,
    /// `SC(..)`: splits of physical dimensions.
    pub split_configs: Vec<SplitConfig>,
    /// `M(n)`: bytes of dynamic-shape metadata in front of the data (not part of any size).
    pub dynamic_shape_metadata_prefix_bytes: u64,
}

impl Layout {
    /// A layout with this minor_to_major and every other field at its default.
    ///
    /// ```
    /// assert_eq!(layout_runtime::Layout::new([0, 1]).to_string(), "{0,1}");
    /// ```
    pub fn new(minor_to_major: impl IntoIterator<Item = i64>) -> Layout {
        Layout {
            minor_to_major: minor_to_major.into_iter().collect(),
            tiles: Vec::new(),
            tail_padding_alignment_in_elements: 1,
            index_primitive_type: None,
            pointer_primitive_type: None,
            element_size_in_bits: 0,
            memory_space: 0,
            split_configs: Vec::new(),
            dynamic_shape_metadata_prefix_bytes: 0,
        }
    }

    /// XLA's default layout for `rank` dimensions: `{rank-1,...,1,0}` (dimension 0 most
    /// major, row-major order).
    ///
    /// ```
    /// assert_eq!(layout_runtime::Layout::default_for_rank(3).to_string(), "{2,1,0}");
    /// ```
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout::new((0..rank as i64).rev())
    }

    /// The physical order, most major first: minor_to_major reversed.
    ///
    /// ```
    /// assert_eq!(layout_runtime::Layout::new([3, 2, 0, 1]).major_to_minor(), vec![1, 0, 2, 3]);
    /// ```
    pub fn major_to_minor(&self) -> Vec<i64> {
        self.minor_to_major.iter().rev().copied().collect()
    }

    /// Whether every field other than minor_to_major has its default value, so the layout
    /// prints without `:`.
    ///
    /// ```
    /// use layout_runtime::Layout;
    /// assert!(Layout::new([1, 0]).has_default_fields());
    /// ```
    pub fn has_default_fields(&self) -> bool {
        self.tiles.is_empty()
            && self.tail_padding_alignment_in_elements == 1
            && self.index_primitive_type.is_none()
            && self.pointer_primitive_type.is_none()
            && self.element_size_in_bits == 0
            && self.memory_space == 0
            && self.split_configs.is_empty()
            && self.dynamic_shape_metadata_prefix_bytes == 0
    }
}

/// An array shape: element type, dimensions and (optionally) a layout.
///
/// ```
/// use layout_runtime::{ArrayShape, Dim, PrimitiveType};
/// let a = ArrayShape::new(PrimitiveType::F32, [3, 5]);
/// assert_eq!(a.dims, [Dim::Static(3), Dim::Static(5)]);
/// assert_eq!(a.to_string(), "f32[3,5]{1,0}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayShape {
    /// The element type; an array type (not tuple, token, opaque, buffer).
    pub element_type: PrimitiveType,
    /// The logical dimensions, dimension 0 first.
    pub dims: Vec<Dim>,
    /// The layout; the parser always attaches one (the default when none is written).
    pub layout: Option<Layout>,
}

impl ArrayShape {
    /// A static array with XLA's default layout.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PrimitiveType};
    /// assert_eq!(ArrayShape::new(PrimitiveType::S8, []).to_string(), "s8[]");
    /// ```
    pub fn new(element_type: PrimitiveType, dims: impl IntoIterator<Item = u64>) -> ArrayShape {
        let dims: Vec<Dim> = dims.into_iter().map(Dim::Static).collect();
        let layout = Some(Layout::default_for_rank(dims.len()));
        ArrayShape { element_type, dims, layout }
    }

    /// The number of dimensions.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PrimitiveType};
    /// assert_eq!(ArrayShape::new(PrimitiveType::F32, [3, 5]).rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The same shape with `layout` in place of its own.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, Layout, PrimitiveType};
    /// let a = ArrayShape::new(PrimitiveType::F32, [3, 5]).with_layout(Layout::new([0, 1]));
    /// assert_eq!(a.to_string(), "f32[3,5]{0,1}");
    /// ```
    pub fn with_layout(mut self, layout: Layout) -> ArrayShape {
        self.layout = Some(layout);
        self
    }

    /// The same shape with XLA's default (row-major, untiled) layout.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{0,1:T(2,2)}".parse().unwrap();
    /// let a = s.with_default_layout();
    /// assert_eq!(a.to_string(), "f32[3,5]{1,0}");
    /// ```
    pub fn with_default_layout(&self) -> ArrayShape {
        let mut a = self.clone();
        a.layout = Some(Layout::default_for_rank(self.rank()));
        a
    }

    /// The layout, or the default one when the shape has none.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, PrimitiveType};
    /// let mut a = ArrayShape::new(PrimitiveType::F32, [4]);
    /// a.layout = None;
    /// assert_eq!(a.layout_or_default().minor_to_major, vec![0]);
    /// ```
    pub fn layout_or_default(&self) -> alloc::borrow::Cow<'_, Layout> {
        match &self.layout {
            Some(l) => alloc::borrow::Cow::Borrowed(l),
            None => alloc::borrow::Cow::Owned(Layout::default_for_rank(self.rank())),
        }
    }
}

impl ArrayShape {
    /// The storage size of each logical dimension: the static size or the bound.
    pub(crate) fn bounded_dims(&self) -> Result<Vec<u64>, Error> {
        self.dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                d.bound().ok_or_else(|| {
                    Error::new(
                        ErrorKind::NotStaticArray,
                        format!(
                            "dimension {i} is unbounded `?`: only static and bounded (`<=N`) \
                             dimensions have a size and an index space"
                        ),
                    )
                    .with_path(Path { tuple_indices: Vec::new(), location: Location::Dim(i) })
                })
            })
            .collect()
    }
}

/// A shape as XLA writes it: an array, a tuple, a buffer, `token[]` or `opaque[]`.
///
/// Parse with [`str::parse`] (which also validates) and print with `Display`, byte for byte
/// as XLA prints it.
///
/// ```
/// use layout_runtime::Shape;
/// let s: Shape = "(f32[2], s32[3,4]{0,1})".parse().unwrap();
/// assert_eq!(s.to_string(), "(f32[2]{0}, s32[3,4]{0,1})");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// An array.
    Array(ArrayShape),
    /// A tuple of shapes (possibly empty, possibly nested), each distinct element stored
    /// once ([`Tuple`]).
    Tuple(Tuple),
    /// `b(array)`: a buffer holding one array.
    Buffer(ArrayShape),
    /// `token[]`.
    Token,
    /// `opaque[]`.
    Opaque,
}

impl Shape {
    /// The array, if this shape is one.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3]".parse().unwrap();
    /// assert_eq!(s.as_array().map(|a| a.rank()), Some(1));
    /// assert_eq!("(f32[3])".parse::<layout_runtime::Shape>().unwrap().as_array(), None);
    /// ```
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array, or [`ErrorKind::NotStaticArray`] saying what the shape is instead (a
    /// tuple, a buffer, `token[]`, `opaque[]`): for code that needs an array and reports why
    /// it did not get one.
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape};
    /// let s: Shape = "f32[3]".parse()?;
    /// assert_eq!(s.try_array()?.rank(), 1);
    /// let t: Shape = "(f32[2], s32[])".parse()?;
    /// let e = t.try_array().unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::NotStaticArray);
    /// assert_eq!(e.message(), "`(f32[2]{0}, s32[])` is a tuple, not an array shape");
    /// // A long shape is quoted in part: the message is a few hundred bytes, whatever its size.
    /// let wide: Shape = format!("({})", vec!["f32[]"; 100_000].join(", ")).parse()?;
    /// assert!(wide.try_array().unwrap_err().message().len() < 300);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn try_array(&self) -> Result<&ArrayShape, Error> {
        match self {
            Shape::Array(a) => Ok(a),
            _ => Err(self.not_an_array()),
        }
    }

    /// The one error for "an array was needed": says what the shape is instead.
    fn not_an_array(&self) -> Error {
        let what = match self {
            Shape::Array(_) => "an array",
            Shape::Tuple(_) => "a tuple",
            Shape::Buffer(_) => "a buffer (its array is the shape inside `b(...)`)",
            Shape::Token => "a token",
            Shape::Opaque => "an opaque value",
        };
        // At most a few hundred characters of the shape: a caller may ask of every row of a
        // report, whose shapes may be megabytes long.
        let quoted = crate::limits::quote_shown(self, crate::limits::QUOTED_SHAPE);
        Error::new(ErrorKind::NotStaticArray, format!("{quoted} is {what}, not an array shape"))
            .with_path(Path { tuple_indices: Vec::new(), location: Location::Shape })
    }

    /// Gives back the room every list in the shape keeps beyond its length (the parser's
    /// lists grow by doubling): for a shape kept for a long time.
    ///
    /// ```
    /// let mut s: layout_runtime::Shape = "(f32[5,6]{1,0:T(2,128)}, s8[3])".parse()?;
    /// s.shrink_to_fit();
    /// let Some(a) = (match &s { layout_runtime::Shape::Tuple(t) => t.first(), _ => None }).and_then(|e| e.as_array()) else { unreachable!() };
    /// assert_eq!(a.dims.capacity(), 2);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn shrink_to_fit(&mut self) {
        match self {
            Shape::Tuple(t) => t.shrink_to_fit(),
            Shape::Array(a) | Shape::Buffer(a) => {
                a.dims.shrink_to_fit();
                if let Some(l) = a.layout.as_mut() {
                    l.minor_to_major.shrink_to_fit();
                    l.tiles.shrink_to_fit();
                    l.tiles.iter_mut().for_each(|t| t.dims.shrink_to_fit());
                    l.split_configs.shrink_to_fit();
                    l.split_configs.iter_mut().for_each(|c| c.split_indices.shrink_to_fit());
                }
            }
            Shape::Token | Shape::Opaque => {}
        }
    }

    /// The array, mutably, if this shape is one.
    ///
    /// ```
    /// let mut s: layout_runtime::Shape = "f32[3]".parse().unwrap();
    /// s.as_array_mut().unwrap().layout.as_mut().unwrap().memory_space = 1;
    /// assert_eq!(s.to_string(), "f32[3]{0:S(1)}");
    /// ```
    pub fn as_array_mut(&mut self) -> Option<&mut ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }
}

impl From<ArrayShape> for Shape {
    fn from(a: ArrayShape) -> Shape {
        Shape::Array(a)
    }
}

/// The array of an array shape; anything else is the error of [`Shape::try_array`].
///
/// ```
/// use layout_runtime::{ArrayShape, Shape};
/// let s: Shape = "f32[3,5]{0,1}".parse()?;
/// let a = ArrayShape::try_from(s)?;
/// assert_eq!(a.to_string(), "f32[3,5]{0,1}");
/// assert!(ArrayShape::try_from(Shape::Token).is_err());
/// # Ok::<(), layout_runtime::Error>(())
/// ```
impl TryFrom<Shape> for ArrayShape {
    type Error = Error;

    fn try_from(shape: Shape) -> Result<ArrayShape, Error> {
        match shape {
            Shape::Array(a) => Ok(a),
            other => Err(other.not_an_array()),
        }
    }
}
