//! Lint hygiene of what `layout!` (and, with the `ffi` feature, `ffi::handler!`, whose one
//! allowance is `unsafe_code` at the FFI boundary) generates: a user crate that denies warnings, rustc's
//! allow-by-default lints that generated code could trip, clippy's pedantic and nursery
//! groups, and the restriction lints that index arithmetic and forwarding methods would trip
//! without the allowances the macro emits. `cargo clippy --all-targets -- -D warnings` (CI)
//! compiles this file, so a generated item that trips any of them fails CI; `cargo test`
//! compiles it with the rustc lints alone.
#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    missing_copy_implementations,
    unused_qualifications,
    unreachable_pub,
    trivial_casts,
    trivial_numeric_casts,
    unused_results,
    unused_import_braces,
    unused_lifetimes,
    single_use_lifetimes,
    let_underscore_drop,
    elided_lifetimes_in_paths,
    unsafe_code
)]
#![deny(clippy::pedantic, clippy::nursery)]
#![deny(
    clippy::absolute_paths,
    clippy::exhaustive_structs,
    clippy::integer_division,
    clippy::integer_division_remainder_used,
    clippy::same_name_method
)]

use xlayout::{layout, StaticLayout};

layout! {
    /// Figure 1 of XLA's tiled-layout document: power-of-two tiles.
    pub struct Figure1 = f32[3,5]{1,0:T(2,2)};
    /// Packed 4-bit elements (no typed storage).
    pub struct Packed = s4[16,256]{1,0:T(64,128)(8,1)E(4)};
    /// No elements at all.
    pub struct Empty = f32[0,5];
    /// A scalar.
    pub struct Scalar = u8[];
    /// Combined dimensions.
    pub struct Combined = f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)};
}

/// The expression form inside a function, with a tile that divides.
#[must_use]
pub const fn odd_tile_offset() -> usize {
    let odd = layout!(f32[3,5]{1,0:T(3,3)});
    odd.offset([2, 4])
}

/// An XLA FFI handler: static and dynamic buffers, an attribute, a `where` clause.
#[cfg(feature = "ffi")]
pub mod kernels {
    xlayout::ffi::handler! {
        /// `x * factor`, the rows of `y` as many as `x`'s.
        pub fn scaled(x: f32[?,4]{1,0}, w: bf16[4]{0}, factor: f32) -> (y: f32[?,4]{1,0}) where y[0] = x[0] {
            for (o, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
                *o = v * factor * w[[0]].to_f32();
            }
            Ok(())
        }
    }
    xlayout::ffi::export!(scaled);
}

#[test]
fn generated_items_work_under_strict_lints() {
    assert_eq!(Figure1.offset([2, 3]), 17);
    // (8,1) sub-tiles interleave 8 rows: column 1 of row 0 is 8 elements on.
    assert_eq!(Packed.offset([0, 1]), 8);
    assert_eq!(Empty.checked_offset([0, 0]), None);
    assert_eq!(Scalar.offset([]), 0);
    assert_eq!(Combined.offset([0, 0, 0, 0, 1]), 1);
    // T(3,3) over 3x5: tile (0,1), element (2,1) inside it.
    assert_eq!(odd_tile_offset(), 9 + 2 * 3 + 1);
}
