//! The SVG map of a layout: a logical panel and a memory-order panel, side by side.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

use super::geometry::Geometry;
use super::svg::{escape, Cell, Colours, Kind, Panel, DEFS, STYLE};
use crate::{ArrayShape, Error, ErrorKind};

/// Cells per panel at most, whatever the window asks for; a larger request is cut to its
/// top-left part and the picture says so.
pub const MAX_CELLS: usize = 16384;
/// Element cells per panel when no window is given: the whole slice when it has at most this
/// many, else its top-left corner (64 rows at most), and the picture says so. The tiles mode
/// draws up to [`MAX_CELLS`] tiles by default.
pub const DEFAULT_CELLS: usize = 4096;
/// The widest memory row, in cells.
pub const MAX_MEMORY_ROW: usize = 256;
/// Rows shown by default when the slice has more than [`DEFAULT_CELLS`] cells.
const DEFAULT_ROWS: usize = 64;

/// What [`map_svg`] draws.
///
/// ```
/// use xlayout::draw::MapOptions;
/// // Rows 8..16 and columns 128..256 of the slice at index 3 of dimension 0.
/// let o = MapOptions { at: Some(vec![3]), origin: (8, 128), window: Some((8, 128)), ..MapOptions::default() };
/// assert!(!o.tiles);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapOptions {
    /// The indices of the dimensions before the last two (rank > 2), which fix the slice;
    /// `None` is all zeros.
    pub at: Option<Vec<usize>>,
    /// The top-left cell of the window, (row, column): element indices, or tile indices with
    /// [`MapOptions::tiles`]. Rows and columns past the array's last one are first-level
    /// padding, drawn hatched.
    pub origin: (usize, usize),
    /// The window's rows and columns, in cells; `None` draws the whole slice when it has at
    /// most [`DEFAULT_CELLS`] cells. Cut to [`MAX_CELLS`] cells.
    pub window: Option<(usize, usize)>,
    /// One cell per first-level tile (showing the tile's first offset) instead of one per
    /// element; the memory panel then has one cell per tile in memory order.
    pub tiles: bool,
    /// Cells per row of the memory panel; `None` picks rows of the innermost tile (see
    /// [`map_svg`]). Cut to [`MAX_MEMORY_ROW`].
    pub memory_row: Option<usize>,
}

/// A standalone SVG picture of a 2-D slice of `shape` (the last two dimensions, the others
/// fixed by [`MapOptions::at`]) in two panels.
///
/// - **Logical**: one cell per element, showing its memory offset, in the element's tile
///   colour; first-level padding (rows and columns up to whole tiles) hatched with its offsets
///   in grey; each tile level framed by its own line (thickest for the first level); axes
///   labelled with the dimension numbers and indices.
/// - **Memory order**: offsets in rows (by default the elements of one innermost tile, joined
///   with the next axis of the index space until a row has at least 4 cells, and at most
///   [`MAX_MEMORY_ROW`]), each cell showing the logical index stored there; padding, and the
///   `L(n)` tail, hatched. It covers the offsets of the window, or all of them when the
///   window is the whole array.
///
/// The title gives the shape's text, its physical order, its tiles and its memory index
/// space. With [`MapOptions::tiles`] both panels have one cell per first-level tile instead.
/// Cells carry `data-index` and `data-offset` attributes and a tooltip; all text is escaped.
///
/// Errors: a shape without an index space (dynamic `?` dimension, `*` as a tile's last
/// entry, sizes beyond `usize`), `at` of the wrong length or out of range, an origin
/// outside the slice, a zero window, and the tiles mode for a first tile with `*` (the tiles
/// mode of an untiled layout draws its elements, and says so).
///
/// ```
/// use xlayout::{draw, ArrayShape};
///
/// let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let svg = draw::map_svg(&s, &draw::MapOptions::default())?;
/// // Logical panel: 4x6 cells (the 3x5 array padded to whole 2x2 tiles); memory panel: the
/// // 24 offsets in rows of one 2x2 tile. 9 padding cells in each.
/// assert_eq!(svg.matches(r#"<g class="cell""#).count(), 2 * 15);
/// assert_eq!(svg.matches(r#"<g class="cell pad""#).count(), 2 * 9);
/// assert!(svg.contains(r#"<g class="cell pad" data-index="3,0" data-offset="14">"#));
///
/// let big: ArrayShape = "f32[4096,4096]{1,0:T(8,128)}".parse()?;
/// let tiles = draw::MapOptions { tiles: true, ..draw::MapOptions::default() };
/// let svg = draw::map_svg(&big, &tiles)?;
/// assert_eq!(svg.matches(r#"<g class="cell""#).count(), 2 * 512 * 32); // every tile, twice
/// # Ok::<(), xlayout::Error>(())
/// ```
pub fn map_svg(shape: &ArrayShape, options: &MapOptions) -> Result<String, Error> {
    render(shape, options, true)
}

