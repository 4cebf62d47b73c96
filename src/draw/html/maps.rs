//! The maps of the page: the padded buffers, one per distinct array shape.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::draw::map::{first_tile_window, render, MapOptions};
use crate::draw::svg::escape;
use crate::hlo::{InstrId, PeakRow, Report};
use crate::{ArrayShape, Shape};

/// Cells of the logical panel of one map in the report: one first-level tile.
const MAP_CELLS: usize = 2048;

/// The padded buffers drawn as maps: distinct array shapes from the padding list (then the
/// others), each with the instructions that have it.
pub(super) struct Maps {
    /// (shape, its text as written in the dump, the instructions) per map.
    pub(super) shapes: Vec<(ArrayShape, String, Vec<String>)>,
    /// Instruction -> map number.
    pub(super) of_instruction: BTreeMap<InstrId, usize>,
}

impl Maps {
    pub(super) fn new(report: &Report<'_, '_, '_>, live: &[PeakRow<'_>], most: usize) -> Maps {
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
        for r in live {
            let Ok(Shape::Array(array)) = r.shape.parse::<Shape>() else { continue };
            let text = array.to_string();
            let k = match shapes.iter().position(|(_, t, _)| *t == text) {
                Some(k) => k,
                None if shapes.len() < most => {
                    shapes.push((array, text, Vec::new()));
                    shapes.len() - 1
                }
                None => continue,
            };
            let name = r.instruction.to_string();
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
             the buffers live at the peak, one first-level tile of each shape: left, the offset \
             of each element (padding hatched); right, memory in order, each position with the \
             element it holds.</p>",
        );
        for (k, (shape, text, names)) in self.shapes.iter().enumerate() {
            let _ = write!(
                out,
                "<section class=\"map\" id=\"{p}map-{k}\"><h3>{}</h3><p>{}</p>",
                escape(text),
                escape(&names.join(", "))
            );
            let window = first_tile_window(shape, MAP_CELLS);
            let options = MapOptions { window, ..MapOptions::default() };
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

/// The array at tuple index `index` of `shape` (`[]`: the shape itself).
fn leaf_array<'s>(shape: &'s Shape, index: &[usize]) -> Option<&'s ArrayShape> {
    match (shape, index.split_first()) {
        (Shape::Array(a) | Shape::Buffer(a), None) => Some(a),
        (Shape::Tuple(items), Some((&first, rest))) => leaf_array(items.get(first)?, rest),
        _ => None,
    }
}
