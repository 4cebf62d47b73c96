//! Pictures of layouts, as text: SVG maps of a 2-D slice of any array shape.
//!
//! [`map_svg`] draws two panels side by side, in the manner of Figure 1 of XLA's tiled-layout
//! document: on the left the logical slice, one cell per element showing its memory offset,
//! coloured by tile with each tile level framed; on the right memory order, offsets `0..` in
//! rows, each cell showing the logical index stored there. Padding is hatched in both.
//!
//! ```
//! use xlayout::{draw, ArrayShape};
//!
//! let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
//! let svg = draw::map_svg(&s, &draw::MapOptions::default())?;
//! assert!(svg.starts_with("<svg"));
//! assert!(svg.contains(r#"data-index="2,3" data-offset="17""#)); // Figure 1's example element
//! # Ok::<(), xlayout::Error>(())
//! ```
//!
//! All index arithmetic is the [`Plan`](crate::Plan)'s: the pictures read offsets, inverse
//! indices and tile levels off it and never compute a tiled index themselves. Every picture is
//! bounded ([`MAX_CELLS`] cells per panel, whatever the shape), says in its text when it shows
//! only part of the array, and escapes all the text it carries.

mod geometry;
mod map;
mod svg;

pub use map::{map_svg, MapOptions, DEFAULT_CELLS, MAX_CELLS, MAX_MEMORY_ROW};
pub use svg::escape;
