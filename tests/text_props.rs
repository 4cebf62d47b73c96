//! The text form as a fixed point, over generated shapes: every part of the model (arrays of
//! every element type, static, bounded and unbounded dims, size 0 and 1, every layout field,
//! several tile levels with `*`, nested and empty tuples, buffers, tokens, opaque) is printed,
//! parsed back and compared: parse(print(s)) == s and print(parse(print(s))) == print(s).
//!
//! The generator makes model values the text can express, whether or not XLA's verifier would
//! accept them (the text round-trips either way); a second property puts random whitespace and
//! comments between the tokens of the printed form.

use proptest::prelude::*;
use xlayout::{ArrayShape, Dim, Layout, PrimitiveType, Shape, SplitConfig, Tile, TileDim};

fn element_type() -> impl Strategy<Value = PrimitiveType> {
    prop::sample::select(
        PrimitiveType::ALL.iter().copied().filter(|t| t.is_array_type()).collect::<Vec<_>>(),
    )
}

fn integral_type() -> impl Strategy<Value = PrimitiveType> {
    prop::sample::select(
        PrimitiveType::ALL.iter().copied().filter(|t| t.is_integral()).collect::<Vec<_>>(),
    )
}

fn size() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 0u64..9, 2 => 0u64..100_000, 1 => Just(i64::MAX as u64)]
}

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![6 => size().prop_map(Dim::Static), 1 => size().prop_map(Dim::Bounded), 1 => Just(Dim::Unbounded)]
}

fn tile() -> impl Strategy<Value = Tile> {
    let entry = prop_oneof![5 => size().prop_map(TileDim::Size), 1 => Just(TileDim::Combine)];
    prop::collection::vec(entry, 0..5).prop_map(|dims| Tile { dims })
}

fn small_i64() -> impl Strategy<Value = i64> {
    prop_oneof![4 => -3i64..20, 1 => Just(i64::MIN), 1 => Just(i64::MAX)]
}

fn layout(rank: usize) -> impl Strategy<Value = Layout> {
    (
        // minor_to_major: any numbers the parser takes (the verifier checks permutations)
        prop_oneof![
            3 => Just((0..rank as i64).rev().collect::<Vec<_>>()),
            2 => Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            1 => prop::collection::vec(small_i64(), rank..=rank),
        ],
        prop::collection::vec(tile(), 0..4),
        prop_oneof![3 => Just(1i64), 1 => 1i64..300, 1 => Just(i64::MAX)],
        prop::option::weighted(0.1, integral_type()),
        prop::option::weighted(0.1, integral_type()),
        prop_oneof![3 => Just(0i64), 1 => small_i64()],
        prop_oneof![3 => Just(0i64), 1 => small_i64()],
        prop::collection::vec(
            (small_i64(), prop::collection::vec(small_i64(), 0..4))
                .prop_map(|(dimension, split_indices)| SplitConfig { dimension, split_indices }),
            0..3,
        ),
        prop_oneof![3 => Just(0u64), 1 => 1u64..4096, 1 => Just(i64::MAX as u64)],
    )
        .prop_map(|(m2m, tiles, l, index, pointer, e, s, splits, m)| {
            let mut layout = Layout::new(m2m);
            layout.tiles = tiles;
            layout.tail_padding_alignment_in_elements = l;
            layout.index_primitive_type = index;
            layout.pointer_primitive_type = pointer;
            layout.element_size_in_bits = e;
            layout.memory_space = s;
            layout.split_configs = splits;
            layout.dynamic_shape_metadata_prefix_bytes = m;
            layout
        })
}

fn array() -> impl Strategy<Value = ArrayShape> {
    (element_type(), prop::collection::vec(dim(), 0..5)).prop_flat_map(|(element_type, dims)| {
        layout(dims.len()).prop_map(move |layout| ArrayShape {
            element_type,
            dims: dims.clone(),
            layout: Some(layout),
        })
    })
}

fn shape() -> impl Strategy<Value = Shape> {
    let leaf = prop_oneof![
        8 => array().prop_map(Shape::Array),
        1 => array().prop_map(Shape::Buffer),
        1 => Just(Shape::Token),
        1 => Just(Shape::Opaque),
    ];
    leaf.prop_recursive(3, 24, 12, |inner| {
        prop::collection::vec(inner, 0..12).prop_map(|e| Shape::Tuple(e.into()))
    })
}

/// The printed text with whitespace and comments between tokens (never inside a token or
/// inside the printer's own `/*index=N*/` comments).
fn sprinkle(text: &str, choices: &[u8]) -> String {
    let fillers = [" ", "\n", "\t ", "/* c */", "// line\n", " /**/ "];
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'<' || c == b'=';
    let bytes = text.as_bytes();
    let mut out = String::new();
    let (mut i, mut k) = (0, 0);
    while i < bytes.len() {
        let end =
            if text[i..].starts_with("/*") { i + text[i..].find("*/").unwrap() + 2 } else { i + 1 };
        out.push_str(&text[i..end]);
        // `<=` and `-5` are single tokens too: nothing goes between word-like characters.
        if end < bytes.len() && !(word(bytes[end - 1]) && word(bytes[end])) {
            let pick = choices.get(k).copied().unwrap_or(0) as usize;
            k += 1;
            if let Some(filler) = fillers.get(pick) {
                out.push_str(filler);
            }
        }
        i = end;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn print_parse_is_a_fixed_point(s in shape()) {
        let text = s.to_string();
        let parsed = Shape::parse_unvalidated(&text)
            .unwrap_or_else(|e| panic!("{text:?} does not parse: {e}"));
        prop_assert_eq!(&parsed, &s, "{}", text);
        prop_assert_eq!(parsed.to_string(), text.clone());
        // Validation gives the same verdict on the model and on the text.
        prop_assert_eq!(s.validate().is_ok(), text.parse::<Shape>().is_ok());
    }

    #[test]
    fn whitespace_and_comments_between_tokens(
        s in shape(),
        choices in prop::collection::vec(0u8..12, 0..400),
    ) {
        let text = s.to_string();
        let noisy = sprinkle(&text, &choices);
        let parsed = Shape::parse_unvalidated(&noisy)
            .unwrap_or_else(|e| panic!("{noisy:?} does not parse: {e}"));
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn no_input_panics(text in "[a-z0-9\\[\\]{}()<=?,:*#+~/ -]{0,40}") {
        let _ = text.parse::<Shape>();
    }
}
