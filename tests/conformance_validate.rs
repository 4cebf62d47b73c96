//! Every case of tests/data/validate.json (XLA's parser + `ShapeUtil::ValidateShape`,
//! jaxlib 0.10.2): which shapes XLA accepts, at which stage it rejects the others, and that
//! our verifier's message carries XLA's own wording.
//!
//! One known, intended difference from XLA is encoded explicitly rather than skipped: an
//! integer literal ≥ 2⁶³ is wrapped by XLA's lexer (`T(9223372036854775808)` is XLA's `T(*)`,
//! which it accepts) and rejected by our parser with `ErrorKind::IntegerOutOfRange`.

use crate::support::wraps_in_xla;
use serde_json::Value;
use xlayout::{ErrorKind, Location, Shape};

fn cases() -> Vec<Value> {
    crate::support::cases(include_str!("data/validate.json"))
}

/// Whether an error points at the right part of the shape.
type PointsAt = fn(Location) -> bool;

/// The kind of our verifier error for each XLA verifier message, and where it points.
fn expected_verifier_error(xla: &str) -> (ErrorKind, PointsAt) {
    use ErrorKind::*;
    let table: &[(&str, ErrorKind, PointsAt)] = &[
        ("index_primitive_type", IndexPrimitiveType, |l| l == Location::IndexType),
        ("pointer_primitive_type", PointerPrimitiveType, |l| l == Location::PointerType),
        ("must be positive or kCombineDimension", InvalidTileDimension, |l| {
            matches!(l, Location::TileDim { .. })
        }),
        ("layout has invalid tiles", EmptyTile, |l| matches!(l, Location::Tile(_))),
        ("minor_to_major field has duplicate", MinorToMajorDuplicate, |l| {
            matches!(l, Location::MinorToMajor(_))
        }),
        ("minor_to_major field has out-of-bounds", MinorToMajorOutOfBounds, |l| {
            matches!(l, Location::MinorToMajor(_))
        }),
        ("element_size_in_bits field is negative", NegativeElementSize, |l| {
            l == Location::ElementSize
        }),
        ("out-of-bounds physical dimension", SplitConfigDimension, |l| {
            matches!(l, Location::SplitDim(_))
        }),
        ("duplicate physical dimension", SplitConfigDuplicate, |l| {
            matches!(l, Location::SplitDim(_))
        }),
        ("strictly increasing and positive", SplitConfigIndices, |l| {
            matches!(l, Location::SplitIndex { .. })
        }),
        ("split index is out of bounds", SplitConfigIndexOutOfBounds, |l| {
            matches!(l, Location::SplitIndex { .. })
        }),
        ("size may overflow int64_t", ShapeTooLarge, |l| {
            matches!(l, Location::Shape | Location::Dim(_))
        }),
    ];
    table
        .iter()
        .find(|(needle, _, _)| xla.contains(needle))
        .map(|&(_, kind, at)| (kind, at))
        .unwrap_or_else(|| panic!("no expected kind for XLA message {xla:?}"))
}

