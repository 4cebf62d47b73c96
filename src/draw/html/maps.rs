//! The maps of the page: one per distinct array shape whose layout is worth a picture (tiles,
//! padding, an order other than the default), a window of its first tiles at their natural
//! size; the other buffers are listed without one.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::draw::map::{first_tile_window, render, MapOptions};
use crate::draw::svg::escape;
use crate::hlo::{InstrId, Report};
use crate::{ArrayShape, Shape};

/// Cells of the logical panel of one map in the report: one first-level tile.
const MAP_CELLS: usize = 2048;
/// The window of a map in the report at most: readable at its natural size in a notebook's
/// width (a tile of 8 x 128 is shown by its first 32 columns, not shrunk to a strip).
const MAP_WINDOW: (usize, usize) = (8, 32);

/// Whether `shape`'s layout is worth a map: tiles, an element size of its own, tail
/// padding, or an order of dimensions other than the default. A row-major array's map shows
/// nothing its shape does not say.
pub(super) fn worth_a_map(shape: &ArrayShape) -> bool {
    match &shape.layout {
        None => false,
        Some(l) => {
            let default = (0..l.minor_to_major.len() as i64).rev().collect::<Vec<_>>();
            !l.tiles.is_empty()
                || l.element_size_in_bits != 0
                || l.tail_padding_alignment_in_elements != 1
                || l.minor_to_major != default
        }
    }
}

/// The padded buffers drawn as maps: distinct array shapes from the padding list (then the
/// others), each with the instructions that have it.
pub(super) struct Maps {
    /// (shape, its text as written in the dump, the instructions) per map.
    pub(super) shapes: Vec<(ArrayShape, String, Vec<String>)>,
    /// Instruction -> map number.
    pub(super) of_instruction: BTreeMap<InstrId, usize>,
}

impl Maps {
    /// The maps of the padded buffers of `report`'s lists, then of the arrays `live` (shape,
    /// name) names, each shape once and only if it is worth a map; `most` at most.
    pub(super) fn new(report: &Report<'_, '_>, live: &[(&str, &str)], most: usize) -> Maps {
        let a = report.analysis;
        let m = a.module;
        let mut shapes: Vec<(ArrayShape, String, Vec<String>)> = Vec::new();
        let mut of_instruction = BTreeMap::new();
        let listed =
            report.top_padding.iter().chain(&report.top_allocated).chain(&report.top_expansion);
        for &i in listed {
            if of_instruction.contains_key(&i) || a.buffers[i].owned.padding_bytes() == 0 {
                continue;
            }
            // A tuple's map is of its first padded array leaf.
            let Some(leaf) =
                a.owned_leaves(i).find(|l| l.sizes.is_some_and(|s| s.padding_bytes() > 0))
            else {
                continue;
            };
            let Some(array) = m.shape(i).and_then(|s| leaf_array(s, &leaf.index)) else { continue };
            if !worth_a_map(array) {
                continue;
            }
            let text = array.to_string();
            let k = match shapes.iter().position(|(_, t, _)| *t == text) {
                Some(k) => k,
                None if shapes.len() < most => {
                    shapes.push((array.clone(), text, Vec::new()));
                    shapes.len() - 1
                }
                None => continue,
            };
            shapes[k].2.push(m.instructions[i].name.to_string());
            of_instruction.insert(i, k);
        }
        // Then the arrays live at the peak, largest first, each map once per shape.
        for &(shape, name) in live {
            let Ok(Shape::Array(array)) = shape.parse::<Shape>() else { continue };
            if !worth_a_map(&array) {
                continue;
            }
            let text = array.to_string();
            let k = match shapes.iter().position(|(_, t, _)| *t == text) {
                Some(k) => k,
                None if shapes.len() < most => {
                    shapes.push((array, text, Vec::new()));
                    shapes.len() - 1
                }
                None => continue,
            };
            let name = name.to_string();
            if !shapes[k].2.contains(&name) {
                shapes[k].2.push(name);
            }
        }
        Maps { shapes, of_instruction }
    }

    /// The map of the array shape `text` (as XLA prints it), if there is one.
    pub(super) fn of_shape(&self, text: &str) -> Option<usize> {
        self.shapes.iter().position(|(_, t, _)| t == text)
    }

    pub(super) fn write(&self, out: &mut String, p: &str) {
        if self.shapes.is_empty() {
            return;
        }
        let _ = write!(
            out,
            "<h2 id=\"{p}maps\">Maps of the buffers</h2><p>The padded buffers of the lists and \
             the buffers live at the peak whose layout has tiles, padding or an order of its own, \
             a window of the first tiles of each shape at its natural size: left, the offset of \
             each element (padding hatched); right, memory in order, each position with the \
             element it holds.</p>",
        );
        for (k, (shape, text, names)) in self.shapes.iter().enumerate() {
            let _ = write!(
                out,
                "<section class=\"map\" id=\"{p}map-{k}\"><h3>{}</h3><p>{}</p>",
                escape(text),
                escape(&names.join(", "))
            );
            let options = window(shape);
            match render(shape, &options, false) {
                Ok(svg) => out.push_str(&svg),
                Err(e) => {
                    let _ = write!(out, "<p>No map: {}</p>", escape(e.message()));
                }
            }
            out.push_str("</section>");
        }
    }
}

/// What the map of `shape` shows: the first tile's rows (at most [`MAP_WINDOW`]'s), and
/// [`MAP_WINDOW`]'s columns of it; where the tile pads the columns, those around the last
/// column of data, half data, half padding, so the window shows where the padding starts.
/// Memory in rows as wide as the window, so neither panel is wider than a notebook.
fn window(shape: &ArrayShape) -> MapOptions {
    let (rows, cols) = first_tile_window(shape, MAP_CELLS).unwrap_or(MAP_WINDOW);
    let (rows, width) = (rows.min(MAP_WINDOW.0), cols.min(MAP_WINDOW.1));
    let data = shape.dims.last().and_then(|d| d.bound()).and_then(|n| usize::try_from(n).ok());
    let origin = match data {
        Some(n) if n < cols && n > width / 2 => n - width / 2,
        _ => 0,
    };
    MapOptions {
        origin: (0, origin),
        window: Some((rows, width)),
        memory_row: Some(MAP_WINDOW.1),
        ..MapOptions::default()
    }
}

/// The array at tuple index `index` of `shape` (`[]`: the shape itself).
fn leaf_array<'s>(shape: &'s Shape, index: &[usize]) -> Option<&'s ArrayShape> {
    match (shape, index.split_first()) {
        (Shape::Array(a) | Shape::Buffer(a), None) => Some(a),
        (Shape::Tuple(items), Some((&first, rest))) => leaf_array(items.get(first)?, rest),
        _ => None,
    }
}
