//! Every case of tests/data/parse_print.json (XLA's own parser and printer, jaxlib 0.10.2):
//! what parses, what XLA prints back, and what it rejects, with the kind of our error.

use crate::support::wraps_in_xla;
use serde_json::Value;
use xlayout::{ErrorKind, Shape};

fn cases() -> Vec<Value> {
    crate::support::cases(include_str!("data/parse_print.json"))
}

/// The kind of our error for each kind of XLA failure (its message or its abort).
fn expected_kind(input: &str, xla: &str) -> &'static [ErrorKind] {
    use ErrorKind::*;
    if wraps_in_xla(input) || input.contains("18446744073709551616") {
        return &[IntegerOutOfRange];
    }
    let table: &[(&str, &[ErrorKind])] = &[
        ("Dimensions size is", &[LayoutRank]),
        ("Layout has physical shape", &[PhysicalShape]),
        ("DimLevelType", &[DimLevelType]),
        ("value >= 1", &[TailPaddingAlignment]),
        ("Tile dimension size needs", &[NegativeTileDimension]),
        ("buffer != nullptr", &[DimensionsOnNonArray]),
        ("expects integer", &[Syntax]),
        ("expects layout to end with kRbrace", &[Syntax]),
        ("expects '(' at the beginning", &[UnknownType]),
        ("expects opcode", &[Syntax]),
    ];
    // XLA parses a whole module: a name it cannot read as a type is an "unknown opcode". At
    // the start of the text that is our unknown type; after a complete shape it is extra text.
    if let Some(name) = xla.split("Unknown opcode: ").nth(1) {
        return if input.starts_with(name) { &[UnknownType] } else { &[Syntax] };
    }
    if xla == "(empty message)" {
        return if input.starts_with("b(") { &[BufferOfNonArray] } else { &[NegativeDimension] };
    }
    table
        .iter()
        .find(|(needle, _)| xla.contains(needle))
        .map(|(_, k)| *k)
        .unwrap_or_else(|| panic!("no expected kind for {input:?} ({xla})"))
}

#[test]
fn every_case_parses_prints_or_fails_as_xla_does() {
    let cases = cases();
    assert_eq!(cases.len(), 191);
    for case in &cases {
        let input = case["input"].as_str().unwrap();
        let accepts = case["parser_accepts"].as_bool().unwrap_or(false);
        let parsed = Shape::parse_unvalidated(input);
        if accepts && !wraps_in_xla(input) {
            let shape = parsed.unwrap_or_else(|e| panic!("{input:?} must parse: {e}"));
            let canonical = case["canonical"].as_str().unwrap();
            assert_eq!(shape.to_string(), canonical, "printing {input:?}");
            // Printing is a fixed point, except where XLA prints a type it cannot read back:
            // `#(f32)` prints `#(invalid)`, which XLA's own parser rejects ("expected
            // primitive type"; checked with jaxlib 0.10.2), and so does ours.
            if canonical.contains("(invalid)") {
                let err = Shape::parse_unvalidated(canonical).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::UnknownType, "re-parsing {canonical:?}");
            } else {
                let again = Shape::parse_unvalidated(canonical).unwrap();
                assert_eq!(again, shape, "re-parsing {canonical:?}");
            }
        } else {
            let xla = case["parse_error_contains"]
                .as_str()
                .or(case["crash"].as_str())
                .unwrap_or("(wraps)");
            let err = match parsed {
                Ok(s) => panic!("{input:?} must be rejected by the parser, got {s}"),
                Err(e) => e,
            };
            let kinds = expected_kind(input, xla);
            assert!(kinds.contains(&err.kind()), "{input:?}: {:?} not in {kinds:?}", err.kind());
            let span = err.span().unwrap_or_else(|| panic!("{input:?}: error has no span"));
            assert!(span.end <= input.len(), "{input:?}: span {span:?} out of the text");
            for xla_words in ["Dimensions size is", "Layout has physical shape"] {
                if xla.contains(xla_words) {
                    let wanted = xla.split(": {").next().unwrap();
                    assert!(err.message().contains(wanted), "{input:?}: {}", err.message());
                }
            }
        }
    }
}

