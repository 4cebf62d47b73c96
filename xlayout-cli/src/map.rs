//! `xlayout map`: the offset of every element of a 2-D slice, drawn as a grid in the manner of
//! Figures 1 and 2 of XLA's tiled-layout document, and the padding positions in memory order.
//!
//! Tiles are separated by where memory blocks change: two neighbouring elements get a line
//! between them when they lie in different runs of the memory one first-level tile takes
//! (`offset / span` differs, the span from [`xlayout::draw::tile_spans`], as the SVG map
//! draws its frames). That is exactly a tile boundary for ordinary tilings and stays truthful
//! (it shows memory contiguity) for exotic ones.
//!
//! `--origin` and `--window` pick the part of the slice drawn, as they do for `--svg`.

use std::fmt::Write;

use xlayout::draw::{MapOptions, Window};
use xlayout::{Error, ErrorKind, Plan};

/// Rows and columns drawn when no window is given: the slice's top-left corner.
pub const DEFAULT_SIDE: usize = 32;
/// Padding positions listed at most.
const MAX_PADDING: usize = 64;
/// Grid positions scanned at most while looking for padding.
const MAX_SCAN: usize = 1 << 24;

/// The text map of the slice `options.at` picks: the window `options.origin` and
/// `options.window` choose by the SVG map's rules ([`Window`]: the same cells, cut to the same
/// cap), by default [`DEFAULT_SIDE`] rows and columns; the elements only (the SVG map also
/// draws the first-level padding around them). `options.tiles` and `options.memory_row` are
/// the SVG map's alone.
pub fn map(plan: &Plan, options: &MapOptions) -> Result<String, Error> {
    let dims = plan.dims();
    let rank = dims.len();
    let lead_len = rank.saturating_sub(2);
    let lead: Vec<usize> = options.at.clone().unwrap_or_else(|| vec![0; lead_len]);
    if lead.len() != lead_len {
        return Err(Error::new(
            ErrorKind::IndexOutOfBounds,
            format!(
                "--at needs {lead_len} entries (the dimensions before the last two of a rank-{rank} \
                 shape), got {}",
                lead.len()
            ),
        ));
    }
    if let Some((k, (&i, &d))) = lead.iter().zip(dims).enumerate().find(|(_, (&i, &d))| i >= d) {
        return Err(Error::new(
            ErrorKind::IndexOutOfBounds,
            format!("--at entry {k} is {i}, but dimension {k} has size {d}"),
        ));
    }
    let (rows, cols) = match rank {
        0 => (1, 1),
        1 => (1, dims[0]),
        _ => (dims[rank - 2], dims[rank - 1]),
    };
    let default = (DEFAULT_SIDE, DEFAULT_SIDE);
    let win = Window::new("element", (rows, cols), options.origin, options.window, default)?;
    let mut out = String::new();
    if rank > 2 {
        let at: Vec<String> = lead.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "slice [{}, :, :] of dims {dims:?}", at.join(", "));
    }
    if rows == 0 || cols == 0 {
        let _ = writeln!(out, "(no elements: the slice is {rows}x{cols})");
    } else {
        let (r0, c0) = win.origin;
        let mut offsets = vec![vec![0usize; win.cols]; win.rows];
        for (r, row) in offsets.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                let mut ix = lead.clone();
                match rank {
                    0 => {}
                    1 => ix.push(c0 + c),
                    _ => ix.extend([r0 + r, c0 + c]),
                }
                *cell = plan.offset(&ix)?;
            }
        }
        draw(&mut out, &offsets, xlayout::draw::tile_spans(plan).first().copied());
        if let Some(note) = win.describe() {
            let _ = writeln!(out, "{note}");
        }
    }
    padding(&mut out, plan);
    Ok(out)
}

/// The grid with `|` between horizontally neighbouring cells of different blocks and a `-`
/// line between vertically neighbouring ones (`+` where both meet).
fn draw(out: &mut String, offsets: &[Vec<usize>], per_tile: Option<usize>) {
    let block = |o: usize| per_tile.map_or(0, |b| o / b.max(1));
    let width = offsets.iter().flatten().max().map_or(1, |m| m.to_string().len());
    let cols = offsets[0].len();
    // A column gap gets a bar when any row has a block change there, so bars line up.
    let bar: Vec<bool> = (0..cols.saturating_sub(1))
        .map(|c| offsets.iter().any(|row| block(row[c]) != block(row[c + 1])))
        .collect();
    for (r, row) in offsets.iter().enumerate() {
        if r > 0 {
            let above = &offsets[r - 1];
            let changes: Vec<bool> = (0..cols).map(|c| block(above[c]) != block(row[c])).collect();
            if changes.iter().any(|&x| x) {
                let mut line = String::new();
                for c in 0..cols {
                    let fill = if changes[c] { '-' } else { ' ' };
                    line.extend(std::iter::repeat(fill).take(width));
                    if c + 1 < cols {
                        if bar[c] {
                            let _ = write!(line, "{fill}+{fill}");
                        } else {
                            line.push(fill);
                        }
                    }
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
        let mut line = String::new();
        for (c, o) in row.iter().enumerate() {
            let _ = write!(line, "{o:>width$}");
            if c + 1 < cols {
                line += if bar[c] { " | " } else { " " };
            }
        }
        let _ = writeln!(out, "{line}");
    }
}

/// The padding positions of the whole grid, in memory order, and the `L` tail.
fn padding(out: &mut String, plan: &Plan) {
    let logical: usize = plan.dims().iter().product();
    let inside = plan.grid_len() - logical;
    let tail = plan.padded_len() - plan.grid_len();
    if inside == 0 && tail == 0 {
        let _ = writeln!(out, "padding: none (all {} grid positions hold data)", plan.grid_len());
        return;
    }
    if inside == 0 {
        let _ = writeln!(out, "padding: none inside the grid of {} elements", plan.grid_len());
    } else {
        list_padding(out, plan, inside);
    }
    if tail > 0 {
        let _ = writeln!(
            out,
            "tail: {tail} more elements after the grid (L rounds {} up to {})",
            plan.grid_len(),
            plan.padded_len()
        );
    }
}

fn list_padding(out: &mut String, plan: &Plan, inside: usize) {
    let mut found = Vec::new();
    let mut scanned = 0;
    let mut it = plan.memory_order();
    while found.len() < inside.min(MAX_PADDING) && scanned < MAX_SCAN {
        match it.next_ref() {
            Some(None) => found.push(scanned),
            Some(Some(_)) => {}
            None => break,
        }
        scanned += 1;
    }
    let list: Vec<String> = found.iter().map(ToString::to_string).collect();
    let _ = write!(
        out,
        "padding: {inside} of {} grid positions, in memory order: {}",
        plan.grid_len(),
        list.join(", ")
    );
    if found.len() < inside {
        let _ = write!(out, ", ... ({} more", inside - found.len());
        if found.len() < inside.min(MAX_PADDING) {
            let _ = write!(out, "; stopped looking after {scanned} positions");
        }
        out.push(')');
    }
    out.push('\n');
}
