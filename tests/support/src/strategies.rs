//! What the property tests share: a random tile, and an array shape from plain parts.

use proptest::prelude::*;
use xlayout::{ArrayShape, Layout, PrimitiveType, Tile, TileDim};

/// A tile of 1 to 4 entries: sizes 1..=5 and `*` (`None`), never `*` last.
pub fn any_tile() -> impl Strategy<Value = Vec<Option<usize>>> {
    (1usize..=4).prop_flat_map(|n| {
        let entry = prop_oneof![3 => (1usize..=5).prop_map(Some), 1 => Just(None)];
        (proptest::collection::vec(entry, n - 1), 1usize..=5).prop_map(|(mut v, last)| {
            v.push(Some(last));
            v
        })
    })
}

/// `t[dims]{minor_to_major:T(tiles)L(align)E(element_bits)}`, `None` entries as `*`.
pub fn array_shape(
    t: PrimitiveType,
    dims: &[usize],
    minor_to_major: &[usize],
    tiles: &[Vec<Option<usize>>],
    align: i64,
    element_bits: i64,
) -> ArrayShape {
    let mut layout = Layout::new(minor_to_major.iter().map(|&d| d as i64));
    layout.tiles = tiles
        .iter()
        .map(|t| Tile {
            dims: t
                .iter()
                .map(|d| d.map_or(TileDim::Combine, |s| TileDim::Size(s as u64)))
                .collect(),
        })
        .collect();
    layout.tail_padding_alignment_in_elements = align;
    layout.element_size_in_bits = element_bits;
    ArrayShape::new(t, dims.iter().map(|&d| d as u64)).with_layout(layout)
}
