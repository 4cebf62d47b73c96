//! The integration tests, one binary (ripgrep's `tests/tests.rs` and cargo's `testsuite` are
//! the model): one module per subject, linked once. What they share with each other, the
//! command's tests and the fuzz targets is one crate, [`support`] (`tests/support/`: test
//! data, conformance files, scratch folders, property-test strategies, the narrow float
//! table, SVG maps read back, the fuzz targets' properties, the hostile inputs). Two tests keep binaries of their own (Cargo.toml): `hostile` measures
//! memory with its own global allocator, and `macro_lints` sets crate-level lints on what
//! `layout!` generates. The command's tests are in `xlayout-cli/tests/`.

use std::path::Path;

use xlayout_test_support as support;

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

/// The integration tests are one binary (`autotests = false`): a file under `tests/` that
/// is neither a module of `tests/tests.rs` nor a `[[test]]` of its own would silently never
/// run. Every `tests/*.rs` must be one or the other.
#[test]
fn every_test_file_is_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let main = std::fs::read_to_string(root.join("tests/tests.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let (Some(stem), Some("rs")) =
            (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|e| e.to_str()))
        else {
            continue;
        };
        let as_module = main.lines().any(|l| l.trim() == format!("mod {stem};"));
        let as_target = manifest.contains(&format!("path = \"tests/{stem}.rs\""));
        if !as_module && !as_target {
            missing.push(stem.to_owned());
        }
    }
    assert!(missing.is_empty(), "tests/*.rs compiled by nothing: {missing:?}");
}
