//! The integration tests, one binary (ripgrep's `tests/tests.rs` and cargo's `testsuite` are
//! the model): one module per subject, linked once. Shared helpers: [`support`] (test data,
//! conformance files, scratch folders), [`common`] (property-test strategies, the narrow
//! float table), [`drawing`] (reading SVG maps back) and [`checks`] (the properties the fuzz
//! targets share). Two tests keep binaries of their own (Cargo.toml): `hostile` measures
//! memory with its own global allocator, and `macro_lints` sets crate-level lints on what
//! `layout!` generates. The command's tests are in `xlayout-cli/tests/`.

mod checks;
mod common;
mod drawing;
mod support;

// XLA's own data: its tests, parser, printer and sizes.
mod conformance_byte_size;
mod conformance_parse_print;
mod conformance_primitive_types;
mod conformance_validate;
mod conformance_xla_sizes;
mod index_conformance;

// Between two layouts: reshape and transpose bitcasts, XLA's tests of them, brute force.
mod algebra_props;
mod algebra_xla;

// The runtime: text, plans, views, element types, relayout; properties over generated shapes.
mod fuzz_props;
mod heap_buffer;
mod index_props;
mod minifloats;
mod relayout_props;
mod text_props;
mod typed_elements;
mod views;

// `layout!`: what it generates, its compile errors, the crates it builds with.
mod macro_generated;
mod macro_guide;
mod macro_layouts;
mod no_std_build;
mod ui;
mod version_pins;

// XLA FFI handlers of `layout!` types, on hand-built call frames.
#[cfg(feature = "ffi")]
mod ffi;

// Whole HLO modules, their peak, out-of-memory reports.
mod hlo;
mod hlo_alloc;
mod hlo_hostile;
mod hlo_jax;
mod hlo_peak;
mod oom;

// Pictures: SVG maps and the HTML report, read back and rendered in Chromium.
mod browser;
mod draw_html;
mod draw_props;
mod draw_svg;
