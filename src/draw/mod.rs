//! Pictures of layouts, as text: SVG maps of a 2-D slice of any array shape, and (with the
//! `hlo` feature) the HTML report of an HLO module.
//!
//! [`map_svg`] draws two panels side by side, in the manner of Figure 1 of XLA's tiled-layout
//! document: on the left the logical slice, one cell per element showing its memory offset,
//! coloured by tile with each tile level framed; on the right memory order, offsets `0..` in
//! rows, each cell showing the logical index stored there (for a window, where its cells
//! are). Padding is hatched in both. A picture wider than a laptop's screen puts the memory
//! panel under the logical one, and every picture scales down to the width of its page.
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
//! bounded ([`MAX_CELLS`] cells per panel, whatever the shape; [`Window`] says which), says in
//! its text when it shows only part of the array, and escapes all the text it carries.

mod geometry;
#[cfg(feature = "hlo")]
mod html;
mod map;
mod svg;
mod window;

#[cfg(feature = "hlo")]
pub use html::{oom_html, report_html, HtmlOptions, HtmlPage, OOM_ROWS, PAGE_MAPS};
pub use map::{map_svg, MapOptions, DEFAULT_CELLS, DEFAULT_ROWS};
pub use svg::escape;
pub use window::{Window, MAX_CELLS, MAX_MEMORY_ROW};

/// For each tile level of `plan` (first applied first), how many consecutive positions of
/// memory one of its tiles takes: the grid divided among that level's tiles, which is more
/// than the tile's own elements when a later level pads it (`T(3)(2)` keeps each 3-element
/// tile in 4 positions). Where a later level of higher rank re-splits a level's tile counts,
/// its tiles are no single runs; that level gets the tile's own element count, which still
/// marks runs of memory. Pictures draw tile frames where the run changes.
///
/// ```
/// use xlayout::{draw, ArrayShape};
/// let spans = |t: &str| draw::tile_spans(&t.parse::<ArrayShape>().unwrap().plan().unwrap());
/// assert_eq!(spans("bf16[16,256]{1,0:T(8,128)(2,1)}"), [1024, 2]);
/// assert_eq!(spans("f32[3]{0:T(3)(2)}"), [4, 2]);
/// assert_eq!(spans("f32[3,5]"), []);
/// ```
pub fn tile_spans(plan: &crate::Plan) -> alloc::vec::Vec<usize> {
    geometry::block_spans(plan).0
}
