//! Which storage a layout gets, by its elements:
//!
//! - `TypedLayout` when each element is a whole Rust value (no `E(n)`, or `E(n)` equal to the
//!   type's storage width): typed storage of `elem::<type>`;
//! - `PackedLayout` when `E(n)` packs sub-byte elements to their own width
//!   (`element_packed_bits`): packed bytes, read and written one element at a time;
//! - `TiledLayout` for a typed layout whose first tile level keeps each tile contiguous, with
//!   a generated layout for one tile: the first tile's sizes as a row-major array of their own
//!   with the later tile levels (computed by the runtime, like every other layout).

use layout_runtime::{element_packed_bits, ArrayShape, Layout, TileDim};
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::check::Checked;
use crate::expand::{layout_type, Tiles};

/// The storage trait impls of `name`.
pub fn impls(krate: &TokenTree, name: &Ident, c: &Checked, tiles: Tiles) -> TokenStream {
    let x = quote!(#krate::__private);
    let t = c.array.element_type;
    let elem = format_ident!("{}", t.name());
    let elem = quote!(#x::elem::#elem);
    let bits = c.plan.element_bits();
    if bits == t.byte_width() as usize * 8 {
        let padded = Literal::usize_unsuffixed(c.plan.padded_len());
        let tiled = match tiles {
            Tiles::Generate => tiled(krate, name, c),
            Tiles::Skip => None,
        };
        return quote! {
            #[automatically_derived]
            impl #x::TypedLayout for #name {
                type Elem = #elem;
                type Storage = [#elem; #padded];
                const ZEROED: [#elem; #padded] = [<#elem as #x::Element>::ZERO; #padded];
            }
            #tiled
        };
    }
    if element_packed_bits(t).is_some_and(|n| n as usize == bits) {
        let bytes = Literal::usize_unsuffixed(c.plan.byte_len());
        return quote! {
            #[automatically_derived]
            impl #x::PackedLayout for #name {
                type Elem = #elem;
                type Storage = [u8; #bytes];
                const ZEROED: [u8; #bytes] = [0; #bytes];
            }
        };
    }
    // Elements packed to a width that is neither theirs nor a byte multiple: offsets and
    // sizes only.
    TokenStream::new()
}

/// `TiledLayout` for `name` and the layout type of its tile, when its tiles are contiguous.
fn tiled(krate: &TokenTree, name: &Ident, c: &Checked) -> Option<TokenStream> {
    let tile = tile_layout(c)?;
    let count = c.plan.grid_len() / tile.plan.padded_len();
    if count * tile.plan.padded_len() != c.plan.grid_len() {
        return None;
    }
    let x = quote!(#krate::__private);
    let tile_name = Ident::new("XlaTile", Span::call_site());
    let doc = format!(" One tile of `{}`: `{}`.", c.array, tile.array);
    let attrs = quote!(#[doc = #doc] #[doc(hidden)]);
    let vis: syn::Visibility = syn::parse_quote!(pub);
    let tile_type = layout_type(krate, attrs, &vis, &tile_name, &tile, Tiles::Skip);
    let count = Literal::usize_unsuffixed(count);
    Some(quote! {
        #tile_type
        #[automatically_derived]
        impl #x::TiledLayout for #name {
            type Tile = #tile_name;
            const TILE_COUNT: usize = #count;
        }
    })
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
