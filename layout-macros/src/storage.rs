//! Which storage a layout gets, by its elements:
//!
//! - typed storage (`TypedLayout`) when each element is a whole Rust value (no `E(n)`, or
//!   `E(n)` equal to the type's storage width), and tile access (`TiledLayout`) when its first
//!   tile level keeps each tile contiguous, with the layout of one tile: the first tile's
//!   sizes as a row-major array of their own with the later tile levels (computed by the
//!   runtime, like every other layout);
//! - packed storage (`PackedLayout`) when `E(n)` packs sub-byte elements to their own width
//!   (`element_packed_bits`);
//! - none otherwise (`E(n)` at another width, which XLA's verifier accepts): offsets and
//!   sizes only, and a warning at the `E(n)` that says so.

use layout_runtime::{element_packed_bits, ArrayShape, Layout, TileDim};
use proc_macro2::Span;

use crate::check::Checked;
use crate::text::Source;

/// The storage of one layout.
pub enum Storage {
    /// Whole elements; `Some` layout of one tile when the tiles are contiguous.
    Typed(Option<Box<Checked>>),
    /// Sub-byte elements packed to their own width.
    Packed,
    /// Elements of a width that has no storage: where `E(n)` was written, and why.
    None { at: Span, why: String },
}

/// The storage `c` gets; `source` locates its `E(n)` for the warning.
pub fn choose(c: &Checked, source: &Source) -> Storage {
    let t = c.array.element_type;
    let bits = c.plan.element_bits();
    if bits == t.byte_width() as usize * 8 {
        return Storage::Typed(tile(c));
    }
    let own = element_packed_bits(t);
    if own.is_some_and(|n| n as usize == bits) {
        return Storage::Packed;
    }
    let name = t.name();
    let why = match own {
        Some(own) if t.is_sub_byte() => format!(
            "`E({bits})` stores each `{name}` in {bits} bits: XLA accepts it, but `PackedBuffer` \
             packs `{name}` at its own width (`E({own})`) and `Buffer` stores one a byte (no \
             `E`), so `layout!` gives this layout no storage; its offsets and sizes remain"
        ),
        _ => format!(
            "`E({bits})` stores each `{name}` in {bits} bits, where the type has {}: XLA's \
             layout verifier accepts a custom element size on a type that is not sub-byte, but \
             its CPU and GPU compilers reject it (\"The XLA CPU/GPU backend does not support \
             custom element sizes on non-sub-byte types\"), and `layout!` gives this layout no \
             storage (`Buffer` needs whole elements, `PackedBuffer` a sub-byte type); its \
             offsets and sizes remain. Remove the `E({bits})`, or use a sub-byte type",
            t.byte_width() * 8
        ),
    };
    // At the `E` of `E(n)` (the runtime's map holds the number's bytes).
    let at = c.element_size_at.clone().map(|r| {
        let e = source.text[..r.start].rfind('E').unwrap_or(r.start);
        e..r.end
    });
    Storage::None { at: source.span_of(at), why }
}

/// The layout of one tile of `c` when its tiles are contiguous and fill its grid exactly.
fn tile(c: &Checked) -> Option<Box<Checked>> {
    let layout = tile_layout(c)?;
    let len = layout.plan.padded_len();
    (c.plan.grid_len() % len == 0).then(|| Box::new(layout))
}

/// The layout of one first-level tile: `None` without tiles, or when a later tile level
/// reaches beyond the axes of a first-level tile (its tiles are then not contiguous).
fn tile_layout(c: &Checked) -> Option<Checked> {
    let layout = c.array.layout_or_default();
    let (first, later) = layout.tiles.split_first()?;
    let sizes: Vec<u64> = first
        .dims
        .iter()
        .filter_map(|d| match d {
            TileDim::Size(n) => Some(*n),
            TileDim::Combine => None,
        })
        .collect();
    // After the first level, a tile is the last `sizes.len()` axes. A later level covers the
    // last `entries` axes: it must stay inside the tile, where it turns `entries` axes (less
    // those `*` merges away) into a tile-count axis and an in-tile axis each.
    let mut tile_axes = sizes.len();
    for t in later {
        let entries = t.dims.len();
        if entries > tile_axes {
            return None;
        }
        // A `*` is never last, so fewer entries merge away than there are.
        let merged = t.dims.iter().filter(|d| matches!(d, TileDim::Combine)).count();
        tile_axes = tile_axes - entries + 2 * (entries - merged);
    }
    let rank = sizes.len();
    let tile_layout = Layout { tiles: later.to_vec(), ..Layout::default_for_rank(rank) };
    Checked::of(ArrayShape::new(c.array.element_type, sizes).with_layout(tile_layout))
}