/// [`map_svg`]; without its hatch pattern and style sheet unless `standalone` (a page that
/// shows several maps provides them once: [`DEFS`], [`STYLE`]).
pub(crate) fn render(
    shape: &ArrayShape,
    options: &MapOptions,
    standalone: bool,
) -> Result<String, Error> {
    let g = Geometry::new(shape, options.at.as_deref())?;
    let tiles = options.tiles && !g.recipe.levels.is_empty();
    let mut panels = if tiles { tile_panels(&g, options)? } else { element_panels(&g, options)? };
    if options.tiles && !tiles {
        panels[0].notes.push(String::from("the layout has no tiles: one cell per element"));
    }
    Ok(assemble(shape, &g, &panels, tiles, standalone))
}

/// The window that shows the first first-level tile of the slice (its rows and columns,
/// at most `cells` cells, and no more than the padded slice has); `None` for an untiled
/// layout, a first tile with `*`, or a shape without an index space.
#[cfg(feature = "hlo")]
pub(crate) fn first_tile_window(shape: &ArrayShape, cells: usize) -> Option<(usize, usize)> {
    let g = Geometry::new(shape, None).ok()?;
    let extents = g.tile_extents().ok()?;
    let rank = extents.len();
    let (th, tw) = match rank {
        0 => (1, 1),
        1 => (1, extents[0]),
        _ => (extents[rank - 2], extents[rank - 1]),
    };
    let cols = tw.min(g.padded_cols).clamp(1, MAX_MEMORY_ROW);
    let rows = th.min(g.padded_rows).min(cells / cols).max(1);
    Some((rows, cols))
}

/// The part of the drawn extent a panel shows.
struct Window {
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
    /// Whether it is the whole extent.
    whole: bool,
    /// What the picture says about it, if anything.
    note: Option<String>,
}

fn window(
    extent: (usize, usize),
    options: &MapOptions,
    unit: &str,
    default_cells: usize,
) -> Result<Window, Error> {
    let (r0, c0) = options.origin;
    let (er, ec) = extent;
    if (r0, c0) != (0, 0) && (r0 >= er || c0 >= ec) {
        return Err(Error::new(
            ErrorKind::IndexOutOfBounds,
            format!("the window origin ({r0},{c0}) is outside the {er}x{ec} {unit}s drawn"),
        ));
    }
    let (ar, ac) = (er.saturating_sub(r0), ec.saturating_sub(c0));
    let (mut rows, mut cols) = match options.window {
        Some((0, _)) | Some((_, 0)) => {
            return Err(Error::new(
                ErrorKind::IndexOutOfBounds,
                "a window needs at least one row and one column",
            ))
        }
        Some((r, c)) => (r.min(ar), c.min(ac)),
        None if ar.saturating_mul(ac) <= default_cells => (ar, ac),
        None => {
            let rows = ar.min(DEFAULT_ROWS);
            (rows, ac.min(default_cells / rows.max(1)))
        }
    };
    let capped = rows.saturating_mul(cols) > MAX_CELLS;
    if capped {
        cols = cols.min(MAX_MEMORY_ROW);
        rows = rows.min(MAX_CELLS / cols.max(1));
    }
    let whole = (r0, c0, rows, cols) == (0, 0, er, ec);
    let note = (!whole).then(|| {
        let mut n = format!(
            "showing {unit} rows {r0}..{} of {er}, columns {c0}..{} of {ec}",
            r0 + rows,
            c0 + cols
        );
        if capped {
            let _ = write!(n, " (at most {MAX_CELLS} cells per panel)");
        } else if options.window.is_none() {
            n += " (choose a window to see more)";
        }
        n
    });
    Ok(Window { r0, c0, rows, cols, whole, note })
}

