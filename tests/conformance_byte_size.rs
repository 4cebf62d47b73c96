//! Every case of tests/data/byte_size.json (XLA's `ShapeUtil::ArraySize` and
//! `ShapeUtil::ByteSizeOf` with pointer size 8, jaxlib 0.10.2, plus sizes the TPU compiler
//! printed in public out-of-memory reports).
//!
//! Two kinds of case differ from XLA on purpose, and are checked as such rather than skipped:
//! * XLA aborts (`Check failed: shape.IsArray()`) on ArraySize of a tuple, token or opaque
//!   shape: ours returns `ErrorKind::NotStaticArray`.
//! * A first tile containing `*`: XLA's ArraySize computes with the sentinel −2⁶³ as if it were
//!   a size, and the data records its meaningless result (0). Ours returns
//!   `ErrorKind::CombinedDimension`; the test asserts that exactly these cases have XLA's 0.

use serde_json::Value;
use xlayout::{ErrorKind, Shape, TileDim};

fn cases() -> Vec<Value> {
    crate::support::cases(include_str!("data/byte_size.json"))
}

/// Whether the first tile of an array's layout contains `*`.
fn first_tile_combines(shape: &Shape) -> bool {
    let Some(a) = shape.as_array() else {
        return false;
    };
    let Some(layout) = &a.layout else {
        return false;
    };
    layout.tiles.first().is_some_and(|t| t.dims.contains(&TileDim::Combine))
}

/// The TPU compiler's binary-unit rendering ("570.00M", "16.00G", "61.25M").
fn binary_units(bytes: u64) -> String {
    let units = [("G", 1u64 << 30), ("M", 1 << 20), ("K", 1 << 10)];
    for (name, size) in units {
        if bytes >= size {
            return format!("{:.2}{name}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes}B")
}

#[test]
fn every_case_matches_xlas_array_size_and_byte_size_of() {
    let cases = cases();
    assert_eq!(cases.len(), 85);
    let (mut exact, mut crashes, mut combined, mut tpu) = (0, 0, 0, 0);
    for case in &cases {
        let text = case["shape"].as_str().unwrap();
        let shape: Shape = text.parse().unwrap_or_else(|e| panic!("{text:?} must parse: {e}"));

        // ByteSizeOf, pointer size 8: defined for every case.
        let byte_size_of = case["byte_size_of"].as_u64().unwrap();
        assert_eq!(shape.byte_size_of(8), Ok(byte_size_of), "ByteSizeOf {text:?}");
        if let Some(a) = shape.as_array() {
            assert_eq!(a.byte_size_of(), Ok(byte_size_of), "ByteSizeOf {text:?}");
        }

        // ArraySize.
        let xla = &case["byte_size"];
        if xla.get("crash").is_some() {
            // XLA aborts: not an array.
            assert!(shape.as_array().is_none(), "{text:?}");
            let err = shape.byte_size().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotStaticArray, "{text:?}: {err}");
            crashes += 1;
        } else if first_tile_combines(&shape) {
            // XLA's number is meaningless (it treats -2^63 as a tile size); the data has 0.
            assert_eq!(xla.as_u64(), Some(0), "{text:?}: XLA's recorded ArraySize");
            let err = shape.byte_size().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::CombinedDimension, "{text:?}: {err}");
            assert_eq!(shape.as_array().unwrap().byte_size().unwrap_err(), err);
            combined += 1;
        } else {
            let expected = xla.as_u64().unwrap();
            assert_eq!(shape.byte_size(), Ok(expected), "ArraySize {text:?}");
            assert_eq!(shape.as_array().unwrap().byte_size(), Ok(expected), "{text:?}");
            exact += 1;
        }

        // What XLA's own tests state, where the case comes from one.
        if let Some(src) = case.get("expected_by_source") {
            if let Some(v) = src.get("array_size").and_then(Value::as_u64) {
                assert_eq!(shape.byte_size(), Ok(v), "{text:?} (XLA test)");
            }
            if let Some(v) = src.get("byte_size_of").and_then(Value::as_u64) {
                assert_eq!(shape.byte_size_of(8), Ok(v), "{text:?} (XLA test)");
            }
        }
        // The TPU compiler's printed "Size" and "Unpadded size".
        if let Some(reported) = case.get("tpu_reported") {
            let size = shape.byte_size().unwrap();
            let unpadded = shape.byte_size_of(8).unwrap();
            assert_eq!(binary_units(size), reported["size"].as_str().unwrap(), "{text:?}");
            assert_eq!(binary_units(unpadded), reported["unpadded"].as_str().unwrap(), "{text:?}");
            tpu += 1;
        }
    }
    assert_eq!(exact + crashes + combined, 85);
    assert_eq!((crashes, combined, tpu), (5, 3, 10), "exact = {exact}");
}

#[test]
fn element_count_and_unbounded_dimensions() {
    let count = |t: &str| t.parse::<Shape>().unwrap().as_array().unwrap().element_count();
    assert_eq!(count("f32[<=5,3]{1,0:T(8,128)}"), Ok(15));
    assert_eq!(count("f32[]"), Ok(1));
    assert_eq!(count("f32[0,7]"), Ok(0));
    for size in [
        count("f32[?,784]"),
        "f32[?,784]".parse::<Shape>().unwrap().byte_size(),
        "f32[?,<=3]{1,0:T(8,128)}".parse::<Shape>().unwrap().byte_size_of(8),
    ] {
        assert_eq!(size.unwrap_err().kind(), ErrorKind::NotStaticArray);
    }
}
