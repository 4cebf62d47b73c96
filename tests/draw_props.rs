//! Every map of every small shape agrees with the shape's plan: a logical cell shows the
//! offset of its index, a padding cell a padding position (each a different one), a memory
//! cell the index stored at its offset; a tile cell the offset of the tile's corner. The
//! memory panel shows where the window is, and tiles next to each other in memory never
//! share a colour.

use crate::support::{drawing, strategies as common};

use std::collections::BTreeSet;

use proptest::prelude::*;
use xlayout::draw::{map_svg, MapOptions};
use xlayout::{ArrayShape, ErrorKind, Plan, PrimitiveType};

/// A shape of rank 0..=4 with sizes 0..=9, any physical order, 0..=3 tile levels (with `*`)
/// and an `L` alignment; the slice index, window origin and mode to draw it with.
fn case() -> impl Strategy<Value = (ArrayShape, MapOptions)> {
    (0usize..=4)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(0usize..=9, rank),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                proptest::collection::vec(common::any_tile(), 0..=3),
                1i64..=9,
                proptest::collection::vec(0usize..=9, rank.saturating_sub(2)),
                prop_oneof![3 => Just((0, 0)), 1 => (0usize..=2, 0usize..=2)],
                proptest::option::of((1usize..=6, 1usize..=6)),
                any::<bool>(),
            )
        })
        .prop_map(|(dims, m2m, tiles, align, at, origin, window, tiles_mode)| {
            let shape = common::array_shape(PrimitiveType::F32, &dims, &m2m, &tiles, align, 0);
            // Leading indices inside their dimensions (an empty one gets 0, an error below).
            let at = at.iter().zip(&dims).map(|(&i, &d)| i % d.max(1)).collect();
            let options =
                MapOptions { at: Some(at), origin, window, tiles: tiles_mode, memory_row: None };
            (shape, options)
        })
}

fn parse_index(text: &str) -> Vec<usize> {
    if text == "()" {
        return Vec::new();
    }
    text.split(',').map(|x| x.parse().unwrap()).collect()
}

fn index_text(plan: &Plan, offset: usize) -> Option<String> {
    let ix = plan.index_of(offset)?;
    Some(if ix.is_empty() {
        String::from("()")
    } else {
        ix.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn maps_agree_with_the_plan((shape, options) in case()) {
        let Ok(plan) = shape.plan() else {
            // No index space (a `*` last in a tile): no picture either.
            prop_assert!(map_svg(&shape, &options).is_err());
            return Ok(());
        };
        let svg = match map_svg(&shape, &options) {
            Ok(svg) => svg,
            Err(e) => {
                let empty_lead = options.at.iter().flatten().zip(plan.dims()).any(|(&i, &d)| i >= d);
                let fine = match e.kind() {
                    ErrorKind::IndexOutOfBounds => options.origin != (0, 0) || empty_lead,
                    ErrorKind::CombinedDimension => options.tiles,
                    _ => false,
                };
                prop_assert!(fine, "{shape}: {}", e.message());
                return Ok(());
            }
        };
        let m = drawing::read(&svg);
        let at = options.at.clone().unwrap_or_default();
        let mut pad_offsets = BTreeSet::new();
        for cell in &m.logical.cells {
            let ix = parse_index(cell.index.as_deref().unwrap());
            if m.tiles {
                // A tile's corner: the leading indices rounded down to the tile.
                prop_assert!(ix.iter().zip(&at).all(|(i, a)| i <= a));
            } else {
                prop_assert_eq!(&ix[..at.len()], &at[..]);
            }
            if cell.pad {
                // First-level padding drawn in logical coordinates: a real padding position.
                prop_assert!(cell.offset < plan.grid_len());
                prop_assert_eq!(plan.index_of(cell.offset), None);
                prop_assert!(pad_offsets.insert(cell.offset), "{} drawn twice", cell.offset);
            } else {
                // An element, or in the tiles mode a tile's corner.
                prop_assert_eq!(plan.offset(&ix).unwrap(), cell.offset);
            }
        }
        prop_assert!(!m.tiles || options.tiles);
        let spans = xlayout::draw::tile_spans(&plan);
        let unit = if m.tiles { spans[0] } else { 1 };
        // The memory panel: rows of memory, each the same positions of its row; in order.
        let mem = &m.memory;
        let firsts: Vec<usize> = mem.cells.iter().step_by(mem.cols.max(1)).map(|c| c.offset).collect();
        for (k, cell) in mem.cells.iter().enumerate() {
            let (row, col) = (k / mem.cols, k % mem.cols);
            prop_assert_eq!(cell.offset - firsts[row], mem.cells[col].offset - firsts[0]);
            prop_assert!(k == 0 || cell.offset > mem.cells[k - 1].offset || col == 0);
            prop_assert!(cell.offset < plan.padded_len());
            prop_assert_eq!(cell.offset % unit, 0);
            let holds = index_text(&plan, cell.offset);
            prop_assert_eq!(cell.pad, holds.is_none());
            prop_assert_eq!(&cell.index, &holds);
            prop_assert_eq!(&cell.text, &holds);
        }
        prop_assert!(firsts.windows(2).all(|w| w[0] < w[1]));
        // Where the window is: every position the logical panel shows is drawn, unfaded
        // (unless the panel says it was cut); a faded one is none of them.
        let window: BTreeSet<usize> = m.logical.cells.iter().map(|c| c.offset).collect();
        let drawn: BTreeSet<usize> = mem.cells.iter().map(|c| c.offset).collect();
        let cut = mem.notes.iter().any(|n| n.starts_with("showing the first"));
        prop_assert!(cut || window.is_subset(&drawn), "{shape}: {:?}", window.difference(&drawn));
        for cell in &mem.cells {
            prop_assert_eq!(cell.outside, !window.contains(&cell.offset) && !options_whole(&m, &options, &plan));
        }
        let clashes = drawing::colour_clashes(&m, spans.first().copied().unwrap_or(usize::MAX));
        prop_assert!(clashes.is_empty(), "{shape}: {clashes:?}");
    }
}

/// Whether the logical panel shows the whole of a rank <= 2 array: then the memory panel
/// shows all of memory, nothing faded.
fn options_whole(m: &drawing::Map, options: &MapOptions, plan: &Plan) -> bool {
    plan.rank() <= 2
        && options.origin == (0, 0)
        && m.logical.notes.iter().all(|n| !n.starts_with("showing"))
}