#[test]
fn shape_api_verdicts_match() {
    for case in cases() {
        let input = case["input"].as_str().unwrap();
        let api = &case["shape_api"];
        let valid = api["valid"].as_bool().unwrap_or(false) && !wraps_in_xla(input);
        match input.parse::<Shape>() {
            Ok(s) => {
                assert!(valid, "{input:?} must be invalid");
                assert_eq!(s.to_string(), api["canonical"].as_str().unwrap());
            }
            Err(e) => assert!(!valid, "{input:?} must be valid: {e}"),
        }
    }
}

#[test]
fn error_spans_point_at_the_offending_text() {
    fn at(text: &str) -> (ErrorKind, &str) {
        let e = text.parse::<Shape>().unwrap_err();
        let span = e.span().unwrap();
        (e.kind(), &text[span])
    }
    assert_eq!(at("f32[3,5]{1,0:T(0,2)}"), (ErrorKind::InvalidTileDimension, "0"));
    assert_eq!(at("f32[3,5]{1,1}"), (ErrorKind::MinorToMajorDuplicate, "1"));
    assert_eq!(at("f33[3,5]"), (ErrorKind::UnknownType, "f33"));
    assert_eq!(at("f32[3,5]{1,0:L(0)}"), (ErrorKind::TailPaddingAlignment, "0"));
    assert_eq!(at("f32[3,5]{1,0:S(1)T(2,2)}"), (ErrorKind::Syntax, "T"));
    assert_eq!(at("f32[3,-5]"), (ErrorKind::NegativeDimension, "-5"));
    assert_eq!(at("token[1]"), (ErrorKind::DimensionsOnNonArray, "[1]"));
    assert_eq!(at("f32[3,5]{0}"), (ErrorKind::LayoutRank, "{0}"));
    assert_eq!(at("f32[3,5]{1,0:T(2,2)(0)}"), (ErrorKind::InvalidTileDimension, "0"));
    assert_eq!(at("(f32[2], s8[2]{1})"), (ErrorKind::MinorToMajorOutOfBounds, "1"));
    assert_eq!(at("(f32[2], s8[2]{1,0})"), (ErrorKind::LayoutRank, "{1,0}"));
    assert_eq!(at("f32[3,5]{}"), (ErrorKind::Syntax, "{"));
    assert_eq!(at("f32[3,5] /* open"), (ErrorKind::Syntax, "/*"));
    assert_eq!(at("f32[3,5]{1,0:T(2,2)E(-1)}"), (ErrorKind::NegativeElementSize, "-1"));
    assert_eq!(at("f32[3,5]{1,0:#(f32)}"), (ErrorKind::IndexPrimitiveType, "f32"));
}

#[test]
fn comments_and_whitespace_between_tokens() {
    let s: Shape = "f32 [ 3 , 5 ] // note\n { 1 , 0 : T ( 2 , /* x */ 2 ) }".parse().unwrap();
    assert_eq!(s.to_string(), "f32[3,5]{1,0:T(2,2)}");
}

#[test]
fn hostile_inputs_are_errors_not_panics() {
    for text in [
        "",
        "(",
        ")",
        "((",
        "f32",
        "f32[",
        "f32[3",
        "f32[3,",
        "f32[3]{",
        "f32[3]{0",
        "f32[3]{0:",
        "f32[3]{0:T",
        "f32[3]{0:T(",
        "f32[3]{0:T(2",
        "f32[3]{0:SC(",
        "f32[3]{0:SC(0",
        "b(",
        "b(f32[2]",
        "-",
        "f32[-]",
        "f32[3]{0:#(",
        "é",
        "f32[3]{0:D(",
        "f32[<=]",
        "/*",
        "//",
        "f32[3]{0:P(",
        "f32[3]{0:M(",
        "f32[3]{0:E()}",
        "(f32[1],)",
        "(,)",
        "f32[3]{0:T(*",
    ] {
        assert!(Shape::parse_unvalidated(text).is_err(), "{text:?}");
    }
}
