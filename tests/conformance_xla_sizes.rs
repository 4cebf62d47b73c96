//! Every case of tests/data/hlo/xla_sizes.json: shapes from HLO dumps and out-of-memory
//! reports (TPU tilings, `E(n)`, fp8, `<=N` dimensions, memory spaces, tuples, a token),
//! with XLA's own `ShapeUtil::ArraySize`, `ShapeUtil::ByteSizeOf(shape, 8)` and printed text
//! (jaxlib 0.10.2, called through ctypes by tests/data/hlo/generate.py).

use serde_json::Value;
use xlayout::Shape;

#[test]
fn sizes_and_text_are_xla_s() {
    let doc: Value = serde_json::from_str(include_str!("data/hlo/xla_sizes.json")).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 67);
    let mut array_sizes = 0;
    for case in cases {
        let text = case["shape"].as_str().unwrap();
        let shape: Shape = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(shape.to_string(), case["xla_printed"].as_str().unwrap(), "{text}");
        let byte_size_of = case["byte_size_of"].as_u64().unwrap();
        assert_eq!(shape.byte_size_of(8), Ok(byte_size_of), "{text}");
        match case.get("array_size").and_then(Value::as_u64) {
            Some(expected) => {
                assert_eq!(shape.byte_size(), Ok(expected), "{text}");
                array_sizes += 1;
            }
            // XLA aborts on ArraySize of anything but an array; ours is an error.
            None => assert!(shape.as_array().is_none() && shape.byte_size().is_err(), "{text}"),
        }
    }
    assert!(array_sizes > 60);
}
