//! The SVG map of a layout: a logical panel and a memory-order panel, side by side or (when
//! that is wider than a laptop's screen) one under the other; the window both show.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

use super::geometry::{product, Geometry};
use super::svg::{escape, Cell, Colours, Gaps, Kind, Panel, DEFS, STYLE};
use super::window::{Window, MAX_CELLS, MAX_MEMORY_ROW};
use crate::{ArrayShape, Error, ErrorKind};

/// Element cells per panel when no window is given: the whole slice when it has at most this
/// many, else its top-left corner of at most this many (64 rows of a wide slice, more rows of
/// a narrow one), and the picture says so. The tiles mode draws up to [`MAX_CELLS`] tiles by
/// default, by the same rule.
pub const DEFAULT_CELLS: usize = 4096;
/// Rows shown by default when a wide slice has more than [`DEFAULT_CELLS`] cells (a narrow
/// one gets as many more as its columns leave room for).
///
/// ```
/// use xlayout::draw::{map_svg, MapOptions, DEFAULT_CELLS, DEFAULT_ROWS};
/// // 4096 columns: 64 rows of 64. 16 columns: 256 rows of 16. Either way 4096 cells.
/// for (shape, rows) in [("f32[4096,4096]", DEFAULT_ROWS), ("f32[4096,16]", 256)] {
///     let svg = map_svg(&shape.parse()?, &MapOptions::default())?;
///     let note = format!("showing element rows 0..{rows} of 4096, columns 0..{} of", DEFAULT_CELLS / rows);
///     assert!(svg.contains(&note), "{shape}");
/// }
/// # Ok::<(), xlayout::Error>(())
/// ```
pub const DEFAULT_ROWS: usize = 64;
/// The widest picture drawn with its panels side by side: a laptop's 1366-pixel screen less
/// a browser's margins and scroll bar.
const SCREEN_WIDTH: usize = 1280;

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
///   `L(n)` tail, hatched. When the window is the whole array, every position; otherwise
///   where the window's cells are: the rows of memory that hold one of them and, of those
///   rows, the positions that hold one, with dashed lines where rows or columns are left
///   out and the other positions of those rows and columns faded. At most [`MAX_CELLS`]
///   cells (the first rows), and the picture says so.
///
/// The title gives the shape's text, its physical order, its tiles and its memory index
/// space. With [`MapOptions::tiles`] both panels have one cell per first-level tile instead.
/// Tiles next to each other in memory never share a colour. Cells carry `data-index` and
/// `data-offset` attributes and a tooltip; all text is escaped.
///
/// The picture has its natural size (`width`, `height`, a `viewBox`) and a style rule that
/// scales it down to the width of the page it is shown in (`max-width:100%; height:auto`):
/// a browser shows it whole across, and, being vector, it reads when zoomed. A page that
/// embeds maps can override the rule (`.xlayout-map{max-width:none}`). The panels are
/// side by side when that is at most 1280 pixels wide (a laptop's screen), else the memory
/// panel is under the logical one.
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