/// `2,3`; `()` for a scalar's empty index.
fn index_text(ix: &[usize]) -> String {
    if ix.is_empty() {
        return String::from("()");
    }
    let parts: Vec<String> = ix.iter().map(ToString::to_string).collect();
    parts.join(",")
}

/// The default row of the memory panel: the memory one innermost tile spans (`innermost`
/// elements, a suffix of the index space `axes`), widened by the next axes outward until it
/// has at least 4 cells, narrowed to a shorter suffix while it has more than
/// [`MAX_MEMORY_ROW`]; a span that is no suffix of the index space is used as it is.
fn memory_row(axes: &[usize], innermost: usize) -> usize {
    let n = axes.len();
    let (mut s, mut w) = (0, 1usize);
    while w < innermost && s < n {
        s += 1;
        w = w.saturating_mul(axes[n - s]);
    }
    if w != innermost {
        return innermost.clamp(1, MAX_MEMORY_ROW);
    }
    while w < 4 && s < n {
        s += 1;
        w = w.saturating_mul(axes[n - s]);
    }
    while w > MAX_MEMORY_ROW && s > 1 && axes[n - s] > 0 && w / axes[n - s] >= 4 {
        w /= axes[n - s];
        s -= 1;
    }
    w.clamp(1, MAX_MEMORY_ROW)
}

/// What the rows and columns of the logical panel are.
fn axes(g: &Geometry, rows: &str, cols: &str) -> String {
    match g.plan.rank() {
        0 => String::from("a scalar: one element"),
        1 => format!("columns: dim 0{cols}"),
        rank => format!("rows: dim {}{rows}; columns: dim {}{cols}", rank - 2, rank - 1),
    }
}

/// `slice [1, :, :]` for a rank > 2, else nothing.
fn slice_text(g: &Geometry) -> String {
    if g.lead.is_empty() {
        return String::new();
    }
    let lead: Vec<String> = g.lead.iter().map(ToString::to_string).collect();
    format!(" of slice [{}, :, :]", lead.join(", "))
}

fn element_panels(g: &Geometry, o: &MapOptions) -> Result<[Panel; 2], Error> {
    let win = window((g.padded_rows, g.padded_cols), o, "element", DEFAULT_CELLS)?;
    let mut cells = Vec::with_capacity(win.rows * win.cols);
    for r in win.r0..win.r0 + win.rows {
        for c in win.c0..win.c0 + win.cols {
            let (offset, pad) = g.offset(r, c)?;
            let ix = index_text(&g.index(r, c));
            let tooltip = if pad {
                format!("({ix}) padding, at offset {offset}")
            } else {
                format!("({ix}) at offset {offset}")
            };
            let kind = if pad { Kind::Padding } else { Kind::Data };
            let label = offset.to_string();
            cells.push(Cell { offset, kind, index: Some(ix), label, partial: false, tooltip });
        }
    }
    let mut notes: Vec<String> = win.note.iter().cloned().collect();
    if g.rows == 0 || g.cols == 0 {
        notes.push(format!("the slice has no elements: it is {}x{}", g.rows, g.cols));
    }
    let colour_span = g.blocks.first().copied().unwrap_or(usize::MAX);
    let logical = Panel {
        class: "logical",
        heading: format!("logical{}: the offset of each element", slice_text(g)),
        axes: axes(g, "", ""),
        col_labels: (win.c0..win.c0 + win.cols).map(|c| c.to_string()).collect(),
        row_labels: (win.r0..win.r0 + win.rows).map(|r| r.to_string()).collect(),
        cols: win.cols,
        cells,
        frames: g.blocks.clone(),
        colour_span,
        closed: win.whole && g.whole_tiles && !g.blocks.is_empty(),
        notes,
    };
    let innermost = g.blocks.last().copied().unwrap_or(1);
    let row = o.memory_row.unwrap_or_else(|| memory_row(g.plan.expanded_shape(), innermost));
    let whole = win.whole && g.lead.is_empty();
    let memory = memory_panel(g, &logical.cells, whole, row.clamp(1, MAX_MEMORY_ROW), 1, |k| {
        let mut ix = vec![0; g.plan.rank()];
        if k >= g.plan.grid_len() {
            (Kind::Tail, None, format!("offset {k}: tail padding (L)"))
        } else if g.plan.index_of_into(k, &mut ix) {
            let text = index_text(&ix);
            let tip = format!("offset {k} holds ({text})");
            (Kind::Data, Some(text), tip)
        } else {
            (Kind::Padding, None, format!("offset {k}: padding"))
        }
    });
    Ok([logical, memory])
}