#[test]
fn every_case_is_accepted_or_rejected_at_xlas_stage() {
    let cases = cases();
    assert_eq!(cases.len(), 186);
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for case in &cases {
        let input = case["input"].as_str().unwrap();
        let stage = case["stage"].as_str().unwrap();
        let valid = case["valid"].as_bool().unwrap();
        assert_eq!(valid, stage == "ok", "{input:?}: `valid` and `stage` disagree");
        let xla = case["error_contains"].as_str().unwrap_or("");

        if wraps_in_xla(input) {
            // Known difference: XLA wraps the literal (and accepts or aborts on the result);
            // we reject it in the parser.
            let err = Shape::parse_unvalidated(input).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::IntegerOutOfRange, "{input:?}: {err}");
            assert!(err.span().is_some(), "{input:?}: no span");
            assert_eq!(input.parse::<Shape>().unwrap_err().kind(), ErrorKind::IntegerOutOfRange);
            // Only where XLA accepts the wrapped value is the verdict different; where it
            // rejects (or aborts on) it, both reject.
            let key = if stage == "ok" { "integer >= 2^63 (known difference)" } else { stage };
            *counts.entry(key).or_default() += 1;
            continue;
        }

        match stage {
            "ok" => {
                let shape =
                    input.parse::<Shape>().unwrap_or_else(|e| panic!("{input:?} is valid: {e}"));
                assert!(shape.validate_all().is_empty(), "{input:?}: validate_all not empty");
                // The printed form validates too.
                let printed = shape.to_string();
                assert!(printed.parse::<Shape>().is_ok(), "{input:?} printed as {printed:?}");
            }
            "parser" | "parser-abort" => {
                let err = Shape::parse_unvalidated(input)
                    .err()
                    .unwrap_or_else(|| panic!("{input:?}: XLA's parser rejects it ({xla})"));
                assert!(err.span().is_some(), "{input:?}: parse error without a span");
                assert_eq!(input.parse::<Shape>().unwrap_err(), err);
            }
            "verifier" => {
                let shape = Shape::parse_unvalidated(input)
                    .unwrap_or_else(|e| panic!("{input:?}: XLA's parser accepts it: {e}"));
                let err = shape
                    .validate()
                    .err()
                    .unwrap_or_else(|| panic!("{input:?}: XLA's verifier rejects it ({xla})"));
                // Our message starts with (or contains) XLA's whole message.
                assert!(
                    err.message().contains(xla),
                    "{input:?}: message {:?} lacks XLA's {xla:?}",
                    err.message()
                );
                let (kind, at) = expected_verifier_error(xla);
                assert_eq!(err.kind(), kind, "{input:?}: {err}");
                let path = err.path().unwrap_or_else(|| panic!("{input:?}: no path"));
                assert!(at(path.location), "{input:?}: points at {:?}", path.location);
                // validate_all leads with the same error.
                assert_eq!(shape.validate_all().first(), Some(&err), "{input:?}");
                // Through FromStr the error gets the byte range of the part it names.
                let located = input.parse::<Shape>().unwrap_err();
                assert_eq!(located.kind(), kind);
                let span = located.span().unwrap_or_else(|| panic!("{input:?}: no span"));
                assert!(span.end <= input.len() && span.start < span.end, "{input:?}: {span:?}");
            }
            other => panic!("{input:?}: unknown stage {other:?}"),
        }
        *counts.entry(stage).or_default() += 1;
    }
    let total: usize = counts.values().sum();
    assert_eq!(total, 186, "{counts:?}");
    assert_eq!(counts["integer >= 2^63 (known difference)"], 1, "{counts:?}");
}

/// The check order of XLA's verifier, case by case from the data (`note: check order`).
#[test]
fn check_order_and_spans() {
    let first = |input: &str| Shape::parse_unvalidated(input).unwrap().validate().unwrap_err();
    assert_eq!(first("f32[3,5]{1,0:T(0)E(-1)}").kind(), ErrorKind::InvalidTileDimension);
    assert_eq!(first("f32[3,5]{1,0:T(0)#(u32)}").kind(), ErrorKind::IndexPrimitiveType);
    assert_eq!(first("f32[3,5]{1,1:T(0)}").kind(), ErrorKind::MinorToMajorDuplicate);
    assert_eq!(first("f32[3,5]{1,0:E(-1)SC(5:1)}").kind(), ErrorKind::NegativeElementSize);
    assert_eq!(first("f32[3,5]{1,0:T()(0)}").kind(), ErrorKind::EmptyTile);

    // Spans point at the most specific text.
    fn span(input: &str) -> &str {
        let e = input.parse::<Shape>().unwrap_err();
        &input[e.span().unwrap()]
    }
    assert_eq!(span("f32[3,5]{1,1}"), "1");
    assert_eq!(span("f32[3,5]{1,1}").as_ptr(), "f32[3,5]{1,1}"[11..].as_ptr());
    assert_eq!(span("f32[3,5]{1,0:T(2,0)}"), "0");
    assert_eq!(span("f32[3,5]{1,0:T(2,2)()}"), "()");
    assert_eq!(span("f32[3,5]{1,0:E(-1)}"), "-1");
    assert_eq!(span("f32[3,5]{1,0:#(u32)}"), "u32");
    assert_eq!(span("f32[3,5]{1,0:SC(1:3,2)}"), "2");
    assert_eq!(span("f32[3,5]{1,0:SC(0:1)(0:2)}"), "0");
    assert_eq!(span("f32[2305843009213693952]"), "f32[2305843009213693952]");
    assert_eq!(span("(f32[1], s8[2,2]{2,0})"), "2");

    // validate_all reports every problem, XLA's first one first.
    let s = Shape::parse_unvalidated("f32[3,5]{1,0:T(0,0)(2,*)(0)E(-1)SC(9:1)(0:0)}").unwrap();
    let kinds: Vec<_> = s.validate_all().iter().map(|e| e.kind()).collect();
    use ErrorKind::*;
    assert_eq!(
        kinds,
        [
            InvalidTileDimension,
            InvalidTileDimension,
            InvalidTileDimension,
            NegativeElementSize,
            SplitConfigDimension,
            SplitConfigIndices
        ]
    );
}
