//! XLA's array shapes and tiled layouts at run time.
//!
//! One model of XLA shapes (`f32[3,5]{1,0:T(2,2)}`), one parser and printer that agree byte
//! for byte with XLA's, one validator that accepts exactly what XLA accepts, XLA's size
//! functions, and the address arithmetic of tiled layouts.
//!
//! ```
//! use layout_runtime::ArrayShape;
//!
//! let s: ArrayShape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse()?;
//! assert_eq!(s.to_string(), "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
//! assert_eq!(s.byte_size()?, 335_544_320);
//! # Ok::<(), layout_runtime::Error>(())
//! ```
//!
//! Features: `alloc` (default) for everything that parses or owns shapes; `std` (default)
//! for `std::error::Error`. Without `alloc`: [`PrimitiveType`], [`Divider`], the element
//! types ([`Element`], [`bf16`], [`F8e4m3fn`], [`S4`], ...) and the static layouts of
//! [`fixed`] (what the `layout!` macro of the `xlayout` crate generates).
//! `rayon` (off by default, implies `std`) adds `RelayoutPlan::run_parallel`, converting
//! buffers on all cores; [`relayout`] and [`RelayoutPlan`] themselves need only `alloc`.
#![no_std]
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod dim;
mod divide;
mod element;
pub mod fixed;
mod primitive;
pub use dim::{Dim, TileDim};
pub use divide::Divider;
pub use element::{
    bf16, elem, element_packed_bits, f16, Element, F4e2m1fn, F6e2m3fn, F6e3m2fn, F8e3m4, F8e4m3,
    F8e4m3b11fnuz, F8e4m3fn, F8e4m3fnuz, F8e5m2, F8e5m2fnuz, F8e8m0fnu, Float, OutOfRange, SubByte,
    S1, S2, S4, U1, U2, U4,
};
pub use fixed::{
    Buffer, InlineLayout, PackedBuffer, PackedLayout, StaticLayout, StaticView, StaticViewMut,
    TiledLayout, TypedLayout,
};
#[cfg(feature = "alloc")]
pub use fixed::{HeapBuffer, PackedHeapBuffer};
pub use primitive::{PrimitiveType, UnknownPrimitiveType};

#[doc(hidden)]
#[path = "doc_layouts.rs"]
pub mod __doc_layouts;

#[cfg(feature = "alloc")]
pub mod algebra;
#[cfg(feature = "alloc")]
mod aligned;
#[cfg(feature = "alloc")]
mod byte_range;
#[cfg(feature = "alloc")]
mod checked;
#[cfg(feature = "alloc")]
mod error;
#[cfg(feature = "alloc")]
pub mod limits;
#[cfg(feature = "alloc")]
mod parse;
#[cfg(feature = "alloc")]
mod plan;
#[cfg(feature = "alloc")]
mod print;
#[cfg(feature = "alloc")]
mod relayout;
#[cfg(feature = "alloc")]
mod shape;
#[cfg(feature = "alloc")]
mod size;
#[cfg(feature = "alloc")]
mod subbyte;
#[cfg(feature = "alloc")]
mod tuple;
#[cfg(feature = "alloc")]
mod validate;
#[cfg(feature = "alloc")]
mod view;

#[cfg(feature = "alloc")]
pub use aligned::AlignedBox;
#[cfg(feature = "alloc")]
pub use byte_range::ByteRange;
#[cfg(feature = "alloc")]
pub use checked::CheckedArray;
#[cfg(feature = "alloc")]
pub use error::{Error, ErrorKind, Location, Path, RenderedError};
pub use fixed::IndexStep;
#[cfg(feature = "alloc")]
pub use parse::SourceMap;
#[cfg(feature = "alloc")]
pub use plan::{
    IndexProgram, MemoryOrder, PadReshapeTranspose, Plan, RowMajor, RowMajorOffsets, TileLevel,
};
#[cfg(feature = "std")]
#[doc(hidden)]
pub use relayout::__stream_copy;
#[cfg(feature = "alloc")]
pub use relayout::{relayout, ChosenBy, RelayoutChoice, RelayoutPlan, Simd};
#[cfg(feature = "alloc")]
pub use shape::{ArrayShape, Layout, Shape, SplitConfig, Tile};
#[cfg(feature = "alloc")]
pub use size::{ArraySizeWalk, PaddedDim};
#[cfg(feature = "alloc")]
pub use subbyte::{bit_position, read_packed, write_packed, BitPosition};
#[cfg(feature = "alloc")]
pub use tuple::{Tuple, TupleIter};
#[cfg(feature = "alloc")]
pub use view::{View, ViewMut};
