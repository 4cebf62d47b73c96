//! (f) Pictures: any array shape drawn as `xlayout map --svg` and a notebook's `_repr_svg_`
//! draw it (`xlayout::draw::map_svg`), with any window, and in the maps of the HTML report.
//!
//! Properties: no panic, whatever the shape's numbers (dimensions of 0 under tiles of 2³¹ or
//! 2⁶³−1, `*` merges, sub-byte `E(n)`, `L(n)`, leading indices, origins and windows at the
//! ends of `usize`); a picture has at most [`MAX_CELLS`] cells per panel and at most
//! [`MAX_SVG_BYTES`] bytes, so what is drawn is sized by what is drawn, never by the shape;
//! a page with a shape's map is at most [`MAX_PAGE_BYTES`].

use arbitrary::{Result, Unstructured};
use xlayout::draw::{map_svg, report_html, HtmlOptions, MapOptions, MAX_CELLS};
use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
use xlayout::{ArrayShape, Dim, Layout, Tile, TileDim};

use super::{any_array, permutation, weighted, Reached, TYPES};

/// The largest picture: two panels of [`MAX_CELLS`] cells, each cell a group of a few
/// hundred bytes (its offset, index and tooltip), plus frames and labels. The largest the
/// bounded tests have drawn is 5.6 MB (`s4[1099511627776,5]{1,0:E(4)}`, tiles mode, the
/// largest window); `f32[4096,4096]{1,0:T(8,128)}` with a window of 16,384 elements is 5.2 MB.
pub const MAX_SVG_BYTES: usize = 16 << 20;

/// The largest page of one module with one map: the page's own text, tables and scripts,
/// and a map whose memory panel may have [`MAX_CELLS`] cells (the largest the bounded tests
/// have written is 4.6 MB, `u2[]{:L(998242)E(2)}`: one element and its tail padding).
pub const MAX_PAGE_BYTES: usize = 16 << 20;

/// Sizes of dimensions: small ones, 0, and those whose tiled grid is at the ends of `usize`.
const SIZES: &[u64] = &[0, 0, 1, 2, 3, 5, 9, 130, 1 << 20, 1 << 31, 1 << 40, i64::MAX as u64];

/// Tile entries: `*` (as `None`), small sizes, and enormous ones.
const TILE_ENTRIES: &[Option<u64>] = &[
    None,
    Some(1),
    Some(2),
    Some(3),
    Some(8),
    Some(128),
    Some(1 << 31),
    Some((1 << 32) + 1),
    Some(1 << 62),
    Some(i64::MAX as u64),
];

/// Positions and sizes of windows: small, and at the ends of `usize`.
const POSITIONS: &[usize] = &[0, 1, 2, 7, 64, 300, 1 << 31, usize::MAX / 2, usize::MAX];

/// An array shape and map options from the bytes, or, after a 0 byte, a shape's text (then
/// with the default options); drawn with the properties above.
pub fn draw_case(data: &[u8]) -> Reached {
    if let Some((&0, text)) = data.split_first() {
        return match String::from_utf8_lossy(text).parse::<ArrayShape>() {
            Ok(shape) => draw_properties(&shape, &MapOptions::default()),
            Err(_) => Reached::Nothing,
        };
    }
    let mut u = Unstructured::new(data);
    let case = (|| -> Result<(ArrayShape, MapOptions)> {
        let shape = if weighted(&mut u, 64)? { any_array(&mut u)? } else { hostile_array(&mut u)? };
        let options = any_options(&mut u, shape.rank())?;
        Ok((shape, options))
    })();
    match case {
        Ok((shape, options)) => draw_properties(&shape, &options),
        Err(_) => Reached::Nothing,
    }
}

/// A picture (or an error) within the bounds; and, with the default options, the report's
/// page of a module whose only buffer has the shape, within its bound.
pub fn draw_properties(shape: &ArrayShape, options: &MapOptions) -> Reached {
    let reached = match map_svg(shape, options) {
        Ok(svg) => {
            assert!(svg.len() <= MAX_SVG_BYTES, "{shape} {options:?}: {} bytes", svg.len());
            let cells = svg.matches("<g class=\"cell").count();
            assert!(cells <= 2 * MAX_CELLS, "{shape} {options:?}: {cells} cells");
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
            Reached::Full
        }
        Err(e) => {
            let _ = e.to_string();
            Reached::Refused
        }
    };
    if *options == MapOptions::default() && shape.check().is_ok() {
        // Scheduled, so the parameter is live at the peak and its shape gets a map.
        let text = format!(
            "HloModule m, is_scheduled=true\n\nENTRY %e () -> {shape} {{\n  ROOT %p = {shape} \
             parameter(0)\n}}\n"
        );
        let module = Module::parse(&text);
        let analysis = Analysis::new(&module);
        let report = Report::new(&analysis, ReportOptions::default());
        let page = report_html(&report, &HtmlOptions::default());
        assert!(page.len() <= MAX_PAGE_BYTES, "{shape}: a page of {} bytes", page.len());
    }
    reached
}

/// An array whose numbers are hostile to a picture: sizes of 0 and near the ends of `usize`,
/// tiles of 2³¹ to 2⁶³−1 and `*`, any element type of [`TYPES`] with its `E(n)`, `L(n)`.
fn hostile_array(u: &mut Unstructured) -> Result<ArrayShape> {
    let &(element_type, widths) = u.choose(TYPES)?;
    let rank = u.int_in_range(0..=4)?;
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(Dim::Static(*u.choose(SIZES)?));
    }
    let mut layout = Layout::new(permutation(u, rank)?);
    for _ in 0..u.int_in_range(0..=3)? {
        let len = u.int_in_range(1..=rank + 1)?;
        let mut tile = Vec::with_capacity(len);
        for _ in 0..len {
            tile.push(u.choose(TILE_ENTRIES)?.map_or(TileDim::Combine, TileDim::Size));
        }
        layout.tiles.push(Tile { dims: tile });
    }
    if !weighted(u, 200)? {
        layout.tail_padding_alignment_in_elements = *u.choose(&[2, 3, 1 << 20, i64::MAX])?;
    }
    layout.element_size_in_bits = *u.choose(widths)?;
    Ok(ArrayShape { element_type, dims, layout: Some(layout) })
}

/// Map options: mostly the defaults' parts, sometimes at the ends of `usize`.
fn any_options(u: &mut Unstructured, rank: usize) -> Result<MapOptions> {
    let mut o = MapOptions::default();
    if !weighted(u, 128)? {
        let len = if weighted(u, 240)? { rank.saturating_sub(2) } else { u.int_in_range(0..=3)? };
        let mut at = Vec::with_capacity(len);
        for _ in 0..len {
            at.push(*u.choose(&[0, 0, 1, usize::MAX])?);
        }
        o.at = Some(at);
    }
    if !weighted(u, 160)? {
        o.origin = (*u.choose(POSITIONS)?, *u.choose(POSITIONS)?);
    }
    if !weighted(u, 128)? {
        o.window = Some((*u.choose(POSITIONS)?, *u.choose(POSITIONS)?));
    }
    o.tiles = !weighted(u, 160)?;
    if !weighted(u, 200)? {
        o.memory_row = Some(*u.choose(POSITIONS)?);
    }
    Ok(o)
}