/// The memory-order panel: positions `k` (offset `k * unit`) from the first to the last one
/// the logical cells touch (all positions when `whole`), `row` per row; `what(k)` says what
/// position `k` holds: its kind, its logical index and a tooltip.
fn memory_panel(
    g: &Geometry,
    shown: &[Cell],
    whole: bool,
    row: usize,
    unit: usize,
    what: impl Fn(usize) -> (Kind, Option<String>, String),
) -> Panel {
    let total = g.plan.padded_len().div_ceil(unit);
    let (start, end) = if whole {
        (0, total)
    } else {
        let lo = shown.iter().map(|c| c.offset / unit).min().unwrap_or(0);
        let hi = shown.iter().map(|c| c.offset / unit + 1).max().unwrap_or(0);
        let start = lo / row * row;
        (start, hi.div_ceil(row).saturating_mul(row).clamp(start, total.max(start)))
    };
    let most = (MAX_CELLS / row).max(1) * row;
    let mut notes = Vec::new();
    let end_shown = if end - start > most {
        notes.push(format!(
            "showing positions {start}..{} of the {start}..{end} the window touches (at most \
             {MAX_CELLS} cells per panel)",
            start + most
        ));
        start + most
    } else {
        end
    };
    let in_units = if unit == 1 { String::new() } else { format!(" x {unit} elements") };
    if end_shown < total && whole {
        notes.push(format!("{total} positions in all"));
    }
    let cells = (start..end_shown)
        .map(|k| {
            let (kind, index, tooltip) = what(k);
            let label = match (&index, kind) {
                (Some(ix), _) => ix.clone(),
                _ => String::new(),
            };
            let offset = k.saturating_mul(unit);
            Cell { offset, kind, index, label, partial: false, tooltip }
        })
        .collect::<Vec<_>>();
    let rows = (end_shown - start).div_ceil(row);
    Panel {
        class: "memory",
        heading: if unit == 1 {
            format!(
                "memory order: offsets {start}..{end_shown}, {row} per row, each with its element"
            )
        } else {
            format!(
                "memory order: tiles {start}..{end_shown} ({unit} elements each), {row} per row, \
                 each with its first element"
            )
        },
        axes: format!("rows: the first offset of each; columns: position in the row{in_units}"),
        col_labels: (0..row.min(end_shown - start)).map(|c| c.to_string()).collect(),
        row_labels: (0..rows)
            .map(|r| ((start + r * row).saturating_mul(unit)).to_string())
            .collect(),
        cols: row,
        cells,
        frames: if unit == 1 { g.blocks.clone() } else { Vec::new() },
        colour_span: g.blocks.first().copied().unwrap_or(usize::MAX),
        closed: whole && end_shown == total && !g.blocks.is_empty(),
        notes,
    }
}