/// The window of `options` in `extent` cells called `unit`s: by default the whole extent
/// when it has at most `default_cells` cells, else its top-left corner of at most that many:
/// the columns that fit beside [`DEFAULT_ROWS`] rows, then as many rows as those columns
/// leave room for, so a narrow slice (32 columns of tiles) shows as many cells as a wide one
/// instead of 64 rows of them.
fn window(
    extent: (usize, usize),
    options: &MapOptions,
    unit: &'static str,
    default_cells: usize,
) -> Result<Window, Error> {
    let (ar, ac) =
        (extent.0.saturating_sub(options.origin.0), extent.1.saturating_sub(options.origin.1));
    let default = if ar.saturating_mul(ac) <= default_cells {
        (ar, ac)
    } else {
        let cols = ac.min(default_cells / ar.clamp(1, DEFAULT_ROWS));
        (ar.min(default_cells / cols.max(1)), cols)
    };
    Window::new(unit, extent, options.origin, options.window, default)
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
    let (r0, c0) = win.origin;
    let mut cells = Vec::with_capacity(win.rows * win.cols);
    for r in r0..r0 + win.rows {
        for c in c0..c0 + win.cols {
            let (offset, pad) = g.offset(r, c)?;
            let ix = index_text(&g.index(r, c));
            let tooltip = if pad {
                format!("({ix}) padding, at offset {offset}")
            } else {
                format!("({ix}) at offset {offset}")
            };
            let kind = if pad { Kind::Padding } else { Kind::Data };
            let label = offset.to_string();
            cells.push(Cell::new(offset, kind, Some(ix), label, tooltip));
        }
    }
    let mut notes: Vec<String> = win.describe().into_iter().collect();
    if g.rows == 0 || g.cols == 0 {
        notes.push(format!("the slice has no elements: it is {}x{}", g.rows, g.cols));
    }
    let colour_span = g.blocks.first().copied().unwrap_or(usize::MAX);
    let logical = Panel {
        class: "logical",
        heading: format!("logical{}: the offset of each element", slice_text(g)),
        axes: axes(g, "", ""),
        col_labels: (c0..c0 + win.cols).map(|c| c.to_string()).collect(),
        row_labels: (r0..r0 + win.rows).map(|r| r.to_string()).collect(),
        cols: win.cols,
        cells,
        frames: g.blocks.clone(),
        colour_span,
        closed: win.is_whole() && g.whole_tiles && !g.blocks.is_empty(),
        gaps: Gaps::default(),
        notes,
    };
    let innermost = g.blocks.last().copied().unwrap_or(1);
    let row = o.memory_row.unwrap_or_else(|| memory_row(g.plan.expanded_shape(), innermost));
    let whole = win.is_whole() && g.lead.is_empty();
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

/// The memory-order panel, `row` positions per row (position `k` is offset `k * unit`);
/// `what(k)` says what position `k` holds: its kind, its logical index and a tooltip.
///
/// When the logical panel shows the `whole` slice, every position is drawn. Otherwise the
/// panel shows where the `shown` cells are: the rows of memory that hold one of them, and of
/// those rows the columns (positions in a row) that hold one, in order, with a dashed line
/// where rows or columns are left out; the other positions in those rows and columns are
/// drawn faded. Either way at most [`MAX_CELLS`] cells: the first rows that fit, and the
/// picture says so.
fn memory_panel(
    g: &Geometry,
    shown: &[Cell],
    whole: bool,
    row: usize,
    unit: usize,
    what: impl Fn(usize) -> (Kind, Option<String>, String),
) -> Panel {
    let total = g.plan.padded_len().div_ceil(unit);
    // The rows drawn (at most what fits), how many there are in all, their columns, and the
    // positions of the window (`None`: all of memory).
    let (drawn, all_rows, cols, window) = if whole {
        let cols: Vec<usize> = (0..row.min(total)).collect();
        let all_rows = total.div_ceil(row);
        let fit = all_rows.min(MAX_CELLS / cols.len().max(1));
        ((0..fit).collect::<Vec<_>>(), all_rows, cols, None)
    } else {
        let window: BTreeSet<usize> = shown.iter().map(|c| c.offset / unit).collect();
        let rows: BTreeSet<usize> = window.iter().map(|k| k / row).collect();
        let cols: Vec<usize> =
            window.iter().map(|k| k % row).collect::<BTreeSet<_>>().into_iter().collect();
        let fit = (MAX_CELLS / cols.len().max(1)).max(1);
        (rows.iter().copied().take(fit).collect(), rows.len(), cols, Some(window))
    };
    let mut cells = Vec::with_capacity(drawn.len() * cols.len());
    for &r in &drawn {
        for &c in &cols {
            let k = r * row + c;
            if k >= total {
                break; // the last row of memory is short
            }
            let (kind, index, mut tooltip) = what(k);
            let outside = window.as_ref().is_some_and(|w| !w.contains(&k));
            if outside {
                tooltip += " (outside the window)";
            }
            let label = index.clone().unwrap_or_default();
            let mut cell = Cell::new(k.saturating_mul(unit), kind, index, label, tooltip);
            cell.outside = outside;
            cells.push(cell);
        }
    }
    let what_is = if unit == 1 { "offsets" } else { "tiles" };
    let mut notes = Vec::new();
    if drawn.len() < all_rows {
        let which = if whole { "" } else { " that hold the window" };
        notes.push(format!(
            "showing the first {} of the {all_rows} rows{which} (at most {MAX_CELLS} cells per \
             panel)",
            drawn.len(),
        ));
    }
    let gaps = Gaps::between(&drawn, &cols);
    if !gaps.rows.is_empty() || !gaps.cols.is_empty() {
        let what = match (gaps.rows.is_empty(), gaps.cols.is_empty()) {
            (false, false) => "rows and columns",
            (false, true) => "rows",
            _ => "columns",
        };
        notes.push(format!("{what} holding none of the window left out (dashed lines)"));
    }
    if cells.iter().any(|c| c.outside) {
        notes.push(format!("faded: {what_is} outside the window"));
    }
    let in_units = if unit == 1 { String::new() } else { format!(" x {unit} elements") };
    let range = match (drawn.first(), cells.last()) {
        (Some(&first), Some(last)) => format!("{}..{}", first * row, last.offset / unit + 1),
        _ => String::from("0..0"),
    };
    let heading = match (whole, unit) {
        (true, 1) => format!("memory order: offsets {range}, {row} per row, each with its element"),
        (true, _) => format!(
            "memory order: tiles {range} ({unit} elements each), {row} per row, each with its \
             first element"
        ),
        (false, 1) => format!(
            "memory order: where the window is, {row} offsets per row, each with its element"
        ),
        (false, _) => format!(
            "memory order: where the window is, {row} tiles ({unit} elements each) per row, \
             each with its first element"
        ),
    };
    Panel {
        class: "memory",
        heading,
        axes: format!("rows: the first offset of each; columns: position in the row{in_units}"),
        col_labels: cols.iter().map(ToString::to_string).collect(),
        row_labels: drawn.iter().map(|r| (r * row).saturating_mul(unit).to_string()).collect(),
        cols: cols.len(),
        cells,
        frames: if unit == 1 { g.blocks.clone() } else { Vec::new() },
        colour_span: g.blocks.first().copied().unwrap_or(usize::MAX),
        closed: whole && drawn.len() == all_rows && !g.blocks.is_empty(),
        gaps,
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
    let partial = |corner: &[usize]| {
        corner.iter().zip(&extents).zip(dims).any(|((&i, &e), &d)| i.saturating_add(e) > d)
    };
    let win = window((g.rows.div_ceil(th), g.cols.div_ceil(tw)), o, "tile", MAX_CELLS)?;
    let (r0, c0) = win.origin;
    let mut cells = Vec::with_capacity(win.rows * win.cols);
    for tr in r0..r0 + win.rows {
        for tc in c0..c0 + win.cols {
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
                offset.saturating_add(unit),
                if partial { ", reaching past the array (partly padding)" } else { "" }
            );
            let mut cell = Cell::new(offset, Kind::Data, Some(ix), offset.to_string(), tooltip);
            cell.partial = partial;
            cells.push(cell);
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
        col_labels: (c0..c0 + win.cols).map(|c| (c * tw).to_string()).collect(),
        row_labels: (r0..r0 + win.rows).map(|r| (r * th).to_string()).collect(),
        cols: win.cols,
        cells,
        frames: Vec::new(),
        colour_span: unit,
        closed: false,
        gaps: Gaps::default(),
        notes: win.describe().into_iter().collect(),
    };
    let row = o.memory_row.unwrap_or_else(|| memory_row(counts, 1)).clamp(1, MAX_MEMORY_ROW);
    let whole = win.is_whole() && g.lead.is_empty();
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
    let elements = product(g.plan.dims());
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
    // Side by side when that fits a laptop's screen, else the memory panel under the
    // logical one: the picture is scaled to the page's width, so the narrower the larger
    // its text.
    let beside = MARGIN + w1 + GAP + w2 + MARGIN <= SCREEN_WIDTH;
    let (second, width, height) = if beside {
        ((MARGIN + w1 + GAP, TOP), MARGIN + w1 + GAP + w2 + MARGIN, TOP + h1.max(h2) + MARGIN)
    } else {
        (
            (MARGIN, TOP + h1 + GAP / 2),
            MARGIN + w1.max(w2) + MARGIN,
            TOP + h1 + GAP / 2 + h2 + MARGIN,
        )
    };
    let width = width.max(MARGIN + title_width);
    let mut out = String::new();
    // The natural size; the style sheet scales a wider picture down to the page.
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="xlayout-map" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11" data-shape="{}" data-mode="{}" data-panels="{}"><title>{}</title>"#,
        escape(&shape_text),
        if tiles { "tiles" } else { "elements" },
        if beside { "beside" } else { "stacked" },
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
    panels[1].write(&mut out, second.0, second.1, &mut colours);
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