fn tile_panels(g: &Geometry, o: &MapOptions) -> Result<[Panel; 2], Error> {
    let extents = g.tile_extents()?;
    let (Some(counts), Some(&unit)) = (&g.tile_counts, g.blocks.first()) else {
        return Err(Error::new(
            ErrorKind::CombinedDimension,
            "cannot draw one cell per tile: a later tile level splits the axes that count the \
             first-level tiles, so a tile is not one run of memory",
        ));
    };
    let rank = g.plan.rank();
    let dims = g.plan.dims();
    let (th, tw) = match rank {
        0 => (1, 1),
        1 => (1, extents[0]),
        _ => (extents[rank - 2], extents[rank - 1]),
    };
    // The tile holding the slice's leading index starts at it rounded down to the tile.
    let lead: Vec<usize> = g.lead.iter().zip(&extents).map(|(&i, &e)| i / e * e).collect();
    let partial =
        |corner: &[usize]| corner.iter().zip(&extents).zip(dims).any(|((&i, &e), &d)| i + e > d);
    let win = window((g.rows.div_ceil(th), g.cols.div_ceil(tw)), o, "tile", MAX_CELLS)?;
    let mut cells = Vec::with_capacity(win.rows * win.cols);
    for tr in win.r0..win.r0 + win.rows {
        for tc in win.c0..win.c0 + win.cols {
            let mut corner = lead.clone();
            match rank {
                0 => {}
                1 => corner.push(tc * tw),
                _ => corner.extend([tr * th, tc * tw]),
            }
            let offset = g.plan.offset(&corner)?;
            let ix = index_text(&corner);
            let partial = partial(&corner);
            let tooltip = format!(
                "tile from ({ix}): offsets {offset}..{}{}",
                offset + unit,
                if partial { ", reaching past the array (partly padding)" } else { "" }
            );
            let label = offset.to_string();
            cells.push(Cell { offset, kind: Kind::Data, index: Some(ix), label, partial, tooltip });
        }
    }
    let tile_text: Vec<String> =
        extents.iter().enumerate().map(|(d, e)| format!("{e} along dim {d}")).collect();
    let logical = Panel {
        class: "logical",
        heading: format!(
            "logical{}: one cell per first-level tile ({}), its first offset",
            slice_text(g),
            tile_text.join(", ")
        ),
        axes: axes(g, &format!(" in tiles of {th}"), &format!(" in tiles of {tw}")),
        col_labels: (win.c0..win.c0 + win.cols).map(|c| (c * tw).to_string()).collect(),
        row_labels: (win.r0..win.r0 + win.rows).map(|r| (r * th).to_string()).collect(),
        cols: win.cols,
        cells,
        frames: Vec::new(),
        colour_span: unit,
        closed: false,
        notes: win.note.into_iter().collect(),
    };
    let row = o.memory_row.unwrap_or_else(|| memory_row(counts, 1)).clamp(1, MAX_MEMORY_ROW);
    let whole = win.whole && g.lead.is_empty();
    let mut memory = memory_panel(g, &logical.cells, whole, row, unit, |k| {
        let offset = k.saturating_mul(unit);
        match g.plan.index_of(offset) {
            _ if offset >= g.plan.grid_len() => {
                (Kind::Tail, None, format!("offsets from {offset}: tail padding (L)"))
            }
            Some(ix) => {
                let text = index_text(&ix);
                (Kind::Data, Some(text.clone()), format!("tile {k} from ({text}), offset {offset}"))
            }
            None => (Kind::Padding, None, format!("offset {offset}: padding")),
        }
    });
    for cell in &mut memory.cells {
        if cell.kind == Kind::Data {
            cell.partial = g.plan.index_of(cell.offset).is_some_and(|ix| partial(&ix));
        }
    }
    Ok([logical, memory])
}

/// The whole SVG: title lines, legend, and the panels side by side.
fn assemble(
    shape: &ArrayShape,
    g: &Geometry,
    panels: &[Panel; 2],
    tiles: bool,
    standalone: bool,
) -> String {
    let shape_text = shape.to_string();
    let r = &g.recipe;
    let order: Vec<String> = r.to_physical.iter().map(|d| format!("dim {d}")).collect();
    let tiles_text: String = r
        .levels
        .iter()
        .map(|l| {
            let t: Vec<String> = l.tile.iter().map(ToString::to_string).collect();
            format!("({})", t.join(","))
        })
        .collect();
    let line2 = format!(
        "physical order, major to minor: {}; {}",
        if order.is_empty() { String::from("(scalar)") } else { order.join(", ") },
        if tiles_text.is_empty() { String::from("untiled") } else { format!("tiles {tiles_text}") }
    );
    let space: Vec<String> = g.plan.expanded_shape().iter().map(ToString::to_string).collect();
    let elements: usize = g.plan.dims().iter().product();
    let mut line3 = format!(
        "index space [{}] = ({}); {} positions for {} elements, {} padding",
        space.join(","),
        g.plan.expanded_axis_names().join(", "),
        g.plan.grid_len(),
        elements,
        g.plan.grid_len() - elements.min(g.plan.grid_len()),
    );
    let tail = g.plan.padded_len() - g.plan.grid_len();
    if tail > 0 {
        let _ = write!(line3, ", then {tail} of L tail padding");
    }
    let lines = [shape_text.as_str(), &line2, &line3];
    let mut legend = vec![(
        String::from("hatch"),
        String::from(if tiles { "partly padding" } else { "padding" }),
    )];
    if !tiles {
        for (k, l) in r.levels.iter().enumerate() {
            let t: Vec<String> = l.tile.iter().map(ToString::to_string).collect();
            let class = if k >= 2 { format!("level{k} deep") } else { format!("level{k}") };
            legend.push((class, format!("tile level {k} ({})", t.join(","))));
        }
    }
    const TOP: usize = 96;
    const GAP: usize = 48;
    const MARGIN: usize = 12;
    let (w1, h1) = panels[0].size();
    let (w2, h2) = panels[1].size();
    let title_width = lines.iter().map(|l| l.chars().count() * 9).max().unwrap_or(0);
    let width = (MARGIN + w1 + GAP + w2 + MARGIN).max(MARGIN + title_width);
    let height = TOP + h1.max(h2) + MARGIN;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="xlayout-map" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11" data-shape="{}" data-mode="{}"><title>{}</title>"#,
        escape(&shape_text),
        if tiles { "tiles" } else { "elements" },
        escape(&shape_text)
    );
    if standalone {
        let _ = write!(out, "{DEFS}<style>{STYLE}</style>");
    }
    let _ = write!(out, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    for (k, line) in lines.iter().enumerate() {
        let class = if k == 0 { "title" } else { "subtitle" };
        let _ = write!(
            out,
            r#"<text class="{class}" x="{MARGIN}" y="{}">{}</text>"#,
            22 + 18 * k,
            escape(line)
        );
    }
    let mut x = MARGIN;
    for (what, text) in &legend {
        let y = 76;
        if what == "hatch" {
            let _ = write!(
                out,
                r##"<rect x="{x}" y="{}" width="22" height="14" fill="#e0e0e0"/><rect class="hatch" x="{x}" y="{}" width="22" height="14"/>"##,
                y - 11,
                y - 11
            );
        } else {
            let _ = write!(out, r#"<path class="frame {what}" d="M{x},{}h22"/>"#, y - 4);
        }
        let _ =
            write!(out, r#"<text class="legend" x="{}" y="{y}">{}</text>"#, x + 28, escape(text));
        x += 28 + text.chars().count() * 7 + 20;
    }
    let mut colours = Colours::default();
    panels[0].write(&mut out, MARGIN, TOP, &mut colours);
    panels[1].write(&mut out, MARGIN + w1 + GAP, TOP, &mut colours);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_rows_follow_the_innermost_tile() {
        assert_eq!(memory_row(&[2, 3, 2, 2], 4), 4); // Figure 1: one 2x2 tile per row
        assert_eq!(memory_row(&[2, 2, 4, 128, 2, 1], 2), 256); // (2,1) pairs across a tile row
        assert_eq!(memory_row(&[512, 32, 8, 128], 1024), 128); // f32 T(8,128): a tile row
        assert_eq!(memory_row(&[3, 5], 1), 5); // untiled: a row of the array
        assert_eq!(memory_row(&[3, 1000], 1), MAX_MEMORY_ROW);
        assert_eq!(memory_row(&[512, 32], 1), 32); // tiles mode: the tiles of a tile row
        assert_eq!(memory_row(&[], 1), 1); // a scalar
        assert_eq!(memory_row(&[0, 5], 1), 5);
        assert_eq!(memory_row(&[3, 5], 7), 7); // not a suffix: as it is
    }
}
